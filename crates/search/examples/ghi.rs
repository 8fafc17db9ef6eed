use hoyito_rules::{CaptureSide, LastFour, Position6, Rules, Variant};
use hoyito_search::{Config, Limits, Searcher};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let variant: Variant = a[1].parse().unwrap();
    let holes: usize = a[2].parse().unwrap();
    let seeds: usize = a[3].parse().unwrap();
    let cs: CaptureSide = a[4].parse().unwrap();
    let rules = Rules::new(variant, holes, seeds, LastFour::Capturer, cs).unwrap();
    let p = Position6::parse(&rules, &a[5]).unwrap();
    let retro = Searcher::<2>::new(rules, Config::default());
    let ab = Searcher::<2>::new(
        rules,
        Config {
            retrograde_seeds: Some(0),
            ..Config::default()
        },
    );
    let r = retro.search(&p, &Limits::exact());
    let b = ab.search(&p, &Limits::exact());
    println!("retro {} ab {} nodes {}", r.score, b.score, b.nodes);
}
