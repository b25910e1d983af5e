"""Card kinds shared by every game in the package (:mod:`yaniv_env.yaniv.cards` adds Yaniv's
card values; Pis Yedili uses the 52 natural kinds).

A card is identified by its *kind*, an int in ``0..52``::

    kind = suit * 13 + rank        rank 0 = Ace, 1 = 2, ..., 9 = 10, 10 = J, 11 = Q, 12 = K
    suit 0 = ♠, 1 = ♥, 2 = ♦, 3 = ♣
    kind 52 = joker

Two copies of a kind (two decks, or the two jokers of one deck) are the same card for
every rule, so hands and piles are lists of kinds and a deck is a multiset of kinds.
"""

from __future__ import annotations

from collections.abc import Iterable

NUM_SUITS = 4
NUM_RANKS = 13
#: The natural card kinds (``suit * 13 + rank``), 52; the joker kind follows them.
NUM_NATURAL = NUM_SUITS * NUM_RANKS
NUM_KINDS = NUM_NATURAL + 1  # 52 natural cards + the joker kind
JOKER = NUM_NATURAL

SUIT_SYMBOLS = ("♠", "♥", "♦", "♣")
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER_NAME = "🃏"

#: ``RANK[kind]`` and ``SUIT[kind]``; the joker has rank and suit -1.
RANK: tuple[int, ...] = tuple(k % NUM_RANKS for k in range(NUM_NATURAL)) + (-1,)
SUIT: tuple[int, ...] = tuple(k // NUM_RANKS for k in range(NUM_NATURAL)) + (-1,)


def card(rank: int, suit: int) -> int:
    """The kind of the natural card of ``rank`` (0 = Ace .. 12 = King) and ``suit``."""
    if not (0 <= rank < NUM_RANKS and 0 <= suit < NUM_SUITS):
        raise ValueError(f"no card with rank {rank} and suit {suit}")
    return suit * NUM_RANKS + rank


def card_name(kind: int) -> str:
    """``"7♥"``, ``"10♣"``, ``"🃏"``."""
    if kind == JOKER:
        return JOKER_NAME
    if not 0 <= kind < JOKER:
        raise ValueError(f"card kind {kind} is out of range 0..52")
    return RANK_NAMES[RANK[kind]] + SUIT_SYMBOLS[SUIT[kind]]


_SUIT_LETTERS = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}
_RANK_LETTERS = {name: i for i, name in enumerate(RANK_NAMES)} | {"T": 9, "1": 0}


def parse_card(text: str) -> int:
    """Parse ``"7H"``, ``"7♥"``, ``"10C"``, ``"TC"``, ``"AS"``, ``"JK"``/``"🃏"`` (joker)."""
    t = text.strip().upper()
    if t in ("JK", "JOKER", "*", JOKER_NAME):
        return JOKER
    if len(t) >= 2 and t[-1] in _SUIT_LETTERS and t[:-1] in _RANK_LETTERS:
        return card(_RANK_LETTERS[t[:-1]], _SUIT_LETTERS[t[-1]])
    raise ValueError(f"cannot read {text!r} as a card (examples: 7H, 7♥, 10C, TC, AS, JK)")


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse several cards: ``"7H 7S JK"`` or ``["7H", "7S"]``."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(p) for p in parts]


def cards_name(kinds: Iterable[int]) -> str:
    return " ".join(card_name(k) for k in kinds)


def standard_deck(jokers: int = 0, decks: int = 1) -> list[int]:
    """The kinds of ``decks`` 52-card packs with ``jokers`` jokers each, in a fixed order."""
    return [k for _ in range(decks) for k in list(range(52)) + [JOKER] * jokers]
