"""The plan of a ``yaniv train`` run: its arguments checked and resolved once, into one frozen
value that the rest of training reads (:func:`make_plan`).

Everything the arguments leave open is decided here and nowhere else: ``--resume``'s
stored arguments, the game's and a from-scratch run's defaults, the rules, the kind and
number of training environments, torch threads and evaluation workers, the budget, the
opponent mixes, the environments' values (:class:`training.envs.EnvSpec`), the settings
each part of training reads (PPO's, the network's, the imitation's, the periodic and the
final evaluation's, the league's: :class:`PPOSettings` and the others, each with the
values, seeds and places its phase reads) and the seeds. The learners read the plan
(:func:`training.train.run`, :func:`training.ppo.run`) and hand each phase its settings, as
values: the phases never see the plan. Below the plan only the run's stored arguments
(``args.json``, the checkpoints' metadata) are the whole :class:`~training.args.Args`.

Seeds
-----
Every seed of a run is drawn from the streams of its ``--seed`` (:class:`Seeds`), as the
engine draws its deals (:func:`yaniv_env.core.seeding.stream_key`: the run's key hashed
with the segment, the stream and an index): a resumed segment gets fresh streams, and
the periodic evaluation and the league gate play the same deals in every segment. The
final evaluation plays the deals of ``--seed`` itself, as ``yaniv eval --seed`` does.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

from agents import make as make_agent
from agents.trained import check_metadata
from training import config
from training.args import (
    ALGO_ONLY,
    ALGOS,
    DEFAULT_TIMESTEPS,
    SCRATCH_DEFAULTS,
    SOFT_TARGET_TEACHERS,
    VEC_ENVS,
    Args,
)
from training.checkpoint import PPO_CHECKPOINT
from training.envs import EnvSpec
from training.league import agent_available, parse_mix
from yaniv_env.core.cpus import available_cpus
from yaniv_env.core.seeding import seeded_key, stream_key
from yaniv_env.games import get_game
from yaniv_env.yaniv.rules import Rules

#: The streams of a run's seed (:class:`Seeds`).
GLOBAL, ENVIRONMENTS, ADVICE, IMITATION, DAGGER, PERIODIC_EVALUATION, GATE, SAMPLING, POOL = range(9)

#: The most environments the imitation phase steps together: the batched engine steps many
#: games for the price of one, the Gymnasium wrappers fewer.
COLLECT_ENVS = {"batched": 64, "dummy": 16, "subproc": 16}


@dataclass(frozen=True)
class Seeds:
    """The seeds of one segment of a run (32-bit, as ``numpy.random.seed`` takes them)."""

    run: int
    segment: int

    def draw(self, stream: int, index: int = 0, segment: int | None = None) -> int:
        key = stream_key(seeded_key(self.run), self.segment if segment is None else segment, stream, index)
        return key >> 32

    @property
    def training(self) -> int:
        """``random``, numpy's global generator, torch and the model."""
        return self.draw(GLOBAL)

    @property
    def environments(self) -> int:
        """The training environments (environment ``i``: this plus ``i``, as SB3 seeds them)."""
        return self.draw(ENVIRONMENTS)

    @property
    def advice(self) -> int:
        """The advisor of the training environments."""
        return self.draw(ADVICE)

    @property
    def imitation(self) -> int:
        """The imitation phase: the teacher, its environments, the fitting's shuffles."""
        return self.draw(IMITATION)

    def dagger(self, round_index: int) -> int:
        """DAgger round ``round_index``: its environments and the student's sampling."""
        return self.draw(DAGGER, round_index)

    @property
    def periodic_evaluation(self) -> int:
        """The deals of every periodic evaluation (the same in every segment)."""
        return self.draw(PERIODIC_EVALUATION, segment=0)

    @property
    def gate(self) -> int:
        """The league gate's environments (the same in every segment)."""
        return self.draw(GATE, segment=0)

    @property
    def sampling(self) -> int:
        """``--algo ppo``: the rollout's and the update's torch generator (moves, minibatches)."""
        return self.draw(SAMPLING)

    @property
    def pool(self) -> int:
        """``--algo ppo``: the draws of past selves and their moves."""
        return self.draw(POOL)


#: ``--round-end`` choices (:class:`PPOSettings`).
ROUND_ENDS = ("continue", "bootstrap", "terminal")


@dataclass(frozen=True)
class PPOSettings:
    """PPO's hyperparameters, as values: all of them the lean learner's rollouts, advantages and
    updates read (``--algo ppo``, :mod:`training.ppo`), the shared ones MaskablePPO's
    (:func:`training.train.build_model`)."""

    opponents: str
    """``--opponents`` as given: agents, ``self`` and ``past`` entries with their weights."""
    episode: str
    """``--episode``: what a training episode is, ``game`` or ``round``."""
    reward: str
    """``--reward``: the reward scheme."""
    learning_rate: float
    """``--learning-rate``: the Adam learning rate of PPO."""
    n_steps: int
    """``--n-steps``: steps per environment per rollout."""
    gamma: float
    """``--gamma``: the discount factor."""
    gae_lambda: float
    """``--gae-lambda``: the GAE lambda."""
    round_end: str
    """What a round's end is to the return in whole games: ``continue``, ``bootstrap``, ``terminal``."""
    n_epochs: int
    """``--n-epochs``: passes over each rollout."""
    batch_size: int
    """``--batch-size``: the minibatch size."""
    clip_range: float
    """``--clip-range``: the PPO clipping range."""
    ent_coef: float
    """``--ent-coef``: the entropy bonus's weight."""
    vf_coef: float
    """``--vf-coef``: the value loss's weight."""
    max_grad_norm: float
    """``--max-grad-norm``: the gradient's norm is clipped to this."""
    norm_adv: bool
    """``--norm-adv``: the lean learner normalises the advantages per minibatch."""
    value_warmup: int
    """``--value-warmup``: the lean learner's first steps of a new run, in which only the critic learns."""
    pool_size: int
    """``--pool-size``: the lean learner's past selves kept (the oldest leaves first)."""
    pool_every: int
    """``--pool-every``: steps between two snapshots of the network joining the past selves."""


@dataclass(frozen=True)
class ModelSettings:
    """The network a new run trains (``--net-arch``, ``--advice``, ...; :func:`training.ppo.run_policy`,
    :func:`training.train.build_model`), as values."""

    net_arch: tuple[int, ...]
    """``--net-arch``: the hidden layer sizes of the (separate) policy and value networks."""
    activation: str
    """``--activation``: of the hidden layers, ``relu`` or ``tanh``."""
    action_features: bool
    """``--action-features``: MaskablePPO scores actions also by the cards they move (the lean learner always does)."""
    score_features: bool
    """``--score-features``: the networks also read one-hot features of the game score."""
    advice: str
    """``--advice``: the advisor whose move joins the observation and the logits (empty: none)."""
    advice_scale: float
    """``--advice-scale``: the starting weight of the advised move's logit."""
    init: str
    """``--init``: the network the lean learner starts a new run from (empty: fresh weights)."""
    init_temperature: float
    """``--init-temperature``: the ``--init`` network's action logits are divided by it (1: as saved)."""
    device: str
    """``--device``: MaskablePPO's torch device."""


@dataclass(frozen=True)
class EvalSettings:
    """The periodic evaluation during training (``--eval-*``; :func:`training.periodic_eval.periodic_evaluation`,
    which both learners call), as values."""

    every: int
    """``--eval-every``: timesteps between two evaluations (0: never)."""
    games: int
    """``--eval-games``: games against each opponent (rounded up to whole deals)."""
    opponents: tuple[tuple[str, float], ...]
    """``--eval-opponents``: those available under the rules, with their weights (empty when never)."""
    episode: str
    """``--eval-episode``: MaskablePPO's episode of the evaluation's games (``game`` unless given)."""
    game: str
    """``--game``: the game played."""
    rules: Rules
    """The run's rules."""
    seed: int
    """The deals (:attr:`Seeds.periodic_evaluation`: the same at every evaluation and in every segment)."""
    run_dir: Path
    """The run's directory: each evaluation appends its rows to its ``eval.csv``."""


@dataclass(frozen=True)
class FinalEvalSettings:
    """The final evaluation of a run (``--final-eval-*``; :func:`training.final_eval.final_evaluation`),
    as values."""

    games: int
    """``--final-eval-games``: games against each entrant (rounded up to whole deals; 0: none)."""
    opponents: str
    """``--final-eval-opponents`` as given (the unavailable ones are left out when it starts)."""
    episode: str
    """``--final-eval-episode``: ``game`` or ``round``."""
    game: str
    """``--game``: the game played."""
    rules: Rules
    """The run's rules."""
    workers: int
    """Processes playing the games: one per training environment, at most one per CPU."""
    seed: int
    """The deals: those of ``--seed`` itself (:attr:`Seeds.run`), as ``yaniv eval --seed`` plays."""
    progress: bool
    """``--progress``: show progress bars."""
    run_dir: Path
    """The run's directory, where its tables are written."""


@dataclass(frozen=True)
class LeagueSettings:
    """MaskablePPO's league: its snapshots and their gate (``--snapshot-every``, ``--league-size``,
    ``--gate-*``; :class:`training.callbacks.LeagueCallback`), as values. Whether there is one,
    the chance of a pool seat and the members' arg-max play are the environments'
    (:class:`~training.envs.EnvSpec`)."""

    snapshot_every: int
    """``--snapshot-every``: timesteps between two snapshots."""
    size: int
    """``--league-size``: the most snapshots in the pool (the oldest leaves)."""
    gate_games: int
    """``--gate-games``: episodes against each pool member before a snapshot may join."""
    gate_margin: float
    """``--gate-margin``: the mean placement reward against the pool a snapshot needs to join."""
    gate_seed: int
    """The gate's deals (:attr:`Seeds.gate`: the same in every segment)."""


@dataclass(frozen=True)
class ImitationSettings:
    """What the imitation phase reads (``--pretrain``, ``--pretrain-data``, DAgger;
    :mod:`training.imitation`), as values."""

    teacher: str
    """``--pretrain``: the agent imitated (empty: no imitation phase)."""
    teacher_options: tuple[tuple[str, object], ...]
    """``--pretrain-option`` as the teacher's keywords, ``(name, value)`` pairs in the order given."""
    env: EnvSpec
    """The training environments, whose learner's seat the teacher plays (their ``advice``
    ends the observation; their ``gamma`` discounts the returns the value net is fitted to)."""
    kind: str
    """The kind of those environments: ``batched``, ``dummy`` or ``subproc``."""
    envs: int
    """Environments stepped together (the training environments, at most :data:`COLLECT_ENVS` of the kind)."""
    seed: int
    """:attr:`Seeds.imitation`: the teacher, its environments, the fitting's shuffles."""
    samples: int
    """``--pretrain-samples``: the teacher's decisions to collect."""
    epochs: int
    """``--pretrain-epochs``: passes over the demonstrations."""
    lr: float
    """``--pretrain-lr``: the fitting's Adam learning rate."""
    temperature: float
    """``--pretrain-temperature``: of the soft targets over a searching teacher's candidates (0: its moves)."""
    departure_weight: float
    """``--pretrain-departure-weight``: the weight of the teacher's departures from the advice."""
    batch_size: int
    """``--batch-size``: decisions per gradient step."""
    vf_coef: float
    """``--vf-coef``: the value loss's weight."""
    max_grad_norm: float
    """``--max-grad-norm``: the gradient's norm is clipped to this."""
    dagger_seeds: tuple[int, ...]
    """``--dagger-rounds``: a seed per DAgger round after the behaviour cloning (:meth:`Seeds.dagger`)."""
    dagger_samples: int
    """``--dagger-samples``: the student's decisions labelled in each round."""
    dagger_epochs: int
    """``--dagger-epochs``: passes over all the decisions after each round."""
    data: Path | None
    """``--pretrain-data``: the demonstrations file, loaded when it exists, else written (``None``: none)."""
    opponents: str
    """``--opponents`` as given (a demonstration file records it)."""
    learner_seat: str
    """``--learner-seat`` as given (a demonstration file records it)."""
    progress: bool
    """``--progress``: show progress bars."""


@dataclass(frozen=True)
class Plan:
    """A run resolved: what each learner's ``run`` reads (:func:`training.train.run`,
    :func:`training.ppo.run`), handing each phase its settings."""

    args: Args
    """The arguments after ``--resume`` and the defaults, as stored (``args.json``, the checkpoints):
    the rest of training reads the values below."""
    algo: str
    """``--algo``: the learner, ``ppo`` or ``maskable_ppo``."""
    run_dir: Path
    meta: dict | None
    """The resumed checkpoint's metadata (``None``: a new run)."""
    rules: Rules
    rule_options: tuple[str, ...]
    """``--set`` as given: the rule options on top of the preset."""
    kind: str
    """The training environments: ``batched``, ``dummy`` or ``subproc``."""
    n_envs: int
    """Training environments stepped together."""
    torch_threads: int
    """Torch threads of training (the lean learner's update; its rollout takes one)."""
    total: int | None
    """Timesteps to reach (``None``: the time budget only)."""
    budget: float | None
    """The wall-clock budget in seconds (``None``: the timesteps only)."""
    checkpoint_every: int
    """``--checkpoint-every``: timesteps between two writes of the checkpoint (0: at the end only)."""
    progress: bool
    """``--progress``: show progress bars."""
    env: EnvSpec
    """The training environments' values (their opponents' mix: ``env.mix``)."""
    ppo: PPOSettings
    model: ModelSettings
    imitation: ImitationSettings
    evaluation: EvalSettings
    final_evaluation: FinalEvalSettings
    league: LeagueSettings
    seeds: Seeds

    @property
    def segment(self) -> int:
        return self.seeds.segment


def make_plan(args: Args, given: set[str]) -> Plan:
    """The plan of ``args`` (``given``: the options named on the command line); ``ValueError``
    naming what is wrong. Nothing is written."""
    default = Args()
    named = given | {f.name for f in dataclasses.fields(args) if getattr(args, f.name) != getattr(default, f.name)}
    args, run_dir, meta, rules = _resolve(args, given)
    game = get_game(args.game)
    _check_algo(args, named)
    _check_choices(args, game)
    _check_numbers(args, rules)
    kind = vec_env_kind(args.vec_env, args.game)
    strict = "opponents" in given or args.opponents != config.defaults(args).get("opponents", Args.opponents)
    mix = tuple(config.filter_available(agent_mix(args), rules, "opponents", strict))
    args = _resolve_agents(args, given, rules, new_run=meta is None)
    seeds = Seeds(args.seed, int((meta or {}).get("segment", -1)) + 1)
    evaluation = eval_settings(args, rules, seeds.periodic_evaluation, run_dir)
    cores = available_cpus()
    n_envs = args.n_envs or cores
    total = args.total_timesteps
    if total is None and args.minutes is None:
        total = DEFAULT_TIMESTEPS
    env = env_spec(args, rules, mix)
    return Plan(
        args=args,
        algo=args.algo,
        run_dir=run_dir,
        meta=meta,
        rules=rules,
        rule_options=tuple(args.set),
        kind=kind,
        n_envs=n_envs,
        torch_threads=args.torch_threads or cores,
        total=total,
        budget=args.minutes * 60.0 if args.minutes is not None else None,
        checkpoint_every=args.checkpoint_every,
        progress=args.progress,
        env=env,
        ppo=ppo_settings(args),
        model=model_settings(args),
        imitation=imitation_settings(args, env, kind, min(n_envs, COLLECT_ENVS[kind]), seeds),
        evaluation=evaluation,
        final_evaluation=final_eval_settings(args, rules, min(n_envs, cores), seeds.run, run_dir),
        league=LeagueSettings(
            snapshot_every=args.snapshot_every,
            size=args.league_size,
            gate_games=args.gate_games,
            gate_margin=args.gate_margin,
            gate_seed=seeds.gate,
        ),
        seeds=seeds,
    )


def agent_mix(args: Args) -> list[tuple[str, float]]:
    """The agents of ``--opponents``: with ``--algo ppo``, without its ``self`` and ``past``
    entries (``random`` when it names no agent: the games the imitation phase plays then)."""
    mix = parse_mix(args.opponents)
    if args.algo != "ppo":
        return mix
    return [(name, w) for name, w in mix if name not in PPO_SELF_ENTRIES] or [("random", 1.0)]


#: ``--opponents`` entries of ``--algo ppo`` that are not agents: self-play games, past selves.
PPO_SELF_ENTRIES = ("self", "past")


def _check_algo(args: Args, named: set[str]) -> None:
    """``--algo`` known; ``ValueError`` naming an option given that it does not use."""
    if args.algo not in ALGOS:
        raise ValueError(f"--algo must be one of {ALGOS}, got {args.algo!r}")
    other = next(a for a in ALGOS if a != args.algo)
    unused = sorted(ALGO_ONLY[other] & named)
    if unused:
        shown = ", ".join(f"--{name.replace('_', '-')}" for name in unused)
        raise ValueError(f"{shown}: used by --algo {other} only, not by --algo {args.algo}")
    if args.algo == "ppo" and args.game != "yaniv":
        raise ValueError(f"--algo ppo trains Yaniv on its batched engine, not {args.game}: use --algo maskable_ppo")


def env_spec(args: Args, rules: Rules, mix) -> EnvSpec:
    """The values the training environments are built from."""
    return EnvSpec(
        game=args.game,
        rules=rules,
        learner_seat=args.learner_seat if args.learner_seat == "random" else int(args.learner_seat),
        episode=args.episode,
        reward=args.reward,
        turn_limit=args.turn_limit,
        shaping=args.shaping,
        gamma=args.gamma,
        advice=args.advice,
        mix=tuple(mix),
        league=args.league,
        league_prob=args.league_prob,
        league_deterministic=args.league_deterministic,
        gate_episode=args.eval_episode or args.episode,
    )


def ppo_settings(args: Args) -> PPOSettings:
    """The values the lean learner's rollouts and updates read."""
    return PPOSettings(**{f.name: getattr(args, f.name) for f in dataclasses.fields(PPOSettings)})


def model_settings(args: Args) -> ModelSettings:
    """The values a new run's network is made of."""
    return ModelSettings(
        net_arch=tuple(config.net_arch(args.net_arch)),
        activation=args.activation,
        action_features=args.action_features,
        score_features=args.score_features,
        advice=args.advice,
        advice_scale=args.advice_scale,
        init=args.init,
        init_temperature=args.init_temperature,
        device=args.device,
    )


def eval_settings(args: Args, rules: Rules, seed: int, run_dir: Path) -> EvalSettings:
    """The values the periodic evaluation reads (its opponents checked only when it runs)."""
    opponents = ()
    if args.eval_every:
        opponents = tuple(config.filter_available(parse_mix(args.eval_opponents), rules, "eval opponents", False))
    return EvalSettings(
        every=args.eval_every,
        games=args.eval_games,
        opponents=opponents,
        episode=args.eval_episode or "game",
        game=args.game,
        rules=rules,
        seed=seed,
        run_dir=run_dir,
    )


def final_eval_settings(args: Args, rules: Rules, workers: int, seed: int, run_dir: Path) -> FinalEvalSettings:
    """The values the final evaluation reads."""
    return FinalEvalSettings(
        games=args.final_eval_games,
        opponents=args.final_eval_opponents,
        episode=args.final_eval_episode,
        game=args.game,
        rules=rules,
        workers=workers,
        seed=seed,
        progress=args.progress,
        run_dir=run_dir,
    )


def imitation_settings(args: Args, env: EnvSpec, kind: str, envs: int, seeds: Seeds) -> ImitationSettings:
    """The values the imitation phase reads (the teacher's options parsed only when there is a
    teacher): it collects in ``envs`` of the training environments (``env``, of ``kind``)."""
    return ImitationSettings(
        teacher=args.pretrain,
        teacher_options=tuple(config.teacher_options(args).items()) if args.pretrain else (),
        env=env,
        kind=kind,
        envs=envs,
        seed=seeds.imitation,
        samples=args.pretrain_samples,
        epochs=args.pretrain_epochs,
        lr=args.pretrain_lr,
        temperature=args.pretrain_temperature,
        departure_weight=args.pretrain_departure_weight,
        batch_size=args.batch_size,
        vf_coef=args.vf_coef,
        max_grad_norm=args.max_grad_norm,
        dagger_seeds=tuple(seeds.dagger(r) for r in range(args.dagger_rounds)),
        dagger_samples=args.dagger_samples,
        dagger_epochs=args.dagger_epochs,
        data=Path(args.pretrain_data) if args.pretrain_data else None,
        opponents=args.opponents,
        learner_seat=args.learner_seat,
        progress=args.progress,
    )


def vec_env_kind(vec_env: str, game: str) -> str:
    """The kind of training environment ``--vec-env`` stands for (``auto`` resolved);
    ``ValueError`` when ``batched`` is asked for and cannot run."""
    if vec_env in ("auto", "batched"):
        if game == "yaniv":
            return "batched"
        if vec_env == "batched":
            raise ValueError(f"--vec-env batched: the batched engine plays Yaniv, not {game}")
        return "dummy"
    return vec_env


def _resolve(args: Args, given: set[str]) -> tuple[Args, Path, dict | None, Rules]:
    """``--resume``'s arguments and checkpoint, or a new run's directory and defaults."""
    if args.resume:
        args, run_dir, meta = config.resume_args(args, given)
        if args.algo == "ppo":  # the lean learner's checkpoint holds the network; its arguments, the rules
            return args, run_dir, meta, config.game_rules(args)
        return args, run_dir, meta, check_metadata(meta, game=get_game(args.game).name)
    game = get_game(args.game)
    args = config.apply_defaults(args, given)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    prefix = "" if game.name == "yaniv" else f"{game.name}_"
    run_dir = Path(args.output_dir) / (args.run_name or f"{prefix}{args.rules}__{args.seed}__{stamp}")
    if (run_dir / "checkpoints" / "latest.zip").exists() or (run_dir / PPO_CHECKPOINT).exists():
        raise ValueError(f"{run_dir} already holds a run; use --resume {run_dir} or another --run-name")
    return args, run_dir, None, config.game_rules(args)


def _check_choices(args: Args, game) -> None:
    choices = {
        "episode": (game.part, "game"),
        "final_eval_episode": (game.part, "game"),
        "eval_episode": (None, game.part, "game"),
        "vec_env": VEC_ENVS,
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
    if args.algo == "maskable_ppo" and args.score_features and not args.action_features:
        raise ValueError(
            "--score-features extends the action-feature networks (agents.networks.ScoreFeatures): "
            "it needs --action-features (Yaniv)"
        )


def _check_numbers(args: Args, rules: Rules) -> None:
    if args.learner_seat != "random" and not (
        args.learner_seat.isdigit() and int(args.learner_seat) < rules.num_players
    ):
        raise ValueError(f"--learner-seat must be 'random' or a seat 0..{rules.num_players - 1}")
    for name in ["n_steps", "batch_size", "n_epochs", "league_size", "gate_games"]:
        if getattr(args, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if args.league and args.snapshot_every <= 0:
        raise ValueError("--snapshot-every must be positive with --league")
    if args.minutes is not None and args.minutes <= 0:
        raise ValueError("--minutes must be positive")
    if args.init_temperature <= 0:
        raise ValueError(f"--init-temperature must be positive, got {args.init_temperature}")
    if args.init_temperature != 1.0 and not args.init:
        raise ValueError("--init-temperature divides the logits of the --init network: give --init")
    if not 0.0 <= args.gae_lambda <= 1.0:
        raise ValueError(f"--gae-lambda must be in [0, 1], got {args.gae_lambda}")
    if args.round_end not in ROUND_ENDS:
        raise ValueError(f"--round-end must be one of {ROUND_ENDS}, got {args.round_end!r}")
    # in one-round episodes every round's end is the episode's: terminal already, never bootstrapped
    if args.round_end == "bootstrap" and args.episode != "game":
        raise ValueError(f"--round-end {args.round_end} is for whole-game episodes (--episode game)")
    config.net_arch(args.net_arch)


def _resolve_agents(args: Args, given: set[str], rules: Rules, new_run: bool) -> Args:
    """``args`` with ``none`` read as no teacher / no advisor and, for a plain policy trained
    from scratch, :data:`SCRATCH_DEFAULTS`; the teacher and advisor checked."""
    pretrain = "" if args.pretrain.lower() in ("", "none") else args.pretrain
    advice = "" if args.advice.lower() in ("", "none") else args.advice
    args = dataclasses.replace(args, pretrain=pretrain, advice=advice)
    if pretrain and new_run:
        _check_teacher(args, rules)
    if advice:
        why = agent_available(advice, rules)
        if why:
            raise ValueError(f"--advice: agent {advice!r} is not available ({why})")
    if new_run and not advice and not pretrain:
        args = config.apply_defaults(args, given, SCRATCH_DEFAULTS[args.algo])
    return args


def _check_teacher(args: Args, rules: Rules) -> None:
    game = get_game(args.game)
    why = agent_available(args.pretrain, rules)
    if why:
        raise ValueError(f"--pretrain: agent {args.pretrain!r} is not available for {game.title} ({why})")
    if args.pretrain_samples <= 0 or args.pretrain_epochs <= 0:
        raise ValueError("--pretrain-samples and --pretrain-epochs must be positive")
    if args.dagger_rounds < 0:
        raise ValueError("--dagger-rounds must be at least 0")
    if args.dagger_rounds and (args.dagger_samples <= 0 or args.dagger_epochs <= 0):
        raise ValueError("--dagger-samples and --dagger-epochs must be positive with --dagger-rounds")
    if args.pretrain_departure_weight <= 0:
        raise ValueError("--pretrain-departure-weight must be positive")
    if args.pretrain_temperature < 0:
        raise ValueError("--pretrain-temperature must be at least 0 (0: the teacher's moves as targets)")
    if args.pretrain_temperature > 0 and args.pretrain not in SOFT_TARGET_TEACHERS:
        raise ValueError(
            f"--pretrain-temperature needs a teacher that reports its rollout values "
            f"({', '.join(SOFT_TARGET_TEACHERS)}), not {args.pretrain!r}"
        )
    if args.pretrain_option:
        try:  # an option the teacher does not take is refused now, not after the compile
            make_agent(args.pretrain, seed=0, rules=rules, **config.teacher_options(args))
        except TypeError as e:
            raise ValueError(f"--pretrain-option: {e}") from None
