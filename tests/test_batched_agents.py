"""Batched agents (agents.batched) make the scalar agents' decisions on the same observations:
positions from random, greedy and heuristic games through the AEC env, every preset, 2-5
players."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import agents  # noqa: E402
from agents.batched import BatchedGreedy, BatchedRandom, batched  # noqa: E402
from agents.streams import agent_key  # noqa: E402
from yaniv_env import PRESETS, raw_env  # noqa: E402

PLAYERS = ("random", "greedy", "heuristic")


def positions(preset: str, n: int, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every decision's observation and mask in ``games`` AEC games of mixed baseline agents."""
    env = raw_env(rules=preset, num_players=n)
    obs, masks = [], []
    for g in range(games):
        env.reset(seed=seed + g)
        seats = [agents.make(PLAYERS[(g + i) % 3], seed=seed + 10 * g + i, rules=env.rules) for i in range(n)]
        for name in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs.append(o["observation"])
            masks.append(o["action_mask"])
            env.step(seats[env.possible_agents.index(name)].act(o["observation"], o["action_mask"]))
    return np.array(obs), np.array(masks)


# house rules: jokers in sets, runs taken from the top end only
HOUSE = [
    PRESETS["standard"].replace(name="house", set_jokers="any", run_pickup="top", jokers_per_deck=4),
    PRESETS["seven"].replace(name="house7", set_jokers="pair", run_pickup="top"),
]


@pytest.fixture(
    scope="module",
    params=[(p, n) for p in [*PRESETS, *HOUSE] for n in (2, 3, 4, 5)],
    ids=lambda c: f"{getattr(c[0], 'name', c[0])}-{c[1]}",
)
def table(request):
    preset, n = request.param
    if not isinstance(preset, str):
        preset = preset.with_players(n)
    return preset, *positions(preset, n, games=2, seed=31)


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_batched_equals_scalar(table, name):
    preset, obs, masks = table
    for seed in (7,):
        scalar = agents.make(name, seed=seed, rules=preset)
        expected = np.array([scalar.act(o, m) for o, m in zip(obs, masks, strict=True)])
        np.testing.assert_array_equal(batched(name, seed=seed, rules=preset).act_batch(obs, masks), expected)
        np.testing.assert_array_equal(batched(scalar).act_batch(obs, masks), expected)  # from the object


def test_heuristic_batched_equals_scalar(table):
    """The compiled heuristic decides as the scalar one on every position (every phase the
    preset has: discard, draw, slam, and Asaf and blast under french)."""
    preset, obs, masks = table
    scalar = agents.make("heuristic", seed=0, rules=preset)
    expected = [scalar.act(o, m) for o, m in zip(obs, masks, strict=True)]
    np.testing.assert_array_equal(batched("heuristic", seed=0, rules=preset).act_batch(obs, masks), expected)
    np.testing.assert_array_equal(batched(scalar).act_batch(obs, masks), expected)  # from the object


@pytest.mark.parametrize(
    "options",
    [
        {"mu": 1.5, "leave_weight": 0.0, "call_risk": 0.6},
        {"bias": 0.0, "bias_per_turn": 0.1, "bias_max": 1.0, "call_margin": 2.0, "end_weight": 0.5},
    ],
)
def test_heuristic_batched_takes_the_scalar_options(options):
    for preset, n in (("standard", 3), ("french", 4)):
        obs, masks = positions(preset, n, games=1, seed=5)
        scalar = agents.make("heuristic", seed=0, rules=preset, **options)
        expected = [scalar.act(o, m) for o, m in zip(obs, masks, strict=True)]
        np.testing.assert_array_equal(batched("heuristic", rules=preset, **options).act_batch(obs, masks), expected)
        np.testing.assert_array_equal(batched(scalar).act_batch(obs, masks), expected)


def test_tuned_two_deck_is_the_heuristic_with_its_weights_and_batches_exactly():
    """``tuned_two_deck`` (the shipped two_deck agent's advisor): the heuristic with the
    tuned weights (others given on top), and its batched version decides as it does."""
    from agents.heuristic import TunedTwoDeckAgent

    bot = agents.make("tuned_two_deck", seed=0, rules="two_deck")
    assert isinstance(bot, TunedTwoDeckAgent)
    assert {k: bot.policy.options[k] for k in TunedTwoDeckAgent.default_options} == TunedTwoDeckAgent.default_options
    assert agents.make("tuned_two_deck", mu=2.0).policy.mu == 2.0
    obs, masks = positions("two_deck", 2, games=2, seed=5)
    expected = [bot.act(o, m) for o, m in zip(obs, masks, strict=True)]
    plain = agents.make("heuristic", seed=0, rules="two_deck")
    assert expected != [plain.act(o, m) for o, m in zip(obs, masks, strict=True)]
    np.testing.assert_array_equal(batched("tuned_two_deck", rules="two_deck").act_batch(obs, masks), expected)


def test_heuristic_phases_covered():
    """The equality positions include every decision phase (Asaf and blast come from french)."""
    from agents.common import PHASES
    from agents.heuristic_batched import heuristic_tables
    from yaniv_env import get_rules

    seen = set()
    for n in (3, 5):
        obs, _ = positions("french", n, games=2, seed=31)
        seen |= set(obs[:, heuristic_tables(get_rules("french", n)).phase_slice].argmax(axis=1).tolist())
    assert seen == set(range(len(PHASES)))


def test_heuristic_rows_are_independent_of_threads_and_batching():
    """The compiled heuristic decides each row on its own: one or two Numba threads, the whole
    batch or odd-sized pieces of it, the same actions (and the scalar agent's)."""
    from agents.batched import BatchedHeuristic

    for preset, n in (("standard", 2), ("french", 3)):
        obs, masks = positions(preset, n, games=2, seed=12)
        scalar = agents.make("heuristic", seed=0, rules=preset)
        expected = np.array([scalar.act(o, m) for o, m in zip(obs, masks, strict=True)])
        agent = BatchedHeuristic(rules=preset)
        for threads in (1, 2):
            agent.threads = threads
            np.testing.assert_array_equal(agent.act_batch(obs, masks), expected)
            pieces = [agent.act_batch(obs[i : i + 77], masks[i : i + 77]) for i in range(0, len(obs), 77)]
            np.testing.assert_array_equal(np.concatenate(pieces), expected)


def test_per_row_keys_are_per_row_agents():
    obs, masks = positions("standard", 3, games=1, seed=4)
    seeds = np.arange(len(obs)) % 5
    keys = np.array([agent_key(int(s)) for s in seeds], dtype=np.uint64)
    for name, agent in (("random", BatchedRandom()), ("greedy", BatchedGreedy(rules="standard"))):
        scalars = [agents.make(name, seed=s, rules="standard") for s in range(5)]
        expected = [scalars[s].act(o, m) for s, o, m in zip(seeds, obs, masks, strict=True)]
        np.testing.assert_array_equal(agent.act_batch(obs, masks, keys), expected)


def test_greedy_ties_are_drawn_and_reproducible():
    obs, masks = positions("standard", 2, games=3, seed=8)
    a = BatchedGreedy(seed=1).act_batch(obs, masks)
    b = BatchedGreedy(seed=2).act_batch(obs, masks)
    assert (a != b).any()  # some decisions are ties, drawn from the key
    np.testing.assert_array_equal(a, BatchedGreedy(seed=1).act_batch(obs[::-1], masks[::-1])[::-1])  # order-free


def test_rows_without_legal_actions_get_minus_one():
    obs, masks = positions("standard", 2, games=1, seed=0)
    masks = masks.copy()
    masks[3] = 0
    for name in ("random", "greedy", "heuristic"):
        out = batched(name, seed=0).act_batch(obs[:5], masks[:5])
        assert out[3] == -1 and (out[[0, 1, 2, 4]] >= 0).all()


def test_trained_policy_one_forward_pass_matches_act():
    model = agents.SHIPPED_MODEL
    if not model.exists():
        pytest.skip("no shipped model")
    agent = agents.load(model)
    obs, masks = positions("standard", 2, games=1, seed=2)
    obs, masks = obs[:120], masks[:120]
    expected = [agent.act(o, m) for o, m in zip(obs, masks, strict=True)]
    np.testing.assert_array_equal(batched(agent).act_batch(obs, masks), expected)


def test_scalar_loop_keeps_one_agent_per_row():
    """Row i is game i: a scalar agent that remembers its game (as the search does) gets its
    own copy per row, reseeded; row 0 is the agent itself."""

    class Remembering:
        def __init__(self, seed=None):
            self.reset(seed)
            self.seen: list[float] = []

        def reset(self, seed=None):
            self.rng = np.random.default_rng(seed)

        def act(self, observation, action_mask):
            self.seen.append(float(observation[0]))
            return int(self.rng.choice(np.flatnonzero(action_mask)))

    agent = Remembering(seed=3)
    loop = batched(agent)
    obs = np.arange(3, dtype=np.float32)[:, None] * np.ones((3, 4), np.float32)
    masks = np.ones((3, 5), dtype=bool)
    masks[1] = False  # a finished game: -1, and no agent asked
    for _ in range(2):
        actions = loop.act_batch(obs, masks)
        assert actions[1] == -1 and ((actions >= 0) == masks.any(axis=1)).all()
    row_agents = loop._agents
    assert row_agents[0] is agent and agent.seen == [0.0, 0.0]
    assert row_agents[1].seen == [] and row_agents[2].seen == [2.0, 2.0]
    assert row_agents[2].rng.bit_generator.state != agent.rng.bit_generator.state
