//! What a proof run reports: the value proven, the moves, the work done, the certificate
//! written.

use std::fmt;

use hoyito_rules::Child;
use hoyito_search::Explore;
use serde::Serialize;

/// A legal move's proven value, with `--all-moves`.
#[derive(Serialize)]
pub struct MoveValue {
    #[serde(rename = "move")]
    pub(super) mv: u8,
    pub(super) value: i32,
}

/// The certificate written.
#[derive(Serialize)]
pub struct CertificateReport {
    pub(super) path: String,
    pub(super) entries: usize,
    pub(super) bytes: u64,
    pub(super) sha256: String,
    pub(super) seconds: f64,
}

/// The proofs' cache of bounds (`--cache-mb`).
#[derive(Serialize)]
pub struct CacheReport {
    pub(super) limit_mb: u64,
    /// Bounds held at the end.
    pub(super) bounds: u64,
    /// Bounds forgotten to make room (0 unless the cache filled up).
    pub(super) forgotten: u64,
}

/// The answer to `--at-least T`, for the side to move.
#[derive(Serialize)]
pub struct ThresholdReport {
    pub(super) threshold: i32,
    /// Whether the side to move gets at least `threshold` (`None`: stopped before it was
    /// decided).
    pub(super) holds: Option<bool>,
}

/// What a proof run proved.
#[derive(Serialize)]
pub struct ProveReport {
    pub(super) position: String,
    pub(super) rules: String,
    pub(super) tables_max_seeds: usize,
    /// The folder of the tables the proof stands on (give it to the checker).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tables_dir: Option<String>,
    /// The value the proofs started next to (a depth-limited search's), for the side to move.
    pub(super) guess: Option<i32>,
    /// With `--at-least`: the question asked and its proven answer.
    pub(super) at_least: Option<ThresholdReport>,
    /// Whether everything asked is proven: the value, a move that keeps it and, with
    /// `--all-moves`, every move's value; with `--at-least`, its answer (else the run
    /// stopped).
    pub(super) complete: bool,
    /// The proven value for the side to move (`None`: not proven; `bounds` is what was).
    pub(super) value: Option<i32>,
    /// Proven bounds of the value for the side to move.
    pub(super) bounds: [i32; 2],
    /// A move that keeps the value (captures first), proven.
    pub(super) best: Option<u8>,
    pub(super) moves: Option<Vec<MoveValue>>,
    /// How the proofs chose what to explore (`--explore`).
    pub(super) explore: &'static str,
    /// Positions explored by the proofs (this run).
    pub(super) explored: u64,
    /// Threshold proofs finished (this run).
    pub(super) proofs: u64,
    /// Proofs of captures given up at their cap (`--capture-cap`), to be tried again with
    /// a larger one if still needed.
    pub(super) proofs_given_up: u64,
    /// Claims recorded by this run, and taken in from the state of earlier runs.
    pub(super) claims_recorded: u64,
    pub(super) claims_resumed: u64,
    /// The proofs' cache of bounds at the end.
    pub(super) cache: CacheReport,
    /// Positions in the largest graph of a single threshold proof (one stopped included):
    /// what a proof needs in memory grows with it, about 60 bytes a position on 2x6.
    pub(super) largest_graph: u64,
    /// The most memory the run held at once, tables included, in MiB (`None` where the
    /// system does not tell).
    pub(super) peak_memory_mb: Option<u64>,
    pub(super) seconds: f64,
    /// The memory below which the run stops (`--memory-reserve`), in MiB (0: never).
    pub(super) memory_reserve_mb: u64,
    /// Whether the run stopped because the machine's available memory fell below it.
    pub(super) stopped_for_memory: bool,
    /// The state folder, when it is kept.
    pub(super) state: Option<String>,
    pub(super) certificate: Option<CertificateReport>,
}

impl ProveReport {
    /// Whether everything asked is proven.
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// The proven value for the side to move (`None`: not proven).
    pub fn value(&self) -> Option<i32> {
        self.value
    }

    /// Proven bounds of the value for the side to move.
    pub fn bounds(&self) -> [i32; 2] {
        self.bounds
    }

    /// A move that keeps the value, proven.
    pub fn best(&self) -> Option<u8> {
        self.best
    }
}

impl ProveReport {
    /// The answer to `at_least`, for a person.
    fn fmt_threshold(&self, f: &mut fmt::Formatter<'_>, t: &ThresholdReport) -> fmt::Result {
        let (lo, hi) = (self.bounds[0], self.bounds[1]);
        match t.holds {
            Some(true) => writeln!(
                f,
                "at least {}: yes, proven (for the side to move; proven bounds {lo} to {hi})",
                t.threshold
            )?,
            Some(false) => writeln!(
                f,
                "at least {}: no, at most {}, proven (for the side to move; proven bounds {lo} to {hi})",
                t.threshold,
                t.threshold - 1
            )?,
            None => writeln!(
                f,
                "at least {}: not decided, proven bounds {lo} to {hi} (stopped; run again with the same --state to go on)",
                t.threshold
            )?,
        }
        Ok(())
    }
}

impl fmt::Display for ProveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "position: {}", self.position)?;
        writeln!(f, "{}", self.rules)?;
        match self.tables_max_seeds {
            0 => writeln!(f, "tables: none")?,
            n => match &self.tables_dir {
                Some(dir) => writeln!(f, "tables: up to {n} seeds, in {dir}")?,
                None => writeln!(f, "tables: up to {n} seeds")?,
            },
        }
        if let Some(g) = self.guess {
            writeln!(f, "guess: {g}")?;
        }
        if let Some(t) = &self.at_least {
            self.fmt_threshold(f, t)?;
        }
        match self.value {
            _ if self.at_least.is_some() => {}
            Some(v) if !self.complete => writeln!(
                f,
                "value: {v} (proven, for the side to move); stopped before the moves were proven: run again with the same --state to go on"
            )?,
            Some(v) => writeln!(f, "value: {v} (proven, for the side to move)")?,
            None => writeln!(
                f,
                "value: not proven, between {} and {} (stopped; run again with the same --state to go on)",
                self.bounds[0], self.bounds[1]
            )?,
        }
        if let Some(m) = self.best {
            writeln!(f, "best move: {m} (keeps the value, proven)")?;
        }
        if let Some(moves) = &self.moves {
            writeln!(f, "moves:")?;
            for m in moves {
                writeln!(f, "  {}: {}", m.mv, m.value)?;
            }
        }
        writeln!(
            f,
            "explored: {} positions in {} proofs ({}; {} given up at their cap), {:.1} s; claims recorded {} (+{} resumed)",
            self.explored,
            self.proofs,
            self.explore,
            self.proofs_given_up,
            self.seconds,
            self.claims_recorded,
            self.claims_resumed
        )?;
        writeln!(
            f,
            "largest proof graph: {} positions; peak memory: {}",
            self.largest_graph,
            self.peak_memory_mb
                .map_or("unknown".to_string(), |m| format!("{m} MiB"))
        )?;
        let c = &self.cache;
        writeln!(
            f,
            "cache: {} bounds held (at most {} MiB); {}",
            c.bounds,
            c.limit_mb,
            match c.forgotten {
                0 => "it never filled up".to_string(),
                n => format!("{n} forgotten to make room (proven again where needed)"),
            }
        )?;
        if self.stopped_for_memory {
            writeln!(
                f,
                "stopped: the machine's available memory fell below {} MiB (--memory-reserve): a smaller --cache-mb leaves the proofs more room",
                self.memory_reserve_mb
            )?;
        }
        if let Some(s) = &self.state {
            writeln!(f, "state: {s}")?;
        }
        if let Some(c) = &self.certificate {
            writeln!(
                f,
                "certificate: {} ({} entries, {} bytes, sha256 {}, {:.1} s); check it with `solve check-proof {}{}`",
                c.path,
                c.entries,
                c.bytes,
                c.sha256,
                c.seconds,
                c.path,
                match (self.tables_max_seeds, &self.tables_dir) {
                    (1.., Some(dir)) => format!(" --tables {dir}"),
                    _ => String::new(),
                }
            )?;
        }
        Ok(())
    }
}

/// The name of a way of exploring, as the command line spells it.
pub(super) fn explore_name(explore: Explore) -> &'static str {
    match explore {
        Explore::Focused => "focused",
        Explore::Breadth => "breadth",
    }
}

/// Every move's proven value, for the side to move of the position proven.
pub(super) fn move_values<const W: usize>(all: &[(Child<W>, i32)]) -> Vec<MoveValue> {
    all.iter()
        .map(|(c, w)| MoveValue {
            mv: c.mv.0,
            value: c.value(*w),
        })
        .collect()
}
