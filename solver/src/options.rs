//! The library's options made from the flags: one `From` for each command's arguments, so
//! that every command hands the library what its flags say and nothing else.

use hoyito::analysis::{AnalysisOptions, EngineOptions};
use hoyito::bench::BenchOptions;
use hoyito::matches::MatchOptions;
use hoyito::play::{PlayOptions, PlayerKind};
use hoyito::proof::ProofOptions;
use hoyito::review::ReviewOptions;

use crate::cli::{
    BenchArgs, BestArgs, EngineArgs, MatchArgs, PlayArgs, PlayerArg, ProveArgs, ReviewArgs,
};

impl From<&EngineArgs> for EngineOptions {
    fn from(e: &EngineArgs) -> Self {
        EngineOptions {
            threads: e.threads,
            hash_mb: e.hash_mb,
            table: e.table.into(),
            exact_method: e.exact_method.into(),
            explore: e.explore.into(),
        }
    }
}

impl From<&BestArgs> for AnalysisOptions {
    fn from(a: &BestArgs) -> Self {
        AnalysisOptions {
            depth: a.depth,
            time_ms: a.time_ms,
            nodes: a.nodes,
            exact: a.exact,
            all_moves: a.all_moves,
            tables: a.tables.clone(),
            no_tables: a.no_tables,
            no_book: a.no_book,
            engine: (&a.engine).into(),
            stop: None,
        }
    }
}

impl From<&BenchArgs> for BenchOptions {
    fn from(a: &BenchArgs) -> Self {
        BenchOptions {
            time_ms: a.time_ms,
            depth: a.depth,
            fingerprint_depth: a.fingerprint_depth,
            plain: a.plain,
            exact: a.exact,
            tables: a.tables.clone(),
            engine: (&a.engine).into(),
        }
    }
}

impl From<&ProveArgs> for ProofOptions {
    fn from(a: &ProveArgs) -> Self {
        ProofOptions {
            tables: a.tables.clone(),
            no_tables: a.no_tables,
            state: a.state.clone(),
            certificate: a.certificate.clone(),
            all_moves: a.all_moves,
            at_least: a.at_least,
            time_limit: a.time_limit,
            guess_depth: a.guess_depth,
            threads: a.threads,
            cache_mb: a.cache_mb,
            memory_reserve: a.memory_reserve,
            explore: a.explore.into(),
            capture_cap: a.capture_cap,
        }
    }
}

impl From<&ReviewArgs> for ReviewOptions {
    fn from(a: &ReviewArgs) -> Self {
        ReviewOptions {
            file: a.file.clone(),
            game: a.game,
            exact: a.exact,
            ply_ms: a.ply_ms,
            time_ms: a.time_ms,
            depth: a.depth,
            tables: a.tables.clone(),
            output: a.output.clone(),
            threads: a.threads,
            hash_mb: a.hash_mb,
        }
    }
}

impl From<PlayerArg> for PlayerKind {
    fn from(p: PlayerArg) -> Self {
        match p {
            PlayerArg::Human => PlayerKind::Human,
            PlayerArg::Engine => PlayerKind::Engine,
            PlayerArg::Random => PlayerKind::Random,
        }
    }
}

impl From<&PlayArgs> for PlayOptions {
    fn from(a: &PlayArgs) -> Self {
        PlayOptions {
            south: a.south.into(),
            north: a.north.into(),
            level: match a.level {
                Some(crate::cli::LevelArg::Level(n)) => Some(n),
                _ => None,
            },
            depth: a.depth,
            time_ms: a.time_ms,
            exact: a.exact || a.level == Some(crate::cli::LevelArg::Perfect),
            south_level: a.south_level,
            north_level: a.north_level,
            south_depth: a.south_depth,
            north_depth: a.north_depth,
            south_time_ms: a.south_time_ms,
            north_time_ms: a.north_time_ms,
            record: a.record.clone(),
            seed: a.seed,
            tables: a.tables.clone(),
            rounds: a.rounds,
            eval: a.eval,
            threads: a.threads,
            hash_mb: a.hash_mb,
        }
    }
}

/// The match options of the flags; the SPRT is parsed by the command (its error names the
/// flag).
pub fn match_options(a: &MatchArgs, sprt: Option<hoyito::stats::Sprt>) -> MatchOptions {
    MatchOptions {
        pairs: a.pairs,
        openings: a.openings.clone(),
        time_ms: a.time_ms,
        depth: a.depth,
        a_depth: a.a_depth,
        b_depth: a.b_depth,
        sprt,
        a_row: a.a_row,
        a_mobility: a.a_mobility,
        b_row: a.b_row,
        b_mobility: a.b_mobility,
        a_threads: a.a_threads,
        b_threads: a.b_threads,
        random_plies: a.random_plies,
        seed: a.seed,
        max_plies: a.max_plies,
        dump: a.dump.clone(),
        dump_plies: a.dump_plies.clone(),
        threads: a.threads,
        hash_mb: a.hash_mb,
        a_cmd: a.a_cmd.clone(),
        b_cmd: a.b_cmd.clone(),
        timeout_ms: a.timeout_ms,
        tables: a.tables.clone(),
        records: a.records.clone(),
    }
}
