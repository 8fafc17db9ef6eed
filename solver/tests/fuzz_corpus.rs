//! Replays every committed fuzz corpus file (`fuzz/corpus/<target>/`) through the body of its
//! fuzz target, on the stable toolchain, so that what the fuzzers found stays a regression
//! test under `cargo test --workspace`.
//!
//! The bodies are `fuzz/src/lib.rs`, the library of the fuzz crate, included here by path:
//! the fuzz crate is outside the workspace (it needs nightly and libFuzzer), and its library
//! uses only `std`, the library crates this crate depends on (rules, tables, check) and this
//! crate's own library.

#[allow(dead_code)]
#[path = "../../fuzz/src/lib.rs"]
mod bodies;

use std::path::{Path, PathBuf};

/// Every file of `target`'s corpus, in name order.
fn corpus(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = bodies::corpus_dir(&root, target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a corpus entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `body` on every corpus file of `target`; a failure names the file.
fn replay(target: &str, body: fn(&[u8])) {
    let files = corpus(target);
    assert!(!files.is_empty(), "the corpus of {target} is empty");
    for f in &files {
        let data = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let run = std::panic::catch_unwind(|| body(&data));
        assert!(run.is_ok(), "{target}: corpus file {} fails", f.display());
    }
}

#[test]
fn position_parse_corpus() {
    replay("position_parse", bodies::position_parse);
}

#[test]
fn apply_corpus() {
    replay("apply", bodies::apply);
}

#[test]
fn table_file_corpus() {
    replay("table_file", bodies::table_file);
    bodies::remove_scratch();
}

#[test]
fn record_read_corpus() {
    replay("record_read", bodies::record_read);
}

#[test]
fn differential_corpus() {
    replay("differential", bodies::differential);
}

#[test]
fn certificate_corpus() {
    replay("certificate", bodies::certificate);
}

#[test]
fn engine_protocol_corpus() {
    replay("engine_protocol", bodies::engine_protocol);
}

/// Runs `body` on every input that libFuzzer reported as slow or out of memory for `target`
/// (`fuzz/slow/<target>/`): endless sowings whose whole state repeats only after up to
/// billions of laps, on boards of 7 or 8 seeds a hole. The exact detector now settles each
/// from one period of its board (see `crates/rules/src/sowing.rs`), in bounded memory.
fn replay_slow(target: &str, body: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/slow")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    for f in &files {
        let data = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let run = std::panic::catch_unwind(|| body(&data));
        assert!(run.is_ok(), "{target}: slow input {} fails", f.display());
    }
}

#[test]
fn position_parse_slow_inputs() {
    replay_slow("position_parse", bodies::position_parse);
}

#[test]
fn apply_slow_inputs() {
    replay_slow("apply", bodies::apply);
}

#[test]
fn differential_slow_inputs() {
    replay_slow("differential", bodies::differential);
}
