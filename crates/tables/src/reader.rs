//! Opening built tables and probing them.

use std::path::{Path, PathBuf};

use hoyito_rules::{Move, Position, Position6, Probe, Rules};

use crate::error::{io, TableError};
use crate::format::{
    file_name, key_dir, layer_of_file_name, layers_up_to, Header, Layer, TableKey,
};
use crate::index::MAX_BOARD;

/// The endgame tables of one set of rules, loaded in memory: read from files
/// ([`Tables::open`]) or built in memory ([`Tables::in_memory`]); both probe alike.
///
/// ```no_run
/// use hoyito_rules::{Position6, Rules};
/// use hoyito_tables::Tables;
/// let rules = Rules::default();
/// let tables = Tables::open("data/tables".as_ref(), &rules).unwrap();
/// let p = Position6::parse(&rules, "0,0,0,3,0,1/1,1,3,2,0,1 N").unwrap();
/// assert_eq!(tables.probe(&p), Some(12));
/// ```
#[derive(Debug)]
pub struct Tables {
    key: TableKey,
    rules: Rules,
    /// The rules' folder the tables were read from; none when built in memory.
    folder: Option<PathBuf>,
    /// `layers[n]`: the layer of `n` seeds, if loaded.
    layers: Vec<Option<Layer>>,
}

/// A move with its exact value (for the mover, the move's own captures included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// Its value: net future captures of the mover after playing it, under best play.
    pub value: i32,
    /// Whether it captures (and so gives an extra turn or ends the game).
    pub capture: bool,
}

impl Tables {
    /// Opens every layer built for `rules` under `dir`, checking each file in full
    /// (header, rules, sizes, checksum). A damaged or mismatched file is an error.
    /// A folder with no tables opens as empty tables (`max_seeds() == 0`).
    pub fn open(dir: &Path, rules: &Rules) -> Result<Tables, TableError> {
        Self::open_up_to(dir, rules, usize::MAX)
    }

    /// Like [`Tables::open`], loading only layers of at most `max_seeds` seeds.
    pub fn open_up_to(dir: &Path, rules: &Rules, max_seeds: usize) -> Result<Tables, TableError> {
        let key = TableKey::of(rules);
        let folder = key_dir(dir, &key);
        let mut layers: Vec<Option<Layer>> = Vec::new();
        if folder.is_dir() {
            for n in Self::files(&folder)? {
                if n > max_seeds {
                    continue;
                }
                let layer = Layer::read(&folder.join(file_name(n)), &key, n)?;
                if layers.len() <= n {
                    layers.resize_with(n + 1, || None);
                }
                layers[n] = Some(layer);
            }
        }
        Ok(Tables {
            key,
            rules: *rules,
            folder: Some(folder),
            layers,
        })
    }

    /// Tables of `layers` (indexed by seeds) built in memory for `rules`.
    pub(crate) fn from_layers(rules: &Rules, layers: Vec<Option<Layer>>) -> Tables {
        Tables {
            key: TableKey::of(rules),
            rules: *rules,
            folder: None,
            layers,
        }
    }

    /// The layers present in a folder, by their file names.
    fn files(folder: &Path) -> Result<Vec<usize>, TableError> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(folder).map_err(io(folder))? {
            let entry = entry.map_err(io(folder))?;
            if let Some(n) = entry.file_name().to_str().and_then(layer_of_file_name) {
                found.push(n);
            }
        }
        found.sort_unstable();
        Ok(found)
    }

    /// The headers of the layer files in `dir` for `rules`, without reading the payloads
    /// (each header's own checksum is checked).
    pub fn headers(dir: &Path, rules: &Rules) -> Result<Vec<(PathBuf, Header)>, TableError> {
        let folder = key_dir(dir, &TableKey::of(rules));
        if !folder.is_dir() {
            return Ok(Vec::new());
        }
        Self::files(&folder)?
            .into_iter()
            .map(|n| {
                let path = folder.join(file_name(n));
                Layer::read_header(&path).map(|h| (path, h))
            })
            .collect()
    }

    /// The folder the tables were read from (that of their rules); `None` for tables built
    /// in memory.
    pub fn folder(&self) -> Option<&Path> {
        self.folder.as_deref()
    }

    /// The rules the tables were opened with.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The layers loaded.
    pub fn layers(&self) -> impl Iterator<Item = &Layer> {
        self.layers.iter().flatten()
    }

    /// The largest `n` such that every position with at most `n` seeds on the board (and as
    /// many modulo 4) is in the tables; 0 when there is none. Every position reached in a
    /// game from one of these is then answered by [`Tables::probe`].
    pub fn max_seeds(&self) -> usize {
        let mut best = 0;
        for n in (5..self.layers.len()).rev() {
            if layers_up_to(n).iter().all(|&m| self.has_layer(m)) {
                best = best.max(n);
                if n % 4 == 0 {
                    break;
                }
            }
        }
        best
    }

    /// Whether the layer of `seeds` seeds is loaded (boards of 4 or fewer need none).
    pub fn has_layer(&self, seeds: usize) -> bool {
        seeds <= 4 || self.layers.get(seeds).is_some_and(|l| l.is_some())
    }

    /// The exact value of `p` (net future captures of the side to move under best play,
    /// endless play worth 0), or `None` when its layer is not in the tables or the board has
    /// another size. Captured counts in `p` are ignored.
    #[inline]
    pub fn probe(&self, p: &Position6) -> Option<i32> {
        if p.holes() != self.key.holes {
            return None;
        }
        let n = p.seeds_on_board() as usize;
        if n <= 4 {
            return Some(0);
        }
        let layer = self.layers.get(n)?.as_ref()?;
        Some(layer.value(layer.layout().index_of(p)))
    }

    /// The exact value of every legal move of `p`, in hole order, or `None` when a result
    /// is not in the tables. A position without legal moves has an empty list.
    pub fn move_values(&self, p: &Position6) -> Option<Vec<MoveValue>> {
        let mut out = Vec::new();
        let mut ok = true;
        p.for_each_child(&self.rules, |c| {
            let v = if c.ended_game {
                Some(0)
            } else {
                self.probe(&c.position)
            };
            match v {
                Some(v) => out.push(MoveValue {
                    mv: c.mv,
                    value: c.value(v),
                    capture: c.extra_turn,
                }),
                None => ok = false,
            }
        });
        ok.then_some(out)
    }

    /// The moves of `p` that keep its exact value (all best moves), captures first, then in
    /// hole order; `None` when not in the tables. Empty when the side to move must pass.
    ///
    /// Under the endless-play rule a value-keeping move is not always progress: from a won
    /// position a side that only keeps the value may go round a cycle. A capture that keeps
    /// the value cashes part of it at once, hence the order; with only quiet best moves, use
    /// search to make sure the gain is reached.
    pub fn best_moves(&self, p: &Position6) -> Option<Vec<MoveValue>> {
        let v = self.probe(p)?;
        let mut best: Vec<MoveValue> = self
            .move_values(p)?
            .into_iter()
            .filter(|m| m.value == v)
            .collect();
        best.sort_by_key(|m| !m.capture);
        Some(best)
    }

    /// Checks `samples` positions of the layer of `seeds` seeds, spread evenly over its
    /// index, against the rules: each stored value must equal the best over the position's
    /// moves (or minus the value after a pass, or 0 when neither side can move). Returns the
    /// positions checked and those that fail (at most 20 shown).
    pub fn verify_layer(&self, seeds: usize, samples: u64) -> (u64, Vec<String>) {
        if !self.has_layer(seeds) {
            return (0, vec![format!("layer {seeds} is not loaded")]);
        }
        let mut checked = 0;
        let mut bad = Vec::new();
        for (p, stored) in self.sample(seeds, samples) {
            checked += 1;
            let expect = match self.move_values(&p) {
                Some(list) if !list.is_empty() => list.iter().map(|m| m.value).max(),
                Some(_) => match p.passed(&self.rules_for_build()) {
                    Some(q) => self.probe(&q).map(|v| -v),
                    None => Some(0),
                },
                None => None,
            };
            if expect != Some(stored) && bad.len() < 20 {
                bad.push(format!(
                    "{}: stored {stored}, the moves give {expect:?}",
                    p.with_captured(0, 0)
                ));
            }
        }
        (checked, bad)
    }

    /// About `samples` positions of the layer of `seeds` seeds (every position if the layer
    /// is smaller), spread evenly over its index, each with its stored value. Empty when the
    /// layer is not loaded.
    pub fn sample(&self, seeds: usize, samples: u64) -> Vec<(Position6, i32)> {
        let Some(layer) = self.layers.get(seeds).and_then(|l| l.as_ref()) else {
            return Vec::new();
        };
        let layout = layer.layout();
        let stride = (layout.count() / samples.max(1)).max(1);
        let rules = self.rules_for_build();
        let mut board = [0u8; MAX_BOARD];
        (0..layout.count())
            .step_by(stride as usize)
            .map(|i| {
                let side = (i / layout.per_side()) as usize;
                layout.unrank(i % layout.per_side(), &mut board);
                let p = layout.position_of(&rules, side, &board);
                (p, layer.value(i))
            })
            .collect()
    }

    /// The loaded layer of `seeds` seeds, if any.
    pub(crate) fn layer(&self, seeds: usize) -> Option<&Layer> {
        self.layers.get(seeds).and_then(|l| l.as_ref())
    }

    /// The rules the layers were built with (every layer a legal board).
    pub(crate) fn rules_for_build(&self) -> Rules {
        self.key.build_rules().unwrap_or(self.rules)
    }
}

/// The tables as the search's oracle, for positions of any width whose board is 2x6 (a
/// position of another board size is not in them).
///
/// ```no_run
/// use std::sync::Arc;
/// use hoyito_rules::{Position6, Rules};
/// use hoyito_search::{Config, Limits, Searcher};
/// use hoyito_tables::Tables;
/// let rules = Rules::default();
/// let tables = Arc::new(Tables::open("data/tables".as_ref(), &rules).unwrap());
/// let searcher = Searcher::<2>::new(rules, Config::default()).with_probe(Box::new(tables));
/// let p = Position6::parse(&rules, "0,0,0,3,0,1/1,1,3,2,0,1 N").unwrap();
/// assert_eq!(searcher.search(&p, &Limits::exact()).score, 12);
/// ```
impl<const W: usize> Probe<W> for Tables {
    #[inline]
    fn probe(&self, p: &Position<W>) -> Option<i32> {
        Tables::probe(self, &p.cast::<2>()?)
    }
    fn max_seeds(&self) -> u32 {
        Tables::max_seeds(self) as u32
    }
}
