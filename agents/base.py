"""The policy protocol every agent follows."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from .streams import agent_key, below, decision_words


@runtime_checkable
class Policy(Protocol):
    """An agent: picks a legal action from an observation vector and its action mask.

    ``observation`` is the flat vector of :mod:`yaniv_env.observation` (from the acting
    seat); ``action_mask`` is the int8 legal-action mask. ``reset(seed)`` reseeds the
    agent's own generator (optional).
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


class RandomAgent:
    """Uniform over the legal actions: the ``i``-th legal action with ``i = below(word, n)``,
    ``word`` the agent's per-decision word for the observation (:mod:`agents.streams`), so
    :class:`agents.batched.BatchedRandom` makes the same moves on a batch."""

    name = "random"

    def __init__(self, seed: int | None = None, **_: object):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.key = agent_key(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("the action mask allows no action")
        return int(legal[int(below(decision_words(self.key, observation)[0], legal.size))])
