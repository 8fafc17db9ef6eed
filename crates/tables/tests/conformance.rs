//! The tables against the solved values of `data/conformance/values.jsonl`.

use std::collections::HashMap;

use hoyito_rules::{Position6, Rules};
use hoyito_tables::{build, build_with, BuildOptions, Method, Quiet, Tables};
use hoyito_testkit::{rules_of, vectors};

/// A vector: position, value, seeds on the board.
type Case = (String, i32, usize);

#[test]
fn values_vectors() {
    let all = vectors("values.jsonl");
    assert!(all.len() >= 400);
    let mut by_rules: HashMap<String, (Rules, Vec<Case>)> = HashMap::new();
    for v in &all {
        let rules = rules_of(v);
        let entry = by_rules
            .entry(format!("{rules}"))
            .or_insert_with(|| (rules, Vec::new()));
        entry.1.push((
            v["position"].as_str().unwrap().to_string(),
            v["value"].as_i64().unwrap() as i32,
            v["seeds"].as_u64().unwrap() as usize,
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (rules, cases) in by_rules.values() {
        let max = cases.iter().map(|c| c.2).max().unwrap();
        build(dir.path(), rules, max, &Quiet).unwrap();
        let tables = Tables::open(dir.path(), rules).unwrap();
        assert_eq!(tables.max_seeds(), max);
        for (text, value, seeds) in cases {
            let p = Position6::parse(rules, text).unwrap();
            assert_eq!(p.seeds_on_board() as usize, *seeds);
            assert_eq!(tables.probe(&p), Some(*value), "{text} ({rules})");
            let best = tables.best_moves(&p).unwrap();
            let has_moves = !p.moves(rules).is_empty();
            assert_eq!(!best.is_empty(), has_moves, "{text}: best moves {best:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, all.len());
}

/// The rounds of `Method::Auto` (reversed moves in scratch files) give the same layers as
/// plain sweeps on the real board.
#[test]
fn rounds_equal_sweeps_on_2x6() {
    let rules = Rules::default();
    let a = tempfile::tempdir().unwrap();
    let opts = |method| BuildOptions {
        method,
        ..Default::default()
    };
    build_with(a.path(), &rules, 12, &opts(Method::Sweeps), &Quiet).unwrap();
    let u = Tables::open(a.path(), &rules).unwrap();
    // The moves written by the second sweep (the default) or by the first, whose round 1
    // leaves out the predecessors the sweep evaluated after their successors' changes.
    for at in [2, 1] {
        let b = tempfile::tempdir().unwrap();
        let stats = build_with(
            b.path(),
            &rules,
            12,
            &opts(Method::MovesAtSweep(at)),
            &Quiet,
        )
        .unwrap();
        assert!(stats
            .iter()
            .all(|s| s.rounds > 0 && s.scratch_bytes > 0 && s.scratch_moves > 0));
        let t = Tables::open(b.path(), &rules).unwrap();
        assert_eq!(t.layers().count(), 2);
        for (la, lb) in t.layers().zip(u.layers()) {
            // Headers differ in sweeps, rounds and time; the values must be the same.
            assert_eq!(
                la.header().histogram,
                lb.header().histogram,
                "moves at sweep {at}"
            );
            assert_eq!(la.header().payload_checksum, lb.header().payload_checksum);
        }
    }
}

/// A scratch file damaged during the rounds is found at its next read, and the layer is
/// built again: the same values as a build left alone, never a value read from the damage.
#[test]
fn a_damaged_scratch_file_is_found_and_the_layer_built_again() {
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    /// Flips one bit of every move file of the layer at the end of its first round, once.
    struct Damaging {
        folder: PathBuf,
        done: Mutex<bool>,
        found: Mutex<Vec<(usize, PathBuf)>>,
    }
    impl hoyito_tables::Progress for Damaging {
        fn round_end(&self, seeds: usize, round: u32, _: u64, _: u64) {
            let mut done = self.done.lock().unwrap();
            if *done || seeds != 12 || round != 1 {
                return;
            }
            let moves = self.folder.join("layer-12.moves");
            for entry in std::fs::read_dir(&moves).unwrap() {
                let path = entry.unwrap().path();
                let mut bytes = std::fs::read(&path).unwrap();
                let at = bytes.len() / 3;
                if let Some(b) = bytes.get_mut(at) {
                    *b ^= 0x10;
                }
                std::fs::write(&path, bytes).unwrap();
            }
            *done = true;
        }
        fn scratch_damaged(&self, seeds: usize, path: &Path) {
            self.found.lock().unwrap().push((seeds, path.to_path_buf()));
        }
    }

    let rules = Rules::default();
    let opts = BuildOptions {
        method: Method::MovesAtSweep(1),
        ..Default::default()
    };
    let clean = tempfile::tempdir().unwrap();
    build_with(clean.path(), &rules, 12, &opts, &Quiet).unwrap();
    let damaged = tempfile::tempdir().unwrap();
    let folder = hoyito_tables::key_dir(damaged.path(), &hoyito_tables::TableKey::of(&rules));
    let progress = Damaging {
        folder: folder.clone(),
        done: Mutex::new(false),
        found: Mutex::new(Vec::new()),
    };
    build_with(damaged.path(), &rules, 12, &opts, &progress).unwrap();
    assert!(*progress.done.lock().unwrap());
    let found = progress.found.lock().unwrap();
    assert_eq!(found.len(), 1, "found: {found:?}");
    assert_eq!(found[0].0, 12);
    let a = Tables::open(clean.path(), &rules).unwrap();
    let b = Tables::open(damaged.path(), &rules).unwrap();
    for (la, lb) in a.layers().zip(b.layers()) {
        assert_eq!(la.header().payload_checksum, lb.header().payload_checksum);
    }
    assert!(!folder.join("layer-12.moves").exists());
}
