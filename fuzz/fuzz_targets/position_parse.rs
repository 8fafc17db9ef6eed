#![no_main]
//! Fuzz target `position_parse`: the body is `hoyito_fuzz::position_parse`, shared with the corpus replay test
//! `solver/tests/fuzz_corpus.rs`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoyito_fuzz::position_parse(data));
