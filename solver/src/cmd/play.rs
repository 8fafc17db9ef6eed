//! `solve play`: a play session of the library in the terminal. The transcript goes to
//! standard output (standard error with `--json`, whose report then stands alone on standard
//! output), coloured only on a terminal without `NO_COLOR`; Ctrl-C makes a thinking engine
//! move now, and otherwise writes the game so far and ends the process.

use std::io::IsTerminal as _;

use anyhow::{Context as _, Result};
use hoyito::play::{interrupt, play, Input, Interrupt, Out, PlayOptions};
use hoyito::rules::read_records;

use crate::cli::{PlayArgs, RuleArgs};
use crate::common::{emit, resolve};

/// `solve play`.
pub fn run(rules_args: &RuleArgs, json: bool, a: &PlayArgs) -> Result<()> {
    // The starting game: a record's, or a position's (the rule flags).
    let loaded = match &a.load {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let mut records =
                read_records(&text).with_context(|| format!("bad record {}", path.display()))?;
            records.pop()
        }
        None => None,
    };
    let (rules, d) = match &loaded {
        Some(r) => (r.rules, None),
        None => resolve(rules_args, a.position.text().as_deref())?,
    };
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let out = if json {
        let terminal = std::io::stderr().is_terminal();
        Out::new(Box::new(std::io::stderr()), terminal && !no_color)
    } else {
        let terminal = std::io::stdout().is_terminal();
        Out::new(Box::new(std::io::stdout()), terminal && !no_color)
    };
    let input = Input::new(
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdin().is_terminal(),
    );
    ctrlc::set_handler(on_interrupt).context("cannot catch Ctrl-C")?;
    let options = PlayOptions::from(a);
    let report = play(&rules, d.as_ref(), loaded.as_ref(), &options, input, out)?;
    emit(&report, json)
}

/// On Ctrl-C: while the engine thinks, the first makes it move now; otherwise writes the
/// game so far (unfinished) and exits.
fn on_interrupt() {
    match interrupt() {
        Interrupt::MoveNow => eprintln!("\nstop: the engine moves now (Ctrl-C again to quit)"),
        Interrupt::Quit(pending) => {
            match pending {
                Some((path, text)) => match std::fs::write(&path, text) {
                    Ok(()) => {
                        eprintln!("\ninterrupted: the game is recorded in {}", path.display())
                    }
                    Err(e) => eprintln!("\ninterrupted: cannot write {}: {e}", path.display()),
                },
                None => eprintln!("\ninterrupted"),
            }
            std::process::exit(130);
        }
    }
}
