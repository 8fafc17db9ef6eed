//! The analysis a board streams ([`analyse_streamed`]): estimates first, then proven
//! values, each answer so far whole and consistent, for the one position analysed.
//! Re-exported from [`analysis`](crate::analysis).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use hoyito_rules::{Diagram, Move, Rules};
use hoyito_search::SearchResult;
use serde::Serialize;

use crate::analysis::{analyse_watched, fill, from_book, Analysis, AnalysisOptions, Watchdog};
use crate::policy::{self, MoveScore, Source};
use crate::setup::{dispatch, position};

/// A phase of [`analyse_streamed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// The opening book's or the certificates' proven values of every move, at once.
    Book,
    /// The quick limited analysis whose values come first (or the book's proven values).
    Estimate,
    /// The proof of every move's value, within the time limit.
    Proof,
}

/// An answer so far of [`analyse_streamed`]: the whole analysis of the one position, its
/// move, value, line and every move's value agreeing ([`policy::agree`]).
#[derive(Clone, Debug, Serialize)]
pub struct Streamed {
    /// The phase it comes from.
    pub phase: Phase,
    /// Whether it is the phase's last answer.
    #[serde(rename = "final")]
    pub last: bool,
    /// The analysis so far.
    #[serde(flatten)]
    pub analysis: Analysis,
}

/// The analysis a board streams (the web board): every move's value of the position, first
/// an estimate within `estimate_ms` (the book's proven values where it holds them), then,
/// unless that proved them all, an exact analysis within the time limit of `options`. Each
/// answer so far goes to `on_update` whole: during the proof, the moves it has not valued
/// yet keep their estimates, and the move, value and line agree with the values shown.
/// Returns the last answer.
pub fn analyse_streamed(
    rules: &Rules,
    d: Option<&Diagram>,
    options: &AnalysisOptions,
    estimate_ms: u64,
    on_update: impl Fn(&Streamed) + Send + Sync + 'static,
) -> Result<Streamed> {
    // Where the book proves the position and every move, that is the whole answer.
    if !options.no_book {
        if let Some(analysis) = dispatch!(rules, book_of_every_move(rules, d)) {
            let answer = Streamed {
                phase: Phase::Book,
                last: true,
                analysis,
            };
            on_update(&answer);
            return Ok(answer);
        }
    }
    let on_update = Arc::new(on_update);
    let base = AnalysisOptions {
        all_moves: true,
        ..options.clone()
    };
    let estimate_options = AnalysisOptions {
        exact: false,
        time_ms: Some(estimate_ms.max(1)),
        ..base.clone()
    };
    let tell = Arc::clone(&on_update);
    let watchdog = Watchdog::quiet().with_updates(move |a: &Analysis| {
        tell(&Streamed {
            phase: Phase::Estimate,
            last: false,
            analysis: a.clone(),
        })
    });
    let estimate = analyse_watched(rules, d, &estimate_options, &watchdog)?;
    let proven = estimate.exact && estimate.moves.iter().flatten().all(|m| m.exact);
    let first = Streamed {
        phase: if proven && estimate.source == Source::Book {
            Phase::Book
        } else {
            Phase::Estimate
        },
        last: true,
        analysis: estimate.clone(),
    };
    on_update(&first);
    let stopped = options
        .stop
        .as_ref()
        .is_some_and(|s| s.load(Ordering::Relaxed));
    if proven || stopped || estimate.best.is_none() {
        return Ok(first);
    }
    let proof_options = AnalysisOptions {
        exact: true,
        ..base
    };
    let tell = Arc::clone(&on_update);
    let earlier = estimate.clone();
    let watchdog = Watchdog::quiet().with_updates(move |a: &Analysis| {
        tell(&Streamed {
            phase: Phase::Proof,
            last: false,
            analysis: with_estimates(a, &earlier),
        })
    });
    let proof = analyse_watched(rules, d, &proof_options, &watchdog)?;
    let last = Streamed {
        phase: Phase::Proof,
        last: true,
        analysis: with_estimates(&proof, &estimate),
    };
    on_update(&last);
    Ok(last)
}

/// A proof's answer so far, its moves not valued yet taking their estimates (kept within
/// the proof's bounds), and its move, value and line agreeing with the values: until the
/// proof has a move, the estimate's answer stands, within the proof's bounds.
fn with_estimates(proof: &Analysis, estimate: &Analysis) -> Analysis {
    let mut a = proof.clone();
    let mut moves: Vec<MoveScore> = proof.moves.clone().unwrap_or_default();
    let [lower, upper] = proof.bounds;
    for m in estimate.moves.iter().flatten() {
        if !moves.iter().any(|n| n.mv == m.mv) {
            let mut m = m.clone();
            if !m.exact && proof.exact {
                m.score = m.score.min(upper);
            }
            moves.push(m);
        }
    }
    moves.sort_by_key(|m| m.mv);
    if a.best.is_none() || (!a.exact && a.depth == 0) {
        // The proof has no answer of its own yet: the estimate's, within its bounds.
        a.best = estimate.best;
        a.pv = estimate.pv.clone();
        a.depth = estimate.depth;
        a.score = estimate.score.clamp(lower, upper.max(lower));
    }
    let mut r = SearchResult {
        best: a.best.map(Move),
        score: a.score,
        exact: a.exact,
        lower,
        upper,
        depth: a.depth,
        pv: a.pv.iter().map(|&m| Move(m)).collect(),
        nodes: a.nodes,
        seconds: a.seconds,
        stopped: a.stopped,
    };
    policy::agree(&mut r, &moves, estimate.moves.as_ref().map_or(0, Vec::len));
    fill(&mut a, &r);
    a.moves = Some(moves);
    a
}

/// The analysis of `d` with every move's value, when the book or the certificates prove the
/// position and every move (`None` otherwise).
fn book_of_every_move<const W: usize>(rules: &Rules, d: Option<&Diagram>) -> Option<Analysis> {
    let start = Instant::now();
    let p = position::<W>(rules, d).ok()?;
    let mut a = from_book(rules, &p, start)?;
    let mut moves = Vec::new();
    for c in p.moves(rules).children() {
        let score = if c.ended_game {
            c.value(0)
        } else {
            c.value(crate::strategy::proven_value(rules, &c.position)?)
        };
        moves.push(MoveScore {
            mv: c.mv.0,
            score,
            exact: true,
        });
    }
    let mut r = SearchResult {
        best: a.best.map(Move),
        score: a.score,
        exact: true,
        lower: a.score,
        upper: a.score,
        depth: 0,
        pv: a.pv.iter().map(|&m| Move(m)).collect(),
        nodes: 0,
        seconds: 0.0,
        stopped: false,
    };
    let legal = moves.len();
    policy::agree(&mut r, &moves, legal);
    fill(&mut a, &r);
    a.moves = Some(moves);
    a.seconds = start.elapsed().as_secs_f64();
    Some(a)
}
