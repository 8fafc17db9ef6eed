//! Runs `solve tables`: build, info, probe (arguments and standard input), verify, and the
//! handling of damaged files.

use std::io::Write as _;
use std::process::{Command, Stdio};

mod common;

use common::{built_tables, damage, lines, ok, solve};

#[test]
fn build_probe_info_verify() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let build = || {
        lines(&ok(&[
            "tables",
            "--dir",
            d,
            "build",
            "--max-seeds",
            "8",
            "--json",
        ]))
    };
    let built = build();
    assert_eq!(built.len(), 1);
    assert_eq!(built[0]["seeds"], 8);
    assert_eq!(built[0]["positions"], 75582);
    assert_eq!(built[0]["reused"], false);

    // A second build finds the layer and keeps it.
    let again = build();
    assert_eq!(again[0]["reused"], true);

    let info = lines(&ok(&["tables", "--dir", d, "info", "--json"]));
    let layers = info[0]["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 1);
    let total: u64 = layers[0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 75582);

    // South captures 4 with move 6 (the lap ends on North's hole 1 holding 4) and takes the
    // last 4 as well.
    let p = "0,0,0,0,0,1/3,0,0,0,0,4 S";
    let probed = lines(&ok(&["tables", "--dir", d, "probe", p, "--json"]));
    assert_eq!(probed[0]["value"], 8);
    assert_eq!(probed[0]["best"], serde_json::json!([6]));
    let six = &probed[0]["moves"].as_array().unwrap()[0];
    assert_eq!(
        (six["move"].as_u64(), six["capture"].as_bool()),
        (Some(6), Some(true))
    );

    // Positions from standard input, one JSON object a line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .args(["tables", "--dir", d, "probe", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{p}\n0,0,0,0,0,1/3,0,0,0,0,4 N\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let streamed = lines(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(streamed.len(), 2);
    assert_eq!(streamed[0]["value"], 8);

    // A bad line of standard input is named by its number, after the good ones are answered.
    let input = format!("{p}\n\n0,0,0,0,0,1/3,0,0,0 S\n{p}\n");
    let probe = ["tables", "--dir", d, "probe", "-", "--json"];
    let (ok_, out, err) = common::run_in(std::path::Path::new("."), &probe, input);
    assert!(!ok_);
    assert_eq!(lines(&out).len(), 1);
    assert!(err.contains("standard input line 3"), "{err}");

    let verified = lines(&ok(&["tables", "--dir", d, "verify", "--json"]));
    assert_eq!(verified[0]["failed"], serde_json::json!([]));
    assert_eq!(verified[0]["checked"], 75582);
    // Exact search (no smaller layer to stop at here) agrees with every sampled value.
    let searched = lines(&ok(&[
        "tables",
        "--dir",
        d,
        "verify",
        "--samples",
        "10",
        "--search",
        "30",
        "--json",
    ]));
    let s = &searched[0]["search"];
    assert_eq!(s["differ"], serde_json::json!([]));
    let agree = s["agree"].as_u64().unwrap();
    let total = agree + s["unfinished"].as_u64().unwrap() + s["skipped"].as_u64().unwrap();
    // How many finish within their time depends on the machine's load: none may differ, and
    // some must finish.
    assert!(agree >= 1 && total >= 30, "{s}");

    // Positions beyond the tables are an error, not a guess.
    let out = solve(&["tables", "--dir", d, "probe", "4,4,4,4,4,4/4,4,4,4,4,4 S"]);
    assert!(!out.status.success());
}

#[test]
fn damaged_file_is_reported() {
    let dir = built_tables("8");
    let d = dir.path().to_str().unwrap();
    damage(dir.path(), 8);
    let out = solve(&["tables", "--dir", d, "probe", "0,0,0,0,0,1/3,0,0,0,0,4 S"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("checksum"), "{err}");
    // A build does not silently overwrite it either.
    let out = solve(&["tables", "--dir", d, "build", "--max-seeds", "8", "--quiet"]);
    assert!(!out.status.success());
}

#[test]
fn asymmetric_rules_store_both_sides() {
    // A fixed last-four award is a Hoyito III match rule, and an option of Hoyito II too.
    for variant in ["hoyito3", "hoyito2"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let args = ["--variant", variant, "--last-four", "N"];
        let mut build = vec!["tables", "--dir", d, "build", "--max-seeds", "8", "--json"];
        build.extend(args);
        let built = lines(&ok(&build));
        assert_eq!(built[0]["positions"], 2 * 75582);
        // In a folder of their own.
        let folder = format!("2x6-{variant}-N-any");
        assert!(dir.path().join(folder).join("layer-08.hyt").is_file());
        // South captures the penultimate four, but the last four go to North.
        let p = "0,0,0,0,0,1/3,0,0,0,0,4 S";
        let mut probe = vec!["tables", "--dir", d, "probe", p, "--json"];
        probe.extend(args);
        let v = lines(&ok(&probe));
        assert_eq!(v[0]["value"], 0);
        // The search agrees, with the tables and without.
        let mut best = vec!["best", "--json", "--threads", "1", "--tables", d, p];
        best.extend(args);
        let with = lines(&ok(&best));
        assert_eq!(with[0]["score"], 0);
        assert_eq!(with[0]["tables_max_seeds"], 8);
        let mut plain = vec!["best", "--json", "--threads", "1", "--no-tables", p];
        plain.extend(args);
        assert_eq!(lines(&ok(&plain))[0]["score"], 0);
        // The tables of the default rules are not these.
        let out = solve(&["tables", "--dir", d, "probe", p]);
        assert!(!out.status.success());
    }
}

#[test]
fn probe_takes_positions_as_separate_words() {
    let dir = built_tables("8");
    let d = dir.path().to_str().unwrap();
    let probe = |words: &[&str]| {
        let args = [&["tables", "--dir", d, "probe", "--json"], words].concat();
        lines(&ok(&args))
    };
    let quoted = probe(&["0,0,0,0,0,1/3,0,0,0,0,4 S 0-0"]);
    // Words, two positions in a row (the second with its captured seeds), as elsewhere.
    let words = probe(&[
        "0,0,0,0,0,1/3,0,0,0,0,4",
        "S",
        "0,0,0,0,0,1/3,0,0,0,0,4",
        "N",
        "0-0",
    ]);
    assert_eq!(words.len(), 2);
    assert_eq!(words[0], quoted[0]);
    assert_eq!(words[1]["position"], "0,0,0,0,0,1/3,0,0,0,0,4 N 0-0");
    // The start as two words is read as one position (beyond these tables).
    let out = solve(&[
        "tables",
        "--dir",
        d,
        "probe",
        "4,4,4,4,4,4/4,4,4,4,4,4",
        "S",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("4,4,4,4,4,4/4,4,4,4,4,4 S 0-0: 48 seeds"),
        "{err}"
    );
}

/// Changes the code `c` of position `index` in the default rules' table file of `seeds`
/// seeds in `dir` to `change(c)`, and stamps the checksums again, so that the file reads as
/// valid.
fn rewrite_code(dir: &std::path::Path, seeds: usize, index: u64, change: impl Fn(u16) -> u16) {
    use hoyito_tables::format::checksum;
    let file = dir
        .join("2x6-hoyito2-capturer-any")
        .join(format!("layer-{seeds:02}.hyt"));
    let mut b = std::fs::read(&file).unwrap();
    let bits = b[21] as u64;
    let bins = u32::from_le_bytes(b[52..56].try_into().unwrap()) as usize;
    let header = 72 + 8 * bins;
    let payload = header + 8;
    let off = index * bits;
    let at = payload + (off / 8) as usize;
    let mut w = u16::from_le_bytes([b[at], b[at + 1]]);
    let mask = ((1u16 << bits) - 1) << (off % 8);
    let code = change((w & mask) >> (off % 8));
    w = (w & !mask) | code << (off % 8);
    b[at..at + 2].copy_from_slice(&w.to_le_bytes());
    let sum = checksum(&b[payload..]);
    b[40..48].copy_from_slice(&sum.to_le_bytes());
    let sum = checksum(&b[..header]);
    b[header..payload].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&file, &b).unwrap();
}

#[test]
fn verify_full_proves_or_names_the_wrong_value() {
    let dir = built_tables("8");
    let d = dir.path().to_str().unwrap();
    let full = lines(&ok(&["tables", "--dir", d, "verify", "--full", "--json"]));
    assert_eq!(full.len(), 1);
    assert_eq!(full[0]["seeds"], 8);
    assert_eq!(full[0]["positions"], 75582);
    assert_eq!(full[0]["exact"], true);
    assert!(full[0]["sweeps"].as_u64().unwrap() > 1);
    let text = ok(&["tables", "--dir", d, "verify", "--full", "--quiet"]);
    assert!(text.contains("proved exact"), "{text}");

    // A value changed, checksums stamped again: the file opens, and the check fails.
    // Layer 8 has codes 0 to 4 (values -8 to 8 in steps of 4).
    rewrite_code(dir.path(), 8, 1000, |c| (c + 1) % 5);
    let (ok_, out, err) = common::run(&["tables", "--dir", d, "verify", "--full", "--json"]);
    assert!(!ok_);
    let report = lines(&out);
    assert_eq!(report[0]["exact"], false);
    assert_eq!(report[0]["failure"]["fault"], "moves");
    assert!(report[0]["failure"]["index"].as_u64().unwrap() <= 1000);
    assert!(err.contains("the moves give"), "{err}");

    // Flags that do not go together.
    let (ok_, _, err) = common::run(&["tables", "--dir", d, "verify", "--full", "--samples", "5"]);
    assert!(!ok_ && err.contains("--samples"), "{err}");
    let (ok_, _, err) = common::run(&["tables", "--dir", d, "verify", "--max-seeds", "8"]);
    assert!(!ok_ && err.contains("--full"), "{err}");
    let (ok_, _, err) = common::run(&["tables", "--dir", d, "verify", "--full", "--layer", "12"]);
    assert!(!ok_ && err.contains("no layer of 12"), "{err}");
}

/// The payload of layer file `name` of the default rules under `dir` (its header differs
/// from build to build only in the build time).
fn payload(dir: &std::path::Path, name: &str) -> Vec<u8> {
    let path = dir.join("2x6-hoyito2-capturer-any").join(name);
    let header = hoyito_tables::Layer::read_header(&path).unwrap();
    std::fs::read(&path).unwrap()[header.len()..].to_vec()
}

/// `--max-memory`: each layer's estimated peak is reported; a layer planned in rounds whose
/// estimate is over the limit is swept instead (the same values, no scratch moves); a layer
/// that does not fit even so stops the build before it starts, with a message naming the
/// layer and both figures, and the smaller layers are kept.
#[test]
fn build_keeps_within_max_memory() {
    let reference = built_tables("12");
    let r = reference.path().to_str().unwrap();
    let layers = lines(&ok(&[
        "tables",
        "--dir",
        r,
        "build",
        "--max-seeds",
        "12",
        "--json",
    ]));
    assert!(layers.iter().all(|l| l["reused"] == true));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let build = |mb: &str| {
        ok(&[
            "tables",
            "--dir",
            d,
            "build",
            "--max-seeds",
            "12",
            "--threads",
            "1",
            "--json",
            "--max-memory",
            mb,
        ])
    };
    // Unlimited: the 12-seed layer goes on in rounds, and its estimate is over its sweeps'.
    let free = lines(&build("1000000"));
    let (l8, l12) = (&free[0], &free[1]);
    assert!(l12["rounds"].as_u64().unwrap() > 0, "{l12}");
    let est = |l: &serde_json::Value| l["memory_estimate_bytes"].as_u64().unwrap();
    assert!(est(l8) > 0 && est(l12) > est(l8), "{l8} {l12}");
    if let Some(peak) = l12["peak_memory_bytes"].as_u64() {
        assert!(
            est(l12) >= peak,
            "estimate {} under the peak {peak}",
            est(l12)
        );
    }
    // Between the 12-seed layer's sweeps and its rounds: swept, the same values.
    std::fs::remove_file(dir.path().join("2x6-hoyito2-capturer-any/layer-12.hyt")).unwrap();
    let mib = |b: u64| b.div_ceil(1 << 20);
    let swept = lines(&build(&(mib(est(l12)) - 1).to_string()));
    assert_eq!(swept[0]["reused"], true);
    let l12s = &swept[1];
    assert_eq!(l12s["rounds"], 0, "{l12s}");
    assert_eq!(l12s["scratch_bytes"], 0, "{l12s}");
    assert!(mib(est(l12s)) < mib(est(l12)));
    for name in ["layer-08.hyt", "layer-12.hyt"] {
        assert_eq!(
            payload(dir.path(), name),
            payload(reference.path(), name),
            "{name}"
        );
    }
    // Below the 8-seed layer's own need: nothing is built, the message says why.
    let empty = tempfile::tempdir().unwrap();
    let e = empty.path().to_str().unwrap();
    let build_within = |mib: &str| {
        solve(&[
            "tables",
            "--dir",
            e,
            "build",
            "--max-seeds",
            "12",
            "--max-memory",
            mib,
        ])
    };
    let small = (mib(est(l8)) - 1).to_string();
    let out = build_within(&small);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("layer of 8 seeds needs about"), "{stderr}");
    assert!(stderr.contains(&format!("at most {small} MiB")), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let folder = empty.path().join("2x6-hoyito2-capturer-any");
    let files = std::fs::read_dir(&folder).map_or(0, |d| d.count());
    assert_eq!(files, 0);
    // After the 8-seed layer: it is kept, the build stops before the 12-seed layer.
    let between = mib(est(l8));
    assert!(
        between << 20 < est(l12s),
        "no limit between the layers' needs"
    );
    let between = between.to_string();
    let out = build_within(&between);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("layer of 12 seeds needs about"), "{stderr}");
    assert_eq!(
        payload(empty.path(), "layer-08.hyt"),
        payload(reference.path(), "layer-08.hyt")
    );
    assert!(!folder.join("layer-12.hyt").exists());
}

/// Runs `solve` with `SOLVE_PROGRESS_EVERY` set to `every`: whether it succeeded, and its
/// standard error (a pipe, not a terminal, so the progress comes as plain lines).
fn run_every(every: &str, args: &[&str]) -> (bool, String) {
    let (ok, _, err) = common::outcome(common::solve_with_env(
        &[("SOLVE_PROGRESS_EVERY", every)],
        args,
    ));
    (ok, err)
}

/// When stderr is not a terminal, a sweep says how far it is in plain lines, as often as
/// `SOLVE_PROGRESS_EVERY` says (a minute by default, which these builds never reach), for a
/// build and for a full verification; `--quiet` silences them, and a value that is not a
/// number of seconds is refused before any work.
#[test]
fn plain_progress_lines_come_as_often_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let sweep_lines = |err: &str| {
        err.lines()
            .filter(|l| l.starts_with("layer  8 sweep ") && l.contains(" of 75582 positions ("))
            .count()
    };
    let build = ["tables", "--dir", d, "build", "--max-seeds", "8"];
    let (ok_, err) = run_every("0", &build);
    assert!(ok_, "{err}");
    // Layer 8 is swept to its end, 38 sweeps: at least a line each.
    assert!(sweep_lines(&err) >= 38, "{err}");
    assert!(err.contains("(100%, "), "{err}");

    let verify = ["tables", "--dir", d, "verify", "--full"];
    let (ok_, err) = run_every("0", &verify);
    assert!(ok_, "{err}");
    assert!(sweep_lines(&err) >= 2, "{err}");
    let (ok_, err) = run_every("60", &verify);
    assert!(ok_, "{err}");
    assert_eq!(sweep_lines(&err), 0, "{err}");
    let (ok_, err) = run_every("0", &["tables", "--dir", d, "verify", "--full", "--quiet"]);
    assert!(ok_, "{err}");
    assert_eq!(sweep_lines(&err), 0, "{err}");

    for bad in ["soon", "-1", "1.5", ""] {
        let (ok_, err) = run_every(bad, &verify);
        assert!(!ok_, "{bad:?} accepted");
        assert!(
            err.contains("SOLVE_PROGRESS_EVERY") && err.contains("whole number of seconds"),
            "{bad:?}: {err}"
        );
    }
}
