//! The library's errors by kind. Every error the library returns has a kind
//! ([`ErrorKind`], from [`kind`]): a bad position, an illegal move, bad rules, a bad option
//! (named as a field of the library's options: [`field`]), a bad record, tables missing or
//! damaged, I/O, a stop. Its message is in the library's own words; each front words it in
//! its own terms: the `solve` command names its flags, Python raises `ValueError`
//! subclasses naming keyword arguments, the web board answers 4xx with the kind.
//!
//! ```
//! use hoyito::analysis::{analyse, AnalysisOptions};
//! use hoyito::error::{field, kind, ErrorKind};
//! use hoyito::Rules;
//!
//! let options = AnalysisOptions { depth: Some(0), ..AnalysisOptions::default() };
//! let e = analyse(&Rules::default(), None, &options).unwrap_err();
//! assert_eq!(kind(&e), ErrorKind::BadOption);
//! assert_eq!(field(&e), Some("depth"));
//! assert_eq!(e.to_string(), "depth must be at least 1");
//! ```

use std::fmt;

use serde::Serialize;

/// What kind of error an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// A position's text or contents are wrong for the rules.
    BadPosition,
    /// A move that is not legal in its position (or a game that is over).
    IllegalMove,
    /// Rule options out of range or unknown.
    BadRules,
    /// An option out of range, named by [`field`].
    BadOption,
    /// A game record that does not read.
    BadRecord,
    /// Endgame tables missing, for other rules, or damaged.
    Tables,
    /// A file could not be read or written.
    Io,
    /// The work was stopped (Ctrl-C, a time limit).
    Stopped,
    /// Anything else (a certificate that does not check, a program that does not answer
    /// the protocol ...).
    Other,
}

impl ErrorKind {
    /// The kind's name, as the JSON answers spell it.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::BadPosition => "bad_position",
            ErrorKind::IllegalMove => "illegal_move",
            ErrorKind::BadRules => "bad_rules",
            ErrorKind::BadOption => "bad_option",
            ErrorKind::BadRecord => "bad_record",
            ErrorKind::Tables => "tables",
            ErrorKind::Io => "io",
            ErrorKind::Stopped => "stopped",
            ErrorKind::Other => "other",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error the library raises itself: its kind, the option it names (a field of the
/// library's options, such as `depth` or `time_ms`), and its message in the library's
/// words. It travels inside the library's [`Error`](crate::Error); [`kind`] and [`field`]
/// find it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    kind: ErrorKind,
    field: Option<&'static str>,
    /// Other options the message names (a combination of options that does not hold).
    others: &'static [&'static str],
    message: String,
}

impl Problem {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Problem {
            kind,
            field: None,
            others: &[],
            message: message.into(),
        }
    }

    /// A bad option: `field` (as the library's options name it) and what is wrong with
    /// it; the message is the field's name and `problem`.
    pub fn option(field: &'static str, problem: impl fmt::Display) -> Self {
        Problem {
            kind: ErrorKind::BadOption,
            field: Some(field),
            others: &[],
            message: format!("{field} {problem}"),
        }
    }

    /// [`Problem::option`] whose `problem` also names the options `others` (by their
    /// fields), which a front words as it words `field`.
    pub fn options(
        field: &'static str,
        others: &'static [&'static str],
        problem: impl fmt::Display,
    ) -> Self {
        Problem {
            others,
            ..Problem::option(field, problem)
        }
    }

    /// A combination of options that does not hold: `message` names the options `fields`
    /// (the one at fault first) by their field names, which a front words as its own.
    pub fn combination(fields: &'static [&'static str], message: impl Into<String>) -> Self {
        Problem {
            kind: ErrorKind::BadOption,
            field: fields.first().copied(),
            others: fields.get(1..).unwrap_or_default(),
            message: message.into(),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The option it names, if any.
    pub fn field(&self) -> Option<&'static str> {
        self.field
    }

    /// Every option its message names: [`Problem::field`] first, then the others.
    pub fn fields(&self) -> Vec<&'static str> {
        self.field
            .into_iter()
            .chain(self.others.iter().copied())
            .collect()
    }

    /// Its message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

/// A bad option as the library's error: see [`Problem::option`].
pub fn bad_option(field: &'static str, problem: impl fmt::Display) -> crate::Error {
    Problem::option(field, problem).into()
}

/// The kind of `e`: that of the first cause in its chain whose kind is known (the
/// library's own [`Problem`], the rules' errors, the tables', I/O), else
/// [`ErrorKind::Other`].
pub fn kind(e: &crate::Error) -> ErrorKind {
    e.chain().find_map(kind_of).unwrap_or(ErrorKind::Other)
}

/// Every option `e` names, the one at fault first (none: not a bad option).
pub fn fields(e: &crate::Error) -> Vec<&'static str> {
    e.chain()
        .find_map(|c| c.downcast_ref::<Problem>())
        .map(Problem::fields)
        .unwrap_or_default()
}

/// The option `e` names, if it is a bad option.
pub fn field(e: &crate::Error) -> Option<&'static str> {
    e.chain()
        .find_map(|c| c.downcast_ref::<Problem>())
        .and_then(Problem::field)
}

/// The kind of one cause, when it is of a type the library knows.
fn kind_of(c: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
    use hoyito_rules::{ParseError, PlayError, PositionError, RecordError, RulesError};
    if let Some(p) = c.downcast_ref::<Problem>() {
        return Some(p.kind);
    }
    if c.is::<ParseError>() || c.is::<PositionError>() {
        return Some(ErrorKind::BadPosition);
    }
    if c.is::<PlayError>() {
        return Some(ErrorKind::IllegalMove);
    }
    if c.is::<RulesError>() {
        return Some(ErrorKind::BadRules);
    }
    if c.is::<RecordError>() || c.is::<hoyito_rules::RecordWriteError>() {
        return Some(ErrorKind::BadRecord);
    }
    if let Some(e) = c.downcast_ref::<hoyito_rules::Error>() {
        return Some(match e {
            hoyito_rules::Error::Rules(_) => ErrorKind::BadRules,
            hoyito_rules::Error::Parse(_) | hoyito_rules::Error::Position(_) => {
                ErrorKind::BadPosition
            }
            hoyito_rules::Error::Play(_) => ErrorKind::IllegalMove,
        });
    }
    if let Some(e) = c.downcast_ref::<hoyito_tables::TableError>() {
        return Some(match e {
            hoyito_tables::TableError::Interrupted { .. } => ErrorKind::Stopped,
            _ => ErrorKind::Tables,
        });
    }
    if c.is::<std::io::Error>() {
        return Some(ErrorKind::Io);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context as _;

    #[test]
    fn kinds_are_found_through_the_chain() {
        let e: crate::Error = bad_option("time_ms", "must be at least 1");
        assert_eq!(e.to_string(), "time_ms must be at least 1");
        let e = e.context("analysing");
        assert_eq!(kind(&e), ErrorKind::BadOption);
        assert_eq!(field(&e), Some("time_ms"));
        let r: Result<(), std::io::Error> = Err(std::io::Error::other("disk"));
        let e = r.context("writing").unwrap_err();
        assert_eq!(kind(&e), ErrorKind::Io);
        assert_eq!(field(&e), None);
        let e = anyhow::anyhow!("something");
        assert_eq!(kind(&e), ErrorKind::Other);
        let p = "1,2/3 S".parse::<hoyito_rules::Diagram>().unwrap_err();
        assert_eq!(kind(&crate::Error::new(p)), ErrorKind::BadPosition);
    }
}
