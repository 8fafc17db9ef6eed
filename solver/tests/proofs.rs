//! The certificates of the proven starts and first moves kept in `data/proofs/`: each names the rules and
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
    assert!(certs.len() >= 2);
    let firsts = std::fs::read_to_string(format!("{PROOFS}/first-moves.jsonl")).unwrap();
    for (path, header) in &certs {
        assert!(header.starts_with("hoyito-certificate 1\n"), "{path:?}");
        assert!(header.contains("tables max_seeds=24"), "{path:?}");
        // The first root's position, bounded above and below by the same value.
        let first = header.lines().find(|l| l.starts_with("root ")).unwrap();
        let words: Vec<&str> = first.split(' ').collect();
        let at = format!("root {} {}", words[1], words[2]);
        let bound = |kind: &str| {
            let line = header
                .lines()
                .find(|l| l.starts_with(&format!("{at} {kind} ")));
            line.unwrap().rsplit(' ').next().unwrap().to_string()
        };
        assert_eq!(bound("ge"), bound("le"), "{path:?}");
        let name = path.file_name().unwrap().to_str().unwrap();
        if name.ends_with("-start.cert") {
            assert_eq!(words[1], "4,4,4,4,4,4/4,4,4,4,4,4", "{path:?}");
        } else {
            // A first move's certificate: the table of first moves names it, with the value
            // for South (North moves after the first move, which captures nothing).
            let row = firsts
                .lines()
                .find(|l| l.contains(&format!("data/proofs/{name}")))
                .unwrap_or_else(|| panic!("{name} is not in first-moves.jsonl"));
            let v: serde_json::Value = serde_json::from_str(row).unwrap();
            let south: i64 = bound("ge").parse().unwrap();
            assert_eq!(v["value"].as_i64().unwrap(), south, "{name}");
        }
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
