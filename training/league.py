"""Opponents for training: a weighted mix of baselines plus a self-play pool, drawn per episode.

The training environments draw each episode's opponents themselves, for every kind
(``--vec-env``): from their ``opponent_mix`` and, with ``--league``, from a self-play pool
they are handed with ``set_pool`` (:meth:`yaniv_env.core.gym.CardGameGymEnv.set_pool`,
:meth:`yaniv_env.yaniv.batched.envs.LearnerGames.set_pool`, both drawing with
:func:`yaniv_env.core.opponents.draw_opponents`). ``info["opponent"]`` names the draw
("greedy", "pool", "random+heuristic" for three players...), so the Monitor logs can split
the learning curve by opponent. :class:`training.envs.VecOpponentPool` loads the pool's
snapshots with :class:`Snapshots` and hands them to the environments.

:class:`League` is the pool itself: snapshot paths (relative to the run directory) and the
history of the gate evaluations. A snapshot joins when its mean placement reward against
the pool's members is at least the gate margin (the first one joins unconditionally); the
oldest member leaves when the pool is full.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


def parse_mix(spec: str) -> list[tuple[str, float]]:
    """``"random:1,greedy:2,heuristic"`` -> ``[("random", 1.0), ("greedy", 2.0), ("heuristic", 1.0)]``."""
    out: list[tuple[str, float]] = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        name, _, weight = part.partition(":")
        try:
            w = float(weight) if weight else 1.0
        except ValueError:
            raise ValueError(f"bad weight in opponent mix entry {part!r} (expected name or name:weight)") from None
        if w < 0:
            raise ValueError(f"negative weight in opponent mix entry {part!r}")
        out.append((name.strip(), w))
    if not out or sum(w for _, w in out) <= 0:
        raise ValueError(f"the opponent mix {spec!r} names no opponent with a positive weight")
    return out


def format_mix(mix: list[tuple[str, float]]) -> str:
    return ",".join(f"{n}:{w:g}" for n, w in mix)


def agent_available(name: str, rules) -> str | None:
    """``None`` when ``agents.make(name)`` works under ``rules``, else the reason it does not."""
    import agents

    try:
        agents.make(name, seed=0, rules=rules)
    except (ImportError, AttributeError, ValueError) as e:
        return f"{type(e).__name__}: {e}"
    return None


class Snapshots:
    """The self-play pool's members (:class:`agents.trained.TrainedAgent`), loaded from the
    snapshots a run wrote, for every kind of training environment
    (:class:`training.envs.VecOpponentPool`).

    ``rules``: the rules the run trains for (:func:`training.config.game_rules`, as its
    checkpoints record them: without the environment's ``--turn-limit``); ``deterministic``:
    the members play the arg-max of their logits; ``torch_threads``: their torch threads."""

    def __init__(self, rules, deterministic: bool, torch_threads: int | None):
        self.rules = rules
        self.deterministic = deterministic
        self.torch_threads = torch_threads
        self.paths: list[str] = []
        self.members: list = []

    def load(self, paths: list[str], rng: np.random.Generator) -> list:
        """The members of ``paths``, in order: those already loaded kept, the others loaded
        (in the order of ``paths``, each seeded from ``rng``, so that members loaded again
        get the same seeds as before)."""
        loaded = dict(zip(self.paths, self.members, strict=True))
        self.members = [loaded[p] if p in loaded else self._load(p, rng) for p in paths]
        self.paths = list(paths)
        return self.members

    def _load(self, path: str, rng: np.random.Generator):
        from agents.trained import load

        return load(
            path,
            seed=int(rng.integers(2**31)),
            rules=self.rules,
            deterministic=self.deterministic,
            torch_threads=self.torch_threads,
            trusted=True,  # snapshots this run wrote
        )


@dataclass
class League:
    """The self-play pool: snapshot paths relative to the run directory, and gate history."""

    pool: list[str] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)
    size: int = 8

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None, size: int = 8) -> League:
        d = d or {}
        return cls(pool=list(d.get("pool", [])), history=list(d.get("history", [])), size=int(d.get("size", size)))

    def paths(self, run_dir: Path) -> list[str]:
        return [str(Path(run_dir) / p) for p in self.pool]

    def admit(self, rel_path: str) -> list[str]:
        """Add a snapshot; returns the members that left (oldest first) to keep ``size``."""
        self.pool.append(rel_path)
        gone = []
        while len(self.pool) > self.size:
            gone.append(self.pool.pop(0))
        return gone
