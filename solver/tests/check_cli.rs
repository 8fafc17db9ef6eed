//! Runs `solve check-proof` on small certificates made here: accepted, rejected with the
//! failing entry named, malformed, and resting on tables that are not given.

mod common;

use common::{fails, json, ok};
use hoyito_check::{
    write_certificate, CaptureSide, Claim, Entry, LastFour, Position, Rules, Variant,
};

fn rules() -> Rules {
    Rules {
        holes: 2,
        variant: Variant::Hoyito2,
        last_four: LastFour::Capturer,
        capture_side: CaptureSide::Any,
    }
}

/// South to move on `0,1/3,4`: move 2 drops its seed in North's hole 1, which then holds 4:
/// South takes them, 4 seeds are left, the game ends and South takes those too (8 in all).
/// So South's value is 8, the most there is: `le 8` needs no entry (it is trivial).
fn certificate(dir: &std::path::Path, mv: u8, tables: Option<usize>) -> String {
    let p = Position::parse("0,1/3,4 S").unwrap();
    let entries = [Entry {
        position: p.clone(),
        claim: Claim::ge(8),
        mv,
        rank: 1,
    }];
    let roots = [(p.clone(), Claim::ge(8)), (p, Claim::le(8))];
    let mut bytes = Vec::new();
    write_certificate(&mut bytes, &rules(), tables, &roots, &entries).unwrap();
    let path = dir.join(format!("move-{mv}.cert"));
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn an_accepted_certificate_reports_what_it_proves() {
    let dir = tempfile::tempdir().unwrap();
    let cert = certificate(dir.path(), 2, None);
    let text = ok(&["check-proof", &cert]);
    assert!(text.contains("accepted"), "{text}");
    assert!(text.contains("0,1/3,4 S ge 8"), "{text}");
    assert!(text.contains("worth 8"), "{text}");
    let v = json(&["check-proof", &cert]);
    assert_eq!(v["accepted"], true);
    assert_eq!(v["entries"], 1);
    assert_eq!(v["steps"], 1);
    assert_eq!(v["game_ends"], 1);
    assert_eq!(v["table_lookups"], 0);
    assert_eq!(v["roots"][0]["claim"], "ge 8");
    assert_eq!(v["values"], serde_json::json!([["0,1/3,4 S", 8]]));
}

#[test]
fn a_rejected_certificate_fails_naming_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    // Move 1 is South's empty hole.
    let cert = certificate(dir.path(), 1, None);
    let err = fails(&["check-proof", &cert], "entry 0");
    assert!(err.contains("0,1/3,4 S ge 8"), "{err}");
    assert!(err.contains("empty"), "{err}");
    fails(&["check-proof", &cert, "--json"], "rejected");
}

#[test]
fn malformed_files_and_missing_tables_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.cert");
    std::fs::write(&bad, "hello\n").unwrap();
    fails(&["check-proof", bad.to_str().unwrap()], "line 1");
    fails(&["check-proof", "/nonexistent/x.cert"], "cannot read");
    let cert = certificate(dir.path(), 2, Some(8));
    fails(&["check-proof", &cert], "--tables");
    // A tables folder without the layers: the missing file is named.
    let empty = dir.path().join("tables");
    std::fs::create_dir(&empty).unwrap();
    fails(
        &["check-proof", &cert, "--tables", empty.to_str().unwrap()],
        "layer-08.hyt",
    );
}

/// Certificates written by `solve prove` are accepted, and pin the values it reports: small
/// boards without tables, and a 2x6 position over tables built here.
#[test]
fn certificates_of_solve_prove_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let tables = common::built_tables("12");
    let t = tables.path().to_str().unwrap();
    let cases: [&[&str]; 4] = [
        &["--holes", "4", "--seeds", "1", "--no-tables"],
        &[
            "--holes",
            "3",
            "--seeds",
            "2",
            "--variant",
            "hoyito3",
            "--no-tables",
        ],
        &[
            "--holes",
            "3",
            "--seeds",
            "2",
            "--last-four",
            "N",
            "--capture-side",
            "opponent",
            "--no-tables",
        ],
        &["1,2,1,0,2,2/2,1,1,2,1,1 S", "--tables", t],
    ];
    for (k, flags) in cases.iter().enumerate() {
        let cert = dir.path().join(format!("prove-{k}.cert"));
        let c = cert.to_str().unwrap();
        let p = json(&[&["prove"], *flags, &["--all-moves", "--certificate", c]].concat());
        assert_eq!(p["complete"], true, "{flags:?}");
        let mut args = vec!["check-proof", c];
        if flags.contains(&"--tables") {
            args.extend(["--tables", t]);
        }
        let v = json(&args);
        assert_eq!(v["accepted"], true);
        assert_eq!(v["entries"], p["certificate"]["entries"], "{flags:?}");
        // The value of the position proven: South's view in the certificate.
        let value = p["value"].as_i64().unwrap();
        let south = if p["position"].as_str().unwrap().contains(" N") {
            -value
        } else {
            value
        };
        assert_eq!(v["values"][0][1], south, "{flags:?}");
        if flags.contains(&"--tables") {
            assert!(v["table_lookups"].as_u64().unwrap() > 0);
        }
    }
}
