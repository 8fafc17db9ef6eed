//! `solve prove`: values equal to the exact search, certificates written, runs resumed from
//! their state, and clear errors.

mod common;

use common::{built_tables, built_tables_of, ok, run};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).unwrap()
}

/// On three small boards (2x4 with 2 seeds a hole, used before, spent minutes of a debug
/// build in its proofs of every move; the boards of 4 holes are proven in
/// `every_small_start_is_proven_and_checked`).
#[test]
fn prove_equals_the_exact_search_and_writes_a_certificate() {
    let dir = tempfile::tempdir().unwrap();
    for (rules, holes, seeds) in [
        ("hoyito2", "3", "2"),
        ("hoyito3", "3", "3"),
        ("hoyito2", "3", "4"),
    ] {
        let cert = dir.path().join(format!("{rules}-{holes}-{seeds}.cert"));
        let flags = ["--variant", rules, "--holes", holes, "--seeds", seeds];
        let p = json(
            &[
                &flags[..],
                &[
                    "prove",
                    "--all-moves",
                    "--json",
                    "--certificate",
                    cert.to_str().unwrap(),
                ],
            ]
            .concat(),
        );
        let b = json(&[&flags[..], &["best", "--exact", "--all-moves", "--json"]].concat());
        assert_eq!(p["complete"], true);
        assert_eq!(p["value"], b["score"], "{rules} {holes}x{seeds}");
        let mine: Vec<(i64, i64)> = p["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["move"].as_i64().unwrap(), m["value"].as_i64().unwrap()))
            .collect();
        let theirs: Vec<(i64, i64)> = b["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["move"].as_i64().unwrap(), m["score"].as_i64().unwrap()))
            .collect();
        assert_eq!(mine, theirs, "{rules} {holes}x{seeds}: the moves");
        // Breadth-first rounds prove the same, exploring another graph.
        let q = json(
            &[
                &flags[..],
                &["prove", "--all-moves", "--json", "--explore", "breadth"],
            ]
            .concat(),
        );
        assert_eq!(
            (&p["explore"], &q["explore"]),
            (&"focused".into(), &"breadth".into())
        );
        assert_eq!(
            (&q["value"], &q["moves"]),
            (&p["value"], &p["moves"]),
            "{rules} {holes}x{seeds}: breadth first"
        );
        // Captures' proofs given up at once (a cap of 1, then 4, 16 ...) prove the same.
        let c = json(
            &[
                &flags[..],
                &["prove", "--all-moves", "--json", "--capture-cap", "1"],
            ]
            .concat(),
        );
        assert_eq!(
            (&c["value"], &c["moves"]),
            (&p["value"], &p["moves"]),
            "{rules} {holes}x{seeds}: capture cap 1"
        );
        assert_eq!(p["proofs_given_up"], 0, "{rules} {holes}x{seeds}");
        assert!(c["proofs_given_up"].as_u64().unwrap() > 0, "{c}");
        // The largest proof graph is reported: some graph was explored, and a graph holds
        // the positions explored in it and at most 12 moves of each besides its root.
        let (largest, explored) = (
            p["largest_graph"].as_u64().unwrap(),
            p["explored"].as_u64().unwrap(),
        );
        assert!(largest >= 1 && largest <= 13 * explored + 1, "{p}");
        if cfg!(target_os = "linux") {
            assert!(p["peak_memory_mb"].as_u64().is_some(), "{p}");
        }
        // The best move keeps the value.
        let best = p["best"].as_i64().unwrap();
        assert!(mine.contains(&(best, p["value"].as_i64().unwrap())));
        let text = std::fs::read(&cert).unwrap();
        assert!(text.starts_with(b"hoyito-certificate 1\n"));
        assert_eq!(
            p["certificate"]["bytes"].as_u64().unwrap() as usize,
            text.len()
        );
        assert!(p["certificate"]["entries"].as_u64().unwrap() > 0);
    }
}

#[test]
fn at_least_answers_as_the_value_does_and_its_certificate_checks() {
    let dir = tempfile::tempdir().unwrap();
    for (rules, holes, seeds, pos) in [
        ("hoyito2", "4", "2", None),
        ("hoyito3", "3", "3", None),
        // North to move.
        ("hoyito2", "4", "2", Some("0,3,3,2/2,2,2,2 N")),
    ] {
        let flags = ["--variant", rules, "--holes", holes, "--seeds", seeds];
        let at = |extra: &[&str]| {
            let mut args = flags.to_vec();
            args.push("prove");
            args.extend(pos);
            args.extend_from_slice(extra);
            args.push("--json");
            json(&args)
        };
        let v = at(&[])["value"].as_i64().unwrap();
        for t in [v - 3, v, v + 1, v + 4] {
            let cert = dir.path().join(format!("{rules}-{holes}-{t}.cert"));
            let c = cert.to_str().unwrap();
            let t_arg = t.to_string();
            let r = at(&["--at-least", &t_arg, "--certificate", c]);
            let what = format!("{rules} {holes}x{seeds} {pos:?} value {v}, at least {t}");
            assert_eq!(r["complete"], true, "{what}");
            assert_eq!(r["at_least"]["threshold"], t, "{what}");
            assert_eq!(r["at_least"]["holds"], v >= t, "{what}");
            let [lo, hi] = [0, 1].map(|i| r["bounds"][i].as_i64().unwrap());
            assert!(lo <= v && v <= hi, "{what}: bounds {lo}..{hi}");
            assert_eq!(r["best"], Value::Null);
            // The checker proves the answer, from South's view.
            let mut check = flags.to_vec();
            check.extend(["check-proof", c, "--json"]);
            let checked = json(&check);
            let roots = checked["roots"].as_array().unwrap();
            assert_eq!(roots.len(), 1, "{what}: {checked}");
            let south_moves = !pos.is_some_and(|p| p.ends_with('N'));
            let (kind, bound) = match (south_moves, v >= t) {
                (true, true) => ("ge", t),
                (true, false) => ("le", t - 1),
                (false, true) => ("le", -t),
                (false, false) => ("ge", 1 - t),
            };
            assert_eq!(
                roots[0]["claim"],
                format!("{kind} {bound}"),
                "{what}: {checked}"
            );
        }
    }
}

#[test]
fn prove_over_tables_equals_the_tables_built_values() {
    let tables = built_tables("12");
    let t = tables.path().to_str().unwrap();
    let lines = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/exact/values16.jsonl"
    ))
    .unwrap();
    let mut checked = 0;
    for line in lines.lines().filter(|l| l.contains("\"hoyito2\"")).take(4) {
        let v: Value = serde_json::from_str(line).unwrap();
        let p = v["position"].as_str().unwrap();
        let r = json(&["prove", p, "--tables", t, "--json"]);
        assert_eq!(r["value"], v["value"], "{p}");
        assert_eq!(r["tables_max_seeds"], 12);
        checked += 1;
    }
    assert_eq!(checked, 4);
}

#[test]
fn a_run_resumes_from_its_state() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let s = state.to_str().unwrap();
    let flags = [
        "--holes", "4", "--seeds", "2", "prove", "--json", "--state", s,
    ];
    let first = json(&flags);
    assert_eq!(first["complete"], true);
    assert!(first["claims_recorded"].as_u64().unwrap() > 0);
    assert_eq!(first["claims_resumed"], 0);
    // A torn last entry (a run killed while writing) is cut off.
    let record = state.join("claims.bin");
    let mut bytes = std::fs::read(&record).unwrap();
    bytes.extend_from_slice(&[1, 2, 3]);
    std::fs::write(&record, &bytes).unwrap();
    let second = json(&flags);
    assert_eq!(second["value"], first["value"]);
    assert_eq!(second["best"], first["best"]);
    assert_eq!(second["claims_resumed"], first["claims_recorded"]);
    assert_eq!(second["explored"], 0, "the resumed run proved again");
    // Another position cannot use that state.
    let (ok, out, err) = run(&["--holes", "4", "--seeds", "1", "prove", "--state", s]);
    assert!(!ok && out.is_empty());
    assert!(err.contains("holds another run"), "{err}");
}

/// A run stops cleanly, keeping its state, once the machine's available memory falls below
/// `--memory-reserve`; a reserve of all the machine's memory is refused.
#[test]
fn a_run_stops_cleanly_when_memory_runs_low() {
    let Some(total_mib) = hoyito::setup::total_mib() else {
        return; // not Linux: no guard to test
    };
    // The start of 2x6 without tables: far more than the moment before the guard stops it.
    let start = |flags: &[&str]| {
        let base = ["prove", "--no-tables", "--guess-depth", "1", "--json"];
        json(&[&base[..], flags].concat())
    };
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let reserve = (total_mib - 1).to_string();
    let out = start(&[
        "--memory-reserve",
        &reserve,
        "--state",
        state.to_str().unwrap(),
    ]);
    assert_eq!(out["complete"], false, "{out}");
    assert_eq!(out["value"], Value::Null, "{out}");
    assert_eq!(out["stopped_for_memory"], true, "{out}");
    assert_eq!(out["memory_reserve_mb"], total_mib - 1, "{out}");
    assert!(state.join("claims.bin").exists());
    // Without a reserve it does not stop for memory (a time limit stops it instead).
    let out = start(&["--memory-reserve", "0", "--time-limit", "1"]);
    assert_eq!(out["stopped_for_memory"], false, "{out}");
    let (ok, out, err) = run(&["prove", "--memory-reserve", &total_mib.to_string()]);
    assert!(!ok && out.is_empty());
    assert!(err.contains("--memory-reserve"), "{err}");
}

/// A cache of bounds too small for the proof forgets some and proves them again: the value
/// and the moves stay those of the exact search, and the certificate still checks. The
/// start of 2x3 with 7 seeds a hole holds about 34,000 bounds when nothing is forgotten, so
/// a cache of 2 MB (about 16,000) forgets tens of thousands; the start of 2x5 with 2 seeds
/// a hole, used before, holds 435,000, and its proof in 2 MB took most of this file's time.
#[test]
fn a_small_cache_forgets_bounds_and_proves_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("small-cache.cert");
    let c = cert.to_str().unwrap();
    let flags = ["--holes", "3", "--seeds", "7"];
    let args = [
        "prove",
        "--cache-mb",
        "2",
        "--all-moves",
        "--certificate",
        c,
    ];
    let small = json(&[&flags[..], &args, &["--json"]].concat());
    let big = json(&[&flags[..], &["prove", "--all-moves", "--json"]].concat());
    assert_eq!(small["complete"], true);
    assert_eq!(small["cache"]["limit_mb"], 2);
    assert!(small["cache"]["forgotten"].as_u64().unwrap() > 0, "{small}");
    assert_eq!(big["cache"]["forgotten"], 0, "{big}");
    assert!(small["cache"]["bounds"].as_u64().unwrap() < big["cache"]["bounds"].as_u64().unwrap());
    assert_eq!(small["value"], big["value"]);
    assert_eq!(small["moves"], big["moves"]);
    let b = json(&[&flags[..], &["best", "--exact", "--json"]].concat());
    assert_eq!(small["value"], b["score"]);
    let checked = json(&[&flags[..], &["check-proof", c, "--json"]].concat());
    assert_pins(&checked, small["value"].as_i64().unwrap());
}

/// Checks that the root claims of a checked certificate pin the value `v` (`ge v`, `le v`).
fn assert_pins(checked: &Value, v: i64) {
    let claims: Vec<&str> = checked["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["claim"].as_str().unwrap())
        .collect();
    assert!(claims.contains(&format!("ge {v}").as_str()), "{checked}");
    assert!(claims.contains(&format!("le {v}").as_str()), "{checked}");
}

#[test]
fn bad_arguments_are_refused() {
    for args in [
        &["prove", "--guess-depth", "0"][..],
        &["prove", "--time-limit", "0"],
        &["prove", "--tables", "/nonexistent/tables"],
        &["prove", "1,2,3/4,5 S"],
        &["prove", "--at-least", "1", "--all-moves"],
        &["prove", "--at-least", "x"],
        &["prove", "--cache-mb", "0"],
        &["prove", "--explore", "sideways"],
        &["prove", "--capture-cap", "0"],
        &["best", "--exact", "--explore", "sideways"],
        // More than any machine has (16 EiB).
        &["prove", "--cache-mb", "17592186044416"],
    ] {
        let (ok, out, err) = run(args);
        assert!(!ok, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
}

/// Hoyito III with 6 seeds a hole: South takes all 72 seeds in one turn, by 15 captures that
/// each give another turn and a last position of 12 seeds the tables value at +12. `prove`
/// finds that line before any proof graph (the breadth-first rounds alone had found nothing
/// after 60 s), and the certificate is the line itself, which the checker accepts.
#[test]
fn prove_finds_a_line_of_captures_that_takes_the_board() {
    let tables = built_tables_of(&["hoyito3"], "12");
    let t = tables.path().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("h3-6.cert");
    let c = cert.to_str().unwrap();
    let flags = ["--variant", "hoyito3", "--seeds", "6"];
    // (Stopped after two minutes, so that a prover that cannot find the line fails here.)
    let args = [
        "prove",
        "--tables",
        t,
        "--certificate",
        c,
        "--time-limit",
        "120",
    ];
    let p = json(&[&flags[..], &args, &["--json"]].concat());
    assert_eq!(p["value"], 72);
    assert_eq!(p["complete"], true);
    assert!(p["explored"].as_u64().unwrap() < 1000, "{p}");
    assert_eq!(p["certificate"]["entries"], 15, "{p}");
    let out = ok(&[&flags[..], &["check-proof", c, "--tables", t]].concat());
    assert!(out.contains("accepted") && out.contains("S ge 72") && out.contains("S le 72"));
}

/// Every start of the small boards that a proof finishes in about a second is proven, its
/// certificate accepted by the checker, and its value the exact search's: 2x2 with 1 to 8
/// seeds a hole (the start of 2x2 with one seed a hole holds 4 seeds, a board worth 0 by
/// the rules, whose proof needs no claim), 2x3 with 1 to 5 and 7, 2x4 with 1 and 2.
#[test]
fn every_small_start_is_proven_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let sizes = [(2, 1..=8), (3, 1..=5), (3, 7..=7), (4, 1..=2)];
    for (holes, seeds) in sizes {
        for s in seeds {
            let (h, s) = (holes.to_string(), s.to_string());
            let rules = ["--holes", h.as_str(), "--seeds", s.as_str()];
            let cert = dir.path().join(format!("2x{h}-{s}.cert"));
            let c = cert.to_str().unwrap();
            let proof = json(
                &[
                    &rules[..],
                    &["prove", "--no-tables", "--certificate", c, "--json"],
                ]
                .concat(),
            );
            assert_eq!(proof["complete"], true, "{proof}");
            let best = json(&[&rules[..], &["best", "--exact", "--no-tables", "--json"]].concat());
            assert_eq!(proof["value"], best["score"], "2x{h}, {s} seeds a hole");
            let checked = json(&["check-proof", c, "--json"]);
            assert_eq!(checked["accepted"], true, "{checked}");
            assert_pins(&checked, proof["value"].as_i64().unwrap());
        }
    }
}
