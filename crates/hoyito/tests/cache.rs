//! The small tables cache: where it is, built once, used by analyses and proofs, rebuilt
//! when damaged. One test: the cache folder is an environment variable of the process.

use std::path::Path;

use hoyito::analysis::{analyse, AnalysisOptions};
use hoyito::cache::{
    cache_root, cached_tables, pending, pending_up_to, proof_layers, small_tables, CACHE_ENV,
    CACHE_MAX_SEEDS, CACHE_PROOF_SEEDS,
};
use hoyito::proof::{prove, ProofControl, ProofOptions};
use hoyito::tables::Quiet;
use hoyito::{Diagram, Rules};

#[test]
fn the_cache_is_built_once_used_and_rebuilt_when_damaged() {
    let dir = tempfile::tempdir().unwrap();
    for off in ["off", "0", ""] {
        std::env::set_var(CACHE_ENV, off);
        assert_eq!(cache_root(), None, "{off:?}");
    }
    std::env::set_var(CACHE_ENV, dir.path());
    assert_eq!(cache_root().as_deref(), Some(dir.path()));
    let rules = Rules::default();
    assert!(cached_tables(&rules, 16).is_none());

    // Built the first time, read the second.
    let built = small_tables(&rules, 48, &Quiet).unwrap().unwrap();
    assert_eq!(built.tables.max_seeds(), 16);
    assert!(built.built_ms.is_some());
    let again = small_tables(&rules, 14, &Quiet).unwrap().unwrap();
    assert_eq!((again.tables.max_seeds(), again.built_ms), (12, None));
    assert_eq!(again.dir, dir.path().join("tables"));

    // An exact analysis and a proof of a 16-seed position stand on them.
    let d: Diagram = "2,0,0,3,2,1/2,3,0,0,2,1 N".parse().unwrap();
    let exact = AnalysisOptions {
        exact: true,
        ..AnalysisOptions::default()
    };
    let a = analyse(&rules, Some(&d), &exact).unwrap();
    assert!(a.exact);
    assert_eq!(a.score, 4);
    assert_eq!(a.tables_max_seeds, 16);
    assert_eq!(a.tables_cache.as_deref(), Some(again.dir.as_path()));
    let cert = dir.path().join("p.cert");
    let options = ProofOptions {
        certificate: Some(cert.clone()),
        ..ProofOptions::default()
    };
    let report = prove(&rules, Some(&d), &options, &ProofControl::default()).unwrap();
    assert!(report.complete());
    let checked =
        hoyito::checking::check_proof(&cert, None, false, &hoyito::check::Silent).unwrap();
    let json = serde_json::to_value(&checked).unwrap();
    assert_eq!(json["tables_max_seeds"], 16);
    // The checker verified the cached layers before it used them, and recorded it in the
    // cache: a second check takes them from its records.
    let earlier = |json: &serde_json::Value| -> Vec<bool> {
        let layers = json["tables_verified"].as_array().unwrap();
        layers.iter().map(|l| l["earlier"] == true).collect()
    };
    assert_eq!(earlier(&json), [false; 3]);
    assert!(dir.path().join("checked").is_dir());
    let again_checked =
        hoyito::checking::check_proof(&cert, None, false, &hoyito::check::Silent).unwrap();
    assert_eq!(
        earlier(&serde_json::to_value(&again_checked).unwrap()),
        [true; 3]
    );

    // A proof of a large position would build the 20-seed layer too; an exact answer, not.
    assert_eq!(proof_layers(48), CACHE_PROOF_SEEDS);
    assert_eq!(proof_layers(32), CACHE_MAX_SEEDS);
    assert_eq!(pending(&rules, 48, None), None);
    assert_eq!(
        pending_up_to(&rules, 48, None, proof_layers(48)).as_deref(),
        Some(again.dir.as_path())
    );
    assert_eq!(pending_up_to(&rules, 32, None, proof_layers(32)), None);

    // A layer damaged in its values: not used, then rebuilt.
    let layer = again
        .dir
        .join("2x6-hoyito2-capturer-any")
        .join("layer-12.hyt");
    damage(&layer);
    assert!(cached_tables(&rules, 16).is_none());
    let rebuilt = small_tables(&rules, 16, &Quiet).unwrap().unwrap();
    assert!(rebuilt.built_ms.is_some());
    assert_eq!(rebuilt.tables.max_seeds(), 16);
    assert!(cached_tables(&rules, 16).is_some());

    // Turned off: an exact analysis builds the small layers in memory, as before.
    std::env::set_var(CACHE_ENV, "off");
    let a = analyse(&rules, Some(&d), &exact).unwrap();
    assert_eq!((a.score, a.tables_cache.as_ref()), (4, None));
}

/// Flips a byte near the end of a file (in the packed values).
fn damage(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let at = bytes.len() - 10;
    bytes[at] ^= 0x5a;
    std::fs::write(path, bytes).unwrap();
}
