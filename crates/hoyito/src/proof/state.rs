//! The state folder of a proof run: the file that names the run and the record of the claims
//! proven so far, from which a stopped run resumes; and a writer that hashes what it writes.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use sha2::{Digest, Sha256};

/// The file of the state folder that names the run (rules, position, tables).
pub(super) const STATE_FILE: &str = "state.txt";
/// The file of the state folder that holds the claims proven so far.
pub(super) const RECORD_FILE: &str = "claims.bin";

/// The state folder: its record of claims (opened for appending), the claims it held, and
/// whether it is a temporary one.
pub(super) struct State {
    pub(super) dir: PathBuf,
    pub(super) temporary: bool,
    pub(super) record: File,
}

impl State {
    /// Opens (or starts) the state of the run named by `name` in `dir`, a fresh temporary
    /// folder when `None`. Returns the state and the record's bytes so far.
    pub(super) fn open(dir: Option<&Path>, name: &str) -> Result<(State, PathBuf)> {
        let (dir, temporary) = match dir {
            Some(d) => (d.to_path_buf(), false),
            None => {
                let d = std::env::temp_dir().join(format!(
                    "hoyito-prove-{}-{}",
                    std::process::id(),
                    Instant::now().elapsed().as_nanos()
                ));
                (d, true)
            }
        };
        fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the state folder {}", dir.display()))?;
        let state = dir.join(STATE_FILE);
        match fs::read_to_string(&state) {
            Ok(text) if text == name => {}
            Ok(_) => bail!(
                "the state folder {} holds another run (other rules, position or tables: see {}); give another --state",
                dir.display(),
                state.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if dir.join(RECORD_FILE).exists() {
                    bail!(
                        "{} has a record of claims but no {STATE_FILE}: not a state folder of `solve prove`",
                        dir.display()
                    );
                }
                fs::write(&state, name)
                    .with_context(|| format!("cannot write {}", state.display()))?;
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", state.display())),
        }
        let path = dir.join(RECORD_FILE);
        let record = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok((
            State {
                dir,
                temporary,
                record,
            },
            path,
        ))
    }
}

impl Drop for State {
    fn drop(&mut self) {
        if self.temporary {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

/// A writer that hashes what it writes.
pub(super) struct Hashing<W: Write> {
    pub(super) inner: W,
    pub(super) hash: Sha256,
    pub(super) bytes: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
