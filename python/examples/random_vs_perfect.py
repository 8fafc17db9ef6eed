"""A random agent against the perfect player, through the learning environment.

The perfect player plays the proven best move where the opening book, the endgame tables
(built in memory up to 12 seeds when none are given) or a quick exact search reach, and the
engine's strongest level elsewhere. From a small position it is perfect throughout, so the
random agent can do no better than the position's proven value.

    python python/examples/random_vs_perfect.py [EPISODES] [POSITION]
"""

import sys

import numpy as np

import hoyito
from hoyito.env import HoyitoEnv


def main() -> None:
    episodes = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    start = sys.argv[2] if len(sys.argv) > 2 else "2,0,1,0,3,2/1,2,0,1,3,1 S"
    position = hoyito.Position.parse(start)
    # The agent is South; the perfect player answers as North.
    env = HoyitoEnv(opponent="perfect", player="S", start=position, reward="captures")
    rng = np.random.default_rng(0)
    margins = []
    for episode in range(episodes):
        obs, info = env.reset(seed=episode)
        total, done = 0, False
        while not done:
            action = int(rng.choice(env.legal_actions()))
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        margins.append(total)
    value = hoyito.best(position).value
    print(f"start {position}: proven value {value} for South")
    print(
        f"random South against the perfect North, {episodes} episodes: "
        f"mean margin {np.mean(margins):+.2f}, best {max(margins):+d}, worst {min(margins):+d}"
    )
    assert max(margins) <= value, "the perfect player kept the proven value"


if __name__ == "__main__":
    main()
