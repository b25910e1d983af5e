"""The self-play pool on the batched vector environment: :meth:`LearnerGames.set_pool` draws
pool members per episode and seat with the given probability (uniformly among them), seats
them from the next episodes on, and each member acts in one call per opponent step."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.batched import batched  # noqa: E402
from yaniv_env.yaniv.batched.envs import LearnerGames  # noqa: E402
from yaniv_env.yaniv.batched.sb3 import YanivVecEnv  # noqa: E402


class Member:
    """A pool member that plays at random and records, per call, the engine step and rows."""

    def __init__(self, games: LearnerGames, seed: int):
        self.inner = batched("random", seed=seed, rules=games.rules)
        self.games = games
        self.calls: list[tuple[int, int]] = []

    def act_batch(self, observations, masks, keys=None):
        self.calls.append((self.games.engine_steps, len(observations)))
        return self.inner.act_batch(observations, masks, keys)


def counting_games(B: int, n: int, mix) -> LearnerGames:
    g = LearnerGames("standard", B, num_players=n, opponent_mix=mix, episode="round", turn_limit=20)
    g.engine_steps = 0
    step = g.engine.step

    def counted(actions):
        g.engine_steps += 1
        return step(actions)

    g.engine.step = counted
    return g


def test_set_pool_draws_per_episode_and_seat_and_members_act_in_batch():
    g = counting_games(16, 3, [("random", 1.0), ("greedy", 3.0)])
    obs = g.reset(5)
    learner = batched("greedy", seed=1, rules=g.rules)
    for _ in range(5):
        obs, *_ = g.step(learner.act_batch(obs, g.action_masks()))
    before = g.choice.copy()
    a, b = Member(g, 1), Member(g, 2)
    assert g.set_pool([a, b], 0.4) == 2 and g.pool == [a, b]
    np.testing.assert_array_equal(g.choice, before)  # the episodes under way keep their opponents
    draws, labels = [], []
    for _ in range(600):
        obs, *_, ended = g.step(learner.act_batch(obs, g.action_masks()))
        if ended.any():
            draws.append(g.choice[ended].ravel())  # the new episodes' opponents
            labels.extend(g.ended_opponents)
    d = np.concatenate(draws)
    n = len(d)
    assert n > 1000

    def within(count, total, p):  # 5 standard deviations
        assert abs(count - total * p) <= 5 * np.sqrt(total * p * (1 - p)), (count, total, p)

    pool_draws = int((d >= 2).sum())
    within(pool_draws, n, 0.4)
    within(int((d == 2).sum()), pool_draws, 0.5)  # uniform among the members
    within(int((d == 1).sum()), n - pool_draws, 0.75)  # the mix's weights otherwise
    assert {"pool+pool", "greedy+pool", "pool+random"} <= set(labels)
    # one call per member and engine step, over every game where it acts (either seat)
    for m in (a, b):
        steps = [s for s, _ in m.calls]
        assert len(steps) == len(set(steps)) > 50
        assert max(rows for _, rows in m.calls) > 1


def test_set_pool_replacement_and_probability_edges():
    g = counting_games(8, 2, [("random", 1.0)])
    obs = g.reset(0)
    learner = batched("greedy", seed=1, rules=g.rules)
    a, b = Member(g, 1), Member(g, 2)
    g.set_pool([a], 1.0)
    for _ in range(60):  # every episode started now seats a
        obs, *_, ended = g.step(learner.act_batch(obs, g.action_masks()))
    assert (g.choice == 1).all() and a.calls
    # b replaces a: the episodes under way keep a (still in the table) until they end
    g.set_pool([b], 1.0)
    assert g.pool == [b] and a in g.policies and g.labels == ["random", "pool", "pool"]
    for _ in range(60):
        obs, *_ = g.step(learner.act_batch(obs, g.action_masks()))
    assert all(g.policies[k] is b for k in g.choice.ravel())
    assert g.set_pool([b], 1.0) == 1 and g.policies == [g.policies[0], b]  # a is dropped once unseated
    g.set_pool([], 1.0)  # an empty pool: the mix only
    for _ in range(60):
        obs, *_ = g.step(learner.act_batch(obs, g.action_masks()))
    assert (g.choice == 0).all()
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        g.set_pool([a], 1.5)


def test_set_pool_batches_a_member_once():
    """A member given as a scalar agent (one decision at a time) is batched when it joins and
    keeps that batched version while it stays: VecOpponentPool hands the same loaded agents
    to set_pool each time the pool changes."""

    class FirstLegal:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    g = LearnerGames("standard", 4, opponent_mix=[("random", 1.0)], episode="round")
    a, b = FirstLegal(), FirstLegal()
    g.set_pool([a], 0.5)
    (batched_a,) = g.pool
    assert batched_a is not a and hasattr(batched_a, "act_batch")
    assert g.set_pool([a, b, a], 0.5) == 3
    assert g.pool[0] is g.pool[2] is batched_a and g.pool[1] not in (batched_a, b)


def test_fixed_seats_with_a_pool_and_env_method():
    venv = YanivVecEnv("standard", 4, num_players=3, opponents=["greedy", "random"], episode="round", turn_limit=20)
    member = batched("random", seed=3, rules=venv.rules)
    assert venv.env_method("set_pool", [member], 0.5) == [1, 1, 1, 1]  # set once for the batch
    venv.seed(1)
    obs = venv.reset()
    learner = batched("greedy", seed=1, rules=venv.rules)
    labels = set()
    for _ in range(300):
        obs, _, _, infos = venv.step(learner.act_batch(obs, venv.env_method("action_masks")))
        labels |= {info["opponent"] for info in infos if "opponent" in info}
    assert {"greedy+random", "pool+random", "greedy+pool", "pool+pool"} <= labels


def monitor_labels(path) -> list[str]:
    lines = path.read_text().splitlines()
    assert lines[0].startswith("#") and lines[1].split(",")[-1] == "opponent"
    return [line.split(",")[-1] for line in lines[2:]]


def test_tiny_league_run_on_the_batched_env_seats_snapshots_and_resumes(tmp_path, capsys):
    """``yaniv train --league`` on the batched env (``--vec-env auto``): the first snapshot
    joins and is seated (episodes labelled "pool"); ``--resume`` seats the pool again at once.
    ``--turn-limit``: the snapshots load with the run's rules (the checkpoints have none)."""
    pytest.importorskip("sb3_contrib")
    from agents.trained import read_metadata
    from training.cli import train as T

    run = tmp_path / "league"
    argv = [
        "--algo", "maskable_ppo",
        "--total-timesteps", "1024", "--n-envs", "8", "--n-steps", "32", "--batch-size", "64", "--n-epochs", "1",
        "--net-arch", "32", "--opponents", "random:1,greedy:1", "--eval-every", "0", "--final-eval-games", "0",
        "--no-progress", "--pretrain", "none", "--league", "--snapshot-every", "512", "--gate-games", "2",
        "--league-prob", "0.9", "--turn-limit", "16", "--output-dir", str(tmp_path), "--run-name", "league",
        "--seed", "2", "--episode", "round", "--advice", "none",
    ]  # fmt: skip
    assert T.main(argv) == 0
    out = capsys.readouterr().out
    assert "8 envs (batched)" in out and "+ league (p=0.9)" in out
    league = read_metadata(run / "checkpoints" / "latest.zip")["league"]
    assert league["history"][0]["joined"] and league["pool"][0] == "league/snapshot_0000000512.zip"
    assert len(league["history"]) == 2  # the second snapshot (1024) went through the gate
    labels = monitor_labels(run / "monitor" / "00_batched.monitor.csv")
    assert "pool" in labels and {"random", "greedy"} <= set(labels)
    # resume: the next snapshot would be at 1536, so the pool seated here is the restored one
    assert T.main(["--resume", str(run), "--total-timesteps", "1280", "--no-progress"]) == 0
    assert "8 envs (batched)" in capsys.readouterr().out
    assert read_metadata(run / "checkpoints" / "latest.zip")["league"] == league
    assert "pool" in monitor_labels(run / "monitor" / "01_batched.monitor.csv")
    # the pool wrapper: set once for the batch through env_method, loaded snapshots kept
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.batched import BatchedTrained
    from agents.trained import TrainedAgent
    from training.envs import VecOpponentPool
    from yaniv_env import get_rules

    venv = YanivVecEnv("standard", 2, opponent_mix=[("random", 1.0)], turn_limit=16)
    pool = VecOpponentPool(venv, 0.5, seed=0, pool_deterministic=True, pool_rules=get_rules("standard"))
    snapshot = str(run / league["pool"][0])
    assert VecMonitor(pool).env_method("set_pool", [snapshot]) == [1, 1]
    (member,) = pool.pool
    (batched_member,) = venv.games.pool  # the environment acts with it in batch
    assert isinstance(member, TrainedAgent) and member.deterministic and venv.games.pool_probability == 0.5
    assert isinstance(batched_member, BatchedTrained) and batched_member.agent is member
    # loaded once, batched once: a member already in the pool keeps its batched version
    assert pool.set_pool([snapshot, snapshot]) == 2 and venv.games.pool == [batched_member, batched_member]
