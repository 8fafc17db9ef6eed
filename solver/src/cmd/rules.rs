//! The rules subcommands: `show`, `moves`, `apply`, `perft`.

use anyhow::Result;
use hoyito::inspect;

use crate::cli::{ApplyArgs, PerftArgs, PositionArgs, RuleArgs};
use crate::common::{emit, resolve, split_position};

/// `solve show`.
pub fn show(rules_args: &RuleArgs, json: bool, a: &PositionArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.text().as_deref())?;
    emit(&inspect::show(&rules, d.as_ref())?, json)
}

/// `solve moves`.
pub fn moves(rules_args: &RuleArgs, json: bool, a: &PositionArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.text().as_deref())?;
    emit(&inspect::moves(&rules, d.as_ref())?, json)
}

/// `solve apply`.
pub fn apply(rules_args: &RuleArgs, json: bool, a: &ApplyArgs) -> Result<()> {
    let (position, moves) = split_position(&a.words);
    let text = (position != "start").then_some(position.as_str());
    let (rules, d) = resolve(rules_args, text)?;
    emit(&inspect::apply(&rules, d.as_ref(), moves)?, json)
}

/// `solve perft`.
pub fn perft(rules_args: &RuleArgs, json: bool, a: &PerftArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.position.text().as_deref())?;
    emit(
        &inspect::perft(&rules, d.as_ref(), a.depth, a.threads)?,
        json,
    )
}
