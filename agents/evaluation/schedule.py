"""The schedule of an evaluation: the deal seeds, and the seats each deal is played in.

A fixed list of *deal seeds* is derived from ``seed`` (:func:`deal_seeds`). The deal seed
seeds the environment's generator (deal, lots, reshuffles); the agent at seat ``s`` gets
its own seed ``yaniv_env.core.seeding.agent_seed(deal_seed, s)`` (through ``reset(seed)`` when the
agent has it, else a fresh agent is built per game), so every game depends only on its deal
seed and seating and the results do not depend on ``workers``.

With ``k`` entrants and ``n`` seats: for ``k <= n`` one table seats the entrants
cyclically (``n = k = 2``: head to head; 2 entrants at 4 seats: ``A B A B``); for
``k > n`` the deals go round every pairing (``n = 2``) or random tables of ``n`` distinct
entrants (``n > 2``), interleaved deal by deal. :meth:`EvalResult.matchups` gives the
head-to-head results of each pair of entrants.

* **Duplicate format** (``duplicate=True``, default): each deal is replayed with the seating
  rotated through all ``n`` rotations (rotations giving the same seating are played once),
  so every entrant plays every seat with the same cards. ``games`` is the total number of
  games: :func:`agents.evaluation.evaluate` refuses a count that is not a whole number of
  deals (:func:`game_multiple`: 2 agents at 2 seats, multiples of 2; at 3 seats, A B A has 3
  distinct seatings, multiples of 3; at 4 seats A B A B has 2) and says which counts work.
  Two copies of one agent therefore play the same game in both rotations and score
  exactly half each: a quick sanity check of the format.
* ``duplicate=False``: each deal is played once; the seating still rotates from deal to deal
  so that seats stay balanced.

:func:`agents.evaluation.league` plays the same schedule (games split evenly over the pairings) and adds
ratings.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def deal_seeds(seed: int, count: int) -> list[int]:
    """The deal seeds of an evaluation: ``count`` 63-bit seeds derived from ``seed``.
    The list for a larger ``count`` extends the list for a smaller one."""
    return [
        int(np.random.SeedSequence([int(seed), i]).generate_state(1, np.uint64)[0] >> np.uint64(1))
        for i in range(count)
    ]


def _rotations(base: tuple[int, ...]) -> list[int]:
    """The rotations of ``base`` that give distinct seatings."""
    n = len(base)
    seen, out = set(), []
    for r in range(n):
        seating = tuple(base[(s - r) % n] for s in range(n))
        if seating not in seen:
            seen.add(seating)
            out.append(r)
    return out


def _tables(k: int, n: int) -> list[tuple[int, ...]]:
    """The fixed tables of ``k`` entrants at ``n`` seats: one (``k <= n``, seated
    cyclically), every pairing (``n = 2``), or none (random tables of ``n`` distinct entrants)."""
    if k <= n:
        return [tuple(i % k for i in range(n))]
    if n == 2:
        return list(itertools.combinations(range(k), 2))
    return []


def _games_per_deal(tables: list[tuple[int, ...]], n: int, duplicate: bool) -> int:
    return (len(_rotations(tables[0])) if tables else n) if duplicate else 1


def game_multiple(k: int, n: int, duplicate: bool) -> int:
    """The game counts a schedule of ``k`` entrants at ``n`` seats plays exactly are the
    multiples of this: the distinct seatings of a deal (duplicate format) times the tables
    the deals go round (every pairing when ``k > n = 2``)."""
    tables = _tables(k, n)
    return _games_per_deal(tables, n, duplicate) * max(1, len(tables))


def whole_deals(games: int, k: int, n: int, duplicate: bool) -> int:
    """``games`` rounded up to a count the schedule plays exactly (see :func:`game_multiple`)."""
    multiple = game_multiple(k, n, duplicate)
    return -(-games // multiple) * multiple


def game_count_problem(k: int, n: int, games: int, duplicate: bool) -> str | None:
    """``None`` when ``games`` is a count the schedule plays exactly, else why not, with the
    allowed multiples and the nearest counts."""
    multiple = game_multiple(k, n, duplicate)
    if games % multiple == 0:
        return None
    tables = _tables(k, n)
    reasons = []
    if duplicate:
        per_deal = _games_per_deal(tables, n, duplicate)
        reasons.append(f"the duplicate format plays every deal in each of its {per_deal} distinct seatings")
    if len(tables) > 1:
        reasons.append(f"the deals go round all {len(tables)} pairings of the {k} agents")
    lower = games // multiple * multiple
    nearest = f"{lower} or {lower + multiple}" if lower else f"{multiple}"
    hint = " (or play each deal once with --no-duplicate)" if duplicate and len(tables) <= 1 else ""
    return (
        f"{games} games cannot be played exactly: {' and '.join(reasons)}, so the number of games must be a "
        f"multiple of {multiple} (nearest: {nearest}){hint}"
    )


def schedule(k: int, n: int, games: int, seed: int, duplicate: bool) -> tuple[list[int], list[tuple]]:
    """Deal seeds and jobs ``(deal, deal seed, base seating, rotations, first game index)``:
    one table (``k <= n``), every pairing (``n = 2``) or random tables of ``n`` distinct
    entrants; tables are interleaved deal by deal. ``games`` is rounded up to whole deals
    and whole rounds of the tables (see :func:`game_multiple`)."""
    tables = _tables(k, n)
    per_deal = _games_per_deal(tables, n, duplicate)
    deals = math.ceil(games / per_deal)
    if tables:
        deals = math.ceil(deals / len(tables)) * len(tables)
    seeds = deal_seeds(seed, deals)
    rng = np.random.default_rng([int(seed), 0x7AB1E])
    jobs, first = [], 0
    for d in range(deals):
        base = tables[d % len(tables)] if tables else tuple(int(x) for x in rng.permutation(k)[:n])
        rots = _rotations(base)
        if not duplicate:  # one game per deal; the seating still turns from deal to deal
            rots = [rots[(d // max(1, len(tables))) % len(rots)]]
        jobs.append((d, seeds[d], base, rots, first))
        first += len(rots)
    return seeds, jobs
