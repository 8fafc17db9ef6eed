//! The engine protocol of data/PROTOCOL.md, a line protocol modelled on UCI so that another
//! program (a GUI, a match runner) can drive the engine without rules of its own, served
//! over any reader and writer (`solve engine`: standard input and output).
//!
//! ```
//! let out = hoyito::protocol::run_script("position startpos moves 3\ngo depth 3\nquit\n").unwrap();
//! assert!(out.lines().last().unwrap().starts_with("bestmove "));
//! ```
//!
//! The main thread reads commands one line at a time and answers them; a search runs on a
//! search thread that owns the [`Searcher`] and writes its `info` lines and its `bestmove`
//! itself, so that `stop`, `isready` and `quit` are answered while it searches. The protocol
//! is a stream, not a report.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::Result;
use hoyito_rules::{parse_move, Diagram, Game, Move, Position, Position12, Rules};
use hoyito_search::{Config, Limits, SearchResult, Searcher};
use hoyito_tables::Tables;

use crate::draw::draw;
use crate::policy::{self, Ask, Source, DEFAULT_TIME_MS};
use crate::setup::{small, MAX_HASH_MB, MAX_THREADS};

/// Deepest iteration of `go infinite`.
const INFINITE_DEPTH: u32 = 250;

/// Stack of the search thread (the proofs of exact mode run on it; reserved, not used).
const STACK: usize = 1 << 30;

/// Where the engine's lines go, shared by the threads that write them.
#[derive(Clone)]
struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    /// Writes one line (a closed output is ignored: the engine then runs to the end of its
    /// input).
    fn say(&self, line: &str) {
        let mut out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }

    /// An error line: the protocol never stops on bad input.
    fn error(&self, what: &str) {
        self.say(&format!("info string error: {what}"));
    }
}

/// The settings that outlive a board size: rules, engine options, the output.
struct Settings {
    out: Output,
    rules: Rules,
    threads: usize,
    hash_mb: usize,
    tables: Option<PathBuf>,
    /// The position to start from and the moves played since, in the largest position type
    /// (kept when the board size changes type).
    start: Position12,
}

/// What the search thread is asked to do.
enum Job<const W: usize> {
    /// Use these rules, this configuration and these tables from now on.
    Configure(Rules, Config, Option<Arc<Tables>>),
    /// Forget the transposition table (`ucinewgame`).
    Clear,
    /// Search a position.
    Go(Go<W>),
}

/// A search asked by `go`.
struct Go<const W: usize> {
    position: Position<W>,
    limits: Limits,
    /// No limit was given: search as `solve best` does (exact when quick, else 3 s).
    default: bool,
    /// `infinite`: the bestmove waits for `stop`.
    infinite: bool,
    /// When `go` was read: a time limit counts from here, so that a search queued behind one
    /// still generating a long sowing ([`Answer`]) does not overrun it.
    issued: Instant,
}

/// The engine's whole answer to a script of commands (the end of the script ends the
/// session, as `quit` does, once a search still running has answered).
pub fn run_script(script: &str) -> Result<String> {
    /// A buffer the engine's threads write into.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let mut b = self.0.lock().unwrap_or_else(|e| e.into_inner());
            b.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let out = Shared::default();
    serve(&mut script.as_bytes(), out.clone())?;
    let bytes = std::mem::take(&mut *out.0.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The engine's whole answer to a script of commands sent as a GUI sends them: each command
/// after a `go` waits for that search's `bestmove` (or an error line: a `go` refused); with
/// [`run_script`], the end of the script stops a search still running.
pub fn run_script_in_turn(script: &str) -> Result<String> {
    /// The engine's output, the `bestmove` (or error) lines seen so far, and how far the
    /// output has been looked through for them.
    #[derive(Default)]
    struct Seen {
        bytes: Vec<u8>,
        answers: usize,
        scanned: usize,
    }
    #[derive(Clone, Default)]
    struct Shared(Arc<(Mutex<Seen>, Condvar)>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let (seen, told) = &*self.0;
            let mut s = seen.lock().unwrap_or_else(|e| e.into_inner());
            s.bytes.extend_from_slice(buf);
            // The lines completed by this write.
            while let Some(end) = s.bytes[s.scanned..].iter().position(|&b| b == b'\n') {
                let line = &s.bytes[s.scanned..s.scanned + end];
                if line.starts_with(b"bestmove") || line.starts_with(b"info string error") {
                    s.answers += 1;
                }
                s.scanned += end + 1;
            }
            told.notify_all();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    /// The script a line at a time, each line after a `go` once its answer is out.
    struct InTurn<'a> {
        lines: std::str::Lines<'a>,
        out: Shared,
        /// `go` commands sent so far.
        goes: usize,
        pending: Vec<u8>,
    }
    impl std::io::Read for InTurn<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.pending.is_empty() {
                let (seen, told) = &*self.out.0;
                let mut s = seen.lock().unwrap_or_else(|e| e.into_inner());
                while s.answers < self.goes {
                    s = told.wait(s).unwrap_or_else(|e| e.into_inner());
                }
                drop(s);
                let Some(line) = self.lines.next() else {
                    return Ok(0);
                };
                if line.split_whitespace().next() == Some("go") {
                    self.goes += 1;
                }
                self.pending = format!("{line}\n").into_bytes();
            }
            let n = buf.len().min(self.pending.len());
            buf[..n].copy_from_slice(&self.pending[..n]);
            self.pending.drain(..n);
            Ok(n)
        }
    }
    let out = Shared::default();
    let turns = InTurn {
        lines: script.lines(),
        out: out.clone(),
        goes: 0,
        pending: Vec::new(),
    };
    serve(&mut std::io::BufReader::new(turns), out.clone())?;
    let (seen, _) = &*out.0;
    let bytes = std::mem::take(&mut seen.lock().unwrap_or_else(|e| e.into_inner()).bytes);
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Serves the protocol on `input`, answering on `output`, until `quit` or the end of the
/// input, which stops a search still running. `solve engine` serves standard input; the
/// fuzz target `engine_protocol` serves its bytes.
pub fn serve(input: &mut impl BufRead, output: impl Write + Send + 'static) -> Result<()> {
    // The certificates' strategies are read before the first command, so that a search
    // names its fallback move at once (a stop right after `go` answers with it).
    crate::strategy::warm();
    let mut settings = Settings {
        out: Output(Arc::new(Mutex::new(Box::new(output)))),
        rules: Rules::default(),
        threads: 1,
        hash_mb: 64,
        tables: None,
        start: Position12::start(&Rules::default())?,
    };
    loop {
        let next = if small(&settings.rules) {
            serve_sized::<2>(&mut settings, input)
        } else {
            serve_sized::<4>(&mut settings, input)
        };
        if matches!(next, Next::Quit) {
            return Ok(());
        }
    }
}

/// Why [`serve_sized`] returned.
enum Next {
    /// `quit` or the end of the input.
    Quit,
    /// The rules changed to a board of the other position type.
    Resize,
}

/// The engine's state for positions of `W` words.
struct Engine<const W: usize> {
    out: Output,
    game: Game<W>,
    jobs: Sender<Job<W>>,
    stop: Arc<AtomicBool>,
    searching: Arc<AtomicBool>,
    /// The search thread must be told the configuration before its next search.
    stale: bool,
}

/// Serves the protocol with positions of `W` words until `quit`, the end of the input, or
/// rules that need the other position type.
fn serve_sized<const W: usize>(settings: &mut Settings, input: &mut impl BufRead) -> Next {
    let (jobs, rx) = channel();
    let stop = Arc::new(AtomicBool::new(false));
    let searching = Arc::new(AtomicBool::new(false));
    let watch = Arc::new(Watch::new(settings.out.clone()));
    let watchdog = {
        let (watch, stop, searching) = (watch.clone(), stop.clone(), searching.clone());
        std::thread::Builder::new()
            .name("watchdog".into())
            .spawn(move || watch.run(&stop, &searching))
    };
    let thread = watchdog.and_then(|watchdog| {
        let (watch, stop, searching) = (watch.clone(), stop.clone(), searching.clone());
        std::thread::Builder::new()
            .name("search".into())
            .stack_size(STACK)
            .spawn(move || search_thread::<W>(rx, &stop, &searching, &watch))
            .map(|search| (search, watchdog))
    });
    let (thread, watchdog) = match thread {
        Ok(t) => t,
        Err(e) => {
            settings
                .out
                .error(&format!("cannot start the search threads: {e}"));
            watch.quit();
            return Next::Quit;
        }
    };
    let game = start_game::<W>(settings);
    let mut engine = Engine {
        out: settings.out.clone(),
        game,
        jobs,
        stop,
        searching,
        stale: true,
    };
    let mut line = Vec::new();
    let next = loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break Next::Quit,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let words: Vec<&str> = text.split_whitespace().collect();
        if let Some(next) = engine.command(settings, &words) {
            break next;
        }
    };
    // Stop a search still running, let it write its bestmove, and end the thread.
    engine.stop.store(true, Ordering::Relaxed);
    drop(engine.jobs);
    let _ = thread.join();
    watch.quit();
    let _ = watchdog.join();
    next
}

/// The game of the settings' start position (a start that does not fit this size, which
/// cannot happen as the size follows the rules, falls back to the rules' start).
fn start_game<const W: usize>(settings: &Settings) -> Game<W> {
    let start = settings
        .start
        .cast::<W>()
        .or_else(|| Position::<W>::start(&settings.rules).ok())
        .unwrap_or_else(|| Position::<W>::start(&Rules::default()).expect("the default start"));
    Game::new(settings.rules, start)
}

impl<const W: usize> Engine<W> {
    fn busy(&self) -> bool {
        self.searching.load(Ordering::Acquire)
    }

    /// Answers one command; `Some` when serving must end.
    fn command(&mut self, settings: &mut Settings, words: &[&str]) -> Option<Next> {
        // An empty line is no command.
        let (&head, args) = words.split_first()?;
        let read_only = matches!(
            head,
            "isready" | "stop" | "quit" | "d" | "moves" | "hoyito" | "uci"
        );
        if self.busy() && !read_only {
            self.out
                .error(&format!("'{head}' while searching: send stop first"));
            return None;
        }
        match head {
            "hoyito" | "uci" => handshake(&self.out, head),
            "isready" => self.out.say("readyok"),
            "stop" => self.stop.store(true, Ordering::Relaxed),
            "quit" => return Some(Next::Quit),
            "ucinewgame" | "newgame" => {
                let _ = self.jobs.send(Job::Clear);
            }
            "setoption" => return self.setoption(settings, args),
            "position" => self.position(settings, args),
            "go" => self.go(settings, args),
            "moves" => {
                let p = self.game.position();
                let list: Vec<String> = if self.game.is_over() {
                    Vec::new()
                } else {
                    p.moves(&settings.rules)
                        .children()
                        .iter()
                        .map(|c| c.mv.to_string())
                        .collect()
                };
                if list.is_empty() {
                    self.out.say("moves none");
                } else {
                    self.out.say(&format!("moves {}", list.join(" ")));
                }
            }
            "play" => match args {
                [m] => match parse_move(m, settings.rules.holes()) {
                    Ok(mv) => match self.game.play(mv) {
                        Ok(_) => self.report_position(),
                        Err(e) => self.out.error(&format!("play {m}: {e}")),
                    },
                    Err(e) => self.out.error(&format!("play {m}: {e}")),
                },
                _ => self.out.error("play takes one move, a hole number: play 3"),
            },
            "undo" => match self.game.undo() {
                Some(_) => self.report_position(),
                None => self.out.error("undo: no move to take back"),
            },
            "d" => {
                for l in draw(&self.game.position()).lines() {
                    self.out.say(l);
                }
                self.report_position();
            }
            _ => self.out.error(&format!("unknown command '{head}'")),
        }
        None
    }

    /// `pos <position>`, and `gameover <result> <score> <end>` when the game is over.
    fn report_position(&self) {
        let p = self.game.position();
        self.out.say(&format!("pos {p}"));
        if let Some(end) = self.game.end() {
            let record = hoyito_rules::Record::from_game(&self.game);
            self.out.say(&format!(
                "gameover {} {}-{} {}",
                record.result(),
                record.score[0],
                record.score[1],
                match end {
                    hoyito_rules::End::Repetition => "repetition",
                    _ => record.termination.tag(),
                }
            ));
        }
    }

    /// `setoption name NAME value VALUE`.
    fn setoption(&mut self, settings: &mut Settings, args: &[&str]) -> Option<Next> {
        let Some(("name", rest)) = args.split_first().map(|(h, r)| (*h, r)) else {
            self.out.error("setoption name NAME value VALUE");
            return None;
        };
        let at = rest.iter().position(|w| *w == "value");
        let (name, value) = match at {
            Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
            None => (rest.join(" "), String::new()),
        };
        let key: String = name
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        let rules = match key.as_str() {
            "variant" | "holes" | "seeds" | "lastfour" | "captureside" => {
                rules_with(settings.rules, &key, &value)
            }
            "threads" => {
                match value.parse::<usize>() {
                    Ok(n) if (1..=MAX_THREADS).contains(&n) => {
                        settings.threads = n;
                        self.stale = true;
                    }
                    _ => self.out.error(&format!(
                        "Threads must be 1 to {MAX_THREADS}, not '{value}'"
                    )),
                }
                return None;
            }
            "hash" => {
                match value.parse::<usize>() {
                    Ok(n) if (1..=MAX_HASH_MB).contains(&n) => {
                        settings.hash_mb = n;
                        self.stale = true;
                    }
                    _ => self.out.error(&format!(
                        "Hash must be 1 to {MAX_HASH_MB} MiB, not '{value}'"
                    )),
                }
                return None;
            }
            "tables" => {
                settings.tables = match value.as_str() {
                    "" | "<empty>" | "none" => None,
                    dir => Some(PathBuf::from(dir)),
                };
                self.stale = true;
                return None;
            }
            _ => {
                self.out.error(&format!("unknown option '{name}'"));
                return None;
            }
        };
        match rules {
            Ok(rules) if rules == settings.rules => None,
            Ok(rules) => match Position12::start(&rules) {
                Ok(start) => {
                    let resize = small(&rules) != small(&settings.rules);
                    settings.rules = rules;
                    settings.start = start;
                    self.stale = true;
                    self.out
                        .say("info string rules changed: the position is the start");
                    if resize {
                        return Some(Next::Resize);
                    }
                    self.game = start_game(settings);
                    None
                }
                Err(e) => {
                    self.out.error(&format!("{name}: {e}"));
                    None
                }
            },
            Err(e) => {
                self.out.error(&format!("{name}: {e}"));
                None
            }
        }
    }

    /// `position startpos|pos <position> [moves M ...]`. On an error the position is left
    /// as it was.
    fn position(&mut self, settings: &mut Settings, args: &[&str]) {
        let (setup, moves) = match args.iter().position(|w| *w == "moves") {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let rules = settings.rules;
        let start: Result<Position<W>, String> = match setup {
            ["startpos"] => Position::<W>::start(&rules).map_err(|e| e.to_string()),
            ["pos", words @ ..] if !words.is_empty() => {
                let text = words.join(" ");
                match text.parse::<Diagram>() {
                    Ok(d) if d.holes() != rules.holes() => Err(format!(
                        "the position has {} holes a row but the rules have {} \
                         (setoption name Holes value {})",
                        d.holes(),
                        rules.holes(),
                        d.holes()
                    )),
                    Ok(d) => Position::<W>::from_diagram(&rules, &d).map_err(|e| e.to_string()),
                    Err(e) => Err(format!("bad position '{text}': {e}")),
                }
            }
            _ => Err("position startpos|pos <position> [moves M ...]".to_string()),
        };
        let start = match start {
            Ok(p) => p,
            Err(e) => return self.out.error(&e),
        };
        let mut game = Game::new(rules, start);
        for m in moves {
            let played = parse_move(m, rules.holes())
                .map_err(|e| e.to_string())
                .and_then(|mv| game.play(mv).map_err(|e| e.to_string()));
            if let Err(e) = played {
                return self.out.error(&format!("move {m}: {e}"));
            }
        }
        settings.start = start.cast::<4>().unwrap_or(settings.start);
        self.game = game;
    }

    /// `go [depth D] [nodes N] [movetime T] [exact] [infinite]`.
    fn go(&mut self, settings: &Settings, args: &[&str]) {
        let mut limits = Limits::default();
        let mut infinite = false;
        let mut words = args.iter();
        while let Some(&word) = words.next() {
            let mut number = |what: &str| -> Result<u64, String> {
                match words.next().map(|w| w.parse::<u64>()) {
                    Some(Ok(n)) if n > 0 => Ok(n),
                    _ => Err(format!("go {what} takes a positive number")),
                }
            };
            let step = match word {
                "depth" => number("depth").map(|n| {
                    limits.depth = Some(n.min(u64::from(INFINITE_DEPTH)) as u32);
                }),
                "nodes" => number("nodes").map(|n| limits.nodes = Some(n)),
                "movetime" => {
                    number("movetime").map(|n| limits.time = Some(Duration::from_millis(n)))
                }
                "exact" => {
                    limits.exact = true;
                    Ok(())
                }
                "infinite" => {
                    infinite = true;
                    Ok(())
                }
                w => Err(format!(
                    "go: unknown word '{w}' (depth D, nodes N, movetime T, exact, infinite)"
                )),
            };
            if let Err(e) = step {
                return self.out.error(&e);
            }
        }
        let default = !infinite && limits == Limits::default();
        // Without `exact`, a search is a limited one: iterative deepening until its limit
        // (a node limit alone, or `infinite`, does not make it an exact search).
        if !default && !limits.exact && limits.depth.is_none() {
            limits.depth = Some(INFINITE_DEPTH);
        }
        if self.stale {
            let config = Config {
                threads: settings.threads,
                hash_mb: settings.hash_mb,
                ..Config::default()
            };
            let seeds = settings.rules.holes() * 2 * settings.rules.seeds();
            // The tables every door stands on (the small layers of the cache where no folder
            // is given), as they are: nothing is built within a move's time.
            let tables = match policy::tables(
                &settings.rules,
                settings.tables.as_deref(),
                false,
                seeds,
                false,
            ) {
                Ok(t) => t,
                Err(e) => return self.out.error(&format!("{e:#}")),
            };
            let _ = self
                .jobs
                .send(Job::Configure(settings.rules, config, tables));
            self.stale = false;
        }
        self.stop.store(false, Ordering::Relaxed);
        self.searching.store(true, Ordering::Release);
        let job = Job::Go(Go {
            position: self.game.position(),
            limits,
            default,
            infinite,
            issued: Instant::now(),
        });
        if self.jobs.send(job).is_err() {
            self.searching.store(false, Ordering::Release);
            self.out.error("the search thread has stopped");
        }
    }
}

/// The rules `r` with the rule option `key` (`variant`, `holes`, `seeds`, `lastfour` or
/// `captureside`, as [`Engine::setoption`] spells it) set to `value`.
fn rules_with(r: Rules, key: &str, value: &str) -> std::result::Result<Rules, String> {
    let mut b = r.to_builder();
    b.set(key, value).map_err(|e| e.to_string())?;
    b.build().map_err(|e| e.to_string())
}

/// The answer to `hoyito` or `uci`: name, options, and `hoyitook` or `uciok`.
fn handshake(out: &Output, word: &str) {
    out.say(&format!("id name Hoyito {}", env!("CARGO_PKG_VERSION")));
    out.say("id author the Hoyito authors");
    out.say("option name Variant type combo default hoyito2 var hoyito2 var hoyito3");
    out.say("option name Holes type spin default 6 min 2 max 12");
    out.say("option name Seeds type spin default 4 min 1 max 8");
    out.say("option name LastFour type combo default capturer var capturer var S var N");
    out.say("option name CaptureSide type combo default any var any var opponent");
    out.say(&format!(
        "option name Threads type spin default 1 min 1 max {MAX_THREADS}"
    ));
    out.say(&format!(
        "option name Hash type spin default 64 min 1 max {MAX_HASH_MB}"
    ));
    out.say("option name Tables type string default <empty>");
    out.say(&format!("{word}ok"));
}

/// The search thread: it owns the searcher, runs each `go` and writes its lines.
fn search_thread<const W: usize>(
    jobs: Receiver<Job<W>>,
    stop: &AtomicBool,
    searching: &AtomicBool,
    watch: &Watch,
) {
    let mut searcher: Option<Searcher<W>> = None;
    for job in jobs {
        match job {
            Job::Configure(rules, config, tables) => {
                let s = Searcher::new(rules, config);
                searcher = Some(match tables {
                    Some(t) => s.with_probe(Box::new(t)),
                    None => s,
                });
            }
            Job::Clear => {
                if let Some(s) = &searcher {
                    s.clear();
                }
            }
            Job::Go(go) => match &searcher {
                Some(s) => search(s, &go, stop, searching, watch),
                None => {
                    // Done before the answer, so that a command sent on reading it is taken.
                    searching.store(false, Ordering::Release);
                    watch.out.say("bestmove none");
                }
            },
        }
    }
}

/// How long after its deadline, or after `stop`, a search that has not returned is
/// answered for ([`Watch`]).
const ANSWER_GRACE: Duration = Duration::from_millis(10);

/// The same grace while no iteration has finished: answering then means `bestmove none`,
/// so the search gets longer to return with a move (a slow build, a loaded machine), while
/// a relay sowing of millions of laps still gets its answer in well under a second.
const NO_MOVE_GRACE: Duration = Duration::from_millis(250);

/// The answer to each `go`, given once: by the search when it returns, or, when generating
/// the moves of a position with a long relay sowing keeps it past its time limit or past
/// `stop` (a sowing cannot be interrupted), by the watchdog thread [`ANSWER_GRACE`] after
/// it, from the last finished iteration ([`NO_MOVE_GRACE`] after it when none has). The
/// search then runs on to its end unheard, and a `go` sent meanwhile waits for it, its time
/// limit counting from when it was read. One watchdog serves every `go` of an engine: it
/// sleeps while no search runs.
struct Watch {
    out: Output,
    state: Mutex<WatchState>,
    /// Wakes the watchdog when a search starts or returns, or when the engine quits.
    wake: Condvar,
}

#[derive(Default)]
struct WatchState {
    /// A search is running.
    active: bool,
    /// When its time limit passes, if it has one.
    deadline: Option<Instant>,
    /// The flag that halts it (its own: a later `go` clears `stop`, never this).
    halt: Arc<AtomicBool>,
    /// When the watchdog saw `stop` during it.
    stopped_at: Option<Instant>,
    /// When it started: an answer with no finished iteration waits [`NO_MOVE_GRACE`] after
    /// this too, so that the search has time to name its fallback.
    started: Option<Instant>,
    /// The move to answer when no iteration has finished, and where it came from: the
    /// opening book's, or the first legal move (none: not known yet, or no move).
    fallback: Option<(Move, &'static str)>,
    /// Its last finished iteration and the bounds told before it.
    last: Option<(SearchResult, (i32, i32))>,
    /// Whether its answer has been given.
    given: bool,
    /// The engine is ending: the watchdog returns.
    quit: bool,
}

impl Watch {
    fn new(out: Output) -> Self {
        Watch {
            out,
            state: Mutex::default(),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, WatchState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A search starts: returns its halt flag.
    fn start(&self, deadline: Option<Instant>) -> Arc<AtomicBool> {
        let halt = Arc::new(AtomicBool::new(false));
        *self.lock() = WatchState {
            active: true,
            deadline,
            halt: halt.clone(),
            stopped_at: None,
            started: Some(Instant::now()),
            fallback: None,
            last: None,
            given: false,
            quit: false,
        };
        self.wake.notify_all();
        halt
    }

    /// The move to answer with if no iteration finishes in time.
    fn fallback(&self, m: Option<(Move, &'static str)>) {
        self.lock().fallback = m;
    }

    /// An iteration finished: told unless the answer was given, and kept.
    fn iteration(&self, r: &SearchResult, told: (i32, i32)) {
        let mut w = self.lock();
        if !w.given {
            self.out.say(&info(r, told));
            w.last = Some((r.clone(), told));
        }
    }

    /// The search returned: the watchdog no longer answers for it. Returns whether it did.
    fn returned(&self) -> bool {
        let mut w = self.lock();
        w.active = false;
        self.wake.notify_all();
        w.given
    }

    /// The answer to a search that returned with `r`, unless the watchdog gave it.
    fn give(&self, r: &SearchResult, told: (i32, i32), searching: &AtomicBool) {
        let mut w = self.lock();
        if !w.given {
            w.given = true;
            let fallback = w.fallback.map(|(m, _)| m);
            answer(&self.out, Some((r, told)), None, fallback, searching);
        }
    }

    fn quit(&self) {
        self.lock().quit = true;
        self.wake.notify_all();
    }

    /// The watchdog thread: while a search runs, relays `stop` to its halt flag and, once
    /// its deadline or a `stop` has passed by [`ANSWER_GRACE`], answers for it if it has
    /// not returned, and halts it for good.
    fn run(&self, stop: &AtomicBool, searching: &AtomicBool) {
        let mut w = self.lock();
        loop {
            if w.quit {
                return;
            }
            if !w.active || w.given {
                w = self.wake.wait(w).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            let now = Instant::now();
            if w.stopped_at.is_none() && stop.load(Ordering::Relaxed) {
                w.stopped_at = Some(now);
                w.halt.store(true, Ordering::Relaxed);
            }
            let grace = match w.last {
                Some(_) => ANSWER_GRACE,
                None => NO_MOVE_GRACE,
            };
            let late = |t: Option<Instant>| t.is_some_and(|t| now >= t + grace);
            // With no iteration finished, the search also gets the grace from its start, to
            // name its fallback move.
            let begun = w.last.is_some() || late(w.started);
            if begun && (late(w.deadline) || late(w.stopped_at)) {
                w.halt.store(true, Ordering::Relaxed);
                w.given = true;
                let note = match (&w.last, w.fallback) {
                    (Some(_), _) => "answered from the last finished iteration: the search had \
                         not returned (a long relay sowing cannot be interrupted)"
                        .to_string(),
                    (None, Some((_, source))) => {
                        format!("answered with {source}: no iteration of the search had finished")
                    }
                    (None, None) => "no move: the search had not returned one (a long relay \
                         sowing, as in generating this position's moves, cannot be interrupted)"
                        .to_string(),
                };
                let last = w.last.as_ref().map(|(r, t)| (r, *t));
                let fallback = w.fallback.map(|(m, _)| m);
                answer(&self.out, last, Some(&note), fallback, searching);
                continue;
            }
            w = self
                .wake
                .wait_timeout(w, Duration::from_millis(1))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// Gives an answer: a note (if any), the final `info` line (if any) and `bestmove`, after
/// marking the engine free, so that a command sent on reading them is taken.
fn answer(
    out: &Output,
    result: Option<(&SearchResult, (i32, i32))>,
    note: Option<&str>,
    fallback: Option<Move>,
    searching: &AtomicBool,
) {
    if let Some(note) = note {
        out.say(&format!("info string {note}"));
    }
    if let Some((r, told)) = result {
        out.say(&info(r, told));
    }
    searching.store(false, Ordering::Release);
    out.say(&match result.and_then(|(r, _)| r.best).or(fallback) {
        Some(m) => format!("bestmove {m}"),
        None => "bestmove none".to_string(),
    });
}

/// Runs one `go`: `info` lines as the iterations finish, then the final one and `bestmove`
/// (from the search, or from the watchdog; see [`Watch`]).
fn search<const W: usize>(
    s: &Searcher<W>,
    go: &Go<W>,
    stop: &AtomicBool,
    searching: &AtomicBool,
    watch: &Watch,
) {
    let limits = go.limits;
    let mut ask = Ask {
        depth: limits.depth,
        time: limits.time,
        nodes: limits.nodes,
        exact: limits.exact,
        book: policy::BookUse::Unlimited,
    };
    // The time limit counts from when `go` was read.
    if let Some(t) = ask.time {
        ask.time = Some(
            t.saturating_sub(go.issued.elapsed())
                .max(Duration::from_millis(1)),
        );
    }
    let default_time = go.default && !s.exact_is_quick(&go.position);
    let deadline = match limits.time {
        Some(t) => Some(go.issued + t),
        None if default_time => Some(go.issued + Duration::from_millis(DEFAULT_TIME_MS)),
        None => None,
    };
    let seeds = go.position.seeds_on_board() as i32;
    let halt = watch.start(deadline);
    // The move to answer with should no iteration finish in time: the book's, else the first
    // legal move (generating the moves may itself take long: the watchdog then answers
    // without one).
    let kept = crate::strategy::lookup(s.rules(), &go.position).and_then(|k| k.keep);
    let fallback = match crate::book::lookup(s.rules(), &go.position).and_then(|e| e.best) {
        Some(m) => Some((Move(m), "the opening book's move")),
        None => match kept {
            Some(m) => Some((Move(m), "the certificates' move, which keeps their bound")),
            None => (go.position.moves(s.rules()).children().first())
                .map(|c| (c.mv, "the first legal move")),
        },
    };
    watch.fallback(fallback);
    // The bounds last told, to say which one an exact search just moved.
    let told = Mutex::new((-seeds, seeds));
    let d = policy::decide(s, &go.position, &ask, &halt, &|i| {
        let mut t = told.lock().unwrap_or_else(|e| e.into_inner());
        watch.iteration(i, *t);
        *t = (i.lower, i.upper);
    });
    if d.source == Source::Book {
        watch
            .out
            .say("info string proven by the opening book or a certificate");
    } else if let Some(note) = &d.note {
        watch.out.say(&format!("info string {note}"));
    }
    let last = *told.lock().unwrap_or_else(|e| e.into_inner());
    if !watch.returned() && go.infinite {
        // `infinite` answers only after `stop` (or `quit`), as UCI asks.
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    watch.give(&d.result, last, searching);
}

/// An `info` line: depth, score with its bound or `exact`, nodes, speed, time and line.
/// `told` are the bounds of the previous line: a bound that moved is the one given.
fn info(r: &SearchResult, told: (i32, i32)) -> String {
    let score = if r.exact {
        format!("score {} exact", r.score)
    } else if r.lower > told.0 && r.lower < r.upper {
        format!("score {} lowerbound", r.lower)
    } else if r.upper < told.1 && r.lower < r.upper && r.lower == told.0 {
        format!("score {} upperbound", r.upper)
    } else if r.depth == 0 {
        // No iteration finished and no bound moved: there is no score to give.
        String::new()
    } else {
        format!("score {}", r.score)
    };
    let score = if score.is_empty() {
        score
    } else {
        format!(" {score}")
    };
    let pv: Vec<String> = r.pv.iter().map(|m| m.to_string()).collect();
    let ms = (r.seconds * 1000.0) as u64;
    format!(
        "info depth {}{score} nodes {} nps {} time {ms}{}{}",
        r.depth,
        r.nodes,
        (r.nodes as f64 / r.seconds.max(1e-6)) as u64,
        if pv.is_empty() { "" } else { " pv " },
        pv.join(" ")
    )
}
