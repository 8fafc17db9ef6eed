//! The endgame table subcommands: `solve tables build | probe | info | verify`.

use std::fmt;
use std::io::{BufRead as _, IsTerminal as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{Position6, Rules, Side};
use hoyito_search::{Config, Limits, Searcher};
use hoyito_tables::{
    layers_up_to, FullCheck, FullFault, FullOptions, LayerStats, Progress, TableKey, Tables,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use crate::cli::{BuildArgs, ProbeArgs, RuleArgs, TablesArgs, TablesCommand, VerifyArgs};
use crate::common::{
    emit, open_tables, resolve, side_name, split_position, with_threads, RulesReport,
};

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
        TablesCommand::Info => info(&rules, &a.dir, json),
        TablesCommand::Verify(v) => verify(&rules, &a.dir, json, v),
    }
}

/// Opens the layers of at most `max_seeds` seeds (all with `usize::MAX`); none is an error.
fn open(rules: &Rules, dir: &Path, max_seeds: usize) -> Result<Tables> {
    let t = open_tables(rules, dir, max_seeds)?;
    if t.max_seeds() == 0 {
        bail!(
            "no tables for {} in {} (build them with `solve tables build`)",
            TableKey::of(rules).folder(),
            dir.display()
        );
    }
    Ok(t)
}

/// A byte count with a decimal unit: `23 MB`, `1.68 GB`.
fn human_bytes(b: f64) -> String {
    match b {
        b if b >= 1e9 => format!("{:.2} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.0} MB", b / 1e6),
        b => format!("{:.0} kB", b / 1e3),
    }
}

/// Peak resident memory of this process in bytes (Linux), if known.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// What `solve tables build` prints for each layer as it is done.
#[derive(Serialize)]
struct LayerReport {
    seeds: usize,
    positions: u64,
    sweeps: u32,
    rounds: u32,
    scratch_bytes: u64,
    /// Reversed moves the rounds read (0 without rounds).
    scratch_moves: u64,
    seconds: f64,
    positions_per_second: f64,
    evaluations: u64,
    evaluations_per_second: f64,
    file_bytes: u64,
    working_bytes: u64,
    reused: bool,
    /// The build's estimate of its peak memory before the layer started (0 when reused).
    memory_estimate_bytes: u64,
    peak_memory_bytes: Option<u64>,
}

impl LayerReport {
    fn of(s: &LayerStats) -> Self {
        LayerReport {
            seeds: s.seeds,
            positions: s.positions,
            sweeps: s.sweeps,
            rounds: s.rounds,
            scratch_bytes: s.scratch_bytes,
            scratch_moves: s.scratch_moves,
            seconds: s.seconds,
            positions_per_second: s.positions as f64 / s.seconds.max(1e-9),
            evaluations: s.evaluations,
            evaluations_per_second: s.evaluations as f64 / s.seconds.max(1e-9),
            file_bytes: s.file_bytes,
            working_bytes: s.working_bytes,
            reused: s.reused,
            memory_estimate_bytes: s.memory_estimate,
            peak_memory_bytes: peak_memory(),
        }
    }
}

impl fmt::Display for LayerReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reused {
            return writeln!(
                f,
                "layer {:2}: {} positions, already built ({} bytes)",
                self.seeds, self.positions, self.file_bytes
            );
        }
        writeln!(
            f,
            "layer {:2}: {} positions, {} sweeps, {} rounds, {} evaluations, {:.1} s, {:.2} M positions/s, {:.2} M evaluations/s, {} bytes on disk, {} bytes of scratch moves ({:.2} moves a position), peak memory {} MB (estimated {} MB)",
            self.seeds,
            self.positions,
            self.sweeps,
            self.rounds,
            self.evaluations,
            self.seconds,
            self.positions_per_second / 1e6,
            self.evaluations_per_second / 1e6,
            self.file_bytes,
            self.scratch_bytes,
            self.scratch_moves as f64 / self.positions.max(1) as f64,
            self.peak_memory_bytes
                .map_or("?".to_string(), |b| (b >> 20).to_string()),
            self.memory_estimate_bytes.div_ceil(1 << 20),
        )
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
            hoyito_tables::scratch_estimate(positions)
        } else {
            0
        };
        let free = hoyito_tables::available_space(&self.dir);
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
    if a.checkpoint_every.is_some() {
        bail!(
            "--checkpoint-every applies to a build over MPI (the `mpi` feature); a build of one \
             process resumes at the first layer not written"
        );
    }
    #[cfg(not(feature = "mpi"))]
    for (flag, given) in [
        ("--copy-whole-from", a.copy_whole_from.is_some()),
        ("--answer-step-kib", a.answer_step_kib.is_some()),
    ] {
        if given {
            bail!("{flag} applies to a build over MPI (the `mpi` feature)");
        }
    }
    #[cfg(not(feature = "mpi"))]
    let report = {
        use crate::common::available_mib;
        let bars = Bars::new(a.quiet, json, dir)?.stopping();
        // The flag and what the machine has available now, the smaller (none where unknown).
        let max_memory = [a.max_memory, available_mib()]
            .into_iter()
            .flatten()
            .min()
            .map(|mib| mib << 20);
        let options = hoyito_tables::BuildOptions {
            method: a.method(),
            max_memory,
        };
        with_threads(a.threads, || {
            hoyito_tables::build_with(dir, rules, a.max_seeds, &options, &bars)
        })?
        .with_context(|| format!("building tables in {}", dir.display()))?;
        true
    };
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

/// `solve tables build` over the processes that `mpirun` started (the `mpi` feature): each
/// layer split over them and swept (see `hoyito_tables::build_distributed`). Rank 0 reports
/// and writes; the others are silent. Returns whether this process reports. A process that
/// fails says so and ends the whole job, as MPI programs do.
#[cfg(feature = "mpi")]
fn build_mpi(rules: &Rules, dir: &Path, json: bool, a: &BuildArgs) -> Result<bool> {
    use hoyito_tables::mpi::environment::Threading;
    use hoyito_tables::mpi::traits::Communicator;

    if a.max_memory.is_some() {
        bail!("--max-memory is not checked in a build over MPI (each process holds its layer)");
    }
    crate::common::check_threads(a.threads)?;
    // Only the main thread calls MPI; the sweeps' threads never do.
    let (universe, _) = hoyito_tables::mpi::initialize_with_threading(Threading::Funneled)
        .context("cannot start MPI")?;
    let world = universe.world();
    // A process that panics ends the whole job, as an error does: the others would wait for
    // it at the next exchange forever.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        hoyito_tables::mpi::topology::SimpleCommunicator::world().abort(101);
    }));
    let (rank, size) = (world.rank(), world.size());
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("cannot start the thread pool")?;
    }
    let bars = Bars::new(a.quiet, json, dir)?;
    let quiet = hoyito_tables::Quiet;
    let progress: &dyn Progress = if rank == 0 { &bars } else { &quiet };
    let options = hoyito_tables::BuildOptions {
        method: a.method(),
        max_memory: None,
    };
    let defaults = hoyito_tables::MpiOptions::default();
    let mpi = hoyito_tables::MpiOptions {
        checkpoint_every: a
            .checkpoint_every
            .map_or(defaults.checkpoint_every, std::time::Duration::from_secs),
        copy_whole_from: a.copy_whole_from.unwrap_or(defaults.copy_whole_from),
        answer_step: match a.answer_step_kib {
            Some(0) => bail!("--answer-step-kib must be at least 1"),
            Some(k) => usize::try_from(k.saturating_mul(1024)).unwrap_or(usize::MAX),
            None => defaults.answer_step,
        },
    };
    match hoyito_tables::build_distributed(
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

/// A move and its value in a probe report.
#[derive(Serialize)]
struct MoveValueReport {
    #[serde(rename = "move")]
    mv: u8,
    value: i32,
    capture: bool,
}

/// What `solve tables probe` prints for each position.
#[derive(Serialize)]
struct ProbeReport {
    position: String,
    seeds_on_board: u32,
    value: i32,
    best: Vec<u8>,
    moves: Vec<MoveValueReport>,
    #[serde(skip)]
    side: Side,
}

impl fmt::Display for ProbeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = side_name(self.side);
        writeln!(f, "{}: value {} for {side}", self.position, self.value)?;
        if self.moves.is_empty() {
            writeln!(f, "  no legal move: {side} passes")?;
        }
        for m in &self.moves {
            let mut notes = Vec::new();
            if m.value == self.value {
                notes.push("best");
            }
            if m.capture {
                notes.push("capture");
            }
            let line = format!("  {:>2}  {:>4}  {}", m.mv, m.value, notes.join(", "));
            writeln!(f, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

/// The report of one position, or an error when it lies beyond the tables.
fn probe_report(tables: &Tables, p: &Position6) -> Result<ProbeReport> {
    let n = p.seeds_on_board();
    let Some(value) = tables.probe(p) else {
        bail!(
            "{p}: {n} seeds on the board, the tables hold up to {}",
            tables.max_seeds()
        );
    };
    let moves = tables.move_values(p).unwrap_or_default();
    // Captures first: see `Tables::best_moves`.
    let best = tables
        .best_moves(p)
        .unwrap_or_default()
        .iter()
        .map(|m| m.mv.0)
        .collect();
    Ok(ProbeReport {
        position: p.to_string(),
        seeds_on_board: n,
        value,
        best,
        moves: moves
            .iter()
            .map(|m| MoveValueReport {
                mv: m.mv.0,
                value: m.value,
                capture: m.capture,
            })
            .collect(),
        side: p.side_to_move(),
    })
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
    let tables = open(&rules, dir, usize::MAX)?;
    for p in &given {
        emit(&probe_report(&tables, p)?, json)?;
    }
    if from_stdin {
        for line in std::io::stdin().lock().lines() {
            let line = line.context("reading standard input")?;
            if line.trim().is_empty() {
                continue;
            }
            emit(&probe_report(&tables, &parse(&line)?)?, json)?;
        }
    }
    Ok(())
}

/// How many positions of a layer have one value.
#[derive(Serialize)]
struct ValueCount {
    value: i64,
    positions: u64,
}

/// A layer in `solve tables info`.
#[derive(Serialize)]
struct InfoLayer {
    seeds: usize,
    positions: u64,
    sides_stored: usize,
    bits_per_value: u8,
    file_bytes: u64,
    sweeps: u32,
    rounds: u32,
    build_seconds: f64,
    values: Vec<ValueCount>,
    /// The checksum of the stored values (equal for equal values, however they were built).
    payload_checksum: String,
    file: String,
}

/// What `solve tables info` prints.
#[derive(Serialize)]
struct InfoReport {
    rules: RulesReport,
    folder: String,
    layers: Vec<InfoLayer>,
    #[serde(skip)]
    rules_line: String,
}

impl fmt::Display for InfoReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}\ntables in {}", self.rules_line, self.folder)?;
        if self.layers.is_empty() {
            writeln!(f, "  none built")?;
        }
        for l in &self.layers {
            writeln!(
                f,
                "  layer {}: {} positions, {} bytes, {} bits a value, {} sweeps, {} rounds, {:.1} s",
                l.seeds, l.positions, l.file_bytes, l.bits_per_value, l.sweeps, l.rounds, l.build_seconds
            )?;
            let dist: Vec<String> = l
                .values
                .iter()
                .map(|v| format!("{}: {}", v.value, v.positions))
                .collect();
            writeln!(f, "            values {}", dist.join(", "))?;
        }
        Ok(())
    }
}

fn info(rules: &Rules, dir: &Path, json: bool) -> Result<()> {
    let headers = Tables::headers(dir, rules)
        .with_context(|| format!("reading the tables in {}", dir.display()))?;
    let layers = headers
        .iter()
        .map(|(path, h)| InfoLayer {
            seeds: h.seeds,
            positions: h.count,
            sides_stored: h.sides,
            bits_per_value: h.bits,
            file_bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
            sweeps: h.sweeps,
            rounds: h.rounds,
            build_seconds: h.build_millis as f64 / 1000.0,
            payload_checksum: format!("{:016x}", h.payload_checksum),
            values: h
                .histogram
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| ValueCount {
                    value: (i as i64 - (h.seeds / h.step) as i64) * h.step as i64,
                    positions: c,
                })
                .collect(),
            file: path.display().to_string(),
        })
        .collect();
    let folder = hoyito_tables::key_dir(dir, &TableKey::of(rules));
    let report = InfoReport {
        rules: RulesReport::of(rules),
        folder: folder.display().to_string(),
        layers,
        rules_line: rules.to_string(),
    };
    emit(&report, json)
}

/// What exact search said about a sample of a layer.
#[derive(Serialize)]
struct SearchCheck {
    agree: u64,
    differ: Vec<String>,
    unfinished: u64,
    skipped: u64,
    ms_each: u64,
}

/// What `solve tables verify` prints for each layer.
#[derive(Serialize)]
struct VerifyReport {
    seeds: usize,
    checked: u64,
    failed: Vec<String>,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    search: Option<SearchCheck>,
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "layer {:2}: {} positions checked, {} wrong",
            self.seeds,
            self.checked,
            self.failed.len()
        )?;
        for b in &self.failed {
            writeln!(f, "  {b}")?;
        }
        if let Some(s) = &self.search {
            writeln!(
                f,
                "          exact search with the smaller layers only: {} agree, {} differ, {} unfinished in {} ms, {} skipped (no move to play)",
                s.agree,
                s.differ.len(),
                s.unfinished,
                s.ms_each,
                s.skipped
            )?;
            for d in &s.differ {
                writeln!(f, "  {d}")?;
            }
        }
        Ok(())
    }
}

fn verify(rules: &Rules, dir: &Path, json: bool, a: &VerifyArgs) -> Result<()> {
    if a.full {
        return verify_full(rules, dir, json, a);
    }
    if a.search_ms == 0 {
        bail!("--search-ms must be at least 1");
    }
    // A layer's check reads only smaller layers besides its own.
    let tables = open(rules, dir, a.layer.unwrap_or(usize::MAX))?;
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
        let t0 = Instant::now();
        let (checked, bad) = tables.verify_layer(seeds, a.samples);
        let search = if a.search > 0 {
            Some(search_check(rules, dir, &tables, seeds, a)?)
        } else {
            None
        };
        failed += bad.len() + search.as_ref().map_or(0, |s| s.differ.len());
        let report = VerifyReport {
            seeds,
            checked,
            failed: bad,
            seconds: t0.elapsed().as_secs_f64(),
            search,
        };
        emit(&report, json)?;
    }
    if failed > 0 {
        bail!("{failed} stored values disagree with their moves or with search");
    }
    Ok(())
}

/// The first wrong value `solve tables verify --full` found in a layer.
#[derive(Serialize)]
struct FullFailureReport {
    position: String,
    index: u64,
    stored: i32,
    /// `range`, `moves` or `not_forced`.
    fault: &'static str,
    /// With `moves`: the best over the position's moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<i32>,
    /// Positions of the layer with the same fault.
    count: u64,
    message: String,
}

/// What `solve tables verify --full` prints for each layer.
#[derive(Serialize)]
struct FullReport {
    seeds: usize,
    positions: u64,
    nonzero: u64,
    sweeps: u32,
    rounds: u32,
    evaluations: u64,
    seconds: f64,
    positions_per_second: f64,
    exact: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<FullFailureReport>,
}

impl FullReport {
    fn of(c: &FullCheck) -> Self {
        FullReport {
            seeds: c.seeds,
            positions: c.positions,
            nonzero: c.nonzero,
            sweeps: c.sweeps,
            rounds: c.rounds,
            evaluations: c.evaluations,
            seconds: c.seconds,
            positions_per_second: c.positions as f64 / c.seconds.max(1e-9),
            exact: c.passed(),
            failure: c.failure.as_ref().map(|f| FullFailureReport {
                position: f.position.to_string(),
                index: f.index,
                stored: f.stored,
                fault: match f.fault {
                    FullFault::OutOfRange => "range",
                    FullFault::Moves { .. } => "moves",
                    FullFault::NotForced => "not_forced",
                },
                expected: match f.fault {
                    FullFault::Moves { expected } => Some(expected),
                    _ => None,
                },
                count: f.count,
                message: f.to_string(),
            }),
        }
    }
}

impl fmt::Display for FullReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.exact {
            "every value agrees with its moves and every nonzero value is forced: exact"
        } else {
            "WRONG"
        };
        writeln!(
            f,
            "layer {:2}: {} positions checked, {} nonzero, {verdict} ({} sweeps, {} rounds, {} evaluations, {:.1} s, {:.2} M positions/s)",
            self.seeds,
            self.positions,
            self.nonzero,
            self.sweeps,
            self.rounds,
            self.evaluations,
            self.seconds,
            self.positions_per_second / 1e6
        )?;
        if let Some(bad) = &self.failure {
            writeln!(f, "  {}", bad.message)?;
        }
        Ok(())
    }
}

/// `solve tables verify --full`: every position of every layer (or of `--layer`), smallest
/// first, checked against its moves and for the least fixpoint.
fn verify_full(rules: &Rules, dir: &Path, json: bool, a: &VerifyArgs) -> Result<()> {
    let max = a.layer.or(a.max_seeds).unwrap_or(usize::MAX);
    let tables = open(rules, dir, max)?;
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

/// Solves `a.search` positions of layer `n` by exact search that stops at the layers below
/// `n` (none for the smallest), in parallel, one thread a search, and compares.
fn search_check(
    rules: &Rules,
    dir: &Path,
    tables: &Tables,
    n: usize,
    a: &VerifyArgs,
) -> Result<SearchCheck> {
    use rayon::prelude::*;
    let lower = open_tables(rules, dir, n.saturating_sub(1))?;
    let lower = (lower.max_seeds() > 0).then(|| Arc::new(lower));
    let limits = Limits {
        time: Some(Duration::from_millis(a.search_ms)),
        ..Limits::exact()
    };
    let samples = tables.sample(n, a.search);
    // Per position: `None` when it has no move to play, else the search's score and the
    // stored value when the search finished.
    let results: Vec<Option<Option<(i32, i32)>>> = samples
        .par_iter()
        .map(|&(p, stored)| {
            if !p.has_legal_move(rules) {
                return None;
            }
            let config = Config {
                hash_mb: 16,
                ..Config::default()
            };
            let mut searcher = Searcher::<2>::new(*rules, config);
            if let Some(t) = &lower {
                searcher = searcher.with_probe(Box::new(Arc::clone(t)));
            }
            let r = searcher.search(&p, &limits);
            Some(r.exact.then_some((r.score, stored)))
        })
        .collect();
    let mut check = SearchCheck {
        agree: 0,
        differ: Vec::new(),
        unfinished: 0,
        skipped: 0,
        ms_each: a.search_ms,
    };
    for ((p, _), r) in samples.iter().zip(results) {
        match r {
            None => check.skipped += 1,
            Some(None) => check.unfinished += 1,
            Some(Some((found, stored))) if found == stored => check.agree += 1,
            Some(Some((found, stored))) => check
                .differ
                .push(format!("{p}: stored {stored}, exact search {found}")),
        }
    }
    Ok(check)
}
