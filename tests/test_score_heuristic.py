"""The score-aware heuristic (``score_aware``, ``agents.make("score_heuristic")``): its cost
of the points taken at the end of a round follows the milestones and the limit, the
default heuristic is unchanged, its kernel decides as the search's planner, and it beats the
heuristic, which plays for round points."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import agents
from agents.common import decode
from agents.heuristic import HeuristicPolicy, ScoreHeuristicAgent
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.observation import ObservationLayout
from yaniv_env.yaniv.rules import get_rules

pytest.importorskip("numba")

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


def _with_totals(preset: str, n: int, obs: np.ndarray, seed: int) -> np.ndarray:
    """``obs`` with every seat's total redrawn uniformly from 0 to the score limit, so that
    every milestone and the limit are near some decision."""
    rules = get_rules(preset, n)
    scores = ObservationLayout(rules).pieces["scores"].slice
    obs = obs.copy()
    totals = np.random.default_rng(seed).integers(0, rules.score_limit + 1, size=(len(obs), n))
    obs[:, scores] = (totals / rules.score_limit).astype(np.float32)
    return obs


@pytest.mark.parametrize(
    "preset, n, options",
    [("standard", 2, {"score_aware": 1.0, "call_aware": 1.0}), ("standard", 3, {"score_aware": 1.0}),
     ("seven", 2, {"score_aware": 1.0, "call_aware": 1.0}), ("french", 4, {"score_aware": 1.0, "call_aware": 1.0}),
     ("two_deck", 2, {"score_aware": 1.0, "call_aware": 1.0}), ("standard", 2, {"score_aware": 0.5}),
     ("standard", 3, {"call_aware": 0.5})],
)  # fmt: skip
def test_compiled_score_heuristic_decides_as_the_search_planner(preset, n, options):
    """The agent's kernel makes the decision of the search's Python planner
    (:class:`HeuristicPolicy`, the same costs), at the totals the games reached and at totals
    drawn near every milestone."""
    obs, masks = positions(preset, n, games=2, seed=5)
    obs = np.concatenate([obs, _with_totals(preset, n, obs, seed=1)])
    masks = np.concatenate([masks, masks])
    options = {**options, "limit_cost": 60.0}
    bot = agents.make("heuristic", seed=0, rules=preset, **options)
    planner = HeuristicPolicy(**options)
    ctx = bot.context_for(obs[0])
    expected = [planner.decide(decode(ctx, o, m)) for o, m in zip(obs, masks, strict=True)]
    np.testing.assert_array_equal(bot.act_batch(obs, masks), expected)
    # and it plays differently from the heuristic somewhere (the totals matter to it)
    plain = agents.make("heuristic", seed=0, rules=preset)
    assert (plain.act_batch(obs, masks) != expected).any()


def test_call_aware_counts_the_opponents_totals():
    """Calling Yaniv with call_aware: an opponent whose hand is all known takes the change of
    its total after the milestone, plus limit_cost past the limit."""
    base = _info("standard", 0)
    hand = (5, 1)  # 6 and 2 of the first suit: 8 points
    for total, cost in [(42, 25 - 42), (43, 8), (150, 8), (195, 8 + 100), (192, 100 - 192)]:
        info = dataclasses.replace(
            base, known=((), hand), hand_sizes=(base.hand_sizes[0], 2), scores=(base.scores[0], total)
        )
        policy = HeuristicPolicy(call_aware=1.0)
        assert policy.opponents_end_cost(info, policy.estimate(info)) == pytest.approx(cost)


def test_a_total_outside_the_milestone_table_is_decided_in_the_kernel():
    """Totals the games never show (past the limit, below zero) get milestone tables of their
    own: the kernel decides those rows as the planner does."""
    rules = get_rules("standard", 2)
    obs, masks = positions("standard", 2, games=1, seed=5)
    obs = obs.copy()
    scores = ObservationLayout(rules).pieces["scores"].start
    obs[::2, scores] = 1.2  # 240, past the limit of 200
    obs[1::2, scores + 1] = -0.1  # the opponent at -20
    bot = agents.make("heuristic", seed=0, score_aware=1.0, call_aware=1.0)
    planner = HeuristicPolicy(score_aware=1.0, call_aware=1.0)
    ctx = bot.context_for(obs[0])
    expected = [planner.decide(decode(ctx, o, m)) for o, m in zip(obs, masks, strict=True)]
    np.testing.assert_array_equal(bot.act_batch(obs, masks), expected)
    assert [bot.act(o, m) for o, m in zip(obs[:40], masks[:40], strict=True)] == expected[:40]


def test_score_heuristic_is_the_heuristic_with_the_option():
    bot = agents.make("score_heuristic", seed=1)
    assert isinstance(bot, ScoreHeuristicAgent) and bot.options["score_aware"] == 1.0
    assert agents.make("score_heuristic", score_aware=0.5).options["score_aware"] == 0.5
    with pytest.raises(TypeError, match="unknown heuristic options: bogus"):
        agents.make("score_heuristic", bogus=1)


def test_search_fast_rolls_out_with_the_score_aware_heuristic():
    obs, masks = positions("standard", 2, games=1, seed=5)
    obs = _with_totals("standard", 2, obs, seed=2)
    aware = agents.make("search_fast", seed=0, score_aware=1.0, simulations=4).act_batch(obs, masks)
    plain = agents.make("search_fast", seed=0, simulations=4).act_batch(obs, masks)
    assert masks[np.arange(len(obs)), aware].all()
    assert (aware != plain).any()


def test_score_heuristic_beats_the_heuristic():
    from agents.evaluation import evaluate

    result = evaluate(["score_heuristic", "heuristic"], games=100, seed=11)
    rate = result.stats["score_heuristic"].metrics["game_win_rate"]
    assert rate.low > 0.55, rate
