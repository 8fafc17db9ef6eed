//! `solve openings`: opening sets for `solve match --openings`.

use anyhow::Result;
use hoyito::openings::{write_openings, OpeningsOptions};

use crate::cli::{OpeningsArgs, RuleArgs};
use crate::common::{emit, resolve};

/// `solve openings`.
pub fn run(rules_args: &RuleArgs, json: bool, a: &OpeningsArgs) -> Result<()> {
    let (rules, _) = resolve(rules_args, None)?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = OpeningsOptions {
        plies: a.plies,
        sample: a.sample,
        seed: a.seed,
        balanced: a.balanced,
        depth: a.depth,
        output: a.output.clone(),
        generated_by: format!("solve {}", args.join(" ")),
    };
    emit(&write_openings(&rules, &options)?, json)
}
