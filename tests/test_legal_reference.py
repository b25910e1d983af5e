"""Legality against a deliberately simple reference.

The reference below reads the rule options directly and enumerates, by brute force over
every sub-multiset of a hand (and every order a set may be laid in), each legal discard
together with what the next player may take from it. It shares nothing with the
``ActionTable`` generator or its fast ``legal_discards``; both must give exactly the same
moves, on thousands of random hands for every preset and player count and on every
decision of random games (``engine.legal_actions``).
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from yaniv_env import PRESETS
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.actions import (
    ASAF,
    BLAST,
    CALL_YANIV,
    DISCARD_BASE,
    DRAW_STOCK,
    PASS,
    SLAM,
    TAKE_BASE,
    action_table,
    encode_take,
)
from yaniv_env.yaniv.cards import standard_deck

JK = 52  # the joker kind, written out: the reference uses no engine constant
CONFIGS = [(name, n) for name in PRESETS for n in (2, 3, 4, 5)]


def rules_for(name: str, n: int):
    return PRESETS[name].with_players(n)


# -- the reference ----------------------------------------------------------------------


def rank_of(k: int) -> int:
    return k % 13


def suit_of(k: int) -> int:
    return k // 13


def value_of(k: int) -> int:
    return 0 if k == JK else min(rank_of(k) + 1, 10)


def sub_multisets(hand):
    """Every non-empty sub-multiset of ``hand``, as a sorted tuple."""
    counts = Counter(hand)
    kinds = sorted(counts)
    for choice in itertools.product(*(range(counts[k] + 1) for k in kinds)):
        sub = tuple(k for k, m in zip(kinds, choice, strict=True) for _ in range(m))
        if sub:
            yield sub


def set_takeable(rules, laid) -> frozenset:
    """What the next player may take from a same-rank set laid in this order."""
    if rules.set_pickup == "any":
        return frozenset(laid)
    if rules.set_pickup == "top":
        return frozenset([laid[-1]])
    return frozenset([laid[0], laid[-1]])  # "ends"


def ref_take_options(rules, cards: tuple[int, ...]) -> set[frozenset]:
    """Every set of cards the next player may be left to take after discarding the
    multiset ``cards``; empty when ``cards`` is not a legal discard."""
    options: set[frozenset] = set()
    if len(cards) == 1:
        return {frozenset(cards)}
    jokers = cards.count(JK)
    natural = [k for k in cards if k != JK]
    # a same-rank set: two or more natural cards of one rank, laid in any order; with
    # jokers in sets, jokers beside a pair ("pair") or beside any natural card ("any")
    min_natural = {"none": len(cards) + 1, "pair": 2, "any": 1}[rules.set_jokers]
    if len({rank_of(k) for k in natural}) == 1 and (jokers == 0 or len(natural) >= min_natural):
        for laid in set(itertools.permutations(cards)):
            options.add(set_takeable(rules, laid))
    # a run: run_min or more consecutive ranks of one suit, Ace low, no wrap, jokers
    # standing in for missing ranks, at least one natural card
    max_jokers = len(cards) if rules.run_jokers_max is None else rules.run_jokers_max
    ranks = sorted(rank_of(k) for k in natural)
    if (
        len(cards) >= rules.run_min
        and natural
        and jokers <= max_jokers
        and len({suit_of(k) for k in natural}) == 1
        and len(set(ranks)) == len(ranks)
    ):
        suit = suit_of(natural[0])
        length = len(cards)
        for low in range(0, 13 - length + 1):
            high = low + length - 1
            if ranks[0] < low or ranks[-1] > high:
                continue
            laid = [suit * 13 + r if r in ranks else JK for r in range(low, high + 1)]
            assert laid.count(JK) == jokers
            if not rules.run_jokers_at_ends and JK in (laid[0], laid[-1]):
                continue
            if rules.run_pickup == "top":  # either direction: either end on top
                options.update((frozenset([laid[0]]), frozenset([laid[-1]])))
            else:
                options.add(frozenset(laid) if rules.run_pickup == "any" else frozenset([laid[0], laid[-1]]))
    return options


def ref_moves(rules, hand) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every legal discard of ``hand``: (sorted cards, sorted distinct takeable)."""
    return {(sub, tuple(sorted(take))) for sub in sub_multisets(hand) for take in ref_take_options(rules, sub)}


def ref_slam_window(rules, discarded) -> bool:
    """Whether the discard's kind lets a slam-down follow it: a single card, or a
    same-rank set under ``same_rank``."""
    if rules.slam == "none":
        return False
    is_set = JK not in discarded and len({rank_of(k) for k in discarded}) == 1
    return len(discarded) == 1 or (rules.slam == "same_rank" and is_set)


def ref_slam_allowed(rules, discarded, drawn: int, from_stock: bool) -> bool:
    if rules.slam == "none" or (rules.slam_from_stock_only and not from_stock):
        return False
    if drawn == JK or JK in discarded:  # 002 "the same kind", 000 "equal (same value)"
        return tuple(discarded) == (JK,) and drawn == JK and rules.slam_joker_on_joker
    if {rank_of(k) for k in discarded} != {rank_of(drawn)}:
        return False
    return len(discarded) == 1 or rules.slam == "same_rank"


def ref_blast_queue(rules, state, top, flashed) -> list[int]:
    """Who answers the Blast window on the previous discard ``top``, in order: with private
    windows every player in, from the turn player on, whose hand is large enough (none if
    a missing card is out of play); else the one seat that holds the missing cards."""
    if not rules.blast or flashed or JK in top or len({rank_of(k) for k in top}) != 1 or len(top) >= 4:
        return []
    rank = rank_of(top[0])
    missing = [s * 13 + rank for s in range(4) if s * 13 + rank not in top]
    n = rules.num_players
    if rules.private_windows:
        if set(missing) & set(state.pile):
            return []
        order = [(state.turn_player + i) % n for i in range(n)]
        return [p for p in order if state.alive[p] and len(state.hands[p]) >= len(missing)]
    holders = [p for p in range(n) if state.alive[p] and set(missing) <= set(state.hands[p])]
    assert len(holders) <= 1
    return holders


# -- hands ----------------------------------------------------------------------------


def random_hands(rules, rng: np.random.Generator, count: int):
    """Random hands of 0..hand_size cards drawn from the deck (two decks: duplicates
    possible), a third uniformly, the rest from small windows of ranks and suits plus
    jokers so that sets and runs with jokers are frequent."""
    deck = standard_deck(rules.jokers_per_deck, rules.num_decks)
    for i in range(count):
        size = int(rng.integers(0, rules.hand_size + 1))
        if i % 3 == 0:
            pool = deck
        elif i % 3 == 1:  # one or two suits, 3..6 consecutive ranks (ends of the rank range included)
            width = int(rng.integers(3, 7))
            low = int(rng.integers(-1, 13 - width + 2))
            window = {r for r in range(low, low + width) if 0 <= r < 13}
            suits = set(rng.choice(4, size=int(rng.integers(1, 3)), replace=False).tolist())
            pool = [k for k in deck if k == JK or (rank_of(k) in window and suit_of(k) in suits)]
        else:  # two ranks in every suit, plus jokers
            ranks = set(rng.choice(13, size=2, replace=False).tolist())
            pool = [k for k in deck if k == JK or rank_of(k) in ranks]
        size = min(size, len(pool))
        picks = rng.choice(len(pool), size=size, replace=False)
        yield [pool[j] for j in picks]


def table_moves(table, ids):
    return [
        (tuple(sorted(table.discards[i - DISCARD_BASE].cards)), table.discards[i - DISCARD_BASE].takeable) for i in ids
    ]


def check_hand(rules, table, hand):
    ids = table.legal_discards(list(hand))
    assert ids == sorted(ids)
    assert all(DISCARD_BASE <= i < table.num_actions for i in ids)
    moves = table_moves(table, ids)
    assert len(set(moves)) == len(moves), f"two legal ids are the same move for {hand}"
    expected = ref_moves(rules, hand)
    got = set(moves)
    assert got == expected, (
        f"{rules.name}/{rules.num_players}p hand {hand}: "
        f"extra {sorted(got - expected)}, missing {sorted(expected - got)}"
    )
    # the count-vector form of legality agrees
    counts = np.bincount(np.array(hand, dtype=np.int64), minlength=53) if hand else np.zeros(53, dtype=np.int64)
    by_counts = np.flatnonzero((table.meld_counts <= counts).all(axis=1)) + DISCARD_BASE
    assert by_counts.tolist() == ids


# -- tests ----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "n"), CONFIGS)
def test_legal_discards_match_reference_on_random_hands(name, n):
    rules = rules_for(name, n)
    table = action_table(rules)
    rng = np.random.default_rng(1000 + 10 * list(PRESETS).index(name) + n)
    checked = 0
    for hand in random_hands(rules, rng, 1500):
        check_hand(rules, table, hand)
        checked += 1
    assert checked == 1500


OPTION_VARIANTS = [
    ("standard", 2, {"set_jokers": "pair"}),
    ("standard", 3, {"set_jokers": "any"}),
    ("seven", 2, {"set_jokers": "any"}),  # top-card pick-up
    ("two_deck", 4, {"set_jokers": "pair"}),  # ends pick-up, two decks
    ("two_deck", 2, {"set_jokers": "any", "run_pickup": "top"}),
    ("standard", 2, {"run_pickup": "top"}),
    ("seven", 2, {"run_pickup": "top"}),
]


@pytest.mark.parametrize(("name", "n", "changes"), OPTION_VARIANTS)
def test_legal_discards_match_reference_with_joker_sets_and_top_run_pickup(name, n, changes):
    """The options that add discard ids: random hands, and every same-rank hand with
    jokers beside it."""
    rules = rules_for(name, n).replace(**changes)
    table = action_table(rules)
    rng = np.random.default_rng(77 + n)
    for hand in random_hands(rules, rng, 800):
        check_hand(rules, table, hand)
    sevens = [s * 13 + 6 for s in range(4)] * rules.num_decks
    for size in range(1, rules.hand_size):
        for combo in set(itertools.combinations(sorted(sevens), size)):
            for jokers in range(1, min(rules.num_jokers, rules.hand_size - size) + 1):
                check_hand(rules, table, list(combo) + [JK] * jokers)
    for k in range(DISCARD_BASE, table.num_actions, 7):  # the engine's pick-up of a laid set agrees
        d = table.discards[k - DISCARD_BASE]
        if d.type == "run" and len({rank_of(c) for c in d.cards if c != JK}) == 1:
            continue  # 🃏 7♠ 🃏: a run or a set; from_position reads it as the set
        assert engine._takeable_of(rules, list(d.cards)) == d.takeable, table.name(k)


def test_option_ids_only_when_the_option_is_on():
    """Jokers in sets and top-of-run pick-up add ids only when on; the presets' tables are
    unchanged (a digest of every discard of every preset and deck count)."""
    import hashlib

    digests = {}
    for name, rules in PRESETS.items():
        for n in (2, 4):
            table = action_table(rules.with_players(n))
            text = "\n".join(repr((d.cards, d.takeable, d.type, d.rank)) for d in table.discards)
            digests[name, n] = (table.num_actions, hashlib.sha256(text.encode()).hexdigest()[:16])
    assert digests == {
        ("standard", 2): (1543, "959d5d629703b246"),
        ("standard", 4): (1543, "959d5d629703b246"),
        ("seven", 2): (828, "a5be4b21ae7f12a1"),
        ("seven", 4): (828, "a5be4b21ae7f12a1"),
        ("french", 2): (374, "b94991bb5c1cc8b5"),
        ("french", 4): (374, "b94991bb5c1cc8b5"),
        ("two_deck", 2): (1016, "218b198e9df96b75"),
        ("two_deck", 4): (3382, "f37567e564c06e31"),
    }
    base = action_table(PRESETS["standard"])
    for changes in ({"set_jokers": "pair"}, {"set_jokers": "any"}, {"run_pickup": "top"}):
        table = action_table(PRESETS["standard"].replace(**changes))
        assert table.num_actions > base.num_actions
        assert table.names()[: base.num_actions - 0][: DISCARD_BASE + 53] == base.names()[: DISCARD_BASE + 53]
    assert action_table(PRESETS["french"].replace(set_jokers="any")).num_actions == 374  # no jokers, no new ids


@pytest.mark.parametrize(
    ("name", "n"), [("standard", 2), ("seven", 2), ("french", 2), ("two_deck", 2), ("two_deck", 4)]
)
def test_legal_discards_match_reference_on_every_one_suit_hand(name, n):
    """Every hand of hearts (any ranks) plus up to all the jokers of the deck, sizes 3..5:
    all run and joker placements, Ace low, no wrap."""
    rules = rules_for(name, n)
    table = action_table(rules)
    hearts = list(range(13, 26))
    count = 0
    for jokers in range(0, rules.num_jokers + 1):
        for size in range(max(3 - jokers, 0), rules.hand_size - jokers + 1):
            for naturals in itertools.combinations(hearts, size):
                hand = list(naturals) + [JK] * jokers
                if 3 <= len(hand) <= rules.hand_size:
                    check_hand(rules, table, hand)
                    count += 1
    assert count > 1000


@pytest.mark.parametrize(
    ("name", "n"), [("standard", 2), ("seven", 2), ("french", 2), ("two_deck", 2), ("two_deck", 4)]
)
def test_legal_discards_match_reference_on_every_same_rank_hand(name, n):
    """Every multiset of sevens the deck holds (two decks: equal cards), with and without
    a joker and another card: all set sizes and orders."""
    rules = rules_for(name, n)
    table = action_table(rules)
    sevens = [s * 13 + 6 for s in range(4)] * rules.num_decks
    extras = [[], [parse_kind(8, 0)]] + ([[JK]] if rules.num_jokers else [])
    count = 0
    for size in range(1, rules.hand_size + 1):
        for combo in set(itertools.combinations(sorted(sevens), size)):
            for extra in extras:
                hand = list(combo) + extra
                if len(hand) <= rules.hand_size:
                    check_hand(rules, table, hand)
                    count += 1
    assert count > 20


def parse_kind(rank: int, suit: int) -> int:
    return suit * 13 + rank


@pytest.mark.parametrize(("name", "n"), CONFIGS)
def test_table_entries_are_legal_distinct_and_counted(name, n):
    rules = rules_for(name, n)
    table = action_table(rules)
    assert table.num_actions == DISCARD_BASE + len(table.discards)
    keys = set()
    for i, d in enumerate(table.discards):
        key = (tuple(sorted(d.cards)), d.takeable)
        assert key not in keys, f"duplicate move {d}"
        keys.add(key)
        # the move is legal for a hand holding exactly its cards
        assert frozenset(d.takeable) in ref_take_options(rules, tuple(sorted(d.cards)))
        assert d.takeable == tuple(sorted(set(d.takeable)))
        # the cards as laid say what may be taken
        if d.type == "run":
            assert d.takeable == tuple(sorted(set(d.cards) if rules.run_pickup == "any" else {d.cards[0], d.cards[-1]}))
            natural = [k for k in d.cards if k != JK]
            low = rank_of(natural[0]) - d.cards.index(natural[0])
            assert all(k == JK or rank_of(k) == low + j for j, k in enumerate(d.cards)), "runs are laid low to high"
        elif d.type == "set":
            assert d.takeable == tuple(sorted(set_takeable(rules, d.cards)))
        else:
            assert d.takeable == d.cards and len(d.cards) == 1
        # meld_counts row = the count vector of the discard's cards
        row = np.bincount(np.array(d.cards), minlength=53)
        assert (table.meld_counts[i] == row).all()
        # encode / decode round trip
        action = DISCARD_BASE + i
        assert table.encode_discard(d.cards, d.takeable) == action
        decoded = table.decode(action)
        assert (decoded.kind, decoded.cards, decoded.takeable, decoded.meld) == ("discard", d.cards, d.takeable, d.type)
    assert table.meld_counts.shape == (len(table.discards), 53)


@pytest.mark.parametrize(("name", "n"), CONFIGS)
def test_every_reference_move_of_a_full_deck_window_has_an_id(name, n):
    """Completeness the other way: every move the reference finds in a few fixed hands
    is an id of the table, reachable through ``encode_discard``."""
    rules = rules_for(name, n)
    table = action_table(rules)
    hands = [
        [13, 14, 15, 16, 17],
        [0, 1, 2, JK, JK],
        [10, 11, 12, JK, 9],
        [6, 19, 32, 45, 6 if rules.num_decks > 1 else JK],
    ]
    for hand in hands:
        hand = [k for k in hand if k != JK or rules.num_jokers][: rules.hand_size]
        if Counter(hand)[JK] > rules.num_jokers:
            continue
        for cards, take in ref_moves(rules, hand):
            action = table.encode_discard(cards, take)
            assert table_moves(table, [action]) == [(cards, take)]


def test_fixed_ids():
    assert (DRAW_STOCK, CALL_YANIV, SLAM, ASAF, BLAST, PASS) == (0, 1, 2, 3, 4, 5)
    assert TAKE_BASE == 6 and DISCARD_BASE == 59
    assert [encode_take(k) for k in (0, 52)] == [6, 58]
    table = action_table(PRESETS["standard"])
    assert table.decode(encode_take(19)).kind == "take"
    assert table.name(encode_take(52)) == "take 🃏"
    with pytest.raises(ValueError):
        encode_take(53)


# -- legal actions along random games ---------------------------------------------------


class ReferenceModel:
    """The previous discard and the Blast queue of a game as the reference rules follow them,
    kept beside the engine's state ``s`` to check its legal actions at every decision."""

    def __init__(self, rules, s):
        self.rules, self.s, self.table = rules, s, s.table
        self.from_stock = False  # whether the last draw was from the stock
        self.new_round()

    def new_round(self) -> None:
        s = self.s
        self.top, self.take, self.flashed = list(s.top), set(s.top), False  # the previous discard
        self.pending, self.drawn, self.queue = None, None, []  # the discard laid, the card drawn, Blast's seats
        assert len(s.top) == 1
        self.check_blast_offer()

    def check_blast_offer(self) -> None:
        s = self.s
        self.queue = ref_blast_queue(self.rules, s, self.top, self.flashed)
        if not self.queue:
            assert s.phase != engine.BLAST_PHASE
        else:
            assert s.phase == engine.BLAST_PHASE and s.current == self.queue[0]
            assert sorted(s.blast_cards) == sorted(set(range(rank_of(self.top[0]), 52, 13)) - set(self.top))

    def check_legal(self, acts: list[int], hand: list[int], seen: Counter) -> None:
        """The engine's legal actions ``acts`` in the decision in front of it, against the
        reference; ``seen`` counts the windows where only a pass was legal."""
        s, rules, phase = self.s, self.rules, self.s.phase
        if phase == engine.DISCARD:
            assert s.current == s.turn_player
            discards = [a for a in acts if a >= DISCARD_BASE]
            specials = [a for a in acts if a < DISCARD_BASE]
            callable_ = sum(value_of(k) for k in hand) <= rules.call_max
            assert specials == ([CALL_YANIV] if callable_ else [])
            moves = table_moves(self.table, discards)
            assert len(set(moves)) == len(moves)
            assert set(moves) == ref_moves(rules, hand)
        elif phase == engine.DRAW:
            expected = {TAKE_BASE + k for k in self.take} | ({DRAW_STOCK} if s.stock else set())
            assert set(acts) == expected
            assert sorted(s.takeable) == sorted(self.take)
        elif phase == engine.SLAM_PHASE:
            slam = ref_slam_allowed(rules, self.pending.cards, self.drawn, self.from_stock)
            assert acts == ([SLAM, PASS] if slam else [PASS])
            seen["slam_pass_only"] += not slam
        elif phase == engine.ASAF_PHASE:
            assert acts == [ASAF, PASS]
            assert s.current != s.caller
        elif phase == engine.BLAST_PHASE:
            assert s.current == self.queue[0]
            holds = set(s.blast_cards) <= set(hand)
            assert acts == ([BLAST, PASS] if holds else [PASS])
            seen["blast_pass_only"] += not holds

    def follow(self, phase: int, action: int, p: int, hand: list[int]) -> None:
        """The model after seat ``p`` (holding ``hand`` before) played ``action`` in
        ``phase``, and the window the engine opened checked against it."""
        s, rules = self.s, self.rules
        ended = s.phase in (engine.ROUND_OVER, engine.GAME_OVER)
        if phase == engine.DISCARD and action >= DISCARD_BASE:
            self.pending = self.table.discards[action - DISCARD_BASE]
        elif phase == engine.DRAW:
            d = self.pending
            if action == DRAW_STOCK:
                (drawn,) = list((Counter(s.hands[p]) - Counter(hand)).elements())
            else:
                drawn = action - TAKE_BASE
            self.top, self.take, self.flashed, self.drawn = list(d.cards), set(d.takeable), False, drawn
            self.from_stock = action == DRAW_STOCK
            if not ended:
                slam = ref_slam_allowed(rules, d.cards, drawn, action == DRAW_STOCK)
                hidden = rules.private_windows and action == DRAW_STOCK and ref_slam_window(rules, d.cards)
                assert (s.phase == engine.SLAM_PHASE) == (slam or hidden), (d, drawn, action)
                if s.phase != engine.SLAM_PHASE:
                    self.check_blast_offer()
        elif phase == engine.SLAM_PHASE:
            if action == SLAM:
                self.top.append(self.drawn)
                self.take = set(set_takeable(rules, self.top))
                self.flashed = True
            if not ended:
                self.check_blast_offer()
        elif phase == engine.BLAST_PHASE and action == BLAST:
            self.top = self.top + sorted(set(range(rank_of(self.top[0]), 52, 13)) - set(self.top))
            self.take = set(set_takeable(rules, self.top))
            if not ended:
                assert s.phase == engine.DISCARD and s.current == s.turn_player
        elif phase == engine.BLAST_PHASE:
            self.queue.pop(0)
            if self.queue:
                assert s.phase == engine.BLAST_PHASE and s.current == self.queue[0]
            else:
                assert s.phase == engine.DISCARD and s.current == s.turn_player


def run_random_game(rules, seed: int, max_steps: int) -> Counter:
    """Random play, checking every decision's legal actions against the reference and the
    model of the previous discard kept beside the game (:class:`ReferenceModel`). Returns how
    often each phase was seen."""
    s = engine.new_game(rules, seed=seed)
    g = np.random.default_rng(seed + 7919)
    seen: Counter = Counter()
    model = ReferenceModel(rules, s)
    for _ in range(max_steps):
        if s.phase == engine.GAME_OVER:
            break
        if s.phase == engine.ROUND_OVER:
            engine.start_next_round(s)
            model.new_round()
            continue
        phase = s.phase
        seen[engine.PHASE_NAMES[phase]] += 1
        acts = engine.legal_actions(s)
        assert acts == sorted(set(acts))
        assert np.flatnonzero(engine.legal_mask(s)).tolist() == acts
        p = s.current
        hand = list(s.hands[p])
        model.check_legal(acts, hand, seen)
        action = int(acts[int(g.integers(len(acts)))])
        engine.apply(s, action)
        model.follow(phase, action, p, hand)
    return seen


@pytest.mark.parametrize("private", [True, False])
@pytest.mark.parametrize(("name", "n"), CONFIGS)
def test_legal_actions_match_reference_in_random_games(name, n, private):
    rules = rules_for(name, n).replace(private_windows=private)
    seen: Counter = Counter()
    for seed in range(12):
        seen += run_random_game(rules, seed, max_steps=700)
    assert seen["discard"] > 1000 and seen["draw"] > 1000
    if rules.slam != "none":
        assert seen["slam"] > 0
        assert (seen["slam_pass_only"] > 0) == private
    if rules.blast:
        assert (seen["blast_pass_only"] > 0) == private
    if rules.challenge == "asaf":
        assert seen["asaf"] > 0
    if rules.blast:
        assert seen["blast"] > 0
