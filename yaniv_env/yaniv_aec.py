"""Yaniv as a PettingZoo AEC environment.

.. code-block:: python

    import yaniv_env

    env = yaniv_env.env(rules="standard", num_players=3, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

==================  ===================================================================
Import              ``yaniv_env.env(...)`` (with PettingZoo's standard wrappers) or
                    ``yaniv_env.raw_env(...)``; registered as ``yaniv_env/Yaniv-v0`` in
                    PettingZoo's AEC registry
Agents              ``player_0 … player_{n-1}``
Action space        ``Discrete(N)``, ``N`` derived from the rules (1543 for ``standard``)
Observation space   ``Dict(observation=Box(S,), action_mask=Box(N,) int8)``
State               ``Box(...)``: every hand, the stock and all public values
==================  ===================================================================

Arguments
---------
``rules``       a preset name from ``yaniv_env.PRESETS`` (``standard``, the default;
                ``seven``; ``french``; ``two_deck``) or a :class:`yaniv_env.Rules`.
``num_players`` players (default 2); a count the rules do not allow raises ``ValueError``.
``episode``     ``"game"`` (default): a whole game with cumulative scores, milestones and
                elimination; ``"round"``: one round.
``reward``      the reward scheme, see below (default ``"score_outcome"``).
``turn_limit``  turns in a round before it ends as a draw (default: the rules' 400).
``render_mode`` ``None``, ``"ansi"`` (``render()`` returns the table) or ``"human"``
                (prints it).

Turns and actions
-----------------
A Yaniv turn is split into successive decisions of the same player: *discard* (lay a
card or set, or call Yaniv), *draw* (from the stock or one card of the previous
discard), then, when the rules offer them, *slam* (slam the drawn card down or pass).
Out-of-turn decisions go to the player who may take them: *asaf* (001: each other player,
from the caller's left, may declare Asaf or pass) and *blast* (001: the player holding the
cards that complete the discard into four of a kind may Blast or pass).
``agent_selection`` is always the player who decides next.

Action ids (``yaniv_env.actions``; the same ids mean the same move whatever the hand)::

    0 draw from stock   1 call Yaniv   2 slam   3 declare Asaf   4 Blast   5 pass
    6 .. 58             take card kind k (6 + k) from the previous discard
    59 .. N-1           lay discard table entry (id - 59): every single card, every
                        same-rank set, every run with its joker placement, and where the
                        rules let the discarder order a set (000 top card, 004 ends),
                        one id per choice

``env.unwrapped.decode(a)`` and ``env.unwrapped.action_name(a)`` (``"discard 7♥ 7♠"``,
``"take 5♣"``, ``"draw from stock"``, ``"call Yaniv"``) explain any id.

Observation
-----------
``{"observation": float32 (S,), "action_mask": int8 (N,)}`` from the acting player's seat,
opponents in turn order. The mask is exactly the engine's legal moves (all zeros for an
agent that is not to act). The vector is built from named pieces; the index table is in
:mod:`yaniv_env.observation` and ``env.unwrapped.layout.table()`` prints the offsets;
``env.unwrapped.layout.split(obs)`` returns the pieces by name. ``state()`` is the full
information vector for centralised critics (:class:`yaniv_env.observation.StateLayout`).

Rewards
-------
Every player receives its reward when it is earned, whether or not it is acting:

``"score"``          at each round end, minus the change of the player's total divided by
                     100 (points taken are negative; a milestone that lowers the total is
                     positive).
``"outcome"``        at the end of the episode (or when the player is eliminated), its
                     place: ``(n - 1 - 2·place) / (n - 1)``, +1 for the winner, -1 for the
                     last (ties share the better place; in ``"round"`` episodes places go
                     by the points taken in the round).
``"round_win"``      +1 to each round winner.
``"score_outcome"``  (default) ``"score"`` plus ``"outcome"``: a dense signal for learning
                     that still ends on what decides a game.

``infos[agent]["round_result"]`` holds the last finished round
(:class:`yaniv_env.engine.RoundResult`). Eliminated players are terminated and leave
``agents`` after their last (``None``) step, the PettingZoo way. A round that hits
the turn limit (or a game that hits the rules' ``round_limit``) truncates.

Bad input
---------
``raw_env.step`` raises ``ValueError`` naming the illegal action and the legal ones, and
leaves the state untouched. ``env()`` adds PettingZoo's ``TerminateIllegalWrapper``
(an illegal move ends the game with reward -1 for the offender), ``AssertOutOfBounds``
and ``OrderEnforcing`` wrappers.

Version history
---------------
* ``Yaniv-v0`` (0.1.0): first release: four presets, AEC and Gymnasium interfaces.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import engine
from .engine import GAME_OVER, ROUND_OVER
from .observation import ObservationLayout, StateLayout
from .render import render_table, round_result_line
from .rules import RulesBase, get_rules

EPISODES = ("game", "round")
REWARD_SCHEMES = ("score", "outcome", "round_win", "score_outcome")
SCORE_SCALE = 100.0


def place_reward(place: int, players: int) -> float:
    """The outcome reward of finishing at ``place`` (0 = first) among ``players``:
    ``(n - 1 - 2·place) / (n - 1)``, +1 for the winner, -1 for the last."""
    return 1.0 if players < 2 else (players - 1 - 2 * place) / (players - 1)


class FastDiscrete(spaces.Discrete):
    """``gymnasium.spaces.Discrete`` whose :meth:`contains` answers a plain ``int``
    without NumPy calls (PettingZoo's ``AssertOutOfBoundsWrapper`` asks at every step);
    other values go to ``spaces.Discrete.contains``. The answers are the same."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._int_bounds = (int(self.start), int(self.start) + int(self.n))

    def contains(self, x) -> bool:
        if type(x) is int:
            low, high = self._int_bounds
            return low <= x < high
        return super().contains(x)


def wrap(raw: AECEnv) -> AECEnv:
    """PettingZoo's standard wrappers around a raw environment: an illegal move ends the
    game with reward -1 for the offender; actions out of the space assert; calls out of
    order raise."""
    e = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def env(**kwargs) -> AECEnv:
    """The Yaniv AEC environment with PettingZoo's standard wrappers."""
    return wrap(raw_env(**kwargs))


class CardGameEnv(AECEnv):
    """What the Yaniv and the Pis Yedili AEC environments share: the arguments and their
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
        self.rules = rules
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
        self.last_event = ""

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
        self.last_event = "new game"

    def state(self) -> np.ndarray:
        return self.state_layout.build(self.game)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        eng = self._engine
        try:
            eng.apply(g, action)
        except eng.IllegalActionError as e:
            legal = ", ".join(f"{a} ({self.table.name(a)})" for a in eng.legal_actions(g))
            raise ValueError(f"{agent}: {e}. Legal actions: {legal}") from None
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for a in rewards:
            rewards[a] = 0.0
        if self.render_mode is not None:
            self.last_event = f"{agent}: {self.table.name(int(action))}"
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

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = self._render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    # -- helpers -------------------------------------------------------------------------
    def decode(self, action: int):
        """What an action id means (the game's ``actions.Decoded``)."""
        return self.table.decode(action)

    def action_name(self, action: int) -> str:
        """The action id in words (``"discard 7♥ 7♠"``, ``"play J♠ naming ♣"``, ``"draw"``...)."""
        return self.table.name(action)

    def legal_actions(self) -> list[int]:
        """Legal ids for ``agent_selection``."""
        return self._engine.legal_actions(self.game)

    # -- what each game fills in ---------------------------------------------------------
    def _new_game(self) -> None:
        """Called by :meth:`reset` once the new game is dealt."""

    def _render_text(self) -> str:
        raise NotImplementedError

    def _end_of_part(self) -> None:
        """The round (deal) just ended: hand out its rewards and infos, end the episode or
        start the next one."""
        raise NotImplementedError


class raw_env(CardGameEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "yaniv_v0", "is_parallelizable": False, "render_fps": 1}
    _engine = engine
    _part_over = ROUND_OVER
    _get_rules = staticmethod(get_rules)
    episodes = EPISODES
    reward_schemes = REWARD_SCHEMES
    layout_class = ObservationLayout
    state_layout_class = StateLayout

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        g = self.game
        mask = np.zeros(self._num_actions, dtype=np.int8)
        if (
            g.current == seat
            and agent == self.agent_selection
            and not (self.terminations[agent] or self.truncations[agent])
        ):
            for a in engine.legal_actions(g):  # about three ids: faster one by one than by index array
                mask[a] = 1
        return {"observation": self.layout.build(g, seat), "action_mask": mask}

    def _new_game(self) -> None:
        self._round_start_scores = list(self.game.scores)

    def _render_text(self) -> str:
        return render_table(self.game, event=self.last_event)

    def _end_of_part(self) -> None:
        g = self.game
        rr = g.round_result
        scheme = self.reward_scheme
        n = g.num_players
        agents = self.possible_agents
        live = [p for p in range(n) if agents[p] in self.rewards]
        if scheme in ("score", "score_outcome"):
            for p in live:
                self.rewards[agents[p]] -= (g.scores[p] - self._round_start_scores[p]) / SCORE_SCALE
        if scheme == "round_win":
            for p in rr.winners:
                self.rewards[agents[p]] += 1.0
        game_over = g.phase == GAME_OVER
        episode_over = game_over or self.episode == "round"
        if scheme in ("outcome", "score_outcome"):
            if self.episode == "round":
                seats = [p for p in live if rr.hand_totals[p] is not None]
                points = {p: rr.points[p] for p in seats}
                for p in seats:
                    place = sum(1 for q in seats if points[q] < points[p])
                    self.rewards[agents[p]] += place_reward(place, len(seats))
            else:
                places = engine.ranking(g)
                ending = live if game_over else rr.eliminated
                for p in ending:
                    self.rewards[agents[p]] += place_reward(places[p], n)
        truncated = (self.episode == "round" and rr.truncated) or (game_over and g.game_truncated)
        scores = ", ".join(f"{agents[p]} {rr.scores[p]}" for p in range(n))
        event = f"round over: {round_result_line(rr)}; scores {scores}"
        for p in live:
            self.infos[agents[p]] = {"round_result": rr}
        if episode_over:
            for p in live:
                (self.truncations if truncated else self.terminations)[agents[p]] = True
            self.last_event = event + (" — game over" if game_over else "")
            return
        for p in rr.eliminated:
            self.terminations[agents[p]] = True
        engine.start_next_round(g)
        self._round_start_scores = list(g.scores)
        self.last_event = event
