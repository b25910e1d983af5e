"""Scripted positions, one table row per rule of the variant table in the rules document
(``yaniv_env/yaniv/RULES.md``) and per preset where the rule applies.

Positions are built with ``engine.from_position``; the stock is laid out so that the
cards named in ``draws`` come first. Actions come from ``table.encode_discard``,
``encode_take`` and the special ids.
"""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest

from yaniv_env import PRESETS
from yaniv_env.core.seeding import LOTS, lot, stream_key
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
    encode_take,
)
from yaniv_env.yaniv.cards import JOKER, parse_card, parse_cards, standard_deck
from yaniv_env.yaniv.engine import IllegalActionError, State

# -- helpers ---------------------------------------------------------------------------


def C(text: str) -> list[int]:
    return parse_cards(text) if text else []


def make(
    preset: str,
    hands: list[str],
    top: str,
    *,
    draws: str = "",
    stock: str | None = None,
    pile: str = "",
    current: int = 0,
    scores=None,
    alive=None,
    round_index: int = 0,
    seed: int = 0,
    **changes,
) -> State:
    """A position at the start of ``current``'s turn. ``draws``: the first stock cards, in
    draw order (the rest of the deck follows). ``stock``: the whole stock in draw order,
    every card not placed elsewhere going to the pile below the top set. ``changes``: rule
    options; windows are offered only to who can use them (``private_windows=False``)
    unless a test asks for private windows."""
    rules = PRESETS[preset].with_players(len(hands)).replace(**{"private_windows": False} | changes)
    hands_k = [C(h) for h in hands]
    top_k, pile_k = C(top), C(pile)
    deck = Counter(standard_deck(rules.jokers_per_deck, rules.num_decks))
    placed = Counter(top_k) + Counter(pile_k)
    for h in hands_k:
        placed += Counter(h)
    if stock is None:
        first = C(draws)
        stock_k = sorted((deck - placed - Counter(first)).elements()) + first[::-1]
    else:
        stock_k = C(stock)[::-1]
        pile_k = pile_k + sorted((deck - placed - Counter(stock_k)).elements())
    s = engine.from_position(
        rules,
        hands_k,
        top_k,
        stock=stock_k,
        pile=pile_k,
        current=current,
        scores=scores,
        alive=alive,
        round_index=round_index,
        rng=np.random.default_rng(seed),
    )
    assert engine.all_cards(s) == deck
    return s


def disc(s: State, text: str, take: str | None = None) -> int:
    return s.table.encode_discard(C(text), None if take is None else C(take))


def tk(text: str) -> int:
    return encode_take(parse_card(text))


def play(s: State, *actions: int) -> State:
    for a in actions:
        engine.apply(s, a)
    return s


def pass_blast_windows(s: State) -> State:
    """Answer the Blast windows in which the player to act can only pass (private windows)."""
    while s.phase == engine.BLAST_PHASE and engine.legal_actions(s) == [PASS]:
        engine.apply(s, PASS)
    return s


def takes(s: State) -> set[int]:
    """Cards the player to act may take from the previous discard (draw phase)."""
    assert s.phase == engine.DRAW
    return {a - TAKE_BASE for a in engine.legal_actions(s) if TAKE_BASE <= a < DISCARD_BASE}


def deck_of(s: State) -> Counter:
    return Counter(standard_deck(s.rules.jokers_per_deck, s.rules.num_decks))


def snapshot(s: State) -> dict:
    snap = {}
    for name in State.__slots__:
        value = getattr(s, name)
        if name == "table":
            value = value.rules
        snap[name] = copy.deepcopy(value)
    snap["repr"] = repr(s)
    snap["legal"] = engine.legal_actions(s)
    return snap


def call_and_respond(s: State, responses=()) -> engine.RoundResult:
    play(s, CALL_YANIV, *responses)
    assert s.phase in (engine.ROUND_OVER, engine.GAME_OVER)
    return s.round_result


# -- joker placement in runs -----------------------------------------------------------

RUN_ROWS = [
    # 000: at most one joker, never first or last
    ("seven", "5H JK 7H", [{"5H", "7H"}]),
    ("seven", "4H 5H JK 7H", [{"4H", "7H"}]),
    ("seven", "AH JK 3H", [{"AH", "3H"}]),
    ("seven", "JK 5H 6H", []),  # 4-5-6 or 5-6-7: the joker is at an end either way
    ("seven", "5H JK JK 8H", []),  # two jokers
    ("seven", "5H 6H 7H", [{"5H", "7H"}]),
    # 002: any number of jokers, at least one natural card, ends takeable
    ("standard", "JK 5H 6H", [{"JK", "6H"}, {"5H", "JK"}]),
    ("standard", "5H JK 7H", [{"5H", "7H"}]),
    ("standard", "JK JK 5H", [{"JK", "5H"}, {"JK"}]),  # 3-4-5, 5-6-7 | 4-5-6
    ("standard", "5H JK JK 8H", [{"5H", "8H"}]),
    ("standard", "AH 2H JK", [{"AH", "JK"}]),  # Ace low: only A-2-3
    ("standard", "QH KH JK", [{"JK", "KH"}]),  # no wrap: only J-Q-K
    ("standard", "KH AH 2H", []),
    ("standard", "QH KH AH", []),
    ("standard", "5H 6H 8H", []),
    ("standard", "5H 6H 7S", []),
    ("standard", "JK JK", []),  # a pair of jokers is not a set
    # 004: one joker, anywhere
    ("two_deck", "JK 5H 6H", [{"JK", "6H"}, {"5H", "JK"}]),
    ("two_deck", "5H JK 7H", [{"5H", "7H"}]),
    ("two_deck", "JK JK 5H", []),
    ("two_deck", "5H JK JK 8H", []),
    ("two_deck", "JK JK", []),
    # 001: no jokers; any card of a run may be taken
    ("french", "5H 6H 7H", [{"5H", "6H", "7H"}]),
    ("french", "5H 6H 7H 8H 9H", [{"5H", "6H", "7H", "8H", "9H"}]),
]


@pytest.mark.parametrize(("preset", "cards", "expected"), RUN_ROWS)
def test_run_joker_placement_and_takeable(preset, cards, expected):
    hand = C(cards)
    s = make(preset, [cards, "KC"], "QC")
    found = []
    for a in engine.legal_actions(s):
        if a >= DISCARD_BASE:
            d = s.table.discards[a - DISCARD_BASE]
            if sorted(d.cards) == sorted(hand):
                found.append(set(d.takeable))
    assert sorted(map(sorted, found)) == sorted(sorted(C(" ".join(e))) for e in expected)
    if not expected:
        with pytest.raises(ValueError):
            s.table.encode_discard(hand)


def test_french_deck_and_table_have_no_joker():
    rules = PRESETS["french"]
    assert JOKER not in standard_deck(rules.jokers_per_deck, rules.num_decks)
    s = make("french", ["5H 6H", "KC"], "QC")
    assert all(JOKER not in d.cards for d in s.table.discards)
    with pytest.raises(ValueError):
        s.table.encode_discard([JOKER])


# -- what the next player may pick up ----------------------------------------------------

PICKUP_ROWS = [
    # 000: the top card of a set, chosen by the discarder; first or last card of a run
    ("seven", "7H 7S 7D KC", "7H 7S 7D", "7S", "7S"),
    ("seven", "7H 7S 7D KC", "7H 7S 7D", "7D", "7D"),
    ("seven", "7H 7S KC", "7H 7S", "7H", "7H"),
    ("seven", "4C 5C 6C KC", "4C 5C 6C", None, "4C 6C"),
    ("seven", "4C JK 6C KC", "4C JK 6C", None, "4C 6C"),
    ("seven", "9D KC", "9D", None, "9D"),
    # 001: any card of any discard
    ("french", "7H 7S 7D KC", "7H 7S 7D", None, "7H 7S 7D"),
    ("french", "4C 5C 6C 7C KC", "4C 5C 6C 7C", None, "4C 5C 6C 7C"),
    # 002: any card of a set; first or last card of a run
    ("standard", "7H 7S 7D KC", "7H 7S 7D", None, "7H 7S 7D"),
    ("standard", "4C 5C 6C 7C", "4C 5C 6C 7C", None, "4C 7C"),
    ("standard", "4C 5C JK KC", "4C 5C JK", "4C JK", "4C JK"),  # laid 4-5-6
    ("standard", "4C 5C JK KC", "4C 5C JK", "JK 5C", "5C JK"),  # laid 3-4-5
    # 004: an end card of the set as laid (the discarder orders it); run ends
    ("two_deck", "7H 7S 7D KC", "7H 7S 7D", "7H 7D", "7H 7D"),
    ("two_deck", "7H 7S 7D KC", "7H 7S 7D", "7S 7D", "7S 7D"),
    ("two_deck", "7H 7S 7D 7C", "7H 7S 7D 7C", "7S 7C", "7S 7C"),
    ("two_deck", "7H 7S KC", "7H 7S", None, "7H 7S"),
    ("two_deck", "4C 5C 6C KC", "4C 5C 6C", None, "4C 6C"),
]


def _check_pickup(s, discard, take, expected):
    action = disc(s, discard, take)
    assert action in engine.legal_actions(s)
    play(s, action, DRAW_STOCK)
    assert s.phase == engine.DISCARD and s.current == 1
    assert sorted(s.top) == sorted(C(discard))
    assert sorted(s.takeable) == sorted(set(C(expected)))
    # the next player discards and may take exactly those cards, or draw from the stock
    play(s, disc(s, "KD"))
    assert takes(s) == set(C(expected))
    assert DRAW_STOCK in engine.legal_actions(s)
    card = C(expected)[0]
    play(s, encode_take(card))
    assert card in s.hands[1] and card in s.known[1]
    assert s.top == [parse_card("KD")]


@pytest.mark.parametrize(("preset", "hand", "discard", "take", "expected"), PICKUP_ROWS)
def test_pickup_choices(preset, hand, discard, take, expected):
    s = make(preset, [hand, "KD 2S"], "QH", draws="3D 4D")
    _check_pickup(s, discard, take, expected)


@pytest.mark.parametrize(("take", "expected"), [("7H", "7H"), ("7H 7S", "7H 7S")])
def test_two_deck_sets_with_equal_cards(take, expected):
    """004 with 4 players uses two decks: 7♥ 7♥ 7♠ may be laid with a 7♥ at both ends."""
    s = make("two_deck", ["7H 7H 7S KC", "KD 2S", "3C", "4C"], "QH", draws="3D 4D")
    assert s.rules.num_decks == 2
    _check_pickup(s, "7H 7H 7S", take, expected)


@pytest.mark.parametrize("preset", ["seven", "two_deck"])
def test_set_order_choice_must_be_given(preset):
    s = make(preset, ["7H 7S 7D", "KD"], "QH")
    with pytest.raises(ValueError, match="several layouts"):
        s.table.encode_discard(C("7H 7S 7D"))
    with pytest.raises(ValueError, match="no discard"):
        s.table.encode_discard(C("7H 7S 7D"), C("7C"))


def test_start_of_round_face_up_card_is_takeable():
    s = engine.new_game(PRESETS["standard"], seed=3)
    (face_up,) = s.top
    hand = s.hands[s.current]
    play(s, s.table.encode_discard([hand[0]]))
    assert takes(s) == {face_up}


# -- calling Yaniv -----------------------------------------------------------------------

CALL_ROWS = [
    ("standard", "2S 3S", True),
    ("standard", "AS 4H JK", True),
    ("standard", "2S 4S", False),
    ("french", "2S 3S", True),
    ("french", "AS AH AD 2C", True),
    ("french", "3S 3H", False),
    ("seven", "3S 4S", True),
    ("seven", "AS 6H", True),
    ("seven", "4S 4H", False),
    ("two_deck", "5S", True),  # "less than six points"
    ("two_deck", "JK 5S", True),
    ("two_deck", "6S", False),
    ("two_deck", "AS 5S", False),
]


@pytest.mark.parametrize(("preset", "hand", "callable_"), CALL_ROWS)
def test_call_threshold(preset, hand, callable_):
    s = make(preset, [hand, "KD QD"], "QH")
    assert (CALL_YANIV in engine.legal_actions(s)) == callable_
    if callable_:
        play(s, CALL_YANIV)
        assert s.caller == 0
        assert s.phase in (engine.ROUND_OVER, engine.ASAF_PHASE)
    else:
        before = snapshot(s)
        with pytest.raises(IllegalActionError, match="call Yaniv"):
            engine.apply(s, CALL_YANIV)
        assert snapshot(s) == before


def test_call_only_at_the_start_of_a_turn():
    """Never in the turn you discarded: after the discard the call is illegal."""
    s = make("standard", ["AS 2S KD", "KC QC"], "QH", draws="AH")
    play(s, disc(s, "KD"))
    assert CALL_YANIV not in engine.legal_actions(s)
    with pytest.raises(IllegalActionError):
        engine.apply(s, CALL_YANIV)
    play(s, DRAW_STOCK)  # hand A♠ 2♠ A♥ = 4, but the turn is over
    assert s.current == 1
    play(s, disc(s, "KC"), DRAW_STOCK)
    assert s.current == 0 and CALL_YANIV in engine.legal_actions(s)


# -- reveal scoring ---------------------------------------------------------------------

REVEAL_ROWS = [
    # preset, hands, caller, points, winners, caller beaten
    ("standard", ["AS 2S", "KH QH"], 0, [0, 20], [0], False),
    ("standard", ["2S 3S", "4H AH"], 0, [35, 0], [1], True),  # a tie beats the caller
    ("standard", ["5S", "3H", "2D AD", "KD"], 0, [35, 0, 0, 10], [1, 2], True),  # two winners score 0
    ("standard", ["4S", "5H", "2D"], 1, [4, 35, 0], [2], True),  # only the lowest hands win
    ("standard", ["AS", "2H", "3D"], 0, [0, 2, 3], [0], False),
    ("seven", ["3S 4S", "KH"], 0, [0, 10], [0], False),
    ("seven", ["3S 4S", "7H"], 0, [37, 7], [1], True),
    ("seven", ["3S 4S", "6H", "6D", "9C"], 0, [37, 6, 6, 9], [1, 2], True),  # winners add their hand (000)
    ("two_deck", ["2S 3S", "4H AH", "KC"], 0, [35, 0, 10], [1], True),
    ("two_deck", ["JK 5H", "KC"], 0, [0, 10], [0], False),
    ("two_deck", ["5S", "5S", "JK 5H", "2C 2D"], 0, [35, 5, 5, 0], [3], True),  # two decks
]


@pytest.mark.parametrize(("preset", "hands", "caller", "points", "winners", "beaten"), REVEAL_ROWS)
def test_reveal_scoring(preset, hands, caller, points, winners, beaten):
    s = make(preset, hands, "QC", current=caller)
    res = call_and_respond(s)
    assert res.reason == "yaniv" and res.caller == caller and res.challenger is None
    assert res.hand_totals == [engine.hand_value(C(h)) for h in hands]
    assert res.points == points
    assert sorted(res.winners) == winners
    assert res.caller_beaten == beaten
    assert res.scores == points == s.scores
    assert not res.truncated and res.eliminated == []
    assert s.phase == engine.ROUND_OVER


# -- 001 Asaf ----------------------------------------------------------------------------

ASAF_ROWS = [
    # hands, caller, responses (seat, action) in order, points, winners, challenger, beaten
    # nobody declares: the caller wins, even against a lower hand that passed
    (["AS 2S", "2H", "KD"], 0, [(1, PASS), (2, PASS)], [0, 2, 10], [0], None, False),
    # a tie goes to the challenger
    (["2S 3S", "4H AH"], 0, [(1, ASAF)], [35, 0], [1], 1, True),
    # the challenger loses: hand + 30
    (["AS 2S", "4H", "KD"], 0, [(1, ASAF)], [0, 34, 10], [0], 1, False),
    # the queue starts at the caller's left; the first declaration starts the duel
    (["AC", "2S 3S", "AH", "4D"], 1, [(2, PASS), (3, ASAF)], [1, 35, 1, 0], [3], 3, True),
    (["AC", "2S 3S", "AH", "4D"], 1, [(2, PASS), (3, PASS), (0, ASAF)], [0, 35, 1, 4], [0], 0, True),
    # any hand may declare (and lose)
    (["AS 2S", "KH QH JH 10H 9H"], 0, [(1, ASAF)], [0, 79], [0], 1, False),
]


@pytest.mark.parametrize(("hands", "caller", "responses", "points", "winners", "challenger", "beaten"), ASAF_ROWS)
def test_asaf_duel(hands, caller, responses, points, winners, challenger, beaten):
    s = make("french", hands, "QC", current=caller)
    play(s, CALL_YANIV)
    for seat, action in responses:
        assert s.phase == engine.ASAF_PHASE
        assert s.current == seat
        assert engine.legal_actions(s) == [ASAF, PASS]
        play(s, action)
    res = s.round_result
    assert s.phase == engine.ROUND_OVER
    assert res.points == points
    assert res.winners == winners
    assert res.challenger == challenger
    assert res.caller_beaten == beaten
    assert s.scores == points


def test_asaf_queue_skips_players_out_of_the_game():
    s = make("french", ["AS", "2S", ""], "QC", current=1, alive=[True, True, False], round_index=3)
    play(s, CALL_YANIV)
    assert s.phase == engine.ASAF_PHASE and s.current == 0 and s.asaf_queue == [0]
    play(s, PASS)
    assert s.round_result.winners == [1]
    assert s.round_result.hand_totals == [1, 2, None]


def test_no_asaf_decision_under_reveal_rules():
    s = make("standard", ["AS 2S", "AH"], "QC")
    play(s, CALL_YANIV)
    assert s.phase == engine.ROUND_OVER
    with pytest.raises(IllegalActionError):
        engine.apply(s, ASAF)


# -- score milestones and game end ---------------------------------------------------------

MILESTONE_ROWS = [
    # preset, hands, responses after the call, scores before, scores after, phase, eliminated
    # 002: exact multiples of 50 are halved, once; never when the round added nothing
    ("standard", ["AS", "KH"], [], [50, 40], [50, 25], "round_over", []),
    ("standard", ["AS", "KH"], [], [0, 140], [0, 75], "round_over", []),
    ("standard", ["AS", "KH"], [], [0, 190], [0, 100], "round_over", []),  # 200 -> 100, not 50, not out
    ("standard", ["AS", "KH"], [], [100, 185], [100, 195], "round_over", []),
    ("standard", ["AS", "KH"], [], [0, 195], [0, 205], "game_over", [1]),  # 200 passed: out
    ("standard", ["2S 3S", "AH"], [], [15, 100], [25, 100], "round_over", []),  # 15+35 = 50 -> 25
    ("standard/none", ["AS", "KH"], [], [0, 190], [0, 200], "game_over", [1]),  # reaching 200 is out
    # 001: -50 at each multiple of 50, duel losses included; out above 200
    ("french", ["AS", "KH"], [PASS], [50, 40], [50, 0], "round_over", []),
    ("french", ["AS", "KH"], [PASS], [0, 190], [0, 150], "round_over", []),
    ("french", ["AS", "KH"], [PASS], [0, 191], [0, 201], "game_over", [1]),
    # 001 lists the steps as 50, 100, 150, 200 and puts out whoever is above 200: 250 is no step
    ("french", ["AS", "KH"], [PASS], [0, 240], [0, 250], "game_over", [1]),
    ("french", ["AS", "KH"], [PASS], [0, 239], [0, 249], "game_over", [1]),
    ("french", ["AS", "9H"], [PASS], [0, 191], [0, 150], "round_over", []),  # 200 is the last step
    ("french", ["AS", "KH"], [ASAF], [0, 110], [0, 100], "round_over", []),  # challenger loses: 110+40 = 150
    ("french", ["2S 3S", "AH"], [ASAF], [15, 0], [0, 0], "round_over", []),  # caller loses: 15+35 = 50
    # 000: exactly 50 -> 0, exactly 100 -> 50; the first total over 100 ends the game
    ("seven", ["AS", "KH"], [], [50, 40], [50, 0], "round_over", []),
    ("seven", ["AS", "KH"], [], [0, 90], [0, 50], "round_over", []),
    ("seven", ["AS", "KH"], [], [0, 60], [0, 70], "round_over", []),
    ("seven", ["AS", "KH"], [], [100, 0], [100, 10], "round_over", []),  # 100 is not over 100
    ("seven", ["AS", "KH"], [], [0, 95], [0, 105], "game_over", []),
    ("seven", ["3S 4S", "5H"], [], [0, 45], [37, 0], "round_over", []),  # a winner adding 5 lands on 50
    # 004: no milestones; reaching the score limit ends the game
    ("two_deck", ["AS", "KH"], [], [50, 40], [50, 50], "round_over", []),
    ("two_deck", ["AS", "KH"], [], [0, 85], [0, 95], "round_over", []),
    ("two_deck", ["AS", "KH"], [], [0, 90], [0, 100], "game_over", []),
]


@pytest.mark.parametrize(("preset", "hands", "responses", "before", "after", "phase", "eliminated"), MILESTONE_ROWS)
def test_milestones_and_limits(preset, hands, responses, before, after, phase, eliminated):
    preset, _, milestone = preset.partition("/")
    s = make(preset, hands, "QC", scores=before, **({"milestone": milestone} if milestone else {}))
    res = call_and_respond(s, responses)
    assert s.scores == after == res.scores
    assert s.phase_name == phase
    assert res.eliminated == eliminated
    assert s.alive == [p not in eliminated for p in range(len(hands))]


def test_standard_elimination_then_play_goes_on_without_the_player():
    s = make("standard", ["AS", "KH", "2D"], "QC", scores=[0, 195, 0])
    res = call_and_respond(s)
    assert res.eliminated == [1] and s.alive == [True, False, True]
    assert s.phase == engine.ROUND_OVER
    engine.start_next_round(s)
    assert s.current == 0  # the caller won
    assert s.hands[1] == [] and len(s.hands[0]) == len(s.hands[2]) == 5
    assert engine.all_cards(s) == deck_of(s)
    g = np.random.default_rng(0)
    for _ in range(300):
        if s.phase != engine.DISCARD and s.phase != engine.DRAW and s.phase != engine.SLAM_PHASE:
            break
        assert s.current != 1
        acts = engine.legal_actions(s)
        play(s, acts[int(g.integers(len(acts)))])
    assert s.hands[1] == []


def test_last_one_standing_wins():
    s = make("standard", ["AS", "KH", ""], "QC", scores=[20, 195, 230], alive=[True, True, False], round_index=3)
    res = call_and_respond(s)
    assert res.eliminated == [1]
    assert s.phase == engine.GAME_OVER
    assert engine.ranking(s) == [0, 1, 2]  # the later a player went out, the better


def test_french_player_above_200_is_out():
    s = make("french", ["AS", "KH", "2D"], "QC", scores=[0, 195, 0])
    res = call_and_respond(s, [PASS, PASS])
    assert res.scores == [0, 205, 2] and res.eliminated == [1]
    assert s.phase == engine.ROUND_OVER and s.alive == [True, False, True]


def test_seven_first_over_100_ends_the_game_lowest_wins():
    s = make("seven", ["AS", "KH", "2D"], "QC", scores=[30, 95, 60])
    res = call_and_respond(s)
    assert res.scores == [30, 105, 62]
    assert s.phase == engine.GAME_OVER
    assert engine.ranking(s) == [0, 2, 1]
    assert s.alive == [True, True, True]


@pytest.mark.parametrize(
    ("players", "round_index", "over"),
    [(2, 8, False), (2, 9, True), (3, 13, False), (3, 14, True), (4, 19, True), (4, 18, False)],
)
def test_two_deck_game_ends_after_rounds_per_player_times_players(players, round_index, over):
    hands = ["AS", "KH", "KD", "KC"][:players]
    s = make("two_deck", hands, "QC", round_index=round_index)
    assert s.rules.rounds_per_player == 5
    call_and_respond(s)
    assert (s.phase == engine.GAME_OVER) == over
    if not over:
        engine.start_next_round(s)
        assert s.round_index == round_index + 1


def test_two_deck_ranking_by_score():
    s = make("two_deck", ["AS", "KH", "2D"], "QC", scores=[40, 90, 10])
    call_and_respond(s)
    assert s.phase == engine.GAME_OVER
    assert engine.ranking(s) == [1, 2, 0]


# -- Blast (001) ---------------------------------------------------------------------------


def test_french_250_is_out_while_a_custom_milestone_max_would_keep_it():
    s = make("french", ["AS", "KH"], "QC", scores=[0, 240])
    assert call_and_respond(s, [PASS]).eliminated == [1]
    s = make("french", ["AS", "KH"], "QC", scores=[0, 240], milestone_max=None, score_limit=300)
    assert call_and_respond(s, [PASS]).scores == [0, 200]


# -- private windows: the sequence of decisions shows nothing hidden ----------------------------


def test_private_blast_window_every_player_answers_in_turn_from_the_next_player():
    s = make("french", ["7H 2C 3D", "KS QS 2H", "7S 7D 7C 9H"], "5S", draws="4D", private_windows=True)
    play(s, disc(s, "7H"), DRAW_STOCK, PASS)  # P0 answers its pass-only slam window (4D)
    assert s.phase == engine.BLAST_PHASE and s.blast_queue == [1, 2, 0] and s.current == 1
    assert engine.legal_actions(s) == [PASS]
    with pytest.raises(IllegalActionError, match="pass"):
        engine.apply(s, BLAST)
    play(s, PASS)
    assert s.current == 2 and engine.legal_actions(s) == [BLAST, PASS]
    play(s, BLAST)  # the window closes: P0 is not asked
    assert s.phase == engine.DISCARD and s.current == 1 and sorted(s.top) == sorted(C("7H 7S 7D 7C"))
    assert engine.all_cards(s) == deck_of(s)


def test_private_blast_window_skips_small_hands_and_dead_ranks():
    # P1 holds 2 cards: it cannot complete 7H with three cards, publicly
    s = make("french", ["7H 2C 3D", "KS QS", "7S 7D 7C 9H"], "5S", draws="4D", private_windows=True)
    play(s, disc(s, "7H"), DRAW_STOCK, PASS)
    assert s.blast_queue == [2, 0] and s.current == 2
    play(s, PASS, PASS)
    assert s.phase == engine.DISCARD and s.current == 1 and s.top == C("7H")
    # a seven out of play: nobody can complete the discard, no window
    s = make("french", ["7H 2C 3D", "KS QS 2H", "7D 7C 9H"], "5S", pile="7S", draws="4D", private_windows=True)
    play(s, disc(s, "7H"), DRAW_STOCK, PASS)
    assert s.phase == engine.DISCARD and s.current == 1


def test_private_windows_same_sequence_whatever_the_hidden_cards():
    """Two deals that differ only in hidden cards (P2's hand, the stock card P0 draws)
    give the same players to act, the same phases and the same public views."""
    runs = []
    for p2, drawn in (("7S 7D 7C 9H", "7S"), ("8S 8D 8C 9H", "4D")):
        if drawn == "7S":
            p2 = "8S 7D 7C 9H"  # the 7S is drawn; P2 keeps two sevens
        s = make("french", ["7H 2C 3D", "KS QS 2H", p2], "5S", draws=drawn, private_windows=True)
        seq = []
        for _ in range(4):
            acts = engine.legal_actions(s)
            seq.append((s.phase, s.current, engine.public_view(s, 1)))
            play(s, disc(s, "7H") if s.phase == engine.DISCARD else DRAW_STOCK if s.phase == engine.DRAW else PASS)
            assert PASS in acts or s.phase != engine.BLAST_PHASE
        runs.append(seq)
    assert [(ph, cur) for ph, cur, _ in runs[0]] == [(ph, cur) for ph, cur, _ in runs[1]]
    assert [v.hand_sizes for _, _, v in runs[0]] == [v.hand_sizes for _, _, v in runs[1]]


def test_from_position_with_the_blast_window_open():
    s = engine.from_position(
        PRESETS["french"].with_players(3),
        [C("2C 3D 4S"), C("7S 7D 7C 9H"), C("KS")],
        C("7H"),
        current=0,
        blast_window=True,
    )
    assert s.phase == engine.BLAST_PHASE and s.turn_player == 0 and s.blast_queue == [0, 1]
    assert engine.legal_actions(s) == [PASS]
    play(s, PASS, BLAST)
    assert s.phase == engine.DISCARD and s.current == 0 and sorted(s.top) == sorted(C("7H 7S 7D 7C"))
    classic = PRESETS["french"].with_players(3).replace(private_windows=False)
    s = engine.from_position(classic, [C("2C 3D"), C("7S 7D 7C 9H"), C("KS")], C("7H"), blast_window=True)
    assert s.phase == engine.BLAST_PHASE and s.current == 1 and engine.legal_actions(s) == [BLAST, PASS]
    with pytest.raises(ValueError, match="blast_window"):
        engine.from_position(PRESETS["standard"], [C("2C 3D"), C("7S 7D 7C 9H")], C("7H"), blast_window=True)
    with pytest.raises(ValueError, match="blast_window"):
        engine.from_position(classic, [C("2C 3D"), C("7S 9H"), C("KS")], C("7H"), blast_window=True)


# -- house-rule options -----------------------------------------------------------------------


def test_joker_on_joker_slam_refused_when_the_option_is_off():
    s = make("standard", ["JK 2C 3D", "KD QD"], "KS", draws="JK", slam_joker_on_joker=False)
    play(s, disc(s, "JK"), DRAW_STOCK)
    assert s.phase == engine.DISCARD and s.current == 1
    s = make("standard", ["JK 2C 3D", "KD QD"], "KS", draws="JK", slam_joker_on_joker=False, private_windows=True)
    play(s, disc(s, "JK"), DRAW_STOCK)
    assert s.phase == engine.SLAM_PHASE and engine.legal_actions(s) == [PASS]


@pytest.mark.parametrize(
    ("challenge", "hands", "responses", "points"),
    [
        ("reveal", ["3S 2S", "4H", "9D"], [], [35, 0, 0]),  # beaten: only the caller scores
        ("reveal", ["3S", "4H", "9D"], [], [0, 4, 9]),  # not beaten: as usual
        ("asaf", ["3S 2S", "4H", "9D"], [ASAF], [35, 0, 0]),  # the duel lost: the caller alone
        ("asaf", ["3S", "4H", "9D"], [ASAF], [0, 34, 9]),  # the challenger loses: as usual
    ],
)
def test_beaten_caller_takes_the_penalty_alone(challenge, hands, responses, points):
    preset = "standard" if challenge == "reveal" else "french"
    s = make(preset, hands, "QC", beaten_caller_alone=True)
    res = call_and_respond(s, responses)
    assert res.points == points and s.scores == points


@pytest.mark.parametrize(("leader", "first"), [("winner", 1), ("caller", 0)])
def test_next_leader_after_a_beaten_call(leader, first):
    s = make("standard", ["3S 2S", "4H", "9D"], "QC", next_leader=leader)
    res = call_and_respond(s)
    assert res.caller_beaten and res.winners == [1]
    engine.start_next_round(s)
    assert s.first_player == s.current == first


def test_next_leader_caller_out_of_the_game_passes_to_the_next_seat():
    s = make("standard", ["3S 2S", "4H", "9D"], "QC", scores=[190, 0, 0], next_leader="caller")
    res = call_and_respond(s)
    assert res.eliminated == [0]
    engine.start_next_round(s)
    assert s.first_player == 1


@pytest.mark.parametrize(
    ("mode", "hand", "discard", "legal"),
    [
        ("none", "7H 7S JK 2C", "7H 7S JK", False),
        ("pair", "7H 7S JK 2C", "7H 7S JK", True),  # a joker with a pair
        ("pair", "7H JK 2C", "7H JK", False),
        ("any", "7H JK 2C", "7H JK", True),  # a joker with any card
        ("any", "7H JK JK 2C", "7H JK JK", True),
        ("any", "JK JK 2C", "JK JK", False),  # a set keeps a natural card
    ],
)
def test_jokers_in_sets(mode, hand, discard, legal):
    s = make("standard", [hand, "KD QD"], "KS", draws="7D", set_jokers=mode)
    cards = sorted(C(discard))
    ids = [a for a in engine.legal_actions(s) if a >= DISCARD_BASE and sorted(s.table.discard(a).cards) == cards]
    sets = [a for a in ids if s.table.discard(a).type == "set"]
    assert bool(sets) == legal
    if legal:
        play(s, sets[0], DRAW_STOCK)
        assert s.phase == engine.SLAM_PHASE  # a 7 drawn after a set of sevens with a joker
        play(s, SLAM)
        assert sorted(s.top) == sorted(C(discard + " 7D"))
        play(s, disc(s, "KD"))
        assert takes(s) == set(C(discard + " 7D"))  # 002: any card of a set, the joker too
        assert engine.all_cards(s) == deck_of(s)


def test_run_pickup_top_the_discarder_chooses_the_end():
    s = make("standard", ["5H 6H 7H 2C", "KD QD"], "KS", run_pickup="top")
    ids = sorted(a for a in engine.legal_actions(s) if a >= DISCARD_BASE and len(s.table.discard(a).cards) == 3)
    assert [s.table.discard(a).takeable for a in ids] == [(C("7H")[0],), (C("5H")[0],)]
    assert s.table.name(ids[1]) == "discard 7♥ 6♥ 5♥ (5♥ on top)"
    play(s, ids[1], DRAW_STOCK)
    play(s, disc(s, "KD"))
    assert takes(s) == set(C("5H"))


def test_blast_completes_four_of_a_kind_then_the_next_player_plays():
    s = make("french", ["7H 2C 3D", "KS QS", "7S 7D 7C 9H"], "5S", draws="4D")
    play(s, disc(s, "7H"), DRAW_STOCK)
    assert s.phase == engine.BLAST_PHASE and s.current == 2 and s.turn_player == 1
    assert engine.legal_actions(s) == [BLAST, PASS]
    assert sorted(s.blast_cards) == sorted(C("7S 7D 7C"))
    play(s, BLAST)
    assert s.phase == engine.DISCARD and s.current == 1 and s.turn_player == 1
    assert sorted(s.top) == sorted(C("7H 7S 7D 7C"))
    assert s.hands[2] == C("9H")
    assert engine.all_cards(s) == deck_of(s)
    play(s, disc(s, "KS"))
    assert takes(s) == set(C("7H 7S 7D 7C"))  # the previous discard is the four of a kind


def test_blast_may_be_declined():
    s = make("french", ["7H 2C 3D", "KS QS", "7S 7D 7C 9H"], "5S", draws="4D")
    play(s, disc(s, "7H"), DRAW_STOCK, PASS)
    assert s.phase == engine.DISCARD and s.current == 1
    assert s.top == C("7H") and sorted(s.hands[2]) == sorted(C("7S 7D 7C 9H"))


def test_blast_by_the_discarder():
    s = make("french", ["7H 7S 7D 7C 2C", "KS QS", "9H"], "5S", draws="4D")
    play(s, disc(s, "7H 7S"), DRAW_STOCK)
    assert s.phase == engine.BLAST_PHASE and s.current == 0
    play(s, BLAST)
    assert sorted(s.hands[0]) == sorted(C("2C 4D"))
    assert s.phase == engine.DISCARD and s.current == 1


def test_blast_after_a_pair():
    s = make("french", ["7H 7S 2C", "KS QS", "7D 7C 9H"], "5S", draws="4D")
    play(s, disc(s, "7H 7S"), DRAW_STOCK)
    assert s.phase == engine.BLAST_PHASE and s.current == 2


def test_no_blast_after_a_flash():
    s = make("french", ["7H 2C", "KS QS", "7D 7C 9H"], "5S", draws="7S")
    play(s, disc(s, "7H"), DRAW_STOCK)
    assert s.phase == engine.SLAM_PHASE
    play(s, SLAM)
    assert s.top == C("7H 7S") and s.top_flashed
    assert s.phase == engine.DISCARD and s.current == 1  # 7♦ 7♣ would complete it, but it holds a flashed card


def test_blast_that_empties_the_hand_wins():
    s = make("french", ["7H 2C 3D", "KS QS", "7S 7D 7C"], "5S", draws="4D")
    play(s, disc(s, "7H"), DRAW_STOCK, BLAST)
    res = s.round_result
    assert s.phase == engine.ROUND_OVER and res.reason == "empty_hand"
    assert res.winners == [2] and res.points == [9, 20, 0]
    engine.start_next_round(s)
    assert s.first_player == 2


@pytest.mark.parametrize("preset", ["standard", "seven", "two_deck"])
def test_no_blast_in_other_presets(preset):
    s = make(preset, ["7H 2C 3D", "KS QS", "7S 7D 7C 9H"], "5S", draws="4D")
    play(s, disc(s, "7H"), DRAW_STOCK)
    assert s.phase == engine.DISCARD and s.current == 1


# -- slam-down / Flash --------------------------------------------------------------------------

SLAM_ROWS = [
    # preset, hand, top, discard, draw (None: stock, else the card taken), stock card, slam allowed
    ("standard", "7H 2C 3D", "KS", "7H", None, "7S", True),
    ("standard", "7H 7D 2C", "KS", "7H 7D", None, "7S", True),
    ("standard", "5H 6H 7H 2C", "KS", "5H 6H 7H", None, "7S", False),  # not after a run
    ("standard", "7H 2C 3D", "7S", "7H", "7S", "8S", False),  # from the stock only
    ("standard", "7H 2C 3D", "KS", "7H", None, "8S", False),
    ("standard", "JK 2C 3D", "KS", "JK", None, "JK", True),  # 002 "the same kind": a joker on a joker
    ("french", "7H 2C 3D", "KS", "7H", None, "7S", True),
    ("french", "7H 7D 2C", "KS", "7H 7D", None, "7S", True),
    ("french", "5H 6H 7H 2C", "KS", "5H 6H 7H", None, "7S", False),
    ("french", "7H 2C 3D", "7S", "7H", "7S", "8S", False),
    ("seven", "7H 2C 3D", "KS", "7H", None, "7S", True),
    ("seven", "7H 2C 3D", "7S", "7H", "7S", "8S", True),  # 000: from either pile
    ("seven", "7H 7D 2C", "KS", "7H 7D", None, "7S", False),  # 000: after a single card only
    ("seven", "5H 6H 7H 2C", "KS", "5H 6H 7H", None, "7S", False),
    ("seven", "7H 2C 3D", "KS", "7H", None, "8S", False),
    ("seven", "JK 2C 3D", "KS", "JK", None, "JK", True),  # 000 "equal (same value)"
    ("seven", "JK 2C 3D", "KS", "JK", None, "5S", False),
    ("two_deck", "7H 2C 3D", "KS", "7H", None, "7S", False),  # 004: no slam-down
    ("two_deck", "7H 7D 2C", "KS", "7H 7D", None, "7S", False),
]


@pytest.mark.parametrize("private", [False, True])
@pytest.mark.parametrize(("preset", "hand", "top", "discard", "take", "stock_card", "allowed"), SLAM_ROWS)
def test_slam_down(preset, hand, top, discard, take, stock_card, allowed, private):
    s = make(preset, [hand, "KD QD"], top, draws=stock_card, private_windows=private)
    discard_take = "7H" if preset == "seven" and discard == "7H 7D" else None
    if preset == "two_deck" and discard == "7H 7D":
        discard_take = "7H 7D"
    play(s, disc(s, discard, discard_take), DRAW_STOCK if take is None else tk(take))
    drawn = parse_card(stock_card if take is None else take)
    if not allowed:
        # With private windows a stock card after a discard a slam may follow opens the
        # window anyway, with nothing but a pass: the sequence does not show the card.
        slam_kind = preset in ("standard", "french") and discard != "5H 6H 7H" or discard in ("7H", "JK")
        if private and take is None and slam_kind and preset != "two_deck":
            assert s.phase == engine.SLAM_PHASE and s.current == 0
            assert engine.legal_actions(s) == [PASS]
            with pytest.raises(IllegalActionError, match="pass"):
                engine.apply(s, SLAM)
            play(s, PASS)
        pass_blast_windows(s)
        assert s.phase == engine.DISCARD and s.current == 1
        assert SLAM not in engine.legal_actions(s)
        return
    assert s.phase == engine.SLAM_PHASE and s.current == 0
    assert engine.legal_actions(s) == [SLAM, PASS]
    s2 = s.copy()
    play(s, SLAM)
    pass_blast_windows(s)
    assert drawn not in s.hands[0]
    assert s.top == C(discard) + [drawn]
    assert engine.all_cards(s) == deck_of(s)
    assert s.phase == engine.DISCARD and s.current == 1
    # the slammed card joins the set; the pick-up rule applies to it (000: the slammed card is on top)
    expected = {drawn} if preset == "seven" else set(s.top)
    assert set(s.takeable) == expected
    play(s, disc(s, "KD"))
    assert takes(s) == expected
    # or decline
    pass_blast_windows(play(s2, PASS))
    assert drawn in s2.hands[0] and s2.top == C(discard)
    assert s2.phase == engine.DISCARD and s2.current == 1


def test_slam_can_leave_an_empty_hand_that_must_call():
    """002: a last card thrown, a card of the same rank drawn and slammed: the hand is
    empty and the only move at the next turn is the call."""
    s = make("standard", ["7H", "KD QD"], "KS", draws="7S 9C")
    play(s, disc(s, "7H"), DRAW_STOCK, SLAM)
    assert s.hands[0] == [] and s.phase == engine.DISCARD and s.current == 1
    play(s, disc(s, "KD"), DRAW_STOCK)
    assert s.current == 0 and engine.legal_actions(s) == [CALL_YANIV]
    res = call_and_respond(s)
    assert res.points == [0, 19] and res.winners == [0]


# -- empty hand (001) ----------------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "discard"), [("7H 7S", "7H 7S"), ("3C 4C 5C 6C 7C", "3C 4C 5C 6C 7C"), ("9D", "9D")])
def test_french_empty_hand_wins_at_once(hand, discard):
    s = make("french", [hand, "KD QD", "2S"], "KS")
    play(s, disc(s, discard))
    res = s.round_result
    assert s.phase == engine.ROUND_OVER and res.reason == "empty_hand"
    assert res.winners == [0] and res.points == [0, 20, 2] and s.scores == [0, 20, 2]
    assert sorted(s.top) == sorted(C(discard))
    assert engine.all_cards(s) == deck_of(s)
    engine.start_next_round(s)
    assert s.current == s.first_player == 0


def test_empty_hand_does_not_end_the_round_elsewhere():
    s = make("standard", ["7H 7S", "KD QD"], "KS", draws="2C")
    play(s, disc(s, "7H 7S"))
    assert s.phase == engine.DRAW and s.hands[0] == []
    play(s, DRAW_STOCK)
    assert s.hands[0] == C("2C") and s.current == 1


# -- stock exhaustion and turn limit ----------------------------------------------------------------


def test_stock_exhaustion_reshuffles_the_pile_below_the_top_set():
    s = make("standard", ["2C 3D", "4S 5S"], "KH", stock="8C")
    old_pile = list(s.pile)
    play(s, disc(s, "2C"), DRAW_STOCK)
    assert s.hands[0] == C("3D 8C")
    assert s.top == C("2C")  # the set now on top stays
    assert Counter(s.stock) == Counter(old_pile + C("KH")) and s.pile == []
    assert s.phase == engine.DISCARD and s.current == 1
    assert engine.all_cards(s) == deck_of(s)
    # the new stock is shuffled with the state's generator
    assert s.stock != sorted(s.stock)
    play(s, disc(s, "4S"), DRAW_STOCK)
    assert len(s.hands[1]) == 2


def test_stock_exhaustion_draw_ends_the_round_with_no_points():
    s = make("standard", ["2C 3D", "4S 5S"], "KH", stock="8C", scores=[10, 20], stock_exhaustion="draw")
    play(s, disc(s, "2C"), DRAW_STOCK)
    res = s.round_result
    assert s.phase == engine.ROUND_OVER and res.reason == "draw"
    assert res.points == [0, 0] and res.winners == [] and res.scores == [10, 20] == s.scores
    assert not res.truncated
    assert engine.all_cards(s) == deck_of(s)
    engine.start_next_round(s)
    assert s.phase == engine.DISCARD and len(s.stock) == 54 - 11


def test_taking_from_the_discard_does_not_touch_the_stock():
    s = make("standard", ["2C 3D", "4S 5S"], "KH", stock="8C")
    play(s, disc(s, "2C"), tk("KH"))
    assert s.stock == C("8C") and s.phase == engine.DISCARD


def test_draw_stock_is_illegal_with_an_empty_stock():
    s = make("standard", ["2C 3D", "4S 5S"], "KH", stock="8C")
    play(s, disc(s, "2C"), DRAW_STOCK)
    s.stock.clear()  # the pile was empty too: nothing to reshuffle (built by hand)
    s.pile.clear()
    s.hands[1] = C("4S 5S")
    play(s, disc(s, "4S"))
    assert engine.legal_actions(s) == [tk("2C")]
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match="stock is empty"):
        engine.apply(s, DRAW_STOCK)
    assert snapshot(s) == before


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_turn_limit_ends_the_round_as_a_truncated_draw(preset):
    s = make(preset, ["KC 2D 3D", "KD 4S 5S"], "KH", scores=[10, 20], turn_limit=2)
    play(s, disc(s, "KC"), DRAW_STOCK)
    if s.phase == engine.SLAM_PHASE:
        play(s, PASS)
    assert s.phase == engine.DISCARD and s.current == 1
    play(s, disc(s, "KD"), DRAW_STOCK)
    if s.phase == engine.SLAM_PHASE:
        play(s, PASS)
    res = s.round_result
    assert s.phase == engine.ROUND_OVER and res.reason == "draw" and res.truncated
    assert res.points == [0, 0] and s.scores == [10, 20] and res.winners == []


# -- next round's first player ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "hands", "caller", "responses", "first"),
    [
        ("standard", ["KC", "AS", "QC"], 1, [], 1),  # the successful caller
        ("standard", ["KC", "5S", "2C"], 1, [], 2),  # the one who beat the call
        ("seven", ["KC", "5S", "2C"], 1, [], 2),
        ("two_deck", ["KC", "5S", "2C"], 1, [], 2),
        ("french", ["KC", "5S", "2C"], 1, [PASS, PASS], 1),  # nobody declared
        ("french", ["KC", "5S", "2C"], 1, [ASAF], 2),  # the duel winner
        ("french", ["3C", "5S", "2C"], 1, [PASS, ASAF], 0),
    ],
)
def test_round_winner_plays_first(preset, hands, caller, responses, first):
    s = make(preset, hands, "QH", current=caller)
    res = call_and_respond(s, responses)
    assert res.winners == [first]
    engine.start_next_round(s)
    assert s.first_player == first and s.round_index == 1
    if s.phase == engine.DISCARD:
        assert s.current == first
    assert [len(h) for h in s.hands] == [5] * len(hands)
    assert engine.all_cards(s) == deck_of(s)


def test_lots_among_tied_winners_come_from_the_game_key():
    """Lots among tied winners of round r: ``lot(2, stream_key(key, r, LOTS, 1))``."""
    chosen = set()
    for seed in range(24):
        s = make("standard", ["5S", "3H", "2D AD", "KD"], "QC", seed=seed)
        predicted = [1, 2][lot(2, stream_key(s.key, s.round_index, LOTS, 1))]
        res = call_and_respond(s)
        assert res.winners == [1, 2]
        assert s.next_first == predicted
        engine.start_next_round(s)
        assert s.first_player == predicted
        chosen.add(predicted)
    assert chosen == {1, 2}


# -- illegal actions ------------------------------------------------------------------------------


def _discard_phase():
    return make("standard", ["7H 8S 9D KC QC", "2S 3S"], "4C 5C 6C")


def _draw_phase():
    s = _discard_phase()
    return play(s, disc(s, "KC"))


def _slam_phase():
    s = make("standard", ["7H 2C", "KD QD"], "KS", draws="7S")
    return play(s, disc(s, "7H"), DRAW_STOCK)


def _asaf_phase():
    s = make("french", ["AS 2S", "KD QD"], "KS")
    return play(s, CALL_YANIV)


def _blast_phase():
    s = make("french", ["7H 2C 3D", "KS QS", "7S 7D 7C 9H"], "5S", draws="4D")
    return play(s, disc(s, "7H"), DRAW_STOCK)


def _round_over():
    s = make("standard", ["AS 2S", "KD QD"], "KS")
    return play(s, CALL_YANIV)


def _game_over():
    s = make("standard", ["AS 2S", "KD QD"], "KS", scores=[0, 195])
    return play(s, CALL_YANIV)


ILLEGAL_ROWS = [
    (_discard_phase, lambda s: disc(s, "2S")),  # a card the player does not hold
    (_discard_phase, lambda s: disc(s, "KC QC", "KC")),  # K and Q are no set: no such id, any illegal id
    (_discard_phase, lambda s: CALL_YANIV),  # hand total 44
    (_discard_phase, lambda s: DRAW_STOCK),
    (_discard_phase, lambda s: tk("4C")),
    (_discard_phase, lambda s: SLAM),
    (_discard_phase, lambda s: ASAF),
    (_discard_phase, lambda s: BLAST),
    (_discard_phase, lambda s: PASS),
    (_discard_phase, lambda s: s.table.num_actions),
    (_discard_phase, lambda s: -1),
    (_discard_phase, lambda s: "7H"),
    (_discard_phase, lambda s: 1.0),
    (_discard_phase, lambda s: True),
    (_discard_phase, lambda s: None),
    (_draw_phase, lambda s: tk("5C")),  # the middle of a run (002)
    (_draw_phase, lambda s: tk("KC")),  # the card just discarded
    (_draw_phase, lambda s: disc(s, "7H")),
    (_draw_phase, lambda s: CALL_YANIV),
    (_draw_phase, lambda s: SLAM),
    (_draw_phase, lambda s: PASS),
    (_slam_phase, lambda s: DRAW_STOCK),
    (_slam_phase, lambda s: disc(s, "2C")),
    (_slam_phase, lambda s: ASAF),
    (_asaf_phase, lambda s: CALL_YANIV),
    (_asaf_phase, lambda s: disc(s, "KD")),
    (_asaf_phase, lambda s: SLAM),
    (_blast_phase, lambda s: ASAF),
    (_blast_phase, lambda s: disc(s, "9H")),
    (_blast_phase, lambda s: DRAW_STOCK),
    (_round_over, lambda s: DRAW_STOCK),
    (_round_over, lambda s: CALL_YANIV),
    (_game_over, lambda s: PASS),
]


def _build_action(s, make_action):
    try:
        return make_action(s)
    except ValueError:  # "KC QC" is not a discard at all: use the first discard id that is not legal
        return next(a for a in range(DISCARD_BASE, s.table.num_actions) if a not in engine.legal_actions(s))


@pytest.mark.parametrize(("build", "make_action"), ILLEGAL_ROWS)
def test_illegal_actions_raise_and_change_nothing(build, make_action):
    s = build()
    action = _build_action(s, make_action)
    assert action not in engine.legal_actions(s)
    before = snapshot(s)
    saved = s.copy()
    with pytest.raises(IllegalActionError) as err:
        engine.apply(s, action)
    assert isinstance(err.value, ValueError)
    message = str(err.value)
    if isinstance(action, int) and not isinstance(action, bool) and 0 <= action < s.table.num_actions:
        assert f"illegal action {action} ({s.table.name(action)})" in message
    else:
        assert repr(action) in message or str(action) in message
    assert snapshot(s) == before
    assert snapshot(saved) == before
    # the state still plays on
    legal = engine.legal_actions(s)
    if legal:
        engine.apply(s, legal[0])


def test_start_next_round_only_when_the_round_is_over():
    s = _discard_phase()
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match="not over"):
        engine.start_next_round(s)
    assert snapshot(s) == before
    g = _game_over()
    with pytest.raises(IllegalActionError):
        engine.start_next_round(g)
    assert g.phase == engine.GAME_OVER


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        (dict(hands=[C("7H"), C("7H")], top=C("KS")), "cards not in the deck"),
        (dict(hands=[C("7H")], top=C("KS")), "hands"),
        (dict(hands=[C("7H 8H 9H 10H JH QH"), C("2S")], top=C("KS")), "hands"),
        (dict(hands=[C("7H"), C("2S")], top=[]), "top"),
        (dict(hands=[C("7H"), C("2S")], top=C("KS"), current=2), "current"),
        (dict(hands=[C("7H"), C("2S")], top=C("KS"), scores=[1]), "scores"),
        (dict(hands=[C("7H"), C("2S")], top=C("KS"), stock=C("2C")), "stock"),
        (dict(hands=[C("7H"), C("2S")], top=C("KS 6C"), takeable=C("5C")), "takeable"),
        (dict(hands=[C("7H"), C("2S")], top=C("KS"), known=[C("8H"), []]), "known"),
        (dict(hands=[C("7H"), C("2S")], top=C("KS"), alive=[True, False]), "alive"),
    ],
)
def test_from_position_validates(kwargs, option):
    with pytest.raises(ValueError, match=option):
        engine.from_position(PRESETS["standard"], **kwargs)
