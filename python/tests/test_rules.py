"""The rules through Python: the conformance vectors of data/conformance/ (made by an
independent implementation of data/RULES.md) give their results."""

import pytest

import hoyito
from conftest import rules_of, vectors


def test_apply_vectors():
    cases = vectors("apply.jsonl")
    assert len(cases) >= 400
    for v in cases:
        rules = rules_of(v)
        p = hoyito.Position.parse(v["position"], rules)
        assert p.moves() == v["legal"], v
        assert p.endless_moves() == v["endless"], v
        game = hoyito.Game(p)
        for m in v["moves"]:
            game.push(m)
        expect = v["expect"]
        assert str(game.position) == expect["position"], v
        assert game.is_over() == expect["over"], v
        assert list(game.position.captured) == expect["captured"], v
        # Position.play gives the same positions as the game (repetition aside).
        q = p
        for m in v["moves"]:
            q = q.play(m)
        assert str(q) == expect["position"], v


def test_endless_vectors():
    for v in vectors("endless.jsonl"):
        p = hoyito.Position.parse(v["position"], rules_of(v))
        assert p.moves() == v["legal"]
        assert p.endless_moves() == v["endless"]
        for m in v["endless"]:
            assert not p.is_legal(m)
            with pytest.raises(ValueError, match="never ends|endless"):
                p.play(m)


def test_perft_vectors():
    for v in vectors("perft.jsonl"):
        p = hoyito.Position.parse(v["position"], rules_of(v))
        for depth, want in enumerate(v["perft"][:4], start=1):
            assert hoyito.perft(p, depth) == want, (v["position"], depth)


def test_perft_of_the_starts():
    # data/RULES.md's table.
    assert [hoyito.perft(hoyito.Position.start(), d) for d in range(1, 6)] == [
        6, 32, 158, 819, 4044,
    ]
    h3 = hoyito.Position.start(hoyito.Rules("hoyito3"))
    assert hoyito.perft(h3, 5) == 4056
    big = hoyito.Position.start(hoyito.Rules(holes=12))
    assert hoyito.perft(big, 3) == 1214


def test_position_basics():
    p = hoyito.Position.start()
    assert str(p) == "4,4,4,4,4,4/4,4,4,4,4,4 S 0-0"
    assert p.side_to_move == "S"
    assert p.board == (4,) * 12
    assert p.captured == (0, 0)
    assert p.moves() == [1, 2, 3, 4, 5, 6]
    assert not p.is_over()
    # data/RULES.md's worked examples.
    assert str(p.play(1)) == "2,7,1,6,1,6/6,6,0,1,6,6 N 0-0"
    q = hoyito.Position.parse("2,3,4,0,4,1/3,3,3,1,1,3 S")
    after = q.play(5)
    assert str(after) == "2,3,4,0,0,2/0,0,0,1,1,3 S 12-0"
    assert after.side_to_move == "S"  # a capture gives another move
    h3 = hoyito.Position.parse("2,3,4,0,4,1/3,3,3,1,1,3 S", hoyito.Rules("hoyito3"))
    assert str(h3.play(5)) == "2,3,4,0,0,2/4,4,0,1,1,3 S 4-0"
    # Immutable values: equal positions are equal and hash alike.
    assert hoyito.Position.parse("4,4,4,4,4,4/4,4,4,4,4,4 S") == p
    assert len({p, hoyito.Position(), p.play(1)}) == 2
    assert hoyito.Position.parse(str(p.play(2))) == p.play(2)
    assert p.mirrored().side_to_move == "N"
    assert "4" in p.diagram_text()


def test_rules_options():
    r = hoyito.Rules(variant="hoyito3", holes=6, seeds=3, last_four="N", capture_side="opponent")
    assert (r.variant, r.holes, r.seeds, r.last_four, r.capture_side) == (
        "hoyito3", 6, 3, "N", "opponent",
    )
    assert r.total_seeds == 36
    assert r == hoyito.Rules("hoyito3", 6, 3, "N", "opponent")
    assert hoyito.Rules() != r
    assert str(hoyito.Position.start(r)) == "3,3,3,3,3,3/3,3,3,3,3,3 S 0-0"
    assert eval("hoyito." + repr(r)) == r


@pytest.mark.parametrize(
    "call",
    [
        lambda: hoyito.Rules(variant="hoyito4"),
        lambda: hoyito.Rules(holes=13),
        lambda: hoyito.Rules(seeds=0),
        lambda: hoyito.Rules(last_four="E"),
        lambda: hoyito.Rules(capture_side="own"),
        lambda: hoyito.Position.parse("4,4,4,4,4/4,4,4,4,4,4 S"),
        lambda: hoyito.Position.parse("4,4,4,4,4,4/4,4,4,4,4,4 X"),
        lambda: hoyito.Position.parse("4,4,4,4,4,x/4,4,4,4,4,4 S"),
        lambda: hoyito.Position.parse("9,9,9,9,9,9/9,9,9,9,9,9 S"),
        lambda: hoyito.Position.parse("4,4,4,4,4,4,4/4,4,4,4,4,4,4 S"),
        lambda: hoyito.Position().play(7),
        lambda: hoyito.Position().play(0),
        lambda: hoyito.Position().play(-1),
        lambda: hoyito.Position.parse("0,4,4,4,4,4/4,4,4,4,4,4 S").play(1),
        lambda: hoyito.best(hoyito.Position(), depth=0),
        lambda: hoyito.best(hoyito.Position(), depth=2, threads=0),
        lambda: hoyito.Opponent("grandmaster"),
        lambda: hoyito.Opponent(6),
        lambda: hoyito.read_records("[Variant \"hoyito9\"]\n\n*"),
    ],
)
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value)


def test_bad_notation_says_where():
    with pytest.raises(ValueError, match="column"):
        hoyito.Position.parse("4,4,4,4,4,x/4,4,4,4,4,4 S")


def test_missing_files():
    with pytest.raises(FileNotFoundError):
        hoyito.Tables("/no/such/folder")
    with pytest.raises(FileNotFoundError):
        hoyito.check_proof("/no/such/file.cert")
    with pytest.raises(FileNotFoundError):
        hoyito.best(hoyito.Position(), tables="/no/such/folder")
