//! The checker's verification of the table values: tables built by the engine
//! (`hoyito_tables`) are accepted; copies damaged on purpose are rejected, naming a position,
//! with the checksums and the histogram recomputed after each change so that only the value
//! check can catch it: a pair of values that hold each other up on a cycle (with every value
//! around them agreeing with its moves), a value changed by 4 on a cycle, a value changed
//! where a move ends the game, a layer of another rule set, a truncated layer.

mod common;

use common::{build, rules};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use hoyito_check::tables::{checksum, layer_path, Tables};
use hoyito_check::{
    verify_layer, verify_layer_resuming, verify_tables, verify_tables_resuming, CaptureSide,
    CheckError, LastFour, Position, Progress, Resume, Rules, Side, Silent, ValueFailure,
    ValueFault, Variant,
};

fn hoyito(variant: Variant) -> Rules {
    rules(6, variant, LastFour::Capturer, CaptureSide::Any)
}

fn step_of(seeds: usize) -> usize {
    match seeds % 4 {
        0 => 4,
        2 => 2,
        _ => 1,
    }
}

/// Every position of the layer of `seeds` seeds, by index (the checker's own reader gives
/// the index of each board; the test only enumerates the boards).
fn positions(tables: &Tables, r: &Rules, seeds: usize) -> Vec<Position> {
    fn fill(board: &mut Vec<u8>, k: usize, left: u8, out: &mut Vec<Vec<u8>>) {
        if board.len() + 1 == k {
            board.push(left);
            out.push(board.clone());
            board.pop();
            return;
        }
        for s in 0..=left {
            board.push(s);
            fill(board, k, left - s, out);
            board.pop();
        }
    }
    let layer = tables.layer(seeds).unwrap();
    let mut boards = Vec::new();
    fill(&mut Vec::new(), 2 * r.holes, seeds as u8, &mut boards);
    let sides: &[Side] = if layer.sides() == 1 {
        &[Side::South]
    } else {
        &[Side::South, Side::North]
    };
    let mut out: Vec<Option<Position>> = vec![None; layer.positions() as usize];
    for board in boards {
        for &side in sides {
            let p = Position {
                board: board.clone(),
                side,
            };
            let i = layer.index(&p) as usize;
            assert!(out[i].is_none());
            out[i] = Some(p);
        }
    }
    out.into_iter().map(Option::unwrap).collect()
}

/// A move as the test sees it, from the checker's plain rules.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Edge {
    /// Leaves the layer (a capture or a game end), worth this to the mover.
    Exit(i32),
    /// A quiet move or a pass to this index of the same layer.
    Quiet(usize),
}

/// The moves of `p` (in the layer of `seeds` seeds), the smaller layers read from `tables`.
fn moves(tables: &Tables, r: &Rules, seeds: usize, p: &Position) -> Vec<(Edge, bool)> {
    let layer = tables.layer(seeds).unwrap();
    let sign = if p.side == Side::South { 1 } else { -1 };
    let mut out = Vec::new();
    for (_, played) in p.legal_moves(r) {
        let edge = if played.captured == 0 {
            Edge::Quiet(layer.index(&played.next) as usize)
        } else if played.ended {
            Edge::Exit(sign * played.south_gain)
        } else {
            let after = sign * tables.south_value(&played.next).unwrap().unwrap();
            Edge::Exit(sign * played.south_gain + after)
        };
        out.push((edge, played.ended));
    }
    if out.is_empty() {
        let other = p.flipped();
        out.push(if other.can_move(r) {
            (Edge::Quiet(layer.index(&other) as usize), false)
        } else {
            (Edge::Exit(0), true)
        });
    }
    out
}

fn worth(values: &[i32], e: Edge) -> i32 {
    match e {
        Edge::Exit(x) => x,
        Edge::Quiet(c) => -values[c],
    }
}

/// Rewrites the layer file `path` (of `seeds` seeds) with the values `values` (by index):
/// the codes, the histogram, the payload checksum and the header checksum all written
/// anew, so that the file is well formed and only the values are wrong.
fn rewrite(path: &Path, seeds: usize, values: &[i32]) {
    let mut bytes = std::fs::read(path).unwrap();
    let step = step_of(seeds) as i32;
    let bins = 2 * seeds / step as usize + 1;
    let bits = bytes[21] as usize;
    let header = 80 + 8 * bins;
    let mut histogram = vec![0u64; bins];
    for (i, &v) in values.iter().enumerate() {
        let code = ((v + seeds as i32) / step) as usize;
        histogram[code] += 1;
        for k in 0..bits {
            let bit = i * bits + k;
            let byte = &mut bytes[header + bit / 8];
            if code >> k & 1 == 1 {
                *byte |= 1 << (bit % 8);
            } else {
                *byte &= !(1 << (bit % 8));
            }
        }
    }
    for (b, count) in histogram.iter().enumerate() {
        bytes[72 + 8 * b..80 + 8 * b].copy_from_slice(&count.to_le_bytes());
    }
    let payload = checksum(&bytes[header..]);
    bytes[40..48].copy_from_slice(&payload.to_le_bytes());
    let head = checksum(&bytes[..header - 8]);
    bytes[header - 8..header].copy_from_slice(&head.to_le_bytes());
    std::fs::write(path, bytes).unwrap();
}

/// The stored values of a layer, by index, for the side to move.
fn stored(tables: &Tables, seeds: usize, all: &[Position]) -> Vec<i32> {
    all.iter()
        .map(|p| {
            let v = tables.south_value(p).unwrap().unwrap();
            assert!(v.abs() <= seeds as i32);
            if p.side == Side::South {
                v
            } else {
                -v
            }
        })
        .collect()
}

/// The failure of a rejected check.
fn wrong_value(result: Result<impl std::fmt::Debug, CheckError>) -> ValueFailure {
    match result {
        Err(CheckError::WrongValue(f)) => {
            // The message names the position in the project's notation and the file.
            let text = CheckError::WrongValue(f.clone()).to_string();
            assert!(text.contains(&f.position.to_string()), "{text}");
            assert!(text.contains("layer-"), "{text}");
            *f
        }
        other => panic!("expected a wrong value, got {other:?}"),
    }
}

/// Counts what a check reports.
#[derive(Default)]
struct Counted {
    passes: AtomicU64,
    visited: AtomicU64,
    layers: AtomicU64,
}

impl Progress for Counted {
    fn pass_start(&self, _: usize, _: u32, _: u64) {
        self.passes.fetch_add(1, Ordering::Relaxed);
    }
    fn advance(&self, positions: u64) {
        self.visited.fetch_add(positions, Ordering::Relaxed);
    }
    fn layer_done(&self, _: &hoyito_check::LayerReport) {
        self.layers.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn tables_built_by_the_engine_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (hoyito(Variant::Hoyito2), 12),
        (hoyito(Variant::Hoyito3), 10),
        (
            rules(3, Variant::Hoyito2, LastFour::South, CaptureSide::Opponent),
            11,
        ),
        (
            rules(4, Variant::Hoyito3, LastFour::North, CaptureSide::Any),
            9,
        ),
        (
            rules(2, Variant::Hoyito2, LastFour::Capturer, CaptureSide::Any),
            13,
        ),
    ];
    for (r, max) in cases {
        build(dir.path(), &r, max);
        let counted = Counted::default();
        let report = verify_tables(dir.path(), &r, max, &counted).unwrap();
        let tables = Tables::open(dir.path(), &r, max).unwrap();
        let seeds: Vec<usize> = report.layers.iter().map(|l| l.seeds).collect();
        let expected: Vec<usize> = (5..=max).filter(|n| n % 4 == max % 4).collect();
        assert_eq!(seeds, expected, "{r}");
        let mut evaluations = 0;
        for l in &report.layers {
            let layer = tables.layer(l.seeds).unwrap();
            assert_eq!(l.positions, layer.positions(), "{r}");
            let zero = layer.histogram()[l.seeds / step_of(l.seeds)];
            assert_eq!(l.nonzero, l.positions - zero, "{r} layer {}", l.seeds);
            assert_eq!(l.payload_checksum, layer.payload_checksum());
            assert!(l.open_after_first <= l.nonzero);
            assert!(l.evaluations >= l.positions);
            evaluations += l.evaluations;
        }
        assert_eq!(counted.visited.load(Ordering::Relaxed), evaluations);
        assert_eq!(
            counted.layers.load(Ordering::Relaxed),
            report.layers.len() as u64
        );
        assert!(counted.passes.load(Ordering::Relaxed) >= report.layers.len() as u64);
        // One layer alone, over the smaller ones, gives the same report but the time.
        let top = verify_layer(dir.path(), &r, max, &Silent).unwrap();
        let last = report.layers.last().unwrap();
        // (Passes and evaluations depend on how the threads share the work.)
        assert_eq!(
            (top.seeds, top.positions, top.nonzero, top.payload_checksum),
            (
                last.seeds,
                last.positions,
                last.nonzero,
                last.payload_checksum
            )
        );
    }
}

/// Pairs `(p, q)` of zero-valued positions, each with a quiet move to the other, where
/// every other move of `q` loses: `+g` at `p` and `-g` at `q` agree with those moves.
fn two_cycles(values: &[i32], moves: &[Vec<(Edge, bool)>]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for q in 0..values.len() {
        if values[q] != 0 {
            continue;
        }
        for &(e, _) in &moves[q] {
            let Edge::Quiet(p) = e else { continue };
            if p == q || values[p] != 0 || !moves[p].iter().any(|&(m, _)| m == Edge::Quiet(q)) {
                continue;
            }
            if moves[q]
                .iter()
                .all(|&(o, _)| o == e || worth(values, o) < 0)
            {
                out.push((p, q));
            }
        }
    }
    out
}

/// From `values` with the changes `start`, applies the value operator (best over the
/// moves) to the whole layer until nothing changes: a labelling that agrees with every
/// move, differing from `values` (or `None`).
fn consistent_from(
    values: &[i32],
    moves: &[Vec<(Edge, bool)>],
    start: &[(usize, i32)],
) -> Option<Vec<i32>> {
    let mut v = values.to_vec();
    for &(i, x) in start {
        v[i] = x;
    }
    for _ in 0..200 {
        let next: Vec<i32> = moves
            .iter()
            .map(|m| m.iter().map(|&(e, _)| worth(&v, e)).max().unwrap())
            .collect();
        if next == v {
            return (v != values).then_some(v);
        }
        v = next;
    }
    None
}

/// Builds the tables of `r` up to `seeds`, relabels a pair of positions on a cycle to `+g`
/// and `-g` with the values around them adjusted until every move agrees, and checks that
/// the verification rejects it as not forced. `false` when the layer has no such cycle.
fn fake_pair_is_rejected(r: &Rules, seeds: usize) -> bool {
    let r = *r;
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &r, seeds);
    verify_tables(dir.path(), &r, seeds, &Silent).unwrap();
    let tables = Tables::open(dir.path(), &r, seeds).unwrap();
    let all = positions(&tables, &r, seeds);
    let values = stored(&tables, seeds, &all);
    let moves: Vec<_> = all.iter().map(|p| moves(&tables, &r, seeds, p)).collect();
    // The stored values agree with every move (what the engine built is a fixpoint).
    for (i, m) in moves.iter().enumerate() {
        let best = m.iter().map(|&(e, _)| worth(&values, e)).max().unwrap();
        assert_eq!(best, values[i], "{}", all[i]);
    }
    let g = step_of(seeds) as i32;
    let Some((pair, wrong)) = two_cycles(&values, &moves).into_iter().find_map(|(p, q)| {
        consistent_from(&values, &moves, &[(p, g), (q, -g)]).map(|w| ((p, q), w))
    }) else {
        return false;
    };
    // The damaged values agree with every move: only the least-fixpoint check can tell.
    for (i, m) in moves.iter().enumerate() {
        let best = m.iter().map(|&(e, _)| worth(&wrong, e)).max().unwrap();
        assert_eq!(best, wrong[i]);
    }
    let changed: Vec<usize> = (0..values.len())
        .filter(|&i| wrong[i] != values[i])
        .collect();
    assert!(changed.contains(&pair.0) && changed.contains(&pair.1));
    let path = layer_path(dir.path(), &r, seeds);
    rewrite(&path, seeds, &wrong);
    // The file is well formed: its reader accepts it, and reads the changed values.
    let damaged = Tables::open(dir.path(), &r, seeds).unwrap();
    assert_eq!(stored(&damaged, seeds, &all), wrong);
    let f = wrong_value(verify_tables(dir.path(), &r, seeds, &Silent));
    assert_eq!(f.fault, ValueFault::NotForced, "{r}: {f}");
    assert_eq!(f.seeds, seeds);
    assert_eq!(f.path, path);
    let i = f.index as usize;
    assert_eq!(f.position, all[i]);
    assert!(changed.contains(&i), "{r}: {f}");
    assert_eq!(f.stored, wrong[i]);
    assert_ne!(f.stored, 0);
    assert!(f.count >= 2 && f.count <= changed.len() as u64, "{r}: {f}");
    // A check stopped after every segment and resumed finds the same position.
    let state = tempfile::tempdir().unwrap();
    let (end, stops) = until_done(|| {
        verify_tables_resuming(dir.path(), &r, seeds, &Silent, &at_once(state.path()))
    });
    assert!(stops >= 1, "{r}: the first pass cannot show it");
    assert_eq!(wrong_value(end), f);
    let text = CheckError::WrongValue(Box::new(f)).to_string();
    assert!(text.contains("not forced"), "{text}");
    true
}

#[test]
fn values_holding_each_other_up_on_a_cycle_are_rejected_as_not_forced() {
    // Hoyito II on 2x6 (a change by 4: the 8-seed layer's step) and Hoyito III on 2x3.
    assert!(fake_pair_is_rejected(&hoyito(Variant::Hoyito2), 8));
    let iii = rules(3, Variant::Hoyito3, LastFour::Capturer, CaptureSide::Any);
    assert!(fake_pair_is_rejected(&iii, 11));
    // Both sides stored (the last four to South or North): the first layer with such a
    // cycle among a few.
    let two_sides = [
        (
            rules(3, Variant::Hoyito2, LastFour::South, CaptureSide::Any),
            6,
        ),
        (
            rules(3, Variant::Hoyito2, LastFour::South, CaptureSide::Any),
            10,
        ),
        (
            rules(6, Variant::Hoyito3, LastFour::North, CaptureSide::Any),
            8,
        ),
        (
            rules(4, Variant::Hoyito2, LastFour::South, CaptureSide::Opponent),
            8,
        ),
    ];
    assert!(two_sides.iter().any(|(r, n)| fake_pair_is_rejected(r, *n)));
}

/// Checks that `f` names the changed position `i` or one with a quiet move to it (whose
/// best move changed with it), with its stored value.
fn names_the_change(f: &ValueFailure, i: usize, all: &[Position], moves: &[Vec<(Edge, bool)>]) {
    let at = f.index as usize;
    assert_eq!(f.position, all[at]);
    assert!(
        at == i || moves[at].iter().any(|&(e, _)| e == Edge::Quiet(i)),
        "{f} (changed: {})",
        all[i]
    );
    assert!(matches!(f.fault, ValueFault::Moves { expected } if expected != f.stored));
}

#[test]
fn one_value_changed_by_4_on_a_cycle_is_rejected() {
    let r = hoyito(Variant::Hoyito2);
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &r, 12);
    let tables = Tables::open(dir.path(), &r, 12).unwrap();
    let all = positions(&tables, &r, 8);
    let values = stored(&tables, 8, &all);
    let moves: Vec<_> = all.iter().map(|p| moves(&tables, &r, 8, p)).collect();
    let (p, _) = two_cycles(&values, &moves)[0];
    let mut wrong = values.clone();
    wrong[p] = 4;
    let path = layer_path(dir.path(), &r, 8);
    rewrite(&path, 8, &wrong);
    let f = wrong_value(verify_tables(dir.path(), &r, 12, &Silent));
    assert_eq!(f.seeds, 8);
    names_the_change(&f, p, &all, &moves);
    // The layer above is not reached: the damaged layer stops the check.
    let f = wrong_value(verify_layer(dir.path(), &r, 8, &Silent));
    names_the_change(&f, p, &all, &moves);
}

#[test]
fn a_value_changed_where_a_move_ends_the_game_is_rejected() {
    for r in [
        hoyito(Variant::Hoyito3),
        rules(3, Variant::Hoyito2, LastFour::North, CaptureSide::Opponent),
    ] {
        let dir = tempfile::tempdir().unwrap();
        // A capture of 4 leaves 4 seeds: the game ends.
        let seeds = 8;
        build(dir.path(), &r, seeds);
        let tables = Tables::open(dir.path(), &r, seeds).unwrap();
        let all = positions(&tables, &r, seeds);
        let values = stored(&tables, seeds, &all);
        let moves: Vec<_> = all.iter().map(|p| moves(&tables, &r, seeds, p)).collect();
        // A position whose best move ends the game (a capture that leaves 4 or fewer seeds,
        // or no move on either side), and its value: moved by the step within the range.
        let i = (0..all.len())
            .find(|&i| {
                moves[i]
                    .iter()
                    .any(|&(e, ended)| ended && worth(&values, e) == values[i])
            })
            .expect("a game end");
        let g = step_of(seeds) as i32;
        let mut wrong = values.clone();
        wrong[i] = if values[i] + g <= seeds as i32 {
            values[i] + g
        } else {
            values[i] - g
        };
        let path = layer_path(dir.path(), &r, seeds);
        rewrite(&path, seeds, &wrong);
        let f = wrong_value(verify_tables(dir.path(), &r, seeds, &Silent));
        names_the_change(&f, i, &all, &moves);
        assert_eq!(f.stored, wrong[f.index as usize]);
    }
}

#[test]
fn a_layer_of_another_rule_set_is_rejected() {
    let ii = hoyito(Variant::Hoyito2);
    let iii = hoyito(Variant::Hoyito3);
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &ii, 12);
    build(dir.path(), &iii, 12);
    let target = layer_path(dir.path(), &ii, 12);
    // As it is: its header names Hoyito III.
    std::fs::copy(layer_path(dir.path(), &iii, 12), &target).unwrap();
    match verify_tables(dir.path(), &ii, 12, &Silent) {
        Err(CheckError::Table { path, problem }) => {
            assert_eq!(path, target);
            assert!(problem.contains("variant"), "{problem}");
        }
        other => panic!("expected a table error, got {other:?}"),
    }
    // Its header rewritten to name Hoyito II, the header checksum recomputed: only the
    // values tell the rule sets apart (Hoyito III takes no chain).
    let mut bytes = std::fs::read(&target).unwrap();
    assert_eq!(bytes[13], 3);
    bytes[13] = 2;
    let bins = 2 * 12 / 4 + 1;
    let head = checksum(&bytes[..72 + 8 * bins]);
    bytes[72 + 8 * bins..80 + 8 * bins].copy_from_slice(&head.to_le_bytes());
    std::fs::write(&target, bytes).unwrap();
    Tables::open(dir.path(), &ii, 12).unwrap();
    let f = wrong_value(verify_tables(dir.path(), &ii, 12, &Silent));
    assert_eq!((f.seeds, &f.path), (12, &target));
    assert!(matches!(f.fault, ValueFault::Moves { .. }), "{f}");
    // The smaller layer, from the right rules, still passes.
    verify_tables(dir.path(), &ii, 8, &Silent).unwrap();
    // A layer of the other capture side, relabelled the same way.
    let opponent = rules(
        6,
        Variant::Hoyito2,
        LastFour::Capturer,
        CaptureSide::Opponent,
    );
    build(dir.path(), &opponent, 8);
    let target = layer_path(dir.path(), &ii, 8);
    let mut bytes = std::fs::read(layer_path(dir.path(), &opponent, 8)).unwrap();
    bytes[15] = 0;
    let bins = 2 * 8 / 4 + 1;
    let head = checksum(&bytes[..72 + 8 * bins]);
    bytes[72 + 8 * bins..80 + 8 * bins].copy_from_slice(&head.to_le_bytes());
    std::fs::write(&target, bytes).unwrap();
    let f = wrong_value(verify_tables(dir.path(), &ii, 8, &Silent));
    assert_eq!(f.seeds, 8);
}

#[test]
fn a_truncated_layer_is_rejected_naming_the_file() {
    let r = hoyito(Variant::Hoyito2);
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &r, 12);
    let path: PathBuf = layer_path(dir.path(), &r, 12);
    let bytes = std::fs::read(&path).unwrap();
    for keep in [bytes.len() - 1, bytes.len() / 2, 100, 10] {
        std::fs::write(&path, &bytes[..keep]).unwrap();
        match verify_tables(dir.path(), &r, 12, &Silent) {
            Err(e @ CheckError::Table { .. }) => {
                assert!(e.to_string().contains("layer-12.hyt"), "{e}");
            }
            other => panic!("expected a table error for {keep} bytes, got {other:?}"),
        }
        match verify_layer(dir.path(), &r, 12, &Silent) {
            Err(CheckError::Table { path: p, .. }) => assert_eq!(p, path),
            other => panic!("expected a table error, got {other:?}"),
        }
    }
    // A missing layer is named too.
    std::fs::remove_file(&path).unwrap();
    match verify_tables(dir.path(), &r, 12, &Silent) {
        Err(e @ CheckError::Io { .. }) => assert!(e.to_string().contains("layer-12.hyt")),
        other => panic!("expected a read error, got {other:?}"),
    }
}

/// Stops the check at its first chance (the deadline has passed): one segment each time.
fn at_once(state: &Path) -> Resume<'static> {
    Resume {
        state: Some(state.to_path_buf()),
        deadline: Some(Instant::now()),
        ..Resume::default()
    }
}

/// Runs `check` again after every stop until it ends; returns its end and the stops.
fn until_done<T>(
    mut check: impl FnMut() -> Result<T, CheckError>,
) -> (Result<T, CheckError>, usize) {
    let mut stops = 0;
    loop {
        match check() {
            Err(CheckError::Stopped { state, .. }) => {
                assert!(state.is_some_and(|s| s.exists()), "the state is saved");
                stops += 1;
                assert!(stops < 10_000, "the check does not advance");
            }
            end => return (end, stops),
        }
    }
}

#[test]
fn a_check_stopped_at_every_segment_goes_on_to_the_same_report() {
    let r = hoyito(Variant::Hoyito2);
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &r, 12);
    let whole = verify_tables(dir.path(), &r, 12, &Silent).unwrap();
    let state = tempfile::tempdir().unwrap();
    let (end, stops) =
        until_done(|| verify_tables_resuming(dir.path(), &r, 12, &Silent, &at_once(state.path())));
    let resumed = end.unwrap();
    // Layer 12 has two segments, so its first pass alone stops once; layer 8 one a pass.
    let passes: u32 = whole.layers.iter().map(|l| l.passes).sum();
    assert!(stops >= passes as usize, "{stops} stops, {passes} passes");
    for (a, b) in whole.layers.iter().zip(&resumed.layers) {
        assert_eq!(
            (a.seeds, a.positions, a.nonzero, a.payload_checksum),
            (b.seeds, b.positions, b.nonzero, b.payload_checksum)
        );
        // Layer 8 was verified by an earlier call, layer 12 by the last.
        assert_eq!(b.earlier, b.seeds < 12);
    }
    // Once verified, the layers are read from the state, not checked again.
    let again = verify_tables_resuming(dir.path(), &r, 12, &Silent, &at_once(state.path()));
    let again = again.unwrap();
    assert!(again.layers.iter().all(|l| l.earlier));
    assert_eq!(again.layers[1].evaluations, resumed.layers[1].evaluations);
    // Without a state folder, a stop keeps nothing and says so.
    let lost = verify_layer_resuming(
        dir.path(),
        &r,
        12,
        &Silent,
        &Resume {
            deadline: Some(Instant::now()),
            ..Resume::default()
        },
    );
    match lost {
        Err(e @ CheckError::Stopped { state: None, .. }) => {
            assert!(e.to_string().contains("the work is lost"), "{e}")
        }
        other => panic!("expected a stop, got {other:?}"),
    }
}

#[test]
fn a_damaged_state_is_refused_and_a_record_of_other_tables_is_not_used() {
    let r = hoyito(Variant::Hoyito3);
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &r, 12);
    let state = tempfile::tempdir().unwrap();
    let stopped = verify_layer_resuming(dir.path(), &r, 12, &Silent, &at_once(state.path()));
    let Err(CheckError::Stopped {
        state: Some(partial),
        ..
    }) = stopped
    else {
        panic!("expected a stop, got {stopped:?}");
    };
    let mut bytes = std::fs::read(&partial).unwrap();
    let last = bytes.len() - 20;
    bytes[last] ^= 1;
    std::fs::write(&partial, &bytes).unwrap();
    let plain = Resume {
        state: Some(state.path().to_path_buf()),
        ..Resume::default()
    };
    match verify_layer_resuming(dir.path(), &r, 12, &Silent, &plain) {
        Err(e @ CheckError::Io { .. }) => {
            let text = e.to_string();
            assert!(text.contains(&partial.display().to_string()), "{text}");
            assert!(text.contains("checksum does not match"), "{text}");
        }
        other => panic!("expected the state refused, got {other:?}"),
    }
    std::fs::remove_file(&partial).unwrap();
    let report = verify_layer_resuming(dir.path(), &r, 12, &Silent, &plain).unwrap();
    assert!(!report.earlier);
    let record = partial.with_extension("verified");
    let text = std::fs::read_to_string(&record).unwrap();
    // A record made over other tables (its ground differs) is not taken: checked again.
    let ground = text.lines().nth(1).unwrap().to_string();
    let other = format!("ground {:016x}", checksum(ground.as_bytes()));
    std::fs::write(&record, text.replace(&ground, &other)).unwrap();
    let again = verify_layer_resuming(dir.path(), &r, 12, &Silent, &plain).unwrap();
    assert!(!again.earlier);
    let kept = verify_layer_resuming(dir.path(), &r, 12, &Silent, &plain).unwrap();
    assert!(kept.earlier);
    assert_eq!(
        (kept.positions, kept.nonzero),
        (report.positions, report.nonzero)
    );
}
