//! Play sessions: a game played over a text stream (a person against the engine, engine
//! against engine, people against each other), Hoyito III matches of rounds, and the
//! records they write.
//!
//! [`Session`] runs one game (the prompt's commands, undo and redo, hints, the ply
//! display) reading an [`Input`] and writing an [`Out`]; [`players`] holds the computer
//! players by level; [`play`] runs the games (one, or a match's rounds) and writes the
//! records. A front supplies the streams and Ctrl-C ([`interrupt`]).

pub mod players;
mod session;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context as _, Result};
use hoyito_rules::{
    try_write_records, write_records, Diagram, Game, LastFour, Note, Record, Rules, Variant, Winner,
};
use serde::Serialize;

use crate::draw::side_name;
use crate::setup::{dispatch, open_tables, position};
pub use players::{Choice, Engine, Strength};
pub use session::{Input, Played, Session};

/// The rules and start of round `round` (from 1) of a match under `rules`, whose previous
/// round ended with `previous` (RULES.md, "Matches of rounds"): the last four to the
/// capturer in rounds 1 and 2 and after a draw, else to the previous round's winner; South
/// starts the odd rounds, North the even ones.
pub fn round_start<const W: usize>(
    rules: &Rules,
    round: u32,
    previous: Option<Winner>,
) -> Result<(Rules, hoyito_rules::Position<W>)> {
    let last_four = match (round, previous) {
        (3.., Some(Winner::Side(hoyito_rules::Side::South))) => LastFour::South,
        (3.., Some(Winner::Side(hoyito_rules::Side::North))) => LastFour::North,
        _ => LastFour::Capturer,
    };
    let r = rules.to_builder().last_four(last_four).build()?;
    let mut start = hoyito_rules::Position::<W>::start(&r)?;
    if round.is_multiple_of(2) {
        start = start.with_side_flipped();
    }
    Ok((r, start))
}

/// Who plays a side, as a front names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerKind {
    /// A person, at the prompt.
    Human,
    /// The engine, at a strength.
    Engine,
    /// Uniformly random legal moves (seeded).
    Random,
}

/// A play session's players, strengths and files.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// Who plays South.
    pub south: PlayerKind,
    /// Who plays North.
    pub north: PlayerKind,
    /// Engine strength, 1 to 5 (`None` with no other strength: 3).
    pub level: Option<u8>,
    /// The engine searches this many plies a move.
    pub depth: Option<u32>,
    /// The engine searches this many milliseconds a move.
    pub time_ms: Option<u64>,
    /// The engine proves the value of every move it plays.
    pub exact: bool,
    /// South's engine level, whatever the shared strength says.
    pub south_level: Option<u8>,
    /// North's engine level.
    pub north_level: Option<u8>,
    /// South's engine depth.
    pub south_depth: Option<u32>,
    /// North's engine depth.
    pub north_depth: Option<u32>,
    /// South's engine time a move, in milliseconds.
    pub south_time_ms: Option<u64>,
    /// North's engine time a move, in milliseconds.
    pub north_time_ms: Option<u64>,
    /// The record file (`None`: a new file in `games/` of the current folder).
    pub record: Option<PathBuf>,
    /// Seed of the engine's choices at levels 1 and 2 and of the random player.
    pub seed: u64,
    /// Endgame tables: the engine plays perfectly inside them from level 3.
    pub tables: Option<PathBuf>,
    /// Play a Hoyito III match of this many rounds.
    pub rounds: Option<u32>,
    /// Start with the evaluation after each ply turned on.
    pub eval: bool,
    /// Search threads of the engine.
    pub threads: usize,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            south: PlayerKind::Human,
            north: PlayerKind::Engine,
            level: None,
            depth: None,
            time_ms: None,
            exact: false,
            south_level: None,
            north_level: None,
            south_depth: None,
            north_depth: None,
            south_time_ms: None,
            north_time_ms: None,
            record: None,
            seed: 1,
            tables: None,
            rounds: None,
            eval: false,
            threads: 1,
            hash_mb: 16,
        }
    }
}

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    /// A person at the prompt.
    Human,
    /// The engine.
    Engine(Strength),
    /// Random moves, with the seed.
    Random(u64),
}

impl Seat {
    /// The player's name in a record.
    pub fn name(&self) -> String {
        match self {
            Seat::Human => "human".to_string(),
            Seat::Engine(s) => s.name(),
            Seat::Random(seed) => format!("random seed {seed}"),
        }
    }
}

/// Where the transcript of a session goes (the `solve` command: standard output, or
/// standard error with `--json`), and whether to colour the marked holes.
pub struct Out {
    to: Box<dyn std::io::Write>,
    /// Whether to colour the marked holes.
    pub colour: bool,
}

impl Out {
    /// A transcript written to `to`, coloured when `colour`.
    pub fn new(to: Box<dyn std::io::Write>, colour: bool) -> Self {
        Out { to, colour }
    }
}

impl Out {
    /// Writes text to the transcript.
    pub fn say(&mut self, text: &str) {
        // A closed output (a pipe read no further) is not worth stopping a game for.
        let _ = self.to.write_all(text.as_bytes());
        let _ = self.to.flush();
    }

    /// Writes a prompt (no newline).
    pub fn prompt(&mut self, text: &str) {
        self.say(text);
    }
}

/// One game in the report.
#[derive(Serialize)]
pub struct GameReport {
    round: Option<u32>,
    south: String,
    north: String,
    start: String,
    last_four: String,
    plies: usize,
    end: &'static str,
    result: &'static str,
    score: [u8; 2],
    lost: u8,
}

impl GameReport {
    fn of(r: &Record) -> Self {
        GameReport {
            round: r.round,
            south: r.south.clone(),
            north: r.north.clone(),
            start: r.start.to_string(),
            last_four: r.rules.last_four().to_string(),
            plies: r.plies.len(),
            end: r.termination.tag(),
            result: r.result(),
            score: r.score,
            lost: r.lost,
        }
    }
}

/// The tally of a match.
#[derive(Serialize, Default, Clone, Debug)]
pub struct Tally {
    rounds: u32,
    played: u32,
    /// Rounds won by South and North.
    wins: [u32; 2],
    draws: u32,
    /// Seeds captured over the match by South and North.
    seeds: [u32; 2],
    /// `S`, `N`, `draw`, or `*` while the match is unfinished.
    winner: String,
}

impl Tally {
    /// The tally of a match of `rounds` rounds before its first.
    pub(crate) fn new(rounds: u32) -> Tally {
        Tally {
            rounds,
            winner: "*".to_string(),
            ..Tally::default()
        }
    }

    /// Adds a round's game.
    pub(crate) fn add(&mut self, r: &Record) {
        self.played += 1;
        match r.winner() {
            Some(Winner::Side(s)) => self.wins[s.index()] += 1,
            Some(Winner::Draw) => self.draws += 1,
            None => {}
        }
        self.seeds[0] += r.score[0] as u32;
        self.seeds[1] += r.score[1] as u32;
        self.winner = if self.played < self.rounds || !r.termination.is_finished() {
            "*".to_string()
        } else {
            // By rounds won, then by seeds over the match.
            match (self.wins[0].cmp(&self.wins[1])).then(self.seeds[0].cmp(&self.seeds[1])) {
                std::cmp::Ordering::Greater => "S".to_string(),
                std::cmp::Ordering::Less => "N".to_string(),
                std::cmp::Ordering::Equal => "draw".to_string(),
            }
        };
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "after {} of {} rounds: South {} won, North {} won, {} drawn; seeds South {} - North {}",
            self.played,
            self.rounds,
            self.wins[0],
            self.wins[1],
            self.draws,
            self.seeds[0],
            self.seeds[1]
        )?;
        match self.winner.as_str() {
            "S" => write!(f, "; South wins the match"),
            "N" => write!(f, "; North wins the match"),
            "draw" => write!(f, "; the match is drawn"),
            _ => Ok(()),
        }
    }
}

/// What a play session reports at the end (the transcript comes before it).
#[derive(Serialize)]
pub struct PlayReport {
    /// The record file written.
    record: String,
    games: Vec<GameReport>,
    #[serde(rename = "match")]
    tally: Option<Tally>,
}

impl fmt::Display for PlayReport {
    /// The text closes the transcript, whose last round already gave the match's tally.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "record written to {}", self.record)
    }
}

/// The record being played, kept for Ctrl-C: the file and its whole text.
static PENDING: Mutex<Option<(PathBuf, String)>> = Mutex::new(None);

fn set_pending(path: &Path, text: String) {
    let mut p = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    *p = Some((path.to_path_buf(), text));
}

/// The stop signal of the engine's search (the search sets it too, at a time limit).
static STOP: AtomicBool = AtomicBool::new(false);

/// Whether the engine is thinking (Ctrl-C then makes it move instead of quitting).
static THINKING: AtomicBool = AtomicBool::new(false);

/// Whether the person asked the engine to move now during this think (Ctrl-C or `stop`).
static ASKED: AtomicBool = AtomicBool::new(false);

/// The engine starts to think: the stop signal of its search, which Ctrl-C and `stop` set
/// from now on.
fn thinking_begins() -> &'static AtomicBool {
    STOP.store(false, Ordering::SeqCst);
    ASKED.store(false, Ordering::SeqCst);
    THINKING.store(true, Ordering::SeqCst);
    &STOP
}

/// Asks the thinking engine to move now; false when it was asked already in this think.
fn ask_to_move() -> bool {
    if ASKED.swap(true, Ordering::SeqCst) {
        return false;
    }
    STOP.store(true, Ordering::SeqCst);
    true
}

/// The engine has moved: Ctrl-C quits again. Whether the person asked it to move.
fn thinking_ends() -> bool {
    THINKING.store(false, Ordering::SeqCst);
    ASKED.load(Ordering::SeqCst)
}

/// What a front does on Ctrl-C during a session, as [`interrupt`] says.
pub enum Interrupt {
    /// The engine was thinking: it moves now.
    MoveNow,
    /// Quit: write the game so far (unfinished) to this file, with this text, if any.
    Quit(Option<(PathBuf, String)>),
}

/// On Ctrl-C: while the engine thinks, the first makes it move now; otherwise (at the
/// prompt, or a second Ctrl-C in the same think) the session should end, its record
/// written.
pub fn interrupt() -> Interrupt {
    if THINKING.load(Ordering::SeqCst) && ask_to_move() {
        return Interrupt::MoveNow;
    }
    Interrupt::Quit(PENDING.lock().unwrap_or_else(|e| e.into_inner()).clone())
}

/// Today's date as PGN writes it, and a time stamp for file names, from the system clock
/// (UTC).
fn now() -> (String, String) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        format!("{y:04}.{m:02}.{d:02}"),
        format!(
            "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
            rem / 3600,
            rem / 60 % 60,
            rem % 60
        ),
    )
}

/// The record file: `--record`, else a new file in `games/` of the current folder.
fn record_path(a: &PlayOptions, stamp: &str) -> Result<PathBuf> {
    if let Some(p) = &a.record {
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
        if let Some(dir) = parent {
            if !dir.is_dir() {
                return Err(crate::error::bad_option(
                    "record",
                    format!(
                        "{}: the folder {} does not exist",
                        p.display(),
                        dir.display()
                    ),
                ));
            }
        }
        if p.is_dir() {
            return Err(crate::error::bad_option(
                "record",
                format!("{} is a folder: give a file name", p.display()),
            ));
        }
        return Ok(p.clone());
    }
    let dir = PathBuf::from("games");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for n in 1.. {
        let name = if n == 1 {
            format!("{stamp}.txt")
        } else {
            format!("{stamp}-{n}.txt")
        };
        let path = dir.join(name);
        if !path.exists() {
            return Ok(path);
        }
    }
    unreachable!("some file name is free")
}

/// Everything a game needs besides its rules and start.
struct Setup {
    seats: [Seat; 2],
    strength: Strength,
    path: PathBuf,
    date: String,
}

/// Plays a session: one game from `loaded` (a record's game, whose rules replace
/// `rules`) or from `d` (`None`: the start), or a match of rounds; reads `input`, writes
/// the transcript to `out`, and writes the records.
pub fn play(
    rules: &Rules,
    d: Option<&Diagram>,
    loaded: Option<&Record>,
    a: &PlayOptions,
    mut input: Input,
    mut out: Out,
) -> Result<PlayReport> {
    let strength = match (a.level, a.depth, a.time_ms, a.exact) {
        (_, Some(d), _, _) => Strength::Depth(d),
        (_, _, Some(t), _) => Strength::TimeMs(t),
        (_, _, _, true) => Strength::Exact,
        (l, ..) => Strength::Level(l.unwrap_or(3)),
    };
    let sides = [
        (
            "south",
            a.south,
            side_strength("south", a.south_level, a.south_depth, a.south_time_ms)?,
        ),
        (
            "north",
            a.north,
            side_strength("north", a.north_level, a.north_depth, a.north_time_ms)?,
        ),
    ];
    for (name, player, own) in sides {
        if own.is_some() && player != PlayerKind::Engine {
            let fields: &'static [&'static str] = if name == "south" {
                &["south", "south_level", "south_depth", "south_time_ms"]
            } else {
                &["north", "north_level", "north_depth", "north_time_ms"]
            };
            let message = format!(
                "{name}_level, {name}_depth and {name}_time_ms set the strength of an engine: \
                 add {name} engine"
            );
            return Err(crate::error::Problem::combination(fields, message).into());
        }
    }
    let seat = |(_, p, own): (&str, PlayerKind, Option<Strength>), offset: u64| match p {
        PlayerKind::Human => Seat::Human,
        PlayerKind::Engine => Seat::Engine(own.unwrap_or(strength)),
        PlayerKind::Random => Seat::Random(a.seed.wrapping_add(offset)),
    };
    let (rules, diagram) = match loaded {
        Some(r) => (r.rules, None),
        None => (*rules, d),
    };
    if let Some(n) = a.rounds {
        if rules.variant() != Variant::Hoyito3 {
            let problem = "plays Hoyito III matches of rounds: add variant hoyito3";
            return Err(crate::error::Problem::options("match", &["variant"], problem).into());
        }
        if rules.last_four() != LastFour::Capturer {
            let problem = "sets the last-four award of each round itself: leave out last_four";
            return Err(crate::error::Problem::options("match", &["last_four"], problem).into());
        }
        if n == 0 {
            return Err(crate::error::bad_option("match", "must be at least 1"));
        }
    }
    if let Some(dir) = &a.tables {
        if rules.holes() != 6 {
            return Err(crate::error::bad_option(
                "tables",
                "cannot be used: the endgame tables are for 2x6 boards",
            ));
        }
        if !dir.is_dir() {
            return Err(crate::error::bad_option(
                "tables",
                format!("{}: no such folder", dir.display()),
            ));
        }
    }
    let (date, stamp) = now();
    let setup = Setup {
        seats: [seat(sides[0], 0), seat(sides[1], 1)],
        strength,
        path: record_path(a, &stamp)?,
        date,
    };
    // Check the start before anything is printed.
    dispatch!(rules, check_start(&rules, diagram, loaded))?;
    dispatch!(
        rules,
        play_sized(&rules, diagram, loaded, a, &setup, &mut input, &mut out)
    )
}

/// The strength one side's flags give its engine (`--south-level`, `--south-depth`,
/// `--south-time-ms`), if any.
fn side_strength(
    name: &str,
    level: Option<u8>,
    depth: Option<u32>,
    time_ms: Option<u64>,
) -> Result<Option<Strength>> {
    Ok(match (level, depth, time_ms) {
        (Some(l), ..) => Some(Strength::Level(l)),
        (_, Some(0), _) => {
            let field = if name == "south" {
                "south_depth"
            } else {
                "north_depth"
            };
            return Err(crate::error::bad_option(field, "must be at least 1"));
        }
        (_, Some(d), _) => Some(Strength::Depth(d)),
        (.., Some(0)) => {
            let field = if name == "south" {
                "south_time_ms"
            } else {
                "north_time_ms"
            };
            return Err(crate::error::bad_option(field, "must be at least 1"));
        }
        (.., Some(t)) => Some(Strength::TimeMs(t)),
        (None, None, None) => None,
    })
}

fn check_start<const W: usize>(
    rules: &Rules,
    d: Option<&Diagram>,
    loaded: Option<&Record>,
) -> Result<()> {
    match loaded {
        Some(r) => r.game::<W>().map(|_| ()).map_err(Into::into),
        None => position::<W>(rules, d).map(|_| ()),
    }
}

/// The engine of `rules`, with the tables of those rules when `--tables` is given.
fn engine<const W: usize>(
    rules: &Rules,
    a: &PlayOptions,
    setup: &Setup,
    seed: u64,
) -> Result<Engine<W>> {
    let tables = match &a.tables {
        Some(dir) => Some(Arc::new(open_tables(rules, dir, usize::MAX)?)),
        None => None,
    };
    Ok(Engine::new(
        *rules,
        setup.strength,
        tables,
        a.threads,
        a.hash_mb,
        seed,
    ))
}

fn play_sized<const W: usize>(
    rules: &Rules,
    d: Option<&Diagram>,
    loaded: Option<&Record>,
    a: &PlayOptions,
    setup: &Setup,
    input: &mut Input,
    out: &mut Out,
) -> Result<PlayReport> {
    out.say(&format!(
        "{rules}\nSouth: {}, North: {}; type help at the prompt for the commands\n",
        setup.seats[0].name(),
        setup.seats[1].name()
    ));
    let mut records: Vec<Record> = Vec::new();
    let tally = match a.rounds {
        None => {
            let (game, notes) = match loaded {
                Some(r) => (
                    r.game::<W>()?,
                    r.plies.iter().map(|p| p.note.clone()).collect(),
                ),
                None => (Game::new(*rules, position::<W>(rules, d)?), Vec::new()),
            };
            let mut eng = engine::<W>(rules, a, setup, a.seed)?;
            let (match_name, round) =
                loaded.map_or((None, None), |r| (r.match_name.clone(), r.round));
            let played = one_game(
                game,
                notes,
                &mut eng,
                a,
                setup,
                out,
                input,
                &[],
                match_name,
                round,
            );
            records.push(played.record);
            None
        }
        Some(n) => Some(play_rounds::<W>(
            rules,
            n,
            a,
            setup,
            (input, out),
            &mut records,
        )?),
    };
    write_all(&setup.path, &records)?;
    Ok(PlayReport {
        record: setup.path.display().to_string(),
        games: records.iter().map(GameReport::of).collect(),
        tally,
    })
}

/// Plays a Hoyito III match of `n` rounds from the standard start (RULES.md, "Matches of
/// rounds"), writing the records after each round into `records` and the record file.
fn play_rounds<const W: usize>(
    rules: &Rules,
    n: u32,
    a: &PlayOptions,
    setup: &Setup,
    (input, out): (&mut Input, &mut Out),
    records: &mut Vec<Record>,
) -> Result<Tally> {
    let mut tally = Tally::new(n);
    let name = format!("match of {n} rounds, {}", setup.date);
    let mut previous: Option<Winner> = None;
    for round in 1..=n {
        let (r, start) = round_start::<W>(rules, round, previous)?;
        let last_four = r.last_four();
        out.say(&format!(
            "\nround {round} of {n}: {} starts, last four to {}\n",
            side_name(start.side_to_move()),
            match last_four {
                LastFour::Capturer => "the capturer".to_string(),
                LastFour::South => "South (won the previous round)".to_string(),
                LastFour::North => "North (won the previous round)".to_string(),
            }
        ));
        let mut eng = engine::<W>(&r, a, setup, a.seed.wrapping_add(round as u64))?;
        let played = one_game(
            Game::new(r, start),
            Vec::new(),
            &mut eng,
            a,
            setup,
            out,
            input,
            records,
            Some(name.clone()),
            Some(round),
        );
        previous = played.record.winner();
        tally.add(&played.record);
        records.push(played.record);
        write_all(&setup.path, records)?;
        out.say(&format!("match {tally}\n"));
        if played.quit {
            break;
        }
    }
    Ok(tally)
}

fn write_all(path: &Path, records: &[Record]) -> Result<()> {
    std::fs::write(path, try_write_records(records)?)
        .with_context(|| format!("cannot write the record {}", path.display()))
}

/// Plays one game; `before` are the match's earlier rounds (kept with it for Ctrl-C).
#[allow(clippy::too_many_arguments)]
fn one_game<const W: usize>(
    game: Game<W>,
    notes: Vec<Option<Note>>,
    eng: &mut Engine<W>,
    a: &PlayOptions,
    setup: &Setup,
    out: &mut Out,
    input: &mut Input,
    before: &[Record],
    match_name: Option<String>,
    round: Option<u32>,
) -> Played {
    let seats = setup.seats;
    let date = setup.date.clone();
    let dress = move |r: &mut Record| {
        r.date = Some(date.clone());
        r.match_name = match_name.clone();
        r.round = round;
    };
    let path = setup.path.clone();
    let pending = move |r: &Record| {
        let mut all = before.to_vec();
        all.push(r.clone());
        // The game so far, kept for Ctrl-C: a session's own records always read back (the
        // final write checks it).
        set_pending(&path, write_records(&all));
    };
    Session::new(
        game, notes, seats, eng, a.eval, out, input, &dress, &pending,
    )
    .run()
}
