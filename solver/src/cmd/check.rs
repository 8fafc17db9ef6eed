//! `solve check-proof`: checks a proof certificate with the independent checker of
//! `crates/check` (its own rules and table reader; none of the engine's code).

use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use hoyito::check::{check_file, Kind};
use serde::Serialize;

use crate::cli::CheckProofArgs;
use crate::common::emit;

/// A root claim the certificate proves.
#[derive(Serialize)]
struct RootReport {
    position: String,
    claim: String,
}

/// What `solve check-proof` prints when the certificate is accepted.
#[derive(Serialize)]
struct CheckReport {
    certificate: PathBuf,
    accepted: bool,
    /// The rules, as the certificate's header gives them.
    rules: String,
    /// The most seeds of the tables the certificate rests on (none: no tables).
    tables_max_seeds: Option<usize>,
    roots: Vec<RootReport>,
    /// Positions whose value the roots pin down (`ge v` and `le v`), with that value.
    values: Vec<(String, i32)>,
    entries: u64,
    steps: u64,
    table_lookups: u64,
    game_ends: u64,
    seconds: f64,
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: accepted", self.certificate.display())?;
        writeln!(f, "rules:   {}", self.rules)?;
        match self.tables_max_seeds {
            Some(n) => writeln!(f, "tables:  up to {n} seeds, read and checksummed")?,
            None => writeln!(f, "tables:  none")?,
        }
        for r in &self.roots {
            writeln!(f, "proven:  {} {}", r.position, r.claim)?;
        }
        for (position, value) in &self.values {
            writeln!(f, "value:   {position} is worth {value} for South")?;
        }
        writeln!(
            f,
            "checked: {} entries, {} moves and passes, {} table look-ups, {} game ends, {:.2} s",
            self.entries, self.steps, self.table_lookups, self.game_ends, self.seconds
        )
    }
}

/// Runs `solve check-proof`. A rejected certificate is an error naming the failing entry.
pub fn run(json: bool, a: &CheckProofArgs) -> Result<()> {
    let started = Instant::now();
    let report = check_file(&a.certificate, a.tables.as_deref())?;
    let mut values = Vec::new();
    for (p, ge) in &report.roots {
        let pinned = report
            .roots
            .iter()
            .any(|(q, le)| q == p && le.kind == Kind::Le && le.bound == ge.bound);
        if ge.kind == Kind::Ge && pinned {
            values.push((p.to_string(), ge.bound));
        }
    }
    let out = CheckReport {
        certificate: a.certificate.clone(),
        accepted: true,
        rules: report.rules.to_string(),
        tables_max_seeds: report.tables_max_seeds,
        roots: report
            .roots
            .iter()
            .map(|(p, c)| RootReport {
                position: p.to_string(),
                claim: c.to_string(),
            })
            .collect(),
        values,
        entries: report.entries,
        steps: report.steps,
        table_lookups: report.table_lookups,
        game_ends: report.game_ends,
        seconds: started.elapsed().as_secs_f64(),
    };
    emit(&out, json)
}
