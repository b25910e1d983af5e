"""The observation vector, built from named pieces, always from the acting player's seat.

Seats in every per-player piece are relative: index 0 is the observer, 1 the next player
in turn order, and so on. Card pieces are count vectors over the 53 card kinds
(``yaniv_env.cards``: ``kind = suit * 13 + rank``, 52 = joker); with two decks a count
can be 2 (4 for jokers).

Index table (``K = 53`` kinds, ``n`` players; ``ObservationLayout(rules).table()`` prints
the offsets for a given rule set):

=================  ==========  =========================================================
piece              size        meaning
=================  ==========  =========================================================
hand               K           the observer's cards
takeable           K           cards the observer may take (or, before it discards, will
                               be able to take) from the previous discard
top                K           every card of the previous discard
pending            K           the set the observer just laid (draw and slam phases)
drawn              K           the card just drawn (slam phase, the drawer only)
known              (n-1)·K     cards each opponent is known to hold (taken from a
                               discard, not yet thrown), next player first
out_of_play        K           discarded cards below the top set (out until a reshuffle)
hand_sizes         n           cards in each hand / hand_size
scores             n           each total / score_limit
alive              n           1 for players still in the game
turn_player        n           one-hot: whose turn it is (differs from the observer in
                               the Asaf and Blast decisions)
caller             n           one-hot: who called Yaniv (Asaf phase)
stock              1           cards in the stock / deck size
round_progress     1           turns played this round / turn_limit
phase              5           one-hot: the decision the observer is asked to make
                               (discard, draw, slam, asaf, blast); all zeros when it
                               is not deciding, so that nobody learns that another
                               seat was offered a slam-down or a Blast
rules              22          the rule values that differ between presets (see
                               :func:`rules_vector`), so one network can see the rules
=================  ==========  =========================================================

Nothing hidden from the observer enters its observation: opponents' cards appear only
through ``known``, and the stock only by its size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import engine
from .cards import NUM_KINDS
from .engine import ASAF_PHASE, DRAW, NUM_DECISION_PHASES, SLAM_PHASE, State
from .rules import Rules

RULES_VECTOR_SIZE = 22


def rules_vector(rules: Rules) -> np.ndarray:
    """The rule options that differ between presets, scaled to about [0, 1].

    Its 22 entries are fixed (the shipped model reads them), so it does not show:
    ``hand_size``, ``run_min``, ``max_players``, ``two_decks_from`` (only the deck count in
    use), ``limit_inclusive``, ``rounds_per_player``, ``milestone_every``,
    ``milestone_subtract``, ``milestone_table``'s values, ``milestone_max``,
    ``stock_exhaustion``, ``turn_limit``, ``round_limit``, and the options no preset
    differs in: ``slam_joker_on_joker``, ``private_windows``, ``set_jokers``,
    ``beaten_caller_alone``, ``next_leader``, and ``run_pickup="top"`` (it reads as
    ``ends``). A network meant for those must see them another way."""
    v = [
        rules.call_max / 10,
        rules.num_decks - 1,
        rules.jokers_per_deck / 2,
        rules.challenge == "asaf",
        rules.beaten_winners_score == "hand",
        rules.max_run_jokers / 4,
        rules.run_jokers_at_ends,
        rules.set_pickup == "any",
        rules.set_pickup == "top",
        rules.set_pickup == "ends",
        rules.run_pickup == "any",
        rules.slam == "single",
        rules.slam == "same_rank",
        rules.slam_from_stock_only,
        rules.blast,
        rules.empty_hand_wins,
        rules.milestone == "halve",
        rules.milestone == "subtract",
        rules.milestone == "table",
        rules.game_end == "first_to_limit",
        rules.score_limit / 200,
        rules.penalty / 30,
    ]
    return np.array(v, dtype=np.float32)


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
    splitter. The observation layouts of both games build on it."""

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

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The named pieces of an observation (views, no copy)."""
        return {name: obs[p.slice] for name, p in self.pieces.items()}


class ObservationLayout(PieceLayout):
    """Offsets of the named pieces for one rule set, and the builder."""

    def __init__(self, rules: Rules):
        self.rules = rules
        n = rules.num_players
        K = NUM_KINDS
        max_count = float(max(rules.num_decks, rules.num_jokers, 1))
        score_high = (rules.score_limit + rules.penalty + 10 * rules.hand_size) / rules.score_limit
        sizes = [
            ("hand", K, max_count),
            ("takeable", K, max_count),
            ("top", K, max_count),
            ("pending", K, max_count),
            ("drawn", K, 1.0),
            ("known", (n - 1) * K, max_count),
            ("out_of_play", K, max_count),
            ("hand_sizes", n, 1.0),
            ("scores", n, score_high),
            ("alive", n, 1.0),
            ("turn_player", n, 1.0),
            ("caller", n, 1.0),
            ("stock", 1, 1.0),
            ("round_progress", 1, 1.0),
            ("phase", NUM_DECISION_PHASES, 1.0),
            ("rules", RULES_VECTOR_SIZE, max(1.0, float(rules_vector(rules).max()))),
        ]
        super().__init__(sizes)
        # The card pieces are contiguous, the scalar pieces follow them.
        self._cards_end = self.pieces["out_of_play"].start + K
        self._scalars_start = self.pieces["hand_sizes"].start
        self._scalars_end = self.pieces["rules"].start
        self._template = np.zeros(self.size, dtype=np.float32)
        self._template[self.pieces["rules"].slice] = rules_vector(rules)
        self._orders = [[(seat + r) % n for r in range(n)] for seat in range(n)]
        # The card pieces are gathered from the engine's card count rows
        # (engine.card_counts): per seat, with and without the pending set.
        rows = engine.count_rows(n)
        self._gather = []
        for order in self._orders:
            known = [rows[f"known_{p}"] for p in order[1:]]
            by_pending = []
            for pending in ("zeros", "pending"):
                names = [f"hand_{order[0]}", "takeable", "top", pending, "zeros"]
                picked = [rows[name] for name in names] + known + [rows["pile"]]
                by_pending.append((np.array(picked)[:, None] * K + np.arange(K)).ravel())
            self._gather.append(by_pending)
        self._drawn_start = self.pieces["drawn"].start
        # The counts last built from and a NumPy view of them (one tuple, replaced whole).
        self._counts_view: tuple[bytearray | None, np.ndarray] = (None, np.zeros(0, dtype=np.uint8))
        # One-hot rows as lists; row n is all zeros (no caller).
        self._one_hot = one_hot_rows(n, n + 1)
        # The turn_player and caller pieces together, by relative turn player and caller.
        self._turn_caller_hot = [[t + c for c in self._one_hot] for t in self._one_hot[:n]]
        # The scores and alive flags last seen, and their pieces per seat (one tuple).
        self._scores_alive: tuple[list[int] | None, list[bool] | None, list[list[float]]] = (None, None, [])
        self._phase_hot = one_hot_rows(NUM_DECISION_PHASES, NUM_DECISION_PHASES + 2)
        self._inv_hand = 1.0 / rules.hand_size
        self._inv_limit = 1.0 / rules.score_limit
        self._inv_deck = 1.0 / rules.deck_size
        self._inv_turns = 1.0 / rules.turn_limit

    def build(self, s: State, seat: int) -> np.ndarray:
        """The observation of ``seat`` in state ``s``."""
        counts = s._counts
        if counts is None:
            counts = engine.card_counts(s)
        seen, view = self._counts_view
        if counts is not seen:  # a new deal or another state: view its counts
            view = np.frombuffer(counts, dtype=np.uint8)
            self._counts_view = (counts, view)
        phase = s.phase
        deciding = seat == s.current
        obs = self._template.copy()
        obs[: self._cards_end] = view[self._gather[seat][phase in (DRAW, SLAM_PHASE)]]
        if phase == SLAM_PHASE and deciding:  # the drawn card is the drawer's secret
            obs[self._drawn_start + s.drawn] = 1.0
        hands = s.hands
        n = s.num_players
        inv_hand = self._inv_hand
        values = [len(hands[p]) * inv_hand for p in self._orders[seat]]
        scores, alive = s.scores, s.alive
        seen_scores, seen_alive, scores_alive = self._scores_alive
        if scores != seen_scores or alive != seen_alive:  # they change between rounds only
            scores_alive = self._scores_alive_values(scores, alive)
            self._scores_alive = (list(scores), list(alive), scores_alive)
        values += scores_alive[seat]
        caller = s.caller if phase == ASAF_PHASE and s.caller is not None else None
        values += self._turn_caller_hot[(s.turn_player - seat) % n][n if caller is None else (caller - seat) % n]
        values += (len(s.stock) * self._inv_deck, s.round_turns * self._inv_turns)
        values += self._phase_hot[phase if deciding else NUM_DECISION_PHASES]
        obs[self._scalars_start : self._scalars_end] = values
        return obs

    def _scores_alive_values(self, scores: list[int], alive: list[bool]) -> list[list[float]]:
        """The scores and alive pieces as lists, for every seat."""
        inv_limit = self._inv_limit
        return [
            [scores[p] * inv_limit for p in order] + [1.0 if alive[p] else 0.0 for p in order] for order in self._orders
        ]


class StateLayout:
    """The full-information state vector for centralised critics (absolute seats):
    every hand (n·K), the stock (K), the top set (K), the pending set (K), the pile (K),
    then the observation scalars of seat 0 (hand sizes … rules)."""

    def __init__(self, rules: Rules):
        self.obs_layout = ObservationLayout(rules)
        n = rules.num_players
        self.cards = (n + 4) * NUM_KINDS
        tail = self.obs_layout.size - self.obs_layout._scalars_start
        self.size = self.cards + tail
        self.high = np.concatenate(
            [
                np.full(self.cards, float(max(rules.num_decks, rules.num_jokers, 1) * 2), dtype=np.float32),
                self.obs_layout.high[self.obs_layout._scalars_start :],
            ]
        )

    def build(self, s: State) -> np.ndarray:
        n = s.num_players
        K = NUM_KINDS
        idx = [p * K + k for p in range(n) for k in s.hands[p]]
        idx += [n * K + k for k in s.stock]
        idx += [(n + 1) * K + k for k in s.top]
        if s.pending is not None and s.phase in (DRAW, SLAM_PHASE):
            idx += [(n + 2) * K + k for k in s.pending.cards]
        idx += [(n + 3) * K + k for k in s.pile]
        out = np.empty(self.size, dtype=np.float32)
        out[: self.cards] = np.bincount(idx, minlength=self.cards)
        out[self.cards :] = self.obs_layout.build(s, 0)[self.obs_layout._scalars_start :]
        return out
