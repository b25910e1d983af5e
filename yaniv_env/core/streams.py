"""Per-decision random words of the agents that draw (``random``, ``greedy``'s ties).

An agent's random choice is a pure function of its *key* and of the observation it acts
on: ``word = decision_words(key, observation)`` hashes the observation's bytes with the
key (SplitMix64 steps, :mod:`yaniv_env.core.seeding`), and the choice among ``n`` options
is ``below(word, n)``. The same agent key and the same observation give the same move
whatever the order in which positions are met, so a scalar agent (one observation) and
its batched version (:mod:`agents.batched`, a batch of observations, one key per row)
make exactly the same decisions, and a game replays from its seeds alone.

``agent_key(seed)`` turns an agent's seed into its key (``None``: fresh entropy).
"""

from __future__ import annotations

import numpy as np

from yaniv_env.core.seeding import GOLDEN, below, mix64_words
from yaniv_env.core.seeding import seeded_key as agent_key

__all__ = ["agent_key", "decision_words", "below"]


_position_cache: dict[int, np.ndarray] = {}


def _positions(size: int) -> np.ndarray:
    steps = _position_cache.get(size)
    if steps is None:
        steps = _position_cache[size] = np.uint64(GOLDEN) * np.arange(1, size + 1, dtype=np.uint64)
    return steps


def decision_words(keys, observations: np.ndarray) -> np.ndarray:
    """One 64-bit word per observation: ``mix(key ^ Σ_j mix(bits_j + GOLDEN·(j+1)))``, the
    sum wrapping mod 2**64 over the observation's float32 bits taken two at a time.

    ``observations``: one vector ``[S]`` or a batch ``[B, S]`` (converted to float32);
    ``keys``: one key or one per row. Returns ``uint64`` of shape ``[B]`` (``[1]`` for one
    vector)."""
    obs = np.ascontiguousarray(np.atleast_2d(np.asarray(observations, dtype=np.float32)))
    if obs.shape[1] % 2:
        obs = np.concatenate([obs, np.zeros((obs.shape[0], 1), np.float32)], axis=1)
    bits = obs.view(np.uint64)  # two float32 per word
    z = mix64_words(bits + _positions(bits.shape[1]))
    with np.errstate(over="ignore"):
        total = z.sum(axis=1, dtype=np.uint64)
    return mix64_words(total ^ np.asarray(keys, dtype=np.uint64))
