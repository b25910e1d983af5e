"""The random policy on a batch (Numba), and the compiled random words it and the batched
engine draw from: ``mix64`` and ``below`` of :mod:`yaniv_env.core.seeding` over uint64,
and the legal move a word picks.

Needs Numba (the ``[vector]`` extra); :func:`yaniv_env.core.policies.batched_policy`
imports it on first use.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .batches import as_batch
from .streams import agent_key, decision_words

__all__ = [
    "BatchedRandomPolicy",
    "batched_random",
    "below",
    "mix64",
    "pick_legal",
    "row_keys",
]

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


@njit(cache=True, inline="always")
def mix64(z):
    """``seeding.mix64`` (``z`` a uint64)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def below(word, n):
    """``seeding.below``: a number in ``[0, n)`` from a word."""
    return np.int64(((word >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True)
def pick_legal(masks, words, out):
    """``out[b]``: the ``below(words[b], n)``-th of the ``n`` legal ids of row ``b`` (-1 if
    none): a uniform legal move from a random word."""
    for b in range(masks.shape[0]):
        n = 0
        for a in range(masks.shape[1]):
            n += masks[b, a]
        out[b] = -1
        if n == 0:
            continue
        pick = below(words[b], n)
        for a in range(masks.shape[1]):
            if masks[b, a]:
                if pick == 0:
                    out[b] = a
                    break
                pick -= 1


def row_keys(keys, own_key: int, size: int) -> np.ndarray:
    """One agent key per row: ``keys`` (one, or one per row), else ``own_key`` on every row."""
    if keys is None:
        return np.full(size, own_key, dtype=np.uint64)
    k = np.asarray(keys, dtype=np.uint64)
    return np.broadcast_to(k, (size,)) if k.ndim == 0 else k


class BatchedRandomPolicy:
    """:class:`yaniv_env.core.random_policy.RandomPolicy` on a batch: the ``below(word, n)``-th
    legal action (``keys``: one agent key per row, each row deciding as a scalar policy with
    that key; without them every row uses this policy's own key)."""

    name = "random"

    def __init__(self, seed: int | None = None, **_: object):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.key = agent_key(seed)

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        obs, m = as_batch(observations, masks)
        out = np.empty(len(obs), dtype=np.int64)
        words = decision_words(row_keys(keys, self.key, len(obs)), obs) if len(obs) else np.empty(0, np.uint64)
        pick_legal(m, words, out)
        return out


def batched_random(spec, seed: int | None = None) -> BatchedRandomPolicy:
    """The batched version of ``spec``: ``"random"`` (seeded ``seed``) or a
    :class:`~yaniv_env.core.random_policy.RandomPolicy` (its key: the same moves)."""
    from .random_policy import RandomPolicy

    if isinstance(spec, RandomPolicy):
        out = BatchedRandomPolicy()
        out.key = spec.key
        return out
    if spec != "random":
        raise ValueError(f"not the random policy: {spec!r}")
    return BatchedRandomPolicy(seed)
