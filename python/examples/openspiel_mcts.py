"""OpenSpiel's MCTS bot against the package's players, on the OpenSpiel game that
``import hoyito.openspiel`` registers (``pip install open_spiel``).

    python python/examples/openspiel_mcts.py [GAMES] [SIMULATIONS] [OPPONENTS...]

Defaults: 2 games against each opponent (MCTS plays South in one, North in the other),
100 simulations a move with random rollouts, opponents "random" and level 1 (any of
"random", 1 to 5, "perfect"). Prints, for each opponent, MCTS's wins, draws and losses and
its mean margin in seeds.
"""

from __future__ import annotations

import sys
from typing import Any, List, Union

import numpy as np
import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]
from open_spiel.python.algorithms import mcts  # type: ignore[import-not-found, import-untyped, unused-ignore]

import hoyito
import hoyito.openspiel  # noqa: F401  (registers python_hoyito)


def play(game: Any, bot: Any, opponent: hoyito.Opponent, mcts_player: int) -> float:
    """One game; MCTS's margin in seeds."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == mcts_player:
            action = bot.step(state)
        else:
            hole = opponent.choose(state.game.position)
            if hole is None:
                raise RuntimeError(f"the opponent has no move in {state.game.position}")
            action = hole - 1
        state.apply_action(action)
    return float(state.returns()[mcts_player])


def main(argv: List[str]) -> None:
    games = int(argv[1]) if len(argv) > 1 else 2
    simulations = int(argv[2]) if len(argv) > 2 else 100
    kinds: List[Union[str, int]] = [
        int(k) if k.isdigit() else k for k in argv[3:]
    ] or ["random", 1]
    game = pyspiel.load_game("python_hoyito")
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=simulations,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
        random_state=rng,
    )
    for kind in kinds:
        opponent = hoyito.Opponent(kind, seed=1)
        margins = [play(game, bot, opponent, g % 2) for g in range(games)]
        wins = sum(m > 0 for m in margins)
        draws = sum(m == 0 for m in margins)
        print(
            f"MCTS ({simulations} simulations) against {opponent.kind}: "
            f"{wins} wins, {draws} draws, {len(margins) - wins - draws} losses "
            f"of {len(margins)}, mean margin {np.mean(margins):+.1f}"
        )


if __name__ == "__main__":
    main(sys.argv)
