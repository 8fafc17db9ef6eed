//! `solve check-proof` and `solve check-tables`: check a proof certificate, and verify
//! endgame tables, with the independent checker of `crates/check` (its own rules, index and
//! table reader; none of the engine's code), through the library's `checking` module.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use hoyito::check::{Progress, Resume};
use hoyito::checking::{check_proof, check_tables, Layers};

use crate::cli::{CheckProofArgs, CheckTablesArgs, RuleArgs};
use crate::common::{emit, resolve, stop_flag, Spinner};

/// Runs `solve check-proof`. A rejected certificate is an error naming the failing entry.
pub fn run(json: bool, a: &CheckProofArgs) -> Result<()> {
    let progress = PassLines { quiet: a.quiet };
    let report = check_proof(
        &a.certificate,
        a.tables.as_deref(),
        a.verify_tables,
        &progress,
    )?;
    emit(&report, json)
}

/// Prints a line on standard error at the end of each pass (unless quiet).
struct PassLines {
    quiet: bool,
}

impl Progress for PassLines {
    fn pass_end(&self, seeds: usize, pass: u32, grounded: u64, open: u64) {
        if !self.quiet {
            eprintln!("layer {seeds}: pass {pass}: {grounded} values shown forced, {open} open");
        }
    }
}

/// Runs `solve check-tables`. A wrong value is an error naming the position.
pub fn tables(rules_args: &RuleArgs, json: bool, a: &CheckTablesArgs) -> Result<()> {
    let (rules, _) = resolve(rules_args, None)?;
    let which = match (a.layer, a.max_seeds) {
        (Some(n), _) => Layers::One(n),
        (None, Some(n)) => Layers::UpTo(n),
        (None, None) => Layers::All,
    };
    if a.time_limit == Some(0) {
        bail!("--time-limit must be at least 1 second");
    }
    if a.save_every == 0 {
        bail!("--save-every must be at least 1 second");
    }
    let stop = stop_flag();
    let resume = Resume {
        state: a.state.clone(),
        save_every: a.state.as_ref().map(|_| Duration::from_secs(a.save_every)),
        stop: Some(&stop),
        deadline: a
            .time_limit
            .map(|s| Instant::now() + Duration::from_secs(s)),
    };
    let progress = PassProgress::new(a.quiet)?;
    let out = check_tables(&a.dir, &rules, which, &progress, &resume);
    progress.finish();
    emit(&out?, json)
}

/// The progress of a table check on stderr: the share of the current pass visited, its
/// speed and the time left, and a line at the end of each pass (nothing when quiet).
struct PassProgress {
    lines: PassLines,
    spinner: Mutex<Option<Spinner>>,
    /// The current layer and pass, the positions it visits and has visited, and its start.
    seeds: AtomicUsize,
    pass: AtomicUsize,
    of: AtomicU64,
    visited: AtomicU64,
    started: Mutex<(Instant, u64)>,
}

impl PassProgress {
    fn new(quiet: bool) -> Result<PassProgress> {
        Ok(PassProgress {
            lines: PassLines { quiet },
            spinner: Mutex::new(if quiet { None } else { Some(Spinner::new()?) }),
            seeds: AtomicUsize::new(0),
            pass: AtomicUsize::new(0),
            of: AtomicU64::new(0),
            visited: AtomicU64::new(0),
            started: Mutex::new((Instant::now(), 0)),
        })
    }

    fn finish(&self) {
        if let Some(s) = self
            .spinner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            s.finish();
        }
    }
}

impl Progress for PassProgress {
    fn pass_start(&self, seeds: usize, pass: u32, positions: u64) {
        self.seeds.store(seeds, Relaxed);
        self.pass.store(pass as usize, Relaxed);
        self.of.store(positions, Relaxed);
        self.visited.store(0, Relaxed);
        *self.started.lock().unwrap_or_else(|e| e.into_inner()) = (Instant::now(), 0);
    }

    fn advance(&self, positions: u64) {
        let visited = self.visited.fetch_add(positions, Relaxed) + positions;
        let guard = self.spinner.lock().unwrap_or_else(|e| e.into_inner());
        let Some(spinner) = guard.as_ref() else {
            return;
        };
        let mut started = self.started.lock().unwrap_or_else(|e| e.into_inner());
        if started.1 == 0 && visited > positions {
            // A resumed pass: its speed counts from the first positions visited now.
            *started = (Instant::now(), visited);
        }
        let (at, from) = *started;
        drop(started);
        let of = self.of.load(Relaxed).max(1);
        spinner.say(|| {
            let secs = at.elapsed().as_secs_f64();
            let rate = (visited - from.min(visited)) as f64 / secs.max(1e-9);
            let left = if rate > 0.0 {
                format!(
                    ", about {} left in the pass",
                    duration_words(of.saturating_sub(visited) as f64 / rate)
                )
            } else {
                String::new()
            };
            format!(
                "layer {}, pass {}: {:.1}% of {} positions, {:.2} M/s{left}",
                self.seeds.load(Relaxed),
                self.pass.load(Relaxed),
                100.0 * visited as f64 / of as f64,
                of,
                rate / 1e6
            )
        });
    }

    fn pass_end(&self, seeds: usize, pass: u32, grounded: u64, open: u64) {
        self.lines.pass_end(seeds, pass, grounded, open);
    }
}

/// A duration in words: seconds under two minutes, else minutes, else hours and minutes.
fn duration_words(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..=119 => format!("{s} s"),
        120..=5399 => format!("{} min", (s + 30) / 60),
        _ => {
            let m = (s + 30) / 60;
            format!("{} h {:02} min", m / 60, m % 60)
        }
    }
}
