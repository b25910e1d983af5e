"""Configuration of ``yaniv train``: the command line built from :class:`training.train.Args`
(one option per field, its docstring as the help), the per-game defaults, ``--resume`` and
the checks that refuse bad arguments before anything is written.

Functions take the arguments object and use ``type(args)`` for the dataclass, so that this
module does not import the script.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import sys
import time
import typing
from pathlib import Path


def teacher_options(args) -> dict:
    """``--pretrain-option key=value`` as keywords of the teacher: each value read as a
    Python literal (a number, ``None``, ``True``), else kept as a string."""
    options = {}
    for item in args.pretrain_option:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--pretrain-option {item!r}: expected key=value (for example candidates=8)")
        try:
            options[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            options[key.strip()] = value.strip()
    return options


#: Teachers whose searched decisions come with their candidates' rollout values.
SOFT_TARGET_TEACHERS = ("search_fast",)

#: Defaults that depend on the game: with ``--game pis_yedili`` these replace the (Yaniv)
#: defaults of :class:`training.train.Args` for every option not given. Everything else means the same in
#: both games (``--shaping`` counts Pis Yedili penalty points).
GAME_DEFAULTS: dict[str, dict[str, object]] = {
    "pis_yedili": {
        "opponents": "pis_random:1,pis_heuristic:2",
        "episode": "deal",
        "pretrain": "pis_heuristic",
        "pretrain_samples": 60_000,
        "pretrain_epochs": 4,
        "advice": "",
        "learning_rate": 1e-4,
        "ent_coef": 0.01,
        "action_features": False,
        "eval_opponents": "pis_random,pis_heuristic",
        "final_eval_opponents": "pis_random,pis_heuristic",
    },
}

#: Defaults of a plain policy trained from scratch (``--advice none --pretrain none``, a new
#: run) for the options not given: the advised recipe's learning rate and entropy bonus keep a
#: policy near its advisor and leave a policy without one all but still
#: (``docs/experiments/2026-11-26-learning.md``).
SCRATCH_DEFAULTS: dict[str, object] = {"learning_rate": 3e-4, "ent_coef": 0.01}

#: ``--vec-env`` choices (:mod:`training.envs`).
VEC_ENVS = ("auto", "batched", "dummy", "subproc")

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


class ConfigError(ValueError):
    """Bad arguments or an unusable run directory / checkpoint (reported without a traceback)."""


def field_docs(cls) -> dict[str, str]:
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


def build_parser(args_type: type, suppress: bool = False) -> argparse.ArgumentParser:
    """One option per field of the dataclass ``args_type``, its docstring as the help.

    Each help ends with the default once, written here rather than by argparse's
    ``ArgumentDefaultsHelpFormatter``: that formatter appends ``(default: %(default)s)`` to
    every help that lacks the placeholder, so options whose docstring already explains the
    default showed it twice (``... (default: the rules' own). (default: None)``) and empty
    defaults showed ``(default: )``. Options whose default is ``None`` or ``""`` (not set)
    or whose docstring says it in words get no suffix."""
    p = argparse.ArgumentParser(
        prog="yaniv train",
        description="Train a Yaniv (or, with --game pis_yedili, a Pis Yedili) agent with MaskablePPO; "
        "see training/train.py.",
        argument_default=argparse.SUPPRESS if suppress else None,
    )
    hints = typing.get_type_hints(args_type)
    docs = field_docs(args_type)
    for f in dataclasses.fields(args_type):
        hint = hints[f.name]
        args = typing.get_args(hint)
        base = next((a for a in args if a is not type(None)), hint) if args else hint
        flags = [f"--{f.name.replace('_', '-')}"]
        help_text = docs.get(f.name, "")
        for game, defaults in GAME_DEFAULTS.items():
            if f.name in defaults:
                help_text += f" [{game}: {defaults[f.name]}]"
        if f.default not in (None, "", dataclasses.MISSING) and "(default" not in help_text:
            help_text += f" (default: {f.default})"
        kw: dict = {"help": help_text.replace("%", "%%"), "dest": f.name}
        if not suppress:
            kw["default"] = f.default_factory() if f.default is dataclasses.MISSING else f.default
        if base is bool:
            kw["action"] = argparse.BooleanOptionalAction
        elif typing.get_origin(hint) is list:  # a repeatable option
            kw["action"] = "append"
            kw["type"] = base
            kw["metavar"] = "OPTION=VALUE"
        else:
            kw["type"] = base
            kw["metavar"] = base.__name__.upper()
        p.add_argument(*flags, **kw)
    return p


def parse_args(args_type: type, argv: list[str] | None = None) -> tuple:
    """The arguments (an ``args_type``), and the names given explicitly on the command line."""
    argv = sys.argv[1:] if argv is None else list(argv)
    ns = build_parser(args_type).parse_args(argv)
    given = set(vars(build_parser(args_type, suppress=True).parse_args(argv)))
    return args_type(**vars(ns)), given


def apply_game_defaults(args, given: set[str]):
    """``args`` with the defaults of its game (``GAME_DEFAULTS``) for the options that are
    neither in ``given`` nor changed from the Yaniv default."""
    changes = {
        name: value
        for name, value in GAME_DEFAULTS.get(args.game, {}).items()
        if name not in given and getattr(args, name) == getattr(type(args), name)
    }
    return dataclasses.replace(args, **changes)


def filter_available(mix: list[tuple[str, float]], rules, what: str, strict: bool) -> list[tuple[str, float]]:
    """The agents of ``mix`` available under ``rules``; the others are refused (``strict``) or
    left out with a warning."""
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


def net_arch(spec: str) -> list[int]:
    """``"256,256"`` -> ``[256, 256]``."""
    try:
        arch = [int(x) for x in spec.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--net-arch must be comma-separated integers, got {spec!r}") from None
    if not arch or min(arch) <= 0:
        raise ValueError(f"--net-arch must list positive layer sizes, got {spec!r}")
    return arch


def resume_args(args, given: set[str]) -> tuple:
    """The arguments of the run in ``args.resume`` with the overrides allowed on resume, its
    directory and its checkpoint's metadata."""
    from agents.trained import checkpoint_game, read_metadata

    run_dir = Path(args.resume)
    ckpt = run_dir / "checkpoints" / "latest.zip"
    if not ckpt.is_file():
        raise ValueError(f"--resume {run_dir}: no checkpoint at {ckpt}")
    meta = read_metadata(ckpt)
    stored = dict(meta.get("args") or {})
    known = {f.name for f in dataclasses.fields(args)}
    merged = {k: v for k, v in stored.items() if k in known}
    merged["game"] = checkpoint_game(meta).name  # runs from before --game are Yaniv runs
    for k in given:
        new = getattr(args, k)
        if k in RESUME_OVERRIDES:
            merged[k] = new
        elif k in merged and merged[k] != new:
            raise ValueError(f"--resume: {k} was {merged[k]!r} in this run; it cannot change to {new!r}")
    merged["resume"] = str(run_dir)
    return type(args)(**{**dataclasses.asdict(type(args)()), **merged}), run_dir, meta


def game_rules(args):
    """The rules ``args`` train for: the preset ``--rules`` for ``--num-players``, with the
    ``--set`` options on top."""
    from yaniv_env.games import get_game

    return get_game(args.game).get_rules(args.rules, args.num_players).with_options(args.set)


def validate(args, given: set[str]):
    """Resolve ``--resume``, check the arguments; returns (args, run_dir, rules, meta, mix, eval_mix)."""
    from agents.trained import check_metadata
    from training.league import agent_available, parse_mix
    from yaniv_env.games import get_game

    meta = None
    if args.resume:
        args, run_dir, meta = resume_args(args, given)
        game = get_game(args.game)
        rules = check_metadata(meta, game=game.name)
    else:
        game = get_game(args.game)
        args = apply_game_defaults(args, given)
        rules = game_rules(args)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        prefix = "" if game.name == "yaniv" else f"{game.name}_"
        run_dir = Path(args.output_dir) / (args.run_name or f"{prefix}{args.rules}__{args.seed}__{stamp}")
        if (run_dir / "checkpoints" / "latest.zip").exists():
            raise ValueError(f"{run_dir} already holds a run; use --resume {run_dir} or another --run-name")
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
    if args.score_features and not args.action_features:
        raise ValueError(
            "--score-features extends the action-feature networks (agents.networks.ScoreFeatures): "
            "it needs --action-features (Yaniv)"
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
    net_arch(args.net_arch)
    from training.envs import vec_env_kind

    vec_env_kind(args, rules)  # --vec-env batched where it cannot run: refused here
    default_mix = GAME_DEFAULTS.get(game.name, {}).get("opponents", type(args).opponents)
    strict = "opponents" in given or args.opponents != default_mix
    mix = filter_available(parse_mix(args.opponents), rules, "opponents", strict)
    if args.pretrain.lower() in ("", "none"):
        args.pretrain = ""
    elif meta is None:
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
            import agents

            try:  # an option the teacher does not take is refused now, not after the compile
                agents.make(args.pretrain, seed=0, rules=rules, **teacher_options(args))
            except TypeError as e:
                raise ValueError(f"--pretrain-option: {e}") from None
    if args.advice.lower() in ("", "none"):
        args.advice = ""
    else:
        why = agent_available(args.advice, rules)
        if why:
            raise ValueError(f"--advice: agent {args.advice!r} is not available ({why})")
    if meta is None and not args.advice and not args.pretrain:
        for name, value in SCRATCH_DEFAULTS.items():
            if name not in given and getattr(args, name) == getattr(type(args), name):
                setattr(args, name, value)
    eval_mix = []
    if args.eval_every:
        eval_mix = filter_available(parse_mix(args.eval_opponents), rules, "eval opponents", False)
    return args, run_dir, rules, meta, mix, eval_mix
