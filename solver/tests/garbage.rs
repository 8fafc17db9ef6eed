//! Every subcommand given malformed input: a non-zero exit, nothing on standard output, a
//! message on standard error that names what is wrong, and never a panic. The invocations
//! are generated from lists below and run on a few threads at once.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Longest an invocation may run: garbage must be refused before any work starts.
const LIMIT: Duration = Duration::from_secs(30);

/// One malformed invocation: its arguments, what it reads on standard input, and a word
/// the error message must contain (compared without case).
struct Case {
    args: Vec<String>,
    stdin: Option<String>,
    needle: String,
}

fn case(args: &[&str], needle: &str) -> Case {
    Case {
        args: args.iter().map(|s| s.to_string()).collect(),
        stdin: None,
        needle: needle.to_string(),
    }
}

/// Malformed positions, and a word of the message each must give.
const POSITIONS: &[(&str, &str)] = &[
    ("", "position"),
    ("/", "position"),
    ("//", "position"),
    ("S", "position"),
    ("4,4,4,4,4/4,4,4,4,4,4 S", "position"),
    ("4,4,4,4,4,4/4,4,4,4,4,4,4 S", "position"),
    ("4,4,4,4,4,4/4,4,4,4,4 S 0-0", "position"),
    ("a,b,c,d,e,f/4,4,4,4,4,4 S", "position"),
    ("-4,4,4,4,4,4/4,4,4,4,4,4 S", "position"),
    ("99999999999999999999,0,0,0,0,0/0,0,0,0,0,0 S", "position"),
    ("4,4,4,4,4,4/4,4,4,4,4,4 X", "position"),
    ("4,4,4,4,4,4/4,4,4,4,4,4", "position"),
    ("4,4,4,4,4,4/4,4,4,4,4,4 S 0-", "position"),
    ("4,4,4,4,4,4/4,4,4,4,4,4 S x-y", "position"),
    (
        "4,4,4,4,4,4/4,4,4,4,4,4 S 99999999999999999999-0",
        "position",
    ),
    ("4,4,4,4,4,4/4,4,4,4,4,4 S 0-0 extra", "position"),
    ("4,4,4,4,4,4/4,4,4,4,4,4 S 1-0", "seeds"),
    ("49,0,0,0,0,0/0,0,0,0,0,0 S", "seeds"),
    ("300,0,0,0,0,0/0,0,0,0,0,0 S", "seeds"),
    ("4,,4,4,4,4/4,4,4,4,4,4 S", "position"),
    ("/4,4,4,4,4,4 S", "position"),
    ("4,4,4,4,4,4/ S", "position"),
    ("４,4,4,4,4,4/4,4,4,4,4,4 S", "position"),
    ("♟♟♟♟♟♟/♟♟♟♟♟♟ S", "position"),
    ("4;4;4;4;4;4/4;4;4;4;4;4 S", "position"),
    (
        "4,4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4,4 S",
        "position",
    ),
    ("4/4 S", "position"),
];

/// Malformed moves after the start position of 2x6.
const MOVES: &[&str] = &[
    "0",
    "7",
    "13",
    "x",
    "-1",
    "99999999999999999999",
    "",
    "1.5",
    "S1",
];

/// Rule flags with malformed values (every subcommand takes them).
const RULES: &[(&str, &str)] = &[
    ("--holes=1", "holes"),
    ("--holes=13", "holes"),
    ("--holes=0", "holes"),
    ("--holes=-1", "holes"),
    ("--holes=abc", "holes"),
    ("--seeds=0", "seeds"),
    ("--seeds=9", "seeds"),
    ("--seeds=x", "seeds"),
    ("--variant=hoyito9", "variant"),
    ("--last-four=west", "last"),
    ("--capture-side=up", "capture"),
];

/// A subcommand (with the arguments it needs to be otherwise valid and quick) for the rule
/// flags and unknown flags.
const COMMANDS: &[&[&str]] = &[
    &["show"],
    &["moves"],
    &["apply", "start", "1"],
    &["perft", "--depth", "1"],
    &["best", "--depth", "1", "--threads", "1"],
    &["bench", "--depth", "1", "--threads", "1"],
    &["match", "--pairs", "1", "--depth", "1"],
    &["tables", "info"],
    &["tables", "probe", "4,0,0,0,0,0/0,0,0,0,0,1 S"],
    &["tables", "verify", "--samples", "1"],
    &["play", "--south", "random", "--north", "random"],
];

/// Numeric and choice flags with malformed values: the subcommand, then the flag and value
/// words, and the word the message must contain.
fn flag_cases(dir: &str) -> Vec<Case> {
    let mut v = Vec::new();
    let bad_u = ["abc", "-1", "", "1.5", "99999999999999999999999"];
    let mut numeric = |cmd: &[&str], flag: &str, extra: &[&str]| {
        // A negative number is a valid value of a signed flag.
        let signed = flag.ends_with("-row") || flag.ends_with("-mobility");
        for b in bad_u.iter().filter(|b| !signed || **b != "-1").chain(extra) {
            let mut a: Vec<&str> = cmd.to_vec();
            a.push(flag);
            a.push(b);
            v.push(case(&a, flag));
        }
    };
    numeric(&["perft"], "--depth", &[]);
    numeric(&["perft", "--depth", "1"], "--threads", &["0", "100000"]);
    numeric(&["best"], "--depth", &["0"]);
    numeric(&["best"], "--time-ms", &["0", "-5"]);
    numeric(&["best"], "--nodes", &["0"]);
    numeric(&["best", "--depth", "1"], "--threads", &["0", "100000"]);
    numeric(&["best", "--depth", "1"], "--hash-mb", &["0", "999999999"]);
    numeric(&["bench", "--depth", "1"], "--time-ms", &["0"]);
    numeric(&["play"], "--depth", &["0"]);
    numeric(&["play"], "--time-ms", &["0"]);
    numeric(&["play"], "--level", &["0", "6"]);
    numeric(&["play"], "--match", &["0"]);
    numeric(&["play"], "--threads", &["0", "100000"]);
    numeric(&["play"], "--hash-mb", &["0", "999999999"]);
    numeric(&["bench"], "--depth", &["0"]);
    numeric(&["bench"], "--fingerprint-depth", &["0"]);
    numeric(&["bench", "--depth", "1"], "--threads", &["0", "100000"]);
    numeric(&["bench", "--depth", "1"], "--hash-mb", &["0", "999999999"]);
    numeric(&["match", "--depth", "1"], "--pairs", &["0"]);
    let m = ["match", "--pairs", "1"];
    numeric(&m, "--time-ms", &["0"]);
    numeric(&m, "--depth", &["0"]);
    numeric(
        &["match", "--pairs", "1", "--depth", "1"],
        "--threads",
        &["0", "100000"],
    );
    numeric(
        &["match", "--pairs", "1", "--depth", "1"],
        "--hash-mb",
        &["0", "999999999"],
    );
    numeric(&["match", "--pairs", "1", "--depth", "1"], "--a-row", &[]);
    numeric(
        &["match", "--pairs", "1", "--depth", "1"],
        "--random-plies",
        &[],
    );
    numeric(
        &["match", "--pairs", "1", "--depth", "1"],
        "--max-plies",
        &["0"],
    );
    numeric(&["match", "--pairs", "1", "--depth", "1"], "--seed", &[]);
    numeric(
        &["match", "--pairs", "1", "--depth", "1"],
        "--dump-plies",
        &[],
    );
    let b = ["tables", "--dir", dir, "build"];
    numeric(&b, "--max-seeds", &["0", "3", "4", "99"]);
    numeric(
        &[&b[..], &["--max-seeds", "5"]].concat(),
        "--threads",
        &["0", "100000"],
    );
    numeric(
        &[&b[..], &["--max-seeds", "5"]].concat(),
        "--moves-at-sweep",
        &[],
    );
    numeric(
        &[&b[..], &["--max-seeds", "5"]].concat(),
        "--max-memory",
        &["0"],
    );
    let vf = ["tables", "--dir", dir, "verify"];
    numeric(&vf, "--samples", &[]);
    numeric(&vf, "--search", &[]);
    numeric(&vf, "--search-ms", &[]);
    numeric(&vf, "--layer", &[]);
    // Choices.
    v.push(case(&["best", "--table", "hash"], "--table"));
    v.push(case(&["best", "--exact-method", "guess"], "--exact-method"));
    v.push(case(
        &[
            "tables",
            "--dir",
            dir,
            "build",
            "--max-seeds",
            "5",
            "--method",
            "x",
        ],
        "--method",
    ));
    // Missing values and arguments.
    v.push(case(&["perft"], "--depth"));
    v.push(case(&["perft", "--depth"], "--depth"));
    v.push(case(&["best", "--depth"], "--depth"));
    v.push(case(&["apply"], "POSITION"));
    v.push(case(&["apply", "start"], "POSITION"));
    v.push(case(&["tables", "probe"], "POSITION"));
    v.push(case(&["tables", "build"], "--max-seeds"));
    v.push(case(&["tables"], "subcommand"));
    v.push(case(&["bench", "--suite"], "--suite"));
    v.push(case(&[], "subcommand"));
    v.push(case(&["frobnicate"], "frobnicate"));
    v.push(case(&["tables", "frobnicate"], "frobnicate"));
    // Conflicts.
    v.push(case(&["best", "--depth", "3", "--exact"], "--exact"));
    v.push(case(
        &["best", "--tables", dir, "--no-tables"],
        "--no-tables",
    ));
    v.push(case(&["bench", "--exact", "--depth", "2"], "--exact"));
    v.push(case(&["bench", "--exact", "--plain"], "--exact"));
    v.push(case(
        &["match", "--time-ms", "5", "--depth", "2"],
        "--depth",
    ));
    v.push(case(
        &["--holes", "8", "show", "4,4,4,4,4,4/4,4,4,4,4,4 S"],
        "--holes",
    ));
    v.push(case(
        &["--holes", "12", "best", "4,4,4,4,4,4/4,4,4,4,4,4 S"],
        "--holes",
    ));
    v
}

/// Every malformed invocation. `tmp` holds the files the cases point at.
fn cases(tmp: &Path) -> Vec<Case> {
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let missing = s(&tmp.join("no-such-folder"));
    let file = tmp.join("a-file");
    std::fs::write(&file, "not a folder\n").unwrap();
    let file = s(&file);
    let garbage_suite = tmp.join("suite.txt");
    std::fs::write(&garbage_suite, "# a suite\n4,4,4/4,4 S\n").unwrap();
    let garbage_suite = s(&garbage_suite);
    let binary_suite = tmp.join("binary.txt");
    std::fs::write(&binary_suite, [0xff, 0xfe, 0, 1, 2, 0x80, b'\n']).unwrap();
    let binary_suite = s(&binary_suite);
    let empty_suite = tmp.join("empty.txt");
    std::fs::write(&empty_suite, "# nothing\n").unwrap();
    let empty_suite = s(&empty_suite);
    // A folder with a garbage file where a layer should be, and one with an empty file.
    let bad_tables = tmp.join("bad-tables");
    let folder = bad_tables.join("2x6-hoyito2-capturer-any");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("layer-05.hyt"), b"HOYITO garbage, not a table").unwrap();
    let empty_tables = tmp.join("empty-tables");
    let folder = empty_tables.join("2x6-hoyito2-capturer-any");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("layer-05.hyt"), b"").unwrap();
    let (bad_tables, empty_tables) = (s(&bad_tables), s(&empty_tables));
    // Where a build may write (a fresh folder, so that nothing else sees it).
    let build_dir = s(&tmp.join("build"));

    let mut v = Vec::new();
    for &(p, needle) in POSITIONS {
        v.push(case(&["show", p], needle));
        v.push(case(&["moves", p], needle));
        v.push(case(&["apply", p, "1"], needle));
        v.push(case(&["perft", "--depth", "1", p], needle));
        v.push(case(&["best", "--depth", "1", "--threads", "1", p], needle));
        v.push(case(&["tables", "--dir", &missing, "probe", p], needle));
    }
    for m in MOVES {
        v.push(case(&["apply", "start", m], "move"));
        v.push(case(&["apply", "start", "1", m], "move"));
    }
    v.push(case(&["apply", "0,0,0,0,0,1/0,0,0,0,0,0 S", "1"], "move"));
    for cmd in COMMANDS {
        for &(flag, needle) in RULES {
            v.push(case(&[&[flag][..], cmd].concat(), needle));
        }
        v.push(case(&[cmd, &["--bogus"][..]].concat(), "--bogus"));
        v.push(case(&[cmd, &["--json=yes"][..]].concat(), "--json"));
    }
    v.extend(flag_cases(&build_dir));
    // Suites.
    for suite in [
        &missing,
        &file,
        &garbage_suite,
        &binary_suite,
        &empty_suite,
        &tmp.to_str().unwrap().to_string(),
    ] {
        let needle = if suite == &file { "position" } else { "" };
        v.push(case(
            &["bench", "--depth", "1", "--threads", "1", "--suite", suite],
            needle,
        ));
    }
    // Table folders: a file, a missing folder, garbage layers.
    for dir in [&file, &bad_tables, &empty_tables] {
        let name = if dir == &file { "a-file" } else { "layer-05" };
        v.push(case(
            &[
                "best",
                "--depth",
                "1",
                "--threads",
                "1",
                "--tables",
                dir,
                "1,1,1,1,0,0/0,0,0,0,0,1 S",
            ],
            name,
        ));
        v.push(case(
            &["tables", "--dir", dir, "probe", "1,1,1,1,0,0/0,0,0,0,0,1 S"],
            name,
        ));
        v.push(case(&["tables", "--dir", dir, "info"], name));
        v.push(case(
            &["tables", "--dir", dir, "verify", "--samples", "10"],
            name,
        ));
    }
    v.push(case(
        &[
            "tables",
            "--dir",
            &file,
            "build",
            "--max-seeds",
            "5",
            "--quiet",
        ],
        "a-file",
    ));
    v.push(case(
        &[
            "best",
            "--depth",
            "1",
            "--tables",
            &missing,
            "1,1,1,1,0,0/0,0,0,0,0,1 S",
        ],
        "no-such-folder",
    ));
    v.push(case(
        &[
            "tables",
            "--dir",
            &missing,
            "probe",
            "1,1,1,1,0,0/0,0,0,0,0,1 S",
        ],
        "no-such-folder",
    ));
    v.push(case(
        &["tables", "--dir", &missing, "verify"],
        "no-such-folder",
    ));
    v.push(case(
        &[
            "match",
            "--depth",
            "1",
            "--pairs",
            "1",
            "--dump",
            &s(&tmp.join("no/such/file")),
        ],
        "no/such",
    ));
    // Standard input.
    let stdin_garbage = [
        "",
        "\n",
        "garbage\n",
        "4,4,4/4 S\n",
        "4,0,0,0,0,0/0,0,0,0,0,1 S\n-\n",
        "\u{0}\u{1}\u{2}\n",
        "4,0,0,0,0,0/0,0,0,0,0,1 S\n49,0,0,0,0,0/0,0,0,0,0,0 S\n",
    ];
    for (i, text) in stdin_garbage.iter().enumerate() {
        for dir in [&missing, &bad_tables] {
            let mut c = case(&["tables", "--dir", dir, "probe", "-"], "");
            c.stdin = Some(text.to_string());
            let _ = i;
            v.push(c);
        }
    }
    let mut c = case(&["tables", "--dir", &missing, "probe", "-"], "");
    c.stdin = Some(String::from_utf8_lossy(&[0xff, 0xfe, 0x80, b'\n']).into_owned());
    v.push(c);
    v
}

/// Runs one case; `None` when it was handled well, else what went wrong.
fn check(c: &Case) -> Option<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_solve"))
        .env("HOYITO_CACHE", "off")
        .args(&c.args)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the solve binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let text = c.stdin.clone().unwrap_or_default();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(text.as_bytes());
    });
    let timed_out = !common::ended_within(&mut child, LIMIT);
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut wrong = Vec::new();
    if timed_out {
        wrong.push(format!("still running after {LIMIT:?}"));
    } else if out.status.success() {
        wrong.push("exit status 0".to_string());
    }
    if !stdout.is_empty() {
        wrong.push(format!(
            "stdout: {}",
            stdout.chars().take(200).collect::<String>()
        ));
    }
    if ["panicked", "RUST_BACKTRACE", "thread '"]
        .iter()
        .any(|p| stderr.contains(p))
        || out.status.code().is_none() && !timed_out
    {
        wrong.push("a panic or a crash".to_string());
    }
    if stderr.trim().is_empty() {
        wrong.push("no message".to_string());
    } else if !stderr.to_lowercase().contains(&c.needle.to_lowercase()) {
        wrong.push(format!("the message does not name '{}'", c.needle));
    }
    (!wrong.is_empty()).then(|| {
        format!(
            "solve {:?}{}: {}\n    stderr: {}",
            c.args,
            if c.stdin.is_some() {
                " (with stdin)"
            } else {
                ""
            },
            wrong.join("; "),
            stderr.chars().take(300).collect::<String>().trim_end()
        )
    })
}

#[test]
fn malformed_invocations_are_refused_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let all = cases(tmp.path());
    assert!(all.len() >= 200, "{} cases", all.len());
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 8);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(c) = all.get(i) else { break };
                if let Some(f) = check(c) {
                    failures.lock().unwrap().push((i, f));
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    let report: Vec<String> = failures.iter().map(|(_, f)| f.clone()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} malformed invocations were not handled well:\n{}",
        failures.len(),
        all.len(),
        report.join("\n")
    );
    eprintln!("{} malformed invocations handled well", all.len());
}

/// The memory the machine can give now, in MiB (Linux only).
fn available_mib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? / 1024)
}

#[test]
fn hash_sizes_beyond_the_machine_are_refused_before_the_search() {
    // Only where the largest table does not fit: elsewhere the command would allocate it.
    let Some(free) = available_mib().filter(|&f| f < 1 << 16) else {
        return;
    };
    let err = common::fails(&["best", "--depth", "1", "--hash-mb", "65536"], "--hash-mb");
    assert!(
        err.contains(&format!("{free}")) || err.contains("available"),
        "{err}"
    );
    // Four games at once are eight tables.
    let mb = (free / 4 + 1).to_string();
    let args = ["match", "--pairs", "4", "--threads", "4", "--hash-mb", &mb];
    common::fails(&args, "8 tables at once");
}
