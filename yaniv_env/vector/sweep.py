"""Random-play sweep on the batched engine: many whole games per preset and player count,
with the rules core's invariants checked at every decision of every game.

``python -m yaniv_env.vector.sweep --games 10000`` plays that many games of uniform random
legal play per preset at 2-5 players and prints one line per configuration (games,
decisions, rounds, how rounds ended, seconds); a broken invariant is printed with the game
seed, and the exit status is then 1. The property tests (``tests/test_engine_properties.py``) run it, at
full size with ``YANIV_FULL_SWEEP=1 --runslow``.

Checked at every decision, in every game of the batch:

* cards are conserved: every kind's count over hands, stock and discards equals the deck's;
* hands hold between 0 and ``hand_size`` cards, and their counts add up to their sizes;
* the acting seat has a legal move (a game never stalls);
* totals move only when a round ends, and then by exactly the round's score change;
* a round lasts at most ``turn_limit`` turns and a game fewer than ``round_limit`` rounds.

The batched engine is the scalar engine's rules, game for game (``tests/test_vector_engine.py``
and :mod:`yaniv_env.vector.verify` replay its games through :mod:`yaniv_env.engine`), so
the sweep's volume covers the rules core at a fraction of the scalar engine's cost.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..cards import standard_deck
from ..rules import Rules
from .batched import REASONS, BatchedYaniv
from .configs import ConfigSummary, run_configs
from .kernels import pick_legal


class InvariantBroken(AssertionError):
    """A game of the sweep broke an invariant of the rules."""


@dataclass
class SweepSummary(ConfigSummary):
    endings: Counter = field(default_factory=Counter)
    """How rounds ended: ``REASONS`` (``yaniv``, ``empty_hand``, ``draw``) and ``truncated``."""

    def line(self) -> str:
        ends = ", ".join(f"{k} {v:,}" for k, v in sorted(self.endings.items()))
        return (
            f"{self.label}: {self.games:,} games, {self.decisions:,} decisions, "
            f"{self.rounds:,} rounds ({ends}), {self.seconds:.1f} s"
        )


def sweep(rules: Rules, games: int, seed: int = 0, batch: int = 1024) -> SweepSummary:
    """Play ``games`` games of uniform random legal play (games seeded ``seed``,
    ``seed + 1``...; moves drawn from a generator seeded ``seed``) and check the invariants
    of the module docstring at every decision; raises :class:`InvariantBroken`."""
    start = time.perf_counter()
    summary = SweepSummary(rules.name, rules.num_players)
    batch = min(batch, games)
    eng = BatchedYaniv(rules, num_envs=batch, seed=seed)
    rng = np.random.default_rng(seed)
    deck = np.bincount(standard_deck(rules.jokers_per_deck, rules.num_decks), minlength=53)
    active = np.ones(batch, dtype=bool)
    started = batch

    def broken(b: int, what: str) -> InvariantBroken:
        return InvariantBroken(
            f"{rules.name} {rules.num_players}p, game seed {int(eng.game_seeds[b])}, "
            f"round {int(eng.round_index[b])}: {what}"
        )

    while active.any():
        masks = eng.legal_masks()
        stalled = np.flatnonzero(active & ~masks.any(axis=1))
        if stalled.size:
            raise broken(int(stalled[0]), "the acting seat has no legal move")
        actions = np.empty(batch, dtype=np.int64)
        pick_legal(masks, rng.integers(0, 2**64 - 1, size=batch, dtype=np.uint64, endpoint=True), actions)
        actions[~active] = -1
        before = eng.scores.copy()
        res = eng.step(actions)
        summary.decisions += int(active.sum())
        counts = eng.card_counts()
        lost = np.flatnonzero(active & (counts != deck).any(axis=1))
        if lost.size:
            b = int(lost[0])
            diff = {int(k): int(counts[b, k] - deck[k]) for k in np.flatnonzero(counts[b] != deck)}
            raise broken(b, f"cards not conserved (kind: surplus) {diff}")
        sizes = eng.hand_sizes
        bad = np.flatnonzero(active & ((sizes < 0) | (sizes > rules.hand_size)).any(axis=1))
        if bad.size:
            raise broken(int(bad[0]), f"hand sizes {sizes[bad[0]].tolist()} outside 0..{rules.hand_size}")
        expected = before + np.where(res.round_over[:, None], res.score_delta, 0)
        moved = np.flatnonzero(active & (eng.scores != expected).any(axis=1))
        if moved.size:
            b = int(moved[0])
            raise broken(b, f"totals {before[b].tolist()} -> {eng.scores[b].tolist()} outside a round's change")
        for b in np.flatnonzero(active & res.round_over).tolist():
            summary.rounds += 1
            summary.endings["truncated" if res.truncated[b] else REASONS[int(res.reason[b])]] += 1
            if res.turns[b] > rules.turn_limit:
                raise broken(b, f"a round of {int(res.turns[b])} turns (limit {rules.turn_limit})")
        finished = active & res.game_over
        for b in np.flatnonzero(finished).tolist():
            if eng.round_index[b] >= rules.round_limit:
                raise broken(b, f"the game reached round {int(eng.round_index[b])} (limit {rules.round_limit})")
        if finished.any():
            summary.games += int(finished.sum())
            active &= ~finished
            more = np.flatnonzero(finished)[: max(0, games - started)]
            if more.size:
                eng.reset_games(more)
                active[more] = True
                started += more.size
    summary.seconds = time.perf_counter() - start
    return summary


def main(argv: list[str] | None = None) -> int:
    return run_configs(
        argv,
        "python -m yaniv_env.vector.sweep",
        "Random-play games on the batched engine with the rules' invariants checked at every decision.",
        sweep,
        InvariantBroken,
        players=[2, 3, 4, 5],
        batch=1024,
    )


if __name__ == "__main__":
    sys.exit(main())
