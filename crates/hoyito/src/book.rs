//! The opening book: proven values of the 2x6 starts and of the positions after their first
//! plies (`data/book/book.jsonl`, made by `solve prove` over the tables up to 24 seeds; every
//! proven entry names its certificate, which `solve check-proof` accepts). An
//! [analysis](crate::analysis) answers a position in it at once. The book is compiled into
//! the library, so it needs no file at run time.
//!
//! ```
//! use hoyito::{book, Position6, Rules};
//! let rules = Rules::default();
//! let e = book::lookup(&rules, &Position6::start(&rules).unwrap()).unwrap();
//! assert_eq!((e.value, e.best), (-28, Some(1)));
//! ```

use hoyito_rules::{Position, Rules};
use hoyito_search::certificate::{board, rules_line};
use serde::Deserialize;

const BOOK: &str = include_str!("../../../data/book/book.jsonl");

/// One line of the book.
#[derive(Deserialize)]
struct Line {
    /// The rules as a certificate header writes them.
    rules: String,
    /// Board and side to move, without captured seeds.
    board: String,
    /// Plies from the start.
    plies: u32,
    /// The proven value for the side to move; absent when the proof did not finish.
    value: Option<i32>,
    /// A move that keeps the value.
    best: Option<u8>,
    /// The certificate that proves it.
    certificate: Option<Certificate>,
}

#[derive(Deserialize)]
struct Certificate {
    file: String,
}

/// A proven position of the book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The value for the side to move.
    pub value: i32,
    /// A move that keeps it (none when the side to move must pass).
    pub best: Option<u8>,
    /// Plies from the start.
    pub plies: u32,
    /// The certificate's path in the repository.
    pub certificate: String,
}

/// The proven value of `p` under `rules`, if the book holds it.
pub fn lookup<const W: usize>(rules: &Rules, p: &Position<W>) -> Option<Entry> {
    if rules.holes() != 6 {
        return None;
    }
    let (want_rules, want) = (rules_line(rules), board(p));
    BOOK.lines()
        .filter_map(|l| serde_json::from_str::<Line>(l).ok())
        .filter(|l| l.rules == want_rules && l.board == want)
        .find_map(|l| {
            Some(Entry {
                value: l.value?,
                best: l.best,
                plies: l.plies,
                certificate: l.certificate?.file,
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of the book reads, names a position of its rules, and a proven one names
    /// its certificate and a legal best move.
    #[test]
    fn every_line_reads() {
        let mut proven = 0;
        for (i, text) in BOOK.lines().enumerate() {
            let l: Line =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
            assert!(l.rules.starts_with("rules holes=6 "), "line {}", i + 1);
            if l.value.is_some() {
                assert!(l.certificate.is_some(), "line {}: no certificate", i + 1);
                proven += 1;
            }
        }
        assert!(proven > 0);
    }
}
