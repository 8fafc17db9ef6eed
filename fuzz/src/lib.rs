//! The bodies of the fuzz targets, one public function each, taking the fuzzer's bytes.
//!
//! Two callers share them: the cargo-fuzz targets in `fuzz/fuzz_targets/` (nightly,
//! libFuzzer), and the stable test `solver/tests/fuzz_corpus.rs`, which includes this file
//! with `#[path]` and replays every committed corpus file through it under
//! `cargo test --workspace`. This file therefore uses only `std`, `hoyito_rules`,
//! `hoyito_tables`, `hoyito_check` (dev-dependencies of the solver crate) and `hoyito` (the
//! library the solver is a front of), and every check is an `assert!`: a failed check is a
//! crash to the fuzzer and a failed test on stable.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use hoyito_rules::{
    read_records, write_records, CaptureSide, Diagram, LastFour, Move, PlayError, Position, Rules,
    Side, Status, Variant,
};
use hoyito_tables::format::{checksum, file_name, key_dir, Layer, TableKey};
use hoyito_tables::{Quiet, Tables, MAX_BOARD};

/// A set of rules chosen by the bits of `byte`: variant (bit 0), last four (bits 1-2),
/// capture side (bit 3); `None` for an impossible board.
fn rules_of(byte: u8, holes: usize, seeds: usize) -> Option<Rules> {
    let variant = if byte & 1 == 0 {
        Variant::Hoyito2
    } else {
        Variant::Hoyito3
    };
    let last_four = match (byte >> 1) & 3 {
        1 => LastFour::South,
        2 => LastFour::North,
        _ => LastFour::Capturer,
    };
    let capture_side = if byte & 8 == 0 {
        CaptureSide::Any
    } else {
        CaptureSide::Opponent
    };
    Rules::new(variant, holes, seeds, last_four, capture_side).ok()
}

fn side_of(index: usize) -> Side {
    if index == 0 {
        Side::South
    } else {
        Side::North
    }
}

// ---------------------------------------------------------------------------------------
// (a) The position parser.

/// `position_parse`: the first byte chooses the rules, the rest is position text (lossy
/// UTF-8). The holes come from the text when it parses as a diagram, so that most inputs
/// reach the checks against the rules. A position that parses shows as text that parses
/// back to it, in both position types, and its moves can be generated.
pub fn position_parse(data: &[u8]) {
    let Some((&opts, text)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(text);
    let holes = match text.parse::<Diagram>() {
        Ok(d) => d.holes(),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            6
        }
    };
    let seeds = 1 + (opts >> 4) as usize % 8;
    let Some(rules) = rules_of(opts, holes.clamp(2, 12), seeds) else {
        return;
    };
    let small = check_parse::<2>(&rules, &text);
    let large = check_parse::<4>(&rules, &text);
    if holes <= 6 {
        // Both types accept the same boards up to 2x6 and show them alike.
        assert_eq!(small, large, "{text:?}");
    } else {
        assert_eq!(small, None);
    }
}

/// Parses `text` as a `Position<W>` and checks it; its text when it parses.
fn check_parse<const W: usize>(rules: &Rules, text: &str) -> Option<String> {
    let p = match Position::<W>::parse(rules, text) {
        Ok(p) => p,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return None;
        }
    };
    let shown = p.to_string();
    let back = Position::<W>::parse(rules, &shown).expect("a position's text parses");
    assert_eq!(back, p, "{text:?} shown as {shown:?}");
    assert_eq!(p.holes(), rules.holes());
    let total = p.seeds_on_board() as usize
        + p.captured(Side::South) as usize
        + p.captured(Side::North) as usize;
    assert!(total <= rules.total_seeds());
    let list = p.moves(rules);
    assert!(list.len() <= p.holes());
    assert_eq!(list.len(), p.count_legal(rules));
    let _ = p.settle(rules);
    Some(shown)
}

// ---------------------------------------------------------------------------------------
// (b) Move lists and `play`.

/// `apply`: byte 0 chooses the rules, byte 1 the board (holes `2 ..= 12`, seeds a hole
/// `1 ..= 8`); each further byte picks one of the legal moves of the position reached,
/// from the start. Every position checks its move list against `play` hole by hole, and
/// every child the rules' invariants (see [`check_child`]). Boards up to 2x6 are played in
/// both position types, which must agree.
pub fn apply(data: &[u8]) {
    let [opts, size, moves @ ..] = data else {
        return;
    };
    let holes = 2 + (*size as usize & 15) % 11;
    let seeds = 1 + (*size as usize >> 4) % 8;
    let Some(rules) = rules_of(*opts, holes, seeds) else {
        return;
    };
    let large = play_checked::<4>(&rules, moves);
    if holes <= 6 {
        assert_eq!(play_checked::<2>(&rules, moves), large);
    }
}

/// Plays the moves that `choices` pick from the start of `rules`, checking every position
/// on the way; the positions reached, as text.
fn play_checked<const W: usize>(rules: &Rules, choices: &[u8]) -> Vec<String> {
    let holes = rules.holes();
    let total = rules.total_seeds() as u32;
    let mut p = Position::<W>::start(rules).expect("the start fits");
    let mut seen = vec![p.to_string()];
    for &b in choices {
        assert_eq!(all_seeds(&p), total, "seeds are conserved");
        let (q, status) = p.settle(rules);
        if status == Status::Over {
            assert!(!p.has_legal_move(rules));
            assert_eq!(p.passed(rules), None);
            break;
        }
        if q != p {
            // A pass: same board, other side, which can move.
            assert_eq!(p.count_legal(rules), 0);
            assert_eq!(q, p.with_side_flipped());
        }
        p = q;
        let list = p.moves(rules);
        assert!(!list.is_empty());
        assert!(p.has_legal_move(rules));
        assert_eq!(list.len(), p.count_legal(rules));
        let mover = p.side_to_move();
        for k in 1..=holes {
            let mv = Move(k as u8);
            match p.play(rules, mv) {
                Ok(c) => {
                    assert_eq!(list.get(mv), Some(&c));
                    assert_eq!(c.mv, mv);
                    check_child(rules, &p, &c);
                }
                Err(PlayError::EmptyHole(h)) => {
                    assert_eq!(h, k);
                    assert_eq!(p.seeds_in(mover, k), 0);
                    assert!(list.get(mv).is_none());
                }
                Err(PlayError::Endless(h)) => {
                    assert_eq!(h, k);
                    assert!(list.get(mv).is_none());
                    assert!(list.endless().any(|m| m == mv));
                }
                Err(e) => panic!("hole {k} of {p}: unexpected error {e}"),
            }
        }
        assert!(list.endless().all(|m| p.seeds_in(mover, m.hole()) > 0));
        assert!(p.play(rules, Move(0)).is_err());
        assert!(p.play(rules, Move(holes as u8 + 1)).is_err());
        let c = list.children()[b as usize % list.len()];
        p = c.position;
        seen.push(p.to_string());
    }
    seen
}

/// Seeds on the board and captured by both sides.
fn all_seeds<const W: usize>(p: &Position<W>) -> u32 {
    p.seeds_on_board() + p.captured(Side::South) as u32 + p.captured(Side::North) as u32
}

/// The invariants of one move `c` from `p`: seeds conserved, captures of multiples of 4
/// credited to the mover, an extra turn exactly after a capture, the game ended (board
/// cleared, last seeds awarded as the rules say) exactly when a capture leaves 4 or fewer.
fn check_child<const W: usize>(rules: &Rules, p: &Position<W>, c: &hoyito_rules::Child<W>) {
    let q = c.position;
    let mover = p.side_to_move();
    let other = mover.opponent();
    assert_eq!(q.holes(), p.holes());
    assert_eq!(all_seeds(&q), all_seeds(p), "{p} -> {q}");
    assert_eq!(c.captured % 4, 0);
    assert_eq!(c.extra_turn, c.captured > 0);
    let left = p.seeds_on_board() - c.captured as u32;
    assert_eq!(c.ended_game, c.captured > 0 && left <= 4);
    let (mut to_mover, mut to_other) = (c.captured as u32, 0u32);
    if c.ended_game {
        assert_eq!(q.seeds_on_board(), 0);
        assert_eq!(c.awarded as u32, left);
        if rules.last_four_to(mover) == mover {
            to_mover += left;
            assert_eq!(c.gain as i32, c.captured as i32 + left as i32);
        } else {
            to_other += left;
            assert_eq!(c.gain as i32, c.captured as i32 - left as i32);
        }
        assert!(!q.has_legal_move(rules));
    } else {
        assert_eq!(c.awarded, 0);
        assert_eq!(q.seeds_on_board(), left);
        assert_eq!(c.gain as i32, c.captured as i32);
    }
    assert_eq!(
        q.captured(mover) as u32,
        p.captured(mover) as u32 + to_mover
    );
    assert_eq!(
        q.captured(other) as u32,
        p.captured(other) as u32 + to_other
    );
    let next = if c.extra_turn { mover } else { other };
    assert_eq!(q.side_to_move(), next);
}

// ---------------------------------------------------------------------------------------
// (c) The table file reader.

/// A real layer file, built once per process: the 8-seed layer of Hoyito II on 2x3.
struct RealLayer {
    rules: Rules,
    key: TableKey,
    seeds: usize,
    bytes: Vec<u8>,
    /// The folder where each case's file is written (under its rules' subfolder).
    cases: PathBuf,
}

fn real_layer() -> &'static RealLayer {
    static REAL: OnceLock<RealLayer> = OnceLock::new();
    REAL.get_or_init(|| {
        let rules = Rules::hoyito2(3).expect("2x3 rules");
        let seeds = 8;
        let root = std::env::temp_dir().join(format!("hoyito-fuzz-{}", std::process::id()));
        let built = root.join("built");
        hoyito_tables::build(&built, &rules, seeds, &Quiet).expect("the 2x3 tables build");
        let key = TableKey::of(&rules);
        let bytes = std::fs::read(key_dir(&built, &key).join(file_name(seeds)))
            .expect("the layer file was written");
        let cases = root.join("cases");
        std::fs::create_dir_all(key_dir(&cases, &key)).expect("a scratch folder");
        RealLayer {
            rules,
            key,
            seeds,
            bytes,
            cases,
        }
    })
}

/// Removes the files [`table_file`] wrote for this process (the fuzzers never call it).
pub fn remove_scratch() {
    let root = std::env::temp_dir().join(format!("hoyito-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(root);
}

/// Bytes of a layer file's header with `bins` histogram bins (fixed part, bins, checksum).
fn header_len(bins: usize) -> usize {
    72 + 8 * bins + 8
}

/// `table_file`: byte 0 chooses how the rest makes a layer file for the reader:
/// 0, arbitrary bytes; 1, the real file truncated; 2, the real file with bits flipped;
/// 3, the real file with header bytes rewritten and the header checksum recomputed (and the
/// payload's too, or the payload cut or lengthened, by the higher bits of byte 0), which
/// reaches the checks behind the checksums. The file is read as a layer, as a header, and
/// as tables. Every error names the file. A file that differs from the real one by damage
/// (modes 0 to 2) is always rejected; the real one is accepted.
pub fn table_file(data: &[u8]) {
    let real = real_layer();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = match mode % 4 {
        0 => rest.to_vec(),
        1 => {
            let cut = rest
                .iter()
                .fold(0usize, |a, &b| a.wrapping_mul(256).wrapping_add(b as usize))
                % real.bytes.len();
            real.bytes[..cut].to_vec()
        }
        2 => {
            let mut b = real.bytes.clone();
            for pair in rest.chunks_exact(3) {
                let at = u16::from_le_bytes([pair[0], pair[1]]) as usize % b.len();
                b[at] ^= 1 << (pair[2] % 8);
            }
            b
        }
        _ => forge(&real.bytes, mode, rest),
    };
    let folder = key_dir(&real.cases, &real.key);
    let path = folder.join(file_name(real.seeds));
    std::fs::write(&path, &bytes).expect("the scratch file is written");
    let name = file_name(real.seeds);
    let layer = Layer::read(&path, &real.key, real.seeds);
    let header = Layer::read_header(&path);
    let tables = Tables::open(&real.cases, &real.rules);
    for e in [
        layer.as_ref().err(),
        header.as_ref().err(),
        tables.as_ref().err(),
    ]
    .into_iter()
    .flatten()
    {
        assert!(e.to_string().contains(&name), "error without the file: {e}");
    }
    if mode % 4 < 3 {
        if bytes == real.bytes {
            assert!(layer.is_ok() && tables.is_ok());
        } else {
            assert!(layer.is_err(), "a damaged file was read");
            assert!(tables.is_err(), "a damaged file was opened");
        }
    }
    if let Ok(layer) = &layer {
        let count = layer.layout().count();
        assert!(count <= 1 << 20);
        for i in 0..count {
            let _ = layer.value(i);
        }
    }
    if let (Ok(tables), Ok(layer)) = (&tables, &layer) {
        // Every position of the layer (South to move, board as ranked), through the probe.
        let mut board = [0u8; MAX_BOARD];
        for i in 0..layer.layout().per_side() {
            layer.layout().unrank(i, &mut board);
            let p = Position::<2>::from_rows(
                &real.rules,
                &board[..3],
                &board[3..6],
                Side::South,
                [0, 0],
            )
            .expect("a board of the layer");
            let _ = tables.probe(&p);
        }
    }
    let _ = std::fs::remove_file(&path);
}

/// The real file with header bytes rewritten by `(offset, value)` pairs of `edits`, its
/// header checksum made right again; bits 2-3 of `mode` then also fix the payload checksum
/// (bit 2), and cut the payload to the length of the first edit's value or lengthen it
/// (bit 3, by the value of the last edit).
fn forge(real: &[u8], mode: u8, edits: &[u8]) -> Vec<u8> {
    let mut b = real.to_vec();
    let fixed_and_bins = header_len(read_bins(real)) - 8;
    for e in edits.chunks_exact(2) {
        let at = e[0] as usize % fixed_and_bins;
        b[at] = e[1];
    }
    let bins = read_bins(&b);
    let old_len = header_len(read_bins(real));
    let mut payload = b[old_len..].to_vec();
    if mode & 8 != 0 {
        match edits.first() {
            Some(&v) if v & 1 == 0 => payload.truncate(v as usize / 2),
            _ => payload.resize(payload.len() + *edits.last().unwrap_or(&1) as usize, 0),
        }
    }
    // Lay the file out again with the (maybe changed) number of bins.
    let mut head = b[..72].to_vec();
    for i in 0..bins.min(1024) {
        let from = 72 + 8 * i;
        let word = b.get(from..from + 8).unwrap_or(&[0; 8]);
        head.extend_from_slice(word);
    }
    if mode & 4 != 0 {
        head[40..48].copy_from_slice(&checksum(&payload).to_le_bytes());
    }
    let c = checksum(&head);
    head.extend_from_slice(&c.to_le_bytes());
    head.extend_from_slice(&payload);
    head
}

/// The histogram bins a header says it has.
fn read_bins(b: &[u8]) -> usize {
    u32::from_le_bytes([b[52], b[53], b[54], b[55]]) as usize
}

// ---------------------------------------------------------------------------------------
// (d) The game-record reader.

/// `record_read`: the bytes as record text (lossy UTF-8). An error names a line and a
/// column from 1; records that read are written and read back unchanged, and replay as
/// games in the largest position type (and in the small one when they fit).
pub fn record_read(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match read_records(&text) {
        Err(e) => {
            assert!(e.line >= 1 && e.column >= 1, "{e:?}");
            assert!(!e.to_string().is_empty());
        }
        Ok(records) => {
            let written = write_records(&records);
            let back = read_records(&written)
                .unwrap_or_else(|e| panic!("written records do not read back: {e}\n{written}"));
            assert_eq!(back, records, "{written}");
            for r in &records {
                r.game::<4>().expect("a record that reads replays");
                if r.rules.holes() <= 6 {
                    r.game::<2>().expect("a record that reads replays");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// (e) The packed engine against a plain array implementation of RULES.md.

/// Laps after which the plain implementation gives up on a sowing (and the comparison of
/// that position is skipped): it cannot tell an endless sowing from a long one.
const LAP_CAP: usize = 100_000;

/// A position as a plain array: every hole in sowing order, the side to move (0 South,
/// 1 North), the seeds captured by each side.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Plain {
    board: Vec<u32>,
    side: usize,
    captured: [u32; 2],
}

/// What one move does in the plain implementation.
#[derive(Debug, PartialEq, Eq)]
struct PlainChild {
    next: Plain,
    captured: u32,
    awarded: u32,
    extra_turn: bool,
    ended_game: bool,
    gain: i32,
}

impl Plain {
    fn of<const W: usize>(p: &Position<W>) -> Plain {
        let (south, north) = p.rows();
        Plain {
            board: south.iter().chain(&north).map(|&s| s as u32).collect(),
            side: p.side_to_move().index(),
            captured: [
                p.captured(Side::South) as u32,
                p.captured(Side::North) as u32,
            ],
        }
    }

    /// Plays hole `hole` (1-based, non-empty) of the side to move, straight from RULES.md:
    /// sow lap after lap, relaying from every landing hole that is neither empty before the
    /// last seed (1) nor a capture (4, in a capturable row); take the landing hole and, in
    /// Hoyito II, the chain of 4s behind it; end the game when 4 or fewer seeds are left.
    /// `None` when the sowing ran past [`LAP_CAP`] laps.
    fn play(&self, rules: &Rules, hole: usize) -> Option<PlainChild> {
        let h = self.board.len() / 2;
        let n = 2 * h;
        let mover = self.side;
        let row_start = mover * h;
        let opponent_only = rules.capture_side() == CaptureSide::Opponent;
        let capturable = |j: usize| !opponent_only || (j + n - row_start) % n >= h;
        let mut b = self.board.clone();
        let mut at = row_start + hole - 1;
        let mut laps = 0;
        let capture_at = loop {
            if laps == LAP_CAP {
                return None;
            }
            laps += 1;
            let mut hand = std::mem::take(&mut b[at]);
            while hand > 0 {
                at = (at + 1) % n;
                b[at] += 1;
                hand -= 1;
            }
            match b[at] {
                1 => break None,
                4 if capturable(at) => break Some(at),
                _ => {}
            }
        };
        let mut next = Plain {
            board: b,
            side: 1 - mover,
            captured: self.captured,
        };
        let mut captured = 0;
        let mut awarded = 0;
        let mut gain = 0;
        let mut ended_game = false;
        if let Some(j) = capture_at {
            next.side = mover;
            captured += 4;
            next.board[j] = 0;
            if rules.variant() == Variant::Hoyito2 {
                let mut k = j;
                loop {
                    k = (k + n - 1) % n;
                    if next.board[k] != 4 || !capturable(k) {
                        break;
                    }
                    captured += 4;
                    next.board[k] = 0;
                }
            }
            next.captured[mover] += captured;
            gain = captured as i32;
            let left: u32 = next.board.iter().sum();
            if left <= 4 {
                ended_game = true;
                awarded = left;
                let to = rules.last_four_to(side_of(mover)).index();
                next.captured[to] += left;
                gain += if to == mover {
                    left as i32
                } else {
                    -(left as i32)
                };
                next.board.iter_mut().for_each(|s| *s = 0);
            }
        }
        Some(PlainChild {
            next,
            captured,
            awarded,
            extra_turn: capture_at.is_some(),
            ended_game,
            gain,
        })
    }

    /// Whether the side to move has a legal move; `None` when a sowing hit the lap cap
    /// before one was found.
    fn can_move(&self, rules: &Rules) -> Option<bool> {
        let h = self.board.len() / 2;
        let mut unknown = false;
        for k in 1..=h {
            if self.board[self.side * h + k - 1] == 0 {
                continue;
            }
            match self.play(rules, k) {
                Some(_) => return Some(true),
                None => unknown = true,
            }
        }
        if unknown {
            None
        } else {
            Some(false)
        }
    }
}

/// `differential`: byte 0 chooses the rules, byte 1 the board: holes `2 ..= 12` (low
/// nibble), and (bit 7) the standard start with `1 ..= 8` seeds a hole (bits 4-6) or a
/// board of `2H` further bytes (0 to 8 seeds a hole; bit 4 of byte 1 gives North the move).
/// Each remaining byte picks one legal move. At every position the packed engine and
/// [`Plain`] must agree on which holes are legal and, for each, on the child position,
/// captures, award, gain, extra turn and game end, and on passes and the end of the game.
/// A sowing the plain side gives up on ends the comparison.
pub fn differential(data: &[u8]) {
    let [opts, size, rest @ ..] = data else {
        return;
    };
    let holes = 2 + (*size as usize & 15) % 11;
    let (rules, start, moves) = if size & 0x80 != 0 {
        let seeds = 1 + (*size as usize >> 4) % 8;
        let Some(rules) = rules_of(*opts, holes, seeds) else {
            return;
        };
        let row = vec![seeds as u8; holes];
        (rules, (row.clone(), row, Side::South), rest)
    } else {
        let Some(rules) = rules_of(*opts, holes, 8) else {
            return;
        };
        if rest.len() < 2 * holes {
            return;
        }
        let (board, moves) = rest.split_at(2 * holes);
        let board: Vec<u8> = board.iter().map(|&s| s % 9).collect();
        let side = side_of((size >> 4) as usize & 1);
        let start = (board[..holes].to_vec(), board[holes..].to_vec(), side);
        (rules, start, moves)
    };
    if holes <= 6 {
        compare::<2>(&rules, &start, moves);
    } else {
        compare::<4>(&rules, &start, moves);
    }
}

fn compare<const W: usize>(rules: &Rules, start: &(Vec<u8>, Vec<u8>, Side), moves: &[u8]) {
    let (south, north, side) = start;
    let Ok(mut p) = Position::<W>::from_rows(rules, south, north, *side, [0, 0]) else {
        return;
    };
    let holes = rules.holes();
    for &b in moves {
        let plain = Plain::of(&p);
        let list = p.moves(rules);
        let row_start = plain.side * holes;
        for k in 1..=holes {
            let mv = Move(k as u8);
            if plain.board[row_start + k - 1] == 0 {
                assert!(list.get(mv).is_none());
                assert!(list.endless().all(|m| m != mv));
                continue;
            }
            let Some(pc) = plain.play(rules, k) else {
                // Endless, or longer than the cap: nothing to compare for this hole.
                continue;
            };
            let c = list
                .get(mv)
                .unwrap_or_else(|| panic!("{p}: hole {k} ends in the plain rules, packed not"));
            let packed = PlainChild {
                next: Plain::of(&c.position),
                captured: c.captured as u32,
                awarded: c.awarded as u32,
                extra_turn: c.extra_turn,
                ended_game: c.ended_game,
                gain: c.gain as i32,
            };
            assert_eq!(packed, pc, "{p}: hole {k}");
        }
        if list.is_empty() {
            // A pass, or the end of the game.
            if plain.can_move(rules) == Some(true) {
                panic!("{p}: the plain rules find a legal move, packed none");
            }
            let flipped = Plain {
                side: 1 - plain.side,
                ..plain.clone()
            };
            let Some(other_can) = flipped.can_move(rules) else {
                return;
            };
            let (q, status) = p.settle(rules);
            if other_can {
                assert_eq!(status, Status::ToMove, "{p}");
                assert_eq!(q, p.with_side_flipped());
                p = q;
                continue;
            }
            assert_eq!(status, Status::Over, "{p}");
            return;
        }
        p = list.children()[b as usize % list.len()].position;
    }
}

// ---------------------------------------------------------------------------------------
// (f) The certificate reader of the independent checker.

/// `certificate`: the bytes as a certificate file (`data/CERTIFICATE.md`). Reading it either
/// fails with an error that names the file, or gives a certificate; one that needs no tables
/// is then checked, which accepts or rejects it with an error naming the file, never panics.
pub fn certificate(data: &[u8]) {
    let path = Path::new("fuzzed.cert");
    let cert = match hoyito_check::Certificate::parse(path, data.to_vec()) {
        Ok(c) => c,
        Err(e) => {
            assert!(e.to_string().contains("fuzzed.cert"), "{e}");
            return;
        }
    };
    if cert.tables.is_none() {
        if let Err(e) = hoyito_check::check(&cert, None) {
            assert!(!e.to_string().is_empty());
        }
    }
}

// ---------------------------------------------------------------------------------------
// (g) The engine protocol.

/// Most input lines served in one run.
const PROTOCOL_LINES: usize = 64;

/// The fuzzer's bytes as lines of the engine protocol (`data/PROTOCOL.md`), served by
/// `solve engine`'s own loop: it must never panic, whatever the lines, and it must end when
/// its input ends (a search still running is stopped). Its answers go to standard output
/// (run the fuzzer with `-close_fd_mask=1`). Options that would reach outside one small
/// process are left out: a `tables` folder (a file path), and a hash or thread count over
/// 16 (the engine checks them against the machine, not against libFuzzer's memory limit).
pub fn engine_protocol(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    // A small transposition table: the default 64 MiB, cleared on every run, would be most
    // of the work.
    let mut kept = String::from("setoption name Hash value 1\n");
    for line in text.lines().take(PROTOCOL_LINES) {
        let lower = line.to_ascii_lowercase();
        if lower.contains("setoption") {
            if lower.contains("tables") {
                continue;
            }
            let big = lower
                .split_whitespace()
                .any(|w| w.parse::<u64>().is_ok_and(|n| n > 16));
            if big && (lower.contains("hash") || lower.contains("thread")) {
                continue;
            }
        }
        kept.push_str(line);
        kept.push('\n');
    }
    let result = hoyito::protocol::serve(&mut kept.as_bytes(), std::io::sink());
    assert!(result.is_ok(), "{result:?}");
}

/// The folder of the committed corpus of `target`, from the workspace root.
pub fn corpus_dir(root: &Path, target: &str) -> PathBuf {
    root.join("fuzz").join("corpus").join(target)
}
