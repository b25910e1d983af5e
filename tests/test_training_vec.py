"""``yaniv train`` on the batched vector environment (``--vec-env batched``, the default where
it can run): both kinds of training environment, under the same wrappers, play the same games
(opponents drawn per episode from the mix and the pool alike), a tiny run trains, resumes and
refuses what the batched engine cannot play (the self-play league: tests/test_league_vec.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from agents.batched import batched  # noqa: E402
from training.cli import train as T  # noqa: E402
from training.envs import EnvSpec, make_train_venv  # noqa: E402
from training.plan import make_plan  # noqa: E402
from yaniv_env import get_rules  # noqa: E402
from yaniv_env.yaniv.batched.envs import LearnerGames  # noqa: E402


@pytest.mark.parametrize(
    ("preset", "n", "mix"),
    [("standard", 2, (("heuristic", 1.0), ("greedy", 1.0))), ("seven", 3, (("greedy", 1.0), ("random", 1.0)))],
)
def test_both_kinds_play_the_same_games_under_the_same_wrappers(preset, n, mix):
    """``make_train_venv`` of the batched kind and of the dummy kind (one YanivGymEnv each),
    seeded alike: the same observations (the advice column last, the advisor's move), masks,
    shaped rewards, episode ends and opponents, move by move; with a pool too (the
    heuristic, which decides without drawing), seated with its probability, labelled "pool"."""
    spec = EnvSpec(
        game="yaniv", rules=get_rules(preset, n), learner_seat="random", episode="round", reward="score_outcome",
        turn_limit=40, shaping=1.0, gamma=0.9, advice="heuristic", mix=mix, league=False, league_prob=0.0,
        league_deterministic=True, gate_episode="round",
    )  # fmt: skip
    B = 3
    vec, ref = (make_train_venv(spec, 11, B, None, kind, advice_seed=0) for kind in ("batched", "dummy"))
    rules = vec.get_attr("rules")[0]
    assert rules == ref.get_attr("rules")[0] and vec.observation_space == ref.observation_space
    advisor, learner = batched("heuristic", rules=rules), batched("greedy", seed=5, rules=rules)
    obs, expected = vec.reset(), ref.reset()
    labels = []
    for t in range(500):
        if t == 250:  # from the next episodes on, each other seat is the pool's member with p = 0.5
            assert vec.env_method("set_pool", ["heuristic"], 0.5) == [1] * B
            assert ref.env_method("set_pool", ["heuristic"], 0.5) == [1] * B
        np.testing.assert_array_equal(obs, expected, err_msg=f"step {t}")
        masks = np.asarray(vec.env_method("action_masks"), dtype=bool)
        np.testing.assert_array_equal(masks, np.stack(ref.env_method("action_masks")))
        np.testing.assert_array_equal(obs[:, -1], advisor.act_batch(obs[:, :-1], masks))
        actions = learner.act_batch(obs[:, :-1], masks)
        obs, rewards, dones, infos = vec.step(actions)
        expected, ref_rewards, ref_dones, ref_infos = ref.step(actions)
        np.testing.assert_allclose(rewards, ref_rewards, rtol=1e-6, atol=1e-6, err_msg=f"step {t}")
        np.testing.assert_array_equal(dones, ref_dones)
        for i in np.flatnonzero(dones):
            assert infos[i]["opponent"] == ref_infos[i]["opponent"]
            labels.append((t, infos[i]["opponent"]))
    assert {name for _, label in labels for name in label.split("+")} == {name for name, _ in mix} | {"pool"}
    assert all("pool" not in label for t, label in labels if t <= 250)  # none before set_pool


def test_opponent_mix_is_drawn_per_episode_and_reproducible():
    def labels(seed):
        g = LearnerGames("standard", 8, opponent_mix=[("random", 1.0), ("greedy", 1.0)], episode="round")
        obs, seen = g.reset(seed), []
        learner = batched("greedy", seed=1, rules=g.rules)
        for _ in range(150):
            obs, *_, ended = g.step(learner.act_batch(obs, g.action_masks()))
            if ended.any():
                seen.extend(g.ended_opponents)
        return seen

    first = labels(3)
    assert set(first) == {"random", "greedy"} and len(first) > 20
    assert labels(3) == first
    with pytest.raises(ValueError, match="not both"):
        LearnerGames("standard", 2, opponents="random", opponent_mix=[("greedy", 1.0)])
    with pytest.raises(ValueError, match="positive sum"):
        LearnerGames("standard", 2, opponent_mix=[("greedy", 0.0)])


def test_vec_env_kind_auto_and_refusals(tmp_path):
    def plan(*argv):
        argv = ["--algo", "maskable_ppo", *argv, "--output-dir", str(tmp_path), "--pretrain", "none"]
        return make_plan(*T.parse_args(argv))

    assert plan().kind == "batched"
    assert plan("--league").kind == "batched"  # the pool acts in batch too
    assert plan("--league", "--vec-env", "dummy").kind == "dummy"
    assert plan("--set", "run_pickup=top", "--set", "set_jokers=any").kind == "batched"
    assert plan("--game", "pis_yedili").kind == "dummy"
    with pytest.raises(ValueError, match="--vec-env batched: the batched engine plays Yaniv"):
        plan("--game", "pis_yedili", "--vec-env", "batched")
    assert plan("--vec-env", "subproc").kind == "subproc"


def test_tiny_batched_run_trains_resumes_and_evaluates(tmp_path: Path, capsys):
    tiny = [
        "--algo", "maskable_ppo",
        "--total-timesteps", "512", "--n-envs", "8", "--n-steps", "32", "--batch-size", "64", "--n-epochs", "1",
        "--net-arch", "32", "--opponents", "random:1,heuristic:1", "--eval-every", "0", "--final-eval-games", "0",
        "--no-progress", "--pretrain", "heuristic", "--pretrain-samples", "400", "--pretrain-epochs", "1",
        "--advice", "heuristic", "--episode", "round", "--output-dir", str(tmp_path), "--run-name", "vec",
        "--seed", "4",
    ]  # fmt: skip
    assert T.main(tiny) == 0
    out = capsys.readouterr().out
    assert "8 envs (batched)" in out
    monitor = (tmp_path / "vec" / "monitor" / "00_batched.monitor.csv").read_text().splitlines()
    assert monitor[1].split(",")[-1] == "opponent" and len(monitor) > 2
    assert {line.split(",")[-1] for line in monitor[2:]} <= {"random", "heuristic"}
    assert T.main(["--resume", str(tmp_path / "vec"), "--total-timesteps", "1024", "--no-progress"]) == 0
    assert "resuming at 512 timesteps" in capsys.readouterr().out
    pis = ["--game", "pis_yedili", "--vec-env", "batched", "--output-dir", str(tmp_path), "--run-name", "bad"]
    assert T.main(pis) == 2
    assert "--vec-env batched: the batched engine plays Yaniv" in capsys.readouterr().err
