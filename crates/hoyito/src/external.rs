//! A program that speaks the engine protocol (data/PROTOCOL.md), such as an older
//! `solve engine`, driven as a player of a match.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{bail, Context as _, Result};
use hoyito_rules::{parse_move, Move, Position, Rules};

/// A running program that speaks the engine protocol.
pub struct ExternalEngine {
    /// The command line, for messages.
    name: String,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    holes: usize,
}

impl ExternalEngine {
    /// Starts `command` (a program and its arguments, separated by spaces), shakes hands and
    /// sets the rules and one search thread.
    pub fn start(command: &str, rules: &Rules, hash_mb: usize, threads: usize) -> Result<Self> {
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
        let mut c = ExternalEngine {
            name: command.to_string(),
            child,
            stdin,
            stdout: BufReader::new(stdout),
            holes: rules.holes(),
        };
        c.send("hoyito")?;
        c.until("hoyitook")?;
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
        c.until("readyok")?;
        Ok(c)
    }

    fn send(&mut self, line: &str) -> Result<()> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .with_context(|| format!("the engine '{}' closed its input", self.name))
    }

    /// Reads lines up to one that starts with `word`; returns it. An error line of the
    /// engine is an error.
    fn until(&mut self, word: &str) -> Result<String> {
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .with_context(|| format!("reading the engine '{}'", self.name))?;
            if n == 0 {
                bail!("the engine '{}' stopped before '{word}'", self.name);
            }
            if let Some(e) = line.strip_prefix("info string error: ") {
                bail!("the engine '{}' said: {}", self.name, e.trim_end());
            }
            if line.starts_with(word) {
                return Ok(line.trim_end().to_string());
            }
        }
    }

    /// The engine's move in the game from `start` after `moves`, searched with `go ARGS`
    /// (`depth 4`, `movetime 100`) after `ucinewgame`; `None` when it answers
    /// `bestmove none`.
    pub fn best<const W: usize>(
        &mut self,
        start: &Position<W>,
        moves: &[Move],
        go: &str,
    ) -> Result<Option<Move>> {
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
        let answer = self.until("bestmove")?;
        match answer.split_whitespace().nth(1) {
            Some("none") => Ok(None),
            Some(m) => parse_move(m, self.holes)
                .map(Some)
                .with_context(|| format!("the engine '{}' answered '{answer}'", self.name)),
            None => bail!("the engine '{}' answered '{answer}'", self.name),
        }
    }
}

impl Drop for ExternalEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}
