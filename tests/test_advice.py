"""Advised (residual) policies: the advice column, a policy that starts as its advisor, and
a checkpoint that carries its advisor into ``agents.load``."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

import gymnasium  # noqa: E402
import torch  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

import agents  # noqa: E402
import yaniv_env  # noqa: E402
from agents import trained  # noqa: E402
from agents.advice import advised, make_advisor  # noqa: E402
from training.cli import train as T  # noqa: E402
from training.envs import VecAdvice  # noqa: E402

TINY = [
    "--algo", "maskable_ppo",  # the lean learner's advised runs: tests/test_ppo.py
    "--total-timesteps", "128", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
    "--net-arch", "32", "--opponents", "greedy", "--eval-every", "64", "--eval-games", "2",
    "--eval-opponents", "greedy", "--final-eval-games", "0",
    "--no-progress", "--torch-threads", "1", "--pretrain", "none", "--advice", "heuristic",
]  # fmt: skip


@pytest.fixture(scope="module")
def model_path(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    assert T.main([*TINY, "--output-dir", str(out), "--run-name", "advised", "--seed", "5"]) == 0
    return out / "advised" / "model.safetensors"


def advised_venv(n_envs: int, **kwargs) -> VecAdvice:
    """Yaniv environments against greedy under the advice wrapper (the heuristic's move)."""
    make = [lambda: gymnasium.make("yaniv_env/Yaniv-v0", opponents=["greedy"], **kwargs).unwrapped] * n_envs
    return VecAdvice(DummyVecEnv(make), "heuristic", seed=0)


def test_wrapper_appends_the_advisors_move():
    """On Gymnasium environments (a DummyVecEnv) as on the batched ones: the heuristic's move
    in the position, legal, after the game's observation; 0 after a final observation."""
    wrapped = advised_venv(2, episode="round")
    twin = agents.make("heuristic", seed=0)
    size = wrapped.venv.observation_space.shape[0]
    assert wrapped.observation_space.shape == (size + 1,)
    wrapped.seed(4)
    obs, ends = wrapped.reset(), 0
    for _ in range(80):
        masks = np.stack(wrapped.env_method("action_masks"))
        for row, mask in zip(obs, masks, strict=True):
            assert row[-1] == twin.act(row[:-1], mask) and mask[int(row[-1])]
        obs, _, dones, infos = wrapped.step(masks.argmax(axis=1))
        for i in np.flatnonzero(dones):
            final = infos[i]["terminal_observation"]
            assert final.shape == (size + 1,) and final[-1] == 0.0
            ends += 1
        assert all(wrapped.observation_space.contains(row) for row in obs)
    assert ends > 0


def test_advised_model_starts_as_its_advisor_and_records_it(model_path):
    meta = trained.read_metadata(model_path.with_suffix(".zip"))
    assert meta["advice"] == "heuristic" and meta["args"]["advice"] == "heuristic"
    bot = agents.load(model_path)
    assert bot.metadata["advice"] == "heuristic"
    twin = agents.make("heuristic", seed=1)
    env = yaniv_env.raw_env()
    env.reset(seed=11)
    agreed = 0
    for _ in range(200):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        mine = bot.act(obs["observation"], obs["action_mask"])
        agreed += mine == twin.act(obs["observation"], obs["action_mask"])
        env.step(mine)
    # 128 PPO steps at lr 1e-4 cannot outweigh the advice (scale 5): it plays as its advisor
    assert agreed == 200
    # the network's own logits are not the advisor's: the advice column is what decides
    logits = bot.logits(obs["observation"], obs["action_mask"])
    assert np.argmax(logits) == twin.act(obs["observation"], obs["action_mask"])


def test_advice_column_is_not_a_network_input(model_path):
    model = trained.load_model(model_path.with_suffix(".zip"), trusted=True)
    policy = model.policy
    size = model.observation_space.shape[0]
    assert policy.features_extractor.features_dim == size - 1
    assert policy.advice_scale.item() == pytest.approx(5.0, abs=0.5)
    # SB3's own predict (periodic evaluation) goes through get_distribution: same advice
    env = advised_venv(1)
    env.seed(2)
    obs = env.reset()[0]
    batch, masks = [], []
    for _ in range(8):
        batch.append(obs)
        masks.append(env.env_method("action_masks")[0])
        obs = env.step(np.array([int(obs[-1])]))[0][0]
    actions, _ = model.predict(np.stack(batch), action_masks=np.stack(masks), deterministic=True)
    assert actions.tolist() == [int(o[-1]) for o in batch]
    assert np.stack(batch)[:, -1].tolist() != [batch[0][-1]] * 8  # not one advice for the batch


def test_advice_is_passed_explicitly_not_kept_between_calls(model_path):
    policy = agents.load(model_path).policy
    assert not hasattr(policy.features_extractor, "advice")  # the extractor keeps nothing
    obs = torch.as_tensor(np.random.default_rng(0).random((6, policy.observation_space.shape[0]), np.float32))
    obs[:, -1] = torch.arange(6) * 7
    other = obs.clone()
    other[:, -1] = torch.arange(6) * 11 + 1
    with torch.no_grad():
        alone = policy.get_distribution(obs).distribution.logits
        policy.get_distribution(other[:2])  # another batch in between, of another size
        _, log_prob, _ = policy.evaluate_actions(obs, torch.arange(6) * 7)
        again = policy.get_distribution(obs).distribution.logits
    assert torch.equal(alone, again)
    assert torch.allclose(log_prob, alone[torch.arange(6), torch.arange(6) * 7])
    assert (alone.argmax(1) == torch.arange(6) * 7).all()  # the advice (scale 5) decides
    with pytest.raises(RuntimeError, match="needs the advice"):
        policy._get_action_dist_from_latent(torch.zeros(1, 32))


def test_unknown_advisor_is_refused(model_path, tmp_path):
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(model_path.with_suffix(".zip")) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == trained.META_NAME:
                meta = json.loads(data)
                meta["advice"] = "no_such_agent"
                data = json.dumps(meta).encode()
            dst.writestr(item, data)
    with pytest.raises(ValueError, match="no_such_agent"):
        agents.load(bad, trusted=True)


def test_unknown_advice_option_is_refused(tmp_path):
    with pytest.raises(T.ConfigError, match="--advice"):
        T.train(*T.parse_args(["--advice", "no_such_agent", "--output-dir", str(tmp_path), "--no-progress"]))


def test_advised_observation_helper_on_a_final_observation():
    obs = np.zeros(5, dtype=np.float32)
    out = advised(make_advisor("random", yaniv_env.get_rules("standard"), seed=0), obs, np.zeros(3, dtype=np.int8))
    assert out.shape == (6,) and out[-1] == 0.0


def test_imitation_with_advice_reports_the_teachers_departures(tmp_path):
    args = [*TINY, "--pretrain", "greedy", "--pretrain-samples", "400", "--pretrain-epochs", "1", "--eval-every", "0"]
    args += ["--pretrain-departure-weight", "3"]
    assert T.main([*args, "--output-dir", str(tmp_path), "--run-name", "distil", "--seed", "2"]) == 0
    info = trained.read_metadata(tmp_path / "distil" / "model.zip")["pretrain"]
    # greedy and the heuristic disagree often: those decisions are what imitation must learn
    assert 0.05 < info["teacher_departs"] < 1.0
    assert 0.0 <= info["held_out_departure_accuracy"] <= 1.0


def test_departure_weight_must_be_positive(tmp_path):
    argv = ["--advice", "heuristic", "--pretrain-departure-weight", "0", "--output-dir", str(tmp_path)]
    with pytest.raises(T.ConfigError, match="departure-weight"):
        T.train(*T.parse_args([*argv, "--no-progress"]))


def test_demonstrations_are_saved_reused_and_checked(tmp_path):
    data = tmp_path / "greedy_demos.npz"
    args = [*TINY, "--pretrain", "greedy", "--pretrain-samples", "300", "--pretrain-epochs", "1"]
    args += ["--pretrain-data", str(data), "--output-dir", str(tmp_path)]
    assert T.main([*args, "--run-name", "first"]) == 0
    first = trained.read_metadata(tmp_path / "first" / "model.zip")["pretrain"]
    assert data.is_file() and first["source"].startswith("collected, saved")
    assert T.main([*args, "--run-name", "second", "--seed", "9"]) == 0
    second = trained.read_metadata(tmp_path / "second" / "model.zip")["pretrain"]
    assert second["source"].startswith("loaded from") and second["collect_seconds"] == 0.0
    assert (second["samples"], second["held_out"], second["teacher_departs"]) == (
        first["samples"],
        first["held_out"],
        first["teacher_departs"],
    )
    # other settings (here the discount of the stored returns) are refused, naming them
    with pytest.raises(T.ConfigError, match="gamma"):
        T.train(*T.parse_args([*args, "--run-name", "third", "--gamma", "0.9"]))
    data.write_bytes(data.read_bytes()[:100])
    with pytest.raises(T.ConfigError, match="not a demonstration file"):
        T.train(*T.parse_args([*args, "--run-name", "fourth"]))


def test_collection_keeps_the_asked_decisions_with_many_envs_and_whole_games(tmp_path):
    """Whole-game episodes on 64 environments leave tens of thousands of decisions in
    episodes still open when the budget is reached; they are dropped, never counted, and
    the collection runs on until the finished episodes hold the decisions asked for."""
    from training.imitation import collect_demonstrations
    from training.plan import make_plan

    argv = ["--n-envs", "64", "--episode", "game", "--opponents", "greedy", "--no-progress"]
    plan = make_plan(*T.parse_args([*argv, "--pretrain", "greedy", "--pretrain-samples", "3000"]))
    data = collect_demonstrations(plan.imitation, seed=3)
    kept = len(data["act"])
    assert kept >= 3000
    # every kept decision belongs to a finished episode, numbered 0..episodes-1
    assert set(np.unique(data["episode"])) == set(range(data["episodes"]))
    assert len(data["obs"]) == len(data["mask"]) == len(data["ret"]) == kept
    assert data["mask"][np.arange(kept), data["act"]].all()  # the teacher's moves are legal


def test_imitating_the_advisor_itself_reports_no_departures(tmp_path, capsys):
    args = [*TINY, "--pretrain", "heuristic", "--pretrain-samples", "300", "--pretrain-epochs", "1"]
    assert T.main([*args, "--eval-every", "0", "--output-dir", str(tmp_path), "--run-name", "self"]) == 0
    info = trained.read_metadata(tmp_path / "self" / "model.zip")["pretrain"]
    assert info["teacher_departs"] == 0.0 and "held_out_departure_accuracy" not in info
    assert "none held out to copy" in capsys.readouterr().out


def test_soft_targets_from_the_searchs_rollout_values():
    """policy_targets: searched decisions get a softmax of their candidates' values, the
    others the move played; every column is a legal move, padded ones with probability 0."""
    from training.imitation import policy_targets

    data = {
        "act": np.array([7, 3, 9]),
        "cand_act": np.array([[7, 8, -1], [-1, -1, -1], [9, 2, 4]], dtype=np.int16),
        "cand_value": np.array([[-2.0, -3.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0 + np.log(2)]], dtype=np.float32),
    }
    idx, prob = policy_targets(data, temperature=1.0)
    assert idx.tolist() == [[7, 8, 7], [3, 3, 3], [9, 2, 4]]
    e = np.exp(-1.0)
    np.testing.assert_allclose(prob[0], [1 / (1 + e), e / (1 + e), 0.0], rtol=1e-6)
    np.testing.assert_allclose(prob[1], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(prob[2], [0.25, 0.25, 0.5], rtol=1e-6)
    # a low temperature is the best-valued move; temperature 0 the move played
    assert policy_targets(data, 0.01)[1][0].round(6).tolist() == [1.0, 0.0, 0.0]
    idx0, prob0 = policy_targets(data, 0.0)
    assert idx0.tolist() == [[7], [3], [9]] and prob0.tolist() == [[1.0], [1.0], [1.0]]


def test_soft_targets_need_a_teacher_with_values(tmp_path):
    argv = ["--pretrain", "greedy", "--pretrain-temperature", "1", "--output-dir", str(tmp_path), "--no-progress"]
    with pytest.raises(T.ConfigError, match="rollout values"):
        T.train(*T.parse_args(argv))
    with pytest.raises(T.ConfigError, match="at least 0"):
        T.train(*T.parse_args([*argv[:3], "-1", *argv[4:]]))


def test_imitation_of_search_fast_with_soft_targets(tmp_path):
    data = tmp_path / "search_demos.npz"
    args = [*TINY, "--pretrain", "search_fast", "--pretrain-samples", "300", "--pretrain-epochs", "1"]
    args += ["--pretrain-data", str(data), "--output-dir", str(tmp_path), "--eval-every", "0"]
    assert T.main([*args, "--run-name", "soft", "--pretrain-temperature", "2"]) == 0
    info = trained.read_metadata(tmp_path / "soft" / "model.zip")["pretrain"]
    assert info["temperature"] == 2.0 and 0.0 < info["soft_targets"] < 1.0
    with np.load(data) as z:  # the searched decisions' candidates are saved with their values
        searched = z["cand_act"] >= 0
        assert searched.any() and z["cand_value"].shape == z["cand_act"].shape
        act = z["act"][searched.any(axis=1)]
        # the move the search played is one of its candidates
        assert (z["cand_act"][searched.any(axis=1)] == act[:, None]).any(axis=1).all()


def test_teacher_options_are_read_checked_and_keyed(tmp_path):
    from training.config import teacher_options
    from training.imitation import demonstration_key
    from training.plan import make_plan

    argv = ["--pretrain", "search_fast", "--output-dir", str(tmp_path)]
    options = ["--pretrain-option", "candidates=8", "--pretrain-option", "cost_window=20.0"]
    args, given = T.parse_args([*argv, *options, "--pretrain-option", "sample_bias=None"])
    assert teacher_options(args) == {"candidates": 8, "cost_window": 20.0, "sample_bias": None}
    wide = demonstration_key(make_plan(args, given).imitation)
    # demonstrations of another search are not reused
    plain = demonstration_key(make_plan(*T.parse_args(argv)).imitation)
    assert wide["teacher_options"] != plain["teacher_options"] == {}


@pytest.mark.parametrize(
    "option, message",
    [("candidates", "expected key=value"), ("colour=3", "unknown search options: colour")],
)
def test_teacher_options_refused(tmp_path, option, message):
    argv = ["--pretrain", "search_fast", "--pretrain-option", option, "--output-dir", str(tmp_path), "--no-progress"]
    with pytest.raises(T.ConfigError, match=message):
        T.train(*T.parse_args(argv))


def test_dagger_records_the_teachers_moves_in_the_students_games():
    """With a student, the student's moves are played and the teacher's are recorded:
    here the student always plays its first legal move and the teacher is the heuristic
    (which decides from the observation alone, with no random tie-break), so every
    recorded move is the heuristic's in that position, and many differ from what was
    played."""
    from agents.batched import batched
    from training.imitation import collect_demonstrations
    from training.plan import make_plan

    argv = ["--n-envs", "8", "--episode", "round", "--opponents", "greedy", "--no-progress"]
    plan = make_plan(*T.parse_args([*argv, "--pretrain", "heuristic", "--advice", "none"]))
    rules = plan.rules

    def first_legal(obs, masks):
        return np.argmax(masks, axis=1)

    data = collect_demonstrations(plan.imitation, seed=4, samples=600, student=first_legal)
    assert len(data["act"]) >= 600
    heuristic = batched("heuristic", seed=0, rules=rules)
    np.testing.assert_array_equal(data["act"], heuristic.act_batch(data["obs"], data["mask"]))
    played = np.argmax(data["mask"], axis=1)
    assert (data["act"] != played).mean() > 0.3


def test_dagger_rounds_add_the_students_positions(tmp_path, capsys):
    args = [*TINY, "--pretrain", "greedy", "--pretrain-samples", "300", "--pretrain-epochs", "1", "--eval-every", "0"]
    args += ["--dagger-rounds", "2", "--dagger-samples", "200", "--dagger-epochs", "1", "--output-dir", str(tmp_path)]
    assert T.main([*args, "--run-name", "plain", "--dagger-rounds", "0"]) == 0
    assert T.main([*args, "--run-name", "dagger"]) == 0
    plain = trained.read_metadata(tmp_path / "plain" / "model.zip")["pretrain"]
    info = trained.read_metadata(tmp_path / "dagger" / "model.zip")["pretrain"]
    assert "dagger" not in plain and len(info["dagger"]) == 2
    assert all(r["decisions"] >= 200 and 0.0 <= r["agreement"] <= 1.0 for r in info["dagger"])
    # the fit's decisions: the teacher's own games, then each round's (5% held out)
    assert info["samples"] + info["held_out"] == plain["samples"] + plain["held_out"] + sum(
        r["decisions"] for r in info["dagger"]
    )
    assert "DAgger round 2/2" in capsys.readouterr().out


@pytest.mark.parametrize("option", [["--dagger-rounds", "-1"], ["--dagger-rounds", "1", "--dagger-samples", "0"]])
def test_dagger_options_refused(tmp_path, option):
    argv = ["--pretrain", "greedy", *option, "--output-dir", str(tmp_path), "--no-progress"]
    with pytest.raises(T.ConfigError, match="--dagger"):
        T.train(*T.parse_args(argv))


def test_a_model_advised_by_the_search_trains_loads_and_plays_on_the_scalar_engine(tmp_path):
    """The search keeps a memory per row of its batch, so a model it advises is not played
    on the batched engine (whose rows change hands between calls): evaluations fall back to
    the scalar engine, and the games are the model's own, advisor included."""
    from agents.evaluation import batched_runner, evaluate

    argv = [a if a != "heuristic" else "round_search" for a in TINY]
    argv += ["--rules", "seven", "--episode", "round", "--reward", "round_win", "--eval-every", "0"]
    assert T.main([*argv, "--output-dir", str(tmp_path), "--run-name", "round", "--seed", "3"]) == 0
    path = tmp_path / "round" / "model.safetensors"
    bot = agents.load(path)
    assert bot.metadata["advice"] == "round_search"
    assert "has no batched version" in batched_runner.batched_problem([str(path), "heuristic"], ["m", "h"], bot.rules)
    result = evaluate([str(path), "heuristic"], rules="seven", games=4, seed=2, episode="round")
    assert len(result.records) == 4
