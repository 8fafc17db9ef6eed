//! The endgame tables as reports: a layer built, a position probed, the layers listed, and
//! a layer verified (on samples, against exact search, or whole and exact). The build and
//! the checks themselves are `hoyito-tables`'; progress bars are a front's.

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{Position6, Rules, Side};
use hoyito_search::{Config, Limits, Searcher};
use hoyito_tables::{FullCheck, FullFault, LayerStats, TableKey, Tables};
use serde::Serialize;

use crate::draw::{side_name, RulesReport};
use crate::setup::{open_tables, peak_mib};

/// Opens the layers of at most `max_seeds` seeds (all with `usize::MAX`); none is an error.
pub fn open_layers(rules: &Rules, dir: &Path, max_seeds: usize) -> Result<Tables> {
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

/// A layer built, as the build reports it when the layer is done.
#[derive(Serialize)]
pub struct LayerReport {
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
    /// The report of a layer built.
    pub fn of(s: &LayerStats) -> Self {
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
            peak_memory_bytes: peak_mib().map(|m| m << 20),
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

/// A move and its value in a probe report.
#[derive(Serialize)]
pub struct MoveValueReport {
    #[serde(rename = "move")]
    mv: u8,
    value: i32,
    capture: bool,
}

/// A position probed.
#[derive(Serialize)]
pub struct ProbeReport {
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
/// The exact value and the best moves of `p` from the tables.
pub fn probe(tables: &Tables, p: &Position6) -> Result<ProbeReport> {
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

/// How many positions of a layer have one value.
#[derive(Serialize)]
pub struct ValueCount {
    value: i64,
    positions: u64,
}

/// A layer in an [`InfoReport`].
#[derive(Serialize)]
pub struct InfoLayer {
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

/// The layers built for a set of rules.
#[derive(Serialize)]
pub struct InfoReport {
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

/// The layers built for `rules` in `dir`.
pub fn info(rules: &Rules, dir: &Path) -> Result<InfoReport> {
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
    Ok(InfoReport {
        rules: RulesReport::of(rules),
        folder: folder.display().to_string(),
        layers,
        rules_line: rules.to_string(),
    })
}

/// What exact search said about a sample of a layer.
#[derive(Serialize)]
pub struct SearchCheck {
    agree: u64,
    differ: Vec<String>,
    unfinished: u64,
    skipped: u64,
    ms_each: u64,
}

/// A layer verified on samples.
#[derive(Serialize)]
pub struct VerifyReport {
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

/// Verifies layer `seeds` of `tables` (read from `dir`): `samples` positions spread over
/// it checked against their moves, and `search` of them (0: none) solved by exact search
/// over the smaller layers only, `search_ms` milliseconds each.
pub fn verify_layer(
    rules: &Rules,
    dir: &Path,
    tables: &Tables,
    seeds: usize,
    samples: u64,
    (search, search_ms): (u64, u64),
) -> Result<VerifyReport> {
    let t0 = Instant::now();
    let (checked, bad) = tables.verify_layer(seeds, samples);
    let search = if search > 0 {
        Some(search_check(
            rules,
            dir,
            tables,
            seeds,
            (search, search_ms),
        )?)
    } else {
        None
    };
    Ok(VerifyReport {
        seeds,
        checked,
        failed: bad,
        seconds: t0.elapsed().as_secs_f64(),
        search,
    })
}

impl VerifyReport {
    /// Stored values found wrong: against their moves, or against exact search.
    pub fn wrong(&self) -> usize {
        self.failed.len() + self.search.as_ref().map_or(0, |s| s.differ.len())
    }
}

/// The first wrong value a whole check found in a layer.
#[derive(Serialize)]
pub struct FullFailureReport {
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

/// A layer verified whole: every value agrees with its moves and is forced.
#[derive(Serialize)]
pub struct FullReport {
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
    /// The report of a layer checked whole.
    pub fn of(c: &FullCheck) -> Self {
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

/// Solves `search` positions of layer `n` by exact search that stops at the layers below
/// `n` (none for the smallest), in parallel, one thread a search, and compares.
fn search_check(
    rules: &Rules,
    dir: &Path,
    tables: &Tables,
    n: usize,
    (search, search_ms): (u64, u64),
) -> Result<SearchCheck> {
    use rayon::prelude::*;
    let lower = open_tables(rules, dir, n.saturating_sub(1))?;
    let lower = (lower.max_seeds() > 0).then(|| Arc::new(lower));
    let limits = Limits {
        time: Some(Duration::from_millis(search_ms)),
        ..Limits::exact()
    };
    let samples = tables.sample(n, search);
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
        ms_each: search_ms,
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
