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
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{Child, Diagram, Move, Position, Probe, Rules, Side};
use hoyito_search::certificate::{self, Kind, Recorder, Root};
use hoyito_search::{Config, Gauge, Limits, Prove, Searcher};
use hoyito_tables::Tables;
use serde::Serialize;
use sha2::{Digest, Sha256};

use hoyito_search::Explore;

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
    /// Threads for loading the tables and the guess (`None`: all cores).
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
            capture_cap: Prove::<2>::DEFAULT_CAPTURE_CAP,
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

/// The file of the state folder that names the run (rules, position, tables).
const STATE_FILE: &str = "state.txt";
/// The file of the state folder that holds the claims proven so far.
const RECORD_FILE: &str = "claims.bin";

/// A legal move's proven value, with `--all-moves`.
#[derive(Serialize)]
pub struct MoveValue {
    #[serde(rename = "move")]
    mv: u8,
    value: i32,
}

/// The certificate written.
#[derive(Serialize)]
pub struct CertificateReport {
    path: String,
    entries: usize,
    bytes: u64,
    sha256: String,
    seconds: f64,
}

/// The proofs' cache of bounds (`--cache-mb`).
#[derive(Serialize)]
pub struct CacheReport {
    limit_mb: u64,
    /// Bounds held at the end.
    bounds: u64,
    /// Bounds forgotten to make room (0 unless the cache filled up).
    forgotten: u64,
}

/// The answer to `--at-least T`, for the side to move.
#[derive(Serialize)]
pub struct ThresholdReport {
    threshold: i32,
    /// Whether the side to move gets at least `threshold` (`None`: stopped before it was
    /// decided).
    holds: Option<bool>,
}

/// What a proof run proved.
#[derive(Serialize)]
pub struct ProveReport {
    position: String,
    rules: String,
    tables_max_seeds: usize,
    /// The value the proofs started next to (a depth-limited search's), for the side to move.
    guess: Option<i32>,
    /// With `--at-least`: the question asked and its proven answer.
    at_least: Option<ThresholdReport>,
    /// Whether everything asked is proven: the value, a move that keeps it and, with
    /// `--all-moves`, every move's value; with `--at-least`, its answer (else the run
    /// stopped).
    complete: bool,
    /// The proven value for the side to move (`None`: not proven; `bounds` is what was).
    value: Option<i32>,
    /// Proven bounds of the value for the side to move.
    bounds: [i32; 2],
    /// A move that keeps the value (captures first), proven.
    best: Option<u8>,
    moves: Option<Vec<MoveValue>>,
    /// How the proofs chose what to explore (`--explore`).
    explore: &'static str,
    /// Positions explored by the proofs (this run).
    explored: u64,
    /// Threshold proofs finished (this run).
    proofs: u64,
    /// Proofs of captures given up at their cap (`--capture-cap`), to be tried again with
    /// a larger one if still needed.
    proofs_given_up: u64,
    /// Claims recorded by this run, and taken in from the state of earlier runs.
    claims_recorded: u64,
    claims_resumed: u64,
    /// The proofs' cache of bounds at the end.
    cache: CacheReport,
    /// Positions in the largest graph of a single threshold proof (one stopped included):
    /// what a proof needs in memory grows with it, about 60 bytes a position on 2x6.
    largest_graph: u64,
    /// The most memory the run held at once, tables included, in MiB (`None` where the
    /// system does not tell).
    peak_memory_mb: Option<u64>,
    seconds: f64,
    /// The memory below which the run stops (`--memory-reserve`), in MiB (0: never).
    memory_reserve_mb: u64,
    /// Whether the run stopped because the machine's available memory fell below it.
    stopped_for_memory: bool,
    /// The state folder, when it is kept.
    state: Option<String>,
    certificate: Option<CertificateReport>,
}

impl ProveReport {
    /// Whether everything asked is proven.
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// The proven value for the side to move (`None`: not proven).
    pub fn value(&self) -> Option<i32> {
        self.value
    }

    /// Proven bounds of the value for the side to move.
    pub fn bounds(&self) -> [i32; 2] {
        self.bounds
    }

    /// A move that keeps the value, proven.
    pub fn best(&self) -> Option<u8> {
        self.best
    }
}

impl ProveReport {
    /// The answer to `at_least`, for a person.
    fn fmt_threshold(&self, f: &mut fmt::Formatter<'_>, t: &ThresholdReport) -> fmt::Result {
        let (lo, hi) = (self.bounds[0], self.bounds[1]);
        match t.holds {
            Some(true) => writeln!(
                f,
                "at least {}: yes, proven (for the side to move; proven bounds {lo} to {hi})",
                t.threshold
            )?,
            Some(false) => writeln!(
                f,
                "at least {}: no, at most {}, proven (for the side to move; proven bounds {lo} to {hi})",
                t.threshold,
                t.threshold - 1
            )?,
            None => writeln!(
                f,
                "at least {}: not decided, proven bounds {lo} to {hi} (stopped; run again with the same --state to go on)",
                t.threshold
            )?,
        }
        Ok(())
    }
}

impl fmt::Display for ProveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "position: {}", self.position)?;
        writeln!(f, "{}", self.rules)?;
        match self.tables_max_seeds {
            0 => writeln!(f, "tables: none")?,
            n => writeln!(f, "tables: up to {n} seeds")?,
        }
        if let Some(g) = self.guess {
            writeln!(f, "guess: {g}")?;
        }
        if let Some(t) = &self.at_least {
            self.fmt_threshold(f, t)?;
        }
        match self.value {
            _ if self.at_least.is_some() => {}
            Some(v) if !self.complete => writeln!(
                f,
                "value: {v} (proven, for the side to move); stopped before the moves were proven: run again with the same --state to go on"
            )?,
            Some(v) => writeln!(f, "value: {v} (proven, for the side to move)")?,
            None => writeln!(
                f,
                "value: not proven, between {} and {} (stopped; run again with the same --state to go on)",
                self.bounds[0], self.bounds[1]
            )?,
        }
        if let Some(m) = self.best {
            writeln!(f, "best move: {m} (keeps the value, proven)")?;
        }
        if let Some(moves) = &self.moves {
            writeln!(f, "moves:")?;
            for m in moves {
                writeln!(f, "  {}: {}", m.mv, m.value)?;
            }
        }
        writeln!(
            f,
            "explored: {} positions in {} proofs ({}; {} given up at their cap), {:.1} s; claims recorded {} (+{} resumed)",
            self.explored,
            self.proofs,
            self.explore,
            self.proofs_given_up,
            self.seconds,
            self.claims_recorded,
            self.claims_resumed
        )?;
        writeln!(
            f,
            "largest proof graph: {} positions; peak memory: {}",
            self.largest_graph,
            self.peak_memory_mb
                .map_or("unknown".to_string(), |m| format!("{m} MiB"))
        )?;
        let c = &self.cache;
        writeln!(
            f,
            "cache: {} bounds held (at most {} MiB); {}",
            c.bounds,
            c.limit_mb,
            match c.forgotten {
                0 => "it never filled up".to_string(),
                n => format!("{n} forgotten to make room (proven again where needed)"),
            }
        )?;
        if self.stopped_for_memory {
            writeln!(
                f,
                "stopped: the machine's available memory fell below {} MiB (--memory-reserve): a smaller --cache-mb leaves the proofs more room",
                self.memory_reserve_mb
            )?;
        }
        if let Some(s) = &self.state {
            writeln!(f, "state: {s}")?;
        }
        if let Some(c) = &self.certificate {
            writeln!(
                f,
                "certificate: {} ({} entries, {} bytes, sha256 {}, {:.1} s); check it with `solve check-proof {}`",
                c.path, c.entries, c.bytes, c.sha256, c.seconds, c.path
            )?;
        }
        Ok(())
    }
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
        bail!("--guess-depth must be at least 1");
    }
    if a.time_limit == Some(0) {
        bail!("--time-limit must be at least 1 second");
    }
    if a.capture_cap == 0 {
        bail!("--capture-cap must be at least 1");
    }
    dispatch!(rules, prove_sized(rules, d, a, control))
}

/// South's view of a value for the side to move of `p`.
fn south<const W: usize>(p: &Position<W>, v: i32) -> i32 {
    if p.side_to_move() == Side::South {
        v
    } else {
        -v
    }
}

/// The kind of claim that bounds the value of `p` from the side of its side to move, in
/// South's view: "at least" where South moves, "at most" where North does.
fn mover_kind<const W: usize>(p: &Position<W>) -> Kind {
    if p.side_to_move() == Side::South {
        Kind::AtLeast
    } else {
        Kind::AtMost
    }
}

/// The state folder: its record of claims (opened for appending), the claims it held, and
/// whether it is a temporary one.
struct State {
    dir: PathBuf,
    temporary: bool,
    record: File,
}

impl State {
    /// Opens (or starts) the state of the run named by `name` in `dir`, a fresh temporary
    /// folder when `None`. Returns the state and the record's bytes so far.
    fn open(dir: Option<&Path>, name: &str) -> Result<(State, PathBuf)> {
        let (dir, temporary) = match dir {
            Some(d) => (d.to_path_buf(), false),
            None => {
                let d = std::env::temp_dir().join(format!(
                    "hoyito-prove-{}-{}",
                    std::process::id(),
                    Instant::now().elapsed().as_nanos()
                ));
                (d, true)
            }
        };
        fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the state folder {}", dir.display()))?;
        let state = dir.join(STATE_FILE);
        match fs::read_to_string(&state) {
            Ok(text) if text == name => {}
            Ok(_) => bail!(
                "the state folder {} holds another run (other rules, position or tables: see {}); give another --state",
                dir.display(),
                state.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if dir.join(RECORD_FILE).exists() {
                    bail!(
                        "{} has a record of claims but no {STATE_FILE}: not a state folder of `solve prove`",
                        dir.display()
                    );
                }
                fs::write(&state, name)
                    .with_context(|| format!("cannot write {}", state.display()))?;
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", state.display())),
        }
        let path = dir.join(RECORD_FILE);
        let record = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok((
            State {
                dir,
                temporary,
                record,
            },
            path,
        ))
    }
}

impl Drop for State {
    fn drop(&mut self) {
        if self.temporary {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
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

/// A writer that hashes what it writes.
struct Hashing<W: Write> {
    inner: W,
    hash: Sha256,
    bytes: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
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
    let run = open_run(rules, &p, a)?;
    let (tables, tables_max, state) = (&run.tables, run.tables_max, &run.state);
    let probe = |t: &Arc<Tables>| Box::new(Arc::clone(t)) as Box<dyn Probe<W>>;
    let cache_mb = a.cache_mb.unwrap_or_else(default_cache_mb);
    let gauge = Arc::new(Gauge::default());
    let (mut prover, claims_resumed) = new_prover(
        rules,
        a,
        (tables.as_ref().map(probe), cache_mb),
        state,
        &gauge,
    )?;

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
        &mut prover,
        control,
        (start, memory_reserve_mb, &low_memory),
    );
    let (explored, cache_bounds, cache_dropped) = finish_prover(prover, &run.record_path)?;
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
    state: State,
    /// The state's record of claims.
    record_path: PathBuf,
}

/// Opens the tables a run of `p` stands on and its state folder, which names the run:
/// another run resumes from it only with the same rules, position and tables.
fn open_run<const W: usize>(rules: &Rules, p: &Position<W>, a: &ProofOptions) -> Result<Run> {
    let seeds = p.seeds_on_board() as usize;
    let tables = with_threads(a.threads, || {
        tables_for(rules, a.tables.as_deref(), a.no_tables, seeds)
    })??;
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
        state,
        record_path,
    })
}

/// The prover of a run: its cache of bounds within `cache_mb` MiB, its way of exploring and
/// its cap on captures' proofs, the claims of the state taken in, recording into the state
/// and counting on `gauge`. Returns it and the claims taken in.
fn new_prover<const W: usize>(
    rules: &Rules,
    a: &ProofOptions,
    (probe, cache_mb): (Option<Box<dyn Probe<W>>>, u64),
    state: &State,
    gauge: &Arc<Gauge>,
) -> Result<(Prove<W>, u64)> {
    let cache_bytes = usize::try_from(cache_mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
    let mut prover = Prove::<W>::with_cache(*rules, probe, cache_bytes);
    prover.explore(a.explore);
    prover.capture_cap(a.capture_cap);
    let (claims_resumed, first_seq) = resume(rules, state, &mut prover)?;
    let out = BufWriter::with_capacity(1 << 20, state.record.try_clone()?);
    prover.record(Recorder::new(Box::new(out), first_seq));
    prover.gauge(Arc::clone(gauge));
    Ok((prover, claims_resumed))
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

/// The name of a way of exploring, as the command line spells it.
fn explore_name(explore: Explore) -> &'static str {
    match explore {
        Explore::Focused => "focused",
        Explore::Breadth => "breadth",
    }
}

/// Every move's proven value, for the side to move of the position proven.
fn move_values<const W: usize>(all: &[(Child<W>, i32)]) -> Vec<MoveValue> {
    all.iter()
        .map(|(c, w)| MoveValue {
            mv: c.mv.0,
            value: c.value(*w),
        })
        .collect()
}

/// Takes in the claims of the state's record one at a time as they are read (so that a
/// large record never sits in memory beside the bounds it gives), cuts off a torn last
/// entry of a killed run, and returns the claims taken and the next sequence number.
fn resume<const W: usize>(
    rules: &Rules,
    state: &State,
    prover: &mut Prove<W>,
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
    prover: &mut Prove<W>,
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
        let found = run_proofs(job, prover, &stop, deadline);
        done.store(true, Ordering::Relaxed);
        found
    })
}

/// Runs the proofs a run asks for: the answer to `at_least`, or the value, a move that
/// keeps it and, with `all_moves`, every move's value; each stops at `stop` or `deadline`.
fn run_proofs<const W: usize>(
    job: &Job<'_, W>,
    prover: &mut Prove<W>,
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
    let outcome = prover.value(p, guess, stop, deadline);
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
                    match prover.value(&c.position, g, stop, deadline) {
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

/// The claims the certificate of a complete run proves: the answer to `at_least` (for the
/// side to move: at least t, or at most t - 1; in South's view), else the value, a move
/// that keeps it and, with `all_moves`, every move's value.
fn certificate_roots<const W: usize>(
    rules: &Rules,
    p: &Position<W>,
    (threshold, outcome, best, moves): Proven<'_, W>,
) -> Option<Vec<Root<W>>> {
    match (threshold, outcome) {
        (Some((t, holds)), _) => {
            let (kind, bound) = match (mover_kind(p), holds) {
                (k, true) => (k, south(p, t)),
                (Kind::AtLeast, false) => (Kind::AtMost, south(p, t - 1)),
                (Kind::AtMost, false) => (Kind::AtLeast, south(p, t - 1)),
            };
            Some(vec![Root {
                position: *p,
                kind,
                bound,
            }])
        }
        (None, Ok(v)) => Some(value_roots(rules, p, v, best, moves)),
        (None, Err(_)) => None,
    }
}

/// Writes out the state's record of the prover's claims; returns the positions it
/// explored and its cache's bounds held and forgotten.
fn finish_prover<const W: usize>(mut prover: Prove<W>, record: &Path) -> Result<(u64, usize, u64)> {
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

/// Writes the certificate of a complete run to `path`: the claims of
/// [`certificate_roots`], extracted from the state's record (`None`: nothing to certify).
fn certificate_of<const W: usize>(
    rules: &Rules,
    p: &Position<W>,
    run: &Run,
    found: Proven<'_, W>,
    path: &Path,
) -> Result<Option<CertificateReport>> {
    let Some(roots) = certificate_roots(rules, p, found) else {
        return Ok(None);
    };
    let probe = run
        .tables
        .as_ref()
        .map(|t| Box::new(Arc::clone(t)) as Box<dyn Probe<W>>);
    let max = (run.tables_max > 0).then_some(run.tables_max as u32);
    let report = write_certificate(rules, &run.record_path, &roots, probe.as_deref(), max, path)?;
    Ok(Some(report))
}

/// Extracts the certificate of `roots` from the state's record at `record_path` and writes
/// it to `path`, hashing it as it goes.
fn write_certificate<const W: usize>(
    rules: &Rules,
    record_path: &Path,
    roots: &[Root<W>],
    probe: Option<&dyn Probe<W>>,
    tables_max: Option<u32>,
    path: &Path,
) -> Result<CertificateReport> {
    let t0 = Instant::now();
    let file = File::open(record_path)
        .with_context(|| format!("cannot read {}", record_path.display()))?;
    let (record, _) = certificate::read_record::<W>(rules, std::io::BufReader::new(file))
        .context("reading the state")?;
    let claims = certificate::extract(rules, record, roots, probe)
        .context("extracting the certificate (a fault of the prover: please report it)")?;
    let out = File::create(path)
        .with_context(|| format!("cannot create the certificate {}", path.display()))?;
    let mut out = Hashing {
        inner: BufWriter::new(out),
        hash: Sha256::new(),
        bytes: 0,
    };
    certificate::write(&mut out, rules, tables_max, roots, &claims)
        .with_context(|| format!("cannot write the certificate {}", path.display()))?;
    Ok(CertificateReport {
        path: path.display().to_string(),
        entries: claims.len(),
        bytes: out.bytes,
        sha256: format!("{:x}", out.hash.finalize()),
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The root claims of a proven value `v` of `p` (for its side to move): the value, the
/// move `best` that keeps it and, given, every move's value.
fn value_roots<const W: usize>(
    rules: &Rules,
    p: &Position<W>,
    v: i32,
    best: Option<Move>,
    moves: Option<&[(Child<W>, i32)]>,
) -> Vec<Root<W>> {
    let vs = south(p, v);
    let mut roots = vec![
        Root {
            position: *p,
            kind: Kind::AtLeast,
            bound: vs,
        },
        Root {
            position: *p,
            kind: Kind::AtMost,
            bound: vs,
        },
    ];
    let mover_kind = mover_kind(p);
    for c in p.moves(rules).children() {
        let g = south(p, c.gain as i32);
        if c.ended_game {
            continue;
        }
        if Some(c.mv) == best {
            // The best move keeps the value.
            roots.push(Root {
                position: c.position,
                kind: mover_kind,
                bound: vs - g,
            });
        }
        if let Some(all) = moves {
            if let Some(&(_, w)) = all.iter().find(|(m, _)| m.mv == c.mv) {
                let ws = south(&c.position, w);
                for kind in [Kind::AtLeast, Kind::AtMost] {
                    roots.push(Root {
                        position: c.position,
                        kind,
                        bound: ws,
                    });
                }
            }
        }
    }
    let mut seen = Vec::new();
    roots.retain(|r| {
        let new = !seen.contains(r);
        seen.push(*r);
        new
    });
    roots
}
