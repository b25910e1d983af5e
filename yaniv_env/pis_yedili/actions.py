"""Pis Yedili action ids: the one place that says what every integer action means.

Id map (71 ids under every rule set; each id means the same move whatever the hand)::

    id         constant                 meaning                                         phases
    0          DRAW                     draw one card from the stock                    opening, play
    1          PASS                     end the turn without playing: after drawing at  play, ace
                                        least one card this turn, or declining the
                                        Ace's follow-up card
    2          DRAW_PENALTY             draw the cards owed to the sevens (3 per 7)     seven
    3 .. 54    PLAY_BASE + k            play card kind k (``cards``: suit*13 + rank).   opening, play,
                                        For a Jack this id names no suit: it is legal   seven, ace
                                        only for J♣ as the opening club
    55 .. 70   JACK_BASE + 4*j + s      play the Jack of suit j naming suit s           play, ace

Suits are ♠ ♥ ♦ ♣ = 0 1 2 3 (``cards.SUIT_SYMBOLS``), so e.g. ``"play J♠ naming ♣"`` is
``JACK_BASE + 0*4 + 3 = 58`` and ``"play 7♥"`` is ``PLAY_BASE + 19 = 22``.

:func:`encode`, :func:`decode` and :func:`name` work without rules; :class:`ActionTable`
(built per rule set by :func:`action_table`, cached) adds the precomputed tables that make
legal moves fast: ``playable[top * 4 + suit]`` is the 52-bit mask of card kinds that may
be played on ``top`` with ``suit`` in force, so a hand's plays are one ``&`` of bitmasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..core.cards import NUM_RANKS, NUM_SUITS, RANK, SUIT, SUIT_SYMBOLS, card_name
from ..core.ids import is_int
from .rules import DECK_SIZE, Rules

DRAW = 0
PASS = 1
DRAW_PENALTY = 2
PLAY_BASE = 3
JACK_BASE = PLAY_BASE + DECK_SIZE
NUM_ACTIONS = JACK_BASE + NUM_SUITS * NUM_SUITS

ACE, SEVEN, EIGHT, TEN, JACK = 0, 6, 7, 9, 10
"""Ranks of the special cards (rank 0 = Ace .. 12 = King)."""
CLUBS = 3

SPECIAL_NAMES = {DRAW: "draw", PASS: "pass", DRAW_PENALTY: "draw the sevens' penalty"}
_SPECIAL_KINDS = {DRAW: "draw", PASS: "pass", DRAW_PENALTY: "penalty"}

#: ``BIT[k] = 1 << k``: hands and tables are 52-bit masks of card kinds.
BIT: tuple[int, ...] = tuple(1 << k for k in range(DECK_SIZE))
JACKS_MASK = sum(BIT[s * NUM_RANKS + JACK] for s in range(NUM_SUITS))
SEVENS_MASK = sum(BIT[s * NUM_RANKS + SEVEN] for s in range(NUM_SUITS))
CLUBS_MASK = sum(BIT[CLUBS * NUM_RANKS + r] for r in range(NUM_RANKS))


@dataclass(frozen=True)
class Decoded:
    """What an action id means: ``kind`` is ``draw``, ``pass``, ``penalty`` or ``play``;
    for ``play``, ``card`` is the card kind and ``named`` the suit a Jack names (``None``
    for every other card, and for the opening J♣)."""

    kind: str
    card: int | None = None
    named: int | None = None


def _check_id(action) -> int:
    if not is_int(action):
        raise ValueError(f"an action is an int id, got {action!r}")
    action = int(action)
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is out of range 0..{NUM_ACTIONS - 1}")
    return action


def encode(card: int, named: int | None = None) -> int:
    """The id of playing card kind ``card``; a Jack played as a wild card also takes the
    ``named`` suit (0..3). ``encode(J♣)`` without ``named`` is the opening J♣."""
    if not is_int(card) or not 0 <= card < DECK_SIZE:
        raise ValueError(f"card kind {card!r} is not a card of the 52-card deck")
    card = int(card)
    if named is None:
        return PLAY_BASE + card
    if RANK[card] != JACK:
        raise ValueError(f"only a Jack names a suit, not {card_name(card)}")
    if isinstance(named, bool) or not isinstance(named, (int, np.integer)) or not 0 <= named < NUM_SUITS:
        raise ValueError(f"named suit {named!r} is not a suit 0..3 ({' '.join(SUIT_SYMBOLS)})")
    return JACK_BASE + SUIT[card] * NUM_SUITS + int(named)


def decode(action: int) -> Decoded:
    """What ``action`` means, whatever the hand."""
    action = _check_id(action)
    if action < PLAY_BASE:
        return Decoded(_SPECIAL_KINDS[action])
    if action < JACK_BASE:
        return Decoded("play", action - PLAY_BASE)
    j, s = divmod(action - JACK_BASE, NUM_SUITS)
    return Decoded("play", j * NUM_RANKS + JACK, s)


def name(action: int) -> str:
    """``"draw"``, ``"pass"``, ``"draw the sevens' penalty"``, ``"play 7♥"``, ``"play J♠ naming ♣"``."""
    d = decode(action)
    if d.kind != "play":
        return SPECIAL_NAMES[int(action)]
    if d.named is None:
        return f"play {card_name(d.card)}"
    return f"play {card_name(d.card)} naming {SUIT_SYMBOLS[d.named]}"


def names() -> list[str]:
    return [name(a) for a in range(NUM_ACTIONS)]


def card_of(action: int) -> int:
    """The card kind an action plays (-1 for draw, pass, penalty); no range check."""
    if action < PLAY_BASE:
        return -1
    if action < JACK_BASE:
        return action - PLAY_BASE
    return (action - JACK_BASE) // NUM_SUITS * NUM_RANKS + JACK


def mask_cards(mask: int) -> list[int]:
    """The card kinds of a 52-bit mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class ActionTable:
    """The actions of a rule set with the tables that make legal moves fast.

    Build it with :func:`action_table` (cached per rules).

    * ``playable[top * 4 + suit]``: mask of the kinds that may be played in a normal turn
      on card ``top`` with ``suit`` in force (the named suit on a Jack, else the top's
      suit): same rank or same suit, or any Jack; on a Jack, only non-Jacks of the suit.
    * ``jack_ids[j][suit]``: the ids of the Jack of suit ``j`` played with ``suit`` in
      force, one per suit it may name (all four, or the three others without
      ``jack_same_suit``).
    * ``SEVENS_MASK`` (answers to sevens) and ``CLUBS_MASK`` (opening cards).
    """

    num_actions = NUM_ACTIONS

    def __init__(self, rules: Rules):
        self.rules = rules
        self.playable: tuple[int, ...] = tuple(
            self._playable(top, suit) for top in range(DECK_SIZE) for suit in range(NUM_SUITS)
        )
        self.jack_ids: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(
                tuple(JACK_BASE + j * NUM_SUITS + s for s in range(NUM_SUITS) if rules.jack_same_suit or s != in_force)
                for in_force in range(NUM_SUITS)
            )
            for j in range(NUM_SUITS)
        )

    @staticmethod
    def _playable(top: int, suit: int) -> int:
        if RANK[top] == JACK:  # the named suit, and never a Jack on a Jack
            return sum(BIT[suit * NUM_RANKS + r] for r in range(NUM_RANKS) if r != JACK)
        mask = JACKS_MASK
        for k in range(DECK_SIZE):
            if RANK[k] == RANK[top] or SUIT[k] == suit:
                mask |= BIT[k]
        return mask

    def play_ids(self, mask: int, suit: int) -> list[int]:
        """Sorted ids playing the cards of ``mask`` (Jacks naming suits, with ``suit`` in force)."""
        out = []
        jacks = mask & JACKS_MASK
        mask ^= jacks
        while mask:
            low = mask & -mask
            out.append(PLAY_BASE - 1 + low.bit_length())
            mask ^= low
        if jacks:
            ids = self.jack_ids
            for j in range(NUM_SUITS):
                if jacks & BIT[j * NUM_RANKS + JACK]:
                    out.extend(ids[j][suit])
        return out

    @staticmethod
    def plain_ids(mask: int) -> list[int]:
        """Sorted plain play ids of the cards of ``mask`` (Jacks name nothing: the opening)."""
        return [PLAY_BASE + k for k in mask_cards(mask)]

    # The module functions, for symmetry with the Yaniv table.
    encode = staticmethod(encode)
    decode = staticmethod(decode)
    name = staticmethod(name)
    names = staticmethod(names)

    @staticmethod
    def check_id(action) -> int:
        return _check_id(action)


@lru_cache(maxsize=64)
def action_table(rules: Rules) -> ActionTable:
    """The (cached) :class:`ActionTable` of a rule set."""
    return ActionTable(rules)


__all__ = [
    "DRAW",
    "PASS",
    "DRAW_PENALTY",
    "PLAY_BASE",
    "JACK_BASE",
    "NUM_ACTIONS",
    "ActionTable",
    "Decoded",
    "action_table",
    "card_of",
    "decode",
    "encode",
    "name",
    "names",
]
