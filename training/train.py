"""Train a Yaniv or Pis Yedili agent with MaskablePPO (sb3-contrib), in the manner of
CleanRL: one file, one :class:`Args` dataclass, everything logged to ``runs/<run_name>``.

.. code-block:: console

    yaniv train --minutes 10                         # standard rules, 2 players, vs the baselines
    yaniv train --rules seven --num-players 3 --total-timesteps 2000000 --league
    yaniv train --resume runs/standard__1__20250101-120000 --minutes 20
    yaniv train --game pis_yedili --num-players 3 --minutes 5    # Pis Yedili, vs the Pis agents

The learner plays one seat of :class:`yaniv_env.gym_env.YanivGymEnv` (a random seat per
episode); the other seats are drawn per episode from a weighted mix of baselines and,
with ``--league``, from a self-play pool of past snapshots (``training.league``). Masks
come from the environment's ``action_masks()``.

Pis Yedili (``--game pis_yedili``)
----------------------------------
The same script trains on :class:`yaniv_env.pis_yedili.gym_env.PisYediliGymEnv`
(``yaniv_env/PisYedili-v0``); :mod:`yaniv_env.games` says where each game's rules,
layouts and environments are. Options not given take the Pis Yedili defaults of
:data:`GAME_DEFAULTS`: opponents ``pis_random:1,pis_heuristic:2``, single-deal episodes
(``deal``), an imitation warm start from ``pis_heuristic``, the plain MLP action head,
and the periodic and final evaluations against ``pis_random`` and ``pis_heuristic``.
``--rules`` names a Pis Yedili preset; ``--shaping`` counts the hand's penalty points;
``--action-features`` (Yaniv card features) and the Yaniv-only episode and reward names
are refused. Checkpoints record the game (:mod:`agents.trained`): a Pis Yedili model is
refused where Yaniv is played and the reverse, and ``--resume`` keeps the run's game.

Advised policies and distillation (``--advice``)
------------------------------------------------
``--advice heuristic`` trains a residual policy (:mod:`agents.advice`): the heuristic's
move is appended to the learner's observation and added to the logits with a trained
weight, so the policy starts as the heuristic and learns where to depart from it; the
advisor is stored in the checkpoint and asked again at play time. With
``--pretrain search`` the imitation phase then learns the search agent's departures from
the heuristic (distillation: the network plays without searching). The recipe of the
shipped agent and what it measured are in the README (section Training).

A run directory holds::

    args.json                 the arguments
    checkpoints/latest.zip    the last checkpoint (atomic; ``--resume`` continues from it)
    model.zip                 the final model (same format; loads only when trusted)
    model.safetensors         the final model as a play file (``agents.load`` / ``yaniv eval``;
                              safe to share: loading it runs no code)
    league/snapshot_*.zip     self-play pool members
    monitor/*.monitor.csv     one line per training episode (reward, length, opponent)
    eval.csv                  periodic evaluation: placement reward vs each opponent
    tb/                       TensorBoard logs (``tensorboard --logdir runs``)
    learning_curve.png        episode reward vs timesteps, and the periodic evaluations
    final_eval.txt, .json     the final evaluation (``training.evaluate``) against each
    final_eval_vs_*.csv       baseline, and its summary

The checkpoint format is described in :mod:`agents.trained`.

What makes ten CPU minutes enough (measured on 2 shared cores, standard rules, 2 players)
-----------------------------------------------------------------------------------------
* **Imitation warm start** (``--pretrain heuristic``): ~60k decisions of the heuristic
  baseline, 4 epochs of behaviour cloning (policy) and return regression (value), ~80 s.
  PPO from scratch plateaued near a 0.33 round win rate against greedy after 350k steps;
  the warm start begins at ~0.47 and PPO (at a low learning rate) takes it past 0.5.
* **Round episodes** with the ``score_outcome`` reward: short episodes, dense credit.
* **Hand shaping** (``--shaping``): potential-based, so it cannot change the optimum.
* **Action features** (``--action-features``): the output layer also scores each action
  by the cards it moves, so learning carries over between the ~1,500 action ids.
* **16 environments in one process** and **one torch thread**: the policy's forward pass
  costs the same for 1 or 16 observations (2 envs: ~360 steps/s, 16: ~1,100), and extra
  torch threads on shared cores collapse the throughput (16 envs, 2 threads: ~330).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import csv
import dataclasses
import inspect
import io
import json
import math
import os
import random
import signal
import sys
import time
import typing
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# ---------------------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------------------


@dataclass
class Args:
    game: str = "yaniv"
    """The game: ``yaniv`` or ``pis_yedili`` (Pis Yedili, on ``yaniv_env/PisYedili-v0``
    against the Pis agents). For ``pis_yedili``, options not given take the Pis Yedili
    defaults shown in brackets in ``--help`` (``GAME_DEFAULTS``)."""
    rules: str = "standard"
    """Rules preset of the game (Yaniv: ``standard``, ``seven``, ``french``, ``two_deck``;
    Pis Yedili: ``standard``)."""
    num_players: int = 2
    """Players at the table (the learner plus num_players - 1 opponents)."""
    minutes: float | None = None
    """Wall-clock training budget in minutes (summed over resumes); training stops at this
    budget or at --total-timesteps, whichever comes first."""
    total_timesteps: int | None = None
    """Environment steps (learner decisions) to train for, counted over resumes
    (default: 1,000,000 without --minutes, unlimited with it)."""
    seed: int = 1
    """Seed of random, numpy, torch, the environments and the opponents."""
    n_envs: int = 16
    """Parallel environments (0: one per CPU core). The policy's forward pass costs about
    the same for 1 or 16 observations, so many in-process environments amortise it: on 2
    cores 16 give ~3x the steps/s of 2."""
    vec_env: str = "dummy"
    """``dummy`` (all environments in this process) or ``subproc`` (one process each).
    The environment steps in ~60 µs, so on few cores the single process is faster."""
    torch_threads: int = 1
    """torch.set_num_threads for training (0: the number of CPU cores). More than one
    thread is much slower when the cores are shared with other work."""
    opponents: str = "random:1,greedy:2,heuristic:2"
    """Opponent mix: comma-separated agent names (``agents.make``) or .zip models, each
    with an optional ``:weight``; one is drawn per seat and episode. Baselines of the
    default mix that are not installed are left out with a warning."""
    learner_seat: str = "random"
    """The learner's seat: a number, or ``random`` (drawn per episode)."""
    episode: str = "round"
    """Training episodes: ``round`` (one round: short, dense credit assignment) or ``game``
    (Pis Yedili: ``deal`` or ``game``)."""
    reward: str = "score_outcome"
    """Reward scheme of the environment: ``score``, ``outcome``, ``round_win``, ``score_outcome``
    (Pis Yedili: ``deal_win`` for ``round_win``)."""
    turn_limit: int | None = None
    """Turns before a round is a draw (default: the rules' own)."""
    shaping: float = 1.0
    """Potential-based reward shaping with potential -shaping * (hand total) / 100
    (``training.league.HandShaping``; Pis Yedili: the hand's penalty points): immediate
    credit for throwing points and blame for taking high cards, without changing the
    optimal policy. 0: off. The logged episode rewards are always the environment's own."""
    league: bool = False
    """Self-play league: snapshots of the learner join a pool of opponents."""
    snapshot_every: int = 100_000
    """League: take a snapshot every this many timesteps."""
    league_prob: float = 0.3
    """League: probability that an opponent seat is drawn from the pool (when not empty)."""
    league_size: int = 8
    """League: most snapshots in the pool (the oldest leaves)."""
    gate_games: int = 100
    """League: episodes against each pool member to decide whether a snapshot joins."""
    gate_margin: float = 0.1
    """League: a snapshot joins when its mean placement reward against the pool members is
    at least this (0.1 is a 55% win rate with two players); the first always joins."""
    league_deterministic: bool = False
    """League: pool members play their arg-max action instead of sampling."""
    pretrain: str = "heuristic"
    """Imitation warm start: before PPO, the policy learns to copy this agent's moves and
    the value net its returns, from --pretrain-samples decisions it plays in the learner's
    seat against the opponent mix ("" or none: start from scratch). Only in a new run."""
    pretrain_samples: int = 60_000
    """Imitation: decisions of the --pretrain agent to learn from."""
    pretrain_epochs: int = 4
    """Imitation: passes over those decisions."""
    pretrain_lr: float = 1e-3
    """Imitation: Adam learning rate."""
    pretrain_data: str = ""
    """Imitation: a ``.npz`` of the --pretrain agent's decisions. Loaded when it exists (it
    must come from the same teacher, advice, rules, opponents, seat, episode, reward,
    shaping and gamma, else the run is refused naming the difference); otherwise collected
    and saved there, so that variants of the imitation phase skip the collection."""
    pretrain_departure_weight: float = 1.0
    """Imitation with --advice: weight in the policy loss of the decisions where the teacher
    departs from the advice (they are few: ~4% for search advised by the heuristic)."""
    learning_rate: float = 1e-4
    """Adam learning rate of PPO. Low, so that PPO refines the imitation warm start rather
    than wrecking it (3e-4 first lost ~10 points of round win rate); from scratch
    (--pretrain none) 3e-4 learns faster."""
    n_steps: int = 128
    """Steps per environment per PPO rollout (the rollout is n_steps * n_envs)."""
    batch_size: int = 256
    """PPO minibatch size."""
    n_epochs: int = 4
    """PPO epochs over each rollout."""
    gamma: float = 0.995
    """Discount factor."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_range: float = 0.2
    """PPO clipping range."""
    ent_coef: float = 0.01
    """Entropy bonus coefficient."""
    vf_coef: float = 0.5
    """Value loss coefficient."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm."""
    net_arch: str = "256,256"
    """Hidden layer sizes of the policy and value networks (separate networks)."""
    activation: str = "relu"
    """Activation of the hidden layers: ``relu`` or ``tanh``."""
    action_features: bool = True
    """Score actions also through their card features (``agents.trained.ActionFeaturePolicy``),
    so that what is learnt about one discard id carries over to the others holding the
    same cards; off: the plain MLP output layer, one independent logit per action id.
    Yaniv only (Pis Yedili's 71 actions are one card each)."""
    advice: str = ""
    """Residual policy learning (``agents.advice``): this agent's move (e.g. ``heuristic``)
    is added to the learner's observation and to its logits with a trained weight that
    starts at --advice-scale, so training starts from that agent's play and learns where
    to depart from it; the advisor is part of the model ("" or none: a plain policy)."""
    advice_scale: float = 5.0
    """Advice: starting weight of the advised move's logit."""
    eval_every: int = 50_000
    """Evaluate against --eval-opponents every this many timesteps (0: never)."""
    eval_games: int = 100
    """Episodes against each opponent in a periodic evaluation."""
    eval_opponents: str = "random,greedy,heuristic"
    """Opponents of the periodic evaluation (unavailable baselines are left out)."""
    eval_episode: str | None = None
    """Episode type of the periodic and gate evaluations (default: --episode)."""
    checkpoint_every: int = 50_000
    """Write checkpoints/latest.zip every this many timesteps (and at the end)."""
    final_eval_games: int = 300
    """Games of the final evaluation (training.evaluate, duplicate format; 0: skip)."""
    final_eval_opponents: str = "random,greedy,heuristic"
    """Entrants of the final evaluation besides the model (unavailable ones are left out)."""
    final_eval_episode: str = "game"
    """Episode type of the final evaluation: ``game`` or ``round``."""
    output_dir: str = "runs"
    """Where run directories are created."""
    run_name: str | None = None
    """Run directory name (default: ``{rules}__{seed}__{timestamp}``, Pis Yedili:
    ``pis_yedili_{rules}__{seed}__{timestamp}``)."""
    resume: str | None = None
    """Continue the run in this directory from its last checkpoint, with its arguments
    (only the budget, progress, workers and evaluation options may be changed)."""
    progress: bool = True
    """Show a tqdm progress bar."""
    device: str = "cpu"
    """Torch device."""


#: Defaults that depend on the game: with ``--game pis_yedili`` these replace the (Yaniv)
#: defaults of :class:`Args` for every option not given. Everything else means the same in
#: both games (``--shaping`` counts Pis Yedili penalty points).
GAME_DEFAULTS: dict[str, dict[str, object]] = {
    "pis_yedili": {
        "opponents": "pis_random:1,pis_heuristic:2",
        "episode": "deal",
        "pretrain": "pis_heuristic",
        "action_features": False,
        "eval_opponents": "pis_random,pis_heuristic",
        "final_eval_opponents": "pis_random,pis_heuristic",
    },
}

# Options that may differ when resuming; everything else must stay as trained.
RESUME_OVERRIDES = {
    "minutes",
    "total_timesteps",
    "progress",
    "n_envs",
    "vec_env",
    "torch_threads",
    "eval_every",
    "eval_games",
    "eval_opponents",
    "checkpoint_every",
    "final_eval_games",
    "final_eval_opponents",
    "final_eval_episode",
    "device",
    "resume",
}

DEFAULT_TIMESTEPS = 1_000_000


def _field_docs(cls) -> dict[str, str]:
    """The docstring under each dataclass field, read from the source."""
    docs: dict[str, str] = {}
    try:
        tree = ast.parse(inspect.getsource(cls))
    except (OSError, TypeError):
        return docs
    body = tree.body[0].body
    for node, nxt in zip(body, body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            docs[node.target.id] = " ".join(nxt.value.value.split()).replace("``", "'")
    return docs


def _parser(suppress: bool = False) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="yaniv train",
        description="Train a Yaniv (or, with --game pis_yedili, a Pis Yedili) agent with MaskablePPO; "
        "see training/train.py.",
        argument_default=argparse.SUPPRESS if suppress else None,
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    hints = typing.get_type_hints(Args)
    docs = _field_docs(Args)
    for f in dataclasses.fields(Args):
        hint = hints[f.name]
        args = typing.get_args(hint)
        base = next((a for a in args if a is not type(None)), hint) if args else hint
        flags = [f"--{f.name.replace('_', '-')}"]
        help_text = docs.get(f.name, "")
        for game, defaults in GAME_DEFAULTS.items():
            if f.name in defaults:
                help_text += f" [{game}: {defaults[f.name]}]"
        kw: dict = {"help": help_text.replace("%", "%%"), "dest": f.name}
        if not suppress:
            kw["default"] = f.default
        if base is bool:
            kw["action"] = argparse.BooleanOptionalAction
        else:
            kw["type"] = base
            kw["metavar"] = base.__name__.upper()
        p.add_argument(*flags, **kw)
    return p


def parse_args(argv: list[str] | None = None) -> tuple[Args, set[str]]:
    """The arguments, and the names given explicitly on the command line."""
    argv = sys.argv[1:] if argv is None else list(argv)
    ns = _parser().parse_args(argv)
    given = set(vars(_parser(suppress=True).parse_args(argv)))
    return Args(**vars(ns)), given


def apply_game_defaults(args: Args, given: set[str]) -> Args:
    """``args`` with the defaults of its game (``GAME_DEFAULTS``) for the options that are
    neither in ``given`` nor changed from the Yaniv default."""
    changes = {
        name: value
        for name, value in GAME_DEFAULTS.get(args.game, {}).items()
        if name not in given and getattr(args, name) == getattr(Args, name)
    }
    return dataclasses.replace(args, **changes)


# ---------------------------------------------------------------------------------------
# Environments
# ---------------------------------------------------------------------------------------


def _learner_seat(spec: str):
    return spec if spec == "random" else int(spec)


def make_env(args: Args, rank: int, seed: int, monitor_path: str | None, mix, subprocess: bool = False):
    """A thunk building one training environment (for the VecEnv)."""

    def thunk():
        import gymnasium
        from stable_baselines3.common.monitor import Monitor

        import yaniv_env  # noqa: F401  (registers the environments)
        from agents.advice import AdviceWrapper
        from training.league import HandShaping, OpponentSampler
        from yaniv_env.games import get_game

        threads = None
        if subprocess:
            threads = 1
            if args.league:
                import torch

                torch.set_num_threads(1)
        env = gymnasium.make(
            get_game(args.game).env_id,
            rules=args.rules,
            num_players=args.num_players,
            learner_seat=_learner_seat(args.learner_seat),
            episode=args.episode,
            reward=args.reward,
            turn_limit=args.turn_limit,
            disable_env_checker=True,
        ).unwrapped
        env = OpponentSampler(
            env,
            mix,
            seed=seed + rank,
            league_prob=args.league_prob if args.league else 0.0,
            pool_deterministic=args.league_deterministic,
            torch_threads=threads,
        )
        if monitor_path is not None:
            env = Monitor(env, monitor_path, info_keywords=("opponent",))
        if args.shaping:
            env = HandShaping(env, coef=args.shaping, gamma=args.gamma)
        if args.advice:
            env = AdviceWrapper(env, args.advice, seed=seed + 7 * rank + 3)
        return env

    return thunk


def make_eval_env(args: Args, opponent, n: int, seed: int):
    """A DummyVecEnv of ``n`` environments against one opponent (a name or a policy),
    rewarding placement only."""
    import gymnasium
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.advice import AdviceWrapper
    from training.league import OpponentSampler
    from yaniv_env.games import get_game

    def thunk(i):
        def make():
            env = gymnasium.make(
                get_game(args.game).env_id,
                rules=args.rules,
                num_players=args.num_players,
                learner_seat="random",
                episode=args.eval_episode or args.episode,
                reward="outcome",
                turn_limit=args.turn_limit,
                disable_env_checker=True,
            ).unwrapped
            env = OpponentSampler(env, [(opponent, 1.0)], seed=seed + i)
            return AdviceWrapper(env, args.advice, seed=seed + i) if args.advice else env

        return make

    venv = DummyVecEnv([thunk(i) for i in range(n)])
    venv.seed(seed)
    return venv


def evaluate_against(model, args: Args, venv, games: int, seed: int) -> dict:
    """Mean placement reward (+1 first, -1 last) and first-place rate over ``games`` episodes."""
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    venv.seed(seed)
    rewards, lengths = evaluate_policy(
        model, venv, n_eval_episodes=games, deterministic=True, return_episode_rewards=True, warn=False
    )
    r = np.asarray(rewards, dtype=float)
    return {
        "outcome": float(r.mean()),
        "outcome_se": float(r.std(ddof=1) / math.sqrt(len(r))) if len(r) > 1 else 0.0,
        "first": float((r >= 1.0 - 1e-9).mean()),
        "length": float(np.mean(lengths)),
        "episodes": len(r),
    }


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------


def _filter_available(mix: list[tuple[str, float]], rules, what: str, strict: bool) -> list[tuple[str, float]]:
    from training.league import agent_available
    from yaniv_env.games import game_of

    kept = []
    for name, w in mix:
        why = agent_available(name, rules)
        if why is None:
            kept.append((name, w))
        elif strict:
            raise ValueError(f"{what}: agent {name!r} is not available for {game_of(rules).title} ({why})")
        else:
            print(f"warning: {what}: leaving out {name!r}, not available ({why})", file=sys.stderr)
    if not kept:
        raise ValueError(f"{what}: no available agent in {[n for n, _ in mix]}")
    return kept


def _seed_everything(seed: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def _net_arch(spec: str) -> list[int]:
    try:
        arch = [int(x) for x in spec.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--net-arch must be comma-separated integers, got {spec!r}") from None
    if not arch or min(arch) <= 0:
        raise ValueError(f"--net-arch must list positive layer sizes, got {spec!r}")
    return arch


class Run:
    """State of one training run: directories, league, evaluation log, budget."""

    def __init__(self, args: Args, run_dir: Path, rules, meta: dict | None):
        from training.league import League

        self.args = args
        self.dir = run_dir
        self.rules = rules
        meta = meta or {}
        self.league = League.from_dict(meta.get("league"), size=args.league_size)
        self.elapsed_before = float(meta.get("elapsed_seconds", 0.0))
        self.segment = int(meta.get("segment", -1)) + 1
        self.t0 = time.time()
        self.last_eval: dict[str, dict] = {}
        self.pretrain: dict | None = meta.get("pretrain")

    @property
    def elapsed(self) -> float:
        return self.elapsed_before + time.time() - self.t0

    @property
    def checkpoint_path(self) -> Path:
        return self.dir / "checkpoints" / "latest.zip"

    def metadata(self, model) -> dict:
        from agents.trained import build_metadata

        return build_metadata(
            self.rules,
            timesteps=model.num_timesteps,
            args=dataclasses.asdict(self.args),
            league=self.league.to_dict(),
            episode=self.args.episode,
            reward=self.args.reward,
            elapsed_seconds=round(self.elapsed, 3),
            segment=self.segment,
            run_name=self.dir.name,
            pretrain=self.pretrain,
            advice=self.args.advice or None,
        )

    def save(self, model, path: Path | None = None) -> Path:
        from agents.trained import save_checkpoint

        return save_checkpoint(model, path or self.checkpoint_path, self.metadata(model))


def collect_demonstrations(args: Args, rules, mix, seed: int) -> dict:
    """The --pretrain agent plays the learner's seat in training environments (same
    opponents, reward and shaping) for about --pretrain-samples decisions: the
    observations, masks and moves of its finished episodes, with their discounted returns
    and episode numbers."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    import agents

    t0 = time.time()
    n_envs = max(1, min(args.n_envs or 1, 16))
    venv = DummyVecEnv([make_env(args, 1000 + i, seed, None, mix) for i in range(n_envs)])
    venv.seed(seed + 7919)
    teachers = [agents.make(args.pretrain, seed=seed + 31 * i, rules=rules) for i in range(n_envs)]
    want = args.pretrain_samples
    size = want + 2000
    obs_buf = np.zeros((size, *venv.observation_space.shape), dtype=np.float32)
    mask_buf = np.zeros((size, venv.action_space.n), dtype=bool)
    act_buf = np.zeros(size, dtype=np.int64)
    ret_buf = np.zeros(size, dtype=np.float32)
    episode_of = np.zeros(size, dtype=np.int64)
    open_steps: list[list[int]] = [[] for _ in range(n_envs)]
    open_rewards: list[list[float]] = [[] for _ in range(n_envs)]
    done_upto, n, episodes = 0, 0, 0
    obs = venv.reset()
    while done_upto < want and n + n_envs <= size:
        masks = np.stack(venv.env_method("action_masks"))
        seen = obs[:, :-1] if args.advice else obs  # teachers see the environment's observation
        actions = np.array([t.act(o, m.astype(np.int8)) for t, o, m in zip(teachers, seen, masks, strict=True)])
        for i in range(n_envs):
            obs_buf[n], mask_buf[n], act_buf[n] = obs[i], masks[i], actions[i]
            open_steps[i].append(n)
            n += 1
        obs, rewards, dones, _ = venv.step(actions)
        for i in range(n_envs):
            open_rewards[i].append(float(rewards[i]))
            if dones[i]:
                g = 0.0
                for idx, r in zip(reversed(open_steps[i]), reversed(open_rewards[i]), strict=True):
                    g = r + args.gamma * g
                    ret_buf[idx] = g
                    episode_of[idx] = episodes
                episodes += 1
                done_upto += len(open_steps[i])
                open_steps[i], open_rewards[i] = [], []
    venv.close()
    finished = np.ones(n, dtype=bool)
    for steps in open_steps:  # episodes cut by the sample budget are dropped
        finished[steps] = False
    keep = np.flatnonzero(finished)
    return {
        "obs": obs_buf[keep],
        "mask": mask_buf[keep],
        "act": act_buf[keep],
        "ret": ret_buf[keep],
        "episode": episode_of[keep],
        "episodes": episodes,
        "collect_seconds": time.time() - t0,
    }


def _demonstration_key(args: Args, rules) -> dict:
    """What demonstrations depend on: a saved set is reused only when all of it matches."""
    from agents.trained import action_fingerprint, observation_fingerprint, rules_to_dict

    return {
        "teacher": args.pretrain,
        "advice": args.advice,
        "game": args.game,
        "rules": rules_to_dict(rules),
        "observation": observation_fingerprint(rules),
        "actions": action_fingerprint(rules),
        "opponents": args.opponents,
        "learner_seat": args.learner_seat,
        "episode": args.episode,
        "reward": args.reward,
        "turn_limit": args.turn_limit,
        "shaping": args.shaping,
        "gamma": args.gamma,
    }


def save_demonstrations(path: Path, data: dict, key: dict) -> None:
    """Write ``data`` (from :func:`collect_demonstrations`) and its key as one ``.npz``,
    atomically (the masks bit-packed)."""
    from agents.trained import atomic_write_bytes

    buf = io.BytesIO()
    np.savez_compressed(
        buf,
        obs=data["obs"],
        mask=np.packbits(data["mask"], axis=1),
        actions=np.int64(data["mask"].shape[1]),
        act=data["act"],
        ret=data["ret"],
        episode=data["episode"],
        episodes=np.int64(data["episodes"]),
        key=np.array(json.dumps(key, sort_keys=True)),
    )
    atomic_write_bytes(Path(path), buf.getvalue())


def load_demonstrations(path: Path, key: dict) -> dict:
    """Demonstrations saved by :func:`save_demonstrations` under the same ``key``;
    :class:`ConfigError` naming what differs, or what is wrong with the file."""
    try:
        with np.load(path, allow_pickle=False) as z:
            saved = json.loads(str(z["key"]))
            data = {name: z[name] for name in ("obs", "act", "ret", "episode")}
            data["mask"] = np.unpackbits(z["mask"], axis=1, count=int(z["actions"])).astype(bool)
            data["episodes"] = int(z["episodes"])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as e:
        why = f"{type(e).__name__}: {e}"
        raise ConfigError(f"--pretrain-data {str(path)!r}: not a demonstration file ({why})") from None
    differ = sorted(k for k in set(key) | set(saved) if key.get(k) != saved.get(k))
    if differ:
        shown = "; ".join(f"{k}: saved {saved.get(k)!r}, this run {key.get(k)!r}" for k in differ)
        raise ConfigError(f"--pretrain-data {str(path)!r} was collected under other settings ({shown})")
    data["collect_seconds"] = 0.0
    return data


def imitation_pretrain(model, args: Args, rules, mix, seed: int, log=print) -> dict:
    """Behaviour cloning warm start on the --pretrain agent's decisions
    (:func:`collect_demonstrations`, or --pretrain-data when it exists): the policy is
    fitted to its moves (cross-entropy over the legal actions) and the value net to its
    discounted returns. 5% of the episodes are held out to report the imitation accuracy."""
    import torch

    t0 = time.time()
    source = "collected"
    key = _demonstration_key(args, rules)
    path = Path(args.pretrain_data) if args.pretrain_data else None
    if path is not None and path.is_file():
        data = load_demonstrations(path, key)
        source = f"loaded from {path}"
    else:
        data = collect_demonstrations(args, rules, mix, seed)
        if path is not None:
            save_demonstrations(path, data, key)
            source = f"collected, saved to {path}"
    obs_buf, mask_buf, act_buf, ret_buf = data["obs"], data["mask"], data["act"], data["ret"]
    episodes = data["episodes"]
    keep = np.arange(len(act_buf))
    held = data["episode"] % 20 == 0
    train_idx, test_idx = keep[~held], keep[held]
    collect_s = data["collect_seconds"]

    policy = model.policy
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=args.pretrain_lr)
    rng = np.random.default_rng(seed)
    for _ in range(args.pretrain_epochs):
        rng.shuffle(train_idx)
        for s in range(0, len(train_idx), args.batch_size):
            b = train_idx[s : s + args.batch_size]
            x = torch.as_tensor(obs_buf[b])
            dist = policy.get_distribution(x, action_masks=mask_buf[b])
            log_prob = dist.log_prob(torch.as_tensor(act_buf[b]))
            if args.advice and args.pretrain_departure_weight != 1.0:
                departs = act_buf[b] != obs_buf[b, -1].astype(np.int64)
                w = torch.as_tensor(np.where(departs, args.pretrain_departure_weight, 1.0), dtype=log_prob.dtype)
                loss_pi = -(w * log_prob).sum() / w.sum()
            else:
                loss_pi = -log_prob.mean()
            loss_v = ((policy.predict_values(x).squeeze(-1) - torch.as_tensor(ret_buf[b])) ** 2).mean()
            loss = loss_pi + args.vf_coef * loss_v
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), args.max_grad_norm)
            opt.step()
    policy.set_training_mode(False)

    def accuracy(idx) -> float:
        if len(idx) == 0:
            return float("nan")
        hits = 0
        with torch.no_grad():
            for s in range(0, len(idx), 4096):
                b = idx[s : s + 4096]
                dist = policy.get_distribution(torch.as_tensor(obs_buf[b]), action_masks=mask_buf[b])
                hits += int((dist.distribution.probs.argmax(-1).numpy() == act_buf[b]).sum())
        return hits / len(idx)

    info = {
        "agent": args.pretrain,
        "samples": int(len(train_idx)),
        "held_out": int(len(test_idx)),
        "episodes": int(episodes),
        "epochs": args.pretrain_epochs,
        "train_accuracy": round(accuracy(train_idx[:20000]), 4),
        "held_out_accuracy": round(accuracy(test_idx), 4),
        "collect_seconds": round(collect_s, 1),
        "seconds": round(time.time() - t0, 1),
        "source": source,
    }
    departures = ""
    if args.advice:  # what the advice alone cannot give: the teacher's departures from it
        differs = act_buf != obs_buf[:, -1].astype(np.int64)
        info["teacher_departs"] = round(float(differs.mean()), 4) if len(differs) else float("nan")
        info["held_out_departure_accuracy"] = round(accuracy(test_idx[differs[test_idx]]), 4)
        departures = (
            f"; the teacher departs from the advice in {info['teacher_departs']:.3f} of its decisions, "
            f"{info['held_out_departure_accuracy']:.3f} of those (held out) are copied"
        )
    log(
        f"imitation warm start: {info['samples']:,} decisions of {args.pretrain!r} ({episodes:,} episodes), "
        f"{args.pretrain_epochs} epochs; accuracy {info['train_accuracy']:.3f} (train), "
        f"{info['held_out_accuracy']:.3f} (held out){departures} in {info['seconds']:.0f} s ({source})"
    )
    return info


def _make_callback(run: Run, venv, total: int | None, budget: float | None, eval_mix, baseline_mix):
    from stable_baselines3.common.callbacks import BaseCallback

    args = run.args

    class TrainingCallback(BaseCallback):
        """Progress bar, time budget, checkpoints, periodic evaluation and league snapshots."""

        def _on_training_start(self) -> None:
            n = self.model.num_timesteps
            self.next_ckpt = (n // args.checkpoint_every + 1) * args.checkpoint_every if args.checkpoint_every else None
            self.next_eval = (n // args.eval_every + 1) * args.eval_every if args.eval_every else None
            self.next_snap = (n // args.snapshot_every + 1) * args.snapshot_every if args.league else None
            self.eval_envs: dict[str, object] = {}
            self.bar = None
            self.start_steps = n
            self.start_time = time.time()
            if n == 0 and self.next_eval is not None:
                self.evaluate()  # the starting point of the learning curve
            if args.progress:
                from tqdm import tqdm

                if budget is not None:
                    self.bar = tqdm(total=round(budget), initial=min(round(run.elapsed), round(budget)), unit="s")
                    self.bar_mode = "time"
                else:
                    self.bar = tqdm(total=total, initial=n, unit="step", unit_scale=True)
                    self.bar_mode = "steps"

        def _on_step(self) -> bool:
            n = self.model.num_timesteps
            if self.next_eval is not None and n >= self.next_eval:
                self.next_eval += args.eval_every
                self.evaluate()
            if self.next_snap is not None and n >= self.next_snap:
                self.next_snap += args.snapshot_every
                self.snapshot()
            if self.next_ckpt is not None and n >= self.next_ckpt:
                self.next_ckpt += args.checkpoint_every
                run.save(self.model)
            if self.bar is not None:
                self.update_bar()
            if total is not None and n >= total:
                return False
            return not (budget is not None and run.elapsed >= budget)

        def update_bar(self) -> None:
            n = self.model.num_timesteps
            if self.bar_mode == "time":
                target = min(round(run.elapsed), self.bar.total)
            else:
                target = min(n, self.bar.total)
            if target > self.bar.n:
                self.bar.update(target - self.bar.n)
                sps = (n - self.start_steps) / max(time.time() - self.start_time, 1e-9)
                post = {"steps": n, "sps": round(sps)}
                for k, v in run.last_eval.items():
                    post[k] = f"{v['outcome']:+.2f}"
                if args.league:
                    post["pool"] = len(run.league.pool)
                self.bar.set_postfix(post, refresh=False)

        def eval_env(self, name):
            if name not in self.eval_envs:
                self.eval_envs[name] = make_eval_env(args, name, min(4, max(1, args.eval_games)), args.seed + 10_000)
            return self.eval_envs[name]

        def evaluate(self) -> None:
            n = self.model.num_timesteps
            row = {"timesteps": n, "elapsed_s": round(run.elapsed, 1)}
            for name, _ in eval_mix:
                res = evaluate_against(self.model, args, self.eval_env(name), args.eval_games, args.seed + 10_000)
                run.last_eval[name] = res
                self.logger.record(f"eval/{name}_outcome", res["outcome"])
                self.logger.record(f"eval/{name}_first", res["first"])
                row[f"{name}_outcome"] = round(res["outcome"], 4)
                row[f"{name}_first"] = round(res["first"], 4)
            _append_csv(run.dir / "eval.csv", row)
            self.logger.dump(n)

        def snapshot(self) -> None:
            """Gate the current policy against the pool; save it into the pool if it wins."""
            from agents.trained import load

            n = self.model.num_timesteps
            paths = run.league.paths(run.dir)
            scores = {}
            for rel, path in zip(run.league.pool, paths, strict=True):
                member = load(
                    path, rules=run.rules, deterministic=args.league_deterministic, seed=n, trusted=True
                )  # a snapshot this run wrote
                env = make_eval_env(args, member, min(4, args.gate_games), args.seed + 20_000)
                scores[rel] = evaluate_against(self.model, args, env, args.gate_games, args.seed + 20_000)["outcome"]
                env.close()
            mean = float(np.mean(list(scores.values()))) if scores else None
            joined = mean is None or mean >= args.gate_margin
            entry = {"timesteps": n, "vs_pool": scores, "mean": mean, "joined": joined}
            if joined:
                rel = f"league/snapshot_{n:010d}.zip"
                run.save(self.model, run.dir / rel)
                entry["snapshot"] = rel
                for gone in run.league.admit(rel):
                    entry.setdefault("left", []).append(gone)
                venv.env_method("set_pool", run.league.paths(run.dir))
            run.league.history.append(entry)
            self.logger.record("league/pool_size", len(run.league.pool))
            if mean is not None:
                self.logger.record("league/gate_mean_outcome", mean)
            if self.bar is not None:
                verdict = "joins" if joined else "stays out"
                self.bar.write(f"[{n} steps] snapshot {verdict} (mean placement vs pool: {mean})")

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.update_bar()
                self.bar.close()
            for env in self.eval_envs.values():
                env.close()

    return TrainingCallback()


def _append_csv(path: Path, row: dict) -> None:
    new = not path.exists()
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)


def _read_csv(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_monitor(monitor_dir: Path) -> list[dict]:
    """All Monitor episodes of a run, in wall-clock order, with cumulative ``timesteps``."""
    rows = []
    for file in sorted(Path(monitor_dir).glob("*.monitor.csv")):
        with open(file) as f:
            header = f.readline()
            try:
                t_start = float(json.loads(header.lstrip("#"))["t_start"])
            except (ValueError, KeyError):
                continue
            for r in csv.DictReader(f):
                try:
                    rows.append(
                        {"r": float(r["r"]), "l": int(r["l"]), "t": t_start + float(r["t"]), "opp": r.get("opponent")}
                    )
                except (TypeError, ValueError, KeyError):
                    continue
    rows.sort(key=lambda r: r["t"])
    steps = 0
    for r in rows:
        steps += r["l"]
        r["timesteps"] = steps
    return rows


def plot_learning_curve(run_dir: Path, path: Path, title: str, reward: str, episode: str) -> Path | None:
    """Episode reward vs timesteps (rolling mean, per opponent) and the periodic evaluations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_monitor(run_dir / "monitor")
    if not rows:
        return None
    evals = _read_csv(run_dir / "eval.csv")
    fig, axes = plt.subplots(2 if evals else 1, 1, figsize=(9, 7.5 if evals else 4.5), squeeze=False)
    ax = axes[0][0]
    window = max(10, len(rows) // 50)

    def smooth(xs, ys):
        ys = np.asarray(ys, dtype=float)
        if len(ys) < window:
            return np.asarray(xs), ys
        k = np.ones(window) / window
        return np.asarray(xs)[window - 1 :], np.convolve(ys, k, mode="valid")

    x, y = smooth([r["timesteps"] for r in rows], [r["r"] for r in rows])
    ax.plot(x, y, color="black", lw=1.6, label="all opponents")
    opps = sorted({r["opp"] for r in rows if r["opp"]})
    if len(opps) > 1:
        for o in opps:
            sub = [r for r in rows if r["opp"] == o]
            x, y = smooth([r["timesteps"] for r in sub], [r["r"] for r in sub])
            ax.plot(x, y, lw=1, alpha=0.8, label=f"vs {o}")
    ax.set_xlabel("timesteps (learner decisions)")
    ax.set_ylabel(f"episode reward ({reward}, per {episode})")
    ax.set_title(f"{title}\ntraining episodes, rolling mean over {window} episodes")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if evals:
        ax = axes[1][0]
        xs = [int(e["timesteps"]) for e in evals]
        for key in evals[0]:
            if key.endswith("_outcome"):
                ax.plot(xs, [float(e[key]) for e in evals], marker="o", label=f"vs {key[: -len('_outcome')]}")
        ax.axhline(0.0, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("timesteps (learner decisions)")
        ax.set_ylabel("mean placement reward (+1 first, −1 last)")
        ax.set_title("periodic evaluation (deterministic policy)")
        ax.set_ylim(-1.05, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def final_evaluation(args: Args, model_path: Path, rules, run_dir: Path) -> int:
    """Evaluate the model against each baseline with ``training.evaluate`` (duplicate
    format) and print the tables; they are saved as ``final_eval.{txt,json,csv}``."""
    if args.final_eval_games <= 0:
        return 0
    from yaniv_env.games import get_game

    game = get_game(args.game)
    try:
        from training.evaluate import evaluate
    except ImportError as e:
        print(
            f"error: the final evaluation needs the evaluation harness training/evaluate.py, which cannot be "
            f"imported ({e}). The model is saved; evaluate it later with: yaniv eval --game {game.name} "
            f"--agents {model_path},random",
            file=sys.stderr,
        )
        return 1
    from training.league import parse_mix

    mix = parse_mix(args.final_eval_opponents)
    entrants = [n for n, _ in _filter_available(mix, rules, "final evaluation", False)]
    workers = max(1, min(args.n_envs or os.cpu_count() or 1, os.cpu_count() or 1))
    print(
        f"\nfinal evaluation: {model_path} vs {', '.join(entrants)}; {args.final_eval_games} "
        f"{'games' if args.final_eval_episode == 'game' else game.part + 's'} each, duplicate format, "
        f"{workers} workers"
    )
    tables, results, summary = [], {}, []
    for opp in entrants:
        res = evaluate(
            [("trained", str(model_path)), opp],
            rules=rules,
            num_players=args.num_players,
            games=args.final_eval_games,
            seed=args.seed,
            duplicate=True,
            workers=workers,
            episode=args.final_eval_episode,
            progress=args.progress,
            game=game.name,
        )
        table = res.table()
        print("\n" + table)
        tables.append(table)
        results[opp] = json.loads(res.to_json())
        res.to_csv(run_dir / f"final_eval_vs_{opp}.csv")
        m = res["trained"].metrics
        summary.append((opp, res.games, m["game_win_rate"], m["round_win_rate"], m["points_per_round"]))
    lines = [
        f"trained model ({model_path.name}, {game.title} {rules.name}, {rules.num_players} players) vs the baselines:"
    ]
    part = game.part
    lines.append(f"{'opponent':<15}{'games':>7}  {'game win rate [95% CI]':<26}{part + ' win rate':<26}points/{part}")
    for opp, games, g, r, p in summary:
        lines.append(
            f"{opp:<15}{games:>7}  {g.value:.3f} [{g.low:.3f}, {g.high:.3f}]{'':<5}"
            f"{r.value:.3f} [{r.low:.3f}, {r.high:.3f}]{'':<5}{p.value:.2f} [{p.low:.2f}, {p.high:.2f}]"
        )
    text = "\n".join(lines)
    print("\n" + text)
    (run_dir / "final_eval.txt").write_text("\n\n".join([*tables, text]) + "\n")
    (run_dir / "final_eval.json").write_text(json.dumps(results, indent=1) + "\n")
    print(f"evaluation: {run_dir / 'final_eval.txt'}")
    return 0


def _resume_args(args: Args, given: set[str]) -> tuple[Args, Path, dict]:
    from agents.trained import checkpoint_game, read_metadata

    run_dir = Path(args.resume)
    ckpt = run_dir / "checkpoints" / "latest.zip"
    if not ckpt.is_file():
        raise ValueError(f"--resume {run_dir}: no checkpoint at {ckpt}")
    meta = read_metadata(ckpt)
    stored = dict(meta.get("args") or {})
    known = {f.name for f in dataclasses.fields(Args)}
    merged = {k: v for k, v in stored.items() if k in known}
    merged["game"] = checkpoint_game(meta).name  # runs from before --game are Yaniv runs
    for k in given:
        new = getattr(args, k)
        if k in RESUME_OVERRIDES:
            merged[k] = new
        elif k in merged and merged[k] != new:
            raise ValueError(f"--resume: {k} was {merged[k]!r} in this run; it cannot change to {new!r}")
    merged["resume"] = str(run_dir)
    return Args(**{**dataclasses.asdict(Args()), **merged}), run_dir, meta


class ConfigError(ValueError):
    """Bad arguments or an unusable run directory / checkpoint (reported without a traceback)."""


def _validate(args: Args, given: set[str]):
    """Resolve ``--resume``, check the arguments; returns (args, run_dir, rules, meta, mix, eval_mix)."""
    from agents.trained import check_metadata
    from training.league import agent_available, parse_mix
    from yaniv_env.games import get_game

    meta = None
    if args.resume:
        args, run_dir, meta = _resume_args(args, given)
        game = get_game(args.game)
        rules = check_metadata(meta, game=game.name)
    else:
        game = get_game(args.game)
        args = apply_game_defaults(args, given)
        rules = game.get_rules(args.rules, args.num_players)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        prefix = "" if game.name == "yaniv" else f"{game.name}_"
        run_dir = Path(args.output_dir) / (args.run_name or f"{prefix}{args.rules}__{args.seed}__{stamp}")
        if (run_dir / "checkpoints" / "latest.zip").exists():
            raise ValueError(f"{run_dir} already holds a run; use --resume {run_dir} or another --run-name")
    choices = {
        "episode": (game.part, "game"),
        "final_eval_episode": (game.part, "game"),
        "eval_episode": (None, game.part, "game"),
        "vec_env": ("dummy", "subproc"),
        "activation": ("relu", "tanh"),
        "reward": game.reward_schemes,
    }
    for name, allowed in choices.items():
        if getattr(args, name) not in allowed:
            raise ValueError(
                f"--{name.replace('_', '-')} must be one of {allowed} for {game.title}, got {getattr(args, name)!r}"
            )
    if args.action_features and game.name != "yaniv":
        raise ValueError(
            f"--action-features scores actions by their Yaniv cards (agents.trained.ActionFeaturePolicy); "
            f"{game.title} actions play one card each and use the plain MLP head: drop --action-features"
        )
    if args.learner_seat != "random" and not (
        args.learner_seat.isdigit() and int(args.learner_seat) < rules.num_players
    ):
        raise ValueError(f"--learner-seat must be 'random' or a seat 0..{rules.num_players - 1}")
    positive = ["n_steps", "batch_size", "n_epochs", "league_size", "gate_games"]
    for name in positive:
        if getattr(args, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if args.league and args.snapshot_every <= 0:
        raise ValueError("--snapshot-every must be positive with --league")
    if args.minutes is not None and args.minutes <= 0:
        raise ValueError("--minutes must be positive")
    _net_arch(args.net_arch)
    default_mix = GAME_DEFAULTS.get(game.name, {}).get("opponents", Args.opponents)
    strict = "opponents" in given or args.opponents != default_mix
    mix = _filter_available(parse_mix(args.opponents), rules, "opponents", strict)
    if args.pretrain.lower() in ("", "none"):
        args.pretrain = ""
    elif meta is None:
        why = agent_available(args.pretrain, rules)
        if why:
            raise ValueError(f"--pretrain: agent {args.pretrain!r} is not available for {game.title} ({why})")
        if args.pretrain_samples <= 0 or args.pretrain_epochs <= 0:
            raise ValueError("--pretrain-samples and --pretrain-epochs must be positive")
        if args.pretrain_departure_weight <= 0:
            raise ValueError("--pretrain-departure-weight must be positive")
    if args.advice.lower() in ("", "none"):
        args.advice = ""
    else:
        why = agent_available(args.advice, rules)
        if why:
            raise ValueError(f"--advice: agent {args.advice!r} is not available ({why})")
    eval_mix = []
    if args.eval_every:
        eval_mix = _filter_available(parse_mix(args.eval_opponents), rules, "eval opponents", False)
    return args, run_dir, rules, meta, mix, eval_mix


def train(args: Args, given: set[str] | None = None) -> int:
    """Train (or resume) a run; returns the exit status. Bad arguments raise :class:`ConfigError`."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from agents.trained import load_model
    from training.league import format_mix
    from yaniv_env.games import get_game

    try:
        args, run_dir, rules, meta, mix, eval_mix = _validate(args, given or set())
    except ValueError as e:
        raise ConfigError(str(e)) from None
    cores = os.cpu_count() or 1
    n_envs = args.n_envs or cores
    threads = args.torch_threads or cores
    torch.set_num_threads(threads)
    total = args.total_timesteps
    budget = args.minutes * 60.0 if args.minutes is not None else None
    if total is None and budget is None:
        total = DEFAULT_TIMESTEPS

    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "monitor").mkdir(exist_ok=True)
    run = Run(args, run_dir, rules, meta)
    if meta is None:
        (run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=1))

    # Seeding: a resumed segment continues with fresh but reproducible streams.
    seed = args.seed + 1_000_003 * run.segment
    _seed_everything(seed)

    subprocess = args.vec_env == "subproc" and n_envs > 1
    fns = [
        make_env(args, i, seed, str(run_dir / "monitor" / f"{run.segment:02d}_{i:02d}"), mix, subprocess)
        for i in range(n_envs)
    ]
    venv = SubprocVecEnv(fns) if subprocess else DummyVecEnv(fns)
    if run.league.pool:
        venv.env_method("set_pool", run.league.paths(run_dir))

    import torch.nn as nn

    activations = {"relu": nn.ReLU, "tanh": nn.Tanh}
    arch = _net_arch(args.net_arch)
    tb = str(run_dir / "tb")
    if meta is not None:
        # the checkpoint of the run the user asked to resume: their own file
        model = load_model(run.checkpoint_path, trusted=True, for_training=True, env=venv, device=args.device)
        model.tensorboard_log = tb
        model.set_random_seed(seed)
        done = model.num_timesteps
    else:
        from agents.advice import AdvisedPolicy
        from agents.trained import ActionFeaturePolicy, rules_to_dict

        policy_kwargs = {"net_arch": {"pi": arch, "vf": arch}, "activation_fn": activations[args.activation]}
        if args.action_features:
            policy_kwargs["action_rules"] = rules_to_dict(rules)
        policy = ActionFeaturePolicy if args.action_features else "MlpPolicy"
        if args.advice:
            policy = AdvisedPolicy
            policy_kwargs["advice_scale"] = args.advice_scale
        model = MaskablePPO(
            policy,
            venv,
            learning_rate=args.learning_rate,
            n_steps=args.n_steps,
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            gamma=args.gamma,
            gae_lambda=args.gae_lambda,
            clip_range=args.clip_range,
            ent_coef=args.ent_coef,
            vf_coef=args.vf_coef,
            max_grad_norm=args.max_grad_norm,
            policy_kwargs=policy_kwargs,
            tensorboard_log=tb,
            seed=seed,
            device=args.device,
            verbose=0,
        )
        done = 0

    title = f"MaskablePPO on {get_game(args.game).title} — {rules.name}, {rules.num_players} players"
    print(f"run: {run_dir}")
    print(
        f"{title}; {args.episode} episodes, {args.reward} reward; opponents {format_mix(mix)}"
        + (f" + league (p={args.league_prob})" if args.league else "")
    )
    budget_text = []
    if total is not None:
        budget_text.append(f"{total:,} timesteps")
    if budget is not None:
        budget_text.append(f"{args.minutes:g} min wall clock")
    print(
        f"budget: {' or '.join(budget_text)}; {n_envs} envs ({'subproc' if subprocess else 'dummy'}), "
        f"{threads} torch threads" + (f"; resuming at {done:,} timesteps" if done else "")
    )

    if meta is None and args.pretrain:
        run.pretrain = imitation_pretrain(model, args, rules, mix, seed)

    ppo_start = time.time()
    callback = _make_callback(run, venv, total, budget, eval_mix, mix)
    remaining = (total - done) if total is not None else 10**15
    status = 0
    old_term = signal.getsignal(signal.SIGTERM)

    def _sigterm(signum, frame):
        raise KeyboardInterrupt

    if remaining > 0 and not (budget is not None and run.elapsed >= budget):
        signal.signal(signal.SIGTERM, _sigterm)
        try:
            model.learn(
                total_timesteps=remaining,
                callback=callback,
                reset_num_timesteps=meta is None,
                tb_log_name="ppo",
            )
        except KeyboardInterrupt:
            run.save(model)
            print(
                f"\ninterrupted at {model.num_timesteps:,} timesteps; checkpoint saved. "
                f"Continue with: yaniv train --resume {run_dir}",
                file=sys.stderr,
            )
            status = 130
        finally:
            signal.signal(signal.SIGTERM, old_term)
            with contextlib.suppress(Exception):  # subprocesses may already be gone after Ctrl-C
                venv.close()
    else:
        venv.close()
    if status:
        return status

    ckpt = run.save(model)
    run.save(model, run_dir / "model.zip")
    from agents.trained import export_for_play

    # the play file: what to evaluate, share and load from anyone (the .zip unpickles)
    model_path = export_for_play(run_dir / "model.zip", run_dir / "model.safetensors", trusted=True)
    ppo_seconds = time.time() - ppo_start
    rate = (model.num_timesteps - done) / max(ppo_seconds, 1e-9)
    print(
        f"trained {model.num_timesteps:,} timesteps in {run.elapsed / 60:.1f} min in all "
        f"(this session: {model.num_timesteps - done:,} PPO steps in {ppo_seconds / 60:.1f} min, {rate:.0f} steps/s)"
    )
    note = f", after imitating {run.pretrain['agent']!r}" if run.pretrain else ""
    plot = plot_learning_curve(
        run_dir, run_dir / "learning_curve.png", f"{title} ({run_dir.name}{note})", args.reward, args.episode
    )
    print(f"model: {model_path}")
    print(f"checkpoint: {ckpt}")
    if plot:
        print(f"learning curve: {plot}")
    return final_evaluation(args, model_path, rules, run_dir)


def main(argv: list[str] | None = None) -> int:
    args, given = parse_args(argv)
    try:
        return train(args, given)
    except ConfigError as e:
        print(f"yaniv train: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
