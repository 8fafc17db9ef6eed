//! One layer under check as a graph of moves: the moves of each position (exits with their
//! worth, quiet moves to positions of the layer), and the passes that check local
//! consistency and ground the values.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use super::board::{can_move, sow, to_position, Index, Sown, Values};
use super::{Board, LayerReport, Progress, CHUNK, MAX_TABLE_HOLES, SEGMENT};
use crate::error::{CheckError, ValueFailure, ValueFault};
use crate::resume::{Kept, Standing};
use crate::rules::{Rules, Side};
use crate::tables::{Layer, Tables};

/// One move as the check sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    /// A move that leaves the layer (a capture, a game end): its worth to the mover.
    Exit(i32),
    /// A quiet move or a pass, to the position of this index (other side to move): worth
    /// minus its value.
    Quiet(u64),
}

/// The moves of a position: at most one a hole, or one pass, or one game end.
struct Moves {
    edges: [Edge; MAX_TABLE_HOLES],
    len: usize,
}

impl Moves {
    fn as_slice(&self) -> &[Edge] {
        &self.edges[..self.len]
    }
}

/// One layer under check, with the smaller layers its captures lead to.
pub(super) struct LayerGraph<'a> {
    rules: Rules,
    layer: &'a Layer,
    seeds: usize,
    pub(super) index: Index,
    values: Values<'a>,
    /// `smaller[m]`: the index and values of layer `m < seeds`, where the tables hold it.
    smaller: Vec<Option<(Index, Values<'a>)>>,
}

impl<'a> LayerGraph<'a> {
    pub(super) fn new(
        tables: &'a Tables,
        rules: &Rules,
        layer: &'a Layer,
    ) -> Result<Self, CheckError> {
        let sides = layer.sides();
        let too_large = |seeds: usize| CheckError::Table {
            path: layer.path().to_path_buf(),
            problem: format!("the layer of {seeds} seeds is too large to index"),
        };
        let seeds = layer.seeds();
        let index = Index::new(rules.holes, seeds, sides).ok_or_else(|| too_large(seeds))?;
        if index.count() != layer.positions() {
            return Err(CheckError::Table {
                path: layer.path().to_path_buf(),
                problem: format!(
                    "{} positions in the file, {} boards of {seeds} seeds",
                    layer.positions(),
                    index.count()
                ),
            });
        }
        let mut smaller = Vec::new();
        for m in 0..seeds {
            smaller.push(match tables.layer(m) {
                Some(l) => Some((
                    Index::new(rules.holes, m, sides).ok_or_else(|| too_large(m))?,
                    Values::of(l),
                )),
                None => None,
            });
        }
        Ok(LayerGraph {
            rules: *rules,
            layer,
            seeds,
            index,
            values: Values::of(layer),
            smaller,
        })
    }

    /// The moves of `board` with `side` to move.
    fn moves(&self, board: &Board, side: Side) -> Result<Moves, CheckError> {
        let rules = &self.rules;
        let mut out = Moves {
            edges: [Edge::Exit(0); MAX_TABLE_HOLES],
            len: 0,
        };
        let first = if side == Side::South { 0 } else { rules.holes };
        for start in first..first + rules.holes {
            if board[start] == 0 {
                continue;
            }
            let edge = match sow(rules, board, side, start) {
                Sown::Endless => continue,
                Sown::Done(next, 0) => Edge::Quiet(self.index.index(&next, side.other())),
                Sown::Done(next, captured) => {
                    let left = self.seeds - captured as usize;
                    let gain = captured as i32;
                    if left <= 4 {
                        let award = if rules.last_four_to(side) == side {
                            left as i32
                        } else {
                            -(left as i32)
                        };
                        Edge::Exit(gain + award)
                    } else {
                        Edge::Exit(gain + self.smaller_value(&next, side, left)?)
                    }
                }
            };
            out.edges[out.len] = edge;
            out.len += 1;
        }
        if out.len == 0 {
            out.edges[0] = if can_move(rules, board, side.other()) {
                Edge::Quiet(self.index.index(board, side.other()))
            } else {
                Edge::Exit(0)
            };
            out.len = 1;
        }
        Ok(out)
    }

    /// The stored value of `board` (`left` seeds) with `side` to move, from a smaller layer.
    fn smaller_value(&self, board: &Board, side: Side, left: usize) -> Result<i32, CheckError> {
        match self.smaller.get(left).and_then(|s| s.as_ref()) {
            Some((index, values)) => {
                let i = index.index(board, side);
                let code = values.code(i) as i32;
                let v = (code - values.offset) * values.step;
                if v.abs() > left as i32 {
                    let position = to_position(&self.rules, board, side);
                    return Err(CheckError::Table {
                        path: self.layer.path().to_path_buf(),
                        problem: format!(
                            "a capture leads to {position}, whose value code {code} in the \
                             layer of {left} seeds is out of range"
                        ),
                    });
                }
                Ok(v)
            }
            None => Err(CheckError::Table {
                path: self.layer.path().to_path_buf(),
                problem: format!(
                    "a capture leads to {}, in the layer of {left} seeds, which is not open",
                    to_position(&self.rules, board, side)
                ),
            }),
        }
    }

    #[inline]
    fn worth(&self, e: Edge) -> i32 {
        match e {
            Edge::Exit(x) => x,
            Edge::Quiet(c) => -self.values.value(c),
        }
    }

    /// Whether a position of value `v` with `moves` is grounded, given the bits so far.
    #[inline]
    fn grounded(&self, done: &Bits, v: i32, moves: &[Edge]) -> bool {
        if v > 0 {
            moves.iter().any(|&e| match e {
                Edge::Exit(x) => x == v,
                Edge::Quiet(c) => self.values.value(c) == -v && done.get(c),
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

    fn failure(&self, index: u64, fault: ValueFault, count: u64) -> CheckError {
        let (board, side) = self.index.position(index);
        CheckError::WrongValue(Box::new(ValueFailure {
            path: self.layer.path().to_path_buf(),
            seeds: self.seeds,
            index,
            position: to_position(&self.rules, &board, side),
            stored: self.values.value(index),
            fault,
            count,
        }))
    }

    /// Checks the layer: pass 1 over every position, then passes over the positions still
    /// open until one grounds nothing, in segments between which `kept` may save the state
    /// and the check may stop (resumed from a partial state kept by an earlier run).
    pub(super) fn verify(
        &self,
        progress: &dyn Progress,
        kept: &Kept,
    ) -> Result<LayerReport, CheckError> {
        let started = Instant::now();
        let n = self.index.count();
        let chunks = n.div_ceil(CHUNK);
        let codes = self.layer.histogram().len();
        let (mut s, done) = match kept.partial()? {
            Some((s, words)) if s.histogram.len() == codes => (s, Bits::from_words(words)),
            _ => (Standing::new(codes), Bits::new(n)),
        };
        let resume = kept.resume();
        let mut saved = Instant::now();
        let pass_size = |s: &Standing| if s.pass == 1 { n } else { s.open };
        progress.pass_start(self.seeds, s.pass, pass_size(&s));
        if s.next_chunk > 0 {
            progress.advance(if s.pass == 1 {
                (s.next_chunk * CHUNK).min(n)
            } else {
                s.pass_visited
            });
        }
        loop {
            if s.next_chunk < chunks {
                let segment = s.next_chunk..(s.next_chunk + SEGMENT).min(chunks);
                s.next_chunk = segment.end;
                if s.pass == 1 {
                    self.first_segment(&done, segment, progress)?.add_to(&mut s);
                } else {
                    let (grounded, visited) =
                        self.open_segment(&done, s.pass, segment, progress)?;
                    s.pass_grounded += grounded;
                    s.pass_visited += visited;
                }
            }
            if s.next_chunk == chunks {
                // The pass is over.
                let grounded = if s.pass == 1 {
                    self.check_first(&s)?;
                    s.open = s.nonzero - s.first_grounded;
                    s.open_after_first = s.open;
                    s.evaluations = n;
                    s.first_grounded
                } else {
                    s.evaluations += s.pass_visited;
                    s.open -= s.pass_grounded;
                    s.pass_grounded
                };
                progress.pass_end(self.seeds, s.pass, grounded, s.open);
                if s.open == 0 || (s.pass > 1 && grounded == 0) {
                    break;
                }
                s.pass += 1;
                s.next_chunk = 0;
                s.pass_grounded = 0;
                s.pass_visited = 0;
                progress.pass_start(self.seeds, s.pass, pass_size(&s));
            }
            let stop = resume.must_stop();
            if stop || resume.save_every.is_some_and(|e| saved.elapsed() >= e) {
                let mut now = s.clone();
                now.seconds += started.elapsed().as_secs_f64();
                kept.save_partial(&now, &done.words())?;
                saved = Instant::now();
            }
            if stop {
                let through = if s.pass == 1 {
                    (s.next_chunk * CHUNK).min(n)
                } else {
                    s.pass_visited
                };
                return Err(CheckError::Stopped {
                    seeds: self.seeds,
                    pass: s.pass,
                    visited: through,
                    of: pass_size(&s),
                    state: kept.partial_path(),
                });
            }
        }
        if s.open > 0 {
            let at = (0..n).find(|&i| !done.get(i)).unwrap_or(0);
            return Err(self.failure(at, ValueFault::NotForced, s.open));
        }
        Ok(LayerReport {
            seeds: self.seeds,
            positions: n,
            nonzero: s.nonzero,
            open_after_first: s.open_after_first,
            passes: s.pass,
            evaluations: s.evaluations,
            payload_checksum: self.layer.payload_checksum(),
            seconds: s.seconds + started.elapsed().as_secs_f64(),
            earlier: false,
        })
    }

    /// Pass 1 over the chunks of `segment`, in index order: each value in range and the
    /// best over its moves, counted by value, and marked in `done` where already shown
    /// forced.
    fn first_segment(
        &self,
        done: &Bits,
        segment: std::ops::Range<u64>,
        progress: &dyn Progress,
    ) -> Result<FirstPass, CheckError> {
        let n = self.index.count();
        let range = self.seeds as i32;
        let codes = self.layer.histogram().len();
        segment
            .into_par_iter()
            .map(|c| -> Result<FirstPass, CheckError> {
                let mut s = FirstPass::new(codes);
                let mut walk = self.index.walk_from(c * CHUNK);
                for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                    let (board, side) = walk.next();
                    let code = self.values.code(i) as usize;
                    if code >= codes {
                        s.fault(Fault::Range, i);
                        continue;
                    }
                    s.histogram[code] += 1;
                    let v = self.values.value(i);
                    if v.abs() > range {
                        s.fault(Fault::Range, i);
                        continue;
                    }
                    let moves = self.moves(&board, side)?;
                    let moves = moves.as_slice();
                    let best = moves.iter().map(|&e| self.worth(e)).max().unwrap_or(0);
                    if best != v {
                        s.fault(Fault::Moves, i);
                    }
                    if v != 0 {
                        s.nonzero += 1;
                    }
                    if self.grounded(done, v, moves) {
                        done.set(i);
                        if v != 0 {
                            s.grounded += 1;
                        }
                    }
                }
                progress.advance(((c + 1) * CHUNK).min(n) - c * CHUNK);
                Ok(s)
            })
            .try_reduce(|| FirstPass::new(codes), |a, b| Ok(a.merge(b)))
    }

    /// The faults of the first pass, the first one named, and the header's histogram
    /// against the values counted.
    fn check_first(&self, first: &Standing) -> Result<(), CheckError> {
        for (fault, (count, at)) in [(Fault::Range, first.range), (Fault::Moves, first.moves)] {
            if count > 0 {
                let fault = match fault {
                    Fault::Range => ValueFault::OutOfRange,
                    Fault::Moves => {
                        let (board, side) = self.index.position(at);
                        let moves = self.moves(&board, side)?;
                        let expected = moves
                            .as_slice()
                            .iter()
                            .map(|&e| self.worth(e))
                            .max()
                            .unwrap_or(0);
                        ValueFault::Moves { expected }
                    }
                };
                return Err(self.failure(at, fault, count));
            }
        }
        for (code, (&stored, &counted)) in self
            .layer
            .histogram()
            .iter()
            .zip(&first.histogram)
            .enumerate()
        {
            if stored != counted {
                let value = (code as i32 - self.values.offset) * self.values.step;
                return Err(CheckError::Table {
                    path: self.layer.path().to_path_buf(),
                    problem: format!(
                        "the header's histogram gives {stored} positions of value {value}, \
                         the values {counted}"
                    ),
                });
            }
        }
        Ok(())
    }

    /// A later pass over the chunks of `segment`: the positions still open (not in
    /// `done`), every other pass backwards, marked where now shown forced. Returns the
    /// positions marked and those visited.
    fn open_segment(
        &self,
        done: &Bits,
        pass: u32,
        segment: std::ops::Range<u64>,
        progress: &dyn Progress,
    ) -> Result<(u64, u64), CheckError> {
        let n = self.index.count();
        let backwards = pass & 1 == 0;
        let visited = AtomicU64::new(0);
        let grounded = segment
            .into_par_iter()
            .map(|c| -> Result<u64, CheckError> {
                let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                let (mut seen, mut g) = (0u64, 0u64);
                // Forwards, the boards are found by steps from the last one visited.
                let mut walk = (!backwards).then(|| self.index.walk_from(lo));
                let mut visit = |i: u64| -> Result<(), CheckError> {
                    if done.get(i) {
                        return Ok(());
                    }
                    seen += 1;
                    let (board, side) = match &mut walk {
                        Some(w) => w.seek(i),
                        None => self.index.position(i),
                    };
                    let moves = self.moves(&board, side)?;
                    if self.grounded(done, self.values.value(i), moves.as_slice()) {
                        done.set(i);
                        g += 1;
                    }
                    Ok(())
                };
                if backwards {
                    for i in (lo..hi).rev() {
                        visit(i)?;
                    }
                } else {
                    for i in lo..hi {
                        visit(i)?;
                    }
                }
                visited.fetch_add(seen, Relaxed);
                progress.advance(seen);
                Ok(g)
            })
            .try_reduce(|| 0, |a, b| Ok(a + b))?;
        Ok((grounded, visited.into_inner()))
    }
}

#[derive(Clone, Copy)]
enum Fault {
    Range,
    Moves,
}

/// The counts of the first pass over some positions.
struct FirstPass {
    histogram: Vec<u64>,
    nonzero: u64,
    grounded: u64,
    /// Positions out of range, and the first of them.
    range: (u64, u64),
    /// Positions against their moves, and the first of them.
    moves: (u64, u64),
}

impl FirstPass {
    fn new(codes: usize) -> FirstPass {
        FirstPass {
            histogram: vec![0; codes],
            nonzero: 0,
            grounded: 0,
            range: (0, u64::MAX),
            moves: (0, u64::MAX),
        }
    }

    fn fault(&mut self, kind: Fault, i: u64) {
        let slot = match kind {
            Fault::Range => &mut self.range,
            Fault::Moves => &mut self.moves,
        };
        slot.0 += 1;
        slot.1 = slot.1.min(i);
    }

    /// Adds these counts to where the check stands.
    fn add_to(self, s: &mut Standing) {
        for (a, b) in s.histogram.iter_mut().zip(&self.histogram) {
            *a += b;
        }
        s.nonzero += self.nonzero;
        s.first_grounded += self.grounded;
        for (a, b) in [(&mut s.range, self.range), (&mut s.moves, self.moves)] {
            a.0 += b.0;
            a.1 = a.1.min(b.1);
        }
    }

    fn merge(mut self, other: FirstPass) -> FirstPass {
        for (a, b) in self.histogram.iter_mut().zip(&other.histogram) {
            *a += b;
        }
        self.nonzero += other.nonzero;
        self.grounded += other.grounded;
        for (a, b) in [
            (&mut self.range, other.range),
            (&mut self.moves, other.moves),
        ] {
            a.0 += b.0;
            a.1 = a.1.min(b.1);
        }
        self
    }
}

/// One bit a position, set at most once, by any thread.
struct Bits(Vec<AtomicU64>);

impl Bits {
    fn new(n: u64) -> Bits {
        Bits((0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }
    fn from_words(words: Vec<u64>) -> Bits {
        Bits(words.into_iter().map(AtomicU64::new).collect())
    }
    /// The bits as words (read while no thread sets any).
    fn words(&self) -> Vec<u64> {
        self.0.iter().map(|w| w.load(Relaxed)).collect()
    }
    #[inline]
    fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize].load(Relaxed) & (1 << (i % 64)) != 0
    }
    #[inline]
    fn set(&self, i: u64) {
        self.0[(i / 64) as usize].fetch_or(1 << (i % 64), Relaxed);
    }
}
