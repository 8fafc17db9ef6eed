//! `solve engine`.
use anyhow::Result;
/// Runs the protocol.
pub fn run() -> Result<()> {
    Ok(())
}
