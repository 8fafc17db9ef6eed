//! The README's tour and examples are true: each command it shows is run here, and the
//! output it shows must be what the command prints. A change of output that leaves the
//! README behind fails this test.

mod common;

use std::path::Path;

/// The README, from the workspace root.
fn readme() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join("README.md")).unwrap()
}

/// Runs `solve ARGS` in `dir` with `stdin`; its standard output (it must succeed).
fn solve_in(dir: &Path, args: &[&str], stdin: &str) -> String {
    let (ok, out, err) = common::run_in(dir, args, stdin);
    assert!(ok, "solve {args:?}: {err}");
    out
}

/// Checks that the README shows `$ solve COMMAND` followed by `shown` (each line of it
/// among the lines after the command), and that running it prints every line of `shown`.
fn check(readme: &str, command: &str, shown: &str, printed: &str) {
    let at = readme
        .find(&format!("$ solve {command}"))
        .unwrap_or_else(|| panic!("the README no longer shows `solve {command}`"));
    let after = &readme[at..];
    for line in shown.lines() {
        assert!(
            after.contains(line),
            "the README shows `{line}` after `solve {command}`"
        );
        assert!(
            printed.lines().any(|l| l.contains(line)),
            "`solve {command}` no longer prints `{line}`:\n{printed}"
        );
    }
}

#[test]
fn the_tour_shows_what_the_commands_print() {
    let text = readme();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    check(
        &text,
        "best",
        "best move 1, score -28 (exact)",
        &solve_in(d, &["best"], ""),
    );

    let play = solve_in(d, &["play", "--depth", "2"], "1\nquit\n");
    check(
        &text,
        "play --depth 2",
        "North plays N6: captures 4 (S1), moves again",
        &play,
    );

    let engine = solve_in(
        d,
        &["engine"],
        "position startpos moves 3\ngo depth 3\nquit\n",
    );
    check(&text, "engine", "bestmove 1", &engine);

    solve_in(
        d,
        &[
            "tables",
            "--dir",
            "T",
            "build",
            "--max-seeds",
            "8",
            "--quiet",
        ],
        "",
    );
    let probe = solve_in(
        d,
        &["tables", "--dir", "T", "probe", "0,0,0,0,0,1/3,0,0,0,0,4 S"],
        "",
    );
    check(
        &text,
        "tables --dir T build --max-seeds 8",
        "0,0,0,0,0,1/3,0,0,0,0,4 S 0-0: value 8 for South",
        &probe,
    );

    let h3 = ["--variant", "hoyito3"];
    let build = [
        &h3[..],
        &[
            "tables",
            "--dir",
            "T",
            "build",
            "--max-seeds",
            "12",
            "--quiet",
        ],
    ];
    solve_in(d, &build.concat(), "");
    let prove = [
        &h3[..],
        &[
            "--seeds",
            "6",
            "prove",
            "--tables",
            "T",
            "--certificate",
            "h3-6.cert",
        ],
    ];
    let proved = solve_in(d, &prove.concat(), "");
    check(
        &text,
        "--variant hoyito3 tables --dir T build --max-seeds 12",
        "value: 72 (proven, for the side to move)",
        &proved,
    );
    let checked = solve_in(d, &["check-proof", "h3-6.cert", "--tables", "T"], "");
    assert!(text.contains("`solve check-proof h3-6.cert --tables T`"));
    assert!(checked.contains("is worth 72 for South"), "{checked}");
}

#[test]
fn the_position_example_draws_as_shown() {
    let text = readme();
    let start = text
        .find("$ solve show \"2,3,4,0,4,1/3,3,3,1,1,3 S\"")
        .unwrap();
    let block = &text[start..];
    let block = &block[block.find('\n').unwrap() + 1..block.find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let printed = solve_in(dir.path(), &["show", "2,3,4,0,4,1/3,3,3,1,1,3 S"], "");
    assert_eq!(printed, block, "the README's drawing of the position");
}
