"""``yaniv train --algo maskable_ppo``: train a Yaniv or Pis Yedili agent with MaskablePPO
(sb3-contrib), in the manner of CleanRL: one :class:`~training.args.Args` dataclass, resolved
once into a frozen :class:`~training.plan.Plan`, everything logged to ``runs/<run_name>``.
:func:`run` hands a plan of the default learner (``--algo ppo``) to :mod:`training.ppo`.

.. code-block:: console

    yaniv train --algo maskable_ppo --minutes 10     # standard rules, 2 players, vs the baselines
    yaniv train --algo maskable_ppo --rules seven --num-players 3 --total-timesteps 2000000 --league
    yaniv train --resume runs/standard__1__20250101-120000 --minutes 20
    yaniv train --game pis_yedili --num-players 3 --minutes 5    # Pis Yedili (MaskablePPO), vs the Pis agents

The learner plays one seat (a random seat per episode) of the games of the batched vector
environment :class:`yaniv_env.yaniv.batched.sb3.YanivVecEnv` (``--vec-env auto``/``batched``;
``dummy``/``subproc``: one :class:`yaniv_env.yaniv.gym_env.YanivGymEnv` each, the same games);
the other seats are drawn per episode from a weighted mix of baselines and, with
``--league``, from a self-play pool of past snapshots (``training.league``,
:class:`training.envs.VecOpponentPool`). Masks come from the environment's
``action_masks()``.

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
are refused. Checkpoints record the game (:mod:`training.checkpoint`): a Pis Yedili model is
refused where Yaniv is played and the reverse, and ``--resume`` keeps the run's game.

Advised policies and distillation (``--advice``)
------------------------------------------------
``--advice score_heuristic`` (the default) trains a residual policy (:mod:`agents.advice`):
the score-aware heuristic's move is appended to the learner's observation and added to the
logits with a trained weight, so the policy starts as that heuristic and learns where to
depart from it; the advisor is stored in the checkpoint (by name) and asked again at play
time. With ``--pretrain search_fast`` the imitation phase learns the search agent's
departures from the advisor (distillation: the network plays without searching). The
recipes of the shipped agents and what they measured are in their model cards
(``docs/agents/``).

A run directory holds::

    args.json                 the arguments
    checkpoints/latest.zip    the last checkpoint (atomic; ``--resume`` continues from it)
    model.zip                 the final model (same format; loads only when trusted)
    model.safetensors         the final model as a play file (``agents.load`` / ``yaniv eval``;
                              safe to share: loading it runs no code)
    league/snapshot_*.zip     self-play pool members
    monitor/*.monitor.csv     one line per training episode (reward, length, opponent)
    eval.csv                  periodic evaluation: game win rate [95% CI] vs each opponent
    tb/                       TensorBoard logs (``tensorboard --logdir runs``)
    learning_curve.png        game win rate vs each opponent at each periodic evaluation
    final_eval.txt, .json     the final evaluation (``agents.evaluation``) against each
    final_eval_vs_*.csv       baseline, and its summary

The checkpoint format is described in :mod:`training.checkpoint`.

What the command shows
----------------------
Every phase has a progress bar on standard error (:mod:`agents.evaluation.progress`): the
imitation collection (decisions), its fitting (decisions x epochs), PPO (minutes of the
budget, or steps, with the steps/s and the last periodic evaluation's game win rate against
each opponent; a periodic evaluation names its opponent and games on that bar while it
runs) and each opponent of the final evaluation (games). The run ends with a framed table: the game win
rate [95% CI] against each baseline, the games played, the round win rate and the model's
points per round, and the path of the saved model.

Periodic evaluation (``--eval-every``, ``--eval-games``)
--------------------------------------------------------
Every ``--eval-every`` steps (and at step 0) the current policy plays ``--eval-games`` whole
games against each ``--eval-opponents`` entry in the duplicate format of
:mod:`agents.evaluation` (rounded up to whole deals: a multiple of the seatings of a deal),
and ``eval.csv`` gets a row per opponent, in the layout both learners write
(:data:`training.periodic_eval.EVAL_COLUMNS`): the game win rate with its 95% interval. It is
the same measure as the final evaluation, only smaller. Whole games are long and the policy plays them one
decision at a time, so with the defaults (20 games against each of 3 opponents every
100,000 steps) an evaluation takes a noticeable share of the budget (how long games are and
what an evaluation cost on the project's machine: ``docs/training.md``). It counts against
``--minutes``.

Modules
-------
=============================  =============================================================
:mod:`training.cli.train`      ``yaniv train``: the command line
:mod:`training.args`           :class:`~training.args.Args`: the options, their defaults
:mod:`training.config`         the parser, per-game defaults, ``--resume``'s arguments
:mod:`training.plan`           the arguments checked and resolved once, seeds included
``training/train.py``          this module: the model, the phases in order, the final evaluation
:mod:`training.envs`           training and gate environments
:mod:`training.league`         opponents drawn per episode, the self-play pool
:mod:`training.imitation`      the imitation warm start and ``--pretrain-data`` files
:mod:`training.callbacks`      progress, periodic evaluation, league, checkpoints, budget
:mod:`training.periodic_eval`  the periodic evaluation of both learners and ``eval.csv``
:mod:`training.run_state`      the run's directory, league, elapsed time and logs
:mod:`training.plots`          ``learning_curve.png``
:mod:`training.final_eval`     the final evaluation against the baselines
:mod:`training.ppo`            ``--algo ppo``: the lean PPO on the batched engine, the same phases
=============================  =============================================================

What ``--algo maskable_ppo --minutes 10`` does (standard rules, 2 players; figures: ``docs/training.md``)
---------------------------------------------------------------------------------------------------------
* **Advised policy** (``--advice score_heuristic``): the score-aware heuristic's move
  enters the logits with a trained weight, so the policy starts as that heuristic.
* **Imitation of the advisor** (``--pretrain score_heuristic``): 60,000 of its decisions in
  the learner's seat (collected on the batched engine), 4 epochs; the policy already plays
  them, so this warms up the value net on the advisor's returns.
* **PPO on whole games against the heuristic** at a low learning rate (1e-5), no entropy
  bonus, for the rest of the budget: it keeps the policy near its advisor (the earlier
  defaults and what they measured: docs/experiments/2026-11-26-distilling-the-search.md).
* **Hand shaping** (``--shaping``): potential-based, so it cannot change the optimum.
* **Action features** (``--action-features``): the output layer also scores each action
  by the cards it moves, so learning carries over between the ~1,500 action ids.
* **16 batched environments in one process** and **one torch thread**: the environments
  share each forward pass, and small networks run faster on one thread (why:
  ``docs/training.md``, Stable-Baselines3 directly).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import signal
import sys
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import CallbackList
from torch import nn

from agents.advice import AdvisedPolicy
from agents.trained import ActionFeaturePolicy, export_for_play, load_model, rules_to_dict
from training import callbacks, ppo
from training.args import ConfigError
from training.envs import EnvSpec, make_train_venv
from training.final_eval import final_evaluation
from training.imitation import imitation_pretrain
from training.league import format_mix
from training.plan import FinalEvalSettings, ModelSettings, Plan, PPOSettings, make_plan
from training.plots import plot_learning_curve
from training.run_state import Run
from yaniv_env.games import get_game

__all__ = ["final_evaluation", "run", "train"]


def train(args, given: set[str] | None = None) -> int:
    """Train (or resume) the run of ``args``; returns the exit status. Bad arguments raise
    :class:`~training.args.ConfigError` before anything is written."""
    try:
        plan = make_plan(args, given or set())
    except ValueError as e:
        raise ConfigError(str(e)) from None
    return run(plan)


def run(plan: Plan) -> int:
    """The phases of a run in order: imitation, PPO, the play file, the final evaluation
    (``--algo ppo``: :func:`training.ppo.run`, the same phases). It alone reads the plan: each
    phase gets its settings and the values it needs."""
    torch.set_num_threads(plan.torch_threads)
    if plan.kind == "batched":  # before the budget's clock starts: a first run compiles for about a minute
        from agents.evaluation.batched_runner import compile_kernels  # loads Numba: only for the batched engine

        compile_kernels(plan.rules, announce=True, search=plan.meta is None and plan.imitation.teacher == "search_fast")
    if plan.algo == "ppo":
        return ppo.run(plan)
    (plan.run_dir / "monitor").mkdir(parents=True, exist_ok=True)
    run_state = Run(plan.args, plan.env, plan.run_dir, plan.meta, plan.league.size, plan.segment)
    if plan.meta is None:
        (plan.run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(plan.args), indent=1))
    seed = plan.seeds.training
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    monitor = str(plan.run_dir / "monitor" / f"{plan.segment:02d}")
    venv = make_train_venv(plan.env, plan.seeds.environments, plan.n_envs, monitor, plan.kind, plan.seeds.advice)
    if run_state.league.pool:
        venv.env_method("set_pool", run_state.league.paths(plan.run_dir))
    model = build_model(run_state, venv, plan.model, plan.ppo, seed, resume=plan.meta is not None)
    done = model.num_timesteps
    heading = title(plan.env, plan.rule_options)
    announce(
        run_state, heading, plan.final_evaluation, done, total=plan.total, budget=plan.budget, n_envs=plan.n_envs,
        kind=plan.kind, threads=plan.torch_threads,
    )  # fmt: skip
    if plan.meta is None and plan.imitation.teacher:
        run_state.pretrain = imitation_pretrain(model.policy, plan.imitation)
    callback = callbacks.make_callback(
        run_state, venv, plan.evaluation, plan.league, checkpoint_every=plan.checkpoint_every, total=plan.total,
        budget=plan.budget, progress=plan.progress,
    )  # fmt: skip
    ppo_start = time.time()
    status = learn(run_state, model, venv, callback, plan.total, plan.budget, new_run=plan.meta is None)
    if status:
        return status
    return finish(run_state, model, done, time.time() - ppo_start, heading, plan.final_evaluation)


#: The PPO hyperparameters a new MaskablePPO is given (:class:`training.plan.PPOSettings`' shared ones).
MASKABLE_PPO_HYPERPARAMETERS = (
    "learning_rate",
    "n_steps",
    "batch_size",
    "n_epochs",
    "gamma",
    "gae_lambda",
    "clip_range",
    "ent_coef",
    "vf_coef",
    "max_grad_norm",
)


def build_model(
    run_state: Run, venv, net: ModelSettings, settings: PPOSettings, seed: int, resume: bool
) -> MaskablePPO:
    """The resumed checkpoint's model (``resume``), or a new MaskablePPO of the network ``net``
    with the hyperparameters ``settings``; ``seed`` seeds it."""
    tb = str(run_state.dir / "tb")  # TensorBoard: tensorboard --logdir runs
    if resume:
        # the checkpoint of the run the user asked to resume: their own file
        model = load_model(run_state.checkpoint_path, trusted=True, for_training=True, env=venv, device=net.device)
        model.tensorboard_log = tb
        model.set_random_seed(seed)
        return model
    arch = list(net.net_arch)
    activations = {"relu": nn.ReLU, "tanh": nn.Tanh}
    policy_kwargs = {"net_arch": {"pi": arch, "vf": arch}, "activation_fn": activations[net.activation]}
    if net.action_features:
        policy_kwargs["action_rules"] = rules_to_dict(run_state.rules)
    if net.score_features:
        policy_kwargs["score_features"] = True
    policy = ActionFeaturePolicy if net.action_features else "MlpPolicy"
    if net.advice:
        policy = AdvisedPolicy
        policy_kwargs["advice_scale"] = net.advice_scale
    hyperparameters = {k: getattr(settings, k) for k in MASKABLE_PPO_HYPERPARAMETERS}
    return MaskablePPO(
        policy, venv, policy_kwargs=policy_kwargs, tensorboard_log=tb, seed=seed, device=net.device, verbose=0,
        **hyperparameters,
    )  # fmt: skip


def title(env: EnvSpec, rule_options: tuple[str, ...]) -> str:
    """The run's learner, game and rules (``rule_options``: ``--set`` as given)."""
    house = f" with {', '.join(rule_options)}" if rule_options else ""
    rules = env.rules
    return f"MaskablePPO on {get_game(env.game).title} — {rules.name}{house}, {rules.num_players} players"


def announce(
    run_state: Run, heading: str, final: FinalEvalSettings, done: int, *, total: int | None, budget: float | None,
    n_envs: int, kind: str, threads: int,
) -> None:  # fmt: skip
    """What the run will do: the game (``heading``), the opponents, the budget (``total`` steps,
    ``budget`` seconds), the ``n_envs`` environments of ``kind`` and the torch ``threads``, the
    final evaluation; ``done``: the steps a resumed run starts from."""
    env = run_state.env
    print(f"run: {run_state.dir}")
    print(
        f"{heading}; {env.episode} episodes, {env.reward} reward; opponents {format_mix(list(env.mix))}"
        + (f" + league (p={env.league_prob})" if env.league else "")
    )
    budget_text = []
    if total is not None:
        budget_text.append(f"{total:,} timesteps")
    if budget is not None:
        budget_text.append(f"{budget / 60:g} min wall clock (imitation, PPO and periodic evaluations)")
    print(
        f"budget: {' or '.join(budget_text)}; {n_envs} envs ({kind}), "
        f"{threads} torch threads" + (f"; resuming at {done:,} timesteps" if done else "")
    )
    if final.games > 0:
        print(f"then a final evaluation: {final.games} games against each of {final.opponents}")


def learn(
    run_state: Run, model, venv, callback: CallbackList, total: int | None, budget: float | None, new_run: bool
) -> int:
    """PPO with ``callback`` until ``total`` steps or ``budget`` seconds of the run, with a
    checkpoint on Ctrl-C / SIGTERM (status 130); ``new_run``: its step count starts at 0."""
    remaining = (total - model.num_timesteps) if total is not None else 10**15
    if remaining <= 0 or (budget is not None and run_state.elapsed >= budget):
        venv.close()
        return 0
    old_term = signal.getsignal(signal.SIGTERM)

    def _sigterm(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _sigterm)
    try:
        model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=new_run, tb_log_name="ppo")
    except KeyboardInterrupt:
        run_state.save(model)
        print(
            f"\ninterrupted at {model.num_timesteps:,} timesteps; checkpoint saved. "
            f"Continue with: yaniv train --resume {run_state.dir}",
            file=sys.stderr,
        )
        return 130
    finally:
        signal.signal(signal.SIGTERM, old_term)
        with contextlib.suppress(Exception):  # subprocesses may already be gone after Ctrl-C
            venv.close()
    return 0


def finish(run_state: Run, model, done: int, ppo_seconds: float, heading: str, final: FinalEvalSettings) -> int:
    """The checkpoint, the model and its play file, the learning curve (titled ``heading``), the
    final evaluation."""
    run_dir, env = run_state.dir, run_state.env
    ckpt = run_state.save(model)
    run_state.save(model, run_dir / "model.zip")
    # the play file: what to evaluate, share and load from anyone (the .zip unpickles)
    model_path = export_for_play(run_dir / "model.zip", run_dir / "model.safetensors", trusted=True)
    rate = (model.num_timesteps - done) / max(ppo_seconds, 1e-9)
    print(
        f"trained {model.num_timesteps:,} timesteps in {run_state.elapsed / 60:.1f} min in all "
        f"(this session: {model.num_timesteps - done:,} PPO steps in {ppo_seconds / 60:.1f} min, {rate:.0f} steps/s)"
    )
    note = f", after imitating {run_state.pretrain['agent']!r}" if run_state.pretrain else ""
    curve_title = f"{heading} ({run_dir.name}{note})"
    plot = plot_learning_curve(run_dir, run_dir / "learning_curve.png", curve_title, f"{env.reward}, per {env.episode}")
    print(f"model: {model_path}")
    print(f"checkpoint: {ckpt}")
    if plot:
        print(f"learning curve: {plot}")
    if final.games <= 0:
        return 0
    return final_evaluation(final, model_path)
