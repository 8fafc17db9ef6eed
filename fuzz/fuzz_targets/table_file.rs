#![no_main]
//! Fuzz target `table_file`: the body is `hoyito_fuzz::table_file`, shared with the corpus replay test
//! `solver/tests/fuzz_corpus.rs`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoyito_fuzz::table_file(data));
