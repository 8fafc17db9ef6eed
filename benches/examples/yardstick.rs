//! Perft from the 2x6 start with the packed engine (cold long-sowing cache, one thread, then
//! all threads) and with the plain yardstick, in one run, and the ratio.
//!
//! `cargo run --release -p hoyito-benches --example yardstick -- [DEPTH]` (default 9).

use std::time::Instant;

use hoyito_benches::plain;
use hoyito_rules::{perft, perft_parallel, sowing, Position6, Rules};

fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .map(|d| d.parse().expect("DEPTH is a number"))
        .unwrap_or(9);
    let rules = Rules::default();
    let start = Position6::start(&rules).expect("standard start");

    let t = Instant::now();
    let packed = perft(&start, &rules, depth);
    let packed_s = t.elapsed().as_secs_f64();

    sowing::clear_cache();
    let t = Instant::now();
    let parallel = perft_parallel(&start, &rules, depth);
    let parallel_s = t.elapsed().as_secs_f64();
    assert_eq!(parallel, packed);

    let t = Instant::now();
    let slow = plain::perft(&plain::start(), depth);
    let plain_s = t.elapsed().as_secs_f64();
    assert_eq!(slow, packed, "the yardstick counts the same nodes");

    let rate = |s: f64| packed as f64 / s / 1e6;
    println!("perft({depth}) = {packed} from the 2x6 start (cold cache each)");
    println!(
        "packed, 1 thread:   {packed_s:8.3} s  {:8.2} M nodes/s",
        rate(packed_s)
    );
    println!(
        "packed, {} threads:  {parallel_s:8.3} s  {:8.2} M nodes/s  ({:.2}x one thread)",
        rayon::current_num_threads(),
        rate(parallel_s),
        packed_s / parallel_s
    );
    println!(
        "plain arrays:       {plain_s:8.3} s  {:8.3} M nodes/s",
        rate(plain_s)
    );
    println!("packed / plain on one thread: {:.0}x", plain_s / packed_s);
}
