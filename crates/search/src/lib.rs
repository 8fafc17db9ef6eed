//! # hoyito-search
//!
//! Best move and value of a Hoyito position: negamax alpha-beta with principal-variation
//! windows and iterative deepening, a transposition table shared by all threads (Lazy SMP),
//! and an exact mode that proves the game value under the rules' `Values` section: net future
//! captures for the side to move, extra turns as same-side plies, endless play worth 0.
//!
//! The pieces: a [`Searcher`] runs the threads and holds the transposition table
//! ([`AtomicTable`] or [`MapTable`]) between searches; [`Limits`] say when a search stops,
//! [`Config`] how it searches, and a [`SearchResult`] what it found. Exact mode answers small
//! positions from an oracle ([`Probe`]: endgame tables) or by retrograde analysis of their
//! component; above that, by threshold proofs over an explicit graph of positions
//! ([`ExactMethod`]). [`Eval`] scores the horizon of a limited search; [`plain_search`] is the
//! baseline without table or move ordering.
//!
//! ```
//! use hoyito_rules::{Position6, Rules};
//! use hoyito_search::{Config, Limits, Searcher};
//!
//! let rules = Rules::default();
//! let p = Position6::parse(&rules, "4,0,1,0,0,1/0,0,0,0,1,1 S").unwrap();
//! let searcher = Searcher::new(rules, Config::default());
//! let r = searcher.search(&p, &Limits::exact());
//! assert!(r.exact);
//! assert_eq!(r.score, 8);
//! ```
#![deny(missing_docs)]

mod alphabeta;
mod bounds;
mod capture_line;
pub mod certificate;
mod config;
mod context;
mod eval;
mod limits;
mod plain;
mod proof_graph;
mod prover;
mod pv;
mod result;
mod retro;
mod searcher;
mod threshold;
mod tt;

pub use config::{Config, ExactMethod, Explore, TableKind};
pub use eval::Eval;
pub use searcher::Searcher;
// The oracle trait lives with the rules (tables implement it without depending on search);
// re-exported for callers of the search.
pub use hoyito_rules::Probe;
pub use limits::Limits;
pub use plain::plain_search;
pub use prover::{Gauge, Prover};
pub use result::SearchResult;
pub use tt::{AtomicTable, Bound, Entry, MapTable, Table, PROVEN};
