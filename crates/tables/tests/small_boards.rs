//! The tables against an independent solver of the whole position graph, on small boards
//! and for every combination of rule options.
//!
//! The reference enumerates every board by recursion (no ranking), keeps values in a hash
//! map, and solves each layer threshold by threshold with the classic retrograde attractor:
//! explicit predecessor lists, a counter of moves left per position and a work queue.

use std::collections::{HashMap, VecDeque};

use hoyito_rules::{Position6, Rules, Side};
use hoyito_tables::{build_in_memory, build_with, BuildOptions, Method, Quiet, Tables};
use hoyito_testkit::all_rule_sets;

type Key = (Vec<u8>, Side);

fn boards(cells: usize, seeds: usize) -> Vec<Vec<u8>> {
    fn go(cells: usize, left: usize, cur: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if cur.len() + 1 == cells {
            cur.push(left as u8);
            out.push(cur.clone());
            cur.pop();
            return;
        }
        for s in 0..=left {
            cur.push(s as u8);
            go(cells, left - s, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(cells, seeds, &mut Vec::new(), &mut out);
    out
}

fn key_of(p: &Position6) -> Key {
    let (mut s, n) = p.rows();
    s.extend(n);
    (s, p.side_to_move())
}

/// Exact values of every position with at most `max` seeds (and as many modulo 4).
fn reference(rules: &Rules, max: usize) -> HashMap<Key, i32> {
    let h = rules.holes();
    // Positions of any board size are legal under the widest rules of this key.
    let wide = rules.with_seeds(8).unwrap();
    let mut value: HashMap<Key, i32> = HashMap::new();
    for n in (5..=max).filter(|n| n % 4 == max % 4) {
        let mut nodes: Vec<Position6> = Vec::new();
        for b in boards(2 * h, n) {
            for side in [Side::South, Side::North] {
                nodes.push(Position6::from_rows(&wide, &b[..h], &b[h..], side, [0, 0]).unwrap());
            }
        }
        let id: HashMap<Key, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, p)| (key_of(p), i))
            .collect();
        // Exits (worth to the mover) and quiet successors of every node.
        let mut exits: Vec<Vec<i32>> = vec![Vec::new(); nodes.len()];
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (i, p) in nodes.iter().enumerate() {
            let list = p.moves(rules);
            if list.is_empty() {
                succ[i].push(id[&key_of(&p.with_side_flipped())]);
            }
            for c in list.children() {
                if c.extra_turn {
                    let rest = if c.ended_game {
                        0
                    } else {
                        value[&key_of(&c.position)]
                    };
                    exits[i].push(c.gain as i32 + rest);
                } else {
                    succ[i].push(id[&key_of(&c.position)]);
                }
            }
        }
        let mut pred: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (i, s) in succ.iter().enumerate() {
            for &j in s {
                pred[j].push(i);
            }
        }
        let mut result = vec![0i32; nodes.len()];
        for t in (1..=n as i32).rev() {
            // win: the mover forces an exit worth >= t; lose: the opponent forces <= -t.
            let mut win = vec![false; nodes.len()];
            let mut lose = vec![false; nodes.len()];
            let mut left: Vec<usize> = succ.iter().map(|s| s.len()).collect();
            let blocked: Vec<bool> = exits.iter().map(|e| e.iter().any(|&x| x > -t)).collect();
            let mut queue = VecDeque::new();
            for i in 0..nodes.len() {
                if exits[i].iter().any(|&x| x >= t) {
                    win[i] = true;
                    queue.push_back(i);
                } else if !blocked[i] && left[i] == 0 && !exits[i].is_empty() {
                    lose[i] = true;
                    queue.push_back(i);
                }
            }
            while let Some(q) = queue.pop_front() {
                for &p in &pred[q] {
                    if lose[q] {
                        if !win[p] && !lose[p] {
                            win[p] = true;
                            queue.push_back(p);
                        }
                    } else {
                        left[p] -= 1;
                        if left[p] == 0 && !blocked[p] && !win[p] && !lose[p] {
                            lose[p] = true;
                            queue.push_back(p);
                        }
                    }
                }
            }
            for i in 0..nodes.len() {
                if win[i] && result[i] == 0 {
                    result[i] = t;
                }
                if lose[i] && result[i] == 0 {
                    result[i] = -t;
                }
                assert!(!(win[i] && lose[i]));
            }
        }
        for (i, p) in nodes.iter().enumerate() {
            value.insert(key_of(p), result[i]);
        }
    }
    value
}

fn check(holes: usize, max: usize) {
    for rules in all_rule_sets(holes, 8) {
        let want = reference(&rules, max);
        for method in [
            Method::Sweeps,
            Method::MovesAtSweep(1),
            Method::MovesAtSweep(3),
        ] {
            check_built(&rules, holes, max, method, &want);
        }
        // In memory, Auto goes on in rounds from the smallest layer, its moves in memory.
        let (tables, _) = build_in_memory(&rules, max, &BuildOptions::default(), &Quiet).unwrap();
        check_values(&tables, &rules, holes, max, Method::Auto, &want);
    }
}

fn check_built(rules: &Rules, holes: usize, max: usize, method: Method, want: &HashMap<Key, i32>) {
    {
        let rules = *rules;
        let dir = tempfile::tempdir().unwrap();
        build_with(
            dir.path(),
            &rules,
            max,
            &BuildOptions {
                method,
                ..Default::default()
            },
            &Quiet,
        )
        .unwrap();
        let tables = Tables::open(dir.path(), &rules).unwrap();
        check_values(&tables, &rules, holes, max, method, want);
    }
}

/// `tables` hold the values `want` of the reference solver.
fn check_values(
    tables: &Tables,
    rules: &Rules,
    holes: usize,
    max: usize,
    method: Method,
    want: &HashMap<Key, i32>,
) {
    assert_eq!(tables.max_seeds(), max);
    let wide = *rules;
    let mut nonzero = 0;
    for ((board, side), v) in want {
        let p =
            Position6::from_rows(&wide, &board[..holes], &board[holes..], *side, [0, 0]).unwrap();
        assert_eq!(tables.probe(&p), Some(*v), "{p} ({rules}, {method:?})");
        nonzero += (*v != 0) as usize;
    }
    assert!(nonzero > 0);
}

#[test]
fn board_2x2() {
    check(2, 20);
}

#[test]
fn board_2x2_odd_layers() {
    // Layers of 5, 9 and 13 seeds: values in steps of 1, the award is 1 seed.
    check(2, 13);
}

#[test]
fn board_2x3() {
    check(3, 16);
}

#[test]
fn board_2x3_even_layers() {
    // Layers of 6, 10 and 14 seeds: values in steps of 2.
    check(3, 14);
}

#[test]
fn board_2x4() {
    check(4, 12);
}

#[test]
fn board_2x5() {
    check(5, 8);
}
