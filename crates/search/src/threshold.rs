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
//! it meanwhile); `Explore::Breadth` takes all of them, nearest first, in rounds that double
//! the graph. The attractors alone decide, so cycles stay exact whichever positions were
//! explored. An exit's worth is itself a threshold question on a position with fewer seeds,
//! answered the same way (recursion depth at most the seeds / 4), only when needed: the
//! attacker's exits until a good one, the defender's until a bad one.
//!
//! Positions with few seeds (`retro_seeds`: 12 on 2x6) are answered by solving their whole
//! component at once (`retro.rs`), which is cheaper there than proofs, or by the endgame
//! tables when they reach.
//!
//! Every position decided in a proof keeps its bound (`lo <= value <= hi`, South's view) in
//! a cache shared by all later proofs, so one proof's work answers the next. The cache has
//! a size fixed in advance (`bounds.rs`); once full it forgets the bounds cheapest to prove
//! again, but never the answers to the questions asked from outside (they are pinned).
//!
//! This file holds the prover ([`ThresholdProver`]) and the choice of thresholds; the graph
//! of one proof and its passes are in `proof_graph.rs`, the lines of captures tried before
//! a proof in `capture_line.rs`, and what a proof reads and may spend in `context.rs`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use hoyito_rules::{Child, Position, Probe, Rules, Side};

use crate::bounds::BoundCache;
use crate::certificate::RecordedClaim;
use crate::config::Explore;
use crate::context::{Budget, Context, Stopped};
use crate::proof_graph::{Deferred, Proof, State};

/// The threshold prover: proven bounds and counters, kept between searches.
pub(crate) struct ThresholdProver<const W: usize> {
    pub(crate) rules: Rules,
    /// Proven bounds; those of the positions asked about from outside
    /// ([`ThresholdProver::at_least`], [`ThresholdProver::value`]) are pinned, so that what a
    /// search proved about its root is still there when it is reported.
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
    gauge: Option<std::sync::Arc<crate::prover::Gauge>>,
    /// The work and claims this prover has added to the gauge so far (two provers may
    /// share one: each adds what it did since).
    reported: (u64, u64),
    /// Which positions a proof explores next.
    explore: Explore,
    /// The work a capture's proof inside a focused proof may do the first time it is tried.
    capture_cap: u64,
}

impl<const W: usize> ThresholdProver<W> {
    /// A prover for `rules` that solves whole components of up to `retro_seeds` seeds (at
    /// most `retro_cap` positions each) by retrograde analysis, and keeps at most
    /// `cache_bytes` of proven bounds.
    pub fn new(rules: Rules, retro_seeds: u32, retro_cap: usize, cache_bytes: usize) -> Self {
        ThresholdProver {
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
            reported: (0, 0),
            explore: Explore::default(),
            capture_cap: crate::prover::Prover::<W>::DEFAULT_CAPTURE_CAP,
        }
    }

    /// Gives a capture's proof at most `work` the first time it is tried
    /// ([`crate::prover::Prover::capture_cap`]).
    pub fn capture_cap(&mut self, work: u64) {
        self.capture_cap = work.max(1);
    }

    /// Explores the proofs' graphs this way from now on.
    pub fn explore(&mut self, explore: Explore) {
        self.explore = explore;
    }

    /// Reports figures to `gauge` from now on.
    pub fn gauge(&mut self, gauge: std::sync::Arc<crate::prover::Gauge>) {
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

    /// Takes in every bound `other` has proven (a helper's, or the main prover's before a
    /// helper starts), and numbers the proofs it records from now on after the other's, so
    /// that the ranks still fall along every claim that rests on one of the other's.
    pub fn absorb(&mut self, other: &ThresholdProver<W>) {
        self.bounds.absorb(&other.bounds);
        if let (Some(mine), Some(theirs)) = (&mut self.recorder, &other.recorder) {
            mine.continue_after(theirs);
        }
    }

    /// Forgets the bounds proven so far.
    pub fn forget(&mut self) {
        self.bounds.clear();
    }

    /// Bounds held in the cache, and bounds it forgot to make room.
    pub fn cache_figures(&self) -> (usize, u64) {
        (self.bounds.len(), self.bounds.dropped())
    }

    /// Keeps `lo ..= hi` as bounds of South's value of `p` that are never forgotten (proven
    /// by a helper, [`crate::prover::Prover::value_beside`]).
    pub(crate) fn pin(&mut self, p: &Position<W>, lo: i32, hi: i32) {
        self.bounds.pin(p, lo, hi);
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
    pub fn value(&mut self, cx: &Context<'_, W>, p: &Position<W>) -> Result<i32, (i32, i32)> {
        self.value_from(cx, p, None)
    }

    /// [`ThresholdProver::value`], with the first threshold tried at `guess` (South's view)
    /// when given: a good guess takes two proofs, one at the value and one a step above.
    pub fn value_from(
        &mut self,
        cx: &Context<'_, W>,
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
        self.limit(&cx.budget);
        loop {
            let (lo, hi) = self.known(cx.probe, p);
            if lo >= hi {
                return Ok(sign * lo);
            }
            let t = next_threshold(lo, hi, g, step(p));
            if let Err(Stopped) = self.south_at_least_top(cx, p, t) {
                let (lo, hi) = self.known(cx.probe, p);
                return Err(if sign == 1 { (lo, hi) } else { (-hi, -lo) });
            }
        }
    }

    /// A move of `p` that keeps its value `v` (for its side to move), captures first
    /// (biggest gain first), else the first such move in hole order; `None` without a move.
    pub fn keeping_move(
        &mut self,
        cx: &Context<'_, W>,
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
                self.at_least(cx, &c.position, v - g)?
            } else {
                // g - w >= v  <=>  w <= g - v  <=>  not (w >= g - v + 1).
                !self.at_least(cx, &c.position, g - v + 1)?
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
        cx: &Context<'_, W>,
        p: &Position<W>,
        t: i32,
    ) -> Result<bool, Stopped> {
        if p.side_to_move() == Side::South {
            self.south_at_least_top(cx, p, t)
        } else {
            // v >= t  <=>  -v <= -t  <=>  not (South's value >= 1 - t).
            self.south_at_least_top(cx, p, 1 - t).map(|b| !b)
        }
    }

    /// [`ThresholdProver::south_at_least`] for a question asked from outside (not an exit
    /// inside a proof): first a line of the attacker's captures alone
    /// ([`ThresholdProver::line`]), then the proof.
    pub(crate) fn south_at_least_top(
        &mut self,
        cx: &Context<'_, W>,
        root: &Position<W>,
        t: i32,
    ) -> Result<bool, Stopped> {
        let t = align(root, t);
        let at_least = if self.line(cx, root, t)? {
            t > 0
        } else {
            self.south_at_least(cx, root, t)?
        };
        self.settle(root, t, at_least);
        Ok(at_least)
    }

    /// Counts one position explored under the proof (or line) of `root`: now and then the
    /// figures go to the gauge and the budget is checked.
    pub(crate) fn count(&mut self, budget: &Budget<'_>, root: &Position<W>) -> Result<(), Stopped> {
        self.expanded += 1;
        self.since_poll += 1;
        if self.since_poll >= crate::alphabeta::poll_interval(budget.node_limit, 1) {
            self.since_poll = 0;
            if let Some(g) = &self.gauge {
                let work = self.work();
                g.explored
                    .fetch_add(work.saturating_sub(self.reported.0), Ordering::Relaxed);
                self.reported.0 = work;
                g.seeds.store(root.seeds_on_board(), Ordering::Relaxed);
            }
            budget.check(self.work_done())?;
        }
        Ok(())
    }

    /// Writes the claims of one finished proof (or line) to the recorder, if any.
    pub(crate) fn record_claims(&mut self, claims: impl Iterator<Item = RecordedClaim<W>>) {
        if let Some(r) = &mut self.recorder {
            r.record(claims);
            if let Some(g) = &self.gauge {
                let written = r.written();
                g.claims
                    .fetch_add(written.saturating_sub(self.reported.1), Ordering::Relaxed);
                self.reported.1 = written;
            }
        }
    }

    /// Takes `budget`'s node limit as the most work the current search may do.
    fn limit(&mut self, budget: &Budget<'_>) {
        self.work_limit = self.work_base.saturating_add(budget.node_limit);
    }

    /// Work done since the current search started (see [`ThresholdProver::work`]).
    pub fn work_done(&self) -> u64 {
        self.work() - self.work_base
    }

    /// Whether South's value of `root` is at least `t`.
    fn south_at_least(
        &mut self,
        cx: &Context<'_, W>,
        root: &Position<W>,
        t: i32,
    ) -> Result<bool, Stopped> {
        self.limit(&cx.budget);
        match self.south_at_least_within(cx, root, t, None)? {
            Outcome::Decided(at_least) => Ok(at_least),
            Outcome::Deferred { .. } => unreachable!("a proof without a cap is never deferred"),
        }
    }

    /// [`ThresholdProver::south_at_least`], given up once the proof has done `cap` work
    /// (positions explored, its captures' proofs included) without deciding: then its root's
    /// proof and disproof numbers are returned.
    fn south_at_least_within(
        &mut self,
        cx: &Context<'_, W>,
        root: &Position<W>,
        t: i32,
        cap: Option<u64>,
    ) -> Result<Outcome, Stopped> {
        let t = align(root, t);
        let (lo, hi) = self.known(cx.probe, root);
        if lo >= t {
            return Ok(Outcome::Decided(true));
        }
        if hi < t {
            return Ok(Outcome::Decided(false));
        }
        let mut proof = Proof::new(t, step(root));
        self.run(&mut proof, cx, root, cap)
    }

    /// The rounds of one threshold proof, given up after `cap` work if one is given.
    fn run(
        &mut self,
        proof: &mut Proof<W>,
        cx: &Context<'_, W>,
        root: &Position<W>,
        cap: Option<u64>,
    ) -> Result<Outcome, Stopped> {
        let limit = cap.map(|c| self.work().saturating_add(c));
        proof.add(root, |p| self.known(cx.probe, p));
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
                self.expand(proof, cx, id)?;
                done += 1;
                queue.extend(before as u32..proof.nodes.len() as u32);
            }
            if let Some(g) = &self.gauge {
                g.largest
                    .fetch_max(proof.nodes.len() as u64, Ordering::Relaxed);
            }
            match proof.decide(&cx.budget)? {
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
                    let (pn, dn) =
                        proof.numbers(&proof.undecided_reach(&cx.budget)?, &cx.budget)?;
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
                        Explore::Breadth => (proof.frontier(&cx.budget)?, 0),
                        Explore::Focused => proof.focus(&cx.budget)?,
                    }
                }
            }
        }
    }

    /// Explores node `id`: its exits decide it, or its quiet moves become edges.
    fn expand(
        &mut self,
        proof: &mut Proof<W>,
        cx: &Context<'_, W>,
        id: u32,
    ) -> Result<(), Stopped> {
        let node = &proof.nodes[id as usize];
        if let Some(t) = node.capture() {
            let q = node.pos;
            return self.value_capture(proof, cx, id, &q, t);
        }
        self.count(&cx.budget, &proof.nodes[0].pos)?;
        let node = &proof.nodes[id as usize];
        let (p, attacker) = (node.pos, node.attacker());
        let Some(moves) = Moves::of(&self.rules, &p, proof.t) else {
            // Game over: worth 0, never good for the attacker.
            proof.nodes[id as usize].set_state(State::Lost);
            return Ok(());
        };
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
        for &(t, q, _, hole) in &moves.exits[..moves.ne] {
            let good = match q {
                None => proof.good(t),
                Some(q) if lazy => match self.known_statically(cx.probe, &q) {
                    (lo, _) if lo >= t => proof.good_if_at_least(true),
                    (_, hi) if hi < t => proof.good_if_at_least(false),
                    _ => {
                        pending[np] = (t, q, hole);
                        np += 1;
                        continue;
                    }
                },
                Some(q) => proof.good_if_at_least(self.south_at_least(cx, &q, t)?),
            };
            if good == want {
                let node = &mut proof.nodes[id as usize];
                node.decide_by_exit(if want { State::Won } else { State::Lost }, hole);
                return Ok(());
            }
        }
        let nq = moves.nq;
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
        for (q, &hole) in moves.quiet[..nq].iter().zip(&moves.holes) {
            let j = proof.add(q, |q| self.known(cx.probe, q));
            proof.edges.push(j);
            proof.holes.push(hole);
        }
        proof.nodes[id as usize].explored(first, np + nq);
        Ok(())
    }

    /// Explores node `id`, the capture to `q` that is good for the attacker when South's
    /// value of `q` is at least `t` (if South attacks) or below it: its worth is a threshold
    /// proof of its own, given a cap that grows fourfold each time it is given up (as in
    /// PN², the numbers of its root then stand for it), so that one hard capture does not
    /// hold the proof while easier ways remain.
    fn value_capture(
        &mut self,
        proof: &mut Proof<W>,
        cx: &Context<'_, W>,
        id: u32,
        q: &Position<W>,
        t: i32,
    ) -> Result<(), Stopped> {
        let tries = proof.deferred.get(&id).map_or(0, |d| d.tries);
        let cap = self.capture_cap.saturating_mul(1 << (2 * tries.min(30)));
        let outcome = self.south_at_least_within(cx, q, t, Some(cap))?;
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

/// The moves of a position being explored, sorted for [`ThresholdProver::expand`]: its
/// quiet moves, which become edges, and its exits, valued first.
struct Moves<const W: usize> {
    /// The positions after the quiet moves (a pass included), `quiet[..nq]`.
    quiet: [Position<W>; 12],
    /// The hole of each quiet move (0: the pass).
    holes: [u8; 12],
    nq: usize,
    /// Exits as (South's threshold on the child, child or None for a game end, gain, hole),
    /// `exits[..ne]`, biggest captures first.
    exits: [(i32, Option<Position<W>>, i32, u8); 12],
    ne: usize,
}

impl<const W: usize> Moves<W> {
    /// The moves of `p` in a proof of threshold `t`; `None` at a game end (no move, and no
    /// pass).
    fn of(rules: &Rules, p: &Position<W>, t: i32) -> Option<Self> {
        let sign = if p.side_to_move() == Side::South {
            1
        } else {
            -1
        };
        let list = p.moves(rules);
        let mut m = Moves {
            quiet: [*p; 12],
            holes: [0u8; 12],
            nq: 0,
            exits: [(0, None, 0, 0); 12],
            ne: 0,
        };
        if list.is_empty() {
            m.quiet[0] = p.passed(rules)?;
            m.nq = 1;
        }
        for c in list.children() {
            let g = sign * c.gain as i32;
            if c.ended_game {
                m.exits[m.ne] = (g, None, c.gain as i32, c.mv.0);
                m.ne += 1;
            } else if c.extra_turn {
                // The child has the mover to move again: South's value of the exit is the
                // gain (South's view) plus South's value of the child.
                m.exits[m.ne] = (t - g, Some(c.position), c.gain as i32, c.mv.0);
                m.ne += 1;
            } else {
                m.quiet[m.nq] = c.position;
                m.holes[m.nq] = c.mv.0;
                m.nq += 1;
            }
        }
        // Biggest captures first: the likeliest good exit for the mover.
        m.exits[..m.ne].sort_by_key(|e| -e.2);
        Some(m)
    }
}

/// The values `p` can have are multiples of this: captures take fours, so with a multiple
/// of 4 seeds on the board every capture, award and value is one too.
pub(crate) fn step<const W: usize>(p: &Position<W>) -> i32 {
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
pub(crate) fn next_threshold(lo: i32, hi: i32, g: i32, s: i32) -> i32 {
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
pub(crate) fn align<const W: usize>(p: &Position<W>, t: i32) -> i32 {
    let s = step(p);
    t.div_euclid(s) * s + if t.rem_euclid(s) == 0 { 0 } else { s }
}

/// How a proof with a cap ended.
enum Outcome {
    /// Whether South's value is at least the threshold.
    Decided(bool),
    /// Given up: the proof and disproof numbers of "at least" and of "below" at its root.
    Deferred { at_least: u32, at_most: u32 },
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
