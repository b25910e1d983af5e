"""Pis Yedili's rewards: what each seat earns when a deal ends, under each reward scheme and
episode type (the AEC environment's module docstring says what they mean)."""

from __future__ import annotations

from ..core.outcome import place_reward
from . import engine
from .engine import GAME_OVER
from .observation import SCORE_SCALE

EPISODES = ("game", "deal")
REWARD_SCHEMES = ("score", "outcome", "deal_win", "score_outcome")

__all__ = ["EPISODES", "REWARD_SCHEMES", "SCORE_SCALE", "part_rewards"]


def part_rewards(state: engine.State, scheme: str, episode: str) -> list[float]:
    """Every seat's reward for the deal that just ended in ``state`` (``DEAL_OVER`` or
    ``GAME_OVER``), under reward ``scheme`` and ``episode``: the deal's points (``score``),
    a win of the deal (``deal_win``), and the place when the episode ends untruncated
    (``outcome``: the deal's places for ``deal`` episodes, the game's otherwise)."""
    dr = state.deal_result
    n = state.num_players
    rewards = [0.0] * n
    if scheme in ("score", "score_outcome"):
        for p in range(n):
            rewards[p] -= dr.points[p] / SCORE_SCALE
    if scheme == "deal_win":
        for p in dr.winners:
            rewards[p] += 1.0
    episode_over = state.phase == GAME_OVER or episode == "deal"
    truncated = episode == "deal" and dr.truncated
    if episode_over and not truncated and scheme in ("outcome", "score_outcome"):
        places = engine.outcome(state).places if episode == "deal" else engine.ranking(state)
        for p in range(n):
            rewards[p] += place_reward(places[p], n)
    return rewards
