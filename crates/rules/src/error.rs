//! Error types. Each says what is wrong and, for text, where.

use std::fmt;

/// A rule option out of range or an invalid combination of options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    /// Holes per row outside `2 ..= 12`.
    Holes(usize),
    /// Seeds per hole outside `1 ..= 8`.
    Seeds(usize),
    /// An option value that is not known.
    Unknown {
        /// The option's name.
        option: &'static str,
        /// What was given.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesError::Holes(h) => write!(f, "{h} holes a row is not supported: use 2 to 12"),
            RulesError::Seeds(s) => write!(f, "{s} seeds a hole is not supported: use 1 to 8"),
            RulesError::Unknown {
                option,
                value,
                expected,
            } => write!(f, "unknown {option} '{value}': expected {expected}"),
        }
    }
}

impl std::error::Error for RulesError {}

/// What is wrong with a position's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// Nothing was given.
    Empty,
    /// The board has no `/` between South's and North's rows.
    MissingSlash,
    /// More than one `/`.
    ExtraSlash,
    /// A hole between two commas (or at a row's end) is empty.
    EmptyHole,
    /// A hole's count is not a number.
    NotANumber(String),
    /// A hole holds more seeds than any game can have.
    TooManySeeds(String),
    /// The two rows differ in length.
    UnequalRows {
        /// Holes in South's row.
        south: usize,
        /// Holes in North's row.
        north: usize,
    },
    /// A row length outside `2 ..= 12`.
    RowLength(usize),
    /// No side to move after the board.
    MissingSide,
    /// The side to move is not `S` or `N`.
    BadSide(String),
    /// The captured counts are not `South-North`.
    BadCaptured(String),
    /// Text after the captured counts.
    Trailing(String),
}

/// An error in a position's text: what is wrong and at which character (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong.
    pub kind: ParseErrorKind,
    /// The 1-based character column where the problem starts.
    pub column: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ParseErrorKind::*;
        write!(f, "at column {}: ", self.column)?;
        match &self.kind {
            Empty => write!(
                f,
                "empty position: expected e.g. '4,4,4,4,4,4/4,4,4,4,4,4 S 0-0'"
            ),
            MissingSlash => write!(f, "no '/' between South's row and North's row"),
            ExtraSlash => write!(f, "a board has exactly two rows: unexpected second '/'"),
            EmptyHole => write!(
                f,
                "empty hole count (two commas in a row, or a comma at a row's end)"
            ),
            NotANumber(s) => write!(f, "hole count '{s}' is not a non-negative number"),
            TooManySeeds(s) => write!(
                f,
                "hole count {s} is more seeds than any game has (at most 192)"
            ),
            UnequalRows { south, north } => write!(
                f,
                "rows of unequal length: South has {south} holes, North has {north}"
            ),
            RowLength(n) => write!(f, "rows of {n} holes: a row has 2 to 12 holes"),
            MissingSide => write!(
                f,
                "missing side to move after the board: expected 'S' or 'N'"
            ),
            BadSide(s) => write!(f, "side to move '{s}' is not 'S' or 'N'"),
            BadCaptured(s) => write!(
                f,
                "captured seeds '{s}' are not of the form South-North, e.g. '12-8'"
            ),
            Trailing(s) => write!(f, "unexpected text '{s}' after the position"),
        }
    }
}

impl std::error::Error for ParseError {}

/// A well-formed diagram that is not a position of the given rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The row length differs from the rules' holes.
    HolesMismatch {
        /// Holes per row in the diagram.
        diagram: usize,
        /// Holes per row in the rules.
        rules: usize,
    },
    /// More seeds (board plus captured) than the rules' game holds.
    TooManySeeds {
        /// Seeds on the board plus captured seeds.
        found: usize,
        /// Seeds in the whole game.
        allowed: usize,
    },
    /// The position type cannot hold this many holes (internal size limit).
    TooLargeForType {
        /// Holes per row asked for.
        holes: usize,
        /// Most holes per row the type holds.
        max: usize,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::HolesMismatch { diagram, rules } => write!(
                f,
                "the position has {diagram} holes a row but the rules say {rules} (use --holes {diagram})"
            ),
            PositionError::TooManySeeds { found, allowed } => write!(
                f,
                "the position holds {found} seeds (board plus captured), more than the {allowed} of the game"
            ),
            PositionError::TooLargeForType { holes, max } => write!(
                f,
                "{holes} holes a row does not fit this position type (at most {max})"
            ),
        }
    }
}

impl std::error::Error for PositionError {}

/// Why a move cannot be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The hole number is outside `1 ..= H`.
    OutOfRange {
        /// The move given.
        hole: usize,
        /// Holes per row.
        holes: usize,
    },
    /// A move given as text is a number too large for any hole, or for a machine word.
    NumberTooLarge {
        /// The number as typed.
        text: String,
        /// Holes per row.
        holes: usize,
    },
    /// The hole is empty.
    EmptyHole(usize),
    /// The sowing from that hole never ends, which makes the move illegal.
    Endless(usize),
    /// The game is over.
    GameOver,
    /// A move given as text is not a number.
    NotAMove(String),
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::OutOfRange { hole, holes } => {
                write!(
                    f,
                    "move {hole} is out of range: holes are numbered 1 to {holes}"
                )
            }
            PlayError::NumberTooLarge { text, holes } => {
                write!(
                    f,
                    "move {text} is out of range: holes are numbered 1 to {holes}"
                )
            }
            PlayError::EmptyHole(h) => write!(f, "move {h} is illegal: the hole is empty"),
            PlayError::Endless(h) => write!(
                f,
                "move {h} is illegal: its sowing never ends (the sowing state repeats)"
            ),
            PlayError::GameOver => write!(f, "the game is over: no more moves can be played"),
            PlayError::NotAMove(s) => write!(f, "'{s}' is not a move: expected a hole number"),
        }
    }
}

impl std::error::Error for PlayError {}
