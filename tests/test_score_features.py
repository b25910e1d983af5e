"""Score features (``--score-features``, :class:`agents.networks.ScoreFeatures`): the
tables follow each preset's milestones and score limit, the features computed in torch
from observation vectors match the same quantities read from the decoded observations of
real games, and a model trained with them saves, loads and plays like any other."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium  # noqa: E402
import torch  # noqa: E402

import agents  # noqa: E402
from agents.networks import (  # noqa: E402
    MAX_PARAMETERS,
    SCORE_HORIZON,
    ScoreFeatures,
    action_features,
    build_policy,
    check_description,
    parameter_count,
    score_feature_tables,
    score_features_size,
)
from training.cli import train as T  # noqa: E402
from yaniv_env.core.game import rules_to_dict  # noqa: E402
from yaniv_env.yaniv import engine  # noqa: E402
from yaniv_env.yaniv.cards import YANIV_VALUE  # noqa: E402
from yaniv_env.yaniv.observation import ObservationLayout  # noqa: E402
from yaniv_env.yaniv.rules import get_rules  # noqa: E402

H = SCORE_HORIZON


@pytest.mark.parametrize(
    "preset, totals, to_milestone",
    [
        # halving at every positive multiple of 50 (200 included: the rules halve it first)
        ("standard", [0, 1, 43, 49, 50, 51, 99, 150, 199], [H, 49, 7, 1, H, 49, 1, H, 1]),
        # only 50 and 100 change (the table), and the game ends past 100
        ("seven", [0, 7, 49, 50, 99, 100], [H, 43, 1, H, 1, H]),
        # subtracting 50 at multiples of 50 up to 200
        ("french", [0, 10, 149, 199, 200], [H, 40, 1, 1, H]),
        # no milestones at all
        ("two_deck", [0, 49, 99], [H, H, H]),
    ],
)
def test_distance_to_the_next_milestone_follows_the_rules(preset, totals, to_milestone):
    tables = score_feature_tables(get_rules(preset, 2))
    assert tables["to_milestone"][totals].tolist() == to_milestone


def test_headroom_counts_the_points_before_the_limit():
    standard = score_feature_tables(get_rules("standard", 2))["headroom"]  # reaching 200 is out
    french = score_feature_tables(get_rules("french", 2))["headroom"]  # passing 200 is out
    assert standard[[0, 150, 160, 199, 200]].tolist() == [H, 49, 39, 0, 0]
    assert french[[150, 160, 199, 200]].tolist() == [50, 40, 1, 0]


def _expected(layout: ObservationLayout, obs: np.ndarray) -> np.ndarray:
    """The score features from the decoded observation, the slow and obvious way."""
    rules = layout.rules
    view = layout.decode(obs)
    half = H // 2

    def to_milestone(total: int) -> int:
        for d in range(1, H):
            if engine.after_milestone(rules, total + d) != total + d:
                return d
        return H

    last_safe = rules.score_limit - (1 if rules.limit_inclusive else 0)
    parts = []
    for total in view.scores:
        parts.append(np.eye(H + 1)[to_milestone(min(total, rules.score_limit))])
    for total in view.scores:
        parts.append(np.eye(H + 1)[min(H, max(0, last_safe - min(total, rules.score_limit)))])
    gap = to_milestone(min(view.scores[0], rules.score_limit)) - sum(YANIV_VALUE[k] for k in view.hand)
    parts.append(np.eye(H + 1)[min(half, max(-half, gap)) + half])
    return np.concatenate(parts).astype(np.float32)


@pytest.mark.parametrize("preset, players", [("standard", 2), ("standard", 3), ("seven", 2), ("french", 4)])
def test_features_match_the_decoded_observations_of_real_games(preset, players):
    rules = get_rules(preset, players)
    layout = ObservationLayout(rules)
    env = gymnasium.make(
        "yaniv_env/Yaniv-v0", rules=preset, num_players=players, opponents=["heuristic"], disable_env_checker=True
    )
    space = gymnasium.spaces.Box(-np.inf, np.inf, (layout.size,), np.float32)
    extractor = ScoreFeatures(space, rules_to_dict(rules))
    rng = np.random.default_rng(3)
    observations = []
    obs, _ = env.reset(seed=11)
    while len(observations) < 1500:
        observations.append(obs)
        mask = env.unwrapped.action_masks()
        obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            obs, _ = env.reset()
    batch = np.stack(observations)
    got = extractor(torch.as_tensor(batch)).numpy()
    assert got.shape == (len(batch), layout.size + score_features_size(players))
    assert np.array_equal(got[:, : layout.size], batch)
    expected = np.stack([_expected(layout, o) for o in batch])
    assert np.array_equal(got[:, layout.size :], expected)
    # the games reached totals where the features differ (not only the start of a game)
    assert len({tuple(row) for row in expected[:, : players * (H + 1)]}) > 5


def test_action_value_one_hot():
    rules = get_rules("standard", 2)
    plain, valued = action_features(rules), action_features(rules, value_one_hot=True)
    assert np.array_equal(valued[:, : plain.shape[1]], plain)
    assert np.all(valued[:, plain.shape[1] :].sum(axis=1) == 1)
    from yaniv_env.yaniv.actions import action_table

    table = action_table(rules)
    for a in range(0, table.num_actions, 97):
        value = sum(YANIV_VALUE[k] for k in table.decode(a).cards)
        assert valued[a, plain.shape[1] + min(H, value)] == 1


def test_trained_with_score_features_saves_loads_and_plays_the_same(tmp_path):
    args = [
        "--algo", "maskable_ppo",
        "--score-features", "--total-timesteps", "128", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64",
        "--n-epochs", "1", "--net-arch", "32", "--opponents", "greedy", "--eval-every", "0",
        "--final-eval-games", "0", "--no-progress", "--pretrain", "none", "--output-dir", str(tmp_path),
        "--run-name", "scored", "--seed", "3",
    ]  # fmt: skip
    assert T.main(args) == 0
    run = tmp_path / "scored"
    play = agents.load(run / "model.safetensors", seed=0)
    assert isinstance(play.policy.pi_features_extractor, ScoreFeatures)
    zipped = agents.load(run / "model.zip", seed=0, trusted=True)
    env = gymnasium.make("yaniv_env/Yaniv-v0", opponents=["greedy"], disable_env_checker=True)
    obs, _ = env.reset(seed=2)
    for _ in range(200):
        mask = env.unwrapped.action_masks()
        action = play.act(obs, mask)
        assert action == zipped.act(obs, mask) and mask[action]
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()


def test_bad_score_features_are_refused(tmp_path):
    argv = ["--algo", "maskable_ppo", "--score-features", "--no-action-features", "--no-progress"]
    argv += ["--output-dir", str(tmp_path)]
    with pytest.raises(T.ConfigError, match="--score-features .* needs --action-features"):
        T.train(*T.parse_args(argv))
    assert not any(tmp_path.iterdir())  # refused before a run directory was made
    description = build_policy_description()
    for bad in ("yes", 1.5):
        with pytest.raises(ValueError, match="score_features"):
            check_description({**description, "score_features": bad})
    with pytest.raises(ValueError, match="score_features"):
        check_description({**description, "policy": "MlpPolicy", "score_features": True})
    # 58·n + 294 (+1 under a fixed round count) and the advice column: 2 more match nothing
    with pytest.raises(ValueError, match="matches no player count"):
        check_description({**description, "observation_size": description["observation_size"] + 2})

    # the parameter bound counts the appended features: a width that fits without them, not with them
    def sized(width: int, **changes) -> dict:
        return {**description, "net_arch": {"pi": [width], "vf": [width]}, **changes}

    plain = parameter_count(sized(2, score_features=False)) - parameter_count(sized(1, score_features=False))
    offset = parameter_count(sized(1, score_features=False)) - plain
    wide = sized((MAX_PARAMETERS - offset) // plain)
    check_description({**wide, "score_features": False})
    with pytest.raises(ValueError, match="parameters"):
        check_description(wide)
    policy = build_policy(description)
    assert isinstance(policy.pi_features_extractor, ScoreFeatures)


def build_policy_description() -> dict:
    rules = get_rules("standard", 2)
    layout = ObservationLayout(rules)
    from yaniv_env.yaniv.actions import action_table

    return {
        "policy": "AdvisedPolicy",
        "observation_size": layout.size + 1,
        "num_actions": action_table(rules).num_actions,
        "net_arch": {"pi": [16], "vf": [16]},
        "activation": "relu",
        "share_features_extractor": True,
        "action_rules": rules_to_dict(rules),
        "advice_scale": 5.0,
        "score_features": True,
    }
