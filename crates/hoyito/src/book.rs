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

/// The proven starts of every seed count (`data/proofs/seed-counts.jsonl`).
const SEED_COUNTS: &str = include_str!("../../../data/proofs/seed-counts.jsonl");

/// One line of the seed counts' results: a 2x6 start and its proven value.
#[derive(Deserialize)]
struct SeedCount {
    /// The variant, `hoyito2` or `hoyito3`.
    rules: String,
    holes: usize,
    seeds: usize,
    /// Absent on a line that only points elsewhere (the 4-seed starts are in the book).
    last_four: Option<String>,
    capture_side: Option<String>,
    /// The proven value for South, who moves first.
    value: Option<i32>,
    best_move: Option<u8>,
    certificate: Option<Certificate>,
}

impl SeedCount {
    /// The entry of this line, if it is proven and its start is `p` under `rules`.
    fn entry<const W: usize>(self, rules: &Rules, p: &Position<W>) -> Option<Entry> {
        let r = Rules::new(
            self.rules.parse().ok()?,
            self.holes,
            self.seeds,
            self.last_four?.parse().ok()?,
            self.capture_side?.parse().ok()?,
        )
        .ok()?;
        let start = Position::<W>::start(&r).ok()?;
        (r == *rules && board(&start) == board(p)).then_some(())?;
        Some(Entry {
            value: self.value?,
            best: self.best_move,
            plies: 0,
            certificate: self.certificate?.file,
        })
    }
}

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
    let book = BOOK
        .lines()
        .filter_map(|l| serde_json::from_str::<Line>(l).ok())
        .filter(|l| l.rules == want_rules && l.board == want)
        .find_map(|l| {
            Some(Entry {
                value: l.value?,
                best: l.best,
                plies: l.plies,
                certificate: l.certificate?.file,
            })
        });
    book.or_else(|| {
        SEED_COUNTS
            .lines()
            .filter_map(|l| serde_json::from_str::<SeedCount>(l).ok())
            .find_map(|l| l.entry(rules, p))
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

    /// The start of every seed count the rules allow is in the book, in both variants, with
    /// the value its certificate proves.
    #[test]
    fn every_seed_count_start_is_in_the_book() {
        for variant in ["hoyito2", "hoyito3"] {
            for seeds in 1..=8 {
                let rules = Rules::new(
                    variant.parse().unwrap(),
                    6,
                    seeds,
                    hoyito_rules::LastFour::Capturer,
                    hoyito_rules::CaptureSide::Any,
                )
                .unwrap();
                let start = Position::<2>::start(&rules).unwrap();
                let e = lookup(&rules, &start)
                    .unwrap_or_else(|| panic!("{variant} with {seeds} seeds a hole"));
                assert!(e.certificate.ends_with(".cert"), "{e:?}");
                assert!(e.best.is_some_and(|m| (1..=6).contains(&m)), "{e:?}");
            }
        }
    }
}
