//! One game of `solve play`: the loop that asks each side for a move, the prompt's commands,
//! and what is printed after each ply.

use std::io::BufRead;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use hoyito_rules::{
    parse_move, read_records, Game, Move, Note, Position, Record, Rules, Side, Termination, Trace,
    Winner,
};

use super::players::{Choice, Engine, Strength};
use super::{Out, Seat};
use crate::draw::{draw_marked, side_name, Marks};

/// The session's input (standard input for the `solve` command), read one line at a time
/// by a thread of its own, so that `stop` can be read while the engine thinks.
pub struct Input {
    lines: Receiver<String>,
    /// The next line, read while the engine thought (`Some(None)`: the end of the input).
    ahead: Option<Option<String>>,
    /// Whether standard input is a terminal (else each line read is echoed after the prompt,
    /// so that a scripted game reads like a typed one).
    pub terminal: bool,
}

/// What the next line of input says while the engine thinks.
enum Watch {
    /// Nothing typed yet.
    Nothing,
    /// `stop` (taken from the input).
    Stop,
    /// Another line, or the end of the input: kept for the prompt.
    Other,
}

impl Input {
    /// Lines read from `reader`; `terminal` says whether a person types them (else each
    /// line is echoed after the prompt).
    pub fn new(mut reader: impl BufRead + Send + 'static, terminal: bool) -> Self {
        let (to, lines) = mpsc::channel();
        // The reader ends at the end of the input (the channel then says so) or with the
        // process.
        std::thread::spawn(move || {
            let stdin = &mut reader;
            loop {
                let mut bytes = Vec::new();
                match stdin.read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        // Bytes that are not UTF-8 are replaced.
                        let text = String::from_utf8_lossy(&bytes);
                        let line = text.trim_end_matches(['\n', '\r']).to_string();
                        if to.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Input {
            lines,
            ahead: None,
            terminal,
        }
    }

    /// The next line, `None` at the end of the input or when it cannot be read.
    fn line(&mut self) -> Option<String> {
        match self.ahead.take() {
            Some(line) => line,
            None => self.lines.recv().ok(),
        }
    }

    /// Waits up to `wait` for the next line while the engine thinks: `stop` is taken, any
    /// other line waits for the prompt (and nothing after it is looked at).
    fn watch(&mut self, wait: Duration) -> Watch {
        if self.ahead.is_none() {
            self.ahead = match self.lines.recv_timeout(wait) {
                Ok(line) => Some(Some(line)),
                Err(RecvTimeoutError::Timeout) => return Watch::Nothing,
                Err(RecvTimeoutError::Disconnected) => Some(None),
            };
        }
        match &self.ahead {
            Some(Some(line)) if line.trim().eq_ignore_ascii_case("stop") => {
                self.ahead = None;
                Watch::Stop
            }
            _ => Watch::Other,
        }
    }
}

/// How often the input is looked at for `stop` while the engine thinks.
const WATCH_PERIOD: Duration = Duration::from_millis(20);

/// How a game left off.
pub struct Played {
    /// The game's record (finished, resigned or unfinished).
    pub record: Record,
    /// Whether the person quit (a match then stops).
    pub quit: bool,
}

/// What a prompt command asks the game loop to do next.
enum Flow {
    Continue,
    Quit,
}

/// A game in progress.
pub struct Session<'a, const W: usize> {
    rules: Rules,
    game: Game<W>,
    /// The note of each move played, aligned with the game's moves.
    notes: Vec<Option<Note>>,
    /// The notes of the moves taken back, the next to redo last.
    undone_notes: Vec<Option<Note>>,
    seats: [Seat; 2],
    engine: &'a mut Engine<W>,
    eval: bool,
    resigned: Option<Side>,
    out: &'a mut Out,
    input: &'a mut Input,
    /// Fills in the record's date, match and round.
    dress: &'a dyn Fn(&mut Record),
    /// Called with the record whenever the game changes (kept for Ctrl-C).
    pending: &'a dyn Fn(&Record),
}

/// The name of hole `i` (an index `0 .. 2H`): `S3`, `N5`.
fn hole_name(i: usize, holes: usize) -> String {
    if i < holes {
        format!("S{}", i + 1)
    } else {
        format!("N{}", i - holes + 1)
    }
}

/// Laps shown in full before a long trace is shortened.
const TRACE_LAPS: usize = 10;

/// The sowing trace as one line: the start, then where each lap ended and the seeds there.
fn trace_line(t: &Trace, holes: usize) -> String {
    let lap = |l: &hoyito_rules::Lap| format!("{} ({})", hole_name(l.landing, holes), l.seeds);
    let laps: Vec<String> = if t.laps.len() <= TRACE_LAPS {
        t.laps.iter().map(lap).collect()
    } else {
        let n = t.laps.len();
        let mut v: Vec<String> = t.laps[..6].iter().map(lap).collect();
        v.push(format!("... {} laps ...", n - 9));
        v.extend(t.laps[n - 3..].iter().map(lap));
        v
    };
    format!(
        "sowing from {}, {} lap{}: {}",
        hole_name(t.start(), holes),
        t.laps.len(),
        if t.laps.len() == 1 { "" } else { "s" },
        laps.join(" -> ")
    )
}

/// The prompt's commands, for `help`.
const HELP: &str = "\
commands:
  1..H          play that hole of your row
  moves         the legal moves and what they capture
  hint          the best move and its value
  eval on|off   after each ply, the value for you and the final score it predicts
  analyse       the value of every legal move
  undo [N]      take back your last N turns (the engine's extra turns with them)
  redo          play again what undo took back
  save FILE     write the game so far as a record
  load FILE     continue the game of a record (same rules)
  swap          exchange the players of the two sides
  board         draw the board again
  resign        give up the game
  quit          stop (the game is recorded as unfinished)
while the engine thinks, stop (or Ctrl-C) makes it move now; Ctrl-C at the prompt, or twice
in one think, quits (the game is recorded as unfinished)
";

impl<'a, const W: usize> Session<'a, W> {
    /// A game from `game` (with `notes` for its moves, if any).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        game: Game<W>,
        notes: Vec<Option<Note>>,
        seats: [Seat; 2],
        engine: &'a mut Engine<W>,
        eval: bool,
        out: &'a mut Out,
        input: &'a mut Input,
        dress: &'a dyn Fn(&mut Record),
        pending: &'a dyn Fn(&Record),
    ) -> Self {
        let mut notes = notes;
        notes.resize(game.moves().len(), None);
        Session {
            rules: *game.rules(),
            game,
            notes,
            undone_notes: Vec::new(),
            seats,
            engine,
            eval,
            resigned: None,
            out,
            input,
            dress,
            pending,
        }
    }

    /// The record of the game as it stands.
    fn record(&self) -> Record {
        let mut r = Record::from_game(&self.game);
        for (ply, note) in r.plies.iter_mut().zip(&self.notes) {
            ply.note = note.clone();
        }
        if let Some(s) = self.resigned {
            r.resign(s);
        }
        r.south = self.seats[0].name();
        r.north = self.seats[1].name();
        (self.dress)(&mut r);
        r
    }

    fn say(&mut self, text: &str) {
        self.out.say(text);
    }

    /// Draws the current board, with `marks`.
    fn board(&mut self, marks: &Marks) {
        let text = draw_marked(&self.game.position(), marks, self.out.colour);
        self.say(&text);
    }

    /// Plays the game to its end, or until the person quits.
    pub fn run(mut self) -> Played {
        self.board(&Marks::default());
        let quit = loop {
            (self.pending)(&self.record());
            if self.game.is_over() || self.resigned.is_some() {
                break false;
            }
            let p = self.game.position();
            let side = p.side_to_move();
            match self.seats[side.index()] {
                Seat::Human => match self.prompt() {
                    Flow::Continue => {}
                    Flow::Quit => break true,
                },
                Seat::Engine(strength) => {
                    let choice = self.think(&p, strength);
                    match choice {
                        Some(c) => self.play(c.mv, Some(c.note)),
                        // A settled position always has a move; stop rather than loop.
                        None => break true,
                    }
                }
                Seat::Random(_) => {
                    let list = p.moves(&self.rules);
                    let n = list.len();
                    if n == 0 {
                        break true;
                    }
                    let mv = list.children()[self.engine.rng().below(n)].mv;
                    self.play(mv, None);
                }
            }
        };
        let record = self.record();
        self.announce_end(&record);
        Played { record, quit }
    }

    /// The engine's move in `p`. While it thinks, a `stop` typed (the next line of input)
    /// or Ctrl-C makes it move now; a search that may take long says so first.
    fn think(&mut self, p: &Position<W>, strength: Strength) -> Option<Choice> {
        // Ctrl-C stops the search from before the person is told so.
        let stop = super::thinking_begins();
        let long = self.engine.may_take_long(strength, p);
        if long {
            self.say(&format!(
                "{} thinks (type stop or press Ctrl-C to make it move now)\n",
                side_name(p.side_to_move())
            ));
        }
        let rules = self.rules;
        let (engine, input) = (&mut *self.engine, &mut *self.input);
        let done = AtomicBool::new(false);
        let (choice, typed) = std::thread::scope(|s| {
            // Only a long search is watched: a short one would wait for the watcher.
            let watcher = long.then(|| {
                s.spawn(|| {
                    while !done.load(Ordering::Relaxed) {
                        match input.watch(WATCH_PERIOD) {
                            Watch::Nothing => {}
                            Watch::Stop => return super::ask_to_move(),
                            Watch::Other => return false,
                        }
                    }
                    false
                })
            });
            let choice = engine.choose(&rules, p, strength, stop);
            done.store(true, Ordering::Relaxed);
            let typed = watcher.is_some_and(|w| w.join().unwrap_or(false));
            (choice, typed)
        });
        let asked = super::thinking_ends();
        if typed {
            self.say("stop: the engine moves now\n");
        }
        choice.map(|mut c| {
            if asked {
                c.note.text = "stopped".to_string();
            }
            c
        })
    }

    /// Says how the game ended.
    fn announce_end(&mut self, r: &Record) {
        let [s, n] = r.score;
        let how = match r.termination {
            Termination::LastFour => "a capture left the last seeds".to_string(),
            Termination::NoMoves => "no side has a legal move".to_string(),
            Termination::Repetition => "a position repeated".to_string(),
            Termination::Resignation(side) => format!("{} resigned", side_name(side)),
            Termination::Unfinished => {
                self.say(&format!("game stopped, unfinished: South {s}, North {n}\n"));
                return;
            }
        };
        let lost = if r.lost > 0 {
            format!(" ({} seeds left to nobody)", r.lost)
        } else {
            String::new()
        };
        let winner = match r.winner() {
            Some(Winner::Side(side)) => format!("{} wins", side_name(side)),
            _ => "draw".to_string(),
        };
        self.say(&format!(
            "game over: {how}. {winner}, South {s} - North {n}{lost}\n"
        ));
    }

    /// Plays a legal move and prints what it did.
    fn play(&mut self, mv: Move, note: Option<Note>) {
        let before = self.game.position();
        let trace = match before.trace(&self.rules, mv) {
            Ok(t) => t,
            Err(e) => {
                self.say(&format!("{e}\n"));
                return;
            }
        };
        let child = match self.game.play(mv) {
            Ok(c) => c,
            Err(e) => {
                self.say(&format!("{e}\n"));
                return;
            }
        };
        self.notes.push(note);
        self.undone_notes.clear();
        self.show_ply(&before, &trace, &child);
    }

    /// Prints a ply: the move, its sowing, the marked board, passes and the evaluation.
    fn show_ply(&mut self, before: &Position<W>, t: &Trace, child: &hoyito_rules::Child<W>) {
        let h = self.rules.holes();
        let mover = before.side_to_move();
        let mut line = format!(
            "{} plays {}{}",
            side_name(mover),
            mover.letter(),
            t.mv.hole()
        );
        if child.captured > 0 {
            let holes: Vec<String> = t.captured_holes.iter().map(|&i| hole_name(i, h)).collect();
            line.push_str(&format!(
                ": captures {} ({})",
                child.captured,
                holes.join(", ")
            ));
            if !child.ended_game {
                line.push_str(", moves again");
            }
        }
        line.push('\n');
        line.push_str(&format!("  {}\n", trace_line(t, h)));
        if child.ended_game && child.awarded > 0 {
            let to = self.rules.last_four_to(mover);
            line.push_str(&format!(
                "  the last {} seeds go to {}\n",
                child.awarded,
                side_name(to)
            ));
        }
        self.say(&line);
        self.board(&Marks {
            start: Some(t.start()),
            landing: Some(t.landing()),
            captured: t.captured_holes.clone(),
        });
        let now = self.game.position();
        if !self.game.is_over() && now.side_to_move() != child.position.side_to_move() {
            let passer = child.position.side_to_move();
            self.say(&format!(
                "{} has no legal move and passes\n",
                side_name(passer)
            ));
        }
        if self.eval && !self.game.is_over() {
            self.show_eval();
        }
    }

    /// The side the evaluation speaks for: the person's (the side to move when both or
    /// neither are people).
    fn eval_side(&self) -> Side {
        let to_move = self.game.position().side_to_move();
        match (self.seats[0] == Seat::Human, self.seats[1] == Seat::Human) {
            (true, false) => Side::South,
            (false, true) => Side::North,
            _ => to_move,
        }
    }

    /// Prints the value for the person and the final score it predicts.
    fn show_eval(&mut self) {
        let p = self.game.position();
        let r = self.engine.analyse(&p);
        let side = self.eval_side();
        let v = if side == p.side_to_move() {
            r.score
        } else {
            -r.score
        };
        let n = p.seeds_on_board() as i32;
        // The seeds on the board split so that the difference is the value (a heuristic
        // value may be odd, or beyond the seeds left).
        let gain = (n + v).div_euclid(2).clamp(0, n);
        let mine = p.captured(side) as i32 + gain;
        let theirs = p.captured(side.opponent()) as i32 + n - gain;
        let (s, no) = if side == Side::South {
            (mine, theirs)
        } else {
            (theirs, mine)
        };
        self.say(&format!(
            "eval: {v:+} for {}{}; predicted final score South {s} - North {no}\n",
            side_name(side),
            if r.exact {
                " (exact)".to_string()
            } else {
                format!(" (depth {})", r.depth)
            }
        ));
    }

    /// Asks the person to move and runs the commands typed until one moves, ends or quits.
    fn prompt(&mut self) -> Flow {
        let side = self.game.position().side_to_move();
        self.out.prompt(&format!("{}> ", side_name(side)));
        let Some(line) = self.input.line() else {
            self.say("(end of input)\n");
            return Flow::Quit;
        };
        if !self.input.terminal {
            self.say(&format!("{line}\n"));
        }
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else {
            return Flow::Continue;
        };
        let rest: Vec<&str> = words.collect();
        let arg = rest.first().copied();
        match first.to_ascii_lowercase().as_str() {
            w if w.bytes().all(|b| b.is_ascii_digit()) => match parse_move(w, self.rules.holes()) {
                Ok(mv) => match self.game.position().play(&self.rules, mv) {
                    Ok(_) => self.play(mv, None),
                    Err(e) => self.say(&format!("{e}\n")),
                },
                // A number too large for any hole is named as typed.
                Err(_) => self.say(&format!(
                    "move {w} is out of range: holes are numbered 1 to {}\n",
                    self.rules.holes()
                )),
            },
            "moves" => self.list_moves(),
            "hint" => {
                let r = self.engine.analyse(&self.game.position());
                let text = match r.best {
                    Some(m) => format!(
                        "hint: play {m} (value {:+}{})\n",
                        r.score,
                        if r.exact {
                            ", exact".to_string()
                        } else {
                            format!(", depth {}, not proven", r.depth)
                        }
                    ),
                    None => "hint: no move to play\n".to_string(),
                };
                self.say(&text);
            }
            "eval" => match arg {
                Some("on") => {
                    self.eval = true;
                    self.show_eval();
                }
                Some("off") => {
                    self.eval = false;
                    self.say("eval off\n");
                }
                _ => self.say("eval takes on or off\n"),
            },
            "analyse" | "analyze" => {
                let rows = self.engine.analyse_moves(&self.game.position());
                let mut text = String::new();
                for (m, v, exact) in rows {
                    let e = if exact { " (exact)" } else { "" };
                    text.push_str(&format!("  {m}: {v:+}{e}\n"));
                }
                self.say(&text);
            }
            "undo" => match arg.map(str::parse::<usize>) {
                None => self.undo(1),
                Some(Ok(n)) if n >= 1 => self.undo(n),
                Some(_) => self.say("undo takes a number of turns, 1 or more\n"),
            },
            "redo" => self.redo(),
            "save" => match arg {
                Some(path) => self.save(Path::new(path)),
                None => self.say("save takes a file name\n"),
            },
            "load" => match arg {
                Some(path) => self.load(Path::new(path)),
                None => self.say("load takes a file name\n"),
            },
            "swap" => {
                self.seats.swap(0, 1);
                let text = format!(
                    "South is now {}, North {}\n",
                    self.seats[0].name(),
                    self.seats[1].name()
                );
                self.say(&text);
            }
            "board" | "show" => self.board(&Marks::default()),
            "resign" => {
                self.resigned = Some(side);
                self.say(&format!("{} resigns\n", side_name(side)));
            }
            "stop" => self.say("stop: the engine is not thinking (quit ends the game)\n"),
            "quit" | "exit" => return Flow::Quit,
            "help" | "?" => self.say(HELP),
            other => self.say(&format!("unknown command '{other}': type help\n")),
        }
        Flow::Continue
    }

    fn list_moves(&mut self) {
        let p = self.game.position();
        let list = p.moves(&self.rules);
        let mut text = String::new();
        for c in list.children() {
            let mut notes = Vec::new();
            if c.captured > 0 {
                notes.push(format!("captures {}", c.captured));
            }
            if c.extra_turn && !c.ended_game {
                notes.push("moves again".to_string());
            }
            if c.ended_game {
                notes.push("ends the game".to_string());
            }
            let line = format!("  {}  {}", c.mv, notes.join(", "));
            text.push_str(line.trim_end());
            text.push('\n');
        }
        for m in list.endless() {
            text.push_str(&format!("  {m}  illegal: its sowing never ends\n"));
        }
        self.say(&text);
    }

    fn is_human(&self, side: Side) -> bool {
        self.seats[side.index()] == Seat::Human
    }

    /// Takes back `n` of the person's turns: each time, back to the last position before
    /// the current one where a person was to move.
    fn undo(&mut self, n: usize) {
        let mut plies = 0;
        for _ in 0..n {
            let len = self.game.moves().len();
            let target = (0..len)
                .rev()
                .find(|&k| self.is_human(self.game.positions()[k].side_to_move()));
            let Some(k) = target else { break };
            for _ in k..len {
                if self.game.undo().is_some() {
                    let note = self.notes.pop().flatten();
                    self.undone_notes.push(note);
                    plies += 1;
                }
            }
        }
        if plies == 0 {
            self.say("nothing to undo\n");
            return;
        }
        self.resigned = None;
        self.say(&format!("took back {plies} plies\n"));
        self.board(&Marks::default());
    }

    /// Plays again what undo took back, up to the next turn of a person.
    fn redo(&mut self) {
        let mut plies = 0;
        loop {
            match self.game.redo() {
                Ok(Some(_)) => {
                    let note = self.undone_notes.pop().flatten();
                    self.notes.push(note);
                    plies += 1;
                }
                Ok(None) => break,
                Err(e) => {
                    self.say(&format!("{e}\n"));
                    break;
                }
            }
            let p = self.game.position();
            if self.game.is_over() || self.is_human(p.side_to_move()) {
                break;
            }
        }
        if plies == 0 {
            self.say("nothing to redo\n");
            return;
        }
        self.say(&format!("replayed {plies} plies\n"));
        self.board(&Marks::default());
    }

    fn save(&mut self, path: &Path) {
        let text = self.record().to_string();
        match std::fs::write(path, text) {
            Ok(()) => self.say(&format!("saved to {}\n", path.display())),
            Err(e) => self.say(&format!("cannot write {}: {e}\n", path.display())),
        }
    }

    fn load(&mut self, path: &Path) {
        let loaded = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
            .and_then(|text| read_records(&text).map_err(|e| format!("{}: {e}", path.display())))
            .and_then(|mut records| {
                let r = records.pop().expect("a record holds a game");
                if r.rules != self.rules {
                    return Err(format!(
                        "{} is a game of other rules ({}); this game plays {}",
                        path.display(),
                        r.rules,
                        self.rules
                    ));
                }
                let game = r.game::<W>().map_err(|e| e.to_string())?;
                Ok((r, game))
            });
        match loaded {
            Ok((r, game)) => {
                self.notes = r.plies.iter().map(|p| p.note.clone()).collect();
                self.undone_notes.clear();
                self.game = game;
                self.resigned = match r.termination {
                    Termination::Resignation(s) => Some(s),
                    _ => None,
                };
                self.say(&format!(
                    "loaded {} ({} plies)\n",
                    path.display(),
                    r.plies.len()
                ));
                self.board(&Marks::default());
            }
            Err(e) => self.say(&format!("{e}\n")),
        }
    }
}
