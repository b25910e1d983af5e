"""The batched engine (yaniv_env.yaniv.batched) against the scalar engine, decision by decision.

Every test here replays batched games through ``yaniv_env.yaniv.engine`` from the same seeds
(:func:`yaniv_env.tools.verify.verify`): the acting seat and phase, the legal mask and the
acting seat's observation at every decision (every seat's every few decisions), round
results, score changes, places and final rankings must be equal. CI replays
:data:`CI_GAMES` whole games per preset and player count, in :data:`CI_PARTS` test cases
each (so that pytest-xdist spreads them). The long check runs with
``python -m yaniv_env.tools.verify --games 1000000 --players 2 3 4 5 --workers 2`` or,
through pytest, ``YANIV_VECTOR_GAMES=1000000 python -m pytest tests/test_vector_engine.py
--runslow -k many`` (``YANIV_VECTOR_WORKERS`` processes, default: one a core).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yaniv_env.core import seeding
from yaniv_env.core.cpus import available_cpus
from yaniv_env.tools.verify import Divergence, scalar_game, verify
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.batched import BatchedYaniv, round_rewards
from yaniv_env.yaniv.batched import kernels as K
from yaniv_env.yaniv.rules import PRESETS, get_rules

PLAYERS = (2, 3, 4, 5)
CASES = [(name, n) for name in PRESETS for n in PLAYERS]

#: Whole games replayed per preset and player count in CI, cut into CI_PARTS test cases.
#: The replay costs about 15-25 µs a decision on one core (the scalar engine is Python) and
#: a game 300-7,000 decisions, so that the 16 presets and player counts cost about 0.4
#: CPU-seconds a game each. CI_GAMES = 20 is cut to the CI budget, which CI is still over (the
#: scalar differential at scale is ``yaniv verify``, and thousands of games per configuration
#: run with ``-k many``, see above).
CI_GAMES = 20
CI_PARTS = 1
#: The share of the games the greedy player plays (calls, slams, challenges and Blasts:
#: short games); the others are uniform random play (long rounds, reshuffles, stock
#: exhaustion), about three times longer.
GREEDY_SHARE = 0.75


@pytest.mark.parametrize("part", range(CI_PARTS))
@pytest.mark.parametrize("name,players", CASES)
def test_games_match_the_scalar_engine(name, players, part):
    games = CI_GAMES // CI_PARTS
    rules = get_rules(name, players)
    summary = verify(rules, games=games, seed=10_000 * players + part * games, greedy_share=GREEDY_SHARE)
    print(summary.line())
    assert summary.divergences == 0 and summary.games == games
    assert summary.rounds >= games and summary.decisions > 100 * games


def test_the_moves_depend_on_the_game_seed_only():
    rules = get_rules("seven", 3)
    alone = verify(rules, games=12, seed=5, batch=12)
    together = verify(rules, games=12, seed=5, batch=3)
    split = verify(rules, games=12, seed=5, batch=3, workers=2)
    for summary in (together, split):
        assert (summary.games, summary.decisions, summary.rounds) == (alone.games, alone.decisions, alone.rounds)


def _corrupt(monkeypatch, method: str, change):
    """Make ``BatchedYaniv.<method>`` answer wrongly (``change`` edits its result) in game 1
    at its 40th call."""
    original = getattr(BatchedYaniv, method)
    calls = [0]

    def wrong(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        calls[0] += 1
        if calls[0] == 40:
            change(out)
        return out

    monkeypatch.setattr(BatchedYaniv, method, wrong)


def _flip_first_false(masks):
    masks[1, int(np.flatnonzero(~masks[1])[0])] = True


def _nudge(obs):
    obs[1, 3] = np.nextafter(obs[1, 3], np.float32(1))


@pytest.mark.parametrize(
    "method,change,message",
    [
        ("legal_masks", _flip_first_false, "legal mask"),
        ("observations", _nudge, "observation of"),
    ],
)
def test_a_wrong_batched_answer_is_a_divergence(monkeypatch, method, change, message):
    _corrupt(monkeypatch, method, change)
    with pytest.raises(Divergence, match=rf"standard 2p, game seed 1, round \d+, turn \d+: {message}"):
        verify(get_rules("standard", 2), games=4, seed=0, batch=4, all_seats_every=1000)


def test_a_wrong_round_result_is_a_divergence(monkeypatch):
    original = BatchedYaniv.step

    def step(self, actions):
        res = original(self, actions)
        res.points[res.round_over, 0] += 1
        return res

    monkeypatch.setattr(BatchedYaniv, "step", step)
    with pytest.raises(Divergence, match=r"seven 2p, game seed \d+, round 0, .*round result points"):
        verify(get_rules("seven", 2), games=4, seed=0, batch=4)


def test_a_wrong_reward_is_a_divergence(monkeypatch):
    from yaniv_env.tools import verify as verify_module

    original = verify_module.round_rewards

    def round_rewards(res, scheme="score_outcome", episode="game"):
        out = original(res, scheme, episode)
        if scheme == "round_win" and episode == "round":
            out[res.round_over, 0] += 1e-9
        return out

    monkeypatch.setattr(verify_module, "round_rewards", round_rewards)
    with pytest.raises(Divergence, match=r"seven 2p, game seed \d+, round 0, .*rewards \(round_win, round episodes\)"):
        verify(get_rules("seven", 2), games=4, seed=0, batch=4)


OPTIONS = st.fixed_dictionaries(
    {
        "private_windows": st.booleans(),
        "slam_joker_on_joker": st.booleans(),
        "beaten_caller_alone": st.booleans(),
        "next_leader": st.sampled_from(["winner", "caller"]),
        "milestone_max": st.sampled_from([None, 100, 200]),
        "set_jokers": st.sampled_from(["none", "pair", "any"]),
        "challenge": st.sampled_from(["reveal", "asaf"]),
        "beaten_winners_score": st.sampled_from(["zero", "hand"]),
        "set_pickup": st.sampled_from(["any", "ends", "top"]),
        "run_pickup": st.sampled_from(["any", "ends", "top"]),
        "slam": st.sampled_from(["none", "single", "same_rank"]),
        "slam_from_stock_only": st.booleans(),
        "empty_hand_wins": st.booleans(),
        "milestone": st.sampled_from(["none", "halve", "subtract"]),
        "game_end": st.sampled_from(["last_standing", "first_to_limit"]),
        "score_limit": st.integers(20, 120),
        "limit_inclusive": st.booleans(),
        "stock_exhaustion": st.sampled_from(["reshuffle", "draw"]),
        "turn_limit": st.integers(4, 60),
        "round_limit": st.integers(1, 12),
        "hand_size": st.integers(3, 7),
        "call_max": st.integers(0, 12),
        "penalty": st.integers(0, 40),
        "run_min": st.integers(3, 4),
        "run_jokers_max": st.sampled_from([None, 0, 1, 2]),
        "run_jokers_at_ends": st.booleans(),
        "jokers_per_deck": st.integers(0, 3),
    }
)


@pytest.mark.parametrize("set_jokers", ["pair", "any"])
@pytest.mark.parametrize("run_pickup", ["top", "ends"])
@pytest.mark.parametrize("players", [2, 4])
def test_jokers_in_sets_and_runs_taken_from_the_top(set_jokers, run_pickup, players):
    # four jokers a deck, so that sets with jokers come up often
    rules = get_rules("standard", players).replace(set_jokers=set_jokers, run_pickup=run_pickup, jokers_per_deck=4)
    greedy = verify(rules, games=16, seed=300 + players, batch=16, greedy_share=1.0)
    mixed = verify(rules, games=6, seed=400 + players, batch=6, greedy_share=0.3, all_seats_every=3)
    assert greedy.divergences == mixed.divergences == 0 and greedy.games == 16 and mixed.games == 6


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.sampled_from(list(PRESETS)),
    players=st.integers(2, 5),
    options=OPTIONS,
    blast=st.booleans(),
    table=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_random_rules_match_the_scalar_engine(base, players, options, blast, table, seed):
    rules = get_rules(base, players)
    if table:
        options = options | {"milestone": "table", "milestone_table": ((50, 0), (100, 50))}
    try:
        rules = rules.replace(**options, blast=blast and rules.num_decks == 1)
    except ValueError:
        return  # an impossible combination (too many cards for the seats, ...)
    summary = verify(rules, games=4, seed=seed, batch=4, greedy_share=0.5, all_seats_every=3)
    assert summary.divergences == 0 and summary.games == 4


def test_seeding_twins_equal_the_python_formulas():
    rng = np.random.default_rng(5)
    for _ in range(2000):
        key = int(rng.integers(1 << 63))
        r, stream, index = (int(v) for v in rng.integers(0, 50, 3))
        sk = seeding.stream_key(key, r, stream, index)
        assert int(K.stream_key(np.uint64(key), r, stream, index)) == sk
        assert int(K.mix64(np.uint64(key))) == seeding.mix64(key)
        n = int(rng.integers(1, 120))
        assert K.lot(n, np.uint64(sk)) == seeding.lot(n, sk)
        cards = np.arange(n, dtype=np.int8)
        K.shuffle(cards, n, np.uint64(sk))
        assert cards.tolist() == seeding.shuffled(list(range(n)), sk)


def test_a_slot_seeded_s_is_the_scalar_game_seeded_s():
    eng = BatchedYaniv("standard", num_envs=3, seed=41)
    assert eng.game_seeds.tolist() == [41, 42, 43]
    for b in range(3):
        s = scalar_game(eng.rules, 41 + b)
        assert eng.legal_actions(b) == engine.legal_actions(s)
        assert eng.current[b] == s.current
    again = BatchedYaniv("standard", num_envs=3, seed=41)
    assert np.array_equal(again.observations(), eng.observations())


def test_an_illegal_action_names_the_game_and_changes_nothing():
    eng = BatchedYaniv("standard", num_envs=4, seed=3)
    masks = eng.legal_masks()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    illegal = int(np.flatnonzero(~masks[2])[-1])
    actions[2] = illegal
    before = [a.copy() for a in eng._st]
    with pytest.raises(ValueError, match=rf"game 2: illegal action {illegal} \(discard .*\).*legal: "):
        eng.step(actions)
    assert all(np.array_equal(a, b) for a, b in zip(eng._st, before, strict=True))
    with pytest.raises(ValueError, match="game 0: illegal action 99999 \\(not an action id\\)"):
        eng.step(np.array([99999, *actions[1:]]))
    with pytest.raises(ValueError, match="4 int ids"):
        eng.step(actions[:3])


def test_autoreset_starts_the_next_seeds_and_reports_places():
    eng = BatchedYaniv("seven", num_envs=2, seed=0, autoreset=True)
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 3:
        masks = eng.legal_masks()
        res = eng.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for b in np.flatnonzero(res.game_over):
            assert res.reset[b] and eng.game_seeds[b] == 2 + ended
            assert sorted(res.places[b].tolist())[0] == 0
            ended += 1
        assert not eng.done.any()


def test_round_rewards_follow_the_environment_schemes():
    eng = BatchedYaniv("standard", num_envs=8, seed=9)
    rng = np.random.default_rng(1)
    while True:
        masks = eng.legal_masks()
        res = eng.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]))
        if res.round_over.any():
            break
    b = int(np.flatnonzero(res.round_over)[0])
    score = round_rewards(res, "score")[b]
    assert np.allclose(score, -res.score_delta[b] / 100)
    win = round_rewards(res, "round_win")[b]
    assert win.tolist() == res.winners[b].astype(float).tolist()
    per_round = round_rewards(res, "outcome", episode="round")[b]
    assert per_round.max() == 1.0 and per_round.min() == -1.0
    assert not round_rewards(res, "score")[~res.round_over].any()


def test_importing_the_core_does_not_import_numba():
    code = "import sys, yaniv_env, yaniv_env.yaniv.engine; assert 'numba' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_bench_reports_batched_rows_next_to_the_scalar_engine(capsys):
    import json

    from yaniv_env.core.cpus import available_cpus
    from yaniv_env.tools import bench

    assert bench.main(["--seconds", "0.05", "--presets", "seven", "--no-env", "--no-pis", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["batched"]
    assert result["preset"] == "standard" and result["scalar_turns_per_s"] > 0
    sizes = {(r["batch"], r["threads"]) for r in result["runs"].values()}
    threads = (1, 2) if available_cpus() >= 2 else (1,)  # the two-thread rows need two CPUs
    assert sizes == {(b, t) for b in (1, 64, 1024) for t in threads}
    assert all(r["turns_per_s"] > 0 and r["decisions"] >= r["turns"] for r in result["runs"].values())
    assert 0 < result["memory_B1024"]["state_masks_observations_mb"] < 500
    assert bench.main(["--seconds", "0.05", "--presets", "seven", "--no-env", "--no-pis", "--no-batched"]) == 0
    assert "batched" not in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("name,players", CASES)
def test_many_games_per_preset(name, players):
    games = int(os.environ.get("YANIV_VECTOR_GAMES", "2000"))
    workers = int(os.environ.get("YANIV_VECTOR_WORKERS", str(available_cpus())))
    summary = verify(get_rules(name, players), games=games, seed=7, greedy_share=0.5, workers=workers)
    print(summary.line())
    assert summary.divergences == 0 and summary.games == games


def test_observations_and_masks_of_some_rows_equal_those_rows_of_the_whole_batch():
    eng = BatchedYaniv("french", num_envs=12, seed=5, num_players=3)
    for _ in range(40):
        rows = np.array([7, 0, 11, 3])
        full_obs, full_masks = eng.observations(), eng.legal_masks()
        assert np.array_equal(eng.observations(rows=rows), full_obs[rows])
        assert np.array_equal(eng.legal_masks(rows=rows), full_masks[rows])
        assert np.array_equal(eng.observations(seats=2, rows=rows), eng.observations(seats=2)[rows])
        assert eng.observations(rows=np.array([], np.int64)).shape == (0, eng.layout.size)
        eng.step(np.array([np.flatnonzero(m)[0] for m in full_masks]))
    with pytest.raises(ValueError, match="rows must be game indices in 0..11"):
        eng.legal_masks(rows=[12])
    with pytest.raises(ValueError, match="rows must be game indices"):
        eng.observations(rows=[[0, 1]])


def test_the_differential_command_shards_and_resumes(tmp_path, capsys):
    from yaniv_env.tools import verify as verify_module

    every = verify_module.chunks(["seven", "french"], [2, 3], 5, 2, (0, 1))
    shards = [verify_module.chunks(["seven", "french"], [2, 3], 5, 2, (i, 3)) for i in range(3)]
    assert sorted(map(str, every)) == sorted(str(c) for shard in shards for c in shard) and len(every) == 12
    assert {c.games for c in every} == {2, 1}
    args = ["--games", "2", "--chunk-games", "1", "--presets", "seven", "--players", "2", "3"]
    out = tmp_path / "shard0.json"
    assert verify_module.main([*args, "--shard", "0/2", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["chunks_left"] == 0 and len(report["chunks"]) == 2
    assert sum(c["games"] for c in report["configs"]) == 2 and all(not c["divergence"] for c in report["chunks"])
    capsys.readouterr()
    assert verify_module.main([*args, "--shard", "0/2", "--json", str(out), "--resume"]) == 0  # nothing left
    assert "all: 2 games" in capsys.readouterr().out and len(json.loads(out.read_text())["chunks"]) == 2
    with pytest.raises(SystemExit):
        verify_module.main([*args, "--shard", "2/2"])
