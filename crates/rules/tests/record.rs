//! Game records (write, read, round trip, malformed records), taking moves back, and the
//! lap-by-lap trace of a move against the move generator.

use hoyito_rules::{
    read_records, try_write_records, write_records, CaptureSide, Game, LastFour, Move, Note,
    PlayError, Position12, Position6, Record, RecordErrorKind, RecordWriteErrorKind, Rules, Side,
    Termination, Variant,
};
use proptest::prelude::*;

fn rules_strategy() -> impl Strategy<Value = Rules> {
    (
        prop_oneof![Just(Variant::Hoyito2), Just(Variant::Hoyito3)],
        2usize..=12,
        1usize..=6,
        prop_oneof![
            Just(LastFour::Capturer),
            Just(LastFour::South),
            Just(LastFour::North)
        ],
        prop_oneof![Just(CaptureSide::Any), Just(CaptureSide::Opponent)],
    )
        .prop_map(|(v, h, s, l, c)| Rules::new(v, h, s, l, c).unwrap())
}

/// A game of the moves picked by `choices` (indices into the legal moves), in the largest
/// position type.
fn random_game(rules: &Rules, choices: &[usize]) -> Game<4> {
    let mut g = Game::new(*rules, Position12::start(rules).unwrap());
    for &c in choices {
        if g.is_over() {
            break;
        }
        let list = g.position().moves(rules);
        g.play(list.children()[c % list.len()].mv).unwrap();
    }
    g
}

const WORDS: [&str; 5] = ["good", "risky", "forced", "why?", "—ok"];

/// Any text, with the characters a tag line or a comment gives meaning to made frequent:
/// quotes, backslashes, brackets, braces, line ends and spaces.
fn any_text() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        4 => any::<char>(),
        1 => prop::sample::select(vec!['"', '\\', '[', ']', '{', '}', '\n', '\r', ' ', '\t']),
    ];
    proptest::collection::vec(c, 0..16).prop_map(|v| v.into_iter().collect())
}

/// A tag name the format allows for other tags: letters, digits and `_`, not one of its own.
fn other_tag_name() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_]{1,10}".prop_filter("one of the format's own tags", |n| !is_known(n))
}

fn is_known(name: &str) -> bool {
    [
        "Variant",
        "Holes",
        "Seeds",
        "LastFour",
        "CaptureSide",
        "Start",
        "South",
        "North",
        "Date",
        "Match",
        "Round",
        "Result",
        "Score",
        "End",
    ]
    .contains(&name)
}

/// A record of a random game with notes on some moves, a resignation or not.
fn record_of(
    rules: &Rules,
    choices: &[usize],
    notes: &[(bool, i32, bool, u8, u64, usize)],
    resign: Option<bool>,
) -> (Game<4>, Record) {
    let g = random_game(rules, choices);
    let mut rec = Record::from_game(&g);
    for (ply, &(has, value, exact, best, time, word)) in rec.plies.iter_mut().zip(notes) {
        if has {
            ply.note = Some(Note {
                value: Some(value),
                exact,
                best: (best > 0).then_some(Move(best)),
                time_ms: Some(time),
                text: WORDS.get(word).map_or(String::new(), |w| w.to_string()),
            });
        }
    }
    if let Some(s) = resign {
        rec.resign(if s { Side::South } else { Side::North });
    }
    (g, rec)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Writing a record and reading it back gives the same record, for random games under
    /// random rules, finished or not, with random notes, and any players, date, match and
    /// tag values (quotes, backslashes, brackets and line ends included).
    #[test]
    fn a_written_record_reads_back_the_same(
        rules in rules_strategy(),
        choices in proptest::collection::vec(0usize..12, 0..400),
        notes in proptest::collection::vec(
            (any::<bool>(), -40i32..40, any::<bool>(), 0u8..13, 0u64..100_000, 0usize..6),
            0..400,
        ),
        resign in proptest::option::of(any::<bool>()),
        south in any_text(),
        north in any_text(),
        date in proptest::option::of(any_text()),
        match_name in proptest::option::of(any_text()),
        round in proptest::option::of(1u32..20),
        tags in proptest::collection::vec((other_tag_name(), any_text()), 0..4),
    ) {
        let (g, mut rec) = record_of(&rules, &choices, &notes, resign);
        rec.south = south;
        rec.north = north;
        rec.date = date;
        rec.match_name = match_name;
        rec.round = round;
        for (name, value) in tags {
            if !rec.tags.iter().any(|(n, _)| *n == name) {
                rec.tags.push((name, value));
            }
        }
        let text = rec.to_text().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&text, &rec.to_string());
        let back: Record = text.parse().map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back, &rec);
        // The replayed game ends where the played one did.
        let again = back.game::<4>().unwrap();
        prop_assert_eq!(again.position(), g.position());
        prop_assert_eq!(again.end(), g.end());
        // And so does a text of several games.
        let two = [rec.clone(), back];
        let text = try_write_records(&two).unwrap();
        prop_assert_eq!(read_records(&text).unwrap(), two.to_vec());
    }

    /// The checked writer refuses exactly the records whose text would not read back the
    /// same: any tag name (empty, a space, a quote, one of the format's own, twice), any
    /// round and any note text are tried, and the unchecked text is read to compare.
    #[test]
    fn the_writer_refuses_exactly_what_would_not_read_back(
        rules in rules_strategy(),
        choices in proptest::collection::vec(0usize..12, 1..60),
        names in proptest::collection::vec(
            prop_oneof![
                3 => other_tag_name(),
                1 => prop::sample::select(vec!["South", "Result", "Round", "Site"])
                    .prop_map(String::from),
                2 => any_text(),
            ],
            0..4,
        ),
        round in proptest::option::of(0u32..3),
        note_texts in proptest::collection::vec(
            prop_oneof![
                2 => any_text(),
                1 => prop::sample::select(vec![
                    "exact", "value=+3", "best=2", "time=1.5", "time=x", "a  b", "ok }", "{ok",
                ])
                .prop_map(String::from),
            ],
            1..4,
        ),
    ) {
        let (_, mut rec) = record_of(&rules, &choices, &[], None);
        rec.round = round;
        rec.tags = names.iter().map(|n| (n.clone(), "v".to_string())).collect();
        for (ply, text) in rec.plies.iter_mut().zip(note_texts) {
            ply.note = Some(Note {
                value: Some(1),
                text,
                ..Note::default()
            });
        }
        let reads_back = rec.to_string().parse::<Record>().as_ref() == Ok(&rec);
        match rec.to_text() {
            Ok(text) => {
                prop_assert!(reads_back, "written but reads back otherwise:\n{}", text);
            }
            Err(e) => {
                prop_assert!(!reads_back, "refused ({}) but reads back the same", e);
                prop_assert_eq!(e.record, 0);
                let bad_name = |n: &String| {
                    n.is_empty() || !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                };
                let expected = match &e.kind {
                    RecordWriteErrorKind::TagName(n) => bad_name(n),
                    RecordWriteErrorKind::KnownTag(n) => is_known(n),
                    RecordWriteErrorKind::RepeatedTag(n) => {
                        names.iter().filter(|m| *m == n).count() > 1
                    }
                    RecordWriteErrorKind::RoundZero => round == Some(0),
                    RecordWriteErrorKind::NoteText { ply, text } => {
                        rec.plies[*ply].note.as_ref().map(|n| &n.text) == Some(text)
                    }
                };
                prop_assert!(expected, "refused for a reason the record does not have: {}", e);
                // Several records: the error names the one refused.
                let e2 = try_write_records(&[Record::from_game(&random_game(&rules, &[])), rec])
                    .unwrap_err();
                prop_assert_eq!(e2.record, 1);
                prop_assert_eq!(e2.kind, e.kind);
            }
        }
    }
}

#[test]
fn several_games_in_one_text_read_back_in_order() {
    let rules = Rules::hoyito3();
    let recs: Vec<Record> = (0..3)
        .map(|i| {
            let mut r = Record::from_game(&random_game(&rules, &[i, 2 * i + 1, 3, 4, 5]));
            r.round = Some(i as u32 + 1);
            r
        })
        .collect();
    let text = write_records(&recs);
    assert_eq!(read_records(&text).unwrap(), recs);
    // One game expected, three given.
    let e = text.parse::<Record>().unwrap_err();
    assert_eq!(e.kind, RecordErrorKind::SeveralGames);
}

/// A finished game of the default rules, played by always taking the first legal move.
fn finished_game() -> Game<4> {
    let rules = Rules::default();
    let g = random_game(&rules, &[0; 2000]);
    assert!(g.is_over());
    g
}

#[test]
fn a_finished_record_names_its_end_score_and_result() {
    let g = finished_game();
    let rec = Record::from_game(&g);
    let text = rec.to_string();
    let p = g.position();
    let score = format!(
        "[Score \"{}-{}\"]",
        p.captured(Side::South),
        p.captured(Side::North)
    );
    assert!(text.contains(&score), "{text}");
    assert!(text.contains(&format!("[End \"{}\"]", rec.termination.tag())));
    assert_ne!(rec.termination, Termination::Unfinished);
    assert!(text.trim_end().ends_with(rec.result()));
    assert_eq!(rec.plies.len(), g.moves().len());
    // The move tokens' captures plus the last-four award make the score; seeds left on
    // the board are the lost seeds, unless the last four were awarded.
    let taken: u32 = rec.plies.iter().map(|p| p.captured as u32).sum();
    let award = p.captured(Side::South) as u32 + p.captured(Side::North) as u32 - taken;
    if rec.termination == Termination::LastFour {
        assert!(award <= 4 && rec.lost == 0);
    } else {
        assert_eq!((award, rec.lost as u32), (0, p.seeds_on_board()));
    }
}

/// The error of reading `text`: its line, column and message.
fn fails(text: &str) -> (usize, usize, String) {
    let e = read_records(text).unwrap_err();
    (e.line, e.column, e.to_string())
}

#[test]
fn malformed_records_are_rejected_with_line_and_column() {
    // A tag without its closing bracket.
    let (l, c, m) = fails("[Variant \"hoyito3\"\nS1 *\n");
    assert_eq!((l, c), (1, 19), "{m}");
    assert!(m.contains("']'"), "{m}");
    // An escape the format does not have (a tab is written as it is).
    let (l, c, m) = fails("[South \"a\\tb\"]\n*\n");
    assert_eq!((l, c), (1, 10), "{m}");
    assert!(m.contains("escapes only"), "{m}");
    // An unknown variant.
    let (l, c, m) = fails("[Holes \"6\"]\n[Variant \"hoyito4\"]\nS1 *\n");
    assert_eq!((l, c), (2, 11), "{m}");
    assert!(m.contains("hoyito4"), "{m}");
    // Holes out of range.
    let (l, _, m) = fails("[Holes \"13\"]\nS1 *\n");
    assert_eq!(l, 1);
    assert!(m.contains("13 holes"), "{m}");
    // A duplicate tag.
    let (l, _, m) = fails("[South \"a\"]\n[South \"b\"]\n*\n");
    assert_eq!(l, 2);
    assert!(m.contains("twice"), "{m}");
    // A bad start position, pointed at inside the tag.
    let (l, c, m) = fails("[Start \"4,4,x,4,4,4/4,4,4,4,4,4 S\"]\n*\n");
    assert_eq!((l, c), (1, 9), "{m}");
    assert!(m.contains("'x'"), "{m}");
    // A word that is no move.
    let (l, c, m) = fails("S1 N1\n  S9z *\n");
    assert_eq!((l, c), (2, 3), "{m}");
    assert!(m.contains("unexpected 'S9z'"), "{m}");
    // The wrong side.
    let (l, c, m) = fails("S1 S3 *\n");
    assert_eq!((l, c), (1, 4), "{m}");
    assert!(m.contains("North's turn"), "{m}");
    // An empty hole (N3 is empty after S1).
    let (_, c, m) = fails("S1 N3 *\n");
    assert_eq!(c, 4);
    assert!(m.contains("empty"), "{m}");
    // A hole out of range.
    let (_, _, m) = fails("S7 *\n");
    assert!(m.contains("out of range"), "{m}");
    // An unclosed comment.
    let (l, c, m) = fails("S1 {value=+2\nN1 *\n");
    assert_eq!((l, c), (1, 4), "{m}");
    assert!(m.contains("not closed"), "{m}");
    // A comment before any move.
    let (_, c, m) = fails("{hello} S1 *\n");
    assert_eq!(c, 1);
    assert!(m.contains("must follow a move"), "{m}");
    // Words after a result start the next game.
    let (_, c, m) = fails("S1 * N1\n");
    assert_eq!(c, 6);
    assert!(m.contains("South's turn"), "{m}");
    // A move after the end of the game.
    let rec = Record::from_game(&finished_game());
    let text = rec.to_string();
    let cut = text.trim_end().rfind(' ').unwrap();
    let extra = format!("{} S1{}", &text[..cut], &text[cut..]);
    let (_, _, m) = fails(&extra);
    assert!(m.contains("S1: the game is already over"), "{m}");
    // A result the moves do not give.
    let (_, _, m) = fails("[Result \"1-0\"]\nS1 N1\n");
    assert!(m.contains("Result tag is '1-0'"), "{m}");
    // An end the moves do not reach.
    let (l, _, m) = fails("[End \"repetition\"]\nS1 *\n");
    assert_eq!(l, 1);
    assert!(m.contains("do not end the game"), "{m}");
    // A resignation without a winner.
    let (_, _, m) = fails("[End \"resignation\"]\nS1 *\n");
    assert!(m.contains("names the winner"), "{m}");
    // An empty text.
    let (l, _, m) = fails("\n  \n");
    assert_eq!(l, 1);
    assert!(m.contains("no game"), "{m}");
}

#[test]
fn capture_counts_catch_a_record_read_under_the_wrong_rules() {
    // RULES.md: from this position South's 5 captures 12 under Hoyito II, 4 under Hoyito III.
    let start = "2,3,4,0,4,1/3,3,3,1,1,3 S";
    let ii = format!("[Variant \"hoyito2\"]\n[Seeds \"4\"]\n[Start \"{start}\"]\nS5x12 *\n");
    let rec: Record = ii.parse().unwrap();
    assert_eq!(rec.plies[0].captured, 12);
    assert_eq!(rec.score, [12, 0]);
    let iii = ii.replace("hoyito2", "hoyito3");
    let (l, c, m) = fails(&iii);
    assert_eq!((l, c), (4, 1), "{m}");
    assert!(m.contains("captures 4 seeds"), "{m}");
    // A capture the move does not make, and a missing one.
    assert!(fails("S1x4 *\n").2.contains("captures 0 seeds"));
    let no_x = iii.replace("S5x12", "S5");
    assert!(fails(&no_x).2.contains("captures 4 seeds"));
    // A wrong final score.
    let bad = ii.replace("[Start", "[Score \"12-4\"]\n[Start");
    let (l, _, m) = fails(&bad);
    assert_eq!(l, 3);
    assert!(
        m.contains("Score tag is '12-4' but the moves give '12-0'"),
        "{m}"
    );
}

#[test]
fn a_resignation_and_notes_read_back() {
    let text =
        "[South \"Ana\"]\n[North \"engine level 3\"]\n[Result \"0-1\"]\n[End \"resignation\"]\n\n\
                S1 {value=-2 exact best=3 time=1.5 a slip} N1 0-1\n";
    let rec: Record = text.parse().unwrap();
    assert_eq!(rec.termination, Termination::Resignation(Side::South));
    assert_eq!(rec.result(), "0-1");
    let note = rec.plies[0].note.as_ref().unwrap();
    assert_eq!(note.value, Some(-2));
    assert!(note.exact);
    assert_eq!(note.best, Some(Move(3)));
    assert_eq!(note.time_ms, Some(1500));
    assert_eq!(note.text, "a slip");
    assert_eq!(rec.to_string().parse::<Record>().unwrap(), rec);
}

/// Random games of small boards played to their end (xorshift choices), which often end by
/// repetition with seeds left to nobody.
fn small_finished_games() -> impl Iterator<Item = Game<4>> {
    let mut x = 0x1234_5678_9abc_def1u64;
    (2..=4usize).flat_map(move |holes| {
        (1..=3usize).flat_map(move |seeds| {
            let rules = Rules::new(
                Variant::Hoyito2,
                holes,
                seeds,
                LastFour::Capturer,
                CaptureSide::Any,
            )
            .unwrap();
            (0..100).map(move |_| {
                let mut g = Game::new(rules, Position12::start(&rules).unwrap());
                while !g.is_over() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let list = g.position().moves(&rules);
                    g.play(list.children()[(x % list.len() as u64) as usize].mv)
                        .unwrap();
                }
                g
            })
        })
    })
}

#[test]
fn lost_seeds_are_marked_and_checked() {
    let mut found = 0;
    for g in small_finished_games() {
        let rec = Record::from_game(&g);
        if rec.lost == 0 {
            continue;
        }
        found += 1;
        let text = rec.to_string();
        let marker = format!("~{} ", rec.lost);
        assert!(text.contains(&marker), "{text}");
        assert_eq!(text.parse::<Record>().unwrap(), rec);
        let wrong = text.replace(&marker, &format!("~{} ", rec.lost + 4));
        let m = wrong.parse::<Record>().unwrap_err().to_string();
        assert!(m.contains("lost-seeds marker"), "{m}");
        if found == 5 {
            break;
        }
    }
    assert!(found > 0, "no game left seeds to nobody");
}

#[test]
fn undo_and_redo_restore_the_game_and_its_repetition_history() {
    let rules = Rules::default();
    let g = random_game(&rules, &[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9]);
    let moves = g.moves().to_vec();
    let mut h = g.clone();
    let mut undone = 0;
    while h.undo().is_some() {
        undone += 1;
        // Same positions as a fresh game of the moves left.
        let mut fresh = Game::new(rules, Position12::start(&rules).unwrap());
        for &m in &moves[..moves.len() - undone] {
            fresh.play(m).unwrap();
        }
        assert_eq!(h.positions(), fresh.positions());
        assert!(!h.is_over());
    }
    assert_eq!(undone, moves.len());
    assert_eq!(h.redo_moves().collect::<Vec<_>>(), moves);
    while h.redo().unwrap().is_some() {}
    assert_eq!(h.positions(), g.positions());
    assert_eq!(h.end(), g.end());
    // A new move forgets what could be redone.
    h.undo();
    h.undo();
    let other = h.position().moves(&rules).children()[0].mv;
    h.play(other).unwrap();
    assert_eq!(h.redo_moves().count(), 0);
    assert_eq!(h.redo(), Ok(None));
}

#[test]
fn undo_of_a_repetition_keeps_the_earlier_occurrence() {
    // Find a game that ends by repetition, undo its last move and play it again: it must
    // end by repetition again.
    for mut g in small_finished_games() {
        if g.end() != Some(hoyito_rules::End::Repetition) {
            continue;
        }
        let last = g.undo().unwrap();
        assert!(!g.is_over());
        g.play(last).unwrap();
        assert_eq!(g.end(), Some(hoyito_rules::End::Repetition));
        return;
    }
    panic!("no game ended by repetition");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The lap-by-lap trace of every legal move ends on the generator's board, captures the
    /// generator's seeds and gives the extra turn exactly when the generator does.
    #[test]
    fn the_trace_of_a_move_agrees_with_the_generator(
        rules in rules_strategy(),
        choices in proptest::collection::vec(0usize..12, 0..60),
    ) {
        let g = random_game(&rules, &choices);
        let p = g.position();
        let n = 2 * rules.holes();
        for c in p.moves(&rules).children() {
            let t = p.trace(&rules, c.mv).unwrap();
            prop_assert_eq!(t.captured(), c.captured as usize);
            prop_assert_eq!(!t.captured_holes.is_empty(), c.extra_turn);
            prop_assert_eq!(t.start(), p.side_to_move().index() * rules.holes() + c.mv.hole() - 1);
            // Each lap starts where the one before landed.
            for w in t.laps.windows(2) {
                prop_assert_eq!(w[1].from, w[0].landing);
            }
            if !c.ended_game {
                let board: Vec<u8> = (0..n).map(|i| c.position.seeds(i)).collect();
                prop_assert_eq!(&t.board, &board);
            }
        }
        for m in p.moves(&rules).endless() {
            prop_assert_eq!(p.trace(&rules, m), Err(PlayError::Endless(m.hole())));
        }
    }
}

#[test]
fn the_trace_of_the_rules_example_capture() {
    let r = Rules::default();
    let p = Position6::parse(&r, "2,3,4,0,4,1/3,3,3,1,1,3 S").unwrap();
    let t = p.trace(&r, Move(5)).unwrap();
    assert_eq!(t.laps.len(), 1);
    assert_eq!(t.landing(), 8);
    assert_eq!(t.captured_holes, [8, 7, 6]);
    assert_eq!(p.trace(&r, Move(4)), Err(PlayError::EmptyHole(4)));
}
