//! A game as a board front sees it: the rules and moves it is given ([`GameSpec`]) replayed
//! into what it draws ([`BoardView`]: the rows, the legal moves, the move list, the last
//! move lap by lap, the end of the game, the book's proven move values, a Hoyito III
//! match's tally), the engine's move at a level ([`engine_move`]), the opening book two
//! plies deep ([`book_tree`]) and game records read and written ([`read_games`],
//! [`record_text`]).
//!
//! Every value here is plain data that serializes to JSON: the web board (`solve serve`)
//! sends a [`GameSpec`] with each request and draws the answer, so it holds no rule of its
//! own. The spec is the whole state of a game (its rules, start and moves, and a match's
//! earlier rounds): replaying it checks every move.
//!
//! ```
//! use hoyito::board::{view, GameSpec};
//!
//! let spec = GameSpec { moves: vec![1], ..GameSpec::default() };
//! let v = view(&spec).unwrap();
//! assert_eq!(v.position, "2,7,1,6,1,6/6,6,0,1,6,6 N 0-0");
//! // RULES.md: South's 1 from the start runs five laps.
//! let laps: Vec<usize> = v.last.unwrap().laps.iter().map(|l| l.landing).collect();
//! assert_eq!(laps, [4, 9, 2, 8, 2]);
//! // An illegal move is an error that says why.
//! let bad = GameSpec { moves: vec![1, 3], ..GameSpec::default() };
//! assert!(view(&bad).unwrap_err().to_string().contains("move 2"));
//! ```

use std::path::Path;
use std::sync::atomic::AtomicBool;

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{
    read_records, Diagram, Game, LastFour, Move, MoveList, Position, Record, Rules, Side, Status,
    Variant,
};
use serde::{Deserialize, Serialize};

use crate::play::{round_start, Engine, Strength, Tally};
use crate::setup::dispatch;

/// Most moves a spec may hold (a game of Hoyito is far shorter: repetition ends it).
pub const MAX_MOVES: usize = 5000;

/// Most rounds of a Hoyito III match.
pub const MAX_ROUNDS: u32 = 99;

/// The rule options, each optional (absent: the default of RULES.md), as words:
/// `variant` `hoyito2`|`hoyito3`, `holes` 2 to 12, `seeds` 1 to 8, `last_four`
/// `capturer`|`S`|`N`, `capture_side` `any`|`opponent`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesSpec {
    /// `hoyito2` or `hoyito3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Holes a row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holes: Option<usize>,
    /// Seeds a hole at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<usize>,
    /// Who receives the last four: `capturer`, `S` or `N`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_four: Option<String>,
    /// `any` or `opponent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_side: Option<String>,
}

impl RulesSpec {
    /// The rules these options name.
    pub fn rules(&self) -> Result<Rules> {
        let mut b = Rules::builder();
        let words = [
            ("variant", self.variant.clone()),
            ("last_four", self.last_four.clone()),
            ("capture_side", self.capture_side.clone()),
        ];
        for (key, value) in words {
            if let Some(v) = value {
                b.set(key, &v)
                    .map_err(|e| anyhow::Error::new(e).context(key))?;
            }
        }
        if let Some(h) = self.holes {
            b = b.holes(h);
        }
        if let Some(s) = self.seeds {
            b = b.seeds(s);
        }
        Ok(b.build()?)
    }

    /// Every option of `rules`, spelt out.
    pub fn of(rules: &Rules) -> RulesSpec {
        RulesSpec {
            variant: Some(rules.variant().to_string()),
            holes: Some(rules.holes()),
            seeds: Some(rules.seeds()),
            last_four: Some(rules.last_four().to_string()),
            capture_side: Some(rules.capture_side().to_string()),
        }
    }
}

/// A game as a front holds it: rules, start and the moves played (extra turns included,
/// passes left out), and for a Hoyito III match its number of rounds and the moves of the
/// rounds already played.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSpec {
    /// The rules (of a match: of its first round; the later rounds' last-four award
    /// follows the match).
    #[serde(default)]
    pub rules: RulesSpec,
    /// The starting position in notation (absent: the standard start; a match always
    /// starts its rounds from the standard start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The moves played: hole numbers of the side to move.
    #[serde(default)]
    pub moves: Vec<u8>,
    /// A Hoyito III match of this many rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// The moves of the match's finished rounds, the first round first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_rounds: Vec<Vec<u8>>,
}

/// One lap of a sowing (see [`Trace`](crate::Trace)); holes are indices `0 .. 2H` in
/// sowing order (South's row, then North's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LapView {
    /// The hole the seeds were lifted from.
    pub from: usize,
    /// Seeds sown.
    pub sown: u32,
    /// The holes that received them, one a seed, in order (the origin is not skipped when
    /// a lap passes it: RULES.md).
    pub path: Vec<usize>,
    /// The hole that received the last seed.
    pub landing: usize,
    /// Seeds in the landing hole when the lap ended.
    pub seeds: u8,
}

/// A move replayed lap by lap, for an animation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TraceView {
    /// The mover, `S` or `N`.
    pub side: String,
    /// The hole played (1 .. H in the mover's row).
    #[serde(rename = "move")]
    pub mv: u8,
    /// The board before the move, in sowing order.
    pub before: Vec<u8>,
    /// Every lap.
    pub laps: Vec<LapView>,
    /// The holes captured, the landing hole first, then the chain backwards.
    pub captured_holes: Vec<usize>,
    /// The board after the move, in sowing order (before a last-four award clears it).
    pub after: Vec<u8>,
}

/// A legal move and what it leads to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveView {
    /// The hole.
    #[serde(rename = "move")]
    pub mv: u8,
    /// The position after it (and after any automatic pass).
    pub position: String,
    /// Seeds it captures (chain included, last-four award not).
    pub captured: u8,
    /// Whether the mover moves again.
    pub extra_turn: bool,
    /// Whether it ends the game.
    pub over: bool,
}

/// Each legal move of `list` and what it leads to (after any automatic pass): what the
/// board and `solve moves` show.
pub(crate) fn move_views<const W: usize>(rules: &Rules, list: &MoveList<W>) -> Vec<MoveView> {
    list.children()
        .iter()
        .map(|c| {
            let (after, status) = c.position.settle(rules);
            MoveView {
                mv: c.mv.0,
                position: after.to_string(),
                captured: c.captured,
                extra_turn: c.extra_turn,
                over: status == Status::Over,
            }
        })
        .collect()
}

/// One move of the game played so far.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlyView {
    /// The mover, `S` or `N`.
    pub side: String,
    /// The hole.
    #[serde(rename = "move")]
    pub mv: u8,
    /// Seeds captured.
    pub captured: u8,
    /// The move as a record writes it: `S5x8`, `N2`.
    pub token: String,
    /// The position after it.
    pub position: String,
}

/// A move's proven value from the opening book, for the side to move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveValue {
    /// The hole.
    #[serde(rename = "move")]
    pub mv: u8,
    /// The value for the mover: seeds it will capture from here on, net, under best play.
    pub value: i32,
}

/// Everything a board draws of a game.
#[derive(Clone, Debug, Serialize)]
pub struct BoardView {
    /// The rules of the game (of a match: of the current round), every option spelt out.
    pub rules: RulesSpec,
    /// The rules in words.
    pub rules_text: String,
    /// The start of the game (of a match: of the current round).
    pub start: String,
    /// The current position in notation (after any automatic pass).
    pub position: String,
    /// Holes a row.
    pub holes: usize,
    /// South's row in sowing order (drawn left to right, below).
    pub south: Vec<u8>,
    /// North's row in sowing order (drawn right to left, above).
    pub north: Vec<u8>,
    /// The side to move, `S` or `N`.
    pub side: String,
    /// Seeds captured by South and North.
    pub captured: [u8; 2],
    /// Seeds on the board.
    pub seeds_on_board: u32,
    /// The legal moves.
    pub moves: Vec<MoveView>,
    /// Holes whose sowing never ends (illegal).
    pub endless: Vec<u8>,
    /// The moves played.
    pub plies: Vec<PlyView>,
    /// The last move, lap by lap.
    pub last: Option<TraceView>,
    /// Whether the game is over.
    pub over: bool,
    /// How it ended: `last-four`, `no-moves` or `repetition`.
    pub end: Option<String>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The proven value of every legal move from the opening book, when it holds them all.
    pub book: Option<Vec<MoveValue>>,
    /// A match's tally (rounds won, seeds), with its current round.
    #[serde(rename = "match")]
    pub tally: Option<MatchView>,
}

/// Where a Hoyito III match stands.
#[derive(Clone, Debug, Serialize)]
pub struct MatchView {
    /// The current round (from 1).
    pub round: u32,
    /// The tally of the finished rounds (and the current one, once it is over).
    pub tally: Tally,
    /// Whether another round follows the current one once it is over.
    pub next_round: bool,
}

/// A game replayed from `start`, each move checked; an error names the move.
fn replay<const W: usize>(rules: Rules, start: Position<W>, moves: &[u8]) -> Result<Game<W>> {
    let mut game = Game::new(rules, start);
    for (k, &m) in moves.iter().enumerate() {
        let side = game.position().side_to_move();
        game.play(Move(m))
            .with_context(|| format!("move {} ({side}{m})", k + 1))?;
    }
    Ok(game)
}

/// The game of a spec (of a match: its current round), with the match's tally so far.
struct Replayed<const W: usize> {
    game: Game<W>,
    tally: Option<(u32, Tally, u32)>,
}

fn replay_spec<const W: usize>(spec: &GameSpec) -> Result<Replayed<W>> {
    let rules = spec.rules.rules()?;
    if spec.moves.len() > MAX_MOVES {
        bail!("more than {MAX_MOVES} moves");
    }
    let Some(rounds) = spec.rounds else {
        if !spec.earlier_rounds.is_empty() {
            bail!("earlier_rounds belong to a match: give rounds too");
        }
        let start = match &spec.start {
            Some(text) => {
                let d: Diagram = text
                    .parse()
                    .with_context(|| format!("bad position '{text}'"))?;
                Position::<W>::from_diagram(&rules, &d)
                    .with_context(|| format!("bad position '{text}'"))?
            }
            None => Position::<W>::start(&rules)?,
        };
        return Ok(Replayed {
            game: replay(rules, start, &spec.moves)?,
            tally: None,
        });
    };
    if rules.variant() != Variant::Hoyito3 {
        bail!("a match of rounds is played under Hoyito III (variant hoyito3)");
    }
    if rules.last_four() != LastFour::Capturer {
        bail!("a match sets the last-four award of each round itself: leave last_four out");
    }
    if spec.start.is_some() {
        bail!("a match starts every round from the standard start: leave start out");
    }
    if !(1..=MAX_ROUNDS).contains(&rounds) {
        bail!("rounds must be between 1 and {MAX_ROUNDS}");
    }
    if spec.earlier_rounds.len() >= rounds as usize {
        bail!(
            "a match of {rounds} round(s) has no round {}",
            spec.earlier_rounds.len() + 1
        );
    }
    let mut tally = Tally::new(rounds);
    let mut previous = None;
    for (k, moves) in spec.earlier_rounds.iter().enumerate() {
        let round = k as u32 + 1;
        if moves.len() > MAX_MOVES {
            bail!("round {round}: more than {MAX_MOVES} moves");
        }
        let (r, start) = round_start::<W>(&rules, round, previous)?;
        let game = replay(r, start, moves).with_context(|| format!("round {round}"))?;
        if !game.is_over() {
            bail!("round {round} is not over");
        }
        let record = Record::from_game(&game);
        previous = record.winner();
        tally.add(&record);
    }
    let round = spec.earlier_rounds.len() as u32 + 1;
    let (r, start) = round_start::<W>(&rules, round, previous)?;
    let game = replay(r, start, &spec.moves).with_context(|| format!("round {round}"))?;
    if game.is_over() {
        tally.add(&Record::from_game(&game));
    }
    Ok(Replayed {
        game,
        tally: Some((round, tally, rounds)),
    })
}

/// The rules and the current position of a spec (of a match: of its current round), as an
/// analysis takes them.
pub fn current(spec: &GameSpec) -> Result<(Rules, Diagram)> {
    let rules = spec.rules.rules()?;
    dispatch!(rules, current_sized(spec))
}

fn current_sized<const W: usize>(spec: &GameSpec) -> Result<(Rules, Diagram)> {
    let g = replay_spec::<W>(spec)?.game;
    let d: Diagram = g.position().to_string().parse()?;
    Ok((*g.rules(), d))
}

/// The board of a spec: see [`BoardView`]. An error says what is wrong (the rules, the
/// start, or which move is illegal and why).
pub fn view(spec: &GameSpec) -> Result<BoardView> {
    let rules = spec.rules.rules()?;
    dispatch!(rules, view_sized(spec))
}

fn side_letter(s: Side) -> String {
    s.letter().to_string()
}

fn view_sized<const W: usize>(spec: &GameSpec) -> Result<BoardView> {
    let Replayed { game, tally } = replay_spec::<W>(spec)?;
    let rules = *game.rules();
    let p = game.position();
    let (south, north) = p.rows();
    let list = p.moves(&rules);
    let moves = if game.is_over() {
        Vec::new()
    } else {
        move_views(&rules, &list)
    };
    let record = Record::from_game(&game);
    let plies = record
        .plies
        .iter()
        .zip(&game.positions()[1..])
        .map(|(ply, after)| PlyView {
            side: side_letter(ply.side),
            mv: ply.mv.0,
            captured: ply.captured,
            token: ply.to_string(),
            position: after.to_string(),
        })
        .collect();
    let last = match (game.moves().last(), game.positions().iter().rev().nth(1)) {
        (Some(&mv), Some(before)) => Some(trace_view(&rules, before, mv)?),
        _ => None,
    };
    let book = if game.is_over() {
        None
    } else {
        book_moves(&rules, &p)
    };
    Ok(BoardView {
        rules: RulesSpec::of(&rules),
        rules_text: rules.to_string(),
        start: game.positions()[0].to_string(),
        position: p.to_string(),
        holes: rules.holes(),
        south,
        north,
        side: side_letter(p.side_to_move()),
        captured: [p.captured(Side::South), p.captured(Side::North)],
        seeds_on_board: p.seeds_on_board(),
        moves,
        endless: if game.is_over() {
            Vec::new()
        } else {
            list.endless().map(|m| m.0).collect()
        },
        plies,
        last,
        over: game.is_over(),
        end: game.is_over().then(|| record.termination.tag().to_string()),
        result: record.result().to_string(),
        book,
        tally: tally.map(|(round, tally, rounds)| MatchView {
            round,
            next_round: round < rounds,
            tally,
        }),
    })
}

fn trace_view<const W: usize>(rules: &Rules, before: &Position<W>, mv: Move) -> Result<TraceView> {
    let t = before.trace(rules, mv)?;
    let n = 2 * before.holes();
    Ok(TraceView {
        side: side_letter(before.side_to_move()),
        mv: mv.0,
        before: (0..2 * before.holes()).map(|i| before.seeds(i)).collect(),
        laps: t
            .laps
            .iter()
            .map(|l| LapView {
                from: l.from,
                sown: l.sown,
                path: (1..=l.sown as usize).map(|k| (l.from + k) % n).collect(),
                landing: l.landing,
                seeds: l.seeds,
            })
            .collect(),
        captured_holes: t.captured_holes.clone(),
        after: t.board,
    })
}

/// The proven value of `p` for its side to move from the opening book or the certificates'
/// strategies ([`crate::strategy`]), passing first when it must.
fn book_value<const W: usize>(rules: &Rules, p: &Position<W>) -> Option<i32> {
    if let Some(v) = crate::strategy::proven_value(rules, p) {
        return Some(v);
    }
    let (settled, status) = p.settle(rules);
    if status == Status::Over {
        return Some(0);
    }
    let v = crate::strategy::proven_value(rules, &settled)?;
    Some(if settled.side_to_move() == p.side_to_move() {
        v
    } else {
        -v
    })
}

/// The proven value of every legal move of `p` from the opening book or the certificates'
/// strategies, when they hold every move's result (`None` otherwise, or when `p` has no
/// move).
pub fn book_moves<const W: usize>(rules: &Rules, p: &Position<W>) -> Option<Vec<MoveValue>> {
    let list = p.moves(rules);
    if list.is_empty() || rules.holes() != 6 {
        return None;
    }
    list.children()
        .iter()
        .map(|c| {
            let v = if c.ended_game {
                0
            } else {
                book_value(rules, &c.position)?
            };
            Some(MoveValue {
                mv: c.mv.0,
                value: c.value(v),
            })
        })
        .collect()
}

/// A move of the start with its proven value and the values of the replies after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BookMove {
    /// The hole.
    #[serde(rename = "move")]
    pub mv: u8,
    /// Its value for the side to move at the start (none when the book lacks it).
    pub value: Option<i32>,
    /// The side to move after it, `S` or `N` (the mover again after a capture).
    pub next: String,
    /// The moves after it with their values for their own mover (empty when the book
    /// lacks them).
    pub replies: Vec<MoveValue>,
}

/// The opening book two plies deep from the start of `rules`: every first move's proven
/// value and every reply's (what the book holds; empty for boards it does not cover).
///
/// ```
/// let tree = hoyito::board::book_tree(&hoyito::Rules::default()).unwrap();
/// assert_eq!(tree.len(), 6);
/// let best = tree.iter().map(|m| m.value.unwrap()).max().unwrap();
/// assert_eq!(best, -28); // the start's value, kept by move 1
/// ```
pub fn book_tree(rules: &Rules) -> Result<Vec<BookMove>> {
    dispatch!(rules, book_tree_sized(rules))
}

fn book_tree_sized<const W: usize>(rules: &Rules) -> Result<Vec<BookMove>> {
    let start = Position::<W>::start(rules)?;
    Ok(start
        .moves(rules)
        .children()
        .iter()
        .map(|c| {
            let (after, _) = c.position.settle(rules);
            let value = if c.ended_game {
                Some(c.value(0))
            } else {
                book_value(rules, &c.position).map(|v| c.value(v))
            };
            BookMove {
                mv: c.mv.0,
                value,
                next: side_letter(after.side_to_move()),
                replies: book_moves(rules, &after).unwrap_or_default(),
            }
        })
        .collect())
}

/// The engine's strength by the name a front gives it: `1` to `5` (the levels of
/// `solve play`) or `perfect` (the book, else an exact search of the position).
pub fn strength(level: &str) -> Result<Strength> {
    match level {
        "perfect" | "exact" => Ok(Strength::Exact),
        l => match l.parse::<u8>() {
            Ok(n @ 1..=5) => Ok(Strength::Level(n)),
            _ => bail!("level must be 1 to 5 or perfect, not '{l}'"),
        },
    }
}

/// The engine's move in the current position of a spec, and what it knew.
#[derive(Clone, Debug, Serialize)]
pub struct EngineMove {
    /// The hole.
    #[serde(rename = "move")]
    pub mv: u8,
    /// The value of the position for the mover, as the engine saw it.
    pub value: Option<i32>,
    /// Whether that value is proven.
    pub exact: bool,
    /// Milliseconds the choice took.
    pub time_ms: u64,
}

/// The engine's move at `level` (see [`strength`]) in the current position of `spec`, with
/// the endgame tables of `tables` where given (2x6). Setting `stop` makes it move at once
/// with what it has (a perfect player's exact search that would take too long).
pub fn engine_move(
    spec: &GameSpec,
    level: &str,
    tables: Option<&Path>,
    stop: &AtomicBool,
) -> Result<EngineMove> {
    let rules = spec.rules.rules()?;
    dispatch!(rules, engine_move_sized(spec, level, tables, stop))
}

fn engine_move_sized<const W: usize>(
    spec: &GameSpec,
    level: &str,
    tables: Option<&Path>,
    stop: &AtomicBool,
) -> Result<EngineMove> {
    let strength = strength(level)?;
    let game = replay_spec::<W>(spec)?.game;
    if game.is_over() {
        bail!("the game is over");
    }
    let rules = *game.rules();
    let p = game.position();
    let seeds = p.seeds_on_board() as usize;
    // The tables every door stands on (the small layers of the cache where no folder is
    // given).
    let tables = crate::policy::tables(&rules, tables, false, seeds, true)?;
    let mut engine = Engine::<W>::new(rules, strength, tables, 1, 16, 1 + spec.moves.len() as u64);
    let choice = engine
        .choose(&rules, &p, strength, stop)
        .context("the side to move has no legal move")?;
    Ok(EngineMove {
        mv: choice.mv.0,
        value: choice.note.value,
        exact: choice.note.exact,
        time_ms: choice.note.time_ms.unwrap_or(0),
    })
}

/// The record of a spec's game (of a match: every round so far, its current one last), in
/// the format of data/RECORDS.md, with the players' names.
pub fn record_text(spec: &GameSpec, south: &str, north: &str) -> Result<String> {
    let rules = spec.rules.rules()?;
    dispatch!(rules, record_text_sized(spec, south, north))
}

fn record_text_sized<const W: usize>(spec: &GameSpec, south: &str, north: &str) -> Result<String> {
    let mut records = Vec::new();
    let mut rounds: Vec<&[u8]> = spec.earlier_rounds.iter().map(Vec::as_slice).collect();
    rounds.push(&spec.moves);
    for (k, moves) in rounds.iter().enumerate() {
        let sub = GameSpec {
            moves: moves.to_vec(),
            earlier_rounds: spec.earlier_rounds[..k].to_vec(),
            ..spec.clone()
        };
        let game = replay_spec::<W>(&sub)?.game;
        let mut r = Record::from_game(&game);
        r.south = south.to_string();
        r.north = north.to_string();
        if let Some(n) = spec.rounds {
            r.match_name = Some(format!("match of {n} rounds"));
            r.round = Some(k as u32 + 1);
        }
        records.push(r);
    }
    Ok(hoyito_rules::try_write_records(&records)?)
}

/// A game read from a record, as a spec, with its players.
#[derive(Clone, Debug, Serialize)]
pub struct RecordGame {
    /// The game.
    pub game: GameSpec,
    /// South's player.
    pub south: String,
    /// North's player.
    pub north: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
}

/// Every game of a record text (data/RECORDS.md), each as a spec of its own (a match's
/// rounds read as games of their rules); an error names the line and column.
pub fn read_games(text: &str) -> Result<Vec<RecordGame>> {
    let records = read_records(text)?;
    if records.is_empty() {
        bail!("the record holds no game");
    }
    Ok(records
        .into_iter()
        .map(|r| {
            let standard = Position::<4>::start(&r.rules).ok() == Some(r.start);
            RecordGame {
                game: GameSpec {
                    rules: RulesSpec::of(&r.rules),
                    start: (!standard).then(|| r.start.to_string()),
                    moves: r.plies.iter().map(|p| p.mv.0).collect(),
                    rounds: None,
                    earlier_rounds: Vec::new(),
                },
                south: r.south.clone(),
                north: r.north.clone(),
                result: r.result().to_string(),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(moves: &[u8]) -> GameSpec {
        GameSpec {
            moves: moves.to_vec(),
            ..GameSpec::default()
        }
    }

    #[test]
    fn the_start_has_six_moves_and_book_values() {
        let v = view(&spec(&[])).unwrap();
        assert_eq!(v.position, "4,4,4,4,4,4/4,4,4,4,4,4 S 0-0");
        assert_eq!(v.moves.len(), 6);
        let book = v.book.expect("the start's moves are in the book");
        assert_eq!(book.iter().map(|m| m.value).max(), Some(-28));
        assert_eq!(book.iter().find(|m| m.mv == 1).unwrap().value, -28);
        assert!(v.last.is_none());
    }

    #[test]
    fn a_capture_is_traced_with_its_chain() {
        let s = GameSpec {
            start: Some("2,3,4,0,4,1/3,3,3,1,1,3 S".into()),
            moves: vec![5],
            ..GameSpec::default()
        };
        let v = view(&s).unwrap();
        let t = v.last.unwrap();
        assert_eq!(t.captured_holes, [8, 7, 6]);
        assert_eq!(v.position, "2,3,4,0,0,2/0,0,0,1,1,3 S 12-0");
        assert_eq!(v.plies[0].token, "S5x12");
    }

    /// The laps' paths, sown from the board before the move, with the captured holes
    /// emptied, give the board after it.
    #[test]
    fn the_paths_of_the_laps_give_the_board_after_the_move() {
        let stop = AtomicBool::new(false);
        let mut s = spec(&[]);
        // A game of the level-1 engine against itself, 40 moves at most.
        for _ in 0..40 {
            let mv = engine_move(&s, "1", None, &stop).unwrap().mv;
            s.moves.push(mv);
            let v = view(&s).unwrap();
            let t = v.last.unwrap();
            let mut board = t.before.clone();
            for lap in &t.laps {
                assert_eq!(lap.path.len(), lap.sown as usize);
                assert_eq!(lap.path.last(), Some(&lap.landing));
                board[lap.from] = 0;
                for &h in &lap.path {
                    board[h] += 1;
                }
                assert_eq!(board[lap.landing], lap.seeds);
            }
            for &h in &t.captured_holes {
                board[h] = 0;
            }
            assert_eq!(board, t.after);
            if v.over {
                break;
            }
        }
    }

    #[test]
    fn bad_input_is_an_error_with_a_message() {
        let bad_rules = GameSpec {
            rules: RulesSpec {
                holes: Some(13),
                ..RulesSpec::default()
            },
            ..GameSpec::default()
        };
        assert!(view(&bad_rules).is_err());
        let bad_start = GameSpec {
            start: Some("1,2/3".into()),
            ..GameSpec::default()
        };
        assert!(view(&bad_start)
            .unwrap_err()
            .to_string()
            .contains("bad position"));
        assert!(view(&spec(&[7])).is_err());
        assert!(view(&spec(&[0])).is_err());
    }

    #[test]
    fn a_record_round_trips() {
        let s = spec(&[1, 2, 3]);
        let text = record_text(&s, "Ana", "engine level 3").unwrap();
        let games = read_games(&text).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].game.moves, [1, 2, 3]);
        assert_eq!(games[0].south, "Ana");
        assert_eq!(
            view(&games[0].game).unwrap().position,
            view(&s).unwrap().position
        );
    }

    #[test]
    fn a_match_plays_its_rounds() {
        let rules = RulesSpec {
            variant: Some("hoyito3".into()),
            ..RulesSpec::default()
        };
        // Round 1 played to its end by the engine at level 1.
        let mut s = GameSpec {
            rules,
            rounds: Some(3),
            ..GameSpec::default()
        };
        let stop = AtomicBool::new(false);
        while !view(&s).unwrap().over {
            let m = engine_move(&s, "1", None, &stop).unwrap();
            s.moves.push(m.mv);
        }
        let v = view(&s).unwrap();
        let m = v.tally.unwrap();
        assert_eq!(m.round, 1);
        assert!(m.next_round);
        s.earlier_rounds.push(std::mem::take(&mut s.moves));
        let v = view(&s).unwrap();
        assert_eq!(v.tally.unwrap().round, 2);
        assert_eq!(v.side, "N", "North starts round 2");
        let text = record_text(&s, "a", "b").unwrap();
        assert_eq!(read_games(&text).unwrap().len(), 2);
        // Round 2 is not over: a third round cannot follow.
        s.earlier_rounds.push(Vec::new());
        assert!(view(&s).unwrap_err().to_string().contains("not over"));
    }

    #[test]
    fn the_book_tree_has_two_plies() {
        let tree = book_tree(&Rules::default()).unwrap();
        assert_eq!(tree.len(), 6);
        assert!(tree.iter().all(|m| m.value.is_some()));
        assert!(tree.iter().any(|m| !m.replies.is_empty()));
    }

    #[test]
    fn levels_parse() {
        assert_eq!(strength("perfect").unwrap(), Strength::Exact);
        assert_eq!(strength("3").unwrap(), Strength::Level(3));
        assert!(strength("6").is_err());
    }
}
