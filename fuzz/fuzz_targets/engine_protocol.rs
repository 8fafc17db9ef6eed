#![no_main]
//! Fuzz target `engine_protocol`: the body is `hoyito_fuzz::engine_protocol`, shared with the
//! corpus replay test `solver/tests/fuzz_corpus.rs`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoyito_fuzz::engine_protocol(data));
