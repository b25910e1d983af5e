"""Batched agents (agents.batched) make the scalar agents' decisions on the same observations:
positions from random, greedy and heuristic games through the AEC env, every preset, 2-5
players (the compiled agents' decisions themselves: tests/test_agent_decisions.py)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import agents  # noqa: E402
from agents.batched import BatchedRandom, batched  # noqa: E402
from yaniv_env import PRESETS, raw_env  # noqa: E402
from yaniv_env.core.streams import agent_key  # noqa: E402

PLAYERS = ("random", "greedy", "heuristic")


def play_games(rules, n: int, seeds, choose) -> tuple[np.ndarray, np.ndarray]:
    """Every decision's observation and mask in AEC games reset with ``seeds``, each move
    ``choose(game, seat, observation, mask)``."""
    env = raw_env(rules=rules, num_players=n)
    obs, masks = [], []
    for g, seed in enumerate(seeds):
        env.reset(seed=seed)
        for name in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs.append(o["observation"])
            masks.append(o["action_mask"])
            env.step(choose(g, env.possible_agents.index(name), o["observation"], o["action_mask"]))
    return np.array(obs), np.array(masks)


def positions(preset, n: int, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every decision's observation and mask in ``games`` AEC games of mixed baseline agents."""
    seats = [[agents.make(PLAYERS[(g + i) % 3], seed=seed + 10 * g + i, rules=preset) for i in range(n)]
             for g in range(games)]  # fmt: skip
    return play_games(preset, n, [seed + g for g in range(games)], lambda g, i, o, m: seats[g][i].act(o, m))


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


def test_batched_random_equals_scalar(table):
    preset, obs, masks = table
    scalar = agents.make("random", seed=7, rules=preset)
    expected = np.array([scalar.act(o, m) for o, m in zip(obs, masks, strict=True)])
    np.testing.assert_array_equal(batched("random", seed=7, rules=preset).act_batch(obs, masks), expected)
    np.testing.assert_array_equal(batched(scalar).act_batch(obs, masks), expected)  # from the object


def test_compiled_agents_are_their_own_batched_versions():
    """The greedy and heuristic agents decide in their kernels: ``batched`` returns them as
    they are, and their ``act`` is their ``act_batch`` on one row (the decisions themselves:
    tests/test_agent_decisions.py)."""
    obs, masks = positions("french", 3, games=1, seed=5)
    for name in ("greedy", "heuristic", "score_heuristic", "tuned_two_deck"):
        bot = agents.make(name, seed=3, rules="french")
        assert batched(bot) is bot
        np.testing.assert_array_equal(
            bot.act_batch(obs, masks), [bot.act(o, m) for o, m in zip(obs, masks, strict=True)]
        )


def test_tuned_two_deck_is_the_heuristic_with_its_weights():
    """``tuned_two_deck`` (the shipped two_deck agent's advisor): the heuristic with the
    tuned weights (others given on top), deciding otherwise than the plain heuristic."""
    from agents.heuristic import TunedTwoDeckAgent

    bot = agents.make("tuned_two_deck", seed=0, rules="two_deck")
    assert isinstance(bot, TunedTwoDeckAgent)
    assert {k: bot.options[k] for k in TunedTwoDeckAgent.default_options} == TunedTwoDeckAgent.default_options
    assert agents.make("tuned_two_deck", mu=2.0).options["mu"] == 2.0
    obs, masks = positions("two_deck", 2, games=2, seed=5)
    plain = agents.make("heuristic", seed=0, rules="two_deck")
    assert (bot.act_batch(obs, masks) != plain.act_batch(obs, masks)).any()


def test_heuristic_rows_are_independent_of_threads_and_batching():
    """The compiled heuristic decides each row on its own: one or two threads, the whole
    batch or odd-sized pieces of it, the same actions (and the scalar act's)."""
    from agents.heuristic import HeuristicAgent

    for preset, n in (("standard", 2), ("french", 3)):
        obs, masks = positions(preset, n, games=2, seed=12)
        agent = HeuristicAgent(rules=preset)
        expected = np.array([agent.act(o, m) for o, m in zip(obs, masks, strict=True)])
        for threads in (1, 2):
            agent.threads = threads
            np.testing.assert_array_equal(agent.act_batch(obs, masks), expected)
            pieces = [agent.act_batch(obs[i : i + 77], masks[i : i + 77]) for i in range(0, len(obs), 77)]
            np.testing.assert_array_equal(np.concatenate(pieces), expected)


def test_per_row_keys_are_per_row_agents():
    obs, masks = positions("standard", 3, games=1, seed=4)
    seeds = np.arange(len(obs)) % 5
    keys = np.array([agent_key(int(s)) for s in seeds], dtype=np.uint64)
    for name, agent in (("random", BatchedRandom()), ("greedy", agents.make("greedy", rules="standard"))):
        scalars = [agents.make(name, seed=s, rules="standard") for s in range(5)]
        expected = [scalars[s].act(o, m) for s, o, m in zip(seeds, obs, masks, strict=True)]
        np.testing.assert_array_equal(agent.act_batch(obs, masks, keys), expected)


def test_greedy_ties_are_drawn_and_reproducible():
    obs, masks = positions("standard", 2, games=3, seed=8)
    a = agents.make("greedy", seed=1).act_batch(obs, masks)
    b = agents.make("greedy", seed=2).act_batch(obs, masks)
    assert (a != b).any()  # some decisions are ties, drawn from the key
    np.testing.assert_array_equal(
        a, agents.make("greedy", seed=1).act_batch(obs[::-1], masks[::-1])[::-1]
    )  # order-free


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


def test_trained_policy_samples_as_act_from_its_generator():
    """Sampling: ``act`` is a batch of one row of the agent's decision, so a batch draws from
    the agent's generator row by row exactly as ``act`` on the rows in turn; a row with
    nothing legal draws nothing (``-1``) where ``act`` refuses it."""
    model = agents.SHIPPED_MODEL
    if not model.exists():
        pytest.skip("no shipped model")
    obs, masks = positions("standard", 2, games=1, seed=3)
    obs, masks = obs[:60], masks[:60]
    scalar = agents.load(model, seed=5, deterministic=False)
    expected = [scalar.act(o, m) for o, m in zip(obs, masks, strict=True)]
    agent = agents.load(model, seed=5, deterministic=False)
    np.testing.assert_array_equal(batched(agent).act_batch(obs, masks), expected)
    assert agent.rng.integers(1 << 62) == scalar.rng.integers(1 << 62)
    dead = masks[:3].copy()
    dead[1] = 0
    skipping = agents.load(model, seed=5, deterministic=False)
    rows = [skipping.act(obs[0], masks[0]), -1, skipping.act(obs[2], masks[2])]
    again = agents.load(model, seed=5, deterministic=False)
    assert batched(again).act_batch(obs[:3], dead).tolist() == rows
    with pytest.raises(ValueError, match="the action mask allows no action"):
        again.act(obs[1], dead[1])


def test_trained_policy_draws_what_choice_draws_row_by_row():
    """A sampling agent's batch draw (:meth:`agents.trained.TrainedAgent.choose`: one uniform
    per row that has probabilities, read through the row's cumulative distribution) is what
    ``Generator.choice(A, p=softmax(row))`` draws row by row from the same generator, for
    batches of any width and legality; rows with nothing legal, or with logits that are not
    numbers, draw nothing (``-1``)."""
    model = agents.SHIPPED_MODEL
    if not model.exists():
        pytest.skip("no shipped model")

    def row_by_row(logits, rng):
        legal = np.isfinite(logits).any(axis=1)
        z = np.exp(logits - np.where(legal, logits.max(axis=1), 0.0)[:, None])
        return [int(rng.choice(r.size, p=r / r.sum())) if r.sum() > 0 else -1 for r in z]

    data = np.random.default_rng(0)
    for seed in range(40):
        rows, width = int(data.integers(1, 80)), int(data.integers(1, 1600))
        logits = data.normal(size=(rows, width)) * data.uniform(0.1, 30.0)
        logits[data.random((rows, width)) > data.uniform(0.002, 0.5)] = -np.inf
        logits[data.random(rows) < 0.1] = -np.inf
        logits[data.random(rows) < 0.05, 0] = np.nan
        agent, reference = agents.load(model, seed=seed, deterministic=False), np.random.default_rng(seed)
        assert agent.choose(logits).tolist() == row_by_row(logits, reference)
        assert agent.rng.bit_generator.state == reference.bit_generator.state  # as many draws


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
