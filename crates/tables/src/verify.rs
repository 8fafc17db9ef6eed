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
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

use hoyito_rules::{Position6, Rules};

use crate::error::TableError;
use crate::format::{layers_up_to, Layer};
use crate::grounding::{check_graph, Edge, Graph, CHUNK, MAX_MOVES};
use crate::index::{Layout, MAX_BOARD};
use crate::reader::Tables;
use crate::Progress;

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
    use hoyito_rules::{CaptureSide, LastFour, Rules, Variant};

    use super::*;
    use crate::format::{step_of, BuildCounts, TableKey};
    use crate::grounding::{worth, GRAPH_BYTES_PER_OPEN};
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
