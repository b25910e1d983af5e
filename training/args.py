"""The arguments of ``yaniv train``: one field per option, in the manner of CleanRL (one line
of help each; what the options do together, and what they measured, is on the docs'
Training page, ``docs/training.md``), and the defaults that depend on the game or the run.
Nothing here imports the rest of the project."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Args:
    algo: str = "ppo"
    """the learner: ppo (the lean PPO of training/ppo.py, Yaniv only) or maskable_ppo (sb3-contrib's MaskablePPO)"""
    game: str = "yaniv"
    """the game: yaniv or pis_yedili (options not given then take its defaults, shown in brackets)"""
    rules: str = "standard"
    """the rules preset of the game (Yaniv: standard, seven, french, two_deck)"""
    set: list[str] = dataclasses.field(default_factory=list)
    """a rule option on top of the preset, as option=value (repeatable; the options: yaniv_env/yaniv/RULES.md)"""
    num_players: int = 2
    """players at the table: the learner and num_players - 1 opponents"""
    minutes: float | None = None
    """the wall-clock budget in minutes, summed over resumes"""
    total_timesteps: int | None = None
    """learner decisions to train for, over resumes (default: 1,000,000 without --minutes)"""
    seed: int = 1
    """the seed of the run: every generator of training draws from its streams"""
    n_envs: int = 256
    """environments (games) stepped together (0: one per CPU this process may use)"""
    vec_env: str = "auto"
    """maskable_ppo only: the training environments: batched (Yaniv), dummy, subproc, or auto (batched where it runs)"""
    torch_threads: int = 0
    """torch threads of training; ppo: of its update, its rollout taking one (0: the CPUs this process may use)"""
    opponents: str = "heuristic:1"
    """the opponent mix, name[:weight],... (agents, .zip models; ppo also self, past), drawn per seat and episode"""
    learner_seat: str = "random"
    """maskable_ppo only: the learner's seat, a number, or random (drawn per episode)"""
    episode: str = "game"
    """what an episode is: game or round (Pis Yedili: game or deal)"""
    reward: str = "margin_outcome"
    """the reward scheme: one of the game's reward schemes (the AEC environment's docstring, "Rewards")"""
    turn_limit: int | None = None
    """maskable_ppo only: turns before a round is a draw (default: the rules' own)"""
    shaping: float = 0.0
    """the weight of potential-based shaping by the hand's total (0: off)"""
    league: bool = False
    """maskable_ppo only: self-play league, snapshots of the learner join the opponents"""
    snapshot_every: int = 100_000
    """maskable_ppo only: league: timesteps between snapshots"""
    league_prob: float = 0.3
    """maskable_ppo only: league: the probability that an opponent seat is drawn from the pool"""
    league_size: int = 8
    """maskable_ppo only: league: the most snapshots in the pool (the oldest leaves)"""
    gate_games: int = 100
    """maskable_ppo only: league: episodes against each pool member before a snapshot may join"""
    gate_margin: float = 0.1
    """maskable_ppo only: league: the mean placement reward a snapshot needs against the pool to join"""
    league_deterministic: bool = False
    """maskable_ppo only: league: pool members play their arg-max action"""
    pretrain: str = "heuristic"
    """the agent the policy imitates before PPO ("" or none: start from scratch; a new run only)"""
    pretrain_option: list[str] = dataclasses.field(default_factory=list)
    """an option of the --pretrain agent, as key=value (repeatable)"""
    pretrain_samples: int = 60_000
    """imitation: decisions of the --pretrain agent to learn from"""
    pretrain_epochs: int = 4
    """imitation: passes over those decisions"""
    pretrain_lr: float = 1e-3
    """imitation: the Adam learning rate"""
    pretrain_data: str = ""
    """imitation: a .npz of the teacher's decisions, loaded when it exists, else collected and saved there"""
    pretrain_departure_weight: float = 3.0
    """imitation with --advice: the loss weight of the teacher's departures from the advice"""
    pretrain_temperature: float = 0.0
    """imitation from search_fast: the softmax temperature over its rollout values (0: its moves)"""
    dagger_rounds: int = 0
    """imitation: rounds of DAgger after the first fit"""
    dagger_samples: int = 50_000
    """DAgger: the student's decisions labelled by the teacher in each round"""
    dagger_epochs: int = 2
    """DAgger: passes over all the decisions so far after each round"""
    learning_rate: float = 1e-4
    """the Adam learning rate of PPO"""
    n_steps: int = 32
    """steps per environment per PPO rollout"""
    batch_size: int = 1024
    """the PPO minibatch size (and the imitation's)"""
    n_epochs: int = 4
    """PPO epochs over each rollout"""
    gamma: float = 0.995
    """the discount factor"""
    gae_lambda: float = 1.0
    """the GAE lambda"""
    round_end: str = "terminal"
    """ppo only: a round's end in whole games: continue the return, bootstrap (the critic's value), terminal"""
    clip_range: float = 0.2
    """the PPO clipping range"""
    ent_coef: float = 0.0
    """the entropy bonus coefficient (ppo: over the legal moves)"""
    vf_coef: float = 0.5
    """the value loss coefficient"""
    max_grad_norm: float = 0.5
    """the gradient clipping norm"""
    norm_adv: bool = True
    """ppo only: normalise the advantages per minibatch (maskable_ppo always does)"""
    value_warmup: int = 200_000
    """ppo only: learner steps at the start of a new run in which only the critic learns"""
    pool_size: int = 8
    """ppo only: past selves kept for the past opponents (the oldest leaves first)"""
    pool_every: int = 250_000
    """ppo only: timesteps between two snapshots of the network joining the past selves"""
    init: str = ""
    """ppo only: start a new run from this network, a ppo run's checkpoint.pt or play file (same sizes)"""
    init_temperature: float = 1.0
    """ppo only: divide the --init network's action logits by this (above 1: a flatter policy to explore from)"""
    net_arch: str = "128,128"
    """hidden layer sizes of the (separate) policy and value networks"""
    activation: str = "relu"
    """the activation of the hidden layers: relu or tanh"""
    action_features: bool = True
    """maskable_ppo only: score actions also by the cards they move (Yaniv; ppo always does)"""
    score_features: bool = True
    """the networks also read one-hot features of the game score (maskable_ppo: needs --action-features)"""
    advice: str = "heuristic"
    """the advisor of a residual policy, whose move joins the observation and the logits ("" or none: off)"""
    advice_scale: float = 5.0
    """advice: the starting weight of the advised move's logit"""
    eval_every: int = 500_000
    """timesteps between periodic evaluations (0: never)"""
    eval_games: int = 400
    """games against each opponent in a periodic evaluation (rounded up to whole deals)"""
    eval_opponents: str = "random,greedy,heuristic"
    """the opponents of the periodic evaluation (unavailable ones are left out)"""
    eval_episode: str | None = None
    """maskable_ppo only: the episode of the periodic evaluation and the gate (default: game; the gate: --episode)"""
    checkpoint_every: int = 500_000
    """timesteps between writes of the checkpoint (checkpoints/latest.zip; ppo: checkpoint.pt and the play file)"""
    final_eval_games: int = 600
    """games of the final evaluation against each opponent (rounded up to whole deals; 0: skip)"""
    final_eval_opponents: str = "random,greedy,heuristic"
    """the entrants of the final evaluation besides the model (unavailable ones are left out)"""
    final_eval_episode: str = "game"
    """the episode of the final evaluation: game or round"""
    output_dir: str = "runs"
    """where run directories are made"""
    run_name: str | None = None
    """the run directory's name (default: {rules}__{seed}__{timestamp})"""
    resume: str | None = None
    """continue the run in this directory from its last checkpoint"""
    progress: bool = True
    """show progress bars"""
    device: str = "cpu"
    """maskable_ppo only: the torch device"""


#: Defaults that depend on the game: with ``--game pis_yedili`` these replace the (Yaniv)
#: defaults of :class:`Args` for every option not given. Everything else means the same in
#: both games (``--shaping`` counts Pis Yedili penalty points).
GAME_DEFAULTS: dict[str, dict[str, object]] = {
    "pis_yedili": {
        "algo": "maskable_ppo",
        "opponents": "pis_random:1,pis_heuristic:2",
        "episode": "deal",
        "pretrain": "pis_heuristic",
        "pretrain_samples": 60_000,
        "pretrain_epochs": 4,
        "advice": "",
        "reward": "outcome",
        "learning_rate": 1e-4,
        "ent_coef": 0.01,
        "action_features": False,
        "eval_opponents": "pis_random,pis_heuristic",
        "final_eval_opponents": "pis_random,pis_heuristic",
    },
}

#: The learners of ``--algo``.
ALGOS = ("maskable_ppo", "ppo")

#: Options only one learner uses (their help says so); given with the other, they are refused.
ALGO_ONLY: dict[str, frozenset[str]] = {
    "maskable_ppo": frozenset(
        {
            "vec_env",
            "learner_seat",
            "turn_limit",
            "league",
            "snapshot_every",
            "league_prob",
            "league_size",
            "gate_games",
            "gate_margin",
            "league_deterministic",
            "action_features",
            "eval_episode",
            "device",
        }
    ),
    "ppo": frozenset({"norm_adv", "round_end", "value_warmup", "pool_size", "pool_every", "init", "init_temperature"}),
}

#: Defaults that depend on the learner: with ``--algo maskable_ppo`` these replace those of
#: :class:`Args` (the lean learner's, the default learner) for every option not given
#: (MaskablePPO steps fewer games on the wrappers' scale of rollouts and minibatches; its
#: advised recipe, ``docs/training.md``).
ALGO_DEFAULTS: dict[str, dict[str, object]] = {
    "maskable_ppo": {
        "n_envs": 16,
        "n_steps": 128,
        "batch_size": 256,
        "net_arch": "256,256",
        "torch_threads": 1,
        "learning_rate": 1e-5,
        "gae_lambda": 0.95,
        "reward": "score_outcome",
        "shaping": 1.0,
        "advice": "score_heuristic",
        "pretrain": "score_heuristic",
        "score_features": False,
        "eval_every": 100_000,
        "eval_games": 20,
        "checkpoint_every": 50_000,
    },
}

#: Defaults of a plain policy trained from scratch (``--advice none --pretrain none``, a new
#: run) for the options not given, per learner: the advised recipe's learning rate and entropy
#: bonus keep a policy near its advisor and leave a policy without one all but still
#: (``docs/experiments/2026-11-26-learning.md``); the lean learner's from-scratch recipe is the
#: plateau note's (``docs/experiments/2026-11-27-the-plateau.md``).
SCRATCH_DEFAULTS: dict[str, dict[str, object]] = {
    "maskable_ppo": {"learning_rate": 3e-4, "ent_coef": 0.01},
    "ppo": {
        "learning_rate": 3e-4,
        "ent_coef": 0.03,
        "gae_lambda": 0.5,
        "episode": "round",
        "reward": "score_outcome",
        "round_end": "continue",
        "score_features": False,
        "shaping": 1.0,
        "value_warmup": 0,
    },
}

#: ``--vec-env`` choices (:mod:`training.envs`).
VEC_ENVS = ("auto", "batched", "dummy", "subproc")

#: Options that may differ when resuming; everything else must stay as trained.
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

#: Timesteps of a run given neither ``--minutes`` nor ``--total-timesteps``.
DEFAULT_TIMESTEPS = 1_000_000

#: Teachers whose searched decisions come with their candidates' rollout values.
SOFT_TARGET_TEACHERS = ("search_fast",)


class ConfigError(ValueError):
    """Bad arguments or an unusable run directory / checkpoint (reported without a traceback)."""
