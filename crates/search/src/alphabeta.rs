//! The negamax search of one thread: alpha-beta with principal-variation windows, the shared
//! transposition table, repetition on the path, same-side plies after captures.
//!
//! # Exactness with repetition
//!
//! A repetition on the search path is worth 0, but that 0 depends on the path, not only on
//! the position (the graph-history problem). Each call returns, with its fail-soft score,
//! the lowest path index of a repeated position that each of its two claims ("at least the
//! score", "at most the score") rests on ([`Dep`]). Three rules keep the table exact:
//!
//! 1. A claim that rests on no repetition above the node is the node's value as the root of
//!    its own game, which equals the retrograde fixpoint (endless play worth 0): it is
//!    stored. Using such true values below a node keeps the root exact: under an optimal
//!    positional strategy of the endless game, `captures so far + value of the current
//!    position` never moves against its player, and a cycle the opponent can force back to a
//!    position is worth at most 0 to that player.
//! 2. A repetition of a position above the node is worth exactly 0 to the node (no capture
//!    on a cycle), so "at least `s`" with `s > 0`, and "at most `s`" with `s < 0`, never rest
//!    on one: the strategy that proves them avoids such lines.
//! 3. In an exact (null-window) search every repetition counts as a win for the side that
//!    endless play favours, so the results resting on one are claims of that side, proved
//!    co-inductively. They wait (see `confirm`) until the repeated position gets its own
//!    result: if that agrees and rests on nothing above, they are proven and stored; if it
//!    disagrees they are dropped. Meanwhile they answer repeated visits below that position.
//!
//! Tests check all of this against an independent solver of whole small games.
//!
//! A result is *proven* (stored with depth [`PROVEN`]) when no heuristic evaluation and no
//! unproven table entry was used in its subtree; only proven entries answer an exact search.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use hoyito_rules::{Child, Move, Position, Probe, Rules, MAX_HOLES};

use crate::eval::Eval;
use crate::retro::Retro;
use crate::tt::{Bound, Entry, Table, PROVEN};

/// No repetition above this node was used.
pub(crate) const NO_REP: usize = usize::MAX;
/// Depth that never reaches the horizon: an exact search.
pub(crate) const INFINITE: i32 = 1 << 20;
/// Longest path searched; a search thread's stack holds it with room to spare.
const MAX_PLY: usize = 200_000;

/// Nodes a thread counts between two checks of the limits: 1024, or fewer under a small node
/// limit, so that `threads` threads together pass `node_limit` by at most 0.5%.
pub(crate) fn poll_interval(node_limit: u64, threads: usize) -> u64 {
    (node_limit / (200 * threads.max(1) as u64)).clamp(1, 1024)
}

/// Everything the threads of one search share.
pub(crate) struct Shared<'a, const W: usize, T: Table<W>> {
    pub rules: Rules,
    pub table: &'a T,
    pub probe: Option<&'a dyn Probe<W>>,
    /// `probe`'s [`Probe::max_seeds`], asked once.
    pub probe_seeds: u32,
    pub eval: Eval,
    pub stop: &'a AtomicBool,
    pub nodes: &'a AtomicU64,
    pub node_limit: u64,
    /// Nodes a thread counts between two checks of the limits ([`poll_interval`]).
    pub poll_every: u64,
    pub deadline: Option<Instant>,
    /// Exact values of small components, asked in exact mode for positions with at most
    /// `retro_seeds` seeds on the board.
    pub retro: Option<&'a Mutex<Retro<W>>>,
    pub retro_seeds: u32,
    /// A stop asked from outside the search (checked with the limits).
    pub abort: &'a AtomicBool,
}

/// The state of one search thread.
pub(crate) struct Worker<'s, 'a, const W: usize, T: Table<W>> {
    sh: &'s Shared<'a, W, T>,
    /// Thread number; helpers (id > 0) rotate the root move order.
    pub id: usize,
    /// Boards on the current path with their seeds on board.
    path: Vec<([u64; W], u32)>,
    /// Nodes searched by this thread.
    pub nodes: u64,
    /// Nodes not yet added to the shared count.
    pending: u64,
    /// Heuristic evaluations and unproven table cutoffs so far (a node whose subtree did not
    /// change this count is proven).
    pub heuristic: u64,
    /// History scores by side and hole.
    history: [[u32; 16]; 2],
    /// Two killer moves by ply.
    killers: Vec<[u8; 2]>,
    /// Best move at the root in the last search call.
    pub root_best: Option<Move>,
    /// Whether this thread saw the stop signal.
    pub stopped: bool,
    /// Deepest ply reached (exact searches can follow long cycles).
    pub max_ply: usize,
    /// Counts of path positions by key bits: most positions are not on the path, and this
    /// answers so without scanning it. Only the first [`DEEP`] path positions are counted here; deeper ones (long
    /// capture-free wanderings of exact mode) are in `deep`.
    filter: Box<[u16; FILTER_MASK as usize + 1]>,
    /// Keys of the path positions, to keep `filter` in step.
    path_keys: Vec<u64>,
    /// Path index of each path position from index [`DEEP`] on: a scan of a path hundreds
    /// of thousands of plies long would cost that much for every node.
    deep: HashMap<[u64; W], usize, ahash::RandomState>,
    /// Whether a repetition of the path position at each index was met.
    repeated: Vec<bool>,
    /// Exact null-window mode: results that rest on a repetition of a path position wait in
    /// `waiting` until that position's own result confirms the outcome the repetition assumed.
    pub exact: bool,
    /// Results waiting for confirmation: position, key, entry, lowest path index relied on.
    waiting: Vec<(Position<W>, u64, Entry, usize)>,
    /// Index in `waiting` by board. A waiting result rests only on positions still on the
    /// path, all assumed to have the outcome their repetitions gave (the one endless play
    /// favours), so below them it may answer like a table entry, passing its reliance on.
    local: HashMap<[u64; W], usize, ahash::RandomState>,
}

impl<'s, 'a, const W: usize, T: Table<W>> Worker<'s, 'a, W, T> {
    pub fn new(sh: &'s Shared<'a, W, T>, id: usize) -> Self {
        Worker {
            sh,
            id,
            path: Vec::with_capacity(256),
            nodes: 0,
            pending: 0,
            heuristic: 0,
            history: [[0; 16]; 2],
            killers: vec![[0; 2]; 256],
            root_best: None,
            stopped: false,
            max_ply: 0,
            filter: Box::new([0; FILTER_MASK as usize + 1]),
            path_keys: Vec::with_capacity(256),
            deep: HashMap::with_hasher(ahash::RandomState::with_seeds(4, 3, 2, 1)),
            repeated: Vec::with_capacity(256),
            exact: false,
            waiting: Vec::new(),
            local: HashMap::with_hasher(ahash::RandomState::with_seeds(9, 8, 7, 6)),
        }
    }

    /// Adds pending nodes to the shared count and checks the limits.
    #[cold]
    fn poll(&mut self) {
        let total = self.sh.nodes.fetch_add(self.pending, Ordering::Relaxed) + self.pending;
        self.pending = 0;
        if total >= self.sh.node_limit {
            self.sh.stop.store(true, Ordering::Relaxed);
        }
        if let Some(d) = self.sh.deadline {
            if Instant::now() >= d {
                self.sh.stop.store(true, Ordering::Relaxed);
            }
        }
        if self.sh.abort.load(Ordering::Relaxed) {
            self.sh.stop.store(true, Ordering::Relaxed);
        }
        if self.sh.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        }
    }

    /// Flushes the node count (at the end of a search).
    pub fn flush(&mut self) {
        self.sh.nodes.fetch_add(self.pending, Ordering::Relaxed);
        self.pending = 0;
    }

    /// The score of child `c` for the mover, searched in the mover's window `(alpha, beta)`:
    /// an extra turn keeps the side (same window shifted by the gain, no negation).
    #[inline]
    fn child(&mut self, c: &Child<W>, depth: i32, alpha: i32, beta: i32, ply: usize) -> (i32, Dep) {
        if c.ended_game {
            return (c.value(0), Dep::NONE);
        }
        let (a, b) = child_window(c, alpha, beta);
        let (v, d) = self.search(&c.position, depth - 1, a, b, ply + 1);
        (c.value(v), if c.extra_turn { d } else { d.negated() })
    }

    /// Pushes a node on the path.
    #[inline]
    fn push(&mut self, board: [u64; W], n: u32, key: u64) {
        let i = self.path.len();
        if i < DEEP {
            self.filter[(key & FILTER_MASK) as usize] += 1;
        } else {
            self.deep.insert(board, i);
        }
        self.path.push((board, n));
        self.path_keys.push(key);
        self.repeated.push(false);
    }

    /// Pops the last node of the path.
    #[inline]
    fn pop(&mut self) {
        let Some((board, _)) = self.path.pop() else {
            return;
        };
        self.repeated.pop();
        let key = self.path_keys.pop().unwrap_or_default();
        if self.path.len() < DEEP {
            self.filter[(key & FILTER_MASK) as usize] -= 1;
        } else {
            self.deep.remove(&board);
        }
    }

    /// Negamax alpha-beta, fail-soft. Returns the score for the side to move of `p` and the
    /// repetitions of positions above `p` that its bounds depend on.
    ///
    /// In order: count the node; a finished board, a repetition on the path or an oracle
    /// answers at once; the window narrows to what the seeds on the board allow; the horizon
    /// evaluates; the table may cut off; then the pass or the ordered moves are searched and
    /// the result is recorded (stored, or kept waiting for a repetition's confirmation).
    pub fn search(
        &mut self,
        p: &Position<W>,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> (i32, Dep) {
        if !self.enter(ply) {
            return (0, Dep::NONE);
        }
        let seeds = p.seeds_on_board();
        if seeds <= 4 {
            return (0, Dep::NONE);
        }
        let node = Node {
            p,
            board: p.board_key(),
            key: p.key(),
            seeds,
            depth,
            ply,
        };
        if let Some(i) = self.repetition(&node) {
            self.repeated[i] = true;
            return (0, Dep::at(i));
        }
        if let Some(v) = self.oracle(p, seeds) {
            return (v, Dep::NONE);
        }
        // The mover gains at most the seeds on the board, and loses at most as many.
        let n = seeds as i32;
        if alpha >= n {
            return (n, Dep::NONE);
        }
        if beta <= -n {
            return (-n, Dep::NONE);
        }
        alpha = alpha.max(-n);
        beta = beta.min(n);

        if depth <= 0 {
            // Horizon nodes are most of the tree: a table probe costs more than it saves.
            self.heuristic += 1;
            return (self.sh.eval.evaluate(&self.sh.rules, p, n), Dep::NONE);
        }
        let entry = self.sh.table.probe(p, node.key);
        if ply > 0 {
            if let Some(cut) = self.cutoff(entry, &node, alpha, beta) {
                return cut;
            }
        }

        let list = p.moves(&self.sh.rules);
        if list.is_empty() {
            return self.search_pass(&node, alpha, beta);
        }
        let children = list.children();
        let tt_move = entry.map_or(0, |e| e.mv);
        let order = self.order_moves(&node, children, tt_move);
        self.max_ply = self.max_ply.max(ply);
        let pending0 = self.waiting.len();
        let me = self.path.len();
        self.push(node.board, seeds, node.key);
        let heuristic0 = self.heuristic;
        let Some(best) = self.search_moves(&node, children, &order[..children.len()], alpha, beta)
        else {
            self.pop();
            return (0, Dep::NONE);
        };
        let dep = self.leave(me, pending0, best.score, beta, best.dep);
        self.record(&node, Best { dep, ..best }, alpha, beta, heuristic0);
        (best.score, dep)
    }

    /// Counts a node at `ply` and polls the limits every `poll_every` nodes. Whether to
    /// search it (false once the search has stopped).
    #[inline]
    fn enter(&mut self, ply: usize) -> bool {
        self.nodes += 1;
        self.pending += 1;
        if self.pending >= self.sh.poll_every {
            self.poll();
        }
        if ply >= MAX_PLY {
            // A path this long only comes from wandering a huge cycle component: give up
            // (the result is reported as not exact) rather than exhaust the stack.
            self.stopped = true;
        }
        !self.stopped
    }

    /// The path index of the node's board if it is already on the path. Only positions since
    /// the last capture (same seeds) can repeat; the filter skips the scan of the first
    /// [`DEEP`] for positions certainly not among them, and a map answers for the others.
    #[inline]
    fn repetition(&self, node: &Node<'_, W>) -> Option<usize> {
        if self.path.len() > DEEP {
            if let Some(&i) = self.deep.get(&node.board) {
                return Some(i);
            }
        }
        if self.filter[(node.key & FILTER_MASK) as usize] == 0 {
            return None;
        }
        for i in (0..self.path.len().min(DEEP)).rev() {
            let (b, s) = self.path[i];
            if s != node.seeds {
                break;
            }
            if b == node.board {
                return Some(i);
            }
        }
        None
    }

    /// The exact value of `p` (`seeds` on the board) from the endgame tables or, in exact
    /// mode, from retrograde analysis of its component, if they know it.
    #[inline]
    fn oracle(&self, p: &Position<W>, seeds: u32) -> Option<i32> {
        if let Some(o) = self.sh.probe {
            if seeds <= self.sh.probe_seeds {
                if let Some(v) = o.probe(p) {
                    return Some(v);
                }
            }
        }
        if self.exact && seeds <= self.sh.retro_seeds {
            if let Some(r) = self.sh.retro {
                return r.lock().unwrap_or_else(|e| e.into_inner()).value(p);
            }
        }
        None
    }

    /// A cutoff of a node below the root in the window `(alpha, beta)`: from the table entry
    /// `e` when it is deep enough (counted as heuristic unless proven), or from a result
    /// waiting for confirmation, which passes its reliance on a repetition above on.
    #[inline]
    fn cutoff(
        &mut self,
        e: Option<Entry>,
        node: &Node<'_, W>,
        alpha: i32,
        beta: i32,
    ) -> Option<(i32, Dep)> {
        if let Some(e) = e {
            if e.depth == PROVEN || e.depth as i32 >= node.depth {
                let s = e.score as i32;
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    if e.depth != PROVEN {
                        self.heuristic += 1;
                    }
                    return Some((s, Dep::NONE));
                }
            }
        }
        if !self.local.is_empty() {
            if let Some(&i) = self.local.get(&node.board) {
                let (_, _, e, rep) = self.waiting[i];
                let s = e.score as i32;
                let cut = match e.bound {
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                    Bound::Exact => false,
                };
                if cut {
                    return Some((s, Dep::at(rep)));
                }
            }
        }
        None
    }

    /// A node whose side to move has no legal move: the automatic pass leads to the same
    /// board with the other side to move, not a ply; the game is over (worth 0) when that
    /// side cannot move either.
    #[inline]
    fn search_pass(&mut self, node: &Node<'_, W>, alpha: i32, beta: i32) -> (i32, Dep) {
        let Some(q) = node.p.passed(&self.sh.rules) else {
            return (0, Dep::NONE);
        };
        let pending0 = self.waiting.len();
        let me = self.path.len();
        self.push(node.board, node.seeds, node.key);
        let (v, d) = self.search(&q, node.depth, -beta, -alpha, node.ply + 1);
        if self.stopped {
            self.pop();
            return (0, Dep::NONE);
        }
        let dep = self.leave(me, pending0, -v, beta, d.negated());
        (-v, dep)
    }

    /// The search order of `children` as indices: the table move, then captures by gain,
    /// then the killers, then by history, stable among equals (hole order). Helpers rotate
    /// the root's order, so that threads explore different trees.
    #[inline]
    fn order_moves(
        &mut self,
        node: &Node<'_, W>,
        children: &[Child<W>],
        tt_move: u8,
    ) -> [(u32, u8); MAX_HOLES] {
        let side = node.p.side_to_move().index();
        let ply = node.ply;
        if ply >= self.killers.len() {
            self.killers.resize(ply + 64, [0; 2]);
        }
        let killers = self.killers[ply];
        let mut order = [(0u32, 0u8); MAX_HOLES];
        let len = children.len();
        for (i, c) in children.iter().enumerate() {
            let m = c.mv.0;
            let key = if m == tt_move {
                u32::MAX
            } else if c.gain > 0 {
                (1 << 30) + ((c.gain as u32 + 64) << 8)
            } else if m == killers[0] {
                (1 << 29) + 1
            } else if m == killers[1] {
                1 << 29
            } else {
                self.history[side][m as usize].min((1 << 29) - 1)
            };
            order[i] = (key, i as u8);
        }
        // Insertion sort, highest key first, stable (hole order among equals).
        for i in 1..len {
            let x = order[i];
            let mut j = i;
            while j > 0 && order[j - 1].0 < x.0 {
                order[j] = order[j - 1];
                j -= 1;
            }
            order[j] = x;
        }
        if ply == 0 && self.id > 0 && len > 1 {
            order[..len].rotate_left(self.id % len);
        }
        order
    }

    /// Searches the children in `order` with principal-variation windows: the first with
    /// `(alpha, beta)`, the others with a null window, again with the full one when they
    /// fall inside it. A quiet move that cuts off becomes a killer and gains history.
    /// Returns the best score and move, with the dependencies of its bounds: the lower
    /// bound rests on the best child's, the upper bound on every child's. `None` when the
    /// search stopped.
    #[inline]
    fn search_moves(
        &mut self,
        node: &Node<'_, W>,
        children: &[Child<W>],
        order: &[(u32, u8)],
        mut alpha: i32,
        beta: i32,
    ) -> Option<Best> {
        let (depth, ply) = (node.depth, node.ply);
        let mut best = Best {
            score: -INFINITE,
            mv: 0,
            dep: Dep::NONE,
        };
        for (k, &(_, i)) in order.iter().enumerate() {
            let c = &children[i as usize];
            let (mut s, mut d) = if k == 0 {
                self.child(c, depth, alpha, beta, ply)
            } else {
                self.child(c, depth, alpha, alpha + 1, ply)
            };
            if k > 0 && s > alpha && s < beta && !self.stopped {
                (s, d) = self.child(c, depth, alpha, beta, ply);
            }
            if self.stopped {
                return None;
            }
            best.dep.upper = best.dep.upper.min(d.upper);
            if s > best.score {
                best.score = s;
                best.mv = c.mv.0;
                best.dep.lower = d.lower;
                if ply == 0 {
                    self.root_best = Some(c.mv);
                }
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        if c.gain == 0 {
                            self.note_cutoff(node, c.mv);
                        }
                        break;
                    }
                }
            }
        }
        Some(best)
    }

    /// A quiet move that cut off: the first killer at the node's ply, and history by depth
    /// squared.
    #[inline]
    fn note_cutoff(&mut self, node: &Node<'_, W>, mv: Move) {
        let kl = &mut self.killers[node.ply];
        if kl[0] != mv.0 {
            kl[1] = kl[0];
            kl[0] = mv.0;
        }
        let h = &mut self.history[node.p.side_to_move().index()][mv.0 as usize];
        let dd = node.depth.clamp(1, 64) as u32;
        *h = h.saturating_add(dd * dd);
    }
}

impl<const W: usize, T: Table<W>> Worker<'_, '_, W, T> {
    /// Leaves the node at path index `me` (entered when `pending0` results were waiting)
    /// with score `s` in a window below `beta`, its children's dependencies `dep`. Returns
    /// the dependencies that remain above it ([`Dep::settled`]); in exact mode, when the
    /// node was met again below itself, confirms or drops the results that rest on that
    /// repetition ([`Worker::confirm`]).
    #[inline]
    fn leave(&mut self, me: usize, pending0: usize, s: i32, beta: i32, dep: Dep) -> Dep {
        let repeated = self.repeated[me];
        self.pop();
        let dep = dep.settled(s, me);
        if self.exact && repeated {
            let own = if s >= beta { dep.lower } else { dep.upper };
            self.confirm(me, pending0, (s >= beta) == (0 >= beta), own);
        }
        dep
    }

    /// Records the result `best` of a node searched in the window `(alpha0, beta)`: the
    /// claims that rest on no repetition above go to the table (proven when no heuristic
    /// value was used since `heuristic0`); in exact mode, a null-window result that rests on
    /// one waits for the repeated position's own result (see [`Worker::confirm`]).
    #[inline]
    fn record(&mut self, node: &Node<'_, W>, best: Best, alpha0: i32, beta: i32, heuristic0: u64) {
        let dep = best.dep;
        let (lower_ok, upper_ok) = (dep.lower == NO_REP, dep.upper == NO_REP);
        let bound = if best.score >= beta {
            lower_ok.then_some(Bound::Lower)
        } else if best.score <= alpha0 {
            upper_ok.then_some(Bound::Upper)
        } else {
            match (lower_ok, upper_ok) {
                (true, true) => Some(Bound::Exact),
                (true, false) => Some(Bound::Lower),
                (false, true) => Some(Bound::Upper),
                (false, false) => None,
            }
        };
        if bound.is_none() && self.exact {
            // A null-window result that rests on repetitions above: keep it until the
            // repeated position confirms, at the edge of the window.
            let (score, bound, rep) = if best.score >= beta {
                (beta, Bound::Lower, dep.lower)
            } else {
                (alpha0, Bound::Upper, dep.upper)
            };
            let e = Entry {
                score: score as i16,
                bound,
                depth: PROVEN,
                mv: best.mv,
            };
            self.local.insert(node.board, self.waiting.len());
            self.waiting.push((*node.p, node.key, e, rep));
        }
        if let Some(bound) = bound {
            let depth = if self.heuristic == heuristic0 {
                PROVEN
            } else {
                node.depth.clamp(0, PROVEN as i32 - 1) as u8
            };
            self.sh.table.store(
                node.p,
                node.key,
                Entry {
                    score: best.score as i16,
                    bound,
                    depth,
                    mv: best.mv,
                },
            );
        }
    }

    /// Called when the node at path index `me`, which was met again as a repetition below
    /// itself, has its result. The repetition counted as worth 0, which in a null-window
    /// test is a fail-high or a fail-low for the node; `consistent` says whether the node's
    /// own result is the same. If it is, the waiting results that rest only on the node and
    /// positions below it are proven (Y's or X's strategy in the subtree, joined with the
    /// node's own, keeps the same outcome forever or ends in it) and go to the table; if not,
    /// every result waiting since the node was entered is dropped. When the node's own result
    /// still rests on a repetition above it (`own`), the confirmed results rest on that one
    /// too, and keep waiting for it.
    fn confirm(&mut self, me: usize, pending0: usize, consistent: bool, own: usize) {
        let mut keep = pending0;
        for i in pending0..self.waiting.len() {
            let (p, key, e, rep) = self.waiting[i];
            let board = p.board_key();
            let current = self.local.get(&board) == Some(&i);
            if current {
                self.local.remove(&board);
            }
            if !consistent {
                continue;
            }
            if rep >= me && own == NO_REP {
                self.sh.table.store(&p, key, e);
            } else {
                self.waiting[keep] = (p, key, e, rep.min(own));
                if current {
                    self.local.insert(board, keep);
                }
                keep += 1;
            }
        }
        self.waiting.truncate(keep);
    }

    /// Forgets results waiting for confirmation (at the start of a root search).
    pub fn reset_pending(&mut self) {
        self.waiting.clear();
        self.local.clear();
    }
}

const FILTER_MASK: u64 = 4095;
/// Path positions counted in `filter` (and scanned); deeper ones go to a map.
const DEEP: usize = 256;

/// What the steps of [`Worker::search`] need to know about the node being searched.
struct Node<'p, const W: usize> {
    p: &'p Position<W>,
    /// `p.board_key()`.
    board: [u64; W],
    /// `p.key()`.
    key: u64,
    /// Seeds on the board.
    seeds: u32,
    /// Remaining depth.
    depth: i32,
    /// Distance from the root.
    ply: usize,
}

/// The best of a node's moves so far: score, move (hole number) and the dependencies of
/// the score's bounds.
#[derive(Clone, Copy)]
struct Best {
    score: i32,
    mv: u8,
    dep: Dep,
}

/// The window in which to search the position after move `c`, given the mover's window
/// `(alpha, beta)`: the inverse of [`Child::value`] (shifted by the gain after an extra
/// turn, negated and shifted when the opponent moves next).
#[inline]
pub(crate) fn child_window<const W: usize>(c: &Child<W>, alpha: i32, beta: i32) -> (i32, i32) {
    let g = c.gain as i32;
    if c.extra_turn {
        (alpha - g, beta - g)
    } else {
        (g - beta, g - alpha)
    }
}

/// Which repetitions of positions on the path a score's two claims rest on: `lower` for
/// "the value is at least the score", `upper` for "at most". Each is the lowest path index
/// of a repeated position the claim used, or [`NO_REP`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dep {
    pub lower: usize,
    pub upper: usize,
}

impl Dep {
    pub const NONE: Dep = Dep {
        lower: NO_REP,
        upper: NO_REP,
    };

    /// A repetition of the position at path index `i`.
    fn at(i: usize) -> Dep {
        Dep { lower: i, upper: i }
    }

    /// As seen by the opponent: their lower bound is our upper bound.
    fn negated(self) -> Dep {
        Dep {
            lower: self.upper,
            upper: self.lower,
        }
    }

    /// The dependencies that remain for the node at path index `me` with score `s`.
    ///
    /// A repetition of a position above the node is worth exactly 0 to the node (no capture
    /// happens on a cycle, so none between the node and the repetition). A claim "at least
    /// `s`" with `s > 0` therefore holds against every line that ends in such a repetition,
    /// so it cannot rest on one: the strategy that proves it avoids them, and proves the same
    /// bound with any history. Likewise "at most `s`" with `s < 0`. Repetitions of the node
    /// itself or of positions below it do not depend on the path above.
    fn settled(self, s: i32, me: usize) -> Dep {
        let keep = |r: usize, independent: bool| if independent || r >= me { NO_REP } else { r };
        Dep {
            lower: keep(self.lower, s > 0),
            upper: keep(self.upper, s < 0),
        }
    }
}
