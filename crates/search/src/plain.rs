//! Plain alpha-beta: no table, no move ordering (hole order), one thread. The baseline the
//! full search is compared with (`solve bench --plain`), and a second opinion in tests.

use std::time::Instant;

use hoyito_rules::{Move, Position, Rules};

use crate::alphabeta::child_window;
use crate::{Eval, Limits, SearchResult};

struct Plain<'a, const W: usize> {
    rules: &'a Rules,
    eval: Eval,
    path: Vec<([u64; W], u32)>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stopped: bool,
    heuristic: u64,
    root_best: Option<Move>,
}

impl<const W: usize> Plain<'_, W> {
    fn search(
        &mut self,
        p: &Position<W>,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes & 1023 == 0
            && (self.nodes >= self.node_limit || self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let n = p.seeds_on_board();
        if n <= 4 {
            return 0;
        }
        let board = p.board_key();
        for &(b, s) in self.path.iter().rev() {
            if s != n {
                break;
            }
            if b == board {
                return 0;
            }
        }
        let n = n as i32;
        if depth <= 0 {
            self.heuristic += 1;
            return self.eval.evaluate(self.rules, p, n);
        }
        let list = p.moves(self.rules);
        self.path.push((board, n as u32));
        let result = if list.is_empty() {
            match p.passed(self.rules) {
                Some(q) => -self.search(&q, depth, -beta, -alpha, ply + 1),
                None => 0,
            }
        } else {
            let mut best = -(1 << 20);
            for c in list.children() {
                let v = if c.ended_game {
                    0
                } else {
                    let (a, b) = child_window(c, alpha, beta);
                    self.search(&c.position, depth - 1, a, b, ply + 1)
                };
                let s = c.value(v);
                if self.stopped {
                    break;
                }
                if s > best {
                    best = s;
                    if ply == 0 {
                        self.root_best = Some(c.mv);
                    }
                }
                alpha = alpha.max(s);
                if alpha >= beta {
                    break;
                }
            }
            best
        };
        self.path.pop();
        if self.stopped {
            return 0;
        }
        result
    }
}

/// Plain alpha-beta with iterative deepening (for time limits) on one thread: no table, no
/// move ordering, no window narrowing from the seeds on the board. Repetition on the path is
/// worth 0, as in the full search. With `limits.exact` (or no depth or time limit) it searches
/// to the end of the game, which is only practical on small positions.
pub fn plain_search<const W: usize>(
    rules: &Rules,
    eval: Eval,
    root: &Position<W>,
    limits: &Limits,
) -> SearchResult {
    let start = Instant::now();
    let mut s = Plain {
        rules,
        eval,
        path: Vec::new(),
        nodes: 0,
        node_limit: limits.nodes.unwrap_or(u64::MAX),
        deadline: limits.time.map(|t| start + t),
        stopped: false,
        heuristic: 0,
        root_best: None,
    };
    let n = root.seeds_on_board() as i32;
    let exact = limits.is_exact();
    let max_depth = if exact {
        i32::MAX / 2
    } else {
        limits.depth.unwrap_or(250).clamp(1, 250) as i32
    };
    let mut out = SearchResult::unknown(root.seeds_on_board());
    let first = if exact { max_depth } else { 1 };
    for d in first..=max_depth {
        let h0 = s.heuristic;
        s.root_best = None;
        // A margin around the bounds: plain alpha-beta does not clamp the window.
        let v = s.search(root, d, -n - 1, n + 1, 0);
        if s.stopped {
            out.stopped = true;
            break;
        }
        out.best = s.root_best;
        out.score = v;
        out.depth = if exact { 0 } else { d as u32 };
        if s.heuristic == h0 {
            out.exact = true;
            out.lower = v;
            out.upper = v;
            break;
        }
    }
    out.pv = out.best.into_iter().collect();
    out.nodes = s.nodes;
    out.seconds = start.elapsed().as_secs_f64();
    out
}
