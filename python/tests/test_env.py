"""The environment for learning agents: episodes end, their rewards add up to the final
margin, opponents play legal moves, and the PettingZoo AEC conventions hold."""

import doctest

import numpy as np
import pytest

import hoyito
import hoyito.env
from hoyito.env import HoyitoAECEnv, HoyitoEnv, aec_env


def _episode(env, rng, seed):
    obs, info = env.reset(seed=seed)
    total, steps = 0, 0
    while True:
        assert obs.dtype == np.int16 and obs.shape == env.observation_shape
        legal = env.legal_actions()
        assert legal and list(np.flatnonzero(info["action_mask"])) == legal
        assert info["legal_actions"] == tuple(legal)
        obs, reward, terminated, truncated, info = env.step(rng.choice(legal))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps, terminated


@pytest.mark.parametrize("reward", ["captures", "margin"])
@pytest.mark.parametrize("player", ["S", "N"])
def test_episodes_end_and_rewards_add_up_to_the_margin(reward, player):
    rng = np.random.default_rng(0)
    env = HoyitoEnv(opponent="random", player=player, reward=reward)
    for seed in range(20):
        total, steps, terminated = _episode(env, rng, seed)
        assert terminated and env.game.is_over()
        assert total == env.margin()
        s, n = env.position.captured
        assert env.margin() == (s - n if player == "S" else n - s)


def test_the_same_seed_plays_the_same_episode():
    def moves(seed):
        env = HoyitoEnv(opponent="random")
        env.reset(seed=seed)
        while not env.game.is_over():
            env.step(env.legal_actions()[0])
        return env.game.moves

    assert moves(3) == moves(3)


def test_a_capture_gives_the_same_player_another_move():
    env = HoyitoEnv(opponent=None, start="2,3,4,0,4,1/3,3,3,1,1,3 S")
    env.reset()
    assert env.current_player == 0
    _, reward, _, _, info = env.step(4)  # hole 5 captures 12
    assert reward == 12 and env.current_player == 0 and info["current_player"] == 0
    obs = env.observe(1)  # North's view: its row first
    assert obs.tolist()[:6] == env.position.north


def test_level_and_perfect_opponents():
    start = "1,0,2,0,0,1/0,1,0,0,1,1 S"
    for opponent in [1, "level 3", "perfect", hoyito.Opponent("random", seed=2), lambda p: p.moves()[-1]]:
        env = HoyitoEnv(opponent=opponent, start=start)
        rng = np.random.default_rng(1)
        total, _, terminated = _episode(env, rng, 0)
        assert terminated and total == env.margin()
    # The perfect player never does worse than the proven value against any play.
    env = HoyitoEnv(opponent="perfect", player="S", start="1,0,2,0,0,1/0,1,0,0,1,1 N")
    north_value = hoyito.best(hoyito.Position.parse("1,0,2,0,0,1/0,1,0,0,1,1 N"), no_tables=True)
    for seed in range(5):
        total, _, _ = _episode(env, np.random.default_rng(seed), seed)
        assert -total >= north_value.value


def test_truncation_and_errors():
    env = HoyitoEnv(opponent=None, max_plies=3)
    env.reset()
    results = [env.step(env.legal_actions()[0]) for _ in range(3)]
    assert results[-1][3] is True and results[-1][2] is False
    with pytest.raises(ValueError):
        HoyitoEnv(reward="points")
    with pytest.raises(ValueError):
        HoyitoEnv(player="E")
    env = HoyitoEnv(opponent=None, start="0,4,4,4,4,4/4,4,4,4,4,4 S")
    env.reset()
    with pytest.raises(ValueError):
        env.step(0)  # hole 1 is empty
    with pytest.raises(ValueError):
        env.step(6)
    assert "4" in HoyitoEnv(render_mode="ansi").render()


def test_aec_conventions():
    env = HoyitoAECEnv()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    totals = {"south": 0, "north": 0}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            action = None
        else:
            mask = obs["action_mask"]
            assert mask.any()
            action = int(rng.choice(np.flatnonzero(mask)))
            # Only the agent to move has legal actions.
            other = "north" if agent == "south" else "south"
            assert not env.observe(other)["action_mask"].any()
        env.step(action)
    game = env._env.game
    assert game.is_over() and env.agents == []
    s, n = game.position.captured
    assert totals["south"] == s - n and totals["north"] == n - s
    assert aec_env() is not None


def test_random_playouts():
    batch = hoyito.random_playouts(500, seed=5)
    assert len(batch) == 500 and len(batch.margins) == len(batch.plies) == 500
    assert batch.moves == sum(batch.plies)
    assert all(m % 4 == 0 and abs(m) <= 48 for m in batch.margins)
    assert batch.margins == hoyito.random_playouts(500, seed=5).margins
    assert batch.margins != hoyito.random_playouts(500, seed=6).margins
    p = hoyito.Position.parse("2,3,4,0,4,1/3,3,3,1,1,3 S", hoyito.Rules("hoyito3"))
    small = hoyito.random_playouts(10, 1, p)
    assert all(abs(m) <= 48 for m in small.margins)
    big = hoyito.random_playouts(20, 1, hoyito.Position.start(hoyito.Rules(holes=12)))
    assert all(abs(m) <= 96 for m in big.margins)


def test_module_doctests():
    for module in (hoyito, hoyito.env):
        failed, _ = doctest.testmod(module)
        assert failed == 0


def test_pettingzoo_api_test():
    pytest.importorskip("pettingzoo")
    import warnings

    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        # Its advice on names and observation types: board games keep dict observations.
        warnings.simplefilter("ignore")
        api_test(aec_env(), num_cycles=300)
        api_test(HoyitoAECEnv(reward="margin", max_plies=30), num_cycles=300)


def test_the_numpy_learner_beats_random_play():
    # python/examples/learn_linear.py: REINFORCE over a linear policy, seeded, so the same
    # weights and games every run.
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "learn_linear.py"
    spec = importlib.util.spec_from_file_location("learn_linear", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(train_games=600, eval_games=400) >= 0.95
