//! The tables against the solved values of `data/conformance/values.jsonl`.

mod common;

use std::collections::HashMap;

use common::{rules_of, vectors};
use hoyito_rules::{Position6, Rules};
use hoyito_tables::{build, Quiet, Tables};

/// A vector: position, value, seeds on the board.
type Case = (String, i32, usize);

#[test]
fn values_vectors() {
    let all = vectors("values.jsonl");
    assert!(all.len() >= 400);
    let mut by_rules: HashMap<String, (Rules, Vec<Case>)> = HashMap::new();
    for v in &all {
        let rules = rules_of(v);
        let entry = by_rules
            .entry(format!("{rules}"))
            .or_insert_with(|| (rules, Vec::new()));
        entry.1.push((
            v["position"].as_str().unwrap().to_string(),
            v["value"].as_i64().unwrap() as i32,
            v["seeds"].as_u64().unwrap() as usize,
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (rules, cases) in by_rules.values() {
        let max = cases.iter().map(|c| c.2).max().unwrap();
        build(dir.path(), rules, max, &Quiet).unwrap();
        let tables = Tables::open(dir.path(), rules).unwrap();
        assert_eq!(tables.max_seeds(), max);
        for (text, value, seeds) in cases {
            let p = Position6::parse(rules, text).unwrap();
            assert_eq!(p.seeds_on_board() as usize, *seeds);
            assert_eq!(tables.probe(&p), Some(*value), "{text} ({rules})");
            let best = tables.best_moves(&p).unwrap();
            let has_moves = !p.moves(rules).is_empty();
            assert_eq!(!best.is_empty(), has_moves, "{text}: best moves {best:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, all.len());
}
