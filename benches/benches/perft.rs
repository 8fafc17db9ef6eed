//! Move generation speed: perft from the 2x6 and 2x12 starts, move generation over a
//! suite of ordinary positions (every move ends within the fast path's 64 laps), and random
//! games played through `Game`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hoyito_benches::{ordinary_positions, plain};
use hoyito_rules::{perft, perft_parallel, Game, Position12, Position6, Rules};

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

/// Random games through [`Game`]: each move chosen among the game's legal moves and played
/// keeping the next moves (the automatic pass, the end and repetition checked), as a
/// program that plays many games
/// does, and as the Python package's `Game.play_inplace` loop does under its interpreter.
fn bench_games(c: &mut Criterion) {
    let rules = Rules::default();
    let start = Position6::start(&rules).unwrap();
    let play = |games: u64| {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut moves = 0u64;
        for _ in 0..games {
            let mut g = Game::new(rules, start);
            while !g.is_over() {
                let legal = g.legal_moves();
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let mv = legal[(x % legal.len() as u64) as usize].mv;
                g.play_keeping_moves(mv).unwrap();
                moves += 1;
            }
        }
        moves
    };
    let mut g = c.benchmark_group("games");
    g.sample_size(20);
    g.throughput(Throughput::Elements(play(100)));
    g.bench_function("100 random 2x6 games, 1 thread", |b| b.iter(|| play(100)));
    g.finish();
}

criterion_group!(benches, bench_perft, bench_movegen, bench_games);
criterion_main!(benches);
