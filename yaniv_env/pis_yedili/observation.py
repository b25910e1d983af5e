"""The Pis Yedili observation vector, built from named pieces, from the observer's seat.

Seats in every per-player piece are relative and go clockwise: index 0 is the observer,
1 the seat to its left (``seat + 1``), and so on, whatever the direction of play (the
``direction`` piece says which neighbour plays next). Card pieces are 0/1 vectors over the
52 card kinds (``yaniv_env.core.cards``: ``kind = suit * 13 + rank``, rank 0 = Ace; no jokers).

Index table (``n`` players; ``PisObservationLayout(rules).table()`` prints the offsets):

==============  =====  ====================  ==========================================
piece           size   offset (n players)    meaning
==============  =====  ====================  ==========================================
hand            52     0                     the observer's cards
top             52     52                    one-hot: the top card of the discard pile
                                             (all zeros before the opening club)
discard         52     104                   every card in the discard pile, top
                                             included (public: all were played face up)
suit            4      156                   one-hot: the suit in force ♠ ♥ ♦ ♣ (the
                                             named suit on a Jack; zeros before opening)
pending_sevens  1      160                   sevens the player to act must answer / 4
direction       1      161                   1 clockwise (seat + 1 plays next), 0 the
                                             other way
hand_sizes      n      162                   cards in each hand / hand_size
scores          n      162 + n               each total / 100
to_act          n      162 + 2n              one-hot: whose decision it is (all zeros
                                             between deals and after the game)
stock           1      162 + 3n              cards in the stock / 52
drawn           1      163 + 3n              cards drawn this turn / hand_size
phase           4      164 + 3n              one-hot: opening, play, seven, ace
progress        2      168 + 3n              deal index / deals, turns in the deal /
                                             turn_limit
rules           25     170 + 3n              the rule values (:func:`rules_vector`), so
                                             one network can see the variant
==============  =====  ====================  ==========================================

Total ``195 + 3n`` (201 for two players). Nothing hidden from the observer enters its
observation: opponents' hands appear only by their sizes, the stock only by its size.

:meth:`PisObservationLayout.decode` reads a vector back (a :class:`PisObservationView`
of named fields: cards as kinds, scores in points, relative seats) and
:meth:`PisObservationLayout.players_from_size` gives the player count of a length.
:class:`PisStateLayout` is the full-information ``state()`` vector (absolute seats).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.cards import NUM_RANKS, NUM_SUITS, RANK
from ..core.layout import PieceLayout, one_hot_rows
from .engine import NUM_DECISION_PHASES, State
from .rules import DECK_SIZE, Rules

K = DECK_SIZE
SCORE_SCALE = 100.0
RULES_VECTOR_SIZE = 8 + NUM_RANKS + 4


def rules_vector(rules: Rules) -> np.ndarray:
    """The rule options, scaled to about [0, 1] (rank values / 25, Ace first)."""
    v = [
        rules.jack_same_suit,
        rules.seven_draw / 3,
        rules.penalty_ends_turn,
        rules.ace_follow == "must",
        rules.two_player_ten == "skip",
        rules.draw_when_playable,
        rules.stock_exhausted == "reshuffle",
        rules.end_when_stock_empty,
        *[value / 25 for value in rules.rank_values],
        rules.seven_multiplier / 3,
        rules.jack_multiplier / 2,
        rules.deals / 4,
        rules.hand_size / 7,
    ]
    return np.array(v, dtype=np.float32)


def card_values(rules: Rules) -> np.ndarray:
    """Points of each card kind of the ``hand`` piece (float64): the penalty points of its
    rank (``rules.rank_values``)."""
    return np.asarray([rules.rank_values[RANK[k]] for k in range(K)], dtype=np.float64)


def max_score(rules: Rules) -> int:
    """An upper bound of any total: every card of the deck in one hand at the largest
    multiplier, in every deal."""
    multiplier = max(1, rules.seven_multiplier, rules.jack_multiplier)
    return rules.deals * multiplier * NUM_SUITS * sum(rules.rank_values)


@dataclass(frozen=True)
class PisObservationView:
    """What one Pis Yedili observation says, from the observer's seat (relative seats,
    clockwise: 0 is the observer, 1 the seat to its left, ...)."""

    hand: tuple[int, ...]
    top: int | None
    """The top card of the discard pile (``None`` before the opening club)."""
    discard: tuple[int, ...]
    suit: int | None
    """The suit in force (``None`` before the opening club)."""
    pending_sevens: int
    clockwise: bool
    """Whether play goes to ``seat + 1``."""
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    """Totals in points."""
    to_act: int | None
    """Whose decision it is (``None`` between deals and after the game)."""
    stock_size: int
    drawn: int
    """Cards drawn this turn."""
    phase: int | None
    """0 opening, 1 play, 2 seven, 3 ace; ``None`` when nobody decides."""
    deal_index: int
    deal_turns: int
    """Turns in the deal (at most ``turn_limit``: the piece saturates there)."""


class PisObservationLayout(PieceLayout):
    """Offsets of the named pieces for one rule set (with its player count), and the builder."""

    def __init__(self, rules: Rules):
        self.rules = rules
        n = rules.num_players
        self.num_players = n
        big = DECK_SIZE / rules.hand_size
        rv = rules_vector(rules)
        sizes = [
            ("hand", K, 1.0),
            ("top", K, 1.0),
            ("discard", K, 1.0),
            ("suit", NUM_SUITS, 1.0),
            ("pending_sevens", 1, 1.0),
            ("direction", 1, 1.0),
            ("hand_sizes", n, big),
            ("scores", n, max(1.0, max_score(rules) / SCORE_SCALE)),
            ("to_act", n, 1.0),
            ("stock", 1, 1.0),
            ("drawn", 1, big),
            ("phase", NUM_DECISION_PHASES, 1.0),
            ("progress", 2, 1.0),
            ("rules", RULES_VECTOR_SIZE, max(1.0, float(rv.max()))),
        ]
        super().__init__(sizes)
        # hand, top, discard and suit are contiguous 0/1 pieces, then the scalars up to the rules.
        self._cards_end = self.pieces["suit"].start + NUM_SUITS
        self._scalars_end = self.pieces["rules"].start
        self._template = np.zeros(self.size, dtype=np.float32)
        self._template[self.pieces["rules"].slice] = rv
        self._orders = [[(seat + r) % n for r in range(n)] for seat in range(n)]
        # one-hot rows as lists; the last row is all zeros
        self._one_hot = one_hot_rows(n, n + 1)
        self._phase_hot = one_hot_rows(NUM_DECISION_PHASES, NUM_DECISION_PHASES + 2)
        self._inv_hand = 1.0 / rules.hand_size
        self._inv_score = 1.0 / SCORE_SCALE
        self._inv_deck = 1.0 / DECK_SIZE
        self._inv_deals = 1.0 / rules.deals
        self._inv_turns = 1.0 / rules.turn_limit

    def build(self, s: State, seat: int) -> np.ndarray:
        """The observation of ``seat`` in state ``s``."""
        n = s.num_players
        idx = list(s.hands[seat])
        if s.top >= 0:
            idx.append(K + s.top)
            idx += [2 * K + k for k in s.discard]
            idx.append(3 * K + s.suit)
        obs = self._template.copy()
        obs[idx] = 1.0  # one deck: every card piece is a set, so one fancy assignment fills them
        order = self._orders[seat]
        hands, scores = s.hands, s.scores
        phase = s.phase
        inv_hand = self._inv_hand
        values = [s.pending_sevens * 0.25, 1.0 if s.direction > 0 else 0.0]
        values += [len(hands[p]) * inv_hand for p in order]
        values += [scores[p] * self._inv_score for p in order]
        values += self._one_hot[(s.current - seat) % n if phase < NUM_DECISION_PHASES else n]
        values += [len(s.stock) * self._inv_deck, s.drawn * inv_hand]
        values += self._phase_hot[phase]
        values += [s.deal_index * self._inv_deals, min(1.0, s.deal_turns * self._inv_turns)]
        obs[self._cards_end : self._scalars_end] = values
        return obs

    @staticmethod
    def players_from_size(size: int) -> int:
        """The player count of an observation vector of length ``size`` (``195 + 3n``)."""
        # hand, top, discard, suit; pending_sevens, direction, stock, drawn, progress (2);
        # phase, rules; three per-player pieces
        n, rem = divmod(size - (3 * K + NUM_SUITS + 6 + NUM_DECISION_PHASES + RULES_VECTOR_SIZE), 3)
        if rem or n < 2:
            raise ValueError(f"a Pis Yedili observation of length {size} matches no player count (195 + 3n)")
        return n

    def decode(self, obs: np.ndarray) -> PisObservationView:
        """What the observation vector ``obs`` says (the inverse of :meth:`build`)."""
        rules = self.rules
        obs = self.checked(obs, f"the Pis Yedili {rules.name!r} rules with {self.num_players} players")

        def piece(name: str) -> np.ndarray:
            return obs[self.pieces[name].slice]

        def one_hot(name: str) -> int | None:
            v = piece(name)
            return int(np.argmax(v)) if v.max() > 0.5 else None

        def count(name: str, scale: float) -> int:
            return int(round(float(piece(name)[0]) * scale))

        progress = piece("progress")
        return PisObservationView(
            hand=tuple(np.flatnonzero(piece("hand")).tolist()),
            top=one_hot("top"),
            discard=tuple(np.flatnonzero(piece("discard")).tolist()),
            suit=one_hot("suit"),
            pending_sevens=count("pending_sevens", 4),
            clockwise=bool(piece("direction")[0] > 0.5),
            hand_sizes=tuple(int(round(x * rules.hand_size)) for x in piece("hand_sizes")),
            scores=tuple(int(round(x * SCORE_SCALE)) for x in piece("scores")),
            to_act=one_hot("to_act"),
            stock_size=count("stock", DECK_SIZE),
            drawn=count("drawn", rules.hand_size),
            phase=one_hot("phase"),
            deal_index=int(round(float(progress[0]) * rules.deals)),
            deal_turns=int(round(float(progress[1]) * rules.turn_limit)),
        )


#: The player count of an observation vector of length ``size`` (``195 + 3n``).
players_from_size = PisObservationLayout.players_from_size


class PisStateLayout:
    """The full-information state vector for centralised critics (absolute seats): every
    hand (``n·52``, seat 0 first), the stock (52), then seat 0's observation without its
    hand (top, discard, suit and the scalars: seat 0's relative seats are the absolute ones)."""

    def __init__(self, rules: Rules):
        self.obs_layout = PisObservationLayout(rules)
        n = rules.num_players
        self.cards = (n + 1) * K
        self.size = self.cards + self.obs_layout.size - K
        self.high = np.concatenate([np.ones(self.cards, dtype=np.float32), self.obs_layout.high[K:]])

    def build(self, s: State) -> np.ndarray:
        idx = [p * K + k for p, hand in enumerate(s.hands) for k in hand]
        base = s.num_players * K
        idx += [base + k for k in s.stock]
        out = np.empty(self.size, dtype=np.float32)
        out[: self.cards] = np.bincount(idx, minlength=self.cards)
        out[self.cards :] = self.obs_layout.build(s, 0)[K:]
        return out


__all__ = [
    "PisObservationLayout",
    "PisObservationView",
    "card_values",
    "PisStateLayout",
    "RULES_VECTOR_SIZE",
    "SCORE_SCALE",
    "max_score",
    "players_from_size",
    "rules_vector",
]
