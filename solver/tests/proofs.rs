//! The certificates of the proven starts kept in `data/proofs/`: each names the rules and
//! tables it rests on and the value it proves; with the tables (24 seeds: `solve tables build
//! --max-seeds 24`, about 5 minutes and 10 GB of scratch, too much for CI) the independent
//! checker accepts them:
//!
//! ```sh
//! HOYITO_TABLES24=DIR cargo test --release -p hoyito-solver --test proofs -- --ignored
//! ```

mod common;

use common::run;

const PROOFS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/proofs");

/// Every certificate of `data/proofs` with the value its header's root claims give.
fn certificates() -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(PROOFS).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "cert") {
            let bytes = std::fs::read(&path).unwrap();
            let end = bytes.windows(5).position(|w| w == b"\nend\n").unwrap();
            let header = String::from_utf8(bytes[..end].to_vec()).unwrap();
            out.push((path, header));
        }
    }
    out.sort();
    out
}

#[test]
fn the_proven_starts_name_their_tables_and_values() {
    let certs = certificates();
    assert!(!certs.is_empty());
    for (path, header) in &certs {
        assert!(header.starts_with("hoyito-certificate 1\n"), "{path:?}");
        assert!(header.contains("tables max_seeds=24"), "{path:?}");
        // The start, bounded above and below by the same value.
        let start = "root 4,4,4,4,4,4/4,4,4,4,4,4 S";
        let ge = header
            .lines()
            .find(|l| l.starts_with(&format!("{start} ge")));
        let le = header
            .lines()
            .find(|l| l.starts_with(&format!("{start} le")));
        let (ge, le) = (ge.unwrap(), le.unwrap());
        assert_eq!(ge.rsplit(' ').next(), le.rsplit(' ').next(), "{path:?}");
        // Without the tables the checker refuses, naming what it needs.
        let (ok, out, err) = run(&["check-proof", path.to_str().unwrap()]);
        assert!(!ok && out.is_empty());
        assert!(err.contains("--tables"), "{err}");
    }
}

#[test]
#[ignore = "needs the tables up to 24 seeds of both variants: set HOYITO_TABLES24"]
fn the_proven_starts_are_accepted_with_their_tables() {
    let dir = std::env::var("HOYITO_TABLES24").expect("HOYITO_TABLES24 names the tables folder");
    for (path, _) in certificates() {
        let (ok, out, err) = run(&["check-proof", path.to_str().unwrap(), "--tables", &dir]);
        assert!(ok, "{path:?}: {err}");
        assert!(out.contains("accepted"), "{out}");
    }
}
