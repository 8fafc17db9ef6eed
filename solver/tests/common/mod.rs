//! Helpers shared by the command-line tests: running the `solve` binary and reading its
//! output.
#![allow(dead_code)] // each test file uses some of them

use std::process::{Command, Output};

use serde_json::Value;

/// Runs `solve` with these arguments.
pub fn solve(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_solve"))
        .args(args)
        .output()
        .expect("the solve binary runs")
}

/// Runs `solve`: whether it succeeded, its standard output and its standard error.
pub fn run(args: &[&str]) -> (bool, String, String) {
    let out = solve(args);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs a command that must succeed and returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let (ok, out, err) = run(args);
    assert!(ok, "solve {args:?} failed: {err}");
    out
}

/// Runs a command that must succeed with `--json` (added when missing) and returns its one
/// JSON object.
pub fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    if !all.contains(&"--json") {
        all.push("--json");
    }
    let text = ok(&all);
    assert_eq!(text.trim().lines().count(), 1, "one JSON object: {text}");
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("bad JSON {text}: {e}"))
}

/// The JSON objects of a streamed output, one a line.
pub fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs a command that must fail: non-zero exit, nothing on stdout, an error on stderr that
/// contains `needle`; returns the error.
pub fn fails(args: &[&str], needle: &str) -> String {
    let (ok, out, err) = run(args);
    assert!(!ok, "solve {args:?} should fail");
    assert!(out.is_empty(), "nothing on stdout for {args:?}");
    assert!(
        err.contains(needle),
        "stderr of {args:?} should mention '{needle}': {err}"
    );
    err
}
