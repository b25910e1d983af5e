"""The record of one evaluation game (:class:`GameRecord`), built alike by both engines of
:mod:`agents.evaluation.runner`; :mod:`agents.evaluation.stats` and
:mod:`agents.evaluation.ratings` read lists of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from yaniv_env.yaniv import engine
from yaniv_env.yaniv.actions import CALL_YANIV
from yaniv_env.yaniv.rules import Rules

#: Per-seat counters of a game, in the order of :attr:`GameRecord.seat_stats`: games, win
#: share, rounds, round wins, points, calls, successful calls, beaten calls, decisions at
#: which the player could call Yaniv or play on (:func:`call_choices`), the calls made at
#: those, and rounds whose points left the total on a milestone.
SEAT_COUNTERS = (
    "games", "wins", "rounds", "round_wins", "points", "calls", "calls_ok", "calls_beaten",
    "call_chances", "calls_taken", "milestones",
)  # fmt: skip


def call_choices(masks: np.ndarray, actions: np.ndarray | int) -> np.ndarray:
    """Per Yaniv decision (the last axis of ``masks`` holds the legal actions), the
    ``(call_chances, calls_taken)`` counts it adds: ``(1, 1)`` when calling Yaniv was one of
    several legal moves and the agent called, ``(1, 0)`` when it was and the agent did
    something else, ``(0, 0)`` otherwise (a forced call, after a slam-down empties the hand,
    is no choice); shape ``masks.shape[:-1] + (2,)``. One definition for both runners, which
    sum these per seat and hand them to :func:`game_record`."""
    masks = np.asarray(masks, dtype=bool)
    allowed = masks[..., CALL_YANIV] & (masks.sum(axis=-1) > 1)
    return np.stack([allowed, allowed & (np.asarray(actions) == CALL_YANIV)], axis=-1).astype(np.int64)


@dataclass
class GameRecord:
    """The summary of one game (picklable, built in the worker that played it)."""

    deal: int
    """The deal's index: its seed is the evaluation's ``deal_seeds[deal]``
    (:class:`~agents.evaluation.reports.EvalResult`), from which and the seating the game is
    played again (:mod:`agents.evaluation.schedule`)."""
    rotation: int
    seats: tuple[int, ...]
    """Entrant index at each seat."""
    places: list[int]
    scores: list[int]
    rounds: int
    turns: int
    truncated: bool
    seat_stats: list[list[float]]
    """Per seat, the counters of ``SEAT_COUNTERS``."""
    outs: list[tuple[int, int, list[tuple[int, int]]]]
    """Players going out, in order: (seat, score, [(seat, score) of each player still in])."""
    replay: dict | None = None


def game_record(
    deal: int, rotation: int, seats: tuple[int, ...], results: list, places, scores, turns: int,
    truncated: bool, outs: list, replay: dict | None = None,
    call_counts: Sequence[Sequence[int]] | None = None,
) -> GameRecord:  # fmt: skip
    """The :class:`GameRecord` of a finished game from its round (deal) results in order and
    its final places: the per-seat counters of :data:`SEAT_COUNTERS` are summed here, for
    the scalar and the batched runner alike. ``call_counts``: per seat, the sums of
    :func:`call_choices` over its decisions (``None``: no Yaniv decision was counted, as in
    Pis Yedili, which has no calls)."""
    n = len(seats)
    counts = [dict.fromkeys(SEAT_COUNTERS, 0.0) for _ in range(n)]
    if call_counts is not None:
        for c, (chances, taken) in zip(counts, call_counts, strict=True):
            c["call_chances"], c["calls_taken"] = float(chances), float(taken)
    totals = [0] * n  # every game starts at 0
    for rr in results:
        share = 1.0 / len(rr.winners) if rr.winners else 0.0
        for p in range(n):
            if rr.hand_totals[p] is None:
                continue
            c = counts[p]
            c["rounds"] += 1
            if p in rr.winners:
                c["round_wins"] += share
            c["points"] += rr.points[p]
            if getattr(rr, "caller", None) == p:  # Pis Yedili has no calls
                c["calls"] += 1
                c["calls_beaten" if rr.caller_beaten else "calls_ok"] += 1
            if rr.points[p] > 0 and totals[p] + rr.points[p] != rr.scores[p]:  # the total landed on a milestone
                c["milestones"] += 1
        totals = list(rr.scores)
    first = [p for p in range(n) if places[p] == 0]
    for p in range(n):
        counts[p]["games"] = 1
        counts[p]["wins"] = 1.0 / len(first) if p in first else 0.0
    return GameRecord(
        deal=deal,
        rotation=rotation,
        seats=tuple(seats),
        places=[None if x is None else int(x) for x in places],
        scores=[int(x) for x in scores],
        rounds=len(results),
        turns=int(turns),
        truncated=bool(truncated),
        seat_stats=[[c[name] for name in SEAT_COUNTERS] for c in counts],
        outs=outs,
        replay=replay,
    )


def game_outs(rules: Rules, results: list[engine.RoundResult], game_over: bool) -> list:
    """Who went out, when, and who was still in (for the 002 rating); ``game_over``: the
    last round ended the game."""
    outs = []
    for i, rr in enumerate(results):
        remaining = [p for p, t in enumerate(rr.hand_totals) if t is not None]
        ended_game = game_over and i == len(results) - 1
        for x in engine.round_outcome(rules, rr, ended_game).out:
            remaining.remove(x)
            outs.append((x, int(rr.scores[x]), [(q, int(rr.scores[q])) for q in remaining]))
    return outs
