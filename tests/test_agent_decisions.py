"""The compiled greedy and heuristic agents make the decisions their former scalar Python
implementations made, recorded before those were deleted.

``data/heuristic_greedy_decisions.npz`` holds, for every preset and two house rule sets
with 2 to 5 players, two AEC games of mixed random, greedy and heuristic players (33,629
decisions in all, every phase): the actions that drove each game (``driving_T_N``) and
the action each recorded agent's scalar ``act`` chose at each decision (``NAME_T_N``, see
:data:`DECIDERS`; the heuristic's option sets on the standard and french 3- and 4-player
tables, ``tuned_two_deck`` on standard and two_deck). They were recorded by the Python
agents of commit 9db246b (``agents/heuristic.py``'s ``HeuristicPolicy.decide``,
``agents/greedy.py``'s ``GreedyAgent.act``). The games are replayed from their driving
actions (the engine's determinism), so the positions do not depend on the agents under test.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

import agents  # noqa: E402
from agents.batched import batched  # noqa: E402
from tests.test_batched_agents import play_games  # noqa: E402
from yaniv_env import PRESETS  # noqa: E402

RECORDED = Path(__file__).parent / "data" / "heuristic_greedy_decisions.npz"
GAMES, SEED = 2, 31
# house rules: jokers in sets, runs taken from the top end only
HOUSE = [
    PRESETS["standard"].replace(name="house", set_jokers="any", run_pickup="top", jokers_per_deck=4),
    PRESETS["seven"].replace(name="house7", set_jokers="pair", run_pickup="top"),
]
TABLES = [*PRESETS, *HOUSE]
#: recorded name -> (agent, options); each made with seed 7
DECIDERS = {
    "heuristic": ("heuristic", {}),
    "score_heuristic": ("score_heuristic", {}),
    "tuned_two_deck": ("tuned_two_deck", {}),
    "heuristic_opts1": ("heuristic", {"mu": 1.5, "leave_weight": 0.0, "call_risk": 0.6}),
    "heuristic_opts2": (
        "heuristic",
        {"bias": 0.0, "bias_per_turn": 0.1, "bias_max": 1.0, "call_margin": 2.0, "end_weight": 0.5},
    ),
    "heuristic_call_aware": ("heuristic", {"call_aware": 1.0}),
    "greedy": ("greedy", {}),
    "greedy_take5": ("greedy", {"take_max": 5}),
}


def replay(rules, n: int, driving: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every decision's observation and mask in the recorded games, replayed from their actions."""
    moves = iter(driving.tolist())
    obs, masks = play_games(rules, n, [SEED + g for g in range(GAMES)], lambda *_: next(moves))
    assert len(obs) == len(driving)
    return obs, masks


@pytest.fixture(scope="module")
def recorded():
    return np.load(RECORDED)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("table", range(len(TABLES)), ids=lambda t: getattr(TABLES[t], "name", TABLES[t]))
def test_compiled_agents_decide_as_the_scalar_code_did(recorded, table, n):
    rules = TABLES[table] if isinstance(TABLES[table], str) else TABLES[table].with_players(n)
    key = f"{table}_{n}"
    obs, masks = replay(rules, n, recorded[f"driving_{key}"])
    phases = set()
    for name, (agent, options) in DECIDERS.items():
        if f"{name}_{key}" not in recorded:
            continue
        expected = recorded[f"{name}_{key}"].astype(np.int64)
        bot = agents.make(agent, seed=7, rules=rules, **options)
        np.testing.assert_array_equal(bot.act_batch(obs, masks), expected, err_msg=f"{name} {key}")
        np.testing.assert_array_equal(batched(agent, seed=7, rules=rules, **options).act_batch(obs, masks), expected)
        rows = range(0, len(obs), 11)  # the scalar act: a batch of one row
        assert [bot.act(obs[i], masks[i]) for i in rows] == expected[list(rows)].tolist(), f"{name} {key}"
        phases |= {
            agents.common.decode(bot.context_for(o), o, m).phase for o, m in zip(obs[::50], masks[::50], strict=True)
        }
    assert len(obs) > 250 and len(phases) >= 2


def test_the_recording_covers_every_phase(recorded):
    """French has Asaf and blast: across its tables the recorded positions hold all five phases."""
    from agents.common import PHASES, context, decode
    from yaniv_env import get_rules

    seen = set()
    for n in (3, 5):
        obs, masks = replay("french", n, recorded[f"driving_{TABLES.index('french')}_{n}"])
        ctx = context(get_rules("french", n))
        seen |= {decode(ctx, o, m).phase for o, m in zip(obs, masks, strict=True)}
    assert seen == set(range(len(PHASES)))


@pytest.mark.parametrize(("table", "n"), [(0, 2), (2, 3), (4, 4)])
def test_the_search_plans_lead_with_the_recorded_decisions(recorded, table, n):
    """The search's turn plans (:func:`agents.heuristic_batched.heuristic_plans`, the kernel's
    costs) come with the recorded decision, and lead with it unless it calls Yaniv."""
    from agents.common import CALL_YANIV, DISCARD_PHASE, context, decode
    from agents.heuristic_batched import heuristic_plans, heuristic_tables, weights
    from yaniv_env import get_rules

    rules = get_rules(TABLES[table], n) if isinstance(TABLES[table], str) else TABLES[table].with_players(n)
    obs, masks = replay(rules, n, recorded[f"driving_{table}_{n}"])
    ctx, t, expected = context(rules), heuristic_tables(rules), recorded[f"heuristic_{table}_{n}"]
    rows = [i for i in range(0, len(obs), 3) if decode(ctx, obs[i], masks[i]).phase == DISCARD_PHASE]
    for i in rows:
        turn = heuristic_plans(obs[i].astype(np.float32), masks[i].astype(bool), t, weights({}))
        assert turn.action == expected[i]
        assert (CALL_YANIV if turn.calls else turn.plans[0][1]) == expected[i]
    assert len(rows) > 50
