"""Named pieces laid end to end in one flat vector: the base of every game's observation
layout (the pieces, their offsets and upper bounds, the index table, the splitter)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Piece:
    name: str
    start: int
    size: int
    high: float

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.size)


def one_hot_rows(width: int, rows: int) -> list[list[float]]:
    """``rows`` one-hot rows of ``width`` as lists (row ``i`` has a 1 at ``i``; rows from
    ``width`` on are all zeros), to concatenate into an observation without NumPy calls."""
    return [[1.0 if r == i else 0.0 for r in range(width)] for i in range(rows)]


class PieceLayout:
    """Named pieces laid end to end in one flat vector: ``pieces`` (name -> :class:`Piece`),
    the total ``size``, the per-index upper bounds ``high``, the index table and the
    splitter. The observation layouts of every game build on it."""

    def __init__(self, sizes: list[tuple[str, int, float]]):
        """``sizes``: ``(name, size, high)`` per piece, in vector order."""
        self.pieces: dict[str, Piece] = {}
        start = 0
        for name, size, high in sizes:
            self.pieces[name] = Piece(name, start, size, high)
            start += size
        self.size = start
        self.high = np.concatenate([np.full(p.size, p.high, dtype=np.float32) for p in self.pieces.values()])

    def table(self) -> str:
        """The index table for these rules."""
        rows = [f"{'piece':<16}{'start':>6}{'size':>6}"]
        rows += [f"{p.name:<16}{p.start:>6}{p.size:>6}" for p in self.pieces.values()]
        return "\n".join(rows)

    def checked(self, obs: np.ndarray, what: str) -> np.ndarray:
        """``obs`` as a float32 vector of this layout's size; ``ValueError`` naming ``what``
        (the rules and player count) otherwise."""
        obs = np.asarray(obs, dtype=np.float32)
        if obs.shape != (self.size,):
            raise ValueError(f"observation of shape {obs.shape} does not match {what} (length {self.size})")
        return obs

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The named pieces of an observation (views, no copy)."""
        return {name: obs[p.slice] for name, p in self.pieces.items()}


__all__ = ["Piece", "PieceLayout", "one_hot_rows"]
