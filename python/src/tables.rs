//! Endgame tables: `Tables`, and the argument that names them.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::errors::{lib_error, need_path, opt_count, value_error, Int};
use crate::interrupt::interruptible;
use crate::rules::{rules_or_default, PyPosition, PyRules};

/// A tables folder given as a path or as a Tables object.
#[derive(FromPyObject)]
pub(crate) enum TablesArg {
    Tables(Py<PyTables>),
    Path(PathBuf),
}

impl TablesArg {
    fn path(&self) -> PathBuf {
        match self {
            TablesArg::Tables(t) => t.get().path.clone(),
            TablesArg::Path(p) => p.clone(),
        }
    }
}

/// The path of a tables argument, checked to exist.
pub(crate) fn tables_path(tables: Option<&TablesArg>) -> PyResult<Option<PathBuf>> {
    let Some(t) = tables else {
        return Ok(None);
    };
    let path = t.path();
    need_path(&path)?;
    Ok(Some(path))
}

/// Endgame tables on disk (2x6): the exact value of every position with few enough seeds.
///
/// Tables(path, rules=None, max_seeds=None): the tables of `rules` (default Rules()) in the
/// folder `path` (as `solve tables build --dir` writes them), the layers up to `max_seeds`
/// (default all). Each layer is read and checked whole.
#[pyclass(name = "Tables", module = "hoyito", frozen)]
pub(crate) struct PyTables {
    pub(crate) tables: Arc<hoyito::tables::Tables>,
    pub(crate) path: PathBuf,
}

#[pymethods]
impl PyTables {
    #[new]
    #[pyo3(signature = (path, rules=None, max_seeds=None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        rules: Option<PyRules>,
        max_seeds: Option<Int>,
    ) -> PyResult<Self> {
        let max_seeds: Option<usize> = opt_count("max_seeds", max_seeds)?;
        need_path(&path)?;
        let rules = rules_or_default(rules);
        let max = max_seeds.unwrap_or(usize::MAX);
        let tables = py
            .detach(|| hoyito::endgame::open_layers(&rules, &path, max))
            .map_err(lib_error)?;
        Ok(PyTables {
            tables: Arc::new(tables),
            path,
        })
    }

    /// Builds the tables of `rules` (default Rules()) up to `max_seeds` seeds on the board
    /// in the folder `path` (as `solve tables build`; layers already there are kept) and
    /// opens them. Ctrl-C stops the build (the finished layers stay).
    #[classmethod]
    #[pyo3(signature = (path, max_seeds, rules=None))]
    fn build(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        path: PathBuf,
        max_seeds: Int,
        rules: Option<PyRules>,
    ) -> PyResult<Self> {
        let max_seeds = max_seeds.count("max_seeds")?;
        let r = rules_or_default(rules);
        let stop = Arc::new(AtomicBool::new(false));
        let progress = StopBuild(Arc::clone(&stop));
        let dir = path.clone();
        interruptible(py, &stop, || {
            hoyito::tables::build(&dir, &r, max_seeds, &progress)
        })?
        .map_err(value_error)?;
        Self::new(py, path, rules, None)
    }

    /// The folder.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The rules the tables are of.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            rules: *self.tables.rules(),
        }
    }

    /// The most seeds on the board of the positions they hold.
    #[getter]
    fn max_seeds(&self) -> usize {
        self.tables.max_seeds()
    }

    /// The exact value of `position` for its side to move (net seeds it captures from here
    /// on). A position beyond the tables, or of other rules, raises ValueError.
    fn probe(&self, position: PyPosition) -> PyResult<i32> {
        position.check_rules(self.tables.rules())?;
        let p = position.small()?;
        match self.tables.probe(&p) {
            Some(v) => Ok(v),
            None => Err(match hoyito::endgame::probe(&self.tables, &p) {
                Err(e) => lib_error(e),
                Ok(_) => PyValueError::new_err("the tables do not hold the position"),
            }),
        }
    }

    /// The value of `position`, or None when the tables do not hold it.
    fn get(&self, position: PyPosition) -> PyResult<Option<i32>> {
        position.check_rules(self.tables.rules())?;
        Ok(self.tables.probe(&position.small()?))
    }

    /// Every legal move of `position` with its exact value for the side to move:
    /// [(hole, value), ...]. Raises ValueError beyond the tables.
    fn move_values(&self, position: PyPosition) -> PyResult<Vec<(u8, i32)>> {
        self.probe(position)?;
        let p = position.small()?;
        Ok(self
            .tables
            .move_values(&p)
            .unwrap_or_default()
            .iter()
            .map(|m| (m.mv.0, m.value))
            .collect())
    }

    fn __contains__(&self, position: PyPosition) -> bool {
        position.check_rules(self.tables.rules()).is_ok()
            && position
                .small()
                .is_ok_and(|p| self.tables.probe(&p).is_some())
    }

    fn __repr__(&self) -> String {
        format!(
            "<Tables '{}' up to {} seeds>",
            self.path.display(),
            self.tables.max_seeds()
        )
    }
}

/// A table build that stops when Ctrl-C sets the flag.
pub(crate) struct StopBuild(Arc<AtomicBool>);

impl hoyito::tables::Progress for StopBuild {
    fn stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
