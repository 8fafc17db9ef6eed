//! The rules of `data/CERTIFICATE.md`, "Justification of an entry", applied to every entry
//! and to the root claims.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::certificate_file::{Certificate, Claim};
use crate::error::{CheckError, Failure, Reason, Step};
use crate::rules::{Position, Rules};
use crate::tables::Tables;

/// What an accepted certificate proved, and what the check took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The rules of the certificate.
    pub rules: Rules,
    /// The root claims, all proven.
    pub roots: Vec<(Position, Claim)>,
    /// Entries checked (all of them).
    pub entries: u64,
    /// Moves and passes checked, from entries and roots.
    pub steps: u64,
    /// Required claims answered by a table value.
    pub table_lookups: u64,
    /// Required claims answered by a game end (a move that leaves 4 or fewer seeds).
    pub game_ends: u64,
    /// The most seeds of the tables the certificate rests on, if any.
    pub tables_max_seeds: Option<usize>,
}

/// Counts kept while checking (entries are checked in parallel).
#[derive(Default)]
struct Counts {
    steps: AtomicU64,
    table_lookups: AtomicU64,
    game_ends: AtomicU64,
}

/// Why a step fails: the step, South's gain in it, the required claim and the reason.
type StepFailure = (Option<Step>, i32, Option<(Position, Claim)>, Reason);

struct Checker<'a> {
    cert: &'a Certificate,
    tables: Option<&'a Tables>,
    counts: Counts,
}

impl Checker<'_> {
    /// Whether `next`, reached by a step (`ended`: the step ended the game), satisfies the
    /// required claim `claim`; `rank` is the rank of the entry the step is from (`None` for
    /// a root claim, which needs no rank).
    fn satisfied(
        &self,
        next: &Position,
        ended: bool,
        claim: Claim,
        rank: Option<u64>,
    ) -> Result<(), Reason> {
        let seeds = next.seeds();
        if ended || seeds <= 4 {
            self.counts.game_ends.fetch_add(1, Ordering::Relaxed);
            return if claim.holds_for(0) {
                Ok(())
            } else {
                Err(if ended {
                    Reason::GameEnd
                } else {
                    Reason::WorthZero
                })
            };
        }
        if claim.is_trivial(seeds) {
            return Ok(());
        }
        if let Some(tables) = self.tables {
            if let Some(value) = tables.south_value(next) {
                self.counts.table_lookups.fetch_add(1, Ordering::Relaxed);
                let value = value.map_err(|e| Reason::TableDamaged(e.to_string()))?;
                return if claim.holds_for(value) {
                    Ok(())
                } else {
                    Err(Reason::TableContradicts { value })
                };
            }
        }
        let mut smallest: Option<u64> = None;
        for i in self.cert.entries_of(next) {
            let entry = self.cert.entry(i);
            if !entry.claim.implies(&claim) {
                continue;
            }
            match rank {
                Some(rank) if claim.is_finite() && entry.rank >= rank => {
                    smallest = Some(smallest.map_or(entry.rank, |s| s.min(entry.rank)));
                }
                _ => return Ok(()),
            }
        }
        Err(match smallest {
            Some(smallest) => Reason::RankDoesNotFall { smallest },
            None => Reason::MissingClaim,
        })
    }

    /// Checks the step `step` from a position whose claim is `claim`, leading to `next`
    /// with South's gain `gain`.
    fn step(
        &self,
        step: Step,
        next: &Position,
        gain: i32,
        ended: bool,
        claim: Claim,
        rank: Option<u64>,
    ) -> Result<(), StepFailure> {
        self.counts.steps.fetch_add(1, Ordering::Relaxed);
        let required = claim.after_gain(gain);
        self.satisfied(next, ended, required, rank)
            .map_err(|reason| (Some(step), gain, Some((next.clone(), required)), reason))
    }

    /// Checks entry `i`.
    fn entry(&self, i: usize) -> Result<(), Box<Failure>> {
        let entry = self.cert.entry(i);
        let fail = |(step, gain, required, reason): StepFailure| {
            Box::new(Failure {
                entry: Some(i),
                position: entry.position.clone(),
                claim: entry.claim,
                rank: Some(entry.rank),
                step,
                gain,
                required,
                reason,
            })
        };
        let rules = &self.cert.rules;
        let p = &entry.position;
        let claim = entry.claim;
        let rank = Some(entry.rank);
        let worth_zero = || {
            if claim.holds_for(0) {
                Ok(())
            } else {
                Err(fail((None, 0, None, Reason::WorthZero)))
            }
        };
        // 1. Four or fewer seeds: worth 0.
        if p.seeds() <= 4 {
            return worth_zero();
        }
        let moves = p.legal_moves(rules);
        // 2. No legal move: the game is over, or the only step is the pass.
        if moves.is_empty() {
            let other = p.flipped();
            if !other.can_move(rules) {
                return worth_zero();
            }
            if entry.mv != 0 {
                return Err(fail((
                    Some(Step::Pass),
                    0,
                    None,
                    Reason::MoveNotExpected(entry.mv),
                )));
            }
            return self
                .step(Step::Pass, &other, 0, false, claim, rank)
                .map_err(fail);
        }
        // 3. The proving side plays the entry's move; the other side plays every move.
        if p.side == claim.kind.prover() {
            let hole = entry.mv as usize;
            if hole == 0 {
                return Err(fail((None, 0, None, Reason::NoMove)));
            }
            let step = Step::Move { side: p.side, hole };
            let played = p
                .play(rules, hole)
                .map_err(|why| fail((Some(step), 0, None, Reason::IllegalMove(why))))?;
            // 4. The position after it must satisfy the required claim.
            self.step(
                step,
                &played.next,
                played.south_gain,
                played.ended,
                claim,
                rank,
            )
            .map_err(fail)
        } else {
            if entry.mv != 0 {
                return Err(fail((None, 0, None, Reason::MoveNotExpected(entry.mv))));
            }
            for (hole, played) in &moves {
                let step = Step::Move {
                    side: p.side,
                    hole: *hole,
                };
                self.step(
                    step,
                    &played.next,
                    played.south_gain,
                    played.ended,
                    claim,
                    rank,
                )
                .map_err(fail)?;
            }
            Ok(())
        }
    }

    /// Checks a root claim: satisfied like a required claim, ranks aside.
    fn root(&self, p: &Position, claim: Claim) -> Result<(), Box<Failure>> {
        self.satisfied(p, false, claim, None).map_err(|reason| {
            Box::new(Failure {
                entry: None,
                position: p.clone(),
                claim,
                rank: None,
                step: None,
                gain: 0,
                required: None,
                reason,
            })
        })
    }
}

/// Checks a certificate already read, with the tables it rests on (opened for its rules
/// and `max_seeds`; `None` when it names none). Every entry is checked, on all cores; the
/// first failing entry in file order is reported.
pub fn check(cert: &Certificate, tables: Option<&Tables>) -> Result<Report, CheckError> {
    let tables = match (cert.tables, tables) {
        (Some(max_seeds), None) => return Err(CheckError::TablesNeeded { max_seeds }),
        (Some(_), Some(t)) => Some(t),
        (None, _) => None,
    };
    let checker = Checker {
        cert,
        tables,
        counts: Counts::default(),
    };
    let failure = (0..cert.len())
        .into_par_iter()
        .find_map_first(|i| checker.entry(i).err());
    if let Some(failure) = failure {
        return Err(CheckError::Rejected(failure));
    }
    for (p, claim) in &cert.roots {
        checker.root(p, *claim).map_err(CheckError::Rejected)?;
    }
    Ok(Report {
        rules: cert.rules,
        roots: cert.roots.clone(),
        entries: cert.len() as u64,
        steps: checker.counts.steps.load(Ordering::Relaxed),
        table_lookups: checker.counts.table_lookups.load(Ordering::Relaxed),
        game_ends: checker.counts.game_ends.load(Ordering::Relaxed),
        tables_max_seeds: cert.tables,
    })
}
