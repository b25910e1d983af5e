"""The search plans and rolls out with the compiled heuristic: its turn plans
(:func:`agents.heuristic_batched.heuristic_plans`) and its lite variant (``weights(..., lite=True)``)
are those of the Python planner they replaced, and the search plays the games it played.

``data/search_planner_decisions.npz`` was recorded by that planner (``agents/heuristic.py``'s
``HeuristicPolicy`` at commit 5f6b3fa) and the search built on it. On the positions of
``data/heuristic_greedy_decisions.npz`` (:mod:`tests.test_agent_decisions`), table ``T`` with ``N``
players: ``lite_T_N`` and ``lite_aware_T_N``, the lite variant's decision at every position (default
weights; ``score_aware=1, call_aware=3``); at every fifth discard decision (``plan_rows_T_N``), every
turn plan ``(cost, discard, draw)`` best first (``plans_T_N``, cut at ``plan_offsets_T_N``), whether
it would call Yaniv (``plan_calls_T_N``: 1, 0, or -1 when not asked) and the bias of its samples
(``plan_bias_T_N``). ``search_game_G``: every action of a one-round game of :data:`GAMES` ``G``
(``search`` in seat 0, the heuristic elsewhere), and ``search_searched_G`` its searched decisions.
``score_case_I`` and ``outside_totals``: :mod:`tests.test_score_heuristic`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

import agents  # noqa: E402
import yaniv_env  # noqa: E402
from agents.common import DISCARD_PHASE, context, decode  # noqa: E402
from agents.heuristic_batched import _round_cents, heuristic_batch, heuristic_plans, heuristic_tables, weights  # noqa: E402
from tests.test_agent_decisions import RECORDED as DRIVING  # noqa: E402
from tests.test_agent_decisions import TABLES, replay  # noqa: E402
from yaniv_env import get_rules  # noqa: E402

RECORDED = Path(__file__).parent / "data" / "search_planner_decisions.npz"
#: the recorded search games: (table, players, seed, search options)
GAMES = [
    ("standard", 2, 0, {}),
    ("standard", 2, 1, {}),
    ("standard", 2, 2, {}),
    ("french", 3, 3, {}),
    ("seven", 4, 4, {}),
    ("two_deck", 2, 5, {"value": "points", "score_aware": 1.0, "call_aware": 3.0}),
    ("standard", 3, 6, {"rollout": "full"}),
    ("seven", 2, 7, {"value": "round", "game_weight": 0.0, "search_cards": None}),
    ("standard", 2, 8, {"search_cards": None}),
    ("standard", 2, 9, {"search_cards": None, "sample_bias": 0.0}),
    ("french", 3, 10, {"search_cards": None, "candidates": 6}),
    ("seven", 4, 11, {"search_cards": None}),
    ("house", 3, 12, {"search_cards": None, "mu": 1.5, "leave_weight": 0.0, "call_risk": 0.6}),
]


@pytest.fixture(scope="module")
def planned():
    return np.load(RECORDED)


@pytest.fixture(scope="module")
def decisions():
    return np.load(DRIVING)


@pytest.mark.parametrize(("table", "n"), [(t, n) for t in range(len(TABLES)) for n in (2, 3, 4, 5)])
def test_plans_and_lite_decisions_are_the_python_planners(decisions, planned, table, n):
    key = f"{table}_{n}"
    if f"lite_{key}" not in planned:
        pytest.skip(f"no recorded games for table {table} with {n} players")
    rules = get_rules(TABLES[table], n) if isinstance(TABLES[table], str) else TABLES[table].with_players(n)
    obs, masks = replay(rules, n, decisions[f"driving_{key}"])
    obs, masks = np.ascontiguousarray(obs, dtype=np.float32), np.ascontiguousarray(masks, dtype=bool)
    t = heuristic_tables(rules)
    for name, options in (("lite", {}), ("lite_aware", {"score_aware": 1.0, "call_aware": 3.0})):
        got = heuristic_batch(obs, masks, t, weights(options, lite=True))
        np.testing.assert_array_equal(got, planned[f"{name}_{key}"], err_msg=f"{name} {key}")
    rows, offsets = planned[f"plan_rows_{key}"], planned[f"plan_offsets_{key}"]
    plans, calls, bias = planned[f"plans_{key}"], planned[f"plan_calls_{key}"], planned[f"plan_bias_{key}"]
    ctx = context(rules)
    for j, i in enumerate(rows.tolist()):
        assert decode(ctx, obs[i], masks[i]).phase == DISCARD_PHASE
        turn = heuristic_plans(obs[i], masks[i], t, weights({}))
        expected = [(c, int(a), int(d)) for c, a, d in plans[offsets[j] : offsets[j + 1]].tolist()]
        assert turn.plans == expected, (key, i)
        assert (-1 if turn.calls is None else int(turn.calls)) == calls[j] and turn.bias == bias[j], (key, i)
    assert len(rows) > 20


def test_round_cents_rounds_as_python():
    """The lite variant's bias rounded to hundredths: Python's ``round(x, 2)`` (correctly
    rounded, ties to even), including the values a float product ``100·x`` rounds the wrong way."""
    rng = np.random.default_rng(0)
    biases = [
        b + t * s / a for b in (0.0, 0.04, 0.1) for s in (0.035, 0.02, 0.1) for t in range(200) for a in (1, 2, 3, 4, 5)
    ]
    ties = [(k + 0.5) / 100 for k in range(-200, 200)]
    for x in [*biases, *ties, *rng.uniform(-2, 2, 20_000).tolist(), *rng.uniform(0, 0.4, 20_000).tolist()]:
        assert _round_cents(x) == round(x, 2), x
    assert round(0.075, 2) != 0.08 and _round_cents(0.075) == 0.07  # 100·0.075 is 7.5 as a float


@pytest.mark.parametrize("game", range(len(GAMES)))
def test_search_plays_the_recorded_games(planned, game):
    preset, n, seed, options = GAMES[game]
    rules = TABLES[-2].with_players(n) if preset == "house" else preset
    env = yaniv_env.raw_env(rules=rules, num_players=n, episode="round")
    env.reset(seed=seed)
    bot = agents.make("search", seed=seed, rules=env.rules, **options)
    others = [agents.make("heuristic", seed=seed + p, rules=env.rules) for p in range(n)]
    expected = planned[f"search_game_{game}"].tolist()
    played = []
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        bot_at = bot if name == env.possible_agents[0] else others[env.possible_agents.index(name)]
        action = None if term or trunc else bot_at.act(obs["observation"], obs["action_mask"])
        played += [] if action is None else [action]
        env.step(action)
    first_change = next((i for i, (a, b) in enumerate(zip(played, expected, strict=False)) if a != b), None)
    assert played == expected, f"game {game}: the first different action is number {first_change}"
    assert bot.searched == int(planned[f"search_searched_{game}"])
