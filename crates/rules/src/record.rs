//! Game records: a text format modelled on chess's PGN, and its writer (its reader is in
//! `record_reader.rs`).
//!
//! ```text
//! [Variant "hoyito2"]
//! [Holes "6"]
//! [Seeds "4"]
//! [LastFour "capturer"]
//! [CaptureSide "any"]
//! [Start "4,4,4,4,4,4/4,4,4,4,4,4 S 0-0"]
//! [South "human"]
//! [North "engine level 3"]
//! [Result "0-1"]
//! [Score "20-28"]
//! [End "last-four"]
//!
//! S1 N3 {value=+4 exact best=3 time=0.120} S4 N6x4 N2 ... 0-1
//! ```
//!
//! A move token names the side, the hole and the seeds the move captured (`S5x8`; no `x`
//! when it captured nothing); passes are not written. `data/RECORDS.md` describes the
//! format in full. Reading a record replays every move under the record's rules, so a move
//! of the wrong side, an illegal move, a wrong capture count or a result that the moves do
//! not give is an error that names the line and column.

use std::fmt;

use crate::game::{End, Game, Winner};
use crate::moves::Move;
use crate::options::{Rules, Side};
use crate::position::{Position, Position12};

/// How a recorded game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// A capture left 4 or fewer seeds, which went to the last-four winner.
    LastFour,
    /// Neither side had a legal move; the seeds left belong to nobody.
    NoMoves,
    /// A position occurred for the second time; the seeds left belong to nobody.
    Repetition,
    /// This side resigned: the other side wins, whatever the seeds say.
    Resignation(Side),
    /// The game stopped before its end (it may be continued).
    Unfinished,
}

impl Termination {
    /// The word of the `End` tag.
    pub fn tag(&self) -> &'static str {
        match self {
            Termination::LastFour => "last-four",
            Termination::NoMoves => "no-moves",
            Termination::Repetition => "repetition",
            Termination::Resignation(_) => "resignation",
            Termination::Unfinished => "unfinished",
        }
    }

    /// Whether the game is finished (not [`Termination::Unfinished`]).
    pub fn is_finished(&self) -> bool {
        *self != Termination::Unfinished
    }
}

/// What a player noted about a move: the value of the position before it for the mover,
/// whether that value is exact, the best move there, and the time the move took.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Note {
    /// The value of the position before the move, for the mover.
    pub value: Option<i32>,
    /// Whether `value` is proven.
    pub exact: bool,
    /// The best move of the position before the move.
    pub best: Option<Move>,
    /// Milliseconds the move took.
    pub time_ms: Option<u64>,
    /// Free text (words separated by single spaces; no braces).
    pub text: String,
}

impl Note {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Note::default()
    }
}

impl fmt::Display for Note {
    /// The comment's content, without the braces: `value=+8 exact best=2 time=0.120 text`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words = Vec::new();
        if let Some(v) = self.value {
            words.push(format!("value={v:+}"));
        }
        if self.exact {
            words.push("exact".to_string());
        }
        if let Some(m) = self.best {
            words.push(format!("best={m}"));
        }
        if let Some(t) = self.time_ms {
            words.push(format!("time={}.{:03}", t / 1000, t % 1000));
        }
        if !self.text.is_empty() {
            words.push(self.text.clone());
        }
        f.write_str(&words.join(" "))
    }
}

/// One move of a record: the side that played it, the hole, the seeds it captured (the
/// last-four award not included) and an optional note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The mover.
    pub side: Side,
    /// The hole played.
    pub mv: Move,
    /// Seeds the move captured (chain included, last-four award not).
    pub captured: u8,
    /// A comment after the move.
    pub note: Option<Note>,
}

impl fmt::Display for Ply {
    /// The move token, `S5x8` or `N2`, without the note.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.side, self.mv)?;
        if self.captured > 0 {
            write!(f, "x{}", self.captured)?;
        }
        Ok(())
    }
}

/// A game with its rules, start, players and outcome.
///
/// Build one from a played [`Game`] with [`Record::from_game`], write it with
/// [`Record::to_text`] (or `Display`, which does not check that the text reads back), read
/// records back with [`read_records`](crate::read_records) (or `str::parse` for a text of
/// one game).
///
/// ```
/// use hoyito_rules::{Game, Move, Position6, Record, Rules};
/// let r = Rules::default();
/// let mut g = Game::new(r, Position6::start(&r).unwrap());
/// g.play(Move(1)).unwrap();
/// let mut rec = Record::from_game(&g);
/// rec.south = "Ana".to_string();
/// let text = rec.to_string();
/// assert!(text.contains("[South \"Ana\"]"));
/// assert!(text.contains("S1 *"));
/// let back: Record = text.parse().unwrap();
/// assert_eq!(back, rec);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The rules played.
    pub rules: Rules,
    /// The starting position (in the largest position type, for every board size).
    pub start: Position12,
    /// South's player.
    pub south: String,
    /// North's player.
    pub north: String,
    /// The date, `YYYY.MM.DD` as in PGN.
    pub date: Option<String>,
    /// The match the game belongs to.
    pub match_name: Option<String>,
    /// The game's round in its match (from 1).
    pub round: Option<u32>,
    /// The moves, passes left out.
    pub plies: Vec<Ply>,
    /// How the game ended.
    pub termination: Termination,
    /// Seeds captured by South and North at the end (the last-four award included).
    pub score: [u8; 2],
    /// Seeds left on the board to nobody (a game ended by repetition or with no moves).
    pub lost: u8,
    /// Other tags, in the order read, kept as they were: each name letters, digits and `_`,
    /// none of the format's own tags, none twice (the writer refuses others, see
    /// [`RecordWriteErrorKind`]).
    pub tags: Vec<(String, String)>,
}

/// The tags the format defines, in the order they are written.
pub(crate) const KNOWN_TAGS: [&str; 14] = [
    "Variant",
    "Holes",
    "Seeds",
    "LastFour",
    "CaptureSide",
    "Start",
    "South",
    "North",
    "Date",
    "Match",
    "Round",
    "Result",
    "Score",
    "End",
];

impl Record {
    /// The record of a game as played so far: [`Termination::Unfinished`] unless the game is
    /// over (see [`Record::resign`]).
    pub fn from_game<const W: usize>(game: &Game<W>) -> Record {
        let rules = *game.rules();
        let positions = game.positions();
        let mut plies = Vec::with_capacity(game.moves().len());
        let mut last_ended = false;
        for (p, &mv) in positions.iter().zip(game.moves()) {
            let child = p.play(&rules, mv).expect("the moves of a game are legal");
            last_ended = child.ended_game;
            plies.push(Ply {
                side: p.side_to_move(),
                mv,
                captured: child.captured,
                note: None,
            });
        }
        let end = game.position();
        let termination = match game.end() {
            None => Termination::Unfinished,
            Some(End::Repetition) => Termination::Repetition,
            Some(End::NoMoves) if last_ended => Termination::LastFour,
            Some(End::NoMoves) => Termination::NoMoves,
        };
        let lost = match termination {
            Termination::NoMoves | Termination::Repetition => end.seeds_on_board() as u8,
            _ => 0,
        };
        Record {
            rules,
            start: positions[0]
                .cast::<4>()
                .expect("every board fits the largest type"),
            south: "?".to_string(),
            north: "?".to_string(),
            date: None,
            match_name: None,
            round: None,
            plies,
            termination,
            score: [end.captured(Side::South), end.captured(Side::North)],
            lost,
            tags: Vec::new(),
        }
    }

    /// Records that `side` resigned an unfinished game (a finished game is left as it is).
    pub fn resign(&mut self, side: Side) {
        if self.termination == Termination::Unfinished {
            self.termination = Termination::Resignation(side);
        }
    }

    /// The winner: by resignation, else by the seeds; `None` while unfinished.
    pub fn winner(&self) -> Option<Winner> {
        match self.termination {
            Termination::Unfinished => None,
            Termination::Resignation(s) => Some(Winner::Side(s.opponent())),
            _ => Some(match self.score[0].cmp(&self.score[1]) {
                std::cmp::Ordering::Greater => Winner::Side(Side::South),
                std::cmp::Ordering::Less => Winner::Side(Side::North),
                std::cmp::Ordering::Equal => Winner::Draw,
            }),
        }
    }

    /// The result as PGN writes it: `1-0` (South won), `0-1`, `1/2-1/2` or `*`.
    pub fn result(&self) -> &'static str {
        result_text(self.winner())
    }

    /// The game replayed in a position type of `W` words.
    pub fn game<const W: usize>(&self) -> Result<Game<W>, crate::Error> {
        let start = self
            .start
            .cast::<W>()
            .ok_or(crate::PositionError::TooLargeForType {
                holes: self.rules.holes(),
                max: Position::<W>::MAX_HOLES,
            })?;
        let mut g = Game::new(self.rules, start);
        for ply in &self.plies {
            g.play(ply.mv)?;
        }
        Ok(g)
    }

    /// Every tag as written: the known ones first, in a fixed order, then the others.
    pub fn tag_lines(&self) -> Vec<(String, String)> {
        let r = &self.rules;
        let mut out: Vec<(String, String)> = vec![
            ("Variant".into(), r.variant().to_string()),
            ("Holes".into(), r.holes().to_string()),
            ("Seeds".into(), r.seeds().to_string()),
            ("LastFour".into(), r.last_four().to_string()),
            ("CaptureSide".into(), r.capture_side().to_string()),
            ("Start".into(), self.start.to_string()),
            ("South".into(), self.south.clone()),
            ("North".into(), self.north.clone()),
        ];
        if let Some(d) = &self.date {
            out.push(("Date".into(), d.clone()));
        }
        if let Some(m) = &self.match_name {
            out.push(("Match".into(), m.clone()));
        }
        if let Some(n) = self.round {
            out.push(("Round".into(), n.to_string()));
        }
        out.push(("Result".into(), self.result().into()));
        out.push((
            "Score".into(),
            format!("{}-{}", self.score[0], self.score[1]),
        ));
        out.push(("End".into(), self.termination.tag().into()));
        out.extend(self.tags.iter().cloned());
        out
    }
}

pub(crate) fn result_text(w: Option<Winner>) -> &'static str {
    match w {
        None => "*",
        Some(Winner::Side(Side::South)) => "1-0",
        Some(Winner::Side(Side::North)) => "0-1",
        Some(Winner::Draw) => "1/2-1/2",
    }
}

/// A tag's value as written between its quotes: `\\`, `\"`, and the line ends `\n` and `\r`
/// escaped (a tag is one line).
fn escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// Movetext lines are wrapped before this many characters.
const LINE: usize = 80;

impl fmt::Display for Record {
    /// The record's text: the tag lines, a blank line, the moves wrapped at 80 columns with
    /// the lost-seeds marker and the result last, and a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in self.tag_lines() {
            writeln!(f, "[{k} \"{}\"]", escape(&v))?;
        }
        writeln!(f)?;
        let mut tokens: Vec<String> = Vec::new();
        for p in &self.plies {
            tokens.push(p.to_string());
            if let Some(n) = p.note.as_ref().filter(|n| !n.is_empty()) {
                tokens.push(format!("{{{n}}}"));
            }
        }
        if self.lost > 0 {
            tokens.push(format!("~{}", self.lost));
        }
        tokens.push(self.result().to_string());
        let mut width = 0;
        for t in tokens {
            if width > 0 && width + 1 + t.len() >= LINE {
                writeln!(f)?;
                width = 0;
            }
            if width > 0 {
                f.write_str(" ")?;
                width += 1;
            }
            f.write_str(&t)?;
            width += t.len();
        }
        writeln!(f)
    }
}

/// Writes several records as one text, separated by blank lines, as they are (see
/// [`try_write_records`] for the writer that refuses a record that would not read back).
pub fn write_records(records: &[Record]) -> String {
    records
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writes several records as one text, separated by blank lines, or says which record
/// would not read back the same and why (see [`Record::to_text`]).
pub fn try_write_records(records: &[Record]) -> Result<String, RecordWriteError> {
    for (i, r) in records.iter().enumerate() {
        r.writable()
            .map_err(|kind| RecordWriteError { record: i, kind })?;
    }
    Ok(write_records(records))
}

/// A record that cannot be written so that it reads back the same: which one and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordWriteError {
    /// The record's index among those written (0 for [`Record::to_text`]).
    pub record: usize,
    /// Why.
    pub kind: RecordWriteErrorKind,
}

/// Why a record cannot be written so that it reads back the same. Every player name, date,
/// match name and tag value can be written (quotes, backslashes and line ends are escaped);
/// what is refused is a tag name, a round or a note's text that the format has no way to
/// write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordWriteErrorKind {
    /// A name in [`Record::tags`] that is empty or holds more than ASCII letters, digits and
    /// `_`.
    TagName(String),
    /// A name in [`Record::tags`] that is one of the format's own tags (those have fields).
    KnownTag(String),
    /// A name given twice in [`Record::tags`].
    RepeatedTag(String),
    /// Round 0: rounds count from 1.
    RoundZero,
    /// A note whose free text would read back otherwise: a `}` (it would close the
    /// comment), spaces other than single spaces between words, or a word the reader takes
    /// for a field (`exact`, `value=+2`, `best=3`, `time=1.5`).
    NoteText {
        /// The move (0-based index in [`Record::plies`]).
        ply: usize,
        /// The text.
        text: String,
    },
}

impl fmt::Display for RecordWriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}: ", self.record + 1)?;
        match &self.kind {
            RecordWriteErrorKind::TagName(t) => write!(
                f,
                "tag name {t:?}: a tag name is one or more ASCII letters, digits and '_'"
            ),
            RecordWriteErrorKind::KnownTag(t) => {
                write!(f, "tag {t} is one of the format's own tags; set its field")
            }
            RecordWriteErrorKind::RepeatedTag(t) => write!(f, "tag {t} given twice"),
            RecordWriteErrorKind::RoundZero => write!(f, "round 0: rounds count from 1"),
            RecordWriteErrorKind::NoteText { ply, text } => write!(
                f,
                "the note of move {}: the text {text:?} would not read back as written \
                 (no '}}', words separated by single spaces, no word read as a field such \
                 as 'exact' or 'value=+2')",
                ply + 1
            ),
        }
    }
}

impl std::error::Error for RecordWriteError {}

impl Record {
    /// The record's text, as `Display` writes it, or why that text would not read back as
    /// this record (see [`RecordWriteErrorKind`]).
    ///
    /// ```
    /// use hoyito_rules::{Game, Position6, Record, RecordWriteErrorKind, Rules};
    /// let r = Rules::default();
    /// let mut rec = Record::from_game(&Game::new(r, Position6::start(&r).unwrap()));
    /// rec.south = "Ana \"la Reina\"\nde Baní".to_string();
    /// let text = rec.to_text().unwrap();
    /// assert!(text.contains(r#"[South "Ana \"la Reina\"\nde Baní"]"#));
    /// assert_eq!(text.parse::<Record>().unwrap(), rec);
    /// rec.tags.push(("Event name".to_string(), "final".to_string()));
    /// let e = rec.to_text().unwrap_err();
    /// assert_eq!(e.kind, RecordWriteErrorKind::TagName("Event name".to_string()));
    /// ```
    pub fn to_text(&self) -> Result<String, RecordWriteError> {
        self.writable()
            .map_err(|kind| RecordWriteError { record: 0, kind })?;
        Ok(self.to_string())
    }

    /// Whether the record's text reads back as this record.
    fn writable(&self) -> Result<(), RecordWriteErrorKind> {
        for (i, (name, _)) in self.tags.iter().enumerate() {
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(RecordWriteErrorKind::TagName(name.clone()));
            }
            if KNOWN_TAGS.contains(&name.as_str()) {
                return Err(RecordWriteErrorKind::KnownTag(name.clone()));
            }
            if self.tags[..i].iter().any(|(n, _)| n == name) {
                return Err(RecordWriteErrorKind::RepeatedTag(name.clone()));
            }
        }
        if self.round == Some(0) {
            return Err(RecordWriteErrorKind::RoundZero);
        }
        for (ply, p) in self.plies.iter().enumerate() {
            let Some(note) = &p.note else { continue };
            let text = &note.text;
            let alone = Note {
                text: text.clone(),
                ..Note::default()
            };
            if text.contains('}') || crate::record_reader::parse_note(text) != alone {
                return Err(RecordWriteErrorKind::NoteText {
                    ply,
                    text: text.clone(),
                });
            }
        }
        Ok(())
    }
}
