"""The evaluation's former address, kept for the notebooks and for ``python -m training.evaluate``:
the harness is :mod:`agents.evaluation`, the command line :mod:`training.cli.eval`."""

from __future__ import annotations

import sys

from agents.evaluation import evaluate, game_replay, league, wilson
from training.cli.eval import main

__all__ = ["evaluate", "game_replay", "league", "main", "wilson"]

if __name__ == "__main__":
    sys.exit(main())
