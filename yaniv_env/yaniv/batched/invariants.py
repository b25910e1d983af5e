"""The rules' invariants over the batched engine's state, checked in compiled code.

Two checks, each a separate Numba function so that a test can hand it a corrupted state
(``tests/test_invariants.py``) and the sweep (:mod:`yaniv_env.tools.sweep`) calls the
same function inside its kernel at every decision:

* :func:`check_decision`, before every decision of a live game:

  - ``cards``: every card of the deck(s) exactly once across the hands, the stock, the
    pile, the top set and the discard laid before the draw, and the pile's counts equal
    to the pile;
  - ``hand_sizes``: every hand's counts are non-negative and add up to its size, between
    0 and ``hand_size``; a seat out of the game holds nothing;
  - ``totals``: the totals and the seats still in are those of the round's start (they
    move only when a round ends);
  - ``limits``: the round has had fewer than ``turn_limit`` turns and at most the
    decisions those turns can hold, the game is in a round below ``round_limit`` (and
    below its fixed round count), and the round index is the rounds the sweep has seen end;
  - ``legal_move``: the game is in a decision phase, the seat to act is in the game
    (after a call, every seat but the caller) and has a legal move.

* :func:`check_round_end`, right after the decision that ended a round, from the round's
  reason, caller and challenger (as the engine reports them) and the hands as they were
  before that decision:

  - ``round_points``: the hand totals are the hands' values, the caller could call, the
    points follow from the totals as ``RULES.md`` says (reveal or Asaf, beaten caller,
    ``beaten_winners_score``, ``beaten_caller_alone``, empty hand, draw);
  - ``totals``: each seat's new total is ``after_milestone(before + points)`` when it
    scored (else unchanged), in the state and in the reported result;
  - ``limits``: seats past the score limit are out (``last_standing``), the game ends
    exactly when the seats left, the score limit, the fixed round count or ``round_limit``
    say, and the round lasted at most ``turn_limit`` turns.

:func:`sweep_games` is the sweep's game loop (:mod:`yaniv_env.tools.sweep` drives it):
the engine's ``apply`` with both checks around every decision, all compiled together.

The reference they check against (:class:`Reference`) is built from the :class:`Rules`
object and the scalar engine's own functions (:func:`yaniv_env.yaniv.engine.after_milestone`,
:func:`~yaniv_env.yaniv.engine.past_limit`, the deck of :func:`~yaniv_env.yaniv.cards.standard_deck`),
never from the batched engine's tables, so a table that misleads the engine (a test plants
one) does not mislead the check.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from ...core.batched_random import mix64 as kmix64
from ..cards import NUM_KINDS, YANIV_VALUE, standard_deck
from ..engine import ASAF_PHASE, BLAST_PHASE, DISCARD, GAME_OVER, after_milestone, past_limit
from ..rules import Rules
from .kernels import (
    _GOLD,
    G_CALLER,
    G_CURRENT,
    G_PHASE,
    G_PILE_LEN,
    G_ROUND_INDEX,
    G_ROUND_TURNS,
    MAX_LEGAL,
    REASON_DRAW,
    REASON_EMPTY_HAND,
    REASON_YANIV,
    apply,
    below,
    count_cards,
    greedy_pick,
    legal_list,
    new_game,
)

#: The checks, by code (a violation is reported by its check's name).
CHECKS = ("cards", "hand_sizes", "totals", "round_points", "limits", "legal_move")
CARDS, HAND_SIZES, TOTALS, ROUND_POINTS, LIMITS, LEGAL_MOVE = range(len(CHECKS))
#: No violation.
PASSED = -1

# Indices into ``Reference.rules``.
(
    F_PLAYERS,
    F_HAND_SIZE,
    F_CALL_MAX,
    F_PENALTY,
    F_ASAF,
    F_BEATEN_ZERO,
    F_CALLER_ALONE,
    F_LAST_STANDING,
    F_TOTAL_ROUNDS,
    F_TURN_LIMIT,
    F_ROUND_LIMIT,
    F_DECISIONS_PER_TURN,
    NUM_FIELDS,
) = range(13)


class Reference(NamedTuple):
    """What the checks compare the state with, for one rule set (see the module docstring)."""

    rules: np.ndarray  # int64 [NUM_FIELDS]
    deck: np.ndarray  # int64 [53] cards of each kind in the deck(s)
    value: np.ndarray  # int64 [53] Yaniv value of each kind
    after_milestone: np.ndarray  # int64 [M] total -> total once the milestone applied
    past_limit: np.ndarray  # int8 [M] whether a total is past the score limit


@lru_cache(maxsize=64)
def reference(rules: Rules) -> Reference:
    """The (cached) :class:`Reference` of a rule set."""
    fields = np.zeros(NUM_FIELDS, np.int64)
    n = rules.num_players
    fields[F_PLAYERS] = n
    fields[F_HAND_SIZE] = rules.hand_size
    fields[F_CALL_MAX] = rules.call_max
    fields[F_PENALTY] = rules.penalty
    fields[F_ASAF] = rules.challenge == "asaf"
    fields[F_BEATEN_ZERO] = rules.beaten_winners_score == "zero"
    fields[F_CALLER_ALONE] = rules.beaten_caller_alone
    fields[F_LAST_STANDING] = rules.game_end == "last_standing"
    fields[F_TOTAL_ROUNDS] = -1 if rules.total_rounds is None else rules.total_rounds
    fields[F_TURN_LIMIT] = rules.turn_limit
    fields[F_ROUND_LIMIT] = rules.round_limit
    # a turn: a Blast window (every seat), a discard, a draw and a slam window; a call's
    # Asaf window and the window at the deal fit in two more turns (see check_decision)
    fields[F_DECISIONS_PER_TURN] = 3 + n
    # a total at a round's start is not past the limit (else the game or the seat is
    # over), and a round adds at most a full hand of tens and the penalty
    top = max(rules.score_limit, max(t for pair in rules.milestone_table for t in pair) if rules.milestone_table else 0)
    size = top + 10 * rules.hand_size + rules.penalty + 1
    return Reference(
        rules=fields,
        deck=np.bincount(standard_deck(rules.jokers_per_deck, rules.num_decks), minlength=NUM_KINDS).astype(np.int64),
        value=np.array(YANIV_VALUE, np.int64),
        after_milestone=np.array([after_milestone(rules, t) for t in range(size)], np.int64),
        past_limit=np.array([past_limit(rules, t) for t in range(size)], np.int8),
    )


@njit(cache=True)
def check_decision(st, tb, ref, b, round_scores, round_alive, rounds_played, round_decisions, buf, scratch, values):
    """The checks before a decision of the live game ``b`` (module docstring): returns
    ``(check, legal)``, the first check broken (``PASSED``: none) and the number of legal
    moves written into ``buf``. ``round_scores``/``round_alive`` [n]: the totals and seats in
    at the round's start; ``rounds_played``, ``round_decisions``: what the caller counted in
    this game and round. ``scratch`` int64 [2, 53] is working space; ``values`` [n] receives
    each hand's value (for :func:`check_round_end`)."""
    g, scores, alive, hands, hand_len = st.g, st.scores, st.alive, st.hands, st.hand_len
    pile, pile_cnt = st.pile, st.pile_cnt
    R = ref.rules
    n = R[F_PLAYERS]
    counts = scratch[0]
    counts[:] = 0
    count_cards(st, tb, b, counts)
    for k in range(NUM_KINDS):
        if counts[k] != ref.deck[k]:
            return CARDS, 0
    piled = scratch[1]
    piled[:] = 0
    for i in range(g[b, G_PILE_LEN]):
        piled[pile[b, i]] += 1
    for k in range(NUM_KINDS):
        if piled[k] != pile_cnt[b, k]:
            return CARDS, 0
    for p in range(n):
        size = 0
        value = 0
        for k in range(NUM_KINDS):
            c = hands[b, p, k]
            if c < 0:
                return HAND_SIZES, 0
            size += c
            value += c * ref.value[k]
        values[p] = value
        if size != hand_len[b, p] or size > R[F_HAND_SIZE] or (size > 0 and not alive[b, p]):
            return HAND_SIZES, 0
    for p in range(n):
        if scores[b, p] != round_scores[p] or alive[b, p] != round_alive[p]:
            return TOTALS, 0
    r = g[b, G_ROUND_INDEX]
    if (
        g[b, G_ROUND_TURNS] >= R[F_TURN_LIMIT]
        or round_decisions >= (R[F_TURN_LIMIT] + 2) * R[F_DECISIONS_PER_TURN]
        or r != rounds_played
        or r >= R[F_ROUND_LIMIT]
        or (R[F_TOTAL_ROUNDS] >= 0 and r >= R[F_TOTAL_ROUNDS])
    ):
        return LIMITS, 0
    phase = g[b, G_PHASE]
    seat = g[b, G_CURRENT]
    if phase < DISCARD or phase > BLAST_PHASE or seat < 0 or seat >= n or not alive[b, seat]:
        return LEGAL_MOVE, 0
    if phase == ASAF_PHASE and seat == g[b, G_CALLER]:
        return LEGAL_MOVE, 0
    count = legal_list(st, tb, b, buf)
    if count < 1 or count > MAX_LEGAL:
        return LEGAL_MOVE, 0
    return PASSED, count


@njit(cache=True)
def check_round_end(st, rs, ref, b, actor, round_scores, round_alive, values, rounds_played, game_over, expected):
    """The checks after a decision of ``actor`` that ended a round of game ``b`` (module
    docstring), with ``values`` the hands' values before that decision and
    ``rounds_played`` the rounds of the game including this one; ``game_over``: whether
    the engine ended the game; ``expected`` [n] receives the points the round should give.
    Returns the first check broken (``PASSED``: none)."""
    points = rs.points
    if not _hand_totals_hold(rs, ref, b, actor, round_alive, values):
        return ROUND_POINTS
    if not _expected_points(rs, ref, b, actor, round_alive, expected):
        return ROUND_POINTS
    for p in range(ref.rules[F_PLAYERS]):
        if points[b, p] != expected[p]:
            return ROUND_POINTS
    return _check_new_totals(st, rs, ref, b, round_scores, round_alive, rounds_played, game_over, expected)


@njit(cache=True, inline="always")
def _hand_totals_hold(rs, ref, b, actor, round_alive, values):
    """Whether the reported hand totals are the hands' values, but for the hand the last
    decision changed (a drawn round ends on a draw or a slam; an empty hand scores nothing)."""
    totals, reason = rs.hand_totals, rs.reason[b]
    for p in range(ref.rules[F_PLAYERS]):
        if not round_alive[p]:
            if totals[b, p] != -1:
                return False
        elif p != actor or reason == REASON_YANIV:
            if totals[b, p] != values[p]:
                return False
        elif reason == REASON_EMPTY_HAND and totals[b, p] != 0:
            return False
    return True


@njit(cache=True, inline="always")
def _expected_points(rs, ref, b, actor, round_alive, expected):
    """The points the round should give into ``expected``, from its reason and the hand
    totals; returns False when the reason, caller or challenger reported cannot be."""
    totals, reason = rs.hand_totals, rs.reason[b]
    n = ref.rules[F_PLAYERS]
    for p in range(n):
        expected[p] = 0
    if reason == REASON_YANIV:
        return _expected_call_points(rs, ref, b, round_alive, expected)
    if reason == REASON_EMPTY_HAND:
        for p in range(n):
            if round_alive[p] and p != actor:
                expected[p] = totals[b, p]
        return True
    return reason == REASON_DRAW


@njit(cache=True, inline="always")
def _expected_call_points(rs, ref, b, round_alive, expected):
    """:func:`_expected_points` after a Yaniv call (reveal or Asaf, beaten caller,
    ``beaten_winners_score``, ``beaten_caller_alone``); also checks the caller could call
    and whether the engine says the caller was beaten."""
    totals, caller, challenger, beaten = rs.hand_totals, rs.caller[b], rs.challenger[b], rs.caller_beaten[b]
    R = ref.rules
    n = R[F_PLAYERS]
    if caller < 0 or caller >= n or not round_alive[caller] or totals[b, caller] > R[F_CALL_MAX]:
        return False
    c = totals[b, caller]
    for p in range(n):
        if round_alive[p] and p != caller:
            expected[p] = totals[b, p]
    if R[F_ASAF]:
        won = challenger >= 0 and totals[b, challenger] <= c
        if challenger >= 0 and (challenger == caller or not round_alive[challenger]):
            return False
        if won:
            expected[challenger] = 0
            expected[caller] = c + R[F_PENALTY]
            if R[F_CALLER_ALONE]:
                for p in range(n):
                    if p != caller:
                        expected[p] = 0
        elif challenger >= 0:
            expected[challenger] = totals[b, challenger] + R[F_PENALTY]
    else:
        if challenger != -1:
            return False
        low = 1 << 30
        for p in range(n):
            if round_alive[p] and p != caller:
                low = min(low, totals[b, p])
        won = low <= c
        if won:
            expected[caller] = c + R[F_PENALTY]
            for p in range(n):
                if p != caller and (R[F_CALLER_ALONE] or (R[F_BEATEN_ZERO] and totals[b, p] == low)):
                    expected[p] = 0
    return beaten == won


@njit(cache=True, inline="always")
def _check_new_totals(st, rs, ref, b, round_scores, round_alive, rounds_played, game_over, expected):
    """The new totals (``TOTALS``) and who passed the score limit, who is out and whether the
    game is over (``LIMITS``), from the ``expected`` points."""
    scores, alive = st.scores, st.alive
    score_delta, scores_after, turns = rs.score_delta, rs.scores, rs.turns[b]
    R = ref.rules
    size = ref.after_milestone.shape[0]
    left = 0
    passed = False
    for p in range(R[F_PLAYERS]):
        total = round_scores[p]
        if round_alive[p] and expected[p] > 0:
            if total + expected[p] >= size:
                return TOTALS
            total = ref.after_milestone[total + expected[p]]
        if scores[b, p] != total or scores_after[b, p] != total or score_delta[b, p] != total - round_scores[p]:
            return TOTALS
        out = round_alive[p] != 0 and ref.past_limit[total] != 0
        passed |= out
        stays = round_alive[p] != 0 and not (out and R[F_LAST_STANDING])
        if (alive[b, p] != 0) != stays:
            return LIMITS
        left += stays
    if R[F_LAST_STANDING]:
        over = left <= 1
    else:
        over = passed or (R[F_TOTAL_ROUNDS] >= 0 and rounds_played >= R[F_TOTAL_ROUNDS])
    over = over or rounds_played >= R[F_ROUND_LIMIT]
    if game_over != over or rs.game_over[b] != over or turns > R[F_TURN_LIMIT]:
        return LIMITS
    return PASSED


#: Game counters of :func:`sweep_games`, in order (``truncated``: rounds cut at
#: ``turn_limit``; ``yaniv``, ``empty_hand`` and ``draw`` count the other rounds by reason).
STATS = ("games", "decisions", "rounds", "yaniv", "empty_hand", "draw", "truncated", "games_truncated")
# their indices; a round of reason r (REASON_*) counts at STAT_YANIV + r
STAT_GAMES, STAT_DECISIONS, STAT_ROUNDS, STAT_YANIV, _, _, STAT_TRUNCATED, STAT_GAMES_TRUNCATED = range(len(STATS))
_MOVES = 0x5EED_5EE9  # the stream of a game's moves, apart from its deals


@njit(cache=True)
def sweep_games(st, tb, rs, ref, games, batch_key, greedy_share, values, low_take, stats, violations, found):
    """Play ``games`` games in slot 0 of ``st`` (keys from ``batch_key``), checking every
    decision; add the counters (:data:`STATS`) to ``stats`` and the violations by check to
    ``violations``; ``found[i]`` = (check, game, round, decision) of the first violations
    (rows left at -1: none). Returns the number of violations found."""
    b = np.int64(0)  # not the literal 0: the kernels it is handed to are the env's compiled ones
    g = st.g
    n = ref.rules[F_PLAYERS]
    buf = np.empty(MAX_LEGAL, np.int64)
    scratch = np.zeros((2, NUM_KINDS), np.int64)
    hand_values = np.zeros(n, np.int64)
    expected = np.zeros(n, np.int64)
    round_scores = np.zeros(n, np.int64)
    round_alive = np.zeros(n, np.int8)
    greedy = np.zeros(n, np.bool_)
    threshold = np.uint64(greedy_share * 65536.0)
    reported = 0
    for i in range(games):
        key = kmix64(batch_key + _GOLD * np.uint64(i + 1))
        moves = kmix64(key ^ np.uint64(_MOVES))
        for p in range(n):
            greedy[p] = (kmix64(moves - _GOLD * np.uint64(p + 1)) >> np.uint64(48)) < threshold
        new_game(st, tb, b, key)
        round_scores[:] = 0
        round_alive[:] = 1
        # int64 counters from the start (Python's 0 is a literal to Numba: a second compile)
        rounds = decisions = round_decisions = np.int64(0)
        check = PASSED
        while True:
            check, count = check_decision(
                st, tb, ref, b, round_scores, round_alive, rounds, round_decisions, buf, scratch, hand_values
            )
            if check != PASSED:
                break
            seat = g[b, G_CURRENT]
            if greedy[seat]:
                a = greedy_pick(buf, count, values, low_take)
            else:
                a = buf[below(kmix64(moves + _GOLD * np.uint64(decisions + 1)), count)]
            rs.round_over[b] = False
            apply(st, tb, rs, b, a)
            decisions += 1
            round_decisions += 1
            if rs.round_over[b]:
                rounds += 1
                over = g[b, G_PHASE] == GAME_OVER
                check = check_round_end(
                    st, rs, ref, b, seat, round_scores, round_alive, hand_values, rounds, over, expected
                )
                if check != PASSED:
                    break
                if rs.truncated[b]:
                    stats[STAT_TRUNCATED] += 1
                else:
                    stats[STAT_YANIV + rs.reason[b]] += 1
                for p in range(n):
                    round_scores[p] = st.scores[b, p]
                    round_alive[p] = st.alive[b, p]
                round_decisions = 0
                if over:
                    stats[STAT_GAMES_TRUNCATED] += rs.game_truncated[b]
                    break
        stats[STAT_GAMES] += 1
        stats[STAT_DECISIONS] += decisions
        stats[STAT_ROUNDS] += rounds
        if check != PASSED:
            violations[check] += 1
            if reported < found.shape[0]:
                found[reported, 0] = check
                found[reported, 1] = i
                found[reported, 2] = rounds
                found[reported, 3] = decisions
            reported += 1
    return reported
