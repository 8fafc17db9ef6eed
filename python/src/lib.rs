//! The Python package `hoyito`: a thin binding over the `hoyito` library. It converts types,
//! releases the GIL during searches, turns Ctrl-C into the library's stop flag and the
//! library's errors into `ValueError` subclasses by kind (`IllegalMove`, ...); every rule, search and report is the library's.
//!
//! Built by maturin as `hoyito._hoyito`; `python/hoyito/__init__.py` re-exports it. A file
//! per concern: rules and positions (`rules`), games (`games`), the best move (`search`),
//! proofs (`proofs`), endgame tables (`tables`), playouts and opponents (`agents`), games
//! stepped together for learning agents (`batch`), errors in Python's words (`errors`) and
//! Ctrl-C during long calls (`interrupt`).

mod agents;
mod batch;
mod errors;
mod games;
mod interrupt;
mod proofs;
mod rules;
mod search;
mod tables;

use pyo3::prelude::*;

use agents::{random_playouts, PyOpponent, PyPlayouts};
use batch::PyBatch;
use games::{read_records, PyGame};
use proofs::{check_proof, prove, PyProof};
use rules::{perft, PyPosition, PyRules};
use search::{best, PyAnalysis};
use tables::PyTables;

/// The Python module `hoyito._hoyito`, re-exported as `hoyito`.
#[pymodule]
fn _hoyito(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<PyRules>()?;
    m.add_class::<PyPosition>()?;
    m.add_class::<PyGame>()?;
    m.add_class::<PyAnalysis>()?;
    m.add_class::<PyProof>()?;
    m.add_class::<PyTables>()?;
    m.add_class::<PyPlayouts>()?;
    m.add_class::<PyOpponent>()?;
    m.add_class::<PyBatch>()?;
    m.add_function(wrap_pyfunction!(best, m)?)?;
    m.add_function(wrap_pyfunction!(prove, m)?)?;
    m.add_function(wrap_pyfunction!(check_proof, m)?)?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(read_records, m)?)?;
    m.add_function(wrap_pyfunction!(random_playouts, m)?)?;
    Ok(())
}
