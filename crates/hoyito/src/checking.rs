//! The independent checker (`hoyito-check`, which shares no code with the engine) as
//! reports: a proof certificate checked ([`check_proof`]), with the tables it rests on
//! verified too where asked, and endgame tables verified layer by layer
//! ([`check_tables`]): every stored value the best over its moves and forced in finitely
//! many moves (the least fixpoint).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Result};
use hoyito_check::{check_file, check_file_verifying_tables, Kind, LayerReport, Progress, Resume};
use hoyito_rules::{CaptureSide, LastFour, Rules, Variant};
use serde::Serialize;

/// A root claim the certificate proves.
#[derive(Serialize)]
pub struct RootReport {
    position: String,
    claim: String,
}

/// A certificate accepted by the checker.
#[derive(Serialize)]
pub struct CheckReport {
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
    /// With the tables verified: every layer the certificate rests on, verified.
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

/// The folder of the cache that keeps the checker's records of the cached layers it
/// verified.
pub const CHECKED_DIR: &str = "checked";

/// The cache's tables folder when the certificate rests on tables of at most
/// [`CACHE_PROOF_SEEDS`](crate::cache::CACHE_PROOF_SEEDS) seeds and the cache holds its
/// rules' layers up to there (as the checker reads them).
fn cached_tables_of(certificate: &Path) -> Option<PathBuf> {
    let dir = crate::cache::cache_tables_dir()?;
    let c = hoyito_check::Certificate::read(certificate).ok()?;
    let max_seeds = c.tables.filter(|&n| n <= crate::cache::CACHE_PROOF_SEEDS)?;
    hoyito_check::Tables::open(&dir, &c.rules, max_seeds).ok()?;
    Some(dir)
}

/// Checks the certificate `certificate` over the tables folder `tables` (when it rests on
/// tables); with `verify_tables`, every layer it rests on is verified first, `progress`
/// told of each pass. A certificate on tables of at most
/// [`CACHE_PROOF_SEEDS`](crate::cache::CACHE_PROOF_SEEDS) seeds given no folder is checked over
/// the user's cache, whose layers are verified first (see [`cache`](crate::cache)). A
/// rejected certificate is an error naming the failing entry.
pub fn check_proof(
    certificate: &Path,
    tables: Option<&Path>,
    verify_tables: bool,
    progress: &dyn Progress,
) -> Result<CheckReport> {
    let started = Instant::now();
    // A certificate on small tables, given no folder: the user's cache (where `prove`
    // without table files put them), verified by the checker itself, since the engine
    // built them.
    // The checker's records of the cached layers it verified are kept in the cache too
    // (`checked`), so that it verifies each layer once, not at every check; a record names
    // the checksums of the files it was made over, and is not used for others.
    let mut verify_tables = verify_tables;
    let mut tables = tables.map(Path::to_path_buf);
    let mut resume = Resume::none();
    if tables.is_none() {
        if let Some(dir) = cached_tables_of(certificate) {
            tables = Some(dir);
            verify_tables = true;
            resume.state = crate::cache::cache_root().map(|root| root.join(CHECKED_DIR));
        }
    }
    if let Some(state) = &resume.state {
        if std::fs::create_dir_all(state).is_err() {
            resume.state = None;
        }
    }
    let tables = tables.as_deref();
    let (report, verified) = if verify_tables {
        let (report, verified) =
            check_file_verifying_tables(certificate, tables, progress, &resume)?;
        let layers = verified.map(|v| v.layers.iter().map(LayerOut::of).collect());
        (report, layers)
    } else {
        (check_file(certificate, tables)?, None)
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
    Ok(CheckReport {
        certificate: certificate.to_path_buf(),
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
    })
}

/// Which layers of a tables folder to verify.
#[derive(Clone, Copy, Debug)]
pub enum Layers {
    /// Every layer in the folder, each chain of layers (seeds modulo 4) up to its largest.
    All,
    /// The layers up to this many seeds (it, then 4 fewer, ... above 4).
    UpTo(usize),
    /// Only this layer, over the smaller ones (read and checksummed, their values trusted).
    One(usize),
}

/// Verifies the tables of `rules` in the folder `dir` (one subfolder a set of rules, as the
/// build makes it) with the checker, `progress` told of each pass, stopping and resuming as
/// `resume` says (a stop is an error that says where the state is kept). A wrong value is
/// an error naming the position.
pub fn check_tables(
    dir: &Path,
    rules: &Rules,
    which: Layers,
    progress: &dyn Progress,
    resume: &Resume,
) -> Result<TablesOut> {
    let started = Instant::now();
    let rules = checker_rules(rules);
    let mut layers = Vec::new();
    let mut trusted = Vec::new();
    let tops = match which {
        Layers::One(n) if n <= 4 => {
            return Err(crate::error::bad_option(
                "layer",
                format!("{n}: layers hold more than 4 seeds"),
            ))
        }
        Layers::One(n) => {
            layers.push(hoyito_check::verify_layer_resuming(
                dir, &rules, n, progress, resume,
            )?);
            trusted = (5..n).filter(|m| m % 4 == n % 4).collect();
            Vec::new()
        }
        Layers::UpTo(n) if n <= 4 => {
            return Err(crate::error::bad_option(
                "max_seeds",
                format!("{n}: layers hold more than 4 seeds"),
            ))
        }
        Layers::UpTo(n) => vec![n],
        Layers::All => {
            let folder = dir.join(hoyito_check::tables::folder_name(&rules));
            let tops = chains(&folder)?;
            if tops.is_empty() {
                bail!("no layer files in {}", folder.display());
            }
            tops
        }
    };
    for top in tops {
        let report = hoyito_check::verify_tables_resuming(dir, &rules, top, progress, resume)?;
        layers.extend(report.layers);
    }
    layers.sort_by_key(|l| l.seeds);
    Ok(TablesOut {
        dir: dir.to_path_buf(),
        rules: rules.to_string(),
        verified: true,
        layers: layers.iter().map(LayerOut::of).collect(),
        trusted,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// One verified layer.
#[derive(Serialize)]
pub struct LayerOut {
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
    /// Verified by an earlier run, as the state folder records (not checked again now).
    earlier: bool,
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
            earlier: l.earlier,
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
        )?;
        if self.earlier {
            f.write_str(" (verified by an earlier run, as the state folder records)")?;
        }
        Ok(())
    }
}

/// Tables verified.
#[derive(Serialize)]
pub struct TablesOut {
    dir: PathBuf,
    rules: String,
    verified: bool,
    /// The layers verified, smallest first.
    layers: Vec<LayerOut>,
    /// Smaller layers read and checksummed but trusted (one layer verified alone).
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

/// The checker's own rules of the engine's `r` (the seeds a hole do not enter the tables).
pub fn checker_rules(r: &Rules) -> hoyito_check::Rules {
    hoyito_check::Rules {
        holes: r.holes(),
        variant: match r.variant() {
            Variant::Hoyito2 => hoyito_check::Variant::Hoyito2,
            Variant::Hoyito3 => hoyito_check::Variant::Hoyito3,
        },
        last_four: match r.last_four() {
            LastFour::Capturer => hoyito_check::LastFour::Capturer,
            LastFour::South => hoyito_check::LastFour::South,
            LastFour::North => hoyito_check::LastFour::North,
        },
        capture_side: match r.capture_side() {
            CaptureSide::Any => hoyito_check::CaptureSide::Any,
            CaptureSide::Opponent => hoyito_check::CaptureSide::Opponent,
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
