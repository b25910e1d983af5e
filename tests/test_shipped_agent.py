"""The trained agent shipped in agents/models: it loads, plays only legal moves, refuses
other rules, and an export for play keeps its decisions."""

import numpy as np
import pytest

import agents
import yaniv_env
from agents.trained import export_for_play, read_metadata
from training.evaluate import evaluate


def test_shipped_model_is_small_and_described():
    assert agents.SHIPPED_MODEL.is_file()
    assert agents.SHIPPED_MODEL.stat().st_size < 5_000_000
    meta = read_metadata(agents.SHIPPED_MODEL)
    assert meta["rules"]["name"] == "standard" and meta["num_players"] == 2
    assert meta["exported_for_play"] is True


def test_shipped_agent_plays_legal_moves():
    bot = agents.make("ppo", seed=0)
    opponent = agents.make("random", seed=1)
    env = yaniv_env.raw_env(rules="standard", num_players=2, episode="round")
    for seed in range(3):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            policy = bot if agent == "player_0" else opponent
            action = policy.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)


def test_shipped_agent_refuses_other_rules():
    with pytest.raises(ValueError, match="seven"):
        agents.make("ppo", rules="seven")
    with pytest.raises(ValueError):
        agents.make("ppo", rules="standard", num_players=3)


def test_export_for_play_keeps_the_policy(tmp_path):
    copy = export_for_play(agents.SHIPPED_MODEL, tmp_path / "copy.zip")
    a, b = agents.load(agents.SHIPPED_MODEL), agents.load(copy)
    env = yaniv_env.raw_env(rules="standard", num_players=2)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs = env.observe(env.agent_selection)
        assert a.act(obs["observation"], obs["action_mask"]) == b.act(obs["observation"], obs["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.slow
def test_shipped_agent_beats_heuristic():
    """The README's measurement (2,000 duplicate games, seed 4001): the lower bound of
    the game win rate's 95% interval is above 55%."""
    result = evaluate([str(agents.SHIPPED_MODEL), "heuristic"], games=2000, seed=4001, workers=2)
    rate = result.stats[result.labels[0]].metrics["game_win_rate"]
    assert rate.low > 0.55, (rate.value, rate.low, rate.high)
