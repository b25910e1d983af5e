"""The score-aware heuristic (``score_aware``, ``agents.make("score_heuristic")``): its cost
of the points taken at the end of a round follows the milestones and the limit, the
default heuristic is unchanged, its batched version decides as it does, and it beats the
heuristic, which plays for round points."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.common import decode
from agents.heuristic import HeuristicPolicy, ScoreHeuristicAgent
from yaniv_env import engine
from yaniv_env.observation import ObservationLayout
from yaniv_env.rules import get_rules

pytest.importorskip("numba")

from agents.batched import batched  # noqa: E402
from tests.test_batched_agents import positions  # noqa: E402


def _info(preset: str, score: int):
    """A discard decision of a 2-player game of ``preset`` where the acting seat's total is ``score``."""
    rules = get_rules(preset, 2)
    s = engine.new_game(rules, seed=3)
    s.scores[s.current] = score  # the observer's total
    obs = ObservationLayout(rules).build(s, s.current)
    return decode(agents.make("heuristic", rules=rules).context_for(obs), obs, engine.legal_mask(s))


@pytest.mark.parametrize(
    "preset, score, points, cost",
    [
        ("standard", 43, 7, 25 - 43),  # 50 is halved to 25
        ("standard", 43, 6, 6),
        ("standard", 93, 7, 50 - 93),  # 100 -> 50
        ("standard", 180, 19, 19),  # 199: still in (reaching 200 is out)
        ("standard", 180, 20, 100 - 180),  # 200 is halved to 100 before the limit is checked
        ("standard", 180, 25, 25 + 100),  # 205: past the limit
        ("seven", 43, 7, 0 - 43),  # the table: 50 -> 0
        ("french", 190, 10, -40),  # 200 - 50 = 150
        ("two_deck", 43, 7, 7),  # no milestones
    ],
)
def test_end_costs_follow_the_milestones_and_the_limit(preset, score, points, cost):
    info = _info(preset, score)
    costs = HeuristicPolicy(score_aware=1.0).end_costs(info)
    assert costs[points] == pytest.approx(cost)
    assert costs[0] == 0.0
    # half-way: the mean of the round points and the change of the total
    assert HeuristicPolicy(score_aware=0.5).end_costs(info)[points] == pytest.approx((points + cost) / 2)
    assert HeuristicPolicy().end_costs(info)[points] == points  # the default: round points


def test_default_heuristic_ignores_the_score():
    """score_aware=0 (the default) gives the same decisions whatever the totals."""
    obs, masks = positions("standard", 2, games=2, seed=9)
    plain = agents.make("heuristic", seed=0)
    explicit = agents.make("heuristic", seed=0, score_aware=0.0, limit_cost=5.0)
    assert [plain.act(o, m) for o, m in zip(obs, masks, strict=True)] == [
        explicit.act(o, m) for o, m in zip(obs, masks, strict=True)
    ]


@pytest.mark.parametrize("preset, n", [("standard", 2), ("standard", 3), ("french", 4)])
def test_batched_score_heuristic_decides_as_the_scalar_one(preset, n):
    obs, masks = positions(preset, n, games=1, seed=5)
    scalar = agents.make("score_heuristic", seed=0, rules=preset)
    expected = [scalar.act(o, m) for o, m in zip(obs, masks, strict=True)]
    np.testing.assert_array_equal(batched("score_heuristic", seed=0, rules=preset).act_batch(obs, masks), expected)
    np.testing.assert_array_equal(batched(scalar).act_batch(obs, masks), expected)
    # and it plays differently from the heuristic somewhere (the totals matter to it)
    plain = agents.make("heuristic", seed=0, rules=preset)
    assert expected != [plain.act(o, m) for o, m in zip(obs, masks, strict=True)]


def test_score_heuristic_is_the_heuristic_with_the_option():
    bot = agents.make("score_heuristic", seed=1)
    assert isinstance(bot, ScoreHeuristicAgent) and bot.policy.score_aware == 1.0
    assert agents.make("score_heuristic", score_aware=0.5).policy.score_aware == 0.5
    with pytest.raises(TypeError, match="unknown heuristic options: bogus"):
        agents.make("score_heuristic", bogus=1)


def test_search_fast_refuses_the_scalar_only_option():
    with pytest.raises(TypeError, match="score_aware"):
        agents.make("search_fast", score_aware=1.0)
    agents.make("search", score_aware=1.0)  # the scalar search's rollouts take it


def test_score_heuristic_beats_the_heuristic():
    from training.evaluate import evaluate

    result = evaluate(["score_heuristic", "heuristic"], games=100, seed=11)
    rate = result.stats["score_heuristic"].metrics["game_win_rate"]
    assert rate.low > 0.55, rate
