//! The commands, one module a group. Each reads its arguments from `cli`, turns them into
//! the library's options (`options`), calls the library and prints its report through
//! `common::emit`; no command module imports another.

pub mod check;
pub mod engine;
pub mod openings;
pub mod play;
pub mod prove;
pub mod record;
pub mod review;
pub mod rules;
pub mod search;
pub mod serve;
pub mod tables;
