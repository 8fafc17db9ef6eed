#![no_main]
//! Fuzz target `record_read`: the body is `hoyito_fuzz::record_read`, shared with the corpus replay test
//! `solver/tests/fuzz_corpus.rs`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoyito_fuzz::record_read(data));
