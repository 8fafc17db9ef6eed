//! `GET /api/analysis?tab=ID&game=JSON`: a position's analysis streamed as server-sent
//! events. Each event `analysis` carries the answer so far (every move's value with
//! `exact`, the principal variation, the depth), first the book's proven values where it
//! holds them, then estimates, then proven values as the exact search finds them; a last
//! event `done` closes the stream. A new analysis of the same tab stops the previous one,
//! and so does closing the stream (the browser does when the position changes).

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use hoyito::analysis::{analyse_watched, Analysis, AnalysisOptions, EngineOptions, Watchdog};
use hoyito::board::{self, GameSpec};
use hoyito::{Diagram, Rules, Side};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt as _};

use crate::api::{blocking, ApiError};
use crate::AppState;

/// Longest tab id.
const MAX_TAB: usize = 64;

/// Time of the quick, limited search whose estimates come first.
const ESTIMATE_MS: u64 = 400;

#[derive(Deserialize)]
pub(crate) struct AnalysisQuery {
    /// The browser tab's id: a new analysis of a tab stops its previous one.
    tab: String,
    /// The game spec, as JSON.
    game: String,
}

/// Sets the stop flag when dropped: the stream closed.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

pub(crate) async fn analysis(
    State(state): State<AppState>,
    query: Result<Query<AnalysisQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::bad(e.body_text()))?;
    if q.tab.is_empty() || q.tab.len() > MAX_TAB {
        return Err(ApiError::bad(format!(
            "tab must be 1 to {MAX_TAB} characters"
        )));
    }
    let spec: GameSpec = crate::api::parse(q.game.as_bytes())?;
    let (rules, diagram, book) = blocking(move || {
        let (rules, diagram) = board::current(&spec)?;
        let book = board::view(&spec)?.book;
        Ok((rules, diagram, book))
    })
    .await?;
    let stop = state.start_analysis(&q.tab);
    let (tx, rx) = mpsc::channel::<Value>(64);
    let tab = q.tab.clone();
    let job_state = state.clone();
    let job_stop = Arc::clone(&stop);
    tokio::spawn(async move {
        // Wait for a free slot, unless the stream closes first.
        let slot = tokio::select! {
            slot = Arc::clone(&job_state.inner.slots).acquire_owned() => slot.ok(),
            _ = tx.closed() => None,
        };
        if let Some(slot) = slot {
            if !job_stop.load(Ordering::Relaxed) {
                let options = job_state.options().clone();
                let (stop, tx) = (Arc::clone(&job_stop), tx.clone());
                let job = Job {
                    rules,
                    diagram,
                    options,
                    stop,
                    tx,
                };
                let _ = tokio::task::spawn_blocking(move || job.run(book)).await;
            }
            drop(slot);
        }
        let _ = tx.send(json!({ "done": true })).await;
        job_state.end_analysis(&tab, &job_stop);
    });
    let guard = StopOnDrop(stop);
    let events = ReceiverStream::new(rx).map(move |v| {
        let _ = &guard;
        let name = if v.get("done").is_some() {
            "done"
        } else if v.get("error").is_some() {
            "failure"
        } else {
            "analysis"
        };
        Ok(Event::default().event(name).data(v.to_string()))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}

/// One analysis: its position, the server's options, its stop flag and its stream.
struct Job {
    rules: Rules,
    diagram: Diagram,
    options: crate::Options,
    stop: Arc<AtomicBool>,
    tx: mpsc::Sender<Value>,
}

/// A move's value so far.
#[derive(Clone, Copy)]
struct Valued {
    score: i32,
    exact: bool,
    depth: u32,
}

/// The answer so far, merged over the phases: a later phase's value of a move replaces an
/// earlier one when it is proven (or the earlier one was only an estimate too).
#[derive(Default)]
struct Merged {
    /// Seeds South has captured more than North so far.
    margin: i32,
    head: Option<Value>,
    moves: std::collections::BTreeMap<u8, Valued>,
}

impl Merged {
    fn add(&mut self, phase: &str, a: &Analysis, side: Side) {
        let proving = phase == "proof";
        for m in a.moves.iter().flatten() {
            let new = Valued {
                score: m.score,
                exact: m.exact,
                depth: a.depth,
            };
            match self.moves.get(&m.mv) {
                Some(_) if proving && !new.exact => {}
                Some(old) if old.exact && !new.exact => {}
                _ => {
                    self.moves.insert(m.mv, new);
                }
            }
        }
        let keep_head = proving && !a.exact && self.head.is_some();
        if !keep_head && (a.best.is_some() || self.head.is_none()) {
            let south = if side == Side::South {
                a.score
            } else {
                -a.score
            };
            self.head = Some(json!({
                "source": a.source,
                "exact": a.exact,
                "score": a.score,
                "score_south": south,
                "outcome_south": self.margin + south,
                "best": a.best,
                "pv": a.pv,
                "depth": a.depth,
                "bounds": a.bounds,
            }));
        }
    }

    fn event(&self, phase: &str, last: bool, a: &Analysis) -> Value {
        let moves: Vec<Value> = self
            .moves
            .iter()
            .map(|(mv, v)| json!({ "move": mv, "score": v.score, "exact": v.exact, "depth": v.depth }))
            .collect();
        let mut e = self.head.clone().unwrap_or_else(|| json!({}));
        e["phase"] = json!(phase);
        e["final"] = json!(last);
        e["moves"] = json!(moves);
        e["nodes"] = json!(a.nodes);
        e["seconds"] = json!(a.seconds);
        e["stopped"] = json!(a.stopped);
        e
    }
}

impl Job {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The phases: the book's values where it holds every move; else a quick limited
    /// search (estimates), then an exact search within the server's time (proven values).
    fn run(self, book: Option<Vec<board::MoveValue>>) {
        let side = self.diagram.side;
        let margin = self
            .diagram
            .captured
            .map_or(0, |[s, n]| i32::from(s) - i32::from(n));
        if let Some(book) = book {
            // The first of the best moves, as the book names its best.
            let best = book.iter().fold(None::<&board::MoveValue>, |b, m| match b {
                Some(b) if b.value >= m.value => Some(b),
                _ => Some(m),
            });
            let score = best.map_or(0, |m| m.value);
            let south = if side == Side::South { score } else { -score };
            let moves: Vec<Value> = book
                .iter()
                .map(|m| json!({ "move": m.mv, "score": m.value, "exact": true, "depth": 0 }))
                .collect();
            let _ = self.tx.blocking_send(json!({
                "phase": "book",
                "final": true,
                "source": "book",
                "exact": true,
                "score": score,
                "score_south": south,
                "outcome_south": margin + south,
                "best": best.map(|m| m.mv),
                "pv": best.map(|m| vec![m.mv]).unwrap_or_default(),
                "depth": 0,
                "bounds": [score, score],
                "moves": moves,
            }));
            return;
        }
        let base = AnalysisOptions {
            all_moves: true,
            tables: self.options.tables.clone(),
            engine: EngineOptions {
                threads: Some(1),
                hash_mb: self.options.hash_mb,
                ..EngineOptions::default()
            },
            stop: Some(Arc::clone(&self.stop)),
            ..AnalysisOptions::default()
        };
        let merged = Arc::new(std::sync::Mutex::new(Merged {
            margin,
            ..Merged::default()
        }));
        let estimate = AnalysisOptions {
            time_ms: Some(ESTIMATE_MS),
            ..base.clone()
        };
        let Some(first) = self.phase("estimate", &estimate, &merged, side) else {
            return;
        };
        let proven = first.exact && first.moves.iter().flatten().all(|m| m.exact);
        if proven || self.stopped() || first.best.is_none() {
            return;
        }
        let exact = AnalysisOptions {
            exact: true,
            time_ms: Some(self.options.analysis_ms.max(1)),
            ..base
        };
        self.phase("proof", &exact, &merged, side);
    }

    /// Runs one phase, streaming its answers so far and its last; `None` after an error
    /// (sent on the stream).
    fn phase(
        &self,
        phase: &'static str,
        options: &AnalysisOptions,
        merged: &Arc<std::sync::Mutex<Merged>>,
        side: Side,
    ) -> Option<Analysis> {
        let (tx, m) = (self.tx.clone(), Arc::clone(merged));
        let watchdog = Watchdog::quiet().with_updates(move |a: &Analysis| {
            let mut m = m.lock().unwrap_or_else(|e| e.into_inner());
            m.add(phase, a, side);
            // A full stream skips an answer so far rather than hold the search up.
            let _ = tx.try_send(m.event(phase, false, a));
        });
        match analyse_watched(&self.rules, Some(&self.diagram), options, &watchdog) {
            Ok(a) => {
                let mut m = merged.lock().unwrap_or_else(|e| e.into_inner());
                m.add(phase, &a, side);
                let _ = self.tx.blocking_send(m.event(phase, true, &a));
                Some(a)
            }
            Err(e) => {
                let _ = self.tx.blocking_send(json!({ "error": format!("{e:#}") }));
                None
            }
        }
    }
}
