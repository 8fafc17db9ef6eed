//! Whole-layer verification: every stored value agrees with its moves, and the values are
//! the *least* fixpoint, that is the true values.
//!
//! ## What a locally consistent table can still get wrong
//!
//! Checking that each value equals the best over the position's moves (gain plus the child's
//! value after an extra turn, gain minus it otherwise, minus the value after a pass) says that
//! the values are *a* fixpoint of the game's value operator. Inside a layer the quiet moves
//! form cycles, and a cycle admits more than one fixpoint: two positions whose only moves
//! lead to each other are worth 0 (endless play), yet +4 and -4 agree with their moves just
//! as well. The true values are the fixpoint in which every nonzero value is *forced in
//! finitely many moves*.
//!
//! ## Grounding
//!
//! Given locally consistent values `V` (smaller layers already verified), call a position
//! *grounded* when it is in the least set closed under:
//!
//! - `V(p) = v > 0` and `p` has a move worth `v` that is an *exit* (a capture, whose child
//!   lies in a smaller layer, or a move that ends the game), or a quiet move to a child `c`
//!   with `V(c) = -v` and `c` grounded;
//! - `V(c) = w < 0` and every quiet move of `c` leads to a grounded child (its exits are worth
//!   at most `w` by local consistency, whatever they lead to).
//!
//! A pass (no legal move: the same board with the other side to move) counts as a quiet
//! move; a position where neither side can move is an exit worth 0.
//!
//! **Theorem.** `V` are the true values iff `V` is locally consistent and every position
//! with `V != 0` is grounded.
//!
//! *If.* Keeping the value (always playing a move worth `V`) guarantees the mover of `p` at
//! least `V(p)` when `V(p) <= 0`: along any play, the mover's gains so far plus `V` of the
//! current position (for that mover) never falls (the opponent's moves are worth at most
//! `V` to the opponent), so a finite game pays at least `V(p)`, and endless play pays
//! `0 >= V(p)`. Likewise the opponent holds the mover to at most `V(p)` when `V(p) >= 0`.
//! Grounding gives the other halves: by induction on the step at which a position enters
//! the set, the mover of a grounded `p` with `V(p) = v > 0` forces at least `v` in finitely
//! many moves (an exit worth `v`, the smaller layers being exact; or a quiet move to `c`,
//! from which every exit of the opponent is worth at most `-v` to it and every quiet reply
//! leads to a grounded `d` with `V(d) >= v`, entered earlier), and symmetrically for
//! negative values.
//!
//! *Only if.* Suppose `V` are the true values and some nonzero positions are not grounded;
//! let `S` be those. Every negative member of `S` has a quiet move into a positive member
//! with at least its absolute value, so `S` holds a positive position and let `v` be the
//! largest positive value in `S`. From `p` in `S` with `V(p) = v`, no exit is worth `v` and
//! every quiet move worth `v` leads to some `c` in `S` with `V(c) = -v`, from which a quiet
//! move leads back into `S` to a position of value at least, hence exactly, `v`. The
//! opponent who keeps play inside `S` and plays best as soon as the mover leaves it holds
//! the mover below `v` (endless play pays 0), so `V(p) < v`: a contradiction.
//!
//! ## Computing it
//!
//! The grounded set is an attractor. The first sweep walks the whole layer in index order,
//! in parallel chunks: it checks local consistency and grounds what it can, in place
//! (Gauss–Seidel: a position sees what the sweep has already grounded), with a bit a
//! position. On 2x6 it leaves 58% of the nonzero positions open at 16 seeds and 35% at 20.
//! Then, once the open positions fit in the memory allowed ([`FullOptions::graph_bytes`];
//! until then the grounding sweeps over them), a *counting attractor* over those open
//! positions only: one more sweep over them writes, for each, the quiet
//! moves its grounding waits for (reversed, and sorted by child), and how many it needs (1
//! for a positive value, the number of quiet moves to open children for a negative one);
//! rounds then go from the positions grounded in the round before to their parents,
//! counting down. This costs about 20 bytes an open position (measured: 0.4 GB in all at
//! 20 seeds) and evaluates each position at most once more. With no memory allowed, the
//! grounding sweeps the layer (only its open positions) until a sweep grounds nothing: no memory beyond the
//! bits, but as many sweeps as the longest forcing line inside the layer (about 40 at 16
//! seeds), about twice the evaluations at 16 seeds. Both are exact: bits only get set,
//! each on the strength of bits already set, so parallel and stale reads never ground too
//! much; a sweep that sets nothing saw the final bits everywhere, and the rounds stop when
//! every count that reached zero has been passed on, so the set is closed. Figures per
//! layer are in the project's `docs/benchmarks.md`.

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::time::Instant;

use hoyito_rules::{Position6, Rules};
use rayon::prelude::*;

use crate::error::TableError;
use crate::format::{layers_up_to, Layer};
use crate::index::{Layout, MAX_BOARD};
use crate::tables::Tables;
use crate::Progress;

/// Positions one task checks in one piece (the unit of parallel work and of progress).
const CHUNK: u64 = 1 << 15;

/// Most moves a position has (one per hole of a side); a pass is one move.
const MAX_MOVES: usize = MAX_BOARD / 2;

/// One move as the check sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Edge {
    /// A move that leaves the layer (a capture, or the end of the game): its worth to the
    /// mover, exact since smaller layers are verified first.
    Exit(i32),
    /// A move (or pass) to the position of this index in the same layer, other side to
    /// move: worth minus that position's value.
    Quiet(u64),
}

/// The positions of one layer with their stored values and moves.
pub(crate) trait Graph: Sync {
    /// Positions, indexed `0 .. len`.
    fn len(&self) -> u64;
    /// The stored value of position `i`.
    fn value(&self, i: u64) -> i32;
    /// Ranges of indices that cover `0 .. len` once, each handed whole to one task.
    fn chunks(&self) -> Vec<Range<u64>> {
        let n = self.len();
        (0..n.div_ceil(CHUNK))
            .map(|c| c * CHUNK..((c + 1) * CHUNK).min(n))
            .collect()
    }
    /// Calls `f(i, moves)` for every `i` of `range` (one of [`Graph::chunks`]) that `select`
    /// picks, in increasing order. Every position has at least one move (a pass, or an
    /// exit worth 0 when neither side can move).
    fn walk(
        &self,
        range: Range<u64>,
        select: &dyn Fn(u64) -> bool,
        f: &mut dyn FnMut(u64, &[Edge]),
    );
}

/// Why a stored value is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullFault {
    /// The value is outside `-seeds ..= seeds`.
    OutOfRange,
    /// The value is not the best over the position's moves, which give `expected`.
    Moves {
        /// The best over the moves (or the pass rule).
        expected: i32,
    },
    /// The values agree with the moves, but this nonzero value is not forced in finitely
    /// many moves (not grounded: it rests on a cycle of quiet moves).
    NotForced,
}

/// The first wrong value of a layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FullFailure {
    /// Its index in the layer.
    pub index: u64,
    /// The position (captured counts 0).
    pub position: Position6,
    /// The value stored for it.
    pub stored: i32,
    /// What is wrong.
    pub fault: FullFault,
    /// Positions of the layer with a fault of the same kind (a layer with a local fault,
    /// out of range or against the moves, is not checked for grounding).
    pub count: u64,
}

impl fmt::Display for FullFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (p, v) = (&self.position, self.stored);
        match self.fault {
            FullFault::OutOfRange => write!(f, "{p}: stored {v}, outside the layer's range"),
            FullFault::Moves { expected } => {
                write!(f, "{p}: stored {v}, the moves give {expected}")
            }
            FullFault::NotForced if v > 0 => write!(
                f,
                "{p}: stored {v}, which agrees with the moves but is not forced in finitely \
                 many moves (no exit reaches it; every quiet move keeping it leads to a \
                 position that is not forced either)"
            ),
            FullFault::NotForced => write!(
                f,
                "{p}: stored {v}, which agrees with the moves but is not forced in finitely \
                 many moves (a quiet reply leads to a position whose value is not forced)"
            ),
        }?;
        if self.count > 1 {
            write!(f, "; {} positions of the layer fail so", self.count)?;
        }
        Ok(())
    }
}

/// What [`Tables::verify_full`] found in one layer.
#[derive(Clone, Debug)]
pub struct FullCheck {
    /// Seeds on the board.
    pub seeds: usize,
    /// Positions checked (every position of the layer).
    pub positions: u64,
    /// Positions with a nonzero value (each one shown to be forced).
    pub nonzero: u64,
    /// Sweeps over the layer (the first checks the moves and grounds what it can; without
    /// rounds, the last grounds nothing; with rounds, the second writes the moves they
    /// follow). 1 when the moves check fails.
    pub sweeps: u32,
    /// Rounds over the parents of the positions grounded in the round before (0 when the
    /// grounding sweeps to the end): the length of the longest forcing line left after the
    /// second sweep.
    pub rounds: u32,
    /// Positions whose moves were generated, over all sweeps.
    pub evaluations: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// The first wrong value, if any (lowest index).
    pub failure: Option<FullFailure>,
}

/// Options of [`Tables::verify_full`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FullOptions {
    /// Most bytes of memory the grounding may take for its graph of the positions left
    /// open (counted at 24 bytes each): the grounding sweeps the layer until the open
    /// positions fit in it, then sweeps once more to write their moves and goes in rounds
    /// over the parents of grounded positions. With 0 it sweeps until a sweep grounds
    /// nothing, with a bit a position.
    pub graph_bytes: u64,
}

impl Default for FullOptions {
    /// 4 GiB for the graph.
    fn default() -> Self {
        FullOptions {
            graph_bytes: 4 << 30,
        }
    }
}

impl FullCheck {
    /// Whether every value of the layer is proved exact.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// A fault at an index of a graph, before it is turned into a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fault {
    pub(crate) index: u64,
    pub(crate) fault: FullFault,
    pub(crate) count: u64,
}

/// What [`check_graph`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GraphCheck {
    pub(crate) nonzero: u64,
    pub(crate) sweeps: u32,
    pub(crate) rounds: u32,
    pub(crate) evaluations: u64,
    pub(crate) fault: Option<Fault>,
}

/// One bit a position, set at most once each, by any thread.
struct Bits(Vec<AtomicU64>);

impl Bits {
    fn new(n: u64) -> Bits {
        Bits((0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }
    #[inline(always)]
    fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize].load(Relaxed) & 1 << (i % 64) != 0
    }
    #[inline(always)]
    fn set(&self, i: u64) {
        self.0[(i / 64) as usize].fetch_or(1 << (i % 64), Relaxed);
    }
}

/// The worth of a move to the mover.
#[inline(always)]
fn worth(g: &impl Graph, e: Edge) -> i32 {
    match e {
        Edge::Exit(x) => x,
        Edge::Quiet(c) => -g.value(c),
    }
}

/// Whether a position of value `v` with `moves` is grounded, given the bits so far (values
/// of 0 count as grounded: nothing needs forcing).
#[inline(always)]
fn grounded(g: &impl Graph, done: &Bits, v: i32, moves: &[Edge]) -> bool {
    if v > 0 {
        moves.iter().any(|&e| match e {
            Edge::Exit(x) => x == v,
            Edge::Quiet(c) => g.value(c) == -v && done.get(c),
        })
    } else if v < 0 {
        moves.iter().all(|&e| match e {
            Edge::Exit(_) => true,
            Edge::Quiet(c) => done.get(c),
        })
    } else {
        true
    }
}

/// The best worth over `moves` (every position has one).
fn best(g: &impl Graph, moves: &[Edge]) -> i32 {
    moves.iter().map(|&e| worth(g, e)).max().unwrap_or(0)
}

/// Checks every position of `g`: local consistency (values within `-range ..= range` and
/// equal to the best over their moves), then grounding: by [`attract`] when it needs at
/// most `graph_bytes` of memory, else by sweeps. Reports the first fault by index.
pub(crate) fn check_graph(
    g: &impl Graph,
    range: i32,
    graph_bytes: u64,
    seeds: usize,
    progress: &dyn Progress,
) -> GraphCheck {
    let n = g.len();
    let chunks = g.chunks();
    let done = Bits::new(n);
    // Local faults: the lowest index of each kind and how many.
    let first_range = AtomicU64::new(u64::MAX);
    let first_moves = AtomicU64::new(u64::MAX);
    let bad_range = AtomicU64::new(0);
    let bad_moves = AtomicU64::new(0);
    let nonzero = AtomicU64::new(0);
    let grounded_now = AtomicU64::new(0);
    let mut evaluations = n;
    progress.sweep_start(seeds, 1);
    chunks.par_iter().for_each(|r| {
        let (mut nz, mut gr) = (0u64, 0u64);
        let (mut br, mut bm) = (0u64, 0u64);
        let (mut fr, mut fm) = (u64::MAX, u64::MAX);
        g.walk(r.clone(), &|_| true, &mut |i, moves| {
            let v = g.value(i);
            if v.abs() > range {
                br += 1;
                fr = fr.min(i);
            } else if best(g, moves) != v {
                bm += 1;
                fm = fm.min(i);
            }
            if v != 0 {
                nz += 1;
            }
            if grounded(g, &done, v, moves) {
                done.set(i);
                if v != 0 {
                    gr += 1;
                }
            }
        });
        nonzero.fetch_add(nz, Relaxed);
        grounded_now.fetch_add(gr, Relaxed);
        bad_range.fetch_add(br, Relaxed);
        bad_moves.fetch_add(bm, Relaxed);
        first_range.fetch_min(fr, Relaxed);
        first_moves.fetch_min(fm, Relaxed);
        progress.advance(r.end - r.start);
    });
    progress.sweep_end(seeds, 1, n, grounded_now.load(Relaxed));
    let nonzero = nonzero.into_inner();
    // The lowest index with a local fault, and how many have a fault of its kind.
    let local = [
        (
            first_range.into_inner(),
            bad_range.into_inner(),
            FullFault::OutOfRange,
        ),
        (
            first_moves.into_inner(),
            bad_moves.into_inner(),
            FullFault::Moves { expected: 0 },
        ),
    ];
    if let Some(&(index, count, fault)) = local.iter().filter(|l| l.1 > 0).min_by_key(|l| l.0) {
        let fault = match fault {
            FullFault::Moves { .. } => FullFault::Moves {
                expected: expected_at(g, &chunks, index),
            },
            other => other,
        };
        return GraphCheck {
            nonzero,
            sweeps: 1,
            rounds: 0,
            evaluations,
            fault: Some(Fault {
                index,
                fault,
                count,
            }),
        };
    }
    // Sweep until the open positions fit in the graph's memory (never with 0), then go on
    // with the attractor over them; or sweep until a sweep grounds nothing.
    let fits = |open: u64| {
        open.saturating_mul(GRAPH_BYTES_PER_OPEN) <= graph_bytes && open < u32::MAX as u64
    };
    let mut open = nonzero - grounded_now.into_inner();
    let (mut sweeps, mut rounds, mut more) = (1, 0, 0);
    let mut left_index = None;
    let mut stalled = false;
    while open > 0 && !fits(open) {
        sweeps += 1;
        let (evaluated, rose) = sweep_once(g, &chunks, &done, sweeps, seeds, progress);
        more += evaluated;
        if rose == 0 {
            stalled = true;
            break;
        }
        open -= rose;
    }
    if open > 0 && !stalled {
        sweeps += 1;
        let a = attract(g, &chunks, &done, open, sweeps, seeds, progress);
        rounds = a.rounds;
        more += a.evaluations;
        open = a.left.map_or(0, |l| l.0);
        left_index = a.left.map(|l| l.1);
    }
    let left = (open > 0).then(|| {
        let index = left_index.unwrap_or_else(|| (0..n).find(|&i| !done.get(i)).unwrap_or(0));
        (open, index)
    });
    evaluations += more;
    GraphCheck {
        nonzero,
        sweeps,
        rounds,
        evaluations,
        fault: left.map(|(count, index)| Fault {
            index,
            fault: FullFault::NotForced,
            count,
        }),
    }
}

/// Bytes of memory the attractor may need per open position, with a margin (measured
/// about 20 at 20 seeds of 2x6: the moves kept, 8 bytes each, the counts and the index of
/// the parents).
pub(crate) const GRAPH_BYTES_PER_OPEN: u64 = 24;

/// One grounding sweep (number `sweep`) over the open positions: returns the positions
/// evaluated and those grounded.
fn sweep_once(
    g: &impl Graph,
    chunks: &[Range<u64>],
    done: &Bits,
    sweep: u32,
    seeds: usize,
    progress: &dyn Progress,
) -> (u64, u64) {
    progress.sweep_start(seeds, sweep);
    let evaluated = AtomicU64::new(0);
    let rose = AtomicU64::new(0);
    chunks.par_iter().for_each(|r| {
        let (mut ev, mut gr) = (0u64, 0u64);
        g.walk(r.clone(), &|i| !done.get(i), &mut |i, moves| {
            ev += 1;
            if grounded(g, done, g.value(i), moves) {
                done.set(i);
                gr += 1;
            }
        });
        evaluated.fetch_add(ev, Relaxed);
        rose.fetch_add(gr, Relaxed);
        progress.advance(r.end - r.start);
    });
    let (evaluated, rose) = (evaluated.into_inner(), rose.into_inner());
    progress.sweep_end(seeds, sweep, evaluated, rose);
    (evaluated, rose)
}

/// What [`attract`] found.
struct Attractor {
    rounds: u32,
    evaluations: u64,
    /// Positions left open and the lowest index among them, if any.
    left: Option<(u64, u64)>,
}

/// Grounding by a counting attractor over the positions the sweeps left open (`open` of
/// them, the zero bits of `done`), numbered in index order. One more sweep over them
/// writes, for each, the moves its grounding waits for (reversed: child, then parent) and
/// how many it needs: 1 for a positive value (any value-keeping quiet move to a grounded
/// child), the number of quiet moves to open children for a negative one; a position that
/// needs none is grounded at once. Rounds then go from the positions grounded in the last
/// round to their parents, counting down; each round is one step longer in the forcing
/// lines. Memory: 8 bytes a move kept and 13 bytes an open position, and a bit a position.
fn attract(
    g: &impl Graph,
    chunks: &[Range<u64>],
    done: &Bits,
    open: u64,
    sweep: u32,
    seeds: usize,
    progress: &dyn Progress,
) -> Attractor {
    let n = g.len();
    // The open positions, numbered: id = the count of open positions before.
    let words = done.0.len();
    let open_word = |w: usize| {
        let bits = !done.0[w].load(Relaxed);
        let tail = n - 64 * w as u64;
        if tail < 64 {
            bits & ((1u64 << tail) - 1)
        } else {
            bits
        }
    };
    let mut first_id = Vec::with_capacity(words + 1);
    let mut total = 0u32;
    for w in 0..words {
        first_id.push(total);
        total += open_word(w).count_ones();
    }
    first_id.push(total);
    let id_of = |i: u64| {
        let w = (i / 64) as usize;
        first_id[w] + (open_word(w) & ((1u64 << (i % 64)) - 1)).count_ones()
    };
    let need: Vec<AtomicU8> = (0..open).map(|_| AtomicU8::new(0)).collect();
    let is_open = |i: u64| !done.get(i);

    // The sweep that writes the moves: (child id << 32 | parent id), and the count each
    // open position needs. `done` does not change during it.
    progress.sweep_start(seeds, sweep);
    let grounded_now = AtomicU64::new(0);
    let mut edges: Vec<u64> = chunks
        .par_iter()
        .flat_map_iter(|r| {
            let mut out = Vec::new();
            let mut now = 0u64;
            g.walk(r.clone(), &is_open, &mut |i, moves| {
                let v = g.value(i);
                let x = id_of(i) as u64;
                let mut count = 0u8;
                let mut ready = false;
                for &e in moves {
                    let Edge::Quiet(c) = e else { continue };
                    if v > 0 && g.value(c) != -v {
                        continue;
                    }
                    if is_open(c) {
                        out.push((id_of(c) as u64) << 32 | x);
                        count += 1;
                    } else if v > 0 {
                        ready = true;
                    }
                }
                let need_now = if ready {
                    0
                } else if v > 0 {
                    1
                } else {
                    count
                };
                need[x as usize].store(need_now, Relaxed);
                if need_now == 0 {
                    now += 1;
                }
            });
            grounded_now.fetch_add(now, Relaxed);
            progress.advance(r.end - r.start);
            out
        })
        .collect();
    let grounded_now = grounded_now.into_inner();
    progress.sweep_end(seeds, sweep, open, grounded_now);
    edges.par_sort_unstable();
    // Where each child's parents start in `edges`.
    let mut start = vec![0u64; open as usize + 1];
    {
        let mut e = 0;
        for (c, s) in start.iter_mut().enumerate() {
            while e < edges.len() && (edges[e] >> 32) < c as u64 {
                e += 1;
            }
            *s = e as u64;
        }
    }
    let mut frontier: Vec<u32> = (0..open as u32)
        .into_par_iter()
        .filter(|&x| need[x as usize].load(Relaxed) == 0)
        .collect();
    let mut left = open - frontier.len() as u64;
    let mut rounds = 0;
    while !frontier.is_empty() && left > 0 {
        rounds += 1;
        let visited = AtomicU64::new(0);
        frontier = frontier
            .par_iter()
            .flat_map_iter(|&c| {
                let parents = &edges[start[c as usize] as usize..start[c as usize + 1] as usize];
                visited.fetch_add(parents.len() as u64, Relaxed);
                parents.iter().filter_map(|&e| {
                    let x = e as u32;
                    let before = need[x as usize]
                        .fetch_update(Relaxed, Relaxed, |k| k.checked_sub(1))
                        .ok()?;
                    (before == 1).then_some(x)
                })
            })
            .collect();
        left -= frontier.len() as u64;
        progress.round_end(seeds, rounds, visited.into_inner(), frontier.len() as u64);
    }
    let left = (left > 0).then(|| {
        let id = (0..open as usize)
            .find(|&x| need[x].load(Relaxed) > 0)
            .unwrap_or(0) as u32;
        // The open position numbered `id`.
        let w = first_id.partition_point(|&f| f <= id) - 1;
        let mut bits = open_word(w);
        for _ in 0..id - first_id[w] {
            bits &= bits - 1;
        }
        (left, 64 * w as u64 + bits.trailing_zeros() as u64)
    });
    Attractor {
        rounds,
        evaluations: open,
        left,
    }
}

/// The best over the moves of position `index`.
fn expected_at(g: &impl Graph, chunks: &[Range<u64>], index: u64) -> i32 {
    let mut out = 0;
    if let Some(r) = chunks.iter().find(|r| r.contains(&index)) {
        g.walk(r.clone(), &|i| i == index, &mut |_, moves| {
            out = best(g, moves)
        });
    }
    out
}

/// A layer of the tables as a [`Graph`]: its positions, their stored values and moves, exits
/// valued from the smaller layers.
struct LayerGraph<'a> {
    rules: Rules,
    layer: &'a Layer,
    layout: &'a Layout,
    tables: &'a Tables,
    /// A capture reached a smaller layer that is not loaded (checked before, so never).
    missing: AtomicBool,
}

impl LayerGraph<'_> {
    /// The moves of `p` as edges, into `out`; returns how many.
    #[inline(always)]
    fn moves(&self, p: &Position6, out: &mut [Edge; MAX_MOVES]) -> usize {
        let mut len = 0;
        p.for_each_child(&self.rules, |c| {
            let e = if c.ended_game {
                Edge::Exit(c.gain as i32)
            } else if c.extra_turn {
                let n = c.position.seeds_on_board() as usize;
                match self.tables.layer(n) {
                    Some(l) => Edge::Exit(c.value(l.value(l.layout().index_of(&c.position)))),
                    None => {
                        self.missing.store(true, Relaxed);
                        Edge::Exit(i32::MIN)
                    }
                }
            } else {
                Edge::Quiet(self.layout.index_of(&c.position))
            };
            out[len] = e;
            len += 1;
        });
        if len == 0 {
            out[0] = match p.passed(&self.rules) {
                Some(q) => Edge::Quiet(self.layout.index_of(&q)),
                // Neither side can move: the game is over, worth 0.
                None => Edge::Exit(0),
            };
            len = 1;
        }
        len
    }

    fn position(&self, i: u64) -> Position6 {
        let side = (i / self.layout.per_side()) as usize;
        let mut board = [0u8; MAX_BOARD];
        self.layout.unrank(i % self.layout.per_side(), &mut board);
        self.layout.position_of(&self.rules, side, &board)
    }
}

impl Graph for LayerGraph<'_> {
    fn len(&self) -> u64 {
        self.layout.count()
    }
    #[inline(always)]
    fn value(&self, i: u64) -> i32 {
        self.layer.value(i)
    }
    fn chunks(&self) -> Vec<Range<u64>> {
        // A chunk stays within one side to move.
        let per_side = self.layout.per_side();
        (0..self.layout.sides() as u64)
            .flat_map(|s| {
                (0..per_side.div_ceil(CHUNK)).map(move |c| {
                    s * per_side + c * CHUNK..s * per_side + ((c + 1) * CHUNK).min(per_side)
                })
            })
            .collect()
    }
    fn walk(
        &self,
        range: Range<u64>,
        select: &dyn Fn(u64) -> bool,
        f: &mut dyn FnMut(u64, &[Edge]),
    ) {
        let per_side = self.layout.per_side();
        let side = (range.start / per_side) as usize;
        let base = side as u64 * per_side;
        let mut board = [0u8; MAX_BOARD];
        let mut at: Option<u64> = None;
        let mut moves = [Edge::Exit(0); MAX_MOVES];
        for i in range {
            if !select(i) {
                continue;
            }
            let r = i - base;
            self.layout.seek(&mut board, &mut at, r);
            let p = self.layout.position_of(&self.rules, side, &board);
            let len = self.moves(&p, &mut moves);
            f(i, &moves[..len]);
        }
    }
}

impl Tables {
    /// Checks every position of the layer of `seeds` seeds, trusting the smaller layers
    /// (verify them first: [`Tables::verify_full`] does): each stored value must be the
    /// best over its moves, and every nonzero value must be forced in finitely many moves
    /// (the values are the least fixpoint; see the module documentation). Runs on the rayon
    /// pool the caller has installed, reporting each sweep to `progress`. A layer that is
    /// not loaded, or whose captures reach a smaller layer that is not, is an error.
    ///
    /// ```
    /// use hoyito_rules::Rules;
    /// use hoyito_tables::{FullOptions, Quiet, Tables};
    /// let tables = Tables::in_memory(&Rules::default(), 8).unwrap();
    /// let check = tables.verify_full_layer(8, &FullOptions::default(), &Quiet).unwrap();
    /// assert!(check.passed());
    /// assert_eq!(check.positions, 75_582);
    /// ```
    pub fn verify_full_layer(
        &self,
        seeds: usize,
        options: &FullOptions,
        progress: &dyn Progress,
    ) -> Result<FullCheck, TableError> {
        let t0 = Instant::now();
        let layer = self
            .layer(seeds)
            .ok_or(TableError::MissingLayer { seeds })?;
        if let Some(&lower) = layers_up_to(seeds)
            .iter()
            .find(|&&m| m < seeds && !self.has_layer(m))
        {
            return Err(TableError::MissingLayer { seeds: lower });
        }
        let layout = layer.layout();
        progress.layer_start(seeds, layout.count());
        let g = LayerGraph {
            rules: self.rules_for_build(),
            layer,
            layout,
            tables: self,
            missing: AtomicBool::new(false),
        };
        let check = check_graph(&g, seeds as i32, options.graph_bytes, seeds, progress);
        if g.missing.load(Relaxed) {
            return Err(TableError::MissingLayer {
                seeds: seeds.saturating_sub(4),
            });
        }
        Ok(FullCheck {
            seeds,
            positions: layout.count(),
            nonzero: check.nonzero,
            sweeps: check.sweeps,
            rounds: check.rounds,
            evaluations: check.evaluations,
            seconds: t0.elapsed().as_secs_f64(),
            failure: check.fault.map(|f| FullFailure {
                index: f.index,
                position: g.position(f.index),
                stored: g.value(f.index),
                fault: f.fault,
                count: f.count,
            }),
        })
    }

    /// [`Tables::verify_full_layer`] on every loaded layer of at most `max_seeds` seeds,
    /// smallest first, so that each layer is checked over smaller layers already proved
    /// exact. Stops after the first layer that fails (it is the last in the list); `done`
    /// gets each layer's result as it is known.
    pub fn verify_full(
        &self,
        max_seeds: usize,
        options: &FullOptions,
        progress: &dyn Progress,
        mut done: impl FnMut(&FullCheck),
    ) -> Result<Vec<FullCheck>, TableError> {
        let seeds: Vec<usize> = self
            .layers()
            .map(|l| l.seeds())
            .filter(|&n| n <= max_seeds)
            .collect();
        let mut out = Vec::new();
        for n in seeds {
            let check = self.verify_full_layer(n, options, progress)?;
            done(&check);
            let failed = !check.passed();
            out.push(check);
            if failed {
                break;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Quiet;

    /// A graph given explicitly: a value and moves per position.
    struct Explicit(Vec<(i32, Vec<Edge>)>);

    impl Graph for Explicit {
        fn len(&self) -> u64 {
            self.0.len() as u64
        }
        fn value(&self, i: u64) -> i32 {
            self.0[i as usize].0
        }
        fn walk(
            &self,
            range: Range<u64>,
            select: &dyn Fn(u64) -> bool,
            f: &mut dyn FnMut(u64, &[Edge]),
        ) {
            for i in range.filter(|&i| select(i)) {
                f(i, &self.0[i as usize].1);
            }
        }
    }

    /// Checks `g` by sweeps and by the attractor, which must agree but for the counts of
    /// sweeps and rounds; returns the check by sweeps.
    fn check(g: Vec<(i32, Vec<Edge>)>) -> GraphCheck {
        let g = Explicit(g);
        let by_sweeps = check_graph(&g, 8, 0, 8, &Quiet);
        let by_rounds = check_graph(&g, 8, u64::MAX, 8, &Quiet);
        assert_eq!(by_rounds.fault, by_sweeps.fault);
        assert_eq!(by_rounds.nonzero, by_sweeps.nonzero);
        if by_sweeps.sweeps > 1 {
            assert_eq!(by_rounds.sweeps, 2);
        }
        by_sweeps
    }

    use Edge::{Exit, Quiet as Q};

    #[test]
    fn a_two_cycle_is_worth_zero() {
        // Each position's one move leads to the other: endless play.
        let truth = check(vec![(0, vec![Q(1)]), (0, vec![Q(0)])]);
        assert_eq!(truth.fault, None);
        assert_eq!(truth.nonzero, 0);
        // +4/-4 agrees with the moves but is not forced.
        let wrong = check(vec![(4, vec![Q(1)]), (-4, vec![Q(0)])]);
        assert_eq!(
            wrong.fault,
            Some(Fault {
                index: 0,
                fault: FullFault::NotForced,
                count: 2
            })
        );
    }

    #[test]
    fn a_cycle_with_an_exit_is_forced() {
        // 0 can leave with 4 or go to 1; 1 can only go back to 0. 0 is worth 4 (exit), and
        // 1 worth -4, grounded through 0.
        let g = check(vec![(4, vec![Exit(4), Q(1)]), (-4, vec![Q(0)])]);
        assert_eq!(g.fault, None);
        assert_eq!(g.nonzero, 2);
        // The same cycle with the exit worth less: 4 is no longer forced (the truth is
        // 0 for both: endless play beats the exit worth -4).
        let g = check(vec![(4, vec![Exit(-4), Q(1)]), (-4, vec![Q(0)])]);
        assert_eq!(g.fault.map(|f| f.fault), Some(FullFault::NotForced));
        let g = check(vec![(0, vec![Exit(-4), Q(1)]), (0, vec![Q(0)])]);
        assert_eq!(g.fault, None);
    }

    #[test]
    fn local_faults_name_the_first_position_and_the_best_move() {
        let g = check(vec![(0, vec![Exit(0)]), (12, vec![Exit(12)])]);
        assert_eq!(
            g.fault,
            Some(Fault {
                index: 1,
                fault: FullFault::OutOfRange,
                count: 1
            })
        );
        let g = check(vec![
            (0, vec![Exit(4)]),
            (8, vec![Exit(4)]),
            (12, vec![Exit(12)]),
        ]);
        assert_eq!(
            g.fault,
            Some(Fault {
                index: 0,
                fault: FullFault::Moves { expected: 4 },
                count: 2
            })
        );
        assert_eq!(g.sweeps, 1);
    }

    #[test]
    fn a_forced_line_against_the_index_order_takes_sweeps() {
        // A chain 0 -> 1 -> ... -> k where only k has an exit: the loser at each odd step
        // has one move. Sweeps in index order ground one link of the chain each.
        let k = 9u64;
        let value = |i: u64| [4, -4][(i % 2) as usize];
        let mut g: Vec<(i32, Vec<Edge>)> = (0..k).map(|i| (value(i), vec![Q(i + 1)])).collect();
        // k is odd: its mover loses 4 by the exit.
        g.push((value(k), vec![Exit(-4)]));
        let c = check(g.clone());
        assert_eq!(c.fault, None);
        assert_eq!(c.nonzero, k + 1);
        assert_eq!(c.sweeps, k as u32 + 1);
        // Sweeps until 5 are left open (9 after the first, one fewer each sweep), then the
        // attractor: one more sweep grounds 4, and rounds ground 3, 2, 1 and 0.
        let mixed = check_graph(&Explicit(g.clone()), 8, 5 * GRAPH_BYTES_PER_OPEN, 8, &Quiet);
        assert_eq!((mixed.fault, mixed.sweeps, mixed.rounds), (None, 6, 4));
        // Cut the chain's end: nothing is forced any more.
        g[k as usize].1 = vec![Q(0)];
        g[k as usize].0 = -g[0].0;
        let c = check(g);
        assert_eq!(c.fault.map(|f| (f.index, f.count)), Some((0, k + 1)));
    }

    #[test]
    fn the_loser_must_be_bound_on_every_quiet_move() {
        // 1 (worth -4) has two quiet moves: to 0 (forced +4) and to 2 (+4 on a cycle with 3).
        let g = check(vec![
            (4, vec![Exit(4)]),
            (-4, vec![Q(0), Q(2)]),
            (4, vec![Q(3)]),
            (-4, vec![Q(2)]),
        ]);
        let f = g.fault.unwrap();
        assert_eq!((f.index, f.fault, f.count), (1, FullFault::NotForced, 3));
    }
}

#[cfg(test)]
mod layer_tests {
    use hoyito_rules::{CaptureSide, LastFour, Rules, Variant};

    use super::*;
    use crate::format::{step_of, BuildCounts, TableKey};
    use crate::Quiet;

    /// `tables` with the values of layer `seeds` changed at some indices: every layer is
    /// repacked as a layer built in memory would be.
    fn relabel(tables: &Tables, seeds: usize, changes: &[(u64, i32)]) -> Tables {
        let key = TableKey::of(tables.rules());
        let mut layers: Vec<Option<Layer>> = Vec::new();
        for l in tables.layers() {
            let n = l.seeds();
            let step = step_of(n) as i32;
            let counts = BuildCounts {
                sweeps: 0,
                rounds: 0,
                millis: 0,
            };
            let code = |i: u64| {
                let v = match changes.iter().find(|c| n == seeds && c.0 == i) {
                    Some(&(_, v)) => v,
                    None => l.value(i),
                };
                ((v + n as i32) / step) as u8
            };
            let copy =
                Layer::from_codes(&key, l.layout(), counts, l.header().histogram.clone(), code)
                    .unwrap();
            layers.resize_with(n + 1, || None);
            layers[n] = Some(copy);
        }
        Tables::from_layers(tables.rules(), layers)
    }

    fn graph<'a>(tables: &'a Tables, seeds: usize) -> LayerGraph<'a> {
        let layer = tables.layer(seeds).unwrap();
        LayerGraph {
            rules: tables.rules_for_build(),
            layer,
            layout: layer.layout(),
            tables,
            missing: AtomicBool::new(false),
        }
    }

    /// Pairs `(p, q)` of zero-valued positions of layer `seeds` where `q`'s only move (or
    /// pass) leads to `p`, and `p` has a quiet move to `q`.
    fn two_cycles(tables: &Tables, seeds: usize) -> Vec<(u64, u64)> {
        let g = graph(tables, seeds);
        let mut out = Vec::new();
        let moves_of = |i: u64| {
            let mut m = Vec::new();
            g.walk(i..i + 1, &|_| true, &mut |_, e| m = e.to_vec());
            m
        };
        for q in 0..g.len() {
            if g.value(q) != 0 {
                continue;
            }
            let mq = moves_of(q);
            for &e in &mq {
                let Edge::Quiet(p) = e else { continue };
                if p == q || g.value(p) != 0 || !moves_of(p).contains(&Edge::Quiet(q)) {
                    continue;
                }
                // Every other move of q loses.
                if mq.iter().all(|&o| o == e || worth(&g, o) < 0) {
                    out.push((p, q));
                }
            }
        }
        out
    }

    /// From the values of layer `seeds` with `p` set to `+g` and `q` to `-g`, applies the
    /// value operator (best over the moves) to the whole layer until nothing changes (at
    /// most `rounds` times): a labelling that agrees with every move, or `None`.
    fn consistent_from(
        tables: &Tables,
        seeds: usize,
        start: &[(u64, i32)],
        rounds: usize,
    ) -> Option<Vec<(u64, i32)>> {
        let g = graph(tables, seeds);
        let mut moves: Vec<Vec<Edge>> = Vec::new();
        g.walk(0..g.len(), &|_| true, &mut |_, e| moves.push(e.to_vec()));
        let mut v: Vec<i32> = (0..g.len()).map(|i| g.value(i)).collect();
        for &(i, x) in start {
            v[i as usize] = x;
        }
        for _ in 0..rounds {
            let next: Vec<i32> = moves
                .iter()
                .map(|m| {
                    m.iter()
                        .map(|&e| match e {
                            Edge::Exit(x) => x,
                            Edge::Quiet(c) => -v[c as usize],
                        })
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            if next == v {
                let changed = (0..g.len())
                    .filter(|&i| v[i as usize] != g.value(i))
                    .map(|i| (i, v[i as usize]))
                    .collect::<Vec<_>>();
                return (!changed.is_empty()).then_some(changed);
            }
            v = next;
        }
        None
    }

    /// Checks layer `seeds` by sweeps and by the attractor, which must agree.
    fn both_ways(tables: &Tables, seeds: usize) -> FullCheck {
        let sweeps = FullOptions { graph_bytes: 0 };
        let rounds = FullOptions {
            graph_bytes: u64::MAX,
        };
        let mixed = FullOptions {
            graph_bytes: 500 * GRAPH_BYTES_PER_OPEN,
        };
        let a = tables.verify_full_layer(seeds, &sweeps, &Quiet).unwrap();
        let b = tables.verify_full_layer(seeds, &rounds, &Quiet).unwrap();
        let c = tables.verify_full_layer(seeds, &mixed, &Quiet).unwrap();
        assert_eq!((&a.failure, a.nonzero), (&b.failure, b.nonzero));
        assert_eq!((&a.failure, a.nonzero), (&c.failure, c.nonzero));
        assert_eq!(a.rounds, 0);
        assert!(b.evaluations <= a.evaluations);
        a
    }

    fn rules(variant: Variant, holes: usize) -> Rules {
        Rules::new(variant, holes, 4, LastFour::Capturer, CaptureSide::Any).unwrap()
    }

    #[test]
    fn built_tables_are_proved_exact() {
        let cases = [
            (rules(Variant::Hoyito2, 6), 12),
            (rules(Variant::Hoyito3, 6), 10),
            (rules(Variant::Hoyito2, 3), 11),
            (rules(Variant::Hoyito3, 3), 12),
            (rules(Variant::Hoyito2, 4), 13),
            (rules(Variant::Hoyito2, 2), 9),
            (
                Rules::new(
                    Variant::Hoyito2,
                    3,
                    4,
                    LastFour::South,
                    CaptureSide::Opponent,
                )
                .unwrap(),
                10,
            ),
        ];
        for (rules, max) in cases {
            let tables = Tables::in_memory(&rules, max).unwrap();
            let checks = tables
                .verify_full(max, &FullOptions::default(), &Quiet, |_| {})
                .unwrap();
            assert_eq!(checks.len(), layers_up_to(max).len(), "{rules}");
            assert!(both_ways(&tables, max).passed());
            for (c, l) in checks.iter().zip(tables.layers()) {
                assert!(c.passed(), "{rules} layer {}: {:?}", c.seeds, c.failure);
                assert_eq!(c.seeds, l.seeds());
                assert_eq!(c.positions, l.layout().count());
                let step = step_of(c.seeds);
                let zero = l.header().histogram[c.seeds / step];
                assert_eq!(c.nonzero, c.positions - zero);
                assert!(c.evaluations >= c.positions);
            }
        }
    }

    #[test]
    fn a_value_changed_fails_the_moves_check() {
        let rules = Rules::default();
        let tables = Tables::in_memory(&rules, 12).unwrap();
        let layer = tables.layer(12).unwrap();
        let i = layer.layout().count() / 2 + 17;
        let v = layer.value(i);
        let wrong = if v + 4 <= 12 { v + 4 } else { v - 4 };
        let damaged = relabel(&tables, 12, &[(i, wrong)]);
        // The smaller layer is untouched.
        assert!(damaged
            .verify_full_layer(8, &FullOptions::default(), &Quiet)
            .unwrap()
            .passed());
        let c = damaged
            .verify_full_layer(12, &FullOptions::default(), &Quiet)
            .unwrap();
        let f = c.failure.unwrap();
        // The changed position fails, and so may those with a move to it (any index).
        assert!(matches!(f.fault, FullFault::Moves { expected } if expected != f.stored));
        assert!(f.index <= i);
        assert!(f.count >= 1);
        assert_eq!(f.stored, damaged.layer(12).unwrap().value(f.index));
        assert_eq!(f.position, graph(&tables, 12).position(f.index));
        assert_eq!(c.sweeps, 1);
        // Out of range: a code beyond the layer's largest value.
        let damaged = relabel(&tables, 12, &[(i, 16)]);
        let f = damaged
            .verify_full_layer(12, &FullOptions::default(), &Quiet)
            .unwrap()
            .failure
            .unwrap();
        assert_eq!((f.index, f.fault, f.stored), (i, FullFault::OutOfRange, 16));
        // Layers above a damaged one are not checked.
        let checks = damaged
            .verify_full(12, &FullOptions::default(), &Quiet, |_| {})
            .unwrap();
        assert_eq!(checks.len(), 2);
        assert!(checks[0].passed() && !checks[1].passed());
    }

    /// A labelling of a layer of `rules` that agrees with every move but is not the least
    /// fixpoint: from a pair of zero-valued positions on a cycle of quiet moves, set to
    /// `+g` and `-g`, with the values around them adjusted until every move agrees.
    fn consistent_but_wrong(rules: &Rules, seeds: usize) -> (Tables, Vec<(u64, i32)>) {
        let tables = Tables::in_memory(rules, seeds).unwrap();
        let g = step_of(seeds) as i32;
        let changes = two_cycles(&tables, seeds)
            .into_iter()
            .find_map(|(p, q)| consistent_from(&tables, seeds, &[(p, g), (q, -g)], 100))
            .expect("a cycle to relabel");
        (tables, changes)
    }

    #[test]
    fn values_on_a_cycle_that_agree_with_their_moves_fail_grounding() {
        for (rules, seeds) in [
            (rules(Variant::Hoyito2, 3), 6),
            (rules(Variant::Hoyito3, 3), 11),
            (Rules::default(), 8),
        ] {
            let (tables, changes) = consistent_but_wrong(&rules, seeds);
            assert!(tables
                .verify_full_layer(seeds, &FullOptions::default(), &Quiet)
                .unwrap()
                .passed());
            let damaged = relabel(&tables, seeds, &changes);
            // Every value agrees with its moves: the sampled check sees nothing.
            let (checked, bad) = damaged.verify_layer(seeds, u64::MAX);
            assert_eq!(checked, damaged.layer(seeds).unwrap().layout().count());
            assert!(bad.is_empty(), "{bad:?}");
            let c = both_ways(&damaged, seeds);
            let f = c.failure.unwrap();
            assert_eq!(f.fault, FullFault::NotForced, "{rules} {seeds}");
            assert_ne!(f.stored, 0);
            // The positions not forced are among those relabelled.
            assert!(changes.iter().any(|&(i, v)| i == f.index && v == f.stored));
            assert!(f.count >= 2 && f.count <= changes.len() as u64);
            assert!(c.sweeps > 1);
        }
    }
}
