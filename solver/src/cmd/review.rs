//! `solve review`.
use crate::cli::ReviewArgs;
use anyhow::Result;
/// Reviews.
pub fn run(_json: bool, _a: &ReviewArgs) -> Result<()> {
    Ok(())
}
