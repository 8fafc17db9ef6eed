//! Small layers built in memory and handed over as [`Tables`], for the exact search of a
//! position without table files: the build's algorithm, no file read or written.

use hoyito_rules::Rules;

use crate::build::{check_buildable, solve_layer_in_memory};
use crate::error::TableError;
use crate::format::{layers_up_to, Layer, TableKey};
use crate::reader::Tables;
use crate::{BuildOptions, LayerStats, Progress, Quiet};

impl Tables {
    /// Builds every layer up to `max_seeds` seeds for `rules` in memory and returns them as
    /// tables that probe exactly like tables built to files and opened; no file is read or
    /// written. The build is that of [`build`](crate::build()) (sweeps, then rounds whose
    /// moves are kept in memory), on the rayon pool the caller has installed; the crate
    /// documentation gives its time and memory ("Disk"). For figures as it goes or another
    /// [`Method`](crate::Method), see [`build_in_memory`](crate::build_in_memory).
    ///
    /// ```
    /// use hoyito_rules::{Position6, Rules};
    /// use hoyito_tables::Tables;
    /// let rules = Rules::default();
    /// let tables = Tables::in_memory(&rules, 8).unwrap();
    /// assert_eq!(tables.max_seeds(), 8);
    /// assert!(tables.folder().is_none());
    /// let p = Position6::parse(&rules, "0,0,0,3,0,1/1,1,0,2,0,0 N").unwrap();
    /// assert_eq!(tables.probe(&p), Some(8));
    /// ```
    pub fn in_memory(rules: &Rules, max_seeds: usize) -> Result<Tables, TableError> {
        build_in_memory(rules, max_seeds, &BuildOptions::default(), &Quiet).map(|(t, _)| t)
    }
}

/// Builds every layer up to `max_seeds` seeds for `rules` in memory, smallest first, with
/// the algorithm of [`build_with`](crate::build_with), and returns them as [`Tables`] together with each
/// layer's figures. Nothing is written anywhere: under [`Method::Auto`](crate::Method::Auto)
/// and [`Method::MovesAtSweep`](crate::Method::MovesAtSweep) the moves of rounds are kept in memory (8 bytes a move, about 23
/// bytes a position of the largest layer: 23 MB at 12 seeds, 1.9 GB at 20), on top of the
/// working byte a position and the packed layers. Meant for small layers (the exact search
/// of a position without tables); [`Tables::in_memory`] is the short form. Runs on the
/// rayon pool the caller has installed, like [`build`](crate::build()).
pub fn build_in_memory(
    rules: &Rules,
    max_seeds: usize,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<(Tables, Vec<LayerStats>), TableError> {
    let key = TableKey::of(rules);
    check_buildable(&key, max_seeds)?;
    let mut lower: Vec<Option<Layer>> = (0..=max_seeds).map(|_| None).collect();
    let mut stats = Vec::new();
    for n in layers_up_to(max_seeds) {
        let (layer, s) = solve_layer_in_memory(&key, n, &lower, options, progress)?;
        progress.layer_done(&s);
        stats.push(s);
        lower[n] = Some(layer);
    }
    Ok((Tables::from_layers(rules, lower), stats))
}
