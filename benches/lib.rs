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

/// The yardstick the issue quotes: a plain perft with arrays, a copy of the board per move and
/// a hash set of visited absolute sowing states once a move passes 64 laps. Hoyito II, 2x6
/// rules with captures in any row. Kept only to measure the packed engine against it.
pub mod plain {
    use std::collections::HashSet;

    /// A plain position: 12 holes, side to move (0 South, 1 North).
    #[derive(Clone)]
    pub struct Plain {
        /// Holes in sowing order.
        pub board: [u32; 12],
        /// 0 for South, 1 for North.
        pub side: usize,
    }

    /// The standard start.
    pub fn start() -> Plain {
        Plain {
            board: [4; 12],
            side: 0,
        }
    }

    /// Plays `hole` (0-based in the mover's row); `None` when the sowing never ends.
    fn play(p: &Plain, hole: usize) -> Option<Plain> {
        let mut b = p.board;
        let mut at = p.side * 6 + hole;
        let mut seen: Option<HashSet<([u32; 12], usize)>> = None;
        let mut laps = 0;
        loop {
            let c = b[at] as usize;
            b[at] = 0;
            for k in 1..=c {
                b[(at + k) % 12] += 1;
            }
            at = (at + c) % 12;
            laps += 1;
            if b[at] == 1 {
                return Some(Plain {
                    board: b,
                    side: 1 - p.side,
                });
            }
            if b[at] == 4 {
                b[at] = 0;
                let mut j = at;
                loop {
                    j = (j + 11) % 12;
                    if b[j] != 4 {
                        break;
                    }
                    b[j] = 0;
                }
                if b.iter().sum::<u32>() <= 4 {
                    b = [0; 12];
                }
                return Some(Plain {
                    board: b,
                    side: p.side,
                });
            }
            if laps > 64 && !seen.get_or_insert_with(HashSet::new).insert((b, at)) {
                return None;
            }
        }
    }

    fn children(p: &Plain) -> Vec<Plain> {
        (0..6)
            .filter(|&h| p.board[p.side * 6 + h] > 0)
            .filter_map(|h| play(p, h))
            .collect()
    }

    /// Perft with automatic passes, as RULES.md counts it.
    pub fn perft(p: &Plain, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut kids = children(p);
        if kids.is_empty() {
            let q = Plain {
                board: p.board,
                side: 1 - p.side,
            };
            kids = children(&q);
        }
        kids.iter().map(|c| perft(c, depth - 1)).sum()
    }
}
