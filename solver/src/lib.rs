//! The commands of the `solve` program, as a library: the binary (`src/main.rs`) parses the
//! command line and dispatches here, and the fuzz targets (`fuzz/`) drive the engine protocol
//! in process.
//!
//! The modules form a tree: `cli` (clap types only), `common` (helpers: rules and
//! positions from the command line, printing, thread pools, tables), `book` (the opening
//! book) and `client` (a program that speaks the engine protocol) at the bottom, and the
//! command modules of `cmd` above them.

pub mod book;
pub mod cli;
pub mod client;
pub mod cmd;
pub mod common;
