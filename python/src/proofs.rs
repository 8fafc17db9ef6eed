//! Proofs with certificates and their independent check: `prove`, `Proof`, `check_proof`.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use hoyito::proof::{ProofControl, ProofOptions};
use pyo3::prelude::*;

use crate::errors::{lib_error, need_path, opt_count, value_error, Int};
use crate::interrupt::interruptible;
use crate::rules::PyPosition;
use crate::search::to_python;
use crate::tables::{tables_path, TablesArg};

/// The result of prove(): the proven value for the side to move and a move that keeps it.
#[pyclass(name = "Proof", module = "hoyito", frozen)]
pub(crate) struct PyProof {
    value: Option<i32>,
    best: Option<u8>,
    bounds: [i32; 2],
    complete: bool,
    json: String,
}

#[pymethods]
impl PyProof {
    /// The proven value for the side to move (None: the run stopped before proving it).
    #[getter]
    fn value(&self) -> Option<i32> {
        self.value
    }

    /// A move that keeps the value, proven.
    #[getter(r#move)]
    fn best(&self) -> Option<u8> {
        self.best
    }

    /// Proven bounds of the value: (lower, upper).
    #[getter]
    fn bounds(&self) -> (i32, i32) {
        (self.bounds[0], self.bounds[1])
    }

    /// Whether everything asked is proven.
    #[getter]
    fn complete(&self) -> bool {
        self.complete
    }

    /// The whole report as a dict, as `solve prove --json` prints it (the certificate
    /// written, the work done).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (&self.json,))
    }

    fn __repr__(&self) -> String {
        format!(
            "<Proof value={} move={} complete={}>",
            self.value.map_or("None".to_string(), |v| v.to_string()),
            self.best.map_or("None".to_string(), |m| m.to_string()),
            if self.complete { "True" } else { "False" }
        )
    }
}

/// Proves the exact value of a position by threshold proofs over the endgame tables (as
/// `solve prove`), writing a certificate that check_proof() verifies when `certificate`
/// names a file.
///
/// - tables: a folder of endgame tables, or a Tables (2x6; default: data/tables when built)
/// - certificate: the file to write the certificate to
/// - state: a folder for the run's state (a stopped run resumes from it)
/// - time_limit: stop after this many seconds; at_least: prove only whether the side to
///   move gets at least this many seeds; all_moves: prove every move's value too
///
/// Ctrl-C stops the run (its state kept) and raises KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (position=None, tables=None, certificate=None, *, state=None, time_limit=None, at_least=None, all_moves=false, threads=None, no_tables=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn prove(
    py: Python<'_>,
    position: Option<PyPosition>,
    tables: Option<TablesArg>,
    certificate: Option<PathBuf>,
    state: Option<PathBuf>,
    time_limit: Option<Int>,
    at_least: Option<Int>,
    all_moves: bool,
    threads: Option<Int>,
    no_tables: bool,
) -> PyResult<PyProof> {
    let time_limit = opt_count("time_limit", time_limit)?;
    let at_least = at_least.map(|a| a.signed("at_least")).transpose()?;
    let threads = opt_count("threads", threads)?;
    let position = match position {
        Some(p) => p,
        None => PyPosition::new(None, None)?,
    };
    let options = ProofOptions {
        tables: tables_path(tables.as_ref())?,
        no_tables,
        state,
        certificate,
        all_moves,
        at_least,
        time_limit,
        threads,
        ..ProofOptions::default()
    };
    let stop = Arc::new(AtomicBool::new(false));
    let control = ProofControl {
        stop: Some(Arc::clone(&stop)),
        progress: None,
    };
    let d = position.diagram();
    let rules = position.rules;
    let report = interruptible(py, &stop, || {
        hoyito::proof::prove(&rules, Some(&d), &options, &control)
    })?
    .map_err(lib_error)?;
    Ok(PyProof {
        value: report.value(),
        best: report.best(),
        bounds: report.bounds(),
        complete: report.complete(),
        json: serde_json::to_string(&report).map_err(value_error)?,
    })
}

/// Checks a proof certificate with the independent checker, which shares no code with the
/// engine (as `solve check-proof`). `tables`: the folder of the endgame tables the
/// certificate rests on. Returns the checker's report as a dict; a rejected certificate
/// raises ValueError naming the failing entry, a missing file FileNotFoundError.
#[pyfunction]
#[pyo3(signature = (path, tables=None, *, verify_tables=false))]
pub(crate) fn check_proof<'py>(
    py: Python<'py>,
    path: PathBuf,
    tables: Option<TablesArg>,
    verify_tables: bool,
) -> PyResult<Bound<'py, PyAny>> {
    need_path(&path)?;
    let tables = tables_path(tables.as_ref())?;
    let report = py
        .detach(|| {
            hoyito::checking::check_proof(
                &path,
                tables.as_deref(),
                verify_tables,
                &hoyito::check::Silent,
            )
        })
        .map_err(lib_error)?;
    to_python(py, &report)
}
