//! The rules of Hoyito II and III as `data/RULES.md` states them, written plainly: a board
//! is a `Vec<u8>` of `2H` holes in sowing order (South's row, then North's), a move is
//! played lap by lap on a copy of it.
//!
//! This code shares nothing with the engine's rules crate: it exists so that a proof can be
//! checked by code that is small enough to read in one sitting.

use std::fmt;

/// A player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Owns holes `0 .. H`.
    South,
    /// Owns holes `H .. 2H`.
    North,
}

impl Side {
    /// The other player.
    pub fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// `S` or `N`, as in the position notation.
    pub fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }
}

/// Chain captures (Hoyito II) or the landing hole only (Hoyito III).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `hoyito2`: after a capture, the holes before it holding exactly 4 are taken too.
    Hoyito2,
    /// `hoyito3`: only the landing hole is taken.
    Hoyito3,
}

/// Who receives the seeds left on the board when a capture ends the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastFour {
    /// `capturer`: the player who made the capture.
    Capturer,
    /// `S`: South.
    South,
    /// `N`: North.
    North,
}

/// Which rows may be captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureSide {
    /// `any`: either row.
    Any,
    /// `opponent`: only the opponent's row, chain links included.
    Opponent,
}

/// The rule options a game depends on. The seeds a hole at the start do not enter: the
/// board says how many seeds are in play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Holes per row, 2 ..= 12.
    pub holes: usize,
    /// Chain captures or not.
    pub variant: Variant,
    /// Who takes the last seeds.
    pub last_four: LastFour,
    /// Which rows may be captured.
    pub capture_side: CaptureSide,
}

impl Rules {
    /// Fewest holes a row.
    pub const MIN_HOLES: usize = 2;
    /// Most holes a row.
    pub const MAX_HOLES: usize = 12;

    /// The side that receives the seeds left when `capturer`'s capture ends the game.
    pub fn last_four_to(&self, capturer: Side) -> Side {
        match self.last_four {
            LastFour::Capturer => capturer,
            LastFour::South => Side::South,
            LastFour::North => Side::North,
        }
    }

    /// The owner of hole `index` (`0 .. 2H`).
    pub fn owner(&self, index: usize) -> Side {
        if index < self.holes {
            Side::South
        } else {
            Side::North
        }
    }

    /// Whether `mover` may capture in hole `index`.
    fn may_capture(&self, mover: Side, index: usize) -> bool {
        match self.capture_side {
            CaptureSide::Any => true,
            CaptureSide::Opponent => self.owner(index) != mover,
        }
    }
}

impl fmt::Display for Rules {
    /// The form of a certificate's `rules` line, e.g.
    /// `holes=6 variant=hoyito2 last_four=capturer capture_side=any`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let variant = match self.variant {
            Variant::Hoyito2 => "hoyito2",
            Variant::Hoyito3 => "hoyito3",
        };
        let last_four = match self.last_four {
            LastFour::Capturer => "capturer",
            LastFour::South => "S",
            LastFour::North => "N",
        };
        let capture_side = match self.capture_side {
            CaptureSide::Any => "any",
            CaptureSide::Opponent => "opponent",
        };
        write!(
            f,
            "holes={} variant={variant} last_four={last_four} capture_side={capture_side}",
            self.holes
        )
    }
}

/// A board and the side to move (captured seeds play no part in what follows).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Seeds of holes `0 .. 2H` in sowing order: South's row, then North's.
    pub board: Vec<u8>,
    /// The side to move.
    pub side: Side,
}

/// Why a move cannot be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// The hole number is not in `1 ..= H`.
    OutOfRange,
    /// The hole is empty.
    Empty,
    /// Its sowing never ends (a sowing state repeats).
    Endless,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Illegal::OutOfRange => "no such hole",
            Illegal::Empty => "the hole is empty",
            Illegal::Endless => "its sowing never ends",
        })
    }
}

/// The result of a legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The position after the move, before any pass: the mover moves again after a capture,
    /// else the opponent. When the game ended, the board is the one the capture left (its
    /// seeds were awarded).
    pub next: Position,
    /// Seeds South took in this move minus seeds North took, the last-four award included.
    pub south_gain: i32,
    /// Seeds the mover captured (the award not included).
    pub captured: u32,
    /// Whether the move ended the game by leaving 4 or fewer seeds on the board.
    pub ended: bool,
}

impl Position {
    /// Seeds on the board.
    pub fn seeds(&self) -> u32 {
        self.board.iter().map(|&s| s as u32).sum()
    }

    /// The board index of hole number `hole` (`1 ..= H`) of `side`.
    pub fn index_of(rules: &Rules, side: Side, hole: usize) -> usize {
        match side {
            Side::South => hole - 1,
            Side::North => rules.holes + hole - 1,
        }
    }

    /// Plays hole `hole` (`1 ..= H`) of the side to move.
    pub fn play(&self, rules: &Rules, hole: usize) -> Result<Played, Illegal> {
        let size = 2 * rules.holes;
        let mover = self.side;
        if hole < 1 || hole > rules.holes {
            return Err(Illegal::OutOfRange);
        }
        let start = Position::index_of(rules, mover, hole);
        if self.board[start] == 0 {
            return Err(Illegal::Empty);
        }
        let mut board = self.board.clone();
        // Endless sowing is found exactly by Brent's cycle detection on the state between
        // laps (the board and the hole the next lap is lifted from), which alone decides the
        // rest of the move: `saved` is a state seen before; if the current state equals it,
        // the sowing repeats forever. `saved` moves to the current state after 1, 2, 4, ...
        // laps, so any cycle is found once the saved state lies on it and the power of two
        // exceeds the cycle's length.
        let mut from = start;
        let mut saved: (Vec<u8>, usize) = (board.clone(), from);
        let mut power: u64 = 1;
        let mut laps_since_saved: u64 = 0;
        let landing = loop {
            let seeds = board[from];
            board[from] = 0;
            let mut at = from;
            for _ in 0..seeds {
                at = (at + 1) % size;
                board[at] += 1;
            }
            let count = board[at];
            if count == 4 && rules.may_capture(mover, at) {
                break Some(at);
            }
            if count == 1 {
                break None;
            }
            // Relay from the landing hole.
            from = at;
            if saved.1 == from && saved.0 == board {
                return Err(Illegal::Endless);
            }
            laps_since_saved += 1;
            if laps_since_saved == power {
                saved = (board.clone(), from);
                power *= 2;
                laps_since_saved = 0;
            }
        };
        let mut captured = 0u32;
        if let Some(at) = landing {
            captured += board[at] as u32;
            board[at] = 0;
            if rules.variant == Variant::Hoyito2 {
                // Backwards from the landing hole; it stops at the latest there (now empty).
                let mut i = (at + size - 1) % size;
                while board[i] == 4 && rules.may_capture(mover, i) {
                    captured += 4;
                    board[i] = 0;
                    i = (i + size - 1) % size;
                }
            }
        }
        let sign = |side: Side| if side == Side::South { 1 } else { -1 };
        let mut south_gain = sign(mover) * captured as i32;
        let left: u32 = board.iter().map(|&s| s as u32).sum();
        let ended = captured > 0 && left <= 4;
        if ended {
            south_gain += sign(rules.last_four_to(mover)) * left as i32;
        }
        let side = if captured > 0 { mover } else { mover.other() };
        Ok(Played {
            next: Position { board, side },
            south_gain,
            captured,
            ended,
        })
    }

    /// Every legal move of the side to move, in hole order, with its result.
    pub fn legal_moves(&self, rules: &Rules) -> Vec<(usize, Played)> {
        let mut out = Vec::new();
        for hole in 1..=rules.holes {
            if let Ok(played) = self.play(rules, hole) {
                out.push((hole, played));
            }
        }
        out
    }

    /// The moves of the side to move from non-empty holes whose sowing never ends.
    pub fn endless_moves(&self, rules: &Rules) -> Vec<usize> {
        (1..=rules.holes)
            .filter(|&hole| self.play(rules, hole) == Err(Illegal::Endless))
            .collect()
    }

    /// Whether the side to move has a legal move.
    pub fn can_move(&self, rules: &Rules) -> bool {
        (1..=rules.holes).any(|hole| self.play(rules, hole).is_ok())
    }

    /// The same board with the other side to move.
    pub fn flipped(&self) -> Position {
        Position {
            board: self.board.clone(),
            side: self.side.other(),
        }
    }

    /// Applies automatic passes: the position itself when its side to move can move, the
    /// same board with the other side to move when only that side can, `None` when neither
    /// can (the game is over).
    pub fn settled(&self, rules: &Rules) -> Option<Position> {
        if self.can_move(rules) {
            Some(self.clone())
        } else {
            let other = self.flipped();
            other.can_move(rules).then_some(other)
        }
    }

    /// Parses RULES.md notation without captured seeds, e.g. `4,4,4/4,4,4 S`: South's row,
    /// `/`, North's row, a space, the side to move. The message says what is wrong.
    pub fn parse(text: &str) -> Result<Position, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.len() != 2 {
            return Err(format!(
                "'{text}': expected the board and the side to move, e.g. '4,4,4/4,4,4 S'"
            ));
        }
        let rows: Vec<&str> = words[0].split('/').collect();
        if rows.len() != 2 {
            return Err(format!(
                "'{}': expected two rows separated by one '/'",
                words[0]
            ));
        }
        let mut board = Vec::new();
        let mut lengths = [0usize; 2];
        for (r, row) in rows.iter().enumerate() {
            for hole in row.split(',') {
                let seeds: u8 = hole
                    .parse()
                    .map_err(|_| format!("'{hole}' in '{}' is not a number of seeds", words[0]))?;
                board.push(seeds);
                lengths[r] += 1;
            }
        }
        if lengths[0] != lengths[1] {
            return Err(format!(
                "'{}': the rows have {} and {} holes",
                words[0], lengths[0], lengths[1]
            ));
        }
        if !(Rules::MIN_HOLES..=Rules::MAX_HOLES).contains(&lengths[0]) {
            return Err(format!(
                "'{}': {} holes a row, expected 2 to 12",
                words[0], lengths[0]
            ));
        }
        let side = match words[1] {
            "S" => Side::South,
            "N" => Side::North,
            other => return Err(format!("side to move '{other}': expected S or N")),
        };
        Ok(Position { board, side })
    }
}

impl fmt::Display for Position {
    /// RULES.md notation without captured seeds, e.g. `4,4,4/4,4,4 S`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let holes = self.board.len() / 2;
        for (i, seeds) in self.board.iter().enumerate() {
            if i == holes {
                f.write_str("/")?;
            } else if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{seeds}")?;
        }
        write!(f, " {}", self.side.letter())
    }
}

/// Counts the move sequences of exactly `depth` plies from `p` (RULES.md, "Perft"): every
/// move is a ply, passes are automatic, a game that ends before `depth` plies is not counted.
pub fn perft(rules: &Rules, p: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Some(p) = p.settled(rules) else {
        return 0;
    };
    let mut count = 0;
    for (_, played) in p.legal_moves(rules) {
        if played.ended {
            count += (depth == 1) as u64;
        } else {
            count += perft(rules, &played.next, depth - 1);
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hoyito(variant: Variant, holes: usize) -> Rules {
        Rules {
            holes,
            variant,
            last_four: LastFour::Capturer,
            capture_side: CaptureSide::Any,
        }
    }

    #[test]
    fn worked_examples_of_rules_md() {
        let r2 = hoyito(Variant::Hoyito2, 6);
        let start = Position::parse("4,4,4,4,4,4/4,4,4,4,4,4 S").unwrap();
        let m = start.play(&r2, 1).unwrap();
        assert_eq!(m.next.to_string(), "2,7,1,6,1,6/6,6,0,1,6,6 N");
        assert_eq!((m.south_gain, m.ended), (0, false));

        let p = Position::parse("2,3,4,0,4,1/3,3,3,1,1,3 S").unwrap();
        let m = p.play(&r2, 5).unwrap();
        assert_eq!(m.next.to_string(), "2,3,4,0,0,2/0,0,0,1,1,3 S");
        assert_eq!(m.south_gain, 12);
        let m = p.play(&hoyito(Variant::Hoyito3, 6), 5).unwrap();
        assert_eq!(m.next.to_string(), "2,3,4,0,0,2/4,4,0,1,1,3 S");
        assert_eq!(m.south_gain, 4);
    }

    #[test]
    fn notation_round_trip_and_errors() {
        let p = Position::parse("0,1,12/3,0,4 N").unwrap();
        assert_eq!(p.board, vec![0, 1, 12, 3, 0, 4]);
        assert_eq!(p.to_string(), "0,1,12/3,0,4 N");
        for bad in [
            "",
            "1,2/3,4",
            "1,2/3,4 X",
            "1,2,3/4,5 S",
            "1/2 S",
            "1,a/2,3 S",
            "1,2/3,4/5,6 S",
            "1,2/3,300 S",
        ] {
            assert!(Position::parse(bad).is_err(), "{bad}");
        }
    }
}
