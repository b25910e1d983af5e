"""Train a Yaniv or Pis Yedili agent with MaskablePPO (sb3-contrib), in the manner of
CleanRL: one file, one :class:`Args` dataclass, everything logged to ``runs/<run_name>``.

.. code-block:: console

    yaniv train --minutes 10                         # standard rules, 2 players, vs the baselines
    yaniv train --rules seven --num-players 3 --total-timesteps 2000000 --league
    yaniv train --resume runs/standard__1__20250101-120000 --minutes 20
    yaniv train --game pis_yedili --num-players 3 --minutes 5    # Pis Yedili, vs the Pis agents

The learner plays one seat (a random seat per episode) of the games of the batched vector
environment :class:`yaniv_env.vector.envs.YanivVecEnv` (``--vec-env auto``/``batched``;
``dummy``/``subproc``: one :class:`yaniv_env.gym_env.YanivGymEnv` each, the same games);
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
are refused. Checkpoints record the game (:mod:`agents.trained`): a Pis Yedili model is
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
    final_eval.txt, .json     the final evaluation (``training.evaluate``) against each
    final_eval_vs_*.csv       baseline, and its summary

The checkpoint format is described in :mod:`agents.trained`.

What the command shows
----------------------
Every phase has a progress bar on standard error (:mod:`training.progress`): the
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
:mod:`training.evaluate` (rounded up to whole deals: a multiple of the seatings of a deal),
and ``eval.csv`` gets the game win rate with its 95% interval. It is the same measure as the
final evaluation, only smaller. Whole games are long (two players: ~9 rounds against
``random``, 20-40 against ``greedy`` and ``heuristic``) and the policy plays them one
decision at a time, so with the defaults (20 games against each of 3 opponents every
100,000 steps) an evaluation takes a noticeable share of the budget (what it cost on the
project's machine: ``docs/training.md``). It counts against ``--minutes``.

Modules
-------
=============================  =============================================================
``training/train.py``          this script: :class:`Args`, seeding, the main loop
:mod:`training.config`         command line, per-game defaults, ``--resume``, checks
:mod:`training.envs`           training and gate environments
:mod:`training.imitation`      the imitation warm start and ``--pretrain-data`` files
:mod:`training.callbacks`      budget, checkpoints, periodic evaluation, league snapshots
:mod:`training.run_state`      the run's directory, league, elapsed time and logs
:mod:`training.plots`          ``learning_curve.png``
:mod:`training.progress`       progress bars
=============================  =============================================================

What the ten-minute default does (standard rules, 2 players; figures: ``docs/training.md``)
----------------------------------------------------------------------------------------
* **Advised policy** (``--advice score_heuristic``): the score-aware heuristic's move
  enters the logits with a trained weight, so the policy starts as that heuristic.
* **Imitation of the advisor** (``--pretrain score_heuristic``): 60,000 of its decisions in
  the learner's seat (seconds on the batched engine), 4 epochs; the policy already plays
  them, so this warms up the value net on the advisor's returns.
* **PPO on whole games against the heuristic** at a low learning rate (1e-5), no entropy
  bonus, for the rest of the budget: it keeps the policy near its advisor (the earlier
  defaults and what they measured: docs/experiments/2026-11-26-distilling-the-search.md).
* **Hand shaping** (``--shaping``): potential-based, so it cannot change the optimum.
* **Action features** (``--action-features``): the output layer also scores each action
  by the cards it moves, so learning carries over between the ~1,500 action ids.
* **16 batched environments in one process** and **one torch thread**: the forward pass
  costs about the same for 1 or 16 observations, and extra torch threads on shared cores
  collapse the throughput.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sb3_contrib  # noqa: F401  (the [train] extra, named if missing: the network classes below need it)

from agents.advice import AdvisedPolicy
from agents.evaluation import evaluate, whole_deals
from agents.evaluation.reports import final_table
from agents.trained import ActionFeaturePolicy, load_model, rules_to_dict
from training import callbacks, config
from training.config import GAME_DEFAULTS, ConfigError, apply_game_defaults
from training.envs import make_train_venv, vec_env_kind
from training.imitation import imitation_pretrain
from training.league import format_mix, parse_mix
from training.plots import plot_learning_curve
from training.run_state import Run
from yaniv_env.core.cpus import available_cpus
from yaniv_env.games import get_game

__all__ = ["GAME_DEFAULTS", "Args", "ConfigError", "apply_game_defaults", "main", "parse_args", "train"]


@dataclass
class Args:
    game: str = "yaniv"
    """The game: ``yaniv`` or ``pis_yedili`` (Pis Yedili, on ``yaniv_env/PisYedili-v0``
    against the Pis agents). For ``pis_yedili``, options not given take the Pis Yedili
    defaults shown in brackets in ``--help`` (``GAME_DEFAULTS``)."""
    rules: str = "standard"
    """Rules preset of the game (Yaniv: ``standard``, ``seven``, ``french``, ``two_deck``;
    Pis Yedili: ``standard``)."""
    set: list[str] = dataclasses.field(default_factory=list)
    """A rule option on top of the preset, as ``option=value`` (repeat it: ``--set call_max=7
    --set jokers_per_deck=0``); saved in the checkpoint, so house rules train and load like
    a preset. The options: ``yaniv_env/RULES.md``."""
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
    """Parallel environments (0: one per CPU this process may use). The policy's forward pass costs about
    the same for 1 or 16 observations, so many in-process environments amortise it."""
    vec_env: str = "auto"
    """``batched``: the games stepped together on the batched engine, opponents (and the
    --league pool's snapshots) acting in batch (Yaniv); ``dummy``: one Gymnasium
    environment each, in this process; ``subproc``: one process each; ``auto``: batched
    where it can run (Yaniv), else dummy."""
    torch_threads: int = 1
    """torch.set_num_threads for training (0: the CPUs this process may use). More than one
    thread is much slower when the cores are shared with other work."""
    opponents: str = "heuristic:1"
    """Opponent mix: comma-separated agent names (``agents.make``) or .zip models, each
    with an optional ``:weight`` (e.g. ``random:1,greedy:2,heuristic:2``); one is drawn per
    seat and episode. Baselines of the default mix that are not installed are left out with
    a warning."""
    learner_seat: str = "random"
    """The learner's seat: a number, or ``random`` (drawn per episode)."""
    episode: str = "game"
    """Training episodes: ``game`` (whole games: what is judged) or ``round`` (one round:
    short, dense credit assignment) (Pis Yedili: ``deal`` or ``game``)."""
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
    pretrain: str = "score_heuristic"
    """Imitation warm start: before PPO, the policy learns to copy this agent's moves and
    the value net its returns, from --pretrain-samples decisions it plays in the learner's
    seat against the opponent mix ("" or none: start from scratch). Only in a new run.
    The default teacher is the default advisor itself (seconds: with --advice, imitating
    the advisor warms up the value net); search_fast distils the search (about 2 minutes
    for 150,000 decisions)."""
    pretrain_option: list[str] = dataclasses.field(default_factory=list)
    """An option of the --pretrain agent, as ``key=value`` (repeat it: ``--pretrain-option
    candidates=8 --pretrain-option cost_window=20``, a wider search)."""
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
    pretrain_departure_weight: float = 3.0
    """Imitation with --advice: weight in the policy loss of the decisions where the teacher
    departs from the advice (they are few; the weights tried:
    docs/experiments/2026-11-26-distilling-the-search.md)."""
    pretrain_temperature: float = 0.0
    """Imitation from search_fast: on its searched decisions, the policy's target is a
    softmax of its candidate moves' rollout values (in points) at this temperature, instead
    of the one move it played (0). The values say by how much a move is better, which a
    noisy choice does not."""
    dagger_rounds: int = 0
    """Imitation: rounds of DAgger after the first fit. In each, the fitted policy plays
    --dagger-samples decisions (sampling its moves) in the learner's seat, the --pretrain
    agent labels each with the move it would play there, and the policy is fitted again on
    all the decisions so far: it learns the teacher's answer in the positions its own
    mistakes lead to, which the teacher's games never show."""
    dagger_samples: int = 50_000
    """DAgger: the student's decisions labelled in each round."""
    dagger_epochs: int = 2
    """DAgger: passes over all the decisions so far after each round."""
    learning_rate: float = 1e-5
    """Adam learning rate of PPO. Low, so that PPO refines the advised, imitated start
    rather than drifting from it (with --advice heuristic, 1e-4 lost about 10 points of
    game win rate against the heuristic in ten minutes, 1e-5 kept it level); without advice
    1e-4, and from scratch (--pretrain none) 3e-4, learn faster."""
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
    ent_coef: float = 0.0
    """Entropy bonus coefficient (0: the advised policy is not pushed away from its
    advisor's moves; 0.01 suits a policy trained without advice)."""
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
    score_features: bool = False
    """The networks also read one-hot features of the game score (``agents.networks.ScoreFeatures``:
    each seat's points to its next milestone and to the score limit, and how far the
    learner's hand is from landing it on a milestone), and the actions' features their
    value as a one-hot; the MLPs read these poorly from the totals' scalars. Needs
    --action-features. Yaniv only."""
    advice: str = "score_heuristic"
    """Residual policy learning (``agents.advice``): this agent's move is added to the
    learner's observation and to its logits with a trained weight that starts at
    --advice-scale, so training starts from that agent's play and learns where to depart
    from it; the advisor is part of the model ("" or none: a plain policy)."""
    advice_scale: float = 5.0
    """Advice: starting weight of the advised move's logit."""
    eval_every: int = 100_000
    """Evaluate against --eval-opponents every this many timesteps (0: never); each evaluation
    plays whole games and costs about a minute with the defaults (see the module docstring)."""
    eval_games: int = 20
    """Games against each opponent in a periodic evaluation (duplicate format, rounded up to
    whole deals)."""
    eval_opponents: str = "random,greedy,heuristic"
    """Opponents of the periodic evaluation (unavailable baselines are left out)."""
    eval_episode: str | None = None
    """Episode type of the periodic evaluation and of the league gate (default: ``game`` for
    the periodic evaluation, so that it measures game win rates; --episode for the gate)."""
    checkpoint_every: int = 50_000
    """Write checkpoints/latest.zip every this many timesteps (and at the end)."""
    final_eval_games: int = 300
    """Games of the final evaluation against each opponent (training.evaluate, duplicate
    format, rounded up to whole deals; 0: skip)."""
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
    """Show progress bars (imitation, PPO, evaluations)."""
    device: str = "cpu"
    """Torch device."""


def parse_args(argv: list[str] | None = None) -> tuple[Args, set[str]]:
    """The arguments, and the names given explicitly on the command line."""
    return config.parse_args(Args, argv)


def final_evaluation(args: Args, model_path: Path, rules, run_dir: Path) -> int:
    """Evaluate the model against each baseline with ``training.evaluate`` (duplicate
    format), save the tables as ``final_eval.{txt,json}`` and ``final_eval_vs_*.csv`` and
    end with the framed summary table."""
    game = get_game(args.game)
    entrants = [
        n for n, _ in config.filter_available(parse_mix(args.final_eval_opponents), rules, "final evaluation", False)
    ]
    workers = min(args.n_envs or available_cpus(), available_cpus())
    games = whole_deals(args.final_eval_games, 2, args.num_players, duplicate=True)
    unit = "games" if args.final_eval_episode == "game" else f"single-{game.part} games"
    print(
        f"\nfinal evaluation: {games} {unit} against each of {', '.join(entrants)} "
        f"(duplicate format, {workers} workers)"
    )
    tables, results = [], {}
    for opp in entrants:
        res = evaluate(
            [("trained", str(model_path)), opp],
            rules=rules,
            num_players=args.num_players,
            games=games,
            seed=args.seed,
            duplicate=True,
            workers=workers,
            episode=args.final_eval_episode,
            progress=args.progress,
            game=game.name,
            desc=f"final evaluation vs {opp}",
        )
        tables.append(res.table())
        results[opp] = res
        res.to_csv(run_dir / f"final_eval_vs_{opp}.csv")
    (run_dir / "final_eval.json").write_text(
        json.dumps({opp: json.loads(res.to_json()) for opp, res in results.items()}, indent=1) + "\n"
    )
    summary = final_table(results, "trained", model_path, run_dir / "final_eval.txt")
    (run_dir / "final_eval.txt").write_text("\n\n".join([*tables, summary]) + "\n")
    print("\n" + "\n\n".join(tables))
    print("\n" + summary)
    return 0


def train(args: Args, given: set[str] | None = None) -> int:
    """Train (or resume) a run; returns the exit status. Bad arguments raise :class:`ConfigError`."""
    import torch
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    try:
        args, run_dir, rules, meta, mix, eval_mix = config.validate(args, given or set())
    except ValueError as e:
        raise ConfigError(str(e)) from None
    cores = available_cpus()
    n_envs = args.n_envs or cores
    threads = args.torch_threads or cores
    torch.set_num_threads(threads)
    total = args.total_timesteps
    budget = args.minutes * 60.0 if args.minutes is not None else None
    if total is None and budget is None:
        total = config.DEFAULT_TIMESTEPS

    kind = vec_env_kind(args, rules)
    if kind == "batched":  # before the budget's clock starts: a first run compiles for about a minute
        from agents.evaluation.batched_runner import compile_kernels  # loads Numba: only for the batched engine

        compile_kernels(rules, announce=True, search=meta is None and args.pretrain == "search_fast")

    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "monitor").mkdir(exist_ok=True)
    run = Run(args, run_dir, rules, meta)
    if meta is None:
        (run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=1))

    # Seeding: a resumed segment continues with fresh but reproducible streams.
    seed = args.seed + 1_000_003 * run.segment
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)

    venv = make_train_venv(args, seed, mix, n_envs, str(run_dir / "monitor" / f"{run.segment:02d}"), kind)
    if run.league.pool:
        venv.env_method("set_pool", run.league.paths(run_dir))

    tb = str(run_dir / "tb")  # TensorBoard: tensorboard --logdir runs
    if meta is not None:
        # the checkpoint of the run the user asked to resume: their own file
        model = load_model(run.checkpoint_path, trusted=True, for_training=True, env=venv, device=args.device)
        model.tensorboard_log = tb
        model.set_random_seed(seed)
        done = model.num_timesteps
    else:
        arch = config.net_arch(args.net_arch)
        activations = {"relu": nn.ReLU, "tanh": nn.Tanh}
        policy_kwargs = {"net_arch": {"pi": arch, "vf": arch}, "activation_fn": activations[args.activation]}
        if args.action_features:
            policy_kwargs["action_rules"] = rules_to_dict(rules)
        if args.score_features:
            policy_kwargs["score_features"] = True
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

    house = f" with {', '.join(args.set)}" if args.set else ""
    title = f"MaskablePPO on {get_game(args.game).title} — {rules.name}{house}, {rules.num_players} players"
    print(f"run: {run_dir}")
    print(
        f"{title}; {args.episode} episodes, {args.reward} reward; opponents {format_mix(mix)}"
        + (f" + league (p={args.league_prob})" if args.league else "")
    )
    budget_text = []
    if total is not None:
        budget_text.append(f"{total:,} timesteps")
    if budget is not None:
        budget_text.append(f"{args.minutes:g} min wall clock (imitation, PPO and periodic evaluations)")
    print(
        f"budget: {' or '.join(budget_text)}; {n_envs} envs ({kind}), "
        f"{threads} torch threads" + (f"; resuming at {done:,} timesteps" if done else "")
    )
    if args.final_eval_games > 0:
        print(f"then a final evaluation: {args.final_eval_games} games against each of {args.final_eval_opponents}")

    if meta is None and args.pretrain:
        run.pretrain = imitation_pretrain(model, args, rules, mix, seed)

    # The main loop: PPO until the step or time budget, with checkpoints on Ctrl-C / SIGTERM.
    ppo_start = time.time()
    callback = callbacks.make_callback(run, venv, total, budget, eval_mix, mix)
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
        run_dir, run_dir / "learning_curve.png", f"{title} ({run_dir.name}{note})", f"{args.reward}, per {args.episode}"
    )
    print(f"model: {model_path}")
    print(f"checkpoint: {ckpt}")
    if plot:
        print(f"learning curve: {plot}")
    if args.final_eval_games <= 0:
        return 0
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
