"""Single-agent Gymnasium wrapper for Pis Yedili: the learner takes one seat, opponents the others.

.. code-block:: python

    import gymnasium, yaniv_env
    env = gymnasium.make("yaniv_env/PisYedili-v0", num_players=3, opponents=["pis_heuristic"])
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().argmax())

It is the Yaniv wrapper (:class:`yaniv_env.gym_env.YanivGymEnv`: same behaviour, same
arguments) around :class:`yaniv_env.pis_yedili.pis_aec.raw_env`. Opponents are stepped inside
:meth:`step`, so the observation, reward and termination returned belong to the learner.
``opponents`` is a list (one entry per other seat, or one entry reused for all) of agent
names for ``agents.make`` (``"pis_heuristic"``, ``"pis_random"``; ``"random"`` is the same
agent), agent objects with ``act(observation, action_mask)``, or callables
``f(observation, action_mask) -> int``; the default is the uniform random agent.
``learner_seat`` is a seat number or ``"random"`` (drawn per episode from the environment's
generator).

The observation is the flat vector of the AEC environment
(:mod:`yaniv_env.pis_yedili.observation`); the legal-action mask is :meth:`action_masks`
(for sb3-contrib's MaskablePPO) and ``info["action_mask"]``. The reward is the learner's
AEC reward summed over everything that happened since its previous decision.

An illegal action (only possible without the mask) ends the episode with
``illegal_reward`` (default -1) and ``info["illegal_action"] = True``;
``illegal_action="raise"`` raises ``ValueError`` instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium import spaces

from ..gym_env import OpponentSpec, YanivGymEnv, _as_policy
from .pis_aec import raw_env


class PisYediliGymEnv(YanivGymEnv):
    """The Yaniv single-agent wrapper around the Pis Yedili AEC environment (only the
    construction differs; ``reset``, ``step``, ``action_masks`` and ``render`` are inherited)."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

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
        reveal: bool | int | str = "current",
    ):
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.aec = raw_env(
            rules=rules,
            num_players=num_players,
            episode=episode,
            reward=reward,
            turn_limit=turn_limit,
            render_mode=render_mode,
            reveal=reveal,
        )
        self.rules = self.aec.rules
        n = self.rules.num_players
        if learner_seat != "random" and not (type(learner_seat) is int and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be 'random' or a seat 0..{n - 1}, got {learner_seat!r}")
        self.learner_seat = learner_seat
        if opponents is None:
            opponents = ["pis_random"]
        if isinstance(opponents, str) or hasattr(opponents, "act") or callable(opponents):
            opponents = [opponents]
        opponents = list(opponents)
        if len(opponents) == 1:
            opponents = opponents * (n - 1)
        if len(opponents) != n - 1:
            raise ValueError(f"opponents: {len(opponents)} given for {n - 1} other seats")
        self._opponent_specs = opponents
        self.opponents = [_as_policy(o, None, self.rules) for o in opponents]
        self.observation_space = self.aec.observation_spaces["player_0"]["observation"]
        self.action_space = spaces.Discrete(self.aec.table.num_actions)
        self.render_mode = render_mode
        self._seat = 0
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)


__all__ = ["PisYediliGymEnv"]
