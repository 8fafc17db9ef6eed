//! Exact values by retrograde analysis of the positions reachable from a position.
//!
//! Depth-first search proves values badly in this game: non-capturing moves wander through
//! a layer of positions with the same seeds on the board (about a million on 2x6 with 12
//! seeds) and a proof that one side cannot force a gain must cover most of it, along paths
//! thousands of plies long, while repetition makes most of those results path-dependent.
//! So exact mode solves a position's *component* at once: every position reachable from it
//! by non-capturing moves and passes (same seeds on the board). Captures leave the component
//! and are *exits* whose values come from solving the smaller components they lead to
//! (memoised). Inside the component the value is the fixpoint of RULES.md where endless play
//! is worth 0, computed per threshold `T` by an attractor: for `T > 0` South must force an
//! exit worth at least `T`, for `T <= 0` North must force one worth less than `T` (endless
//! play is then good enough for South). The value is the largest `T` South achieves.
//!
//! A component larger than the cap is not solved (`None`); the search then works without it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use hoyito_rules::{Position, Rules, Side};

/// Exact values of solved components, by board.
pub(crate) struct Retro<const W: usize> {
    rules: Rules,
    /// Values for the side to move, by board and side.
    values: HashMap<[u64; W], i16, ahash::RandomState>,
    /// Boards whose component was too large.
    failed: HashMap<[u64; W], (), ahash::RandomState>,
    /// Most positions in one component.
    pub cap: usize,
    /// When to give up a component (not remembered as too large: a later call may finish).
    pub deadline: Option<Instant>,
    /// Set from any thread to give up the component being solved, as at the deadline (its
    /// own flag: the search's stop signal is borrowed for one search only, see `searcher.rs`).
    pub stop: Arc<AtomicBool>,
    /// Whether the last call gave up at the deadline or on `stop`.
    pub stopped: bool,
    /// The most positions solved and being explored a call may reach (a node limit): past
    /// it the call gives up as on a stop.
    pub room: usize,
}

/// The component being solved, in flat arrays (a component can hold millions of nodes: a
/// pair of small vectors each would cost as much time to free as to fill).
struct Graph {
    /// South to move, by node.
    south: Vec<bool>,
    /// Node `k`'s exits are `exits[exit_start[k] .. exit_start[k + 1]]`: their values, from
    /// South's point of view.
    exit_start: Vec<u32>,
    exits: Vec<i16>,
    /// Node `k`'s edges to other nodes are `edges[edge_start[k] .. edge_start[k + 1]]`.
    edge_start: Vec<u32>,
    edges: Vec<u32>,
}

impl Graph {
    fn new() -> Self {
        Graph {
            south: Vec::new(),
            exit_start: vec![0],
            exits: Vec::new(),
            edge_start: vec![0],
            edges: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.south.len()
    }

    fn exits(&self, k: usize) -> &[i16] {
        &self.exits[self.exit_start[k] as usize..self.exit_start[k + 1] as usize]
    }

    fn edges(&self, k: usize) -> &[u32] {
        &self.edges[self.edge_start[k] as usize..self.edge_start[k + 1] as usize]
    }
}

impl<const W: usize> Retro<W> {
    pub fn new(rules: Rules, cap: usize) -> Self {
        Retro {
            rules,
            values: HashMap::with_hasher(ahash::RandomState::with_seeds(5, 6, 7, 8)),
            failed: HashMap::with_hasher(ahash::RandomState::with_seeds(5, 6, 7, 8)),
            cap,
            deadline: None,
            stop: Arc::new(AtomicBool::new(false)),
            stopped: false,
            room: usize::MAX,
        }
    }

    /// Positions solved so far.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// The exact value of `p` for its side to move, solving its component if needed;
    /// `None` when a component on the way is larger than the cap, or on a stop (`stopped`).
    pub fn value(&mut self, p: &Position<W>) -> Option<i32> {
        if p.seeds_on_board() <= 4 {
            return Some(0);
        }
        let k = p.board_key();
        if let Some(&v) = self.values.get(&k) {
            return Some(v as i32);
        }
        if self.failed.contains_key(&k) {
            return None;
        }
        self.stopped = false;
        if self.solve(p).is_none() {
            if !self.stopped {
                self.failed.insert(k, ());
            }
            return None;
        }
        self.values.get(&k).map(|&v| v as i32)
    }

    /// Solves the component of `root`: explores it, then finds every node's value by
    /// attractors, threshold by threshold. `None` when it is larger than the cap, or on a
    /// stop (`stopped`).
    fn solve(&mut self, root: &Position<W>) -> Option<()> {
        let (positions, graph) = self.explore(root)?;
        let Some(values) = south_values(&graph, || self.must_stop()) else {
            self.stopped = true;
            return None;
        };
        for (k, p) in positions.iter().enumerate() {
            // Every value is exact: a stop may leave the component half remembered.
            if k & POLL == POLL && self.must_stop() {
                self.stopped = true;
                return None;
            }
            let v = if graph.south[k] {
                values[k]
            } else {
                -values[k]
            };
            self.values.insert(p.board_key(), v);
        }
        Some(())
    }

    /// Whether the solve must give up now: past the deadline, or told to stop.
    fn must_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The positions of the component of `root` (found breadth first, `root` first) and
    /// its graph; `None` when there are more than the cap.
    fn explore(&mut self, root: &Position<W>) -> Option<(Vec<Position<W>>, Graph)> {
        let mut index: HashMap<[u64; W], u32, ahash::RandomState> =
            HashMap::with_hasher(ahash::RandomState::with_seeds(1, 1, 2, 3));
        let mut positions = vec![*root];
        let mut graph = Graph::new();
        let mut same_layer = Vec::new();
        index.insert(root.board_key(), 0);
        let mut i = 0;
        while i < positions.len() {
            // The flag costs nothing to read: every position (small components never
            // reach a 4096th); the clock every 4096.
            if self.stop.load(Ordering::Relaxed) || (i & 4095 == 4095 && self.must_stop()) {
                self.stopped = true;
                return None;
            }
            same_layer.clear();
            let south = self.node(&positions[i], &mut graph.exits, &mut same_layer)?;
            for q in same_layer.drain(..) {
                let k = q.board_key();
                if let Some(&v) = self.values.get(&k) {
                    // Solved before, with everything it reaches: an exit.
                    let south_q = q.side_to_move() == Side::South;
                    graph.exits.push(if south_q { v } else { -v });
                    continue;
                }
                let j = match index.get(&k) {
                    Some(&j) => j,
                    None => {
                        if positions.len() >= self.cap {
                            return None;
                        }
                        if self.values.len() + positions.len() >= self.room {
                            self.stopped = true;
                            return None;
                        }
                        let j = positions.len() as u32;
                        index.insert(k, j);
                        positions.push(q);
                        j
                    }
                };
                graph.edges.push(j);
            }
            graph.south.push(south);
            graph.exit_start.push(graph.exits.len() as u32);
            graph.edge_start.push(graph.edges.len() as u32);
            i += 1;
        }
        Some((positions, graph))
    }

    /// The node of `p`: appends to `exits` the values of its exits (captures, valued by
    /// solving the smaller components they lead to, and the end of the game), from South's
    /// point of view, and to `same_layer` the positions of the same layer it leads to (quiet
    /// moves and the automatic pass), which become its edges. Whether South moves there.
    fn node(
        &mut self,
        p: &Position<W>,
        exits: &mut Vec<i16>,
        same_layer: &mut Vec<Position<W>>,
    ) -> Option<bool> {
        let rules = self.rules;
        let south = p.side_to_move() == Side::South;
        let sign = if south { 1 } else { -1 };
        let list = p.moves(&rules);
        if list.is_empty() {
            match p.passed(&rules) {
                Some(q) => same_layer.push(q),
                None => exits.push(0),
            }
        }
        for c in list.children() {
            if c.extra_turn {
                // A finished board is worth 0 (`value` answers so at once).
                let v = self.value(&c.position)?;
                exits.push((sign * c.value(v)) as i16);
            } else {
                same_layer.push(c.position);
            }
        }
        Some(south)
    }
}

/// Steps of a pass over a component between two looks at `must_stop`, less one.
const POLL: usize = 0xffff;

/// The value for South of every node of a component: the largest threshold `t` South
/// reaches (the smallest always is), each threshold decided by an attractor; `None` when
/// `must_stop` says so (it is asked every [`POLL`] steps of each pass).
fn south_values(graph: &Graph, must_stop: impl Fn() -> bool) -> Option<Vec<i16>> {
    let preds = Predecessors::of(graph, &must_stop)?;
    // The exit values that occur, and 0, in increasing order (values lie within the seeds
    // on the board: a short range).
    let lo = graph.exits.iter().copied().fold(0, i16::min) as i32;
    let hi = graph.exits.iter().copied().fold(0, i16::max) as i32;
    let mut seen = vec![false; (hi - lo + 1) as usize];
    seen[(-lo) as usize] = true;
    for &e in &graph.exits {
        seen[(e as i32 - lo) as usize] = true;
    }
    let thresholds: Vec<i16> = (lo..=hi)
        .filter(|&v| seen[(v - lo) as usize])
        .map(|v| v as i16)
        .collect();
    let n = graph.len();
    let mut value = vec![thresholds[0]; n];
    let mut attractor = Attractor {
        in_a: vec![false; n],
        count: vec![0u32; n],
        queue: Vec::with_capacity(n),
    };
    for &t in &thresholds[1..] {
        if must_stop() {
            return None;
        }
        let p_south = t > 0;
        attractor.compute(graph, &preds, t, &must_stop)?;
        for (k, v) in value.iter_mut().enumerate() {
            // South reaches t: in South's attractor, or outside North's.
            if attractor.in_a[k] == p_south {
                *v = t;
            }
        }
    }
    Some(value)
}

/// The predecessors of every node, with multiplicity (a node counts each of its edges):
/// those of node `k` are `list[start[k] .. start[k + 1]]`.
struct Predecessors {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Predecessors {
    /// `None` when `must_stop` says so.
    fn of(graph: &Graph, must_stop: &impl Fn() -> bool) -> Option<Self> {
        let n = graph.len();
        let mut start = vec![0u32; n + 1];
        for &j in &graph.edges {
            start[j as usize + 1] += 1;
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; start[n] as usize];
        for k in 0..n {
            if k & POLL == POLL && must_stop() {
                return None;
            }
            for &j in graph.edges(k) {
                list[fill[j as usize] as usize] = k as u32;
                fill[j as usize] += 1;
            }
        }
        Some(Predecessors { start, list })
    }

    fn of_node(&self, k: usize) -> &[u32] {
        &self.list[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// The attractor of one threshold, with its work space kept from one threshold to the next.
struct Attractor {
    /// Whether each node is in the attractor.
    in_a: Vec<bool>,
    /// Edges of each node still to lead into the attractor before it joins (`u32::MAX`: never).
    count: Vec<u32>,
    queue: Vec<u32>,
}

impl Attractor {
    /// The attractor at threshold `t` of the player who must force a good exit: South, who
    /// needs an exit worth at least `t`, when `t > 0`; North, who needs one worth less than
    /// `t`, otherwise (endless play is then good enough for South).
    /// `None` when `must_stop` says so.
    fn compute(
        &mut self,
        graph: &Graph,
        preds: &Predecessors,
        t: i16,
        must_stop: &impl Fn() -> bool,
    ) -> Option<()> {
        let p_south = t > 0;
        let good = |e: i16| if p_south { e >= t } else { e < t };
        let (in_a, count, queue) = (&mut self.in_a, &mut self.count, &mut self.queue);
        queue.clear();
        for k in 0..graph.len() {
            if k & POLL == POLL && must_stop() {
                return None;
            }
            in_a[k] = false;
            let (exits, edges) = (graph.exits(k), graph.edges(k));
            if graph.south[k] == p_south {
                if exits.iter().any(|&e| good(e)) {
                    in_a[k] = true;
                } else {
                    count[k] = 1;
                }
            } else if exits.iter().all(|&e| good(e)) {
                if edges.is_empty() {
                    in_a[k] = true;
                } else {
                    count[k] = edges.len() as u32;
                }
            } else {
                count[k] = u32::MAX;
            }
            if in_a[k] {
                queue.push(k as u32);
            }
        }
        let mut steps = 0usize;
        while let Some(k) = queue.pop() {
            steps += 1;
            if steps & POLL == POLL && must_stop() {
                return None;
            }
            for &q in preds.of_node(k as usize) {
                let q = q as usize;
                if in_a[q] || count[q] == u32::MAX {
                    continue;
                }
                count[q] -= 1;
                if count[q] == 0 {
                    in_a[q] = true;
                    queue.push(q as u32);
                }
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoyito_rules::Position6;

    #[test]
    fn a_stop_gives_up_a_component_without_marking_it_too_large() {
        let rules = Rules::default();
        let p = Position6::parse(&rules, "2,1,1,0,0,0/1,1,1,1,0,0 S 20-20").unwrap();
        let expected = Retro::new(rules, 1 << 20).value(&p);
        assert!(expected.is_some());

        let mut retro = Retro::new(rules, 1 << 20);
        retro.stop.store(true, Ordering::Relaxed);
        assert_eq!(retro.value(&p), None);
        assert!(retro.stopped);
        assert_eq!(retro.len(), 0);
        // Not remembered as too large: once the flag is cleared, the same call solves it.
        retro.stop.store(false, Ordering::Relaxed);
        assert_eq!(retro.value(&p), expected);
        assert!(!retro.stopped);
        assert!(retro.len() > 0);
    }
}
