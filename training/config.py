"""The command line of ``yaniv train`` built from :class:`training.args.Args` (one option per
field, its docstring as the help), the per-game defaults and ``--resume``'s arguments.
:mod:`training.plan` checks the result and resolves it into a plan.

Functions take the arguments object and use ``type(args)`` for the dataclass, so that
``yaniv train-rllib`` builds its own command line from its own fields.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import sys
import typing
from pathlib import Path

from agents.trained import checkpoint_game, read_metadata
from training.args import ALGO_DEFAULTS, GAME_DEFAULTS, RESUME_OVERRIDES, SCRATCH_DEFAULTS
from training.checkpoint import PPO_CHECKPOINT, read_ppo_checkpoint
from training.league import agent_available
from yaniv_env.games import game_of, get_game


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
        description="Train a Yaniv agent with the lean PPO of training/ppo.py (--algo maskable_ppo: "
        "sb3-contrib's MaskablePPO, which also trains Pis Yedili with --game pis_yedili); see docs/training.md.",
        argument_default=argparse.SUPPRESS if suppress else None,
    )
    hints = typing.get_type_hints(args_type)
    docs = field_docs(args_type)
    learners = ALGO_DEFAULTS if "algo" in {f.name for f in dataclasses.fields(args_type)} else {}
    shown_defaults = {**GAME_DEFAULTS, **learners}
    for f in dataclasses.fields(args_type):
        hint = hints[f.name]
        args = typing.get_args(hint)
        base = next((a for a in args if a is not type(None)), hint) if args else hint
        flags = [f"--{f.name.replace('_', '-')}"]
        help_text = docs.get(f.name, "")
        for name, changed in shown_defaults.items():
            if f.name in changed:
                help_text += f" [{name}: {changed[f.name]}]"
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


def defaults(args) -> dict[str, object]:
    """The defaults of ``args``' learner and game (``ALGO_DEFAULTS``, then ``GAME_DEFAULTS``,
    which win: a game's recipe is for its learner) that replace
    :class:`~training.args.Args`' own."""
    return {**ALGO_DEFAULTS.get(args.algo, {}), **GAME_DEFAULTS.get(args.game, {})}


def apply_defaults(args, given: set[str], changes: dict[str, object] | None = None):
    """``args`` with ``changes`` (default: :func:`defaults`) for the options that are neither
    in ``given`` nor changed from their default (the class's, under ``changes``: its game's
    and learner's). Without ``changes`` the game's learner comes first, then its defaults."""
    if changes is None and "algo" not in given and args.algo == type(args)().algo:
        args = dataclasses.replace(args, algo=GAME_DEFAULTS.get(args.game, {}).get("algo", args.algo))
    base = {} if changes is None else defaults(args)
    changes = defaults(args) if changes is None else changes
    kept = {
        name: value
        for name, value in changes.items()
        if name not in given and getattr(args, name) == base.get(name, getattr(type(args)(), name))
    }
    return dataclasses.replace(args, **kept)


def filter_available(mix: list[tuple[str, float]], rules, what: str, strict: bool) -> list[tuple[str, float]]:
    """The agents of ``mix`` available under ``rules``; the others are refused (``strict``) or
    left out with a warning."""
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


#: The lean learner's option names before it shared ``yaniv train``'s (its runs' args.json).
LEGACY_PPO_NAMES = {
    "num_envs": "n_envs",
    "num_steps": "n_steps",
    "update_epochs": "n_epochs",
    "minibatch_size": "batch_size",
    "clip_coef": "clip_range",
    "hidden": "net_arch",
    "update_threads": "torch_threads",
}


#: Options the lean learner gained after some runs were saved, at their values when off: a
#: saved run without one trained so.
LEAN_OPTIONS_OFF = {"round_end": "continue", "score_features": False}


def legacy_ppo_args(run_dir: Path) -> dict:
    """The arguments of a lean-learner run whose checkpoint predates the arguments kept in it,
    from its args.json under today's names (``rollout_threads`` and ``checkpoint_minutes``
    are gone: today's defaults apply); without an advisor or imitation unless it had them,
    as that learner's defaults were."""
    try:
        stored = json.loads((run_dir / "args.json").read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"--resume {run_dir}: cannot read its args.json ({e})") from None
    if not isinstance(stored, dict):
        raise ValueError(f"--resume {run_dir}: its args.json is not an object")
    renamed = {LEGACY_PPO_NAMES.get(k, k): v for k, v in stored.items()}
    base = {**SCRATCH_DEFAULTS["ppo"], "advice": "none", "pretrain": "none"}
    return {**base, **renamed, "algo": "ppo"}


def resume_args(args, given: set[str]) -> tuple:
    """The arguments of the run in ``args.resume`` with the overrides allowed on resume, its
    directory and its checkpoint's metadata."""
    run_dir = Path(args.resume)
    ckpt, lean = run_dir / "checkpoints" / "latest.zip", run_dir / PPO_CHECKPOINT
    if ckpt.is_file():
        meta = read_metadata(ckpt)
        game = checkpoint_game(meta).name  # runs from before --game are Yaniv runs
        # a MaskablePPO run, its options not kept (runs from before them) as its defaults then were
        meta = {**meta, "args": {**ALGO_DEFAULTS["maskable_ppo"], **(meta.get("args") or {}), "algo": "maskable_ppo"}}
    elif lean.is_file():  # a run of --algo ppo: its counters and arguments
        saved = read_ppo_checkpoint(lean, f"--resume {run_dir}", keys=("policy", "optimizer", "state"))
        stored = saved["args"] if "args" in saved else legacy_ppo_args(run_dir)
        # options newer than the run: it trained as they do when off (not as today's defaults)
        stored = {**LEAN_OPTIONS_OFF, **stored}
        meta, game = {**saved["state"], "args": stored}, "yaniv"
    else:
        raise ValueError(f"--resume {run_dir}: no checkpoint at {ckpt} or {lean}")
    stored = dict(meta.get("args") or {})
    known = {f.name for f in dataclasses.fields(args)}
    merged = {k: v for k, v in stored.items() if k in known}
    merged["game"] = game
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
    return get_game(args.game).get_rules(args.rules, args.num_players).with_options(args.set)
