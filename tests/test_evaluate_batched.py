"""Evaluations on the batched engine: the same games, game for game, as through the AEC
environment, whatever the batch size or the number of workers; and clear refusals where
the batched engine cannot play."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openskill")

from agents.batched import BatchedRandom  # noqa: E402
from agents.evaluation import batched_runner, evaluate, league  # noqa: E402
from agents.evaluation.records import SEAT_COUNTERS  # noqa: E402
from training.cli.eval import main  # noqa: E402
from yaniv_env import PRESETS  # noqa: E402

HOUSE = PRESETS["standard"].replace(name="house", set_jokers="any", run_pickup="top")
SHIPPED = Path(__file__).resolve().parents[1] / "agents" / "models" / "ppo_standard_2p.safetensors"


def _records(res) -> list[dict]:
    return [vars(r) for r in res.records]


def _same_games(entrants, **kw):
    scalar = evaluate(entrants, engine="scalar", **kw)
    batched = evaluate(entrants, engine="batched", **kw)
    assert len(scalar.records) == kw["games"]
    assert _records(batched) == _records(scalar)
    assert batched.to_dict()["entrants"] == scalar.to_dict()["entrants"]
    return batched


@pytest.mark.parametrize(
    "rules,players,entrants,games,episode",
    [
        ("standard", 2, ["heuristic", "greedy"], 12, "game"),
        ("standard", 4, ["random", "heuristic"], 4, "game"),
        ("seven", 3, ["random", "greedy", "heuristic"], 12, "game"),
        ("french", 2, ["heuristic", "random"], 10, "game"),
        ("two_deck", 4, ["greedy", "heuristic"], 4, "game"),
        ("standard", 3, ["heuristic", "greedy"], 30, "round"),
        ("french", 5, ["random", "greedy"], 20, "round"),
        (HOUSE, 3, ["heuristic", "greedy"], 6, "game"),
    ],
)
def test_batched_engine_plays_the_scalar_games(rules, players, entrants, games, episode):
    res = _same_games(entrants, rules=rules, num_players=players, games=games, seed=7, episode=episode)
    assert sum(r.rounds for r in res.records) >= games  # whole games were played, not a stub


def test_both_engines_count_the_same_calls_when_allowed():
    """The call counters come from the decisions, not the round results, so each runner
    counts its own: the records compare them; ``greedy`` always calls when it may, the
    ``heuristic`` sometimes."""
    res = _same_games(["heuristic", "greedy"], rules="standard", num_players=3, games=6, seed=5)
    chances = SEAT_COUNTERS.index("call_chances")
    assert all(st[chances] > 0 for rec in res.records for st in rec.seat_stats)
    rate = {lab: st.metrics["call_when_allowed"].value for lab, st in res.stats.items()}
    assert rate["greedy"] == 1.0 and 0 < rate["heuristic"] < 1, rate


def test_batched_league_with_house_rules_and_the_002_rating():
    rules = PRESETS["standard"].replace(name="house", score_limit=80, beaten_caller_alone=True, next_leader="caller")
    kw = dict(rules=rules, num_players=2, games=12, seed=3, rating="002")
    scalar = league(["random", "greedy", "heuristic"], engine="scalar", **kw)
    batched = league(["random", "greedy", "heuristic"], engine="batched", **kw)
    assert _records(batched) == _records(scalar)
    assert batched.rating_002 == scalar.rating_002
    assert batched.ratings == scalar.ratings


def test_batch_size_and_workers_do_not_change_the_games(monkeypatch):
    kw = dict(rules="seven", num_players=2, games=24, seed=11, engine="batched")
    full = evaluate(["greedy", "random"], **kw)
    monkeypatch.setattr(batched_runner, "BATCH_SIZE", 5)
    small = evaluate(["greedy", "random"], **kw)
    assert _records(small) == _records(full)
    monkeypatch.undo()
    two = evaluate(["greedy", "random"], workers=2, **kw)
    assert _records(two) == _records(full)


@pytest.mark.skipif(not SHIPPED.exists(), reason="no shipped model")
def test_trained_model_plays_the_same_games_batched():
    pytest.importorskip("torch")
    _same_games([str(SHIPPED), "heuristic"], rules="standard", num_players=2, games=4, seed=1)


@pytest.mark.skipif(not SHIPPED.exists(), reason="no shipped model")
def test_games_in_this_process_use_one_torch_thread_and_restore_the_callers(monkeypatch):
    torch = pytest.importorskip("torch")
    seen = []
    play_jobs = batched_runner.BatchedRunner.play_jobs

    def spy(self, *args, **kwargs):
        seen.append(torch.get_num_threads())
        return play_jobs(self, *args, **kwargs)

    monkeypatch.setattr(batched_runner.BatchedRunner, "play_jobs", spy)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        evaluate([str(SHIPPED), "heuristic"], engine="batched", games=2, seed=1, workers=1)
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_auto_picks_the_engine_that_can_play(tmp_path):
    # search has no batched version, replays are recorded by the scalar engine: both still play
    res = evaluate(["search", "random"], rules="standard", games=2, seed=0, engine="auto")
    assert len(res.records) == 2
    res = evaluate(["greedy", "random"], games=2, seed=0, save_replays=tmp_path, replays=1)
    assert len(res.replays) == 1


@pytest.mark.parametrize(
    "entrants,kw,reason",
    [
        (["search", "random"], {}, "entrant 'search' has no batched version"),
        (["pis_random", "pis_heuristic"], {"game": "pis_yedili"}, "plays Yaniv, not Pis Yedili"),
        (["greedy", "random"], {"save_replays": "unused", "replays": 1}, "replays are recorded by the scalar"),
    ],
)
def test_batched_engine_refuses_what_it_cannot_play(entrants, kw, reason):
    with pytest.raises(ValueError, match=reason):
        evaluate(entrants, games=2, seed=0, engine="batched", **kw)
    with pytest.raises(ValueError, match="engine must be one of"):
        evaluate(["greedy", "random"], games=2, engine="gpu")


class IllegalMover(BatchedRandom):
    """An agent that plays the first illegal id, row by row or on a batch."""

    def act(self, observation, action_mask):
        return int(np.argmin(action_mask))

    def act_batch(self, observations, masks, keys=None):
        return np.argmin(np.asarray(masks).astype(bool), axis=1).astype(np.int64)


def test_an_illegal_batched_move_names_the_agent():
    with pytest.raises(RuntimeError, match=r"agent 'cheat' \(player_\d, deal seed \d+\) made an illegal move"):
        evaluate([("cheat", IllegalMover), "random"], games=2, seed=0, engine="batched")


def test_cli_engine_option(capsys):
    assert main(["--agents", "greedy,random", "--games", "4", "--engine", "scalar", "--quiet"]) == 0
    scalar = capsys.readouterr().out
    assert main(["--agents", "greedy,random", "--games", "4", "--engine", "batched", "--quiet"]) == 0
    batched = capsys.readouterr().out
    assert scalar.splitlines()[:-1] == batched.splitlines()[:-1]  # all but the elapsed time
    assert main(["--agents", "search,random", "--games", "2", "--engine", "batched", "--quiet"]) == 2
    assert "entrant 'search' has no batched version" in capsys.readouterr().err
