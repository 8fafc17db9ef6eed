//! The one answer to "what is the best move here, and what is it worth?": [`decide`], which
//! every front calls (`solve best`, the play levels and hints, the engine protocol's `go`,
//! the web board's analysis and engine, Python's `best`, `Opponent` and environments). A
//! front only chooses the limits ([`Ask`]) and how to show the answer ([`Decision`]).
//!
//! The order, the same everywhere:
//!
//! 1. the opening book and the certificates' strategies (a proven value at once);
//! 2. the endgame tables (whatever the limits: a look-up a move) and small components: an
//!    exact search where it is quick;
//! 3. a proof within a short budget ([`QUICK_PROOF_SHARE`] of the time, or all of it when a
//!    proof is asked with a time limit);
//! 4. the limited search, whose estimate is kept within the bounds the proof found; where
//!    the certificates prove the mover's own bound, their move, which keeps it.
//!
//! The tables a door stands on come from one place too: [`tables`].

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hoyito_rules::{Move, Position, Rules};
use hoyito_search::{Limits, SearchResult, Searcher};
use hoyito_tables::Tables;
use serde::Serialize;

use crate::setup::tables_for;

/// Time a search gets when no limit is given and the position is too large to solve
/// quickly.
pub const DEFAULT_TIME_MS: u64 = 3000;

/// Time a perfect player (the perfect level at every door) gives the proof of a position
/// before it plays its best estimate.
pub const PERFECT_TIME_MS: u64 = 5000;

/// The share of the time (1 in this many) that the default answer gives a proof attempt
/// before the limited search takes the rest.
pub const QUICK_PROOF_SHARE: u32 = 3;

/// The share of a proof's time limit (1 in this many) kept for the estimate, should the
/// proof not finish.
const ESTIMATE_SHARE: u32 = 4;

/// The least time left for which an estimate is searched after a proof that did not finish
/// (with less, the proof's own answer stands, so that the time limit holds).
const LEAST_ESTIMATE: Duration = Duration::from_millis(50);

/// What a front asks of [`decide`]: limits, or none (the default answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ask {
    /// Search to this depth (plies; extra turns count): a limited search.
    pub depth: Option<u32>,
    /// Wall-clock time for everything (a limited search, or the proof's budget with
    /// `exact`).
    pub time: Option<Duration>,
    /// Nodes, all threads together.
    pub nodes: Option<u64>,
    /// A proof: the exact value, or, under a time limit it cannot meet, the best estimate
    /// within the bounds it proved (the perfect level).
    pub exact: bool,
    /// When the opening book and the certificates answer.
    pub book: BookUse,
}

/// When [`decide`] asks the opening book and the certificates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BookUse {
    /// Unless a limited search was asked (the default).
    #[default]
    Unlimited,
    /// Always, also before a limited search (a play session's analysis at the engine's
    /// depth).
    Always,
    /// Never.
    Never,
}

impl Ask {
    /// The default answer: proven where that is quick, else the best estimate within
    /// [`DEFAULT_TIME_MS`].
    pub fn best() -> Self {
        Ask::default()
    }

    /// A proof with no time limit.
    pub fn exact() -> Self {
        Ask {
            exact: true,
            ..Ask::default()
        }
    }

    /// The perfect player's answer: a proof within `ms` milliseconds, else the best estimate
    /// (the certificates' move where they prove the mover's bound).
    pub fn perfect(ms: u64) -> Self {
        Ask {
            exact: true,
            time: Some(Duration::from_millis(ms)),
            ..Ask::default()
        }
    }

    /// A search limited to `depth` plies.
    pub fn depth(depth: u32) -> Self {
        Ask {
            depth: Some(depth),
            ..Ask::default()
        }
    }

    /// Whether a depth, time or node limit was given without asking for a proof: a limited
    /// search, which the book does not answer.
    pub fn is_limited(&self) -> bool {
        !self.exact && (self.depth.is_some() || self.time.is_some() || self.nodes.is_some())
    }
}

/// What decided an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The opening book, or a position of the strategies the certificates prove: a proven
    /// value with its certificate.
    Book,
    /// The endgame tables: the position is within them.
    Tables,
    /// An exact search (over the tables, where they reach): a proven value.
    Proof,
    /// A search limited by depth, time or nodes: an estimate (unless it came out exact).
    Search,
}

impl Source {
    /// The source's name, as the JSON answers spell it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Book => "book",
            Source::Tables => "tables",
            Source::Proof => "proof",
            Source::Search => "search",
        }
    }
}

/// The answer of [`decide`].
#[derive(Clone, Debug)]
pub struct Decision {
    /// The move, value, bounds, line and counts. The line starts with the move, and the
    /// value lies within the bounds.
    pub result: SearchResult,
    /// What decided it.
    pub source: Source,
    /// The way it was found, in words (e.g. `exact (small enough to solve quickly)`).
    pub mode: String,
    /// Why an asked proof gave an estimate, when it did.
    pub note: Option<String>,
}

/// A legal move's value, from [`value_moves`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveScore {
    /// The move's hole.
    #[serde(rename = "move")]
    pub mv: u8,
    /// Its value for the side to move of the analysed position.
    pub score: i32,
    /// Whether the value is proven.
    pub exact: bool,
}

/// The endgame tables a door stands on for `rules`: the files of `dir` (`None`: the default
/// folder, when built there), else the small layers of the user's cache. With `build`, the
/// cache's layers are built first when missing (about 15 s, once), and where the cache is
/// off, the layers up to [`IN_MEMORY_LAYERS`] seeds are built in memory (about a second);
/// without, only what is there is used (an engine that must answer within its move time).
/// `off`: none. `seeds` bounds the layers read.
pub fn tables(
    rules: &Rules,
    dir: Option<&Path>,
    off: bool,
    seeds: usize,
    build: bool,
) -> crate::Result<Option<Arc<Tables>>> {
    if off || rules.holes() != 6 {
        return Ok(None);
    }
    if let Some(t) = tables_for(rules, dir, false, seeds)? {
        return Ok(Some(t));
    }
    let cached = if build {
        crate::cache::small_tables(rules, seeds, &hoyito_tables::Quiet)?
    } else {
        crate::cache::cached_tables(rules, seeds)
    };
    if let Some(small) = cached {
        return Ok(Some(small.tables));
    }
    let layers = IN_MEMORY_LAYERS.min(seeds);
    if !build || layers <= 8 {
        return Ok(None);
    }
    let options = hoyito_tables::BuildOptions::default();
    // Rules the tables cannot be built for are played without them.
    Ok(
        hoyito_tables::build_in_memory(rules, layers, &options, &hoyito_tables::Quiet)
            .ok()
            .map(|(t, _)| Arc::new(t)),
    )
}

/// The largest layer [`tables`] builds in memory when neither files nor the cache hold the
/// small layers.
pub const IN_MEMORY_LAYERS: usize = 12;

/// The answer of the opening book or of the certificates' strategies, where they prove the
/// value of `p`: the move, the value for the side to move, and the certificate's path in
/// the repository (empty: the certificates' strategies).
pub fn proven<const W: usize>(rules: &Rules, p: &Position<W>) -> Option<(Option<u8>, i32, String)> {
    match crate::book::lookup(rules, p) {
        Some(e) => Some((e.best, e.value, e.certificate)),
        None => {
            let (mv, value) = crate::strategy::certified_move(rules, p)?;
            Some((Some(mv), value, String::new()))
        }
    }
}

/// The words of a book answer's mode.
pub(crate) fn book_mode(certificate: &str) -> String {
    if certificate.is_empty() {
        "proven: a position of the strategies of the certificates of the source repository \
         (data/proofs, data/book; solve check-proof checks them)"
            .to_string()
    } else {
        format!(
            "opening book: proven; the certificate is {certificate} of the source repository \
             (solve check-proof checks it)"
        )
    }
}

/// The way [`decide`] answers a position under an ask, chosen before it searches.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Plan {
    /// The book or the certificates: the move (if any), the value, the certificate.
    Book(Option<u8>, i32, String),
    /// The tables hold the position.
    Tables,
    /// The search limited as asked.
    Limited,
    /// An exact search that is quick (or asked with no limit).
    Exact,
    /// A proof within `proof` of the `total` time, then the estimate.
    Proof {
        total: Option<Duration>,
        proof: Option<Duration>,
    },
}

impl Plan {
    fn of<const W: usize>(searcher: &Searcher<W>, p: &Position<W>, ask: &Ask) -> Plan {
        let rules = searcher.rules();
        let book = match ask.book {
            BookUse::Unlimited => !ask.is_limited(),
            BookUse::Always => true,
            BookUse::Never => false,
        };
        if book {
            if let Some((best, value, certificate)) = proven(rules, p) {
                return Plan::Book(best, value, certificate);
            }
        }
        if p.seeds_on_board() <= searcher.table_seeds() && !ask.exact {
            return Plan::Tables;
        }
        if ask.is_limited() {
            return Plan::Limited;
        }
        let quick = searcher.exact_is_quick(p);
        match (ask.exact, ask.time) {
            (_, None) if quick => Plan::Exact,
            (true, None) => Plan::Exact,
            (true, Some(t)) => Plan::Proof {
                total: Some(t),
                proof: Some(t - t / ESTIMATE_SHARE),
            },
            (false, _) => {
                let t = Duration::from_millis(DEFAULT_TIME_MS);
                Plan::Proof {
                    total: Some(t),
                    proof: Some(t / QUICK_PROOF_SHARE),
                }
            }
        }
    }

    /// The plan in words, as an answer's `mode` says it.
    fn mode(&self, ask: &Ask, quick: bool) -> String {
        match self {
            Plan::Book(_, _, certificate) => book_mode(certificate),
            Plan::Tables => "exact (within the endgame tables)".to_string(),
            Plan::Limited => "limited".to_string(),
            Plan::Exact if ask.exact || !quick => "exact".to_string(),
            Plan::Exact => "exact (small enough to solve quickly)".to_string(),
            Plan::Proof { total, proof } => match (ask.exact, total, proof) {
                (true, Some(t), _) => {
                    format!("exact within {} ms, else the best estimate", t.as_millis())
                }
                (_, _, Some(p)) => format!(
                    "proof within {} ms, else time {DEFAULT_TIME_MS} ms (default: too large to \
                     solve quickly)",
                    p.as_millis()
                ),
                _ => "exact".to_string(),
            },
        }
    }
}

/// How [`decide`] will answer `p` under `ask`, in the words of an answer's `mode`, before it
/// searches (a front shows it while the search runs).
pub fn plan<const W: usize>(searcher: &Searcher<W>, p: &Position<W>, ask: &Ask) -> String {
    Plan::of(searcher, p, ask).mode(ask, searcher.exact_is_quick(p))
}

/// Decides the move and value of `p` by the one policy (see the module's docs) with
/// `searcher` (its tables included), within `ask`. Setting `stop` (from any thread) ends it
/// with what it has, marked `stopped`; `on_iteration` hears of each finished iteration and
/// each narrowing of a proof's bounds.
pub fn decide<const W: usize>(
    searcher: &Searcher<W>,
    p: &Position<W>,
    ask: &Ask,
    stop: &AtomicBool,
    on_iteration: &(dyn Fn(&SearchResult) + Sync),
) -> Decision {
    let start = Instant::now();
    let rules = *searcher.rules();
    let plan = Plan::of(searcher, p, ask);
    let mode = plan.mode(ask, searcher.exact_is_quick(p));
    let limits = |exact: bool, time: Option<Duration>| Limits {
        depth: if exact { None } else { ask.depth },
        time,
        nodes: ask.nodes,
        exact,
    };
    let (result, note) = match plan {
        Plan::Book(best, value, _) => {
            let best = best.map(Move);
            return Decision {
                result: SearchResult {
                    best,
                    score: value,
                    exact: true,
                    lower: value,
                    upper: value,
                    depth: 0,
                    pv: best.into_iter().collect(),
                    nodes: 0,
                    seconds: start.elapsed().as_secs_f64(),
                    stopped: false,
                },
                source: Source::Book,
                mode,
                note: None,
            };
        }
        // The tables hold the position: its exact answer costs a look-up a move, whatever
        // the limits.
        Plan::Tables | Plan::Exact => (
            run(searcher, p, &limits(true, None), stop, on_iteration),
            None,
        ),
        Plan::Limited => (
            run(searcher, p, &limits(false, ask.time), stop, on_iteration),
            None,
        ),
        Plan::Proof { total, proof } => {
            let proof = run(searcher, p, &limits(true, proof), stop, on_iteration);
            let left = total.map(|t| (start + t).saturating_duration_since(Instant::now()));
            if proof.exact {
                (proof, None)
            } else {
                // The estimate in the time left (none when stopped, with no time limit, or
                // with too little left).
                let estimate = match left {
                    Some(left) if left >= LEAST_ESTIMATE && !stop.load(Ordering::Relaxed) => {
                        let limits = Limits {
                            depth: None,
                            time: Some(left),
                            nodes: ask.nodes,
                            exact: false,
                        };
                        Some(run(searcher, p, &limits, stop, on_iteration))
                    }
                    _ => None,
                };
                within_bounds(&rules, p, &proof, estimate, ask.exact)
            }
        }
    };
    let mut result = result;
    result.seconds = start.elapsed().as_secs_f64();
    line_from_move(&mut result);
    let within_tables = p.seeds_on_board() <= searcher.table_seeds();
    let source = match (result.exact, within_tables) {
        (true, true) => Source::Tables,
        (true, false) => Source::Proof,
        (false, _) => Source::Search,
    };
    Decision {
        result,
        source,
        mode,
        note,
    }
}

/// The estimate after a proof that did not finish (none: the proof's own answer, when it
/// was stopped): its value kept within the proof's bounds, its nodes added; where the
/// certificates prove the mover's own bound, their move, which keeps it. With `asked` (a
/// proof was asked), a note says it was not proven.
fn within_bounds<const W: usize>(
    rules: &Rules,
    p: &Position<W>,
    proof: &SearchResult,
    estimate: Option<SearchResult>,
    asked: bool,
) -> (SearchResult, Option<String>) {
    let mut estimate = match estimate {
        Some(mut e) => {
            e.nodes += proof.nodes;
            e
        }
        None => proof.clone(),
    };
    let (lower, upper) = (
        proof.lower.max(estimate.lower),
        proof.upper.min(estimate.upper),
    );
    estimate.lower = lower;
    estimate.upper = upper;
    estimate.score = estimate.score.clamp(lower, upper.max(lower));
    estimate.exact = lower == upper;
    estimate.depth = estimate.depth.max(1);
    let known = crate::strategy::lookup(rules, p);
    let kept = known.and_then(|k| Some((k.keep?, k.kept(p)?)));
    let mut note = asked.then(|| {
        "not proven within the time limit: the best estimate, within the proven bounds".to_string()
    });
    if let Some((mv, bound)) = kept.filter(|_| !estimate.exact) {
        let own = match p.side_to_move() {
            hoyito_rules::Side::South => bound,
            hoyito_rules::Side::North => -bound,
        };
        estimate.best = Some(Move(mv));
        estimate.pv = vec![Move(mv)];
        estimate.lower = estimate.lower.max(own);
        estimate.score = estimate.score.max(own);
        note = Some(format!(
            "not proven within the time limit: the certificates' move, which keeps at least \
             {own} for the mover"
        ));
    }
    if estimate.best.is_none() {
        estimate.best = proof.best;
        estimate.pv = proof.pv.clone();
    }
    (estimate, note)
}

/// Makes the line start with the best move (a line that does not is replaced by the move
/// alone).
fn line_from_move(r: &mut SearchResult) {
    match r.best {
        Some(m) if r.pv.first() != Some(&m) => r.pv = vec![m],
        None => r.pv.clear(),
        _ => {}
    }
}

/// One search, with a stop flag of its own that `stop` raises (a search raises its flag
/// itself at its limits, and the caller's flag must say only what the caller asked).
fn run<const W: usize>(
    searcher: &Searcher<W>,
    p: &Position<W>,
    limits: &Limits,
    stop: &AtomicBool,
    on_iteration: &(dyn Fn(&SearchResult) + Sync),
) -> SearchResult {
    relayed(stop, |own| {
        searcher.search_controlled(p, limits, own, on_iteration)
    })
}

/// Runs `f` with a stop flag of its own that the front's flag raises.
fn relayed<T>(front: &AtomicBool, f: impl FnOnce(&AtomicBool) -> T) -> T {
    let stop = AtomicBool::new(false);
    if front.load(Ordering::Relaxed) {
        stop.store(true, Ordering::Relaxed);
        return f(&stop);
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            while !done.load(Ordering::Acquire) {
                if front.load(Ordering::Relaxed) {
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
                std::thread::park_timeout(Duration::from_millis(1));
            }
        });
        let out = f(&stop);
        done.store(true, Ordering::Release);
        // Woken at once rather than at its next look.
        watcher.thread().unpark();
        out
    })
}

/// What [`value_moves`] may spend.
#[derive(Clone, Copy, Debug, Default)]
pub struct MovesBudget {
    /// Whether proofs were asked (the default answer and an exact one), not a limited
    /// search.
    pub proofs: bool,
    /// When the whole analysis must end (none: no time limit).
    pub until: Option<Instant>,
    /// Nodes left for the moves, all together.
    pub nodes: Option<u64>,
    /// Whether the book and the certificates value the moves they prove.
    pub book: bool,
}

/// Every legal move of `p` valued after its analysis `main`: the move of a proven `main`
/// takes its value, a child whose value the book or the certificates prove takes it; the
/// others are searched, exactly when `main` was proven and proofs were asked or a limit
/// bounds them (each within an even share of what is left of the budget), else as
/// deep as `main` got. A value above a proven value of `p` is an estimate that cannot hold:
/// it is brought down to it. Returns the values and the nodes searched; `on_move` hears of
/// each move valued.
pub fn value_moves<const W: usize>(
    searcher: &Searcher<W>,
    p: &Position<W>,
    main: &SearchResult,
    budget: &MovesBudget,
    stop: &AtomicBool,
    on_move: &mut dyn FnMut(&[MoveScore], u64),
) -> (Vec<MoveScore>, u64) {
    let rules = *searcher.rules();
    let children = p.moves(&rules);
    let children = children.children();
    let mut out = Vec::new();
    let mut used = 0u64;
    for (i, c) in children.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let (score, exact) = if c.ended_game {
            (c.value(0), true)
        } else if main.exact && main.best == Some(c.mv) {
            // The move that proves the position's value keeps it.
            (main.score, true)
        } else if let Some(v) = budget
            .book
            .then(|| crate::strategy::proven_value(&rules, &c.position))
            .flatten()
        {
            (c.value(v), true)
        } else {
            let left = (children.len() - i) as u64;
            let time = budget.until.map(|end| {
                let rest = end.saturating_duration_since(Instant::now());
                Duration::from_micros((rest.as_micros() as u64 / left).max(1))
            });
            let nodes = budget.nodes.map(|n| (n.saturating_sub(used) / left).max(1));
            // Exactly only when proofs were asked or a time or node limit bounds them: a
            // search asked for a depth alone can come out exact (a line that takes every
            // seed), and an exact search of each move with no limit could run for hours.
            let bounded = time.is_some() || nodes.is_some() || budget.proofs;
            let limits = Limits {
                time,
                nodes,
                ..if main.exact && bounded {
                    Limits::exact()
                } else {
                    Limits::depth(main.depth.saturating_sub(1).max(1))
                }
            };
            let r = run(searcher, &c.position, &limits, stop, &|_| {});
            used += r.nodes;
            (c.value(r.score), r.exact)
        };
        // A proven value of the position bounds every move's value.
        let score = if main.exact && !exact {
            score.min(main.upper)
        } else {
            score
        };
        out.push(MoveScore {
            mv: c.mv.0,
            score,
            exact,
        });
        on_move(&out, used);
    }
    (out, used)
}

/// Makes an answer agree with its moves' values: the best move is the first best-valued
/// move (the answer's own move where it is among them), the value that move's, exact when
/// it is proven and no other move could be better; the line starts with the move. An
/// answer with fewer values than `legal` moves (a stopped analysis) is left as it is.
pub fn agree(r: &mut SearchResult, moves: &[MoveScore], legal: usize) {
    let Some(top) = moves.iter().map(|m| m.score).max() else {
        return;
    };
    if moves.len() < legal {
        return;
    }
    let best = match r
        .best
        .filter(|b| moves.iter().any(|m| m.mv == b.0 && m.score == top))
    {
        Some(b) => b,
        None => Move(moves.iter().find(|m| m.score == top).map_or(0, |m| m.mv)),
    };
    let proven = moves.iter().all(|m| m.exact);
    if r.exact && !proven {
        // The position's value is proven; the estimates of the other moves are below it.
        let keeps = moves
            .iter()
            .any(|m| m.mv == best.0 && m.exact && m.score == r.score);
        if keeps {
            r.best = Some(best);
        }
        line_from_move(r);
        return;
    }
    r.best = Some(best);
    r.score = top;
    r.exact = proven;
    if proven {
        r.lower = top;
        r.upper = top;
    } else {
        r.score = r.score.clamp(r.lower, r.upper.max(r.lower));
    }
    line_from_move(r);
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoyito_rules::Position6;
    use hoyito_search::Config;

    /// A searcher on one thread with a small table.
    fn small_searcher<const W: usize>(rules: Rules) -> Searcher<W> {
        let config = Config {
            threads: 1,
            hash_mb: 4,
            ..Config::default()
        };
        Searcher::new(rules, config)
    }

    fn result(best: u8, score: i32, exact: bool, bounds: (i32, i32)) -> SearchResult {
        SearchResult {
            best: Some(Move(best)),
            score,
            exact,
            lower: bounds.0,
            upper: bounds.1,
            depth: 3,
            pv: vec![Move(best), Move(2)],
            nodes: 10,
            seconds: 0.0,
            stopped: false,
        }
    }

    fn scored(values: &[(u8, i32, bool)]) -> Vec<MoveScore> {
        values
            .iter()
            .map(|&(mv, score, exact)| MoveScore { mv, score, exact })
            .collect()
    }

    #[test]
    fn an_answer_agrees_with_its_moves_values() {
        // Estimates: the best-valued move and its value win over the main search's.
        let mut r = result(1, 5, false, (-20, 20));
        agree(
            &mut r,
            &scored(&[(1, 3, false), (2, 7, false), (3, 7, false)]),
            3,
        );
        assert_eq!((r.best, r.score, r.exact), (Some(Move(2)), 7, false));
        // The main line began with another move: the line is the move alone.
        assert_eq!(r.pv, vec![Move(2)]);
        // Every move proven: the value is proven.
        let mut r = result(1, 5, false, (-20, 20));
        agree(&mut r, &scored(&[(1, -4, true), (2, 0, true)]), 2);
        assert_eq!(
            (r.best, r.score, r.exact, r.lower, r.upper),
            (Some(Move(2)), 0, true, 0, 0)
        );
        assert_eq!(r.pv, vec![Move(2)]);
        // A proven value stands over estimates, which cannot exceed it.
        let mut r = result(3, 4, true, (4, 4));
        agree(&mut r, &scored(&[(1, 4, false), (3, 4, true)]), 2);
        assert_eq!((r.best, r.score, r.exact), (Some(Move(3)), 4, true));
        // A partial list (a stopped analysis) changes nothing.
        let mut r = result(1, 5, false, (-20, 20));
        agree(&mut r, &scored(&[(2, 9, false)]), 3);
        assert_eq!((r.best, r.score), (Some(Move(1)), 5));
    }

    #[test]
    fn a_line_starts_with_its_move() {
        let mut r = result(1, 0, false, (-4, 4));
        r.pv = vec![Move(3), Move(1)];
        line_from_move(&mut r);
        assert_eq!(r.pv, vec![Move(1)]);
        r.best = None;
        line_from_move(&mut r);
        assert!(r.pv.is_empty());
    }

    #[test]
    fn the_book_answers_first_and_a_limited_search_skips_it() {
        let rules = Rules::default();
        let start = Position6::start(&rules).unwrap();
        let searcher = small_searcher::<2>(rules);
        let never = AtomicBool::new(false);
        let d = decide(&searcher, &start, &Ask::best(), &never, &|_| {});
        assert_eq!(d.source, Source::Book);
        assert_eq!((d.result.best, d.result.score), (Some(Move(1)), -28));
        let d = decide(&searcher, &start, &Ask::depth(2), &never, &|_| {});
        assert_eq!(d.source, Source::Search);
        assert_eq!(d.result.depth, 2);
        assert_eq!(d.result.pv.first(), d.result.best.as_ref());
    }

    #[test]
    fn a_proof_that_cannot_finish_gives_the_estimate_within_its_bounds() {
        // The 2x12 start is far too large to prove in 300 ms.
        let rules = Rules::new(
            hoyito_rules::Variant::Hoyito2,
            12,
            4,
            hoyito_rules::LastFour::Capturer,
            hoyito_rules::CaptureSide::Any,
        )
        .unwrap();
        let start = Position::<4>::start(&rules).unwrap();
        let searcher = small_searcher::<4>(rules);
        let never = AtomicBool::new(false);
        let d = decide(&searcher, &start, &Ask::perfect(300), &never, &|_| {});
        let r = &d.result;
        assert!(!r.exact);
        assert!(d.note.is_some_and(|n| n.starts_with("not proven")));
        assert!(r.lower <= r.score && r.score <= r.upper, "{r:?}");
        let legal: Vec<Move> = start
            .moves(&rules)
            .children()
            .iter()
            .map(|c| c.mv)
            .collect();
        assert!(r.best.is_some_and(|m| legal.contains(&m)), "{r:?}");
        assert_eq!(r.pv.first(), r.best.as_ref());
        assert!(r.depth >= 1);
    }
}
