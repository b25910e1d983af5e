"""Opponents drawn per episode: a weighted mix of baselines and a self-play pool.

:func:`draw_opponents` is the draw of both places that seat opponents per episode, the
single-agent Gymnasium environments (:class:`yaniv_env.core.gym.CardGameGymEnv`) and the
batched learner games (:class:`yaniv_env.yaniv.batched.envs.LearnerGames`), so that the two
draw from the same distribution (and, from generators in the same state, the same
opponents); both read fixed opponents with :func:`seat_specs`, an ``opponent_mix`` with
:func:`mix_weights`, a pool's probability with :func:`pool_probability` and name what they
seat with :func:`opponent_label`. They
also seed their opponents alike (:func:`yaniv_env.core.seeding.opponent_seed`), and redeal an episode that the
opponents end before the learner's first decision at most :data:`MAX_REDEALS` times.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Deals tried per reset before giving up, when the opponents keep ending the episode before
#: the learner's first decision.
MAX_REDEALS = 100


def opponent_label(spec: Any) -> str:
    """What ``info["opponent"]`` calls an opponent: its name, a policy object's ``name`` or
    else its class name."""
    return spec if isinstance(spec, str) else str(getattr(spec, "name", type(spec).__name__))


def seat_specs(opponents: Any, seats: int) -> list:
    """One opponent per other seat from ``opponents``: one opponent (a name, a policy, a
    callable) for every seat, or a sequence of one or of ``seats`` of them. ``ValueError`` for
    anything else or another count."""
    one = isinstance(opponents, str) or callable(opponents)
    if one or hasattr(opponents, "act") or hasattr(opponents, "act_batch"):
        opponents = [opponents]
    elif not isinstance(opponents, Sequence):
        raise ValueError(f"opponents must be a policy or a sequence of policies, got {type(opponents).__name__}")
    opponents = list(opponents)
    if len(opponents) == 1:
        opponents = opponents * seats
    if len(opponents) != seats:
        raise ValueError(f"opponents: {len(opponents)} given for {seats} other seats")
    return opponents


def mix_weights(opponent_mix: Sequence[tuple[Any, float]], opponents: Any = None) -> tuple[list, np.ndarray]:
    """The opponents of an ``opponent_mix`` (``(opponent, weight)`` pairs) and their draw
    weights (summing to 1). ``ValueError`` for fixed ``opponents`` given too, a negative
    weight, or weights that do not sum to more than 0."""
    if opponents is not None:
        raise ValueError("give opponents (one per other seat) or opponent_mix (drawn per episode), not both")
    mix = list(opponent_mix)
    weights = np.array([w for _, w in mix], dtype=float) if mix else np.zeros(0)
    if not mix or (weights < 0).any() or weights.sum() <= 0:
        raise ValueError(f"opponent_mix must be (opponent, weight) pairs, weights >= 0 with a positive sum: {mix!r}")
    return [spec for spec, _ in mix], weights / weights.sum()


def pool_probability(probability: float) -> float:
    """``probability`` (that an other seat is drawn from the pool) as a float; ``ValueError``
    outside [0, 1]."""
    probability = float(probability)
    if not 0.0 <= probability <= 1.0:
        raise ValueError(f"the pool probability must be in [0, 1], got {probability!r}")
    return probability


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


__all__ = [
    "MAX_REDEALS",
    "draw_opponents",
    "mix_weights",
    "opponent_label",
    "pool_probability",
    "seat_specs",
]
