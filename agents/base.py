"""The policy protocol every agent follows (:class:`yaniv_env.core.policies.Policy`), and
the uniform random agent."""

from __future__ import annotations

import numpy as np

from yaniv_env.core.policies import Policy

__all__ = ["Policy", "RandomAgent"]


class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None, **_: object):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("the action mask allows no action")
        return int(legal[self.rng.integers(legal.size)])
