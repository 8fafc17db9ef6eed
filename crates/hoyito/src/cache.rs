//! The small endgame tables, built once and kept in the user's cache folder.
//!
//! An exact answer on 2x6 stands on the endgame tables of the positions with few seeds left.
//! Without table files, every exact analysis used to build the layers up to 12 seeds in
//! memory (about half a second each time), and a proof without tables explored millions of
//! positions those layers settle at once. The layers up to [`CACHE_MAX_SEEDS`] seeds are
//! small (7 MB on disk for one set of rules) and quick to build (about 15 s on two cores,
//! once), so the library builds them the first time an exact answer needs them and keeps
//! them in the cache folder; later analyses and proofs read them in milliseconds.
//!
//! Why a cache and not tables inside the binary: the layers exist for every set of rules
//! (two variants, three last-four owners, two capture sides: twelve sets), 7 MB each up to
//! 16 seeds; shipping even the two standard sets would add 13 MB to the binary and the
//! repository, while building one set takes seconds and only the rules a user plays are
//! built.
//!
//! A proof of a position with more than [`PROOF_LAYER_FROM`] seeds also builds the 20-seed
//! layer into the cache ([`CACHE_PROOF_SEEDS`]: about 35 s more on two cores, once, and 42 MB
//! for one set of rules). Over it the Hoyito II start is proven in about 8 s, against about
//! a minute over the layers up to 16 seeds: the layer costs less than one such proof. An
//! exact answer reads it when it is there, and never builds it.
//!
//! The folder is `$HOYITO_CACHE` (the words `off` or `0`, or an empty value, turn the cache
//! off), else `$XDG_CACHE_HOME/hoyito`, else `$HOME/.cache/hoyito`; its `tables` subfolder
//! has the layout of any tables folder (see docs/table-format.md), so that
//! `solve check-tables` and `--tables` take it as it is. Each layer is checked against its
//! payload checksum when it is read; a damaged layer is removed and built again. A lock
//! file keeps two processes from building the same rules at once.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context as _, Result};
use hoyito_rules::Rules;
use hoyito_tables::{key_dir, Progress, TableError, TableKey, Tables};

/// The largest layer every exact answer builds into the cache: the layers of 8, 12 and 16
/// seeds.
pub const CACHE_MAX_SEEDS: usize = 16;

/// The largest layer the cache holds: a proof of a large position also builds the 20-seed
/// layer ([`proof_layers`]).
pub const CACHE_PROOF_SEEDS: usize = 20;

/// A proof of a position with more seeds than this builds the cache's layers up to
/// [`CACHE_PROOF_SEEDS`] seeds, not only up to [`CACHE_MAX_SEEDS`].
pub const PROOF_LAYER_FROM: usize = 32;

/// The largest layer the cache builds for a proof of a position of `seeds` seeds:
/// [`CACHE_PROOF_SEEDS`] above [`PROOF_LAYER_FROM`] seeds, else [`CACHE_MAX_SEEDS`].
pub fn proof_layers(seeds: usize) -> usize {
    if seeds > PROOF_LAYER_FROM {
        CACHE_PROOF_SEEDS
    } else {
        CACHE_MAX_SEEDS
    }
}

/// About how long building the cache's layers up to `top` seeds takes on two cores, for a
/// front's message.
pub fn build_estimate(top: usize) -> &'static str {
    if top > CACHE_MAX_SEEDS {
        "about a minute"
    } else {
        "about 15 s"
    }
}

/// The environment variable that names the cache folder (or turns the cache off).
pub const CACHE_ENV: &str = "HOYITO_CACHE";

/// The cache folder: `$HOYITO_CACHE`, else `$XDG_CACHE_HOME/hoyito`, else
/// `$HOME/.cache/hoyito`; `None` when it is turned off (`HOYITO_CACHE` empty, `off` or `0`)
/// or no home folder is known.
pub fn cache_root() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os(CACHE_ENV) {
        let off = v.is_empty() || v == "off" || v == "0";
        return (!off).then(|| PathBuf::from(v));
    }
    let nonempty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(xdg) = nonempty("XDG_CACHE_HOME") {
        return Some(PathBuf::from(xdg).join("hoyito"));
    }
    nonempty("HOME").map(|home| PathBuf::from(home).join(".cache").join("hoyito"))
}

/// The tables folder inside the cache (`None`: the cache is off).
pub fn cache_tables_dir() -> Option<PathBuf> {
    cache_root().map(|root| root.join("tables"))
}

/// The small tables as the cache holds them now, up to `seeds` seeds (every layer up to
/// [`CACHE_MAX_SEEDS`] seeds, and the one of [`CACHE_PROOF_SEEDS`] when a proof built it),
/// without building anything: `None` when the cache is off, the board is not 2x6, or a
/// layer up to [`CACHE_MAX_SEEDS`] seeds is missing or damaged.
pub fn cached_tables(rules: &Rules, seeds: usize) -> Option<SmallTables> {
    let dir = cache_tables_dir()?;
    let tables = open_complete(&dir, rules, seeds, CACHE_MAX_SEEDS)
        .ok()
        .flatten()?;
    Some(SmallTables {
        tables,
        dir,
        built_ms: None,
    })
}

/// The cache's tables folder when a command of `rules` on a position of `seeds` seeds on
/// the board, given the tables folder `tables` (`None`: none), is about to build the small
/// tables into the cache: the cache is on, the board is 2x6, the position has more than 8
/// seeds, no tables folder is given or built in the default one, and the layers up to
/// [`CACHE_MAX_SEEDS`] are not all there yet. A front says so before an exact answer or a
/// proof (`None`: nothing to build).
pub fn pending(rules: &Rules, seeds: usize, tables: Option<&Path>) -> Option<PathBuf> {
    pending_up_to(rules, seeds, tables, CACHE_MAX_SEEDS)
}

/// [`pending`] for a command that builds the cache's layers up to `top` seeds (a proof:
/// [`proof_layers`]).
pub fn pending_up_to(
    rules: &Rules,
    seeds: usize,
    tables: Option<&Path>,
    top: usize,
) -> Option<PathBuf> {
    let dir = cache_tables_dir()?;
    let default_built =
        Tables::headers(Path::new(crate::DEFAULT_TABLES_DIR), rules).is_ok_and(|h| !h.is_empty());
    let needed = rules.holes() == 6 && seeds > 8 && tables.is_none() && !default_built;
    let want = seeds.min(top).max(CACHE_MAX_SEEDS);
    let there = open_complete(&dir, rules, want, top)
        .ok()
        .flatten()
        .is_some();
    (needed && !there).then_some(dir)
}

/// What [`small_tables`] found or did.
pub struct SmallTables {
    /// The tables, up to the position's seeds and at most [`CACHE_PROOF_SEEDS`].
    pub tables: Arc<Tables>,
    /// The folder they are in (give it to the checker as `--tables`).
    pub dir: PathBuf,
    /// Milliseconds spent building missing layers (`None`: all were in the cache).
    pub built_ms: Option<u64>,
}

/// The small tables of `rules` up to `seeds` seeds (at most [`CACHE_MAX_SEEDS`]) from the
/// cache, building the missing layers first (about 15 s for a new set of rules on two cores;
/// `progress` hears of it and may stop it, which gives `Ok(None)`). `None` also when the
/// cache is off, the board is not 2x6 or holds 8 seeds or fewer (it needs no tables).
pub fn small_tables(
    rules: &Rules,
    seeds: usize,
    progress: &dyn Progress,
) -> Result<Option<SmallTables>> {
    small_tables_up_to(rules, seeds, CACHE_MAX_SEEDS, progress)
}

/// [`small_tables`] building the layers up to `top` seeds (at most [`CACHE_PROOF_SEEDS`]; a
/// proof: [`proof_layers`]).
pub fn small_tables_up_to(
    rules: &Rules,
    seeds: usize,
    top: usize,
    progress: &dyn Progress,
) -> Result<Option<SmallTables>> {
    let Some(dir) = cache_tables_dir() else {
        return Ok(None);
    };
    if rules.holes() != 6 || seeds <= 8 {
        return Ok(None);
    }
    let top = top.clamp(CACHE_MAX_SEEDS, CACHE_PROOF_SEEDS);
    // A layer that cannot be read (damaged, even one above `top`) would keep the cache
    // from being read after the build too: the build starts afresh.
    let damaged = match open_complete(&dir, rules, seeds, top) {
        Ok(Some(tables)) => {
            return Ok(Some(SmallTables {
                tables,
                dir,
                built_ms: None,
            }))
        }
        Ok(None) => false,
        Err(_) => true,
    };
    let t0 = Instant::now();
    match build(&dir, rules, top, damaged, progress) {
        Ok(()) => {}
        Err(e) if is_interrupted(&e) => return Ok(None),
        Err(e) => return Err(e),
    }
    let tables = open_complete(&dir, rules, seeds, top)
        .with_context(|| format!("cannot read the cached tables in {}", dir.display()))?
        .with_context(|| format!("the cached tables in {} are incomplete", dir.display()))?;
    Ok(Some(SmallTables {
        tables,
        dir,
        built_ms: Some(t0.elapsed().as_millis() as u64),
    }))
}

/// The tables of `dir` up to `seeds` seeds (at most [`CACHE_PROOF_SEEDS`]) when every
/// cached layer up to `seeds` and `top` seeds, the smaller, is present (`None`: some are
/// missing).
fn open_complete(
    dir: &Path,
    rules: &Rules,
    seeds: usize,
    top: usize,
) -> Result<Option<Arc<Tables>>> {
    let want = seeds.min(top);
    // The cache's layers step by 4 from 8: 8, 12, 16, 20.
    let expected = want - want % 4;
    let tables = Tables::open_up_to(dir, rules, seeds.min(CACHE_PROOF_SEEDS))?;
    let complete = (8..=expected).step_by(4).all(|n| tables.has_layer(n));
    Ok((expected >= 8 && complete).then(|| Arc::new(tables)))
}

/// Whether `e` is a build stopped by its progress.
fn is_interrupted(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<TableError>(),
        Some(TableError::Interrupted { .. })
    )
}

/// Builds the layers of `rules` up to `top` seeds in `dir`, holding the cache's lock; all
/// layers are removed first when one was found `damaged`, and a layer the build finds
/// damaged is removed and the build runs once more.
fn build(
    dir: &Path,
    rules: &Rules,
    top: usize,
    damaged: bool,
    progress: &dyn Progress,
) -> Result<()> {
    let folder = key_dir(dir, &TableKey::of(rules));
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create the cache folder {}", folder.display()))?;
    let lock_path = folder.join("build.lock");
    let lock = File::create(&lock_path)
        .with_context(|| format!("cannot create the lock {}", lock_path.display()))?;
    // Another process building the same rules: wait for it, then reuse its layers.
    lock.lock()
        .with_context(|| format!("cannot lock {}", lock_path.display()))?;
    // Seen damaged before the lock: still so now that another build, if any, is done?
    if damaged && Tables::open_up_to(dir, rules, CACHE_PROOF_SEEDS).is_err() {
        remove_layers(&folder)?;
    }
    let first = hoyito_tables::build(dir, rules, top, progress);
    let result = match first {
        Err(TableError::Interrupted { .. }) | Ok(_) => first,
        Err(_) => {
            // A damaged or mismatched layer (a cache is ours to rebuild): remove the
            // layers and build them again.
            remove_layers(&folder)?;
            hoyito_tables::build(dir, rules, top, progress)
        }
    };
    drop(lock);
    result
        .map(drop)
        .with_context(|| format!("cannot build the small tables in {}", folder.display()))
}

/// Removes the layer files of a cache folder (and any half-written ones).
fn remove_layers(folder: &Path) -> Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("layer-") {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok(())
}

/// A build [`Progress`] that stops when a flag is raised (none: never), for the callers of
/// [`small_tables`] that a front can stop.
pub struct StopOn<'a>(pub Option<&'a AtomicBool>);

impl Progress for StopOn<'_> {
    fn stopped(&self) -> bool {
        self.0.is_some_and(|s| s.load(Ordering::Relaxed))
    }
}
