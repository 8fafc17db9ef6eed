"""Hoyito as an OpenSpiel game: ``import hoyito.openspiel`` registers the Python game
``python_hoyito`` with pyspiel (``pip install open_spiel``), so that
``pyspiel.load_game("python_hoyito")`` (or ``"python_hoyito(variant=hoyito3)"``) plays the
standard 2x6 game of Hoyito II (or III) with OpenSpiel's algorithms.

- Players 0 (South, moves first) and 1 (North); a capture gives the same player another
  move, so ``current_player`` can stay the same.
- Actions 0..5: action ``a`` sows the mover's hole ``a + 1``; the legal ones are the
  library's (``hoyito.Game.legal_mask``).
- The game ends as a ``hoyito.Game`` ends (no moves, the last four, a repeated position),
  or after ``max_plies`` plies (parameter, default 1000; random games last about 100 and
  the longest of 200,000 about 700). The returns are the final margin in seeds: South's
  captures minus North's for player 0, the opposite for player 1.
- The observation tensor (``float32``, 14 values) is the library's observation for the
  player: its row, the opponent's row, its captured seeds, the opponent's.

The rules and the game's end are the Rust library's; this module only adapts them to
pyspiel's Python game interface.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

import numpy as np
import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]

from ._hoyito import Game, Rules

__all__ = ["HoyitoGame", "HoyitoState"]

_HOLES = 6
_SEEDS = 2 * _HOLES * 4
_MAX_PLIES = 1000

_GAME_TYPE = pyspiel.GameType(
    short_name="python_hoyito",
    long_name="Python Hoyito (Dominican mancala)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"variant": "hoyito2", "max_plies": _MAX_PLIES},
)


class HoyitoGame(pyspiel.Game):  # type: ignore[misc]
    """The game: its variant ("hoyito2" or "hoyito3") and ``max_plies``."""

    def __init__(self, params: Optional[Dict[str, Any]] = None) -> None:
        params = dict(params or {})
        variant = params.get("variant", "hoyito2")
        if variant not in ("hoyito2", "hoyito3"):
            raise ValueError(f"variant must be 'hoyito2' or 'hoyito3', not {variant!r}")
        max_plies = int(params.get("max_plies", _MAX_PLIES))
        if max_plies < 1:
            raise ValueError(f"max_plies must be at least 1, not {max_plies}")
        info = pyspiel.GameInfo(
            num_distinct_actions=_HOLES,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-float(_SEEDS),
            max_utility=float(_SEEDS),
            utility_sum=0.0,
            max_game_length=max_plies,
        )
        super().__init__(_GAME_TYPE, info, params)
        self.rules = Rules(variant)
        self.max_plies = max_plies

    def new_initial_state(self) -> "HoyitoState":
        """The start: every hole holds 4 seeds, South to move."""
        return HoyitoState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Optional[Dict[str, Any]] = None
    ) -> Any:
        """The observer of the library's observation (public information: the whole
        game), or OpenSpiel's observer of the history where perfect recall is asked."""
        if iig_obs_type is None or (
            iig_obs_type.public_info and not iig_obs_type.perfect_recall
        ):
            return HoyitoObserver(params)
        from open_spiel.python.observation import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
            IIGObserverForPublicInfoGame,
        )

        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class HoyitoState(pyspiel.State):  # type: ignore[misc]
    """A position of a game and the moves that led to it (a ``hoyito.Game``)."""

    def __init__(self, game: HoyitoGame) -> None:
        super().__init__(game)
        self.game = Game(rules=game.rules)
        self._max_plies = game.max_plies

    def current_player(self) -> int:
        """0 (South) or 1 (North) to move, or pyspiel's TERMINAL."""
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return 0 if self.game.position.side_to_move == "S" else 1

    def _legal_actions(self, player: int) -> List[int]:
        del player  # only the player to move is asked
        mask = self.game.legal_mask()
        return [a for a in range(_HOLES) if mask >> a & 1]

    def _apply_action(self, action: int) -> None:
        self.game.push(int(action) + 1)

    def _action_to_string(self, player: int, action: int) -> str:
        return f"{'SN'[player]}{action + 1}"

    def is_terminal(self) -> bool:
        """Whether the game is over, or ``max_plies`` were played."""
        return self.game.is_over() or len(self.game) >= self._max_plies

    def returns(self) -> List[float]:
        """The margin in seeds for each player at the end (0 before)."""
        if not self.is_terminal():
            return [0.0, 0.0]
        s, n = self.game.position.captured
        return [float(s - n), float(n - s)]

    def __str__(self) -> str:
        return str(self.game.position)

    def __deepcopy__(self, memo: Dict[int, Any]) -> "HoyitoState":
        other = copy.copy(self)
        other.game = self.game.copy()
        return other


class HoyitoObserver:
    """The library's observation for a player (``float32``, 14 values), and the position's
    notation as the observation string."""

    def __init__(self, params: Optional[Dict[str, Any]]) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.tensor = np.zeros(2 * _HOLES + 2, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: HoyitoState, player: int) -> None:
        """Writes the observation of ``state`` for ``player`` into ``tensor``."""
        p = state.game.position
        south, north = p.south, p.north
        s, n = p.captured
        values = south + north + [s, n] if player == 0 else north + south + [n, s]
        self.tensor[:] = values

    def string_from(self, state: HoyitoState, player: int) -> str:
        """The position's notation (the same for both players: nothing is hidden)."""
        del player
        return str(state.game.position)


pyspiel.register_game(_GAME_TYPE, HoyitoGame)
