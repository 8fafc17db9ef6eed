//! A program that speaks the engine protocol (data/PROTOCOL.md), such as an older
//! `solve engine`, driven as a player of a match. Every answer it owes has a time limit:
//! a program that does not answer in time loses the game on time instead of hanging the
//! match.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{parse_move, Move, Position, Rules};

/// How long a program has to end after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(500);

/// A running program that speaks the engine protocol.
pub struct ExternalEngine {
    /// The command line, for messages.
    name: String,
    child: Child,
    stdin: ChildStdin,
    /// Its output, a line at a time, read by a thread of its own.
    lines: Receiver<String>,
    holes: usize,
    /// How long it has for the handshake, and for an answer beyond its move time.
    timeout: Duration,
}

/// What the program answered to a `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Its move (`None`: `bestmove none`).
    Move(Option<Move>),
    /// No answer within the time it had.
    TimedOut,
}

/// Why reading an answer failed.
enum Wait {
    /// The time ran out.
    TimedOut,
    /// Anything else: the program ended, said an error.
    Failed(anyhow::Error),
}

impl ExternalEngine {
    /// Starts `command` (a program and its arguments, separated by spaces), shakes hands and
    /// sets the rules and one search thread; the handshake must end within `timeout`
    /// (`Ok(None)` when it does not: the player then loses its games on time).
    pub fn start(
        command: &str,
        rules: &Rules,
        (hash_mb, threads): (usize, usize),
        timeout: Duration,
    ) -> Result<Option<Self>> {
        let mut words = command.split_whitespace();
        let program = words.next().context("an empty engine command")?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start the engine '{command}'"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            bail!("the engine '{command}' has no pipes");
        };
        let (to, lines) = mpsc::channel();
        // The reader ends with the program's output (the channel then says so).
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if to.send(line).is_err() {
                    return;
                }
            }
        });
        let mut c = ExternalEngine {
            name: command.to_string(),
            child,
            stdin,
            lines,
            holes: rules.holes(),
            timeout,
        };
        let deadline = Instant::now() + timeout;
        c.send("hoyito")?;
        match c.until("hoyitook", deadline) {
            Ok(_) => {}
            Err(Wait::TimedOut) => return Ok(None),
            Err(Wait::Failed(e)) => return Err(e),
        }
        for (name, value) in [
            ("Variant", rules.variant().to_string()),
            ("Holes", rules.holes().to_string()),
            ("Seeds", rules.seeds().to_string()),
            ("LastFour", rules.last_four().to_string()),
            ("CaptureSide", rules.capture_side().to_string()),
            ("Threads", threads.to_string()),
            ("Hash", hash_mb.to_string()),
        ] {
            c.send(&format!("setoption name {name} value {value}"))?;
        }
        c.send("isready")?;
        match c.until("readyok", deadline) {
            Ok(_) => Ok(Some(c)),
            Err(Wait::TimedOut) => Ok(None),
            Err(Wait::Failed(e)) => Err(e),
        }
    }

    fn send(&mut self, line: &str) -> Result<()> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .with_context(|| format!("the engine '{}' closed its input", self.name))
    }

    /// Reads lines up to one that starts with `word`, before `deadline`; returns it. An
    /// error line of the engine is an error.
    fn until(&mut self, word: &str, deadline: Instant) -> std::result::Result<String, Wait> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(Wait::TimedOut),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Wait::Failed(anyhow::anyhow!(
                        "the engine '{}' stopped before '{word}'",
                        self.name
                    )))
                }
            };
            if let Some(e) = line.strip_prefix("info string error: ") {
                return Err(Wait::Failed(anyhow::anyhow!(
                    "the engine '{}' said: {}",
                    self.name,
                    e.trim_end()
                )));
            }
            if line.starts_with(word) {
                return Ok(line.trim_end().to_string());
            }
        }
    }

    /// The engine's move in the game from `start` after `moves`, searched with `go ARGS`
    /// (`depth 4`, `movetime 100`) after `ucinewgame`, within `movetime` (none for a depth)
    /// and the timeout beyond it.
    pub fn best<const W: usize>(
        &mut self,
        start: &Position<W>,
        moves: &[Move],
        (go, movetime): (&str, Option<Duration>),
    ) -> Result<Reply> {
        // Each move searched from an empty table, as the players in process do.
        self.send("ucinewgame")?;
        let mut line = format!("position pos {start}");
        if !moves.is_empty() {
            line.push_str(" moves");
            for m in moves {
                line.push_str(&format!(" {m}"));
            }
        }
        self.send(&line)?;
        self.send(&format!("go {go}"))?;
        let deadline = Instant::now() + movetime.unwrap_or_default() + self.timeout;
        let answer = match self.until("bestmove", deadline) {
            Ok(a) => a,
            Err(Wait::TimedOut) => return Ok(Reply::TimedOut),
            Err(Wait::Failed(e)) => return Err(e),
        };
        match answer.split_whitespace().nth(1) {
            Some("none") => Ok(Reply::Move(None)),
            Some(m) => parse_move(m, self.holes)
                .map(|m| Reply::Move(Some(m)))
                .with_context(|| format!("the engine '{}' answered '{answer}'", self.name)),
            None => bail!("the engine '{}' answered '{answer}'", self.name),
        }
    }
}

impl Drop for ExternalEngine {
    /// Asks the program to quit, and kills it if it has not within half a second.
    fn drop(&mut self) {
        let _ = self.send("quit");
        let end = Instant::now() + QUIT_GRACE;
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
