//! The tables against exact search: without tables the search must find the stored values,
//! and with the tables as its oracle it must too.

use std::sync::Arc;

use hoyito_rules::{Position6, Rules, Side};
use hoyito_search::{Config, Limits, Searcher};
use hoyito_tables::{build, Layout, Quiet, Tables, MAX_BOARD};

/// `count` positions of the layer of `seeds` seeds, spread over its index.
fn sample(rules: &Rules, seeds: usize, count: u64) -> Vec<Position6> {
    let wide = rules.with_seeds(8).unwrap();
    let layout = Layout::new(6, seeds, 1).unwrap();
    let stride = layout.per_side() / count;
    (0..count)
        .map(|k| {
            let mut b = [0u8; MAX_BOARD];
            layout.unrank(k * stride + k % 7, &mut b);
            let side = if k % 2 == 0 { Side::South } else { Side::North };
            Position6::from_rows(&wide, &b[..6], &b[6..12], side, [0, 0]).unwrap()
        })
        .collect()
}

#[test]
fn exact_search_equals_tables() {
    let rules = Rules::default().with_seeds(8).unwrap();
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &rules, 12, &Quiet).unwrap();
    let tables = Arc::new(Tables::open(dir.path(), &rules).unwrap());
    let small = Arc::new(Tables::open_up_to(dir.path(), &rules, 8).unwrap());
    let plain = Searcher::<2>::new(rules, Config::default());
    let probed = Searcher::<2>::new(rules, Config::default()).with_probe(Box::new(small));
    let mut nonzero = 0;
    for seeds in [8, 12] {
        for p in sample(&rules, seeds, 30) {
            let want = tables.probe(&p).unwrap();
            let r = plain.search(&p, &Limits::exact());
            assert!(r.exact, "{p}");
            assert_eq!(r.score, want, "search without tables, {p}");
            let r = probed.search(&p, &Limits::exact());
            assert_eq!(r.score, want, "search stopping at the 8-seed tables, {p}");
            nonzero += (want != 0) as usize;
        }
    }
    assert!(nonzero > 0);
}

#[test]
fn answers_from_the_tables_prefer_a_capture_that_keeps_the_value() {
    let rules = Rules::default().with_seeds(8).unwrap();
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &rules, 12, &Quiet).unwrap();
    let tables = Arc::new(Tables::open(dir.path(), &rules).unwrap());
    let searcher =
        Searcher::<2>::new(rules, Config::default()).with_probe(Box::new(tables.clone()));
    let mut found = 0;
    for p in sample(&rules, 12, 3000) {
        let Some(best) = tables.best_moves(&p) else {
            continue;
        };
        let is_capture = |m: hoyito_rules::Move| p.play(&rules, m).is_ok_and(|c| c.extra_turn);
        let captures = best.iter().filter(|b| is_capture(b.mv)).count();
        if captures == 0 || captures == best.len() {
            continue;
        }
        // Both kinds keep the value here: the list and the answer give a capture first.
        found += 1;
        assert!(best[0].capture && is_capture(best[0].mv), "{p}: {best:?}");
        let r = searcher.search(&p, &Limits::exact());
        assert!(r.exact, "{p}");
        let mv = r.best.unwrap();
        assert!(
            best.iter().any(|b| b.mv == mv),
            "{p}: {mv:?} keeps the value"
        );
        assert!(
            is_capture(mv),
            "{p}: {mv:?} is quiet though a capture keeps the value"
        );
    }
    assert!(
        found > 10,
        "only {found} positions with both kinds of best move"
    );
}

/// Exact search over the tables up to 16 seeds (built here, in memory) on 20-seed positions
/// whose values come from a table build up to 24 seeds (`data/exact/values20.jsonl`): a
/// 20-seed position's quiet component holds tens of millions of positions, where the
/// threshold proofs must find the same values as the retrograde build.
#[test]
fn exact_search_over_tables_equals_the_20_seed_layer() {
    let rules = Rules::default();
    let tables = Arc::new(Tables::in_memory(&rules, 16).unwrap());
    let s = Searcher::<2>::new(rules, Config::default()).with_probe(Box::new(tables));
    let path = hoyito_testkit::data_dir().join("exact/values20.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = v["position"].as_str().unwrap();
        let p = Position6::parse(&rules, text).unwrap();
        assert_eq!(p.seeds_on_board(), 20);
        let r = s.search(&p, &Limits::exact());
        assert!(r.exact, "{text}");
        assert_eq!(r.score, v["value"].as_i64().unwrap() as i32, "{text}");
        // The move given keeps the value.
        let c = p.play(&rules, r.best.unwrap()).unwrap();
        let child = s.search(&c.position, &Limits::exact());
        assert_eq!(c.value(child.score), r.score, "{text}: move {}", c.mv);
        checked += 1;
    }
    assert_eq!(checked, 20);
}
