//! # hoyito
//!
//! Analysis and solving of **Hoyito II** and **Hoyito III**, the Dominican mancala games,
//! in one library: every front (the `solve` command, the web board, the Python package)
//! calls it, and none holds logic of its own.
//!
//! - The rules ([`Rules`], [`Position`], [`Game`], [`Record`], the notation): re-exported
//!   from `hoyito-rules`, with the engine crates under [`search`], [`tables`], [`check`]
//!   and [`stats`].
//! - [`analysis`]: the best move and value of a position by the one policy every front
//!   uses: the opening [`book`], the endgame tables, an exact search, else a limited
//!   search; the answer says which decided it.
//! - [`proof`]: resumable proof runs that write certificates, and their check.
//! - [`play`]: play sessions (a game, its players, undo and redo, hints) and engine
//!   players by level.
//! - [`matches`](mod@matches): matches between players (in-process, or programs that speak the
//!   protocol), from openings, with adjudication by the tables, Elo and SPRT.
//! - [`agents`]: random games in seeded batches, and opponents (random, a level, perfect) for
//!   programs that learn to play.
//! - [`review`]: a recorded game valued ply by ply, with the data of its value graph.
//! - [`board`]: a game as a board front draws it (rows, legal moves, the last move lap by
//!   lap, the book's move values, a match's tally), the engine's move and records, as
//!   JSON-ready data for the web board.
//! - [`protocol`]: the engine protocol (data/PROTOCOL.md) served over any reader and
//!   writer.
//! - [`checking`]: the independent checker's reports: a certificate checked, the endgame
//!   tables verified.
//! - The reports of the other commands: [`inspect`] (a position and its moves, perft),
//!   [`records`], [`openings`], [`bench`](mod@bench), [`endgame`] (the tables' build, probe, info and
//!   verification); [`setup`] and [`draw`] for fronts.
//!
//! ```
//! use hoyito::analysis::{analyse, AnalysisOptions};
//! use hoyito::Rules;
//!
//! // The standard 2x6 start of Hoyito II, answered from the opening book.
//! let a = analyse(&Rules::default(), None, &AnalysisOptions::default()).unwrap();
//! assert!(a.exact);
//! assert_eq!((a.best, a.score), (Some(1), -28));
//! ```

#![warn(missing_docs)]

pub mod agents;
pub mod analysis;
pub mod batch;
pub mod bench;
pub mod board;
pub mod book;
pub mod cache;
pub mod checking;
pub mod draw;
pub mod endgame;
pub mod error;
pub mod external;
pub mod inspect;
pub mod matches;
pub mod openings;
pub mod play;
pub mod policy;
pub mod proof;
pub mod protocol;
pub mod records;
pub mod review;
pub mod setup;
pub mod strategy;
mod streamed;

pub use hoyito_rules::{
    parse_move, CaptureSide, Child, Diagram, End, Game, LastFour, Move, MoveList, Position,
    Position12, Position6, Record, Rules, Side, Status, Trace, Variant, Winner,
};
pub use setup::DEFAULT_TABLES_DIR;

/// The library's error: a message with its chain of causes, each said once (`{:#}` prints
/// them joined by `: `), and a kind ([`error::kind`]: a bad position, an illegal move, a
/// bad option named as a field ([`error::field`]) ...) that a front words in its own terms.
pub use anyhow::Error;
pub use error::ErrorKind;
/// A result with the library's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The independent checker of certificates.
pub use hoyito_check as check;
/// The rules crate whole: sowing, notation, records, perft.
pub use hoyito_rules as rules;
/// The search crate: alpha-beta, exact mode, the prover and certificates.
pub use hoyito_search as search;
/// Match statistics: Elo, SPRT.
pub use hoyito_stats as stats;
/// The endgame tables crate: build, store, probe, verify.
pub use hoyito_tables as tables;
