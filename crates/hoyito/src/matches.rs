//! Matches between two players: the engine in process (with its evaluation weights, depth
//! or time, threads) or a program that speaks the engine protocol ([`ExternalEngine`]),
//! from random or given openings, both sides of each (game pairs), adjudicated by the
//! endgame tables or a ply cap, with Elo, normalised Elo, LOS and pentanomial counts as
//! fastchess reports them, and an optional SPRT that stops the match at its decision.
//!
//! ```
//! use hoyito::matches::{play_match, MatchOptions};
//! use hoyito::Rules;
//!
//! let options = MatchOptions { pairs: Some(2), depth: Some(2), threads: Some(1), ..MatchOptions::default() };
//! let report = play_match(&Rules::default(), &options).unwrap();
//! assert_eq!(report.games(), 4);
//! ```

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{try_write_records, Game, Move, Position, Record, Rules, Side};
use hoyito_search::{Config, Eval, Limits, Searcher, TableKind};
use hoyito_stats::{Decision, EloEstimate, MeanInterval, Outcome, Pentanomial, Sprt, Trinomial};
use hoyito_tables::Tables;
use serde::Serialize;

use crate::external::{ExternalEngine, Reply};
use crate::setup::{dispatch, read_openings, search_threads, tables_for, with_threads, Rng};

/// A match: its players, openings, limits and what it writes.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Game pairs to play (each opening twice, sides swapped); with an SPRT, the most pairs
    /// it may take (`None`: 20, or each opening of `openings` once).
    pub pairs: Option<usize>,
    /// A file of opening positions (one a line, `#` comments) played in order instead of
    /// random openings.
    pub openings: Option<PathBuf>,
    /// Time per move of both players, in milliseconds.
    pub time_ms: Option<u64>,
    /// Depth per move of both players (`None`: 8).
    pub depth: Option<u32>,
    /// Player A's depth per move (`None`: `depth`).
    pub a_depth: Option<u32>,
    /// Player B's depth per move (`None`: `depth`).
    pub b_depth: Option<u32>,
    /// A sequential probability ratio test of A against B that ends the match at its
    /// decision.
    pub sprt: Option<Sprt>,
    /// Player A's evaluation weight of the row difference.
    pub a_row: i32,
    /// Player A's evaluation weight of the non-empty-hole difference.
    pub a_mobility: i32,
    /// Player B's evaluation weight of the row difference.
    pub b_row: i32,
    /// Player B's evaluation weight of the non-empty-hole difference.
    pub b_mobility: i32,
    /// Player A's search threads.
    pub a_threads: usize,
    /// Player B's search threads.
    pub b_threads: usize,
    /// Random plies played from the start before the players take over.
    pub random_plies: usize,
    /// Seed of the random openings.
    pub seed: u64,
    /// Longest game, in plies (a longer game is scored by the captures so far).
    pub max_plies: usize,
    /// Write positions reached in the games to this file.
    pub dump: Option<PathBuf>,
    /// Plies at which positions are written.
    pub dump_plies: Vec<usize>,
    /// Games played at once (`None`: all cores).
    pub threads: Option<usize>,
    /// Transposition table size of each player, in MiB.
    pub hash_mb: usize,
    /// Player A is this program speaking the engine protocol.
    pub a_cmd: Option<String>,
    /// Player B is this program speaking the engine protocol.
    pub b_cmd: Option<String>,
    /// The milliseconds a program (`a_cmd`, `b_cmd`) has for its handshake, and for each
    /// answer beyond its move time: a program that does not answer in time loses the game
    /// on time.
    pub timeout_ms: u64,
    /// Endgame tables that end a game as soon as it enters them, with the exact result.
    pub tables: Option<PathBuf>,
    /// Write every game as a record into this folder's `match.txt`.
    pub records: Option<PathBuf>,
}

impl Default for MatchOptions {
    fn default() -> Self {
        MatchOptions {
            pairs: None,
            openings: None,
            time_ms: None,
            depth: None,
            a_depth: None,
            b_depth: None,
            sprt: None,
            a_row: Eval::default().row,
            a_mobility: Eval::default().mobility,
            b_row: 0,
            b_mobility: 0,
            a_threads: 1,
            b_threads: 1,
            random_plies: 4,
            seed: 1,
            max_plies: 600,
            dump: None,
            dump_plies: vec![4, 20, 40],
            threads: None,
            hash_mb: 16,
            a_cmd: None,
            b_cmd: None,
            timeout_ms: 10_000,
            tables: None,
            records: None,
        }
    }
}

/// A player in a match report: evaluation weights and depth.
#[derive(Serialize)]
struct Player {
    /// The program that plays, when it is not the engine in process (its evaluation
    /// weights and depth are then the program's own business).
    #[serde(skip_serializing_if = "Option::is_none")]
    program: Option<String>,
    row: i32,
    mobility: i32,
    /// Depth per move; `None` under a time limit.
    depth: Option<u32>,
    /// Search threads.
    threads: usize,
}

impl Player {
    /// The player as the report names it: its program, else its evaluation weights.
    fn label(&self) -> String {
        match &self.program {
            Some(p) => p.clone(),
            None => format!("row {}, mobility {}", self.row, self.mobility),
        }
    }

    fn limits(&self, a: &MatchOptions) -> Limits {
        match (a.time_ms, self.depth) {
            (Some(t), _) => Limits::time_ms(t),
            (None, d) => Limits::depth(d.unwrap_or(DEFAULT_MATCH_DEPTH)),
        }
    }
}

/// Depth per move of a match without --depth or --time-ms.
const DEFAULT_MATCH_DEPTH: u32 = 8;

/// An Elo estimate in a match report (see [`EloEstimate`]); an infinite interval end (a
/// score interval that passes 0 or 1) is written `null` in JSON.
#[derive(Serialize)]
struct EloReport {
    elo: f64,
    elo_error: f64,
    elo_lower: f64,
    elo_upper: f64,
    nelo: f64,
    nelo_error: f64,
    /// Likelihood of superiority of A, 0 to 1.
    los: f64,
}

impl From<EloEstimate> for EloReport {
    fn from(e: EloEstimate) -> Self {
        EloReport {
            elo: e.elo,
            elo_error: e.elo_error,
            elo_lower: e.elo_lower,
            elo_upper: e.elo_upper,
            nelo: e.nelo,
            nelo_error: e.nelo_error,
            los: e.los,
        }
    }
}

/// A mean with its 95% interval in a match report.
#[derive(Serialize)]
struct MeanReport {
    mean: f64,
    error: f64,
    lower: f64,
    upper: f64,
}

impl From<MeanInterval> for MeanReport {
    fn from(m: MeanInterval) -> Self {
        MeanReport {
            mean: m.mean,
            error: m.error,
            lower: m.lower(),
            upper: m.upper(),
        }
    }
}

/// The SPRT of a match report.
#[derive(Serialize)]
struct SprtReport {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: &'static str,
    /// The log-likelihood ratio of the game pairs played.
    llr: f64,
    lower_bound: f64,
    upper_bound: f64,
    /// `H0`, `H1` or `continue` (the pair budget ran out first).
    decision: &'static str,
}

/// What `solve match` prints. Results are A's; the Elo estimate is the pentanomial one (from
/// game pairs), as fastchess reports for paired games, and `elo_trinomial` the one from
/// single games.
#[derive(Serialize)]
pub struct MatchReport {
    games: usize,
    a: Player,
    b: Player,
    wins: u64,
    draws: u64,
    losses: u64,
    score: f64,
    /// Seeds per game.
    mean_margin: f64,
    /// Game pairs played (fewer than --pairs when the SPRT decided).
    pairs: usize,
    /// Pairs that scored 0, ½, 1, 1½ and 2 points.
    pentanomial: [u64; 5],
    /// Pairs of a win and a loss, and of two draws (both in the middle bucket).
    pairs_win_loss: u64,
    pairs_draw_draw: u64,
    /// Share of games drawn.
    draw_ratio: f64,
    /// `None` when the pairs have no spread (all scored alike).
    elo: Option<EloReport>,
    elo_trinomial: Option<EloReport>,
    /// Seeds A won by per pair (both games together), with its 95% interval.
    pair_margin: Option<MeanReport>,
    sprt: Option<SprtReport>,
}

impl MatchReport {
    /// Games played.
    pub fn games(&self) -> usize {
        self.games
    }

    /// Game pairs played (fewer than asked when the SPRT decided).
    pub fn pairs(&self) -> usize {
        self.pairs
    }
}

/// `x ± e` with a sign on `x` (`e` is `inf` when the interval is unbounded).
fn plus_minus(x: f64, e: f64) -> String {
    format!("{x:+.2} ± {e:.2}")
}

impl fmt::Display for MatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "A ({}) vs B ({}): {} games, +{} ={} -{}, score {:.3}, mean margin {:+.2} seeds for A",
            self.a.label(),
            self.b.label(),
            self.games,
            self.wins,
            self.draws,
            self.losses,
            self.score,
            self.mean_margin
        )?;
        if let (Some(da), Some(db)) = (self.a.depth, self.b.depth) {
            writeln!(f, "Depth A {da}, B {db}")?;
        }
        let [p0, p1, p2, p3, p4] = self.pentanomial;
        writeln!(
            f,
            "Pairs {}, Ptnml(0-2) [{p0}, {p1}, {p2}, {p3}, {p4}] ({} win-loss, {} draw-draw), draw ratio {:.1}%",
            self.pairs,
            self.pairs_win_loss,
            self.pairs_draw_draw,
            100.0 * self.draw_ratio
        )?;
        match &self.elo {
            Some(e) => writeln!(
                f,
                "Elo {} [{:.2}, {:.2}], nElo {}, LOS {:.2}%",
                plus_minus(e.elo, e.elo_error),
                e.elo_lower,
                e.elo_upper,
                plus_minus(e.nelo, e.nelo_error),
                100.0 * e.los
            )?,
            None => writeln!(f, "Elo: none (all pairs scored alike)")?,
        }
        if let Some(m) = &self.pair_margin {
            writeln!(
                f,
                "Margin per pair {} seeds for A",
                plus_minus(m.mean, m.error)
            )?;
        }
        if let Some(s) = &self.sprt {
            writeln!(
                f,
                "SPRT elo0={} elo1={} alpha={} beta={} ({}): LLR {:.2} ({:.2}, {:.2}), {} after {} pairs",
                s.elo0,
                s.elo1,
                s.alpha,
                s.beta,
                s.model,
                s.llr,
                s.lower_bound,
                s.upper_bound,
                match s.decision {
                    "H0" => "H0 accepted",
                    "H1" => "H1 accepted",
                    _ if s.llr.is_nan() => "undecided (the normalized model has no LLR this far from elo1)",
                    _ => "undecided",
                },
                self.pairs
            )?;
        }
        Ok(())
    }
}

/// Plays a match under `rules`.
pub fn play_match(rules: &Rules, a: &MatchOptions) -> Result<MatchReport> {
    if a.pairs == Some(0) {
        return Err(crate::error::bad_option("pairs", "must be at least 1"));
    }
    dispatch!(rules, match_sized(rules, a, a.sprt.as_ref()))
}

/// Who moves for a side in a match game: the searcher in process, or a program that speaks
/// the engine protocol with its `go` words and move time (`None`: a program that did not
/// answer its handshake in time, which loses on time at its first move).
enum Seat<'a, const W: usize> {
    Engine(&'a Searcher<W>, &'a Limits),
    External(Option<&'a mut ExternalEngine>, (&'a str, Option<Duration>)),
}

/// One played game: the final captured difference South minus North (adjudicated where the
/// game was), the side that lost on time (if one did), the dumped positions, and its
/// record.
struct Played {
    margin: i32,
    lost_on_time: Option<Side>,
    dumped: Vec<String>,
    record: Record,
}

/// One game. It ends at its end, inside the `tables` (with the exact result), or at the ply
/// cap (scored by the captures so far); the record names the adjudication.
fn play_game<const W: usize>(
    rules: &Rules,
    opening: &Opening<W>,
    mut players: [Seat<'_, W>; 2],
    tables: Option<&Tables>,
    a: &MatchOptions,
) -> Result<Played> {
    let mut dumped = Vec::new();
    let start = opening.start;
    let mut game = Game::new(*rules, start);
    let mut ply = 0;
    let mut dump = |g: &Game<W>, ply: usize| {
        if a.dump_plies.contains(&ply) && !g.is_over() {
            dumped.push(g.position().to_string());
        }
    };
    for &m in &opening.moves {
        dump(&game, ply);
        if game.play(m).is_err() {
            break;
        }
        ply += 1;
    }
    let mut adjudication = None;
    loop {
        if game.is_over() {
            break;
        }
        let p = game.position();
        if let Some(v) = tables.and_then(|t| table_value(t, &p)) {
            let v = if p.side_to_move() == Side::South {
                v
            } else {
                -v
            };
            adjudication = Some(("tables", v));
            break;
        }
        if ply >= a.max_plies {
            adjudication = Some(("ply cap", 0));
            break;
        }
        dump(&game, ply);
        let m = match &mut players[p.side_to_move().index()] {
            Seat::Engine(player, limits) => {
                player.clear();
                player.search(&p, limits).best
            }
            Seat::External(client, go) => {
                let reply = match client {
                    Some(c) => c.best(&start, game.moves(), *go)?,
                    None => Reply::TimedOut,
                };
                match reply {
                    Reply::Move(m) => m,
                    Reply::TimedOut => {
                        adjudication = Some(("time", 0));
                        break;
                    }
                }
            }
        };
        let Some(m) = m else { break };
        if let Err(e) = game.play(m) {
            bail!("a player chose move {m} in {p}: {e}");
        }
        ply += 1;
    }
    Ok(finish_game(&game, adjudication, dumped, a))
}

/// The game as played: its record, with the adjudication (`tables`, `time` or the ply cap,
/// and the seeds South is still owed) named in its tags, and its margin.
fn finish_game<const W: usize>(
    game: &Game<W>,
    adjudication: Option<(&str, i32)>,
    dumped: Vec<String>,
    a: &MatchOptions,
) -> Played {
    let p = game.position();
    let captured = p.captured(Side::South) as i32 - p.captured(Side::North) as i32;
    let mut record = Record::from_game(game);
    let lost_on_time = adjudication
        .filter(|(how, _)| *how == "time")
        .map(|_| p.side_to_move());
    let margin = match adjudication {
        Some((how, future)) => {
            let tag = match how {
                "tables" => format!("tables: exact value {future:+} for South"),
                "time" => format!(
                    "time: {} did not answer within {} ms (it loses the game)",
                    p.side_to_move(),
                    a.timeout_ms
                ),
                _ => format!("ply cap of {} plies", a.max_plies),
            };
            record.tags.push(("Adjudication".to_string(), tag));
            // The final margin, South minus North: the captures so far and the seeds the
            // exact value says South will capture net (none at the ply cap or on time).
            record.tags.push((
                "AdjudicatedMargin".to_string(),
                format!("{:+}", captured + future),
            ));
            captured + future
        }
        None => captured,
    };
    Played {
        margin,
        lost_on_time,
        dumped,
        record,
    }
}

/// The exact value of `p` for its side to move from the tables, when they hold it.
fn table_value<const W: usize>(t: &Tables, p: &Position<W>) -> Option<i32> {
    use hoyito_rules::Probe;
    if !p.is_live() || p.seeds_on_board() > Probe::<W>::max_seeds(t) {
        return None;
    }
    Probe::<W>::probe(t, p)
}

/// An opening: a start position and the plies played from it before the players take over.
struct Opening<const W: usize> {
    start: Position<W>,
    moves: Vec<Move>,
}

/// The openings of the match: the positions of --openings in order (from the first again
/// when --pairs asks for more), or `random_plies` random legal plies from the start, fixed by
/// the seed.
fn openings<const W: usize>(rules: &Rules, a: &MatchOptions) -> Result<Vec<Opening<W>>> {
    if let Some(path) = &a.openings {
        let file = read_openings(path)?;
        let mut out = Vec::with_capacity(file.len());
        for (line, d) in &file {
            let start = Position::<W>::from_diagram(rules, d)
                .with_context(|| format!("{} line {line}", path.display()))?;
            out.push(start);
        }
        let n = a.pairs.unwrap_or(out.len());
        return Ok((0..n)
            .map(|k| Opening {
                start: out[k % out.len()],
                moves: Vec::new(),
            })
            .collect());
    }
    let mut rng = Rng(a.seed);
    let start = Position::<W>::start(rules).expect("valid rules");
    Ok((0..a.pairs.unwrap_or(DEFAULT_PAIRS))
        .map(|_| {
            let mut g = Game::new(*rules, start);
            let mut moves = Vec::new();
            while moves.len() < a.random_plies && !g.is_over() {
                let list = g.position().moves(rules);
                let c = list.children();
                let m = c[(rng.next_u64() % c.len() as u64) as usize].mv;
                g.play(m).expect("a listed move is legal");
                moves.push(m);
            }
            Opening { start, moves }
        })
        .collect())
}

/// Pairs of a match without --pairs or --openings.
const DEFAULT_PAIRS: usize = 20;

/// A played pair: A's margins and outcomes as South and as North, the dumped positions,
/// and the two records.
struct PairResult {
    margins: [i32; 2],
    outcomes: [Outcome; 2],
    dumped: Vec<String>,
    records: Vec<Record>,
}

/// One side of the match, as the pairs see it: its player, its searcher's configuration,
/// its limits, its program (if external) and the `go` words that program gets.
struct Contender<'a> {
    player: &'a Player,
    config: Config,
    limits: Limits,
    cmd: Option<&'a str>,
    go: String,
    /// Its name in the records.
    name: String,
}

impl<'a> Contender<'a> {
    fn new(player: &'a Player, cmd: Option<&'a str>, a: &MatchOptions) -> Self {
        let limits = player.limits(a);
        let go = match limits {
            Limits { time: Some(t), .. } => format!("movetime {}", t.as_millis()),
            l => format!("depth {}", l.depth.unwrap_or(DEFAULT_MATCH_DEPTH)),
        };
        let threads = match player.threads {
            1 => String::new(),
            n => format!(" threads {n}"),
        };
        let name = match (cmd, player.depth) {
            (Some(c), _) => format!("{c}{threads}"),
            (None, Some(d)) => format!(
                "engine depth {d} row {} mobility {}{threads}",
                player.row, player.mobility
            ),
            (None, None) => format!(
                "engine {} ms row {} mobility {}{threads}",
                a.time_ms.unwrap_or(0),
                player.row,
                player.mobility
            ),
        };
        Contender {
            player,
            config: Config {
                threads: player.threads,
                hash_mb: a.hash_mb,
                table: TableKind::Atomic,
                eval: Eval {
                    row: player.row,
                    mobility: player.mobility,
                },
                ..Config::default()
            },
            limits,
            cmd,
            go,
            name,
        }
    }
}

/// Plays one pair: the opening with A as South, then as North, each side with a fresh
/// searcher (or program); returns A's margins, the dumped positions and the two records.
fn play_pair<const W: usize>(
    rules: &Rules,
    a: &MatchOptions,
    (ca, cb): (&Contender<'_>, &Contender<'_>),
    tables: Option<&Tables>,
    (number, opening): (usize, &Opening<W>),
) -> Result<PairResult> {
    let pa = Searcher::<W>::new(*rules, ca.config);
    let pb = Searcher::<W>::new(*rules, cb.config);
    // A program that does not end its handshake in time (`Some(None)`) loses on time.
    let timeout = Duration::from_millis(a.timeout_ms);
    let start = |c: &Contender<'_>| {
        c.cmd
            .map(|cmd| ExternalEngine::start(cmd, rules, (a.hash_mb, c.player.threads), timeout))
            .transpose()
    };
    let (mut xa, mut xb) = (start(ca)?, start(cb)?);
    let mut game = |a_south: bool| -> Result<Played> {
        let seat_a = match xa.as_mut() {
            Some(c) => Seat::External(c.as_mut(), (&ca.go, ca.limits.time)),
            None => Seat::Engine(&pa, &ca.limits),
        };
        let seat_b = match xb.as_mut() {
            Some(c) => Seat::External(c.as_mut(), (&cb.go, cb.limits.time)),
            None => Seat::Engine(&pb, &cb.limits),
        };
        let seats = if a_south {
            [seat_a, seat_b]
        } else {
            [seat_b, seat_a]
        };
        play_game(rules, opening, seats, tables, a)
    };
    // A plays South, then North.
    let mut first = game(true)?;
    let second = game(false)?;
    // A's outcome: a loss on time whatever the seeds, else the margin's sign.
    let outcome = |p: &Played, a_side: Side, margin: i32| match p.lost_on_time {
        Some(side) if side == a_side => Outcome::Loss,
        Some(_) => Outcome::Win,
        None => Outcome::from_margin(margin.into()),
    };
    let margins = [first.margin, -second.margin];
    let outcomes = [
        outcome(&first, Side::South, margins[0]),
        outcome(&second, Side::North, margins[1]),
    ];
    let mut records = Vec::new();
    for (k, (mut r, a_south)) in [(first.record, true), (second.record, false)]
        .into_iter()
        .enumerate()
    {
        (r.south, r.north) = if a_south {
            (ca.name.clone(), cb.name.clone())
        } else {
            (cb.name.clone(), ca.name.clone())
        };
        r.match_name = Some("solve match".to_string());
        r.round = Some((2 * number + k + 1) as u32);
        records.push(r);
    }
    first.dumped.extend(second.dumped);
    Ok(PairResult {
        outcomes,
        margins,
        dumped: first.dumped,
        records,
    })
}

/// The pairs played and their counts.
#[derive(Default)]
struct Tally {
    games: Trinomial,
    pairs: Pentanomial,
    results: Vec<PairResult>,
    /// The SPRT's log-likelihood ratio after the last pair (none without a test).
    llr: Option<f64>,
}

/// Plays the pairs in batches of one per worker thread and scores them in order, stopping
/// after the first pair at which the SPRT decides. Where it stops depends only on the games,
/// not on the threads: with depth limits and one search thread per player, the same
/// command gives the same match.
fn play_pairs<const W: usize>(
    openings: &[Opening<W>],
    sprt: Option<&Sprt>,
    threads: Option<usize>,
    pair: &(dyn Fn((usize, &Opening<W>)) -> Result<PairResult> + Sync),
) -> Result<Tally> {
    let mut tally = Tally::default();
    let mut failure = None;
    with_threads(threads, || {
        use rayon::prelude::*;
        let batch = if sprt.is_some() {
            rayon::current_num_threads().max(1)
        } else {
            openings.len()
        };
        'batches: for chunk in openings.chunks(batch.max(1)) {
            let first = tally.results.len();
            let played: Result<Vec<PairResult>> = chunk
                .par_iter()
                .enumerate()
                .map(|(k, o)| pair((first + k, o)))
                .collect();
            let played = match played {
                Ok(p) => p,
                Err(e) => {
                    failure = Some(e);
                    break 'batches;
                }
            };
            for r in played {
                let [x, y] = r.outcomes;
                tally.games.add(x);
                tally.games.add(y);
                tally.pairs.add_pair(x, y);
                tally.results.push(r);
                if let Some(s) = sprt {
                    let l = s.llr_pentanomial(&tally.pairs);
                    tally.llr = Some(l);
                    if s.decide(l) != Decision::Continue {
                        break 'batches;
                    }
                }
            }
        }
    })?;
    match failure {
        Some(e) => Err(e),
        None => Ok(tally),
    }
}

/// Writes the records of every game (`records`) and the dumped positions (`dump`), when
/// asked.
fn write_outputs(a: &MatchOptions, results: &[PairResult]) -> Result<()> {
    if let Some(dir) = &a.records {
        let all: Vec<Record> = results
            .iter()
            .flat_map(|r| r.records.iter().cloned())
            .collect();
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join("match.txt");
        let text = try_write_records(&all).context("cannot write the match's records")?;
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &a.dump {
        let out: String = results
            .iter()
            .flat_map(|r| r.dumped.iter().map(|l| format!("{l}\n")))
            .collect();
        std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Plays the match: the pairs ([`play_pairs`]), the files asked for, and the report.
fn match_sized<const W: usize>(
    rules: &Rules,
    a: &MatchOptions,
    sprt: Option<&Sprt>,
) -> Result<MatchReport> {
    let player =
        |program: &Option<String>, row, mobility, depth: Option<u32>, threads, flag: &str| {
            Ok::<_, anyhow::Error>(Player {
                program: program.clone(),
                row,
                mobility,
                depth: a
                    .time_ms
                    .is_none()
                    .then(|| depth.or(a.depth).unwrap_or(DEFAULT_MATCH_DEPTH)),
                threads: search_threads(Some(threads)).context(flag.to_string())?,
            })
        };
    let player_a = player(
        &a.a_cmd,
        a.a_row,
        a.a_mobility,
        a.a_depth,
        a.a_threads,
        "--a-threads",
    )?;
    let player_b = player(
        &a.b_cmd,
        a.b_row,
        a.b_mobility,
        a.b_depth,
        a.b_threads,
        "--b-threads",
    )?;
    let ca = Contender::new(&player_a, a.a_cmd.as_deref(), a);
    let cb = Contender::new(&player_b, a.b_cmd.as_deref(), a);
    let tables = tables_for(rules, a.tables.as_deref(), a.tables.is_none(), usize::MAX)?;
    let tables = tables.as_deref();
    let openings = openings::<W>(rules, a)?;
    let pair = |o: (usize, &Opening<W>)| play_pair(rules, a, (&ca, &cb), tables, o);
    let tally = play_pairs(&openings, sprt, a.threads, &pair)?;
    write_outputs(a, &tally.results)?;
    Ok(MatchReport::of(player_a, player_b, &tally, sprt))
}

impl MatchReport {
    /// The report of the pairs played.
    fn of(a: Player, b: Player, tally: &Tally, sprt: Option<&Sprt>) -> Self {
        let Tally {
            games,
            pairs,
            results,
            llr,
        } = tally;
        let pair_margin = |r: &PairResult| r.margins[0] + r.margins[1];
        let margin: i64 = results.iter().map(|r| pair_margin(r) as i64).sum();
        let n_games = 2 * results.len();
        MatchReport {
            games: n_games,
            a,
            b,
            wins: games.wins,
            draws: games.draws,
            losses: games.losses,
            score: games.score().unwrap_or(0.5),
            mean_margin: margin as f64 / n_games as f64,
            pairs: results.len(),
            pentanomial: pairs.counts(),
            pairs_win_loss: pairs.wl,
            pairs_draw_draw: pairs.dd,
            draw_ratio: games.draw_ratio().unwrap_or(0.0),
            elo: pairs.elo().map(EloReport::from),
            elo_trinomial: games.elo().map(EloReport::from),
            pair_margin: MeanInterval::from_values(results.iter().map(|r| pair_margin(r) as f64))
                .map(MeanReport::from),
            sprt: sprt.map(|s| {
                let llr = llr.unwrap_or(0.0);
                SprtReport {
                    elo0: s.elo0(),
                    elo1: s.elo1(),
                    alpha: s.alpha(),
                    beta: s.beta(),
                    model: s.model().name(),
                    llr,
                    lower_bound: s.lower_bound(),
                    upper_bound: s.upper_bound(),
                    decision: s.decide(llr).name(),
                }
            }),
        }
    }
}
