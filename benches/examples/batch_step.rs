//! Game steps a second of a batch of games stepped in Rust ([`hoyito::batch::Batch`]) with
//! random legal actions, both sides played by the caller: `step` alone, then `step_into`
//! (the step and every game's rows of results, as the Python vector environment asks).
//!
//!     cargo run --release -p hoyito-benches --example batch_step -- [GAMES] [SECONDS]
//!
//! The actions are drawn on the calling thread (an xorshift generator over each mask), as
//! a learning program draws them between steps.
use std::time::Instant;

use hoyito::batch::{Batch, BatchOptions, StepOut};
use hoyito_rules::{Position6, Rules};

/// A uniform legal action of every game (0 where an episode just ended).
fn draw(batch: &Batch<2>, actions: &mut [i64], x: &mut u64) {
    for (env, a) in actions.iter_mut().enumerate() {
        let mut mask = batch.mask(env);
        if mask == 0 {
            *a = 0;
            continue;
        }
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        let n = u64::from(mask.count_ones());
        for _ in 0..((*x >> 32) * n) >> 32 {
            mask &= mask - 1;
        }
        *a = i64::from(mask.trailing_zeros());
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let games: usize = args
        .next()
        .map_or(4096, |a| a.parse().expect("GAMES: a number"));
    let seconds: f64 = args
        .next()
        .map_or(3.0, |a| a.parse().expect("SECONDS: a number"));
    let rules = Rules::default();
    let start = Position6::start(&rules).expect("the start");
    let mut batch = Batch::new(rules, start, games, BatchOptions::default(), 0).expect("a batch");
    let (n, h) = (batch.observation_len(), rules.holes());
    let mut actions = vec![0i64; games];
    let (mut obs, mut masks) = (vec![0i16; games * n], vec![false; games * h]);
    let (mut rewards, mut terminated) = (vec![0.0; games], vec![false; games]);
    let (mut truncated, mut to_move) = (vec![false; games], vec![0i8; games]);
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for rows in [false, true] {
        let (mut steps, t0) = (0u64, Instant::now());
        // The clock read every 64 steps (a batch of one game steps in 0.2 µs).
        while steps % (64 * games as u64) != 0 || t0.elapsed().as_secs_f64() < seconds {
            draw(&batch, &mut actions, &mut x);
            if rows {
                let out = StepOut {
                    observations: &mut obs,
                    masks: &mut masks,
                    rewards: &mut rewards,
                    terminated: &mut terminated,
                    truncated: &mut truncated,
                    to_move: &mut to_move,
                };
                batch.step_into(&actions, out).expect("a step");
            } else {
                batch.step(&actions).expect("a step");
            }
            steps += games as u64;
        }
        let rate = steps as f64 / t0.elapsed().as_secs_f64() / 1e6;
        let name = if rows { "step_into" } else { "step" };
        println!("{games} games, {name:9}: {rate:.3} M steps/s");
    }
}
