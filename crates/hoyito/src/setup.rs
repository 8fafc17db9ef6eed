//! What every front needs before its work starts: the position type that fits the rules,
//! threads, the machine's memory, the endgame tables a command asks for, record and opening
//! files, and a small seeded random generator.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{Diagram, Position, Position6, Record, Rules};
use hoyito_tables::Tables;

/// Where the endgame tables live unless a front says otherwise (`data/tables` of the
/// current folder).
pub const DEFAULT_TABLES_DIR: &str = "data/tables";

/// A position of the given size: the diagram checked against the rules, or the start.
pub fn position<const W: usize>(rules: &Rules, diagram: Option<&Diagram>) -> Result<Position<W>> {
    Ok(match diagram {
        Some(d) => Position::<W>::from_diagram(rules, d)?,
        None => Position::<W>::start(rules)?,
    })
}

/// Whether positions of these rules fit the 16-byte type (else the 32-byte one is used).
pub fn small(rules: &Rules) -> bool {
    rules.holes() <= Position6::MAX_HOLES
}

/// Calls a function generic over the position size with the size that fits `rules`:
/// `dispatch!(rules, f(args...))` runs `f::<2>(args...)` for boards up to 2x6 and
/// `f::<4>(args...)` for larger ones.
macro_rules! dispatch {
    ($rules:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        if $crate::setup::small(&$rules) {
            $f::<2>($($arg),*)
        } else {
            $f::<4>($($arg),*)
        }
    };
}
pub(crate) use dispatch;

/// The positions of an opening file: one a line, blank lines and `#` comments skipped; an
/// error names the line of a position that does not parse.
pub fn read_openings(path: &Path) -> Result<Vec<(usize, Diagram)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let d = line
            .parse::<Diagram>()
            .with_context(|| format!("{} line {}: bad position '{line}'", path.display(), k + 1))?;
        out.push((k + 1, d));
    }
    if out.is_empty() {
        bail!("{} holds no opening", path.display());
    }
    Ok(out)
}

/// A small deterministic random generator (splitmix64): the seeded openings of `match`,
/// the seeded choices of `play`.
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Most threads a command may start. A search gains nothing from threads beyond the cores
/// (machines with more than 1024 cores are rare), and each search thread reserves 1 GiB of
/// address space for its stack: 1024 of them fit the 128 TiB of a 64-bit address space many
/// times over, 100 000 do not, and the spawner then fails inside the new thread, where
/// the error cannot be caught. A fixed bound, rather than a multiple of the cores, keeps
/// the same command line valid on every machine.
pub const MAX_THREADS: usize = 1024;

/// Largest `--hash-mb` (64 GiB), whatever the machine.
pub const MAX_HASH_MB: usize = 1 << 16;

/// Checks a `--threads` flag: 1 to [`MAX_THREADS`], or absent.
pub fn check_threads(threads: Option<usize>) -> Result<()> {
    match threads {
        Some(0) => Err(crate::error::bad_option("threads", "must be at least 1")),
        Some(n) if n > MAX_THREADS => Err(crate::error::bad_option(
            "threads",
            format!("must be at most {MAX_THREADS} (the threads a command may start), not {n}"),
        )),
        _ => Ok(()),
    }
}

/// A field of a Linux `/proc` file of `Field:   N kB` lines (`/proc/meminfo`,
/// `/proc/self/status`) in MiB (`None` elsewhere than on Linux, or when it cannot be read).
fn proc_mib(path: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text
        .lines()
        .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// A field of `/proc/meminfo` in MiB.
fn meminfo_mib(field: &str) -> Option<u64> {
    proc_mib("/proc/meminfo", field)
}

/// The most memory this process has held at once so far (its peak resident set), in MiB:
/// `VmHWM` of `/proc/self/status` on Linux, `None` elsewhere or when it cannot be read.
pub fn peak_mib() -> Option<u64> {
    proc_mib("/proc/self/status", "VmHWM")
}

/// The memory the machine can give now, in MiB: `MemAvailable` of `/proc/meminfo` on Linux,
/// `None` elsewhere or when it cannot be read.
pub fn available_mib() -> Option<u64> {
    meminfo_mib("MemAvailable")
}

/// The machine's memory, in MiB: `MemTotal` of `/proc/meminfo` on Linux, `None` elsewhere
/// or when it cannot be read.
pub fn total_mib() -> Option<u64> {
    meminfo_mib("MemTotal")
}

/// Checks that `mib` MiB, which `what` needs, fit the memory the machine can give now
/// (unchecked where that is unknown).
pub fn check_memory(what: &str, mib: u64) -> Result<()> {
    match available_mib() {
        Some(free) if mib > free => {
            bail!("{what} needs {mib} MiB of memory, but the machine has {free} MiB available")
        }
        _ => Ok(()),
    }
}

/// Checks a `--hash-mb` flag used `tables` times at once: 1 to [`MAX_HASH_MB`], and all the
/// tables within the machine's memory.
pub fn check_hash(hash_mb: usize, tables: usize) -> Result<()> {
    if hash_mb == 0 || hash_mb > MAX_HASH_MB {
        return Err(crate::error::bad_option(
            "hash_mb",
            format!("must be between 1 and {MAX_HASH_MB}"),
        ));
    }
    let at_once = if tables == 1 {
        String::new()
    } else {
        format!(" ({tables} tables at once)")
    };
    let need = (hash_mb as u64).saturating_mul(tables as u64);
    match available_mib() {
        Some(free) if need > free => Err(crate::error::bad_option(
            "hash_mb",
            format!(
                "{hash_mb}{at_once} needs {need} MiB of memory, but the machine has {free} MiB \
                 available"
            ),
        )),
        _ => Ok(()),
    }
}

/// Checks `prove --cache-mb`: at least 1, and within the machine's memory (the cache takes
/// its memory only as it fills, so the memory free now does not bound it).
pub fn check_cache(cache_mb: Option<u64>) -> Result<()> {
    if cache_mb == Some(0) {
        return Err(crate::error::bad_option("cache_mb", "must be at least 1"));
    }
    match (cache_mb, total_mib()) {
        (Some(mib), Some(total)) if mib > total => Err(crate::error::bad_option(
            "cache_mb",
            format!("{mib} is more than the machine's memory ({total} MiB)"),
        )),
        _ => Ok(()),
    }
}

/// Checks `prove --memory-reserve`: less than the machine's memory, else the run would stop
/// before it began.
pub fn check_reserve(reserve_mb: Option<u64>) -> Result<()> {
    match (reserve_mb, total_mib()) {
        (Some(mib), Some(total)) if mib >= total => Err(crate::error::bad_option(
            "memory_reserve",
            format!("{mib} is not less than the machine's memory ({total} MiB)"),
        )),
        _ => Ok(()),
    }
}

/// Runs `f` on a rayon pool of `threads` threads (all cores when `None`).
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    check_threads(threads)?;
    match threads {
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .context("cannot start the thread pool")?;
            Ok(pool.install(f))
        }
        None => Ok(f()),
    }
}

/// The threads a search uses: `threads`, else all cores.
pub fn search_threads(threads: Option<usize>) -> Result<usize> {
    check_threads(threads)?;
    Ok(threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())))
}

/// Opens the table layers of at most `max_seeds` seeds (all with `usize::MAX`); a folder
/// without them gives tables of no layer (`max_seeds() == 0`).
pub fn open_tables(rules: &Rules, dir: &Path, max_seeds: usize) -> Result<Tables> {
    Tables::open_up_to(dir, rules, max_seeds)
        .with_context(|| format!("opening the tables in {}", dir.display()))
}

/// Opens the endgame tables a command asked for, the layers of at most `seeds` seeds (play
/// from a position never reaches larger ones, and each layer is read and checked whole):
/// `None` when they are turned off (`off`), not built for these rules (the default folder
/// only, `dir` is `None`), the board is not 2x6, or no layer is small enough.
pub fn tables_for(
    rules: &Rules,
    dir: Option<&Path>,
    off: bool,
    seeds: usize,
) -> Result<Option<std::sync::Arc<Tables>>> {
    if off || rules.holes() != 6 {
        return Ok(None);
    }
    let given = dir.is_some();
    let dir = dir.map_or_else(|| PathBuf::from(DEFAULT_TABLES_DIR), Path::to_path_buf);
    let context = || format!("cannot use the endgame tables in {}", dir.display());
    if Tables::headers(&dir, rules)
        .with_context(context)?
        .is_empty()
    {
        if given {
            anyhow::bail!(
                "no endgame tables for these rules in {} (build them with `solve tables build`)",
                dir.display()
            );
        }
        return Ok(None);
    }
    let tables = Tables::open_up_to(&dir, rules, seeds).with_context(context)?;
    Ok((tables.max_seeds() > 0).then(|| std::sync::Arc::new(tables)))
}

/// Reads every game of a record file (data/RECORDS.md); an error names the file, the line
/// and the column.
pub fn read_record_file(path: &Path) -> Result<Vec<Record>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the record {}", path.display()))?;
    hoyito_rules::read_records(&text).with_context(|| format!("{}", path.display()))
}

/// Game `k` (from 1) of a record file.
pub fn record_game(path: &Path, k: usize) -> Result<Record> {
    let mut games = read_record_file(path)?;
    if k == 0 || k > games.len() {
        return Err(crate::error::bad_option(
            "game",
            format!(
                "{k}: {} holds {} game(s), numbered from 1",
                path.display(),
                games.len()
            ),
        ));
    }
    Ok(games.swap_remove(k - 1))
}
