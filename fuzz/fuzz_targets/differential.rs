#![no_main]
//! Fuzz target `differential`: the body is `hoyito_fuzz::differential`, shared with the corpus replay test
//! `solver/tests/fuzz_corpus.rs`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoyito_fuzz::differential(data));
