"""Errors speak Python: the library's errors are raised by kind, as subclasses of
ValueError, and a bad argument is named by its keyword."""

import pytest

import hoyito


def test_every_kind_is_a_value_error():
    for kind in (
        hoyito.BadPosition,
        hoyito.IllegalMove,
        hoyito.BadRules,
        hoyito.BadOption,
        hoyito.BadRecord,
        hoyito.TablesError,
    ):
        assert issubclass(kind, hoyito.HoyitoError)
        assert issubclass(kind, ValueError)


def test_a_bad_option_names_its_keyword():
    with pytest.raises(hoyito.BadOption, match="^depth must be at least 1$"):
        hoyito.best(depth=0)
    with pytest.raises(hoyito.BadOption, match="^time_ms must be at least 1$"):
        hoyito.best(time_ms=0)


def test_a_bad_position_an_illegal_move_bad_rules_and_a_bad_record():
    with pytest.raises(hoyito.BadPosition, match="rows of unequal length"):
        hoyito.Position("1,2/3 S")
    game = hoyito.Game()
    with pytest.raises(hoyito.IllegalMove, match="out of range"):
        game.push(9)
    with pytest.raises(hoyito.BadRules, match="variant"):
        hoyito.Rules(variant="hoyito9")
    with pytest.raises(hoyito.BadRecord):
        hoyito.read_records('[Event "x"\n1. S1')
