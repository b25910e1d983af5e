"""``yaniv train``: the command line of :mod:`training.train` (options: :class:`training.args.Args`)."""

from __future__ import annotations

import sys

from training import config
from training.args import Args, ConfigError
from training.train import train

__all__ = ["Args", "ConfigError", "main", "parse_args", "train"]


def parse_args(argv: list[str] | None = None) -> tuple[Args, set[str]]:
    """The arguments, and the names given explicitly on the command line."""
    return config.parse_args(Args, argv)


def main(argv: list[str] | None = None) -> int:
    """``yaniv train``: 0 when the run finished, 2 for bad arguments, 130 when interrupted."""
    args, given = parse_args(argv)
    try:
        return train(args, given)
    except ConfigError as e:
        print(f"yaniv train: error: {e}", file=sys.stderr)
        return 2
