//! `solve check-proof` and `solve check-tables`: check a proof certificate, and verify
//! endgame tables, with the independent checker of `crates/check` (its own rules, index and
//! table reader; none of the engine's code), through the library's `checking` module.

use anyhow::Result;
use hoyito::check::Progress;
use hoyito::checking::{check_proof, check_tables, Layers};

use crate::cli::{CheckProofArgs, CheckTablesArgs, RuleArgs};
use crate::common::{emit, resolve};

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
    let progress = PassLines { quiet: a.quiet };
    emit(&check_tables(&a.dir, &rules, which, &progress)?, json)
}
