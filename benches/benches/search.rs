//! The search at fixed depth on positions of the bench suites (one thread, fresh table each
//! time, so every run searches the same tree), and plain alpha-beta on the same positions.

use criterion::{criterion_group, criterion_main, Criterion};
use hoyito_rules::{Position, Rules};
use hoyito_search::{plain_search, Config, Eval, Limits, Searcher};

/// Positions of a suite file in `data/bench/`.
fn suite<const W: usize>(rules: &Rules, text: &str, n: usize) -> Vec<Position<W>> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(n)
        .map(|l| Position::<W>::parse(rules, l).expect("valid suite position"))
        .collect()
}

/// Nodes of a fresh-table search of every position of `suite` to `depth`.
fn suite_nodes<const W: usize>(e: &Searcher<W>, suite: &[Position<W>], depth: u32) -> u64 {
    suite
        .iter()
        .map(|p| {
            e.clear();
            e.search(p, &Limits::depth(depth)).nodes
        })
        .sum()
}

fn fixed_depth(c: &mut Criterion) {
    let r6 = Rules::hoyito2(6).unwrap();
    let r12 = Rules::hoyito2(12).unwrap();
    let s6 = suite::<2>(&r6, include_str!("../../data/bench/suite6.txt"), 4);
    let s12 = suite::<4>(&r12, include_str!("../../data/bench/suite12.txt"), 4);
    let config = Config {
        hash_mb: 16,
        ..Config::default()
    };
    let e6 = Searcher::<2>::new(r6, config);
    let e12 = Searcher::<4>::new(r12, config);

    let mut g = c.benchmark_group("search");
    g.sample_size(10);
    g.bench_function("2x6 depth 10", |b| b.iter(|| suite_nodes(&e6, &s6, 10)));
    g.bench_function("2x12 depth 8", |b| b.iter(|| suite_nodes(&e12, &s12, 8)));
    g.bench_function("2x12 depth 8 plain", |b| {
        b.iter(|| {
            s12.iter()
                .map(|p| plain_search(&r12, Eval::default(), p, &Limits::depth(8)).nodes)
                .sum::<u64>()
        })
    });
    g.finish();
}

criterion_group!(benches, fixed_depth);
criterion_main!(benches);
