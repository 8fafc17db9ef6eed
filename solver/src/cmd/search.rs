//! The search subcommands: `best` (best move and value), `bench` (search depth and speed on
//! a fixed suite) and `match` (games between two players).

use anyhow::{Context as _, Result};
use hoyito::analysis::{analyse_watched, AnalysisOptions, Watchdog};
use hoyito::bench::{bench as run_bench, builtin_suite, suite_lines, BenchOptions};
use hoyito::matches::play_match as run_match;
use hoyito::stats::Sprt;

use crate::cli::{BenchArgs, BestArgs, MatchArgs, RuleArgs};
use crate::common::{emit, resolve};
use crate::options::match_options;

/// `solve best`. When the search cannot return by its deadline (a long relay sowing cannot
/// be interrupted), the watchdog prints the answer so far and ends the process.
pub fn best(rules_args: &RuleArgs, json: bool, a: &BestArgs) -> Result<()> {
    let (rules, d) = resolve(rules_args, a.position.text().as_deref())?;
    let options = AnalysisOptions::from(a);
    if let Some(dir) = hoyito::analysis::cache_build_ahead(&rules, d.as_ref(), &options) {
        crate::common::say_cache_building(&dir, hoyito::cache::CACHE_MAX_SEEDS);
    }
    let watchdog = Watchdog::new(move |answer| {
        if let Some(r) = answer {
            if emit(&r, json).is_err() {
                std::process::exit(1);
            }
        }
        std::process::exit(0);
    });
    let report = analyse_watched(&rules, d.as_ref(), &options, &watchdog)?;
    emit(&report, json)
}

/// `solve bench`.
pub fn bench(rules_args: &RuleArgs, json: bool, a: &BenchArgs) -> Result<()> {
    // The built-in suite is picked by --holes (6 when not given, as everywhere).
    let text = match &a.suite {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => builtin_suite(rules_args.holes.unwrap_or(6))?.to_string(),
    };
    let lines = suite_lines(&text);
    let first = lines.first().context("the suite holds no position")?;
    let (rules, _) = resolve(rules_args, Some(first))?;
    emit(&run_bench(&rules, &lines, &BenchOptions::from(a))?, json)
}

/// `solve match`.
pub fn play_match(rules_args: &RuleArgs, json: bool, a: &MatchArgs) -> Result<()> {
    let (rules, _) = resolve(rules_args, None)?;
    let sprt = if a.sprt.is_empty() {
        None
    } else {
        let text = a.sprt.join(" ");
        Some(
            text.parse::<Sprt>()
                .with_context(|| format!("--sprt {text}"))?,
        )
    };
    emit(&run_match(&rules, &match_options(a, sprt))?, json)
}
