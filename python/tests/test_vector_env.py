"""Games stepped together in Rust (hoyito.Batch, HoyitoVectorEnv) and the Gymnasium API:
shapes, masks, rewards, seeds, autoreset, the games equal to those of the scalar API, and
Gymnasium's own checks."""

import warnings

import numpy as np
import pytest

import hoyito
from hoyito.env import HoyitoEnv, HoyitoVectorEnv


def _random_actions(masks, gen):
    """A uniform legal action for every game (0 where none is legal)."""
    noise = gen.random(masks.shape) * masks
    return np.argmax(noise, axis=1)


def test_shapes_dtypes_and_masks_are_the_legal_moves():
    venv = HoyitoVectorEnv(64, opponent="random", seed=3)
    obs, infos = venv.reset(seed=3)
    assert obs.shape == (64, 14) and obs.dtype == np.int16
    assert venv.single_observation_space.shape == (14,)
    assert venv.observation_space.shape == (64, 14)
    assert venv.action_space.shape == (64,)
    gen = np.random.default_rng(0)
    for _ in range(50):
        masks = venv.action_masks()
        assert masks.shape == (64, 6) and masks.dtype == np.bool_
        assert np.array_equal(masks, infos["action_mask"])
        for i in range(64):
            p = venv.batch.position(i)
            legal = [] if venv.batch.is_over(i) else [h - 1 for h in p.moves()]
            assert list(np.flatnonzero(masks[i])) == legal
            # Where a random opponent plays North, South is to move in every game that
            # goes on, and seeds are conserved in every observation.
            if legal:
                assert p.side_to_move == "S"
            assert obs[i].sum() == 48
        obs, rewards, terminated, truncated, infos = venv.step(_random_actions(masks, gen))
        assert rewards.shape == terminated.shape == truncated.shape == (64,)
        assert rewards.dtype == np.float64 and terminated.dtype == np.bool_
        assert set(np.unique(infos["current_player"])) <= {0, 1}


def test_rewards_add_up_to_the_margin_and_next_step_autoreset():
    venv = HoyitoVectorEnv(16, opponent="random", seed=1)
    obs, _ = venv.reset(seed=1)
    start = obs.copy()
    gen = np.random.default_rng(2)
    totals = np.zeros(16)
    finished = np.zeros(16, dtype=bool)
    episodes = 0
    for _ in range(400):
        masks = venv.action_masks()
        # A game that ended has no legal action: its next step starts it again.
        assert not masks[finished].any()
        obs, rewards, terminated, truncated, _ = venv.step(_random_actions(masks, gen))
        for i in range(16):
            if finished[i]:
                # The step after the end: a new episode, reward 0, its first observation.
                assert rewards[i] == 0 and not terminated[i]
                assert np.array_equal(obs[i], start[i])
                totals[i] = 0
            else:
                totals[i] += rewards[i]
                if terminated[i]:
                    assert totals[i] == venv.batch.margin(i)
                    episodes += 1
        finished = terminated | truncated
    assert episodes > 16


def test_the_same_seed_plays_the_same_games():
    def run(seed):
        venv = HoyitoVectorEnv(32, opponent="random", seed=seed)
        venv.reset(seed=seed)
        gen = np.random.default_rng(7)
        trace = []
        for _ in range(60):
            obs, rewards, *_ = venv.step(_random_actions(venv.action_masks(), gen))
            trace.append((obs.copy(), rewards.copy()))
        return trace

    a, b, c = run(5), run(5), run(6)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))


def test_the_games_are_those_of_the_scalar_api():
    # Both sides played by the agent: each game is the hoyito.Game of its moves (positions,
    # ends, repetitions included); against a random opponent, game i is HoyitoEnv's game
    # with the opponent seeded seed + i, under the same actions.
    rules = hoyito.Rules("hoyito3", holes=4, seeds=3)
    n = 24
    venv = HoyitoVectorEnv(n, rules=rules)
    venv.reset()
    games = [hoyito.Game(rules=rules) for _ in range(n)]
    gen = np.random.default_rng(4)
    finished = np.zeros(n, dtype=bool)
    ended = 0
    for _ in range(300):
        actions = _random_actions(venv.action_masks(), gen)
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        for i in range(n):
            if finished[i]:
                games[i] = hoyito.Game(rules=rules)
            else:
                before = games[i].position.captured
                games[i].push(int(actions[i]) + 1)
                after = games[i].position.captured
                # Rewards are South's captures (the agent plays both sides).
                assert rewards[i] == (after[0] - before[0]) - (after[1] - before[1])
                assert terminated[i] == games[i].is_over()
                ended += terminated[i]
            p = games[i].position
            assert venv.batch.position(i) == p
            mover = 0 if p.side_to_move == "S" else 1
            assert obs[i].tolist() == hoyito.env.observation(p, mover).tolist()
            assert infos["current_player"][i] == mover
        finished = terminated | truncated
    assert ended > 0

    seed = 11
    venv = HoyitoVectorEnv(4, opponent="random", seed=seed)
    venv.reset(seed=seed)
    envs = [HoyitoEnv(opponent="random", seed=seed + i) for i in range(4)]
    for i, e in enumerate(envs):
        assert np.array_equal(e.reset(seed=seed + i)[0], venv.batch.observation(i))
    gen = np.random.default_rng(9)
    finished = np.zeros(4, dtype=bool)
    for _ in range(200):
        actions = _random_actions(venv.action_masks(), gen)
        obs, rewards, terminated, truncated, _ = venv.step(actions)
        for i, e in enumerate(envs):
            if finished[i]:
                o, _ = e.reset()
                r, t = 0, False
            else:
                o, r, t, _, _ = e.step(int(actions[i]))
            assert np.array_equal(obs[i], o) and rewards[i] == r and terminated[i] == t
        finished = terminated | truncated


def test_illegal_actions_raise_and_nothing_moves():
    venv = HoyitoVectorEnv(3, start="0,4,4,4,4,4/4,4,4,4,4,4 S")
    venv.reset()
    before = venv.batch.observations()
    with pytest.raises(ValueError, match="game 1: action 0"):
        venv.step(np.array([1, 0, 1]))
    with pytest.raises(ValueError, match="out of range"):
        venv.step(np.array([1, 1, 6]))
    with pytest.raises(ValueError, match="2 actions for 3 games"):
        venv.step(np.array([1, 1]))
    assert np.array_equal(venv.batch.observations(), before)


def test_truncation_and_engine_opponents():
    venv = HoyitoVectorEnv(4, opponent=2, max_plies=6, seed=0)
    venv.reset()
    gen = np.random.default_rng(0)
    truncated_seen = False
    for _ in range(6):
        _, _, terminated, truncated, _ = venv.step(_random_actions(venv.action_masks(), gen))
        truncated_seen |= bool(truncated.any())
        assert not (terminated & truncated).any()
    assert truncated_seen
    with pytest.raises(ValueError):
        HoyitoVectorEnv(2, opponent=lambda p: 1)  # type: ignore[arg-type]


def test_bad_numbers_raise_value_error_naming_the_argument():
    for kwargs, name in [
        (dict(num_envs=0), "num_envs"),
        (dict(num_envs=-3), "num_envs"),
        (dict(num_envs=2, seed=-1), "seed"),
        (dict(num_envs=2, seed=2**70), "seed"),
        (dict(num_envs=2, max_plies=0), "max_plies"),
    ]:
        with pytest.raises(ValueError, match=name):
            hoyito.Batch(**kwargs)
    with pytest.raises(ValueError, match="level"):
        hoyito.Batch(2, opponent=9)
    with pytest.raises(ValueError, match="level"):
        hoyito.Opponent(300)
    with pytest.raises(ValueError, match="seed"):
        hoyito.Opponent("random", seed=-5)
    with pytest.raises(TypeError, match="num_envs"):
        hoyito.Batch("four")  # type: ignore[arg-type]
    # The rest of the package: no OverflowError, and the argument named.
    p = hoyito.Position()
    for call, name in [
        (lambda: hoyito.Rules(holes=-1), "holes"),
        (lambda: hoyito.Rules(seeds=2**80), "seeds"),
        (lambda: hoyito.best(p, depth=-2), "depth"),
        (lambda: hoyito.best(p, time_ms=-1), "time_ms"),
        (lambda: hoyito.best(p, depth=3, hash_mb=-64), "hash_mb"),
        (lambda: hoyito.best(p, depth=3, threads=-1), "threads"),
        (lambda: hoyito.perft(p, -1), "depth"),
        (lambda: hoyito.random_playouts(-5), "n"),
        (lambda: hoyito.random_playouts(5, seed=-1), "seed"),
        (lambda: hoyito.prove(p, time_limit=-1), "time_limit"),
    ]:
        with pytest.raises(ValueError, match=name):
            call()
    with pytest.raises(ValueError, match="hole"):
        p.play(2**70)
    with pytest.raises(ValueError, match="env"):
        hoyito.Batch(2).position(-1)
    with pytest.raises(TypeError):
        hoyito.Rules(holes=6.0)  # type: ignore[arg-type]
    # numpy's integers are integers.
    assert p.play(np.int64(1)) == p.play(1)
    assert len(hoyito.random_playouts(np.int32(3), seed=np.uint64(2**64 - 1))) == 3
    assert hoyito.Batch(np.int64(2)).num_envs == 2
    assert hoyito.Rules.__text_signature__ == (
        "(variant='hoyito2', holes=6, seeds=4, last_four='capturer', capture_side='any')"
    )


def test_gymnasium_make_check_env_and_vector_api():
    gym = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    assert isinstance(HoyitoEnv(), gym.Env)
    made = gym.make("Hoyito-v0", opponent="random")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning from the checker either
        check_env(made.unwrapped)
    check_env(gym.make("Hoyito-v0", opponent=None, player="N").unwrapped)
    obs, info = made.reset(seed=0)
    assert made.observation_space.contains(obs)
    obs, reward, terminated, truncated, info = made.step(info["legal_actions"][0])
    assert made.observation_space.contains(obs) and not terminated
    assert isinstance(HoyitoVectorEnv(2), gym.vector.VectorEnv)
    venv = gym.make_vec("Hoyito-v0", num_envs=3, vectorization_mode="vector_entry_point")
    obs, infos = venv.reset(seed=0)
    assert obs.shape == (3, 14) and venv.num_envs == 3
    assert venv.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs, rewards, terminated, truncated, infos = venv.step(np.zeros(3, dtype=np.int64))
    assert venv.observation_space.contains(obs)


def test_spaces_without_gymnasium_are_defined():
    env = HoyitoEnv()
    assert env.observation_space.shape == (14,)
    assert env.action_space.n == 6
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    from hoyito import env as module

    box = module._Box(0, 48, (14,), np.int16)
    assert box.contains(obs) and not box.contains(obs[:3])
    assert box.contains(box.sample())
    d = module._Discrete(6)
    assert d.contains(d.sample()) and not d.contains(6)
    md = module._MultiDiscrete([6, 6])
    assert md.contains(md.sample()) and not md.contains(np.array([6, 0]))
    space = module._DictSpace({"a": d})
    assert space.contains({"a": 3}) and not space.contains({"a": 7})
