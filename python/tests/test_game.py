"""Games: push, pop, undo and redo, the end, and records written and read back."""

import pytest

import hoyito


def test_push_pop_undo_redo():
    g = hoyito.Game()
    assert len(g) == 0 and g.moves == []
    g.push(1)
    g.push(2)
    assert g.moves == [1, 2]
    assert g.position == hoyito.Position().play(1).play(2)
    assert g.pop() == 2
    assert g.undo() == 1
    assert g.undo() is None
    with pytest.raises(IndexError):
        g.pop()
    assert g.redo() == 1
    assert g.redo() == 2
    assert g.redo() is None
    with pytest.raises(ValueError):
        g.push(9)
    assert g.moves == [1, 2]
    assert len(g.positions) == 3


def _random_game(seed, rules=None):
    import random

    rng = random.Random(seed)
    g = hoyito.Game(rules=rules)
    while not g.is_over():
        g.push(rng.choice(g.legal_moves()))
    return g


def test_a_game_ends_and_its_record_reads_back():
    for seed in range(5):
        g = _random_game(seed)
        assert g.is_over()
        assert g.end in ("last-four", "no-moves", "repetition")
        assert g.winner in ("S", "N", "draw")
        assert g.legal_moves() == []
        with pytest.raises(ValueError):
            g.push(1)
        g.south, g.north = "a random player", "another"
        text = g.record()
        assert str(g) == text
        assert '[South "a random player"]' in text
        back = hoyito.Game.from_record(text)
        assert back.moves == g.moves
        assert back.position == g.position
        assert back.record() == text
        assert back.south == "a random player"


def test_records_of_several_games_and_other_rules():
    rules = hoyito.Rules("hoyito3", last_four="S")
    games = [_random_game(1), _random_game(2, rules)]
    text = "\n".join(g.record() for g in games)
    back = hoyito.read_records(text)
    assert [b.moves for b in back] == [g.moves for g in games]
    assert back[1].rules == rules


def test_an_unfinished_game_and_a_start_position():
    g = hoyito.Game("2,3,4,0,4,1/3,3,3,1,1,3 S")
    g.push(5)
    assert g.position.side_to_move == "S"
    assert g.end is None and g.winner is None
    back = hoyito.Game.from_record(g.record())
    assert back.position == g.position
    c = g.copy()
    c.push(c.legal_moves()[0])
    assert len(c) == 2 and len(g) == 1


def test_bad_records_raise_value_error():
    good = _random_game(3).record()
    bad = good.replace("S1", "S9", 1) if "S1" in good else good.replace("[Holes \"6\"]", "[Holes \"x\"]")
    with pytest.raises(ValueError, match="line"):
        hoyito.Game.from_record(bad)


def test_pickling():
    import pickle

    rules = hoyito.Rules("hoyito3", last_four="N")
    p = hoyito.Position.parse("2,3,4,0,4,1/3,3,3,1,1,3 S 4-8", rules)
    assert pickle.loads(pickle.dumps(rules)) == rules
    assert pickle.loads(pickle.dumps(p)) == p
    g = _random_game(4)
    g.south = "me"
    back = pickle.loads(pickle.dumps(g))
    assert back.moves == g.moves and back.south == "me" and back.position == g.position
