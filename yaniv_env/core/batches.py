"""Batches of decisions: the observations and masks every batched policy reads, checked and
laid out once. NumPy only, so that a policy that decides in batches without compiled kernels
(a trained network) needs no Numba."""

from __future__ import annotations

import numpy as np


def as_batch(observations, masks) -> tuple[np.ndarray, np.ndarray]:
    """``observations [B, S]`` as float32 and ``masks [B, A]`` as bool, contiguous;
    ``ValueError`` for other shapes."""
    obs = np.ascontiguousarray(np.asarray(observations, dtype=np.float32))
    m = np.ascontiguousarray(np.asarray(masks).astype(np.bool_, copy=False))
    if obs.ndim != 2 or m.ndim != 2 or obs.shape[0] != m.shape[0]:
        raise ValueError(
            f"act_batch takes observations [B, S] and masks [B, A] with the same B; got {obs.shape} and {m.shape}"
        )
    return obs, m


__all__ = ["as_batch"]
