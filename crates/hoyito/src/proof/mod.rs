//! Proof runs: the exact value of a position, proven by threshold proofs over the endgame
//! tables, with the claims recorded in a state folder (a stopped run resumes from it) and a
//! certificate that the independent checker verifies (data/CERTIFICATE.md,
//! [`check_certificate`]).
//!
//! ```
//! use hoyito::proof::{check_certificate, prove, ProofControl, ProofOptions};
//! use hoyito::{Diagram, Rules};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let cert = dir.path().join("small.cert");
//! let rules = Rules::default();
//! let d: Diagram = "1,0,2,0,0,1/0,1,0,0,1,1 S".parse().unwrap();
//! let options = ProofOptions {
//!     no_tables: true,
//!     certificate: Some(cert.clone()),
//!     ..ProofOptions::default()
//! };
//! let report = prove(&rules, Some(&d), &options, &ProofControl::default()).unwrap();
//! assert!(report.complete());
//! let checked = check_certificate(&cert, None).unwrap();
//! assert!(!checked.roots.is_empty());
//! ```

use std::fmt;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use hoyito_rules::{Child, Diagram, Move, Position, Probe, Rules};
use hoyito_search::certificate::{self, Recorder};
use hoyito_search::{Config, Gauge, Limits, Prover, Searcher};
use hoyito_tables::Tables;

use hoyito_search::Explore;

mod certify;
mod report;
mod state;

pub use report::{CacheReport, CertificateReport, MoveValue, ProveReport, ThresholdReport};

use certify::certificate_of;
use report::{explore_name, move_values};
use state::State;

use crate::setup::{
    available_mib, dispatch, peak_mib, position, search_threads, tables_for, total_mib,
    with_threads,
};

/// What a proof run proves, over what, and what it keeps.
#[derive(Clone, Debug)]
pub struct ProofOptions {
    /// Endgame tables the proof stands on (2x6 only; `None`:
    /// [`DEFAULT_TABLES_DIR`](crate::DEFAULT_TABLES_DIR) when built there).
    pub tables: Option<PathBuf>,
    /// Prove without endgame tables.
    pub no_tables: bool,
    /// Folder of the run's state: a run given the state of the same position and rules
    /// resumes from it (`None`: a temporary folder, removed at the end).
    pub state: Option<PathBuf>,
    /// Write the certificate of the proven value to this file.
    pub certificate: Option<PathBuf>,
    /// Also prove the value of every legal move.
    pub all_moves: bool,
    /// Prove only whether the side to move gets at least this many seeds.
    pub at_least: Option<i32>,
    /// Stop after this many seconds (the state is kept).
    pub time_limit: Option<u64>,
    /// Depth of the search that guesses the value, so that the proofs start next to it.
    pub guess_depth: u32,
    /// Threads for loading the tables and the guess, and for the proofs (two or more: the
    /// value's thresholds two at a time, [`Prover::value_beside`]; `None`: all cores).
    pub threads: Option<usize>,
    /// Most memory for the bounds the proofs keep, in MiB (`None`: a third of the
    /// machine's).
    pub cache_mb: Option<u64>,
    /// Stop cleanly once the machine's available memory falls below this many MiB (0:
    /// never; `None`: an eighth of the machine's memory).
    pub memory_reserve: Option<u64>,
    /// Which positions the threshold proofs explore next.
    pub explore: Explore,
    /// Positions a capture's own proof may explore the first time before it is given up.
    pub capture_cap: u64,
}

impl Default for ProofOptions {
    fn default() -> Self {
        ProofOptions {
            tables: None,
            no_tables: false,
            state: None,
            certificate: None,
            all_moves: false,
            at_least: None,
            time_limit: None,
            guess_depth: 8,
            threads: None,
            cache_mb: None,
            memory_reserve: None,
            explore: Explore::default(),
            capture_cap: Prover::<2>::DEFAULT_CAPTURE_CAP,
        }
    }
}

/// How a front follows and stops a proof run.
#[derive(Default)]
pub struct ProofControl<'a> {
    /// Raised (by Ctrl-C, say) to stop the run at the next safe point, its state kept.
    pub stop: Option<Arc<AtomicBool>>,
    /// Called about five times a second with the run's progress.
    pub progress: Option<&'a (dyn Fn(&ProofProgress) + Sync)>,
}

/// Where a proof run stands, as [`ProofControl::progress`] is told.
#[derive(Clone, Debug)]
pub struct ProofProgress {
    /// What is being proven: `the value`, `the best move`, `move K` or `at least T`.
    pub stage: String,
    /// Positions explored so far.
    pub explored: u64,
    /// Threshold proofs finished.
    pub proofs: u64,
    /// Claims recorded.
    pub claims: u64,
    /// Seeds on the board of the proof under way.
    pub seeds: u64,
    /// Positions in the largest proof graph so far.
    pub largest_graph: u64,
    /// Seconds since the run started.
    pub seconds: f64,
}

impl fmt::Display for ProofProgress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "proving {}: explored {}, proofs {}, claims {}, proof at {} seeds, largest graph {}, {:.0} positions/s",
            self.stage,
            self.explored,
            self.proofs,
            self.claims,
            self.seeds,
            self.largest_graph,
            self.explored as f64 / self.seconds.max(1e-9)
        )
    }
}

/// Checks a certificate with the independent checker (`hoyito-check`), over the tables
/// folder `tables` when it rests on tables.
pub fn check_certificate(
    certificate: &Path,
    tables: Option<&Path>,
) -> Result<hoyito_check::Report, hoyito_check::CheckError> {
    hoyito_check::check_file(certificate, tables)
}

/// The memory `cache_mb` allows by default: a third of the machine's (4 GiB where it
/// cannot be read).
fn default_cache_mb() -> u64 {
    total_mib().map_or(4096, |m| (m / 3).max(64))
}

/// The memory `memory_reserve` keeps by default: an eighth of the machine's (none where
/// that cannot be read).
fn default_memory_reserve_mb() -> u64 {
    total_mib().map_or(0, |m| m / 8)
}

/// Proves the value of a position (`None`: the start of `rules`).
pub fn prove(
    rules: &Rules,
    d: Option<&Diagram>,
    a: &ProofOptions,
    control: &ProofControl<'_>,
) -> Result<ProveReport> {
    if a.guess_depth == 0 {
        return Err(crate::error::bad_option(
            "guess_depth",
            "must be at least 1",
        ));
    }
    if a.time_limit == Some(0) {
        return Err(crate::error::bad_option(
            "time_limit",
            "must be at least 1 second",
        ));
    }
    if a.capture_cap == 0 {
        return Err(crate::error::bad_option(
            "capture_cap",
            "must be at least 1",
        ));
    }
    dispatch!(rules, prove_sized(rules, d, a, control))
}

/// Tells `report` of the run's progress about five times a second until `done`.
/// `at_least`: the one threshold asked, if that is all.
///
/// It also watches the machine's memory: once less than `reserve_mb` MiB is available (0:
/// never), it raises `stop` and `low_memory`, so that the run stops as on Ctrl-C.
fn progress(
    gauge: &Gauge,
    done: &AtomicBool,
    start: Instant,
    at_least: Option<i32>,
    report: Option<&(dyn Fn(&ProofProgress) + Sync)>,
    (stop, low_memory, reserve_mb): (&AtomicBool, &AtomicBool, u64),
) {
    while !done.load(Ordering::Relaxed) {
        if reserve_mb > 0
            && !low_memory.load(Ordering::Relaxed)
            && available_mib().is_some_and(|m| m < reserve_mb)
        {
            low_memory.store(true, Ordering::Relaxed);
            stop.store(true, Ordering::Relaxed);
        }
        std::thread::sleep(Duration::from_millis(200));
        let stage = match (gauge.stage.load(Ordering::Relaxed), at_least) {
            (_, Some(t)) => format!("at least {t}"),
            (0, None) => "the value".to_string(),
            (1, None) => "the best move".to_string(),
            (k, None) => format!("move {}", k - 1),
        };
        if let Some(report) = report {
            report(&ProofProgress {
                stage,
                explored: gauge.explored.load(Ordering::Relaxed),
                proofs: gauge.proofs.load(Ordering::Relaxed),
                claims: gauge.claims.load(Ordering::Relaxed),
                seeds: gauge.seeds.load(Ordering::Relaxed) as u64,
                largest_graph: gauge.largest.load(Ordering::Relaxed),
                seconds: start.elapsed().as_secs_f64(),
            });
        }
    }
}

fn prove_sized<const W: usize>(
    rules: &Rules,
    d: Option<&Diagram>,
    a: &ProofOptions,
    control: &ProofControl<'_>,
) -> Result<ProveReport> {
    let start = Instant::now();
    let p: Position<W> = position(rules, d)?;
    let run = open_run(rules, &p, a, control.stop.as_deref())?;
    let (tables, tables_max, state) = (&run.tables, run.tables_max, &run.state);
    let probe = |t: &Arc<Tables>| Box::new(Arc::clone(t)) as Box<dyn Probe<W>>;
    let cache_mb = a.cache_mb.unwrap_or_else(default_cache_mb);
    let gauge = Arc::new(Gauge::default());
    // A second prover beside the first on a second core, for the value's thresholds.
    let beside = a.at_least.is_none() && search_threads(a.threads)? >= 2;
    let probes = (tables.as_ref().map(probe), tables.as_ref().map(probe));
    let (mut prover, mut helper, claims_resumed) =
        new_prover(rules, a, (probes, cache_mb, beside), state, &gauge)?;

    let searcher = guesser(rules, a, tables.as_ref())?;
    let guess_of = |q: &Position<W>| {
        let n = q.seeds_on_board() as usize;
        (n > tables_max && q.is_live())
            .then(|| searcher.search(q, &Limits::depth(a.guess_depth)).score)
    };
    // (`--at-least` asks one threshold, and needs no guess.)
    let guess = a.at_least.is_none().then(|| guess_of(&p)).flatten();

    let memory_reserve_mb = a.memory_reserve.unwrap_or_else(default_memory_reserve_mb);
    let job = Job {
        rules,
        p: &p,
        a,
        gauge: &gauge,
        guess,
        guess_of: &guess_of,
    };
    let low_memory = AtomicBool::new(false);
    let (outcome, threshold, best, moves) = prove_watched(
        &job,
        (&mut prover, helper.as_mut()),
        control,
        (start, memory_reserve_mb, &low_memory),
    );
    let helped = match helper {
        Some(h) => finish_prover(h, &run.record_path)?.0,
        None => 0,
    };
    let (explored, cache_bounds, cache_dropped) = finish_prover(prover, &run.record_path)?;
    let explored = explored + helped;
    let legal = p.moves(rules).len();
    let moves = moves.filter(|m| m.len() == legal);
    let complete = is_complete(a, (threshold, outcome, best, moves.as_deref()), legal);

    let certificate = match &a.certificate {
        Some(path) if complete => {
            let found = (threshold, outcome, best, moves.as_deref());
            certificate_of(rules, &p, &run, found, path)?
        }
        _ => None,
    };
    Ok(ProveReport {
        position: p.to_string(),
        rules: certificate::rules_line(rules),
        tables_max_seeds: tables_max,
        tables_dir: (tables_max > 0)
            .then(|| run.tables_dir.clone())
            .flatten()
            .map(|d| d.display().to_string()),
        guess,
        at_least: a.at_least.map(|t| ThresholdReport {
            threshold: t,
            holds: threshold.map(|(_, h)| h),
        }),
        complete,
        value: outcome.ok(),
        bounds: outcome.map_or_else(|(lo, hi)| [lo, hi], |v| [v, v]),
        best: best.map(|m| m.0),
        moves: moves.as_deref().map(move_values),
        explore: explore_name(a.explore),
        explored,
        proofs: gauge.proofs.load(Ordering::Relaxed),
        proofs_given_up: gauge.given_up.load(Ordering::Relaxed),
        claims_recorded: gauge.claims.load(Ordering::Relaxed),
        claims_resumed,
        cache: CacheReport {
            limit_mb: cache_mb,
            bounds: cache_bounds as u64,
            forgotten: cache_dropped,
        },
        largest_graph: gauge.largest.load(Ordering::Relaxed),
        peak_memory_mb: peak_mib(),
        seconds: start.elapsed().as_secs_f64(),
        memory_reserve_mb,
        stopped_for_memory: low_memory.load(Ordering::Relaxed),
        state: (!state.temporary).then(|| state.dir.display().to_string()),
        certificate,
    })
}

/// The tables and the state folder of a run.
struct Run {
    tables: Option<Arc<Tables>>,
    /// The largest layer of the tables (0: none).
    tables_max: usize,
    /// The tables' folder: given, the default one, or the cache's (none: no tables).
    tables_dir: Option<PathBuf>,
    state: State,
    /// The state's record of claims.
    record_path: PathBuf,
}

/// Opens the tables a run of `p` stands on and its state folder, which names the run:
/// another run resumes from it only with the same rules, position and tables.
fn open_run<const W: usize>(
    rules: &Rules,
    p: &Position<W>,
    a: &ProofOptions,
    stop: Option<&AtomicBool>,
) -> Result<Run> {
    let seeds = p.seeds_on_board() as usize;
    let mut tables = with_threads(a.threads, || {
        tables_for(rules, a.tables.as_deref(), a.no_tables, seeds)
    })??;
    // No table files given or built: the small layers of the user's cache (built there
    // the first time), which settle in milliseconds what a proof would explore millions
    // of positions for; up to 20 seeds for a large position (`cache::proof_layers`).
    let mut tables_dir = a.tables.clone().or_else(|| {
        tables
            .is_some()
            .then(|| PathBuf::from(crate::DEFAULT_TABLES_DIR))
    });
    if tables.is_none() && !a.no_tables && a.tables.is_none() {
        let stop = crate::cache::StopOn(stop);
        let small = with_threads(a.threads, || {
            crate::cache::small_tables_up_to(rules, seeds, crate::cache::proof_layers(seeds), &stop)
        })??;
        if let Some(small) = small {
            tables = Some(small.tables);
            tables_dir = Some(small.dir);
        }
    }
    let tables_max = tables.as_ref().map_or(0, |t| Tables::max_seeds(t));
    let name = format!(
        "hoyito-prove-state 1\n{}\nposition {}\ntables {}\n",
        certificate::rules_line(rules),
        certificate::board(p),
        tables_max
    );
    let (state, record_path) = State::open(a.state.as_deref(), &name)?;
    Ok(Run {
        tables,
        tables_max,
        tables_dir,
        state,
        record_path,
    })
}

/// The prover of a run, and with `beside` a helper for a second core: their caches of
/// bounds within `cache_mb` MiB together, their way of exploring and their cap on captures'
/// proofs, the claims of the state taken in (by the first; the helper takes them from it
/// when it starts), both recording into the state and counting on `gauge`. Returns them and
/// the claims taken in.
#[allow(clippy::type_complexity)]
fn new_prover<const W: usize>(
    rules: &Rules,
    a: &ProofOptions,
    ((probe, helper_probe), cache_mb, beside): (
        (Option<Box<dyn Probe<W>>>, Option<Box<dyn Probe<W>>>),
        u64,
        bool,
    ),
    state: &State,
    gauge: &Arc<Gauge>,
) -> Result<(Prover<W>, Option<Prover<W>>, u64)> {
    let cache_bytes = usize::try_from(cache_mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
    let cache_bytes = if beside { cache_bytes / 2 } else { cache_bytes };
    let new = |probe| {
        let mut prover = Prover::<W>::with_cache(*rules, probe, cache_bytes);
        prover.explore(a.explore);
        prover.capture_cap(a.capture_cap);
        prover.gauge(Arc::clone(gauge));
        prover
    };
    let mut prover = new(probe);
    let (claims_resumed, first_seq) = resume(rules, state, &mut prover)?;
    let out = Arc::new(Mutex::new(BufWriter::with_capacity(
        1 << 20,
        state.record.try_clone()?,
    )));
    let record =
        |out: &Arc<Mutex<_>>| Recorder::new(Box::new(SharedRecord(Arc::clone(out))), first_seq);
    prover.record(record(&out));
    let helper = beside.then(|| {
        let mut helper = new(helper_probe);
        helper.record(record(&out));
        helper
    });
    Ok((prover, helper, claims_resumed))
}

/// The state's record as two provers write it: each proof's claims in one piece, under a
/// lock (a [`Recorder`] writes them with one `write_all`).
struct SharedRecord(Arc<Mutex<BufWriter<std::fs::File>>>);

impl Write for SharedRecord {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut out = self
            .0
            .lock()
            .map_err(|_| std::io::Error::other("a prover's thread panicked"))?;
        out.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("a prover's thread panicked"))?
            .flush()
    }
}

/// The search that guesses values, so that the proofs start next to them: a depth-limited
/// search (nothing to guess inside the tables). A proof that starts at the value takes two
/// thresholds; one that starts at 0 walks there a step at a time (the first moves of the
/// Hoyito II start: 7 s with a guess, minutes without).
fn guesser<const W: usize>(
    rules: &Rules,
    a: &ProofOptions,
    tables: Option<&Arc<Tables>>,
) -> Result<Searcher<W>> {
    let config = Config {
        threads: search_threads(a.threads)?,
        hash_mb: 256,
        ..Config::default()
    };
    let searcher = Searcher::<W>::new(*rules, config);
    Ok(match tables {
        Some(t) => searcher.with_probe(Box::new(Arc::clone(t))),
        None => searcher,
    })
}

/// Takes in the claims of the state's record one at a time as they are read (so that a
/// large record never sits in memory beside the bounds it gives), cuts off a torn last
/// entry of a killed run, and returns the claims taken and the next sequence number.
fn resume<const W: usize>(
    rules: &Rules,
    state: &State,
    prover: &mut Prover<W>,
) -> Result<(u64, u32)> {
    let (mut claims_resumed, mut last_seq) = (0u64, 0u32);
    let bytes = certificate::for_each_claim::<W>(rules, &state.record, |c| {
        claims_resumed += 1;
        last_seq = last_seq.max((c.rank >> 32) as u32);
        prover.learn([&c]);
    })
    .context("reading the state")?;
    // A killed run may leave a torn last entry: cut it off before appending.
    state
        .record
        .set_len(bytes)
        .context("cannot trim the state's record")?;
    Ok((claims_resumed, last_seq + 1))
}

/// What the proofs found, as the certificate and the report read it: the answer to
/// `at_least`, the value (or the bounds proven), a move that keeps it, every move's value.
type Proven<'a, const W: usize> = (
    Option<(i32, bool)>,
    std::result::Result<i32, (i32, i32)>,
    Option<Move>,
    Option<&'a [(Child<W>, i32)]>,
);

/// What the proofs found: the value (or the bounds proven), the answer to `at_least`, a
/// move that keeps the value, and every move's value.
type Found<const W: usize> = (
    std::result::Result<i32, (i32, i32)>,
    Option<(i32, bool)>,
    Option<Move>,
    Option<Vec<(Child<W>, i32)>>,
);

/// What a run proves, and with what.
struct Job<'a, const W: usize> {
    rules: &'a Rules,
    p: &'a Position<W>,
    a: &'a ProofOptions,
    gauge: &'a Gauge,
    /// The guess of the value of `p`.
    guess: Option<i32>,
    /// Guesses the value of a position.
    guess_of: &'a dyn Fn(&Position<W>) -> Option<i32>,
}

/// Runs the proofs of `job` with the progress reported and the memory watched on a thread
/// beside them (see [`progress`]): `low_memory` is raised when the run stopped for memory.
fn prove_watched<const W: usize>(
    job: &Job<'_, W>,
    provers: (&mut Prover<W>, Option<&mut Prover<W>>),
    control: &ProofControl<'_>,
    (start, reserve_mb, low_memory): (Instant, u64, &AtomicBool),
) -> Found<W> {
    let stop = control.stop.clone().unwrap_or_default();
    let deadline = job.a.time_limit.map(|s| start + Duration::from_secs(s));
    let done = AtomicBool::new(false);
    let watch = (&*stop, low_memory, reserve_mb);
    std::thread::scope(|s| {
        s.spawn(|| {
            progress(
                job.gauge,
                &done,
                start,
                job.a.at_least,
                control.progress,
                watch,
            )
        });
        let found = run_proofs(job, provers, &stop, deadline);
        done.store(true, Ordering::Relaxed);
        found
    })
}

/// Runs the proofs a run asks for: the answer to `at_least`, or the value (with a helper: on
/// two threads), a move that keeps it and, with `all_moves`, every move's value; each stops
/// at `stop` or `deadline`.
fn run_proofs<const W: usize>(
    job: &Job<'_, W>,
    (prover, mut helper): (&mut Prover<W>, Option<&mut Prover<W>>),
    stop: &AtomicBool,
    deadline: Option<Instant>,
) -> Found<W> {
    let Job {
        rules,
        p,
        a,
        gauge,
        guess,
        guess_of,
    } = *job;
    if let Some(t) = a.at_least {
        let holds = prover.at_least(p, t, stop, deadline).ok();
        let (lo, hi) = prover.bounds(p);
        let outcome = if lo == hi { Ok(lo) } else { Err((lo, hi)) };
        return (outcome, holds.map(|h| (t, h)), None, None);
    }
    let mut value = |prover: &mut Prover<W>, q: &Position<W>, g: Option<i32>| match &mut helper {
        Some(helper) => prover.value_beside(helper, q, g, stop, deadline),
        None => prover.value(q, g, stop, deadline),
    };
    let outcome = value(prover, p, guess);
    let mut best = None;
    let mut moves = None;
    if let Ok(v) = outcome {
        gauge.stage.store(1, Ordering::Relaxed);
        best = prover.keeping_move(p, v, stop, deadline).ok().flatten();
        if a.all_moves && best.is_some() {
            let mut all = Vec::new();
            for c in p.moves(rules).children() {
                gauge.stage.store(1 + c.mv.0 as u32, Ordering::Relaxed);
                let w = if c.ended_game {
                    0
                } else {
                    let g = guess_of(&c.position);
                    match value(prover, &c.position, g) {
                        Ok(w) => w,
                        Err(_) => break,
                    }
                };
                all.push((*c, w));
            }
            moves = Some(all);
        }
    }
    (outcome, None, best, moves)
}

/// Writes out the state's record of the prover's claims; returns the positions it
/// explored and its cache's bounds held and forgotten.
fn finish_prover<const W: usize>(
    mut prover: Prover<W>,
    record: &Path,
) -> Result<(u64, usize, u64)> {
    let explored = prover.explored();
    let (bounds, forgotten) = prover.cache_figures();
    prover
        .finish()
        .with_context(|| format!("cannot write the state's record {}", record.display()))?;
    Ok((explored, bounds, forgotten))
}

/// Whether everything asked is proven: the answer to `at_least`, else the value, a move that
/// keeps it (unless there is none of the `legal` moves) and, when asked, every move's value.
fn is_complete<const W: usize>(
    a: &ProofOptions,
    (threshold, outcome, best, moves): Proven<'_, W>,
    legal: usize,
) -> bool {
    match a.at_least {
        Some(_) => threshold.is_some(),
        None => {
            outcome.is_ok() && (best.is_some() || legal == 0) && (!a.all_moves || moves.is_some())
        }
    }
}
