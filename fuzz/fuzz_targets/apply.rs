#![no_main]
//! Fuzz target `apply`: the body is `hoyito_fuzz::apply`, shared with the corpus replay test
//! `solver/tests/fuzz_corpus.rs`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoyito_fuzz::apply(data));
