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
use hoyito::analysis::{analyse_streamed, AnalysisOptions, EngineOptions, Streamed};
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
    let (rules, diagram) = blocking(move || board::current(&spec)).await?;
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
                let _ = tokio::task::spawn_blocking(move || job.run()).await;
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

impl Job {
    /// The analysis of the library's board stream ([`analyse_streamed`]): each answer so far
    /// sent whole, for its position.
    fn run(self) {
        let side = self.diagram.side;
        let margin = self
            .diagram
            .captured
            .map_or(0, |[s, n]| i32::from(s) - i32::from(n));
        let options = AnalysisOptions {
            time_ms: Some(self.options.analysis_ms.max(1)),
            tables: self.options.tables.clone(),
            engine: EngineOptions {
                threads: Some(1),
                hash_mb: self.options.hash_mb,
                ..EngineOptions::default()
            },
            stop: Some(Arc::clone(&self.stop)),
            ..AnalysisOptions::default()
        };
        let tx = self.tx.clone();
        let sent = analyse_streamed(
            &self.rules,
            Some(&self.diagram),
            &options,
            ESTIMATE_MS,
            move |s: &Streamed| {
                // A full stream skips an answer so far rather than hold the search up; the
                // last answer of each phase is always sent.
                let e = event(s, side, margin);
                if s.last {
                    let _ = tx.blocking_send(e);
                } else {
                    let _ = tx.try_send(e);
                }
            },
        );
        if let Err(e) = sent {
            let kind = hoyito::error::kind(&e).name();
            let error = json!({ "error": { "kind": kind, "message": format!("{e:#}") } });
            let _ = self.tx.blocking_send(error);
        }
    }
}

/// The event of an answer so far: the analysis (its position, move, value, line and every
/// move's value), with the value for South and the outcome for South counting the seeds
/// captured already.
fn event(s: &Streamed, side: Side, margin: i32) -> Value {
    let a = &s.analysis;
    let south = if side == Side::South {
        a.score
    } else {
        -a.score
    };
    let moves: Vec<Value> = a
        .moves
        .iter()
        .flatten()
        .map(|m| json!({ "move": m.mv, "score": m.score, "exact": m.exact, "depth": a.depth }))
        .collect();
    json!({
        "position": a.position,
        "phase": s.phase,
        "final": s.last,
        "source": a.source,
        "exact": a.exact,
        "score": a.score,
        "score_south": south,
        "outcome_south": margin + south,
        "best": a.best,
        "pv": a.pv,
        "depth": a.depth,
        "bounds": a.bounds,
        "moves": moves,
        "nodes": a.nodes,
        "seconds": a.seconds,
        "stopped": a.stopped,
    })
}
