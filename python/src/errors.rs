//! Errors in Python's words: the library's errors raised as `ValueError`, a missing path
//! as `FileNotFoundError`.

use std::path::Path;

use pyo3::exceptions::{PyFileNotFoundError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyInt;

/// Every error of the library, raised as `ValueError` with its message (causes joined by
/// `: `).
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The library's `anyhow` errors with their causes.
pub(crate) fn lib_error(e: hoyito::Error) -> PyErr {
    PyValueError::new_err(format!("{e:#}"))
}

/// `FileNotFoundError` for a path the call needs and that is not there.
pub(crate) fn need_path(path: &Path) -> PyResult<()> {
    if path.exists() {
        Ok(())
    } else {
        Err(PyFileNotFoundError::new_err((
            2,
            "No such file or directory",
            path.display().to_string(),
        )))
    }
}

/// An integer argument `name` within `lo..=hi`: `ValueError` naming the argument when it is
/// out of range, `TypeError` when it is no integer (rather than pyo3's `OverflowError` or
/// conversion message).
pub(crate) fn int_arg<T: TryFrom<i64>>(
    name: &str,
    value: &Bound<'_, PyAny>,
    lo: i64,
    hi: i64,
) -> PyResult<T> {
    if !value.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an integer, not {}",
            value.get_type().name()?
        )));
    }
    let out_of_range =
        || PyValueError::new_err(format!("{name} must be {lo} to {hi}, not {value}"));
    let v: i64 = value.extract().map_err(|_| out_of_range())?;
    if !(lo..=hi).contains(&v) {
        return Err(out_of_range());
    }
    T::try_from(v).map_err(|_| out_of_range())
}

/// A `seed` argument: any integer from 0 to 2**64 - 1.
pub(crate) fn seed_arg(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    if !value.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "seed must be an integer, not {}",
            value.get_type().name()?
        )));
    }
    value
        .extract::<u64>()
        .map_err(|_| PyValueError::new_err(format!("seed must be 0 to 2**64 - 1, not {value}")))
}
