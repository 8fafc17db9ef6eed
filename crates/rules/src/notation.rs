//! Position notation: `South's row/North's row side [S-N]`, e.g.
//! `4,4,4,4,4,4/4,4,4,4,4,4 S 0-0`. Rows are in sowing order.

use std::str::FromStr;

use crate::error::{ParseError, ParseErrorKind};
use crate::options::{Side, MAX_HOLES, MIN_HOLES};

/// Most seeds one hole can hold in any game the library plays (2 x 12 holes x 8 seeds).
pub const MAX_SEEDS_IN_HOLE: u32 = 192;

/// A parsed position, not yet checked against a set of rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagram {
    /// South's row in sowing order.
    pub south: Vec<u8>,
    /// North's row in sowing order.
    pub north: Vec<u8>,
    /// The side to move.
    pub side: Side,
    /// Seeds captured by South and North, if given.
    pub captured: Option<[u16; 2]>,
}

impl Diagram {
    /// Holes per row.
    pub fn holes(&self) -> usize {
        self.south.len()
    }

    /// Seeds on the board, both rows.
    pub fn seeds_on_board(&self) -> usize {
        self.south
            .iter()
            .chain(&self.north)
            .map(|&s| usize::from(s))
            .sum()
    }
}

fn err(kind: ParseErrorKind, byte: usize, text: &str) -> ParseError {
    ParseError {
        kind,
        column: text[..byte.min(text.len())].chars().count() + 1,
    }
}

/// Splits on ASCII whitespace, keeping each token's byte offset.
fn tokens(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((s, &text[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    out
}

fn parse_row(text: &str, row: &str, offset: usize) -> Result<Vec<u8>, ParseError> {
    let mut out = Vec::new();
    let mut at = offset;
    for field in row.split(',') {
        if field.is_empty() {
            return Err(err(ParseErrorKind::EmptyHole, at, text));
        }
        if !field.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err(ParseErrorKind::NotANumber(field.to_string()), at, text));
        }
        match field.parse::<u32>() {
            Ok(v) if v <= MAX_SEEDS_IN_HOLE => out.push(v as u8),
            _ => {
                return Err(err(
                    ParseErrorKind::TooManySeeds(field.to_string()),
                    at,
                    text,
                ))
            }
        }
        at += field.len() + 1;
    }
    Ok(out)
}

impl FromStr for Diagram {
    type Err = ParseError;

    /// Parses the notation of RULES.md.
    ///
    /// ```
    /// use hoyito_rules::Diagram;
    /// let d: Diagram = "2,3,4,0,4,1/3,3,3,1,1,3 S 12-0".parse().unwrap();
    /// assert_eq!(d.captured, Some([12, 0]));
    /// let e = "2,3,x,0,4,1/3,3,3,1,1,3 S".parse::<Diagram>().unwrap_err();
    /// assert_eq!(e.column, 5);
    /// ```
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let toks = tokens(text);
        let Some(&(board_at, board)) = toks.first() else {
            return Err(err(ParseErrorKind::Empty, 0, text));
        };
        let mut rows = board.splitn(3, '/');
        let south_text = rows.next().unwrap_or("");
        let Some(north_text) = rows.next() else {
            return Err(err(
                ParseErrorKind::MissingSlash,
                board_at + board.len(),
                text,
            ));
        };
        let north_at = board_at + south_text.len() + 1;
        if let Some(_extra) = rows.next() {
            let at = north_at + north_text.len();
            return Err(err(ParseErrorKind::ExtraSlash, at, text));
        }
        let south = parse_row(text, south_text, board_at)?;
        let north = parse_row(text, north_text, north_at)?;
        if south.len() != north.len() {
            return Err(err(
                ParseErrorKind::UnequalRows {
                    south: south.len(),
                    north: north.len(),
                },
                north_at,
                text,
            ));
        }
        if !(MIN_HOLES..=MAX_HOLES).contains(&south.len()) {
            return Err(err(ParseErrorKind::RowLength(south.len()), board_at, text));
        }
        let Some(&(side_at, side_text)) = toks.get(1) else {
            return Err(err(ParseErrorKind::MissingSide, text.len(), text));
        };
        let side = match side_text {
            "S" => Side::South,
            "N" => Side::North,
            other => {
                return Err(err(
                    ParseErrorKind::BadSide(other.to_string()),
                    side_at,
                    text,
                ))
            }
        };
        let captured = match toks.get(2) {
            None => None,
            Some(&(at, c)) => {
                let bad = || err(ParseErrorKind::BadCaptured(c.to_string()), at, text);
                let (a, b) = c.split_once('-').ok_or_else(bad)?;
                let num = |s: &str| -> Option<u16> {
                    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                        return None;
                    }
                    s.parse::<u16>()
                        .ok()
                        .filter(|&v| v <= MAX_SEEDS_IN_HOLE as u16)
                };
                Some([num(a).ok_or_else(bad)?, num(b).ok_or_else(bad)?])
            }
        };
        if let Some(&(at, extra)) = toks.get(3) {
            return Err(err(ParseErrorKind::Trailing(extra.to_string()), at, text));
        }
        Ok(Diagram {
            south,
            north,
            side,
            captured,
        })
    }
}

/// Parses a move, a hole number `1 ..= holes`.
///
/// ```
/// use hoyito_rules::{parse_move, Move};
/// assert_eq!(parse_move("3", 6), Ok(Move(3)));
/// assert!(parse_move("7", 6).is_err());
/// assert!(parse_move("x", 6).is_err());
/// ```
pub fn parse_move(text: &str, holes: usize) -> Result<crate::Move, crate::PlayError> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(crate::PlayError::NotAMove(text.to_string()));
    }
    match t.parse::<usize>() {
        Ok(v) if (1..=holes).contains(&v) => Ok(crate::Move(v as u8)),
        Ok(v) => Err(crate::PlayError::OutOfRange { hole: v, holes }),
        Err(_) => Err(crate::PlayError::NumberTooLarge {
            text: t.to_string(),
            holes,
        }),
    }
}
