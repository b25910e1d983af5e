"""Cards and the ``Rules`` options: parsing, values, every preset against the variant table
of the rules document (``yaniv_env/yaniv/RULES.md``), and validation of bad options and combinations."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections import Counter

import numpy as np
import pytest

from yaniv_env import PRESET_SOURCES, PRESETS, Rules, get_rules
from yaniv_env.pis_yedili.rules import Rules as PisRules
from yaniv_env.yaniv.cards import (
    JOKER,
    RANK,
    SUIT,
    YANIV_VALUE,
    card,
    card_name,
    cards_name,
    parse_card,
    parse_cards,
    standard_deck,
)

# -- cards ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("AS", 0),
        ("2S", 1),
        ("10S", 9),
        ("TS", 9),
        ("KS", 12),
        ("AH", 13),
        ("7H", 19),
        ("7♥", 19),
        ("QD", 2 * 13 + 11),
        ("10C", 3 * 13 + 9),
        ("KC", 51),
        ("JK", JOKER),
        ("joker", JOKER),
        ("🃏", JOKER),
        (" 5c ", 3 * 13 + 4),
    ],
)
def test_parse_card(text, kind):
    assert parse_card(text) == kind


@pytest.mark.parametrize("text", ["", "1", "11S", "7X", "ZZ", "S7", "JKK"])
def test_parse_card_rejects(text):
    with pytest.raises(ValueError, match="cannot read"):
        parse_card(text)


def test_parse_cards_and_names_round_trip():
    assert parse_cards("7H 7S JK") == [19, 6, JOKER]
    assert parse_cards("7H,7S, JK") == [19, 6, JOKER]
    assert parse_cards(["AS", "KC"]) == [0, 51]
    for k in range(53):
        assert parse_card(card_name(k)) == k
    assert cards_name([19, JOKER]) == "7♥ 🃏"
    with pytest.raises(ValueError):
        card_name(53)
    with pytest.raises(ValueError):
        card(13, 0)
    with pytest.raises(ValueError):
        card(0, 4)


@pytest.mark.parametrize(
    ("text", "value", "rank", "suit"),
    [
        ("AS", 1, 0, 0),
        ("2H", 2, 1, 1),
        ("9D", 9, 8, 2),
        ("10C", 10, 9, 3),
        ("JS", 10, 10, 0),
        ("QH", 10, 11, 1),
        ("KD", 10, 12, 2),
        ("JK", 0, -1, -1),
    ],
)
def test_card_values(text, value, rank, suit):
    k = parse_card(text)
    assert (YANIV_VALUE[k], RANK[k], SUIT[k]) == (value, rank, suit)
    if k != JOKER:
        assert card(rank, suit) == k == suit * 13 + rank


@pytest.mark.parametrize(("jokers", "decks", "size"), [(0, 1, 52), (2, 1, 54), (2, 2, 108), (0, 2, 104)])
def test_standard_deck(jokers, decks, size):
    deck = standard_deck(jokers, decks)
    counts = Counter(deck)
    assert len(deck) == size
    assert all(counts[k] == decks for k in range(52))
    assert counts[JOKER] == jokers * decks


# -- presets against the variant table --------------------------------------------------

# One row per option the rules document's table fixes, per preset (source file in the comment).
EXPECTED = {
    # 002: call ≤5, reveal, halve at ×50, out reaching 200, any card of a set, run ends.
    "standard": dict(
        jokers_per_deck=2,
        hand_size=5,
        call_max=5,
        challenge="reveal",
        penalty=30,
        beaten_winners_score="zero",
        run_min=3,
        run_jokers_max=None,
        run_jokers_at_ends=True,
        set_pickup="any",
        run_pickup="ends",
        slam="same_rank",
        slam_from_stock_only=True,
        blast=False,
        empty_hand_wins=False,
        milestone="halve",
        milestone_every=50,
        game_end="last_standing",
        score_limit=200,
        limit_inclusive=True,
        rounds_per_player=None,
    ),
    # 000: call ≤7, one inner joker per run, top-card pick-up, 50→0/100→50, first over 100.
    "seven": dict(
        jokers_per_deck=2,
        hand_size=5,
        call_max=7,
        challenge="reveal",
        penalty=30,
        beaten_winners_score="hand",
        run_min=3,
        run_jokers_max=1,
        run_jokers_at_ends=False,
        set_pickup="top",
        run_pickup="ends",
        slam="single",
        slam_from_stock_only=False,
        blast=False,
        empty_hand_wins=False,
        milestone="table",
        milestone_table=((50, 0), (100, 50)),
        game_end="first_to_limit",
        score_limit=100,
        limit_inclusive=False,
        rounds_per_player=None,
    ),
    # 001: no jokers, Asaf duel, any card, Flash, Blast, empty hand wins, -50, out above 200.
    "french": dict(
        jokers_per_deck=0,
        hand_size=5,
        call_max=5,
        challenge="asaf",
        penalty=30,
        run_min=3,
        set_pickup="any",
        run_pickup="any",
        slam="same_rank",
        slam_from_stock_only=True,
        blast=True,
        empty_hand_wins=True,
        milestone="subtract",
        milestone_every=50,
        milestone_subtract=50,
        game_end="last_standing",
        score_limit=200,
        limit_inclusive=False,
    ),
    # 004: 2-5 players, two decks from 4, call < 6, one joker anywhere, set ends, no slam.
    "two_deck": dict(
        max_players=5,
        jokers_per_deck=2,
        two_decks_from=4,
        hand_size=5,
        call_max=5,
        challenge="reveal",
        penalty=30,
        beaten_winners_score="zero",
        run_min=3,
        run_jokers_max=1,
        run_jokers_at_ends=True,
        set_pickup="ends",
        run_pickup="ends",
        slam="none",
        blast=False,
        empty_hand_wins=False,
        milestone="none",
        game_end="first_to_limit",
        limit_inclusive=True,
    ),
}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_options_follow_the_variant_table(name):
    rules = PRESETS[name]
    assert rules.name == name
    assert isinstance(rules, Rules)
    for option, value in EXPECTED[name].items():
        assert getattr(rules, option) == value, f"{name}.{option}"
    assert PRESET_SOURCES[name].endswith(".txt")
    assert get_rules(name) is rules
    assert hash(rules) == hash(dataclasses.replace(rules))


def test_default_preset_is_002():
    assert Rules().replace(name="standard") == PRESETS["standard"]
    assert get_rules() is PRESETS["standard"]
    assert PRESET_SOURCES["standard"].startswith("002_")
    assert PRESET_SOURCES["seven"].startswith("000_")
    assert PRESET_SOURCES["french"].startswith("001_")
    assert PRESET_SOURCES["two_deck"].startswith("004_")


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_preset_builds_for_2_to_5_players(name, players):
    rules = get_rules(name, players)
    assert rules.num_players == players
    assert rules.name == name
    assert rules.num_players * rules.hand_size + 2 <= rules.deck_size
    assert name in rules.describe()


@pytest.mark.parametrize(
    ("players", "decks", "deck_size", "jokers"),
    [(2, 1, 54, 2), (3, 1, 54, 2), (4, 2, 108, 4), (5, 2, 108, 4)],
)
def test_two_deck_uses_two_packs_for_4_and_5_players(players, decks, deck_size, jokers):
    rules = PRESETS["two_deck"].with_players(players)
    assert rules.num_decks == decks
    assert rules.deck_size == deck_size
    assert rules.num_jokers == jokers


@pytest.mark.parametrize(("name", "deck_size", "jokers"), [("standard", 54, 2), ("seven", 54, 2), ("french", 52, 0)])
@pytest.mark.parametrize("players", [2, 5, 10])
def test_single_deck_presets(name, deck_size, jokers, players):
    rules = get_rules(name, players)
    assert rules.num_decks == 1
    assert (rules.deck_size, rules.num_jokers) == (deck_size, jokers)


@pytest.mark.parametrize(
    ("name", "players", "max_run_jokers"),
    [("standard", 2, 2), ("seven", 2, 1), ("french", 2, 0), ("two_deck", 2, 1), ("two_deck", 4, 1)],
)
def test_max_run_jokers(name, players, max_run_jokers):
    assert get_rules(name, players).max_run_jokers == max_run_jokers


def test_replace_validates_and_keeps_the_original():
    rules = PRESETS["standard"]
    other = rules.replace(call_max=7)
    assert other.call_max == 7 and rules.call_max == 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.call_max = 3  # type: ignore[misc]
    assert "call_max = 7" in other.describe()


# -- validation --------------------------------------------------------------------------

BAD_OPTIONS = [
    # bad literal values
    (lambda: Rules(challenge="duel"), "challenge"),
    (lambda: Rules(beaten_winners_score="half"), "beaten_winners_score"),
    (lambda: Rules(set_pickup="bottom"), "set_pickup"),
    (lambda: Rules(run_pickup="middle"), "run_pickup"),
    (lambda: Rules(set_jokers="all"), "set_jokers"),
    (lambda: Rules(next_leader="loser"), "next_leader"),
    (lambda: Rules(beaten_caller_alone=1), "beaten_caller_alone"),
    (lambda: Rules(beaten_caller_alone=True, beaten_winners_score="hand"), "beaten_caller_alone"),
    (lambda: Rules(slam_joker_on_joker="yes"), "slam_joker_on_joker"),
    (lambda: Rules(private_windows=None), "private_windows"),
    (lambda: Rules(milestone_max=20), "milestone_max"),
    (lambda: Rules(milestone_max=200.0), "milestone_max"),
    (lambda: Rules(milestone="none", milestone_max=200), "milestone_max"),
    (lambda: Rules(slam="always"), "slam"),
    (lambda: Rules(milestone="double"), "milestone"),
    (lambda: Rules(game_end="sudden_death"), "game_end"),
    (lambda: Rules(stock_exhaustion="redeal"), "stock_exhaustion"),
    # bad numbers and types
    (lambda: Rules(num_players=1), "num_players"),
    (lambda: Rules(num_players=0), "num_players"),
    (lambda: Rules(num_players=True), "num_players"),
    (lambda: Rules(num_players=2.0), "num_players"),
    (lambda: Rules(hand_size=0), "hand_size"),
    (lambda: Rules(call_max=-1), "call_max"),
    (lambda: Rules(penalty=-30), "penalty"),
    (lambda: Rules(jokers_per_deck=-1), "jokers_per_deck"),
    (lambda: Rules(decks=3), "decks"),
    (lambda: Rules(decks=0), "decks"),
    (lambda: Rules(two_decks_from=1), "two_decks_from"),
    (lambda: Rules(run_min=2), "run_min"),
    (lambda: Rules(run_jokers_max=-1), "run_jokers_max"),
    (lambda: Rules(max_players=1), "max_players"),
    (lambda: Rules(score_limit=0), "score_limit"),
    (lambda: Rules(turn_limit=0), "turn_limit"),
    (lambda: Rules(round_limit=0), "round_limit"),
    (lambda: Rules(milestone_every=0), "milestone_every"),
    (lambda: Rules(name=3), "name"),
    # too many players for the deck or the rules
    (lambda: PRESETS["standard"].with_players(11), "num_players"),
    (lambda: PRESETS["seven"].with_players(11), "num_players"),
    (lambda: PRESETS["french"].with_players(11), "num_players"),
    (lambda: PRESETS["two_deck"].with_players(6), "num_players"),
    (lambda: Rules(num_players=3, max_players=2), "num_players"),
    (lambda: Rules(num_players=2, hand_size=30), "num_players"),
    # Blast is a four of a kind of one deck
    (lambda: PRESETS["french"].replace(decks=2), "blast"),
    (lambda: PRESETS["french"].replace(two_decks_from=2), "blast"),
    (lambda: PRESETS["two_deck"].with_players(4).replace(blast=True), "blast"),
    # milestone table misuse
    (lambda: Rules(milestone="table"), "milestone_table"),
    (lambda: Rules(milestone="table", milestone_table=()), "milestone_table"),
    (lambda: Rules(milestone="halve", milestone_table=((50, 0),)), "milestone_table"),
    (lambda: Rules(milestone="none", milestone_table=((50, 0),)), "milestone_table"),
    (lambda: Rules(milestone="table", milestone_table=((50,),)), "milestone_table"),
    (lambda: Rules(milestone="table", milestone_table=((50, -1),)), "milestone_table"),
    (lambda: Rules(milestone="table", milestone_table=((50, "0"),)), "milestone_table"),
    (lambda: Rules(milestone="table", milestone_table=([50, 0],)), "milestone_table"),
    # a fixed number of rounds only with first_to_limit
    (lambda: Rules(rounds_per_player=3), "rounds_per_player"),
    (lambda: PRESETS["standard"].replace(rounds_per_player=5), "rounds_per_player"),
    (lambda: Rules(game_end="first_to_limit", rounds_per_player=0), "rounds_per_player"),
]


@pytest.mark.parametrize(("build", "option"), BAD_OPTIONS)
def test_invalid_options_raise_value_error_naming_the_option(build, option):
    with pytest.raises(ValueError) as err:
        build()
    assert f"Rules.{option}:" in str(err.value)


@pytest.mark.parametrize(
    "build",
    [
        lambda: PRESETS["standard"].with_players(10),
        lambda: PRESETS["seven"].with_players(10),
        lambda: PRESETS["french"].with_players(10),  # 50 cards dealt + face-up + stock = 52
        lambda: PRESETS["two_deck"].with_players(5),
        lambda: PRESETS["french"].replace(two_decks_from=4, num_players=3),  # still one deck
        lambda: Rules(game_end="first_to_limit", rounds_per_player=1),
        lambda: Rules(milestone="table", milestone_table=((75, 0),)),
        lambda: Rules(milestone="none"),
        lambda: Rules(call_max=0, penalty=0, jokers_per_deck=0),
    ],
)
def test_valid_edge_options_build(build):
    rules = build()
    assert rules.num_players * rules.hand_size + 2 <= rules.deck_size


def test_get_rules_errors():
    with pytest.raises(ValueError, match="unknown rules preset 'nope'"):
        get_rules("nope")
    with pytest.raises(ValueError, match="rules must be"):
        get_rules(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Rules.num_players"):
        get_rules("two_deck", 6)
    custom = Rules(call_max=3)
    assert get_rules(custom) is custom
    assert get_rules(custom, 4).num_players == 4


def test_rules_document_names_every_preset_source_and_option():
    """The project's rules document ships in the package, names each preset's source file
    and describes every option of Rules."""
    import dataclasses
    from importlib.resources import files

    from yaniv_env.yaniv.rules import PRESET_SOURCES

    text = (files("yaniv_env.yaniv") / "RULES.md").read_text(encoding="utf-8")
    for preset, source in PRESET_SOURCES.items():
        assert f"`{source}`" in text and f"`{preset}`" in text
    for f in dataclasses.fields(Rules):
        assert f"| `{f.name}` |" in text, f.name
    assert "shared/rules" not in text


def test_with_options_reads_option_value_strings():
    rules = PRESETS["seven"].with_options(
        ["call_max=6", "jokers_per_deck = 0", "challenge=asaf", "blast=true", "run_jokers_max=None"]
    )
    assert (rules.call_max, rules.jokers_per_deck, rules.challenge, rules.blast) == (6, 0, "asaf", True)
    assert rules.run_jokers_max is None
    assert rules.set_pickup == PRESETS["seven"].set_pickup  # everything else is the preset's
    table = PRESETS["standard"].with_options(["milestone=table", "milestone_table=[[50, 0], [100, 50]]"])
    assert table.milestone_table == ((50, 0), (100, 50))
    assert PRESETS["standard"].with_options([]) is PRESETS["standard"]


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("colour=3", "unknown rule option 'colour'"),
        ("call_max", "expected option=value"),
        ("call_max=seven", "'call_max': 'seven' is not of type int"),
        ("blast=1", "'blast': '1' is not of type bool"),
        ("num_players=3", "'num_players' cannot be set"),
        ("challenge=duel", "Rules.challenge"),
        ("call_max=-1", "Rules.call_max"),
    ],
)
def test_with_options_refuses_bad_assignments(assignment, message):
    with pytest.raises(ValueError, match=message):
        PRESETS["standard"].with_options([assignment])


# -- types at the edge: every field of every game's rules takes only values of its own type -------------------------

#: Values of many types; each field must refuse those whose type its annotation does not name.
HOSTILE_VALUES = [True, False, 3, 2.0, float("nan"), "no", b"reveal", None, (1, 2), [1, 2], np.int64(3), np.True_]


def _accepted_types(annotation) -> set[type]:
    """The Python types a field annotated so may hold (unions, Literal choices, tuples)."""
    if annotation in (bool, int, str):
        return {annotation}
    if annotation is type(None):
        return {type(None)}
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_accepted_types(a) for a in typing.get_args(annotation)))
    if origin is typing.Literal:
        return {str}
    assert origin is tuple, annotation
    return {tuple}


def _fields(rules_class):
    hints = typing.get_type_hints(rules_class)
    return [(rules_class, f.name, hints[f.name]) for f in dataclasses.fields(rules_class)]


@pytest.mark.parametrize(
    ("rules_class", "field", "annotation"),
    _fields(Rules) + _fields(PisRules),
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_every_field_refuses_values_of_another_type(rules_class, field, annotation):
    wrong = [v for v in HOSTILE_VALUES if type(v) not in _accepted_types(annotation)]
    if typing.get_origin(annotation) is typing.Literal or str(annotation).count("Literal"):
        wrong.append("not-a-choice")
    if typing.get_origin(annotation) is tuple:
        wrong += [(True,) * 13, ((50, 0.0),), ((50,),), ("1",)]
    assert wrong
    for value in wrong:
        with pytest.raises(ValueError) as err:
            rules_class(**{field: value})
        assert f"Rules.{field}: expected " in str(err.value) and repr(value) in str(err.value), (value, err.value)


def test_type_errors_say_what_is_expected():
    with pytest.raises(ValueError, match=r"Rules\.limit_inclusive: expected a bool \(True or False\), got 'no'"):
        Rules(limit_inclusive="no")
    with pytest.raises(ValueError, match=r"Rules\.num_players: expected an int, got 2\.0"):
        get_rules("standard", 2.0)
    with pytest.raises(ValueError, match=r"Rules\.challenge: expected one of 'reveal', 'asaf', got 'duel'"):
        Rules(challenge="duel")
    with pytest.raises(ValueError, match=r"Rules\.run_jokers_max: expected an int or None, got True"):
        Rules(run_jokers_max=True)
    with pytest.raises(ValueError, match=r"Rules\.rank_values: expected a tuple whose items are each an int"):
        PisRules(rank_values=[15, 2, 3, 4, 5, 6, 20, 8, 9, 10, 25, 10, 10])
    # the presets and every legal value still build
    for preset in PRESETS.values():
        assert Rules(**{f.name: getattr(preset, f.name) for f in dataclasses.fields(Rules)}) == preset
