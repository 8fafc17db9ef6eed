//! `solve prove`: a proof run of the library, with its progress on stderr (a spinner on a
//! terminal, else a line a minute) and Ctrl-C that stops it with its state kept.

use anyhow::Result;
use hoyito::proof::{prove as run_proof, ProofControl, ProofOptions, ProofProgress};

use crate::cli::{ProveArgs, RuleArgs};
use crate::common::{emit, resolve, stop_flag, Spinner};

/// `solve prove`.
pub fn prove(rules_args: &RuleArgs, json: bool, a: &ProveArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.position.text().as_deref())?;
    if !a.no_tables {
        crate::common::say_cache_build(&rules, d.as_ref(), a.tables.as_deref(), true);
    }
    let spinner = Spinner::new()?;
    let progress = |p: &ProofProgress| spinner.say(|| format!("[{:.0} s] {p}", p.seconds));
    let control = ProofControl {
        stop: Some(stop_flag()),
        progress: Some(&progress),
    };
    let report = run_proof(&rules, d.as_ref(), &ProofOptions::from(a), &control);
    spinner.finish();
    emit(&report?, json)
}
