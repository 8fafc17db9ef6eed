//! Exact search against the conformance values of `data/conformance/values.jsonl`, from both
//! sides (the mirrored position under symmetric rules), and the returned move checked by
//! playing it.

mod support;

use std::collections::HashMap;

use hoyito_rules::{Position6, Rules};
use hoyito_search::{Config, Limits, Searcher};
use hoyito_testkit as common;

#[test]
fn exact_search_matches_conformance_values() {
    // One searcher per rule set: solved components are shared between positions.
    let mut searchers: HashMap<String, (Rules, Searcher<2>)> = HashMap::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for v in common::vectors("values.jsonl") {
        let rules = common::rules_of(&v);
        let (_, s) = searchers.entry(rules.to_string()).or_insert_with(|| {
            (
                rules,
                Searcher::new(
                    rules,
                    Config {
                        hash_mb: 4,
                        ..Config::default()
                    },
                ),
            )
        });
        let text = v["position"].as_str().unwrap();
        let want = v["value"].as_i64().unwrap() as i32;
        let p = Position6::parse(&rules, text).unwrap();
        let r = s.search(&p, &Limits::exact());
        assert!(r.exact, "{text}: not exact");
        if r.score != want {
            failures.push(format!("{rules} {text}: want {want}, got {}", r.score));
        }
        // The move returned has the returned score.
        if let Some(m) = r.best {
            let got = support::move_value(s, &rules, &p, m);
            assert_eq!(got, r.score, "{rules} {text}: move {m} is worth {got}");
        }
        if rules.is_symmetric() {
            let m = s.search(&p.mirrored(), &Limits::exact());
            if m.score != want {
                failures.push(format!(
                    "{rules} mirrored {text}: want {want}, got {}",
                    m.score
                ));
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 420);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
