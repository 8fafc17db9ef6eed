//! `solve engine` driven through pipes: the handshake, searches that equal `solve best`,
//! `stop` during `go infinite`, the board commands, and garbage that never makes it panic.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::ok;
use serde_json::Value;

/// A running `solve engine`.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_solve"))
            .env("HOYITO_CACHE", "off")
            .arg("engine")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the solve binary runs");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Reads lines up to and including the first that `last` accepts.
    fn until(&mut self, last: impl Fn(&str) -> bool) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).unwrap();
            assert!(n > 0, "the engine ended early; it wrote {lines:?}");
            let line = line.trim_end().to_string();
            let done = last(&line);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// Sends a command and reads the answer of `isready` after it: every line it wrote.
    fn ask(&mut self, line: &str) -> Vec<String> {
        self.send(line);
        self.send("isready");
        let mut out = self.until(|l| l == "readyok");
        out.pop();
        out
    }

    /// `go ...`: every line up to `bestmove`.
    fn go(&mut self, args: &str) -> Vec<String> {
        self.send(&format!("go {args}"));
        self.until(|l| l.starts_with("bestmove"))
    }

    /// Sends `quit` (or closes the input) and checks a clean exit without a panic.
    fn finish(mut self, by_quit: bool) {
        if by_quit {
            self.send("quit");
        }
        drop(self.stdin.take());
        let out = self.child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "exit {:?}: {err}", out.status);
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// The score and best move of the last `info` line and the `bestmove` of a `go`.
fn outcome(lines: &[String]) -> (i32, Option<u8>) {
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "score").unwrap();
    let score = words[at + 1].parse().unwrap();
    let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
    (score, best.parse().ok())
}

fn best(args: &[&str]) -> Value {
    let mut all = vec!["best", "--threads", "1", "--no-tables", "--json"];
    all.extend_from_slice(args);
    serde_json::from_str(ok(&all).trim()).unwrap()
}

#[test]
fn handshake_names_the_engine_and_its_options() {
    let mut e = Engine::start();
    for word in ["hoyito", "uci"] {
        e.send(word);
        let lines = e.until(|l| l.ends_with("ok"));
        assert!(lines[0].starts_with("id name "), "{lines:?}");
        assert_eq!(lines.last().unwrap(), &format!("{word}ok"));
        for option in [
            "Variant",
            "Holes",
            "Seeds",
            "LastFour",
            "CaptureSide",
            "Threads",
            "Hash",
            "Tables",
        ] {
            let want = format!("option name {option} type ");
            assert!(lines.iter().any(|l| l.starts_with(&want)), "{option}");
        }
    }
    assert!(e.ask("").is_empty());
    e.finish(true);
}

/// Sets up `position SETUP`, searches it with `go depth 4` and compares with `solve best`
/// under the rule flags `rules`.
fn same_as_best(e: &mut Engine, setup: &str, rules: &[&str]) {
    assert!(e.ask(&format!("position {setup}")).is_empty());
    let drawn = e.ask("d");
    let notation = drawn.last().unwrap().strip_prefix("pos ").unwrap();
    let lines = e.go("depth 4");
    let (score, mv) = outcome(&lines);
    let mut args = rules.to_vec();
    args.extend(["--depth", "4", notation]);
    let b = best(&args);
    assert_eq!(i64::from(score), b["score"].as_i64().unwrap(), "{setup}");
    assert_eq!(mv.map(u64::from), b["move"].as_u64(), "{setup}");
    // Every iteration is told, 1 to 4.
    for d in 1..=4 {
        let want = format!("info depth {d} ");
        assert!(lines.iter().any(|l| l.starts_with(&want)), "{lines:?}");
    }
}

#[test]
fn go_depth_4_equals_solve_best() {
    let mut e = Engine::start();
    let cases = [
        "startpos",
        "startpos moves 3 1",
        "pos 2,3,4,0,4,1/3,3,3,1,1,3 S 0-0 moves 5",
    ];
    for setup in cases {
        same_as_best(&mut e, setup, &[]);
    }
    // Rules set by option: Hoyito III on 2x8 (the larger position type), 3 seeds.
    for (name, value) in [("Variant", "hoyito3"), ("Holes", "8"), ("Seeds", "3")] {
        let said = e.ask(&format!("setoption name {name} value {value}"));
        assert_eq!(
            said,
            ["info string rules changed: the position is the start"]
        );
    }
    let rules = ["--variant", "hoyito3", "--holes", "8", "--seeds", "3"];
    same_as_best(&mut e, "startpos moves 2", &rules);
    e.finish(true);
}

#[test]
fn stop_ends_an_infinite_search_with_a_bestmove() {
    let mut e = Engine::start();
    e.ask("position startpos");
    e.send("go infinite");
    // Searching: the first iterations are told, and isready is answered meanwhile.
    e.until(|l| l.starts_with("info depth 2 "));
    e.send("isready");
    e.until(|l| l == "readyok");
    e.send("stop");
    let lines = e.until(|l| l.starts_with("bestmove"));
    let mv: u8 = lines
        .last()
        .unwrap()
        .strip_prefix("bestmove ")
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=6).contains(&mv));
    // The engine answers again after the search, and quits on the end of its input.
    assert!(e.ask("moves").contains(&"moves 1 2 3 4 5 6".to_string()));
    e.send("go infinite");
    e.until(|l| l.starts_with("info depth 1 "));
    e.finish(false);
}

#[test]
fn stop_ends_an_exact_search_with_an_answer_not_claimed_exact() {
    let mut e = Engine::start();
    // A board of 48 seeds that no game from the start reaches (so neither the book nor a
    // certificate knows it): no exact search ends within a test, and its proofs solve
    // components of small positions whole, which must heed the stop too.
    e.ask("position pos 3,5,4,4,4,4/4,4,4,4,4,4 S");
    e.send("go exact");
    e.send("isready");
    e.until(|l| l == "readyok");
    e.send("stop");
    let lines = e.until(|l| l.starts_with("bestmove"));
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("the final info line");
    assert!(!last.contains(" exact"), "{lines:?}");
    // A score, where one is given (a search stopped before its first iteration has none),
    // is within the seeds on the board; the move is legal.
    let words: Vec<&str> = last.split_whitespace().collect();
    if let Some(at) = words.iter().position(|w| *w == "score") {
        let score: i32 = words[at + 1].parse().unwrap();
        assert!((-48..=48).contains(&score), "{lines:?}");
    }
    let mv: Option<u8> = lines
        .last()
        .unwrap()
        .strip_prefix("bestmove ")
        .unwrap()
        .parse()
        .ok();
    assert!(mv.is_some_and(|m| (1..=6).contains(&m)), "{lines:?}");
    // The next exact search is not stopped by the last one's stop: a small position whose
    // component is solved whole comes back exact, as `solve best` finds it.
    let small = "1,0,2,0,1,0/0,0,0,1,0,2 S 20-21";
    e.ask(&format!("position pos {small}"));
    let lines = e.go("exact");
    assert!(lines.iter().any(|l| l.contains(" exact ")), "{lines:?}");
    let expected = best(&["--exact", small]);
    assert_eq!(
        outcome(&lines).0 as i64,
        expected["score"].as_i64().unwrap(),
        "{lines:?}"
    );
    e.finish(true);
}

#[test]
fn go_movetime_answers_while_a_long_sowing_runs() {
    let mut e = Engine::start();
    // Generating this position's moves walks relay sowings of millions of laps, which no
    // search can interrupt (as in `best_answers_at_its_time_limit_while_a_long_sowing_runs`).
    for (name, value) in [
        ("Variant", "hoyito3"),
        ("Seeds", "8"),
        ("LastFour", "S"),
        ("CaptureSide", "opponent"),
    ] {
        e.send(&format!("setoption name {name} value {value}"));
    }
    e.ask("position pos 1,0,1,0,2,1/52,7,21,1,3,4 N");
    e.send("go movetime 100");
    let lines = e.until(|l| l.starts_with("bestmove"));
    assert_eq!(lines.last().unwrap(), "bestmove none", "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string no move") && l.contains("long relay sowing")),
        "{lines:?}"
    );
    // The engine is free again: commands are taken at once (a `go` would wait for the
    // sowing to end).
    let answer = e.ask("position startpos");
    assert!(!answer.iter().any(|l| l.contains("error")), "{answer:?}");
    assert!(e.ask("moves").contains(&"moves 1 2 3 4 5 6".to_string()));
    let _ = e.child.kill();
}

#[test]
fn board_commands_play_undo_and_draw() {
    let mut e = Engine::start();
    assert_eq!(e.ask("moves"), ["moves 1 2 3 4 5 6"]);
    let applied: Value =
        serde_json::from_str(ok(&["apply", "start", "3", "1", "--json"]).trim()).unwrap();
    e.ask("play 3");
    let out = e.ask("play 1");
    assert_eq!(
        out,
        [format!("pos {}", applied["position"].as_str().unwrap())]
    );
    let bad = e.ask("play 2");
    assert!(bad[0].starts_with("info string error: play 2"), "{bad:?}");
    let drawn = e.ask("d");
    assert!(drawn.iter().any(|l| l.starts_with("North ")));
    let after3: Value =
        serde_json::from_str(ok(&["apply", "start", "3", "--json"]).trim()).unwrap();
    assert_eq!(
        e.ask("undo"),
        [format!("pos {}", after3["position"].as_str().unwrap())]
    );
    e.ask("undo");
    assert!(e.ask("undo")[0].contains("no move to take back"));
    // A game played to its end says so, and then has no moves and no bestmove.
    e.ask("position pos 0,0,0,0,0,1/3,0,0,0,0,0 S 0-0");
    let end = e.ask("play 6");
    assert!(end.iter().any(|l| l.starts_with("gameover ")), "{end:?}");
    assert_eq!(e.ask("moves"), ["moves none"]);
    assert_eq!(e.go("depth 3").last().unwrap(), "bestmove none");
    e.finish(true);
}

#[test]
fn bad_input_gets_an_error_line() {
    let mut e = Engine::start();
    for bad in [
        "frobnicate",
        "go depth",
        "go depth -1",
        "go depth x",
        "go wtime 100",
        "position",
        "position pos 1,2,3/4,5,6 S 0-0 moves 1",
        "position pos 4,4,4,4,4,4/4,4,4,4,4,4 S 0-0 moves 9",
        "position startpos moves 3 1 2",
        "setoption",
        "setoption name Holes value 40",
        "setoption name Seeds value x",
        "setoption name Variant value hoyito9",
        "setoption name Threads value 0",
        "setoption name Colour value red",
        "play",
        "play 0",
    ] {
        let out = e.ask(bad);
        assert_eq!(out.len(), 1, "{bad}: {out:?}");
        assert!(out[0].starts_with("info string error: "), "{bad}: {out:?}");
    }
    // The position is unchanged by the failed commands.
    assert_eq!(e.ask("moves"), ["moves 1 2 3 4 5 6"]);
    e.finish(true);
}

#[test]
fn random_command_streams_never_panic() {
    let words = [
        "uci",
        "hoyito",
        "isready",
        "stop",
        "d",
        "moves",
        "undo",
        "play",
        "position",
        "startpos",
        "pos",
        "moves",
        "setoption",
        "name",
        "value",
        "Holes",
        "Seeds",
        "Variant",
        "hoyito3",
        "LastFour",
        "N",
        "Hash",
        "Threads",
        "Tables",
        "go",
        "depth",
        "nodes",
        "movetime",
        "ucinewgame",
        "1",
        "3",
        "6",
        "12",
        "0",
        "-4",
        "99999999999999999999",
        "4,4,4,4,4,4/4,4,4,4,4,4",
        "S",
        "0-0",
        "",
        "\u{fffd}",
        "x",
    ];
    let mut state = 7u64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % n as u64) as usize
    };
    for stream in 0..6 {
        let mut text = Vec::new();
        for _ in 0..150 {
            let len = next(6);
            let mut line: Vec<&str> = (0..len).map(|_| words[next(words.len())]).collect();
            // Searches stay small: a go always has a small depth or node limit.
            if line.first() == Some(&"go") {
                line = vec!["go", if next(2) == 0 { "depth 2" } else { "nodes 300" }];
            }
            text.extend_from_slice(line.join(" ").as_bytes());
            if next(10) == 0 {
                text.extend_from_slice(&[0xff, 0xfe, b' ', 0x00]);
            }
            text.push(b'\n');
        }
        let mut e = Engine::start();
        e.stdin.as_mut().unwrap().write_all(&text).unwrap();
        e.send("isready");
        e.until(|l| l == "readyok");
        e.finish(stream % 2 == 0);
    }
}

/// An answer never makes up a score and, where the position has moves, always names one:
/// engines started side by side (so that some are slow to begin their search) each stop an
/// exact search of the start soon after `go`.
#[test]
fn a_stopped_search_answers_a_legal_move_and_no_made_up_score() {
    let engines: Vec<std::thread::JoinHandle<Vec<String>>> = (0..6)
        .map(|k| {
            std::thread::spawn(move || {
                let mut e = Engine::start();
                e.ask("position startpos");
                e.send("go exact");
                std::thread::sleep(std::time::Duration::from_millis(10 * k));
                e.send("stop");
                let lines = e.until(|l| l.starts_with("bestmove"));
                e.finish(true);
                lines
            })
        })
        .collect();
    for handle in engines {
        let lines = handle.join().unwrap();
        let last = lines.last().unwrap();
        let mv: u8 = last
            .strip_prefix("bestmove ")
            .and_then(|m| m.parse().ok())
            .unwrap_or_else(|| panic!("{lines:?}"));
        assert!((1..=6).contains(&mv), "{lines:?}");
        // A score at depth 0 is a proven bound or value, never a plain one.
        let made_up = |l: &String| {
            l.starts_with("info depth 0 score")
                && !["lowerbound", "upperbound", "exact"]
                    .iter()
                    .any(|w| l.split_whitespace().any(|x| x == *w))
        };
        assert!(!lines.iter().any(made_up), "a score at depth 0: {lines:?}");
    }
}

/// A fixed move time is used as asked (UCI's `movetime`): a search that cannot prove the
/// value runs until its time is up, however deep its iterations got.
#[test]
fn movetime_is_used_as_asked() {
    let mut e = Engine::start();
    e.ask("position startpos");
    let t0 = std::time::Instant::now();
    let lines = e.go("movetime 600");
    let took = t0.elapsed();
    assert!(
        took >= std::time::Duration::from_millis(590),
        "{took:?} {lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains(" exact ")), "{lines:?}");
    e.finish(true);
}

#[test]
fn go_exact_answers_a_proven_position_at_once_from_the_certificates() {
    let mut e = Engine::start();
    // The start (in the book), and a position three plies on, off the book, where the
    // start's certificate proves both bounds: South's value -20 from there on (North has
    // taken 8), so +20 for North, to move.
    for (setup, value) in [("startpos", -28), ("startpos moves 1 6 4", 20)] {
        e.ask(&format!("position {setup}"));
        e.send("go exact");
        let lines = e.until(|l| l.starts_with("bestmove"));
        assert!(
            lines
                .iter()
                .any(|l| l.contains("proven by the opening book or a certificate")),
            "{lines:?}"
        );
        let info = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .unwrap();
        assert!(info.contains(&format!("score {value} exact")), "{lines:?}");
    }
    e.finish(false);
}
