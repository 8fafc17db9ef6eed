//! Exact search on small boards against an independent solver of the whole position graph.
//!
//! The reference works on absolute values (South's point of view) layer by layer, from few
//! seeds on the board to many: captures lead to solved layers, so inside a layer they are
//! plain numbers, and the layer is a game on a graph where endless play is worth 0. For every
//! threshold `t` it finds the positions where South can secure at least `t` by naive
//! iteration to a fixpoint: the least one when `t > 0` (South must reach a capture worth
//! `t`), the greatest when `t <= 0` (endless play already secures it). Slow, short, and
//! sharing no code with the search.

mod support;

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use hoyito_rules::{CaptureSide, LastFour, Position6, Rules, Side, Variant};
use hoyito_search::certificate::{self, Claim, Kind, Recorder, Root};
use hoyito_search::{
    plain_search, Config, Eval, ExactMethod, Explore, Gauge, Limits, Probe, Prover, Searcher,
};

type Key = [u64; 2];

/// Every position reachable from the start (moves and passes).
fn reachable(rules: &Rules) -> Vec<Position6> {
    let start = Position6::start(rules).unwrap();
    let mut seen: HashMap<Key, ()> = HashMap::new();
    let mut stack = vec![start];
    let mut out = Vec::new();
    seen.insert(start.board_key(), ());
    while let Some(p) = stack.pop() {
        out.push(p);
        let mut next: Vec<Position6> = p
            .moves(rules)
            .children()
            .iter()
            .filter(|c| !c.ended_game)
            .map(|c| c.position)
            .collect();
        if next.is_empty() {
            next.push(p.with_side_flipped());
        }
        for q in next {
            if q.seeds_on_board() > 4 && seen.insert(q.board_key(), ()).is_none() {
                stack.push(q);
            }
        }
    }
    out
}

/// Option of a position: a number (South's view) or an edge to a position of the layer.
enum Opt {
    Value(i32),
    Edge(usize),
}

/// Absolute values (South's view) of all reachable positions.
fn reference(rules: &Rules) -> HashMap<Key, i32> {
    let all = reachable(rules);
    let mut u: HashMap<Key, i32> = HashMap::new();
    let mut seeds: Vec<u32> = all.iter().map(|p| p.seeds_on_board()).collect();
    seeds.sort();
    seeds.dedup();
    for &n in &seeds {
        let layer: Vec<Position6> = all
            .iter()
            .copied()
            .filter(|p| p.seeds_on_board() == n)
            .collect();
        let index: HashMap<Key, usize> = layer
            .iter()
            .enumerate()
            .map(|(i, p)| (p.board_key(), i))
            .collect();
        let opts: Vec<Vec<Opt>> = layer
            .iter()
            .map(|p| {
                let sign = if p.side_to_move() == Side::South {
                    1
                } else {
                    -1
                };
                let list = p.moves(rules);
                if list.is_empty() {
                    let q = p.with_side_flipped();
                    return if q.has_legal_move(rules) {
                        vec![Opt::Edge(index[&q.board_key()])]
                    } else {
                        vec![Opt::Value(0)]
                    };
                }
                list.children()
                    .iter()
                    .map(|c| {
                        let g = sign * c.gain as i32;
                        if c.ended_game {
                            Opt::Value(g)
                        } else if c.extra_turn {
                            let below = if c.position.seeds_on_board() <= 4 {
                                0
                            } else {
                                u[&c.position.board_key()]
                            };
                            Opt::Value(g + below)
                        } else {
                            Opt::Edge(index[&c.position.board_key()])
                        }
                    })
                    .collect()
            })
            .collect();
        let south: Vec<bool> = layer
            .iter()
            .map(|p| p.side_to_move() == Side::South)
            .collect();
        let mut value = vec![i32::MIN; layer.len()];
        for t in -(n as i32)..=(n as i32) {
            let mut good = vec![t <= 0; layer.len()];
            loop {
                let mut changed = false;
                for i in 0..layer.len() {
                    let ok = |o: &Opt| match *o {
                        Opt::Value(v) => v >= t,
                        Opt::Edge(j) => good[j],
                    };
                    let g = if south[i] {
                        opts[i].iter().any(ok)
                    } else {
                        opts[i].iter().all(ok)
                    };
                    if g != good[i] {
                        good[i] = g;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            for i in 0..layer.len() {
                if good[i] {
                    value[i] = t;
                }
            }
        }
        for (i, p) in layer.iter().enumerate() {
            u.insert(p.board_key(), value[i]);
        }
    }
    u
}

/// An oracle of the reference values of small positions.
struct Oracle {
    values: HashMap<Key, i32>,
    max_seeds: u32,
}

impl Probe<2> for Oracle {
    fn probe(&self, p: &Position6) -> Option<i32> {
        let u = *self.values.get(&p.board_key())?;
        Some(if p.side_to_move() == Side::South {
            u
        } else {
            -u
        })
    }
    fn max_seeds(&self) -> u32 {
        self.max_seeds
    }
}

/// A searcher for `rules` with `config` and a small table.
fn small_searcher(rules: Rules, config: Config) -> Searcher<2> {
    Searcher::<2>::new(
        rules,
        Config {
            hash_mb: 2,
            ..config
        },
    )
}

fn check(rules: Rules, sample: usize) {
    let want = reference(&rules);
    let no_retro = Config {
        retrograde_seeds: Some(0),
        ..Config::default()
    };
    let with_oracle = small_searcher(rules, no_retro).with_probe(Box::new(Oracle {
        values: want.clone(),
        max_seeds: 8,
    }));
    let all = reachable(&rules);
    let retro = small_searcher(rules, Config::default());
    let alphabeta = small_searcher(
        rules,
        Config {
            exact_method: ExactMethod::AlphaBeta,
            ..no_retro
        },
    );
    let two_threads = small_searcher(
        rules,
        Config {
            exact_method: ExactMethod::AlphaBeta,
            threads: 2,
            ..no_retro
        },
    );
    // Threshold proofs alone, no component solved whole.
    let prover = small_searcher(rules, no_retro);
    let step = (all.len() / sample).max(1);
    let mut checked = 0;
    for p in all.iter().step_by(step) {
        let u = want[&p.board_key()];
        let v = if p.side_to_move() == Side::South {
            u
        } else {
            -u
        };
        let r = retro.search(p, &Limits::exact());
        assert!(r.exact);
        assert_eq!(r.score, v, "{rules} {p}: retrograde");
        // A fresh table for each, so that results are not only read back from earlier ones.
        alphabeta.clear();
        let a = alphabeta.search(p, &Limits::exact());
        assert!(a.exact);
        assert_eq!(a.score, v, "{rules} {p}: alpha-beta");
        if let Some(m) = a.best {
            let s = support::move_value(&retro, &rules, p, m);
            assert_eq!(s, v, "{rules} {p}: move {m}");
        }
        let q = prover.search(p, &Limits::exact());
        assert!(q.exact);
        assert_eq!(q.score, v, "{rules} {p}: threshold proofs");
        if let Some(m) = q.best {
            let s = support::move_value(&retro, &rules, p, m);
            assert_eq!(s, v, "{rules} {p}: move {m} of the proofs");
        }
        with_oracle.clear();
        let o = with_oracle.search(p, &Limits::exact());
        assert_eq!(o.score, v, "{rules} {p}: with an oracle");
        let t = two_threads.search(p, &Limits::exact());
        assert_eq!(t.score, v, "{rules} {p}: two threads");
        // A depth-limited search that proves its result agrees.
        let d = alphabeta.search(p, &Limits::depth(24));
        if d.exact {
            assert_eq!(d.score, v, "{rules} {p}: proven by a depth-limited search");
        }
        // Plain alpha-beta follows the repetition rule literally, on the path.
        let pl = plain_search(
            &rules,
            Eval::default(),
            p,
            &Limits {
                nodes: Some(20_000),
                ..Limits::exact()
            },
        );
        if pl.exact && !pl.stopped {
            assert_eq!(pl.score, v, "{rules} {p}: plain");
        }
        checked += 1;
    }
    assert!(checked > 0);
}

/// The value of move `m` of `p` for its mover, by the reference values.
fn move_value_ref(
    rules: &Rules,
    p: &Position6,
    m: hoyito_rules::Move,
    want: &HashMap<Key, i32>,
) -> i32 {
    let c = p.play(rules, m).unwrap();
    let u = if c.ended_game {
        0
    } else {
        want[&c.position.board_key()]
    };
    c.value(if c.position.side_to_move() == Side::South {
        u
    } else {
        -u
    })
}

/// A record in memory that a test can read while the prover writes it.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `solve prove`'s library on every sampled position: the value equals the reference, and
/// the certificate of each value (extracted from the record of claims, which checks that
/// ranks fall) holds only true claims. Then a second prover that takes in the record (a
/// resumed run) proves the same values again, exploring nothing new.
/// How a prover explores its proofs' graphs, and the first cap of a capture's proof.
#[derive(Clone, Copy, Debug)]
struct Way(Explore, u64);

const FOCUSED: Way = Way(Explore::Focused, Prover::<2>::DEFAULT_CAPTURE_CAP);
const BREADTH: Way = Way(Explore::Breadth, Prover::<2>::DEFAULT_CAPTURE_CAP);
/// Focused, with captures' proofs given up after 2 positions (then 8, 32 ...).
const SMALL_CAP: Way = Way(Explore::Focused, 2);

/// A prover without tables that explores its proofs' graphs by `way`.
fn prover(rules: Rules, way: Way) -> Prover<2> {
    let mut prove = Prover::<2>::new(rules, None);
    prove.explore(way.0);
    prove.capture_cap(way.1);
    prove
}

/// Proves the values of a sample of positions (and their moves), checks them and the
/// certificate of their record against the reference; returns the positions explored.
fn check_proofs(rules: Rules, sample: usize, way: Way) -> u64 {
    let want = reference(&rules);
    let all = reachable(&rules);
    let record = Shared::default();
    let mut prove = prover(rules, way);
    prove.record(Recorder::new(Box::new(record.clone()), 1));
    let stop = AtomicBool::new(false);
    let step = (all.len() / sample).max(1);
    let south = |p: &Position6, v: i32| {
        if p.side_to_move() == Side::South {
            v
        } else {
            -v
        }
    };
    let mut roots = Vec::new();
    for p in all.iter().step_by(step) {
        let u = want[&p.board_key()];
        let v = prove.value(p, None, &stop, None).unwrap();
        assert_eq!(south(p, v), u, "{rules} {p}: prove");
        let m = prove.keeping_move(p, v, &stop, None).unwrap();
        if let Some(m) = m {
            assert_eq!(
                move_value_ref(&rules, p, m, &want),
                v,
                "{rules} {p}: move {m}"
            );
        }
        for kind in [Kind::AtLeast, Kind::AtMost] {
            roots.push(Root {
                position: *p,
                kind,
                bound: u,
            });
        }
    }
    prove.finish().unwrap();
    let explored = prove.explored();
    let bytes = record.0.lock().unwrap().clone();
    let (claims, read) = certificate::read_record::<2>(&rules, &bytes[..]).unwrap();
    assert_eq!(read as usize, bytes.len());
    assert!(!claims.is_empty());
    let cert = certificate::extract(&rules, claims.clone(), &roots, None).unwrap();
    for c in &cert {
        let u = want[&c.position.board_key()];
        assert!(
            c.kind.holds(c.bound, u),
            "{rules}: false claim {c:?}, value {u}"
        );
    }
    // Broken records are refused: ranks that do not fall, a root's claims gone.
    if cert.iter().any(|c| c.kind.finite(c.bound)) {
        let flat: Vec<_> = claims.iter().map(|c| Claim { rank: 7, ..*c }).collect();
        assert!(certificate::extract(&rules, flat, &roots, None).is_err());
    }
    let r = roots[0];
    if r.bound > -(r.position.seeds_on_board() as i32) {
        let gone: Vec<_> = claims
            .iter()
            .filter(|c| c.position != r.position.with_captured(0, 0))
            .copied()
            .collect();
        assert!(certificate::extract(&rules, gone, &roots[..1], None).is_err());
    }
    check_stopped_and_resumed(rules, &roots, &want, way);
    let mut resumed = prover(rules, way);
    resumed.learn(&claims);
    for r in roots.iter().step_by(2) {
        let v = resumed.value(&r.position, None, &stop, None).unwrap();
        assert_eq!(
            south(&r.position, v),
            r.bound,
            "{rules} {}: resumed",
            r.position
        );
    }
    assert_eq!(
        resumed.explored(),
        0,
        "{rules}: a resumed run explores again"
    );
    explored
}

/// A prover resumed from `record` (as `solve prove --state` does): it takes in the claims
/// recorded so far and goes on writing to the same record, numbering its proofs on.
fn resumed(rules: Rules, record: &Shared, way: Way) -> Prover<2> {
    let bytes = record.0.lock().unwrap().clone();
    let (claims, _) = certificate::read_record::<2>(&rules, &bytes[..]).unwrap();
    let next = claims
        .iter()
        .map(|c| (c.rank >> 32) as u32)
        .max()
        .unwrap_or(0)
        + 1;
    let mut prove = prover(rules, way);
    prove.learn(&claims);
    prove.record(Recorder::new(Box::new(record.clone()), next));
    prove
}

/// A run stopped partway (its stop flag raised from the start: each proof stops at its
/// 1024th position) and resumed from its record, numbering its proofs on, proves the same
/// values, and the record of both gives a certificate of true claims.
fn check_stopped_and_resumed(rules: Rules, roots: &[Root<2>], want: &HashMap<Key, i32>, way: Way) {
    let record = Shared::default();
    let mut first = prover(rules, way);
    first.record(Recorder::new(Box::new(record.clone()), 1));
    let stopped = AtomicBool::new(true);
    let mut stops = 0;
    for r in roots.iter().step_by(2) {
        stops += first.value(&r.position, None, &stopped, None).is_err() as usize;
    }
    first.finish().unwrap();
    let mut second = resumed(rules, &record, way);
    let go = AtomicBool::new(false);
    for r in roots.iter().step_by(2) {
        let v = second.value(&r.position, None, &go, None).unwrap();
        let s = if r.position.side_to_move() == Side::South {
            v
        } else {
            -v
        };
        assert_eq!(s, r.bound, "{rules} {}: stopped and resumed", r.position);
    }
    second.finish().unwrap();
    let bytes = record.0.lock().unwrap().clone();
    let (all, _) = certificate::read_record::<2>(&rules, &bytes[..]).unwrap();
    let cert = certificate::extract(&rules, all, roots, None).unwrap();
    for c in &cert {
        assert!(
            c.kind.holds(c.bound, want[&c.position.board_key()]),
            "{rules}: {c:?}"
        );
    }
    // On the larger boards some proofs did stop (else this tested nothing there).
    if roots.len() > 100 && rules.holes() == 4 && rules.seeds() == 2 {
        assert!(stops > 0, "{rules}: nothing stopped");
    }
}

/// A record that raises `stop` once it holds `after` bytes: a run stopped after a given
/// number of finished proofs, at a point that does not depend on timing.
struct StopAfter {
    record: Shared,
    after: usize,
    stop: Arc<AtomicBool>,
}

impl Write for StopAfter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.record.write(buf)?;
        if self.record.0.lock().unwrap().len() >= self.after {
            self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A run stopped at several points (the whole run ends there, as on Ctrl-C or a time
/// limit) and resumed from its record writes, byte for byte, the record of a run that was
/// not stopped, so both give the same certificate.
fn check_resumed_record_is_the_same(rules: Rules, sample: usize, way: Way) {
    let all = reachable(&rules);
    let step = (all.len() / sample).max(1);
    let positions: Vec<Position6> = all.iter().step_by(step).copied().collect();
    let go = AtomicBool::new(false);
    let whole = Shared::default();
    let mut prove = prover(rules, way);
    prove.record(Recorder::new(Box::new(whole.clone()), 1));
    for p in &positions {
        prove.value(p, None, &go, None).unwrap();
    }
    prove.finish().unwrap();
    let whole = whole.0.lock().unwrap().clone();
    let mut stopped = 0;
    for cut in [whole.len() / 7, whole.len() / 3, whole.len() * 3 / 4] {
        let record = Shared::default();
        let stop = Arc::new(AtomicBool::new(false));
        let mut first = prover(rules, way);
        first.record(Recorder::new(
            Box::new(StopAfter {
                record: record.clone(),
                after: cut,
                stop: Arc::clone(&stop),
            }),
            1,
        ));
        for p in &positions {
            if first.value(p, None, &stop, None).is_err() {
                stopped += 1;
                break;
            }
        }
        first.finish().unwrap();
        let stopped_at = record.0.lock().unwrap().len();
        let mut second = resumed(rules, &record, way);
        for p in &positions {
            second.value(p, None, &go, None).unwrap();
        }
        second.finish().unwrap();
        let both = record.0.lock().unwrap().clone();
        let first_diff = both.iter().zip(&whole).position(|(a, b)| a != b);
        assert!(
            both == whole,
            "{rules}: stopped at {stopped_at} of {} bytes: the resumed record differs \
             ({} bytes, first at {first_diff:?})",
            whole.len(),
            both.len()
        );
    }
    assert!(stopped > 0, "{rules}: no run stopped");
}

#[test]
fn a_resumed_run_records_what_an_unstopped_one_does() {
    check_resumed_record_is_the_same(rules(Variant::Hoyito2, 4, 2), 60, FOCUSED);
    check_resumed_record_is_the_same(rules(Variant::Hoyito3, 4, 2), 60, FOCUSED);
    check_resumed_record_is_the_same(rules(Variant::Hoyito2, 4, 2), 60, BREADTH);
}

/// Captures' proofs given up at a small cap and tried again later prove the same values,
/// with certificates, also in a run stopped and resumed among them (`check_proofs`).
#[test]
fn captures_given_up_at_a_small_cap_prove_the_same() {
    for variant in [Variant::Hoyito2, Variant::Hoyito3] {
        let r = rules(variant, 4, 2);
        let small = check_proofs(r, 60, SMALL_CAP);
        let default = check_proofs(r, 60, FOCUSED);
        assert_ne!(small, default, "{r}: the cap changed nothing");
        // Some proofs were given up.
        let gauge = Arc::new(Gauge::default());
        let mut prove = prover(r, SMALL_CAP);
        prove.gauge(gauge.clone());
        let go = AtomicBool::new(false);
        for p in reachable(&r).iter().step_by(50) {
            prove.value(p, None, &go, None).unwrap();
        }
        let given_up = gauge.given_up.load(std::sync::atomic::Ordering::Relaxed);
        assert!(given_up > 0, "{r}: nothing given up");
    }
}

fn rules(variant: Variant, holes: usize, seeds: usize) -> Rules {
    Rules::new(variant, holes, seeds, LastFour::Capturer, CaptureSide::Any).unwrap()
}

#[test]
fn hoyito2_2x3_two_seeds() {
    check(rules(Variant::Hoyito2, 3, 2), 150);
}

#[test]
fn proofs_and_certificates_on_small_boards() {
    let focused = FOCUSED;
    check_proofs(rules(Variant::Hoyito2, 3, 2), 150, focused);
    check_proofs(rules(Variant::Hoyito3, 3, 3), 150, focused);
    check_proofs(
        Rules::new(Variant::Hoyito3, 4, 1, LastFour::North, CaptureSide::Any).unwrap(),
        150,
        focused,
    );
    check_proofs(
        Rules::new(
            Variant::Hoyito2,
            3,
            3,
            LastFour::Capturer,
            CaptureSide::Opponent,
        )
        .unwrap(),
        150,
        focused,
    );
}

/// Both ways of exploring a proof's graph prove the true values, with certificates, and
/// explore different graphs (else one of them is not in use).
#[test]
fn focused_and_breadth_first_proofs_agree() {
    for variant in [Variant::Hoyito2, Variant::Hoyito3] {
        let r = rules(variant, 4, 2);
        let focused = check_proofs(r, 60, FOCUSED);
        let breadth = check_proofs(r, 60, BREADTH);
        assert_ne!(focused, breadth, "{r}: the same positions explored");
    }
}

#[test]
fn hoyito3_2x3_three_seeds() {
    check(rules(Variant::Hoyito3, 3, 3), 150);
}

#[test]
fn hoyito2_2x4_two_seeds() {
    check(rules(Variant::Hoyito2, 4, 2), 60);
}

#[test]
fn hoyito3_last_four_north_2x4_one_seed() {
    check(
        Rules::new(Variant::Hoyito3, 4, 1, LastFour::North, CaptureSide::Any).unwrap(),
        150,
    );
}

#[test]
fn hoyito2_opponent_side_2x3_three_seeds() {
    check(
        Rules::new(
            Variant::Hoyito2,
            3,
            3,
            LastFour::Capturer,
            CaptureSide::Opponent,
        )
        .unwrap(),
        150,
    );
}

/// Two provers side by side ([`Prover::value_beside`]), writing one record: the values equal
/// the reference whatever the guess (none, too low, too high, right), the moves that keep
/// them too, the helper does part of the work, and the record of both gives certificates
/// whose claims all hold. Stopped before it starts, it proves nothing and says so.
#[test]
fn two_provers_side_by_side_prove_the_values_with_one_record() {
    for r in [
        rules(Variant::Hoyito2, 3, 2),
        rules(Variant::Hoyito3, 4, 2),
        rules(Variant::Hoyito2, 4, 2),
    ] {
        let want = reference(&r);
        let all = reachable(&r);
        let record = Shared::default();
        let mut main = prover(r, FOCUSED);
        let mut helper = prover(r, FOCUSED);
        main.record(Recorder::new(Box::new(record.clone()), 1));
        helper.record(Recorder::new(Box::new(record.clone()), 1));
        // The helper joins at once (small proofs end before it would).
        main.helper_after(std::time::Duration::ZERO);
        let stop = AtomicBool::new(false);
        let mut roots = Vec::new();
        let step = (all.len() / 120).max(1);
        for (i, p) in all.iter().step_by(step).enumerate() {
            let u = want[&p.board_key()];
            let mover = |v: i32| {
                if p.side_to_move() == Side::South {
                    v
                } else {
                    -v
                }
            };
            let guess = [None, Some(mover(u) - 5), Some(mover(u) + 3), Some(mover(u))][i % 4];
            let v = main
                .value_beside(&mut helper, p, guess, &stop, None)
                .unwrap();
            assert_eq!(mover(v), u, "{r} {p}: guess {guess:?}");
            if let Some(m) = main.keeping_move(p, v, &stop, None).unwrap() {
                assert_eq!(move_value_ref(&r, p, m, &want), v, "{r} {p}: move {m}");
            }
            for kind in [Kind::AtLeast, Kind::AtMost] {
                roots.push(Root {
                    position: *p,
                    kind,
                    bound: u,
                });
            }
        }
        assert!(helper.explored() > 0, "{r}: the helper did nothing");
        main.finish().unwrap();
        helper.finish().unwrap();
        let bytes = record.0.lock().unwrap().clone();
        let (claims, read) = certificate::read_record::<2>(&r, &bytes[..]).unwrap();
        assert_eq!(read as usize, bytes.len());
        let cert = certificate::extract(&r, claims, &roots, None).unwrap();
        for c in &cert {
            let u = want[&c.position.board_key()];
            assert!(
                c.kind.holds(c.bound, u),
                "{r}: false claim {c:?}, value {u}"
            );
        }
        // Stopped at once: the bounds known, not a value.
        let open = all
            .iter()
            .rev()
            .find(|p| p.is_live() && p.seeds_on_board() == r.total_seeds() as u32)
            .unwrap();
        let mut fresh = prover(r, FOCUSED);
        let mut beside = prover(r, FOCUSED);
        let stopped = AtomicBool::new(true);
        let n = open.seeds_on_board() as i32;
        assert_eq!(
            fresh.value_beside(&mut beside, open, None, &stopped, None),
            Err((-n, n)),
            "{r} {open}"
        );
    }
}
