"""The state of one training run: its directory, league, elapsed time and checkpoints; and
:func:`read_csv`, which reads its CSV logs (``eval.csv``: :mod:`training.periodic_eval`)."""

from __future__ import annotations

import csv
import dataclasses
import time
from pathlib import Path

from training.args import Args
from training.checkpoint import build_metadata, save_checkpoint
from training.envs import EnvSpec
from training.league import League


class Run:
    """State of one training run: directories, league, evaluation log, budget. ``args``: the
    run's stored arguments; ``env``: its environments; ``meta``: the resumed checkpoint's
    metadata (``None``: a new run); ``league_size``: the most snapshots in the pool;
    ``segment``: the segment this session trains."""

    def __init__(self, args: Args, env: EnvSpec, run_dir: Path, meta: dict | None, league_size: int, segment: int):
        self.args = args  # the stored arguments of its checkpoints' metadata, nothing else
        self.env = env
        self.dir = run_dir
        self.rules = env.rules
        meta = meta or {}
        self.league = League.from_dict(meta.get("league"), size=league_size)
        self.elapsed_before = float(meta.get("elapsed_seconds", 0.0))
        self.segment = segment
        self.t0 = time.time()
        self.last_eval: dict[str, dict] = {}
        self.pretrain: dict | None = meta.get("pretrain")

    @property
    def elapsed(self) -> float:
        return self.elapsed_before + time.time() - self.t0

    @property
    def checkpoint_path(self) -> Path:
        return self.dir / "checkpoints" / "latest.zip"

    def metadata(self, model) -> dict:
        return build_metadata(
            self.rules,
            timesteps=model.num_timesteps,
            args=dataclasses.asdict(self.args),
            league=self.league.to_dict(),
            episode=self.env.episode,
            reward=self.env.reward,
            elapsed_seconds=round(self.elapsed, 3),
            segment=self.segment,
            run_name=self.dir.name,
            pretrain=self.pretrain,
            advice=self.env.advice or None,
        )

    def save(self, model, path: Path | None = None) -> Path:
        return save_checkpoint(model, path or self.checkpoint_path, self.metadata(model))


def read_csv(path: Path) -> list[dict]:
    """The rows of the CSV file at ``path`` as dicts of text (none when there is no file)."""
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
