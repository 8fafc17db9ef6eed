//! The certificate of a proof run: the root claims it proves and the claims of the state's
//! record that justify them, written in the format of data/CERTIFICATE.md.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context as _, Result};
use hoyito_rules::{Child, Move, Position, Probe, Rules, Side};
use hoyito_search::certificate::{self, Kind, Root};
use sha2::{Digest, Sha256};

use super::report::CertificateReport;
use super::state::Hashing;
use super::{Proven, Run};

/// South's view of a value for the side to move of `p`.
pub(super) fn south<const W: usize>(p: &Position<W>, v: i32) -> i32 {
    if p.side_to_move() == Side::South {
        v
    } else {
        -v
    }
}

/// The kind of claim that bounds the value of `p` from the side of its side to move, in
/// South's view: "at least" where South moves, "at most" where North does.
pub(super) fn mover_kind<const W: usize>(p: &Position<W>) -> Kind {
    if p.side_to_move() == Side::South {
        Kind::AtLeast
    } else {
        Kind::AtMost
    }
}

/// The claims the certificate of a complete run proves: the answer to `at_least` (for the
/// side to move: at least t, or at most t - 1; in South's view), else the value, a move
/// that keeps it and, with `all_moves`, every move's value.
pub(super) fn certificate_roots<const W: usize>(
    rules: &Rules,
    p: &Position<W>,
    (threshold, outcome, best, moves): Proven<'_, W>,
) -> Option<Vec<Root<W>>> {
    match (threshold, outcome) {
        (Some((t, holds)), _) => {
            let (kind, bound) = match (mover_kind(p), holds) {
                (k, true) => (k, south(p, t)),
                (Kind::AtLeast, false) => (Kind::AtMost, south(p, t - 1)),
                (Kind::AtMost, false) => (Kind::AtLeast, south(p, t - 1)),
            };
            Some(vec![Root {
                position: *p,
                kind,
                bound,
            }])
        }
        (None, Ok(v)) => Some(value_roots(rules, p, v, best, moves)),
        (None, Err(_)) => None,
    }
}

/// Writes the certificate of a complete run to `path`: the claims of
/// [`certificate_roots`], extracted from the state's record (`None`: nothing to certify).
pub(super) fn certificate_of<const W: usize>(
    rules: &Rules,
    p: &Position<W>,
    run: &Run,
    found: Proven<'_, W>,
    path: &Path,
) -> Result<Option<CertificateReport>> {
    let Some(roots) = certificate_roots(rules, p, found) else {
        return Ok(None);
    };
    let probe = run
        .tables
        .as_ref()
        .map(|t| Box::new(Arc::clone(t)) as Box<dyn Probe<W>>);
    let max = (run.tables_max > 0).then_some(run.tables_max as u32);
    let report = write_certificate(rules, &run.record_path, &roots, probe.as_deref(), max, path)?;
    Ok(Some(report))
}

/// Extracts the certificate of `roots` from the state's record at `record_path` and writes
/// it to `path`, hashing it as it goes.
pub(super) fn write_certificate<const W: usize>(
    rules: &Rules,
    record_path: &Path,
    roots: &[Root<W>],
    probe: Option<&dyn Probe<W>>,
    tables_max: Option<u32>,
    path: &Path,
) -> Result<CertificateReport> {
    let t0 = Instant::now();
    let file = File::open(record_path)
        .with_context(|| format!("cannot read {}", record_path.display()))?;
    let (record, _) = certificate::read_record::<W>(rules, std::io::BufReader::new(file))
        .context("reading the state")?;
    let claims = certificate::extract(rules, record, roots, probe)
        .context("extracting the certificate (a fault of the prover: please report it)")?;
    let out = File::create(path)
        .with_context(|| format!("cannot create the certificate {}", path.display()))?;
    let mut out = Hashing {
        inner: BufWriter::new(out),
        hash: Sha256::new(),
        bytes: 0,
    };
    certificate::write(&mut out, rules, tables_max, roots, &claims)
        .with_context(|| format!("cannot write the certificate {}", path.display()))?;
    Ok(CertificateReport {
        path: path.display().to_string(),
        entries: claims.len(),
        bytes: out.bytes,
        sha256: format!("{:x}", out.hash.finalize()),
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The root claims of a proven value `v` of `p` (for its side to move): the value, the
/// move `best` that keeps it and, given, every move's value.
pub(super) fn value_roots<const W: usize>(
    rules: &Rules,
    p: &Position<W>,
    v: i32,
    best: Option<Move>,
    moves: Option<&[(Child<W>, i32)]>,
) -> Vec<Root<W>> {
    let vs = south(p, v);
    let mut roots = vec![
        Root {
            position: *p,
            kind: Kind::AtLeast,
            bound: vs,
        },
        Root {
            position: *p,
            kind: Kind::AtMost,
            bound: vs,
        },
    ];
    let mover_kind = mover_kind(p);
    for c in p.moves(rules).children() {
        let g = south(p, c.gain as i32);
        if c.ended_game {
            continue;
        }
        if Some(c.mv) == best {
            // The best move keeps the value.
            roots.push(Root {
                position: c.position,
                kind: mover_kind,
                bound: vs - g,
            });
        }
        if let Some(all) = moves {
            if let Some(&(_, w)) = all.iter().find(|(m, _)| m.mv == c.mv) {
                let ws = south(&c.position, w);
                for kind in [Kind::AtLeast, Kind::AtMost] {
                    roots.push(Root {
                        position: c.position,
                        kind,
                        bound: ws,
                    });
                }
            }
        }
    }
    let mut seen = Vec::new();
    roots.retain(|r| {
        let new = !seen.contains(r);
        seen.push(*r);
        new
    });
    roots
}
