"""The OpenSpiel game (hoyito.openspiel): registered, and true to pyspiel's random
simulation test in both variants; its games are the library's."""

import numpy as np
import pytest

import hoyito
import hoyito.env

pyspiel = pytest.importorskip("pyspiel")
import hoyito.openspiel  # noqa: E402  (registers python_hoyito)


@pytest.mark.parametrize("name", ["python_hoyito", "python_hoyito(variant=hoyito3)"])
def test_random_simulation(name):
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)


def test_games_are_the_library_games():
    game = pyspiel.load_game("python_hoyito(variant=hoyito3)")
    rules = hoyito.Rules("hoyito3")
    rng = np.random.default_rng(0)
    for _ in range(5):
        state = game.new_initial_state()
        g = hoyito.Game(rules=rules)
        while not state.is_terminal():
            player = state.current_player()
            assert player == (0 if g.position.side_to_move == "S" else 1)
            legal = state.legal_actions()
            assert legal == [h - 1 for h in g.legal_moves()]
            obs = state.observation_tensor(player)
            assert obs == hoyito.env.observation(g.position, player).tolist()
            a = int(rng.choice(legal))
            state.apply_action(a)
            g.push(a + 1)
        assert g.is_over()
        s, n = g.position.captured
        assert state.returns() == [s - n, n - s]
        clone = state.clone()
        assert str(clone) == str(state) and clone.returns() == state.returns()
    with pytest.raises(Exception):
        pyspiel.load_game("python_hoyito(variant=hoyito9)")
