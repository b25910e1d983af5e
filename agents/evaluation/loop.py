"""The one loop of an evaluation (:func:`play_games`): games dealt into the slots of a table
(one for the scalar engine, :class:`agents.evaluation.scalar_runner.ScalarRunner`, a batch
for the batched one, :class:`agents.evaluation.batched_runner.BatchedRunner`), advanced a
decision at a time, their :class:`~agents.evaluation.records.GameRecord` in schedule order."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.evaluation.records import GameRecord

#: A game to play: (deal, deal seed, entrant at each seat, rotation, record a replay).
Game = tuple[int, int, tuple[int, ...], int, bool]


def games_of(jobs: list[tuple], n: int, record_until: int = 0) -> list[Game]:
    """The games of ``jobs`` (:func:`agents.evaluation.schedule.schedule`) in order, the first
    ``record_until`` of the evaluation recorded."""
    return [
        (deal, seed, tuple(base[(s - rot) % n] for s in range(n)), rot, first + i < record_until)
        for deal, seed, base, rotations, first in jobs
        for i, rot in enumerate(rotations)
    ]


def play_games(tables, games: list[Game], on_games: Callable[[int], None] | None = None) -> list[GameRecord]:
    """The one loop of an evaluation, whatever the engine: ``tables`` holds ``tables.slots``
    games at a time; each free slot is dealt the next game (:meth:`start`), every busy slot
    advances by a decision (:meth:`advance`, which returns the slots whose game ended, with
    its :class:`GameRecord`), and the records come back in the order of ``games``;
    ``on_games(k)`` is called as games finish."""
    records: list[GameRecord | None] = [None] * len(games)
    pending = iter(range(len(games)))
    game_at = np.full(max(1, min(tables.slots, len(games))), -1, dtype=np.int64)

    def start(slots) -> None:
        starting = []
        for b in slots:
            g = next(pending, None)
            game_at[b] = -1 if g is None else g
            if g is not None:
                starting.append((int(b), games[g]))
        if starting:
            tables.start(starting)

    start(range(len(game_at)))
    while (game_at >= 0).any():
        ended = tables.advance(np.flatnonzero(game_at >= 0))
        for b, record in ended:
            records[game_at[b]] = record
        if ended:
            start([b for b, _ in ended])
            if on_games is not None:
                on_games(len(ended))
    return records  # type: ignore[return-value]
