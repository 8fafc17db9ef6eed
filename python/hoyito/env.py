"""Environments for learning agents: the game as Gymnasium-style steps against an opponent
(:class:`HoyitoEnv`), and as a PettingZoo AEC game for two agents (:class:`HoyitoAECEnv`,
:func:`aec_env`).

Everything here adapts the library: the rules, the game's end (no moves, the last four, a
repeated position), the opponents (random, the engine at a level, perfect) and the random
playouts are the Rust library's. numpy is required; pettingzoo and gymnasium are optional
(with them the AEC environment is a ``pettingzoo.AECEnv`` and the spaces are Gymnasium's).

Actions are 0-based: action ``a`` sows the mover's hole ``a + 1``. An observation is seen
from the side it is for: its own row (holes 1..H in sowing order), the opponent's row, its
own captured seeds, the opponent's (``int16``, shape ``(2H + 2,)``).

>>> from hoyito.env import HoyitoEnv
>>> env = HoyitoEnv(opponent="random")
>>> obs, info = env.reset(seed=1)
>>> obs.tolist()
[4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0]
>>> total = 0
>>> done = False
>>> while not done:
...     obs, reward, terminated, truncated, info = env.step(env.legal_actions()[0])
...     total += reward
...     done = terminated or truncated
>>> total == env.margin()
True
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from ._hoyito import Game, Opponent, Position, Rules, Tables

_AECBase: Any = object
_spaces: Any
try:  # optional: the AEC environment is a pettingzoo AECEnv where pettingzoo is installed
    import pettingzoo  # type: ignore[import-untyped, import-not-found, unused-ignore]

    _AECBase = pettingzoo.AECEnv
except ImportError:  # pragma: no cover - depends on the machine
    pass

try:  # optional: Gymnasium spaces
    from gymnasium import spaces as _spaces
except ImportError:  # pragma: no cover - depends on the machine
    _spaces = None

__all__ = ["HoyitoEnv", "HoyitoAECEnv", "aec_env", "observation", "action_mask"]

SOUTH, NORTH = 0, 1
_LETTER = ("S", "N")

OpponentSpec = Union[None, str, int, Opponent, Callable[[Position], int]]


def _side(letter: str) -> int:
    return SOUTH if letter == "S" else NORTH


def observation(position: Position, side: int) -> np.ndarray:
    """The observation of ``position`` for ``side`` (0 South, 1 North): its own row, the
    opponent's, its captured seeds, the opponent's."""
    south, north = position.south, position.north
    cs, cn = position.captured
    if side == SOUTH:
        values = south + north + [cs, cn]
    else:
        values = north + south + [cn, cs]
    return np.asarray(values, dtype=np.int16)


def action_mask(position: Position, over: bool = False) -> np.ndarray:
    """1 for each legal action (hole - 1) of the side to move, else 0 (all 0 once over)."""
    mask = np.zeros(position.holes, dtype=np.int8)
    if not over:
        for hole in position.moves():
            mask[hole - 1] = 1
    return mask


def _opponent(spec: OpponentSpec, rules: Rules, tables: Any, seed: int) -> Any:
    """An opponent from its description: None, "random", "perfect", a level 1..5 (or
    "level N"), an :class:`hoyito.Opponent`, or a callable from a position to a hole."""
    if spec is None or isinstance(spec, Opponent) or callable(spec):
        return spec
    return Opponent(spec, rules=rules, tables=tables, seed=seed)


def _margin(position: Position, start: Position, side: int) -> int:
    """Seeds ``side`` captured minus the opponent's, since ``start``."""
    (s1, n1), (s0, n0) = position.captured, start.captured
    m = (s1 - n1) - (s0 - n0)
    return m if side == SOUTH else -m


class HoyitoEnv:
    """The game as Gymnasium-style steps for one learning agent against an opponent.

    HoyitoEnv(rules=None, opponent="random", player="S", reward="captures", start=None,
    tables=None, max_plies=None, seed=None)

    - opponent: "random", a level 1..5 (or "level N": the engine as ``solve play`` plays),
      "perfect" (proven values where the book, the certificates, the tables or a quick
      exact search reach),
      an :class:`hoyito.Opponent`, a callable from a Position to a hole, or None: the caller
      plays both sides (``current_player`` says whose turn it is).
    - player: the agent's side, "S" (moves first from the start) or "N".
    - reward: "captures" (each step: the seeds the agent captured minus the opponent's,
      the opponent's replies and the last four included) or "margin" (0 until the end, then
      the final margin). Either way an episode's rewards add up to its final margin.
    - start: a Position or its text (default the start of ``rules``).
    - max_plies: truncate an episode after this many plies (None: play to the end; every
      game ends, by the last four, no moves or a repeated position).

    A capture gives the same player another move: ``current_player`` stays. With an opponent,
    ``step`` plays the agent's move and then the opponent's until the agent is to move again
    or the game is over.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "hoyito_v0"}

    def __init__(
        self,
        rules: Optional[Rules] = None,
        opponent: OpponentSpec = "random",
        player: str = "S",
        reward: str = "captures",
        start: Union[None, str, Position] = None,
        tables: Union[None, str, Tables] = None,
        max_plies: Optional[int] = None,
        seed: Optional[int] = None,
        render_mode: Optional[str] = None,
    ) -> None:
        if player not in ("S", "N"):
            raise ValueError(f"player must be 'S' or 'N', not {player!r}")
        if reward not in ("captures", "margin"):
            raise ValueError(f"reward must be 'captures' or 'margin', not {reward!r}")
        if isinstance(start, Position):
            self.rules = start.rules
            self._start = start
        else:
            self.rules = rules if rules is not None else Rules()
            self._start = Position(start, self.rules)
        self.player = _side(player)
        self.reward_mode = reward
        self.max_plies = max_plies
        self.render_mode = render_mode
        self._tables = tables
        self._opponent_spec = opponent
        self._seed = 0 if seed is None else seed
        self.opponent = _opponent(opponent, self.rules, tables, self._seed)
        holes = self.rules.holes
        self.observation_shape = (2 * holes + 2,)
        if _spaces is not None:
            high = self.rules.total_seeds
            self.observation_space = _spaces.Box(0, high, self.observation_shape, np.int16)
            self.action_space = _spaces.Discrete(holes)
        self.game = Game(self._start)

    # -- the state -----------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The current position."""
        return self.game.position

    @property
    def current_player(self) -> int:
        """The side to move: 0 (South) or 1 (North). A capture gives the same player
        another move."""
        return _side(self.game.position.side_to_move)

    def legal_actions(self) -> List[int]:
        """The legal actions of the side to move (hole - 1); none once the game is over."""
        return [h - 1 for h in self.game.legal_moves()]

    def action_mask(self) -> np.ndarray:
        """1 for each legal action, else 0."""
        return action_mask(self.game.position, self.game.is_over())

    def observe(self, side: Optional[int] = None) -> np.ndarray:
        """The observation for ``side`` (default: the agent's side, or the side to move
        when the caller plays both)."""
        if side is None:
            side = self.player if self.opponent is not None else self.current_player
        return observation(self.game.position, side)

    def margin(self) -> int:
        """Seeds the agent's side captured minus the opponent's since the episode's start."""
        return _margin(self.game.position, self._start, self.player)

    # -- the episode ---------------------------------------------------------------

    def reset(
        self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Starts an episode (``options={"start": Position or text}`` starts elsewhere);
        ``seed`` reseeds a random or level opponent. Returns (observation, info)."""
        if options and options.get("start") is not None:
            start = options["start"]
            self._start = start if isinstance(start, Position) else Position(start, self.rules)
        if seed is not None and isinstance(self._opponent_spec, (str, int)):
            self._seed = seed
            if self._opponent_spec != "perfect":
                self.opponent = _opponent(self._opponent_spec, self.rules, self._tables, seed)
        self.game = Game(self._start)
        self._counted = 0
        self._plies = 0
        self._opponent_moves()
        return self.observe(), self._info()

    def step(self, action: int) -> Tuple[np.ndarray, int, bool, bool, Dict[str, Any]]:
        """Plays ``action`` (hole - 1) for the side to move, then the opponent's replies.
        Returns (observation, reward, terminated, truncated, info). An illegal action raises
        ValueError; so does a step after the end."""
        if self.game.is_over():
            raise ValueError("the episode is over: call reset()")
        action = int(action)
        if not 0 <= action < self.rules.holes:
            raise ValueError(f"action {action} is out of range 0..{self.rules.holes - 1}")
        self.game.push(action + 1)
        self._plies += 1
        self._opponent_moves()
        terminated = self.game.is_over()
        truncated = not terminated and self.max_plies is not None and self._plies >= self.max_plies
        reward = self._reward(terminated or truncated)
        return self.observe(), reward, terminated, truncated, self._info()

    def _opponent_moves(self) -> None:
        """The opponent plays until the agent is to move or the game is over."""
        if self.opponent is None:
            return
        while not self.game.is_over() and self.current_player != self.player:
            p = self.game.position
            if isinstance(self.opponent, Opponent):
                hole = self.opponent.choose(p)
            else:
                hole = self.opponent(p)
            if hole is None:  # a game that goes on has a move for the side to move
                raise RuntimeError(f"the opponent found no move in {p}")
            self.game.push(hole)
            self._plies += 1

    def _reward(self, end: bool) -> int:
        """The reward of the last step: captures since the last reward, or the margin at
        the end."""
        if self.reward_mode == "margin" and not end:
            return 0
        now = self.margin()
        reward, self._counted = now - self._counted, now
        return reward

    def _info(self) -> Dict[str, Any]:
        return {
            "action_mask": self.action_mask(),
            "legal_actions": self.legal_actions(),
            "current_player": self.current_player,
            "position": str(self.game.position),
            "margin": self.margin(),
            "end": self.game.end,
        }

    def render(self) -> Optional[str]:
        """The board for a person (North's row above South's), returned with
        render_mode="ansi", printed with "human"."""
        text = self.game.position.diagram_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


class HoyitoAECEnv(_AECBase):  # type: ignore[misc]
    """The game for two agents, "south" and "north", by PettingZoo's AEC conventions
    (``agents``, ``agent_selection``, ``observe``, ``last``, ``step``, ``rewards``,
    ``terminations``, ``truncations``, ``infos``). It is a ``pettingzoo.AECEnv`` where
    pettingzoo is installed, and works the same without it.

    HoyitoAECEnv(rules=None, reward="captures", start=None, max_plies=None,
    render_mode=None). A capture gives the same agent another move: ``agent_selection``
    stays. ``observe(agent)`` returns {"observation": ..., "action_mask": ...}, as
    PettingZoo's board games do. Rewards are zero-sum, "captures" (each move's seeds) or
    "margin" (at the end).
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "hoyito_v0", "is_parallelizable": False}

    def __init__(
        self,
        rules: Optional[Rules] = None,
        reward: str = "captures",
        start: Union[None, str, Position] = None,
        max_plies: Optional[int] = None,
        render_mode: Optional[str] = None,
    ) -> None:
        if _AECBase is not object:
            super().__init__()
        self._env = HoyitoEnv(
            rules=rules, opponent=None, player="S", reward=reward, start=start, max_plies=max_plies
        )
        self.rules = self._env.rules
        self.render_mode = render_mode
        self.possible_agents = ["south", "north"]
        holes = self.rules.holes
        if _spaces is not None:
            obs = _spaces.Box(0, self.rules.total_seeds, (2 * holes + 2,), np.int16)
            mask = _spaces.Box(0, 1, (holes,), np.int8)
            space = _spaces.Dict({"observation": obs, "action_mask": mask})
            self.observation_spaces = {a: space for a in self.possible_agents}
            self.action_spaces = {a: _spaces.Discrete(holes) for a in self.possible_agents}
        self.reset()

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """The agent to act next, until every agent has left (as PettingZoo's)."""
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        self._env.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._env.current_player]

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        side = self.possible_agents.index(agent)
        mask = self._env.action_mask()
        if self.possible_agents[self._env.current_player] != agent:
            mask = np.zeros_like(mask)
        return {"observation": self._env.observe(side), "action_mask": mask}

    def last(self, observe: bool = True) -> Tuple[Any, int, bool, bool, Dict[str, Any]]:
        agent = self.agent_selection
        obs = self.observe(agent) if observe else None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: Optional[int]) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            # PettingZoo's dead step: the agent leaves, with its entries.
            if action is not None:
                raise ValueError("a finished agent must step with None")
            for entries in (
                self.rewards,
                self._cumulative_rewards,
                self.terminations,
                self.truncations,
                self.infos,
            ):
                del entries[agent]
            self.agents.remove(agent)
            self.rewards = {a: 0 for a in self.agents}
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        if action is None:
            raise ValueError(f"{agent} is to move: step with an action, not None")
        self._cumulative_rewards[agent] = 0
        _, reward, terminated, truncated, _ = self._env.step(action)
        # The reward is South's; the game is zero-sum.
        self.rewards = {"south": reward, "north": -reward}
        for a in self.agents:
            self._cumulative_rewards[a] += self.rewards[a]
            self.terminations[a] = terminated
            self.truncations[a] = truncated
        if terminated or truncated:
            self.agent_selection = agent
        else:
            self.agent_selection = self.possible_agents[self._env.current_player]
        if self.render_mode == "human":
            self.render()

    def render(self) -> Optional[str]:
        text = self._env.game.position.diagram_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def aec_env(**kwargs: Any) -> HoyitoAECEnv:
    """The AEC environment, wrapped by PettingZoo's standard wrappers where pettingzoo is
    installed (illegal actions then end the game for the agent that played them)."""
    env = HoyitoAECEnv(**kwargs)
    try:
        from pettingzoo.utils import wrappers  # type: ignore
    except ImportError:
        return env
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))  # type: ignore
