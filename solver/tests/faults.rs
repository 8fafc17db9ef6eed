//! Faults during long work: `solve tables build` killed with SIGKILL, or stopped with SIGINT
//! (Ctrl-C), at random moments resumes and finishes with the same tables as an
//! uninterrupted build; a table file changed
//! on disk after its build (a flipped byte, a cut, another rule set's file renamed into
//! place) is reported by `best`, `tables probe` and `tables verify`, naming the file, and
//! never used for an answer.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

mod common;

use common::{built_tables, lines, ok, solve};
use hoyito_tables::Layer;

/// The folder of the default rules' layer files under `dir`.
fn folder(dir: &Path) -> PathBuf {
    dir.join("2x6-hoyito2-capturer-any")
}

/// The layer files of `dir` (default rules), by name.
fn layer_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder(dir))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("layer-") && n.ends_with(".hyt"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The build command of the kill test: layers up to 12 seeds, one thread.
fn build_command(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_solve"));
    c.args(["tables", "--dir", dir.to_str().unwrap(), "build"])
        .args(["--max-seeds", "12", "--threads", "1", "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// A small xorshift generator: the kill times (its seed is printed, to rerun a failure).
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// Sends SIGINT (what Ctrl-C sends) to a child process.
#[cfg(unix)]
fn interrupt(child: &std::process::Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// The payloads of the layer files of `dir` are those of `reference` (the headers differ
/// only in the build time).
fn same_payloads(reference: &Path, dir: &Path) {
    let expected = layer_files(reference);
    assert_eq!(layer_files(dir), expected);
    for name in &expected {
        let a = std::fs::read(folder(reference).join(name)).unwrap();
        let b = std::fs::read(folder(dir).join(name)).unwrap();
        let ha = Layer::read_header(&folder(reference).join(name)).unwrap();
        let hb = Layer::read_header(&folder(dir).join(name)).unwrap();
        assert_eq!(ha.payload_checksum, hb.payload_checksum, "{name}");
        assert_eq!(a[ha.len()..], b[hb.len()..], "{name}");
        assert_eq!(ha.histogram, hb.histogram, "{name}");
    }
}

#[test]
fn build_killed_at_random_moments_resumes_to_the_same_tables() {
    // The reference: one uninterrupted build, timed.
    let reference = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let status = build_command(reference.path()).status().unwrap();
    assert!(status.success());
    let mut full = t0.elapsed();
    let expected = layer_files(reference.path());
    assert_eq!(expected.last().map(String::as_str), Some("layer-12.hyt"));

    let seed = std::env::var("HOYITO_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("kill times from HOYITO_KILL_SEED={seed}; uninterrupted build {full:?}");
    let mut rng = Xorshift(seed);

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let (mut killed, mut finished) = (0, 0);
    for _ in 0..200 {
        if killed >= 25 {
            break;
        }
        let mut child = build_command(dir.path()).spawn().unwrap();
        let started = Instant::now();
        let at = Duration::from_micros(rng.below(full.as_micros() as u64 + 1));
        let mut ended = None;
        while started.elapsed() < at {
            if child.try_wait().unwrap().is_some() {
                ended = Some(started.elapsed());
                break;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        match ended {
            None if child.try_wait().unwrap().is_none() => {
                child.kill().unwrap(); // SIGKILL
                killed += 1;
            }
            _ => {
                finished += 1;
                // A whole build takes no longer than this one did: draw the next kill times
                // in that span.
                if let Some(t) = ended {
                    full = full.min(t);
                }
                // Take the largest layer away so that the next runs have work to be
                // killed in.
                std::fs::remove_file(folder(dir.path()).join("layer-12.hyt")).unwrap();
            }
        }
        child.wait().unwrap();
        // Whatever the kill left, every layer file present is whole: the tables open.
        let info = solve(&["tables", "--dir", d, "info", "--json"]);
        assert!(
            info.status.success(),
            "after kill {killed}: {}",
            String::from_utf8_lossy(&info.stderr)
        );
    }
    eprintln!("{killed} builds killed, {finished} finished before their kill");
    assert!(killed >= 20, "only {killed} kills landed during a build");

    // The build resumes and finishes.
    let status = build_command(dir.path()).status().unwrap();
    assert!(status.success());
    same_payloads(reference.path(), dir.path());
    // No scratch file is left once the build has finished.
    let left: Vec<String> = std::fs::read_dir(folder(dir.path()))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !expected.contains(n))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    let verified = lines(&ok(&["tables", "--dir", d, "verify", "--json"]));
    assert_eq!(verified.len(), expected.len());
    for v in &verified {
        assert_eq!(v["failed"], serde_json::json!([]), "{v}");
    }
}

/// `solve tables build` stopped by SIGINT at random moments of a build: it exits non-zero
/// saying it was interrupted, leaves no scratch file (no `.moves` folder, no `.tmp` file),
/// every layer file present is whole, and the next run resumes and ends with the payloads of
/// an uninterrupted build.
#[cfg(unix)]
#[test]
fn build_interrupted_by_ctrl_c_stops_cleanly_and_resumes() {
    use std::io::BufRead as _;

    let reference = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let status = build_command(reference.path()).status().unwrap();
    assert!(status.success());
    let full = t0.elapsed();

    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("interrupt times from seed {seed}; uninterrupted build {full:?}");
    let mut rng = Xorshift(seed);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let (mut interrupted, mut finished) = (0, 0);
    for _ in 0..40 {
        if interrupted >= 5 {
            break;
        }
        let mut child = build_command(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The first layer reported on stdout (built or found) shows the handler is in place.
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        let drain = std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        std::thread::sleep(Duration::from_micros(
            rng.below(full.as_micros() as u64 + 1),
        ));
        interrupt(&child);
        let result = child.wait_with_output().unwrap();
        drain.join().unwrap().unwrap();
        let stderr = String::from_utf8_lossy(&result.stderr);
        if result.status.success() {
            finished += 1;
            std::fs::remove_file(folder(dir.path()).join("layer-12.hyt")).unwrap();
        } else {
            assert_eq!(result.status.code(), Some(1), "{stderr}");
            assert!(stderr.contains("interrupted"), "{stderr}");
            assert!(!stderr.contains("panicked"), "{stderr}");
            interrupted += 1;
        }
        let left: Vec<String> = std::fs::read_dir(folder(dir.path()))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !(n.starts_with("layer-") && n.ends_with(".hyt")))
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
        let info = solve(&["tables", "--dir", d, "info", "--json"]);
        assert!(
            info.status.success(),
            "{}",
            String::from_utf8_lossy(&info.stderr)
        );
    }
    eprintln!("{interrupted} builds interrupted, {finished} finished before the signal");
    assert!(
        interrupted >= 3,
        "only {interrupted} interrupts landed during a build"
    );
    let status = build_command(dir.path()).status().unwrap();
    assert!(status.success());
    same_payloads(reference.path(), dir.path());
}

/// The ways a table file is changed on disk in [`changed_files_are_named_and_never_used`]:
/// a name and the bytes put in place of the 8-seed layer, from its good bytes, the 8-seed
/// layer of Hoyito III and the 12-seed layer.
fn changed_files(good: &[u8], foreign: &[u8], larger: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let n = good.len();
    // A flipped byte: in the magic, version, rules, counts, checksums, histogram, header
    // checksum, and over the payload.
    for at in [
        0,
        9,
        13,
        21,
        30,
        44,
        60,
        80,
        120,
        130,
        n / 3,
        n / 2,
        n - 2,
        n - 1,
    ] {
        let mut b = good.to_vec();
        b[at] ^= 0xff;
        out.push((format!("byte {at} of {n} flipped"), b));
    }
    for len in [0, 7, 71, 140, n / 2, n - 1] {
        out.push((format!("cut to {len} bytes"), good[..len].to_vec()));
    }
    let mut longer = good.to_vec();
    longer.push(0);
    out.push(("one byte added".into(), longer));
    out.push(("Hoyito III's file".into(), foreign.to_vec()));
    out.push(("the 12-seed file".into(), larger.to_vec()));
    out
}

#[test]
fn changed_files_are_named_and_never_used() {
    let dir = built_tables("12");
    let d = dir.path().to_str().unwrap();
    let file = folder(dir.path()).join("layer-08.hyt");
    let good = std::fs::read(&file).unwrap();
    let larger = std::fs::read(folder(dir.path()).join("layer-12.hyt")).unwrap();
    let other = tempfile::tempdir().unwrap();
    ok(&[
        "tables",
        "--dir",
        other.path().to_str().unwrap(),
        "build",
        "--max-seeds",
        "8",
        "--variant",
        "hoyito3",
        "--quiet",
    ]);
    let foreign = std::fs::read(
        other
            .path()
            .join("2x6-hoyito3-capturer-any")
            .join("layer-08.hyt"),
    )
    .unwrap();

    // A position of the 8-seed layer.
    let p = "0,0,0,0,0,1/3,0,0,0,0,4 S";
    let commands: [&[&str]; 3] = [
        &["best", "--tables", d, "--threads", "1", "--depth", "4", p],
        &["tables", "--dir", d, "probe", p],
        &["tables", "--dir", d, "verify"],
    ];
    let cases = changed_files(&good, &foreign, &larger);
    let mut tried = 0;
    for (what, bytes) in &cases {
        std::fs::write(&file, bytes).unwrap();
        for args in commands {
            tried += 1;
            let out = solve(args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{what}: solve {args:?} succeeded");
            assert!(
                out.stdout.is_empty(),
                "{what}: solve {args:?} printed an answer"
            );
            assert!(
                err.contains("layer-08.hyt"),
                "{what}: solve {args:?} does not name the file: {err}"
            );
            assert!(!err.contains("panicked"), "{what}: {err}");
        }
    }
    eprintln!("{tried} of {tried} runs on changed files detected the change");
    // The good file back: every command answers again.
    std::fs::write(&file, &good).unwrap();
    for args in commands {
        ok(args);
    }
}
