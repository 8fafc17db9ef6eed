//! The `solve` command, as a library: the binary (`src/main.rs`) parses the command line and
//! dispatches here. Every command is a thin front over the `hoyito` library: `cli` holds the
//! clap types, `options` turns them into the library's options, `common` the helpers
//! (rules and positions from the command line, printing, limits, Ctrl-C), and the modules
//! of `cmd` call the library and print its reports.

pub mod cli;
pub mod cmd;
pub mod common;
pub mod options;
