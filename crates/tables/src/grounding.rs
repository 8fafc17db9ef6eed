//! Grounding, the check that values are the least fixpoint, over any graph of positions
//! with stored values ([`Graph`]); the reasoning is in the documentation of `verify.rs`.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use crate::index::MAX_BOARD;
use crate::verify::FullFault;
use crate::Progress;

/// Positions one task checks in one piece (the unit of parallel work and of progress).
pub(crate) const CHUNK: u64 = 1 << 15;

/// Most moves a position has (one per hole of a side); a pass is one move.
pub(crate) const MAX_MOVES: usize = MAX_BOARD / 2;

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
pub(crate) fn worth(g: &impl Graph, e: Edge) -> i32 {
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
    let mut evaluations = n;
    let first = first_sweep(g, &chunks, &done, range, seeds, progress);
    let nonzero = first.nonzero;
    if let Some((index, count, fault)) = first.fault {
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
    let mut open = nonzero - first.grounded;
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

/// What the first sweep of [`check_graph`] found: the nonzero positions, those it grounded,
/// and the first local fault (its index, how many positions have a fault of its kind, and
/// the fault), if any.
struct FirstSweep {
    nonzero: u64,
    grounded: u64,
    fault: Option<(u64, u64, FullFault)>,
}

/// The first sweep of [`check_graph`]: every position checked for local consistency, and
/// grounded where it can be already.
fn first_sweep(
    g: &impl Graph,
    chunks: &[Range<u64>],
    done: &Bits,
    range: i32,
    seeds: usize,
    progress: &dyn Progress,
) -> FirstSweep {
    let n = g.len();
    // Local faults: the lowest index of each kind and how many.
    let first_range = AtomicU64::new(u64::MAX);
    let first_moves = AtomicU64::new(u64::MAX);
    let bad_range = AtomicU64::new(0);
    let bad_moves = AtomicU64::new(0);
    let nonzero = AtomicU64::new(0);
    let grounded_now = AtomicU64::new(0);
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
            if grounded(g, done, v, moves) {
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
    FirstSweep {
        nonzero: nonzero.into_inner(),
        grounded: grounded_now.into_inner(),
        fault: local
            .iter()
            .filter(|l| l.1 > 0)
            .min_by_key(|l| l.0)
            .copied(),
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
    let ids = OpenIds::new(done, g.len());
    let need: Vec<AtomicU8> = (0..open).map(|_| AtomicU8::new(0)).collect();
    let edges = waiting_moves(g, chunks, &ids, &need, sweep, seeds, progress);
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
    let (rounds, left) = count_down(&edges, &start, &need, seeds, progress);
    let left = (left > 0).then(|| {
        let id = (0..open as usize)
            .find(|&x| need[x].load(Relaxed) > 0)
            .unwrap_or(0) as u32;
        (left, ids.index_of(id))
    });
    Attractor {
        rounds,
        evaluations: open,
        left,
    }
}

/// The open positions of a graph (the zero bits of `done`), numbered in index order: the
/// number of a position is the count of open positions before it.
struct OpenIds<'a> {
    done: &'a Bits,
    n: u64,
    /// For each word of `done`, the number of its first open position; then the total.
    first_id: Vec<u32>,
}

impl<'a> OpenIds<'a> {
    fn new(done: &'a Bits, n: u64) -> Self {
        let words = done.0.len();
        let mut ids = OpenIds {
            done,
            n,
            first_id: Vec::with_capacity(words + 1),
        };
        let mut total = 0u32;
        for w in 0..words {
            ids.first_id.push(total);
            total += ids.open_word(w).count_ones();
        }
        ids.first_id.push(total);
        ids
    }

    /// The open positions of word `w` of `done`, a bit each.
    #[inline]
    fn open_word(&self, w: usize) -> u64 {
        let bits = !self.done.0[w].load(Relaxed);
        let tail = self.n - 64 * w as u64;
        if tail < 64 {
            bits & ((1u64 << tail) - 1)
        } else {
            bits
        }
    }

    /// The number of the open position of index `i`.
    #[inline]
    fn id_of(&self, i: u64) -> u32 {
        let w = (i / 64) as usize;
        self.first_id[w] + (self.open_word(w) & ((1u64 << (i % 64)) - 1)).count_ones()
    }

    /// The index of the open position numbered `id`.
    fn index_of(&self, id: u32) -> u64 {
        let w = self.first_id.partition_point(|&f| f <= id) - 1;
        let mut bits = self.open_word(w);
        for _ in 0..id - self.first_id[w] {
            bits &= bits - 1;
        }
        64 * w as u64 + bits.trailing_zeros() as u64
    }
}

/// The sweep (number `sweep`) of [`attract`] that writes the moves the open positions'
/// grounding waits for, as (child id << 32 | parent id), sorted, and the count each open
/// position needs into `need`. `done` does not change during it.
fn waiting_moves(
    g: &impl Graph,
    chunks: &[Range<u64>],
    ids: &OpenIds,
    need: &[AtomicU8],
    sweep: u32,
    seeds: usize,
    progress: &dyn Progress,
) -> Vec<u64> {
    let is_open = |i: u64| !ids.done.get(i);
    progress.sweep_start(seeds, sweep);
    let grounded_now = AtomicU64::new(0);
    let mut edges: Vec<u64> = chunks
        .par_iter()
        .flat_map_iter(|r| {
            let mut out = Vec::new();
            let mut now = 0u64;
            g.walk(r.clone(), &is_open, &mut |i, moves| {
                let v = g.value(i);
                let x = ids.id_of(i) as u64;
                let mut count = 0u8;
                let mut ready = false;
                for &e in moves {
                    let Edge::Quiet(c) = e else { continue };
                    if v > 0 && g.value(c) != -v {
                        continue;
                    }
                    if is_open(c) {
                        out.push((ids.id_of(c) as u64) << 32 | x);
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
    progress.sweep_end(seeds, sweep, need.len() as u64, grounded_now);
    edges.par_sort_unstable();
    edges
}

/// The rounds of [`attract`]: from the positions that need nothing, each round passes on
/// to the parents of those grounded in the round before (`edges[start[c] .. start[c + 1]]`
/// for child `c`), counting their needs down. Returns the rounds and the positions left
/// open.
fn count_down(
    edges: &[u64],
    start: &[u64],
    need: &[AtomicU8],
    seeds: usize,
    progress: &dyn Progress,
) -> (u32, u64) {
    let open = need.len() as u64;
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
    (rounds, left)
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
