"""Yaniv's cards: the card kinds of :mod:`yaniv_env.core.cards` (shared by every game of
the package) and the Yaniv value of each kind.

A card is identified by its *kind*, an int in ``0..52``::

    kind = suit * 13 + rank        rank 0 = Ace, 1 = 2, ..., 9 = 10, 10 = J, 11 = Q, 12 = K
    suit 0 = ♠, 1 = ♥, 2 = ♦, 3 = ♣
    kind 52 = joker
"""

from __future__ import annotations

from ..core.cards import (
    JOKER,
    JOKER_NAME,
    NUM_KINDS,
    NUM_NATURAL,
    NUM_RANKS,
    NUM_SUITS,
    RANK,
    RANK_NAMES,
    SUIT,
    SUIT_SYMBOLS,
    card,
    card_name,
    cards_name,
    parse_card,
    parse_cards,
    standard_deck,
)

#: Yaniv value of each kind: A = 1, 2-10 face value, J/Q/K = 10, joker = 0.
YANIV_VALUE: tuple[int, ...] = tuple(min(r + 1, 10) for r in RANK[:NUM_NATURAL]) + (0,)

__all__ = [
    "JOKER",
    "JOKER_NAME",
    "NUM_KINDS",
    "NUM_NATURAL",
    "NUM_RANKS",
    "NUM_SUITS",
    "RANK",
    "RANK_NAMES",
    "SUIT",
    "SUIT_SYMBOLS",
    "YANIV_VALUE",
    "card",
    "card_name",
    "cards_name",
    "parse_card",
    "parse_cards",
    "standard_deck",
]
