"""Numba kernels of the batched engine: the scalar engine's rules (:mod:`yaniv_env.yaniv.engine`)
over struct-of-arrays state, one game at a time inside loops over the batch.

The state of a batch (``st``) is a :class:`BatchState`, the per-step results (``rs``) a
:class:`StepArrays`: named tuples of arrays, whose fields the kernels read by name (a
field's name compiles to the same static index as its position).

Speed: the helpers on a decision's path (legal moves, ``apply`` and what it calls) are
inlined by Numba (``inline="always"``). Each takes the state and table tuples and unpacks
the arrays it needs, and as separate compiled functions every unpacked array cost a
reference-count increment and decrement (atomic operations, a third of a random-play
decision's time); inlined, Numba drops them. Per-round and per-game work (``_deal``,
``_end_round``, ``new_game``) stays out of line.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np
from numba import njit

from ...core.batched_random import below, mix64
from ...core.seeding import DEAL, GOLDEN, LOTS, RESHUFFLE
from ..actions import ASAF, BLAST, CALL_YANIV, DISCARD_BASE, DRAW_STOCK, PASS, SLAM, TAKE_BASE
from ..cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS
from ..engine import ASAF_PHASE, BLAST_PHASE, DISCARD, DRAW, GAME_OVER, ROUND_OVER, SLAM_PHASE
from .tables import (
    O_ALIVE,
    O_CALLER,
    O_DRAWN,
    O_HAND,
    O_HAND_SIZES,
    O_KNOWN,
    O_OUT_OF_PLAY,
    O_PENDING,
    O_PHASE,
    O_ROUND_PROGRESS,
    O_ROUNDS_LEFT,
    O_SCORES,
    O_STOCK,
    O_TAKEABLE,
    O_TOP,
    O_TURN_PLAYER,
    R_ASAF,
    R_BEATEN_CALLER_ALONE,
    R_BEATEN_ZERO,
    R_BLAST,
    R_CALL_MAX,
    R_DECKS,
    R_EMPTY_WINS,
    R_HAND_SIZE,
    R_JOKERS_PER_DECK,
    R_LAST_STANDING,
    R_LIMIT_INCLUSIVE,
    R_MAX_RUN_JOKERS,
    R_MILESTONE,
    R_MILESTONE_EVERY,
    R_MILESTONE_MAX,
    R_MILESTONE_SUBTRACT,
    R_NEXT_LEADER_CALLER,
    R_PENALTY,
    R_PLAYERS,
    R_PRIVATE_WINDOWS,
    R_RESHUFFLE,
    R_ROUND_LIMIT,
    R_ROUNDS_PER_PLAYER,
    R_RUN_MAX,
    R_RUN_MIN,
    R_RUN_PICKUP,
    R_SCORE_LIMIT,
    R_SET_JOKER_MIN,
    R_SET_JOKERS_MAX,
    R_SET_PICKUP,
    R_SLAM,
    R_SLAM_JOKER_ON_JOKER,
    R_SLAM_STOCK_ONLY,
    R_TURN_LIMIT,
    SCALE_HAND_SIZE,
    SCALE_ROUND_TURNS,
    SCALE_SCORE,
    SCALE_STOCK,
)

# Scalar fields of a game (columns of ``g``).
(
    G_PHASE,
    G_CURRENT,
    G_TURN_PLAYER,
    G_CALLER,
    G_STOCK_LEN,
    G_PILE_LEN,
    G_TOP_LEN,
    G_TOP_FLASHED,
    G_PENDING,
    G_DRAWN,
    G_DRAWN_FROM_STOCK,
    G_ROUND_INDEX,
    G_ROUND_TURNS,
    G_TURNS,
    G_FIRST_PLAYER,
    G_NEXT_FIRST,
    G_GAME_TRUNCATED,
    G_DRAW_ENDS_ROUND,
    G_RESHUFFLES,
    G_BLAST_RANK,
    G_DECISIONS,
    G_DRAWN_SLAMMABLE,
    NG,
) = range(23)


class BatchState(NamedTuple):
    """The state of ``B`` games of one rule set (``n`` seats, ``D`` cards, top sets of up to
    ``T`` cards), per game ``b``:

    ==============  ===============  =====================================================
    field           shape            meaning
    ==============  ===============  =====================================================
    g               int64 [B, NG]    scalar fields (``G_*`` columns)
    scores          int64 [B, n]     cumulative totals
    alive           int8 [B, n]      seats still in the game
    out_round       int64 [B, n]     round a seat went out in (-1: in)
    hands           int8 [B, n, 53]  card counts of each hand
    hand_len        int64 [B, n]     cards in each hand
    known           int8 [B, n, 53]  cards each seat is known to hold
    stock           int8 [B, D]      the stock in order (last drawn first), ``G_STOCK_LEN``
    pile            int8 [B, D]      cards below the top set in order, ``G_PILE_LEN``
    pile_cnt        int8 [B, 53]     the same as counts
    top             int8 [B, T]      the top set as laid, ``G_TOP_LEN``
    takeable        int8 [B, 53]     1 for the kinds the next player may take
    keys            uint64 [B]       the game key (:mod:`yaniv_env.core.seeding`)
    ==============  ===============  =====================================================

    Order matters where it matters in the scalar engine (stock, pile and top are lists there);
    hands and known cards are counts (the scalar engine's list order never shows)."""

    g: np.ndarray
    scores: np.ndarray
    alive: np.ndarray
    out_round: np.ndarray
    hands: np.ndarray
    hand_len: np.ndarray
    known: np.ndarray
    stock: np.ndarray
    pile: np.ndarray
    pile_cnt: np.ndarray
    top: np.ndarray
    takeable: np.ndarray
    keys: np.ndarray


#: The arrays one step fills, per game, as ``(dtype, per seat)``: the fields of
#: :class:`yaniv_env.yaniv.batched.StepResult` but its ``reset`` (the package docstring's table).
STEP_ARRAYS = {
    "acted": (np.bool_, False),
    "seat": (np.int64, False),
    "round_over": (np.bool_, False),
    "game_over": (np.bool_, False),
    "score_delta": (np.int64, True),
    "points": (np.int64, True),
    "hand_totals": (np.int64, True),
    "winners": (np.bool_, True),
    "eliminated": (np.bool_, True),
    "scores": (np.int64, True),
    "reason": (np.int64, False),
    "caller": (np.int64, False),
    "challenger": (np.int64, False),
    "caller_beaten": (np.bool_, False),
    "truncated": (np.bool_, False),
    "game_truncated": (np.bool_, False),
    "first_player": (np.int64, False),
    "turns": (np.int64, False),
    "places": (np.int64, True),
}
#: The per-step result arrays the kernels fill (``rs``), one field per :data:`STEP_ARRAYS` entry.
StepArrays = namedtuple("StepArrays", STEP_ARRAYS)


# Arguments of the out-of-line _end_round as int64 and bool values, not Python literals: a
# literal argument makes Numba compile the callee (and all it inlines) once per value.
REASON_YANIV, REASON_EMPTY_HAND, REASON_DRAW = np.int64(0), np.int64(1), np.int64(2)
NOBODY = np.int64(-1)  #: no caller, challenger or emptied hand
TRUNCATED, NOT_TRUNCATED = np.True_, np.False_
_PICK_ANY, _PICK_ENDS, _PICK_TOP = 0, 1, 2
_SINGLE, _SET, _RUN = 0, 1, 2
#: Most actions one decision can offer (a generous bound; checked when tables are built).
MAX_LEGAL = 4096

# -- SplitMix64, the formulas of yaniv_env.core.seeding over uint64 (mix64 and below: the
# core's, yaniv_env.core.batched_random) ------------------------------------------------

_GOLD = np.uint64(GOLDEN)


@njit(cache=True, inline="always")
def stream_key(key, round_index, stream, index):
    """``seeding.stream_key``."""
    z = mix64(key + _GOLD * np.uint64(round_index + 1))
    z = mix64(z + _GOLD * np.uint64(stream + 1))
    return mix64(z + _GOLD * np.uint64(index + 1))


@njit(cache=True, inline="always")
def shuffle(cards, length, key):
    """``seeding.shuffled`` in place on ``cards[:length]``."""
    for i in range(length - 1, 0, -1):
        j = below(mix64(key + _GOLD * np.uint64(length - i)), i + 1)  # word t = length-1-i
        c = cards[i]
        cards[i] = cards[j]
        cards[j] = c


@njit(cache=True, inline="always")
def lot(n, key):
    """``seeding.lot``."""
    return below(mix64(key + _GOLD), n)


# -- small helpers ----------------------------------------------------------------------


@njit(cache=True, inline="always")
def _next_alive(alive, b, seat, n):
    for i in range(1, n + 1):
        q = (seat + i) % n
        if alive[b, q]:
            return q
    return -1


@njit(cache=True, inline="always")
def _hand_value(hands, b, p, value):
    total = 0
    for k in range(NUM_KINDS):
        total += hands[b, p, k] * value[k]
    return total


@njit(cache=True, inline="always")
def _forget(known, b, p, k):
    if known[b, p, k] > 0:
        known[b, p, k] -= 1


@njit(cache=True, inline="always")
def _set_takeable_of_top(st, tb, b):
    """``engine._takeable_of``: what may be taken from the top set as laid."""
    g, top, takeable = st.g, st.top, st.takeable
    rank = tb.rank
    length = g[b, G_TOP_LEN]
    takeable[b, :] = 0
    if length == 1:
        takeable[b, top[b, 0]] = 1
        return
    # a set: natural cards of one rank, with jokers only where Rules.set_jokers lets them join
    r0 = -1
    natural = 0
    is_set = True
    for i in range(length):
        k = top[b, i]
        if k != JOKER:
            if natural > 0 and rank[k] != r0:
                is_set = False
            r0 = rank[k]
            natural += 1
    jokers = length - natural
    if natural == 0 or (jokers > 0 and (tb.rules[R_SET_JOKER_MIN] == 0 or natural < tb.rules[R_SET_JOKER_MIN])):
        is_set = False
    pickup = tb.rules[R_SET_PICKUP] if is_set else tb.rules[R_RUN_PICKUP]
    if pickup == _PICK_ANY:
        for i in range(length):
            takeable[b, top[b, i]] = 1
    elif pickup == _PICK_TOP:
        takeable[b, top[b, length - 1]] = 1
    else:
        takeable[b, top[b, 0]] = 1
        takeable[b, top[b, length - 1]] = 1


@njit(cache=True, inline="always")
def _pile_top(st, b):
    """Put the top set on the pile (in its order)."""
    g, pile, pile_cnt, top = st.g, st.pile, st.pile_cnt, st.top
    m = g[b, G_PILE_LEN]
    for i in range(g[b, G_TOP_LEN]):
        k = top[b, i]
        pile[b, m] = k
        pile_cnt[b, k] += 1
        m += 1
    g[b, G_PILE_LEN] = m


@njit(cache=True, inline="always")
def _set_top_discard(st, tb, b, d):
    """The discard ``d`` becomes the top set, with its own takeable cards."""
    g, top, takeable = st.g, st.top, st.takeable
    length = tb.discard_len[d]
    for i in range(length):
        top[b, i] = tb.discard_cards[d, i]
    g[b, G_TOP_LEN] = length
    takeable[b, :] = 0
    for i in range(tb.discard_take_len[d]):
        takeable[b, tb.discard_take[d, i]] = 1
    g[b, G_TOP_FLASHED] = 0


# -- dealing (the one place that says how cards reach the seats) -----------------------


@njit(cache=True)
def _deal(st, tb, b):
    """Deal round ``G_ROUND_INDEX`` as ``engine``'s contract says: the deck in
    ``standard_deck`` order shuffled by the round's ``DEAL`` stream; seat ``p`` owns the
    block of ``hand_size`` cards at positions ``p·H ..`` from the drawing end (the list's
    end); the next card is turned face up; the blocks of seats out of the game go to the
    bottom of the stock, in seat order."""
    g, alive, hands, hand_len, known = st.g, st.alive, st.hands, st.hand_len, st.known
    stock, pile_cnt = st.stock, st.pile_cnt
    R = tb.rules
    n = R[R_PLAYERS]
    H = R[R_HAND_SIZE]
    m = 0
    for _ in range(R[R_DECKS]):
        for k in range(NUM_SUITS * NUM_RANKS):  # the natural cards
            stock[b, m] = k
            m += 1
        for _ in range(R[R_JOKERS_PER_DECK]):
            stock[b, m] = JOKER
            m += 1
    shuffle(stock[b], m, stream_key(st.keys[b], g[b, G_ROUND_INDEX], DEAL, 0))
    hands[b, :, :] = 0
    known[b, :, :] = 0
    hand_len[b, :] = 0
    out = np.empty(n * H, np.int8)  # the blocks of the seats out, in seat order
    e = 0
    for p in range(n):
        for i in range(m - (p + 1) * H, m - p * H):
            if alive[b, p]:
                hands[b, p, stock[b, i]] += 1
            else:
                out[e] = stock[b, i]
                e += 1
        if alive[b, p]:
            hand_len[b, p] = H
    rest = m - n * H - 1
    st.top[b, 0] = stock[b, rest]
    for i in range(rest - 1, -1, -1):  # the rest moves up above the blocks of the seats out
        stock[b, i + e] = stock[b, i]
    for i in range(e):
        stock[b, i] = out[i]
    g[b, G_TOP_LEN] = 1
    g[b, G_STOCK_LEN] = rest + e
    g[b, G_PILE_LEN] = 0
    pile_cnt[b, :] = 0
    _set_takeable_of_top(st, tb, b)
    g[b, G_TOP_FLASHED] = 0
    g[b, G_PENDING] = -1
    g[b, G_ROUND_TURNS] = 0
    g[b, G_CALLER] = -1
    g[b, G_DRAW_ENDS_ROUND] = 0
    g[b, G_RESHUFFLES] = 0
    g[b, G_DRAWN] = -1
    g[b, G_DRAWN_SLAMMABLE] = 0
    g[b, G_CURRENT] = g[b, G_FIRST_PLAYER]
    g[b, G_TURN_PLAYER] = g[b, G_FIRST_PLAYER]
    g[b, G_PHASE] = DISCARD
    _offer_blast(st, tb, b)


@njit(cache=True)
def _reshuffle(st, b):
    """The stock ran out: the pile, shuffled by the round's ``RESHUFFLE`` stream of index
    ``G_RESHUFFLES`` (the reshuffles so far this round), becomes the stock."""
    g, stock, pile, pile_cnt = st.g, st.stock, st.pile, st.pile_cnt
    m = g[b, G_PILE_LEN]
    for i in range(m):
        stock[b, i] = pile[b, i]
    shuffle(stock[b], m, stream_key(st.keys[b], g[b, G_ROUND_INDEX], RESHUFFLE, g[b, G_RESHUFFLES]))
    g[b, G_RESHUFFLES] += 1  # an empty pile counts too
    g[b, G_STOCK_LEN] = m
    g[b, G_PILE_LEN] = 0
    pile_cnt[b, :] = 0


@njit(cache=True, inline="always")
def _tie_lot(st, b, count):
    """Lots among ``count`` tied round winners: the round's ``LOTS`` stream, index 1."""
    return lot(count, stream_key(st.keys[b], st.g[b, G_ROUND_INDEX], LOTS, 1))


@njit(cache=True)
def new_game(st, tb, b, key):
    """Start a new game with ``key`` in slot ``b``: first player by lots, first deal."""
    g, scores, alive, out_round = st.g, st.scores, st.alive, st.out_round
    n = tb.rules[R_PLAYERS]
    st.keys[b] = key
    g[b, :] = 0
    scores[b, :] = 0
    alive[b, :] = 1
    out_round[b, :] = -1
    g[b, G_FIRST_PLAYER] = lot(n, stream_key(key, 0, LOTS, 0))
    g[b, G_NEXT_FIRST] = g[b, G_FIRST_PLAYER]
    g[b, G_BLAST_RANK] = -1
    _deal(st, tb, b)


# -- legal moves ----------------------------------------------------------------------


@njit(cache=True, inline="always")
def legal_list(st, tb, b, out):
    """Write the legal ids of game ``b``'s acting seat into ``out``; return how many."""
    g, takeable = st.g, st.takeable
    phase = g[b, G_PHASE]
    c = 0
    if phase == DISCARD:
        c = _legal_discards(st, tb, b, out)
    elif phase == DRAW:
        if g[b, G_STOCK_LEN] > 0:
            out[c] = DRAW_STOCK
            c += 1
        for k in range(NUM_KINDS):
            if takeable[b, k]:
                out[c] = TAKE_BASE + k
                c += 1
    elif phase == SLAM_PHASE:
        if g[b, G_DRAWN_SLAMMABLE]:
            out[c] = SLAM
            c += 1
        out[c] = PASS
        c += 1
    elif phase == ASAF_PHASE:
        out[0] = ASAF
        out[1] = PASS
        c = 2
    elif phase == BLAST_PHASE:
        if _holds_missing(st, b, g[b, G_CURRENT], g[b, G_BLAST_RANK]):
            out[c] = BLAST
            c += 1
        out[c] = PASS
        c += 1
    return c


@njit(cache=True, inline="always")
def _legal_discards(st, tb, b, out):
    """``engine.legal_actions`` at a discard, in this order (random play picks by position):
    a joker, then suit by suit its single cards and runs, Yaniv when the hand allows it,
    then the sets (:func:`_legal_sets`)."""
    g, hands, hand_len = st.g, st.hands, st.hand_len
    R = tb.rules
    p = g[b, G_CURRENT]
    hand = hands[b, p]
    c = 0
    value = 0
    held_jokers = np.int64(hand[JOKER])
    if held_jokers > 0:
        out[c] = tb.single_id[JOKER]
        c += 1
    run_min = R[R_RUN_MIN]
    runs = hand_len[b, p] >= run_min
    jokers = min(held_jokers, R[R_MAX_RUN_JOKERS])
    run_max = R[R_RUN_MAX]
    for suit in range(NUM_SUITS):
        # one pass over the suit: value, singles and the ranks held, then its runs
        mask = 0
        for r in range(NUM_RANKS):
            k = suit * NUM_RANKS + r
            h = hand[k]
            if h > 0:
                value += h * tb.value[k]
                out[c] = tb.single_id[k]
                c += 1
                mask |= 1 << r
        if not runs or _popcount(mask) + jokers < run_min:
            continue
        for length in range(run_min, run_max + 1):
            full = (1 << length) - 1
            for low in range(NUM_RANKS - length + 1):
                present = (mask >> low) & full
                if present == 0:
                    continue
                missing = full & ~present
                if _popcount(missing) > jokers:
                    continue
                # joker masks: the missing ranks plus any subset of the present ones
                sub = present
                while True:
                    jm = missing | sub
                    if _popcount(jm) <= jokers:
                        for end in range(2):
                            a = tb.run_id[suit, low, length, jm, end]
                            if a >= 0:
                                out[c] = a
                                c += 1
                    if sub == 0:
                        break
                    sub = (sub - 1) & present
    if value <= R[R_CALL_MAX]:
        out[c] = CALL_YANIV
        c += 1
    return _legal_sets(hand, R, tb.set_start, tb.set_ids, out, c)


@njit(cache=True, inline="always")
def _legal_sets(hand, R, set_start, set_ids, out, c):
    """The same-rank sets of ``hand`` (with jokers where ``Rules.set_jokers`` lets them
    join at least ``R_SET_JOKER_MIN`` natural cards) into ``out`` from ``c``; returns the
    new count. ``R``, ``set_start``, ``set_ids``: the tables' arrays it reads (handed the
    whole tables tuple, this helper made random play slower)."""
    base = R[R_DECKS] + 1
    codes = base**NUM_SUITS
    set_width = R[R_SET_JOKERS_MAX] + 1
    joker_min = R[R_SET_JOKER_MIN]
    set_jokers = min(np.int64(hand[JOKER]), set_width - 1)
    for r in range(NUM_RANKS):
        h0 = hand[r]
        h1 = hand[NUM_RANKS + r]
        h2 = hand[2 * NUM_RANKS + r]
        h3 = hand[3 * NUM_RANKS + r]
        if h0 + h1 + h2 + h3 + set_jokers < 2:
            continue
        for c0 in range(h0 + 1):
            for c1 in range(h1 + 1):
                for c2 in range(h2 + 1):
                    for c3 in range(h3 + 1):
                        natural = c0 + c1 + c2 + c3
                        if natural == 0:
                            continue
                        code = (r * codes + c0 + base * (c1 + base * (c2 + base * c3))) * set_width
                        for j in range(set_jokers + 1):
                            if natural + j < 2 or (j > 0 and natural < joker_min):
                                continue
                            for i in range(set_start[code + j], set_start[code + j + 1]):
                                out[c] = set_ids[i]
                                c += 1
    return c


@njit(cache=True, inline="always")
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def legal_masks(st, tb, rows, masks):
    """``masks[i]`` = the legal actions of game ``rows[i]`` (all False for finished games)."""
    buf = np.empty(MAX_LEGAL, dtype=np.int64)
    masks[:, :] = False
    for i in range(rows.shape[0]):
        for j in range(legal_list(st, tb, rows[i], buf)):
            masks[i, buf[j]] = True


@njit(cache=True)
def first_illegal(st, tb, actions):
    """The first game whose action is not legal (finished games take none), else -1."""
    buf = np.empty(MAX_LEGAL, dtype=np.int64)
    for b in range(actions.shape[0]):
        if st.g[b, G_PHASE] == GAME_OVER or actions[b] < 0:
            continue
        a = actions[b]
        ok = False
        for i in range(legal_list(st, tb, b, buf)):
            if buf[i] == a:
                ok = True
                break
        if not ok:
            return b
    return -1


# -- playing ----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _holds_missing(st, b, seat, rank):
    """Whether ``seat`` holds every card of ``rank`` missing from the top set."""
    g, hands, top = st.g, st.hands, st.top
    for suit in range(NUM_SUITS):
        k = suit * NUM_RANKS + rank
        if not _in_top(top, b, g[b, G_TOP_LEN], k) and hands[b, seat, k] == 0:
            return False
    return True


@njit(cache=True, inline="always")
def _blast_answers(st, b, seat, missing):
    """Whether ``seat`` answers a private Blast window (in, with enough cards)."""
    return st.alive[b, seat] != 0 and st.hand_len[b, seat] >= missing


@njit(cache=True, inline="always")
def _offer_blast(st, tb, b):
    """``engine._offer_blast``: between turns, open the Blast window on the top set: with
    private windows to every seat in with enough cards, in turn from the turn player
    (unless a missing card is in the pile); else to the first seat holding the cards."""
    g, alive, top, pile_cnt = st.g, st.alive, st.top, st.pile_cnt
    R = tb.rules
    if not R[R_BLAST] or g[b, G_TOP_FLASHED] or g[b, G_TOP_LEN] >= NUM_SUITS:
        return
    rank = tb.rank[top[b, 0]]
    if rank < 0:
        return
    for i in range(g[b, G_TOP_LEN]):
        if tb.rank[top[b, i]] != rank:
            return
    n = R[R_PLAYERS]
    missing = NUM_SUITS - g[b, G_TOP_LEN]  # one deck: the top set's cards are of distinct suits
    if R[R_PRIVATE_WINDOWS]:
        for suit in range(NUM_SUITS):
            k = suit * NUM_RANKS + rank
            if pile_cnt[b, k] > 0 and not _in_top(top, b, g[b, G_TOP_LEN], k):
                return
        for i in range(n):
            seat = (g[b, G_TURN_PLAYER] + i) % n
            if _blast_answers(st, b, seat, missing):
                _open_blast(g, b, seat, rank)
                return
        return
    for seat in range(n):
        if alive[b, seat] and _holds_missing(st, b, seat, rank):
            _open_blast(g, b, seat, rank)
            return


@njit(cache=True, inline="always")
def _open_blast(g, b, seat, rank):
    g[b, G_BLAST_RANK] = rank
    g[b, G_CURRENT] = seat
    g[b, G_PHASE] = BLAST_PHASE


@njit(cache=True, inline="always")
def _in_top(top, b, length, k):
    found = False
    for i in range(length):
        found |= top[b, i] == k
    return found


@njit(cache=True, inline="always")
def apply(st, tb, rs, b, a):
    """Play the (legal) action ``a`` in game ``b``; a finished round fills ``rs`` at ``b``
    and the next round is dealt."""
    g = st.g
    phase = g[b, G_PHASE]
    g[b, G_DECISIONS] += 1
    if phase == DISCARD:
        _apply_discard(st, tb, rs, b, a)
    elif phase == DRAW:
        _apply_draw(st, tb, rs, b, a)
    elif phase == SLAM_PHASE:
        _apply_slam(st, tb, rs, b, a)
    elif phase == ASAF_PHASE:
        _apply_asaf(st, tb, rs, b, a)
    else:
        _apply_blast(st, tb, rs, b, a)
    if g[b, G_PHASE] == ROUND_OVER:
        g[b, G_ROUND_INDEX] += 1
        g[b, G_FIRST_PLAYER] = g[b, G_NEXT_FIRST]
        _deal(st, tb, b)


@njit(cache=True, inline="always")
def _apply_discard(st, tb, rs, b, a):
    g, hands, hand_len, known = st.g, st.hands, st.hand_len, st.known
    R = tb.rules
    p = g[b, G_CURRENT]
    if a == CALL_YANIV:
        g[b, G_TURNS] += 1
        g[b, G_CALLER] = p
        if R[R_ASAF]:
            g[b, G_PHASE] = ASAF_PHASE
            g[b, G_CURRENT] = _next_alive(st.alive, b, p, R[R_PLAYERS])
        else:
            _end_round(st, tb, rs, b, REASON_YANIV, p, NOBODY, NOBODY, NOT_TRUNCATED)
        return
    d = a - DISCARD_BASE
    for i in range(tb.discard_len[d]):
        k = tb.discard_cards[d, i]
        hands[b, p, k] -= 1
        _forget(known, b, p, k)
    hand_len[b, p] -= tb.discard_len[d]
    g[b, G_PENDING] = d
    if hand_len[b, p] == 0 and R[R_EMPTY_WINS]:
        _pile_top(st, b)
        _set_top_discard(st, tb, b, d)
        g[b, G_TURNS] += 1
        _end_round(st, tb, rs, b, REASON_EMPTY_HAND, NOBODY, NOBODY, p, NOT_TRUNCATED)
        return
    g[b, G_PHASE] = DRAW


@njit(cache=True, inline="always")
def _apply_draw(st, tb, rs, b, a):
    g, hands, hand_len, known, stock, top = st.g, st.hands, st.hand_len, st.known, st.stock, st.top
    R = tb.rules
    p = g[b, G_CURRENT]
    if a == DRAW_STOCK:
        g[b, G_STOCK_LEN] -= 1
        card = stock[b, g[b, G_STOCK_LEN]]
        from_stock = True
    else:
        card = a - TAKE_BASE
        length = g[b, G_TOP_LEN]
        i = 0
        while top[b, i] != card:
            i += 1
        for j in range(i, length - 1):
            top[b, j] = top[b, j + 1]
        g[b, G_TOP_LEN] = length - 1
        known[b, p, card] += 1
        from_stock = False
    hands[b, p, card] += 1
    hand_len[b, p] += 1
    d = g[b, G_PENDING]
    _pile_top(st, b)
    _set_top_discard(st, tb, b, d)
    g[b, G_PENDING] = -1
    if g[b, G_STOCK_LEN] == 0:
        if R[R_RESHUFFLE]:
            _reshuffle(st, b)
        else:
            g[b, G_DRAW_ENDS_ROUND] = 1
    slam = R[R_SLAM]
    kind = tb.discard_type[d]
    if slam != 0 and (kind == _SINGLE or (kind == _SET and slam == 2)):
        if card != JOKER:
            slammable = tb.rank[card] == tb.discard_rank[d]
        else:  # a joker on a single joker
            slammable = tb.discard_len[d] == 1 and tb.discard_cards[d, 0] == JOKER and R[R_SLAM_JOKER_ON_JOKER] != 0
        slammable = slammable and (from_stock or not R[R_SLAM_STOCK_ONLY])
        # with private windows a card from the stock (hidden) always opens the window
        if slammable or (from_stock and R[R_PRIVATE_WINDOWS]):
            g[b, G_DRAWN] = card
            g[b, G_DRAWN_FROM_STOCK] = from_stock
            g[b, G_DRAWN_SLAMMABLE] = slammable
            g[b, G_PHASE] = SLAM_PHASE
            return
    _end_turn(st, tb, rs, b)


@njit(cache=True, inline="always")
def _throw_on_top(st, b, p, card):
    """``p`` adds ``card`` from its hand to the top set (a slam-down or a Blast)."""
    g = st.g
    st.hands[b, p, card] -= 1
    st.hand_len[b, p] -= 1
    _forget(st.known, b, p, card)
    st.top[b, g[b, G_TOP_LEN]] = card
    g[b, G_TOP_LEN] += 1


@njit(cache=True, inline="always")
def _apply_slam(st, tb, rs, b, a):
    g, hand_len = st.g, st.hand_len
    p = g[b, G_CURRENT]
    if a == SLAM:
        _throw_on_top(st, b, p, g[b, G_DRAWN])
        _set_takeable_of_top(st, tb, b)
        g[b, G_TOP_FLASHED] = 1
        if hand_len[b, p] == 0 and tb.rules[R_EMPTY_WINS]:
            g[b, G_TURNS] += 1
            _end_round(st, tb, rs, b, REASON_EMPTY_HAND, NOBODY, NOBODY, p, NOT_TRUNCATED)
            return
    _end_turn(st, tb, rs, b)


@njit(cache=True, inline="always")
def _end_turn(st, tb, rs, b):
    g = st.g
    g[b, G_TURNS] += 1
    g[b, G_ROUND_TURNS] += 1
    g[b, G_DRAWN] = -1
    g[b, G_DRAWN_SLAMMABLE] = 0
    if g[b, G_DRAW_ENDS_ROUND]:
        _end_round(st, tb, rs, b, REASON_DRAW, NOBODY, NOBODY, NOBODY, NOT_TRUNCATED)
        return
    if g[b, G_ROUND_TURNS] >= tb.rules[R_TURN_LIMIT]:
        _end_round(st, tb, rs, b, REASON_DRAW, NOBODY, NOBODY, NOBODY, TRUNCATED)
        return
    nxt = _next_alive(st.alive, b, g[b, G_TURN_PLAYER], tb.rules[R_PLAYERS])
    g[b, G_TURN_PLAYER] = nxt
    g[b, G_CURRENT] = nxt
    g[b, G_PHASE] = DISCARD
    _offer_blast(st, tb, b)


@njit(cache=True, inline="always")
def _apply_blast(st, tb, rs, b, a):
    g, hand_len, top = st.g, st.hand_len, st.top
    p = g[b, G_CURRENT]
    if a == BLAST:
        rank = g[b, G_BLAST_RANK]
        length = g[b, G_TOP_LEN]
        for suit in range(NUM_SUITS):
            k = suit * NUM_RANKS + rank
            if not _in_top(top, b, length, k):
                _throw_on_top(st, b, p, k)
        _set_takeable_of_top(st, tb, b)
        g[b, G_TOP_FLASHED] = 0
        if hand_len[b, p] == 0 and tb.rules[R_EMPTY_WINS]:
            _end_round(st, tb, rs, b, REASON_EMPTY_HAND, NOBODY, NOBODY, p, NOT_TRUNCATED)
            return
    elif tb.rules[R_PRIVATE_WINDOWS]:  # a pass: the next seat of the window answers
        n = tb.rules[R_PLAYERS]
        missing = NUM_SUITS - g[b, G_TOP_LEN]
        seat = (p + 1) % n
        while seat != g[b, G_TURN_PLAYER]:
            if _blast_answers(st, b, seat, missing):
                g[b, G_CURRENT] = seat
                return
            seat = (seat + 1) % n
    g[b, G_BLAST_RANK] = -1
    g[b, G_CURRENT] = g[b, G_TURN_PLAYER]
    g[b, G_PHASE] = DISCARD


@njit(cache=True, inline="always")
def _apply_asaf(st, tb, rs, b, a):
    g = st.g
    p = g[b, G_CURRENT]
    caller = g[b, G_CALLER]
    if a == ASAF:
        _end_round(st, tb, rs, b, REASON_YANIV, caller, p, NOBODY, NOT_TRUNCATED)
        return
    nxt = _next_alive(st.alive, b, p, tb.rules[R_PLAYERS])
    if nxt == caller:
        _end_round(st, tb, rs, b, REASON_YANIV, caller, NOBODY, NOBODY, NOT_TRUNCATED)
    else:
        g[b, G_CURRENT] = nxt


# -- round and game end -------------------------------------------------------------------


@njit(cache=True, inline="always")
def _milestone(tb, total):
    R = tb.rules
    kind = R[R_MILESTONE]
    if kind == 0:
        return total
    if kind == 3:
        for i in range(tb.milestone_table.shape[0]):
            if tb.milestone_table[i, 0] == total:
                return tb.milestone_table[i, 1]
        return total
    if total > 0 and total % R[R_MILESTONE_EVERY] == 0 and (R[R_MILESTONE_MAX] < 0 or total <= R[R_MILESTONE_MAX]):
        return total // 2 if kind == 1 else total - R[R_MILESTONE_SUBTRACT]
    return total


@njit(cache=True)
def _end_round(st, tb, rs, b, reason, caller, challenger, empty, truncated):
    """``engine._end_round``: every hand revealed and scored, the points added with their
    milestones, players past the limit out or the game over; the round recorded in ``rs``
    at ``b`` and the next round's first player chosen."""
    g, scores, alive, hands = st.g, st.scores, st.alive, st.hands
    points, totals, winners, eliminated = rs.points, rs.hand_totals, rs.winners, rs.eliminated
    R = tb.rules
    n = R[R_PLAYERS]
    for p in range(n):
        totals[b, p] = _hand_value(hands, b, p, tb.value) if alive[b, p] else -1
        points[b, p] = 0
        winners[b, p] = False
        eliminated[b, p] = False
    beaten = False
    if reason == REASON_YANIV and R[R_ASAF]:
        beaten = _score_asaf_duel(st, tb, rs, b, caller, challenger)
    elif reason == REASON_YANIV:
        beaten = _score_reveal(st, tb, rs, b, caller)
    elif reason == REASON_EMPTY_HAND:  # 001: the empty hand wins
        winners[b, empty] = True
        _others_add_hands(st, tb, rs, b, empty)
    _add_points(st, tb, rs, b)
    passed = False
    for p in range(n):
        if alive[b, p] and _past_limit(R, scores[b, p]):
            passed = True
            if R[R_LAST_STANDING]:
                _eliminate(st, rs, b, p)
    game_over = _game_ends(st, tb, b, passed)
    _record_round(st, rs, b, reason, caller, challenger, beaten, truncated, game_over)
    if not game_over:
        g[b, G_NEXT_FIRST] = _next_first_player(st, tb, rs, b, caller)
    g[b, G_PENDING] = -1
    g[b, G_PHASE] = GAME_OVER if game_over else ROUND_OVER


@njit(cache=True, inline="always")
def _others_add_hands(st, tb, rs, b, seat):
    """``engine._others_add_hands`` into the points of ``rs`` at ``b``."""
    alive, points, totals = st.alive, rs.points, rs.hand_totals
    for p in range(tb.rules[R_PLAYERS]):
        if alive[b, p] and p != seat:
            points[b, p] = totals[b, p]


@njit(cache=True, inline="always")
def _score_asaf_duel(st, tb, rs, b, caller, challenger):
    """``engine._score_asaf_duel`` into ``rs`` at ``b``; returns whether the caller is beaten."""
    points, totals, winners = rs.points, rs.hand_totals, rs.winners
    R = tb.rules
    _others_add_hands(st, tb, rs, b, caller)
    beaten = challenger >= 0 and totals[b, challenger] <= totals[b, caller]
    if beaten:
        winner, loser = challenger, caller
    else:
        winner, loser = caller, challenger
    winners[b, winner] = True
    if loser >= 0:
        points[b, loser] = totals[b, loser] + R[R_PENALTY]
    points[b, winner] = 0
    if beaten and R[R_BEATEN_CALLER_ALONE]:
        for p in range(R[R_PLAYERS]):
            points[b, p] = 0
        points[b, caller] = totals[b, caller] + R[R_PENALTY]
    return beaten


@njit(cache=True, inline="always")
def _score_reveal(st, tb, rs, b, caller):
    """``engine._score_reveal`` into ``rs`` at ``b``; returns whether the caller is beaten."""
    alive, points, totals, winners = st.alive, rs.points, rs.hand_totals, rs.winners
    R = tb.rules
    n = R[R_PLAYERS]
    _others_add_hands(st, tb, rs, b, caller)
    low = 1 << 30
    for p in range(n):
        if alive[b, p] and p != caller:
            low = min(low, totals[b, p])
    if low > totals[b, caller]:
        winners[b, caller] = True
        return False
    for p in range(n):
        if alive[b, p] and p != caller:
            if totals[b, p] == low:
                winners[b, p] = True
            if R[R_BEATEN_CALLER_ALONE] or (R[R_BEATEN_ZERO] and totals[b, p] == low):
                points[b, p] = 0
    points[b, caller] = totals[b, caller] + R[R_PENALTY]
    return True


@njit(cache=True, inline="always")
def _add_points(st, tb, rs, b):
    """``engine._add_points``, and each seat's change of total into ``rs`` at ``b``."""
    scores, alive, score_delta, points = st.scores, st.alive, rs.score_delta, rs.points
    for p in range(tb.rules[R_PLAYERS]):
        before = scores[b, p]
        if alive[b, p] and points[b, p] > 0:
            scores[b, p] = _milestone(tb, scores[b, p] + points[b, p])
        score_delta[b, p] = scores[b, p] - before


@njit(cache=True, inline="always")
def _past_limit(R, total):
    """``engine.past_limit``."""
    return total > R[R_SCORE_LIMIT] or (R[R_LIMIT_INCLUSIVE] != 0 and total >= R[R_SCORE_LIMIT])


@njit(cache=True, inline="always")
def _eliminate(st, rs, b, p):
    """``engine._eliminate`` of seat ``p``, marked in ``rs`` at ``b``."""
    g, alive, out_round, eliminated = st.g, st.alive, st.out_round, rs.eliminated
    alive[b, p] = 0
    out_round[b, p] = g[b, G_ROUND_INDEX]
    eliminated[b, p] = True


@njit(cache=True, inline="always")
def _game_ends(st, tb, b, passed):
    """``engine._game_ends`` (``passed``: whether anyone is past the limit)."""
    g, alive = st.g, st.alive
    R = tb.rules
    n = R[R_PLAYERS]
    rounds_played = g[b, G_ROUND_INDEX] + 1
    if R[R_LAST_STANDING]:
        left = 0
        for p in range(n):
            left += alive[b, p]
        game_over = left <= 1
    else:
        game_over = passed or (R[R_ROUNDS_PER_PLAYER] >= 0 and rounds_played >= R[R_ROUNDS_PER_PLAYER] * n)
    if not game_over and rounds_played >= R[R_ROUND_LIMIT]:
        g[b, G_GAME_TRUNCATED] = 1
        return True
    return game_over


@njit(cache=True, inline="always")
def _record_round(st, rs, b, reason, caller, challenger, beaten, truncated, game_over):
    """The round's result into ``rs`` at ``b`` (``engine.RoundResult``; the points, totals,
    winners and eliminations are there already)."""
    g, scores = st.g, st.scores
    rs.round_over[b] = True
    rs.game_over[b] = game_over
    for p in range(scores.shape[1]):
        rs.scores[b, p] = scores[b, p]
    rs.reason[b] = reason
    rs.caller[b] = caller
    rs.challenger[b] = challenger
    rs.caller_beaten[b] = beaten
    rs.truncated[b] = truncated
    rs.game_truncated[b] = g[b, G_GAME_TRUNCATED] != 0
    rs.first_player[b] = g[b, G_FIRST_PLAYER]
    rs.turns[b] = g[b, G_ROUND_TURNS]


@njit(cache=True, inline="always")
def _next_first_player(st, tb, rs, b, caller):
    """``engine._next_first_player`` (the winners in ``rs`` at ``b``)."""
    g, alive, winners = st.g, st.alive, rs.winners
    R = tb.rules
    n = R[R_PLAYERS]
    count = 0
    for p in range(n):
        count += winners[b, p]
    if caller >= 0 and R[R_NEXT_LEADER_CALLER]:
        nxt = caller
    elif count > 1:
        pick = _tie_lot(st, b, count)
        nxt = -1
        for p in range(n):
            if winners[b, p]:
                if pick == 0:
                    nxt = p
                    break
                pick -= 1
    elif count == 1:
        nxt = 0
        while not winners[b, nxt]:
            nxt += 1
    else:
        nxt = _next_alive(alive, b, g[b, G_FIRST_PLAYER], n)
    return nxt if alive[b, nxt] else _next_alive(alive, b, nxt, n)


@njit(cache=True)
def ranking(st, tb, b, out):
    """``engine.ranking`` of game ``b`` into ``out[:n]``."""
    scores, alive, out_round = st.scores, st.alive, st.out_round
    n = tb.rules[R_PLAYERS]
    last_standing = tb.rules[R_LAST_STANDING]
    for p in range(n):
        place = 0
        for q in range(n):
            if last_standing:
                kp0, kq0 = 1 - alive[b, p], 1 - alive[b, q]
                if kq0 != kp0:
                    less = kq0 < kp0
                elif out_round[b, q] != out_round[b, p]:
                    less = -out_round[b, q] < -out_round[b, p]
                else:
                    less = scores[b, q] < scores[b, p]
            else:
                less = scores[b, q] < scores[b, p]
            place += less
        out[p] = place


@njit(cache=True, inline="always")
def greedy_pick(legal, count, values, low_take):
    """The greedy player of the engine checks (:mod:`~yaniv_env.tools.verify`,
    :mod:`~yaniv_env.tools.sweep`) among ``legal[:count]`` (any order): call Yaniv, slam,
    challenge or Blast when offered; else lay the discard worth the most points, or take a
    card worth 3 or less, else draw; ties go to the lowest id. ``values[a]``: the points
    discard ``a`` lays; ``low_take[a]``: whether ``a`` takes a card worth 3 or less
    (:func:`yaniv_env.yaniv.batched.tables.greedy_tables`)."""
    special = low = best = first = -1
    for i in range(count):
        a = legal[i]
        if CALL_YANIV <= a <= BLAST and (special < 0 or a < special):
            special = a
        if low_take[a] and (low < 0 or a < low):
            low = a
        if first < 0 or a < first:
            first = a
        if a >= DISCARD_BASE and (best < 0 or values[a] > values[best] or (values[a] == values[best] and a < best)):
            best = a
    if special >= 0:
        return special
    if best >= 0:
        return best
    return low if low >= 0 else first


@njit(cache=True, inline="always")
def count_cards(st, tb, b, out):
    """Add to ``out[k]`` the cards of kind ``k`` anywhere in game ``b`` (hands, stock, pile,
    top set and the discard laid at the draw)."""
    g, hands, stock, pile, top = st.g, st.hands, st.stock, st.pile, st.top
    for p in range(hands.shape[1]):
        for k in range(hands.shape[2]):
            out[k] += hands[b, p, k]
    for i in range(g[b, G_STOCK_LEN]):
        out[stock[b, i]] += 1
    for i in range(g[b, G_PILE_LEN]):
        out[pile[b, i]] += 1
    for i in range(g[b, G_TOP_LEN]):
        out[top[b, i]] += 1
    d = g[b, G_PENDING]
    if d >= 0:
        for i in range(tb.discard_len[d]):
            out[tb.discard_cards[d, i]] += 1


@njit(cache=True)
def card_counts(st, tb, out):
    """``out[b, k]``: the cards of kind ``k`` anywhere in game ``b`` (:func:`count_cards`)."""
    for b in range(out.shape[0]):
        out[b, :] = 0
        count_cards(st, tb, b, out[b])


# -- the batch ------------------------------------------------------------------------------


@njit(cache=True)
def step(st, tb, rs, actions):
    """One decision per unfinished game (actions already checked legal)."""
    g = st.g
    acted, seat, round_over, places = rs.acted, rs.seat, rs.round_over, rs.places
    for b in range(actions.shape[0]):
        if g[b, G_PHASE] == GAME_OVER or actions[b] < 0:
            continue
        acted[b] = True
        seat[b] = g[b, G_CURRENT]
        apply(st, tb, rs, b, actions[b])
        if round_over[b]:
            ranking(st, tb, b, places[b])


@njit(cache=True)
def observe(st, tb, b, seat, out):
    """``ObservationLayout.build(state, seat)`` of game ``b`` into ``out`` (float32)."""
    g, scores, alive, hands, hand_len = st.g, st.scores, st.alive, st.hands, st.hand_len
    known, pile_cnt, top, takeable = st.known, st.pile_cnt, st.top, st.takeable
    o = tb.obs_offsets
    n = tb.rules[R_PLAYERS]
    out[:] = tb.obs_template
    phase = g[b, G_PHASE]
    deciding = seat == g[b, G_CURRENT]
    for k in range(NUM_KINDS):
        out[o[O_HAND] + k] = hands[b, seat, k]
        out[o[O_TAKEABLE] + k] = takeable[b, k]
        out[o[O_OUT_OF_PLAY] + k] = pile_cnt[b, k]
    for i in range(g[b, G_TOP_LEN]):
        out[o[O_TOP] + top[b, i]] += 1
    d = g[b, G_PENDING]
    if phase == DRAW and d >= 0:
        for i in range(tb.discard_len[d]):
            out[o[O_PENDING] + tb.discard_cards[d, i]] += 1
    if phase == SLAM_PHASE and deciding:
        out[o[O_DRAWN] + g[b, G_DRAWN]] = 1.0
    for r in range(1, n):
        q = (seat + r) % n
        for k in range(NUM_KINDS):
            out[o[O_KNOWN] + (r - 1) * NUM_KINDS + k] = known[b, q, k]
    scale = tb.obs_scale
    for r in range(n):
        q = (seat + r) % n
        out[o[O_HAND_SIZES] + r] = hand_len[b, q] * scale[SCALE_HAND_SIZE]
        out[o[O_SCORES] + r] = scores[b, q] * scale[SCALE_SCORE]
        out[o[O_ALIVE] + r] = 1.0 if alive[b, q] else 0.0
    out[o[O_TURN_PLAYER] + (g[b, G_TURN_PLAYER] - seat) % n] = 1.0
    if phase == ASAF_PHASE and g[b, G_CALLER] >= 0:
        out[o[O_CALLER] + (g[b, G_CALLER] - seat) % n] = 1.0
    out[o[O_STOCK]] = g[b, G_STOCK_LEN] * scale[SCALE_STOCK]
    out[o[O_ROUND_PROGRESS]] = g[b, G_ROUND_TURNS] * scale[SCALE_ROUND_TURNS]
    if deciding and phase < ROUND_OVER:
        out[o[O_PHASE] + phase] = 1.0
    if o[O_ROUNDS_LEFT] >= 0:
        rounds = tb.rules[R_ROUNDS_PER_PLAYER] * n
        out[o[O_ROUNDS_LEFT]] = np.float32((rounds - g[b, G_ROUND_INDEX]) / rounds)


@njit(cache=True)
def observations(st, tb, rows, seats, out):
    """``out[i]`` = the observation of game ``rows[i]`` from seat ``seats[i]``."""
    for i in range(rows.shape[0]):
        observe(st, tb, rows[i], seats[i], out[i])


@njit(cache=True)
def new_games(st, tb, slots, keys):
    for i in range(slots.shape[0]):
        new_game(st, tb, slots[i], keys[i])


# -- random play inside the kernel (the bench) -------------------------------------------------


@njit(cache=True)
def _play_one(st, tb, rs, b, decisions, play_key, done, buf):
    """``decisions`` uniform random decisions in game ``b`` (the pick from the counter-based
    stream ``play_key[b]``); a finished game adds its turns, decisions and 1 to ``done[b]``
    and restarts with a key drawn from that stream."""
    g = st[0]
    for _ in range(decisions):
        count = legal_list(st, tb, b, buf)
        word = mix64(play_key[b] + _GOLD * np.uint64(g[b, G_DECISIONS] + 1))
        apply(st, tb, rs, b, buf[below(word, count)])
        if g[b, G_PHASE] == GAME_OVER:
            done[b, 0] += g[b, G_TURNS]
            done[b, 1] += g[b, G_DECISIONS]
            done[b, 2] += 1
            play_key[b] = mix64(play_key[b] ^ _GOLD)
            new_game(st, tb, b, play_key[b] >> np.uint64(1))


@njit(cache=True, nogil=True)
def random_play(st, tb, rs, lo, hi, decisions, play_key, done):
    """Random play in games ``lo`` to ``hi - 1``. Without the GIL, so that threads can play
    disjoint ranges of one batch side by side (:func:`yaniv_env.core.cpus.in_threads`)."""
    buf = np.empty(MAX_LEGAL, dtype=np.int64)
    for b in range(lo, hi):
        _play_one(st, tb, rs, b, decisions, play_key, done, buf)
