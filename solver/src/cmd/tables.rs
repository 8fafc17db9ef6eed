//! The endgame table subcommands: `solve tables build | probe | info | verify`.

use std::io::{BufRead as _, IsTerminal as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hoyito::endgame::{self, open_layers, FullReport, LayerReport};
use hoyito::setup::with_threads;
use hoyito::tables::{layers_up_to, FullOptions, LayerStats, Progress, TableKey};
use hoyito::{Position6, Rules};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::{BuildArgs, ProbeArgs, RuleArgs, TablesArgs, TablesCommand, VerifyArgs};
use crate::common::{emit, resolve, split_position};

/// Runs `solve tables ...`.
pub fn run(rules_args: &RuleArgs, json: bool, a: &TablesArgs) -> Result<()> {
    let (rules, _) = resolve(rules_args, None)?;
    // A missing folder holds no tables (and a build makes it); a file is never a folder.
    if a.dir.exists() && !a.dir.is_dir() {
        bail!("--dir {} is a file, not a folder", a.dir.display());
    }
    match &a.command {
        TablesCommand::Build(b) => build(&rules, &a.dir, json, b),
        TablesCommand::Probe(p) => probe(rules_args, &a.dir, json, p),
        TablesCommand::Info => emit(&endgame::info(&rules, &a.dir)?, json),
        TablesCommand::Verify(v) => verify(&rules, &a.dir, json, v),
    }
}

/// A byte count with a decimal unit: `23 MB`, `1.68 GB`.
fn human_bytes(b: f64) -> String {
    match b {
        b if b >= 1e9 => format!("{:.2} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.0} MB", b / 1e6),
        b => format!("{:.0} kB", b / 1e3),
    }
}

/// A build's progress: bars over the sweeps of each layer (plain lines as often as
/// [`crate::common::progress_every`] says when stderr is not a terminal) and lines for the
/// rounds on stderr, and each finished layer's report on stdout.
struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    positions: Mutex<u64>,
    /// No bars or progress lines (with `--quiet` or `--json`).
    quiet: bool,
    /// Stderr is not a terminal: a sweep's bar is hidden, and a line every `every` says how
    /// far it is.
    plain: bool,
    every: Duration,
    /// When the last of those lines (or the sweep's start) was.
    last_line: Mutex<Instant>,
    json: bool,
    started: Mutex<Instant>,
    /// Where the tables (and the scratch moves) go.
    dir: PathBuf,
    /// What the count at the end of a sweep line counts.
    counted: &'static str,
    /// Raised by Ctrl-C, for a build that stops at it (see [`Bars::stopping`]).
    stop: Option<Arc<AtomicBool>>,
}

impl Bars {
    fn new(quiet: bool, json: bool, dir: &Path) -> Result<Self> {
        Ok(Bars {
            bar: Mutex::new(None),
            positions: Mutex::new(0),
            quiet: quiet || json,
            plain: !std::io::stderr().is_terminal(),
            every: crate::common::progress_every()?,
            last_line: Mutex::new(Instant::now()),
            json,
            started: Mutex::new(Instant::now()),
            dir: dir.to_path_buf(),
            counted: "changed",
            stop: None,
        })
    }

    /// The same, for a build that stops cleanly on Ctrl-C (one process: a build over MPI
    /// is simply ended by it, and resumes from its files and checkpoints).
    #[cfg_attr(feature = "mpi", allow(dead_code))]
    fn stopping(self) -> Self {
        Bars {
            stop: Some(crate::common::stop_flag()),
            ..self
        }
    }

    /// The same, with sweep lines that count `what` (for a verification).
    fn counting(self, what: &'static str) -> Self {
        Bars {
            counted: what,
            ..self
        }
    }

    /// Seconds since the current layer started.
    fn seconds_into_layer(&self) -> f64 {
        self.started
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
            .as_secs_f64()
    }
}

impl Progress for Bars {
    fn layer_start(&self, _seeds: usize, positions: u64) {
        *self.positions.lock().unwrap_or_else(|e| e.into_inner()) = positions;
        *self.started.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }
    fn layer_plan(&self, seeds: usize, positions: u64, rounds: bool) {
        let scratch = if rounds {
            hoyito::tables::scratch_estimate(positions)
        } else {
            0
        };
        let free = hoyito::tables::available_space(&self.dir);
        if let Some(free) = free.filter(|&f| f < scratch + scratch / 10) {
            // Said even when quiet: the build will likely fail on a full disk.
            eprintln!(
                "warning: layer {seeds} needs about {} of scratch moves, and {} has {} free; \
                 free some space or build with --method sweeps (no scratch files, slower)",
                human_bytes(scratch as f64),
                self.dir.display(),
                human_bytes(free as f64)
            );
        }
        if self.quiet || positions < 1 << 20 {
            return;
        }
        let disk = if rounds {
            format!(
                "at most about {} of scratch moves on disk (an estimate with a margin), then rounds",
                human_bytes(scratch as f64)
            )
        } else {
            "sweeps only (no scratch files)".to_string()
        };
        eprintln!(
            "layer {seeds:2}: {positions} positions, {} of working memory, {disk}",
            human_bytes(positions as f64)
        );
    }
    fn sweep_start(&self, seeds: usize, sweep: u32) {
        if self.quiet {
            return;
        }
        let total = *self.positions.lock().unwrap_or_else(|e| e.into_inner());
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} positions, {per_sec}, ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(format!("layer {seeds:2} sweep {sweep:2}"));
        bar.enable_steady_tick(Duration::from_millis(500));
        *self.last_line.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
    }
    fn advance(&self, positions: u64) {
        let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).clone() else {
            return;
        };
        b.inc(positions);
        if !self.plain {
            return;
        }
        let mut last = self.last_line.lock().unwrap_or_else(|e| e.into_inner());
        if last.elapsed() >= self.every {
            *last = Instant::now();
            let (done, total) = (b.position(), b.length().unwrap_or(0));
            eprintln!(
                "{}: {done} of {total} positions ({:.0}%, {:.1} s into the layer)",
                b.prefix(),
                100.0 * done as f64 / total.max(1) as f64,
                self.seconds_into_layer()
            );
        }
    }
    fn round_end(&self, seeds: usize, round: u32, evaluated: u64, changed: u64) {
        if !self.quiet {
            let secs = self.seconds_into_layer();
            eprintln!(
                "layer {seeds:2} round {round:2}: {evaluated} positions evaluated, {changed} {} ({secs:.1} s into the layer)",
                self.counted
            );
        }
    }
    fn sweep_end(&self, seeds: usize, sweep: u32, evaluated: u64, changed: u64) {
        if let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            b.finish_and_clear();
        }
        if !self.quiet {
            let secs = self.seconds_into_layer();
            eprintln!(
                "layer {seeds:2} sweep {sweep:2}: {evaluated} positions evaluated, {changed} {} ({secs:.1} s into the layer)",
                self.counted
            );
        }
    }
    fn scratch_damaged(&self, seeds: usize, path: &Path) {
        // Said even when quiet: the layer's time doubles.
        eprintln!(
            "layer {seeds:2}: scratch file {} found damaged; building the layer again",
            path.display()
        );
    }
    fn layer_done(&self, s: &LayerStats) {
        // A progress method returns nothing; a report of numbers always converts to JSON.
        let _ = emit(&LayerReport::of(s), self.json);
    }
    fn stopped(&self) -> bool {
        let stopped = self
            .stop
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed));
        if stopped {
            if let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
                b.finish_and_clear();
            }
        }
        stopped
    }
}

fn build(rules: &Rules, dir: &Path, json: bool, a: &BuildArgs) -> Result<()> {
    if layers_up_to(a.max_seeds).is_empty() {
        bail!(
            "--max-seeds {} builds no layer: the smallest layer has 5 seeds on the board",
            a.max_seeds
        );
    }
    if a.max_seeds > rules.total_seeds() {
        bail!(
            "--max-seeds {} is more than the {} seeds of the game",
            a.max_seeds,
            rules.total_seeds()
        );
    }
    let t0 = Instant::now();
    #[cfg(not(feature = "mpi"))]
    let report = build_here(rules, dir, json, a)?;
    #[cfg(feature = "mpi")]
    let report = build_mpi(rules, dir, json, a)?;
    // The layers have been reported as they were done; a person also gets the total.
    if report && !json {
        println!(
            "tables of {} up to {} seeds in {} ({:.1} s)",
            TableKey::of(rules).folder(),
            a.max_seeds,
            dir.display(),
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// `solve tables build` in this process: the layers built on its threads, each reported as
/// it is done. Returns whether this process reports (it does).
#[cfg(not(feature = "mpi"))]
fn build_here(rules: &Rules, dir: &Path, json: bool, a: &BuildArgs) -> Result<bool> {
    if a.checkpoint_every.is_some() {
        bail!(
            "--checkpoint-every applies to a build over MPI (the `mpi` feature); a build of one \
             process resumes at the first layer not written"
        );
    }
    for (flag, given) in [
        ("--copy-whole-from", a.copy_whole_from.is_some()),
        ("--answer-step-kib", a.answer_step_kib.is_some()),
    ] {
        if given {
            bail!("{flag} applies to a build over MPI (the `mpi` feature)");
        }
    }
    let bars = Bars::new(a.quiet, json, dir)?.stopping();
    // The flag and what the machine has available now, the smaller (none where unknown).
    let max_memory = [a.max_memory, hoyito::setup::available_mib()]
        .into_iter()
        .flatten()
        .min()
        .map(|mib| mib << 20);
    let options = hoyito::tables::BuildOptions {
        method: a.method(),
        max_memory,
    };
    with_threads(a.threads, || {
        hoyito::tables::build_with(dir, rules, a.max_seeds, &options, &bars)
    })?
    .with_context(|| format!("building tables in {}", dir.display()))?;
    Ok(true)
}

/// `solve tables build` over the processes that `mpirun` started (the `mpi` feature): each
/// layer split over them and swept (see `hoyito::tables::build_distributed`). Rank 0 reports
/// and writes; the others are silent. Returns whether this process reports. A process that
/// fails says so and ends the whole job, as MPI programs do.
#[cfg(feature = "mpi")]
fn build_mpi(rules: &Rules, dir: &Path, json: bool, a: &BuildArgs) -> Result<bool> {
    use hoyito::tables::mpi::environment::Threading;
    use hoyito::tables::mpi::traits::Communicator;

    if a.max_memory.is_some() {
        bail!("--max-memory is not checked in a build over MPI (each process holds its layer)");
    }
    hoyito::setup::check_threads(a.threads)?;
    // Only the main thread calls MPI; the sweeps' threads never do.
    let (universe, _) = hoyito::tables::mpi::initialize_with_threading(Threading::Funneled)
        .context("cannot start MPI")?;
    let world = universe.world();
    // A process that panics ends the whole job, as an error does: the others would wait for
    // it at the next exchange forever.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        hoyito::tables::mpi::topology::SimpleCommunicator::world().abort(101);
    }));
    let (rank, size) = (world.rank(), world.size());
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("cannot start the thread pool")?;
    }
    let bars = Bars::new(a.quiet, json, dir)?;
    let quiet = hoyito::tables::Quiet;
    let progress: &dyn Progress = if rank == 0 { &bars } else { &quiet };
    let options = hoyito::tables::BuildOptions {
        method: a.method(),
        max_memory: None,
    };
    let mpi = mpi_options(a)?;
    match hoyito::tables::build_distributed(
        &world,
        dir,
        rules,
        a.max_seeds,
        &options,
        &mpi,
        progress,
    ) {
        Ok(layers) => {
            if rank == 0 && !a.quiet && !json {
                report_exchanges(&layers, size);
            }
            Ok(rank == 0)
        }
        Err(e) => {
            eprintln!(
                "error: building tables in {} (process {rank} of {size}): {e}",
                dir.display()
            );
            world.abort(1)
        }
    }
}

fn probe(rules_args: &RuleArgs, dir: &Path, json: bool, a: &ProbeArgs) -> Result<()> {
    // Each position is one quoted word or up to three words; `-` stands for standard input.
    let mut texts: Vec<String> = Vec::new();
    let mut from_stdin = false;
    let mut rest = &a.positions[..];
    while let Some(first) = rest.first() {
        if first == "-" {
            from_stdin = true;
            rest = &rest[1..];
        } else {
            let (text, after) = split_position(rest);
            texts.push(text);
            rest = after;
        }
    }
    // The board size comes from the first position; every position must share it.
    let (rules, _) = resolve(rules_args, texts.first().map(String::as_str))?;
    let parse = |text: &str| -> Result<Position6> {
        Position6::parse(&rules, text.trim())
            .with_context(|| format!("bad position '{}'", text.trim()))
    };
    // The positions of the command line are read before the tables, so that a bad one is
    // named as such whether or not the tables are there.
    let given = texts.iter().map(|t| parse(t)).collect::<Result<Vec<_>>>()?;
    let tables = open_layers(&rules, dir, usize::MAX)?;
    for p in &given {
        emit(&endgame::probe(&tables, p)?, json)?;
    }
    if from_stdin {
        for (k, line) in std::io::stdin().lock().lines().enumerate() {
            let line = line.context("reading standard input")?;
            if line.trim().is_empty() {
                continue;
            }
            let p = parse(&line).with_context(|| format!("standard input line {}", k + 1))?;
            emit(&endgame::probe(&tables, &p)?, json)?;
        }
    }
    Ok(())
}

fn verify(rules: &Rules, dir: &Path, json: bool, a: &VerifyArgs) -> Result<()> {
    if a.full {
        return verify_full(rules, dir, json, a);
    }
    if a.search_ms == 0 {
        bail!("--search-ms must be at least 1");
    }
    // A layer's check reads only smaller layers besides its own.
    let tables = open_layers(rules, dir, a.layer.unwrap_or(usize::MAX))?;
    let layers: Vec<usize> = tables
        .layers()
        .map(|l| l.seeds())
        .filter(|&n| a.layer.is_none_or(|m| m == n))
        .collect();
    if layers.is_empty() {
        bail!(
            "no layer of {} seeds in {}",
            a.layer.unwrap_or_default(),
            dir.display()
        );
    }
    let mut failed = 0;
    for seeds in layers {
        let search = (a.search, a.search_ms);
        let report = endgame::verify_layer(rules, dir, &tables, seeds, a.samples, search)?;
        failed += report.wrong();
        emit(&report, json)?;
    }
    if failed > 0 {
        bail!("{failed} stored values disagree with their moves or with search");
    }
    Ok(())
}

/// `solve tables verify --full`: every position of every layer (or of `--layer`), smallest
/// first, checked against its moves and for the least fixpoint.
fn verify_full(rules: &Rules, dir: &Path, json: bool, a: &VerifyArgs) -> Result<()> {
    let max = a.layer.or(a.max_seeds).unwrap_or(usize::MAX);
    let tables = open_layers(rules, dir, max)?;
    if let Some(n) = a.layer {
        if !tables.layers().any(|l| l.seeds() == n) {
            bail!("no layer of {n} seeds in {}", dir.display());
        }
    }
    let bars = Bars::new(a.quiet, json, dir)?.counting("grounded");
    let options = FullOptions {
        graph_bytes: a.graph_mb.saturating_mul(1 << 20),
    };
    let t0 = Instant::now();
    let checks = with_threads(a.threads, || match a.layer {
        Some(n) => tables.verify_full_layer(n, &options, &bars).map(|c| {
            let _ = emit(&FullReport::of(&c), json);
            vec![c]
        }),
        None => tables.verify_full(max, &options, &bars, |c| {
            let _ = emit(&FullReport::of(c), json);
        }),
    })?
    .with_context(|| format!("verifying the tables in {}", dir.display()))?;
    if checks.is_empty() {
        bail!("no layer of at most {max} seeds in {}", dir.display());
    }
    if let Some(bad) = checks
        .iter()
        .find_map(|c| c.failure.as_ref().map(|f| (c.seeds, f)))
    {
        bail!("layer {}: {}", bad.0, bad.1);
    }
    if !json {
        let seeds: Vec<String> = checks.iter().map(|c| c.seeds.to_string()).collect();
        println!(
            "layers {} of {} proved exact: {} positions in {:.1} s",
            seeds.join(", "),
            TableKey::of(rules).folder(),
            checks.iter().map(|c| c.positions).sum::<u64>(),
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// The options of a build over MPI that its flags give.
#[cfg(feature = "mpi")]
fn mpi_options(a: &BuildArgs) -> Result<hoyito::tables::MpiOptions> {
    let defaults = hoyito::tables::MpiOptions::default();
    Ok(hoyito::tables::MpiOptions {
        checkpoint_every: a
            .checkpoint_every
            .map_or(defaults.checkpoint_every, std::time::Duration::from_secs),
        copy_whole_from: a.copy_whole_from.unwrap_or(defaults.copy_whole_from),
        answer_step: match a.answer_step_kib {
            Some(0) => bail!("--answer-step-kib must be at least 1"),
            Some(k) => usize::try_from(k.saturating_mul(1024)).unwrap_or(usize::MAX),
            None => defaults.answer_step,
        },
    })
}

/// What each process exchanged in a build over MPI, a line a layer swept, on stderr.
#[cfg(feature = "mpi")]
fn report_exchanges(layers: &[(LayerStats, hoyito::tables::ExchangeStats)], size: i32) {
    for (s, x) in layers.iter().filter(|(_, x)| x.sweeps > 0) {
        let rounds = if x.rounds > 0 {
            format!(", {} changes sent in {} rounds", x.updates, x.rounds)
        } else {
            String::new()
        };
        eprintln!(
            "layer {:2}: {} processes, {} indices asked of other processes, {} bytes answered in each of {} sweeps{rounds}: {} bytes sent in all ({:.2} a position); the slowest process exchanged for {:.1} s and waited for the others {:.1} s{}",
            x.seeds,
            size,
            x.requested,
            x.answered_per_sweep,
            x.sweeps,
            x.bytes_sent(),
            x.bytes_sent() as f64 / s.positions.max(1) as f64,
            x.exchange_seconds,
            x.wait_seconds,
            if x.resumed_at > 0 {
                format!(" (resumed from the checkpoints of step {})", x.resumed_at)
            } else {
                String::new()
            }
        );
    }
}
