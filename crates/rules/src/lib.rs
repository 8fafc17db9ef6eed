//! # hoyito-rules
//!
//! The rules of Hoyito II and Hoyito III (Dominican mancala), exactly as the project's
//! `RULES.md` specifies them: a bit-packed [`Position`], sowing with relay laps, captures
//! (with the Hoyito II backward chain), extra turns, automatic passes, the last-four award,
//! exact detection of endless sowings, the position and move notation, a [`Game`] that
//! detects repetition and can take moves back, game [`Record`]s in a PGN-like text, a
//! lap-by-lap [`Trace`] of a move for people, and [`perft`]. [`Probe`] is the interface of an oracle of exact
//! values (endgame tables) that a search may ask.
//!
//! ```
//! use hoyito_rules::{Move, Position6, Rules};
//! let rules = Rules::default(); // Hoyito II, 2x6, 4 seeds a hole
//! let p = Position6::parse(&rules, "2,3,4,0,4,1/3,3,3,1,1,3 S").unwrap();
//! let c = p.play(&rules, Move(5)).unwrap();
//! assert_eq!(c.captured, 12); // the landing hole and a chain of two
//! assert!(c.extra_turn);
//! assert_eq!(c.position.to_string(), "2,3,4,0,0,2/0,0,0,1,1,3 S 12-0");
//! ```
#![deny(missing_docs)]

mod error;
mod game;
mod moves;
mod notation;
mod options;
mod perft;
mod position;
mod probe;
mod record;
mod record_reader;
pub mod sowing;
mod trace;

pub use error::{ParseError, ParseErrorKind, PlayError, PositionError, RulesError};
pub use game::{End, Game, Winner};
pub use moves::{Child, Move, MoveList, Status};
pub use notation::{parse_move, Diagram, MAX_SEEDS_IN_HOLE};
pub use options::{
    CaptureSide, LastFour, Rules, RulesBuilder, Side, Variant, MAX_HOLES, MAX_SEEDS, MIN_HOLES,
};
pub use perft::{perft, perft_parallel};
pub use position::{Position, Position12, Position6};
pub use probe::Probe;
pub use record::{
    try_write_records, write_records, Note, Ply, Record, RecordWriteError, RecordWriteErrorKind,
    Termination,
};
pub use record_reader::{read_records, RecordError, RecordErrorKind};
pub use trace::{Lap, Trace};

/// Any error of this crate, for callers that handle them alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Bad rule options.
    Rules(RulesError),
    /// Malformed position text.
    Parse(ParseError),
    /// A position that does not fit the rules.
    Position(PositionError),
    /// An illegal move.
    Play(PlayError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Rules(e) => e.fmt(f),
            Error::Parse(e) => write!(f, "bad position: {e}"),
            Error::Position(e) => e.fmt(f),
            Error::Play(e) => e.fmt(f),
        }
    }
}

/// The message of each variant already shows the inner error, so the inner error is not
/// also a `source` (a chain of causes would print it twice); the inner errors have no
/// source of their own.
impl std::error::Error for Error {}

impl From<RulesError> for Error {
    fn from(e: RulesError) -> Self {
        Error::Rules(e)
    }
}
impl From<ParseError> for Error {
    fn from(e: ParseError) -> Self {
        Error::Parse(e)
    }
}
impl From<PositionError> for Error {
    fn from(e: PositionError) -> Self {
        Error::Position(e)
    }
}
impl From<PlayError> for Error {
    fn from(e: PlayError) -> Self {
        Error::Play(e)
    }
}
