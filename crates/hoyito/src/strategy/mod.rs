//! The proven strategies of the certificates: for every position a certificate's entries
//! cover, the bounds proven on its value and the move of its side to move that keeps its
//! bound, so that the perfect player follows the proofs move after move instead of searching.
//!
//! A certificate proving `South's value >= v` holds one entry for every position South's
//! strategy reaches before the tables or the end: at South's turn the move that keeps the
//! bound, at North's every reply. One proving `<= v` holds North's strategy the same way.
//! The book's certificates prove both bounds of their roots, so along the play of both
//! strategies a position has both: its value is then exact. After a move off the other
//! side's strategy (a mistake, or a move the certificate did not need), only one bound is
//! left: the move that keeps it still keeps the value the perfect side was sure of.
//!
//! Every certificate of the repository (`data/proofs/`, `data/book/`) is compiled into the
//! library; `solve check-proof` verifies each of them.
//!
//! ```
//! use hoyito::{strategy, Position6, Rules};
//! let rules = Rules::default();
//! let start = Position6::start(&rules).unwrap();
//! let known = strategy::lookup(&rules, &start).unwrap();
//! assert_eq!(known.exact(), Some(-28));
//! assert_eq!(known.keep, Some(1));
//! ```

mod embedded;

use std::collections::HashMap;
use std::sync::OnceLock;

use hoyito_rules::{Position, Rules, Side};
use hoyito_search::certificate::{entry_size, rules_line};

/// What the certificates prove about a position (board and side to move; the seeds
/// captured before it do not count): bounds on South's value from it on, and a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    /// South's value is at least this (the strongest such claim of the certificates).
    pub lower: Option<i32>,
    /// South's value is at most this.
    pub upper: Option<i32>,
    /// The move of the side to move that keeps its own bound (`lower` for South, `upper`
    /// for North); `None` when the certificates prove no bound for the side to move, or
    /// when it must pass.
    pub keep: Option<u8>,
}

impl Known {
    /// South's exact value, when both bounds are proven and meet.
    pub fn exact(&self) -> Option<i32> {
        match (self.lower, self.upper) {
            (Some(l), Some(u)) if l == u => Some(l),
            _ => None,
        }
    }

    /// The bound the side to move keeps with [`Known::keep`], in South's view, if any.
    pub fn kept<const W: usize>(&self, p: &Position<W>) -> Option<i32> {
        match p.side_to_move() {
            Side::South => self.lower,
            Side::North => self.upper,
        }
    }
}

/// The strongest claims on one position: (bound, move) of `ge` and of `le`.
#[derive(Clone, Copy, Default)]
struct Claims {
    ge: Option<(i32, u8)>,
    le: Option<(i32, u8)>,
}

/// The claims of the certificates of one set of rules, by position (rows, then the side).
type Table = HashMap<Vec<u8>, Claims>;

/// The compiled certificates of one set of rules: their entries, read into a table of
/// claims at the first look-up under those rules.
struct Certificates {
    /// Each certificate's holes a row and entry bytes.
    parts: Vec<(usize, &'static [u8])>,
    table: OnceLock<Table>,
}

impl Certificates {
    fn table(&self) -> &Table {
        self.table.get_or_init(|| {
            let mut table = Table::new();
            for &(holes, entries) in &self.parts {
                let _ = add(&mut table, holes, entries);
            }
            table
        })
    }
}

/// Every compiled certificate, by the rules line of its header (only the headers are read
/// here: a look-up under rules no certificate is for costs nothing more).
fn all() -> &'static HashMap<String, Certificates> {
    static ALL: OnceLock<HashMap<String, Certificates>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all: HashMap<String, Certificates> = HashMap::new();
        for (_, bytes) in embedded::CERTIFICATES {
            // The certificates are the repository's, checked by its tests: one that does not
            // read is a build of a damaged checkout, and is left out rather than trusted.
            if let Some((rules, holes, entries)) = split(bytes) {
                all.entry(rules.to_string())
                    .or_insert_with(|| Certificates {
                        parts: Vec::new(),
                        table: OnceLock::new(),
                    })
                    .parts
                    .push((holes, entries));
            }
        }
        all
    })
}

/// A certificate's rules line, holes a row and entry bytes.
fn split(bytes: &[u8]) -> Option<(&str, usize, &[u8])> {
    let mut rules = None;
    let mut at = 0;
    loop {
        let end = at + bytes[at..].iter().position(|&b| b == b'\n')?;
        let line = std::str::from_utf8(&bytes[at..end]).ok()?;
        at = end + 1;
        if line.starts_with("rules ") {
            rules = Some(line);
        }
        if line == "end" {
            break;
        }
    }
    let rules = rules?;
    let holes = rules
        .split_whitespace()
        .find_map(|w| w.strip_prefix("holes="))?
        .parse()
        .ok()?;
    Some((rules, holes, &bytes[at..]))
}

/// Adds the entries of one certificate, keeping the strongest claim of each kind.
fn add(table: &mut Table, holes: usize, entries: &[u8]) -> Result<(), String> {
    let size = entry_size(holes);
    if !entries.len().is_multiple_of(size) {
        return Err(format!("{} bytes of entries of {size}", entries.len()));
    }
    for e in entries.chunks_exact(size) {
        let key = e[..2 * holes + 1].to_vec();
        let (kind, bound, hole) = (
            e[2 * holes + 1],
            e[2 * holes + 2] as i8 as i32,
            e[2 * holes + 3],
        );
        let c = table.entry(key).or_default();
        match kind {
            0 if c.ge.is_none_or(|(b, _)| bound > b) => c.ge = Some((bound, hole)),
            1 if c.le.is_none_or(|(b, _)| bound < b) => c.le = Some((bound, hole)),
            0 | 1 => {}
            k => return Err(format!("claim kind {k}")),
        }
    }
    Ok(())
}

/// Reads the compiled certificates now (once per process; a few tens of milliseconds),
/// rather than at the first lookup.
pub fn warm() {
    for certificates in all().values() {
        certificates.table();
    }
}

/// The key of `p`: its rows, then its side to move (as a certificate entry starts).
fn key<const W: usize>(p: &Position<W>) -> Vec<u8> {
    let mut k: Vec<u8> = (0..2 * p.holes()).map(|i| p.seeds(i)).collect();
    k.push(match p.side_to_move() {
        Side::South => 0,
        Side::North => 1,
    });
    k
}

/// What the compiled certificates prove about `p` under `rules`, if any covers it.
pub fn lookup<const W: usize>(rules: &Rules, p: &Position<W>) -> Option<Known> {
    let c = all().get(&rules_line(rules))?.table().get(&key(p))?;
    let own = match p.side_to_move() {
        Side::South => c.ge,
        Side::North => c.le,
    };
    Some(Known {
        lower: c.ge.map(|(b, _)| b),
        upper: c.le.map(|(b, _)| b),
        keep: own.map(|(_, m)| m).filter(|&m| m > 0),
    })
}

/// The proven value of `p` for its side to move, from the opening book or the
/// certificates (both bounds met), if they know it.
pub fn proven_value<const W: usize>(rules: &Rules, p: &Position<W>) -> Option<i32> {
    if let Some(e) = crate::book::lookup(rules, p) {
        return Some(e.value);
    }
    let south = lookup(rules, p)?.exact()?;
    Some(match p.side_to_move() {
        Side::South => south,
        Side::North => -south,
    })
}

/// A proven move of `p` for its side to move, from the opening book or the certificates,
/// when its value is known exactly: the move and the value for the side to move.
pub fn proven_move<const W: usize>(rules: &Rules, p: &Position<W>) -> Option<(u8, i32)> {
    if let Some(e) = crate::book::lookup(rules, p) {
        if let Some(mv) = e.best {
            return Some((mv, e.value));
        }
    }
    certified_move(rules, p)
}

/// As [`proven_move`], from the certificates alone (for callers that asked the book
/// already): the move and the value for the side to move, where both bounds meet.
pub fn certified_move<const W: usize>(rules: &Rules, p: &Position<W>) -> Option<(u8, i32)> {
    let k = lookup(rules, p)?;
    let south = k.exact()?;
    let value = match p.side_to_move() {
        Side::South => south,
        Side::North => -south,
    };
    Some((k.keep?, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoyito_rules::Position6;

    /// Every `.cert` file of the repository is compiled in, and each one reads.
    #[test]
    fn every_certificate_is_compiled_in_and_reads() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let mut on_disk = Vec::new();
        for dir in ["data/proofs", "data/proofs/bounds", "data/book"] {
            for e in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
                let name = e.unwrap().file_name().into_string().unwrap();
                if name.ends_with(".cert") {
                    on_disk.push(format!("{dir}/{name}"));
                }
            }
        }
        on_disk.sort();
        let mut compiled: Vec<String> = embedded::CERTIFICATES
            .iter()
            .map(|(p, _)| p.to_string())
            .collect();
        compiled.sort();
        assert_eq!(compiled, on_disk);
        for (path, bytes) in embedded::CERTIFICATES {
            let (_, holes, entries) = split(bytes).unwrap_or_else(|| panic!("{path}"));
            add(&mut Table::new(), holes, entries).unwrap_or_else(|e| panic!("{path}: {e}"));
        }
    }

    #[test]
    fn the_starts_are_known_exactly_and_a_mistake_leaves_one_bound() {
        for (rules, value, best) in [
            (Rules::default(), -28, 1),
            (
                Rules::new(
                    hoyito_rules::Variant::Hoyito3,
                    6,
                    4,
                    hoyito_rules::LastFour::Capturer,
                    hoyito_rules::CaptureSide::Any,
                )
                .unwrap(),
                -36,
                4,
            ),
        ] {
            let start = Position6::start(&rules).unwrap();
            let k = lookup(&rules, &start).unwrap();
            assert_eq!((k.exact(), k.keep), (Some(value), Some(best)));
            assert_eq!(proven_move(&rules, &start), Some((best, value)));
        }
    }
}
