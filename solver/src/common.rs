//! What every command needs: reading the rules and a position from the command line,
//! choosing the position size, printing a report as text or JSON, thread pools, and opening
//! the endgame tables. Commands import this module and `cli`, never each other.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{Diagram, Position, Position6, Rules, Side};
use hoyito_tables::Tables;
use serde::Serialize;

use crate::cli::{Cli, Command, EngineArgs, RuleArgs, TablesCommand, DEFAULT_TABLES_DIR};

/// Prints a command's report: its `Display` form for a person, or its fields as one JSON
/// object on one line with `--json` (keys in alphabetical order, as `serde_json` orders a
/// map).
/// A reader that closed the pipe (`solve ... | head`) ends the output quietly: the process
/// exits with success, as Unix tools do, instead of panicking in `print!`.
pub fn emit<R: Serialize + Display>(report: &R, json: bool) -> Result<()> {
    use std::io::Write as _;
    let text = if json {
        let value = serde_json::to_value(report).context("cannot write the report as JSON")?;
        format!("{value}\n")
    } else {
        report.to_string()
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(e).context("cannot write the report"),
    }
}

/// The rules and (if given) the parsed position of a command line. The number of holes comes
/// from the position when one is given; `--holes` must then agree with it.
pub fn resolve(args: &RuleArgs, position: Option<&str>) -> Result<(Rules, Option<Diagram>)> {
    let diagram = match position {
        Some(text) => Some(
            text.parse::<Diagram>()
                .with_context(|| format!("bad position '{text}'"))?,
        ),
        None => None,
    };
    let holes = match (&diagram, args.holes) {
        (Some(d), Some(h)) if d.holes() != h => bail!(
            "the position has {} holes a row but --holes says {h}",
            d.holes()
        ),
        (Some(d), _) => d.holes(),
        (None, Some(h)) => h,
        (None, None) => 6,
    };
    let rules = Rules::new(
        args.variant,
        holes,
        args.seeds,
        args.last_four,
        args.capture_side,
    )?;
    Ok((rules, diagram))
}

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
        if $crate::common::small(&$rules) {
            $f::<2>($($arg),*)
        } else {
            $f::<4>($($arg),*)
        }
    };
}
pub(crate) use dispatch;

/// Splits `POSITION REST...` where the position may be one quoted word or up to three words
/// (board, side, captured): a word `S`/`N` after the board, and then a word with a `-`
/// (but not `-` alone), belong to the position.
pub fn split_position(words: &[String]) -> (String, &[String]) {
    let mut end = 1.min(words.len());
    let mut parts: Vec<&str> = words[..end].iter().map(String::as_str).collect();
    if parts.len() == 1
        && !parts[0].contains(' ')
        && matches!(words.get(end).map(String::as_str), Some("S" | "N"))
    {
        parts.push(&words[end]);
        end += 1;
        if words.get(end).is_some_and(|w| w.contains('-') && w != "-") {
            parts.push(&words[end]);
            end += 1;
        }
    }
    (parts.join(" "), &words[end..])
}

/// A side's name in full, for text.
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::South => "South",
        Side::North => "North",
    }
}

/// Holes to mark in a drawing (indices `0 .. 2H` in sowing order): where a move started,
/// where its last lap ended, and the holes it captured.
#[derive(Clone, Debug, Default)]
pub struct Marks {
    /// The hole the move was played from, marked `^`.
    pub start: Option<usize>,
    /// The hole where the last lap ended, marked `*`.
    pub landing: Option<usize>,
    /// The holes captured, marked `x`.
    pub captured: Vec<usize>,
}

impl Marks {
    /// The mark of hole `i` and its ANSI colour: captured (red), landing (bold yellow), start
    /// (cyan).
    fn of(&self, i: usize) -> Option<(char, &'static str)> {
        if self.captured.contains(&i) {
            Some(('x', "31"))
        } else if self.landing == Some(i) {
            Some(('*', "1;33"))
        } else if self.start == Some(i) {
            Some(('^', "36"))
        } else {
            None
        }
    }
}

/// Draws a position for a person: North's row on top, right to left, so that sowing runs
/// counterclockwise on screen.
pub fn draw<const W: usize>(p: &Position<W>) -> String {
    draw_marked(p, &Marks::default(), false)
}

/// [`draw`] with holes marked by a sign after their count, and coloured when `colour`.
pub fn draw_marked<const W: usize>(p: &Position<W>, marks: &Marks, colour: bool) -> String {
    let h = p.holes();
    let cell = |side: Side, k: usize| {
        let v = p.seeds_in(side, k);
        match marks.of(side.index() * h + k - 1) {
            None => format!("{v:>4}"),
            Some((m, code)) => {
                let text = format!("{:>4}", format!("{v}{m}"));
                if colour {
                    format!("\x1b[{code}m{text}\x1b[0m")
                } else {
                    text
                }
            }
        }
    };
    let mut s = String::new();
    s.push_str("         ");
    s.extend((1..=h).rev().map(|k| format!("{:>4}", format!("N{k}"))));
    s.push('\n');
    s.push_str("North    ");
    s.extend((1..=h).rev().map(|k| cell(Side::North, k)));
    s.push_str(&format!("    captured {}\n", p.captured(Side::North)));
    s.push_str("South    ");
    s.extend((1..=h).map(|k| cell(Side::South, k)));
    s.push_str(&format!("    captured {}\n", p.captured(Side::South)));
    s.push_str("         ");
    s.extend((1..=h).map(|k| format!("{:>4}", format!("S{k}"))));
    s.push('\n');
    s.push_str(&format!(
        "{} to move; {} seeds on the board\n",
        side_name(p.side_to_move()),
        p.seeds_on_board()
    ));
    s
}

/// The rules as a JSON object.
#[derive(Serialize)]
pub struct RulesReport {
    variant: String,
    holes: usize,
    seeds: usize,
    last_four: String,
    capture_side: String,
}

impl RulesReport {
    /// The report of `r`.
    pub fn of(r: &Rules) -> Self {
        RulesReport {
            variant: r.variant().to_string(),
            holes: r.holes(),
            seeds: r.seeds(),
            last_four: r.last_four().to_string(),
            capture_side: r.capture_side().to_string(),
        }
    }
}

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
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) if n > MAX_THREADS => {
            bail!("--threads {n} is more than the {MAX_THREADS} threads a command may start")
        }
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
fn check_hash(hash_mb: usize, tables: usize) -> Result<()> {
    if hash_mb == 0 || hash_mb > MAX_HASH_MB {
        bail!("--hash-mb must be between 1 and {MAX_HASH_MB}");
    }
    let what = if tables == 1 {
        format!("--hash-mb {hash_mb}")
    } else {
        format!("--hash-mb {hash_mb} ({tables} tables at once)")
    };
    check_memory(&what, (hash_mb as u64).saturating_mul(tables as u64))
}

/// Checks `prove --cache-mb`: at least 1, and within the machine's memory (the cache takes
/// its memory only as it fills, so the memory free now does not bound it).
fn check_cache(cache_mb: Option<u64>) -> Result<()> {
    at_least_one("--cache-mb", cache_mb)?;
    match (cache_mb, total_mib()) {
        (Some(mib), Some(total)) if mib > total => {
            bail!("--cache-mb {mib} is more than the machine's memory ({total} MiB)")
        }
        _ => Ok(()),
    }
}

/// Checks `prove --memory-reserve`: less than the machine's memory, else the run would stop
/// before it began.
fn check_reserve(reserve_mb: Option<u64>) -> Result<()> {
    match (reserve_mb, total_mib()) {
        (Some(mib), Some(total)) if mib >= total => {
            bail!("--memory-reserve {mib} is not less than the machine's memory ({total} MiB)")
        }
        _ => Ok(()),
    }
}

/// Checks the engine flags of `best` and `bench`.
fn check_engine(e: &EngineArgs) -> Result<()> {
    check_threads(e.threads)?;
    check_hash(e.hash_mb, 1)
}

/// Checks that a count flag, when given, is at least 1.
fn at_least_one(flag: &str, value: Option<u64>) -> Result<()> {
    if value == Some(0) {
        bail!("{flag} must be at least 1");
    }
    Ok(())
}

/// Checks the limits of a command line before any work starts: thread counts within
/// [`MAX_THREADS`], transposition tables within the machine's memory, and counts that must
/// be positive. The commands check the rest (positions, moves, tables) as they read them.
pub fn check_limits(cli: &Cli) -> Result<()> {
    progress_every()?;
    match &cli.command {
        Command::Perft(a) => check_threads(a.threads),
        Command::Prove(a) => {
            check_threads(a.threads)?;
            check_cache(a.cache_mb)?;
            check_reserve(a.memory_reserve)
        }
        Command::Best(a) => check_engine(&a.engine),
        Command::Openings(a) => {
            at_least_one("--sample", a.sample.map(|n| n as u64))?;
            at_least_one("--depth", Some(u64::from(a.depth)))
        }
        Command::Bench(a) => {
            check_engine(&a.engine)?;
            at_least_one("--time-ms", Some(a.time_ms))?;
            at_least_one("--depth", a.depth.map(u64::from))?;
            at_least_one("--fingerprint-depth", a.fingerprint_depth.map(u64::from))
        }
        Command::Match(a) => {
            check_threads(a.threads)?;
            at_least_one("--pairs", a.pairs.map(|n| n as u64))?;
            at_least_one("--time-ms", a.time_ms)?;
            at_least_one("--depth", a.depth.map(u64::from))?;
            at_least_one("--a-depth", a.a_depth.map(u64::from))?;
            at_least_one("--b-depth", a.b_depth.map(u64::from))?;
            at_least_one("--max-plies", Some(a.max_plies as u64))?;
            // Each game played at once has two players, each with its own table.
            let at_once = a
                .threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
                .min(a.pairs.unwrap_or(20).max(1));
            check_hash(a.hash_mb, 2 * at_once)
        }
        Command::Tables(t) => match &t.command {
            TablesCommand::Build(b) => {
                check_threads(b.threads)?;
                at_least_one("--max-memory", b.max_memory)
            }
            _ => Ok(()),
        },
        Command::Play(a) => {
            check_threads(Some(a.threads))?;
            at_least_one("--depth", a.depth.map(u64::from))?;
            at_least_one("--time-ms", a.time_ms)?;
            at_least_one("--match", a.rounds.map(u64::from))?;
            check_hash(a.hash_mb, 1)
        }
        Command::Review(a) => {
            check_threads(Some(a.threads))?;
            at_least_one("--depth", a.depth.map(u64::from))?;
            at_least_one("--time-ms", a.time_ms)?;
            check_hash(a.hash_mb, 1)
        }
        Command::Show(_)
        | Command::Moves(_)
        | Command::Apply(_)
        | Command::Record(_)
        | Command::Replay(_)
        | Command::Engine
        | Command::CheckProof(_)
        | Command::CheckTables(_) => Ok(()),
    }
}

/// The environment variable that sets how often a long job (`prove`, `tables build`,
/// `tables verify --full`) prints a progress line when stderr is not a terminal (a log
/// file, a pipe): every that many seconds, 0 for at every step.
pub const PROGRESS_EVERY_VAR: &str = "SOLVE_PROGRESS_EVERY";

/// How often a long job prints a progress line when stderr is not a terminal: every
/// [`PROGRESS_EVERY_VAR`] seconds, else every minute. An error says what is wrong with the
/// variable.
pub fn progress_every() -> Result<Duration> {
    let Some(v) = std::env::var_os(PROGRESS_EVERY_VAR) else {
        return Ok(Duration::from_secs(60));
    };
    v.to_str()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map(Duration::from_secs)
        .with_context(|| {
            format!(
                "{PROGRESS_EVERY_VAR}={} is not a whole number of seconds",
                v.to_string_lossy()
            )
        })
}

/// The stop flag, raised by Ctrl-C: the one handler of the process, installed by the first
/// call. Long commands (`prove`, `tables build`) poll it, stop at the next safe point, and
/// leave their files resumable.
pub fn stop_flag() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&flag);
        // Without a handler (another one is installed), Ctrl-C just ends the process; what
        // the commands write survives that too (records are cut back, files are renamed
        // into place when complete).
        let _ = ctrlc::set_handler(move || f.store(true, Ordering::Relaxed));
        flag
    })
    .clone()
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
pub fn read_record_file(path: &Path) -> Result<Vec<hoyito_rules::Record>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the record {}", path.display()))?;
    hoyito_rules::read_records(&text).with_context(|| format!("{}", path.display()))
}

/// Game `k` (from 1) of a record file.
pub fn record_game(path: &Path, k: usize) -> Result<hoyito_rules::Record> {
    let mut games = read_record_file(path)?;
    if k == 0 || k > games.len() {
        bail!(
            "--game {k}: {} holds {} game(s), numbered from 1",
            path.display(),
            games.len()
        );
    }
    Ok(games.swap_remove(k - 1))
}
