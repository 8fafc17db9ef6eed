//! `solve prove`: a proof run of the library, with its progress on stderr (a spinner on a
//! terminal, else a line a minute) and Ctrl-C that stops it with its state kept.

use std::io::IsTerminal as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Result;
use hoyito::proof::{prove as run_proof, ProofControl, ProofOptions, ProofProgress};

use crate::cli::{ProveArgs, RuleArgs};
use crate::common::{emit, progress_every, resolve, stop_flag};

/// `solve prove`.
pub fn prove(rules_args: &RuleArgs, json: bool, a: &ProveArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.position.text().as_deref())?;
    let every = progress_every()?;
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.enable_steady_tick(Duration::from_millis(200));
        b
    });
    let last_line = Mutex::new(Instant::now());
    let progress = |p: &ProofProgress| match &bar {
        Some(b) => b.set_message(p.to_string()),
        None => {
            let mut last = last_line.lock().unwrap_or_else(|e| e.into_inner());
            if last.elapsed() >= every {
                *last = Instant::now();
                eprintln!("[{:.0} s] {p}", p.seconds);
            }
        }
    };
    let control = ProofControl {
        stop: Some(stop_flag()),
        progress: Some(&progress),
    };
    let report = run_proof(&rules, d.as_ref(), &ProofOptions::from(a), &control);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    emit(&report?, json)
}
