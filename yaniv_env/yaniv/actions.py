"""Action ids: the one place that says what every integer action means.

Id map (``N = DISCARD_BASE + len(table.discards)``, derived from the rules)::

    id                      meaning                                        phase
    0   DRAW_STOCK          draw the top card of the stock                draw
    1   CALL_YANIV          call Yaniv instead of discarding              discard
    2   SLAM                slam down the card just drawn                 slam
    3   ASAF                declare Asaf against the caller (001)         asaf
    4   BLAST               complete the discard into four of a kind      blast
    5   PASS                decline the pending optional decision         slam / asaf / blast
    6 .. 58   TAKE_BASE + k take card kind k (``cards``) from the
                            previous discard (58 = the joker)             draw
    59 .. N-1 DISCARD_BASE + i   lay down ``table.discards[i]``           discard

Ids 0..58 are the same under every rule set. The discard ids are generated from the rules
by :class:`ActionTable`: every single card, every same-rank set, every run with its
joker placement, and, where the next player may take only the ``top`` card or the
``ends`` of a set (000, 004), one id per choice of the order that decides it. Two
layouts that discard the same cards and leave the same cards to take are one move (a
run is a set of cards, not a direction), so each id is a distinct move.

``table.encode_discard(cards, takeable=None)``, ``encode_take(card)`` and
``table.decode(action)`` convert between ids and moves; ``table.name(action)`` gives
``"discard 7♥ 7♠"``, ``"take 5♣"``, ``"draw from stock"``, ``"call Yaniv"``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from ..core.ids import is_int
from .cards import JOKER, NUM_KINDS, NUM_NATURAL, NUM_RANKS, NUM_SUITS, RANK, SUIT, card_name, cards_name
from .rules import Rules

DRAW_STOCK = 0
CALL_YANIV = 1
SLAM = 2
ASAF = 3
BLAST = 4
PASS = 5
TAKE_BASE = 6
DISCARD_BASE = TAKE_BASE + NUM_KINDS

SPECIAL_NAMES = {
    DRAW_STOCK: "draw from stock",
    CALL_YANIV: "call Yaniv",
    SLAM: "slam down the drawn card",
    ASAF: "declare Asaf",
    BLAST: "Blast",
    PASS: "pass",
}

MeldType = Literal["single", "set", "run"]

#: Natural cards a set with jokers needs, by ``Rules.set_jokers``.
SET_JOKER_MIN_NATURAL = {"pair": 2, "any": 1}


@dataclass(frozen=True)
class Discard:
    """One discard move: the cards as laid and what the next player may take from them."""

    cards: tuple[int, ...]
    """Card kinds in the order laid (runs low to high)."""
    takeable: tuple[int, ...]
    """Distinct kinds the next player may take, sorted."""
    type: MeldType
    rank: int
    """The common rank of a single card or set (-1 for a run or a joker)."""


@dataclass(frozen=True)
class Decoded:
    """What an action id means: ``kind`` is ``draw``, ``call``, ``slam``, ``asaf``,
    ``blast``, ``pass``, ``take`` (``cards`` = the card) or ``discard``."""

    kind: str
    cards: tuple[int, ...] = ()
    takeable: tuple[int, ...] = ()
    meld: MeldType | None = None


_SPECIAL_KINDS = {DRAW_STOCK: "draw", CALL_YANIV: "call", SLAM: "slam", ASAF: "asaf", BLAST: "blast", PASS: "pass"}


def encode_take(card: int) -> int:
    """The id of taking card kind ``card`` from the previous discard."""
    if not 0 <= card < NUM_KINDS:
        raise ValueError(f"card kind {card} is out of range 0..{NUM_KINDS - 1}")
    return TAKE_BASE + card


class ActionTable:
    """Every action of a rule set, with the tables that make legal moves fast.

    Build it with :func:`action_table` (cached per rules). ``meld_counts[i]`` is the card
    count vector (53 kinds) of discard ``i``: a hand with count vector ``h`` may lay
    discard ``i`` iff ``(meld_counts[i] <= h).all()``, which a batched NumPy engine can
    evaluate for many hands at once.
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        entries = self._generate(rules)
        self.discards: tuple[Discard, ...] = tuple(entries)
        self.num_discards = len(entries)
        self.num_actions = DISCARD_BASE + self.num_discards
        self.meld_counts = np.zeros((self.num_discards, NUM_KINDS), dtype=np.int8)
        for i, d in enumerate(entries):
            for k in d.cards:
                self.meld_counts[i, k] += 1
        self._id_by_move = {(tuple(sorted(d.cards)), d.takeable): DISCARD_BASE + i for i, d in enumerate(entries)}
        self.take_ids = tuple(tuple(TAKE_BASE + k for k in d.takeable) for d in entries)
        self._single_id = {d.cards[0]: DISCARD_BASE + i for i, d in enumerate(entries) if d.type == "single"}
        self._max_run_jokers = rules.max_run_jokers
        self._set_ids = self._index_sets(entries, rules)
        self._joker_sets = rules.set_jokers != "none" and rules.num_jokers > 0
        self._runs_by_suit: list[list[tuple[int, int, int]]] = [[] for _ in range(NUM_SUITS)]
        for i, d in enumerate(entries):
            if d.type == "run":
                natural = [k for k in d.cards if k != JOKER]
                mask = 0
                for k in natural:
                    mask |= 1 << RANK[k]
                self._runs_by_suit[SUIT[natural[0]]].append((mask, len(d.cards) - len(natural), DISCARD_BASE + i))
        self._run_cache: dict[int, tuple[int, ...]] = {}

    # -- generation -------------------------------------------------------------------
    @staticmethod
    def _generate(rules: Rules) -> list[Discard]:
        entries: list[Discard] = []
        seen: set[tuple] = set()

        def add(cards: tuple[int, ...], takeable: set[int], meld: MeldType, rank: int) -> None:
            key = (tuple(sorted(cards)), tuple(sorted(takeable)))
            if key not in seen:
                seen.add(key)
                entries.append(Discard(cards, tuple(sorted(takeable)), meld, rank))

        natural = range(NUM_NATURAL)
        for k in natural:
            add((k,), {k}, "single", RANK[k])
        if rules.num_jokers:
            add((JOKER,), {JOKER}, "single", -1)

        def add_set(cards: list[int], rank: int) -> None:
            if rules.set_pickup == "any":
                add(tuple(cards), set(cards), "set", rank)
            elif rules.set_pickup == "top":
                for top in sorted(set(cards)):
                    rest = list(cards)
                    rest.remove(top)
                    add((*rest, top), {top}, "set", rank)
            else:  # ends: the discarder picks the two end cards
                for a, b in itertools.combinations(range(len(cards)), 2):
                    rest = [c for i, c in enumerate(cards) if i not in (a, b)]
                    add((cards[a], *rest, cards[b]), {cards[a], cards[b]}, "set", rank)

        for rank in range(NUM_RANKS):
            for size in range(2, rules.hand_size + 1):
                for group in ActionTable._rank_groups(rules, rank, size):
                    add_set(list(group), rank)
        # Sets with jokers (only when the option is on, so that the presets' ids stay).
        for rank in range(NUM_RANKS) if rules.set_jokers != "none" else ():
            for size in range(SET_JOKER_MIN_NATURAL[rules.set_jokers], rules.hand_size):
                for jokers in range(1, min(rules.num_jokers, rules.hand_size - size) + 1):
                    for group in ActionTable._rank_groups(rules, rank, size):
                        add_set([*group, *[JOKER] * jokers], rank)

        max_jokers = rules.max_run_jokers
        for suit in range(NUM_SUITS):
            for length in range(rules.run_min, rules.hand_size + 1):
                for low in range(NUM_RANKS - length + 1):
                    for joker_mask in range(1 << length):
                        jokers = bin(joker_mask).count("1")
                        if jokers > max_jokers or jokers == length:
                            continue
                        if not rules.run_jokers_at_ends and joker_mask & (1 | 1 << (length - 1)):
                            continue
                        cards = tuple(
                            JOKER if joker_mask >> i & 1 else suit * NUM_RANKS + low + i for i in range(length)
                        )
                        if rules.run_pickup == "top":  # laid either way: the last card laid is on top
                            add(cards, {cards[-1]}, "run", -1)
                            add(cards[::-1], {cards[0]}, "run", -1)
                        else:
                            takeable = set(cards) if rules.run_pickup == "any" else {cards[0], cards[-1]}
                            add(cards, takeable, "run", -1)
        return entries

    @staticmethod
    def _rank_groups(rules: Rules, rank: int, size: int):
        """Every multiset of ``size`` natural cards of ``rank`` the deck holds, sorted."""
        for suits in itertools.combinations_with_replacement(range(NUM_SUITS), size):
            if max(Counter(suits).values()) <= rules.num_decks:
                yield tuple(s * NUM_RANKS + rank for s in suits)

    @staticmethod
    def _index_sets(entries: list[Discard], rules: Rules) -> dict[tuple[int, ...], tuple[int, ...]]:
        """For every group of same-rank cards a hand can hold, the set ids it can lay; with
        jokers in sets, also for every (group, jokers held) pair, the ids of the sets with
        jokers it can lay."""
        by_cards: dict[tuple[int, ...], list[int]] = {}
        for i, d in enumerate(entries):
            if d.type == "set":
                by_cards.setdefault(tuple(sorted(d.cards)), []).append(DISCARD_BASE + i)
        index: dict = {}
        min_natural = SET_JOKER_MIN_NATURAL.get(rules.set_jokers)
        for rank in range(NUM_RANKS):
            for size in range(1, rules.hand_size + 1):
                for group in ActionTable._rank_groups(rules, rank, size):
                    subs = {sub for n in range(1, size + 1) for sub in itertools.combinations(group, n)}
                    if size > 1:
                        index[group] = tuple(sorted(i for sub in subs for i in by_cards.get(sub, ())))
                    if min_natural is None:
                        continue
                    for jokers in range(1, min(rules.num_jokers, rules.hand_size - size) + 1):
                        index[group, jokers] = tuple(
                            sorted(
                                i
                                for sub in subs
                                if len(sub) >= min_natural
                                for j in range(1, jokers + 1)
                                for i in by_cards.get((*sub, *[JOKER] * j), ())
                            )
                        )
        return index

    # -- legal moves ------------------------------------------------------------------
    def legal_discards(self, hand: list[int]) -> list[int]:
        """Sorted ids of every discard the hand (a list of card kinds) can lay."""
        single = self._single_id
        out = []
        jokers = 0
        suit_masks = [0, 0, 0, 0]
        by_rank: dict[int, list[int]] = {}
        for k in hand:
            if k == JOKER:
                jokers += 1
                continue
            suit_masks[SUIT[k]] |= 1 << RANK[k]
            group = by_rank.get(RANK[k])
            if group is None:
                by_rank[RANK[k]] = [k]
                out.append(single[k])
            else:
                if k not in group:  # two decks: a second copy is the same single
                    out.append(single[k])
                group.append(k)
        if jokers:
            out.append(single[JOKER])
        for group in by_rank.values():
            if len(group) > 1:
                group.sort()
                out.extend(self._set_ids[tuple(group)])
        if jokers and self._joker_sets:
            for group in by_rank.values():
                group.sort()
                out.extend(self._set_ids.get((tuple(group), min(jokers, self.rules.hand_size - len(group))), ()))
        if len(hand) >= self.rules.run_min:
            jokers = min(jokers, self._max_run_jokers)
            for suit in range(NUM_SUITS):
                mask = suit_masks[suit]
                if mask:
                    key = (mask << 3 | suit) << 4 | jokers
                    runs = self._run_cache.get(key)
                    if runs is None:
                        runs = self._run_cache[key] = tuple(
                            i for m, j, i in self._runs_by_suit[suit] if m & mask == m and j <= jokers
                        )
                    out.extend(runs)
        out.sort()
        return out

    # -- encode / decode --------------------------------------------------------------
    def discard(self, action: int) -> Discard:
        """The :class:`Discard` behind a discard id."""
        if not DISCARD_BASE <= action < self.num_actions:
            raise ValueError(f"action {action} is not a discard id ({DISCARD_BASE}..{self.num_actions - 1})")
        return self.discards[action - DISCARD_BASE]

    def encode_discard(self, cards, takeable=None) -> int:
        """The id of discarding ``cards`` (kinds, any order). Where the rules let the
        discarder choose what the next player may take (``top``/``ends`` sets), pass
        ``takeable``, the kinds left takeable; for runs and ``any`` sets it is implied."""
        key = tuple(sorted(int(c) for c in cards))
        if takeable is not None:
            found = self._id_by_move.get((key, tuple(sorted(set(int(c) for c in takeable)))))
            if found is None:
                raise ValueError(
                    f"no discard of {cards_name(key)} leaving {cards_name(sorted(set(takeable)))} to take "
                    f"under the {self.rules.name!r} rules"
                )
            return found
        matches = [i for (cards_key, _), i in self._id_by_move.items() if cards_key == key]
        if not matches:
            raise ValueError(f"{cards_name(key) or 'nothing'} is not a discard under the {self.rules.name!r} rules")
        if len(matches) > 1:
            options = "; ".join(self.name(i) for i in sorted(matches))
            raise ValueError(f"discarding {cards_name(key)} has several layouts, pass takeable= to choose: {options}")
        return matches[0]

    def decode(self, action: int) -> Decoded:
        """What ``action`` means, whatever the hand."""
        action = self.check_id(action)
        if action in _SPECIAL_KINDS:
            return Decoded(_SPECIAL_KINDS[action])
        if action < DISCARD_BASE:
            card = action - TAKE_BASE
            return Decoded("take", (card,), (card,))
        d = self.discards[action - DISCARD_BASE]
        return Decoded("discard", d.cards, d.takeable, d.type)

    def name(self, action: int) -> str:
        """A readable name: ``"discard 7♥ 7♠"``, ``"take 5♣"``, ``"call Yaniv"``."""
        action = self.check_id(action)
        if action in SPECIAL_NAMES:
            return SPECIAL_NAMES[action]
        if action < DISCARD_BASE:
            return f"take {card_name(action - TAKE_BASE)}"
        d = self.discards[action - DISCARD_BASE]
        text = f"discard {cards_name(d.cards)}"
        if (d.type == "set" and self.rules.set_pickup == "top") or (d.type == "run" and self.rules.run_pickup == "top"):
            text += f" ({card_name(d.cards[-1])} on top)"
        elif d.type == "set" and self.rules.set_pickup == "ends" and len(d.cards) > 2:
            text += f" (ends {card_name(d.cards[0])} {card_name(d.cards[-1])})"
        return text

    def names(self) -> list[str]:
        return [self.name(a) for a in range(self.num_actions)]

    def check_id(self, action) -> int:
        if not is_int(action):
            raise ValueError(f"an action is an int id, got {action!r}")
        action = int(action)
        if not 0 <= action < self.num_actions:
            raise ValueError(
                f"action {action} is out of range 0..{self.num_actions - 1} for the {self.rules.name!r} rules"
            )
        return action


@lru_cache(maxsize=64)
def action_table(rules: Rules) -> ActionTable:
    """The (cached) :class:`ActionTable` of a rule set."""
    return ActionTable(rules)
