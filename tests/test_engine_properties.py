"""Properties of whole games under random play (hypothesis draws the preset, the player
count, the seeds and a few limits): cards are conserved, hands stay within the hand
size, scores move only at round ends and exactly as the round's points and the milestone
rule say, every game ends within its limits, and a seat's public view holds nothing that
is hidden from it.

The same invariants are checked in compiled code over millions of batched-engine games by
the sweep (:mod:`yaniv_env.tools.sweep`, tested in ``tests/test_invariants.py``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from yaniv_env import PRESETS
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.actions import CALL_YANIV
from yaniv_env.yaniv.cards import YANIV_VALUE, standard_deck

PRESET_NAMES = sorted(PRESETS)
# Whole games are slow to shrink and the seeds already pin a failure down: no shrinking, no database.
SETTINGS = settings(
    max_examples=20,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)

presets = st.sampled_from(PRESET_NAMES)
players = st.integers(min_value=2, max_value=5)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def deck_of(rules) -> Counter:
    return Counter(standard_deck(rules.jokers_per_deck, rules.num_decks))


# -- the scoring reference -----------------------------------------------------------------


def ref_milestone(rules, total: int) -> int:
    # 001 lists its steps as 50, 100, 150 and 200 (milestone_max): 250 is none
    step = total > 0 and total % rules.milestone_every == 0
    step = step and (rules.milestone_max is None or total <= rules.milestone_max)
    if rules.milestone == "halve" and step:
        return total // 2
    if rules.milestone == "subtract" and step:
        return total - rules.milestone_subtract
    if rules.milestone == "table":
        return dict(rules.milestone_table).get(total, total)
    return total


def ref_points(rules, res, alive) -> tuple[list[int], list[int]]:
    """The round's points and winners from the revealed hand totals, by the rules."""
    n = len(alive)
    seats = [p for p in range(n) if alive[p]]
    totals = res.hand_totals
    points = [0] * n
    if res.reason == "draw":
        return points, []
    if res.reason == "empty_hand":
        (winner,) = res.winners
        assert totals[winner] == 0
        for p in seats:
            points[p] = 0 if p == winner else totals[p]
        return points, [winner]
    caller = res.caller
    others = [p for p in seats if p != caller]
    for p in others:
        points[p] = totals[p]
    if rules.challenge == "asaf":
        challenger = res.challenger
        if challenger is None:
            return points, [caller]
        if totals[challenger] <= totals[caller]:  # ties go to the challenger
            points[challenger] = 0
            points[caller] = totals[caller] + rules.penalty
            return points, [challenger]
        points[challenger] = totals[challenger] + rules.penalty
        return points, [caller]
    low = min(totals[p] for p in others)
    if low > totals[caller]:
        return points, [caller]
    winners = [p for p in others if totals[p] == low]
    if rules.beaten_winners_score == "zero":
        for p in winners:
            points[p] = 0
    points[caller] = totals[caller] + rules.penalty
    return points, winners


def passed(rules, score: int) -> bool:
    return score > rules.score_limit or (rules.limit_inclusive and score >= rules.score_limit)


def check_round_end(s, scores_before, alive_before, hands_before_call) -> bool:
    """Check a round's result against the reference; return whether the game is over."""
    rules = s.rules
    res = s.round_result
    n = s.num_players
    assert res is not None
    assert res.hand_totals == [sum(YANIV_VALUE[k] for k in s.hands[p]) if alive_before[p] else None for p in range(n)]
    if res.reason == "yaniv":
        assert res.hand_totals[res.caller] <= rules.call_max
        assert hands_before_call is None or sorted(hands_before_call) == sorted(s.hands[res.caller])
    points, winners = ref_points(rules, res, alive_before)
    assert res.points == points
    assert sorted(res.winners) == sorted(winners)
    expected = list(scores_before)
    for p in range(n):
        if alive_before[p] and points[p] > 0:
            expected[p] = ref_milestone(rules, expected[p] + points[p])
    assert s.scores == expected == res.scores
    out = [p for p in range(n) if alive_before[p] and passed(rules, expected[p])]
    rounds_played = s.round_index + 1
    if rules.game_end == "last_standing":
        assert res.eliminated == out
        assert s.alive == [alive_before[p] and p not in out for p in range(n)]
        over = sum(s.alive) <= 1
    else:
        assert res.eliminated == [] and s.alive == alive_before
        over = bool(out) or (rules.rounds_per_player is not None and rounds_played >= rules.rounds_per_player * n)
    if not over and rounds_played >= rules.round_limit:
        over = True
        assert s.game_truncated
    if res.truncated:  # the turn limit
        assert res.reason == "draw" and s.round_turns >= rules.turn_limit
    elif res.reason == "draw":  # the stock ran out under the "draw" option (possibly on the last allowed turn)
        assert rules.stock_exhaustion == "draw" and not s.stock
    else:
        assert s.round_turns <= rules.turn_limit
    assert (s.phase == engine.GAME_OVER) == over
    if not over:
        assert s.next_first in winners or not winners
        assert s.alive[s.next_first]
    return over


# -- invariants ---------------------------------------------------------------------------------


def check_invariants(s, deck: Counter) -> None:
    rules = s.rules
    assert engine.all_cards(s) == deck
    for p in range(s.num_players):
        hand = s.hands[p]
        assert len(hand) <= rules.hand_size
        assert not (Counter(s.known[p]) - Counter(hand)), "a known card is not in its holder's hand"
        if not s.alive[p] and s.phase < engine.ROUND_OVER:  # revealed hands stay until the next deal
            assert hand == [] and s.known[p] == []
    assert sum(s.alive) >= 1
    if s.phase < engine.ROUND_OVER:
        assert s.alive[s.current] and s.alive[s.turn_player]
        assert engine.legal_actions(s), "a decision with no legal action"
        assert set(s.takeable) <= set(s.top) and s.takeable


def resample_hidden(s, seat: int, g: np.random.Generator):
    """A copy of ``s`` where every card hidden from ``seat`` (other hands except their
    known cards, and the stock) is dealt again at random, sizes kept."""
    t = s.copy()
    pool = list(t.stock)
    hidden_sizes = {}
    for q in range(t.num_players):
        if q == seat:
            continue
        hidden = list((Counter(t.hands[q]) - Counter(t.known[q])).elements())
        hidden_sizes[q] = len(hidden)
        pool += hidden
    pool = [pool[i] for i in g.permutation(len(pool))]
    for q, size in hidden_sizes.items():
        t.hands[q] = list(t.known[q]) + pool[:size]
        pool = pool[size:]
    t.stock = pool
    return t


def check_public_view(s, g: np.random.Generator) -> None:
    for seat in range(s.num_players):
        view = engine.public_view(s, seat)
        assert view.seat == seat
        assert view.hand == tuple(s.hands[seat])
        assert view.known == tuple(tuple(k) for k in s.known)
        assert view.hand_sizes == tuple(len(h) for h in s.hands)
        assert view.stock_size == len(s.stock)
        for q in range(s.num_players):
            assert Counter(view.known[q]) <= Counter(s.hands[q])
        # nothing in the view depends on cards hidden from the seat
        other = resample_hidden(s, seat, g)
        assert engine.all_cards(other) == engine.all_cards(s)
        assert engine.public_view(other, seat) == view
    names = {f for f in engine.PublicView.__dataclass_fields__}
    assert "hands" not in names and "stock" not in names


# -- a checked game ------------------------------------------------------------------------------


def play_checked(rules, seed: int, policy_seed: int, view_every: int = 0, call_bias: float = 0.0) -> dict:
    s = engine.new_game(rules, seed=seed)
    g = np.random.default_rng(policy_seed)
    deck = deck_of(rules)
    n = rules.num_players
    # per round: discard, draw and slam per turn, a Blast window that every other seat may
    # answer (private windows) after each turn and after the deal, and the Asaf answers
    max_decisions = (rules.turn_limit + 1) * (3 + n - 1) + 2 * n + 2
    rounds = 1
    decisions = 0
    stats = Counter()
    caller_hand = None
    while True:
        check_invariants(s, deck)
        if s.phase == engine.GAME_OVER:
            break
        if s.phase == engine.ROUND_OVER:
            engine.start_next_round(s)
            rounds += 1
            decisions = 0
            assert s.round_index == rounds - 1
            assert [len(h) for h in s.hands] == [rules.hand_size if a else 0 for a in s.alive]
            continue
        scores_before, alive_before = list(s.scores), list(s.alive)
        acts = engine.legal_actions(s)
        if call_bias and CALL_YANIV in acts and g.random() < call_bias:
            action = CALL_YANIV
        else:
            action = acts[int(g.integers(len(acts)))]
        if action == CALL_YANIV:
            caller_hand = list(s.hands[s.current])
        if view_every and int(g.integers(view_every)) == 0:
            check_public_view(s, g)
        engine.apply(s, action)
        decisions += 1
        assert decisions <= max_decisions, "a round outlived its turn limit"
        assert s.round_turns <= rules.turn_limit
        if s.phase in (engine.ROUND_OVER, engine.GAME_OVER):
            stats[s.round_result.reason] += 1
            stats["truncated"] += s.round_result.truncated
            check_round_end(s, scores_before, alive_before, caller_hand)
            caller_hand = None
        else:
            assert s.scores == scores_before, "scores changed outside a round end"
            assert s.alive == alive_before
        assert rounds <= rules.round_limit
    if rules.rounds_per_player is not None:
        assert rounds <= rules.rounds_per_player * n
    stats["rounds"] = rounds
    places = engine.ranking(s)
    assert min(places) == 0 and all(0 <= x < n for x in places)
    return stats


@SETTINGS
@given(preset=presets, n=players, seed=seeds, policy_seed=seeds)
@example(preset="french", n=5, seed=1146811, policy_seed=497)  # 192 + 58 = 250: past 200, no step
def test_random_games_keep_every_invariant(preset, n, seed, policy_seed):
    stats = play_checked(PRESETS[preset].with_players(n), seed, policy_seed, view_every=15, call_bias=0.5)
    assert stats["rounds"] >= 1


@settings(SETTINGS, max_examples=40)
@given(
    preset=presets,
    n=players,
    seed=seeds,
    policy_seed=seeds,
    turn_limit=st.sampled_from([3, 40, 150]),
    round_limit=st.sampled_from([1, 2, 6]),
    exhaustion=st.sampled_from(["reshuffle", "draw"]),
)
def test_games_end_within_their_limits(preset, n, seed, policy_seed, turn_limit, round_limit, exhaustion):
    rules = (
        PRESETS[preset]
        .with_players(n)
        .replace(turn_limit=turn_limit, round_limit=round_limit, stock_exhaustion=exhaustion)
    )
    stats = play_checked(rules, seed, policy_seed, call_bias=0.05)
    assert stats["rounds"] <= round_limit


@settings(SETTINGS, max_examples=30)
@given(preset=presets, n=players, seed=seeds, policy_seed=seeds, exhaustion=st.sampled_from(["reshuffle", "draw"]))
def test_kept_card_counts_equal_counts_made_afresh(preset, n, seed, policy_seed, exhaustion):
    """Once made, the card counts the engine keeps for the observation builder equal counts
    made from the state's lists after every move (an illegal one changes nothing); a new
    deal and a copy start without them."""
    rules = PRESETS[preset].with_players(n).replace(stock_exhaustion=exhaustion, turn_limit=80)
    s = engine.new_game(rules, seed=seed)
    g = np.random.default_rng(policy_seed)
    assert s._counts is None
    while True:
        kept = engine.card_counts(s)
        assert s._counts is kept and s.copy()._counts is None
        assert kept == engine.card_counts(s.copy())
        if s.phase == engine.GAME_OVER:
            break
        if s.phase == engine.ROUND_OVER:
            engine.start_next_round(s)
            assert s._counts is None
            continue
        acts = engine.legal_actions(s)
        if int(g.integers(5)) == 0:
            before = bytes(kept)
            illegal = next(a for a in range(s.table.num_actions) if a not in acts)
            with pytest.raises(engine.IllegalActionError):
                engine.apply(s, illegal)
            assert bytes(kept) == before
        engine.apply(s, acts[int(g.integers(len(acts)))])
    # every card out of the stock once, the known and the takeable ones twice
    assert sum(kept) == sum(deck_of(rules).values()) - len(s.stock) + sum(map(len, s.known)) + len(s.takeable)


def test_card_count_rows():
    assert engine.count_rows(2) == {
        "hand_0": 0, "hand_1": 1, "known_0": 2, "known_1": 3,
        "takeable": 4, "top": 5, "pending": 6, "pile": 7, "zeros": 8,
    }  # fmt: skip


@settings(max_examples=15, deadline=None, database=None)
@given(preset=presets, n=players, seed=seeds)
def test_dealt_state(preset, n, seed):
    rules = PRESETS[preset].with_players(n)
    s = engine.new_game(rules, seed=seed)
    assert engine.all_cards(s) == deck_of(rules)
    assert [len(h) for h in s.hands] == [rules.hand_size] * n
    assert len(s.top) == 1 and s.pile == [] and s.scores == [0] * n
    assert len(s.stock) == rules.deck_size - n * rules.hand_size - 1
    assert s.known == [[] for _ in range(n)]
    assert 0 <= s.first_player < n and s.turn_player == s.first_player
    assert s.phase in (engine.DISCARD, engine.BLAST_PHASE)


def test_public_view_depends_only_on_what_the_seat_may_know():
    """Two positions that differ only in a card P0 drew from the stock, one that P0 may
    slam down and one it may not, look the same to P1 (private windows: P0 answers the
    slam window either way); a card P0 took from the discard is known to P1."""
    from yaniv_env.yaniv.cards import parse_cards

    rules = PRESETS["standard"]
    views = []
    for drawn in ("7C", "4D"):
        deck = deck_of(rules)
        hands = [parse_cards("7H 2C 3D"), parse_cards("KS QS")]
        top = parse_cards("5S")
        rest = deck - Counter(hands[0] + hands[1] + top) - Counter(parse_cards(drawn))
        stock = sorted(rest.elements()) + parse_cards(drawn)
        s = engine.from_position(rules, hands, top, stock=stock)
        engine.apply(s, s.table.encode_discard(parse_cards("7H")))
        engine.apply(s, 0)  # draw from the stock
        assert parse_cards(drawn)[0] in s.hands[0]
        views.append((engine.public_view(s, 1), engine.public_view(s, 0)))
        assert s.phase == engine.SLAM_PHASE and s.current == 0
        assert engine.legal_actions(s) == ([engine.SLAM, engine.PASS] if drawn == "7C" else [engine.PASS])
        if drawn == "4D":
            engine.apply(s, engine.PASS)
            engine.apply(s, s.table.encode_discard(parse_cards("KS")))
            engine.apply(s, 6 + parse_cards("7H")[0])  # P1 takes the 7H back: now public
            assert engine.public_view(s, 0).known[1] == tuple(parse_cards("7H"))
    assert views[0][0] == views[1][0]
    assert views[0][1] != views[1][1]
    assert views[0][0].hand_sizes == (3, 2) and views[0][0].known == ((), ())
