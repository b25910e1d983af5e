"""Pis Yedili rules core: rules, action ids, and the engine on scripted positions and random games."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yaniv_env.pis_yedili import PRESET_SOURCES, PRESETS, Rules, get_rules
from yaniv_env.pis_yedili import actions as A
from yaniv_env.pis_yedili import engine as E
from yaniv_env.pis_yedili.engine import (
    ACE_PHASE,
    DEAL_OVER,
    GAME_OVER,
    OPENING,
    PLAY,
    SEVEN_PHASE,
    IllegalActionError,
)
from yaniv_env.yaniv.cards import RANK, SUIT, card_name, parse_card, parse_cards

STD = PRESETS["standard"]
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)


def c(text: str) -> int:
    return parse_card(text)


def play(text: str, named: int | None = None) -> int:
    return A.encode(c(text), named)


def pos(rules, hands, top=None, *, draws=(), only=False, empty_stock=False, discard=(), **kw):
    """A position from card strings. ``draws``: the next stock cards, first drawn first;
    the rest of the stock follows in a fixed order, or, with ``only``, goes below the top
    of the discard pile (the stock is exactly ``draws``). ``empty_stock``: the same with
    no draws."""
    hands = [parse_cards(h) for h in hands]
    top_k = None if top is None else c(top)
    discard = parse_cards(discard) if isinstance(discard, str) else list(discard)
    draws = parse_cards(draws) if isinstance(draws, str) else list(draws)
    placed = {k for h in hands for k in h} | set(discard) | set(draws) | ({top_k} if top_k is not None else set())
    rest = [k for k in range(52) if k not in placed]
    if empty_stock or only:
        assert top_k is not None and (draws or empty_stock)
        discard, stock = rest + discard, draws[::-1]
    else:
        stock = rest + draws[::-1]
    return E.from_position(rules, hands, top_k, discard=discard, stock=stock, **kw)


def snapshot(s: E.State):
    """Everything in a state, comparable."""
    out = {}
    for slot in E.State.__slots__:
        v = getattr(s, slot)
        if slot == "deal_result" or isinstance(v, list):
            v = repr(v)
        out[slot] = v
    return out


def check_invariants(s: E.State) -> None:
    cards = E.all_cards(s)
    assert sorted(cards) == list(range(52)) and max(cards.values()) == 1, "cards not conserved"
    for h, m in zip(s.hands, s.masks, strict=True):
        assert sum(1 << k for k in h) == m and len(set(h)) == len(h)
    if s.discard:
        assert s.top == s.discard[-1]
        assert s.suit == SUIT[s.top] if RANK[s.top] != A.JACK else 0 <= s.suit < 4
    else:
        assert s.top == -1 and s.suit == -1
    if s.phase in (OPENING, PLAY, SEVEN_PHASE, ACE_PHASE):
        assert E.legal_actions(s), f"no legal action in a decision phase: {s}"
        assert (s.pending_sevens > 0) == (s.phase == SEVEN_PHASE)
        assert (s.phase == OPENING) == (s.top < 0)


def random_game(rules, seed, *, check=False, between=None):
    """Play a whole game at random; returns (state, actions taken)."""
    s = E.new_game(rules, seed=seed)
    r = random.Random(seed * 7919 + 1)
    taken = []
    while s.phase != GAME_OVER:
        if s.phase == DEAL_OVER:
            E.start_next_deal(s)
        else:
            a = r.choice(E.legal_actions(s))
            taken.append(a)
            E.apply(s, a)
        if between is not None:
            between()
        if check:
            check_invariants(s)
    return s, taken


# -- rules ------------------------------------------------------------------------------


def test_standard_preset_follows_the_source():
    r = STD
    assert r.name == "standard" and PRESET_SOURCES["standard"] == "003_7dd16aa342779349.txt"
    assert r.hand_size == 7 and r.deals == 4 and r.seven_draw == 3
    assert (r.seven_multiplier, r.jack_multiplier) == (3, 2)
    assert r.stock_exhausted == "lowest_hand" and r.ace_follow == "optional"
    # J 25, 7 20, A 15, K and Q 10, spot cards (2-6, 8, 9, 10) at face value
    assert r.rank_values == (15, 2, 3, 4, 5, 6, 20, 8, 9, 10, 25, 10, 10)
    assert r.max_seats == 7 and r.replace(hand_size=5).max_seats == 10
    assert get_rules("standard", 5).num_players == 5
    assert "reshuffle" in r.replace(stock_exhausted="reshuffle").describe()
    assert hash(r) == hash(Rules(name="standard"))


@pytest.mark.parametrize(
    "changes, option",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 8}, "num_players"),
        ({"num_players": 5, "max_players": 4}, "num_players"),
        ({"max_players": 1}, "max_players"),
        ({"hand_size": 0}, "hand_size"),
        ({"hand_size": "7"}, "hand_size"),
        ({"seven_draw": 0}, "seven_draw"),
        ({"deals": 0}, "deals"),
        ({"turn_limit": 0}, "turn_limit"),
        ({"seven_multiplier": 0}, "seven_multiplier"),
        ({"ace_follow": "always"}, "ace_follow"),
        ({"two_player_ten": "nothing"}, "two_player_ten"),
        ({"stock_exhausted": "draw"}, "stock_exhausted"),
        ({"jack_same_suit": 1}, "jack_same_suit"),
        ({"rank_values": (1, 2, 3)}, "rank_values"),
        ({"rank_values": (15, 2, 3, 4, 5, 6, 20, 8, 9, 10, 25, 10, -1)}, "rank_values"),
        ({"stock_exhausted": "reshuffle", "end_when_stock_empty": True}, "end_when_stock_empty"),
    ],
)
def test_invalid_rules_name_the_option(changes, option):
    with pytest.raises(ValueError, match=f"Rules.{option}"):
        STD.replace(**changes)


def test_get_rules_errors():
    with pytest.raises(ValueError, match="unknown"):
        get_rules("dirty")
    with pytest.raises(ValueError, match="Rules object"):
        get_rules(3)


# -- action ids -------------------------------------------------------------------------


def test_action_id_map():
    assert A.NUM_ACTIONS == 71 and A.action_table(STD).num_actions == 71
    assert (A.DRAW, A.PASS, A.DRAW_PENALTY, A.PLAY_BASE, A.JACK_BASE) == (0, 1, 2, 3, 55)
    assert A.name(A.DRAW) == "draw" and A.name(A.PASS) == "pass"
    assert A.name(play("7H")) == "play 7♥" and play("7H") == 3 + 19
    assert A.name(play("JS", CLUBS)) == "play J♠ naming ♣" and play("JS", CLUBS) == 58
    assert A.name(play("JC")) == "play J♣"
    for a in range(A.NUM_ACTIONS):  # every id decodes and encodes back to itself
        d = A.decode(a)
        if d.kind == "play":
            assert A.encode(d.card, d.named) == a and A.card_of(a) == d.card
        else:
            assert A.card_of(a) == -1
    assert len(set(A.names())) == A.NUM_ACTIONS


def test_encode_decode_errors():
    with pytest.raises(ValueError, match="only a Jack"):
        A.encode(c("7H"), HEARTS)
    with pytest.raises(ValueError, match="suit"):
        A.encode(c("JH"), 4)
    with pytest.raises(ValueError, match="52-card"):
        A.encode(52)
    with pytest.raises(ValueError, match="out of range"):
        A.decode(71)
    with pytest.raises(ValueError, match="int id"):
        A.decode(1.0)


def test_playable_table():
    t = A.action_table(STD)
    on_6c = A.mask_cards(t.playable[c("6C") * 4 + CLUBS])
    assert set(on_6c) == {k for k in range(52) if k % 13 in (5, 10) or k // 13 == CLUBS}
    on_jack = A.mask_cards(t.playable[c("JS") * 4 + DIAMONDS])
    assert set(on_jack) == {k for k in range(52) if k // 13 == DIAMONDS and k % 13 != 10}
    no_same = A.action_table(STD.replace(jack_same_suit=False))
    assert no_same.jack_ids[SPADES][HEARTS] == tuple(play("JS", s) for s in (0, 2, 3))


# -- opening ----------------------------------------------------------------------------


def test_opening_must_be_a_club():
    s = pos(STD, ["2C 9C JC 5H 7S 8D AH", "3S 4S 5S 6S 9S 10S KS"])
    assert s.phase == OPENING and s.top == -1 and s.current == 0
    assert E.legal_actions(s) == [play("2C"), play("9C"), play("JC")]  # J♣ names nothing
    with pytest.raises(IllegalActionError, match="must be a club"):
        E.apply(s, play("5H"))
    with pytest.raises(IllegalActionError, match="names no suit"):
        E.apply(s, play("JC", HEARTS))
    with pytest.raises(IllegalActionError, match="holds a club"):
        E.apply(s, A.DRAW)
    E.apply(s, play("9C"))
    assert (s.phase, s.current, s.top, s.suit) == (PLAY, 1, c("9C"), CLUBS)


def test_opener_without_a_club_draws_until_one_comes():
    s = pos(STD, ["2H 9D 5H 7S 8D AH KD", "3S 4S 5S 6S 9S 10S KS"], draws="QH 3D 4C 5C")
    for expected_draws in range(1, 3):
        assert E.legal_actions(s) == [A.DRAW]
        E.apply(s, A.DRAW)
        assert s.drawn == expected_draws and s.phase == OPENING
    E.apply(s, A.DRAW)
    assert E.legal_actions(s) == [play("4C")]  # no pass, no further draw
    E.apply(s, play("4C"))
    assert s.phase == PLAY and s.current == 1 and len(s.hands[0]) == 9


@pytest.mark.parametrize("opening", ["7C", "8C", "10C", "AC", "JC"])
def test_opening_card_has_no_special_effect(opening):
    s = pos(STD.with_players(3), [f"{opening} 2H 3H 4H 5H 6H 9H", "JH 2S 3S 4S 5S 6S 9S", "KC 2D 3D 4D 5D 6D 9D"])
    E.apply(s, play(opening))
    assert s.phase == PLAY and s.current == 1 and s.direction == 1
    assert s.pending_sevens == 0 and s.suit == CLUBS
    if opening == "JC":  # a Jack still cannot go on the J♣, which leaves ♣ in force
        assert E.legal_actions(s) == [A.DRAW]
    else:
        assert play("JH", SPADES) in E.legal_actions(s)


# -- Jack -------------------------------------------------------------------------------


def test_jack_is_wild_and_names_the_suit():
    s = pos(STD.with_players(3), ["JS 2D", "2C QS 6H 7D", "3S 4S"], top="5H", current=0)
    legal = E.legal_actions(s)
    assert [play("JS", x) for x in range(4)] == [a for a in legal if a >= A.JACK_BASE]
    assert play("JS") not in legal  # a wild Jack must name a suit
    E.apply(s, play("JS", CLUBS))
    assert (s.top, s.suit, s.current) == (c("JS"), CLUBS, 1)
    # on a Jack: only the named suit; the Jack's own suit or rank does not match
    assert E.legal_actions(s) == [A.DRAW, play("2C")]
    with pytest.raises(IllegalActionError, match="matches neither"):
        E.apply(s, play("QS"))


def test_no_jack_on_a_jack():
    s = pos(STD, ["JH 3D 4D", "5S 6S"], top="JS", suit=DIAMONDS)
    assert E.legal_actions(s) == [A.DRAW, play("3D"), play("4D")]
    with pytest.raises(IllegalActionError, match="Jack cannot be played on a Jack"):
        E.apply(s, play("JH", SPADES))


def test_jack_may_or_may_not_name_the_suit_in_force():
    hands = ["JS 2D", "3S 4S"]
    s = pos(STD, hands, top="5H")
    assert play("JS", HEARTS) in E.legal_actions(s)
    s = pos(STD.replace(jack_same_suit=False), hands, top="5H")
    assert [a for a in E.legal_actions(s) if a >= A.JACK_BASE] == [play("JS", x) for x in (0, 2, 3)]
    with pytest.raises(IllegalActionError, match="already in force"):
        E.apply(s, play("JS", HEARTS))


# -- 8, 10 ------------------------------------------------------------------------------


def test_eight_skips_the_next_player():
    s = pos(STD.with_players(3), ["8H 2D", "3S", "4S"], top="5H")
    E.apply(s, play("8H"))
    assert s.current == 2 and s.phase == PLAY
    s = pos(STD.with_players(3), ["8H 2D", "3S", "4S"], top="5H", direction=-1)
    E.apply(s, play("8H"))
    assert s.current == 1
    s = pos(STD, ["8H 2D", "3S"], top="5H", drawn=2)  # two players: the same player again
    E.apply(s, play("8H"))
    assert s.current == 0 and s.drawn == 0 and A.PASS not in E.legal_actions(s)


def test_ten_reverses_direction():
    s = pos(STD.with_players(4), ["10H 2D", "3S 3C", "4S 4C", "6H 5C"], top="5H")
    E.apply(s, play("10H"))
    assert s.direction == -1 and s.current == 3
    E.apply(s, play("6H"))
    assert s.current == 2


def test_ten_with_two_players():
    hands = ["10H 2D", "3S"]
    s = pos(STD, hands, top="5H")
    E.apply(s, play("10H"))  # default: the direction flips, the opponent plays next
    assert s.direction == -1 and s.current == 1
    s = pos(STD.replace(two_player_ten="skip"), hands, top="5H")
    E.apply(s, play("10H"))  # the Uno reading: the player of the 10 plays again
    assert s.direction == -1 and s.current == 0 and s.phase == PLAY


# -- 7 ----------------------------------------------------------------------------------


def test_seven_makes_the_next_player_draw_three():
    s = pos(STD.with_players(3), ["7H 2D", "JS 5C 9D", "3H 4S"], top="5H", draws="2S 3S 4D")
    E.apply(s, play("7H"))
    assert (s.phase, s.current, s.pending_sevens) == (SEVEN_PHASE, 1, 1)
    assert E.public_view(s, 1).pending_draw == 3
    assert E.legal_actions(s) == [A.DRAW_PENALTY]  # a Jack cannot answer a 7
    with pytest.raises(IllegalActionError, match="only a 7"):
        E.apply(s, play("JS", HEARTS))
    with pytest.raises(IllegalActionError, match="penalty"):
        E.apply(s, A.DRAW)
    E.apply(s, A.DRAW_PENALTY)
    assert sorted(s.hands[1]) == sorted(parse_cards("JS 5C 9D 2S 3S 4D"))
    # drawing the penalty is the turn; the 7 stays on top as an ordinary card
    assert (s.phase, s.current, s.pending_sevens, s.top) == (PLAY, 2, 0, c("7H"))
    assert E.legal_actions(s) == [A.DRAW, play("3H")]


def test_sevens_stack():
    rules = STD.with_players(3)
    s = pos(rules, ["7H 2D", "7S 5C", "7D 4C"], top="5H", draws="2S 3S 4S 5S 6S 8S QS", only=True)
    E.apply(s, play("7H"))
    assert E.legal_actions(s) == [A.DRAW_PENALTY, play("7S")]
    E.apply(s, play("7S"))
    assert (s.current, s.pending_sevens) == (2, 2)
    E.apply(s, play("7D"))
    assert (s.current, s.pending_sevens, E.public_view(s, 0).pending_draw) == (0, 3, 9)
    before = len(s.hands[0])
    E.apply(s, A.DRAW_PENALTY)
    assert len(s.hands[0]) == before + 7 and s.deal_result.reason == "stock_out"  # the stock ran dry


def test_penalty_need_not_end_the_turn():
    s = pos(STD.replace(penalty_ends_turn=False), ["7H 2D", "3H 5C"], top="5H", draws="2S 3S 4S")
    E.apply(s, play("7H"))
    E.apply(s, A.DRAW_PENALTY)
    assert (s.phase, s.current, s.drawn) == (PLAY, 1, 0)  # penalty cards do not allow a pass
    assert E.legal_actions(s) == [A.DRAW, play("3H")]


# -- Ace --------------------------------------------------------------------------------


def test_ace_follow_up_is_optional():
    s = pos(STD.with_players(3), ["AH 9H AS 2D JC", "3S", "4S"], top="5H")
    E.apply(s, play("AH"))
    assert (s.phase, s.current) == (ACE_PHASE, 0)
    legal = E.legal_actions(s)
    assert legal[:3] == [A.PASS, play("AS"), play("9H")] and A.DRAW not in legal
    assert [a for a in legal if a >= A.JACK_BASE] == [play("JC", x) for x in range(4)]
    with pytest.raises(IllegalActionError, match="no drawing"):
        E.apply(s, A.DRAW)
    with pytest.raises(IllegalActionError, match="matches neither"):
        E.apply(s, play("2D"))
    E.apply(s, play("AS"))  # an Ace as follow-up: another follow-up
    assert (s.phase, s.current, s.suit) == (ACE_PHASE, 0, SPADES)
    E.apply(s, A.PASS)
    assert (s.phase, s.current) == (PLAY, 1)


@pytest.mark.parametrize("follow, phase, current", [("7H", SEVEN_PHASE, 1), ("8H", PLAY, 2), ("10H", PLAY, 2)])
def test_ace_follow_up_card_has_its_effect(follow, phase, current):
    s = pos(STD.with_players(3), [f"AH {follow} 2D", "3S", "4S"], top="5H")
    E.apply(s, play("AH"))
    E.apply(s, play(follow))
    assert (s.phase, s.current) == (phase, current)


def test_ace_follow_up_must_draw_until_playable():
    s = pos(STD.replace(ace_follow="must"), ["AH 2D 3C", "3S"], top="5H", draws="4S KH")
    E.apply(s, play("AH"))
    assert (s.phase, s.current, s.drawn) == (PLAY, 0, 0)
    assert E.legal_actions(s) == [A.DRAW]
    E.apply(s, A.DRAW)
    assert E.legal_actions(s) == [A.DRAW, A.PASS]
    E.apply(s, A.DRAW)
    assert E.legal_actions(s) == [A.DRAW, A.PASS, play("KH")]
    with pytest.raises(ValueError, match="ace_follow"):
        pos(STD.replace(ace_follow="must"), ["2D", "3S"], top="AH", ace_follow=True)


# -- drawing and passing ----------------------------------------------------------------


def test_draw_until_playable_or_pass_after_one_draw():
    s = pos(STD, ["2D 3S", "4S 5S"], top="9H", draws="4D KH QC")
    assert E.legal_actions(s) == [A.DRAW]
    with pytest.raises(IllegalActionError, match="only after drawing"):
        E.apply(s, A.PASS)
    E.apply(s, A.DRAW)
    assert s.drawn == 1 and E.legal_actions(s) == [A.DRAW, A.PASS]
    E.apply(s, A.DRAW)
    assert E.legal_actions(s) == [A.DRAW, A.PASS, play("KH")]
    E.apply(s, A.PASS)  # a pass is allowed with a playable card once a card was drawn
    assert (s.current, s.drawn, len(s.hands[0])) == (1, 0, 4)


def test_drawing_with_a_playable_card():
    hands = ["2H 3S", "4S 5S"]
    s = pos(STD, hands, top="9H")
    assert E.legal_actions(s) == [A.DRAW, play("2H")]  # the source: play or draw
    s = pos(STD.replace(draw_when_playable=False), hands, top="9H")
    assert E.legal_actions(s) == [play("2H")]
    with pytest.raises(IllegalActionError, match="draw_when_playable"):
        E.apply(s, A.DRAW)


def test_any_playable_card_after_drawing():
    s = pos(STD, ["2D 3S", "4S 5S"], top="9H", draws="9S")
    E.apply(s, A.DRAW)
    assert E.legal_actions(s) == [A.DRAW, A.PASS, play("9S")]


# -- scoring ----------------------------------------------------------------------------


def test_hand_values_follow_the_source_table():
    values = {"AS": 15, "2S": 2, "6S": 6, "7S": 20, "8S": 8, "9S": 9, "10S": 10, "JS": 25, "QS": 10, "KS": 10}
    for text, v in values.items():
        assert E.hand_value([c(text)], STD) == v
    assert E.hand_value(parse_cards("JH 7C AD KS 5H"), STD) == 25 + 20 + 15 + 10 + 5


@pytest.mark.parametrize(
    "last, named, multiplier", [("5H", None, 1), ("7H", None, 3), ("JS", CLUBS, 2), ("AH", None, 1)]
)
def test_going_out_and_multipliers(last, named, multiplier):
    rules = STD.with_players(3)
    s = pos(rules, [last, "KS 2C", "JD 7C"], top="9H", scores=[5, 10, 20])
    E.apply(s, play(last, named))
    r = s.deal_result
    assert s.phase == DEAL_OVER and r.reason == "out" and r.winners == [0] and r.last_card == c(last)
    assert r.multiplier == multiplier and r.hand_totals == [0, 12, 45]
    assert r.points == [0, 12 * multiplier, 45 * multiplier]
    assert s.scores == r.scores == [5, 10 + 12 * multiplier, 20 + 45 * multiplier]
    assert E.legal_actions(s) == []
    with pytest.raises(IllegalActionError, match="no decision"):
        E.apply(s, A.DRAW)


def test_going_out_on_a_seven_answer():
    s = pos(STD, ["7H 2D", "7S"], top="5H", draws="2S 3S 4S")
    E.apply(s, play("7H"))
    E.apply(s, play("7S"))
    assert s.deal_result.winners == [1] and s.deal_result.points == [2 * 3, 0]


# -- stock exhaustion -------------------------------------------------------------------


def test_stock_out_lowest_hand_wins():
    # P1 cannot play on the 5H, has not drawn, and the stock is empty: the deal ends.
    s = pos(STD.with_players(3), ["5S 3D", "9C 2D", "KC 2S 3S"], top="5D", empty_stock=True)
    assert E.legal_actions(s) == [play("5S"), play("3D")]  # no draw from an empty stock
    E.apply(s, play("5S"))
    r = s.deal_result
    assert s.phase == DEAL_OVER and r.reason == "stock_out"
    assert r.hand_totals == [3, 11, 15] and r.winners == [0] and r.points == [0, 11, 15]
    assert r.multiplier == 1


def test_stock_out_ties_all_win():
    s = pos(STD.with_players(3), ["9S 5D", "6C 2D 3C", "5C"], top="9D", empty_stock=True)
    E.apply(s, play("9S"))  # P1 holds no spade nor 9: stuck
    assert s.deal_result.winners == [0, 2] and s.deal_result.points == [0, 11, 0]


def test_pass_after_drawing_the_last_card():
    s = pos(STD, ["2D 3S", "4S 2S"], top="9H", draws="4C", only=True)
    assert len(s.stock) == 1
    E.apply(s, A.DRAW)
    assert not s.stock and E.legal_actions(s) == [A.PASS]  # play goes on: nobody needs a card yet
    E.apply(s, A.PASS)
    assert s.deal_result.reason == "stock_out"  # P1 holds no heart nor 9 and cannot draw
    assert s.deal_result.hand_totals == [2 + 3 + 4, 4 + 2] and s.deal_result.winners == [1]


def test_end_when_stock_empty():
    rules = STD.replace(end_when_stock_empty=True)
    s = pos(rules, ["2D 3S", "4S 2S"], top="9H", draws="4C", only=True)
    E.apply(s, A.DRAW)
    assert s.deal_result.reason == "stock_out" and s.deal_result.winners == [1]


def test_penalty_running_dry_ends_the_deal():
    s = pos(STD, ["7H 2D", "3C 5C"], top="5H", draws="2S 3S", only=True)
    E.apply(s, play("7H"))
    E.apply(s, A.DRAW_PENALTY)
    assert s.deal_result.reason == "stock_out" and len(s.hands[1]) == 4
    assert s.deal_result.winners == [0]


def test_reshuffle_the_discard_pile_into_the_stock():
    rules = STD.replace(stock_exhausted="reshuffle")
    s = pos(rules, ["2D 3S", "4S 5S"], top="9H", empty_stock=True, seed=3)
    below = list(s.discard[:-1])
    assert E.legal_actions(s) == [A.DRAW]
    E.apply(s, A.DRAW)
    assert s.discard == [c("9H")] and len(s.stock) == len(below) - 1
    assert sorted(s.stock + [s.hands[0][-1]]) == sorted(below)
    check_invariants(s)


def test_reshuffle_with_nothing_to_reshuffle_is_a_stock_out():
    # Only the top card is left to reshuffle: a player who must draw ends the deal.
    rules = STD.replace(stock_exhausted="reshuffle")
    others = " ".join(card_name(k) for k in range(52) if k not in parse_cards("7H 9C 9H"))
    s = pos(rules, ["9C", "9H " + others], top="7H", pending_sevens=1)
    assert s.phase == DEAL_OVER and s.deal_result.reason == "stock_out" and s.deal_result.winners == [0]
    s = pos(rules, ["9C", "9H " + others], top="7H", current=1, pending_sevens=1)
    assert E.legal_actions(s) == [play("7S"), play("7D"), play("7C")]  # a 7 in hand: no need to draw
    others = " ".join(card_name(k) for k in range(52) if k not in parse_cards("5H 9C"))
    s = pos(rules, ["9C", others], top="5H", current=1)
    E.apply(s, play("5S"))  # the 5H goes below the top: one card to reshuffle
    assert E.legal_actions(s) == [A.DRAW]
    E.apply(s, A.DRAW)
    assert s.hands[0] == [c("9C"), c("5H")] and s.discard == [c("5S")] and not s.stock


def test_opener_finding_no_club_in_the_stock():
    # P1 and P2 hold all 13 clubs: P0 draws the whole stock and the deal ends.
    clubs = [card_name(k) for k in range(39, 52)]
    hands = ["2H 3H 4H 5H 6H 8H 9H", " ".join(clubs[:7]), " ".join(clubs[7:]) + " 2S"]
    s = pos(STD.with_players(3), hands)
    stock_size = len(s.stock)
    for _ in range(stock_size):
        assert s.phase == OPENING and E.legal_actions(s) == [A.DRAW]
        E.apply(s, A.DRAW)
    assert s.phase == DEAL_OVER and s.deal_result.reason == "stock_out" and not s.stock


# -- game -------------------------------------------------------------------------------


def test_four_deals_then_lowest_total_wins():
    rules = STD.with_players(3)
    s = E.new_game(rules, seed=11)
    r = random.Random(0)
    results, dealers = [], []
    while True:
        dealers.append(s.dealer)
        assert s.current == (s.dealer + 1) % 3 and s.phase == OPENING and s.direction == 1
        while s.phase not in (DEAL_OVER, GAME_OVER):
            E.apply(s, r.choice(E.legal_actions(s)))
        results.append(s.deal_result)
        if s.phase == GAME_OVER:
            break
        E.start_next_deal(s)
    assert len(results) == 4 and E.is_over(s)
    assert dealers == [(dealers[0] + i) % 3 for i in range(4)]
    assert s.scores == [sum(res.points[p] for res in results) for p in range(3)]
    best = min(s.scores)
    assert [p for p in range(3) if E.ranking(s)[p] == 0] == [p for p in range(3) if s.scores[p] == best]
    with pytest.raises(IllegalActionError, match="not over"):
        E.start_next_deal(s)


def test_ranking_ties_share_a_place():
    s = pos(STD.with_players(4), ["2H", "3H", "4H", "5H"], top="9H", scores=[30, 10, 30, 50])
    assert E.ranking(s) == [1, 0, 1, 3]


def test_turn_limit_truncates_unscored():
    rules = STD.replace(stock_exhausted="reshuffle", turn_limit=3)
    s = pos(rules, ["2D 3S", "4S 5S"], top="9H", scores=[1, 2])
    for _ in range(3):
        E.apply(s, A.DRAW)
        E.apply(s, A.PASS)
    r = s.deal_result
    assert s.phase == DEAL_OVER and r.reason == "truncated" and r.truncated
    assert r.points == [0, 0] and s.scores == [1, 2] and r.winners == []


def test_every_deal_ends_within_the_turn_limit():
    rules = STD.replace(stock_exhausted="reshuffle", num_players=4, turn_limit=60)
    for seed in range(20):
        s, _ = random_game(rules, seed)
        assert s.phase == GAME_OVER


# -- illegal actions --------------------------------------------------------------------


@pytest.mark.parametrize(
    "action, message",
    [
        (-1, "out of range"),
        (71, "out of range"),
        (True, "int id"),
        ("3", "int id"),
        (None, "int id"),
    ],
)
def test_bad_ids_raise_and_leave_the_state(action, message):
    s = E.new_game(STD, seed=2)
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match=message):
        E.apply(s, action)
    assert snapshot(s) == before


def test_illegal_moves_raise_with_a_reason_and_leave_the_state():
    cases = [
        (pos(STD, ["2D 3S", "4S 5S"], top="9H"), play("4S"), "does not hold 4♠"),
        (pos(STD, ["2D 3S", "4S 5S"], top="9H"), play("3S"), "matches neither the rank nor the suit of 9♥"),
        (pos(STD, ["2D 3S", "4S 5S"], top="9H"), A.PASS, "only after drawing"),
        (pos(STD, ["2D 3S", "4S 5S"], top="9H"), A.DRAW_PENALTY, "no sevens are pending"),
        (pos(STD, ["7D 3S", "4S 5S"], top="7H", pending_sevens=1), A.PASS, "passing is not allowed"),
        (pos(STD, ["JD 3S", "4S 5S"], top="9H"), play("JD"), "must name a suit"),
        (pos(STD, ["2D 3S", "4S 5S"]), A.PASS, "must play a club"),
    ]
    for s, action, message in cases:
        before = snapshot(s)
        with pytest.raises(IllegalActionError, match=message) as info:
            E.apply(s, action)
        assert "player 0" in str(info.value) and A.name(action) in str(info.value)
        assert snapshot(s) == before
        assert isinstance(info.value, ValueError)


def test_from_position_validation():
    with pytest.raises(ValueError, match="placed twice"):
        pos(STD, ["2D 3S", "2D"], top="9H")
    with pytest.raises(ValueError, match="hands"):
        pos(STD, ["2D"], top="9H")
    with pytest.raises(ValueError, match="named"):
        pos(STD, ["2D", "3S"], top="JH")
    with pytest.raises(ValueError, match="suit in force"):
        pos(STD, ["2D", "3S"], top="9H", suit=SPADES)
    with pytest.raises(ValueError, match="pending_sevens"):
        pos(STD, ["2D", "3S"], top="9H", pending_sevens=1)
    with pytest.raises(ValueError, match="stock"):
        E.from_position(STD, [[0], [1]], 2, stock=[3])
    with pytest.raises(ValueError, match="opening"):
        pos(STD, ["2D", "3S"], discard="4S")


# -- random games: conservation, termination, determinism, views ------------------------


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"num_players": 4},
        {"num_players": 7},
        {"num_players": 3, "stock_exhausted": "reshuffle", "turn_limit": 150},
        {"num_players": 5, "ace_follow": "must", "penalty_ends_turn": False, "jack_same_suit": False},
        {"num_players": 2, "draw_when_playable": False, "two_player_ten": "skip", "end_when_stock_empty": True},
        {"num_players": 6, "draw_when_playable": False, "stock_exhausted": "reshuffle", "hand_size": 5},
    ],
)
def test_cards_conserved_in_random_games(changes):
    rules = STD.replace(**changes)
    reasons = Counter()
    for seed in range(60):
        s, taken = random_game(rules, seed, check=True)
        assert s.phase == GAME_OVER and taken
        reasons[s.deal_result.reason] += 1
    assert sum(reasons.values()) == 60


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 7), reshuffle=st.booleans())
def test_random_games_property(seed, players, reshuffle):
    rules = STD.replace(num_players=players, stock_exhausted="reshuffle" if reshuffle else "lowest_hand")
    s, _ = random_game(rules, seed, check=True)
    assert s.phase == GAME_OVER and len(E.ranking(s)) == players


def test_same_seed_same_game_whatever_the_global_generators_do():
    rules = STD.with_players(4)
    first, acts1 = random_game(rules, 5)

    def noise():
        random.random()
        np.random.random()

    second, acts2 = random_game(rules, 5, between=noise)
    assert acts1 == acts2 and first.scores == second.scores
    other, acts3 = random_game(rules, 6)
    assert acts3 != acts1


def test_copy_is_independent_and_replays_the_same():
    s = E.new_game(STD.with_players(3), seed=9)
    r = random.Random(1)
    for _ in range(10):
        E.apply(s, r.choice(E.legal_actions(s)))
    t = s.copy()
    assert snapshot(t) == snapshot(s)
    E.apply(t, E.legal_actions(t)[0])
    assert snapshot(t) != snapshot(s)
    u = s.copy()
    r1, r2 = random.Random(4), random.Random(4)
    while s.phase not in (DEAL_OVER, GAME_OVER):
        E.apply(s, r1.choice(E.legal_actions(s)))
        E.apply(u, r2.choice(E.legal_actions(u)))
    assert snapshot(s) == snapshot(u)


def test_public_view_hides_other_hands():
    s = pos(STD.with_players(3), ["2D 3S", "4S 5S 6S", "7C"], top="9H", discard="9C", direction=-1, scores=[1, 2, 3])
    v = E.public_view(s, 1)
    assert v.hand == tuple(parse_cards("4S 5S 6S")) and v.hand_sizes == (2, 3, 1)
    assert v.discard == (c("9C"), c("9H")) and v.top == c("9H") and v.suit == HEARTS
    assert (v.direction, v.stock_size, v.scores, v.current, v.pending_sevens) == (-1, 52 - 8, (1, 2, 3), 0, 0)
    fields = set(E.PublicView.__dataclass_fields__)
    assert not fields & {"hands", "stock", "masks", "key"}
    hidden = set(s.hands[0]) | set(s.hands[2]) | set(s.stock)
    assert not hidden & set(v.hand)
    with pytest.raises(ValueError, match="seat"):
        E.public_view(s, 3)


def test_legal_mask_matches_legal_actions():
    s = E.new_game(STD.with_players(4), seed=1)
    r = random.Random(2)
    for _ in range(60):
        if s.phase in (DEAL_OVER, GAME_OVER):
            break
        legal = E.legal_actions(s)
        mask = E.legal_mask(s)
        assert mask.shape == (A.NUM_ACTIONS,) and np.flatnonzero(mask).tolist() == legal
        assert legal == sorted(set(legal))
        E.apply(s, r.choice(legal))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_deal_gives_each_seat_the_same_hand_whatever_was_played(n):
    """Duplicate deals: the same seed with two different ways of playing deals each seat
    the same hand in every deal (seat blocks of the deal's own shuffle), and the first
    dealer is the key's lot."""
    from yaniv_env.core.seeding import DEAL, LOTS, lot, seat_blocks, shuffled, stream_key

    rules = STD.with_players(n)
    for seed in range(4):
        deals = []
        for policy_seed in (1, 2):
            s = E.new_game(rules, seed=seed)
            assert s.dealer == lot(n, stream_key(s.key, 0, LOTS))
            g = random.Random(policy_seed)
            hands = []
            while True:
                hands.append([list(h) for h in s.hands])
                expected = seat_blocks(
                    shuffled(list(range(52)), stream_key(s.key, s.deal_index, DEAL)), n, rules.hand_size
                )[0]
                if s.phase == E.OPENING:  # nothing played yet in this deal
                    assert s.hands == expected
                while s.phase not in (E.DEAL_OVER, E.GAME_OVER):
                    E.apply(s, g.choice(E.legal_actions(s)))
                if s.phase == E.GAME_OVER:
                    break
                E.start_next_deal(s)
            deals.append(hands)
        assert deals[0] == deals[1]
