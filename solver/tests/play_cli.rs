//! `solve play` driven through standard input: whole games scripted line by line (a person
//! against the engine, engines and random players against each other, two people with
//! undo, redo, save and load), Hoyito III matches of rounds, and the records they write,
//! which must replay to the scores reported.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use hoyito_rules::{read_records, Game, Record, Side, Termination, Winner};
use serde_json::Value;

/// Runs `solve play ARGS` in `dir` with `stdin` as its input: success, stdout, stderr.
fn play_in(dir: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> (bool, String, String) {
    common::run_in(dir, &[&["play"][..], args].concat(), stdin)
}

/// Runs a game that must succeed with `--json`: the report and the transcript.
fn play_json(dir: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> (Value, String) {
    let mut all = args.to_vec();
    all.push("--json");
    let (ok, out, err) = play_in(dir, &all, stdin);
    assert!(ok, "solve play {args:?} failed: {err}");
    let report = serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("bad JSON report {out}: {e}\n{err}"));
    (report, err)
}

/// Reads a record file (checked by replay) and returns its games.
fn records(path: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path).unwrap();
    read_records(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

/// Checks that each recorded game replays to the score, end and result of its report.
fn replays_to_report(recs: &[Record], report: &Value) {
    let games = report["games"].as_array().unwrap();
    assert_eq!(recs.len(), games.len());
    for (r, g) in recs.iter().zip(games) {
        let game = r.game::<4>().unwrap();
        let end = game.position();
        let score = [end.captured(Side::South), end.captured(Side::North)];
        assert_eq!(serde_json::json!(score), g["score"]);
        assert_eq!(serde_json::json!(r.score), g["score"]);
        assert_eq!(r.termination.tag(), g["end"]);
        assert_eq!(r.result(), g["result"]);
        assert_eq!(r.plies.len(), g["plies"].as_u64().unwrap() as usize);
    }
}

/// Lines that try every hole in turn, over and over: at each of its turns a scripted
/// person plays the first legal hole met (the others get a message and a new prompt).
fn every_hole(times: usize) -> String {
    "1\n2\n3\n4\n5\n6\n".repeat(times)
}

/// The games of a record without what changes from run to run: the date, the match's
/// name (it holds the date) and the time each move took.
fn undated(path: &Path) -> Vec<Record> {
    let mut recs = records(path);
    for r in &mut recs {
        r.date = None;
        r.match_name = None;
        for p in &mut r.plies {
            if let Some(n) = p.note.as_mut() {
                n.time_ms = None;
            }
        }
    }
    recs
}

#[test]
fn a_person_against_the_engine_plays_to_the_end_and_the_record_replays() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("game.txt");
    let (report, transcript) = play_json(
        dir.path(),
        &[
            "--south",
            "human",
            "--north",
            "engine",
            "--depth",
            "3",
            "--record",
            rec.to_str().unwrap(),
        ],
        every_hole(400),
    );
    let g = &report["games"][0];
    assert_ne!(g["end"], "unfinished", "{transcript}");
    assert_eq!(g["south"], "human");
    assert_eq!(g["north"], "engine depth 3");
    let recs = records(&rec);
    replays_to_report(&recs, &report);
    // The engine's moves carry their notes (value, best move, time); the person's do not.
    let r = &recs[0];
    assert!(r.plies.iter().any(|p| p.side == Side::North));
    for p in &r.plies {
        assert_eq!(p.note.is_some(), p.side == Side::North, "{p}");
    }
    // After every ply the board is drawn with the move's holes marked, and a sowing trace.
    assert!(transcript.contains("South plays S1"));
    assert!(transcript
        .contains("sowing from S1, 5 laps: S5 (5) -> N4 (5) -> S3 (6) -> N3 (6) -> S3 (1)"));
    assert!(
        transcript.contains("     2^   7  1*   6   1   6"),
        "{transcript}"
    );
    assert!(transcript.contains("game over: "));
    // Illegal holes got a message and a new prompt.
    assert!(transcript.contains("the hole is empty"));
    assert!(
        !transcript.contains("\u{1b}["),
        "no colour when NO_COLOR is set"
    );
}

#[test]
fn engines_and_random_players_repeat_their_games_for_a_seed() {
    let dir = tempfile::tempdir().unwrap();
    for (south, north, level) in [
        ("engine", "engine", "2"),
        ("random", "random", "1"),
        ("engine", "random", "1"),
    ] {
        let mut texts = Vec::new();
        for run in 0..2 {
            let rec = dir.path().join(format!("{south}-{north}-{run}.txt"));
            let (report, _) = play_json(
                dir.path(),
                &[
                    "--south",
                    south,
                    "--north",
                    north,
                    "--level",
                    level,
                    "--seed",
                    "7",
                    "--record",
                    rec.to_str().unwrap(),
                ],
                "",
            );
            assert_ne!(report["games"][0]["end"], "unfinished");
            replays_to_report(&records(&rec), &report);
            texts.push(undated(&rec));
        }
        assert_eq!(texts[0], texts[1], "{south} against {north}");
    }
    // Another seed gives another random game.
    let a = dir.path().join("random-random-0.txt");
    let b = dir.path().join("other.txt");
    play_json(
        dir.path(),
        &[
            "--south",
            "random",
            "--north",
            "random",
            "--seed",
            "8",
            "--record",
            b.to_str().unwrap(),
        ],
        "",
    );
    assert_ne!(undated(&a), undated(&b));
}

#[test]
fn two_people_undo_redo_save_and_load() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("saved.txt");
    let rec = dir.path().join("first.txt");
    let people = ["--south", "human", "--north", "human"];
    let script = format!(
        "1\n1\nundo\nundo\nundo\nredo\nredo\nredo\nundo 2\nredo\nredo\nsave {}\nquit\n",
        saved.display()
    );
    let mut args = people.to_vec();
    args.extend(["--record", rec.to_str().unwrap()]);
    let (report, t) = play_json(dir.path(), &args, &script);
    assert_eq!(report["games"][0]["plies"], 2, "{t}");
    assert_eq!(report["games"][0]["end"], "unfinished");
    assert_eq!(t.matches("took back 1 plies").count(), 2, "{t}");
    assert_eq!(t.matches("took back 2 plies").count(), 1, "{t}");
    assert_eq!(t.matches("nothing to undo").count(), 1, "{t}");
    assert_eq!(t.matches("replayed 1 plies").count(), 4, "{t}");
    assert_eq!(t.matches("nothing to redo").count(), 1, "{t}");
    let first = records(&rec);
    let kept = records(&saved);
    assert_eq!(first[0].plies, kept[0].plies);
    let moves: Vec<String> = kept[0].plies.iter().map(|p| p.to_string()).collect();
    assert_eq!(moves, ["S1", "N1"]);

    // Continue the saved game from the command line, and resign after a few moves.
    let rec2 = dir.path().join("second.txt");
    let mut args = people.to_vec();
    args.extend([
        "--load",
        saved.to_str().unwrap(),
        "--record",
        rec2.to_str().unwrap(),
    ]);
    let script = format!("{}resign\n", every_hole(3));
    let (report, t) = play_json(dir.path(), &args, &script);
    let recs = records(&rec2);
    replays_to_report(&recs, &report);
    let r = &recs[0];
    assert_eq!(r.plies[..2], kept[0].plies[..]);
    assert!(r.plies.len() > 2, "{t}");
    let Termination::Resignation(loser) = r.termination else {
        panic!("a resignation: {t}")
    };
    assert_eq!(r.winner(), Some(Winner::Side(loser.opponent())));

    // And with `load` at the prompt, then more moves and undo.
    let rec3 = dir.path().join("third.txt");
    let mut args = people.to_vec();
    args.extend(["--record", rec3.to_str().unwrap()]);
    let script = format!("load {}\nundo\nredo\nquit\n", saved.display());
    let (report, t) = play_json(dir.path(), &args, &script);
    assert!(t.contains("loaded"), "{t}");
    assert!(t.contains("took back 1 plies"), "{t}");
    assert!(t.contains("replayed 1 plies"), "{t}");
    assert_eq!(report["games"][0]["plies"], 2, "{t}");
    assert_eq!(records(&rec3)[0].plies, kept[0].plies);
}

#[test]
fn bad_input_at_the_prompt_gets_a_message_and_a_new_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.txt");
    // Bytes that are not UTF-8 too.
    let mut script = b"foo\n\xff\xfe\n".to_vec();
    script.extend_from_slice(
        b"0\n7\n99999999999999999999\n-1\nundo x\nundo 0\nundo\nredo\nsave\nload\n\
                  load /no/such/file\nsave /no/such/dir/f\neval maybe\n\n   \nhelp\nmoves\n\
                  hint\nanalyse\neval on\n1\neval off\nswap\nboard\nquit\n",
    );
    let (report, t) = play_json(
        dir.path(),
        &[
            "--south",
            "human",
            "--north",
            "human",
            "--depth",
            "2",
            "--record",
            rec.to_str().unwrap(),
        ],
        &script,
    );
    for needle in [
        "unknown command 'foo'",
        "move 7 is out of range",
        "move 99999999999999999999 is out of range",
        "unknown command '\u{fffd}\u{fffd}'",
        "undo takes a number",
        "nothing to undo",
        "nothing to redo",
        "save takes a file name",
        "load takes a file name",
        "cannot read /no/such/file",
        "cannot write /no/such/dir/f",
        "eval takes on or off",
        "commands:",
        "hint: play",
        "eval: ",
        "predicted final score",
        "eval off",
        "South is now human, North human",
    ] {
        assert!(t.contains(needle), "'{needle}' missing from:\n{t}");
    }
    assert_eq!(report["games"][0]["plies"], 1);
}

#[test]
fn the_end_of_the_input_stops_the_game_as_unfinished() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.txt");
    let (report, t) = play_json(
        dir.path(),
        &["--depth", "2", "--record", rec.to_str().unwrap()],
        "1\n",
    );
    assert!(t.contains("(end of input)"));
    assert_eq!(report["games"][0]["end"], "unfinished");
    let r = &records(&rec)[0];
    assert_eq!(r.termination, Termination::Unfinished);
    assert_eq!(r.plies[0].to_string(), "S1");
}

#[test]
fn without_record_the_game_goes_to_the_games_folder() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _) = play_json(dir.path(), &["--south", "random", "--north", "random"], "");
    let files: Vec<_> = std::fs::read_dir(dir.path().join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let path = report["record"].as_str().unwrap();
    assert!(path.starts_with("games/"), "{path}");
    replays_to_report(&records(&files[0]), &report);
}

#[test]
fn a_hoyito3_match_alternates_starts_and_gives_the_last_four_to_the_previous_winner() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("match.txt");
    let (report, t) = play_json(
        dir.path(),
        &[
            "--variant",
            "hoyito3",
            "--match",
            "5",
            "--south",
            "random",
            "--north",
            "engine",
            "--level",
            "1",
            "--seed",
            "3",
            "--record",
            rec.to_str().unwrap(),
        ],
        "",
    );
    let recs = records(&rec);
    replays_to_report(&recs, &report);
    assert_eq!(recs.len(), 5);
    let mut previous: Option<Winner> = None;
    let (mut wins, mut draws, mut seeds) = ([0u64; 2], 0, [0u64; 2]);
    for (i, r) in recs.iter().enumerate() {
        let round = i as u32 + 1;
        assert_eq!(r.round, Some(round));
        assert!(r
            .match_name
            .as_deref()
            .unwrap()
            .starts_with("match of 5 rounds"));
        // South starts the odd rounds, North the even ones, from the standard start.
        let start = r.start.to_string();
        let side = if round % 2 == 1 { "S" } else { "N" };
        assert_eq!(start, format!("4,4,4,4,4,4/4,4,4,4,4,4 {side} 0-0"));
        let want = match (round, previous) {
            (3.., Some(Winner::Side(Side::South))) => "S",
            (3.., Some(Winner::Side(Side::North))) => "N",
            _ => "capturer",
        };
        assert_eq!(r.rules.last_four().to_string(), want, "round {round}");
        assert!(t.contains(&format!("round {round} of 5")));
        previous = r.winner();
        match previous.unwrap() {
            Winner::Side(s) => wins[s.index()] += 1,
            Winner::Draw => draws += 1,
        }
        seeds[0] += r.score[0] as u64;
        seeds[1] += r.score[1] as u64;
    }
    let m = &report["match"];
    assert_eq!(m["wins"], serde_json::json!(wins));
    assert_eq!(m["draws"], draws);
    assert_eq!(m["seeds"], serde_json::json!(seeds));
    let winner = match (wins[0].cmp(&wins[1])).then(seeds[0].cmp(&seeds[1])) {
        std::cmp::Ordering::Greater => "S",
        std::cmp::Ordering::Less => "N",
        std::cmp::Ordering::Equal => "draw",
    };
    assert_eq!(m["winner"], winner);
    assert_eq!(t.matches("match after").count(), 5);
}

#[test]
fn random_matches_repeat_for_a_seed() {
    let dir = tempfile::tempdir().unwrap();
    let texts: Vec<Vec<Record>> = (0..2)
        .map(|i| {
            let rec = dir.path().join(format!("m{i}.txt"));
            play_json(
                dir.path(),
                &[
                    "--variant",
                    "hoyito3",
                    "--match",
                    "3",
                    "--south",
                    "random",
                    "--north",
                    "random",
                    "--seed",
                    "11",
                    "--record",
                    rec.to_str().unwrap(),
                ],
                "",
            );
            undated(&rec)
        })
        .collect();
    assert_eq!(texts[0], texts[1]);
}

#[test]
fn bad_arguments_fail_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let missing = d.join("missing.txt");
    let bad_record = d.join("bad.txt");
    std::fs::write(&bad_record, "S1 S2 *\n").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--level", "6"], "1 to 5 or perfect"),
        (vec!["--level", "0"], "--level"),
        (vec!["--depth", "0"], "--depth"),
        (vec!["--south", "robot"], "robot"),
        (vec!["--match", "3"], "--variant hoyito3"),
        (vec!["--variant", "hoyito3", "--match", "0"], "--match"),
        (
            vec!["--variant", "hoyito3", "--last-four", "S", "--match", "2"],
            "--last-four",
        ),
        (vec!["--load", missing.to_str().unwrap()], "cannot read"),
        (
            vec!["--load", bad_record.to_str().unwrap()],
            "line 1, column 4",
        ),
        (vec!["--record", "/no/such/dir/game.txt"], "does not exist"),
        (vec!["4,4,4,4,4/4,4,4,4,4,4 S"], "position"),
        (vec!["--depth", "3", "--level", "2"], "cannot be used"),
        (vec!["--tables", "/no/such/tables"], "no such folder"),
    ];
    for (args, needle) in cases {
        let (ok, out, err) = play_in(d, &args, "quit\n");
        assert!(!ok, "solve play {args:?} should fail");
        assert!(out.is_empty(), "nothing on stdout for {args:?}: {out}");
        assert!(
            err.contains(needle),
            "stderr of {args:?} should mention '{needle}': {err}"
        );
    }
    assert!(!d.join("games").exists(), "no game was recorded");
}

#[test]
fn a_small_position_is_played_perfectly_by_the_exact_engine() {
    // Both sides play exact moves from a small position: the final margin equals the value
    // `solve best --exact` gives.
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.txt");
    let pos = "0,1,0,2,0,1/1,0,2,0,1,0 S";
    let best = common::json(&["best", "--exact", pos]);
    let (report, _) = play_json(
        dir.path(),
        &[
            "--south",
            "engine",
            "--north",
            "engine",
            "--exact",
            "--record",
            rec.to_str().unwrap(),
            pos,
        ],
        "",
    );
    let score = &report["games"][0]["score"];
    let margin = score[0].as_i64().unwrap() - score[1].as_i64().unwrap();
    assert_eq!(margin, best["score"].as_i64().unwrap());
    replays_to_report(&records(&rec), &report);
}

#[test]
fn undo_against_the_engine_goes_back_over_its_extra_turns() {
    // From the start South plays 1 and North (depth 4) answers with a run of captures and
    // extra turns; one undo takes all of them back with South's move.
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.txt");
    let args = ["--depth", "4", "--record", rec.to_str().unwrap()];
    let (report, t) = play_json(dir.path(), &args, "1\nundo\nquit\n");
    assert_eq!(report["games"][0]["plies"], 0, "{t}");
    let taken: usize = t
        .split("took back ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no undo in {t}"));
    let engine_plies = t.matches("North plays").count();
    assert!(engine_plies > 1, "North moved more than once: {t}");
    assert_eq!(taken, 1 + engine_plies);
    // Redo plays them all again, up to South's turn.
    let (report, t) = play_json(dir.path(), &args, "1\nundo\nredo\nquit\n");
    assert!(t.contains(&format!("replayed {taken} plies")), "{t}");
    assert_eq!(report["games"][0]["plies"], taken);
    let r = &records(&rec)[0];
    assert_eq!(r.plies.len(), taken);
    // The engine's notes came back with its moves.
    assert!(r.plies[1..].iter().all(|p| p.note.is_some()));
}

#[test]
fn from_level_3_the_engine_plays_perfectly_inside_the_tables() {
    let tables = common::built_tables("8");
    let t = tables.path().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for pos in ["0,1,0,2,0,1/1,0,2,0,1,0 S", "1,0,0,3,0,0/0,2,0,0,1,1 N"] {
        let best = common::json(&["best", "--exact", "--no-tables", pos]);
        for level in ["3", "4", "5"] {
            let rec = dir.path().join(format!("l{level}.txt"));
            let (report, _) = play_json(
                dir.path(),
                &[
                    "--south",
                    "engine",
                    "--north",
                    "engine",
                    "--level",
                    level,
                    "--tables",
                    t,
                    "--record",
                    rec.to_str().unwrap(),
                    pos,
                ],
                "",
            );
            let score = &report["games"][0]["score"];
            let margin = score[0].as_i64().unwrap() - score[1].as_i64().unwrap();
            let mover = if pos.ends_with('S') { 1 } else { -1 };
            assert_eq!(
                margin * mover,
                best["score"].as_i64().unwrap(),
                "level {level} from {pos}"
            );
            // Every engine move inside the tables is noted as exact.
            let r = &records(&rec)[0];
            assert!(r.plies.iter().all(|p| p.note.as_ref().unwrap().exact));
        }
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_records_the_game_so_far() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .args(["play", "--south", "human", "--north", "human", "--record"])
        .arg(&rec)
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"1\n").unwrap();
    stdin.flush().unwrap();
    // Wait for North's prompt: South's move is played.
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !String::from_utf8_lossy(&seen).contains("North> ") {
        assert_eq!(stdout.read(&mut byte).unwrap(), 1, "the game goes on");
        seen.push(byte[0]);
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    if !killed.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no kill command to send Ctrl-C");
        let _ = child.kill();
        let _ = child.wait();
        return;
    }
    let status = child.wait().unwrap();
    drop(stdin);
    assert_eq!(status.code(), Some(130));
    let r = &records(&rec)[0];
    assert_eq!(r.termination, Termination::Unfinished);
    let moves: Vec<String> = r.plies.iter().map(|p| p.to_string()).collect();
    assert_eq!(moves, ["S1"]);
}

/// Runs `solve play` for two people in a pseudo-terminal (util-linux `script`) with `env`
/// settings, typing `1` and `quit`: its output, or `None` where `script` is missing.
fn in_terminal(dir: &Path, env: &str) -> Option<String> {
    let cmd = format!(
        "env {env} {} play --south human --north human --record {}",
        env!("CARGO_BIN_EXE_solve"),
        dir.join("t.txt").display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let _ = child.stdin.take().unwrap().write_all(b"1\nquit\n");
    let out = child.wait_with_output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn colour_only_on_a_terminal_without_no_color() {
    let dir = tempfile::tempdir().unwrap();
    let Some(coloured) = in_terminal(dir.path(), "-u NO_COLOR") else {
        eprintln!("skipped: no `script` command to run a pseudo-terminal");
        return;
    };
    // The start hole in cyan, the landing hole in bold yellow.
    assert!(coloured.contains("\u{1b}[36m  2^\u{1b}[0m"), "{coloured}");
    assert!(coloured.contains("\u{1b}[1;33m  1*\u{1b}[0m"), "{coloured}");
    let plain = in_terminal(dir.path(), "NO_COLOR=1").unwrap();
    assert!(plain.contains("South plays S1"), "{plain}");
    assert!(!plain.contains("\u{1b}["), "{plain}");
    // Piped output has no colour, NO_COLOR or not.
    let piped = Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .args(["play", "--south", "random", "--north", "random", "--record"])
        .arg(dir.path().join("p.txt"))
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(piped.status.success());
    let text = String::from_utf8_lossy(&piped.stdout);
    assert!(text.contains("game over"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text}");
}

/// The golden transcript of a scripted game against the depth-2 engine.
const GOLDEN: &str = "tests/golden/play-depth2.txt";

#[test]
fn a_scripted_game_prints_the_golden_transcript() {
    // One thread, a depth limit and a clean table for each move: the same moves and the same
    // text every time. Regenerate with UPDATE_GOLDEN=1 after a deliberate change of output.
    let dir = tempfile::tempdir().unwrap();
    let script = "1\nhint\nanalyse\nmoves\nundo\nredo\neval on\n2\n3\n4\n5\n6\n1\nquit\n";
    let (ok, out, err) = play_in(dir.path(), &["--depth", "2", "--record", "g.txt"], script);
    assert!(ok, "{err}");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &out).unwrap();
    }
    let want = std::fs::read_to_string(&golden).unwrap();
    assert!(
        out == want,
        "the transcript differs from {GOLDEN} (UPDATE_GOLDEN=1 rewrites it):\n{out}"
    );
}

/// A board of 48 seeds that no game from the start reaches: neither the opening book nor a
/// certificate knows it.
const OFF_THE_PROOFS: &str = "3,5,4,4,4,4/4,4,4,4,4,4 S";

/// `stop` as many times as a scripted game may need, then `quit`: each think of the engine
/// takes one `stop`; those left are read at the person's prompt, where nothing thinks.
fn stops_then_quit() -> String {
    "stop\n".repeat(40) + "quit\n"
}

#[test]
fn stop_typed_while_the_engine_thinks_makes_it_move_now() {
    let dir = tempfile::tempdir().unwrap();
    // An exact search of a full board off the proofs (no game from the start reaches it)
    // would not end within any test: only `stop` ends it.
    let args = [
        OFF_THE_PROOFS,
        "--south",
        "engine",
        "--north",
        "human",
        "--exact",
        "--record",
        "g.txt",
    ];
    let (ok, out, err) = play_in(dir.path(), &args, stops_then_quit());
    assert!(ok, "{err}");
    assert!(out.contains("South thinks (type stop"), "{out}");
    assert!(out.contains("stop: the engine moves now"), "{out}");
    assert!(out.contains("stop: the engine is not thinking"), "{out}");
    let r = &records(&dir.path().join("g.txt"))[0];
    assert_eq!(r.termination, Termination::Unfinished);
    assert!(!r.plies.is_empty());
    // Every move is the engine's (North quit at its first prompt), each stopped, none exact.
    for p in &r.plies {
        assert_eq!(p.to_string().chars().next(), Some('S'), "{r}");
        let note = p.note.as_ref().unwrap();
        assert_eq!(note.text, "stopped", "{r}");
        assert!(!note.exact, "{r}");
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_while_the_engine_thinks_makes_it_move_and_at_the_prompt_quits() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .args([
            "play",
            OFF_THE_PROOFS,
            "--south",
            "engine",
            "--north",
            "human",
        ])
        .arg("--exact")
        .arg("--record")
        .arg(&rec)
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    // Reads the transcript until `done` accepts it.
    let mut read_until = |done: &dyn Fn(&str) -> bool, seen: &mut Vec<u8>| {
        let mut byte = [0u8; 1];
        while !done(&String::from_utf8_lossy(seen)) {
            assert_eq!(
                stdout.read(&mut byte).unwrap(),
                1,
                "the game goes on: {seen:?}"
            );
            seen.push(byte[0]);
        }
        String::from_utf8_lossy(seen).into_owned()
    };
    let interrupt = || {
        Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success())
    };
    // The engine thinks on a full board off the proofs with an exact search: only Ctrl-C
    // makes it move.
    read_until(&|t| t.contains("South thinks"), &mut seen);
    if !interrupt() {
        eprintln!("skipped: no kill command to send Ctrl-C");
        let _ = child.kill();
        let _ = child.wait();
        return;
    }
    // It moved (as often as it had turns), and North is asked; Ctrl-C there quits.
    let mut thinks = 1;
    loop {
        let text = read_until(
            &|t| t.ends_with("North> ") || t.matches("South thinks").count() > thinks,
            &mut seen,
        );
        if text.ends_with("North> ") {
            break;
        }
        // An extra turn: the engine thinks again.
        thinks += 1;
        assert!(interrupt());
    }
    assert!(interrupt());
    let status = child.wait().unwrap();
    drop(stdin);
    assert_eq!(status.code(), Some(130));
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("stop: the engine moves now"), "{err}");
    assert!(err.contains("interrupted: the game is recorded"), "{err}");
    let r = &records(&rec)[0];
    assert_eq!(r.termination, Termination::Unfinished);
    assert!(!r.plies.is_empty());
    for p in &r.plies {
        let note = p.note.as_ref().unwrap();
        assert_eq!(note.text, "stopped", "{r}");
        assert!(!note.exact, "{r}");
    }
}

#[test]
fn each_side_plays_at_its_own_strength() {
    // South searches 1 ply and North 4 (one thread, a clean table each move): every move
    // of the game is the one `solve best` finds at the depth of its side.
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.txt");
    let (report, _) = play_json(
        dir.path(),
        &[
            "--south",
            "engine",
            "--north",
            "engine",
            "--level",
            "5",
            "--south-depth",
            "1",
            "--north-depth",
            "4",
            "--record",
            rec.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(report["games"][0]["south"], "engine depth 1");
    assert_eq!(report["games"][0]["north"], "engine depth 4");
    let r = &records(&rec)[0];
    let full = r.game::<6>().unwrap();
    let mut game = Game::new(*full.rules(), full.positions()[0]);
    for &mv in full.moves() {
        let p = game.position();
        let depth = if p.side_to_move() == Side::South {
            "1"
        } else {
            "4"
        };
        let text = p.to_string();
        let best = common::json(&[
            "best",
            "--depth",
            depth,
            "--threads",
            "1",
            "--no-tables",
            &text,
        ]);
        assert_eq!(
            best["move"].as_u64(),
            Some(mv.0 as u64),
            "{text} at depth {depth}"
        );
        game.play(mv).unwrap();
    }
    // A level for one side and the default for the other; a side's strength needs an
    // engine on that side.
    let (report, _) = play_json(
        dir.path(),
        &[
            "--south",
            "engine",
            "--north",
            "engine",
            "--depth",
            "2",
            "--north-level",
            "1",
            "--record",
            "h.txt",
        ],
        "",
    );
    assert_eq!(report["games"][0]["south"], "engine depth 2");
    assert_eq!(report["games"][0]["north"], "engine level 1");
    for (args, needle) in [
        (vec!["--south-level", "2"], "add --south engine"),
        (
            vec!["--north", "human", "--north-depth", "3"],
            "add --north engine",
        ),
        (
            vec!["--south", "engine", "--south-depth", "0"],
            "--south-depth must be at least 1",
        ),
        (
            vec!["--north-time-ms", "0"],
            "--north-time-ms must be at least 1",
        ),
        (vec!["--north-level", "6"], "--north-level"),
        (
            vec![
                "--south",
                "engine",
                "--south-level",
                "2",
                "--south-depth",
                "3",
            ],
            "cannot be used",
        ),
    ] {
        let (ok, out, err) = play_in(dir.path(), &args, "quit\n");
        assert!(!ok, "solve play {args:?} should fail");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(
            err.contains(needle),
            "{args:?} should mention '{needle}': {err}"
        );
    }
}

/// `hint` asks the one analysis policy: at the start, the opening book's proven value,
/// as `solve best` answers it.
#[test]
fn hint_at_the_start_gives_the_books_proven_value() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, out, err) = play_in(dir.path(), &["--depth", "2"], "hint\nquit\n");
    assert!(ok, "{err}");
    let best = common::json(&["best"]);
    let line = out.lines().find(|l| l.contains("hint: play")).unwrap();
    assert_eq!(
        line.trim_start_matches(|c: char| c != 'h'),
        format!(
            "hint: play {} (value {:+}, exact)",
            best["move"], best["score"]
        ),
        "{out}"
    );
}

/// The tally of a match is said once at its end: the transcript's last round already says
/// it, and the closing report does not repeat it.
#[test]
fn a_match_tally_is_said_once_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("match.txt");
    let args = [
        "--variant",
        "hoyito3",
        "--match",
        "2",
        "--south",
        "random",
        "--north",
        "random",
        "--record",
        rec.to_str().unwrap(),
    ];
    let (ok, out, err) = play_in(dir.path(), &args, "");
    assert!(ok, "{err}");
    let last = out
        .lines()
        .filter(|l| l.starts_with("match after 2 of 2 rounds"))
        .count();
    assert_eq!(last, 1, "{out}");
}

#[test]
fn the_perfect_level_plays_the_proven_moves_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    // South (a person) plays the proven 1; North plays perfectly: each of its moves comes
    // from the book or the certificates at once, with its exact value. North captures six
    // times in a row, down to 24 seeds and still to move, out of the certificates (into the
    // tables they stand on): there it thinks, is stopped, and South quits.
    let args = [
        "--south", "human", "--north", "engine", "--level", "perfect", "--record", "g.txt",
    ];
    let (ok, out, err) = play_in(dir.path(), &args, "1\nstop\nquit\n");
    assert!(ok, "{err}");
    let r = &records(&dir.path().join("g.txt"))[0];
    let north: Vec<String> = r.plies[1..7].iter().map(|p| p.to_string()).collect();
    let holes: Vec<&str> = north.iter().map(|p| &p[..2]).collect();
    assert_eq!(holes, ["N6", "N4", "N6", "N1", "N1", "N2"], "{r}");
    // North's value from each position on: the start's 28 less what it has taken.
    for (ply, value) in r.plies[1..7].iter().zip([28, 24, 20, 16, 12, 8]) {
        let note = ply.note.as_ref().unwrap();
        assert!(note.exact, "{r}");
        assert_eq!(note.value, Some(value), "{r}");
    }
    assert_eq!(out.matches("North thinks").count(), 1, "{out}");
}
