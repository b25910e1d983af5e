"""The observation vector, built from named pieces, always from the acting player's seat.

Seats in every per-player piece are relative: index 0 is the observer, 1 the next player
in turn order, and so on. Card pieces are count vectors over the 53 card kinds
(``yaniv_env.yaniv.cards``: ``kind = suit * 13 + rank``, 52 = joker); with two decks a count
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
pending            K           the set the turn player just laid, while it waits for the
                               draw (draw phase only: once a card is drawn the set is the
                               top set, so the piece is zero in the slam phase)
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
rounds_left        1 or 0      rounds still to play, this one included, / the game's
                               rounds (1 in the first round): only under rules that
                               end the game after a fixed number of rounds
                               (``rounds_per_player``, 004), absent otherwise
=================  ==========  =========================================================

Nothing hidden from the observer enters its observation: opponents' cards appear only
through ``known``, and the stock only by its size.

The layout builds the vector (:meth:`ObservationLayout.build`) and reads it back
(:meth:`ObservationLayout.decode`: an :class:`ObservationView` of named, meaningful
fields: cards as kinds, scores in points, relative seats); :meth:`ObservationLayout.view`
makes the same view directly from a state (for search), and
:meth:`ObservationLayout.players_from_size` the player count from a vector's length
(``58·n + 294``, one more with a fixed number of rounds).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.layout import PieceLayout, one_hot_rows
from . import engine
from .cards import NUM_KINDS, YANIV_VALUE
from .engine import ASAF_PHASE, DRAW, NUM_DECISION_PHASES, SLAM_PHASE, State
from .rules import Rules

RULES_VECTOR_SIZE = 22
_KINDS = np.arange(NUM_KINDS)


def rules_vector(rules: Rules) -> np.ndarray:
    """The rule options that differ between presets, scaled to about [0, 1].

    Its 22 entries are fixed (the shipped model reads them), so it does not show:
    ``hand_size``, ``run_min``, ``max_players``, ``two_decks_from`` (only the deck count in
    use), ``limit_inclusive``, ``rounds_per_player`` (the observation's ``rounds_left``
    piece shows the rounds left instead), ``milestone_every``,
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
class ObservationView:
    """What one observation says, from the observer's seat (relative seats: 0 is the
    observer, 1 the next player in turn order, ...). Cards are tuples of kinds, a multiset
    (:meth:`ObservationLayout.decode` lists them by kind, :meth:`ObservationLayout.view` in
    the engine's order)."""

    phase: int | None
    """The decision asked of the observer (0 discard, 1 draw, 2 slam, 3 asaf, 4 blast);
    ``None`` when it is not deciding."""
    hand: tuple[int, ...]
    takeable: tuple[int, ...]
    """Cards the observer may take (or, before it discards, will be able to take) from the
    previous discard."""
    top: tuple[int, ...]
    pending: tuple[int, ...]
    """The set the turn player just laid, while it waits for the draw (draw phase)."""
    drawn: int | None
    """The card just drawn (slam phase, the drawer only)."""
    known: tuple[tuple[int, ...], ...]
    """``known[r]``: cards seat ``r`` is known to hold (``known[0]`` is empty: not observed)."""
    out_of_play: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    """Totals in points."""
    alive: tuple[bool, ...]
    turn_player: int
    caller: int | None
    """Who called Yaniv (Asaf phase), else ``None``."""
    stock_size: int
    round_turns: int
    rounds_left: int | None
    """Rounds still to play, this one included, under rules with a fixed number of rounds
    (``rounds_per_player``); ``None`` otherwise."""


def card_values(rules: Rules) -> np.ndarray:
    """Points of each card kind of the ``hand`` piece (float64): the Yaniv values, joker 0."""
    return np.asarray(YANIV_VALUE, dtype=np.float64)


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
        self._total_rounds = rules.total_rounds
        if self._total_rounds is not None:  # last, so that the other offsets stay put
            sizes.append(("rounds_left", 1, 1.0))
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
        self._rounds_at = self.pieces["rounds_left"].start if self._total_rounds is not None else None

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
        if self._rounds_at is not None:
            obs[self._rounds_at] = (self._total_rounds - s.round_index) / self._total_rounds
        return obs

    @staticmethod
    def players_from_size(size: int) -> int:
        """The player count of an observation vector of length ``size`` (``58·n + 294``, or
        ``58·n + 295`` with the ``rounds_left`` piece)."""
        # the five card pieces, out_of_play and (n - 1) known blocks; five per-player
        # pieces; stock, round_progress, phase and rules (and rounds_left)
        fixed = 5 * NUM_KINDS + 2 + NUM_DECISION_PHASES + RULES_VECTOR_SIZE
        n, rem = divmod(size - fixed, NUM_KINDS + 5)
        if rem > 1 or n < 2:
            raise ValueError(f"an observation of length {size} matches no player count (58·n + 294 or 295)")
        return n

    def decode(self, obs: np.ndarray, view: type[ObservationView] = ObservationView, **extra) -> ObservationView:
        """What the observation vector ``obs`` says (the inverse of :meth:`build`); ``view``
        and ``extra``: a subclass of :class:`ObservationView` to build, with its own fields."""
        rules = self.rules
        obs = self.checked(obs, f"the {rules.name!r} rules with {rules.num_players} players")
        K = NUM_KINDS
        counts = np.rint(obs[: self._cards_end]).astype(np.int64).reshape(-1, K)
        rows = {name: i for i, name in enumerate(("hand", "takeable", "top", "pending", "drawn"))}
        known_start = self.pieces["known"].start // K
        p = self.pieces

        def cards(row: int) -> tuple[int, ...]:
            return tuple(np.repeat(_KINDS, np.maximum(counts[row], 0)).tolist())

        def piece(name: str) -> np.ndarray:
            return obs[p[name].slice]

        drawn = cards(rows["drawn"])
        at, total = self._rounds_at, self._total_rounds
        phase = piece("phase")
        caller = piece("caller")
        return view(
            phase=int(np.argmax(phase)) if phase.max() > 0.5 else None,
            hand=cards(rows["hand"]),
            takeable=cards(rows["takeable"]),
            top=cards(rows["top"]),
            pending=cards(rows["pending"]),
            drawn=drawn[0] if drawn else None,
            known=((),) + tuple(cards(known_start + r - 1) for r in range(1, rules.num_players)),
            out_of_play=cards(p["out_of_play"].start // K),
            hand_sizes=tuple(int(round(x * rules.hand_size)) for x in piece("hand_sizes")),
            scores=tuple(int(round(x * rules.score_limit)) for x in piece("scores")),
            alive=tuple(bool(x > 0.5) for x in piece("alive")),
            turn_player=int(np.argmax(piece("turn_player"))),
            caller=int(np.argmax(caller)) if caller.max() > 0.5 else None,
            stock_size=int(round(float(piece("stock")[0]) * rules.deck_size)),
            round_turns=int(round(float(piece("round_progress")[0]) * rules.turn_limit)),
            rounds_left=None if at is None else int(round(float(obs[at]) * total)),
            **extra,
        )

    def view(self, s: State, seat: int, view: type[ObservationView] = ObservationView, **extra) -> ObservationView:
        """What the observation of ``seat`` in state ``s`` says, made from the state without
        building the vector (``decode(build(s, seat))`` up to the order of the cards)."""
        n = s.num_players
        phase = s.phase
        deciding = seat == s.current and phase < NUM_DECISION_PHASES
        order = self._orders[seat]
        hands, known, caller = s.hands, s.known, s.caller
        return view(
            phase=phase if deciding else None,
            hand=tuple(hands[seat]),
            takeable=tuple(s.takeable),
            top=tuple(s.top),
            pending=tuple(s.pending.cards) if s.pending is not None and phase in (DRAW, SLAM_PHASE) else (),
            drawn=s.drawn if phase == SLAM_PHASE and deciding else None,
            known=((),) + tuple(tuple(known[order[r]]) for r in range(1, n)),
            out_of_play=tuple(s.pile),
            hand_sizes=tuple(len(hands[q]) for q in order),
            scores=tuple(s.scores[q] for q in order),
            alive=tuple(s.alive[q] for q in order),
            turn_player=(s.turn_player - seat) % n,
            caller=(caller - seat) % n if caller is not None and phase == ASAF_PHASE else None,
            stock_size=len(s.stock),
            round_turns=s.round_turns,
            rounds_left=None if self._rounds_at is None else self._total_rounds - s.round_index,
            **extra,
        )

    def _scores_alive_values(self, scores: list[int], alive: list[bool]) -> list[list[float]]:
        """The scores and alive pieces as lists, for every seat."""
        inv_limit = self._inv_limit
        return [
            [scores[p] * inv_limit for p in order] + [1.0 if alive[p] else 0.0 for p in order] for order in self._orders
        ]


class StateLayout:
    """The full-information state vector for centralised critics (absolute seats):
    every hand (n·K), the stock (K), the top set (K), the pending set (K), the pile (K),
    then the observation scalars of seat 0 (hand sizes … rules, and ``rounds_left`` where
    the rules have it)."""

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
