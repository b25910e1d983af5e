"""The single-agent Gymnasium wrapper both games share: the learner takes one seat,
opponents (policies) play the others.

Opponents are stepped inside :meth:`CardGameGymEnv.step`, so the observation, reward and
termination returned always belong to the learner. ``opponents`` is a list (one entry per
other seat, or one entry reused for all) of policies: objects with
``act(observation, action_mask)``, callables ``f(observation, action_mask) -> int``, or
names of the policy registry (:mod:`yaniv_env.core.policies`, filled by ``agents``);
the default is the game's ``default_opponent``. :meth:`~CardGameGymEnv.set_opponents`
changes them between episodes (from the next reset on); :attr:`~CardGameGymEnv.opponents`
reads them. ``learner_seat`` is a seat number or ``"random"`` (drawn per episode from the
environment's generator).

Instead of fixed seats, ``opponent_mix=[(spec, weight), ...]`` draws each other seat's
opponent for every episode, by weight, from the environment's generator (a name is made
once per seat, so that each seat has its own agent; an object plays at every seat where it
is drawn). :meth:`~CardGameGymEnv.set_pool` adds a replaceable self-play pool: from the next
episodes on, each other seat is, with a given probability, a pool member drawn uniformly,
else an opponent as before. The draw is :func:`yaniv_env.core.opponents.draw_opponents`,
made as the batched learner games make it (:class:`yaniv_env.yaniv.batched.envs.LearnerGames`:
the seat, then the opponents, then the deal, from the generator seeded by ``reset(seed)``).
``info["opponent"]`` names the episode's opponents (``"+"``-joined in seat order; a pool
member is ``"pool"``), as ``yaniv train`` logs them.

A game's wrapper is a subclass that sets ``aec_class`` (the AEC environment it drives;
other keyword arguments go to its constructor) and ``default_opponent``.

The legal-action mask is :meth:`~CardGameGymEnv.action_masks` (for sb3-contrib's
MaskablePPO) and ``info["action_mask"]``. The reward is the learner's AEC reward summed
over everything that happened since its previous decision.

An illegal action (an id of the action space that the mask forbids, only possible without
the mask) ends the episode with ``illegal_reward`` (default -1) and
``info["illegal_action"] = True``, as PettingZoo's ``TerminateIllegalWrapper`` does, so
that unmasked algorithms and the environment checkers can run; ``illegal_action="raise"``
raises ``ValueError`` instead. Something that is not an id of the action space (out of
range, a float, ``None``...) is a programming error: ``ValueError`` naming it and the
valid range, whatever ``illegal_action`` says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .aec import RENDER_FPS, RENDER_MODES
from .ids import is_int
from .opponents import MAX_REDEALS, draw_opponents, mix_weights, opponent_label, pool_probability, seat_specs
from .policies import Policy, as_policy
from .seeding import opponent_seed

OpponentSpec = Any  # a registered name, a Policy, or a callable (observation, mask) -> int


class CardGameGymEnv(gymnasium.Env):
    metadata = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}

    #: The AEC environment class the wrapper drives.
    aec_class: type
    #: The opponent at every other seat when ``opponents`` is not given.
    default_opponent: OpponentSpec = "random"

    def __init__(
        self,
        rules="standard",
        num_players: int = 2,
        opponents: Sequence[OpponentSpec] | OpponentSpec | None = None,
        opponent_mix: Sequence[tuple[OpponentSpec, float]] | None = None,
        learner_seat: int | str = 0,
        episode: str = "game",
        reward: str = "score_outcome",
        turn_limit: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **env_kwargs,
    ):
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.aec = self.aec_class(
            rules=rules,
            num_players=num_players,
            episode=episode,
            reward=reward,
            turn_limit=turn_limit,
            render_mode=render_mode,
            **env_kwargs,
        )
        self.rules = self.aec.rules
        n = self.rules.num_players
        if learner_seat != "random" and not (type(learner_seat) is int and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be 'random' or a seat 0..{n - 1}, got {learner_seat!r}")
        self.learner_seat = learner_seat
        if opponent_mix is not None:
            specs, weights = mix_weights(opponent_mix, opponents)
            labels = [opponent_label(spec) for spec in specs]
            self._next_table = self._seat_table(specs), [labels] * (n - 1), weights
        else:
            self.set_opponents(self.default_opponent if opponents is None else opponents)
        self._table, self._labels, self._weights = self._next_table
        # before the first reset: the fixed opponents (none with a mix)
        self._opponents = [candidates[0] for candidates in self._table] if self._weights is None else []
        self._opponent_label = ""
        self._pool: list[Policy] = []
        self._pool_label = "pool"
        self.pool_probability = 0.0
        self.observation_space = self.aec.observation_spaces["player_0"]["observation"]
        self.action_space = spaces.Discrete(self.aec.table.num_actions)
        self.render_mode = render_mode
        self._seat = 0
        self._done = True
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)

    @property
    def opponents(self) -> list[Policy]:
        """The policies at the other seats in the current episode (a copy), in seat order
        after the learner's."""
        return list(self._opponents)

    def set_opponents(self, opponents: Sequence[OpponentSpec] | OpponentSpec) -> None:
        """Seat other opponents from the next :meth:`reset` on (in place of an
        ``opponent_mix``): one spec per other seat, or one spec for all (policy objects,
        callables or registered names, which are made with this environment's rules).
        ``ValueError`` for a wrong count or an unknown name or something that is not a
        policy; nothing changes then."""
        opponents = seat_specs(opponents, self.rules.num_players - 1)
        policies = [as_policy(o, None, self.rules) for o in opponents]
        self._next_table = [[p] for p in policies], [[opponent_label(o)] for o in opponents], None

    def _seat_table(self, specs: Sequence[OpponentSpec]) -> list[list[Policy]]:
        """The candidates of each other seat for a mix of ``specs``: names made once per seat
        (each seat its own agent), objects shared."""
        rules = self.rules
        first = [as_policy(spec, None, rules) for spec in specs]  # refuses a bad spec before the others

        def seat() -> list[Policy]:
            return [as_policy(s, None, rules) if isinstance(s, str) else p for s, p in zip(specs, first, strict=True)]

        return [first] + [seat() for _ in range(rules.num_players - 2)]

    def set_pool(self, policies: Sequence[OpponentSpec], probability: float, label: str = "pool") -> int:
        """Replace the self-play pool by ``policies`` (policy objects, callables or registered
        names, as :meth:`set_opponents` takes them) and the probability that an other seat is
        drawn from it. From the next :meth:`reset` on, each other seat is, with probability
        ``probability`` when the pool is not empty, a pool member drawn uniformly (named
        ``label`` in ``info["opponent"]``), else an opponent of the mix (or its fixed one).
        The episode under way keeps its opponents. The members keep their own generators
        (``reset(seed)`` reseeds the mix's and the fixed opponents only). Returns the pool's
        size. :meth:`yaniv_env.yaniv.batched.envs.LearnerGames.set_pool` is the same for a
        batch of games."""
        probability = pool_probability(probability)
        self._pool = [as_policy(p, None, self.rules) for p in policies]
        self._pool_label = label
        self.pool_probability = probability
        return len(self._pool)

    @property
    def pool(self) -> list[Policy]:
        """The self-play pool's members (:meth:`set_pool`; a copy)."""
        return list(self._pool)

    def _draw_opponents(self) -> None:
        """This episode's opponents and their label, drawn from the environment's generator."""
        seats = self.rules.num_players - 1
        k = len(self._table[0])  # the candidates of a seat; the pool's members are drawn as k + m
        members = range(k, k + len(self._pool))
        drawn = draw_opponents(self.np_random, seats, self._weights, members, self.pool_probability, [0] * seats)
        self._opponents = [self._table[s][c] if c < k else self._pool[c - k] for s, c in enumerate(drawn)]
        labels = [self._labels[s][c] if c < k else self._pool_label for s, c in enumerate(drawn)]
        self._opponent_label = "+".join(labels)

    @property
    def seat(self) -> int:
        """The learner's seat in the current episode."""
        return self._seat

    def action_masks(self) -> np.ndarray:
        """The learner's legal-action mask (``bool``), for MaskablePPO."""
        return self._mask.astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode with the opponents last set (with a mix or a pool: drawn from this
        environment's generator, after the learner's seat). The AEC game is seeded from this
        environment's generator. If the opponents finish the episode before the learner's
        first decision (a round called at once in a ``"round"`` episode), the learner had
        nothing to decide: a new deal is played instead. Rewards the learner earns before
        its first decision are added to the reward of its first step."""
        super().reset(seed=seed)
        aec = self.aec
        n = self.rules.num_players
        self._table, self._labels, self._weights = self._next_table
        self._seat = int(self.np_random.integers(n)) if self.learner_seat == "random" else self.learner_seat
        self._draw_opponents()
        if seed is not None:
            for i, candidates in enumerate(self._table):
                for opp in candidates:
                    if hasattr(opp, "reset"):
                        opp.reset(seed=opponent_seed(seed, i))
        others = [p for p in range(n) if p != self._seat]
        self._seat_policies = {aec.possible_agents[p]: opp for p, opp in zip(others, self._opponents, strict=True)}
        self._learner = aec.possible_agents[self._seat]
        for _ in range(MAX_REDEALS):
            aec.reset(seed=int(self.np_random.integers(2**63)))
            self._carry, _, _ = self._play_opponents()
            if not self._done:
                return self._observe(), self._info()
        raise RuntimeError(f"the opponents ended {MAX_REDEALS} episodes in a row before the learner's first decision")

    def step(self, action):
        aec = self.aec
        if self._done or aec.agent_selection != self._learner:
            raise RuntimeError("step() called after the episode ended; call reset()")
        action = self._action_id(action)
        if not self._mask[action]:
            if self.illegal_action == "raise":
                aec.step(action)  # raises ValueError naming the action and the legal ones
            self._done = True
            obs = self._observe()
            return obs, self.illegal_reward, True, False, {**self._info(), "illegal_action": True}
        aec.step(action)
        reward = aec.rewards.get(self._learner, 0.0) + self._carry
        self._carry = 0.0
        more, terminated, truncated = self._play_opponents()
        obs = self._observe()
        return obs, float(reward + more), terminated, truncated, self._info()

    def _action_id(self, action) -> int:
        """``action`` as an ``int`` id of the action space (NumPy integers and 0-d integer
        arrays are accepted); ``ValueError`` for anything else: a programming error, not a
        move."""
        if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
            action = action.item()
        n = self._mask.size
        if not is_int(action) or not 0 <= action < n:
            raise ValueError(f"action {action!r} is not an action id: the ids are the ints 0..{n - 1}")
        return int(action)

    def _play_opponents(self) -> tuple[float, bool, bool]:
        """Step other seats until the learner must act or its episode is over."""
        aec = self.aec
        learner = self._learner
        reward = 0.0
        while True:
            if aec.terminations.get(learner, True) or aec.truncations.get(learner, False):
                self._done = True
                return reward, bool(aec.terminations.get(learner, True)), bool(aec.truncations.get(learner, False))
            agent = aec.agent_selection
            if agent == learner:
                self._done = False
                return reward, False, False
            if aec.terminations[agent] or aec.truncations[agent]:
                aec.step(None)
            else:
                o = aec.observe(agent)
                aec.step(int(self._seat_policies[agent].act(o["observation"], o["action_mask"])))
            reward += aec.rewards.get(learner, 0.0)

    def _observe(self) -> np.ndarray:
        o = self.aec.observe(self._learner)
        self._mask = o["action_mask"]
        return o["observation"]

    def _info(self) -> dict:
        # The learner's AEC info (the last finished round's result) plus mask and seat.
        info = self.aec.infos.get(self._learner, {})
        return {**info, "action_mask": self._mask, "seat": self._seat, "opponent": self._opponent_label}

    def render(self):
        """The AEC environment's render (text, frame or window; see ``render_mode`` and the
        AEC environment's ``reveal``, whose default ``"current"`` shows the learner's hand
        whenever the learner is to act)."""
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


__all__ = ["CardGameGymEnv", "OpponentSpec"]
