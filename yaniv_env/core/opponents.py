"""Opponents drawn per episode: a weighted mix of baselines and a self-play pool.

:func:`draw_opponents` is the draw of both places that seat opponents per episode, the
Gymnasium wrapper of training (:class:`training.league.OpponentSampler`) and the batched
learner games (:class:`yaniv_env.yaniv.batched.envs.LearnerGames`), so that the two draw
from the same distribution (and, from generators in the same state, the same opponents).
The Gymnasium wrapper (:class:`yaniv_env.core.gym.CardGameGymEnv`) and the batched learner
games also seed their opponents alike (:func:`opponent_seed`), and redeal an episode that the
opponents end before the learner's first decision at most :data:`MAX_REDEALS` times.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Deals tried per reset before giving up, when the opponents keep ending the episode before
#: the learner's first decision.
MAX_REDEALS = 100


def opponent_seed(seed: int, seat_index: int) -> int:
    """The seed of the opponent in the ``seat_index``-th other seat (0-based, in seat order)
    of an episode reset with ``seed``."""
    return seed * 1000 + seat_index + 1


def draw_opponents(
    rng: np.random.Generator,
    seats: int,
    weights: np.ndarray | None,
    pool: Sequence[Any],
    pool_probability: float,
    fixed: Sequence[int] = (),
) -> list:
    """The opponents of a new episode's ``seats`` other seats, in seat order: each, with
    probability ``pool_probability`` when ``pool`` is not empty, a member of ``pool`` drawn
    uniformly; else the index of a baseline drawn by ``weights`` (which sum to 1), or with
    ``weights=None`` the seat's own ``fixed[j]`` (no draw)."""
    out = []
    for j in range(seats):
        if len(pool) and rng.random() < pool_probability:
            out.append(pool[int(rng.integers(len(pool)))])
        elif weights is not None:
            out.append(int(rng.choice(len(weights), p=weights)))
        else:
            out.append(fixed[j])
    return out


__all__ = ["MAX_REDEALS", "draw_opponents", "opponent_seed"]
