"""Environments for learning agents: the game as Gymnasium steps against an opponent
(:class:`HoyitoEnv`, registered as ``"Hoyito-v0"``), many games stepped together in Rust
(:class:`HoyitoVectorEnv`), and a PettingZoo AEC game for two agents
(:class:`HoyitoAECEnv`, :func:`aec_env`).

Everything here adapts the library: the rules, the game's end (no moves, the last four, a
repeated position), the opponents (random, the engine at a level, perfect), the stepping
of games (``hoyito.Batch``, over the library's ``hoyito::batch``) and the random playouts
are the Rust library's. numpy is required; gymnasium and pettingzoo are optional: with
gymnasium, :class:`HoyitoEnv` is a ``gymnasium.Env``, :class:`HoyitoVectorEnv` a
``gymnasium.vector.VectorEnv`` and the spaces are Gymnasium's; without it, the spaces are
small stand-ins with the same attributes (``shape``, ``dtype``, ``n``, ``contains``,
``sample``). With pettingzoo, the AEC environment is a ``pettingzoo.AECEnv``.

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

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._hoyito import Batch, Game, Opponent, Position, Rules, Tables

_AECBase: Any = object
try:  # optional: the AEC environment is a pettingzoo AECEnv where pettingzoo is installed
    import pettingzoo  # type: ignore[import-untyped, import-not-found, unused-ignore]

    _AECBase = pettingzoo.AECEnv
except ImportError:  # pragma: no cover - depends on the machine
    pass

__all__ = [
    "HoyitoEnv",
    "HoyitoVectorEnv",
    "HoyitoAECEnv",
    "aec_env",
    "observation",
    "action_mask",
]

SOUTH, NORTH = 0, 1
_LETTER = ("S", "N")

OpponentSpec = Union[None, str, int, Opponent, Callable[[Position], int]]


class _Space:
    """A stand-in for a Gymnasium space where gymnasium is not installed."""

    shape: Tuple[int, ...] = ()
    dtype: Any = np.int64

    def __init__(self) -> None:
        self._rng = np.random.default_rng()

    def seed(self, seed: Optional[int] = None) -> None:
        self._rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__.lstrip('_')}{self.shape}"


class _Box(_Space):
    """Integers from ``low`` to ``high`` in an array of ``shape``."""

    def __init__(self, low: int, high: int, shape: Tuple[int, ...], dtype: Any) -> None:
        super().__init__()
        self.low, self.high, self.shape, self.dtype = low, high, tuple(shape), np.dtype(dtype)

    def contains(self, x: Any) -> bool:
        x = np.asarray(x)
        return bool(x.shape == self.shape and np.all((x >= self.low) & (x <= self.high)))

    def sample(self) -> np.ndarray:
        return self._rng.integers(self.low, self.high + 1, self.shape).astype(self.dtype)


class _Discrete(_Space):
    """One of ``0 .. n - 1``."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def contains(self, x: Any) -> bool:
        return isinstance(x, (int, np.integer)) and 0 <= int(x) < self.n

    def sample(self) -> int:
        return int(self._rng.integers(self.n))


class _MultiDiscrete(_Space):
    """An array of choices, each of ``0 .. n - 1``."""

    def __init__(self, nvec: Sequence[int]) -> None:
        super().__init__()
        self.nvec = np.asarray(nvec, dtype=np.int64)
        self.shape = self.nvec.shape

    def contains(self, x: Any) -> bool:
        x = np.asarray(x)
        return bool(x.shape == self.shape and np.all((x >= 0) & (x < self.nvec)))

    def sample(self) -> np.ndarray:
        return self._rng.integers(0, self.nvec)


class _DictSpace(_Space):
    """Named spaces."""

    def __init__(self, spaces: Dict[str, Any]) -> None:
        super().__init__()
        self.spaces = spaces

    def contains(self, x: Any) -> bool:
        return isinstance(x, dict) and all(s.contains(x[k]) for k, s in self.spaces.items())

    def sample(self) -> Dict[str, Any]:
        return {k: s.sample() for k, s in self.spaces.items()}


_EnvBase: Any = object
_VectorBase: Any = object
_NEXT_STEP: Any = "NextStep"
_gym: Any = None
try:  # optional: Gymnasium's base classes and spaces
    import gymnasium as _gym
    from gymnasium import spaces as _gym_spaces
    from gymnasium.vector import VectorEnv as _GymVectorEnv

    _EnvBase = _gym.Env
    _VectorBase = _GymVectorEnv
    try:
        from gymnasium.vector import AutoresetMode

        _NEXT_STEP = AutoresetMode.NEXT_STEP
    except ImportError:  # pragma: no cover - gymnasium before 1.1
        pass
    _Box_: Any = _gym_spaces.Box
    _Discrete_: Any = _gym_spaces.Discrete
    _MultiDiscrete_: Any = _gym_spaces.MultiDiscrete
    _Dict_: Any = _gym_spaces.Dict
except ImportError:  # pragma: no cover - depends on the machine
    _gym = None
    _Box_, _Discrete_, _MultiDiscrete_, _Dict_ = _Box, _Discrete, _MultiDiscrete, _DictSpace


def observation_space(rules: Rules) -> Any:
    """The space of one observation under ``rules``."""
    return _Box_(0, rules.total_seeds, (2 * rules.holes + 2,), np.int16)


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
    mask = 0 if over else position.legal_mask()
    return np.asarray([mask >> k & 1 for k in range(position.holes)], dtype=np.int8)


_ACTIONS: Dict[int, Tuple[int, ...]] = {}


def _actions_of(mask: int) -> Tuple[int, ...]:
    """The actions whose bits ``mask`` sets, in order (kept: a mask comes back often)."""
    actions = _ACTIONS.get(mask)
    if actions is None:
        actions = _ACTIONS[mask] = tuple(k for k in range(mask.bit_length()) if mask >> k & 1)
    return actions


def _engine_kind(spec: OpponentSpec) -> bool:
    """Whether ``spec`` names an opponent that the Rust batch plays itself."""
    return spec is None or isinstance(spec, (str, int))


def _start_position(start: Union[None, str, Position], rules: Optional[Rules]) -> Position:
    if isinstance(start, Position):
        return start
    return Position(start, rules if rules is not None else Rules())


class HoyitoEnv(_EnvBase):  # type: ignore[misc]
    """The game as Gymnasium steps for one learning agent against an opponent: a
    ``gymnasium.Env`` where gymnasium is installed (``gymnasium.make("Hoyito-v0")`` after
    ``import hoyito.env``).

    HoyitoEnv(rules=None, opponent="random", player="S", reward="captures", start=None,
    tables=None, max_plies=None, seed=None, render_mode=None)

    - opponent: "random", a level 1..5 (or "level N": the engine as ``solve play`` plays),
      "perfect" (proven values where the book, the certificates, the tables or a quick
      exact search reach), stepped in Rust with the agent's move; an
      :class:`hoyito.Opponent` or a callable from a Position to a hole, asked from Python;
      or None: the caller plays both sides (``current_player`` says whose turn it is).
    - player: the agent's side, "S" (moves first from the start) or "N".
    - reward: "captures" (each step: the seeds the agent captured minus the opponent's,
      the opponent's replies and the last four included) or "margin" (0 until the end, then
      the final margin). Either way an episode's rewards add up to its final margin.
    - start: a Position or its text (default the start of ``rules``).
    - max_plies: truncate an episode after this many plies (None: play to the end; every
      game ends, by the last four, no moves or a repeated position).

    A capture gives the same player another move: ``current_player`` stays. With an opponent,
    ``step`` plays the agent's move and then the opponent's until the agent is to move again
    or the game is over. A random opponent seeded with ``seed`` plays as
    ``hoyito.Opponent("random", seed=seed)``. ``info`` holds the ``action_mask`` (int8), the
    ``legal_actions`` (a tuple, shared by the steps), the ``current_player``, the ``margin``
    and the game's ``end``
    ("last-four", "no-moves", "repetition", or None while it goes on); the position is
    ``env.position``.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "hoyito_v0", "render_fps": 4}

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
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self._start = _start_position(start, rules)
        self.rules = self._start.rules
        self.player = _side(player)
        self.reward_mode = reward
        self.max_plies = max_plies
        self.render_mode = render_mode
        self._seed = 0 if seed is None else seed
        kind = opponent if isinstance(opponent, (str, int)) else None
        inside = _engine_kind(opponent)
        #: The opponent asked from Python (an Opponent or a callable), or None where the
        #: Rust batch plays it (or nobody does).
        self.opponent: Any = None if inside else opponent
        self._core = Batch(
            1,
            opponent=kind,
            player=player,
            reward=reward,
            start=self._start,
            tables=tables,
            max_plies=max_plies,
            seed=self._seed,
            autoreset=False,
            external=not inside,
            record_moves=True,
        )
        self._external = not inside
        if inside:
            # The step is the Rust batch's own: no Python frame between the caller and the
            # game (a third of a step's time).
            self.step = self._core.step_one  # type: ignore[method-assign]
        holes = self.rules.holes
        self.observation_shape = (2 * holes + 2,)
        self.observation_space = observation_space(self.rules)
        self.action_space = _Discrete_(holes)

    # -- the state -----------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The episode so far as a Game (a copy: pushing moves on it leaves the episode
        as it is)."""
        return self._core.game(0)

    @property
    def position(self) -> Position:
        """The current position."""
        return self._core.position(0)

    @property
    def current_player(self) -> int:
        """The side to move: 0 (South) or 1 (North). A capture gives the same player
        another move."""
        return self._core.to_move(0)

    def legal_actions(self) -> List[int]:
        """The legal actions of the side to move (hole - 1); none once the game is over."""
        return list(_actions_of(self._core.legal_mask(0)))

    def action_mask(self) -> np.ndarray:
        """1 for each legal action, else 0."""
        return self._core.info(0)["action_mask"]  # type: ignore[no-any-return]

    def observe(self, side: Optional[int] = None) -> np.ndarray:
        """The observation for ``side`` (default: the agent's side, or the side to move
        when the caller plays both)."""
        if side is None:
            return self._core.observation(0)
        return observation(self.position, side)

    def margin(self) -> int:
        """Seeds the agent's side captured minus the opponent's since the episode's start."""
        return self._core.margin(0)

    # -- the episode ---------------------------------------------------------------

    def reset(
        self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Starts an episode (``options={"start": Position or text}`` starts elsewhere);
        ``seed`` reseeds a random or level opponent. Returns (observation, info)."""
        if _EnvBase is not object:
            super().reset(seed=seed)
        if options and options.get("start") is not None:
            self._start = _start_position(options["start"], self.rules)
            self._core.set_start(self._start)
        if seed is not None:
            self._seed = seed
        self._core.reset(seed=seed)
        if self._external:
            self._external_moves()
        return self._core.observation(0), self._core.info(0)

    def step(self, action: int) -> Tuple[np.ndarray, int, bool, bool, Dict[str, Any]]:
        """Plays ``action`` (hole - 1) for the side to move, then the opponent's replies.
        Returns (observation, reward, terminated, truncated, info). An illegal action raises
        ValueError; so does a step after the end."""
        if not self._external:
            return self._core.step_one(action)
        self._core.play(0, action)
        self._external_moves()
        return self._core.finish(0)

    def _external_moves(self) -> None:
        """The opponent asked from Python plays until the agent is to move or the game
        is over."""
        core = self._core
        while not core.is_over(0) and core.to_move(0) != self.player:
            p = core.position(0)
            if isinstance(self.opponent, Opponent):
                hole = self.opponent.choose(p)
            else:
                hole = self.opponent(p)
            if hole is None:  # a game that goes on has a move for the side to move
                raise RuntimeError(f"the opponent found no move in {p}")
            core.play(0, hole - 1)

    def render(self) -> Optional[str]:
        """The board for a person (North's row above South's), returned with
        render_mode="ansi", printed with "human"."""
        text = self.position.diagram_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


class HoyitoVectorEnv(_VectorBase):  # type: ignore[misc]
    """``num_envs`` games stepped together in Rust, by Gymnasium's vector API: a
    ``gymnasium.vector.VectorEnv`` where gymnasium is installed.

    HoyitoVectorEnv(num_envs, rules=None, opponent=None, seed=None, *, player="S",
    reward="captures", start=None, tables=None, max_plies=None)

    ``reset(seed=...)`` returns ``(observations, infos)``; ``step(actions)`` returns
    ``(observations, rewards, terminations, truncations, infos)``, numpy arrays with a row
    a game (observations ``int16`` of shape ``(num_envs, 2H + 2)``, rewards ``float64``);
    ``action_masks()`` is a ``(num_envs, H)`` bool array of the legal actions. ``infos``
    holds ``"action_mask"`` and ``"current_player"`` (the side to move, 0 South, 1 North),
    each with its ``"_"`` entry saying every game has it, as Gymnasium's vector infos do.

    - opponent: None (the agent plays both sides: observations and masks are for the side
      to move, rewards South's), "random" (game i's opponent seeded with seed + i), a level
      1..5 or "perfect" (one engine for all the games, moving in turn); all stepped in Rust.
    - The other arguments are HoyitoEnv's; ``seed`` None is 0.

    Autoreset is Gymnasium's "next step" mode (``metadata["autoreset_mode"]``): the step
    that ends an episode returns its last observation with terminated (or truncated) set;
    the next step of that game ignores its action, starts a new episode and returns its
    first observation with reward 0. A game whose episode ended has no legal action in its
    mask. An illegal action of a game that goes on raises ValueError naming the game; no
    game moves then. The games are stepped with the GIL released, on every core when there
    are many of them.
    """

    metadata = {"autoreset_mode": _NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        rules: Optional[Rules] = None,
        opponent: Union[None, str, int] = None,
        seed: Optional[int] = None,
        *,
        player: str = "S",
        reward: str = "captures",
        start: Union[None, str, Position] = None,
        tables: Union[None, str, Tables] = None,
        max_plies: Optional[int] = None,
    ) -> None:
        if not _engine_kind(opponent):
            raise ValueError(
                "the vector environment's opponent is None, 'random', a level or 'perfect'"
            )
        self._core = Batch(
            num_envs,
            rules,
            opponent,
            player=player,
            reward=reward,
            start=start,
            tables=tables,
            max_plies=max_plies,
            seed=seed,
        )
        self.num_envs = num_envs
        self.rules = self._core.rules
        self.render_mode = None
        self.closed = False
        holes = self.rules.holes
        self.single_observation_space = observation_space(self.rules)
        self.single_action_space = _Discrete_(holes)
        self.observation_space = _Box_(
            0, self.rules.total_seeds, (num_envs, 2 * holes + 2), np.int16
        )
        self.action_space = _MultiDiscrete_([holes] * num_envs)
        self._every = np.ones(num_envs, dtype=bool)
        self._every.flags.writeable = False

    @property
    def batch(self) -> Batch:
        """The Rust batch the games are stepped in (positions, games, margins)."""
        return self._core

    def reset(
        self,
        *,
        seed: Union[None, int, Sequence[int]] = None,
        options: Optional[Dict[str, Any]] = None,
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Starts a new episode in every game (``options={"start": ...}`` starts them
        elsewhere); ``seed`` reseeds the opponents (game i's random opponent with
        seed + i). Returns (observations, infos)."""
        if seed is not None and not isinstance(seed, int):
            seed = int(seed[0])
        if options and options.get("start") is not None:
            start = options["start"]
            self._core.set_start(
                start if isinstance(start, Position) else Position(start, self.rules)
            )
        obs = self._core.reset(seed=seed)
        return obs, self._infos(self._core.action_masks())

    def step(
        self, actions: Any
    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """Steps every game with its action (hole - 1). Returns (observations, rewards,
        terminations, truncations, infos)."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        obs, rewards, terminated, truncated, to_move, masks = self._core.step(actions)
        infos = self._infos(masks, to_move)
        return obs, rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game: a (num_envs, holes) bool array."""
        return self._core.action_masks()

    def _infos(self, masks: np.ndarray, to_move: Optional[np.ndarray] = None) -> Dict[str, Any]:
        if to_move is None:
            to_move = np.asarray(
                [self._core.to_move(i) for i in range(self.num_envs)], dtype=np.int8
            )
        return {
            "action_mask": masks,
            "_action_mask": self._every,
            "current_player": to_move,
            "_current_player": self._every,
        }

    def close(self, **kwargs: Any) -> None:
        """Nothing to release."""
        self.closed = True

    def __repr__(self) -> str:
        return f"HoyitoVectorEnv({self.num_envs})"


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
        obs = observation_space(self.rules)
        mask = _Box_(0, 1, (holes,), np.int8)
        space = _Dict_({"observation": obs, "action_mask": mask})
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: _Discrete_(holes) for a in self.possible_agents}
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
        text = self._env.position.diagram_text()
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


def _register() -> None:
    """Registers "Hoyito-v0" with gymnasium (``gymnasium.make("Hoyito-v0")``, and
    ``gymnasium.make_vec("Hoyito-v0", num_envs, vectorization_mode="vector_entry_point")``
    for the vector environment)."""
    if _gym is None or "Hoyito-v0" in _gym.registry:
        return
    _gym.register(
        id="Hoyito-v0",
        entry_point="hoyito.env:HoyitoEnv",
        vector_entry_point="hoyito.env:HoyitoVectorEnv",
    )


_register()
