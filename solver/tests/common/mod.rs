//! Helpers shared by the command-line tests: running the `solve` binary and reading its
//! output.
#![allow(dead_code)] // each test file uses some of them

use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The small tables cache of the tests that use one (built by the first of them): every
/// other command runs with the cache off (`HOYITO_CACHE=off`), so that what it answers does
/// not depend on which tests ran before it.
pub const TEST_CACHE: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/hoyito-cache");

/// Runs `solve` with these arguments.
pub fn solve(args: &[&str]) -> Output {
    solve_with_env(&[], args)
}

/// Runs `solve` with these arguments and these environment variables set.
pub fn solve_with_env(env: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .envs(env.iter().copied())
        .args(args)
        .output()
        .expect("the solve binary runs")
}

/// Runs `solve`: whether it succeeded, its standard output and its standard error.
pub fn run(args: &[&str]) -> (bool, String, String) {
    outcome(solve(args))
}

/// Runs `solve` in `dir` with `stdin` as its input (and `NO_COLOR`): whether it succeeded,
/// its standard output and its standard error. A command may end before it has read all
/// its input: a closed pipe is no error here.
pub fn run_in(dir: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the solve binary runs");
    let _ = child.stdin.take().unwrap().write_all(stdin.as_ref());
    outcome(child.wait_with_output().unwrap())
}

/// Whether a run succeeded, its standard output and its standard error.
pub fn outcome(out: Output) -> (bool, String, String) {
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Waits for `child` to end, at most `limit`: whether it ended in time (if not, it is
/// killed, and its output up to then can still be read).
pub fn ended_within(child: &mut Child, limit: Duration) -> bool {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

/// Runs a command that must succeed and returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let (ok, out, err) = run(args);
    assert!(ok, "solve {args:?} failed: {err}");
    out
}

/// A temporary folder with the tables of the default rules built up to `max_seeds` seeds.
pub fn built_tables(max_seeds: &str) -> tempfile::TempDir {
    built_tables_of(&["hoyito2"], max_seeds)
}

/// A temporary folder with the tables of each of `variants` (default rules otherwise) built
/// up to `max_seeds` seeds.
pub fn built_tables_of(variants: &[&str], max_seeds: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for v in variants {
        ok(&[
            "--variant",
            v,
            "tables",
            "--dir",
            d,
            "build",
            "--max-seeds",
            max_seeds,
            "--quiet",
        ]);
    }
    dir
}

/// Flips a bit near the end of the default rules' table file of `seeds` seeds in `dir`.
pub fn damage(dir: &std::path::Path, seeds: usize) {
    let file = dir
        .join("2x6-hoyito2-capturer-any")
        .join(format!("layer-{seeds:02}.hyt"));
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 100;
    bytes[last] ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();
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
