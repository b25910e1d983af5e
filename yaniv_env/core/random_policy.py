"""The uniform random policy, the environments' default opponent (of every game).

It belongs to the core so that an environment built with default arguments needs no other
package; :mod:`yaniv_env.core.policies` registers it as ``"random"``, and
:mod:`yaniv_env.core.batched_random` is its batched version (the same moves on a batch).
"""

from __future__ import annotations

import numpy as np

from .streams import agent_key, below, decision_words

__all__ = ["RandomPolicy"]


class RandomPolicy:
    """Uniform over the legal actions: the ``i``-th legal action with ``i = below(word, n)``,
    ``word`` the policy's per-decision word for the observation (:mod:`yaniv_env.core.streams`),
    so :class:`yaniv_env.core.batched_random.BatchedRandomPolicy` makes the same moves on a
    batch."""

    name = "random"

    def __init__(self, seed: int | None = None, rules=None, num_players: int | None = None):
        # rules and players do not change uniform play; accepted like every agent's
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.key = agent_key(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("the action mask allows no action")
        return int(legal[int(below(decision_words(self.key, observation)[0], legal.size))])
