//! Tables built in memory probe exactly like tables built to files and opened, and leave
//! nothing on disk.

use hoyito_rules::{CaptureSide, LastFour, Position6, Probe, Rules, Variant};
use hoyito_tables::{build, build_in_memory, BuildOptions, Method, Quiet, Tables};

/// Positions of the 12-seed layer compared besides every position of the 8-seed layer.
const SAMPLE_12: u64 = 200_000;

fn rules(variant: Variant) -> Rules {
    Rules::new(variant, 6, 4, LastFour::Capturer, CaptureSide::Any).unwrap()
}

/// Every position of the 8-seed layer and a spread sample of the 12-seed layer, from
/// `tables`, with their stored values.
fn positions(tables: &Tables) -> Vec<(Position6, i32)> {
    let mut out = tables.sample(8, u64::MAX);
    assert_eq!(out.len() as u64, 75_582, "every position of layer 8");
    out.extend(tables.sample(12, SAMPLE_12));
    out
}

/// The in-memory tables up to 12 seeds against tables built to files: the same headers'
/// payloads and histograms, the same values, move values and best moves.
fn same_as_files(variant: Variant) {
    let r = rules(variant);
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &r, 12, &Quiet).unwrap();
    let files = Tables::open(dir.path(), &r).unwrap();
    let (memory, stats) = build_in_memory(&r, 12, &BuildOptions::default(), &Quiet).unwrap();

    assert_eq!(memory.max_seeds(), 12);
    assert_eq!(memory.max_seeds(), files.max_seeds());
    assert_eq!(Probe::<2>::max_seeds(&memory), 12);
    assert!(memory.folder().is_none());
    assert_eq!(stats.iter().map(|s| s.seeds).collect::<Vec<_>>(), [8, 12]);
    for (m, f) in memory.layers().zip(files.layers()) {
        assert!(m.path().is_none());
        assert_eq!(m.seeds(), f.seeds());
        assert_eq!(m.file_bytes(), f.file_bytes());
        let (hm, hf) = (m.header(), f.header());
        assert_eq!(
            hm.payload_checksum,
            hf.payload_checksum,
            "layer {}",
            m.seeds()
        );
        assert_eq!(hm.histogram, hf.histogram);
    }
    // Parallel sweeps may take a sweep more or less from run to run; layer 12 goes on in
    // rounds in both builds.
    assert!(stats[1].rounds > 0 && files.layers().nth(1).unwrap().header().rounds > 0);

    let mut checked = 0;
    for (p, v) in positions(&memory) {
        assert_eq!(files.probe(&p), Some(v), "{p}");
        assert_eq!(Probe::<2>::probe(&memory, &p), Some(v), "{p}");
        checked += 1;
        if checked % 50 == 0 {
            assert_eq!(memory.move_values(&p), files.move_values(&p), "{p}");
            assert_eq!(memory.best_moves(&p), files.best_moves(&p), "{p}");
        }
    }
    for (p, v) in positions(&files) {
        assert_eq!(memory.probe(&p), Some(v), "{p}");
    }
}

#[test]
fn hoyito2_in_memory_probes_like_files() {
    same_as_files(Variant::Hoyito2);
}

#[test]
fn hoyito3_in_memory_probes_like_files() {
    same_as_files(Variant::Hoyito3);
}

/// Sweeps only and moves kept in memory reach the same layers; no method writes a file
/// (the build takes no path; the current folder stays as it was).
#[test]
fn every_method_in_memory_agrees_and_writes_nothing() {
    let r = Rules::default();
    let before = std::fs::read_dir(".").unwrap().count();
    let checksums = |method| {
        let options = BuildOptions {
            method,
            ..Default::default()
        };
        let (t, _) = build_in_memory(&r, 12, &options, &Quiet).unwrap();
        let sums: Vec<u64> = t.layers().map(|l| l.header().payload_checksum).collect();
        sums
    };
    let auto = checksums(Method::Auto);
    assert_eq!(checksums(Method::MovesAtSweep(1)), auto);
    assert_eq!(checksums(Method::MovesAtSweep(3)), auto);
    assert_eq!(std::fs::read_dir(".").unwrap().count(), before);
    let up_to_8 = Tables::in_memory(&r, 8).unwrap();
    assert_eq!(
        up_to_8.layers().next().unwrap().header().payload_checksum,
        auto[0]
    );
    let sweeps = build_in_memory(
        &r,
        8,
        &BuildOptions {
            method: Method::Sweeps,
            ..Default::default()
        },
        &Quiet,
    )
    .unwrap()
    .0;
    assert_eq!(
        sweeps.layers().next().unwrap().header().payload_checksum,
        auto[0]
    );
}

/// Nothing to build is an empty set of tables, like an empty folder.
#[test]
fn in_memory_below_five_seeds_is_empty() {
    let t = Tables::in_memory(&Rules::default(), 4).unwrap();
    assert_eq!(t.max_seeds(), 0);
    assert_eq!(t.layers().count(), 0);
}
