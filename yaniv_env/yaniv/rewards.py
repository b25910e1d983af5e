"""Yaniv's rewards: what each seat earns when a round ends, under each reward scheme and
episode type (the AEC environment's module docstring, "Rewards", says what they mean).

:func:`seat_rewards` is the one definition. The AEC environment adds :func:`part_rewards`,
which reads its arguments from the scalar engine's state; the batched engine's
:func:`yaniv_env.yaniv.batched.round_rewards` reads them from a step's arrays (the differential
test, ``yaniv verify``, checks that the two readings agree).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.outcome import place_reward, places
from . import engine
from .engine import GAME_OVER

EPISODES = ("game", "round")
REWARD_SCHEMES = ("score", "outcome", "round_win", "score_outcome", "score_round_outcome", "margin_outcome")
SCORE_SCALE = 100.0

__all__ = ["EPISODES", "REWARD_SCHEMES", "SCORE_SCALE", "check_reward", "part_rewards", "seat_rewards"]


def check_reward(scheme: str, episode: str) -> None:
    """``ValueError`` unless ``scheme`` is one of :data:`REWARD_SCHEMES` and ``episode`` one
    of :data:`EPISODES`."""
    if scheme not in REWARD_SCHEMES:
        raise ValueError(f"reward must be one of {REWARD_SCHEMES}, got {scheme!r}")
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")


def seat_rewards(
    scheme: str,
    episode: str,
    num_players: int,
    live: Sequence[int],
    score_delta: Sequence[int],
    winners: Sequence[int],
    points: Sequence[int],
    game_over: bool,
    eliminated: Sequence[int],
    game_places: Sequence[int],
) -> list[float]:
    """Every seat's reward for a round that has just ended, under reward ``scheme`` and
    ``episode`` (see "Rewards" above). ``live``: the seats that played the round;
    ``score_delta``: each seat's score change in it; ``winners``, ``eliminated``: seats;
    ``points``: each seat's points taken in the round; ``game_over``: whether the round ended
    the game; ``game_places``: each seat's place in the game (0 = first)."""
    rewards = [0.0] * num_players
    if scheme in ("score", "score_outcome", "score_round_outcome"):
        for p in live:
            rewards[p] -= score_delta[p] / SCORE_SCALE
    if scheme == "margin_outcome" and len(live) > 1:
        # the player's score change against the mean of the others who played the round:
        # zero-sum, so points the others take count for the player as its own count against it
        total = sum(score_delta[p] for p in live)
        for p in live:
            others = (total - score_delta[p]) / (len(live) - 1)
            rewards[p] -= (score_delta[p] - others) / SCORE_SCALE
    if scheme == "round_win":
        for p in winners:
            rewards[p] += 1.0
    outcome = scheme in ("outcome", "score_outcome", "score_round_outcome", "margin_outcome")
    if outcome and (episode == "round" or scheme == "score_round_outcome") and winners:
        # places by the points taken in the round, among those who played it; a drawn round
        # (no winner: the turn limit) places nobody, or everyone would share the first place
        for p, place in zip(live, places([points[p] for p in live]), strict=True):
            rewards[p] += place_reward(place, len(live))
    if outcome and episode == "game":
        for p in live if game_over else eliminated:
            rewards[p] += place_reward(game_places[p], num_players)
    return rewards


def part_rewards(
    state: engine.State, round_start_scores: list[int], scheme: str, episode: str, live: list[int]
) -> list[float]:
    """:func:`seat_rewards` for the round that just ended in ``state`` (``ROUND_OVER`` or
    ``GAME_OVER``): what the environment adds to each seat of ``live`` (the seats still in the
    game when the round began) and to the round's winners."""
    rr = state.round_result
    score_delta = [now - before for now, before in zip(state.scores, round_start_scores, strict=True)]
    game_over = state.phase == GAME_OVER
    return seat_rewards(
        scheme,
        episode,
        state.num_players,
        live,
        score_delta,
        rr.winners,
        rr.points,
        game_over,
        rr.eliminated,
        engine.ranking(state),
    )
