//! `solve prove`: the exact value of a position, proven by threshold proofs over the endgame
//! tables, with the claims recorded in a state folder (a stopped run resumes from it) and a
//! certificate that `solve check-proof` verifies (data/CERTIFICATE.md).

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{Child, Diagram, Move, Position, Probe, Rules, Side};
use hoyito_search::certificate::{self, Kind, Recorder, Root};
use hoyito_search::{Config, Gauge, Limits, Prover, Searcher};
use hoyito_tables::Tables;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::cli::{ProveArgs, RuleArgs};
use crate::common::{dispatch, emit, position, resolve, search_threads, tables_for, with_threads};

/// The file of the state folder that names the run (rules, position, tables).
const STATE_FILE: &str = "state.txt";
/// The file of the state folder that holds the claims proven so far.
const RECORD_FILE: &str = "claims.bin";

/// A legal move's proven value, with `--all-moves`.
#[derive(Serialize)]
struct MoveValue {
    #[serde(rename = "move")]
    mv: u8,
    value: i32,
}

/// The certificate written.
#[derive(Serialize)]
struct CertificateReport {
    path: String,
    entries: usize,
    bytes: u64,
    sha256: String,
    seconds: f64,
}

/// The proofs' cache of bounds (`--cache-mb`).
#[derive(Serialize)]
struct CacheReport {
    limit_mb: u64,
    /// Bounds held at the end.
    bounds: u64,
    /// Bounds forgotten to make room (0 unless the cache filled up).
    forgotten: u64,
}

/// The answer to `--at-least T`, for the side to move.
#[derive(Serialize)]
struct ThresholdReport {
    threshold: i32,
    /// Whether the side to move gets at least `threshold` (`None`: stopped before it was
    /// decided).
    holds: Option<bool>,
}

/// What `solve prove` prints.
#[derive(Serialize)]
struct ProveReport {
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

/// The memory `--cache-mb` allows by default: a third of the machine's (4 GiB where it
/// cannot be read).
fn default_cache_mb() -> u64 {
    crate::common::total_mib().map_or(4096, |m| (m / 3).max(64))
}

/// The memory `--memory-reserve` keeps by default: an eighth of the machine's (none where
/// that cannot be read).
fn default_memory_reserve_mb() -> u64 {
    crate::common::total_mib().map_or(0, |m| m / 8)
}

/// `solve prove`.
pub fn prove(rules_args: &RuleArgs, json: bool, a: &ProveArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.position.text().as_deref())?;
    if a.guess_depth == 0 {
        bail!("--guess-depth must be at least 1");
    }
    if a.time_limit == Some(0) {
        bail!("--time-limit must be at least 1 second");
    }
    let report = dispatch!(rules, prove_sized(&rules, d.as_ref(), a))?;
    emit(&report, json)
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

/// Reports progress on stderr until `done`: a spinner on a terminal, else a line `every`
/// so often. `at_least`: the one threshold asked, if that is all.
///
/// It also watches the machine's memory: once less than `reserve_mb` MiB is available (0:
/// never), it raises `stop` and `low_memory`, so that the run stops as on Ctrl-C.
fn progress(
    gauge: &Gauge,
    done: &AtomicBool,
    start: Instant,
    at_least: Option<i32>,
    every: Duration,
    (stop, low_memory, reserve_mb): (&AtomicBool, &AtomicBool, u64),
) {
    let terminal = std::io::stderr().is_terminal();
    let bar = terminal.then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.enable_steady_tick(Duration::from_millis(200));
        b
    });
    let mut last_line = Instant::now();
    while !done.load(Ordering::Relaxed) {
        if reserve_mb > 0
            && !low_memory.load(Ordering::Relaxed)
            && crate::common::available_mib().is_some_and(|m| m < reserve_mb)
        {
            low_memory.store(true, Ordering::Relaxed);
            stop.store(true, Ordering::Relaxed);
        }
        std::thread::sleep(Duration::from_millis(200));
        let explored = gauge.explored.load(Ordering::Relaxed);
        let secs = start.elapsed().as_secs_f64();
        let stage = match (gauge.stage.load(Ordering::Relaxed), at_least) {
            (_, Some(t)) => format!("at least {t}"),
            (0, None) => "the value".to_string(),
            (1, None) => "the best move".to_string(),
            (k, None) => format!("move {}", k - 1),
        };
        let msg = format!(
            "proving {stage}: explored {explored}, proofs {}, claims {}, proof at {} seeds, largest graph {}, {:.0} positions/s",
            gauge.proofs.load(Ordering::Relaxed),
            gauge.claims.load(Ordering::Relaxed),
            gauge.seeds.load(Ordering::Relaxed),
            gauge.largest.load(Ordering::Relaxed),
            explored as f64 / secs.max(1e-9)
        );
        match &bar {
            Some(b) => b.set_message(msg),
            None if last_line.elapsed() >= every => {
                last_line = Instant::now();
                eprintln!("[{secs:.0} s] {msg}");
            }
            None => {}
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
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
    a: &ProveArgs,
) -> Result<ProveReport> {
    let start = Instant::now();
    let p: Position<W> = position(rules, d)?;
    let seeds = p.seeds_on_board() as usize;
    let tables = with_threads(a.threads, || {
        tables_for(rules, a.tables.as_deref(), a.no_tables, seeds)
    })??;
    let tables_max = tables.as_ref().map_or(0, |t| Tables::max_seeds(t));
    let name = format!(
        "hoyito-prove-state 1\n{}\nposition {}\ntables {}\n",
        certificate::rules_line(rules),
        certificate::board(&p),
        tables_max
    );
    let (state, record_path) = State::open(a.state.as_deref(), &name)?;
    let probe = |t: &Arc<Tables>| Box::new(Arc::clone(t)) as Box<dyn Probe<W>>;
    // The claims of the state are learnt one at a time as they are read, so that a large
    // record never sits in memory beside the bounds it gives.
    let cache_mb = a.cache_mb.unwrap_or_else(default_cache_mb);
    let cache_bytes = usize::try_from(cache_mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
    let mut prover = Prover::<W>::with_cache(*rules, tables.as_ref().map(probe), cache_bytes);
    prover.explore(a.explore.into());
    prover.capture_cap(a.capture_cap);
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
    let first_seq = last_seq + 1;

    // The guesses: a depth-limited search (nothing to guess inside the tables). A proof that
    // starts at the value takes two thresholds; one that starts at 0 walks there a step at a
    // time (the first moves of the Hoyito II start: 7 s with a guess, minutes without).
    let config = Config {
        threads: search_threads(a.threads)?,
        hash_mb: 256,
        ..Config::default()
    };
    let mut searcher = Searcher::<W>::new(*rules, config);
    if let Some(t) = &tables {
        searcher = searcher.with_probe(probe(t));
    }
    let guess_of = |q: &Position<W>| {
        let n = q.seeds_on_board() as usize;
        (n > tables_max && q.is_live())
            .then(|| searcher.search(q, &Limits::depth(a.guess_depth)).score)
    };
    // (`--at-least` asks one threshold, and needs no guess.)
    let guess = a.at_least.is_none().then(|| guess_of(&p)).flatten();

    let out = BufWriter::with_capacity(1 << 20, state.record.try_clone()?);
    prover.record(Recorder::new(Box::new(out), first_seq));
    let gauge = Arc::new(Gauge::default());
    prover.gauge(Arc::clone(&gauge));
    let stop = crate::common::stop_flag();
    let deadline = a.time_limit.map(|s| start + Duration::from_secs(s));
    let done = AtomicBool::new(false);
    let every = crate::common::progress_every()?;
    let memory_reserve_mb = a.memory_reserve.unwrap_or_else(default_memory_reserve_mb);
    let low_memory = AtomicBool::new(false);

    let watch = (&*stop, &low_memory, memory_reserve_mb);
    let (outcome, threshold, best, moves) = std::thread::scope(|s| {
        s.spawn(|| progress(&gauge, &done, start, a.at_least, every, watch));
        if let Some(t) = a.at_least {
            let holds = prover.at_least(&p, t, &stop, deadline).ok();
            let (lo, hi) = prover.bounds(&p);
            let outcome = if lo == hi { Ok(lo) } else { Err((lo, hi)) };
            done.store(true, Ordering::Relaxed);
            return (outcome, holds.map(|h| (t, h)), None, None);
        }
        let outcome = prover.value(&p, guess, &stop, deadline);
        let mut best = None;
        let mut moves = None;
        if let Ok(v) = outcome {
            gauge.stage.store(1, Ordering::Relaxed);
            best = prover.keeping_move(&p, v, &stop, deadline).ok().flatten();
            if a.all_moves && best.is_some() {
                let mut all = Vec::new();
                for c in p.moves(rules).children() {
                    gauge.stage.store(1 + c.mv.0 as u32, Ordering::Relaxed);
                    let w = if c.ended_game {
                        0
                    } else {
                        let g = guess_of(&c.position);
                        match prover.value(&c.position, g, &stop, deadline) {
                            Ok(w) => w,
                            Err(_) => break,
                        }
                    };
                    all.push((*c, w));
                }
                moves = Some(all);
            }
        }
        done.store(true, Ordering::Relaxed);
        (outcome, None, best, moves)
    });
    let explored = prover.explored();
    let (cache_bounds, cache_dropped) = prover.cache_figures();
    let claims_recorded = gauge.claims.load(Ordering::Relaxed);
    prover
        .finish()
        .with_context(|| format!("cannot write the state's record {}", record_path.display()))?;
    drop(prover);
    let legal = p.moves(rules);
    let moves = moves.filter(|m| m.len() == legal.len());
    let complete = match a.at_least {
        Some(_) => threshold.is_some(),
        None => {
            outcome.is_ok()
                && (best.is_some() || legal.is_empty())
                && (!a.all_moves || moves.is_some())
        }
    };
    let keep_state = !state.temporary;

    // The claims the certificate proves: the answer to `--at-least`, else the value, a move
    // that keeps it and, with `--all-moves`, every move's value.
    let roots = match (complete, threshold, outcome) {
        (false, _, _) => None,
        (true, Some((t, holds)), _) => {
            // For the side to move: at least t, or at most t - 1; in South's view.
            let (kind, bound) = match (mover_kind(&p), holds) {
                (k, true) => (k, south(&p, t)),
                (Kind::AtLeast, false) => (Kind::AtMost, south(&p, t - 1)),
                (Kind::AtMost, false) => (Kind::AtLeast, south(&p, t - 1)),
            };
            Some(vec![Root {
                position: p,
                kind,
                bound,
            }])
        }
        (true, None, Ok(v)) => Some(value_roots(rules, &p, v, best, moves.as_deref())),
        (true, None, Err(_)) => None,
    };
    let mut certificate = None;
    if let (Some(roots), Some(path)) = (roots, &a.certificate) {
        let t0 = Instant::now();
        let file = File::open(&record_path)
            .with_context(|| format!("cannot read {}", record_path.display()))?;
        let (record, _) = certificate::read_record::<W>(rules, std::io::BufReader::new(file))
            .context("reading the state")?;
        let probe = tables.as_ref().map(probe);
        let claims = certificate::extract(rules, record, &roots, probe.as_deref())
            .context("extracting the certificate (a fault of the prover: please report it)")?;
        let out = File::create(path)
            .with_context(|| format!("cannot create the certificate {}", path.display()))?;
        let mut out = Hashing {
            inner: BufWriter::new(out),
            hash: Sha256::new(),
            bytes: 0,
        };
        let max = (tables_max > 0).then_some(tables_max as u32);
        certificate::write(&mut out, rules, max, &roots, &claims)
            .with_context(|| format!("cannot write the certificate {}", path.display()))?;
        certificate = Some(CertificateReport {
            path: path.display().to_string(),
            entries: claims.len(),
            bytes: out.bytes,
            sha256: format!("{:x}", out.hash.finalize()),
            seconds: t0.elapsed().as_secs_f64(),
        });
    }

    let (value, bounds) = match outcome {
        Ok(v) => (Some(v), [v, v]),
        Err((lo, hi)) => (None, [lo, hi]),
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
        value,
        bounds,
        best: best.map(|m| m.0),
        moves: moves.map(|all| {
            all.iter()
                .map(|(c, w)| MoveValue {
                    mv: c.mv.0,
                    value: c.value(*w),
                })
                .collect()
        }),
        explore: a.explore.name(),
        explored,
        proofs: gauge.proofs.load(Ordering::Relaxed),
        proofs_given_up: gauge.given_up.load(Ordering::Relaxed),
        claims_recorded,
        claims_resumed,
        cache: CacheReport {
            limit_mb: cache_mb,
            bounds: cache_bounds as u64,
            forgotten: cache_dropped,
        },
        largest_graph: gauge.largest.load(Ordering::Relaxed),
        peak_memory_mb: crate::common::peak_mib(),
        seconds: start.elapsed().as_secs_f64(),
        memory_reserve_mb,
        stopped_for_memory: low_memory.load(Ordering::Relaxed),
        state: keep_state.then(|| state.dir.display().to_string()),
        certificate,
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
