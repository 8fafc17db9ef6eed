//! The commands, one module a group. Each reads its arguments from `cli`, uses the helpers of
//! `common`, calls the libraries and prints one report type through `common::emit`; no
//! command module imports another.

pub mod check;
pub mod engine;
pub mod openings;
pub mod play;
pub mod prove;
pub mod record;
pub mod review;
pub mod rules;
pub mod search;
pub mod tables;
