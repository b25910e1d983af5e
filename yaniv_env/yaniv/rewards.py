"""Yaniv's rewards: what each seat earns when a round ends, under each reward scheme and
episode type (the AEC environment's module docstring, "Rewards", says what they mean).

The AEC environment adds :func:`part_rewards`; the batched engine's
:func:`yaniv_env.yaniv.batched.round_rewards` computes the same from a step's arrays (the
differential test, ``yaniv verify``, checks that they agree).
"""

from __future__ import annotations

from ..core.outcome import place_reward
from . import engine
from .engine import GAME_OVER

EPISODES = ("game", "round")
REWARD_SCHEMES = ("score", "outcome", "round_win", "score_outcome")
SCORE_SCALE = 100.0

__all__ = ["EPISODES", "REWARD_SCHEMES", "SCORE_SCALE", "check_reward", "part_rewards"]


def check_reward(scheme: str, episode: str) -> None:
    """``ValueError`` unless ``scheme`` is one of :data:`REWARD_SCHEMES` and ``episode`` one
    of :data:`EPISODES`."""
    if scheme not in REWARD_SCHEMES:
        raise ValueError(f"reward must be one of {REWARD_SCHEMES}, got {scheme!r}")
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")


def part_rewards(
    state: engine.State, round_start_scores: list[int], scheme: str, episode: str, live: list[int]
) -> list[float]:
    """Every seat's reward for the round that just ended in ``state`` (``ROUND_OVER`` or
    ``GAME_OVER``), under reward ``scheme`` and ``episode`` (see "Rewards" above): what the
    environment adds to each seat of ``live`` (the seats still in the game when the round
    began) and to the round's winners; the batched engine's
    :func:`yaniv_env.yaniv.batched.round_rewards` must give the same (its differential test checks)."""
    rr = state.round_result
    n = state.num_players
    rewards = [0.0] * n
    if scheme in ("score", "score_outcome"):
        for p in live:
            rewards[p] -= (state.scores[p] - round_start_scores[p]) / SCORE_SCALE
    if scheme == "round_win":
        for p in rr.winners:
            rewards[p] += 1.0
    if scheme in ("outcome", "score_outcome"):
        if episode == "round":
            result = engine.outcome(state)
            for p in result.played:
                rewards[p] += place_reward(result.places[p], len(result.played))
        else:
            places = engine.ranking(state)
            for p in live if state.phase == GAME_OVER else rr.eliminated:
                rewards[p] += place_reward(places[p], n)
    return rewards
