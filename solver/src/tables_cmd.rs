//! The endgame table subcommands: `solve tables build | probe | info | verify`.

use std::io::BufRead as _;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand};
use hoyito_rules::{Position6, Rules, Side};
use hoyito_tables::{BuildOptions, LayerStats, Method, Progress, TableKey, Tables};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use crate::cli::{print_json, resolve, RuleArgs};
use crate::rules_cmd::{rules_json, with_threads};

/// Where tables live unless `--dir` says otherwise (ignored by git).
pub const DEFAULT_DIR: &str = "data/tables";

/// Arguments of `solve tables`.
#[derive(Args, Debug)]
pub struct TablesArgs {
    /// Folder of the tables; each set of rules has its own subfolder.
    #[arg(long, global = true, default_value = DEFAULT_DIR)]
    pub dir: PathBuf,

    #[command(subcommand)]
    pub command: TablesCommand,
}

/// The table subcommands.
#[derive(Subcommand, Debug)]
pub enum TablesCommand {
    /// Build the tables of every layer up to --max-seeds seeds on the board, smallest first.
    /// Layers already built are kept, so a stopped build resumes where it was.
    Build(BuildArgs),
    /// Print the exact value and the best moves of positions.
    Probe(ProbeArgs),
    /// List the layers built for the rules: positions, file sizes, sweeps, value counts.
    Info,
    /// Check on a sample of each layer that every stored value equals the best over the
    /// position's moves.
    Verify(VerifyArgs),
}

/// Arguments of `solve tables build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// Largest number of seeds on the board to build (layers below it step by 4).
    #[arg(long)]
    pub max_seeds: usize,
    /// Threads [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// How each layer reaches its fixpoint: `auto` sweeps the layer twice, the second time
    /// also writing its moves reversed to scratch files beside the tables (about 23 bytes a
    /// position), then evaluates only the predecessors of changed positions, round after
    /// round (small layers, and layers whose bounds leave no spare bits, are swept to the
    /// end); `sweeps` sweeps the whole layer until nothing changes (no scratch files, about
    /// 8 times slower).
    #[arg(long, default_value = "auto", value_parser = ["auto", "sweeps"])]
    pub method: String,
    /// With `auto`, write the moves in this sweep instead of the second.
    #[arg(long)]
    pub moves_at_sweep: Option<u32>,
}

/// Arguments of `solve tables probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// Positions to probe; `-` reads one position a line from standard input.
    #[arg(required = true, num_args = 1..)]
    pub positions: Vec<String>,
}

/// Arguments of `solve tables verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Positions checked per layer, spread evenly over its index.
    #[arg(long, default_value_t = 100_000)]
    pub samples: u64,
    /// Also solve this many positions of each layer by exact search that uses only the
    /// smaller layers, and compare with the stored values: an independent check, which also
    /// catches values that agree with their moves but are wrong on cycles.
    #[arg(long, default_value_t = 0)]
    pub search: u64,
    /// Time limit of each of those searches in milliseconds; a search that does not finish
    /// in time is counted as unfinished, not compared.
    #[arg(long, default_value_t = 2000)]
    pub search_ms: u64,
    /// Check only the layer of this many seeds on the board.
    #[arg(long)]
    pub layer: Option<usize>,
}

/// Runs `solve tables ...`.
pub fn run(rules_args: &RuleArgs, json: bool, a: &TablesArgs) -> Result<()> {
    let (rules, _) = resolve(rules_args, None)?;
    match &a.command {
        TablesCommand::Build(b) => build(&rules, &a.dir, json, b),
        TablesCommand::Probe(p) => probe(rules_args, &a.dir, json, p),
        TablesCommand::Info => info(&rules, &a.dir, json),
        TablesCommand::Verify(v) => verify(&rules, &a.dir, json, v),
    }
}

/// Progress bars over the sweeps of each layer.
struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    positions: Mutex<u64>,
    quiet: bool,
    started: Mutex<Instant>,
    /// Where the tables (and the scratch moves) go.
    dir: PathBuf,
}

impl Bars {
    fn new(quiet: bool, dir: &std::path::Path) -> Self {
        Bars {
            bar: Mutex::new(None),
            positions: Mutex::new(0),
            quiet,
            started: Mutex::new(Instant::now()),
            dir: dir.to_path_buf(),
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
        // A byte a position in memory; in rounds, about 2.9 moves of 8 bytes a position on
        // disk (measured up to 28 seeds).
        let scratch = if rounds { positions * 23 } else { 0 };
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
                "about {} of scratch moves on disk, then rounds",
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
        *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
    }
    fn advance(&self, positions: u64) {
        if let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            b.inc(positions);
        }
    }
    fn round_end(&self, seeds: usize, round: u32, evaluated: u64, changed: u64) {
        if !self.quiet {
            let secs = self.seconds_into_layer();
            eprintln!("layer {seeds:2} round {round:2}: {evaluated} positions evaluated, {changed} changed ({secs:.1} s into the layer)");
        }
    }
    fn sweep_end(&self, seeds: usize, sweep: u32, evaluated: u64, changed: u64) {
        if let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            b.finish_and_clear();
        }
        if !self.quiet {
            let secs = self.seconds_into_layer();
            eprintln!("layer {seeds:2} sweep {sweep:2}: {evaluated} positions evaluated, {changed} changed ({secs:.1} s into the layer)");
        }
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

fn layer_json(s: &LayerStats) -> serde_json::Value {
    json!({
        "seeds": s.seeds,
        "positions": s.positions,
        "sweeps": s.sweeps,
        "rounds": s.rounds,
        "scratch_bytes": s.scratch_bytes,
        "seconds": s.seconds,
        "positions_per_second": s.positions as f64 / s.seconds.max(1e-9),
        "evaluations": s.evaluations,
        "evaluations_per_second": s.evaluations as f64 / s.seconds.max(1e-9),
        "file_bytes": s.file_bytes,
        "working_bytes": s.working_bytes,
        "reused": s.reused,
    })
}

/// Peak resident memory of this process in bytes (Linux), if known.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn build(rules: &Rules, dir: &std::path::Path, json: bool, a: &BuildArgs) -> Result<()> {
    let bars = Bars::new(a.quiet || json, dir);
    struct Report<'a> {
        inner: &'a Bars,
        json: bool,
    }
    impl Progress for Report<'_> {
        fn layer_start(&self, seeds: usize, positions: u64) {
            self.inner.layer_start(seeds, positions)
        }
        fn layer_plan(&self, seeds: usize, positions: u64, rounds: bool) {
            self.inner.layer_plan(seeds, positions, rounds)
        }
        fn sweep_start(&self, seeds: usize, sweep: u32) {
            self.inner.sweep_start(seeds, sweep)
        }
        fn advance(&self, positions: u64) {
            self.inner.advance(positions)
        }
        fn sweep_end(&self, seeds: usize, sweep: u32, evaluated: u64, changed: u64) {
            self.inner.sweep_end(seeds, sweep, evaluated, changed)
        }
        fn round_end(&self, seeds: usize, round: u32, evaluated: u64, changed: u64) {
            self.inner.round_end(seeds, round, evaluated, changed)
        }
        fn layer_done(&self, s: &LayerStats) {
            if self.json {
                let mut v = layer_json(s);
                v["peak_memory_bytes"] = json!(peak_memory());
                print_json(&v);
            } else if s.reused {
                println!(
                    "layer {:2}: {} positions, already built ({} bytes)",
                    s.seeds, s.positions, s.file_bytes
                );
            } else {
                println!(
                    "layer {:2}: {} positions, {} sweeps, {} rounds, {} evaluations, {:.1} s, {:.2} M positions/s, {:.2} M evaluations/s, {} bytes on disk, {} bytes of scratch moves, peak memory {} MB",
                    s.seeds,
                    s.positions,
                    s.sweeps,
                    s.rounds,
                    s.evaluations,
                    s.seconds,
                    s.positions as f64 / s.seconds.max(1e-9) / 1e6,
                    s.evaluations as f64 / s.seconds.max(1e-9) / 1e6,
                    s.file_bytes,
                    s.scratch_bytes,
                    peak_memory().map_or("?".to_string(), |b| (b >> 20).to_string()),
                );
            }
        }
    }
    let report = Report { inner: &bars, json };
    let t0 = Instant::now();
    let options = BuildOptions {
        method: match (a.method.as_str(), a.moves_at_sweep) {
            ("sweeps", _) => Method::Sweeps,
            (_, Some(k)) => Method::MovesAtSweep(k),
            _ => Method::Auto,
        },
    };
    with_threads(a.threads, || {
        hoyito_tables::build_with(dir, rules, a.max_seeds, &options, &report)
    })?
    .with_context(|| format!("building tables in {}", dir.display()))?;
    if !json {
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

/// Opens the layers of at most `max_seeds` seeds (all with `usize::MAX`).
fn open(rules: &Rules, dir: &std::path::Path, max_seeds: usize) -> Result<Tables> {
    let t = Tables::open_up_to(dir, rules, max_seeds)
        .with_context(|| format!("opening the tables in {}", dir.display()))?;
    if t.max_seeds() == 0 {
        bail!(
            "no tables for {} in {} (build them with `solve tables build`)",
            TableKey::of(rules).folder(),
            dir.display()
        );
    }
    Ok(t)
}

fn probe(rules_args: &RuleArgs, dir: &std::path::Path, json: bool, a: &ProbeArgs) -> Result<()> {
    let mut texts: Vec<String> = Vec::new();
    let mut from_stdin = false;
    for p in &a.positions {
        if p == "-" {
            from_stdin = true;
        } else {
            texts.push(p.clone());
        }
    }
    // The board size comes from the first position; every position must share it.
    let first = texts.first().cloned();
    let (rules, _) = resolve(rules_args, first.as_deref())?;
    let tables = open(&rules, dir, usize::MAX)?;
    let one = |text: &str| -> Result<()> {
        let p = Position6::parse(&rules, text.trim())
            .with_context(|| format!("bad position '{}'", text.trim()))?;
        print_probe(&tables, &p, json)
    };
    for t in &texts {
        one(t)?;
    }
    if from_stdin {
        for line in std::io::stdin().lock().lines() {
            let line = line.context("reading standard input")?;
            if line.trim().is_empty() {
                continue;
            }
            one(&line)?;
        }
    }
    Ok(())
}

fn print_probe(tables: &Tables, p: &Position6, json: bool) -> Result<()> {
    let n = p.seeds_on_board();
    let Some(value) = tables.probe(p) else {
        bail!(
            "{p}: {n} seeds on the board, the tables hold up to {}",
            tables.max_seeds()
        );
    };
    let moves = tables.move_values(p).unwrap_or_default();
    // Captures first: see `Tables::best_moves`.
    let best: Vec<u8> = tables
        .best_moves(p)
        .unwrap_or_default()
        .iter()
        .map(|m| m.mv.0)
        .collect();
    if json {
        let mv: Vec<_> = moves
            .iter()
            .map(|m| json!({ "move": m.mv.0, "value": m.value, "capture": m.capture }))
            .collect();
        print_json(&json!({
            "position": p.to_string(),
            "seeds_on_board": n,
            "value": value,
            "best": best,
            "moves": mv,
        }));
    } else {
        let side = match p.side_to_move() {
            Side::South => "South",
            Side::North => "North",
        };
        println!("{p}: value {value} for {side}");
        if moves.is_empty() {
            println!("  no legal move: {side} passes");
        }
        for m in &moves {
            let mut notes = Vec::new();
            if m.value == value {
                notes.push("best");
            }
            if m.capture {
                notes.push("capture");
            }
            let line = format!("  {:>2}  {:>4}  {}", m.mv.0, m.value, notes.join(", "));
            println!("{}", line.trim_end());
        }
    }
    Ok(())
}

fn info(rules: &Rules, dir: &std::path::Path, json: bool) -> Result<()> {
    let headers = Tables::headers(dir, rules)
        .with_context(|| format!("reading the tables in {}", dir.display()))?;
    let layers: Vec<_> = headers
        .iter()
        .map(|(path, h)| {
            let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            let values: Vec<_> = h
                .histogram
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| {
                    let v = (i as i64 - (h.seeds / h.step) as i64) * h.step as i64;
                    json!({ "value": v, "positions": c })
                })
                .collect();
            json!({
                "seeds": h.seeds,
                "positions": h.count,
                "sides_stored": h.sides,
                "bits_per_value": h.bits,
                "file_bytes": bytes,
                "sweeps": h.sweeps,
                "rounds": h.rounds,
                "build_seconds": h.build_millis as f64 / 1000.0,
                "values": values,
                "file": path.display().to_string(),
            })
        })
        .collect();
    let folder = hoyito_tables::key_dir(dir, &TableKey::of(rules));
    if json {
        print_json(&json!({
            "rules": rules_json(rules),
            "folder": folder.display().to_string(),
            "layers": layers,
        }));
        return Ok(());
    }
    println!("{rules}\ntables in {}", folder.display());
    if layers.is_empty() {
        println!("  none built");
    }
    for l in &layers {
        println!(
            "  layer {:2}: {:>13} positions, {:>12} bytes, {} bits a value, {} sweeps, {} rounds, {:.1} s",
            l["seeds"],
            l["positions"],
            l["file_bytes"],
            l["bits_per_value"],
            l["sweeps"],
            l["rounds"],
            l["build_seconds"].as_f64().unwrap_or(0.0)
        );
        let dist: Vec<String> = l["values"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|v| format!("{}: {}", v["value"], v["positions"]))
                    .collect()
            })
            .unwrap_or_default();
        println!("            values {}", dist.join(", "));
    }
    Ok(())
}

fn verify(rules: &Rules, dir: &std::path::Path, json: bool, a: &VerifyArgs) -> Result<()> {
    if a.search_ms == 0 {
        bail!("--search-ms must be at least 1");
    }
    // A layer's check reads only smaller layers besides its own.
    let tables = open(rules, dir, a.layer.unwrap_or(usize::MAX))?;
    let mut failed = 0;
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
    for n in layers {
        let t0 = Instant::now();
        let (checked, bad) = tables.verify_layer(n, a.samples);
        failed += bad.len();
        let searched = if a.search > 0 {
            Some(search_check(rules, dir, &tables, n, a)?)
        } else {
            None
        };
        if let Some(s) = &searched {
            failed += s.differ.len();
        }
        if json {
            let mut v = json!({
                "seeds": n,
                "checked": checked,
                "failed": bad,
                "seconds": t0.elapsed().as_secs_f64(),
            });
            if let Some(s) = &searched {
                v["search"] = json!({
                    "agree": s.agree,
                    "differ": s.differ,
                    "unfinished": s.unfinished,
                    "skipped": s.skipped,
                    "ms_each": a.search_ms,
                });
            }
            print_json(&v);
        } else {
            println!(
                "layer {n:2}: {checked} positions checked, {} wrong",
                bad.len()
            );
            for b in &bad {
                println!("  {b}");
            }
            if let Some(s) = &searched {
                println!(
                    "          exact search with the smaller layers only: {} agree, {} differ, {} unfinished in {} ms, {} skipped (no move to play)",
                    s.agree,
                    s.differ.len(),
                    s.unfinished,
                    a.search_ms,
                    s.skipped
                );
                for d in &s.differ {
                    println!("  {d}");
                }
            }
        }
    }
    if failed > 0 {
        bail!("{failed} stored values disagree with their moves or with search");
    }
    Ok(())
}

/// What exact search said about a sample of a layer.
struct SearchCheck {
    agree: u64,
    differ: Vec<String>,
    unfinished: u64,
    skipped: u64,
}

/// Solves `a.search` positions of layer `n` by exact search that stops at the layers below
/// `n` (none for the smallest), in parallel, one thread a search, and compares.
fn search_check(
    rules: &Rules,
    dir: &std::path::Path,
    tables: &Tables,
    n: usize,
    a: &VerifyArgs,
) -> Result<SearchCheck> {
    use hoyito_search::{Config, Limits, Searcher};
    use rayon::prelude::*;
    use std::sync::Arc;
    let lower = Tables::open_up_to(dir, rules, n.saturating_sub(1))
        .with_context(|| format!("opening the tables in {}", dir.display()))?;
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
                searcher =
                    searcher.with_probe(Box::new(crate::search_cmd::TableProbe(Arc::clone(t))));
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
