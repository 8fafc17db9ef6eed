"""A learning agent in numpy alone: a linear softmax policy over a few features of each
legal move, trained by REINFORCE against the random opponent, then played greedily. It wins
about 99% of its games against random play after 600 training games (seconds).

    python python/examples/learn_linear.py [train_games] [eval_games]

The features of a move are read from the library's positions (``Position.play``): the net
seeds it captures, whether it gives another move, the opponent's best immediate capture
after it (or the agent's own, when it moves again). The episodes are ``HoyitoEnv``'s
against ``"random"`` (stepped in Rust), half as South and half as North. The return of an
episode is its final margin; the script exits with status 1 when the greedy policy wins
fewer than 95% of the evaluation games.
"""

from __future__ import annotations

import sys
from typing import List, Tuple

import numpy as np

from hoyito import Position
from hoyito.env import HoyitoEnv

FEATURES = 4


def _gain(before: Position, after: Position, mover: int) -> int:
    """Net seeds `mover` (0 South, 1 North) captured from `before` to `after`."""
    b, a = before.captured, after.captured
    return (a[mover] - b[mover]) - (a[1 - mover] - b[1 - mover])


def features(p: Position) -> Tuple[np.ndarray, List[int]]:
    """One row of features for each legal action (hole - 1) of the side to move."""
    me = p.side_to_move
    mover = 0 if me == "S" else 1
    rows, actions = [], []
    for hole in p.moves():
        q = p.play(hole)
        over = q.is_over()
        extra = not over and q.side_to_move == me
        best = 0
        if not over:
            next_mover = 0 if q.side_to_move == "S" else 1
            best = max((_gain(q, q.play(h), next_mover) for h in q.moves()), default=0)
        rows.append(
            [
                _gain(p, q, mover) / 4,
                float(extra),
                0.0 if extra else best / 4,
                best / 4 if extra else 0.0,
            ]
        )
        actions.append(hole - 1)
    return np.asarray(rows), actions


def episode(
    env: HoyitoEnv, w: np.ndarray, rng: np.random.Generator, explore: bool
) -> Tuple[int, List[Tuple[np.ndarray, np.ndarray, int]]]:
    """Plays one episode; returns the agent's final margin and, for each of its moves,
    the features, the policy's probabilities and the choice."""
    env.reset()
    trace = []
    done = False
    while not done:
        x, actions = features(env.position)
        z = x @ w
        p = np.exp(z - z.max())
        p /= p.sum()
        k = int(rng.choice(len(actions), p=p)) if explore else int(np.argmax(z))
        trace.append((x, p, k))
        _, _, terminated, truncated, _ = env.step(actions[k])
        done = terminated or truncated
    return env.margin(), trace


def train(games: int, rng: np.random.Generator, lr: float = 0.05) -> np.ndarray:
    """REINFORCE with a running baseline: the weights after `games` episodes."""
    w = np.zeros(FEATURES)
    envs = [HoyitoEnv(opponent="random", player=side, seed=i) for i, side in enumerate("SN")]
    baseline = 0.0
    for g in range(games):
        margin, trace = episode(envs[g % 2], w, rng, explore=True)
        ret = margin / 48
        baseline = 0.95 * baseline + 0.05 * ret
        for x, p, k in trace:
            w += lr * (ret - baseline) * (x[k] - p @ x)
    return w


def win_rate(w: np.ndarray, games: int, rng: np.random.Generator) -> float:
    """The share of `games` the greedy policy wins (a larger margin) against random play,
    half as South and half as North, the opponents seeded apart from training's."""
    envs = [
        HoyitoEnv(opponent="random", player=side, seed=100 + i) for i, side in enumerate("SN")
    ]
    wins = sum(episode(envs[g % 2], w, rng, explore=False)[0] > 0 for g in range(games))
    return wins / games


def main(train_games: int = 600, eval_games: int = 400) -> float:
    rng = np.random.default_rng(0)
    w = train(train_games, rng)
    rate = win_rate(w, eval_games, rng)
    print(f"weights {np.round(w, 2).tolist()}: wins {rate:.1%} of {eval_games} games against random")
    return rate


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    sys.exit(0 if main(*args) >= 0.95 else 1)
