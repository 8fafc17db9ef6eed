//! When a search stops.

use std::time::Duration;

/// When a search stops. Without any limit a search runs until it proves the value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration of a depth-limited search (plies; extra turns count).
    pub depth: Option<u32>,
    /// Wall-clock time.
    pub time: Option<Duration>,
    /// Nodes, all threads together (checked every 1024 nodes of a thread).
    pub nodes: Option<u64>,
    /// Search to the end of the game and return the proven value.
    pub exact: bool,
}

impl Limits {
    /// An exact search with no other limit.
    pub fn exact() -> Self {
        Limits {
            exact: true,
            ..Limits::default()
        }
    }
    /// A depth-limited search to `depth` plies.
    pub fn depth(depth: u32) -> Self {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }
    /// A depth-limited search for `ms` milliseconds.
    pub fn time_ms(ms: u64) -> Self {
        Limits {
            time: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }

    /// Whether a search with these limits searches to the end of the game: asked to, or
    /// given neither a depth nor a time (a node limit alone may still stop it early).
    ///
    /// ```
    /// use hoyito_search::Limits;
    /// assert!(Limits::exact().is_exact());
    /// assert!(Limits::default().is_exact());
    /// assert!(!Limits::depth(8).is_exact());
    /// assert!(!Limits::time_ms(100).is_exact());
    /// ```
    pub fn is_exact(&self) -> bool {
        self.exact || (self.depth.is_none() && self.time.is_none())
    }
}
