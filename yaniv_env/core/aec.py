"""The PettingZoo AEC base every game's environment builds on: the arguments and their
checks, the spaces, ``reset``, ``step``, ``render`` (text, frames, a window), the action helpers, PettingZoo's
standard wrappers (:func:`wrap`) and the outcome reward."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from types import ModuleType

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import frames
from .frames import RECENT_EVENTS, RevealSpec, TableView, check_reveal
from .ids import is_int
from .rules import RulesBase

#: The render modes of every game's environments: ``"ansi"`` (text), ``"rgb_array"``
#: (frames, :mod:`yaniv_env.core.frames`) and ``"human"`` (the frames in a window).
RENDER_MODES = ["human", "ansi", "rgb_array"]
#: Frames a second of ``"human"`` windows and of videos (``gymnasium.wrappers.RecordVideo``).
RENDER_FPS = 2


class FastDiscrete(spaces.Discrete):
    """``gymnasium.spaces.Discrete`` whose :meth:`contains` answers a plain ``int``
    without NumPy calls (the wrapper of :func:`wrap` asks at every step);
    other values go to ``spaces.Discrete.contains``. The answers are the same (``True``
    is in the space, as ``1``: the wrapper refuses it first, with
    :func:`yaniv_env.core.ids.is_int`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._int_bounds = (int(self.start), int(self.start) + int(self.n))

    def contains(self, x) -> bool:
        if type(x) is int:
            low, high = self._int_bounds
            return low <= x < high
        return super().contains(x)


class ResetNeededError(RuntimeError):
    """``step()`` or ``last()`` with no game in play: before the first ``reset()`` of a raw
    environment, or once the game is over (every agent has left)."""


class CheckedOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` (calls before ``reset()`` raise its own
    errors) that also refuses, with the raw environment's messages and before any inner
    wrapper sees them, what the raw environment refuses as an action id (``ValueError``
    naming the agent, the action and the legal ones, where ``AssertOutOfBoundsWrapper``
    asserts without saying which, and where ``Discrete.contains`` takes ``True`` for
    ``1`` and ``TerminateIllegalWrapper`` then indexes the mask with it) and ``step()`` or
    ``last()`` once the game is over (:class:`ResetNeededError`, where PettingZoo warns or
    raises ``KeyError``)."""

    def step(self, action) -> None:
        if self._has_reset:
            if not self.agents:
                raise self.unwrapped.no_game_error()
            agent = self.agent_selection
            if not (is_int(action) and self.action_space(agent).contains(action)) and not (
                action is None and (self.terminations[agent] or self.truncations[agent])
            ):
                raise self.unwrapped.action_error(agent, action)
        super().step(action)

    def last(self, observe: bool = True):
        if self._has_reset and not self.agents:
            raise self.unwrapped.no_game_error()
        return super().last(observe)


def wrap(raw: AECEnv) -> AECEnv:
    """PettingZoo's standard wrappers around a raw environment: an illegal move ends the
    game with reward -1 for the offender (``TerminateIllegalWrapper``); an action out of
    the space raises ``ValueError``, calls out of order or after the game raise
    (:class:`CheckedOrderEnforcingWrapper`)."""
    e = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    return CheckedOrderEnforcingWrapper(e)


class CardGameEnv(AECEnv):
    """What the AEC environments of every game (Yaniv, Pis Yedili) share: the arguments and their
    checks, the spaces, ``reset``, ``step``, ``render`` and the action helpers. A game's
    environment sets the class attributes below, observes, renders, and settles a finished
    round or deal in :meth:`_end_of_part` (rewards, infos, the next round or deal)."""

    metadata: dict
    #: The game's rules engine module (``action_table``, ``new_game``, ``legal_actions``,
    #: ``apply``, ``IllegalActionError``).
    _engine: ModuleType
    #: The engine phase from which the round (deal) is over; decision phases are below it.
    _part_over: int
    #: The game's ``get_rules(rules, num_players)``.
    _get_rules: Callable[[str | RulesBase, int | None], RulesBase]
    episodes: tuple[str, ...]
    reward_schemes: tuple[str, ...]
    layout_class: type
    state_layout_class: type

    def __init__(
        self,
        rules: str | RulesBase = "standard",
        num_players: int = 2,
        episode: str = "game",
        reward: str = "score_outcome",
        turn_limit: int | None = None,
        render_mode: str | None = None,
        reveal: RevealSpec = "current",
    ):
        super().__init__()
        rules = self._get_rules(rules, num_players)
        if turn_limit is not None:
            rules = rules.replace(turn_limit=turn_limit)
        if episode not in self.episodes:
            raise ValueError(f"episode must be one of {self.episodes}, got {episode!r}")
        if reward not in self.reward_schemes:
            raise ValueError(f"reward must be one of {self.reward_schemes}, got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        check_reveal(reveal, rules.num_players)
        self.rules = rules
        self.reveal = reveal
        self.episode = episode
        self.reward_scheme = reward
        self.render_mode = render_mode
        self.table = self._engine.action_table(rules)
        self.layout = self.layout_class(rules)
        self.state_layout = self.state_layout_class(rules)
        self.possible_agents = [f"player_{i}" for i in range(rules.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._num_actions = num_actions = self.table.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, self.layout.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
            }
        )
        act_space = FastDiscrete(num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, self.state_layout.high, dtype=np.float32)
        self._rng: np.random.Generator | None = None
        self.game = None
        self.agents: list[str] = []
        self.last_event = ""
        self.recent_events: deque[str] = deque(maxlen=RECENT_EVENTS)
        self._window: frames.Window | None = None

    # -- PettingZoo API ------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self.game = self._engine.new_game(self.rules, rng=self._rng)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._new_game()
        self.agent_selection = self.possible_agents[self.game.current]
        self.recent_events.clear()
        self._note("new game")
        if self.render_mode == "human":
            self.render()

    def state(self) -> np.ndarray:
        return self.state_layout.build(self.game)

    def last(self, observe: bool = True):
        if not self.agents:
            raise self.no_game_error()
        return super().last(observe)

    def step(self, action) -> None:
        if not self.agents:
            raise self.no_game_error()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        eng = self._engine
        try:
            eng.apply(g, action)
        except eng.IllegalActionError as e:
            raise self._refusal(agent, str(e)) from None
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for a in rewards:
            rewards[a] = 0.0
        if self.render_mode is not None:
            self._note(f"{agent}: {self.table.name(int(action))}")
        part_over = self._part_over
        if g.phase < part_over:
            # The usual step: the rewards stay zero and nobody's episode ends, so there is
            # nothing to accumulate and no finished agent to bring forward.
            self.agent_selection = self.possible_agents[g.current]
        else:
            self._end_of_part()
            if g.phase < part_over:
                self.agent_selection = self.possible_agents[g.current]
            self._accumulate_rewards()
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the table as text; ``"rgb_array"``: the table as an ``(H, W, 3)``
        ``uint8`` frame (:func:`yaniv_env.core.frames.draw_table`); ``"human"``: that
        frame shown in a window. The hands shown follow ``reveal``."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'"
            )
            return None
        if self.render_mode == "ansi":
            return self._render_text()
        frame = frames.draw_table(self._table_view())
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            self._window = frames.Window(self.metadata["name"], self.metadata["render_fps"])
        self._window.show(frame)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    # -- helpers -------------------------------------------------------------------------
    def no_game_error(self) -> ResetNeededError:
        """The error for ``step()`` or ``last()`` with no game in play."""
        if self.game is None:
            return ResetNeededError("no game yet: call reset() before step() or last()")
        return ResetNeededError("the game is over (every agent has left): call reset() to start a new game")

    def action_error(self, agent: str, action) -> ValueError:
        """The ``ValueError`` for ``action``, which is not in the action space, played by
        ``agent``: what is wrong with it and the legal actions (as :meth:`step` says)."""
        try:
            self.table.check_id(action)
            reason = f"action {action!r} is not in the action space"
        except ValueError as e:
            reason = str(e)
        return self._refusal(agent, reason)

    def _refusal(self, agent: str, reason: str) -> ValueError:
        legal = ", ".join(f"{a} ({self.table.name(a)})" for a in self._engine.legal_actions(self.game))
        return ValueError(f"{agent}: {reason}. Legal actions: {legal}")

    def decode(self, action: int):
        """What an action id means (the game's ``actions.Decoded``)."""
        return self.table.decode(action)

    def action_name(self, action: int) -> str:
        """The action id in words (``"discard 7♥ 7♠"``, ``"play J♠ naming ♣"``, ``"draw"``...)."""
        return self.table.name(action)

    def legal_actions(self) -> list[int]:
        """Legal ids for ``agent_selection``."""
        return self._engine.legal_actions(self.game)

    def _in_play(self, agent: str) -> bool:
        """Whether ``agent`` is still in the game: neither terminated nor truncated, nor gone
        (an agent that has left is in no dict; :meth:`observe` answers for it all the same,
        with no legal move)."""
        return not (self.terminations.get(agent, True) or self.truncations.get(agent, True))

    # -- what each game fills in ---------------------------------------------------------
    def _new_game(self) -> None:
        """Called by :meth:`reset` once the new game is dealt."""

    def _note(self, event: str) -> None:
        """``event`` (in words) is what just happened: the text render's ``last:`` line and
        the newest of the moves the frames list."""
        self.last_event = event
        self.recent_events.append(event)

    def _render_text(self) -> str:
        """The table as text, hands shown as ``reveal`` says."""
        raise NotImplementedError

    def _table_view(self) -> TableView:
        """The table for a frame, hands shown as ``reveal`` says."""
        raise NotImplementedError

    def _end_of_part(self) -> None:
        """The round (deal) just ended: hand out its rewards and infos, end the episode or
        start the next one."""
        raise NotImplementedError


__all__ = [
    "RENDER_FPS",
    "RENDER_MODES",
    "CardGameEnv",
    "CheckedOrderEnforcingWrapper",
    "FastDiscrete",
    "ResetNeededError",
    "wrap",
]
