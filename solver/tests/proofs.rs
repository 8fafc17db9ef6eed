//! The certificates of the proven starts and first moves kept in `data/proofs/`: each names the rules and
//! tables it rests on and the value it proves; with the tables (up to 32 seeds of both
//! variants, in one folder: `solve [--variant hoyito3] tables build --max-seeds 32`, about
//! 91 and 97 minutes and 36 GB of scratch each; too much for CI; certificates that need
//! fewer seeds are checked with them too) the independent checker accepts them (those over
//! the tables up to 12 seeds are checked in every run, over tables built for the test):
//!
//! ```sh
//! HOYITO_TABLES=DIR cargo test --release -p hoyito-solver --test proofs -- --ignored
//! ```

mod common;

use common::{built_tables_of, run};

const PROOFS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/proofs");
const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/book");
const BOUNDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/proofs/bounds");
const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Every certificate of folder `dir` with its header.
fn certificates_in(dir: &str) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "cert") {
            out.push((path.clone(), header(&path)));
        }
    }
    out.sort();
    out
}

/// The header of a certificate (up to its `end` line).
fn header(path: &std::path::Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let end = bytes.windows(5).position(|w| w == b"\nend\n").unwrap();
    String::from_utf8(bytes[..end].to_vec()).unwrap()
}

/// Every certificate of `data/proofs` with its header.
fn certificates() -> Vec<(std::path::PathBuf, String)> {
    certificates_in(PROOFS)
}

/// The bound of a header's root claim of `kind` (`ge` or `le`) on `board`, if it has one.
fn root_bound(header: &str, board: &str, kind: &str) -> Option<i64> {
    let at = format!("root {board} {kind} ");
    let line = header.lines().find(|l| l.starts_with(&at))?;
    line[at.len()..].parse().ok()
}

#[test]
fn the_proven_starts_name_their_tables_and_values() {
    let certs = certificates();
    assert!(certs.len() >= 2);
    let firsts = std::fs::read_to_string(format!("{PROOFS}/first-moves.jsonl")).unwrap();
    for (path, header) in &certs {
        assert!(header.starts_with("hoyito-certificate 1\n"), "{path:?}");
        // The tables up to 24, 28 or 32 seeds, or fewer where the start has fewer seeds.
        assert!(
            ["12", "24", "28", "32"]
                .iter()
                .any(|s| header.contains(&format!("tables max_seeds={s}\n"))),
            "{path:?}"
        );
        // The first root's position, bounded above and below by the same value.
        let first = header.lines().find(|l| l.starts_with("root ")).unwrap();
        let words: Vec<&str> = first.split(' ').collect();
        let board = format!("{} {}", words[1], words[2]);
        let bound = |kind: &str| root_bound(header, &board, kind).unwrap();
        assert_eq!(bound("ge"), bound("le"), "{path:?}");
        let name = path.file_name().unwrap().to_str().unwrap();
        if name.ends_with("-start.cert") {
            assert_eq!(words[1], "4,4,4,4,4,4/4,4,4,4,4,4", "{path:?}");
        } else if let Some(k) = name.find("-seeds") {
            // A start with another seed count: the table of seed counts names it, with its
            // value for South, and its root is that start.
            let seeds: usize = name[k + 6..name.len() - 5].parse().unwrap();
            assert_eq!(words[1], start_board(seeds), "{name}");
            let table = std::fs::read_to_string(format!("{PROOFS}/seed-counts.jsonl")).unwrap();
            let row = table
                .lines()
                .find(|l| l.contains(&format!("data/proofs/{name}")))
                .unwrap_or_else(|| panic!("{name} is not in seed-counts.jsonl"));
            let v: serde_json::Value = serde_json::from_str(row).unwrap();
            assert_eq!(v["value"].as_i64().unwrap(), bound("ge"), "{name}");
            assert_eq!(v["seeds"].as_u64().unwrap() as usize, seeds, "{name}");
        } else {
            // A first move's certificate: the table of first moves names it, with the value
            // for South (North moves after the first move, which captures nothing).
            let row = firsts
                .lines()
                .find(|l| l.contains(&format!("data/proofs/{name}")))
                .unwrap_or_else(|| panic!("{name} is not in first-moves.jsonl"));
            let v: serde_json::Value = serde_json::from_str(row).unwrap();
            assert_eq!(v["value"].as_i64().unwrap(), bound("ge"), "{name}");
        }
        // Without the tables the checker refuses, naming what it needs.
        let (ok, out, err) = run(&["check-proof", path.to_str().unwrap()]);
        assert!(!ok && out.is_empty());
        assert!(err.contains("--tables"), "{err}");
    }
}

/// The board of the 2x6 start with `seeds` a hole, as a certificate's root names it.
fn start_board(seeds: usize) -> String {
    let row = vec![seeds.to_string(); 6].join(",");
    format!("{row}/{row}")
}

/// The bounds proven where the value is not (`solve prove --at-least T`): each certificate of
/// `data/proofs/bounds` has one root claim, on the start with the seeds its name gives, and
/// `bounds.jsonl` names it with that claim, its threshold and its answer.
#[test]
fn the_proven_bounds_name_their_claims() {
    let table = std::fs::read_to_string(format!("{BOUNDS}/bounds.jsonl")).unwrap();
    let certs = certificates_in(BOUNDS);
    assert_eq!(certs.len(), table.lines().count());
    for (path, header) in &certs {
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(header.starts_with("hoyito-certificate 1\n"), "{name}");
        let roots: Vec<&str> = header.lines().filter(|l| l.starts_with("root ")).collect();
        assert_eq!(roots.len(), 1, "{name}");
        // hoyito2-seeds6-ge60.cert: 6 a hole.
        let k = name.find("-seeds").unwrap() + 6;
        let seeds: usize = name[k..k + 1].parse().unwrap();
        let claim = roots[0]
            .strip_prefix(&format!("root {} S ", start_board(seeds)))
            .unwrap_or_else(|| panic!("{name}: {}", roots[0]));
        let row = table
            .lines()
            .find(|l| l.contains(&format!("data/proofs/bounds/{name}")))
            .unwrap_or_else(|| panic!("{name} is not in bounds.jsonl"));
        let v: serde_json::Value = serde_json::from_str(row).unwrap();
        assert_eq!(v["seeds"].as_u64().unwrap() as usize, seeds, "{name}");
        assert!(header.contains(&format!("variant={} ", v["rules"].as_str().unwrap())));
        assert_eq!(v["claim"], claim, "{name}");
        // South moves at the start: at least T holds as "ge T", fails as "le T - 1".
        let t = v["at_least"].as_i64().unwrap();
        let expected = match v["holds"].as_bool().unwrap() {
            true => format!("ge {t}"),
            false => format!("le {}", t - 1),
        };
        assert_eq!(claim, expected, "{name}");
        let (ok, out, err) = run(&["check-proof", path.to_str().unwrap()]);
        assert!(!ok && out.is_empty());
        assert!(err.contains("--tables"), "{err}");
    }
}

/// The certificates that rest on the tables up to 12 seeds only (the starts with 1 seed a
/// hole, and Hoyito III with 6, which South wins whole by a line of captures) are accepted
/// over tables built here, in seconds.
#[test]
fn the_certificates_over_small_tables_are_accepted() {
    let tables = built_tables_of(&["hoyito2", "hoyito3"], "12");
    let small: Vec<_> = certificates()
        .into_iter()
        .filter(|(_, header)| header.contains("tables max_seeds=12\n"))
        .collect();
    let names: Vec<_> = small
        .iter()
        .map(|(p, _)| p.file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    assert!(
        names.contains(&"hoyito3-seeds6.cert".to_string()),
        "{names:?}"
    );
    for (path, _) in &small {
        let t = tables.path().to_str().unwrap();
        let (ok, out, err) = run(&["check-proof", path.to_str().unwrap(), "--tables", t]);
        assert!(ok && out.contains("accepted"), "{path:?}: {out}{err}");
    }
}

#[test]
#[ignore = "needs the tables up to 32 seeds of both variants: set HOYITO_TABLES"]
fn the_proven_starts_are_accepted_with_their_tables() {
    let dir = std::env::var("HOYITO_TABLES").expect("HOYITO_TABLES names the tables folder");
    for (path, _) in certificates()
        .into_iter()
        .chain(certificates_in(BOOK))
        .chain(certificates_in(BOUNDS))
    {
        let (ok, out, err) = run(&["check-proof", path.to_str().unwrap(), "--tables", &dir]);
        assert!(ok, "{path:?}: {err}");
        assert!(out.contains("accepted"), "{out}");
    }
}

/// The opening book: every proven line names a certificate whose checksum it gives and whose
/// root claims (or, for the position after a start's best move, the start's certificate's
/// claims) bound the position by the book's value from both sides; `solve best` answers
/// the book's positions from it, and searches them with `--no-book`.
#[test]
fn the_book_names_its_certificates() {
    use sha2::Digest as _;
    let text = std::fs::read_to_string(format!("{BOOK}/book.jsonl")).unwrap();
    let mut proven = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let board = v["board"].as_str().unwrap();
        let Some(value) = v["value"].as_i64() else {
            continue;
        };
        proven += 1;
        let cert = &v["certificate"];
        let path = std::path::Path::new(REPO).join(cert["file"].as_str().unwrap());
        let bytes = std::fs::read(&path).unwrap();
        let sum: String = sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(cert["sha256"].as_str().unwrap(), sum, "{path:?}");
        let h = header(&path);
        assert!(
            h.contains(&v["rules"].as_str().unwrap().to_string()),
            "{path:?}"
        );
        let south = if board.ends_with(" S") { value } else { -value };
        match (root_bound(&h, board, "ge"), root_bound(&h, board, "le")) {
            (Some(ge), Some(le)) => assert_eq!((ge, le), (south, south), "{board}"),
            (ge, _) => {
                // The position after the start's best move, which captures nothing: the
                // start's root claims bound it from both sides.
                assert_eq!(v["plies"], 1, "{board}: no root in {path:?}");
                let start = "4,4,4,4,4,4/4,4,4,4,4,4 S";
                assert_eq!(root_bound(&h, start, "ge"), Some(south), "{board}");
                assert_eq!(root_bound(&h, start, "le"), Some(south), "{board}");
                assert!(ge.is_none() || ge == Some(south), "{board}");
            }
        }
        // `solve best` answers from the book, with the book's value and move.
        let variant = if line.contains("variant=hoyito3") {
            "hoyito3"
        } else {
            "hoyito2"
        };
        let (ok, out, err) = run(&["--variant", variant, "best", "--json", board]);
        assert!(ok, "{err}");
        let r: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(r["score"].as_i64(), Some(value), "{board}");
        assert_eq!(r["exact"], true);
        assert_eq!(r["move"], v["best"], "{board}");
        assert!(
            r["mode"].as_str().unwrap().starts_with("opening book"),
            "{r}"
        );
    }
    assert!(proven >= 2, "the book proves {proven} positions");
    // With --no-book, or a limit, the start is searched.
    for flags in [&["--no-book"][..], &["--depth", "2"]] {
        let (ok, out, _) = run(&[&["best", "--json"][..], flags].concat());
        assert!(ok);
        let r: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(
            !r["mode"].as_str().unwrap().starts_with("opening book"),
            "{r}"
        );
        assert!(r["nodes"].as_u64().unwrap() > 0);
    }
}

/// The book agrees with itself, by the rules alone: a proven position whose moves all lead to
/// proven book positions (or end the game) is worth the best of them, captures and extra
/// turns counted; any other proven position is worth at least each proven move.
#[test]
fn the_book_values_agree_with_the_values_after_each_move() {
    use hoyito_rules::{CaptureSide, LastFour, Position6, Rules, Variant};
    use std::collections::HashMap;
    let text = std::fs::read_to_string(format!("{BOOK}/book.jsonl")).unwrap();
    let mut values: HashMap<(bool, Vec<u8>), i32> = HashMap::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(value) = v["value"].as_i64() else {
            continue;
        };
        let moves: Vec<u8> = v["line"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_u64().unwrap() as u8)
            .collect();
        let h3 = line.contains("variant=hoyito3");
        values.insert((h3, moves), value as i32);
    }
    let mut complete = 0;
    for ((h3, line), &value) in &values {
        let variant = if *h3 {
            Variant::Hoyito3
        } else {
            Variant::Hoyito2
        };
        let rules = Rules::new(variant, 6, 4, LastFour::Capturer, CaptureSide::Any).unwrap();
        let mut p = Position6::start(&rules).unwrap();
        for &m in line {
            let list = p.moves(&rules);
            p = list
                .children()
                .iter()
                .find(|c| c.mv.0 == m)
                .unwrap()
                .position;
        }
        let list = p.moves(&rules);
        let mut best = None::<i32>;
        let mut all = true;
        for c in list.children() {
            let v = if c.ended_game {
                c.value(0)
            } else {
                let mut next = line.clone();
                next.push(c.mv.0);
                match values.get(&(*h3, next)) {
                    Some(&w) => c.value(w),
                    None => {
                        all = false;
                        continue;
                    }
                }
            };
            assert!(
                v <= value,
                "{line:?} ({variant:?}): move {} is worth {v} > {value}",
                c.mv.0
            );
            best = Some(best.map_or(v, |b| b.max(v)));
        }
        if all && !list.children().is_empty() {
            complete += 1;
            assert_eq!(best, Some(value), "{line:?} ({variant:?})");
        }
    }
    // Both starts and their six first plies each have every move in the book.
    assert!(
        complete >= 14,
        "{complete} positions have all their moves in the book"
    );
}
