//! Shared inputs of the benchmarks in `benches/`.

use hoyito_rules::{sowing, Position6, Rules};

/// `count` positions reached by seeded random play from the 2x6 start in which every move's
/// sowing ends within the fast path ([`sowing::FAST_LAPS`] laps). Deterministic for a seed.
pub fn ordinary_positions(rules: &Rules, count: usize, seed: u64) -> Vec<Position6> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut p = Position6::start(rules).expect("standard rules");
        for _ in 0..200 {
            let (q, _) = p.settle(rules);
            let before = sowing::stats().long_sowings;
            let list = q.moves(rules);
            if list.is_empty() {
                break;
            }
            if sowing::stats().long_sowings == before && list.endless().next().is_none() {
                out.push(q);
                if out.len() == count {
                    break;
                }
            }
            let pick = (next() % list.len() as u64) as usize;
            p = list.children()[pick].position;
        }
    }
    out
}
