"""Single-agent Gymnasium wrapper: the learner takes one seat, opponents play the others.

.. code-block:: python

    import gymnasium, yaniv_env
    env = gymnasium.make("yaniv_env/Yaniv-v0", rules="standard", num_players=2,
                         opponents=["heuristic"])
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().argmax())

Opponents are stepped inside :meth:`step`, so the observation, reward and termination
returned always belong to the learner. ``opponents`` is a list (one entry per other seat,
or one entry reused for all) of agent names for ``agents.make``, agent objects with
``act(observation, action_mask)``, or callables ``f(observation, action_mask) -> int``;
the default is the uniform random agent. ``learner_seat`` is a seat number or
``"random"`` (drawn per episode from the environment's generator).

The wrapper drives the AEC environment class in :attr:`YanivGymEnv.aec_class`; other
keyword arguments are passed to its constructor. A game's wrapper is a subclass that sets
``aec_class`` and ``default_opponent`` (:class:`yaniv_env.pis_yedili.gym_env.PisYediliGymEnv`).

The observation is the flat vector of the AEC environment (``yaniv_env.observation``);
the legal-action mask is :meth:`action_masks` (for sb3-contrib's MaskablePPO) and
``info["action_mask"]``. The reward is the learner's AEC reward summed over everything
that happened since its previous decision.

An illegal action (only possible without the mask) ends the episode with
``illegal_reward`` (default -1) and ``info["illegal_action"] = True``, as PettingZoo's
``TerminateIllegalWrapper`` does, so that unmasked algorithms and the environment
checkers can run; ``illegal_action="raise"`` raises ``ValueError`` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .yaniv_aec import raw_env

OpponentSpec = Any  # a name, a Policy, or a callable (observation, mask) -> int


def as_policy(spec: OpponentSpec, seed: int | None, rules) -> Callable[[np.ndarray, np.ndarray], int]:
    """An opponent spec as an object with ``act(observation, action_mask)``: a name is made
    with ``agents.make(name, seed=seed, rules=rules)``, an object with ``act`` is kept, a
    callable is wrapped."""
    if isinstance(spec, str):
        import agents

        spec = agents.make(spec, seed=seed, rules=rules)
    if hasattr(spec, "act"):
        return spec
    if callable(spec):
        return _CallablePolicy(spec)
    raise ValueError(f"an opponent must be an agent name, an object with act(), or a callable; got {spec!r}")


class _CallablePolicy:
    def __init__(self, fn):
        self.fn = fn

    def act(self, observation, action_mask) -> int:
        return self.fn(observation, action_mask)


class YanivGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    #: The AEC environment class the wrapper drives.
    aec_class = raw_env
    #: The opponent at every other seat when ``opponents`` is not given.
    default_opponent: OpponentSpec = "random"

    def __init__(
        self,
        rules="standard",
        num_players: int = 2,
        opponents: Sequence[OpponentSpec] | OpponentSpec | None = None,
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
        if opponents is None:
            opponents = [self.default_opponent]
        if isinstance(opponents, str) or hasattr(opponents, "act") or callable(opponents):
            opponents = [opponents]
        opponents = list(opponents)
        if len(opponents) == 1:
            opponents = opponents * (n - 1)
        if len(opponents) != n - 1:
            raise ValueError(f"opponents: {len(opponents)} given for {n - 1} other seats")
        self._opponent_specs = opponents
        self.opponents = [as_policy(o, None, self.rules) for o in opponents]
        self.observation_space = self.aec.observation_spaces["player_0"]["observation"]
        self.action_space = spaces.Discrete(self.aec.table.num_actions)
        self.render_mode = render_mode
        self._seat = 0
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)

    @property
    def seat(self) -> int:
        """The learner's seat in the current episode."""
        return self._seat

    def action_masks(self) -> np.ndarray:
        """The learner's legal-action mask (``bool``), for MaskablePPO."""
        return self._mask.astype(bool)

    #: Deals tried at reset before giving up (see :meth:`reset`).
    MAX_REDEALS = 100

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode. The AEC game is seeded from this environment's generator. If
        the opponents finish the episode before the learner's first decision (a round
        called at once in a ``"round"`` episode), the learner had nothing to decide:
        a new deal is played instead. Rewards the learner earns before its first
        decision are added to the reward of its first step."""
        super().reset(seed=seed)
        aec = self.aec
        n = self.rules.num_players
        self._seat = int(self.np_random.integers(n)) if self.learner_seat == "random" else self.learner_seat
        if seed is not None:
            for i, opp in enumerate(self.opponents):
                if hasattr(opp, "reset"):
                    opp.reset(seed=seed * 1000 + i + 1)
        others = [p for p in range(n) if p != self._seat]
        self._seat_policies = {aec.possible_agents[p]: opp for p, opp in zip(others, self.opponents, strict=True)}
        self._learner = aec.possible_agents[self._seat]
        for _ in range(self.MAX_REDEALS):
            aec.reset(seed=int(self.np_random.integers(2**63)))
            self._carry, _, _ = self._play_opponents()
            if not self._done:
                return self._observe(), self._info()
        raise RuntimeError(
            f"the opponents ended {self.MAX_REDEALS} episodes in a row before the learner's first decision"
        )

    def step(self, action):
        aec = self.aec
        if aec.agent_selection != self._learner or self._done:
            raise RuntimeError("step() called after the episode ended; call reset()")
        if not (0 <= int(action) < self._mask.size and self._mask[int(action)]):
            if self.illegal_action == "raise":
                aec.step(int(action))  # raises ValueError naming the action and the legal ones
            self._done = True
            obs = self._observe()
            return obs, self.illegal_reward, True, False, {**self._info(), "illegal_action": True}
        aec.step(int(action))
        reward = aec.rewards.get(self._learner, 0.0) + self._carry
        self._carry = 0.0
        more, terminated, truncated = self._play_opponents()
        obs = self._observe()
        return obs, float(reward + more), terminated, truncated, self._info()

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
        return {**self.aec.infos.get(self._learner, {}), "action_mask": self._mask, "seat": self._seat}

    def render(self):
        return self.aec.render()
