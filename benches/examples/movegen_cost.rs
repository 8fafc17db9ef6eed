//! What the move generator costs on the positions of random play: a million positions of
//! random Hoyito II games from the 2x6 start, then `legal_mask` and `for_each_child` over
//! them, in ns a position and a sowing (one a non-empty hole of the side to move), with the
//! laps a sowing takes.
//!
//!     cargo run --release -p hoyito-benches --example movegen_cost
use std::time::Instant;

use hoyito_rules::{Game, Move, Position6, Rules};

/// Laps of the sowing from lane `origin` of `board` (relay sowing: a lap that ends in an
/// occupied hole lifts it and goes on), counted on plain arrays up to 1000.
fn laps(mut board: [u32; 12], origin: usize) -> u32 {
    let (mut h, mut laps) = (origin, 0);
    loop {
        let c = std::mem::take(&mut board[h]);
        for _ in 0..c {
            h = (h + 1) % 12;
            board[h] += 1;
        }
        laps += 1;
        if board[h] == 1 || board[h] == 4 || laps == 1000 {
            return laps;
        }
    }
}

fn main() {
    let rules = Rules::default();
    let start = Position6::start(&rules).expect("the start");
    let mut positions = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    while positions.len() < 1_000_000 {
        let mut g = Game::new(rules, start);
        while !g.is_over() {
            positions.push(g.position());
            let mut mask = g.legal_mask();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for _ in 0..((x >> 32) * u64::from(mask.count_ones())) >> 32 {
                mask &= mask - 1;
            }
            g.play(Move(mask.trailing_zeros() as u8 + 1))
                .expect("a legal move");
        }
    }
    let (mut sowings, mut lap_count) = (0u64, 0u64);
    for p in &positions {
        let board: [u32; 12] = std::array::from_fn(|i| u32::from(p.seeds(i)));
        let first = p.side_to_move().index() * 6;
        for origin in (first..first + 6).filter(|&i| board[i] != 0) {
            sowings += 1;
            lap_count += u64::from(laps(board, origin));
        }
    }
    let count = positions.len() as f64;
    println!(
        "{} positions, {:.2} sowings a position, {:.2} laps a sowing",
        positions.len(),
        sowings as f64 / count,
        lap_count as f64 / sowings as f64
    );
    for _ in 0..3 {
        let t = Instant::now();
        let masks: u64 = positions
            .iter()
            .map(|p| u64::from(p.legal_mask(&rules)))
            .sum();
        let mask_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut children = 0u64;
        for p in &positions {
            p.for_each_child(&rules, |c| children += u64::from(c.gain != i16::MIN));
        }
        let child_s = t.elapsed().as_secs_f64();
        println!(
            "legal_mask {:.1} ns a position ({:.1} a sowing); for_each_child {:.1} ns ({:.1}); \
             checksums {masks} {children}",
            mask_s * 1e9 / count,
            mask_s * 1e9 / sowings as f64,
            child_s * 1e9 / count,
            child_s * 1e9 / sowings as f64,
        );
    }
}
