use hoyito_rules::{CaptureSide, LastFour, Position6, Rules, Variant};
use hoyito_search::{Config, Limits, Searcher};
use std::time::Instant;
fn main() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/conformance/values.jsonl"
    ))
    .unwrap();
    let limit: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(2_000_000);
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let variant: Variant = v["rules"].as_str().unwrap().parse().unwrap();
        let lf: LastFour = v["last_four"]
            .as_str()
            .unwrap_or("capturer")
            .parse()
            .unwrap();
        let cs: CaptureSide = v["capture_side"].as_str().unwrap_or("any").parse().unwrap();
        let rules = Rules::new(variant, 6, 4, lf, cs).unwrap();
        let p = Position6::parse(&rules, v["position"].as_str().unwrap()).unwrap();
        let s = Searcher::<2>::new(
            rules,
            Config {
                hash_mb: 16,
                ..Config::default()
            },
        );
        let t = Instant::now();
        let r = s.search(
            &p,
            &Limits {
                exact: true,
                nodes: Some(limit),
                ..Limits::default()
            },
        );
        let want = v["value"].as_i64().unwrap() as i32;
        println!(
            "{} {} want {} got {} exact {} [{},{}] nodes {} ply {} {:.3}s {}",
            rules.variant(),
            v["position"],
            want,
            r.score,
            r.exact,
            r.lower,
            r.upper,
            r.nodes,
            r.depth,
            t.elapsed().as_secs_f64(),
            if r.exact && r.score != want {
                "MISMATCH"
            } else {
                ""
            }
        );
    }
}
