"""``yaniv train-rllib``: multi-agent PPO self-play with RLlib, on one machine or a Ray cluster.

.. code-block:: console

    pip install -e ".[rllib]"
    yaniv train-rllib --num-players 3 --total-timesteps 200000 --env-runners 2
    yaniv train-rllib --address HEAD_IP:6379 --env-runners 16     # join a running cluster
    yaniv train-rllib --resume runs/rllib_standard_3p__1__20260101-120000
    yaniv eval --agents runs/rllib_standard_3p__1__.../agent.safetensors,heuristic --players 3

RLlib's current API stack (RLModule, Learner, EnvRunner, ConnectorV2) trains one policy
module, ``shared``, for every seat of the PettingZoo AEC environment
(:class:`training.rllib.env.YanivMultiAgentEnv`), with the action-masking actor-critic
:class:`training.rllib.module.MaskedActorCritic`. ``--opponents`` fills the seats besides
one of the learning policy, drawn per seat and episode: ``self`` is the shared policy
(self-play), any other name an ``agents.make`` baseline playing inside the environment.
Options that mean the same as in ``yaniv train`` (``training.args.Args``) have the same
names and defaults where they make sense. ``--resume`` continues a run with its own
arguments: only the budget (``--total-timesteps``, ``--minutes``), the Ray options
(``--address``, ``--num-cpus``, ``--env-runners``, ``--envs-per-runner``,
``--torch-threads``) and ``--checkpoint-every`` may change.

Run directory (``--output-dir``/``--run-name``)::

    args.json                 the arguments
    tb/                       TensorBoard logs (tensorboard --logdir runs)
    progress.csv              one row per iteration: steps, returns, throughput, losses
    checkpoints/latest/       the RLlib checkpoint (replaced atomically), with
                              yaniv_rllib.json (rules, fingerprints, steps, time) and
                              agent.safetensors (the policy as a play file)
    agent.safetensors         the final policy, for agents.load and yaniv eval
    run.json                  {"complete": true, ...} once the run has finished

A run that stops early keeps its last checkpoint (``--resume`` continues it) and says
``"complete": false``; a run that fails before its first checkpoint leaves no directory.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import json
import os
import shutil
import socket
import sys
import time
import typing
from dataclasses import dataclass
from pathlib import Path

from training.args import ALGO_DEFAULTS, ConfigError
from training.args import Args as TrainArgs
from training.config import field_docs, net_arch

#: Options of ``yaniv train`` (:class:`training.args.Args`) that mean the same here: same
#: names, types and help, and the defaults of ``yaniv train --algo maskable_ppo`` (whose
#: minibatches, networks and GAE this PPO shares).
SHARED = (
    "rules", "num_players", "episode", "reward", "turn_limit", "seed", "minutes", "batch_size", "n_epochs", "gamma",
    "gae_lambda", "clip_range", "ent_coef", "vf_coef", "max_grad_norm", "net_arch", "activation", "output_dir",
)  # fmt: skip


@dataclass
class RLlibOptions:
    """The options of ``yaniv train-rllib`` besides :data:`SHARED`."""

    game: str = "yaniv"
    """The game: ``yaniv`` or ``pis_yedili`` (give its baselines in --opponents)."""
    opponents: str = "self"
    """Who holds the other seats, drawn per seat and episode: a mix such as ``self:2,heuristic:1``."""
    total_timesteps: int = 1_000_000
    """Environment steps (decisions of the policy's seats) to train for, over resumes."""
    learning_rate: float = 3e-4
    """Adam learning rate (from scratch: there is no imitation warm start here)."""
    address: str | None = None
    """Join a running Ray cluster (``auto``, or ``HOST:PORT`` of its head); default: start Ray here."""
    num_cpus: int | None = None
    """CPUs of the local Ray instance (default: all; ignored with --address)."""
    env_runners: int = 1
    """Remote EnvRunner actors sampling in parallel (0: sample in the driver process)."""
    envs_per_runner: int = 8
    """Environments stepped together in each env runner (batched forward passes)."""
    rollout_steps: int = 4000
    """Environment steps collected per training iteration (RLlib's train batch)."""
    checkpoint_every: int = 50_000
    """Write checkpoints/latest every this many timesteps (and at the end)."""
    torch_threads: int = 1
    """torch.set_num_threads in the driver, where the learner runs."""
    run_name: str | None = None
    """Run directory name (default: ``rllib_{rules}_{n}p__{seed}__{timestamp}``)."""
    resume: str | None = None
    """Continue the run in this directory from its last checkpoint, with its arguments."""


def _make_args() -> type:
    """The ``Args`` dataclass: :data:`SHARED` fields of ``yaniv train``, then :class:`RLlibOptions`."""
    hints = {**typing.get_type_hints(TrainArgs), **typing.get_type_hints(RLlibOptions)}
    maskable = ALGO_DEFAULTS["maskable_ppo"]
    shared = {f.name: maskable.get(f.name, f.default) for f in dataclasses.fields(TrainArgs) if f.name in SHARED}
    own = {f.name: f.default for f in dataclasses.fields(RLlibOptions)}
    specs = [(name, hints[name], dataclasses.field(default=default)) for name, default in {**shared, **own}.items()]
    cls = dataclasses.make_dataclass("Args", specs)
    cls.__module__ = __name__
    cls.__doc__ = "The arguments of ``yaniv train-rllib`` (``--help`` lists them with their help)."
    return cls


Args = _make_args()


def _docs() -> dict[str, str]:
    return {**field_docs(TrainArgs), **field_docs(RLlibOptions)}


#: Options that may differ when resuming.
RESUME_OVERRIDES = {
    "total_timesteps",
    "minutes",
    "address",
    "num_cpus",
    "env_runners",
    "envs_per_runner",
    "checkpoint_every",
    "torch_threads",
    "resume",
}


def parse_args(argv: list[str] | None = None) -> tuple:
    """The arguments and the names given on the command line."""
    argv = sys.argv[1:] if argv is None else list(argv)
    hints = typing.get_type_hints(Args)
    docs = _docs()

    def parser(suppress: bool) -> argparse.ArgumentParser:
        p = argparse.ArgumentParser(
            prog="yaniv train-rllib",
            description="Train a Yaniv agent with RLlib (multi-agent PPO self-play on Ray); "
            "see training/rllib/train.py.",
            argument_default=argparse.SUPPRESS if suppress else None,
            formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        )
        for f in dataclasses.fields(Args):
            base = next((a for a in typing.get_args(hints[f.name]) if a is not type(None)), hints[f.name])
            kw: dict = {"help": docs.get(f.name, "").replace("%", "%%"), "dest": f.name, "type": base}
            if not suppress:
                kw["default"] = f.default
            p.add_argument(f"--{f.name.replace('_', '-')}", metavar=base.__name__.upper(), **kw)
        return p

    ns = parser(False).parse_args(argv)
    return Args(**vars(ns)), set(vars(parser(True).parse_args(argv)))


# -- checks -------------------------------------------------------------------------------
def require_ray():
    """The ``ray`` module, or a one-line :class:`ConfigError` naming the extra to install."""
    try:
        import ray
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401
    except ImportError as e:
        raise ConfigError(f"Ray RLlib is not installed ({e}); install the extra: pip install 'yaniv-env[rllib]'") from e
    return ray


def check_address(address: str, timeout: float = 5.0) -> None:
    """``ConfigError`` unless ``HOST:PORT`` accepts a TCP connection (``auto`` and
    ``ray://`` addresses are left to Ray)."""
    if address == "auto" or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError(f"--address {address!r}: expected HOST:PORT (the head's GCS address) or 'auto'")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout):
            pass
    except OSError as e:
        raise ConfigError(f"--address {address!r}: no Ray head answers there ({e.strerror or e})") from None


def connect(address: str | None, num_cpus: int | None = None):
    """Start a local Ray instance (small footprint: no dashboard) or join ``address``."""
    ray = require_ray()
    if ray.is_initialized():
        return ray
    if address:
        check_address(address)
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as e:
            first_line = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise ConfigError(f"--address {address!r}: cannot join the Ray cluster ({first_line})") from None
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    return ray


def rules_of(args):
    from yaniv_env.games import get_game

    try:
        rules = get_game(args.game).get_rules(args.rules, args.num_players)
        if args.turn_limit is not None:
            rules = rules.replace(turn_limit=args.turn_limit)
    except (ValueError, TypeError) as e:
        raise ConfigError(str(e)) from None
    return rules


def model_config(args) -> dict:
    try:
        arch = net_arch(args.net_arch)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    if args.activation not in ("relu", "tanh"):
        raise ConfigError(f"--activation {args.activation!r}: relu or tanh")
    return {"net_arch": arch, "activation": args.activation}


def env_config(args) -> dict:
    return {
        "game": args.game,
        "rules": args.rules,
        "num_players": args.num_players,
        "episode": args.episode,
        "reward": args.reward,
        "turn_limit": args.turn_limit,
        "opponents": args.opponents,
        "seed": args.seed,
    }


def validate(args) -> None:
    """Everything that can be checked before Ray starts (builds one environment)."""
    from training.rllib.env import YanivMultiAgentEnv

    rules_of(args)
    model_config(args)
    for name in ("total_timesteps", "rollout_steps", "batch_size", "n_epochs", "envs_per_runner", "checkpoint_every"):
        if getattr(args, name) < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if args.env_runners < 0:
        raise ConfigError(f"--env-runners must be 0 or more, got {args.env_runners}")
    try:
        YanivMultiAgentEnv(env_config(args))
    except ValueError as e:
        raise ConfigError(str(e)) from None


# -- the algorithm --------------------------------------------------------------------------
def ppo_config(args):
    """RLlib's ``PPOConfig`` for ``args`` (new API stack, one shared masked module)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib.env import YanivMultiAgentEnv
    from training.rllib.export import MODULE_ID
    from training.rllib.module import MaskedActorCritic

    spec = RLModuleSpec(module_class=MaskedActorCritic, model_config=model_config(args))
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .framework("torch", torch_compile_learner=False)
        .environment(YanivMultiAgentEnv, env_config=env_config(args), disable_env_checking=True)
        .env_runners(
            num_env_runners=args.env_runners,
            num_envs_per_env_runner=args.envs_per_runner,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .fault_tolerance(restart_failed_env_runners=False)  # a mask violation must stop training
        .learners(num_learners=0)
        .resources(num_cpus_for_main_process=1)
        .training(
            lr=args.learning_rate,
            gamma=args.gamma,
            lambda_=args.gae_lambda,
            clip_param=args.clip_range,
            entropy_coeff=args.ent_coef,
            vf_loss_coeff=args.vf_coef,
            grad_clip=args.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
            train_batch_size_per_learner=args.rollout_steps,
            minibatch_size=args.batch_size,
            num_epochs=args.n_epochs,
        )
        .multi_agent(
            policies={MODULE_ID},
            policy_mapping_fn=_shared_policy,
            policies_to_train=[MODULE_ID],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: spec}))
        .python_environment(extra_python_environs_for_worker={"OMP_NUM_THREADS": str(args.torch_threads)})
        .debugging(seed=args.seed, log_level="ERROR")
    )


def _shared_policy(agent_id, episode, **kwargs) -> str:
    """Every seat plays the one shared module (self-play)."""
    from training.rllib.export import MODULE_ID

    return MODULE_ID


# -- the run directory --------------------------------------------------------------------------
class Run:
    """A run directory: arguments, metadata, checkpoints (swapped in atomically), logs."""

    def __init__(self, args, run_dir: Path, meta: dict | None):
        self.args = args
        self.dir = run_dir
        self.rules = rules_of(args)
        self.meta = meta or {"timesteps": 0, "elapsed_seconds": 0.0, "iterations": 0}

    @property
    def latest(self) -> Path:
        return self.dir / "checkpoints" / "latest"

    def metadata(self) -> dict:
        from agents.trained import action_fingerprint, observation_fingerprint, rules_to_dict

        return {
            "format": "yaniv-rllib-checkpoint",
            "game": self.args.game,
            "rules": rules_to_dict(self.rules),
            "num_players": self.args.num_players,
            "observation": observation_fingerprint(self.rules),
            "actions": action_fingerprint(self.rules),
            "model_config": model_config(self.args),
            "timesteps": int(self.meta["timesteps"]),
            "elapsed_seconds": float(self.meta["elapsed_seconds"]),
            "iterations": int(self.meta["iterations"]),
            "rllib_steps": int(self.meta.get("rllib_steps", 0)),
            "training": {"run": self.dir.name, "episode": self.args.episode, "reward": self.args.reward},
        }

    def play_metadata(self) -> dict:
        from training.rllib.export import play_metadata

        meta = self.metadata()
        return play_metadata(self.rules, meta["model_config"], timesteps=meta["timesteps"], training=meta["training"])

    def save(self, algo) -> Path:
        """Checkpoint into a temporary folder, then swap it in for ``latest``."""
        from training.rllib.export import MODULE_ID, write_play_file

        tmp = self.dir / "checkpoints" / f".tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        algo.save_to_path(str(tmp.resolve()))
        (tmp / "yaniv_rllib.json").write_text(json.dumps(self.metadata(), indent=1) + "\n")
        write_play_file(tmp / "agent.safetensors", algo.get_module(MODULE_ID).state_dict(), self.play_metadata())
        old = self.dir / "checkpoints" / f".old-{os.getpid()}"
        if self.latest.exists():
            self.latest.rename(old)
        tmp.rename(self.latest)
        shutil.rmtree(old, ignore_errors=True)
        return self.latest

    def finish(self, complete: bool) -> None:
        if complete:
            shutil.copyfile(self.latest / "agent.safetensors", self.dir / ".agent.safetensors.tmp")
            os.replace(self.dir / ".agent.safetensors.tmp", self.dir / "agent.safetensors")
        status = {"complete": complete, **{k: self.meta[k] for k in ("timesteps", "elapsed_seconds", "iterations")}}
        (self.dir / "run.json").write_text(json.dumps(status, indent=1) + "\n")


def _read_json(path: Path):
    from agents.checkpoint import MAX_JSON_BYTES
    from yaniv_env.core.limits import read_json_file

    try:
        return read_json_file(path, max_bytes=MAX_JSON_BYTES, limit="agents.checkpoint.MAX_JSON_BYTES")
    except ValueError as e:
        raise ConfigError(f"--resume: {e}") from None


def _resume(args, given: set[str]) -> tuple:
    run_dir = Path(args.resume)
    latest = run_dir / "checkpoints" / "latest"
    if not (latest / "yaniv_rllib.json").is_file() or not (run_dir / "args.json").is_file():
        raise ConfigError(f"--resume {run_dir}: no yaniv train-rllib checkpoint at {latest}")
    saved = _read_json(run_dir / "args.json")
    changed = sorted(k for k in given - RESUME_OVERRIDES if getattr(args, k) != saved.get(k))
    if changed:
        raise ConfigError(f"--resume keeps the run's arguments; these cannot change: {', '.join(changed)}")
    merged = {**saved, **{k: getattr(args, k) for k in given & RESUME_OVERRIDES}, "resume": str(run_dir)}
    args = Args(**{k: v for k, v in merged.items() if k in {f.name for f in dataclasses.fields(Args)}})
    meta = _read_json(latest / "yaniv_rllib.json")
    from agents.trained import check_metadata

    try:  # the checkpoint must be for the rules, observation and actions this version builds
        check_metadata(meta, path=str(latest))
    except ValueError as e:
        raise ConfigError(str(e)) from None
    return args, run_dir, meta


def _flat(prefix: str, d, out: dict) -> dict:
    for k, v in d.items():
        key = f"{prefix}/{k}" if prefix else str(k)
        if isinstance(v, dict):
            _flat(key, v, out)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[key] = float(v)
    return out


#: The columns of progress.csv after ``timesteps`` and ``steps_per_second`` (the iteration's
#: steps over its wall-clock time): name -> key in RLlib's flattened result (its timers are
#: moving averages).
PROGRESS = {
    "iteration_seconds": "time_this_iter_s",
    "sample_seconds": "timers/env_runner_sampling_timer",
    "learn_seconds": "timers/learner_update_timer",
    "learner_steps_per_second": "learners/__all_modules__/num_module_steps_trained_throughput",
    "episode_return_mean": "env_runners/episode_return_mean",
    "policy_loss": "learners/shared/policy_loss",
    "vf_loss": "learners/shared/vf_loss",
    "entropy": "learners/shared/entropy",
}
LIFETIME_STEPS = "num_env_steps_sampled_lifetime"


def train(args, given: set[str] | None = None) -> int:
    given = given or set()
    require_ray()
    meta = None
    if args.resume:
        args, run_dir, meta = _resume(args, given)
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        name = args.run_name or f"rllib_{args.rules}_{args.num_players}p__{args.seed}__{stamp}"
        run_dir = Path(args.output_dir) / name
        if run_dir.exists():
            raise ConfigError(f"{run_dir} already exists; use --resume {run_dir} or another --run-name")
    validate(args)
    import torch

    torch.set_num_threads(max(1, args.torch_threads))
    ray = connect(args.address, args.num_cpus)  # before the run directory: a bad address leaves nothing
    created = not run_dir.exists()
    run = Run(args, run_dir, meta)
    algo = None
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=1) + "\n")
        algo = ppo_config(args).build_algo()
        if meta is not None:
            algo.restore_from_path(str(run.latest.resolve()))
        complete = _loop(args, run, algo)
        run.save(algo)
        run.finish(complete)
        state = "complete" if complete else "stopped early"
        print(f"run: {run_dir} ({state}; policy: {run_dir / 'agent.safetensors'})")
        return 0 if complete else 130
    except BaseException:
        if created and not run.latest.exists():  # nothing worth resuming: leave no directory behind
            shutil.rmtree(run_dir, ignore_errors=True)
        elif run_dir.exists():
            run.finish(False)
        raise
    finally:
        if algo is not None:
            with contextlib.suppress(Exception):
                algo.stop()
        ray.shutdown()


def _loop(args, run: Run, algo) -> bool:
    """Train until the step or time budget; True when a budget was reached (not interrupted)."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run.dir / "tb"))
    progress_path = run.dir / "progress.csv"
    new_file = not progress_path.exists()
    start = time.perf_counter()
    base_elapsed = float(run.meta["elapsed_seconds"])
    next_checkpoint = int(run.meta["timesteps"]) + args.checkpoint_every
    rllib_steps = int(run.meta.get("rllib_steps", 0))
    budget = args.minutes * 60 if args.minutes else None
    try:
        with progress_path.open("a", newline="") as f:
            out = csv.writer(f)
            if new_file:
                out.writerow(["timesteps", "steps_per_second", *PROGRESS])
            while run.meta["timesteps"] < args.total_timesteps and (
                budget is None or run.meta["elapsed_seconds"] < budget
            ):
                result = _flat("", algo.train(), {})
                run.meta["iterations"] += 1
                lifetime = int(result.get(LIFETIME_STEPS, 0))
                # RLlib's counter may or may not survive a restore: count what it adds
                steps = lifetime - rllib_steps if lifetime >= rllib_steps else lifetime
                rllib_steps = lifetime
                run.meta["timesteps"] += steps
                run.meta["rllib_steps"] = lifetime
                rate = steps / max(result.get(PROGRESS["iteration_seconds"], 0.0), 1e-9)  # sampling + learning
                run.meta["elapsed_seconds"] = base_elapsed + time.perf_counter() - start
                for key, value in result.items():
                    if key.startswith(("env_runners/", "learners/", "timers/")):
                        writer.add_scalar(key, value, run.meta["timesteps"])
                out.writerow([run.meta["timesteps"], round(rate, 1), *(result.get(k, "") for k in PROGRESS.values())])
                f.flush()
                mean_return = result.get(PROGRESS["episode_return_mean"], float("nan"))
                print(
                    f"iteration {run.meta['iterations']}: {run.meta['timesteps']} steps, "
                    f"{rate:.0f} steps/s, return {mean_return:+.3f}"
                )
                if run.meta["timesteps"] >= next_checkpoint:
                    run.save(algo)
                    next_checkpoint = run.meta["timesteps"] + args.checkpoint_every
    except KeyboardInterrupt:
        print("interrupted: saving the last checkpoint", file=sys.stderr)
        return False
    finally:
        writer.close()
    return True


def main(argv: list[str] | None = None) -> int:
    args, given = parse_args(argv)
    try:
        return train(args, given)
    except ConfigError as e:
        print(f"yaniv train-rllib: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
