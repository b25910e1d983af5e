"""The score-aware heuristic (``score_aware``, ``agents.make("score_heuristic")``): its cost
of the points taken at the end of a round follows the milestones and the limit, the
default heuristic is unchanged, its kernel decides as the deleted Python planner did
(``agents/heuristic.py``'s ``HeuristicPolicy.decide`` before this kernel replaced it, recorded in
``data/search_planner_decisions.npz``), and it beats the heuristic, which plays for round points."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import agents
from agents.heuristic import ScoreHeuristicAgent
from yaniv_env.yaniv.observation import ObservationLayout
from yaniv_env.yaniv.rules import get_rules

pytest.importorskip("numba")

from agents.heuristic_batched import (  # noqa: E402
    R_END_SIZE,
    R_SCORE_LIMIT,
    R_SCORES,
    _end_costs,
    _opponents_end_cost,
    heuristic_tables,
    weights,
    widest_hand_total,
)
from tests.test_batched_agents import positions  # noqa: E402

RECORDED = Path(__file__).parent / "data" / "search_planner_decisions.npz"


def _end_cost_table(preset: str, score: int, **options) -> np.ndarray:
    """The kernel's cost of taking ``x`` points when the round ends (``x`` = 0, 1, ...) for a
    seat of a 2-player game of ``preset`` whose total is ``score``."""
    t = heuristic_tables(get_rules(preset, 2))
    end = np.empty(t.int_rules[R_END_SIZE])
    _end_costs(np.int64(score), weights(options), t.int_rules, t.milestones, end)
    return end


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
    costs = _end_cost_table(preset, score, score_aware=1.0)
    assert costs[points] == pytest.approx(cost)
    assert costs[0] == 0.0
    # half-way: the mean of the round points and the change of the total
    assert _end_cost_table(preset, score, score_aware=0.5)[points] == pytest.approx((points + cost) / 2)
    assert _end_cost_table(preset, score)[points] == points  # the default: round points


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


#: the recorded cases (``score_case_i`` in :data:`RECORDED`)
SCORE_CASES = [
    ("standard", 2, {"score_aware": 1.0, "call_aware": 1.0}), ("standard", 3, {"score_aware": 1.0}),
    ("seven", 2, {"score_aware": 1.0, "call_aware": 1.0}), ("french", 4, {"score_aware": 1.0, "call_aware": 1.0}),
    ("two_deck", 2, {"score_aware": 1.0, "call_aware": 1.0}), ("standard", 2, {"score_aware": 0.5}),
    ("standard", 3, {"call_aware": 0.5}),
]  # fmt: skip


@pytest.mark.parametrize("case", range(len(SCORE_CASES)))
def test_compiled_score_heuristic_decides_as_the_python_planner_did(case):
    """The agent's kernel makes the recorded decisions of the Python planner, at the totals
    the games reached and at totals drawn near every milestone."""
    preset, n, options = SCORE_CASES[case]
    obs, masks = positions(preset, n, games=2, seed=5)
    obs = np.concatenate([obs, _with_totals(preset, n, obs, seed=1)])
    masks = np.concatenate([masks, masks])
    options = {**options, "limit_cost": 60.0}
    bot = agents.make("heuristic", seed=0, rules=preset, **options)
    expected = np.load(RECORDED)[f"score_case_{case}"].astype(np.int64)
    np.testing.assert_array_equal(bot.act_batch(obs, masks), expected)
    # and it plays differently from the heuristic somewhere (the totals matter to it)
    plain = agents.make("heuristic", seed=0, rules=preset)
    assert (plain.act_batch(obs, masks) != expected).any()


def test_call_aware_counts_the_opponents_totals():
    """Calling Yaniv with call_aware: an opponent whose hand is all known takes the change of
    its total after the milestone, plus limit_cost past the limit."""
    t = heuristic_tables(get_rules("standard", 2))
    ir, w = t.int_rules, weights({"call_aware": 1.0})
    known = np.zeros((2, 8), np.int64)
    known[1, :2] = (5, 1)  # the opponent's whole hand, 6 and 2 of the first suit: 8 points
    n_known, hand_sizes, alive = np.array([0, 2]), np.array([[5, 2]]), np.ones((1, 2), np.bool_)
    weighted = np.full(11, 1 / 11)  # unused: no card of the opponent's is unknown
    top = widest_hand_total(t.rules)
    cdf, dist = np.empty(top + 1), np.empty((2, top + 1))
    for total, cost in [(42, 25 - 42), (43, 8), (150, 8), (195, 8 + 100), (192, 100 - 192)]:
        obs = np.zeros((1, t.size), np.float32)
        obs[0, ir[R_SCORES] + 1] = total / ir[R_SCORE_LIMIT]
        got = _opponents_end_cost(obs, 0, 2, alive, known, n_known, hand_sizes, weighted, w, ir, t.milestones, cdf,
                                  dist)  # fmt: skip
        assert got == pytest.approx(cost)


def test_a_total_outside_the_milestone_table_is_decided_in_the_kernel():
    """Totals the games never show (past the limit, below zero) get milestone tables of their
    own: the kernel decides those rows as the Python planner did (recorded)."""
    rules = get_rules("standard", 2)
    obs, masks = positions("standard", 2, games=1, seed=5)
    obs = obs.copy()
    scores = ObservationLayout(rules).pieces["scores"].start
    obs[::2, scores] = 1.2  # 240, past the limit of 200
    obs[1::2, scores + 1] = -0.1  # the opponent at -20
    bot = agents.make("heuristic", seed=0, score_aware=1.0, call_aware=1.0)
    expected = np.load(RECORDED)["outside_totals"].astype(np.int64)
    np.testing.assert_array_equal(bot.act_batch(obs, masks), expected)
    assert [bot.act(o, m) for o, m in zip(obs[:40], masks[:40], strict=True)] == expected[:40].tolist()


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
