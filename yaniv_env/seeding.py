"""The one place where the engines turn ``seed``/``rng`` arguments into a generator."""

from __future__ import annotations

import numpy as np


def generator(seed: int | None = None, rng: np.random.Generator | None = None) -> np.random.Generator:
    """``rng`` itself when given (so a caller's stream is shared, never copied), else a new
    generator seeded with ``seed``; anything else than a ``numpy.random.Generator`` is a
    ``ValueError``."""
    if rng is not None:
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return rng
    return np.random.default_rng(seed)
