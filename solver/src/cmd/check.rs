//! `solve check-proof` and `solve check-tables`: check a proof certificate, and verify
//! endgame tables, with the independent checker of `crates/check` (its own rules, index and
//! table reader; none of the engine's code).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Result};
use hoyito::check::{check_file, check_file_verifying_tables, Kind, LayerReport, Progress};
use serde::Serialize;

use crate::cli::{CheckProofArgs, CheckTablesArgs, RuleArgs};
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
    /// With --verify-tables: every layer the certificate rests on, verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    tables_verified: Option<Vec<LayerOut>>,
    seconds: f64,
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: accepted", self.certificate.display())?;
        writeln!(f, "rules:   {}", self.rules)?;
        match (self.tables_max_seeds, &self.tables_verified) {
            (Some(n), Some(layers)) => {
                writeln!(
                    f,
                    "tables:  up to {n} seeds, every value verified (best over its moves, \
                     forced: the least fixpoint)"
                )?;
                for l in layers {
                    writeln!(f, "         {l}")?;
                }
            }
            (Some(n), None) => writeln!(f, "tables:  up to {n} seeds, read and checksummed")?,
            (None, _) => writeln!(f, "tables:  none")?,
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
    let (report, verified) = if a.verify_tables {
        let progress = PassLines { quiet: a.quiet };
        let (report, verified) =
            check_file_verifying_tables(&a.certificate, a.tables.as_deref(), &progress)?;
        let layers = verified.map(|v| v.layers.iter().map(LayerOut::of).collect());
        (report, layers)
    } else {
        (check_file(&a.certificate, a.tables.as_deref())?, None)
    };
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
        tables_verified: verified,
        seconds: started.elapsed().as_secs_f64(),
    };
    emit(&out, json)
}

/// One verified layer, as `check-tables` and `check-proof --verify-tables` print it.
#[derive(Serialize)]
struct LayerOut {
    seeds: usize,
    positions: u64,
    nonzero: u64,
    /// Nonzero values not yet shown forced after the first pass.
    open_after_first: u64,
    passes: u32,
    evaluations: u64,
    /// The layer's payload checksum, as `solve tables info --json` prints it.
    payload_checksum: String,
    seconds: f64,
}

impl LayerOut {
    fn of(l: &LayerReport) -> LayerOut {
        LayerOut {
            seeds: l.seeds,
            positions: l.positions,
            nonzero: l.nonzero,
            open_after_first: l.open_after_first,
            passes: l.passes,
            evaluations: l.evaluations,
            payload_checksum: format!("{:016x}", l.payload_checksum),
            seconds: l.seconds,
        }
    }
}

impl fmt::Display for LayerOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "layer {:2}: {} positions, {} nonzero ({} open after the first pass), {} passes, \
             {} evaluations, payload {}, {:.1} s",
            self.seeds,
            self.positions,
            self.nonzero,
            self.open_after_first,
            self.passes,
            self.evaluations,
            self.payload_checksum,
            self.seconds
        )
    }
}

/// What `solve check-tables` prints when the tables pass.
#[derive(Serialize)]
struct TablesOut {
    dir: PathBuf,
    rules: String,
    verified: bool,
    /// The layers verified, smallest first.
    layers: Vec<LayerOut>,
    /// Smaller layers read and checksummed but trusted (with --layer).
    trusted: Vec<usize>,
    seconds: f64,
}

impl fmt::Display for TablesOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: verified", self.dir.display())?;
        writeln!(f, "rules:   {}", self.rules)?;
        for l in &self.layers {
            writeln!(f, "{l}")?;
        }
        if !self.trusted.is_empty() {
            let list: Vec<String> = self.trusted.iter().map(|n| n.to_string()).collect();
            writeln!(
                f,
                "trusted: layers {} (read and checksummed, not verified here)",
                list.join(", ")
            )?;
        }
        writeln!(
            f,
            "every value is the best over its moves and forced in finitely many moves \
             ({:.1} s)",
            self.seconds
        )
    }
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

/// The checker's rules of the rule flags (the seeds a hole do not enter the tables).
fn checker_rules(r: &RuleArgs) -> hoyito::check::Rules {
    use hoyito::check::{CaptureSide, LastFour, Variant};
    hoyito::check::Rules {
        holes: r.holes.unwrap_or(6),
        variant: match r.variant {
            hoyito::Variant::Hoyito2 => Variant::Hoyito2,
            hoyito::Variant::Hoyito3 => Variant::Hoyito3,
        },
        last_four: match r.last_four {
            hoyito::LastFour::Capturer => LastFour::Capturer,
            hoyito::LastFour::South => LastFour::South,
            hoyito::LastFour::North => LastFour::North,
        },
        capture_side: match r.capture_side {
            hoyito::CaptureSide::Any => CaptureSide::Any,
            hoyito::CaptureSide::Opponent => CaptureSide::Opponent,
        },
    }
}

/// The largest layer of each chain (seeds modulo 4) in a rules' folder, smallest first.
fn chains(folder: &Path) -> Result<Vec<usize>> {
    let mut largest = [None::<usize>; 4];
    let entries = std::fs::read_dir(folder)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", folder.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(n) = name
            .to_str()
            .and_then(|s| s.strip_prefix("layer-")?.strip_suffix(".hyt"))
            .and_then(|s| s.parse::<usize>().ok())
        else {
            continue;
        };
        if n > 4 {
            let slot = &mut largest[n % 4];
            *slot = Some(slot.map_or(n, |m| m.max(n)));
        }
    }
    let mut out: Vec<usize> = largest.iter().flatten().copied().collect();
    out.sort_unstable();
    Ok(out)
}

/// Runs `solve check-tables`. A wrong value is an error naming the position.
pub fn tables(rules: &RuleArgs, json: bool, a: &CheckTablesArgs) -> Result<()> {
    let started = Instant::now();
    let rules = checker_rules(rules);
    let progress = PassLines { quiet: a.quiet };
    let mut layers = Vec::new();
    let mut trusted = Vec::new();
    if let Some(n) = a.layer {
        if n <= 4 {
            bail!("--layer {n}: layers hold more than 4 seeds");
        }
        layers.push(hoyito::check::verify_layer(&a.dir, &rules, n, &progress)?);
        trusted = (5..n).filter(|m| m % 4 == n % 4).collect();
    } else {
        let tops = match a.max_seeds {
            Some(n) if n <= 4 => bail!("--max-seeds {n}: layers hold more than 4 seeds"),
            Some(n) => vec![n],
            None => {
                let folder = a.dir.join(hoyito::check::tables::folder_name(&rules));
                let tops = chains(&folder)?;
                if tops.is_empty() {
                    bail!("no layer files in {}", folder.display());
                }
                tops
            }
        };
        for top in tops {
            let report = hoyito::check::verify_tables(&a.dir, &rules, top, &progress)?;
            layers.extend(report.layers);
        }
        layers.sort_by_key(|l| l.seeds);
    }
    let out = TablesOut {
        dir: a.dir.clone(),
        rules: rules.to_string(),
        verified: true,
        layers: layers.iter().map(LayerOut::of).collect(),
        trusted,
        seconds: started.elapsed().as_secs_f64(),
    };
    emit(&out, json)
}
