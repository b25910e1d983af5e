"""The Ray path: env adapter, masking module, yaniv train-rllib, play-file export, yaniv eval --ray.

Tests marked ``rllib`` need the ``[rllib]`` extra (skipped without Ray; CI runs them in
their own environment: ``.ci/run-rllib``). The others run everywhere: Ray stays out of
every other path, the play file loads with torch alone, and a missing extra is one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent

# -- without Ray ------------------------------------------------------------------------------------------------


def _random_play_file(path: Path, num_players: int = 2, arch=(32,)) -> Path:
    """A play file of an untrained MaskedActorCritic-shaped network, written without Ray."""
    import torch

    import yaniv_env
    from training.rllib.export import play_metadata, write_play_file

    rules = yaniv_env.get_rules("standard", num_players)
    meta = play_metadata(rules, {"net_arch": list(arch), "activation": "relu"}, timesteps=0, training={})
    n_obs, n_act = meta["observation"]["size"], meta["actions"]["size"]
    g = torch.Generator().manual_seed(0)
    sizes = [n_obs, *arch]
    state = {}
    for net in ("policy_net", "value_net"):
        for i, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False)):
            state[f"mlp_extractor.{net}.{2 * i}.weight"] = torch.randn(b, a, generator=g) * 0.1
            state[f"mlp_extractor.{net}.{2 * i}.bias"] = torch.zeros(b)
    state["action_net.weight"] = torch.randn(n_act, sizes[-1], generator=g)
    state["action_net.bias"] = torch.zeros(n_act)
    state["value_net.weight"] = torch.randn(1, sizes[-1], generator=g)
    state["value_net.bias"] = torch.zeros(1)
    return write_play_file(path, state, meta)


def test_play_file_names_are_sb3_mlp_policy_names(tmp_path):
    """The exported weights are exactly the state dict of SB3's MlpPolicy of the same sizes,
    so the general play-format reader rebuilds them as an "MlpPolicy"."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn

    from agents.play_format import read_play_file as read

    meta, tensors = read(_random_play_file(tmp_path / "a.safetensors", arch=(32, 16)))
    net = meta["network"]
    policy = MaskableActorCriticPolicy(
        spaces.Box(-np.inf, np.inf, (net["observation_size"],), np.float32),
        spaces.Discrete(net["num_actions"]),
        lambda _: 0.0,
        net_arch=net["net_arch"],
        activation_fn=nn.ReLU,
    )
    wanted = {k: tuple(v.shape) for k, v in policy.state_dict().items()}
    assert wanted == {k: tuple(v.shape) for k, v in tensors.items()}
    policy.load_state_dict(tensors)  # strict


def test_play_file_plays_checks_rules_and_never_imports_ray(tmp_path):
    """A play file loads with torch alone (agents.load, yaniv eval), plays only legal moves,
    is refused under other rules or player counts; no path here imports Ray."""
    path = _random_play_file(tmp_path / "p.safetensors")
    code = f"""
import sys
import yaniv_env, agents, training, training.rllib, agents.evaluation, training.train, training.cli
from agents.evaluation import evaluate
bot = agents.load({str(path)!r})
res = evaluate([{str(path)!r}, "random"], num_players=2, games=4, episode="round", seed=1)
assert res.games == 4 and res.labels[0] == "p", res.labels
for kw in ({{"num_players": 3}}, {{"rules": "seven"}}):
    try:
        agents.load({str(path)!r}, **kw)
    except ValueError as e:
        print("refused:", e)
    else:
        raise SystemExit(f"accepted {{kw}}")
bad = [m for m in sys.modules if m == "ray" or m.startswith("ray.")]
assert not bad, bad
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("refused:") == 2 and "3 players" in out.stdout and out.stdout.strip().endswith("ok")


def test_play_file_corrupt_is_refused(tmp_path):
    import agents

    path = _random_play_file(tmp_path / "c.safetensors")
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(ValueError, match="not a valid yaniv play file"):
        agents.load(str(path))


@pytest.mark.parametrize(
    "argv",
    [["train-rllib", "--total-timesteps", "10"], ["eval", "--agents", "random,random", "--games", "2", "--ray"]],
)
def test_missing_extra_is_one_line(argv, tmp_path):
    """Without Ray (hidden here), both Ray commands end with one line naming the extra."""
    code = "import sys; sys.modules['ray'] = None; from training.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=tmp_path, timeout=120, env=env
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "yaniv-env[rllib]" in lines[0], out.stderr
    assert not any(tmp_path.iterdir())  # no run directory


# -- with Ray ---------------------------------------------------------------------------------------------------

rllib = pytest.mark.rllib


@rllib
def test_adapter_turns_rewards_and_mask_violation():
    from training.rllib.env import MaskViolation, YanivMultiAgentEnv

    env = YanivMultiAgentEnv({"num_players": 2, "reward": "outcome", "opponents": "self", "turn_limit": 60})
    rng = np.random.default_rng(0)
    for episode in range(3):
        obs, _ = env.reset(seed=episode)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        done = False
        while not done:
            assert len(obs) == 1
            (agent, o), = obs.items()  # fmt: skip
            legal = np.flatnonzero(o["action_mask"])
            obs, rewards, terminateds, _, _ = env.step({agent: int(rng.choice(legal))})
            for a, r in rewards.items():
                totals[a] += r
            done = terminateds["__all__"]
            if not done:
                assert set(obs) == {env.aec.agent_selection}
        assert set(terminateds) == {*env.possible_agents, "__all__"}
        assert sorted(totals.values()) in ([-1.0, 1.0], [0.0, 0.0])  # outcome: +1 / -1; a drawn round places nobody
    obs, _ = env.reset(seed=9)
    (agent, o), = obs.items()  # fmt: skip
    with pytest.raises(MaskViolation, match="forbids"):
        env.step({agent: int(np.flatnonzero(o["action_mask"] == 0)[0])})


@rllib
def test_adapter_baseline_seats_act_inside():
    from training.rllib.env import YanivMultiAgentEnv

    env = YanivMultiAgentEnv({"num_players": 3, "opponents": "heuristic", "seed": 3})
    rng = np.random.default_rng(1)
    for _ in range(2):
        obs, _ = env.reset()
        assert len(env.agents) == 1 and set(obs) <= set(env.agents)  # two heuristic seats, one policy seat
        done = False
        while not done:
            agent = next(a for a in obs if a in env.agents)
            obs, _, terminateds, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))})
            done = terminateds["__all__"]


@rllib
def test_module_never_samples_a_masked_action():
    import gymnasium
    import torch
    from ray.rllib.core.columns import Columns

    from training.rllib.module import MaskedActorCritic

    n_obs, n_act = 20, 50
    space = gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(0.0, 1.0, (n_obs,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (n_act,), np.int8),
        }
    )
    module = MaskedActorCritic(
        observation_space=space, action_space=gymnasium.spaces.Discrete(n_act), model_config={"net_arch": [16]}
    )
    g = torch.Generator().manual_seed(0)
    mask = (torch.rand(256, n_act, generator=g) < 0.1).to(torch.int8)
    mask[:, 7] = 1
    obs = {"observation": torch.rand(256, n_obs, generator=g), "action_mask": mask}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward({Columns.OBS: dict(obs)})[Columns.ACTION_DIST_INPUTS]
        dist = module.get_exploration_action_dist_cls().from_logits(logits.repeat(40, 1))
        assert mask.repeat(40, 1).gather(1, dist.sample()[:, None]).all()
        assert mask.gather(1, logits.argmax(1, keepdim=True)).all()  # inference's greedy action
    values = module.compute_values({Columns.OBS: obs})
    assert values.shape == (256,)


def _train(argv) -> int:
    from training.rllib import train

    return train.main(argv)


TINY = [
    "--total-timesteps", "400", "--rollout-steps", "200", "--batch-size", "100", "--n-epochs", "1",
    "--envs-per-runner", "2", "--net-arch", "32", "--checkpoint-every", "200",
]  # fmt: skip


@rllib
def test_unreachable_address_is_one_line_and_leaves_nothing(tmp_path, capsys):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nobody listens there
    assert _train([*TINY, "--address", f"127.0.0.1:{port}", "--output-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--address" in err[0] and "no Ray head" in err[0]
    assert not any(tmp_path.iterdir())


@rllib
def test_two_node_cluster_trains_exports_resumes_and_shards_a_tournament(tmp_path):
    """A head and a worker node (one CPU each) on this machine (one Ray start-up for all of
    it): train-rllib joins it through --address for a tiny 3-player run with baseline seats
    (the adapter raises MaskViolation on a masked action, so finishing proves none was
    sampled), exports an agent that plays, resumes with only the budget changed; eval --ray
    gives exactly the results of --workers."""
    import ray
    from ray.cluster_utils import Cluster

    import agents
    from agents.evaluation import evaluate
    from training.cli.eval import main as eval_main
    from training.rllib.shards import RayExecutor

    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}, shutdown_at_exit=True
    )
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        address = cluster.address
        argv = [*TINY, "--num-players", "3", "--opponents", "self:1,heuristic:1", "--env-runners", "1"]
        assert _train([*argv, "--address", address, "--output-dir", str(tmp_path), "--run-name", "c"]) == 0
        assert not ray.is_initialized()
        run = tmp_path / "c"
        status = json.loads((run / "run.json").read_text())
        assert status["complete"] and status["timesteps"] >= 400
        rows = (run / "progress.csv").read_text().splitlines()
        assert len(rows) == 1 + status["iterations"]
        assert any((run / "tb").iterdir())
        bot = agents.load(str(run / "agent.safetensors"), num_players=3)
        assert bot.timesteps == status["timesteps"]
        assert evaluate([str(run / "agent.safetensors"), "random"], num_players=3, games=3, episode="round").games == 3
        with pytest.raises(ValueError, match="2 players"):
            agents.load(str(run / "agent.safetensors"), num_players=2)
        # resume: only the budget may change
        assert _train(["--resume", str(run), "--total-timesteps", "600", "--address", address]) == 0
        again = json.loads((run / "run.json").read_text())
        assert again["complete"] and again["timesteps"] >= 600 and again["iterations"] > status["iterations"]
        assert _train(["--resume", str(run), "--num-players", "4"]) == 2
        entrants = ["heuristic", "greedy", "random"]
        kw = dict(num_players=2, games=24, seed=5, episode="round")
        by_pool = evaluate(entrants, workers=2, **kw)
        executor = RayExecutor(address)
        assert executor.cpus == 2
        by_ray = evaluate(entrants, workers=2, executor=executor, **kw)
        assert not ray.is_initialized()  # the executor disconnected on exit
        assert by_ray.to_dict() | {"elapsed_seconds": 0} == by_pool.to_dict() | {"elapsed_seconds": 0}
        assert [r.__dict__ for r in by_ray.records] == [r.__dict__ for r in by_pool.records]
        out = tmp_path / "e.json"
        assert eval_main(["--agents", ",".join(entrants), "--games", "24", "--seed", "5", "--episode", "round",
                          "--ray", address, "--json", str(out), "--quiet"]) == 0  # fmt: skip
        assert json.loads(out.read_text())["entrants"] == json.loads(by_pool.to_json())["entrants"]
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()
