//! Errors in Python's words: the library's errors raised by kind as subclasses of
//! `ValueError` (`hoyito.HoyitoError` and below it `BadPosition`, `IllegalMove`, `BadRules`,
//! `BadOption`, `BadRecord`, `TablesError`), I/O as `OSError`, a missing path as
//! `FileNotFoundError`. A bad option names the keyword argument (the library's field names
//! are the package's keywords).

use std::path::Path;

use pyo3::create_exception;
use pyo3::exceptions::{
    PyFileNotFoundError, PyOSError, PyOverflowError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;

create_exception!(
    hoyito,
    HoyitoError,
    PyValueError,
    "An error of the hoyito library (a ValueError): its subclasses say which kind."
);
create_exception!(
    hoyito,
    BadPosition,
    HoyitoError,
    "A position's text or contents are wrong for the rules."
);
create_exception!(
    hoyito,
    IllegalMove,
    HoyitoError,
    "A move that is not legal in its position, or a game that is over."
);
create_exception!(
    hoyito,
    BadRules,
    HoyitoError,
    "Rule options out of range or unknown."
);
create_exception!(
    hoyito,
    BadOption,
    HoyitoError,
    "An argument out of range, named in the message."
);
create_exception!(
    hoyito,
    BadRecord,
    HoyitoError,
    "A game record that does not read."
);
create_exception!(
    hoyito,
    TablesError,
    HoyitoError,
    "Endgame tables missing, for other rules, or damaged."
);

/// Adds the exception classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("HoyitoError", py.get_type::<HoyitoError>())?;
    m.add("BadPosition", py.get_type::<BadPosition>())?;
    m.add("IllegalMove", py.get_type::<IllegalMove>())?;
    m.add("BadRules", py.get_type::<BadRules>())?;
    m.add("BadOption", py.get_type::<BadOption>())?;
    m.add("BadRecord", py.get_type::<BadRecord>())?;
    m.add("TablesError", py.get_type::<TablesError>())?;
    Ok(())
}

/// An error of the library's engine crates (a position, a move, rules, a record), raised by
/// its kind as [`lib_error`] does.
pub(crate) fn value_error<E: std::error::Error + Send + Sync + 'static>(e: E) -> PyErr {
    lib_error(hoyito::Error::new(e))
}

/// The library's errors with their causes (joined by `: `), raised by their kind.
pub(crate) fn lib_error(e: hoyito::Error) -> PyErr {
    use hoyito::ErrorKind;
    let message = format!("{e:#}");
    match hoyito::error::kind(&e) {
        ErrorKind::BadPosition => BadPosition::new_err(message),
        ErrorKind::IllegalMove => IllegalMove::new_err(message),
        ErrorKind::BadRules => BadRules::new_err(message),
        ErrorKind::BadOption => BadOption::new_err(message),
        ErrorKind::BadRecord => BadRecord::new_err(message),
        ErrorKind::Tables => TablesError::new_err(message),
        ErrorKind::Io => PyOSError::new_err(message),
        _ => HoyitoError::new_err(message),
    }
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

/// The integer `value` holds (anything with `__index__`, numpy's integers too), `None`
/// when it needs more than 64 bits; `TypeError` when it is no integer.
fn index_of(value: &Bound<'_, PyAny>) -> PyResult<Option<i128>> {
    match value.extract::<i64>() {
        Ok(v) => Ok(Some(i128::from(v))),
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => {
            Ok(value.extract::<u64>().ok().map(i128::from))
        }
        Err(_) => Err(PyTypeError::new_err(format!(
            "expected an integer, not {}",
            value.get_type().name()?
        ))),
    }
}

/// An integer argument `name` within `lo..=hi`: `ValueError` naming the argument when it is
/// out of range, `TypeError` naming it when it is no integer (rather than pyo3's
/// `OverflowError` or conversion message).
pub(crate) fn int_arg<T: TryFrom<i128>>(
    name: &str,
    value: &Bound<'_, PyAny>,
    lo: i64,
    hi: i64,
) -> PyResult<T> {
    let v = index_of(value).map_err(|e| named(name, e))?;
    v.filter(|v| (i128::from(lo)..=i128::from(hi)).contains(v))
        .and_then(|v| T::try_from(v).ok())
        .ok_or_else(|| PyValueError::new_err(format!("{name} must be {lo} to {hi}, not {value}")))
}

/// A `seed` argument: any integer from 0 to 2**64 - 1.
pub(crate) fn seed_arg(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    index_of(value)
        .map_err(|e| named("seed", e))?
        .and_then(|v| u64::try_from(v).ok())
        .ok_or_else(|| PyValueError::new_err(format!("seed must be 0 to 2**64 - 1, not {value}")))
}

/// `e` with the argument's name in front (as pyo3 words a `TypeError` of an argument).
fn named(name: &str, e: PyErr) -> PyErr {
    Python::attach(|py| PyTypeError::new_err(format!("{name}: {}", e.value(py))))
}

/// An integer argument as given (`None`: beyond 64 bits), checked where its name is known:
/// a negative count or one too large raises `ValueError` naming the argument, rather than
/// pyo3's `OverflowError`; anything but an integer raises `TypeError`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Int(Option<i128>);

impl Int {
    /// The integer `v`, as a default.
    pub(crate) const fn of(v: i64) -> Self {
        Int(Some(v as i128))
    }

    /// A count or a limit: a non-negative integer that fits `T`.
    pub(crate) fn count<T: TryFrom<i128>>(self, name: &str) -> PyResult<T> {
        match self.0 {
            Some(v) if v >= 0 => T::try_from(v)
                .map_err(|_| PyValueError::new_err(format!("{name} is too large: {v}"))),
            Some(v) => Err(PyValueError::new_err(format!(
                "{name} must not be negative, not {v}"
            ))),
            None => Err(PyValueError::new_err(format!(
                "{name} is out of range (beyond 64 bits)"
            ))),
        }
    }

    /// A signed integer that fits `T`.
    pub(crate) fn signed<T: TryFrom<i128>>(self, name: &str) -> PyResult<T> {
        self.0
            .and_then(|v| T::try_from(v).ok())
            .ok_or_else(|| PyValueError::new_err(format!("{name} is out of range")))
    }
}

impl std::fmt::Display for Int {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(v) => write!(f, "{v}"),
            None => f.write_str("(beyond 64 bits)"),
        }
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        index_of(&obj).map(Int)
    }
}

/// An optional count (see [`Int::count`]).
pub(crate) fn opt_count<T: TryFrom<i128>>(name: &str, v: Option<Int>) -> PyResult<Option<T>> {
    v.map(|v| v.count(name)).transpose()
}
