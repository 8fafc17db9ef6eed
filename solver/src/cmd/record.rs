//! The record subcommands: `record check` (validate a record file) and `replay` (a recorded
//! game move by move, or the position at one ply).

use anyhow::Result;
use hoyito::records;
use hoyito::setup::record_game;

use crate::cli::{RecordArgs, RecordCommand, ReplayArgs};
use crate::common::emit;

/// `solve record ...`.
pub fn run(json: bool, a: &RecordArgs) -> Result<()> {
    match &a.command {
        RecordCommand::Check { file } => emit(&records::check_records(file)?, json),
    }
}

/// `solve replay FILE [--game K] [--ply N]`.
pub fn replay(json: bool, a: &ReplayArgs) -> Result<()> {
    let record = record_game(&a.file, a.game)?;
    emit(&records::replay(&record, a.game, a.ply)?, json)
}
