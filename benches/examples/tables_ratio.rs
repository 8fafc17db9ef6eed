//! The endgame tables' build against one forward sweep, layer by layer: for each layer, one
//! sweep over it (`hoyito_tables::sweep_once`: every position's moves generated and every
//! successor read, both cores, the first sweep of a build) and then its build, in the same
//! run; printed with their ratio, the evaluations a position, the scratch bytes a position
//! and the process's peak memory so far.
//!
//! `cargo run --release -p hoyito-benches --example tables_ratio -- [MAX_SEEDS] [VARIANT] [DIR]`
//! (defaults: 20, hoyito2, a new temporary folder). Layers already in DIR are kept, not
//! timed: point DIR at a folder holding the smaller layers to time only the largest.

use std::path::PathBuf;
use std::time::Instant;

use hoyito_rules::{Rules, Variant};
use hoyito_tables::{build, key_dir, layers_up_to, sweep_once, Quiet, TableKey};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let max: usize = args.first().map_or(20, |a| a.parse().expect("MAX_SEEDS"));
    let variant = match args.get(1).map_or("hoyito2", String::as_str) {
        "hoyito2" => Variant::Hoyito2,
        "hoyito3" => Variant::Hoyito3,
        other => panic!("variant {other}: hoyito2 or hoyito3"),
    };
    let rules = Rules::builder().variant(variant).build().expect("rules");
    let temp;
    let dir: PathBuf = match args.get(2) {
        Some(d) => d.into(),
        None => {
            temp = tempfile::tempdir().expect("a temporary folder");
            temp.path().to_path_buf()
        }
    };
    let folder = key_dir(&dir, &TableKey::of(&rules));
    println!(
        "{:>5} {:>13} {:>9} {:>9} {:>7} {:>11} {:>11} {:>10}",
        "layer", "positions", "sweep s", "build s", "ratio", "evals/pos", "scratch B", "peak MiB"
    );
    for n in layers_up_to(max) {
        if folder.join(format!("layer-{n:02}.hyt")).exists() {
            continue;
        }
        let (sweep, _) = sweep_once(&dir, &rules, n).expect("the smaller layers");
        let t0 = Instant::now();
        let stats = build(&dir, &rules, n, &Quiet).expect("a build");
        let built = t0.elapsed().as_secs_f64();
        let s = stats.last().expect("the layer");
        println!(
            "{:>5} {:>13} {:>9.2} {:>9.2} {:>7.2} {:>11.2} {:>11.2} {:>10}",
            n,
            s.positions,
            sweep,
            built,
            built / sweep,
            s.evaluations as f64 / s.positions as f64,
            s.scratch_bytes as f64 / s.positions as f64,
            hoyito::setup::peak_mib().map_or("?".into(), |m| m.to_string()),
        );
    }
}
