//! What every command needs: the rules and a position from the command line, printing a
//! report as text or JSON, the limits checked before work starts, Ctrl-C, and the library's
//! options made from the flags. Commands import this module and `cli`, never each other.

use std::fmt::Display;
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hoyito::setup::{check_cache, check_hash, check_reserve, check_threads};
use hoyito::{Diagram, Rules};
use serde::Serialize;

use crate::cli::{Cli, Command, EngineArgs, MatchArgs, RuleArgs, TablesCommand};

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
    let rules = Rules::builder()
        .variant(args.variant)
        .holes(holes)
        .seeds(args.seeds)
        .last_four(args.last_four)
        .capture_side(args.capture_side)
        .build()?;
    Ok((rules, diagram))
}

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

/// Checks the limits of `solve match`: both players' transposition tables of every game
/// played at once must fit.
fn check_match(a: &MatchArgs) -> Result<()> {
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

/// Checks the limits of a command line before any work starts: thread counts within
/// [`MAX_THREADS`](hoyito::setup::MAX_THREADS), transposition tables within the machine's memory, and counts that must
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
        Command::Match(a) => check_match(a),
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
        | Command::CheckTables(_)
        | Command::Serve(_)
        | Command::Completions { .. }
        | Command::Man => Ok(()),
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

/// The progress of a long job on stderr: a spinner with the latest message on a terminal,
/// else the message as a plain line as often as [`progress_every`] says.
pub struct Spinner {
    bar: Option<indicatif::ProgressBar>,
    every: Duration,
    /// When the last plain line was written (the job's start at first).
    last: Mutex<Instant>,
}

impl Spinner {
    /// A spinner for a job starting now.
    pub fn new() -> Result<Self> {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        Ok(Spinner {
            bar,
            every: progress_every()?,
            last: Mutex::new(Instant::now()),
        })
    }

    /// Shows `message`: at once on the spinner; as a line when one is due.
    pub fn say(&self, message: impl FnOnce() -> String) {
        match &self.bar {
            Some(b) => b.set_message(message()),
            None => {
                let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
                if last.elapsed() >= self.every {
                    *last = Instant::now();
                    eprintln!("{}", message());
                }
            }
        }
    }

    /// The job is over: the spinner is cleared.
    pub fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}

/// Says on stderr that the small tables are about to be built into the cache, when an
/// exact answer or (`proof`) a proof of `d` (`None`: the start) given the tables folder
/// `tables` will build them (see `hoyito::cache::pending_up_to`): the first one of a set of
/// rules takes about 15 s more, a proof of a large position about a minute (the 20-seed layer).
pub fn say_cache_build(
    rules: &hoyito::Rules,
    d: Option<&hoyito::Diagram>,
    tables: Option<&std::path::Path>,
    proof: bool,
) {
    let seeds = d.map_or(rules.total_seeds(), hoyito::Diagram::seeds_on_board);
    let top = if proof {
        hoyito::cache::proof_layers(seeds)
    } else {
        hoyito::cache::CACHE_MAX_SEEDS
    };
    if let Some(dir) = hoyito::cache::pending_up_to(rules, seeds, tables, top) {
        say_cache_building(&dir, top);
    }
}

/// Says on stderr that the small tables up to `top` seeds are about to be built into the
/// cache `dir`.
pub fn say_cache_building(dir: &std::path::Path, top: usize) {
    eprintln!(
        "building the endgame tables up to {top} seeds into the cache {} (once for these \
         rules, {}; HOYITO_CACHE=off turns the cache off)",
        dir.display(),
        hoyito::cache::build_estimate(top)
    );
}
