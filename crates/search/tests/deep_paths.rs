//! Exact alpha-beta on a long capture-free fight follows the path down to the longest the
//! search allows (200,000 plies) and comes back: no stack overflow, an answer marked not
//! exact, bounds that hold the true value, and a legal move.

use hoyito_rules::{CaptureSide, LastFour, Position6, Rules, Variant};
use hoyito_search::{Config, ExactMethod, Limits, Searcher};

/// The longest path of the search (`MAX_PLY` in `alphabeta.rs`), less the root.
const DEEPEST: u32 = 199_999;

#[test]
fn exact_alpha_beta_reaches_the_longest_path_without_overflow() {
    let rules = Rules::new(Variant::Hoyito2, 6, 4, LastFour::Capturer, CaptureSide::Any).unwrap();
    // 16 seeds in one capture-free component of millions of positions (the components of
    // 12 seeds and fewer that its captures reach are solved whole, as by default); its
    // value, from the endgame tables, is -4 for North to move.
    let p = Position6::parse(&rules, "2,2,2,1,1,2/2,1,2,0,0,1 N").unwrap();
    let truth = -4;
    for threads in [1, 2] {
        let searcher = Searcher::new(
            rules,
            Config {
                threads,
                hash_mb: 16,
                exact_method: ExactMethod::AlphaBeta,
                ..Config::default()
            },
        );
        let r = searcher.search(&p, &Limits::exact());
        assert!(r.depth >= DEEPEST, "{threads} threads: {r:?}");
        assert!(!r.exact && r.stopped, "{threads} threads: {r:?}");
        assert!(
            r.lower <= truth && truth <= r.upper,
            "{threads} threads: {r:?}"
        );
        let best = r.best.expect("a move");
        assert!(
            p.moves(&rules).children().iter().any(|c| c.mv == best),
            "{threads} threads: {best:?} is not legal"
        );
    }
}
