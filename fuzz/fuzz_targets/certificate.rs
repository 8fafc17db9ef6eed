#![no_main]
//! Fuzz target `certificate`: the body is `hoyito_fuzz::certificate`, shared with the corpus replay test
//! `solver/tests/fuzz_corpus.rs`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoyito_fuzz::certificate(data));
