//! `solve`: the command-line program over the `hoyito` library. It parses, calls the
//! library and prints; the logic lives in the library, the commands in this package's
//! library (`hoyito_solver`), and `main` dispatches to them.

use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory as _, Parser};

use hoyito_solver::cli::{Cli, Command};
use hoyito_solver::{cmd, common};

/// Runs a parsed command line.
fn run(cli: Cli) -> Result<()> {
    common::check_limits(&cli)?;
    let (rules, json) = (&cli.rules, cli.json);
    match &cli.command {
        Command::Show(a) => cmd::rules::show(rules, json, a),
        Command::Moves(a) => cmd::rules::moves(rules, json, a),
        Command::Apply(a) => cmd::rules::apply(rules, json, a),
        Command::Perft(a) => cmd::rules::perft(rules, json, a),
        Command::Tables(a) => cmd::tables::run(rules, json, a),
        Command::Best(a) => cmd::search::best(rules, json, a),
        Command::Bench(a) => cmd::search::bench(rules, json, a),
        Command::Match(a) => cmd::search::play_match(rules, json, a),
        Command::Openings(a) => cmd::openings::run(rules, json, a),
        Command::Play(a) => cmd::play::run(rules, json, a),
        Command::CheckProof(a) => cmd::check::run(json, a),
        Command::CheckTables(a) => cmd::check::tables(rules, json, a),
        Command::Prove(a) => cmd::prove::prove(rules, json, a),
        Command::Record(a) => cmd::record::run(json, a),
        Command::Replay(a) => cmd::record::replay(json, a),
        Command::Engine => cmd::engine::run(),
        Command::Review(a) => cmd::review::run(json, a),
        Command::Serve(a) => cmd::serve::run(json, a),
        Command::Completions { shell } => {
            clap_complete::generate(*shell, &mut Cli::command(), "solve", &mut std::io::stdout());
            Ok(())
        }
        Command::Man => clap_mangen::Man::new(Cli::command())
            .render(&mut std::io::stdout())
            .map_err(Into::into),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", worded(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error in the command's terms: `{:#}` prints the chain of causes, each once, joined by
/// ": "; the options a bad-option error names are named by their flags (the library's field
/// `time_ms` is `--time-ms`).
fn worded(e: &hoyito::Error) -> String {
    let text = format!("{e:#}");
    hoyito::error::fields(e)
        .into_iter()
        .fold(text, |text, field| flag_named(&text, field))
}

/// `text` with the first mention of the library's option `field` (a whole word) written as
/// its flag.
fn flag_named(text: &str, field: &str) -> String {
    let flag = format!("--{}", field.replace('_', "-"));
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut from = 0;
    while let Some(at) = text[from..].find(field).map(|i| i + from) {
        let end = at + field.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            return format!("{}{flag}{}", &text[..at], &text[end..]);
        }
        from = end;
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_option_is_named_by_its_flag() {
        let e = hoyito::error::bad_option("time_ms", "must be at least 1");
        assert_eq!(worded(&e), "--time-ms must be at least 1");
        let e = e.context("best");
        assert_eq!(worded(&e), "best: --time-ms must be at least 1");
        assert_eq!(
            flag_named("max_time_ms and time_ms", "time_ms"),
            "max_time_ms and --time-ms"
        );
        let other = anyhow::anyhow!("depth is fine");
        assert_eq!(worded(&other), "depth is fine");
        let both = hoyito::error::Problem::options("match", &["last_four"], "needs last_four");
        assert_eq!(worded(&both.into()), "--match needs --last-four");
    }
}
