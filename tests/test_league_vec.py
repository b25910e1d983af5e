"""The self-play pool on the batched vector environment: :meth:`LearnerGames.set_pool` draws
pool members per episode and seat with the given probability (uniformly among them), seats
them from the next episodes on, and each member acts in one call per opponent step."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.batched import batched  # noqa: E402
from yaniv_env.vector.envs import LearnerGames, YanivVecEnv  # noqa: E402


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
