//! The graph of one threshold proof ([`Proof`]): its nodes, packed, and the passes over it
//! that decide the root (the attacker's attractors), choose what to explore next (proof and
//! disproof numbers) and list the claims it decided.

use std::collections::HashMap;

use hoyito_rules::{Position, Side};

use crate::certificate::{Kind, RecordedClaim};
use crate::context::{Budget, Stopped};

/// What a node of a threshold proof is known to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Not explored: its moves are unknown.
    Open = 0,
    /// Explored, its quiet moves are edges; the fixpoint decides it.
    Inner = 1,
    /// The attacker wins here (a good exit for the attacker's move, or known before).
    Won = 2,
    /// The defender wins here.
    Lost = 3,
}

/// A node of a proof's graph. A graph can reach tens of millions of nodes, so a node keeps
/// its figures packed: 24 bytes on 2x6 (40 unpacked), read and written through its methods.
pub(crate) struct Node<const W: usize> {
    pub(crate) pos: Position<W>,
    /// Edges `edges[first .. first + len()]` (explored nodes only).
    first: u32,
    /// The state (bits 0 and 1), whether the attacker moves here (bit 2), and whether the
    /// node was decided when added, by what was known before this proof (bit 3).
    flags: u8,
    /// The number of edges (low four bits: at most 12 moves), and the hole of the exit that
    /// decided the node for its mover, if one did (high four bits; 0: none).
    len_exit: u8,
    /// For a capture not yet valued (focused proofs value captures only when chosen): South's
    /// threshold on `pos`, the position after the capture, that makes the capture good for
    /// the attacker; [`NOT_CAPTURE`] for the nodes of positions.
    capture: i16,
}

/// [`Node::capture`] of the nodes of positions.
const NOT_CAPTURE: i16 = i16::MIN;

impl<const W: usize> Node<W> {
    fn new(pos: Position<W>, state: State, attacker: bool, capture: Option<i32>) -> Self {
        let known = state != State::Open;
        Node {
            pos,
            first: 0,
            flags: state as u8 | u8::from(attacker) << 2 | u8::from(known) << 3,
            len_exit: 0,
            capture: capture.map_or(NOT_CAPTURE, |t| {
                i16::try_from(t).expect("thresholds are bounded by the seeds on a board")
            }),
        }
    }

    pub(crate) fn state(&self) -> State {
        match self.flags & 3 {
            0 => State::Open,
            1 => State::Inner,
            2 => State::Won,
            _ => State::Lost,
        }
    }

    pub(crate) fn set_state(&mut self, state: State) {
        self.flags = self.flags & !3 | state as u8;
    }

    /// Whether the attacker moves here.
    pub(crate) fn attacker(&self) -> bool {
        self.flags & 4 != 0
    }

    /// Decided when added, by what was known before this proof (not by this proof).
    pub(crate) fn known(&self) -> bool {
        self.flags & 8 != 0
    }

    /// The number of edges (explored nodes only).
    pub(crate) fn len(&self) -> usize {
        usize::from(self.len_exit & 15)
    }

    /// The range of the node's edges in the proof's `edges` and `holes`.
    pub(crate) fn edges(&self) -> std::ops::Range<usize> {
        self.first as usize..self.first as usize + self.len()
    }

    /// The hole of the exit that decided the node for its mover (0: none).
    pub(crate) fn exit(&self) -> u8 {
        self.len_exit >> 4
    }

    /// Decided for its mover by the exit of `hole`.
    pub(crate) fn decide_by_exit(&mut self, state: State, hole: u8) {
        assert!(
            hole < 16,
            "a hole number fits four bits (at most 12 holes a row)"
        );
        self.set_state(state);
        self.len_exit = self.len_exit & 15 | hole << 4;
    }

    /// Explored: its edges are `edges[first .. first + len]`.
    pub(crate) fn explored(&mut self, first: u32, len: usize) {
        assert!(len < 16, "a position has at most 12 moves");
        self.set_state(State::Inner);
        self.first = first;
        self.len_exit = self.len_exit & !15 | len as u8;
    }

    /// For a capture's node, South's threshold on `pos` that makes it good for the attacker.
    pub(crate) fn capture(&self) -> Option<i32> {
        (self.capture != NOT_CAPTURE).then_some(i32::from(self.capture))
    }
}

const _: () = assert!(std::mem::size_of::<Node<2>>() == 24);

/// One threshold proof: "South's value of the root is at least `t`".
pub(crate) struct Proof<const W: usize> {
    pub(crate) t: i32,
    /// The values of the positions are multiples of `step`.
    pub(crate) step: i32,
    pub(crate) south_attacks: bool,
    pub(crate) nodes: Vec<Node<W>>,
    pub(crate) edges: Vec<u32>,
    /// The hole of the move of each edge (0: a pass).
    pub(crate) holes: Vec<u8>,
    /// The node of each position's board, by its number: the key is read from the node, not
    /// stored twice (4 bytes a slot instead of 24).
    index: hashbrown::HashTable<u32>,
    hasher: ahash::RandomState,
    /// After `decide`: for each node, whether the attacker wins (`None`: undecided).
    pub(crate) won: Vec<Option<bool>>,
    /// After `decide`: for each node the attacker wins, when it joined the attractor (from
    /// 1; 0 for the others): every move the attacker needs leads to an earlier one.
    order: Vec<u32>,
    /// The captures whose proofs were given up, still open.
    pub(crate) deferred: HashMap<u32, Deferred>,
}

/// A capture whose proof was given up
/// ([`crate::threshold::ThresholdProver::south_at_least_within`]).
pub(crate) struct Deferred {
    /// How many times.
    pub(crate) tries: u32,
    /// The proof number of its proof's root when last given up, this proof's way round.
    pub(crate) pn: u32,
    /// The disproof number likewise.
    pub(crate) dn: u32,
}

/// An "infinite" proof or disproof number (sums saturate there).
const INF: u64 = u64::MAX / 4;

impl<const W: usize> Proof<W> {
    pub(crate) fn new(t: i32, step: i32) -> Self {
        Proof {
            t,
            step,
            south_attacks: t > 0,
            nodes: Vec::new(),
            edges: Vec::new(),
            holes: Vec::new(),
            index: hashbrown::HashTable::new(),
            hasher: ahash::RandomState::with_seeds(2, 7, 1, 8),
            won: Vec::new(),
            order: Vec::new(),
            deferred: HashMap::new(),
        }
    }

    /// Whether an exit worth `s` (South's view) is good for the attacker.
    pub(crate) fn good(&self, s: i32) -> bool {
        self.good_if_at_least(s >= self.t)
    }

    /// Whether an exit is good for the attacker, given whether it is worth at least `t`.
    pub(crate) fn good_if_at_least(&self, at_least: bool) -> bool {
        at_least == self.south_attacks
    }

    /// The node of `p`, added (decided at once when its bounds known before, `known(p)`,
    /// are on one side of `t`).
    pub(crate) fn add(
        &mut self,
        p: &Position<W>,
        known: impl FnOnce(&Position<W>) -> (i32, i32),
    ) -> u32 {
        let key = p.board_key();
        let hash = self.hasher.hash_one(key);
        let nodes = &self.nodes;
        if let Some(&j) = self
            .index
            .find(hash, |&j| nodes[j as usize].pos.board_key() == key)
        {
            return j;
        }
        let (lo, hi) = known(p);
        let state = if lo >= self.t {
            if self.south_attacks {
                State::Won
            } else {
                State::Lost
            }
        } else if hi < self.t {
            if self.south_attacks {
                State::Lost
            } else {
                State::Won
            }
        } else {
            State::Open
        };
        let j = self.push(p, state, None);
        let (nodes, hasher) = (&self.nodes, &self.hasher);
        self.index.insert_unique(hash, j, |&j| {
            hasher.hash_one(nodes[j as usize].pos.board_key())
        });
        j
    }

    /// A new node of `p` (a capture's when `capture` gives its threshold).
    fn push(&mut self, p: &Position<W>, state: State, capture: Option<i32>) -> u32 {
        let j = self.nodes.len() as u32;
        let attacker = (p.side_to_move() == Side::South) == self.south_attacks;
        self.nodes.push(Node::new(*p, state, attacker, capture));
        j
    }

    /// A node for a capture to `p` not valued yet: good for the attacker when South's value
    /// of `p` is at least `t` (if South attacks) or below it (if North does). It is never
    /// shared, and what is known of `p` is looked up only when it is explored, so that the
    /// graph a proof explores does not depend on what earlier proofs happen to have proven.
    pub(crate) fn add_capture(&mut self, p: &Position<W>, t: i32) -> u32 {
        self.push(p, State::Open, Some(t))
    }

    /// The attacker's attractor, with open nodes counted as won (`optimistic`) or lost: for
    /// each node, when it joined (from 1), or 0 outside.
    fn attractor(
        &self,
        preds: &[u32],
        start: &[u32],
        optimistic: bool,
        budget: &Budget<'_>,
    ) -> Result<Vec<u32>, Stopped> {
        let n = self.nodes.len();
        let mut inside = vec![0u32; n];
        let mut joined = 0u32;
        let mut count = vec![0u32; n];
        let mut queue = Vec::new();
        for (k, node) in self.nodes.iter().enumerate() {
            budget.poll(k)?;
            let won = match node.state() {
                State::Won => true,
                State::Open => optimistic,
                State::Lost => false,
                State::Inner => {
                    count[k] = if node.attacker() {
                        1
                    } else {
                        node.len() as u32
                    };
                    false
                }
            };
            if won {
                joined += 1;
                inside[k] = joined;
                queue.push(k as u32);
            }
        }
        let mut steps = 0usize;
        while let Some(k) = queue.pop() {
            steps += 1;
            budget.poll(steps)?;
            for &q in &preds[start[k as usize] as usize..start[k as usize + 1] as usize] {
                let q = q as usize;
                if inside[q] != 0 || self.nodes[q].state() != State::Inner {
                    continue;
                }
                count[q] -= 1;
                if count[q] == 0 {
                    joined += 1;
                    inside[q] = joined;
                    queue.push(q as u32);
                }
            }
        }
        Ok(inside)
    }

    /// Predecessors of every node, with multiplicity, as `preds[start[k] .. start[k + 1]]`.
    fn predecessors(&self, budget: &Budget<'_>) -> Result<(Vec<u32>, Vec<u32>), Stopped> {
        let n = self.nodes.len();
        let mut start = vec![0u32; n + 1];
        for (k, node) in self.nodes.iter().enumerate() {
            budget.poll(k)?;
            let r = node.edges();
            for &j in &self.edges[r] {
                start[j as usize + 1] += 1;
            }
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut preds = vec![0u32; start[n] as usize];
        for (k, node) in self.nodes.iter().enumerate() {
            budget.poll(k)?;
            let r = node.edges();
            for &j in &self.edges[r] {
                preds[fill[j as usize] as usize] = k as u32;
                fill[j as usize] += 1;
            }
        }
        Ok((preds, start))
    }

    /// Decides the root if the graph explored so far is enough: `Some(true)` when the
    /// attacker wins. Also fills `won` for every node decided.
    /// Its passes over the graph look at `budget`'s stop and deadline (not its node limit)
    /// as they go ([`Budget::poll`]).
    pub(crate) fn decide(&mut self, budget: &Budget<'_>) -> Result<Option<bool>, Stopped> {
        let (preds, start) = self.predecessors(budget)?;
        let sure = self.attractor(&preds, &start, false, budget)?;
        let hope = self.attractor(&preds, &start, true, budget)?;
        self.won = sure
            .iter()
            .zip(&hope)
            .map(|(&s, &h)| {
                if s != 0 {
                    Some(true)
                } else if h == 0 {
                    Some(false)
                } else {
                    None
                }
            })
            .collect();
        self.order = sure;
        Ok(self.won[0])
    }

    /// The claims this proof decided (after `decide` decided the root), for a certificate
    /// (`certificate.rs`): each node it decided itself, with its claim on South's value, the
    /// hole its proving side plays when that side moves there, and for the attacker's nodes
    /// when they joined the attractor (the rank within this proof; 0 for the defender's,
    /// whose claims endless play satisfies).
    pub(crate) fn claims(&self) -> impl Iterator<Item = RecordedClaim<W>> + '_ {
        self.nodes.iter().enumerate().filter_map(move |(k, node)| {
            let won = self.won[k]?;
            // A capture's node stands for the claim its own proof recorded.
            if node.known() || node.capture().is_some() {
                return None;
            }
            let at_least = won == self.south_attacks;
            let (kind, bound) = if at_least {
                (Kind::AtLeast, self.t)
            } else {
                (Kind::AtMost, self.t - self.step)
            };
            let proving_moves = (node.pos.side_to_move() == Side::South) == at_least;
            let hole = match node.state() {
                _ if !proving_moves => 0,
                State::Inner => {
                    let r = node.edges();
                    let keeps = |j: u32| {
                        let j = j as usize;
                        if won {
                            self.order[j] != 0 && self.order[j] < self.order[k]
                        } else {
                            self.won[j] == Some(false)
                        }
                    };
                    self.edges[r.clone()]
                        .iter()
                        .zip(&self.holes[r])
                        .find(|&(&j, _)| keeps(j))
                        .map_or(0, |(_, &h)| h)
                }
                _ => node.exit(),
            };
            Some(RecordedClaim {
                position: node.pos.with_captured(0, 0),
                kind,
                bound,
                hole,
                order: if won { self.order[k] } else { 0 },
            })
        })
    }

    /// The next round's queue and how many of its first nodes are chosen: as in
    /// proof-number search, the most-proving leaves by proof and disproof numbers over the
    /// explored graph (after `decide`), every tie taken, then the rest of the frontier,
    /// nearest first. (Measured at the Hoyito II start over the tables up to 24 seeds:
    /// 808,899 positions explored; the leaves of the smallest candidate proof and disproof
    /// together, which pay at each attacker's node of the candidate disproof a proof for
    /// every capture, 2,163,773; those of the smaller candidate tree alone 5,705,063, and
    /// a single proof's graph outgrew the machine at 7 seeds a hole. Without the rest of
    /// the frontier, some 16-seed positions in quiet cycles stayed open for minutes.)
    pub(crate) fn focus(&self, budget: &Budget<'_>) -> Result<(Vec<u32>, usize), Stopped> {
        let n = self.nodes.len();
        // Breadth-first order from the root through undecided nodes.
        let order = self.undecided_reach(budget)?;
        let (pn, dn) = self.numbers(&order, budget)?;
        // The most-proving leaves: from the root, the moves of least proof number at the
        // attacker's nodes and of least disproof number at the defender's, every one of
        // them where several tie.
        let mut chosen = vec![false; n];
        let mut queue = Vec::new();
        let mut stack = vec![0u32];
        chosen[0] = true;
        let mut steps = 0;
        while let Some(k) = stack.pop() {
            steps += 1;
            budget.poll(steps)?;
            let k = k as usize;
            let node = &self.nodes[k];
            match node.state() {
                State::Open => queue.push(k as u32),
                State::Inner if self.won[k].is_none() => {
                    let r = node.edges();
                    let cost = if node.attacker() { &pn } else { &dn };
                    let undecided = || {
                        self.edges[r.clone()]
                            .iter()
                            .copied()
                            .filter(|&j| self.won[j as usize].is_none())
                    };
                    let least = undecided().map(|j| cost[j as usize]).min();
                    for j in undecided() {
                        if Some(cost[j as usize]) == least && !chosen[j as usize] {
                            chosen[j as usize] = true;
                            stack.push(j);
                        }
                    }
                }
                _ => {}
            }
        }
        // Then the rest of the frontier, nearest first. Where the walk found no leaf (it
        // can run into cycles whose ways out were already visited), all of it is chosen:
        // the root still depends on some of it.
        let selected = queue.len();
        queue.extend(
            order
                .into_iter()
                .filter(|&k| self.nodes[k as usize].state() == State::Open && !chosen[k as usize]),
        );
        let selected = if selected == 0 { queue.len() } else { selected };
        Ok((queue, selected))
    }

    /// Proof and disproof numbers over the explored graph (after `decide`), of the nodes
    /// in `order` (the undecided ones reachable from the root, nearest first) and of the
    /// decided ones.
    pub(crate) fn numbers(
        &self,
        order: &[u32],
        budget: &Budget<'_>,
    ) -> Result<(Vec<u64>, Vec<u64>), Stopped> {
        let n = self.nodes.len();
        // 0 and "infinite" for decided nodes; for an open node 1 for its mover and, for the
        // other side, the moves its mover may have (its non-empty holes: each must be
        // answered); for a capture given up, the numbers its proof's root had, else 1 and
        // 1; then the inner nodes, deepest first (an edge back to a node not yet numbered
        // counts 1 and 1).
        let mut pn = vec![1u64; n];
        let mut dn = vec![1u64; n];
        for (k, w) in self.won.iter().enumerate() {
            budget.poll(k)?;
            let node = &self.nodes[k];
            match w {
                Some(true) => (pn[k], dn[k]) = (0, INF),
                Some(false) => (pn[k], dn[k]) = (INF, 0),
                None if node.state() == State::Open && node.capture().is_none() => {
                    let p = &node.pos;
                    let h = p.holes();
                    let row = p.side_to_move().index() * h;
                    let m = (row..row + h).filter(|&i| p.seeds(i) != 0).count().max(1);
                    if node.attacker() {
                        dn[k] = m as u64;
                    } else {
                        pn[k] = m as u64;
                    }
                }
                None => {
                    if let Some(d) = self.deferred.get(&(k as u32)) {
                        (pn[k], dn[k]) = (d.pn.max(1) as u64, d.dn.max(1) as u64);
                    }
                }
            }
        }
        for (step, &k) in order.iter().rev().enumerate() {
            budget.poll(step)?;
            let k = k as usize;
            let node = &self.nodes[k];
            if node.state() != State::Inner {
                continue;
            }
            let r = node.edges();
            let (mut min_p, mut min_d, mut sum_p, mut sum_d) = (INF, INF, 0u64, 0u64);
            for &j in &self.edges[r] {
                let j = j as usize;
                min_p = min_p.min(pn[j]);
                min_d = min_d.min(dn[j]);
                sum_p = (sum_p + pn[j]).min(INF);
                sum_d = (sum_d + dn[j]).min(INF);
            }
            (pn[k], dn[k]) = if node.attacker() {
                (min_p, sum_d)
            } else {
                (sum_p, min_d)
            };
        }
        Ok((pn, dn))
    }

    /// The open nodes reachable from the root through undecided explored nodes, nearest
    /// first: the ones whose exploration can still change the root.
    pub(crate) fn frontier(&self, budget: &Budget<'_>) -> Result<Vec<u32>, Stopped> {
        let mut reached = self.undecided_reach(budget)?;
        reached.retain(|&k| self.nodes[k as usize].state() == State::Open);
        Ok(reached)
    }

    /// The undecided nodes reachable from the (undecided) root through undecided explored
    /// nodes, breadth first.
    pub(crate) fn undecided_reach(&self, budget: &Budget<'_>) -> Result<Vec<u32>, Stopped> {
        let mut seen = vec![false; self.nodes.len()];
        let mut queue = vec![0u32];
        seen[0] = true;
        let mut i = 0;
        while i < queue.len() {
            let k = queue[i] as usize;
            i += 1;
            budget.poll(i)?;
            let node = &self.nodes[k];
            if node.state() == State::Inner && self.won[k].is_none() {
                let r = node.edges();
                for &j in &self.edges[r] {
                    if !seen[j as usize] && self.won[j as usize].is_none() {
                        seen[j as usize] = true;
                        queue.push(j);
                    }
                }
            }
        }
        Ok(queue)
    }
}
