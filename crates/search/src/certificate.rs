//! Proof certificates (format and meaning: `data/CERTIFICATE.md`).
//!
//! Every threshold proof that finishes (`threshold.rs`) decides claims on South's value of the
//! positions it explored: the attacker's attractor, whose nodes the attacker leaves in a
//! finite number of moves, and the defender's region, which endless play satisfies. A
//! [`Recorder`] writes them as they are decided, each with its rank: the proof's sequence
//! number (proofs finish after the proofs they use) and, within the proof, when the node
//! joined the attractor. The record is also the state a stopped proof resumes from.
//!
//! [`extract`] then keeps what the root claims need: from each claim it regenerates the
//! moves the certificate's checker will look at and picks, for each successor, the claim of
//! lowest rank that justifies it. Ranks fall along every step into a finite claim because
//! every claim a proof relied on was decided earlier in that proof or in an earlier one.

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use hoyito_rules::{CaptureSide, LastFour, Position, Probe, Rules, Side, Variant};

/// The kind of a claim on South's value of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// South's value is at least the bound (South proves it).
    AtLeast,
    /// South's value is at most the bound (North proves it).
    AtMost,
}

impl Kind {
    /// Whether a position worth `value` to South meets a claim of this kind with `bound`.
    pub fn holds(self, bound: i32, value: i32) -> bool {
        match self {
            Kind::AtLeast => value >= bound,
            Kind::AtMost => value <= bound,
        }
    }

    /// Whether endless play (worth 0) would not meet the claim, so that the proving side
    /// must end it: then ranks must fall.
    pub fn finite(self, bound: i32) -> bool {
        !self.holds(bound, 0)
    }

    /// The side that proves a claim of this kind (the one that chooses its moves).
    pub fn prover(self) -> Side {
        match self {
            Kind::AtLeast => Side::South,
            Kind::AtMost => Side::North,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Kind::AtLeast => "ge",
            Kind::AtMost => "le",
        }
    }
}

/// A claim a proof decided, before it gets its rank.
pub(crate) struct RecordedClaim<const W: usize> {
    pub position: Position<W>,
    pub kind: Kind,
    pub bound: i32,
    pub hole: u8,
    pub order: u32,
}

/// A claim of a certificate: South's value of `position` (captured seeds ignored) is at
/// least or at most `bound`; `hole` is the move the proving side plays when it moves there
/// (0 otherwise); a claim that endless play does not meet may rely only on finite claims of
/// lower rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim<const W: usize> {
    /// The position (its captured seeds are 0).
    pub position: Position<W>,
    /// At least or at most.
    pub kind: Kind,
    /// The bound on South's value.
    pub bound: i32,
    /// The proving side's move (a hole number), or 0.
    pub hole: u8,
    /// The rank.
    pub rank: u64,
}

/// A root claim: what a certificate proves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Root<const W: usize> {
    /// The position.
    pub position: Position<W>,
    /// At least or at most.
    pub kind: Kind,
    /// The bound on South's value.
    pub bound: i32,
}

/// Bytes of one entry of a certificate (and of a record) for boards of `holes` a row.
pub fn entry_size(holes: usize) -> usize {
    2 * holes + 12
}

/// Appends the entry bytes of `c` to `out`.
pub fn encode<const W: usize>(c: &Claim<W>, out: &mut Vec<u8>) {
    let p = &c.position;
    for i in 0..2 * p.holes() {
        out.push(p.seeds(i));
    }
    out.push(match p.side_to_move() {
        Side::South => 0,
        Side::North => 1,
    });
    out.push(match c.kind {
        Kind::AtLeast => 0,
        Kind::AtMost => 1,
    });
    out.push(c.bound as i8 as u8);
    out.push(c.hole);
    out.extend_from_slice(&c.rank.to_le_bytes());
}

/// Reads one entry (`entry_size` bytes) under `rules`.
pub fn decode<const W: usize>(rules: &Rules, b: &[u8]) -> Result<Claim<W>, String> {
    let h = rules.holes();
    if b.len() != entry_size(h) {
        return Err(format!(
            "an entry has {} bytes, not {}",
            b.len(),
            entry_size(h)
        ));
    }
    let side = match b[2 * h] {
        0 => Side::South,
        1 => Side::North,
        x => return Err(format!("side to move {x} (0 or 1)")),
    };
    let kind = match b[2 * h + 1] {
        0 => Kind::AtLeast,
        1 => Kind::AtMost,
        x => return Err(format!("claim kind {x} (0 or 1)")),
    };
    let position = Position::from_rows(rules, &b[..h], &b[h..2 * h], side, [0, 0])
        .map_err(|e| format!("a position: {e}"))?;
    let mut rank = [0u8; 8];
    rank.copy_from_slice(&b[2 * h + 4..]);
    Ok(Claim {
        position,
        kind,
        bound: b[2 * h + 2] as i8 as i32,
        hole: b[2 * h + 3],
        rank: u64::from_le_bytes(rank),
    })
}

/// Writes the claims of finished proofs as they are decided, ranked.
pub struct Recorder {
    out: Box<dyn Write + Send>,
    /// The sequence number the next proof gets.
    seq: u32,
    written: u64,
    error: Option<io::Error>,
    flushed: Instant,
    buf: Vec<u8>,
}

/// How often the record is flushed, so that a killed run loses little.
const FLUSH_EVERY: Duration = Duration::from_secs(10);

impl Recorder {
    /// A recorder writing to `out`, numbering proofs from `first_seq` (one more than the
    /// highest of a record it continues).
    pub fn new(out: Box<dyn Write + Send>, first_seq: u32) -> Self {
        Recorder {
            out,
            seq: first_seq,
            written: 0,
            error: None,
            flushed: Instant::now(),
            buf: Vec::new(),
        }
    }

    /// Writes the claims of one finished proof.
    pub(crate) fn record<const W: usize>(
        &mut self,
        claims: impl Iterator<Item = RecordedClaim<W>>,
    ) {
        let seq = self.seq as u64;
        self.seq += 1;
        self.buf.clear();
        for c in claims {
            let claim = Claim {
                position: c.position,
                kind: c.kind,
                bound: c.bound,
                hole: c.hole,
                rank: seq << 32 | c.order as u64,
            };
            encode(&claim, &mut self.buf);
            self.written += 1;
        }
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(&self.buf) {
                self.error = Some(e);
            } else if self.flushed.elapsed() >= FLUSH_EVERY {
                self.flushed = Instant::now();
                if let Err(e) = self.out.flush() {
                    self.error = Some(e);
                }
            }
        }
    }

    /// Numbers the proofs recorded from now on after those `other` recorded (two provers
    /// writing one record: a proof's claims may then rest on the other's, of lower rank).
    pub(crate) fn continue_after(&mut self, other: &Recorder) {
        self.seq = self.seq.max(other.seq);
    }

    /// Claims written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flushes what is written; the first error of any write.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}

/// Reads a record of claims (whole entries; a torn last entry, as a killed run leaves, is
/// dropped). Returns the claims and the bytes of whole entries read.
pub fn read_record<const W: usize>(
    rules: &Rules,
    r: impl Read,
) -> Result<(Vec<Claim<W>>, u64), CertificateError> {
    let mut claims = Vec::new();
    let bytes = for_each_claim(rules, r, |c| claims.push(c))?;
    Ok((claims, bytes))
}

/// Reads a record of claims as [`read_record`] does, handing each to `f` in order instead of
/// keeping them (a run that resumes from a large record learns them one at a time). Returns
/// the bytes of whole entries read.
pub fn for_each_claim<const W: usize>(
    rules: &Rules,
    mut r: impl Read,
    mut f: impl FnMut(Claim<W>),
) -> Result<u64, CertificateError> {
    let size = entry_size(rules.holes());
    let mut chunk = vec![0u8; size * 65536];
    let mut have = 0;
    let mut bytes = 0u64;
    loop {
        let n = r
            .read(&mut chunk[have..])
            .map_err(|e| CertificateError(format!("reading the record: {e}")))?;
        have += n;
        let whole = have / size * size;
        for (k, e) in chunk[..whole].chunks_exact(size).enumerate() {
            let entry = bytes / size as u64 + k as u64 + 1;
            f(decode(rules, e)
                .map_err(|m| CertificateError(format!("entry {entry} of the record: {m}")))?);
        }
        bytes += whole as u64;
        chunk.copy_within(whole..have, 0);
        have -= whole;
        if n == 0 {
            return Ok(bytes);
        }
    }
}

/// A record that cannot be read, or a certificate that cannot be extracted from it (a fault
/// of the proofs, never of the input).
#[derive(Debug)]
pub struct CertificateError(pub String);

impl std::fmt::Display for CertificateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CertificateError {}

/// What justifies a required claim.
enum Support {
    /// A game end, a table value or the seeds on the board.
    Settled,
    /// The claim at this index.
    Claim(usize),
}

/// The certificate of `roots`: the claims of `record` they need, sorted, each with the
/// successors the checker regenerates justified by a game end, a table value of `probe`
/// (positions of at most its seeds), a trivial bound or another claim kept.
pub fn extract<const W: usize>(
    rules: &Rules,
    mut record: Vec<Claim<W>>,
    roots: &[Root<W>],
    probe: Option<&dyn Probe<W>>,
) -> Result<Vec<Claim<W>>, CertificateError> {
    record.sort_unstable_by(|a, b| {
        (a.position, a.kind, a.bound, a.rank).cmp(&(b.position, b.kind, b.bound, b.rank))
    });
    let mut kept = vec![false; record.len()];
    let mut holes: Vec<u8> = record.iter().map(|c| c.hole).collect();
    let mut stack = Vec::new();
    // Justifies a required claim; a claim newly kept goes on the stack.
    let need = |kept: &mut Vec<bool>,
                stack: &mut Vec<usize>,
                p: &Position<W>,
                kind: Kind,
                bound: i32,
                below: Option<u64>| {
        match support(&record, probe, p, kind, bound, below) {
            Ok(Support::Settled) => Ok(()),
            Ok(Support::Claim(i)) => {
                if !kept[i] {
                    kept[i] = true;
                    stack.push(i);
                }
                Ok(())
            }
            Err(why) => Err(CertificateError(format!(
                "{} {} {bound}: {why}",
                p.with_captured(0, 0),
                kind.word()
            ))),
        }
    };
    for r in roots {
        let p = r.position.with_captured(0, 0);
        need(&mut kept, &mut stack, &p, r.kind, r.bound, None)?;
    }
    while let Some(i) = stack.pop() {
        let mut c = record[i];
        c.hole = canonical_move(rules, &record, probe, &c)?;
        holes[i] = c.hole;
        for (q, bound) in successors(rules, &c)? {
            match q {
                None if c.kind.holds(bound, 0) => {}
                None => {
                    return Err(CertificateError(format!(
                        "{} {} {}: a game end does not meet it",
                        c.position,
                        c.kind.word(),
                        c.bound
                    )))
                }
                Some(q) => need(&mut kept, &mut stack, &q, c.kind, bound, Some(c.rank))?,
            }
        }
    }
    let mut out: Vec<Claim<W>> = record
        .into_iter()
        .zip(kept)
        .zip(holes)
        .filter_map(|((c, k), hole)| k.then_some(Claim { hole, ..c }))
        .collect();
    let holes = rules.holes();
    out.sort_by_cached_key(|c| {
        let mut b = Vec::with_capacity(entry_size(holes));
        encode(c, &mut b);
        b
    });
    Ok(out)
}

/// The move the certificate gives claim `c` when its proving side moves (else its own hole,
/// unused): of the moves whose successor is justified (a game end that meets the claim, a
/// trivial bound, the tables, or a claim of the record, of lower rank when `c` is finite),
/// the one whose justification has the lowest rank (a settled one before any claim), the
/// lowest hole among equals. The choice depends only on the record's claims and ranks, not
/// on the move each proof happened to record, so that a run stopped and resumed writes the
/// same certificate as one that was not.
fn canonical_move<const W: usize>(
    rules: &Rules,
    record: &[Claim<W>],
    probe: Option<&dyn Probe<W>>,
    c: &Claim<W>,
) -> Result<u8, CertificateError> {
    let p = &c.position;
    let mover = p.side_to_move();
    if !p.is_live() || mover != c.kind.prover() {
        return Ok(c.hole);
    }
    let list = p.moves(rules);
    let mut best: Option<(u64, u8)> = None;
    for m in list.children() {
        let g = if mover == Side::South {
            m.gain as i32
        } else {
            -(m.gain as i32)
        };
        let bound = c.bound - g;
        let key = if m.ended_game {
            c.kind.holds(bound, 0).then_some(0)
        } else {
            let q = m.position.with_captured(0, 0);
            match support(record, probe, &q, c.kind, bound, Some(c.rank)) {
                Ok(Support::Settled) => Some(0),
                Ok(Support::Claim(j)) => Some(record[j].rank + 1),
                Err(_) => None,
            }
        };
        if let Some(k) = key {
            if best.is_none() || Some((k, m.mv.0)) < best {
                best = Some((k, m.mv.0));
            }
        }
    }
    // No move found: keep the recorded one, whose check reports what is wrong.
    Ok(best.map_or(c.hole, |(_, h)| h))
}

/// The successors a checker looks at for claim `c`, each with the bound it requires (same
/// kind): `None` for a game end (worth 0).
#[allow(clippy::type_complexity)]
fn successors<const W: usize>(
    rules: &Rules,
    c: &Claim<W>,
) -> Result<Vec<(Option<Position<W>>, i32)>, CertificateError> {
    let p = &c.position;
    let fail = |why: &str| {
        CertificateError(format!(
            "{p} {} {} (move {}): {why}",
            c.kind.word(),
            c.bound,
            c.hole
        ))
    };
    if !p.is_live() {
        return Ok(vec![(None, c.bound)]);
    }
    let list = p.moves(rules);
    if list.is_empty() {
        return Ok(vec![(
            p.passed(rules).map(|q| q.with_captured(0, 0)),
            c.bound,
        )]);
    }
    let mover = p.side_to_move();
    let chosen: Vec<_> = if mover == c.kind.prover() {
        let m = list
            .children()
            .iter()
            .find(|m| m.mv.0 == c.hole)
            .ok_or_else(|| fail("the move is not legal"))?;
        vec![*m]
    } else {
        list.children().to_vec()
    };
    Ok(chosen
        .iter()
        .map(|m| {
            let g = if mover == Side::South {
                m.gain as i32
            } else {
                -(m.gain as i32)
            };
            let q = (!m.ended_game).then(|| m.position.with_captured(0, 0));
            (q, c.bound - g)
        })
        .collect())
}

/// What justifies "South's value of `p` is `kind` `bound`": a trivial bound, the tables, or
/// the claim of lowest rank in `record` (sorted) at least as strong, below `below` when the
/// claim is finite.
fn support<const W: usize>(
    record: &[Claim<W>],
    probe: Option<&dyn Probe<W>>,
    p: &Position<W>,
    kind: Kind,
    bound: i32,
    below: Option<u64>,
) -> Result<Support, String> {
    let n = p.seeds_on_board() as i32;
    let trivial = match kind {
        Kind::AtLeast => bound <= -n,
        Kind::AtMost => bound >= n,
    };
    if trivial {
        return Ok(Support::Settled);
    }
    // A board of 4 or fewer seeds is worth 0 (RULES.md): a root there (a start of 2x2 with
    // a seed a hole, say) needs no claim.
    if n <= 4 {
        return if kind.holds(bound, 0) {
            Ok(Support::Settled)
        } else {
            Err("a board of 4 or fewer seeds is worth 0".to_string())
        };
    }
    if let Some(o) = probe {
        if n as u32 <= o.max_seeds() {
            if let Some(v) = o.probe(p) {
                let v = if p.side_to_move() == Side::South {
                    v
                } else {
                    -v
                };
                return if kind.holds(bound, v) {
                    Ok(Support::Settled)
                } else {
                    Err(format!("the tables say {v}"))
                };
            }
        }
    }
    let lo = record.partition_point(|c| (c.position, c.kind) < (*p, kind));
    let hi = record.partition_point(|c| (c.position, c.kind) <= (*p, kind));
    let best = (lo..hi)
        .filter(|&i| {
            let b = record[i].bound;
            match kind {
                Kind::AtLeast => b >= bound,
                Kind::AtMost => b <= bound,
            }
        })
        .min_by_key(|&i| record[i].rank)
        .ok_or_else(|| "no claim justifies it".to_string())?;
    match below {
        Some(r) if kind.finite(bound) && record[best].rank >= r => Err(format!(
            "the lowest rank that justifies it, {}, does not fall below {r}",
            record[best].rank
        )),
        _ => Ok(Support::Claim(best)),
    }
}

/// The board and side to move of `p` in notation, without captured seeds (as a certificate
/// names positions).
pub fn board<const W: usize>(p: &Position<W>) -> String {
    let s = p.with_captured(0, 0).to_string();
    s.rsplit_once(' ').map_or(s.clone(), |(b, _)| b.to_string())
}

/// The rules as the certificate header writes them.
pub fn rules_line(rules: &Rules) -> String {
    let variant = match rules.variant() {
        Variant::Hoyito2 => "hoyito2",
        Variant::Hoyito3 => "hoyito3",
    };
    let last_four = match rules.last_four() {
        LastFour::Capturer => "capturer",
        LastFour::South => "S",
        LastFour::North => "N",
    };
    let capture_side = match rules.capture_side() {
        CaptureSide::Any => "any",
        CaptureSide::Opponent => "opponent",
    };
    format!(
        "rules holes={} variant={variant} last_four={last_four} capture_side={capture_side}",
        rules.holes()
    )
}

/// Writes a certificate: the header (rules, the tables' seeds, the roots), then `claims`
/// (as [`extract`] returns them, sorted).
pub fn write<const W: usize>(
    mut out: impl Write,
    rules: &Rules,
    tables_max_seeds: Option<u32>,
    roots: &[Root<W>],
    claims: &[Claim<W>],
) -> io::Result<()> {
    writeln!(out, "hoyito-certificate 1")?;
    writeln!(out, "{}", rules_line(rules))?;
    match tables_max_seeds {
        Some(s) => writeln!(out, "tables max_seeds={s}")?,
        None => writeln!(out, "tables none")?,
    }
    for r in roots {
        writeln!(
            out,
            "root {} {} {}",
            board(&r.position),
            r.kind.word(),
            r.bound
        )?;
    }
    writeln!(out, "entries {}", claims.len())?;
    writeln!(out, "end")?;
    let mut buf = Vec::with_capacity(claims.len().min(1 << 16) * entry_size(rules.holes()));
    for c in claims {
        encode(c, &mut buf);
        if buf.len() >= 1 << 20 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    out.flush()
}
