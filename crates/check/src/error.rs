//! Why a certificate is not accepted: it cannot be read, it is malformed, its tables are
//! missing or damaged, or one of its claims is not justified.

use std::fmt;
use std::path::PathBuf;

use crate::certificate_file::Claim;
use crate::rules::{Illegal, Position, Side};

/// What is wrong with a stored table value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueFault {
    /// The value is outside `-seeds ..= seeds` (or its code is beyond the layer's codes).
    OutOfRange,
    /// The value is not the best over the position's moves, which give `expected`.
    Moves {
        /// The best worth over the moves (a pass, or 0 when neither side can move).
        expected: i32,
    },
    /// The values agree with the moves, but this nonzero value is not forced in finitely
    /// many moves: it rests on a cycle of quiet moves (the values are not the least
    /// fixpoint).
    NotForced,
}

/// The first wrong value of a layer (lowest index among those of its kind).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueFailure {
    /// The layer's file.
    pub path: PathBuf,
    /// Seeds on the board of the layer.
    pub seeds: usize,
    /// The position's index in the layer.
    pub index: u64,
    /// The position.
    pub position: Position,
    /// The value stored for it, for its side to move (as decoded from its code).
    pub stored: i32,
    /// What is wrong.
    pub fault: ValueFault,
    /// Positions of the layer with a fault of the same kind. A layer with a value out of
    /// range or against its moves is not checked further.
    pub count: u64,
}

impl fmt::Display for ValueFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "table file {}: layer {}, position {} (index {}): stored value {} for the side to \
             move, ",
            self.path.display(),
            self.seeds,
            self.position,
            self.index,
            self.stored
        )?;
        match self.fault {
            ValueFault::OutOfRange => write!(f, "outside -{0} ..= {0}", self.seeds)?,
            ValueFault::Moves { expected } => {
                write!(f, "but the best over its moves is {expected}")?
            }
            ValueFault::NotForced => f.write_str(
                "which agrees with its moves but is not forced in finitely many moves (it \
                 rests on a cycle of quiet moves: endless play, worth 0, is not excluded)",
            )?,
        }
        if self.count > 1 {
            let kind = match self.fault {
                ValueFault::OutOfRange => "out of range",
                ValueFault::Moves { .. } => "against their moves",
                ValueFault::NotForced => "not forced",
            };
            write!(f, "; {} positions of the layer are {kind}", self.count)?;
        }
        Ok(())
    }
}

/// Where in a certificate file a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A header line (from 1).
    Line(usize),
    /// An entry (from 0, in file order).
    Entry(usize),
    /// The end of the file.
    End,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Line(n) => write!(f, "line {n}"),
            Place::Entry(n) => write!(f, "entry {n}"),
            Place::End => f.write_str("end of file"),
        }
    }
}

/// An error of [`check_file`](crate::check_file).
#[derive(Debug)]
pub enum CheckError {
    /// A file cannot be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// The certificate is not a well-formed certificate.
    Malformed {
        /// The certificate.
        path: PathBuf,
        /// Where.
        place: Place,
        /// What is wrong.
        problem: String,
    },
    /// The certificate rests on tables and no tables folder was given.
    TablesNeeded {
        /// The most seeds of the tables it names.
        max_seeds: usize,
    },
    /// A table file is damaged or is not the one the certificate needs.
    Table {
        /// The table file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The certificate is well formed but a claim is not justified: it is rejected.
    Rejected(Box<Failure>),
    /// A table value is not the game's value (found by the verification of the tables).
    WrongValue(Box<ValueFailure>),
    /// The verification of the tables was stopped (asked to, or out of time) before it
    /// ended: nothing is known of the layer yet.
    Stopped {
        /// The layer under check.
        seeds: usize,
        /// The pass under way (1: every position).
        pass: u32,
        /// Positions of the pass visited.
        visited: u64,
        /// Positions the pass visits.
        of: u64,
        /// The partial state saved, from which the check goes on; `None`: nothing kept.
        state: Option<PathBuf>,
    },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Io { path, message } => {
                write!(f, "cannot read {}: {message}", path.display())
            }
            CheckError::Malformed {
                path,
                place,
                problem,
            } => write!(
                f,
                "{} is not a valid certificate: {place}: {problem}",
                path.display()
            ),
            CheckError::TablesNeeded { max_seeds } => write!(
                f,
                "the certificate rests on endgame tables up to {max_seeds} seeds: give their \
                 folder with --tables"
            ),
            CheckError::Table { path, problem } => {
                write!(f, "table file {}: {problem}", path.display())
            }
            CheckError::Rejected(failure) => write!(f, "certificate rejected: {failure}"),
            CheckError::WrongValue(failure) => write!(f, "{failure}"),
            CheckError::Stopped {
                seeds,
                pass,
                visited,
                of,
                state,
            } => {
                let share = if *of == 0 {
                    100.0
                } else {
                    100.0 * *visited as f64 / *of as f64
                };
                write!(
                    f,
                    "the check of the tables stopped in layer {seeds}, pass {pass}, \
                     {visited} of {of} positions visited ({share:.1}%): not verified yet; "
                )?;
                match state {
                    Some(path) => write!(
                        f,
                        "its state is saved in {}: check again with the same state folder \
                         to go on from there",
                        path.display()
                    ),
                    None => f.write_str("no state folder was given, so the work is lost"),
                }
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// A step from a position: a move of the side to move, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Hole number `1 ..= H` of `side`.
    Move {
        /// The mover.
        side: Side,
        /// The hole number.
        hole: usize,
    },
    /// The side to move has no legal move and passes.
    Pass,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Move { side, hole } => {
                let name = match side {
                    Side::South => "South",
                    Side::North => "North",
                };
                write!(f, "{name}'s move {hole}")
            }
            Step::Pass => f.write_str("the pass"),
        }
    }
}

/// Why a claim is not justified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The position has 4 or fewer seeds, or neither side can move: it is worth 0, which
    /// the claim excludes.
    WorthZero,
    /// The proving side is to move and the entry names no move.
    NoMove,
    /// The entry's move is not legal.
    IllegalMove(Illegal),
    /// The entry names a move where the proving side does not choose one (the other side
    /// moves, or the side to move passes); the move must be 0.
    MoveNotExpected(u8),
    /// The move ends the game: the position after it is worth 0, which the required claim
    /// excludes.
    GameEnd,
    /// The table value (South's view) does not satisfy the required claim.
    TableContradicts {
        /// South's value from the table.
        value: i32,
    },
    /// The table holds no valid value for the position (a code out of range).
    TableDamaged(String),
    /// No entry of the position after the move claims the required claim or a stronger one.
    MissingClaim,
    /// Entries claim it, but none with a rank below the entry's (the required claim is
    /// finite).
    RankDoesNotFall {
        /// The smallest rank among the entries strong enough.
        smallest: u64,
    },
}

/// The first claim that is not justified, with what it takes to see why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The entry's index in file order; `None` for a root claim.
    pub entry: Option<usize>,
    /// The position of the entry (or root).
    pub position: Position,
    /// Its claim.
    pub claim: Claim,
    /// Its rank (`None` for a root).
    pub rank: Option<u64>,
    /// The step checked, when the failure is about one.
    pub step: Option<Step>,
    /// South's net gain in that step.
    pub gain: i32,
    /// The position after the step and the claim it must satisfy.
    pub required: Option<(Position, Claim)>,
    /// What is wrong.
    pub reason: Reason,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.entry {
            Some(i) => write!(f, "entry {i}: {} {}", self.position, self.claim)?,
            None => write!(f, "root claim: {} {}", self.position, self.claim)?,
        }
        if let Some(rank) = self.rank {
            write!(f, " (rank {rank})")?;
        }
        if let Some(step) = &self.step {
            write!(f, ": {step}")?;
            if self.gain != 0 {
                write!(f, " (South gains {})", self.gain)?;
            }
        }
        if let Some((p, claim)) = &self.required {
            write!(f, " leads to {p}, which must satisfy {claim}")?;
        }
        f.write_str(": ")?;
        match &self.reason {
            Reason::WorthZero => {
                f.write_str("the position is worth 0 (4 or fewer seeds, or neither side can move)")
            }
            Reason::NoMove => {
                f.write_str("the proving side is to move but the entry names no move")
            }
            Reason::IllegalMove(why) => write!(f, "the move is illegal: {why}"),
            Reason::MoveNotExpected(mv) => write!(
                f,
                "the entry names move {mv} where the proving side does not move (it must be 0)"
            ),
            Reason::GameEnd => f.write_str("the move ends the game, so it is worth 0"),
            Reason::TableContradicts { value } => {
                write!(f, "the table gives South's value {value}")
            }
            Reason::TableDamaged(problem) => f.write_str(problem),
            Reason::MissingClaim => {
                f.write_str("no entry of the certificate claims it or a stronger bound")
            }
            Reason::RankDoesNotFall { smallest } => write!(
                f,
                "the claim is finite and the entries that claim it have ranks of at least \
                 {smallest}, none below the entry's"
            ),
        }
    }
}
