//! [`Prover`]: exact values by threshold proofs (`threshold.rs`) that record what they decide,
//! so that a certificate can be extracted ([`crate::certificate`]) and a stopped run can
//! resume from the record.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use hoyito_rules::{Move, Position, Probe, Rules, Side};

use crate::certificate::{Claim, Kind, Recorder};
use crate::context::{Budget, Context, Stopped};
use crate::threshold::ThresholdProver;

/// Figures of a running proof that another thread may read (for progress).
#[derive(Debug, Default)]
pub struct Gauge {
    /// Positions explored so far (updated every 1024), by every prover that reports here.
    pub explored: AtomicU64,
    /// Threshold proofs finished.
    pub proofs: AtomicU64,
    /// Proofs of captures given up at their cap, to be tried again with a larger one if
    /// still needed ([`Prover::capture_cap`]).
    pub given_up: AtomicU64,
    /// Claims recorded, by every prover that reports here.
    pub claims: AtomicU64,
    /// Seeds on the board of the position whose proof is running now (the deepest one).
    pub seeds: AtomicU32,
    /// The size of the largest proof graph so far, in positions (one still being explored
    /// included).
    pub largest: AtomicU64,
    /// What the caller is proving now, in its own numbering (the prover never changes it).
    pub stage: AtomicU32,
}

/// Proves exact values over endgame tables and records the claims its proofs decide.
///
/// Unlike the exact mode of [`crate::Searcher`], it answers small positions only from the
/// tables, never by solving a component in memory, so that every value it uses is either
/// a table's or recorded.
pub struct Prover<const W: usize> {
    rules: Rules,
    threshold: ThresholdProver<W>,
    probe: Option<Box<dyn Probe<W>>>,
    /// How long [`Prover::value_beside`] proves alone before its helper joins.
    helper_after: std::time::Duration,
}

impl<const W: usize> Prover<W> {
    /// A prover for `rules` over `probe` (endgame tables), if any, that keeps up to
    /// [`Prover::DEFAULT_CACHE_BYTES`] of proven bounds.
    pub fn new(rules: Rules, probe: Option<Box<dyn Probe<W>>>) -> Self {
        Self::with_cache(rules, probe, Self::DEFAULT_CACHE_BYTES)
    }

    /// [`Prover::new`] keeping up to `cache_bytes` of proven bounds (at least a few
    /// thousand bounds; growing into that size takes up to half as much again for a
    /// moment). Once full, the cache forgets the bounds of the positions with the fewest
    /// seeds first: they are proven again when needed. A run whose cache never fills is
    /// reproduced exactly by one resumed from its record.
    pub fn with_cache(rules: Rules, probe: Option<Box<dyn Probe<W>>>, cache_bytes: usize) -> Self {
        Prover {
            rules,
            threshold: ThresholdProver::new(rules, 0, 0, cache_bytes),
            probe,
            helper_after: Self::HELPER_AFTER,
        }
    }

    /// The memory for proven bounds that [`Prover::new`] allows: 4 GiB (used only as they
    /// come).
    pub const DEFAULT_CACHE_BYTES: usize = 4 << 30;

    /// Bounds held in the cache now, and bounds it forgot to make room so far.
    pub fn cache_figures(&self) -> (usize, u64) {
        self.threshold.cache_figures()
    }

    /// Explores the proofs' graphs this way from now on (both ways prove the same values;
    /// a run resumed from a record must explore as the run that wrote it did for its
    /// record and certificate to come out the same).
    pub fn explore(&mut self, explore: crate::Explore) {
        self.threshold.explore(explore);
    }

    /// Gives the proof of a capture's worth inside a focused proof at most `work`
    /// positions explored (its own captures' proofs included) the first time it is tried, four times as many each time after (default
    /// [`Prover::DEFAULT_CAPTURE_CAP`]). Meanwhile the numbers of its root stand for the
    /// capture, as in PN², so that one hard capture does not hold a proof while easier ways
    /// remain. The values are the same whatever the cap. A run resumed from its record
    /// writes what an unstopped one does as long as no proof was given up before the stop
    /// (the record does not say which were); otherwise it proves the same values, and its
    /// record gives a certificate all the same.
    pub fn capture_cap(&mut self, work: u64) {
        self.threshold.capture_cap(work);
    }

    /// Lets the helper of [`Prover::value_beside`] join after `after` (default
    /// [`Prover::HELPER_AFTER`]).
    pub fn helper_after(&mut self, after: std::time::Duration) {
        self.helper_after = after;
    }

    /// How long [`Prover::value_beside`] proves alone before its helper joins.
    pub const HELPER_AFTER: std::time::Duration = std::time::Duration::from_millis(500);

    /// The first cap of a capture's proof that [`Prover::new`] sets: 2^18 positions.
    pub const DEFAULT_CAPTURE_CAP: u64 = 1 << 18;

    /// Records every claim decided from now on with `recorder`.
    pub fn record(&mut self, recorder: Recorder) {
        self.threshold.record(recorder);
    }

    /// Reports figures to `gauge` as it goes.
    pub fn gauge(&mut self, gauge: Arc<Gauge>) {
        self.threshold.gauge(gauge);
    }

    /// Takes in claims recorded before (a run that resumes): their bounds answer the same
    /// questions again at once.
    pub fn learn<'a>(&mut self, claims: impl IntoIterator<Item = &'a Claim<W>>) {
        for c in claims {
            let n = c.position.seeds_on_board() as i32;
            match c.kind {
                Kind::AtLeast => self.threshold.learn(&c.position, c.bound, n),
                Kind::AtMost => self.threshold.learn(&c.position, -n, c.bound),
            }
        }
    }

    /// Positions explored by the proofs so far.
    pub fn explored(&self) -> u64 {
        self.threshold.work()
    }

    /// The exact value of `p` for its side to move, starting from `guess` (same view) when
    /// given; on a stop or past `deadline`, the bounds proven so far.
    pub fn value(
        &mut self,
        p: &Position<W>,
        guess: Option<i32>,
        stop: &AtomicBool,
        deadline: Option<Instant>,
    ) -> Result<i32, (i32, i32)> {
        let cx = context(self.probe.as_deref(), stop, deadline);
        self.threshold.start(deadline);
        let south = p.side_to_move() == Side::South;
        let guess = guess.map(|g| if south { g } else { -g });
        self.threshold.value_from(&cx, p, guess)
    }

    /// [`Prover::value`] on two threads: this prover and `helper` (a prover of the same rules
    /// and tables) prove two thresholds of the value at once. The first is the one
    /// [`Prover::value`] would ask; the second, the one it would ask next if the first's
    /// answer is the one the guess points to (the guess -25 of the Hoyito II start asks
    /// "at least -24?" and "at least -28?" side by side). A threshold that the answers
    /// found meanwhile settle is stopped, and its prover takes the next: the one the value's
    /// proof asks next, even when the other prover is on it already (its own cache, warm
    /// from its last proof, often makes it the quicker; the first to end stops the other).
    /// Each prover proves its thresholds alone, with its own cache; both record into their
    /// recorders (one record: see [`crate::certificate::Recorder`]). At the end this prover
    /// takes in the helper's bounds, so that the move that keeps the value, asked next, is
    /// found from what either proved.
    ///
    /// The helper joins only after [`Prover::HELPER_AFTER`] ([`Prover::helper_after`]): a
    /// value proven sooner is proven as [`Prover::value`] does it, on one thread (small
    /// positions gain nothing from a second, whose guesses would only take memory and the
    /// other core). A panic in either prover's thread goes on in the caller's.
    ///
    /// Unlike [`Prover::value`], which proofs run and in what order depends on which ends
    /// first: a run resumed from its record proves the same value, but its record and
    /// certificate may differ from an unstopped run's.
    pub fn value_beside(
        &mut self,
        helper: &mut Prover<W>,
        p: &Position<W>,
        guess: Option<i32>,
        stop: &AtomicBool,
        deadline: Option<Instant>,
    ) -> Result<i32, (i32, i32)> {
        let south = p.side_to_move() == Side::South;
        let sign = if south { 1 } else { -1 };
        // South's view from here on.
        let raw = guess.map_or(0, |g| sign * g);
        let s = crate::threshold::step(p);
        let g = crate::threshold::align(p, raw);
        helper.threshold.absorb(&self.threshold);
        let (mut lo, mut hi) = self.threshold.known(self.probe.as_deref(), p);
        // Each worker's own stop, raised when its threshold is settled or the run stops.
        let halts = [AtomicBool::new(false), AtomicBool::new(false)];
        let probes = [self.probe.as_deref(), helper.probe.as_deref()];
        type Answer = std::thread::Result<Result<bool, Stopped>>;
        let (tx, rx) = std::sync::mpsc::channel::<(usize, i32, Answer)>();
        let (started, self_after) = (Instant::now(), self.helper_after);
        // Whether a proof has ended: until then the second prover guesses ahead.
        let mut answered = false;
        std::thread::scope(|scope| {
            let mut idle: [Option<&mut ThresholdProver<W>>; 2] =
                [Some(&mut self.threshold), Some(&mut helper.threshold)];
            let mut handles: [Option<(i32, std::thread::ScopedJoinHandle<'_, _>)>; 2] =
                [None, None];
            loop {
                let stopped =
                    stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d);
                for (i, h) in handles.iter().enumerate() {
                    if let Some((t, _)) = h {
                        if stopped || *t <= lo || *t > hi {
                            halts[i].store(true, Ordering::Relaxed);
                        }
                    }
                }
                for i in 0..2 {
                    let early = i == 1 && started.elapsed() < self_after;
                    if stopped || lo >= hi || idle[i].is_none() || early {
                        continue;
                    }
                    // The other's threshold, unless settled (then it is being stopped).
                    let busy = handles
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .find_map(|(_, h)| h.as_ref().map(|(t, _)| *t))
                        .filter(|&t| lo < t && t <= hi);
                    let Some(t) = next_beside(lo, hi, (g, raw, s), busy, answered) else {
                        continue;
                    };
                    let prover = idle[i].take().expect("an idle prover");
                    let (tx, halt, probe) = (tx.clone(), &halts[i], probes[i]);
                    handles[i] = Some((
                        t,
                        scope.spawn(move || {
                            let cx = context(probe, halt, deadline);
                            prover.start(deadline);
                            // A panic is sent too (the receiver would wait for ever).
                            let answer =
                                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                    prover.south_at_least_top(&cx, p, t)
                                }));
                            // The receiver lives as long as the scope.
                            let _ = tx.send((i, t, answer));
                            prover
                        }),
                    ));
                }
                if handles.iter().all(Option::is_none) {
                    break;
                }
                match rx.recv_timeout(std::time::Duration::from_millis(20)) {
                    Ok((i, t, answer)) => {
                        answered = true;
                        let (_, handle) = handles[i].take().expect("a running proof");
                        idle[i] = Some(handle.join().expect("a proof's thread panicked"));
                        halts[i].store(false, Ordering::Relaxed);
                        match answer {
                            Ok(Ok(true)) => lo = lo.max(t),
                            Ok(Ok(false)) => hi = hi.min(t - s),
                            Ok(Err(Stopped)) => {}
                            Err(panic) => {
                                for h in &halts {
                                    h.store(true, Ordering::Relaxed);
                                }
                                std::panic::resume_unwind(panic)
                            }
                        }
                    }
                    Err(_) => continue,
                }
            }
        });
        self.threshold.absorb(&helper.threshold);
        self.threshold.pin(p, lo, hi);
        if lo >= hi {
            Ok(sign * lo)
        } else if south {
            Err((lo, hi))
        } else {
            Err((-hi, -lo))
        }
    }

    /// A move of `p` that keeps its value `v` (for its side to move), captures first;
    /// `Ok(None)` without a legal move, `Err(())` on a stop.
    #[allow(clippy::result_unit_err)]
    pub fn keeping_move(
        &mut self,
        p: &Position<W>,
        v: i32,
        stop: &AtomicBool,
        deadline: Option<Instant>,
    ) -> Result<Option<Move>, ()> {
        let cx = context(self.probe.as_deref(), stop, deadline);
        self.threshold
            .keeping_move(&cx, p, v)
            .map(|c| c.map(|c| c.mv))
            .map_err(|_| ())
    }

    /// Whether the value of `p` for its side to move is at least `t` (one threshold proof,
    /// not the exact value); `Err(())` on a stop or past `deadline`.
    #[allow(clippy::result_unit_err)]
    pub fn at_least(
        &mut self,
        p: &Position<W>,
        t: i32,
        stop: &AtomicBool,
        deadline: Option<Instant>,
    ) -> Result<bool, ()> {
        let cx = context(self.probe.as_deref(), stop, deadline);
        self.threshold.start(deadline);
        self.threshold.at_least(&cx, p, t).map_err(|_| ())
    }

    /// The bounds of the value of `p` for its side to move that are proven so far.
    pub fn bounds(&mut self, p: &Position<W>) -> (i32, i32) {
        let (lo, hi) = self.threshold.known(self.probe.as_deref(), p);
        if p.side_to_move() == Side::South {
            (lo, hi)
        } else {
            (-hi, -lo)
        }
    }

    /// Flushes the record; its first write error, if any.
    pub fn finish(&mut self) -> std::io::Result<()> {
        match self.threshold.recorder() {
            Some(r) => r.finish(),
            None => Ok(()),
        }
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
}

/// The threshold a prover of [`Prover::value_beside`] takes next, of a value (South's view)
/// known to lie in `lo..=hi` on the lattice of step `s`, guessed at `raw` (aligned: `g`),
/// while the other proves `busy` (none: it is idle), `answered` once a proof has ended.
///
/// The one the value's proof asks next, as [`Prover::value`] would; but while the first two
/// run, the second takes the one that proof would ask after `busy`'s answer, the answer the
/// guess points to first. Later, a prover that the next threshold finds busy on it proves it
/// too, with its own cache (after its own proofs, often the quicker of the two), and the
/// first to end stops the other. `None` when nothing is left to ask.
fn next_beside(
    lo: i32,
    hi: i32,
    (g, raw, s): (i32, i32, i32),
    busy: Option<i32>,
    answered: bool,
) -> Option<i32> {
    use crate::threshold::next_threshold;
    if lo >= hi {
        return None;
    }
    let Some(b) = busy.filter(|_| !answered) else {
        return Some(next_threshold(lo, hi, g, s));
    };
    // "At least b" splits lo..=hi into lo..=b-s (no) and b..=hi (yes).
    let no = (lo < b - s).then(|| next_threshold(lo, b - s, g, s));
    let yes = (b < hi).then(|| next_threshold(b, hi, g, s));
    if raw >= b {
        yes.or(no)
    } else {
        no.or(yes)
    }
}

/// A context of `probe` and a budget that ends at `stop` or `deadline`, with no limit on
/// the work.
fn context<'a, const W: usize>(
    probe: Option<&'a dyn Probe<W>>,
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
) -> Context<'a, W> {
    Context {
        probe,
        budget: Budget {
            stop,
            deadline,
            node_limit: u64::MAX,
        },
    }
}
