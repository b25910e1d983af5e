"""The ``yaniv`` command line: ``yaniv train | train-rllib | eval | play | replay | serve | bench | ladder | sweep |
verify``.

Each subcommand lives in its own module and takes the rest of the arguments:
``training.cli.train``, ``training.rllib.train`` (the ``[rllib]`` extra), ``training.cli.eval``,
``yaniv_env.tools.play``, ``yaniv_env.tools.replay``, ``yaniv_env.tools.web.server`` (the ``[web]`` extra),
``training.bench``, ``training.cli.ladder``, ``yaniv_env.tools.sweep``, ``yaniv_env.tools.verify``;
``yaniv <command> --help`` lists a command's options and ``yaniv --version`` prints the
package version. A file a command cannot read (missing, unreadable, or refused by its
loader) ends it with one line on stderr (``yaniv eval: cannot read x.safetensors: No such
file or directory``) and exit code 2.
"""

from __future__ import annotations

import importlib
import sys

from yaniv_env.core.imports import MissingExtra, needs_extra
from yaniv_env.core.limits import file_error

COMMANDS = {
    "train": ("training.cli.train", "train an agent (lean PPO; --algo maskable_ppo: MaskablePPO, self-play league)"),
    "train-rllib": ("training.rllib.train", "train with RLlib on Ray (multi-agent PPO self-play; [rllib] extra)"),
    "eval": ("training.cli.eval", "evaluate agents against each other with confidence intervals"),
    "play": ("yaniv_env.tools.play", "play in the terminal against agents"),
    "replay": ("yaniv_env.tools.replay", "replay a recorded game step by step (--html: as a web page)"),
    "serve": ("yaniv_env.tools.web.server", "play in the browser against agents (a local web app; [web] extra)"),
    "bench": ("training.bench", "measure engine, environment and learner speed"),
    "ladder": ("training.cli.ladder", "rate every baseline and shipped agent, one OpenSkill league per table"),
    "sweep": ("yaniv_env.tools.sweep", "batched games, the rules' invariants checked in the kernel at every decision"),
    "verify": ("yaniv_env.tools.verify", "replay batched games through the scalar engine (sharded, resumable)"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--version":
        from yaniv_env import __version__

        print(f"yaniv {__version__}")
        return 0
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        print("usage: yaniv {" + ",".join(COMMANDS) + "} [options]\n       yaniv --version\n")
        for name, (_, help_text) in COMMANDS.items():
            print(f"  {name:<13}{help_text}")
        print("\nEach command has its own options: yaniv <command> --help")
        if argv and argv[0] not in ("-h", "--help"):
            print(f"\nunknown command {argv[0]!r}", file=sys.stderr)
            return 2
        return 0
    try:
        with needs_extra(f"yaniv {argv[0]}"):
            module = importlib.import_module(COMMANDS[argv[0]][0])
            return int(module.main(argv[1:]) or 0)
    except MissingExtra as e:  # one line, as for any other configuration error
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:  # a missing, unreadable or refused file: one line, no traceback
        print(f"yaniv {argv[0]}: {file_error(e)}", file=sys.stderr)
        return 2
