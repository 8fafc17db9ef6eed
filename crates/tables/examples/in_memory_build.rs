//! Times a build of the tables in memory (default rules, Hoyito II): every layer up to
//! MAX_SEEDS, on THREADS threads, with METHOD (`auto`, `sweeps`, or `atK` for
//! `Method::MovesAtSweep(K)`).
//! `cargo run --release -p hoyito-tables --example in_memory_build -- 12 2 auto`
use std::time::Instant;

use hoyito_rules::Rules;
use hoyito_tables::{build_in_memory, BuildOptions, Method, Quiet};

fn main() {
    let arg = |k: usize| std::env::args().nth(k);
    let max_seeds: usize = arg(1).and_then(|s| s.parse().ok()).unwrap_or(12);
    let threads: usize = arg(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let method = match arg(3).as_deref() {
        Some("sweeps") => Method::Sweeps,
        Some(at) if at.starts_with("at") => Method::MovesAtSweep(at[2..].parse().unwrap_or(2)),
        _ => Method::Auto,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let t0 = Instant::now();
    let (tables, stats) = pool
        .install(|| {
            build_in_memory(
                &Rules::default(),
                max_seeds,
                &BuildOptions {
                    method,
                    ..Default::default()
                },
                &Quiet,
            )
        })
        .expect("the build");
    let seconds = t0.elapsed().as_secs_f64();
    for s in &stats {
        println!(
            "layer {:2}: {:9} positions, {:2} sweeps, {:2} rounds, {:.3} s",
            s.seeds, s.positions, s.sweeps, s.rounds, s.seconds
        );
    }
    println!(
        "up to {} seeds ({method:?}, {threads} threads): {seconds:.3} s",
        tables.max_seeds()
    );
}
