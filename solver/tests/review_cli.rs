//! `solve review`: engine games reviewed over endgame tables (the engine's own moves inside
//! the tables are all best), a person's blunder found and classed, the annotated record.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{built_tables, ok, run};
use serde_json::Value;

/// Runs `solve play ARGS` with `stdin` as its input; it must succeed.
fn play(args: &[&str], stdin: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .arg("play")
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn review(record: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["review", record.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    serde_json::from_str(ok(&args).trim()).unwrap()
}

#[test]
fn the_engines_moves_inside_the_tables_are_all_best() {
    let tables = built_tables("8");
    let t = tables.path().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("game.txt");
    let ann = dir.path().join("annotated.txt");
    // 16 seeds on the board: the game enters the 8-seed tables on its way.
    play(
        &[
            "--south",
            "engine",
            "--north",
            "engine",
            "--level",
            "3",
            "--tables",
            t,
            "--record",
            rec.to_str().unwrap(),
            "2,1,0,3,0,2/1,2,0,3,1,1 S",
        ],
        "",
    );
    let v = review(
        &rec,
        &["--tables", t, "--depth", "4", "-o", ann.to_str().unwrap()],
    );
    let plies = v["plies"].as_array().unwrap();
    let inside: Vec<&Value> = plies.iter().filter(|p| p["in_tables"] == true).collect();
    assert!(inside.len() >= 2, "no ply inside the tables: {v}");
    for p in &inside {
        assert_eq!(p["class"], "best", "{p}");
        assert_eq!(p["lost"], 0);
        assert_eq!(p["exact"], true);
    }
    for s in v["sides"].as_array().unwrap() {
        assert!(s["first_error_in_tables"].is_null());
    }
    // The annotated record reads back, with the review's values as comments.
    let back: hoyito_rules::Record = std::fs::read_to_string(&ann).unwrap().parse().unwrap();
    assert_eq!(back.plies.len(), plies.len());
    for (ply, p) in back.plies.iter().zip(plies) {
        let note = ply.note.as_ref().unwrap();
        assert_eq!(note.value, p["value"].as_i64().map(|x| x as i32));
        assert_eq!(note.best.map(|m| u64::from(m.0)), p["best"].as_u64());
        assert!(note
            .text
            .contains(&format!("class={}", p["class"].as_str().unwrap())));
    }
    ok(&["record", "check", ann.to_str().unwrap()]);
    // The text report has the table and the graph.
    let text = ok(&[
        "review",
        rec.to_str().unwrap(),
        "--tables",
        t,
        "--depth",
        "4",
    ]);
    assert!(
        text.contains("first error inside the tables: none"),
        "{text}"
    );
    assert!(text.contains("plies 1..") && text.contains('*'), "{text}");
}

#[test]
fn a_blunder_inside_the_tables_is_found() {
    let tables = built_tables("8");
    let t = tables.path().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("game.txt");
    // North to move: 2 keeps +8, 5 gives -8 (solve best --exact --all-moves).
    let pos = "1,0,0,3,0,0/0,2,0,0,1,1 N";
    let all = common::json(&["best", "--exact", "--no-tables", "--all-moves", pos]);
    let score = |m: u64| {
        all["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["move"] == m)
            .unwrap()["score"]
            .as_i64()
            .unwrap()
    };
    let lost = score(2) - score(5);
    assert!(lost >= 8);
    play(
        &[
            "--south",
            "engine",
            "--north",
            "human",
            "--level",
            "3",
            "--tables",
            t,
            "--record",
            rec.to_str().unwrap(),
            pos,
        ],
        "5\nquit\n",
    );
    let v = review(&rec, &["--tables", t, "--depth", "2"]);
    let first = &v["plies"][0];
    assert_eq!(first["token"].as_str().unwrap().get(..2), Some("N5"));
    assert_eq!(first["lost"].as_i64().unwrap(), lost);
    assert_eq!(first["class"], "blunder");
    assert_eq!(first["value"].as_i64().unwrap(), score(2));
    assert_eq!(v["sides"][1]["first_error_in_tables"], 1);
    assert_eq!(v["sides"][1]["blunders"], 1);
    assert_eq!(v["sides"][1]["best_share"], 0.0);
    // Exact review without tables gives the same values.
    let e = review(&rec, &["--exact"]);
    assert_eq!(e["plies"][0]["lost"], first["lost"]);
    assert_eq!(e["plies"][0]["exact"], true);
}

#[test]
fn bad_review_arguments_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.txt");
    std::fs::write(&rec, "S3 N1x4 *\n").unwrap();
    let r = rec.to_str().unwrap();
    for (args, what) in [
        (vec!["review", r, "--game", "2"], "1 game(s)"),
        (vec!["review", r, "--depth", "0"], "--depth"),
        (vec!["review", r, "--threads", "0"], "--threads"),
        (vec!["review", r, "--tables", "/nonexistent/t"], "tables"),
        (vec!["review", "/nonexistent/g.txt"], "cannot read"),
        (
            vec!["review", r, "--exact", "--depth", "3"],
            "cannot be used with",
        ),
    ] {
        let (success, _, err) = run(&args);
        assert!(!success && err.contains(what), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Checks that `svg` is one `svg` element whose tags all close in order, and returns the
/// names of its elements in order.
fn svg_elements(svg: &str) -> Vec<String> {
    assert!(svg.starts_with("<svg "), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
    let mut open: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find('<') {
        let end = rest[at..].find('>').expect("every tag ends") + at;
        let tag = &rest[at + 1..end];
        assert!(!tag.contains('<'), "a tag inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop().as_deref(), Some(name), "closing {name}");
        } else {
            let name: String = tag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            assert!(!name.is_empty(), "a tag without a name: {tag}");
            names.push(name.clone());
            if !tag.ends_with('/') {
                open.push(name);
            }
        }
        // Text between tags holds no raw markup characters.
        rest = &rest[end + 1..];
        let text_end = rest.find('<').unwrap_or(rest.len());
        assert!(!rest[..text_end].contains('>'), "raw > in text");
        if open.is_empty() {
            assert!(rest.trim().is_empty(), "text after the svg element: {rest}");
        }
    }
    assert!(open.is_empty(), "unclosed: {open:?}");
    names
}

#[test]
fn the_value_graph_as_svg_has_a_point_a_ply_and_marks_the_blunder() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("game.txt");
    let svg = dir.path().join("graph.svg");
    // North to move blunders with 5 (as in the test above); South's engine answers.
    let pos = "1,0,0,3,0,0/0,2,0,0,1,1 N";
    play(
        &[
            "--south",
            "engine",
            "--north",
            "human",
            "--level",
            "3",
            "--record",
            rec.to_str().unwrap(),
            pos,
        ],
        "5\nquit\n",
    );
    let v = review(&rec, &["--exact", "--svg", svg.to_str().unwrap()]);
    assert_eq!(v["svg"], svg.to_str().unwrap());
    let plies = v["plies"].as_array().unwrap();
    assert!(plies.len() >= 2);
    let text = std::fs::read_to_string(&svg).unwrap();
    let names = svg_elements(&text);
    assert_eq!(names[0], "svg");
    assert_eq!(names.iter().filter(|n| *n == "polyline").count(), 1);
    // One point a ply, in order, each with its class and proof, and its value for South.
    let points: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("<circle class=\"ply "))
        .collect();
    assert_eq!(points.len(), plies.len(), "{text}");
    for (line, p) in points.iter().zip(plies) {
        let class = p["class"].as_str().unwrap();
        assert!(line.contains(&format!("\"ply {class} exact\"")), "{line}");
        let mover = p["value"].as_i64().unwrap();
        let south = if p["side"] == "South" { mover } else { -mover };
        let title = format!(
            "<title>ply {} {}: {south:+} for South",
            p["ply"],
            p["token"].as_str().unwrap()
        );
        assert!(line.contains(&title), "{line} lacks {title}");
    }
    assert!(points[0].contains("\"ply blunder exact\""), "{}", points[0]);
    // The polyline has one vertex a ply.
    let poly = text.lines().find(|l| l.starts_with("<polyline")).unwrap();
    let inside = poly
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(inside.split_whitespace().count(), plies.len());
    // The text report says where the graph went.
    let out = ok(&[
        "review",
        rec.to_str().unwrap(),
        "--exact",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.contains(&format!("value graph written to {}", svg.display())),
        "{out}"
    );
}

#[test]
fn a_bad_svg_path_is_refused_before_the_review() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.txt");
    std::fs::write(&rec, "S3 N1x4 *\n").unwrap();
    let r = rec.to_str().unwrap();
    let missing = dir.path().join("no/such/folder/g.svg");
    let folder = dir.path().to_str().unwrap();
    for (args, what) in [
        (
            vec!["review", r, "--svg", missing.to_str().unwrap()],
            "does not exist",
        ),
        (vec!["review", r, "--svg", folder], "is a folder"),
        (vec!["review", r, "--svg", ""], "a value is required"),
    ] {
        let (success, out, err) = run(&args);
        assert!(!success, "{args:?} should fail");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(
            err.contains(what) && err.contains("--svg"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!missing.exists());
}

/// An exact review of a whole game keeps to its budget a ply and says how far it is: a
/// move not proven within its share is marked heuristic, and a line a ply goes to stderr
/// (SOLVE_PROGRESS_EVERY=0).
#[test]
fn an_exact_review_of_a_whole_game_keeps_a_budget_and_shows_progress() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("game.txt");
    play(
        &[
            "--south",
            "engine",
            "--north",
            "engine",
            "--depth",
            "2",
            "--record",
            rec.to_str().unwrap(),
        ],
        "",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .args([
            "review",
            rec.to_str().unwrap(),
            "--exact",
            "--ply-ms",
            "20",
            "--json",
        ])
        .env("SOLVE_PROGRESS_EVERY", "0")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let plies = v["plies"].as_array().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    let n = plies.len();
    assert!(n > 20, "{v}");
    assert!(err.contains(&format!("reviewing ply 1 of {n}")), "{err}");
    assert!(err.contains(&format!("reviewing ply {n} of {n}")), "{err}");
    // The opening plies of a full board are not proven in 20 ms.
    assert_eq!(plies[0]["exact"], false, "{v}");
    assert!(
        v["mode"].as_str().unwrap().contains("at most 20 ms a ply"),
        "{v}"
    );
}
