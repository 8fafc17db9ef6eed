#!/usr/bin/env python3
"""Steps a second of the Python package's loops: what a learning program or a script over
positions gets from `hoyito` (docs/python.md, "Figures").

    python benches/scripts/python_loops.py [--seconds S] [--envs N]

Each line is one way to play random games, as moves (or environment steps) a second of the
clock and a second of the process's CPU time, on the calling thread, except the vector environment and random_playouts, which step their games
in Rust on every core. Random moves are drawn by Python's `random` in the scalar loops and
by numpy over the action masks in the vector environment (a table of each mask's legal
actions, indexed by a uniform draw). The figures of a loop that the
package lacks (an older build) are left out.
"""

import argparse
import random
import time

import numpy as np

import hoyito
from hoyito import env as hoyito_env


def timed(seconds, run):
    """Calls `run()` (which returns the moves it played) until `seconds` have passed;
    returns moves a second of the clock, and moves a second of this process's CPU time (all
    its threads together: on a machine shared with other work, the steadier figure)."""
    run()  # warm up
    moves, t0, c0 = 0, time.perf_counter(), time.process_time()
    while True:
        moves += run()
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return moves / elapsed, moves / (time.process_time() - c0)


def position_loop(rng):
    """moves(), random.choice, play(): a new Position each move."""
    p, n = hoyito.Position(), 0
    while not p.is_over():
        moves = p.moves()
        if not moves:
            break
        p = p.play(rng.choice(moves))
        n += 1
    return n


def game_push_loop(rng):
    """Game.legal_moves(), random.choice, Game.push (repetitions end the game)."""
    g, n = hoyito.Game(), 0
    while not g.is_over():
        g.push(rng.choice(g.legal_moves()))
        n += 1
    return n


# The holes (1-based) of each legal mask of a 2x6 board.
HOLES = [tuple(k + 1 for k in range(6) if m >> k & 1) for m in range(1 << 6)]


def mask_loop(rng):
    """Game.legal_mask(), a uniform draw among its holes, Game.play_inplace (which returns
    the next mask)."""
    g, n, draw = hoyito.Game(), 0, rng.random
    mask = g.legal_mask()
    while mask:
        holes = HOLES[mask]
        mask = g.play_inplace(holes[int(draw() * len(holes))])
        n += 1
    return n


def env_loop(opponent):
    env = hoyito_env.HoyitoEnv(opponent=opponent)
    env.reset(seed=1)  # seeded once, as a learning program does

    def run(rng):
        _, info = env.reset()
        n, done, draw = 0, False, rng.random
        while not done:
            legal = info["legal_actions"]
            _, _, terminated, truncated, info = env.step(legal[int(draw() * len(legal))])
            done = terminated or truncated
            n += 1
        return n

    return run


def uniform_legal(holes, gen):
    """A sampler of one uniform legal action a game from a (games, holes) bool mask, by a
    table of each mask's legal actions (a game with no legal action gets 0)."""
    weights = 1 << np.arange(holes, dtype=np.int64)
    count = np.array([bin(m).count("1") for m in range(1 << holes)])
    table = np.zeros((1 << holes, holes), dtype=np.int64)
    for m in range(1 << holes):
        legal = [k for k in range(holes) if m >> k & 1]
        table[m, : len(legal)] = legal

    def sample(masks):
        m = masks @ weights
        return table[m, (gen.random(len(m)) * count[m]).astype(np.int64)]

    return sample


def vector_loop(num_envs, opponent, steps=200):
    venv = hoyito_env.HoyitoVectorEnv(num_envs, opponent=opponent, seed=0)
    _, infos = venv.reset(seed=0)
    sample = uniform_legal(venv.rules.holes, np.random.default_rng(0))
    masks = [infos["action_mask"]]

    def run(_rng):
        for _ in range(steps):
            _, _, _, _, infos = venv.step(sample(masks[0]))
            masks[0] = infos["action_mask"]
        return steps * num_envs

    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time for each loop")
    parser.add_argument("--envs", type=int, default=4096, help="games of the vector env")
    args = parser.parse_args()
    rng = random.Random(1)
    loops = [
        ("Position: moves(), random.choice, play()", position_loop),
        ("Game: legal_moves(), random.choice, push()", game_push_loop),
    ]
    if hasattr(hoyito.Game, "play_inplace"):
        loops.append(("Game: legal_mask(), a draw among its holes, play_inplace()", mask_loop))
    loops += [
        ("HoyitoEnv.step, no opponent", env_loop(None)),
        ("HoyitoEnv.step, against random", env_loop("random")),
    ]
    if hasattr(hoyito_env, "HoyitoVectorEnv"):
        loops += [
            (f"HoyitoVectorEnv({args.envs}).step, no opponent, numpy actions",
             vector_loop(args.envs, None)),
            (f"HoyitoVectorEnv({args.envs}).step, against random, numpy actions",
             vector_loop(args.envs, "random")),
        ]
    print(f"{'loop':66} {'M steps/s':>10} {'per CPU-s':>10}")
    for name, run in loops:
        rate, per_cpu = timed(args.seconds, lambda: run(rng))
        print(f"{name:66} {rate / 1e6:10.3f} {per_cpu / 1e6:10.3f}")
    hoyito.random_playouts(20_000, seed=1)  # warm up
    c0 = time.process_time()
    batch = hoyito.random_playouts(200_000, seed=2)
    cpu = time.process_time() - c0
    print(f"{'random_playouts(200_000), in Rust on every core':66} "
          f"{batch.moves / batch.seconds / 1e6:10.3f} {batch.moves / cpu / 1e6:10.3f}")


if __name__ == "__main__":
    main()
