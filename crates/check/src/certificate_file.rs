//! The certificate file of `data/CERTIFICATE.md`: its text header, its fixed-size entries,
//! a reader that rejects anything malformed with a message saying where, and a writer.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{CheckError, Place};
use crate::rules::{CaptureSide, LastFour, Position, Rules, Side, Variant};

/// The first line of every certificate.
pub const MAGIC_LINE: &str = "hoyito-certificate 1";
/// The longest header read before giving up on finding its `end` line.
const MAX_HEADER: usize = 1 << 20;

/// Which way a claim bounds South's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// South's value is at least the bound; South proves it.
    Ge,
    /// South's value is at most the bound; North proves it.
    Le,
}

impl Kind {
    /// The side that proves a claim of this kind.
    pub fn prover(self) -> Side {
        match self {
            Kind::Ge => Side::South,
            Kind::Le => Side::North,
        }
    }
}

/// A bound on South's value of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Claim {
    /// `ge` or `le`.
    pub kind: Kind,
    /// The bound.
    pub bound: i32,
}

impl Claim {
    /// `ge bound`.
    pub fn ge(bound: i32) -> Claim {
        Claim {
            kind: Kind::Ge,
            bound,
        }
    }

    /// `le bound`.
    pub fn le(bound: i32) -> Claim {
        Claim {
            kind: Kind::Le,
            bound,
        }
    }

    /// Whether South's value `value` satisfies the claim.
    pub fn holds_for(&self, value: i32) -> bool {
        match self.kind {
            Kind::Ge => value >= self.bound,
            Kind::Le => value <= self.bound,
        }
    }

    /// Whether endless play (worth 0) would not satisfy it.
    pub fn is_finite(&self) -> bool {
        !self.holds_for(0)
    }

    /// Whether every value of a board of `seeds` seeds (`-seeds ..= seeds`) satisfies it.
    pub fn is_trivial(&self, seeds: u32) -> bool {
        let n = seeds as i32;
        match self.kind {
            Kind::Ge => self.bound <= -n,
            Kind::Le => self.bound >= n,
        }
    }

    /// Whether `self` is of the same kind and at least as strong as `other` (so that it
    /// implies it).
    pub fn implies(&self, other: &Claim) -> bool {
        self.kind == other.kind
            && match self.kind {
                Kind::Ge => self.bound >= other.bound,
                Kind::Le => self.bound <= other.bound,
            }
    }

    /// The same kind of claim, `gain` lower: what the position after a move of that net gain
    /// for South must satisfy.
    pub fn after_gain(&self, gain: i32) -> Claim {
        Claim {
            kind: self.kind,
            bound: self.bound - gain,
        }
    }
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            Kind::Ge => "ge",
            Kind::Le => "le",
        };
        write!(f, "{kind} {}", self.bound)
    }
}

/// One entry: a position, a claim about it, the move of the proving side (0 when none) and
/// a rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The position.
    pub position: Position,
    /// The claim; its bound must fit in a signed byte.
    pub claim: Claim,
    /// The hole number `1 ..= H` the proving side plays, or 0.
    pub mv: u8,
    /// Falls along every step into a finite claim.
    pub rank: u64,
}

/// Bytes of one entry on a board of `holes` holes a row.
pub fn entry_size(holes: usize) -> usize {
    2 * holes + 12
}

impl Entry {
    /// The entry's bytes (`None` when the bound does not fit in a signed byte).
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let bound = i8::try_from(self.claim.bound).ok()?;
        let mut b = self.position.board.clone();
        b.push(match self.position.side {
            Side::South => 0,
            Side::North => 1,
        });
        b.push(match self.claim.kind {
            Kind::Ge => 0,
            Kind::Le => 1,
        });
        b.push(bound as u8);
        b.push(self.mv);
        b.extend_from_slice(&self.rank.to_le_bytes());
        Some(b)
    }

    /// Reads the entry from its bytes (`2H + 12` of them); a field out of range is an error
    /// message.
    fn from_bytes(bytes: &[u8], holes: usize) -> Result<Entry, String> {
        let size = 2 * holes;
        let board = bytes[..size].to_vec();
        let seeds: u32 = board.iter().map(|&s| s as u32).sum();
        let most = 8 * size as u32;
        if seeds > most {
            return Err(format!(
                "its board holds {seeds} seeds, more than the {most} of any start"
            ));
        }
        let side = match bytes[size] {
            0 => Side::South,
            1 => Side::North,
            other => return Err(format!("side to move byte {other}, expected 0 or 1")),
        };
        let kind = match bytes[size + 1] {
            0 => Kind::Ge,
            1 => Kind::Le,
            other => {
                return Err(format!(
                    "claim kind byte {other}, expected 0 (ge) or 1 (le)"
                ))
            }
        };
        let bound = bytes[size + 2] as i8 as i32;
        let mv = bytes[size + 3];
        if mv as usize > holes {
            return Err(format!("move {mv}, expected 0 to {holes}"));
        }
        let mut rank = [0u8; 8];
        rank.copy_from_slice(&bytes[size + 4..size + 12]);
        Ok(Entry {
            position: Position { board, side },
            claim: Claim { kind, bound },
            mv,
            rank: u64::from_le_bytes(rank),
        })
    }
}

/// A certificate read and checked for form (not yet for its claims).
#[derive(Debug)]
pub struct Certificate {
    /// The file it was read from.
    pub path: PathBuf,
    /// The rules.
    pub rules: Rules,
    /// The most seeds of the tables it rests on; `None` for `tables none`.
    pub tables: Option<usize>,
    /// The root claims.
    pub roots: Vec<(Position, Claim)>,
    /// Number of entries.
    count: usize,
    /// The entries' bytes, `entry_size(holes)` each, sorted.
    body: Vec<u8>,
}

impl Certificate {
    /// Reads a certificate file.
    pub fn read(path: &Path) -> Result<Certificate, CheckError> {
        let bytes = std::fs::read(path).map_err(|e| CheckError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Certificate::parse(path, bytes)
    }

    /// Reads a certificate from its bytes (`path` names it in errors).
    pub fn parse(path: &Path, mut bytes: Vec<u8>) -> Result<Certificate, CheckError> {
        let bad = |place: Place, problem: String| malformed(path, place, problem);
        let (lines, at) = header_lines(path, &bytes)?;
        let words = |i: usize| -> Vec<&str> { lines[i].split(' ').collect() };
        // Line 2: the rules.
        let rules = parse_rules(&words(1)).map_err(|p| bad(Place::Line(2), p))?;
        // Line 3: the tables.
        let tables = parse_tables(&words(2), &lines[2]).map_err(|p| bad(Place::Line(3), p))?;
        // The root lines, then `entries`, then `end`.
        let mut roots = Vec::new();
        let mut i = 3;
        while i < lines.len() && lines[i].starts_with("root ") {
            let w = words(i);
            let root = parse_root(&w, &rules).map_err(|p| bad(Place::Line(i + 1), p))?;
            roots.push(root);
            i += 1;
        }
        if roots.is_empty() {
            return Err(bad(
                Place::Line(i + 1),
                "no root claim ('root <position> ge|le <bound>') before 'entries'".into(),
            ));
        }
        let count = match words(i).as_slice() {
            ["entries", n] => n.parse::<u64>().map_err(|_| {
                bad(
                    Place::Line(i + 1),
                    format!("'{n}' is not a count of entries"),
                )
            })?,
            _ => {
                return Err(bad(
                    Place::Line(i + 1),
                    format!("'{}': expected 'entries <count>'", lines[i]),
                ))
            }
        };
        if i + 2 != lines.len() {
            return Err(bad(
                Place::Line(i + 2),
                format!("'{}': expected 'end'", lines[i + 1]),
            ));
        }
        // The entries.
        check_entries(path, &bytes[at..], count, rules.holes)?;
        Ok(Certificate {
            path: path.to_path_buf(),
            rules,
            tables,
            roots,
            count: count as usize,
            body: {
                // The entries without the header, in the same memory.
                bytes.drain(..at);
                bytes
            },
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Entry `i` (`i < len()`).
    pub fn entry(&self, i: usize) -> Entry {
        let size = entry_size(self.rules.holes);
        // Every entry was checked when the file was read.
        Entry::from_bytes(&self.body[i * size..(i + 1) * size], self.rules.holes)
            .expect("entries are checked when read")
    }

    /// The indices of the entries of `p` (a range: the entries are sorted by position).
    pub fn entries_of(&self, p: &Position) -> std::ops::Range<usize> {
        let size = entry_size(self.rules.holes);
        let mut target = p.board.clone();
        target.push(match p.side {
            Side::South => 0,
            Side::North => 1,
        });
        let position = |i: usize| &self.body[i * size..i * size + target.len()];
        // The first entry whose position is not below `p`, then the first above it.
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if position(mid) < target.as_slice() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let first = lo;
        let mut end = first;
        while end < self.count && position(end) == target.as_slice() {
            end += 1;
        }
        first..end
    }
}

/// A malformed certificate at `path`: what is wrong, and where.
fn malformed(path: &Path, place: Place, problem: String) -> CheckError {
    CheckError::Malformed {
        path: path.to_path_buf(),
        place,
        problem,
    }
}

/// The header lines of the certificate `bytes` read from `path`, up to and including
/// `end`, and where the entries start.
fn header_lines(path: &Path, bytes: &[u8]) -> Result<(Vec<String>, usize), CheckError> {
    let bad = |place: Place, problem: String| malformed(path, place, problem);
    // The header: lines up to and including `end`.
    let mut lines: Vec<String> = Vec::new();
    let mut at = 0;
    loop {
        let line_no = lines.len() + 1;
        let Some(len) = bytes[at..].iter().position(|&b| b == b'\n') else {
            return Err(bad(
                Place::Line(line_no),
                "the header ends without an 'end' line".into(),
            ));
        };
        let line = std::str::from_utf8(&bytes[at..at + len]).map_err(|_| {
            bad(
                Place::Line(line_no),
                "not text: the header must end with an 'end' line".into(),
            )
        })?;
        at += len + 1;
        if line_no == 1 && line != MAGIC_LINE {
            let problem = if line.starts_with("hoyito-certificate ") {
                format!("'{line}': this checker reads '{MAGIC_LINE}'")
            } else {
                format!("'{line}' is not a certificate's first line ('{MAGIC_LINE}')")
            };
            return Err(bad(Place::Line(1), problem));
        }
        let done = line == "end";
        lines.push(line.to_string());
        if done {
            break;
        }
        if at > MAX_HEADER {
            return Err(bad(
                Place::Line(line_no),
                "no 'end' line in the first MiB".into(),
            ));
        }
    }
    Ok((lines, at))
}

/// The tables line (`line`, split into `words`): the most seeds of the tables the
/// certificate rests on, if any.
fn parse_tables(words: &[&str], line: &str) -> Result<Option<usize>, String> {
    match words {
        ["tables", "none"] => Ok(None),
        ["tables", value] => value
            .strip_prefix("max_seeds=")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| (5..=255).contains(&n))
            .map(Some)
            .ok_or_else(|| format!("'{value}': expected max_seeds=N with N from 5 to 255")),
        _ => Err(format!(
            "'{line}': expected 'tables none' or 'tables max_seeds=N'"
        )),
    }
}

/// Checks the entries of a certificate read from `path` (`body`, after the header): as
/// many bytes as `count` entries of a board of `holes` holes take, each entry well formed,
/// and sorted by their bytes.
fn check_entries(path: &Path, body: &[u8], count: u64, holes: usize) -> Result<(), CheckError> {
    let bad = |place: Place, problem: String| malformed(path, place, problem);
    let size = entry_size(holes);
    let expected = (count as u128) * size as u128;
    if (body.len() as u128) < expected {
        return Err(bad(
            Place::End,
            format!(
                "truncated: {count} entries of {size} bytes announced, {} bytes present \
                 ({} whole entries)",
                body.len(),
                body.len() / size
            ),
        ));
    }
    if body.len() as u128 > expected {
        return Err(bad(
            Place::End,
            format!(
                "{} bytes after the {count} entries announced",
                body.len() as u128 - expected
            ),
        ));
    }
    let key = 2 * holes + 3;
    for (n, chunk) in body.chunks_exact(size).enumerate() {
        Entry::from_bytes(chunk, holes).map_err(|p| bad(Place::Entry(n), p))?;
        if n > 0 && body[(n - 1) * size..(n - 1) * size + key] > chunk[..key] {
            return Err(bad(
                Place::Entry(n),
                "entries are not sorted by their bytes (position, kind, bound)".into(),
            ));
        }
    }
    Ok(())
}

/// Parses the words of the `rules` line.
fn parse_rules(words: &[&str]) -> Result<Rules, String> {
    if words.first() != Some(&"rules") {
        return Err(format!(
            "'{}': expected 'rules holes=H variant=V last_four=L capture_side=C'",
            words.join(" ")
        ));
    }
    let mut holes = None;
    let mut variant = None;
    let mut last_four = None;
    let mut capture_side = None;
    for word in &words[1..] {
        let Some((key, value)) = word.split_once('=') else {
            return Err(format!("'{word}': expected key=value"));
        };
        let unknown = |expected: &str| format!("unknown {key} '{value}': expected {expected}");
        let seen = match key {
            "holes" => holes
                .replace(
                    value
                        .parse::<usize>()
                        .ok()
                        .filter(|h| (Rules::MIN_HOLES..=Rules::MAX_HOLES).contains(h))
                        .ok_or_else(|| format!("holes={value}: expected 2 to 12"))?,
                )
                .is_some(),
            "variant" => variant
                .replace(match value {
                    "hoyito2" => Variant::Hoyito2,
                    "hoyito3" => Variant::Hoyito3,
                    _ => return Err(unknown("hoyito2 or hoyito3")),
                })
                .is_some(),
            "last_four" => last_four
                .replace(match value {
                    "capturer" => LastFour::Capturer,
                    "S" => LastFour::South,
                    "N" => LastFour::North,
                    _ => return Err(unknown("capturer, S or N")),
                })
                .is_some(),
            "capture_side" => capture_side
                .replace(match value {
                    "any" => CaptureSide::Any,
                    "opponent" => CaptureSide::Opponent,
                    _ => return Err(unknown("any or opponent")),
                })
                .is_some(),
            _ => {
                return Err(format!(
                    "unknown rule option '{key}': expected holes, variant, last_four, capture_side"
                ))
            }
        };
        if seen {
            return Err(format!("{key} is given twice"));
        }
    }
    match (holes, variant, last_four, capture_side) {
        (Some(holes), Some(variant), Some(last_four), Some(capture_side)) => Ok(Rules {
            holes,
            variant,
            last_four,
            capture_side,
        }),
        _ => Err("the rules line needs holes, variant, last_four and capture_side".into()),
    }
}

/// Parses the words of a `root` line.
fn parse_root(words: &[&str], rules: &Rules) -> Result<(Position, Claim), String> {
    let [_, board, side, kind, bound] = words else {
        return Err(format!(
            "'{}': expected 'root <position> ge|le <bound>'",
            words.join(" ")
        ));
    };
    let position = Position::parse(&format!("{board} {side}"))?;
    if position.board.len() != 2 * rules.holes {
        return Err(format!(
            "the root position has {} holes a row, the rules say {}",
            position.board.len() / 2,
            rules.holes
        ));
    }
    let seeds = position.seeds();
    if seeds > 16 * rules.holes as u32 {
        return Err(format!(
            "the root position holds {seeds} seeds, more than the {} of any start",
            16 * rules.holes
        ));
    }
    let bound: i32 = bound
        .parse()
        .map_err(|_| format!("'{bound}' is not a bound"))?;
    let claim = match *kind {
        "ge" => Claim::ge(bound),
        "le" => Claim::le(bound),
        other => return Err(format!("claim kind '{other}': expected ge or le")),
    };
    Ok((position, claim))
}

/// Writes a certificate: the header, then the entries sorted by their bytes. An entry whose
/// board has other holes than the rules, or whose bound does not fit in a signed byte, is an
/// `InvalidInput` error.
pub fn write_certificate(
    out: &mut impl Write,
    rules: &Rules,
    tables: Option<usize>,
    roots: &[(Position, Claim)],
    entries: &[Entry],
) -> std::io::Result<()> {
    let invalid = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, what);
    let mut records = Vec::with_capacity(entries.len());
    for e in entries {
        if e.position.board.len() != 2 * rules.holes {
            return Err(invalid(format!(
                "entry {} has another board size",
                e.position
            )));
        }
        records.push(
            e.to_bytes()
                .ok_or_else(|| invalid(format!("bound {} is not a byte", e.claim.bound)))?,
        );
    }
    records.sort();
    writeln!(out, "{MAGIC_LINE}")?;
    writeln!(out, "rules {rules}")?;
    match tables {
        Some(n) => writeln!(out, "tables max_seeds={n}")?,
        None => writeln!(out, "tables none")?,
    }
    for (p, claim) in roots {
        writeln!(out, "root {p} {claim}")?;
    }
    writeln!(out, "entries {}", records.len())?;
    writeln!(out, "end")?;
    for r in &records {
        out.write_all(r)?;
    }
    Ok(())
}
