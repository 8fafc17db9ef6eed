//! Certificates made by a small whole-game solver written here, over the engine's rules,
//! are accepted by the checker (which plays with its own rules); certificates broken on
//! purpose, and malformed files, are rejected with the reason expected.
//!
//! The solver explores every position reachable from a start, then solves layer by layer
//! (seeds on the board, fewest first: captures lead to smaller layers): within a layer, for
//! each bound `t > 0` the positions where South forces a net gain of at least `t` are
//! South's attractor to the moves out of the layer worth at least `t` (a least fixpoint:
//! endless play is worth 0), and the same for North with bounds below 0. The round in which
//! a position joins an attractor is its rank within the layer.

mod common;

use common::{engine_rules_with as engine_rules, rules};

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;

use hoyito_check::{
    check_file, write_certificate, CaptureSide, CheckError, Claim, Entry, Kind, LastFour, Place,
    Position, Reason, Rules, Side, Variant,
};
use hoyito_rules as engine;

/// A move out of a position: hole, South's net gain, the position reached (`None` when the
/// move ended the game).
#[derive(Clone, Copy, Debug)]
struct Edge {
    hole: u8,
    gain: i32,
    target: Option<usize>,
}

#[derive(Clone, Debug)]
enum Out {
    Moves(Vec<Edge>),
    Pass(usize),
    Over,
}

/// Every position reachable from a start, with its moves.
struct Graph {
    nodes: Vec<Position>,
    outs: Vec<Out>,
    ids: HashMap<Position, usize>,
}

fn to_engine(er: &engine::Rules, p: &Position) -> engine::Position6 {
    let h = er.holes();
    let side = match p.side {
        Side::South => engine::Side::South,
        Side::North => engine::Side::North,
    };
    engine::Position6::from_rows(er, &p.board[..h], &p.board[h..], side, [0, 0]).unwrap()
}

fn from_engine(q: &engine::Position6) -> Position {
    let (mut board, north) = q.rows();
    board.extend(north);
    let side = match q.side_to_move() {
        engine::Side::South => Side::South,
        engine::Side::North => Side::North,
    };
    Position { board, side }
}

impl Graph {
    fn explore(rules: Rules, seeds_a_hole: usize) -> (Graph, usize) {
        let er = engine_rules(&rules, seeds_a_hole);
        let start = Position {
            board: vec![seeds_a_hole as u8; 2 * rules.holes],
            side: Side::South,
        };
        let mut g = Graph {
            nodes: vec![start.clone()],
            outs: Vec::new(),
            ids: HashMap::from([(start, 0)]),
        };
        let mut i = 0;
        while i < g.nodes.len() {
            let p = to_engine(&er, &g.nodes[i]);
            let moves = p.moves(&er);
            let out = if moves.is_empty() {
                let other = p.with_side_flipped();
                if other.has_legal_move(&er) {
                    Out::Pass(g.id(from_engine(&other)))
                } else {
                    Out::Over
                }
            } else {
                let mover_sign = if g.nodes[i].side == Side::South {
                    1
                } else {
                    -1
                };
                let edges = moves
                    .children()
                    .iter()
                    .map(|c| Edge {
                        hole: c.mv.0,
                        gain: mover_sign * c.gain as i32,
                        target: (!c.ended_game).then(|| g.id(from_engine(&c.position))),
                    })
                    .collect();
                Out::Moves(edges)
            };
            g.outs.push(out);
            i += 1;
        }
        (g, 0)
    }

    fn id(&mut self, p: Position) -> usize {
        if let Some(&i) = self.ids.get(&p) {
            return i;
        }
        self.nodes.push(p.clone());
        self.ids.insert(p, self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    fn seeds(&self, i: usize) -> u32 {
        self.nodes[i].seeds()
    }
}

/// Values (South's view) and attractor rounds of every position of a graph.
struct Solution {
    value: Vec<i32>,
    /// `(position, claim)` to the round the position joined the attractor of that finite
    /// claim.
    round: HashMap<(usize, Kind, i32), u64>,
}

fn solve(g: &Graph) -> Solution {
    let mut layers: Vec<u32> = (0..g.nodes.len()).map(|i| g.seeds(i)).collect();
    layers.sort_unstable();
    layers.dedup();
    let mut value = vec![0i32; g.nodes.len()];
    let mut round = HashMap::new();
    for n in layers {
        let layer: Vec<usize> = (0..g.nodes.len()).filter(|&i| g.seeds(i) == n).collect();
        let n = n as i32;
        let claims = (1..=n).map(Claim::ge).chain((-n..=-1).map(Claim::le));
        for claim in claims {
            // The attractor of the finite claim, round by round.
            let mut joined: HashMap<usize, u64> = HashMap::new();
            for r in 1.. {
                let good = |e: &Edge, joined: &HashMap<usize, u64>| match e.target {
                    None => claim.holds_for(e.gain),
                    Some(j) if g.seeds(j) < n as u32 => claim.holds_for(e.gain + value[j]),
                    Some(j) => joined.contains_key(&j),
                };
                let added: Vec<usize> = layer
                    .iter()
                    .copied()
                    .filter(|i| !joined.contains_key(i))
                    .filter(|&i| match &g.outs[i] {
                        Out::Over => false,
                        Out::Pass(j) => joined.contains_key(j),
                        Out::Moves(es) => {
                            if g.nodes[i].side == claim.kind.prover() {
                                es.iter().any(|e| good(e, &joined))
                            } else {
                                es.iter().all(|e| good(e, &joined))
                            }
                        }
                    })
                    .collect();
                if added.is_empty() {
                    break;
                }
                for i in added {
                    joined.insert(i, r);
                }
            }
            for (&i, &r) in &joined {
                round.insert((i, claim.kind, claim.bound), r);
                // The attractors grow towards 0, so the last one joined is the value.
                match claim.kind {
                    Kind::Ge => value[i] = value[i].max(claim.bound),
                    Kind::Le => value[i] = value[i].min(claim.bound),
                }
            }
        }
    }
    Solution { value, round }
}

/// A certificate of `claims` on position 0, with the tables up to `tables` seeds taking
/// over (positions of those layers get no entry). Returns the entries and the positions
/// left to the tables with the claim each must satisfy.
fn certify(
    g: &Graph,
    s: &Solution,
    claims: &[Claim],
    tables: Option<u32>,
) -> (Vec<Entry>, Vec<(usize, Claim)>) {
    let mut entries = Vec::new();
    let mut table_uses = Vec::new();
    let mut seen: HashSet<(usize, Kind, i32)> = HashSet::new();
    let mut queue: VecDeque<(usize, Claim)> = VecDeque::new();
    let mut require = |j: usize, claim: Claim, queue: &mut VecDeque<(usize, Claim)>| {
        let n = g.seeds(j);
        if n <= 4 || claim.is_trivial(n) {
            return;
        }
        if tables.is_some_and(|t| n <= t && n % 4 == t % 4) {
            table_uses.push((j, claim));
            return;
        }
        if seen.insert((j, claim.kind, claim.bound)) {
            queue.push_back((j, claim));
        }
    };
    for &c in claims {
        require(0, c, &mut queue);
    }
    while let Some((i, claim)) = queue.pop_front() {
        assert!(
            claim.holds_for(s.value[i]),
            "the solver claims a false bound"
        );
        let n = g.seeds(i);
        let my_round = if claim.is_finite() {
            s.round[&(i, claim.kind, claim.bound)]
        } else {
            0
        };
        let rank = ((n as u64) << 32) | my_round;
        let mut mv = 0;
        match &g.outs[i] {
            Out::Over => {}
            Out::Pass(j) => require(*j, claim, &mut queue),
            Out::Moves(es) if g.nodes[i].side == claim.kind.prover() => {
                let keeps = |e: &&Edge| {
                    let after = claim.after_gain(e.gain);
                    match e.target {
                        None => after.holds_for(0),
                        Some(j) if g.seeds(j) < n => after.holds_for(s.value[j]),
                        Some(j) if claim.is_finite() => s
                            .round
                            .get(&(j, claim.kind, claim.bound))
                            .is_some_and(|&r| r < my_round),
                        Some(j) => after.holds_for(s.value[j]),
                    }
                };
                let e = es.iter().find(keeps).expect("a move keeps the claim");
                mv = e.hole;
                if let Some(j) = e.target {
                    require(j, claim.after_gain(e.gain), &mut queue);
                }
            }
            Out::Moves(es) => {
                for e in es {
                    if let Some(j) = e.target {
                        require(j, claim.after_gain(e.gain), &mut queue);
                    }
                }
            }
        }
        entries.push(Entry {
            position: g.nodes[i].clone(),
            claim,
            mv,
            rank,
        });
    }
    (entries, table_uses)
}

fn write(
    path: &Path,
    r: &Rules,
    tables: Option<usize>,
    roots: &[(Position, Claim)],
    entries: &[Entry],
) {
    let mut out = Vec::new();
    write_certificate(&mut out, r, tables, roots, entries).unwrap();
    std::fs::write(path, out).unwrap();
}

/// The reason of a rejection, or a panic naming what came instead.
fn rejection(result: Result<hoyito_check::Report, CheckError>, what: &str) -> Reason {
    match result {
        Err(CheckError::Rejected(f)) => {
            // The message names the entry and its position.
            let message = f.to_string();
            assert!(message.contains(&f.position.to_string()), "{message}");
            f.reason
        }
        other => panic!("{what}: expected a rejection, got {other:?}"),
    }
}

fn malformed(result: Result<hoyito_check::Report, CheckError>, what: &str) -> (Place, String) {
    match result {
        Err(CheckError::Malformed { place, problem, .. }) => (place, problem),
        other => panic!("{what}: expected a malformed certificate, got {other:?}"),
    }
}

/// The whole game of small boards: the start's value certified both ways and accepted; the
/// value plus one in either direction not certifiable.
#[test]
fn certificates_of_small_games_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            rules(3, Variant::Hoyito2, LastFour::Capturer, CaptureSide::Any),
            1,
        ),
        (
            rules(3, Variant::Hoyito3, LastFour::Capturer, CaptureSide::Any),
            1,
        ),
        (
            rules(3, Variant::Hoyito2, LastFour::Capturer, CaptureSide::Any),
            2,
        ),
        (
            rules(3, Variant::Hoyito3, LastFour::Capturer, CaptureSide::Any),
            2,
        ),
        (
            rules(4, Variant::Hoyito2, LastFour::Capturer, CaptureSide::Any),
            1,
        ),
        (
            rules(4, Variant::Hoyito3, LastFour::Capturer, CaptureSide::Any),
            1,
        ),
        (
            rules(3, Variant::Hoyito2, LastFour::North, CaptureSide::Opponent),
            2,
        ),
        (
            rules(4, Variant::Hoyito3, LastFour::South, CaptureSide::Any),
            1,
        ),
    ];
    let mut finite_roots = 0;
    for (r, seeds) in cases {
        let (g, root) = Graph::explore(r, seeds);
        let s = solve(&g);
        let v = s.value[root];
        let start = g.nodes[root].clone();
        let roots = [(start.clone(), Claim::ge(v)), (start.clone(), Claim::le(v))];
        let (entries, _) = certify(&g, &s, &[Claim::ge(v), Claim::le(v)], None);
        println!(
            "{r}, {seeds} a hole: {} positions, value {v}, {} entries",
            g.nodes.len(),
            entries.len()
        );
        let path = dir.path().join(format!("{r}-{seeds}.cert"));
        write(&path, &r, None, &roots, &entries);
        let report = check_file(&path, None).unwrap_or_else(|e| panic!("{r} {seeds}: {e}"));
        assert_eq!(report.entries, entries.len() as u64);
        assert_eq!(report.roots, roots.to_vec());
        assert!(report.steps >= report.entries);
        finite_roots += (v != 0) as usize;

        // One step beyond the value is false: the same entries do not prove it.
        let beyond = [(start.clone(), Claim::ge(v + 1))];
        write(&path, &r, None, &beyond, &entries);
        let reason = rejection(check_file(&path, None), "ge v+1 at the root");
        assert_eq!(reason, Reason::MissingClaim);
    }
    assert!(finite_roots >= 2, "some starts are won or lost");
}

/// A game whose start is won by a side, certified, for the broken variants below.
fn won_game() -> (Rules, Graph, Solution, Vec<(Position, Claim)>, Vec<Entry>) {
    // 2x3 with 2 seeds a hole, Hoyito II, captures in the opponent's row, the last four to
    // North: the start is worth -4, and its proof has over a thousand entries.
    let r = rules(3, Variant::Hoyito2, LastFour::North, CaptureSide::Opponent);
    let (g, root) = Graph::explore(r, 2);
    let s = solve(&g);
    let v = s.value[root];
    assert_ne!(v, 0);
    let start = g.nodes[root].clone();
    let roots = vec![(start.clone(), Claim::ge(v)), (start, Claim::le(v))];
    let (entries, _) = certify(&g, &s, &[Claim::ge(v), Claim::le(v)], None);
    (r, g, s, roots, entries)
}

#[test]
fn certificates_with_broken_moves_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.cert");
    let (r, g, s, roots, entries) = won_game();
    write(&path, &r, None, &roots, &entries);
    check_file(&path, None).unwrap();

    // A wrong move: an entry of the proving side's, its move replaced by a legal one that
    // does not keep the claim.
    let mut wrong = None;
    'search: for (k, e) in entries.iter().enumerate() {
        let i = g.ids[&e.position];
        if let Out::Moves(es) = &g.outs[i] {
            if e.mv == 0 {
                continue;
            }
            for edge in es {
                let after = e.claim.after_gain(edge.gain);
                let worth = edge.target.map_or(0, |j| s.value[j]);
                if !after.holds_for(worth) {
                    wrong = Some((k, edge.hole));
                    break 'search;
                }
            }
        }
    }
    let (k, hole) = wrong.expect("some entry has a losing alternative");
    let mut broken = entries.clone();
    broken[k].mv = hole;
    write(&path, &r, None, &roots, &broken);
    let reason = rejection(check_file(&path, None), "wrong move");
    assert!(
        matches!(reason, Reason::MissingClaim | Reason::GameEnd),
        "{reason:?}"
    );

    // An illegal move: an empty hole of the mover's.
    let (k, hole) = entries
        .iter()
        .enumerate()
        .find_map(|(k, e)| {
            if e.mv == 0 {
                return None;
            }
            (1..=r.holes)
                .find(|&h| e.position.board[Position::index_of(&r, e.position.side, h)] == 0)
                .map(|h| (k, h as u8))
        })
        .expect("some entry's mover has an empty hole");
    let mut broken = entries.clone();
    broken[k].mv = hole;
    write(&path, &r, None, &roots, &broken);
    let reason = rejection(check_file(&path, None), "illegal move");
    assert_eq!(
        reason,
        Reason::IllegalMove(hoyito_check::rules::Illegal::Empty)
    );

    // A move where the other side moves.
    let k = entries
        .iter()
        .position(|e| {
            e.mv == 0 && e.position.side != e.claim.kind.prover() && e.position.can_move(&r)
        })
        .expect("an entry where the opponent moves");
    let mut broken = entries.clone();
    broken[k].mv = 1;
    write(&path, &r, None, &roots, &broken);
    let reason = rejection(check_file(&path, None), "move for the opponent");
    assert_eq!(reason, Reason::MoveNotExpected(1));
}

#[test]
fn certificates_with_broken_claims_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.cert");
    let (r, g, s, roots, entries) = won_game();
    write(&path, &r, None, &roots, &entries);
    check_file(&path, None).unwrap();
    // A missing reply: an entry removed whose position has no other entry as strong.
    let k = (1..entries.len())
        .find(|&k| {
            let e = &entries[k];
            !entries
                .iter()
                .enumerate()
                .any(|(m, o)| m != k && o.position == e.position && o.claim.implies(&e.claim))
        })
        .expect("an entry that only it can stand for");
    let mut broken = entries.clone();
    broken.remove(k);
    write(&path, &r, None, &roots, &broken);
    let reason = rejection(check_file(&path, None), "missing reply");
    assert_eq!(reason, Reason::MissingClaim);

    // Ranks that do not fall: all equal.
    let mut broken = entries.clone();
    for e in &mut broken {
        e.rank = 7;
    }
    write(&path, &r, None, &roots, &broken);
    let reason = rejection(check_file(&path, None), "equal ranks");
    assert_eq!(reason, Reason::RankDoesNotFall { smallest: 7 });

    // A bound made stronger than true: the root's entry and root claim one step further.
    let v = s.value[0];
    let (claim, stronger) = if Claim::ge(v).is_trivial(g.seeds(0)) {
        (Claim::le(v), Claim::le(v - 1))
    } else {
        (Claim::ge(v), Claim::ge(v + 1))
    };
    let k = entries
        .iter()
        .position(|e| e.position == g.nodes[0] && e.claim == claim)
        .unwrap();
    let mut broken = entries.clone();
    broken[k].claim = stronger;
    let stronger = vec![(g.nodes[0].clone(), stronger)];
    write(&path, &r, None, &stronger, &broken);
    let reason = rejection(check_file(&path, None), "stronger bound");
    assert!(
        matches!(
            reason,
            Reason::MissingClaim | Reason::GameEnd | Reason::RankDoesNotFall { .. }
        ),
        "{reason:?}"
    );

    // A root claim no entry makes.
    let roots_le = vec![(g.nodes[0].clone(), Claim::le(v - 1))];
    write(&path, &r, None, &roots_le, &entries);
    let reason = rejection(check_file(&path, None), "root claim");
    assert_eq!(reason, Reason::MissingClaim);
}

#[test]
fn certificates_with_malformed_headers_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("malformed.cert");
    let (r, _, _, roots, entries) = won_game();
    let mut good = Vec::new();
    write_certificate(&mut good, &r, None, &roots, &entries).unwrap();
    let text_len = good.len() - entries.len() * (2 * r.holes + 12);
    let header = String::from_utf8(good[..text_len].to_vec()).unwrap();
    let body = good[text_len..].to_vec();
    let with_header = |h: &str| {
        let mut b = h.as_bytes().to_vec();
        b.extend_from_slice(&body);
        std::fs::write(&path, b).unwrap();
        check_file(&path, None)
    };

    let (place, problem) = malformed(
        with_header(&header.replacen("hoyito-certificate 1", "hoyito-cert 1", 1)),
        "magic",
    );
    assert_eq!(place, Place::Line(1));
    assert!(problem.contains("first line"), "{problem}");
    let (_, problem) = malformed(
        with_header(&header.replacen("hoyito-certificate 1", "hoyito-certificate 2", 1)),
        "version",
    );
    assert!(problem.contains("hoyito-certificate 1"), "{problem}");
    let (place, problem) = malformed(
        with_header(&header.replace("variant=hoyito2", "variant=hoyito4")),
        "variant",
    );
    assert_eq!(place, Place::Line(2));
    assert!(problem.contains("hoyito4"), "{problem}");
    let (_, problem) = malformed(
        with_header(&header.replace("last_four=N", "last_four=X")),
        "last four",
    );
    assert!(problem.contains("'X'"), "{problem}");
    let (_, problem) = malformed(with_header(&header.replace("holes=3", "holes=13")), "holes");
    assert!(problem.contains("13"), "{problem}");
    let (_, problem) = malformed(
        with_header(&header.replace("tables none", "tables max_seeds=x")),
        "tables",
    );
    assert!(problem.contains("max_seeds"), "{problem}");
    let n = entries.len();
    let (place, problem) = malformed(
        with_header(&header.replace(&format!("entries {n}"), &format!("entries {}", n + 1))),
        "count",
    );
    assert_eq!(place, Place::End);
    assert!(problem.contains("truncated"), "{problem}");
    let (place, _) = malformed(
        with_header(&header.replace(&format!("entries {n}"), &format!("entries {}", n - 1))),
        "count",
    );
    assert_eq!(place, Place::End);
    let (_, problem) = malformed(with_header(&header.replace("end\n", "")), "no end");
    assert!(problem.contains("end"), "{problem}");
    let no_roots: String = header
        .lines()
        .filter(|l| !l.starts_with("root"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (_, problem) = malformed(with_header(&no_roots), "no root");
    assert!(problem.contains("root"), "{problem}");
    let (_, problem) = malformed(
        with_header(&header.replacen(" ge ", " gt ", 1)),
        "claim kind",
    );
    assert!(problem.contains("gt"), "{problem}");
}

#[test]
fn certificates_with_malformed_entries_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("malformed.cert");
    let (r, _, _, roots, entries) = won_game();
    let mut good = Vec::new();
    write_certificate(&mut good, &r, None, &roots, &entries).unwrap();
    let text_len = good.len() - entries.len() * (2 * r.holes + 12);

    // Truncated file: the last byte cut.
    std::fs::write(&path, &good[..good.len() - 1]).unwrap();
    let (place, problem) = malformed(check_file(&path, None), "truncated");
    assert_eq!(place, Place::End);
    assert!(problem.contains("truncated"), "{problem}");

    // Entry fields out of range, and entries out of order.
    let size = 2 * r.holes + 12;
    let with_body = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        edit(&mut b);
        std::fs::write(&path, b).unwrap();
        check_file(&path, None)
    };
    let at = |k: usize, field: usize| text_len + k * size + field;
    let (place, problem) = malformed(with_body(&|b| b[at(3, 2 * 3)] = 2), "side byte");
    assert_eq!(place, Place::Entry(3));
    assert!(problem.contains("side"), "{problem}");
    let (_, problem) = malformed(with_body(&|b| b[at(3, 7)] = 9), "kind byte");
    assert!(problem.contains("kind"), "{problem}");
    let (_, problem) = malformed(with_body(&|b| b[at(3, 9)] = 4), "move byte");
    assert!(problem.contains("move 4"), "{problem}");
    let (_, problem) = malformed(with_body(&|b| b[at(3, 0)] = 200), "hole count");
    assert!(problem.contains("seeds"), "{problem}");
    let (place, problem) = malformed(
        with_body(&|b| {
            let first: Vec<u8> = b[at(0, 0)..at(1, 0)].to_vec();
            let second: Vec<u8> = b[at(1, 0)..at(2, 0)].to_vec();
            b[at(0, 0)..at(1, 0)].copy_from_slice(&second);
            b[at(1, 0)..at(2, 0)].copy_from_slice(&first);
        }),
        "unsorted",
    );
    assert_eq!(place, Place::Entry(1));
    assert!(problem.contains("sorted"), "{problem}");
}

/// With tables: positions of the tables' layers get no entries, their table values justify
/// the claims; a table value changed (checksums made to match) is found.
#[test]
fn certificates_over_tables() {
    let dir = tempfile::tempdir().unwrap();
    let r = rules(3, Variant::Hoyito2, LastFour::Capturer, CaptureSide::Any);
    let (g, root) = Graph::explore(r, 2);
    let s = solve(&g);
    let v = s.value[root];
    let start = g.nodes[root].clone();
    let roots = [(start.clone(), Claim::ge(v)), (start, Claim::le(v))];
    let (entries, table_uses) = certify(&g, &s, &[Claim::ge(v), Claim::le(v)], Some(8));
    assert!(!table_uses.is_empty());
    assert!(entries.iter().all(|e| e.position.seeds() > 8));
    let tables = dir.path().join("tables");
    hoyito_tables::build(&tables, &engine_rules(&r, 8), 8, &hoyito_tables::Quiet).unwrap();
    let path = dir.path().join("over-tables.cert");
    write(&path, &r, Some(8), &roots, &entries);

    let report = check_file(&path, Some(&tables)).unwrap();
    assert!(report.table_lookups > 0);
    assert_eq!(report.tables_max_seeds, Some(8));
    // Without the tables' folder: an error that says so.
    assert!(matches!(
        check_file(&path, None),
        Err(CheckError::TablesNeeded { max_seeds: 8 })
    ));
    // The same entries without tables: the table positions lack entries.
    write(&path, &r, None, &roots, &entries);
    assert_eq!(
        rejection(check_file(&path, None), "no tables"),
        Reason::MissingClaim
    );
    write(&path, &r, Some(8), &roots, &entries);

    // Change the stored value of a position the certificate looks up, to the worst value
    // for the claim it must satisfy, and make both checksums match again.
    let (j, claim) = table_uses[0];
    let q = g.nodes[j].clone();
    let n = q.seeds() as i32;
    let south_worst = match claim.kind {
        Kind::Ge => -n,
        Kind::Le => n,
    };
    let mover_value = if q.side == Side::South {
        south_worst
    } else {
        -south_worst
    };
    let file = hoyito_check::tables::layer_path(&tables, &r, n as usize);
    let mut bytes = std::fs::read(&file).unwrap();
    let step = 4;
    let bins = (2 * n / step + 1) as usize;
    let header_len = 72 + 8 * bins + 8;
    let bits = 3; // 2 * 8 / 4 + 1 = 5 codes
    let index = {
        // The engine's index of the position, independent of the checker's.
        let layout = hoyito_tables::Layout::new(r.holes, n as usize, 1).unwrap();
        let shift = if q.side == Side::South { 0 } else { r.holes };
        let view: Vec<u8> = (0..2 * r.holes)
            .map(|i| q.board[(i + shift) % (2 * r.holes)])
            .collect();
        layout.rank(&view)
    };
    let code = ((mover_value + n) / step) as u64;
    for k in 0..bits {
        let bit = index * bits + k;
        let byte = &mut bytes[header_len + (bit / 8) as usize];
        *byte &= !(1 << (bit % 8));
        *byte |= (((code >> k) & 1) as u8) << (bit % 8);
    }
    let payload_sum = hoyito_tables::format::checksum(&bytes[header_len..]);
    bytes[40..48].copy_from_slice(&payload_sum.to_le_bytes());
    let header_sum = hoyito_tables::format::checksum(&bytes[..header_len - 8]);
    bytes[header_len - 8..header_len].copy_from_slice(&header_sum.to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    let reason = rejection(check_file(&path, Some(&tables)), "changed table value");
    assert_eq!(reason, Reason::TableContradicts { value: south_worst });

    // A flipped payload byte: the table is refused, naming its file.
    bytes[header_len + 3] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    match check_file(&path, Some(&tables)) {
        Err(e @ CheckError::Table { .. }) => {
            assert!(e.to_string().contains(&file.display().to_string()), "{e}")
        }
        other => panic!("expected a table error, got {other:?}"),
    }
}
