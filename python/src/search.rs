//! The best move and value by the library's one policy: `best` and its `Analysis`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use hoyito::analysis::{AnalysisOptions, EngineOptions};
use pyo3::prelude::*;

use crate::errors::{lib_error, opt_count, value_error, Int};
use crate::interrupt::interruptible;
use crate::rules::{ints, PyPosition};
use crate::tables::{tables_path, TablesArg};

/// A Python object of a report the library serialises (its JSON, as `solve --json` prints
/// it, read by the json module).
pub(crate) fn to_python<'py>(
    py: Python<'py>,
    report: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(report).map_err(value_error)?;
    py.import("json")?.call_method1("loads", (text,))
}

/// The answer of best(): the best move and the value for the side to move, and how they
/// were found. `value` is the net seeds the side to move captures from here on under best
/// play (proven when `exact`), as `solve best` reports it.
#[pyclass(name = "Analysis", module = "hoyito", frozen)]
pub(crate) struct PyAnalysis {
    a: hoyito::analysis::Analysis,
}

#[pymethods]
impl PyAnalysis {
    /// The best move (a hole number), or None when there is no move to play.
    #[getter(r#move)]
    fn best(&self) -> Option<u8> {
        self.a.best
    }

    /// The value for the side to move, in seeds.
    #[getter]
    fn value(&self) -> i32 {
        self.a.score
    }

    /// Whether the value is proven.
    #[getter]
    fn exact(&self) -> bool {
        self.a.exact
    }

    /// The principal variation (hole numbers; extra turns included).
    #[getter]
    fn pv(&self) -> Vec<u32> {
        ints(self.a.pv.iter().copied())
    }

    /// What decided the answer: "book", "tables", "proof" or "search".
    #[getter]
    fn source(&self) -> &'static str {
        self.a.source.name()
    }

    /// The search mode, in words.
    #[getter]
    fn mode(&self) -> String {
        self.a.mode.clone()
    }

    /// Proven bounds of the value: (lower, upper).
    #[getter]
    fn bounds(&self) -> (i32, i32) {
        (self.a.bounds[0], self.a.bounds[1])
    }

    /// Depth of the last finished iteration.
    #[getter]
    fn depth(&self) -> u32 {
        self.a.depth
    }

    /// Nodes searched.
    #[getter]
    fn nodes(&self) -> u64 {
        self.a.nodes
    }

    /// Seconds the analysis took.
    #[getter]
    fn seconds(&self) -> f64 {
        self.a.seconds
    }

    /// Whether a limit (or a stop) ended the search.
    #[getter]
    fn stopped(&self) -> bool {
        self.a.stopped
    }

    /// With all_moves=True: (hole, value, exact) for every legal move; else None.
    #[getter]
    fn moves(&self) -> Option<Vec<(u8, i32, bool)>> {
        self.a
            .moves
            .as_ref()
            .map(|m| m.iter().map(|m| (m.mv, m.score, m.exact)).collect())
    }

    /// The whole report as a dict, as `solve best --json` prints it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.a)
    }

    fn __str__(&self) -> String {
        self.a.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Analysis move={} value={} exact={} source={}>",
            self.a.best.map_or("None".to_string(), |m| m.to_string()),
            self.a.score,
            if self.a.exact { "True" } else { "False" },
            self.a.source.name()
        )
    }
}

/// The best move and value of a position, by the library's one policy (as `solve best`):
/// the opening book answers at once when it holds the position and no limit is given; the
/// endgame tables and an exact search answer small positions; else a search limited by
/// depth, time or nodes (3 s when none is given and the position is too large to solve
/// quickly).
///
/// - depth: search this many plies (extra turns count)
/// - time_ms: search this many milliseconds (the whole call)
/// - exact: search to the end of the game and prove the value (may take long: Ctrl-C stops it)
/// - tables: a folder of endgame tables, or a Tables (2x6 only; default: data/tables of the
///   current folder when built there)
/// - nodes, threads (default: all cores), hash_mb, book (False: search even when the book
///   holds the position), no_tables, all_moves (also value every move)
///
/// Returns an Analysis (.move, .value for the side to move, .exact, .pv, .source, ...).
/// Bad options raise ValueError; Ctrl-C raises KeyboardInterrupt at once.
#[pyfunction]
#[pyo3(
    signature = (position=None, depth=None, time_ms=None, exact=false, tables=None, *, nodes=None, threads=None, hash_mb=Int::of(64), book=true, no_tables=false, all_moves=false),
    text_signature = "(position=None, depth=None, time_ms=None, exact=False, tables=None, *, nodes=None, threads=None, hash_mb=64, book=True, no_tables=False, all_moves=False)"
)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn best(
    py: Python<'_>,
    position: Option<PyPosition>,
    depth: Option<Int>,
    time_ms: Option<Int>,
    exact: bool,
    tables: Option<TablesArg>,
    nodes: Option<Int>,
    threads: Option<Int>,
    hash_mb: Int,
    book: bool,
    no_tables: bool,
    all_moves: bool,
) -> PyResult<PyAnalysis> {
    let position = match position {
        Some(p) => p,
        None => PyPosition::new(None, None)?,
    };
    let depth = opt_count("depth", depth)?;
    let time_ms = opt_count("time_ms", time_ms)?;
    let nodes = opt_count("nodes", nodes)?;
    let threads = opt_count("threads", threads)?;
    let hash_mb = hash_mb.count("hash_mb")?;
    let stop = Arc::new(AtomicBool::new(false));
    let options = AnalysisOptions {
        depth,
        time_ms,
        nodes,
        exact,
        all_moves,
        tables: tables_path(tables.as_ref())?,
        no_tables,
        no_book: !book,
        engine: EngineOptions {
            threads,
            hash_mb,
            ..EngineOptions::default()
        },
        stop: Some(Arc::clone(&stop)),
    };
    let d = position.diagram();
    let rules = position.rules;
    let a = interruptible(py, &stop, || {
        hoyito::analysis::analyse(&rules, Some(&d), &options)
    })?
    .map_err(lib_error)?;
    Ok(PyAnalysis { a })
}
