//! Exact values by threshold proofs over an explicit graph of positions, explored in rounds.
//!
//! Depth-first search proves values badly in this game (see `retro.rs`): non-capturing moves
//! wander through components of millions of positions. On 2x6 the component of a 16-seed
//! position is nearly the whole 16-seed layer (19 M boards), so solving it whole, as
//! `retro.rs` does for small boards, costs as much as building that layer.
//!
//! A threshold proof asks only "is the value, from South's point of view, at least `T`?".
//! With endless play worth 0, one side needs to *reach* something and the other only to
//! *avoid* it: for `T > 0` South (the attacker) must force an exit, a capture or the end of
//! the game, worth at least `T`; for `T <= 0` North must force one worth less than `T`, and
//! South (the defender) is content with endless play. Inside the component the answer is
//! the attacker's attractor to its good exits, the least fixpoint that the endgame tables
//! are built on, so cycles are exact and nothing depends on a path.
//!
//! The graph is explored lazily from the root, in rounds. After each round two attractors
//! bound the truth: the attacker's attractor with every unexplored position counted as lost
//! for it (if the root is in it, the attacker wins whatever lies beyond), and the same with
//! every unexplored position counted as won (if the root is outside it, the defender can
//! stay out of it forever, away from anything unexplored). Otherwise the next round
//! explores more of the unexplored positions that the root still depends on (those reached
//! from it through undecided positions). Which ones is a matter of speed, never of the
//! answer ([`Explore`]): by default, as in proof-number search, the most-proving leaves by
//! proof and disproof numbers computed over the graph explored so far, then the rest of
//! them, nearest first, up to a sixteenth of the graph (a capture's own proof is given up
//! at a cap that grows fourfold with each try, as in PN², its root's numbers standing for
//! it meanwhile); `Explore::Breadth` takes all of
//! them, nearest first, in rounds that double the graph. The attractors alone decide, so cycles stay
//! exact whichever positions were explored. An exit's worth is
//! itself a threshold question on a position with fewer seeds, answered the same way
//! (recursion depth at most the seeds / 4), only when needed: the attacker's exits until a
//! good one, the defender's until a bad one.
//!
//! Positions with few seeds (`retro_seeds`: 12 on 2x6) are answered by solving their whole
//! component at once (`retro.rs`), which is cheaper there than proofs, or by the endgame
//! tables when they reach.
//!
//! Every position decided in a proof keeps its bound (`lo <= value <= hi`, South's view) in
//! a cache shared by all later proofs, so one proof's work answers the next. The cache has
//! a size fixed in advance (`bounds.rs`); once full it forgets the bounds cheapest to prove
//! again, but never the answers to the questions asked from outside (they are pinned).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use hoyito_rules::{Child, Position, Probe, Rules, Side};

use crate::bounds::BoundCache;
use crate::certificate::{Kind, RecordedClaim};
use crate::config::Explore;

/// What a node of a threshold proof is known to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
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
struct Node<const W: usize> {
    pos: Position<W>,
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

    fn state(&self) -> State {
        match self.flags & 3 {
            0 => State::Open,
            1 => State::Inner,
            2 => State::Won,
            _ => State::Lost,
        }
    }

    fn set_state(&mut self, state: State) {
        self.flags = self.flags & !3 | state as u8;
    }

    /// Whether the attacker moves here.
    fn attacker(&self) -> bool {
        self.flags & 4 != 0
    }

    /// Decided when added, by what was known before this proof (not by this proof).
    fn known(&self) -> bool {
        self.flags & 8 != 0
    }

    /// The number of edges (explored nodes only).
    fn len(&self) -> usize {
        usize::from(self.len_exit & 15)
    }

    /// The range of the node's edges in the proof's `edges` and `holes`.
    fn edges(&self) -> std::ops::Range<usize> {
        self.first as usize..self.first as usize + self.len()
    }

    /// The hole of the exit that decided the node for its mover (0: none).
    fn exit(&self) -> u8 {
        self.len_exit >> 4
    }

    /// Decided for its mover by the exit of `hole`.
    fn decide_by_exit(&mut self, state: State, hole: u8) {
        assert!(
            hole < 16,
            "a hole number fits four bits (at most 12 holes a row)"
        );
        self.set_state(state);
        self.len_exit = self.len_exit & 15 | hole << 4;
    }

    /// Explored: its edges are `edges[first .. first + len]`.
    fn explored(&mut self, first: u32, len: usize) {
        assert!(len < 16, "a position has at most 12 moves");
        self.set_state(State::Inner);
        self.first = first;
        self.len_exit = self.len_exit & !15 | len as u8;
    }

    /// For a capture's node, South's threshold on `pos` that makes it good for the attacker.
    fn capture(&self) -> Option<i32> {
        (self.capture != NOT_CAPTURE).then_some(i32::from(self.capture))
    }
}

const _: () = assert!(std::mem::size_of::<Node<2>>() == 24);

/// Why a proof stopped before its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stopped;

/// When a proof must stop.
pub(crate) struct Budget<'a> {
    pub stop: &'a AtomicBool,
    pub deadline: Option<Instant>,
    pub node_limit: u64,
}

/// The prover: proven bounds and counters, kept between searches.
pub(crate) struct Prover<const W: usize> {
    rules: Rules,
    /// Proven bounds; those of the positions asked about from outside
    /// ([`Prover::at_least`], [`Prover::value`]) are pinned, so that what a search proved
    /// about its root is still there when it is reported.
    bounds: BoundCache<W>,
    /// Positions explored by all proofs so far.
    expanded: u64,
    /// Whole components solved at once up to this many seeds.
    retro_seeds: u32,
    retro: crate::retro::Retro<W>,
    /// `work()` when the current search started.
    work_base: u64,
    /// The most `work()` the current proof may reach: its budget's node limit counts
    /// components solved whole as well as positions explored.
    work_limit: u64,
    /// Positions explored since the limits were last checked.
    since_poll: u64,
    /// Where every finished proof writes the claims it decided, if anywhere.
    recorder: Option<crate::certificate::Recorder>,
    /// Where figures go for progress reports, if anywhere.
    gauge: Option<std::sync::Arc<crate::prove::Gauge>>,
    /// Which positions a proof explores next.
    explore: Explore,
    /// The work a capture's proof inside a focused proof may do the first time it is tried.
    capture_cap: u64,
}

impl<const W: usize> Prover<W> {
    /// A prover for `rules` that solves whole components of up to `retro_seeds` seeds (at
    /// most `retro_cap` positions each) by retrograde analysis, and keeps at most
    /// `cache_bytes` of proven bounds.
    pub fn new(rules: Rules, retro_seeds: u32, retro_cap: usize, cache_bytes: usize) -> Self {
        Prover {
            rules,
            bounds: BoundCache::new(cache_bytes),
            expanded: 0,
            work_base: 0,
            work_limit: u64::MAX,
            since_poll: 0,
            retro_seeds,
            retro: crate::retro::Retro::new(rules, retro_cap),
            recorder: None,
            gauge: None,
            explore: Explore::default(),
            capture_cap: crate::prove::Prove::<W>::DEFAULT_CAPTURE_CAP,
        }
    }

    /// Gives a capture's proof at most `work` the first time it is tried
    /// ([`crate::prove::Prove::capture_cap`]).
    pub fn capture_cap(&mut self, work: u64) {
        self.capture_cap = work.max(1);
    }

    /// Explores the proofs' graphs this way from now on.
    pub fn explore(&mut self, explore: Explore) {
        self.explore = explore;
    }

    /// Reports figures to `gauge` from now on.
    pub fn gauge(&mut self, gauge: std::sync::Arc<crate::prove::Gauge>) {
        self.gauge = Some(gauge);
    }

    /// Writes every claim a finished proof decides to `recorder` from now on (see
    /// `certificate.rs`).
    pub fn record(&mut self, recorder: crate::certificate::Recorder) {
        self.recorder = Some(recorder);
    }

    /// The recorder, if claims are recorded.
    pub fn recorder(&mut self) -> Option<&mut crate::certificate::Recorder> {
        self.recorder.as_mut()
    }

    /// Takes in a bound proven before (a recorded claim: South's value of `p` is at least
    /// `lo` and at most `hi`).
    pub fn learn(&mut self, p: &Position<W>, lo: i32, hi: i32) {
        self.bounds.tighten(p, lo, hi);
    }

    /// Forgets the bounds proven so far.
    pub fn forget(&mut self) {
        self.bounds.clear();
    }

    /// Bounds held in the cache, and bounds it forgot to make room.
    pub fn cache_figures(&self) -> (usize, u64) {
        (self.bounds.len(), self.bounds.dropped())
    }

    /// Keeps the answer to "is South's value of `p` at least `t`", asked from outside.
    fn settle(&mut self, p: &Position<W>, t: i32, at_least: bool) {
        let n = p.seeds_on_board() as i32;
        if at_least {
            self.bounds.pin(p, t, n);
        } else {
            self.bounds.pin(p, -n, t - step(p));
        }
    }

    /// Starts a search that must end by `deadline`.
    pub fn start(&mut self, deadline: Option<Instant>) {
        self.work_base = self.work();
        self.work_limit = u64::MAX;
        self.since_poll = 0;
        self.retro.deadline = deadline;
        self.retro.stop.store(false, Ordering::Relaxed);
        self.retro.stopped = false;
    }

    /// The flag that makes a component being solved whole give up (cleared by `start`): a
    /// search that can be stopped from outside sets it when its own stop signal is set.
    pub fn retro_stop(&self) -> std::sync::Arc<AtomicBool> {
        self.retro.stop.clone()
    }

    /// Positions explored so far: by threshold proofs, lines of captures, and in components
    /// solved whole.
    pub fn work(&self) -> u64 {
        self.expanded + self.retro.len() as u64
    }

    /// Proven bounds of South's value of `p`, from the cache, the oracle or the seeds left.
    pub fn known(&mut self, probe: Option<&dyn Probe<W>>, p: &Position<W>) -> (i32, i32) {
        let (lo, hi) = self.known_statically(probe, p);
        if lo == hi {
            return (lo, hi);
        }
        self.bounds.get(p).unwrap_or((lo, hi))
    }

    /// Bounds of South's value of `p` known without the cache of proven bounds: exact at a
    /// game end, from the oracle or from a component solved whole, else the seeds left.
    fn known_statically(&mut self, probe: Option<&dyn Probe<W>>, p: &Position<W>) -> (i32, i32) {
        match self.exactly(probe, p) {
            Some(v) => (v, v),
            None => {
                let n = p.seeds_on_board() as i32;
                (-n, n)
            }
        }
    }

    /// South's value of `p` at a game end, from the oracle, or from a component solved whole.
    fn exactly(&mut self, probe: Option<&dyn Probe<W>>, p: &Position<W>) -> Option<i32> {
        let n = p.seeds_on_board();
        if !p.is_live() {
            return Some(0);
        }
        let sign = if p.side_to_move() == Side::South {
            1
        } else {
            -1
        };
        if let Some(o) = probe {
            if n <= o.max_seeds() {
                if let Some(v) = o.probe(p) {
                    return Some(sign * v);
                }
            }
        }
        if n <= self.retro_seeds && !self.retro.stopped {
            // A component solved whole counts against the node limit as it is explored.
            self.retro.room = usize::try_from(self.work_limit.saturating_sub(self.expanded))
                .unwrap_or(usize::MAX);
            if let Some(v) = self.retro.value(p) {
                return Some(sign * v);
            }
        }
        None
    }

    /// The exact value of `p` for its side to move. On a stop, returns the bounds proven so
    /// far (same view).
    pub fn value(
        &mut self,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        p: &Position<W>,
    ) -> Result<i32, (i32, i32)> {
        self.value_from(probe, budget, p, None)
    }

    /// [`Prover::value`], with the first threshold tried at `guess` (South's view) when
    /// given: a good guess takes two proofs, one at the value and one a step above.
    pub fn value_from(
        &mut self,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        p: &Position<W>,
        guess: Option<i32>,
    ) -> Result<i32, (i32, i32)> {
        let sign = if p.side_to_move() == Side::South {
            1
        } else {
            -1
        };
        // First the guess, else 0 (where most values lie), then away from it as
        // `next_threshold` says. (A guess from a depth-4 search was measured no better.) The
        // threshold depends only on the bounds known, so a run resumed from its record asks
        // what an unstopped run would have asked next.
        let g = align(p, guess.unwrap_or(0));
        self.limit(budget);
        loop {
            let (lo, hi) = self.known(probe, p);
            if lo >= hi {
                return Ok(sign * lo);
            }
            let t = next_threshold(lo, hi, g, step(p));
            if let Err(Stopped) = self.south_at_least_top(probe, budget, p, t) {
                let (lo, hi) = self.known(probe, p);
                return Err(if sign == 1 { (lo, hi) } else { (-hi, -lo) });
            }
        }
    }

    /// A move of `p` that keeps its value `v` (for its side to move), captures first
    /// (biggest gain first), else the first such move in hole order; `None` without a move.
    pub fn keeping_move(
        &mut self,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        p: &Position<W>,
        v: i32,
    ) -> Result<Option<Child<W>>, Stopped> {
        let list = p.moves(&self.rules);
        let mut order: Vec<&Child<W>> = list.children().iter().collect();
        order.sort_by_key(|c| -(c.gain as i32) - if c.extra_turn { 1000 } else { 0 });
        for c in order {
            let g = c.gain as i32;
            let keeps = if c.ended_game {
                g >= v
            } else if c.extra_turn {
                self.at_least(probe, budget, &c.position, v - g)?
            } else {
                // g - w >= v  <=>  w <= g - v  <=>  not (w >= g - v + 1).
                !self.at_least(probe, budget, &c.position, g - v + 1)?
            };
            if keeps {
                return Ok(Some(*c));
            }
        }
        Ok(None)
    }

    /// Whether the value of `p` for its side to move is at least `t`.
    pub fn at_least(
        &mut self,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        p: &Position<W>,
        t: i32,
    ) -> Result<bool, Stopped> {
        if p.side_to_move() == Side::South {
            self.south_at_least_top(probe, budget, p, t)
        } else {
            // v >= t  <=>  -v <= -t  <=>  not (South's value >= 1 - t).
            self.south_at_least_top(probe, budget, p, 1 - t).map(|b| !b)
        }
    }

    /// [`Prover::south_at_least`] for a question asked from outside (not an exit inside a
    /// proof): first a line of the attacker's captures alone ([`Prover::line`]), then the
    /// proof.
    fn south_at_least_top(
        &mut self,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        root: &Position<W>,
        t: i32,
    ) -> Result<bool, Stopped> {
        let t = align(root, t);
        let at_least = if self.line(probe, budget, root, t)? {
            t > 0
        } else {
            self.south_at_least(probe, budget, root, t)?
        };
        self.settle(root, t, at_least);
        Ok(at_least)
    }

    /// Seeks a line of captures, each giving the attacker of "South's value of `p` is at
    /// least `t`" another turn, that reaches a position (or a game end) known to meet what
    /// is left of the threshold: South's line when `t > 0`, North's line to "at most
    /// `t - step`" otherwise. The defender never moves on such a line, so no proof graph is
    /// needed; a line that is found is recorded (deepest claim first) and its bounds kept.
    /// Such lines decide starts where one side can take most of the board in one turn (72
    /// of the 72 seeds of the Hoyito III start with 6 a hole), which the breadth-first
    /// rounds of a proof, trying every capture in hole order, can take hours to find.
    /// Looks at [`LINE_CAP`] positions at most, each counted as explored (and against a node
    /// limit); returns whether a line was found.
    fn line(
        &mut self,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        p: &Position<W>,
        t: i32,
    ) -> Result<bool, Stopped> {
        let t = align(p, t);
        let step = step(p);
        let south_attacks = t > 0;
        if (p.side_to_move() == Side::South) != south_attacks {
            return Ok(false);
        }
        // What the attacker must get, in its own view.
        let need = if south_attacks { t } else { step - t };
        // The search depends on the bounds known and nothing else (not on earlier searches),
        // so that a run resumed from its record finds what an unstopped one does.
        let mut search = LineSearch {
            path: Vec::new(),
            failed: HashMap::with_hasher(ahash::RandomState::with_seeds(5, 9, 2, 6)),
            visited: 0,
        };
        if !self.line_from(probe, budget, p, need, &mut search)? {
            return Ok(false);
        }
        let path = search.path;
        let k = path.len() as u32;
        let claims = path.iter().enumerate().map(|(i, &(q, need, hole))| {
            let (kind, bound) = if south_attacks {
                (Kind::AtLeast, need)
            } else {
                (Kind::AtMost, -need)
            };
            RecordedClaim {
                position: q.with_captured(0, 0),
                kind,
                bound,
                hole,
                // The deepest claim first: each relies on the next one along the line.
                order: k - i as u32,
            }
        });
        self.record_claims(claims);
        for &(q, need, _) in &path {
            let n = q.seeds_on_board() as i32;
            if south_attacks {
                self.learn(&q, need, n);
            } else {
                self.learn(&q, -n, -need);
            }
        }
        Ok(true)
    }

    /// Whether the mover of `p` gets at least `need` (its own view) by what is known of `p`
    /// or by a line of its own captures from `p`; the line's positions, needs and holes are
    /// pushed on `search.path`.
    fn line_from(
        &mut self,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        p: &Position<W>,
        need: i32,
        search: &mut LineSearch<W>,
    ) -> Result<bool, Stopped> {
        let (lo, hi) = self.known(probe, p);
        let (least, most) = if p.side_to_move() == Side::South {
            (lo, hi)
        } else {
            (-hi, -lo)
        };
        if least >= need {
            return Ok(true);
        }
        let key = p.board_key();
        if most < need
            || search.visited >= LINE_CAP
            || search.failed.get(&key).is_some_and(|&f| f <= need)
        {
            return Ok(false);
        }
        search.visited += 1;
        self.count(budget, p)?;
        let list = p.moves(&self.rules);
        // The captures (no allocation: this runs for up to a million positions a search),
        // biggest first, then in hole order.
        let children = list.children();
        let mut exits = [0u8; 12];
        let mut n = 0;
        for (i, c) in children.iter().enumerate() {
            if c.extra_turn || c.ended_game {
                exits[n] = i as u8;
                n += 1;
            }
        }
        exits[..n].sort_by_key(|&i| -children[i as usize].gain);
        for c in exits[..n].iter().map(|&i| &children[i as usize]) {
            let g = i32::from(c.gain);
            search.path.push((*p, need, c.mv.0));
            if if c.ended_game {
                g >= need
            } else {
                self.line_from(probe, budget, &c.position, need - g, search)?
            } {
                return Ok(true);
            }
            search.path.pop();
        }
        let f = search.failed.entry(key).or_insert(i32::MAX);
        *f = (*f).min(need);
        Ok(false)
    }

    /// Counts one position explored under the proof (or line) of `root`: now and then the
    /// figures go to the gauge and the budget is checked.
    fn count(&mut self, budget: &Budget<'_>, root: &Position<W>) -> Result<(), Stopped> {
        self.expanded += 1;
        self.since_poll += 1;
        if self.since_poll >= crate::search::poll_interval(budget.node_limit, 1) {
            self.since_poll = 0;
            if let Some(g) = &self.gauge {
                g.explored(self.work());
                g.seeds.store(root.seeds_on_board(), Ordering::Relaxed);
            }
            budget.check(self.work_done())?;
        }
        Ok(())
    }

    /// Writes the claims of one finished proof (or line) to the recorder, if any.
    fn record_claims(&mut self, claims: impl Iterator<Item = RecordedClaim<W>>) {
        if let Some(r) = &mut self.recorder {
            r.record(claims);
            if let Some(g) = &self.gauge {
                g.claims.store(r.written(), Ordering::Relaxed);
            }
        }
    }

    /// Takes `budget`'s node limit as the most work the current search may do.
    fn limit(&mut self, budget: &Budget<'_>) {
        self.work_limit = self.work_base.saturating_add(budget.node_limit);
    }

    /// Work done since the current search started (see [`Prover::work`]).
    pub fn work_done(&self) -> u64 {
        self.work() - self.work_base
    }

    /// Whether South's value of `root` is at least `t`.
    fn south_at_least(
        &mut self,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        root: &Position<W>,
        t: i32,
    ) -> Result<bool, Stopped> {
        self.limit(budget);
        match self.south_at_least_within(probe, budget, root, t, None)? {
            Outcome::Decided(at_least) => Ok(at_least),
            Outcome::Deferred { .. } => unreachable!("a proof without a cap is never deferred"),
        }
    }

    /// [`Prover::south_at_least`], given up once the proof has done `cap` work (positions
    /// explored, its captures' proofs included) without deciding: then its root's proof
    /// and disproof numbers are returned.
    fn south_at_least_within(
        &mut self,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        root: &Position<W>,
        t: i32,
        cap: Option<u64>,
    ) -> Result<Outcome, Stopped> {
        let t = align(root, t);
        let (lo, hi) = self.known(probe, root);
        if lo >= t {
            return Ok(Outcome::Decided(true));
        }
        if hi < t {
            return Ok(Outcome::Decided(false));
        }
        let mut proof = Proof::new(t, step(root));
        self.run(&mut proof, probe, budget, root, cap)
    }

    /// The rounds of one threshold proof, given up after `cap` work if one is given.
    fn run(
        &mut self,
        proof: &mut Proof<W>,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        root: &Position<W>,
        cap: Option<u64>,
    ) -> Result<Outcome, Stopped> {
        let limit = cap.map(|c| self.work().saturating_add(c));
        proof.add(self, probe, root);
        // The positions to explore next, the first `selected` of them chosen (a focused
        // round explores all of those, and goes on through the rest only to its quota).
        let mut queue = vec![0u32];
        let mut selected = 1;
        loop {
            // Explore a round. Breadth first: at least as many positions as the graph
            // holds. Focused: the most-proving leaves, then the rest of the frontier,
            // nearest to the root first, until the round has explored a sixteenth of the
            // graph's size, so that the passes over the graph between rounds cost a bounded
            // share of the work, and so that no part of the frontier waits forever on
            // numbers that mislead (in the quiet cycles of small components they can: a
            // 16-seed position of Hoyito III, `1,0,4,1,1,3/2,0,1,1,1,1 N`, stayed open
            // for a minute when the rest of a round went breadth first from the leaves
            // chosen, and is proven in 4 s this way).
            let quota = match self.explore {
                Explore::Breadth => proof.nodes.len().max(64),
                Explore::Focused => (proof.nodes.len() / 16).max(64),
            };
            let mut done = 0;
            let mut i = 0;
            let over = |prover: &Self| limit.is_some_and(|l| prover.work() >= l);
            while i < queue.len() && (i < selected || done < quota) && !over(self) {
                let id = queue[i];
                i += 1;
                let node = &proof.nodes[id as usize];
                // Captures are valued only when the focus itself picks them.
                if node.state() != State::Open || (i > selected && node.capture().is_some()) {
                    continue;
                }
                let before = proof.nodes.len();
                self.expand(proof, probe, budget, id)?;
                done += 1;
                queue.extend(before as u32..proof.nodes.len() as u32);
            }
            if let Some(g) = &self.gauge {
                g.largest
                    .fetch_max(proof.nodes.len() as u64, Ordering::Relaxed);
            }
            match proof.decide(budget)? {
                Some(won) => {
                    self.record_claims(proof.claims());
                    if let Some(g) = &self.gauge {
                        g.proofs.fetch_add(1, Ordering::Relaxed);
                    }
                    self.remember(proof);
                    // The attacker wins: South's value is at least t if South attacks.
                    return Ok(Outcome::Decided(won == proof.south_attacks));
                }
                None if over(self) => {
                    // Given up, as in PN²: its graph is dropped, and the numbers of its
                    // root stand for it. (Keeping and recording what it decided saved 8% of
                    // the positions explored at the 60-seed Hoyito II start over the tables
                    // up to 28 seeds; dropping it keeps the record to finished proofs.)
                    if let Some(g) = &self.gauge {
                        g.given_up.fetch_add(1, Ordering::Relaxed);
                    }
                    let (pn, dn) = proof.numbers(&proof.undecided_reach(budget)?, budget)?;
                    let (pn, dn) = (pn[0].min(u32::MAX as u64), dn[0].min(u32::MAX as u64));
                    let (at_least, at_most) = if proof.south_attacks {
                        (pn as u32, dn as u32)
                    } else {
                        (dn as u32, pn as u32)
                    };
                    return Ok(Outcome::Deferred { at_least, at_most });
                }
                None => {
                    (queue, selected) = match self.explore {
                        Explore::Breadth => (proof.frontier(budget)?, 0),
                        Explore::Focused => proof.focus(budget)?,
                    }
                }
            }
        }
    }

    /// Explores node `id`: its exits decide it, or its quiet moves become edges.
    fn expand(
        &mut self,
        proof: &mut Proof<W>,
        probe: Option<&dyn Probe<W>>,
        budget: &Budget<'_>,
        id: u32,
    ) -> Result<(), Stopped> {
        let node = &proof.nodes[id as usize];
        if let Some(t) = node.capture() {
            // A capture: its worth is a threshold proof of its own, given a cap that grows
            // fourfold each time it is given up (as in PN², the numbers of its root then
            // stand for it), so that one hard capture does not hold the proof while
            // easier ways remain.
            let q = node.pos;
            let tries = proof.deferred.get(&id).map_or(0, |d| d.tries);
            let cap = self.capture_cap.saturating_mul(1 << (2 * tries.min(30)));
            let outcome = self.south_at_least_within(probe, budget, &q, t, Some(cap))?;
            match outcome {
                Outcome::Decided(at_least) => {
                    let good = proof.good_if_at_least(at_least);
                    proof.nodes[id as usize].set_state(if good { State::Won } else { State::Lost });
                    proof.deferred.remove(&id);
                }
                Outcome::Deferred { at_least, at_most } => {
                    // The attacker's proof number is the cost of the answer good for it.
                    let (pn, dn) = if proof.south_attacks {
                        (at_least, at_most)
                    } else {
                        (at_most, at_least)
                    };
                    proof.deferred.insert(
                        id,
                        Deferred {
                            tries: tries + 1,
                            pn,
                            dn,
                        },
                    );
                }
            }
            return Ok(());
        }
        self.count(budget, &proof.nodes[0].pos)?;
        let rules = self.rules;
        let node = &proof.nodes[id as usize];
        let (p, attacker) = (node.pos, node.attacker());
        let mover = p.side_to_move();
        let sign = if mover == Side::South { 1 } else { -1 };
        let list = p.moves(&rules);
        let mut quiet = [p; 12];
        // The hole of each quiet move (0: the pass).
        let mut holes = [0u8; 12];
        let mut nq = 0;
        // Exits as (South's threshold on the child, child or None for a game end, gain).
        let mut exits: [(i32, Option<Position<W>>, i32, u8); 12] = [(0, None, 0, 0); 12];
        let mut ne = 0;
        if list.is_empty() {
            let Some(q) = p.passed(&rules) else {
                // Game over: worth 0, never good for the attacker.
                proof.nodes[id as usize].set_state(State::Lost);
                return Ok(());
            };
            quiet[0] = q;
            nq = 1;
        }
        for c in list.children() {
            let g = sign * c.gain as i32;
            if c.ended_game {
                exits[ne] = (g, None, c.gain as i32, c.mv.0);
                ne += 1;
            } else if c.extra_turn {
                // The child has the mover to move again: South's value of the exit is the
                // gain (South's view) plus South's value of the child.
                exits[ne] = (proof.t - g, Some(c.position), c.gain as i32, c.mv.0);
                ne += 1;
            } else {
                quiet[nq] = c.position;
                holes[nq] = c.mv.0;
                nq += 1;
            }
        }
        // Biggest captures first: the likeliest good exit for the mover.
        exits[..ne].sort_by_key(|e| -e.2);
        // The exits' worth in that order, each from what is known or else by a proof, until
        // one is good for the mover. Always the first good exit in this order, whatever was
        // known before: a run resumed from its record (which knows more, earlier) then runs
        // the same proofs as one that was not stopped, and records the same claims.
        // Focused proofs value here only the exits that need no proof (game ends, the
        // tables, components solved whole, thresholds beyond the seeds on the board); the
        // others become nodes of the graph, valued when the focus reaches them.
        let want = attacker; // the mover looks for an exit good for itself
        let lazy = self.explore == Explore::Focused;
        let mut pending = [(0i32, p, 0u8); 12];
        let mut np = 0;
        for &(t, q, _, hole) in &exits[..ne] {
            let good = match q {
                None => proof.good(t),
                Some(q) if lazy => match self.known_statically(probe, &q) {
                    (lo, _) if lo >= t => proof.good_if_at_least(true),
                    (_, hi) if hi < t => proof.good_if_at_least(false),
                    _ => {
                        pending[np] = (t, q, hole);
                        np += 1;
                        continue;
                    }
                },
                Some(q) => proof.good_if_at_least(self.south_at_least(probe, budget, &q, t)?),
            };
            if good == want {
                let node = &mut proof.nodes[id as usize];
                node.decide_by_exit(if want { State::Won } else { State::Lost }, hole);
                return Ok(());
            }
        }
        if nq == 0 && np == 0 {
            // Only exits, all bad for the mover: the attacker must take one (lost), or the
            // defender must (won).
            proof.nodes[id as usize].set_state(if attacker { State::Lost } else { State::Won });
            return Ok(());
        }
        let first = proof.edges.len() as u32;
        for &(t, q, hole) in &pending[..np] {
            let j = proof.add_capture(&q, t);
            proof.edges.push(j);
            proof.holes.push(hole);
        }
        for (q, &hole) in quiet[..nq].iter().zip(&holes) {
            let j = proof.add(self, probe, q);
            proof.edges.push(j);
            proof.holes.push(hole);
        }
        proof.nodes[id as usize].explored(first, np + nq);
        Ok(())
    }

    /// Keeps the bounds a finished proof decided.
    fn remember(&mut self, proof: &Proof<W>) {
        let t = proof.t;
        for (node, &won) in proof.nodes.iter().zip(&proof.won) {
            let Some(won) = won else { continue };
            if node.known() || node.capture().is_some() {
                continue;
            }
            // Won by the attacker: South's value >= t if South attacks, < t if North does.
            let n = node.pos.seeds_on_board() as i32;
            if won == proof.south_attacks {
                self.bounds.tighten(&node.pos, t, n);
            } else {
                self.bounds.tighten(&node.pos, -n, t - proof.step);
            }
        }
    }
}

/// Most positions one search for a line of captures looks at ([`Prover::line`]).
const LINE_CAP: usize = 1 << 20;

/// One search for a line of captures ([`Prover::line`]).
struct LineSearch<const W: usize> {
    /// The line so far: each position, what its mover needs there, and the capture it plays.
    path: Vec<(Position<W>, i32, u8)>,
    /// For each position where no line was found, the least need it was not found for.
    failed: HashMap<[u64; W], i32, ahash::RandomState>,
    /// Positions looked at.
    visited: usize,
}

/// The values `p` can have are multiples of this: captures take fours, so with a multiple
/// of 4 seeds on the board every capture, award and value is one too.
fn step<const W: usize>(p: &Position<W>) -> i32 {
    if p.seeds_on_board() & 3 == 0 {
        4
    } else {
        1
    }
}

/// The next threshold to ask of a value known to lie in `lo..=hi` (`lo < hi`, both on the
/// lattice of step `s` that the thresholds keep to), `g` the guess (on it too): the guess
/// first, then away from it on the side it fell, at distances from it that double (one
/// step, two, four, eight, ...), and bisection once such a distance would pass the middle of
/// what is left. A value k steps from the guess takes about 2 log2 k proofs where stepping
/// by one took k + 1 (the 84-seed Hoyito II start, worth -84 for South where the guess was
/// -36: 7 against 12), and one within a step of it the two or three it always did.
fn next_threshold(lo: i32, hi: i32, g: i32, s: i32) -> i32 {
    debug_assert!(lo < hi && (hi - lo) % s == 0 && (g - lo) % s == 0);
    // "At least t" is undecided for the thresholds a..=b.
    let (a, b) = (lo + s, hi);
    let half = (b - a) / s / 2;
    if a <= g && g <= b {
        g
    } else if g < a {
        a + s * ((a - g) / s - 2).clamp(0, half)
    } else {
        b - s * ((g - b) / s - 2).clamp(0, half)
    }
}

/// The smallest threshold at least `t` that a value of `p` can meet: "at least `t`" and
/// "at least `align(p, t)`" are the same question, asked once.
fn align<const W: usize>(p: &Position<W>, t: i32) -> i32 {
    let s = step(p);
    t.div_euclid(s) * s + if t.rem_euclid(s) == 0 { 0 } else { s }
}

impl Budget<'_> {
    /// Inside a pass over a proof's graph, at step `i`: every 65,536 steps, a look at the
    /// stop signal and the deadline (not the node limit), so that a stop never waits for a
    /// whole pass over a graph of millions of positions.
    #[inline]
    fn poll(&self, i: usize) -> Result<(), Stopped> {
        if i & 0xffff == 0xffff {
            self.check(0)
        } else {
            Ok(())
        }
    }

    fn check(&self, nodes: u64) -> Result<(), Stopped> {
        if (nodes > 0 && nodes >= self.node_limit)
            || self.stop.load(Ordering::Relaxed)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.stop.store(true, Ordering::Relaxed);
            return Err(Stopped);
        }
        Ok(())
    }
}

/// One threshold proof: "South's value of the root is at least `t`".
struct Proof<const W: usize> {
    t: i32,
    /// The values of the positions are multiples of `step`.
    step: i32,
    south_attacks: bool,
    nodes: Vec<Node<W>>,
    edges: Vec<u32>,
    /// The hole of the move of each edge (0: a pass).
    holes: Vec<u8>,
    /// The node of each position's board, by its number: the key is read from the node, not
    /// stored twice (4 bytes a slot instead of 24).
    index: hashbrown::HashTable<u32>,
    hasher: ahash::RandomState,
    /// After `decide`: for each node, whether the attacker wins (`None`: undecided).
    won: Vec<Option<bool>>,
    /// After `decide`: for each node the attacker wins, when it joined the attractor (from
    /// 1; 0 for the others): every move the attacker needs leads to an earlier one.
    order: Vec<u32>,
    /// The captures whose proofs were given up, still open.
    deferred: HashMap<u32, Deferred>,
}

/// A capture whose proof was given up ([`Prover::south_at_least_within`]).
struct Deferred {
    /// How many times.
    tries: u32,
    /// The proof number of its proof's root when last given up, this proof's way round.
    pn: u32,
    /// The disproof number likewise.
    dn: u32,
}

/// How a proof with a cap ended.
enum Outcome {
    /// Whether South's value is at least the threshold.
    Decided(bool),
    /// Given up: the proof and disproof numbers of "at least" and of "below" at its root.
    Deferred { at_least: u32, at_most: u32 },
}

/// An "infinite" proof or disproof number (sums saturate there).
const INF: u64 = u64::MAX / 4;

impl<const W: usize> Proof<W> {
    fn new(t: i32, step: i32) -> Self {
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
    fn good(&self, s: i32) -> bool {
        self.good_if_at_least(s >= self.t)
    }

    /// Whether an exit is good for the attacker, given whether it is worth at least `t`.
    fn good_if_at_least(&self, at_least: bool) -> bool {
        at_least == self.south_attacks
    }

    /// The node of `p`, added (decided at once when the cache knows its side of `t`).
    fn add(
        &mut self,
        prover: &mut Prover<W>,
        probe: Option<&dyn Probe<W>>,
        p: &Position<W>,
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
        let (lo, hi) = prover.known(probe, p);
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
    fn add_capture(&mut self, p: &Position<W>, t: i32) -> u32 {
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
    fn decide(&mut self, budget: &Budget<'_>) -> Result<Option<bool>, Stopped> {
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
    fn focus(&self, budget: &Budget<'_>) -> Result<(Vec<u32>, usize), Stopped> {
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
    fn numbers(&self, order: &[u32], budget: &Budget<'_>) -> Result<(Vec<u64>, Vec<u64>), Stopped> {
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
    fn frontier(&self, budget: &Budget<'_>) -> Result<Vec<u32>, Stopped> {
        let mut reached = self.undecided_reach(budget)?;
        reached.retain(|&k| self.nodes[k as usize].state() == State::Open);
        Ok(reached)
    }

    /// The undecided nodes reachable from the (undecided) root through undecided explored
    /// nodes, breadth first.
    fn undecided_reach(&self, budget: &Budget<'_>) -> Result<Vec<u32>, Stopped> {
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

#[cfg(test)]
mod tests {
    use super::next_threshold;

    /// The proofs `value_from` asks for to find `v` from the guess `g`, on the lattice of
    /// step `s` within `-n..=n`: the thresholds, in order.
    fn asked(n: i32, s: i32, g: i32, v: i32) -> Vec<i32> {
        let (mut lo, mut hi, mut out) = (-n, n, Vec::new());
        while lo < hi {
            let t = next_threshold(lo, hi, g, s);
            assert!(lo < t && t <= hi && (t - lo) % s == 0, "{lo} {hi} {g}: {t}");
            out.push(t);
            if v >= t {
                lo = t;
            } else {
                hi = t - s;
            }
        }
        assert_eq!(lo, v);
        out
    }

    #[test]
    fn thresholds_find_every_value_from_every_guess() {
        for (n, s) in [(84i32, 4i32), (96, 4), (13, 1), (2, 1), (4, 4)] {
            for g in (-n..=n).step_by(s as usize) {
                for v in (-n..=n).step_by(s as usize) {
                    let k = ((v - g) / s).unsigned_abs();
                    let proofs = asked(n, s, g, v).len() as u32;
                    // Within a step of the guess as many as stepping by one (two, or
                    // three a step above), and far from it about twice the bits of k.
                    if k <= 1 && v.abs() < n && g.abs() < n {
                        assert_eq!(proofs, k + 2 - u32::from(v < g), "{n} {g} {v}");
                    }
                    assert!(proofs <= 2 * (32 - k.leading_zeros()) + 2, "{n} {g} {v}");
                }
            }
        }
        // The 84-seed Hoyito II start: guessed -36, worth -84.
        assert_eq!(asked(84, 4, -36, -84), [-36, -40, -44, -52, -68, -76, -80]);
    }
}
