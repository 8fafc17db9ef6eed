//! The commands, one module a group. Each reads its arguments from `cli`, uses the helpers of
//! `common`, calls the libraries and prints one report type through `common::emit`; no
//! command module imports another.

pub mod play;
pub mod check;
pub mod prove;
pub mod rules;
pub mod search;
pub mod tables;
