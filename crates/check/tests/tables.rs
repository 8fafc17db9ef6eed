//! The checker's table reader against the engine's tables: files built by `hoyito_tables`
//! in a temporary folder, read back by both, every position of small layers compared; the
//! solved values of `data/conformance/values.jsonl`; damaged files rejected.

mod common;

use common::{build, engine_rules, rules};

use std::path::{Path, PathBuf};

use hoyito_check::tables::{checksum, layer_path, Tables};
use hoyito_check::{CaptureSide, CheckError, LastFour, Position, Rules, Side, Variant};

/// Calls `f` with every board of `holes` holes holding `seeds` seeds.
fn for_each_board(holes: usize, seeds: u8, f: &mut impl FnMut(&[u8])) {
    fn fill(board: &mut Vec<u8>, holes: usize, left: u8, f: &mut impl FnMut(&[u8])) {
        if board.len() + 1 == holes {
            board.push(left);
            f(board);
            board.pop();
            return;
        }
        for s in 0..=left {
            board.push(s);
            fill(board, holes, left - s, f);
            board.pop();
        }
    }
    fill(&mut Vec::new(), holes, seeds, f);
}

/// Compares the checker's value of every position of every layer with the engine's probe.
fn compare_every_position(dir: &Path, r: &Rules, max_seeds: usize) -> u64 {
    let mine = Tables::open(dir, r, max_seeds).unwrap();
    let er = engine_rules(r);
    let engine = hoyito_tables::Tables::open(dir, &er).unwrap();
    let mut compared = 0;
    for n in (5..=max_seeds).filter(|n| n % 4 == max_seeds % 4) {
        for_each_board(2 * r.holes, n as u8, &mut |board| {
            for side in [Side::South, Side::North] {
                let p = Position {
                    board: board.to_vec(),
                    side,
                };
                let q = hoyito_rules::Position6::from_rows(
                    &er,
                    &board[..r.holes],
                    &board[r.holes..],
                    match side {
                        Side::South => hoyito_rules::Side::South,
                        Side::North => hoyito_rules::Side::North,
                    },
                    [0, 0],
                )
                .unwrap();
                let engine_value = engine.probe(&q).unwrap();
                let south_view = if side == Side::South {
                    engine_value
                } else {
                    -engine_value
                };
                let v = mine.south_value(&p).unwrap().unwrap();
                assert_eq!(v, south_view, "{p} under {r}");
                compared += 1;
            }
        });
    }
    compared
}

#[test]
fn every_position_of_small_layers_equals_the_engines_probe() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // Symmetric rules (one side stored) and both other awards (two sides stored).
        (
            rules(6, Variant::Hoyito2, LastFour::Capturer, CaptureSide::Any),
            8,
        ),
        (
            rules(6, Variant::Hoyito3, LastFour::South, CaptureSide::Any),
            8,
        ),
        (
            rules(
                3,
                Variant::Hoyito2,
                LastFour::Capturer,
                CaptureSide::Opponent,
            ),
            14,
        ),
        (
            rules(4, Variant::Hoyito3, LastFour::North, CaptureSide::Any),
            9,
        ),
        (
            rules(2, Variant::Hoyito2, LastFour::South, CaptureSide::Opponent),
            16,
        ),
    ];
    for (r, max) in cases {
        build(dir.path(), &r, max);
        let compared = compare_every_position(dir.path(), &r, max);
        assert!(compared > 1000, "{r}: {compared} positions");
    }
}

#[test]
fn reader_gives_the_solved_values_of_the_conformance_vectors() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/conformance/values.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut opened: Vec<(Rules, Tables)> = Vec::new();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let r = Rules {
            holes: v["holes"].as_u64().unwrap() as usize,
            variant: if v["rules"] == "hoyito3" {
                Variant::Hoyito3
            } else {
                Variant::Hoyito2
            },
            last_four: match v["last_four"].as_str().unwrap_or("capturer") {
                "S" => LastFour::South,
                "N" => LastFour::North,
                _ => LastFour::Capturer,
            },
            capture_side: match v["capture_side"].as_str().unwrap_or("any") {
                "opponent" => CaptureSide::Opponent,
                _ => CaptureSide::Any,
            },
        };
        let seeds = v["seeds"].as_u64().unwrap() as usize;
        assert!(
            [8, 12].contains(&seeds),
            "the vectors are within layers 8 and 12"
        );
        if !opened.iter().any(|(o, _)| *o == r) {
            build(dir.path(), &r, 12);
            opened.push((r, Tables::open(dir.path(), &r, 12).unwrap()));
        }
        let tables = &opened.iter().find(|(o, _)| *o == r).unwrap().1;
        let text = v["position"].as_str().unwrap();
        let p = Position::parse(text).unwrap();
        assert_eq!(p.seeds() as usize, seeds);
        let south = tables.south_value(&p).unwrap().unwrap();
        let mover = if p.side == Side::South { south } else { -south };
        assert_eq!(
            mover as i64,
            v["value"].as_i64().unwrap(),
            "{text} under {r}"
        );
        checked += 1;
    }
    assert!(checked >= 400);
    assert!(opened.len() >= 4);
}

/// Expects opening the tables to fail with an error that names `file`.
fn assert_rejected(dir: &Path, r: &Rules, max: usize, file: &Path, what: &str) {
    match Tables::open(dir, r, max) {
        Err(e @ (CheckError::Table { .. } | CheckError::Io { .. })) => {
            let message = e.to_string();
            assert!(
                message.contains(&file.display().to_string()),
                "{what}: {message}"
            );
        }
        other => panic!("{what}: expected a table error, got {other:?}"),
    }
}

#[test]
fn damaged_or_mismatching_files_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let r = rules(3, Variant::Hoyito2, LastFour::Capturer, CaptureSide::Any);
    build(dir.path(), &r, 12);
    Tables::open(dir.path(), &r, 12).unwrap();
    let file = layer_path(dir.path(), &r, 12);
    let good = std::fs::read(&file).unwrap();
    // 7 histogram bins (values -12 ..= 12 in steps of 4).
    let header_len = 72 + 8 * 7 + 8;

    // A flipped payload byte.
    let mut bad = good.clone();
    bad[header_len + 10] ^= 0x10;
    std::fs::write(&file, &bad).unwrap();
    assert_rejected(dir.path(), &r, 12, &file, "payload byte");

    // A flipped header byte (the sweeps count: not a field the reader compares).
    let mut bad = good.clone();
    bad[48] ^= 1;
    std::fs::write(&file, &bad).unwrap();
    assert_rejected(dir.path(), &r, 12, &file, "header byte");

    // A changed value with both checksums made to match is read as changed (the files are
    // trusted once their checksums match: what `tables verify` is for).
    let mut bad = good.clone();
    bad[header_len] ^= 0x01;
    let payload_sum = checksum(&bad[header_len..]);
    bad[40..48].copy_from_slice(&payload_sum.to_le_bytes());
    let header_sum = checksum(&bad[..header_len - 8]);
    bad[header_len - 8..header_len].copy_from_slice(&header_sum.to_le_bytes());
    std::fs::write(&file, &bad).unwrap();
    let changed = Tables::open(dir.path(), &r, 12).unwrap();
    std::fs::write(&file, &good).unwrap();
    let original = Tables::open(dir.path(), &r, 12).unwrap();
    // Index 0: every seed in the last hole.
    let first = Position {
        board: vec![0, 0, 0, 0, 0, 12],
        side: Side::South,
    };
    let before = original.south_value(&first).unwrap().unwrap();
    match changed.south_value(&first).unwrap() {
        Ok(after) => assert_ne!(after, before),
        Err(e) => assert!(e.to_string().contains("out of range"), "{e}"),
    }

    // Cut short, and one byte too many.
    std::fs::write(&file, &good[..good.len() - 1]).unwrap();
    assert_rejected(dir.path(), &r, 12, &file, "truncated");
    let mut long = good.clone();
    long.push(0);
    std::fs::write(&file, &long).unwrap();
    assert_rejected(dir.path(), &r, 12, &file, "trailing byte");
    std::fs::write(&file, &good).unwrap();

    // Another rules' file under this rules' name.
    let other = rules(3, Variant::Hoyito3, LastFour::Capturer, CaptureSide::Any);
    build(dir.path(), &other, 12);
    std::fs::copy(layer_path(dir.path(), &other, 12), &file).unwrap();
    assert_rejected(dir.path(), &r, 12, &file, "other rules");
    std::fs::write(&file, &good).unwrap();

    // A missing layer.
    std::fs::remove_file(layer_path(dir.path(), &r, 8)).unwrap();
    assert_rejected(
        dir.path(),
        &r,
        12,
        &layer_path(dir.path(), &r, 8),
        "missing layer",
    );
}
