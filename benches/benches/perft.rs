//! Move generation speed: perft from the 2x6 and 2x12 starts, and move generation over a
//! suite of ordinary positions (every move ends within the fast path's 64 laps).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hoyito_benches::{ordinary_positions, plain};
use hoyito_rules::{perft, perft_parallel, Position12, Position6, Rules};

fn bench_perft(c: &mut Criterion) {
    let r6 = Rules::default();
    let r12 = Rules::hoyito2(12).unwrap();
    let start6 = Position6::start(&r6).unwrap();
    let start12 = Position12::start(&r12).unwrap();
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    for depth in [7u32, 9] {
        // The long-sowing cache is warm after the first iteration, as in any real run.
        let nodes = perft(&start6, &r6, depth);
        g.throughput(Throughput::Elements(nodes));
        g.bench_with_input(
            BenchmarkId::new("2x6 start, 1 thread", depth),
            &depth,
            |b, &d| b.iter(|| perft(&start6, &r6, d)),
        );
        g.bench_with_input(
            BenchmarkId::new("2x6 start, all threads", depth),
            &depth,
            |b, &d| b.iter(|| perft_parallel(&start6, &r6, d)),
        );
    }
    // The plain yardstick at a depth it can afford, beside the packed engine at the same depth.
    let nodes = perft(&start6, &r6, 7);
    assert_eq!(plain::perft(&plain::start(), 7), nodes);
    g.throughput(Throughput::Elements(nodes));
    g.bench_function("2x6 start, plain arrays/7", |b| {
        b.iter(|| plain::perft(&plain::start(), 7))
    });
    let nodes = perft(&start12, &r12, 4);
    g.throughput(Throughput::Elements(nodes));
    g.bench_function("2x12 start, 1 thread/4", |b| {
        b.iter(|| perft(&start12, &r12, 4))
    });
    g.finish();
}

fn bench_movegen(c: &mut Criterion) {
    let rules = Rules::default();
    let suite = ordinary_positions(&rules, 4096, 7);
    let moves: u64 = suite.iter().map(|p| p.moves(&rules).len() as u64).sum();
    let mut g = c.benchmark_group("movegen");
    g.throughput(Throughput::Elements(moves));
    g.bench_function("2x6 ordinary positions", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for p in &suite {
                n += p.moves(&rules).len();
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench_perft, bench_movegen);
criterion_main!(benches);
