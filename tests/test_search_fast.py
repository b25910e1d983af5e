"""``search_fast``: the search with the full heuristic as its rollout policy makes, decision
for decision, the choices of ``search`` with ``rollout="full"``, and keeps one game's memory per
row of a batch."""

import numpy as np
import pytest

pytest.importorskip("numba")

import agents  # noqa: E402
from agents.batched import batched  # noqa: E402
from agents.search_fast import FastSearchAgent  # noqa: E402
from yaniv_env import raw_env  # noqa: E402


@pytest.mark.parametrize(
    ("preset", "players", "options"),
    [
        ("standard", 2, {}),
        ("standard", 3, {}),
        ("french", 2, {}),
        ("seven", 4, {}),
        ("seven", 2, {"value": "round", "game_weight": 0.0}),
        ("standard", 3, {"value": "points"}),
    ],
)
def test_search_fast_decides_as_search_with_full_rollouts(preset, players, options):
    env = raw_env(rules=preset, num_players=players)
    env.reset(seed=5)
    reference = agents.make("search", seed=9, rules=env.rules, rollout="full", **options)
    fast = agents.make("search_fast", seed=9, rules=env.rules, **options)
    others = [agents.make("heuristic", seed=p, rules=env.rules) for p in range(players)]
    decisions = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(name)
        if seat == 0:
            action = reference.act(obs["observation"], obs["action_mask"])
            assert fast.act(obs["observation"], obs["action_mask"]) == action, decisions
            decisions += 1
        else:
            action = others[seat].act(obs["observation"], obs["action_mask"])
        env.step(action)
        if decisions >= 150:
            break
    assert reference.searched > 3 and fast.searched == reference.searched


def test_search_fast_keeps_one_memory_per_row_and_is_its_own_batch():
    fast = agents.make("search_fast", seed=1)
    assert batched(fast) is fast and batched("search_fast", seed=1).name == "search_fast"
    env = raw_env()
    rows_obs, rows_masks = [], []
    for seed in (1, 2):
        env.reset(seed=seed)
        obs = env.observe(env.agent_selection)
        rows_obs.append(obs["observation"])
        rows_masks.append(obs["action_mask"])
    masks = np.array(rows_masks)
    masks[1] = False
    actions = fast.act_batch(np.array(rows_obs), masks)
    assert actions[1] == -1 and masks[0, actions[0]]
    assert len(fast._memories) == 2
    with pytest.raises(TypeError, match="rollout"):
        agents.make("search_fast", rollout="lite")


def test_round_value_scores_a_round_won_as_one_and_anything_else_as_zero():
    search = agents.make("search", seed=0, value="round", game_weight=0.0)
    heuristic = agents.make("heuristic", seed=0)
    won = lost = 0
    for seed in range(12):
        env = raw_env(episode="round")
        env.reset(seed=seed)
        s = env.unwrapped.game
        scores0, alive0 = list(s.scores), list(s.alive)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else heuristic.act(obs["observation"], obs["action_mask"]))
        result = s.round_result
        value = search.rollout_value(0 in result.winners, result.points, s.scores, scores0, alive0, False, 0, False)
        assert value == (1.0 if 0 in result.winners else 0.0)
        won, lost = won + (value == 1.0), lost + (value == 0.0)
    assert won and lost


def test_round_search_is_search_fast_playing_for_the_round():
    bot = agents.make("round_search", seed=0, rules="seven")
    assert isinstance(bot, FastSearchAgent) and bot.name == "round_search"
    assert (bot.value, bot.game_weight, bot.simulations, bot.confidence) == ("round", 0.0, 80, 0.5)
    assert agents.make("round_search", seed=0, simulations=10).simulations == 10
    with pytest.raises(ValueError, match="'score', 'points', 'round'"):
        agents.make("round_search", value="rounds")
