"""``yaniv train`` on the batched vector environment (``--vec-env batched``, the default where
it can run): the SB3 wrappers give what the single-environment wrappers give on the same
games, opponents are drawn per episode from the mix, and a tiny run trains, resumes and
refuses what the batched engine cannot play (the self-play league: tests/test_league_vec.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from agents.advice import AdviceWrapper  # noqa: E402
from agents.batched import batched  # noqa: E402
from training.cli import train as T  # noqa: E402
from training.envs import VecAdvice, VecHandShaping  # noqa: E402
from training.plan import make_plan  # noqa: E402
from yaniv_env.yaniv.batched.envs import LearnerGames  # noqa: E402
from yaniv_env.yaniv.batched.sb3 import YanivVecEnv  # noqa: E402
from yaniv_env.yaniv.gym_env import YanivGymEnv  # noqa: E402


@pytest.mark.parametrize(("preset", "n", "opponent"), [("standard", 2, "heuristic"), ("seven", 3, "greedy")])
def test_vec_wrappers_match_single_env_wrappers(preset, n, opponent):
    """Shaped rewards, advised observations and episode ends: the batched stack equals a
    DummyVecEnv of YanivGymEnv + AdviceWrapper seeded alike under the same shaping, move by move."""
    kw = dict(num_players=n, opponents=[opponent], learner_seat="random", episode="round", turn_limit=40)
    B, seed = 3, 11
    vec = YanivVecEnv(preset, B, **kw)
    vec = VecAdvice(VecHandShaping(vec, coef=1.0, gamma=0.9), "heuristic", seed=0)
    ref = DummyVecEnv([lambda: AdviceWrapper(YanivGymEnv(preset, **kw), "heuristic", seed=0) for _ in range(B)])
    ref = VecHandShaping(ref, coef=1.0, gamma=0.9)
    vec.seed(seed)
    ref.seed(seed)
    obs, expected = vec.reset(), ref.reset()
    learner = batched("greedy", seed=5, rules=vec.get_attr("rules")[0])
    ends = 0
    for t in range(250):
        np.testing.assert_array_equal(obs, expected, err_msg=f"step {t}")
        masks = np.asarray(vec.env_method("action_masks"), dtype=bool)
        np.testing.assert_array_equal(masks, np.stack(ref.env_method("action_masks")))
        assert (obs[:, -1] == batched("heuristic", rules=vec.get_attr("rules")[0]).act_batch(obs[:, :-1], masks)).all()
        actions = learner.act_batch(obs[:, :-1], masks)
        obs, rewards, dones, _ = vec.step(actions)
        expected, ref_rewards, ref_dones, _ = ref.step(actions)
        np.testing.assert_allclose(rewards, ref_rewards, rtol=1e-6, atol=1e-6, err_msg=f"step {t}")
        np.testing.assert_array_equal(dones, ref_dones)
        ends += int(dones.sum())
    assert ends > 0


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
