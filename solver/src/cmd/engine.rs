//! `solve engine`: the engine protocol of data/PROTOCOL.md on standard input and output.

use anyhow::Result;

/// `solve engine`.
pub fn run() -> Result<()> {
    hoyito::protocol::serve(&mut std::io::stdin().lock(), std::io::stdout())
}
