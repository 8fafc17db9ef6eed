//! Reading game records (the format of `record.rs`, described in full in `data/RECORDS.md`):
//! tag lines and move tokens, each game replayed under its rules, every fault an error that
//! names its line and column.

use std::fmt;

use crate::error::{PlayError, RulesError};
use crate::game::{Game, Winner};
use crate::moves::Move;
use crate::notation::Diagram;
use crate::options::{CaptureSide, LastFour, Rules, Side, Variant};
use crate::position::Position12;
use crate::record::{result_text, Note, Ply, Record, Termination, KNOWN_TAGS};

/// What is wrong in a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordErrorKind {
    /// The text holds no game.
    Empty,
    /// One game was expected; a second starts here.
    SeveralGames,
    /// A tag line is not `[Name "value"]`.
    MalformedTag(String),
    /// A tag given twice in one game.
    DuplicateTag(String),
    /// A tag whose value is not allowed.
    BadTag {
        /// The tag.
        tag: String,
        /// Why.
        reason: String,
    },
    /// The rule tags make no valid rules.
    Rules(RulesError),
    /// A word of the moves that is not a move, a comment, a marker or a result.
    BadToken(String),
    /// A comment that is not closed.
    UnclosedComment,
    /// A comment before the first move.
    CommentWithoutMove,
    /// A move of the side not to move.
    WrongSide {
        /// The move token.
        token: String,
        /// The side to move.
        to_move: Side,
    },
    /// A move that the rules do not allow.
    Illegal {
        /// The move token.
        token: String,
        /// Why.
        error: PlayError,
    },
    /// A move whose capture count differs from the rules' result.
    WrongCapture {
        /// The move token.
        token: String,
        /// Seeds the move captures under the record's rules.
        captured: u8,
    },
    /// A move after the end of the game or after the lost-seeds marker.
    AfterEnd(String),
    /// A tag or marker that the moves contradict.
    Mismatch {
        /// What disagrees (`Result`, `Score`, `End`, the lost-seeds marker).
        what: &'static str,
        /// What the record says.
        record: String,
        /// What replaying the moves gives.
        replay: String,
    },
}

/// An error in a record's text: what is wrong and where (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// The line.
    pub line: usize,
    /// The character column in the line.
    pub column: usize,
    /// What is wrong.
    pub kind: RecordErrorKind,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RecordErrorKind::*;
        write!(f, "line {}, column {}: ", self.line, self.column)?;
        match &self.kind {
            Empty => write!(f, "no game in the record"),
            SeveralGames => write!(f, "a second game starts here; one game was expected"),
            MalformedTag(why) => write!(f, "malformed tag line: {why}"),
            DuplicateTag(t) => write!(f, "tag {t} given twice"),
            BadTag { tag, reason } => write!(f, "tag {tag}: {reason}"),
            Rules(e) => write!(f, "the rule tags: {e}"),
            BadToken(t) => write!(
                f,
                "unexpected '{t}': expected a move such as S5 or N2x8, a comment {{...}}, \
                 a lost-seeds marker ~N, or a result (1-0, 0-1, 1/2-1/2, *)"
            ),
            UnclosedComment => write!(f, "a comment opened with '{{' is not closed"),
            CommentWithoutMove => write!(f, "a comment must follow a move"),
            WrongSide { token, to_move } => write!(
                f,
                "{token}: it is {}'s turn here",
                match to_move {
                    Side::South => "South",
                    Side::North => "North",
                }
            ),
            Illegal { token, error } => write!(f, "{token}: {error}"),
            WrongCapture { token, captured } => write!(
                f,
                "{token}: under the record's rules this move captures {captured} seeds \
                 (was the record read under other rules?)"
            ),
            AfterEnd(t) => write!(f, "{t}: the game is already over"),
            Mismatch {
                what,
                record,
                replay,
            } => write!(f, "{what} is '{record}' but the moves give '{replay}'"),
        }
    }
}

impl std::error::Error for RecordError {}

/// A word of a record's text and where it starts.
#[derive(Clone, Debug)]
struct Token {
    text: String,
    line: usize,
    column: usize,
}

/// A game's text before it is checked: its tags and its movetext words.
#[derive(Default)]
struct RawGame {
    first_line: usize,
    tags: Vec<(Token, Token)>,
    words: Vec<Token>,
    /// The result word that closed the movetext, if any.
    closed: bool,
}

fn error(t: &Token, kind: RecordErrorKind) -> RecordError {
    RecordError {
        line: t.line,
        column: t.column,
        kind,
    }
}

fn is_result(w: &str) -> bool {
    matches!(w, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// Parses a tag line `[Name "value"]` (the line trimmed at its start at char column `col`).
fn parse_tag(line: &str, no: usize, col: usize) -> Result<(Token, Token), RecordError> {
    let bad = |c: usize, why: &str| RecordError {
        line: no,
        column: c,
        kind: RecordErrorKind::MalformedTag(why.to_string()),
    };
    let chars: Vec<char> = line.chars().collect();
    let mut i = 1; // after '['
    let name_start = i;
    while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
        i += 1;
    }
    if i == name_start {
        return Err(bad(col + i, "expected a tag name after '['"));
    }
    let name: String = chars[name_start..i].iter().collect();
    while i < chars.len() && chars[i] == ' ' {
        i += 1;
    }
    if chars.get(i) != Some(&'"') {
        return Err(bad(col + i, "expected '\"' before the tag's value"));
    }
    i += 1;
    let value_col = col + i;
    let mut value = String::new();
    loop {
        match chars.get(i) {
            None => return Err(bad(col + i, "the value's closing '\"' is missing")),
            Some('"') => break,
            Some('\\') => match chars.get(i + 1) {
                Some(&c) if c == '"' || c == '\\' => {
                    value.push(c);
                    i += 2;
                }
                Some('n') => {
                    value.push('\n');
                    i += 2;
                }
                Some('r') => {
                    value.push('\r');
                    i += 2;
                }
                _ => {
                    return Err(bad(
                        col + i,
                        "'\\' escapes only '\"', '\\' and the line ends 'n' and 'r'",
                    ))
                }
            },
            Some(&c) => {
                value.push(c);
                i += 1;
            }
        }
    }
    i += 1;
    while i < chars.len() && chars[i] == ' ' {
        i += 1;
    }
    if chars.get(i) != Some(&']') {
        return Err(bad(col + i, "expected ']' after the tag's value"));
    }
    if i + 1 < chars.len() && !chars[i + 1..].iter().all(|c| c.is_whitespace()) {
        return Err(bad(col + i + 1, "text after the tag's ']'"));
    }
    Ok((
        Token {
            text: name,
            line: no,
            column: col + name_start,
        },
        Token {
            text: value,
            line: no,
            column: value_col,
        },
    ))
}

/// Splits a text into games: tag lines and movetext words, comments kept whole.
fn split_games(text: &str) -> Result<Vec<RawGame>, RecordError> {
    let mut games: Vec<RawGame> = Vec::new();
    let mut cur: Option<RawGame> = None;
    // An open comment: its start and the text so far.
    let mut comment: Option<Token> = None;
    for (i, line) in text.lines().enumerate() {
        let no = i + 1;
        let chars: Vec<char> = line.chars().collect();
        let mut j = 0;
        if comment.is_none() {
            let lead = chars.iter().take_while(|c| c.is_whitespace()).count();
            if chars.get(lead) == Some(&'[') {
                let in_moves = cur.as_ref().is_some_and(|g| !g.words.is_empty());
                if in_moves || cur.as_ref().is_some_and(|g| g.closed) {
                    games.extend(cur.take());
                }
                let g = cur.get_or_insert_with(|| RawGame {
                    first_line: no,
                    ..RawGame::default()
                });
                let trimmed: String = chars[lead..].iter().collect();
                g.tags.push(parse_tag(&trimmed, no, lead + 1)?);
                continue;
            }
        }
        while j < chars.len() {
            if let Some(c) = comment.as_mut() {
                match chars[j..].iter().position(|&c| c == '}') {
                    Some(k) => {
                        c.text.extend(&chars[j..j + k + 1]);
                        j += k + 1;
                        let done = comment.take().expect("an open comment");
                        let g = cur.as_mut().expect("a comment belongs to a game");
                        g.words.push(done);
                    }
                    None => {
                        c.text.extend(&chars[j..]);
                        c.text.push(' ');
                        j = chars.len();
                    }
                }
                continue;
            }
            if chars[j].is_whitespace() {
                j += 1;
                continue;
            }
            if cur.as_ref().is_some_and(|g| g.closed) {
                games.extend(cur.take());
            }
            let g = cur.get_or_insert_with(|| RawGame {
                first_line: no,
                ..RawGame::default()
            });
            if chars[j] == '{' {
                comment = Some(Token {
                    text: String::new(),
                    line: no,
                    column: j + 1,
                });
                continue;
            }
            let start = j;
            while j < chars.len() && !chars[j].is_whitespace() && chars[j] != '{' {
                j += 1;
            }
            let word: String = chars[start..j].iter().collect();
            g.closed = is_result(&word);
            g.words.push(Token {
                text: word,
                line: no,
                column: start + 1,
            });
        }
    }
    if let Some(c) = comment {
        return Err(error(&c, RecordErrorKind::UnclosedComment));
    }
    games.extend(cur);
    Ok(games)
}

/// Reads the content of a comment (without its braces).
pub(crate) fn parse_note(text: &str) -> Note {
    let mut note = Note::default();
    let mut free = Vec::new();
    for w in text.split_whitespace() {
        if let Some(v) = w.strip_prefix("value=").and_then(|v| v.parse::<i32>().ok()) {
            note.value = Some(v);
        } else if w == "exact" {
            note.exact = true;
        } else if let Some(m) = w.strip_prefix("best=").and_then(|v| v.parse::<u8>().ok()) {
            note.best = Some(Move(m));
        } else if let Some(t) = w.strip_prefix("time=").and_then(parse_seconds) {
            note.time_ms = Some(t);
        } else {
            free.push(w);
        }
    }
    note.text = free.join(" ");
    note
}

/// Seconds with at most three decimals, as milliseconds.
fn parse_seconds(s: &str) -> Option<u64> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty()
        || frac.len() > 3
        || !(int.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let ms: u64 = format!("{frac:0<3}").parse().ok()?;
    int.parse::<u64>().ok()?.checked_mul(1000)?.checked_add(ms)
}

/// A move token: side, hole, captured seeds.
fn parse_move_token(w: &str) -> Option<(Side, u8, u8)> {
    let side = match w.chars().next()? {
        'S' => Side::South,
        'N' => Side::North,
        _ => return None,
    };
    let rest = &w[1..];
    let (hole, cap) = match rest.split_once('x') {
        Some((h, c)) => (h, Some(c)),
        None => (rest, None),
    };
    let num = |s: &str| -> Option<u8> {
        (!s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u8>().ok())
            .flatten()
    };
    let hole = num(hole)?;
    let captured = match cap {
        Some(c) => num(c).filter(|&c| c > 0)?,
        None => 0,
    };
    Some((side, hole, captured))
}

/// The tags of a game, read into their fields.
struct Tags<'a> {
    get: Vec<(&'a Token, &'a Token)>,
}

impl<'a> Tags<'a> {
    fn value(&self, name: &str) -> Option<&'a Token> {
        self.get
            .iter()
            .find(|(k, _)| k.text == name)
            .map(|&(_, v)| v)
    }

    fn parse<T>(
        &self,
        name: &str,
        f: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, RecordError> {
        match self.value(name) {
            None => Ok(None),
            Some(v) => f(&v.text).map(Some).map_err(|reason| {
                error(
                    v,
                    RecordErrorKind::BadTag {
                        tag: name.to_string(),
                        reason,
                    },
                )
            }),
        }
    }
}

fn parse_number(s: &str) -> Result<usize, String> {
    if s.is_empty() || s.len() > 6 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{s}' is not a number"));
    }
    s.parse().map_err(|_| format!("'{s}' is not a number"))
}

fn parse_rule<T: std::str::FromStr<Err = RulesError>>(s: &str) -> Result<T, String> {
    s.parse().map_err(|e: RulesError| e.to_string())
}

fn parse_result(s: &str) -> Result<Option<Winner>, String> {
    match s {
        "1-0" => Ok(Some(Winner::Side(Side::South))),
        "0-1" => Ok(Some(Winner::Side(Side::North))),
        "1/2-1/2" => Ok(Some(Winner::Draw)),
        "*" => Ok(None),
        _ => Err(format!("'{s}' is not 1-0, 0-1, 1/2-1/2 or *")),
    }
}

fn parse_score(s: &str) -> Result<[u8; 2], String> {
    let bad = || format!("'{s}' is not South-North captured seeds, e.g. 28-20");
    let (a, b) = s.split_once('-').ok_or_else(bad)?;
    let n = |x: &str| parse_number(x).ok().and_then(|v| u8::try_from(v).ok());
    Ok([n(a).ok_or_else(bad)?, n(b).ok_or_else(bad)?])
}

/// The `End` tag's word, `resignation` with no side yet.
fn parse_end(s: &str) -> Result<Termination, String> {
    Ok(match s {
        "last-four" => Termination::LastFour,
        "no-moves" => Termination::NoMoves,
        "repetition" => Termination::Repetition,
        "resignation" => Termination::Resignation(Side::South),
        "unfinished" => Termination::Unfinished,
        _ => {
            return Err(format!(
                "'{s}' is not last-four, no-moves, repetition, resignation or unfinished"
            ))
        }
    })
}

fn mismatch(t: &Token, what: &'static str, record: String, replay: String) -> RecordError {
    error(
        t,
        RecordErrorKind::Mismatch {
            what,
            record,
            replay,
        },
    )
}

/// The rules and start that a game's tags give.
fn rules_and_start(tags: &Tags, first: &Token) -> Result<(Rules, Position12), RecordError> {
    let variant: Variant = tags
        .parse("Variant", parse_rule)?
        .unwrap_or(Variant::Hoyito2);
    let seeds = tags.parse("Seeds", parse_number)?.unwrap_or(4);
    let last_four: LastFour = tags
        .parse("LastFour", parse_rule)?
        .unwrap_or(LastFour::Capturer);
    let capture_side: CaptureSide = tags
        .parse("CaptureSide", parse_rule)?
        .unwrap_or(CaptureSide::Any);
    let diagram = tags.parse("Start", |s| s.parse::<Diagram>().map_err(|e| e.to_string()))?;
    let bad_start = |reason: String| {
        error(
            tags.value("Start").expect("a Start tag"),
            RecordErrorKind::BadTag {
                tag: "Start".into(),
                reason,
            },
        )
    };
    let holes = match (tags.parse("Holes", parse_number)?, &diagram) {
        (Some(h), Some(d)) if h != d.holes() => {
            return Err(bad_start(format!(
                "{} holes a row, but the Holes tag says {h}",
                d.holes()
            )))
        }
        (Some(h), _) => h,
        (None, Some(d)) => d.holes(),
        (None, None) => 6,
    };
    let rules = Rules::new(variant, holes, seeds, last_four, capture_side).map_err(|e| {
        let at = tags.value("Holes").or(tags.value("Seeds")).unwrap_or(first);
        error(at, RecordErrorKind::Rules(e))
    })?;
    let start = match &diagram {
        Some(d) => Position12::from_diagram(&rules, d).map_err(|e| bad_start(e.to_string()))?,
        None => Position12::start(&rules).expect("valid rules give a start"),
    };
    Ok((rules, start))
}

/// A game's moves replayed: the game, its plies with their notes, and the lost-seeds
/// marker and result word met on the way.
struct Replay<'a> {
    game: Game<4>,
    plies: Vec<Ply>,
    lost_marker: Option<(&'a Token, u8)>,
    result_word: Option<(&'a Token, Option<Winner>)>,
}

/// Replays the movetext `words` from `start`: every move must be the side to move's, legal,
/// and capture what the token says.
fn replay(words: &[Token], rules: Rules, start: Position12) -> Result<Replay<'_>, RecordError> {
    let mut r = Replay {
        game: Game::<4>::new(rules, start),
        plies: Vec::new(),
        lost_marker: None,
        result_word: None,
    };
    for w in words {
        let token = || w.text.clone();
        if r.result_word.is_some() {
            return Err(error(w, RecordErrorKind::AfterEnd(token())));
        }
        if let Some(body) = w.text.strip_prefix('{') {
            let body = body.strip_suffix('}').unwrap_or(body);
            let Some(last) = r.plies.last_mut() else {
                return Err(error(w, RecordErrorKind::CommentWithoutMove));
            };
            let note = parse_note(body);
            if !note.is_empty() {
                last.note = Some(note);
            }
            continue;
        }
        if is_result(&w.text) {
            r.result_word = Some((w, parse_result(&w.text).expect("a result word")));
            continue;
        }
        if let Some(n) = w.text.strip_prefix('~') {
            let v = parse_number(n)
                .ok()
                .and_then(|v| u8::try_from(v).ok())
                .ok_or_else(|| error(w, RecordErrorKind::BadToken(token())))?;
            r.lost_marker = Some((w, v));
            continue;
        }
        let Some((side, hole, captured)) = parse_move_token(&w.text) else {
            return Err(error(w, RecordErrorKind::BadToken(token())));
        };
        if r.game.is_over() || r.lost_marker.is_some() {
            return Err(error(w, RecordErrorKind::AfterEnd(token())));
        }
        let to_move = r.game.position().side_to_move();
        if side != to_move {
            return Err(error(
                w,
                RecordErrorKind::WrongSide {
                    token: token(),
                    to_move,
                },
            ));
        }
        let child = r.game.play(Move(hole)).map_err(|e| {
            error(
                w,
                RecordErrorKind::Illegal {
                    token: token(),
                    error: e,
                },
            )
        })?;
        if child.captured != captured {
            return Err(error(
                w,
                RecordErrorKind::WrongCapture {
                    token: token(),
                    captured: child.captured,
                },
            ));
        }
        r.plies.push(Ply {
            side,
            mv: Move(hole),
            captured,
            note: None,
        });
    }
    Ok(r)
}

/// Checks the `End`, `Score` and `Result` tags, the result word and the lost-seeds marker
/// against the record the moves give; a resignation takes its side from the result.
fn check_outcome(record: &mut Record, tags: &Tags, replay: &Replay) -> Result<(), RecordError> {
    let result_tag = tags.parse("Result", parse_result)?;
    let score_tag = tags.parse("Score", parse_score)?;
    if let Some(end) = tags.parse("End", parse_end)? {
        let t = tags.value("End").expect("an End tag");
        match (record.termination, end) {
            (Termination::Unfinished, Termination::Resignation(_)) => {
                let winner = result_tag
                    .flatten()
                    .or(replay.result_word.and_then(|(_, w)| w));
                let Some(Winner::Side(s)) = winner else {
                    return Err(error(
                        t,
                        RecordErrorKind::BadTag {
                            tag: "End".into(),
                            reason: "a resignation needs a result that names the winner \
                                     (1-0 or 0-1)"
                                .into(),
                        },
                    ));
                };
                record.termination = Termination::Resignation(s.opponent());
            }
            (got, want) if got == want => {}
            (got, want) => {
                return Err(mismatch(
                    t,
                    "the End tag",
                    want.tag().into(),
                    if got == Termination::Unfinished {
                        "unfinished (the moves do not end the game)".into()
                    } else {
                        got.tag().into()
                    },
                ))
            }
        }
    }
    if let Some(score) = score_tag.filter(|&s| s != record.score) {
        return Err(mismatch(
            tags.value("Score").expect("a Score tag"),
            "the Score tag",
            format!("{}-{}", score[0], score[1]),
            format!("{}-{}", record.score[0], record.score[1]),
        ));
    }
    if let Some(result) = result_tag.filter(|&w| w != record.winner()) {
        return Err(mismatch(
            tags.value("Result").expect("a Result tag"),
            "the Result tag",
            result_text(result).into(),
            record.result().into(),
        ));
    }
    if let Some((t, _)) = replay.result_word.filter(|&(_, w)| w != record.winner()) {
        return Err(mismatch(
            t,
            "the result",
            t.text.clone(),
            record.result().into(),
        ));
    }
    if let Some((t, _)) = replay.lost_marker.filter(|&(_, v)| v != record.lost) {
        return Err(mismatch(
            t,
            "the lost-seeds marker",
            t.text.clone(),
            format!("~{}", record.lost),
        ));
    }
    Ok(())
}

/// Checks a game: its tags, then its moves by replay, then its outcome against the tags.
fn check(raw: &RawGame) -> Result<Record, RecordError> {
    let first = Token {
        text: String::new(),
        line: raw.first_line,
        column: 1,
    };
    for (i, (k, _)) in raw.tags.iter().enumerate() {
        if raw.tags[..i].iter().any(|(j, _)| j.text == k.text) {
            return Err(error(k, RecordErrorKind::DuplicateTag(k.text.clone())));
        }
    }
    let tags = Tags {
        get: raw.tags.iter().map(|(k, v)| (k, v)).collect(),
    };
    let (rules, start) = rules_and_start(&tags, &first)?;
    let round = tags.parse("Round", |s| {
        parse_number(s)
            .ok()
            .filter(|&n| n >= 1)
            .map(|n| n as u32)
            .ok_or_else(|| format!("'{s}' is not a round number (1, 2, ...)"))
    })?;
    let replay = replay(&raw.words, rules, start)?;
    let mut record = Record::from_game(&replay.game);
    record.plies = replay.plies.clone();
    record.start = start;
    check_outcome(&mut record, &tags, &replay)?;
    let text_of = |name: &str| tags.value(name).map(|v| v.text.clone());
    record.south = text_of("South").unwrap_or_else(|| "?".into());
    record.north = text_of("North").unwrap_or_else(|| "?".into());
    record.date = text_of("Date");
    record.match_name = text_of("Match");
    record.round = round;
    record.tags = raw
        .tags
        .iter()
        .filter(|(k, _)| !KNOWN_TAGS.contains(&k.text.as_str()))
        .map(|(k, v)| (k.text.clone(), v.text.clone()))
        .collect();
    Ok(record)
}

/// Reads every game of a text (games follow each other; each is its tag lines, then its
/// moves, ending with a result or where the next tag lines start), checking each by replay.
///
/// ```
/// use hoyito_rules::read_records;
/// let games = read_records("[Variant \"hoyito3\"]\nS1 N1 *\n\n[Variant \"hoyito2\"]\nS2 *\n").unwrap();
/// assert_eq!(games.len(), 2);
/// let e = read_records("S1 S3\n").unwrap_err();
/// assert_eq!((e.line, e.column), (1, 4));
/// assert!(e.to_string().contains("North's turn"));
/// ```
pub fn read_records(text: &str) -> Result<Vec<Record>, RecordError> {
    let games = split_games(text)?;
    if games.is_empty() {
        return Err(RecordError {
            line: 1,
            column: 1,
            kind: RecordErrorKind::Empty,
        });
    }
    games.iter().map(check).collect()
}

impl std::str::FromStr for Record {
    type Err = RecordError;

    /// Reads a text of exactly one game (see [`read_records`]).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut games = read_records(text)?;
        if games.len() > 1 {
            let second = split_games(text)?.remove(1);
            return Err(RecordError {
                line: second.first_line,
                column: 1,
                kind: RecordErrorKind::SeveralGames,
            });
        }
        Ok(games.remove(0))
    }
}
