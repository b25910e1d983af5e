"""Training in phases, in one command: each phase is a run of the lean learner
(:mod:`training.ppo`), each phase after the first starts from the network the phase before it
ended with (``--init``), and all the phases share one wall-clock budget.

.. code-block:: console

    python -m training.phases --minutes 60 --seed 25 --run-name hour \\
        --phase "--episode round --reward score_outcome --round-end continue --value-warmup 0 \\
                 --total-timesteps 16000000 --final-eval-games 0" \\
        --phase "--episode game --reward margin_outcome --round-end terminal --value-warmup 200000" \\
        -- --advice none --pretrain none --opponents self:1,past:1,heuristic:4 --score-features

The options after ``--`` are every phase's; a ``--phase`` adds its own, which win where both
name an option (the last of a repeated option counts, as on any command line). Phase ``i``
(from 1) is the run ``<output-dir>/<run-name>_<i>``, seeded ``--seed`` + ``i`` - 1. Its budget
is what the phases before it left of ``--minutes``, counted on their own clocks (as each
checkpoint records it: imitation, rollouts, updates and periodic evaluations, not the
process's start); a phase ends at that budget or at its own ``--total-timesteps``, and phases
the budget does not reach are not run. The last phase run holds the model.

Every phase's arguments, and each phase's network against the one before it, are checked
before the first phase starts, so a mistake in the last phase is found at once, not after the
first. ``--minutes``, ``--seed``, ``--run-name`` and
``--resume`` belong to this command, and ``--init`` to the first phase only; each is refused
elsewhere. An interrupted phase continues with ``yaniv train --resume <its run>``; the later
phases are then started by hand with ``--init <that run>/checkpoint.pt``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from training import config, ppo
from training.args import Args
from training.checkpoint import PPO_CHECKPOINT, read_ppo_checkpoint
from training.plan import make_plan

OWN_OPTIONS = ("--minutes", "--seed", "--run-name", "--resume", "--algo")
"""Options the phases do not take: the command's own, and ``--algo`` (the lean learner only)."""


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[list[str]]]:
    """The command's options and each phase's full argument list (the common options, then the
    phase's), ``ValueError`` naming a refused option."""
    parser = argparse.ArgumentParser(
        prog="python -m training.phases",
        description="Train the lean PPO in phases, each from the last one's network, within one budget; "
        "see docs/training.md.",
    )
    parser.add_argument("--minutes", type=float, required=True, help="the wall-clock budget of all the phases")
    parser.add_argument("--seed", type=int, default=1, help="the seed of phase 1; phase i takes seed + i - 1")
    parser.add_argument("--run-name", required=True, help="phase i is the run <output-dir>/<run-name>_<i>")
    parser.add_argument("--phase", action="append", required=True, help="one phase's options, in quotes")
    parser.add_argument("common", nargs=argparse.REMAINDER, help="after --: the options of every phase")
    ns = parser.parse_args(argv)
    common = ns.common[1:] if ns.common[:1] == ["--"] else ns.common
    if ns.minutes <= 0:
        raise ValueError(f"--minutes must be positive, not {ns.minutes}")
    phases = []
    for i, text in enumerate(ns.phase, start=1):
        options = shlex.split(text)
        for where, given in ((f"phase {i}", options), ("the common options", common)):
            for option in given:
                name = option.split("=")[0]
                if name in OWN_OPTIONS or (name == "--init" and (i > 1 or where != f"phase {i}")):
                    raise ValueError(f"{where}: {name} is not a phase's option (see python -m training.phases --help)")
        phases.append([*common, *options])
    return ns, phases


def phase_argv(options: list[str], ns: argparse.Namespace, i: int, minutes: float, init: Path | None) -> list[str]:
    """Phase ``i``'s arguments for :func:`training.ppo.main`."""
    own = ["--minutes", f"{minutes:.4f}", "--seed", str(ns.seed + i - 1), "--run-name", f"{ns.run_name}_{i}"]
    return [*options, *own, *(["--init", str(init)] if init is not None else [])]


def check(ns: argparse.Namespace, phases: list[list[str]]) -> list[Path]:
    """Each phase's run directory, its arguments checked as ``yaniv train`` checks them, and its
    network against the one the phase before it ends with, as ``--init`` will check it (the
    checkpoint does not exist yet: the untrained network of that phase has its shapes)."""
    run_dirs, before = [], None
    for i, options in enumerate(phases, start=1):
        init = run_dirs[-1] / PPO_CHECKPOINT if run_dirs else None  # the --init the phase will get
        args, given = config.parse_args(Args, ["--algo", "ppo", *phase_argv(options, ns, i, ns.minutes, init)])
        try:
            plan = make_plan(args, given)
            policy = ppo.run_policy(plan.model, plan.rules)
            if before is not None:
                ppo.check_shapes(before, policy, f"--init from phase {i - 1}")
        except ValueError as e:
            raise ValueError(f"phase {i}: {e}") from None
        run_dirs.append(plan.run_dir)
        before = policy.state_dict()
    return run_dirs


def main(argv: list[str] | None = None) -> int:
    """``python -m training.phases ...``: 2 for bad arguments, a phase's own exit code if it
    fails, else 0."""
    try:
        ns, phases = parse(sys.argv[1:] if argv is None else argv)
        run_dirs = check(ns, phases)
    except ValueError as e:
        print(f"python -m training.phases: error: {e}", file=sys.stderr)
        return 2
    budget, init = ns.minutes * 60.0, None
    for i, (options, run_dir) in enumerate(zip(phases, run_dirs, strict=True), start=1):
        if budget <= 0:
            print(f"phase {i} and later: not run, the budget of {ns.minutes} minutes is spent", flush=True)
            break
        print(f"phase {i} of {len(phases)}: {run_dir}, {budget / 60:.2f} minutes left", flush=True)
        code = ppo.main(phase_argv(options, ns, i, budget / 60.0, init))
        if code:
            return code
        init = run_dir / PPO_CHECKPOINT
        budget -= read_ppo_checkpoint(init, f"phase {i}", keys=("state",))["state"]["elapsed"]
    return 0


if __name__ == "__main__":
    sys.exit(main())
