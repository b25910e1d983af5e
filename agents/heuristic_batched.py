"""The heuristic agent's decision compiled for whole batches (Numba, nopython, cached).

:func:`heuristic_batch` returns, row by row, the action :meth:`agents.heuristic.HeuristicPolicy.decide`
returns on the same observation and mask (full, not ``lite``). Each piece of the scalar policy
has a small kernel here over card lists and count arrays (decode, unseen counts, the
weighted value histogram, the sum-of-values CDF, call risk, best next discard, hand and
stock costs, the leave weight, the end-of-round chance, the cost of the points taken
when the round ends as the acting seat's total makes it), with every floating-point
operation in the scalar code's order so the scores are bit-identical; ties are broken as
the scalar code breaks them (plans: least ``(cost, discard id, draw id)``; draws: least
``(cost, action id)``). A row whose decision the kernel cannot make as the scalar code would
(an inconsistent observation, or a total outside the milestone table) gets ``-2`` and the
caller asks the scalar policy. Rows whose mask allows nothing get ``-1``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

from yaniv_env import Rules
from yaniv_env.actions import ASAF, BLAST, CALL_YANIV, DISCARD_BASE, DRAW_STOCK, PASS, SLAM, TAKE_BASE, action_table
from yaniv_env.cards import JOKER, NUM_KINDS, RANK, SUIT, YANIV_VALUE, standard_deck
from yaniv_env.engine import after_milestone, past_limit
from yaniv_env.observation import ObservationLayout

from .heuristic import DEFAULTS, EMPTY_HAND_COST, end_cost_size

__all__ = ["HeuristicTables", "heuristic_tables", "heuristic_batch"]

VALUE = np.array(YANIV_VALUE, dtype=np.int64)
RANKS = np.array(RANK, dtype=np.int64)
SUITS = np.array(SUIT, dtype=np.int64)
MAX_HAND = 64
SCRATCH = 82  # _best_removed's counts: by rank (13), by suit (4), ranks present (52), a suit's ranks (13)


class HeuristicTables:
    """What the kernel reads for one rule set and player count."""

    def __init__(self, rules: Rules):
        table = action_table(rules)
        layout = ObservationLayout(rules)
        p = layout.pieces
        discards = table.discards
        self.rules = rules
        self.n = rules.num_players
        self.num_actions = table.num_actions
        self.size = layout.size
        self.card_starts = np.array(
            [p[name].start for name in ("hand", "takeable", "top", "pending", "drawn", "out_of_play")], dtype=np.int64
        )
        self.known_start = p["known"].start
        self.card_end = p["out_of_play"].start + NUM_KINDS  # the card-count blocks end with out_of_play
        self.slices = {name: p[name].slice for name in ("hand_sizes", "alive", "caller", "stock", "round_progress")}
        self.phase_slice = p["phase"].slice
        self.deck_counts = np.zeros(NUM_KINDS, dtype=np.int64)
        for k in standard_deck(rules.jokers_per_deck, rules.num_decks):
            self.deck_counts[k] += 1
        self.disc_counts = np.zeros((len(discards), NUM_KINDS), dtype=np.int64)
        width = max(1, max(len(d.takeable) for d in discards))
        self.disc_takeable = np.full((len(discards), width), -1, dtype=np.int64)
        self.disc_n_takeable = np.zeros(len(discards), dtype=np.int64)
        moves: dict[tuple[int, ...], int] = {}
        self.disc_move = np.zeros(len(discards), dtype=np.int64)
        for i, d in enumerate(discards):
            for k in d.cards:
                self.disc_counts[i, k] += 1
            self.disc_takeable[i, : len(d.takeable)] = d.takeable
            self.disc_n_takeable[i] = len(d.takeable)
            self.disc_move[i] = moves.setdefault(tuple(sorted(d.cards)), len(moves))
        self.num_moves = len(moves)
        end_size = end_cost_size(rules)
        # integer rules (R_* indices): call_max, penalty, empty_hand_wins, run_min,
        # max_run_jokers, run_jokers_at_ends, hand_size; then the observation offset of the
        # acting seat's total, the score limit and the size of the end-cost table
        self.int_rules = np.array(
            [
                rules.call_max,
                rules.penalty,
                int(rules.empty_hand_wins),
                rules.run_min,
                rules.max_run_jokers,
                int(rules.run_jokers_at_ends),
                rules.hand_size,
                p["scores"].start,
                rules.score_limit,
                end_size,
            ],
            dtype=np.int64,
        )
        #: ``milestones[t]``: a total ``t`` once the milestone has applied, and whether that
        #: is past the limit (``t`` up to the limit plus the largest points of a round)
        after = [after_milestone(rules, t) for t in range(rules.score_limit + end_size)]
        self.milestones = np.array([(a, past_limit(rules, a)) for a in after], dtype=np.int64)

    def decode(self, obs: np.ndarray) -> tuple[np.ndarray, ...]:
        """The per-seat and scalar fields :func:`agents.common.decode` reads, for a batch (same
        roundings); the kernel reads the card counts itself."""
        r = self.rules
        s = self.slices
        hand_sizes = np.round(obs[:, s["hand_sizes"]] * r.hand_size).astype(np.int64)
        alive = obs[:, s["alive"]] > 0.5
        caller_vec = obs[:, s["caller"]]
        caller = np.where(caller_vec.max(axis=1) > 0.5, caller_vec.argmax(axis=1), -1).astype(np.int64)
        stock = np.round(obs[:, s["stock"]][:, 0].astype(np.float64) * r.deck_size).astype(np.int64)
        turns = np.round(obs[:, s["round_progress"]][:, 0].astype(np.float64) * r.turn_limit).astype(np.int64)
        phase = obs[:, self.phase_slice].argmax(axis=1).astype(np.int64)
        return hand_sizes, alive, caller, stock, turns, phase


@lru_cache(maxsize=64)
def heuristic_tables(rules: Rules) -> HeuristicTables:
    return HeuristicTables(rules)


def weights(options: dict) -> np.ndarray:
    """The policy's weights as the kernel reads them (defaults overridden by ``options``)."""
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown heuristic options: {', '.join(sorted(unknown))}; known: {', '.join(DEFAULTS)}")
    o = {**DEFAULTS, **options}
    return np.array([float(o[k]) for k in DEFAULTS], dtype=np.float64)


# weight indices, in DEFAULTS order
W_MU, W_BIAS, W_BIAS_TURN, W_BIAS_MAX, W_CALL_RISK, W_CALL_MARGIN, W_LEAVE, W_END = range(8)
W_SCORE, W_LIMIT, W_CALL_AWARE = range(8, 11)
# int_rules indices
R_CALL_MAX, R_PENALTY, R_EMPTY_WINS, R_RUN_MIN, R_RUN_JOKERS, R_ENDS_OK, R_HAND_SIZE = range(7)
R_SCORES, R_SCORE_LIMIT, R_END_SIZE = range(7, 10)


@intrinsic
def _borrowed(typingctx, arr):
    """``arr`` without its reference count (a view whose meminfo is null): Numba's atomic
    increments and decrements of it, one pair per array argument of every helper call even
    inlined, become no-ops. Only for arrays that a caller keeps alive meanwhile."""

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, value=args[0])
        dst = context.make_array(sig.return_type)(context, builder)
        populate_array(dst, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize, meminfo=None)
        return dst._getvalue()

    return arr(arr), codegen


@intrinsic
def _eight(typingctx, masks, b, a):
    """The eight bytes ``masks[b, a:a + 8]`` as one unaligned ``uint64`` (nonzero if any is
    set; ``masks``: a C-contiguous 2-D bool array, ``a + 8 <= masks.shape[1]``)."""

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, value=args[0])
        shape = cgutils.unpack_tuple(builder, ary.shape)
        strides = cgutils.unpack_tuple(builder, ary.strides)
        ptr = cgutils.get_item_pointer2(context, builder, ary.data, shape, strides, "C", [args[1], args[2]])
        word = builder.bitcast(ptr, llvm_ir.IntType(64).as_pointer())
        return builder.load(word, align=1)

    if not (
        isinstance(masks, types.Array) and masks.ndim == 2 and masks.layout == "C" and masks.dtype == types.boolean
    ):
        return None
    return types.uint64(masks, types.intp, types.intp), codegen


# -- hand arithmetic ---------------------------------------------------------------------------
#
# Speed: the row loop (:func:`_decide_range`) works on borrowed arrays (:func:`_borrowed`)
# and its helpers take scratch arrays at offsets, never slices or fresh arrays. With owned
# arrays, every array argument of every helper call (inlined or not) and every slice cost an
# atomic reference-count increment and decrement: more than half of a decision's time. The
# small helpers are inlined (``inline="always"``); _hand_cost, _best_removed and _sum_cdf are
# not: inlined everywhere too, the row loop took four minutes to compile (about 6% faster).
# Scratch ints (``sc``, :data:`SCRATCH` ints per block): by rank
# (13), by suit (4), kinds present (52), a suit's ranks (13); block 0 holds the parts of the
# hand being drawn to (:func:`_parts`), block 1 serves whole hand costs.


@numba.njit(cache=True, inline="always")
def _total(hand, m):
    t = 0
    for i in range(m):
        t += VALUE[hand[i]]
    return t


@numba.njit(cache=True, inline="always")
def _suit_run(sc, o, s, in_suit, J, mu, ir):
    """The best run of suit ``s`` (``value + mu·length``), -1 if none; ``sc[o + 17:]``: the
    kinds held (52), ``in_suit``: the suit's cards (duplicates counted)."""
    best = -1.0
    run_min = ir[R_RUN_MIN]
    if in_suit == 0 or in_suit + J < run_min:
        return best
    ends_ok = ir[R_ENDS_OK] != 0
    cap = ir[R_HAND_SIZE]
    rs = o + 69
    present = o + 17 + s * 13
    nr = 0
    for r in range(13):
        if sc[present + r]:
            sc[rs + nr] = r
            nr += 1
    for i in range(nr):
        lo = sc[rs + i]
        vsum = 0
        for j in range(i, nr):
            hi = sc[rs + j]
            vsum += VALUE[hi]
            span = hi - lo + 1
            gaps = span - (j - i + 1)
            if gaps > J:
                break
            length = min(span + J - gaps, cap, 13) if ends_ok else span
            if length >= run_min:
                x = vsum + mu * length
                if x > best:
                    best = x
    return best


@numba.njit(cache=True, inline="always")
def _count(hand, m, mu, sc, o):
    """``hand[:m]`` by rank (``sc[o:o + 13]``), by suit (``[13:17]``) and kinds present
    (``[17:69]``); returns its jokers and the best single-card term of best_removed (the
    scalar's max is over a set of exact values: any order gives the same float)."""
    best = -1.0
    jokers = 0
    for i in range(69):
        sc[o + i] = 0
    for i in range(m):
        k = hand[i]
        if k == JOKER:
            jokers += 1
            continue
        v = VALUE[k]
        if v + mu > best:
            best = v + mu
        sc[o + RANKS[k]] += 1
        sc[o + 13 + SUITS[k]] += 1
        sc[o + 17 + k] = 1
    if jokers and mu > best:
        best = mu
    return jokers, best


@numba.njit(cache=True, inline="always")
def _group(g, r, mu):
    """A same-rank group's term (-1 for fewer than two cards)."""
    return g * (VALUE[r] + mu) if g > 1 else -1.0


@numba.njit(cache=True)
def _best_removed(hand, m, mu, ir, sc, o):
    """Context.best_removed over ``hand[:m]`` (scratch block at ``sc[o:]``)."""
    jokers, best = _count(hand, m, mu, sc, o)
    for r in range(13):
        x = _group(sc[o + r], r, mu)
        if x > best:
            best = x
    if m >= ir[R_RUN_MIN]:
        J = min(jokers, ir[R_RUN_JOKERS])
        for s in range(4):
            x = _suit_run(sc, o, s, sc[o + 13 + s], J, mu, ir)
            if x > best:
                best = x
    return best


@numba.njit(cache=True, inline="always")
def _beaten(beat, t):
    return beat[t] if t < beat.shape[0] else beat[beat.shape[0] - 1]


@numba.njit(cache=True)
def _hand_cost(hand, m, beat, end, pe, mu, ir, sc, o):
    """HeuristicPolicy.hand_cost of ``hand[:m]``."""
    total = _total(hand, m)
    after = 0.0
    if m:
        after = total + mu * m - _best_removed(hand, m, mu, ir, sc, o)
    return _cost(total, after, beat, end, pe, ir)


@numba.njit(cache=True, inline="always")
def _cost(total, after, beat, end, pe, ir):
    """A hand's cost from its total and the cost of playing on (``after``): the round may end
    now (``pe``), where a total that may call Yaniv costs the cheaper of playing on and
    calling (beaten at the rate ``beat`` gives, with the penalty); ``end[x]``: the cost of
    taking ``x`` points when the round ends (:func:`_end_costs`)."""
    if total <= ir[R_CALL_MAX]:
        c = _beaten(beat, total) * end[total + ir[R_PENALTY]]
        if c < after:
            after = c
    return pe * end[total] + (1.0 - pe) * after


@numba.njit(cache=True, inline="always")
def _widest_hand_total(ir):
    """heuristic.widest_hand_total: the largest total of ``hand_size + 1`` cards."""
    return 10 * (ir[R_HAND_SIZE] + 1)


@numba.njit(cache=True, inline="always")
def _total_change(milestones, start, x, lc):
    """HeuristicPolicy.total_change: the change of a total ``start`` that takes ``x`` points,
    after the milestone, plus ``lc`` (limit_cost) past the limit."""
    return milestones[start + x, 0] - start + (lc if milestones[start + x, 1] else 0.0)


@numba.njit(cache=True, inline="always")
def _end_costs(start, w, ir, milestones, end):
    """HeuristicPolicy.end_costs of a seat whose total is ``start`` (``end``: the table,
    ``ir[R_END_SIZE]`` entries); False when ``start`` is outside the milestone table."""
    size = ir[R_END_SIZE]
    score = w[W_SCORE]
    if not score:
        for x in range(size):
            end[x] = x
        return True
    if start < 0 or start > ir[R_SCORE_LIMIT]:
        return False
    lc = w[W_LIMIT]
    end[0] = 0.0
    for x in range(1, size):
        end[x] = (1.0 - score) * x + score * _total_change(milestones, start, x, lc)
    return True


@numba.njit(cache=True, inline="always")
def _near_kinds(hand, m, near):
    """_near_kinds of ``hand[:m]`` as a mask over the card kinds."""
    near[:] = False
    has_joker = False
    for i in range(m):
        k = hand[i]
        if k == JOKER:
            has_joker = True
            continue
        r, s = RANKS[k], SUITS[k]
        for s2 in range(4):
            near[s2 * 13 + r] = True
        for dr in (-2, -1, 1, 2):
            if 0 <= r + dr < 13:
                near[s * 13 + r + dr] = True
    if m:
        near[JOKER] = True
    if has_joker:
        for i in range(m):
            k = hand[i]
            if k != JOKER:
                r, s = RANKS[k], SUITS[k]
                for dr in (-3, 3):
                    if 0 <= r + dr < 13:
                        near[s * 13 + r + dr] = True


# float scratch (``fs``): by value (11), each rank's best other group (13), each suit's best other run (4)
F_BY_VALUE, F_GX, F_RX = 0, 11, 24
F_SCRATCH = 28


@numba.njit(cache=True, inline="always")
def _parts(hand, m, mu, ir, sc, fs):
    """best_removed of ``hand[:m]`` and what best_removed of ``hand`` plus one non-joker card
    needs from ``hand`` (block 0 of ``sc``, ``fs[F_GX:]``, ``fs[F_RX:]``): only the new card's
    single, its rank's group and its suit's runs change (max over a set of exact values, in
    any order). Returns ``(best_removed, singles, J)``."""
    jokers, singles = _count(hand, m, mu, sc, 0)
    g1 = -1.0  # the best and second-best groups (every term below -1 loses to the singles)
    g2 = -1.0
    i1 = -1
    for r in range(13):
        x = _group(sc[r], r, mu)
        if x > g1:
            g2 = g1
            g1 = x
            i1 = r
        elif x > g2:
            g2 = x
    for r in range(13):
        g = g2 if r == i1 else g1
        fs[F_GX + r] = g if g > singles else singles
    best = singles if singles > g1 else g1
    J = min(jokers, ir[R_RUN_JOKERS])
    r0 = _suit_run(sc, 0, 0, sc[13], J, mu, ir)
    r1 = _suit_run(sc, 0, 1, sc[14], J, mu, ir)
    r2 = _suit_run(sc, 0, 2, sc[15], J, mu, ir)
    r3 = _suit_run(sc, 0, 3, sc[16], J, mu, ir)
    fs[F_RX + 0] = max(r1, r2, r3)
    fs[F_RX + 1] = max(r0, r2, r3)
    fs[F_RX + 2] = max(r0, r1, r3)
    fs[F_RX + 3] = max(r0, r1, r2)
    if m >= ir[R_RUN_MIN]:
        runs = max(r0, fs[F_RX])
        if runs > best:
            best = runs
    return best, singles, J


@numba.njit(cache=True, inline="always")
def _plus_cost(k, m, total, singles, J, beat, end, pe, mu, ir, sc, fs):
    """HeuristicPolicy.hand_cost of the hand of :func:`_parts` (``m`` cards, ``total``) plus
    the non-joker card ``k``."""
    r, s = RANKS[k], SUITS[k]
    v = VALUE[k]
    best = fs[F_GX + r]
    if v + mu > best:
        best = v + mu
    x = _group(sc[r] + 1, r, mu)
    if x > best:
        best = x
    if m + 1 >= ir[R_RUN_MIN]:
        x = fs[F_RX + s]
        if x > best:
            best = x
        held = sc[17 + k]
        sc[17 + k] = 1
        x = _suit_run(sc, 0, s, sc[13 + s] + 1, J, mu, ir)
        sc[17 + k] = held
        if x > best:
            best = x
    tk = total + v
    return _cost(tk, tk + mu * (m + 1) - best, beat, end, pe, ir)


@numba.njit(cache=True, inline="always")
def _draw_costs(hand, m, stock, pool, pool_total, takes, n_takes, beat, end, pe, mu, ir, near, sc, fs, costs):
    """The costs of drawing to ``hand[:m]`` (room for one more card): HeuristicPolicy.stock_cost
    if ``stock`` (returned; else 0) and the hand_cost of taking each of ``takes[:n_takes]``
    (into ``costs``)."""
    total = _total(hand, m)
    br, singles, J = _parts(hand, m, mu, ir, sc, fs)
    for j in range(n_takes):
        k = takes[j]
        if k == JOKER:
            hand[m] = k
            costs[j] = _hand_cost(hand, m + 1, beat, end, pe, mu, ir, sc, SCRATCH)
        else:
            costs[j] = _plus_cost(k, m, total, singles, J, beat, end, pe, mu, ir, sc, fs)
    if not stock:
        return 0.0
    if pool_total <= 0:
        return _hand_cost(hand, m, beat, end, pe, mu, ir, sc, SCRATCH)
    for v in range(11):
        fs[F_BY_VALUE + v] = 0.0
    acc = 0.0
    _near_kinds(hand, m, near)
    for k in range(NUM_KINDS):
        c = pool[k]
        if not c:
            continue
        if not near[k]:
            fs[F_BY_VALUE + VALUE[k]] += c
            continue
        if k == JOKER:
            hand[m] = k
            acc += c * _hand_cost(hand, m + 1, beat, end, pe, mu, ir, sc, SCRATCH)
            continue
        acc += c * _plus_cost(k, m, total, singles, J, beat, end, pe, mu, ir, sc, fs)
    call_max = ir[R_CALL_MAX]
    penalty = ir[R_PENALTY]
    drop_new = 0.0
    keep_new = 0.0
    if m:
        drop_new = total + mu * m
        keep_new = total + mu * m - br + mu
    for v in range(11):
        c = fs[F_BY_VALUE + v]
        if c:
            tv = total + v
            if m:
                after = keep_new + v
                if drop_new < after:
                    after = drop_new
            else:
                after = 0.0
            if tv <= call_max:
                x = _beaten(beat, tv) * end[tv + penalty]
                if x < after:
                    after = x
            acc += c * (pe * end[tv] + (1.0 - pe) * after)
    return acc / pool_total


@numba.njit(cache=True, inline="always")
def _combines(card, known, r0, m):
    """agents.common.combines of ``card`` with ``known[r0, :m]``."""
    if card == JOKER:
        return m > 0
    r, s = RANKS[card], SUITS[card]
    for i in range(m):
        k = known[r0, i]
        if k == JOKER:
            return True
        if RANKS[k] == r:
            return True
        if SUITS[k] == s and abs(RANKS[k] - r) <= 2:
            return True
    return False


# -- estimates ---------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _normalise(x):
    """Divide ``x`` by its sum (summed left to right, as Python's ``sum``) when positive; return the sum."""
    s = 0.0
    for v in range(x.shape[0]):
        s += x[v]
    if s > 0:
        for v in range(x.shape[0]):
            x[v] = x[v] / s
    return s


@numba.njit(cache=True, inline="always")
def _weighted(hist, bias, w):
    """``w``: the pool's value distribution weighted by ``exp(-bias·v)``."""
    for v in range(11):
        w[v] = hist[v] * math.exp(-bias * v)
    if not _normalise(w) > 0:
        w[:] = 0.0
        w[0] = 1.0


@numba.njit(cache=True)
def _sum_cdf(base, unknown, hist, cap, out, dist):
    """``out[:cap + 1]``: ``P(base + sum of unknown cards <= t)`` (``dist``: [2, cap + 1] scratch)."""
    if base > cap:
        out[:] = 0.0
        return
    dist[0, :] = 0.0
    dist[0, base] = 1.0
    src = 0
    for _ in range(unknown):
        dst = 1 - src
        dist[dst, :] = 0.0
        for t in range(cap + 1):
            pt = dist[src, t]
            if pt:
                for v in range(min(10, cap - t) + 1):
                    dist[dst, t + v] += pt * hist[v]
        src = dst
    acc = 0.0
    for t in range(cap + 1):
        acc += dist[src, t]
        out[t] = acc


@numba.njit(cache=True, inline="always")
def _hist(pool, deck_counts, hist):
    """The unseen pool's value distribution (the deck's when the pool is empty)."""
    hist[:] = 0.0
    for k in range(NUM_KINDS):
        if pool[k]:
            hist[VALUE[k]] += pool[k]
    if _normalise(hist) > 0:
        return
    for k in range(NUM_KINDS):
        hist[VALUE[k]] += deck_counts[k]
    _normalise(hist)


@numba.njit(cache=True, inline="always")
def _known_total(known, r, m):
    """The total of seat ``r``'s known cards ``known[r, :m]``."""
    t = 0
    for i in range(m):
        t += VALUE[known[r, i]]
    return t


@numba.njit(cache=True)
def _opponents_end_cost(obs, b, n, alive, known, n_known, hand_sizes, weighted, w, ir, milestones, cdf, dist):
    """HeuristicPolicy.opponents_end_cost of row ``b`` (NaN when a total is outside the
    milestone table); ``cdf`` and ``dist``: scratch of ``_widest_hand_total(ir) + 1`` totals."""
    top = _widest_hand_total(ir)
    lc = w[W_LIMIT]
    acc = 0.0
    for r in range(1, n):
        if not alive[b, r]:
            continue
        _sum_cdf(_known_total(known, r, n_known[r]), max(0, hand_sizes[b, r] - n_known[r]), weighted, top, cdf, dist)
        start = np.int64(round(np.float64(obs[b, ir[R_SCORES] + r]) * ir[R_SCORE_LIMIT]))
        if start < 0 or start > ir[R_SCORE_LIMIT]:
            return np.nan
        prev = 0.0
        for x in range(top + 1):
            p = cdf[x] - prev
            prev = cdf[x]
            if p:
                acc += p * _total_change(milestones, start, x, lc)
    return acc


# -- the decision ------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def first_legal(masks, b):
    """The lowest legal action of row ``b`` (-1 if none)."""
    for a in range(masks.shape[1]):
        if masks[b, a]:
            return a
    return -1


@numba.njit(cache=True, inline="always")
def _less(c1, a1, d1, c2, a2, d2):
    """``(c1, a1, d1) < (c2, a2, d2)`` as Python compares tuples."""
    if c1 != c2:
        return c1 < c2
    if a1 != a2:
        return a1 < a2
    return d1 < d2


@numba.njit(cache=True)
def _scratch(n, ir, card_end, num_moves, num_actions):
    """The work arrays of :func:`_decide_range` (one set per thread)."""
    cap = ir[R_CALL_MAX]
    wide = max(cap, _widest_hand_total(ir))  # the cdfs of whole hands (_opponents_end_cost)
    ints = (
        np.empty(MAX_HAND, np.int64),  # hand
        np.empty(MAX_HAND, np.int64),  # rest
        np.zeros(n, np.int64),  # n_known
        np.empty(NUM_KINDS, np.int64),  # pool
        np.zeros(2 * SCRATCH, np.int64),  # sc
        np.empty(card_end, np.int64),  # row
        np.empty(NUM_KINDS, np.int64),  # takes
        np.full(num_moves, -1, np.int64),  # move_a
        np.empty(num_actions, np.int64),  # moves
    )
    floats = (
        np.zeros(F_SCRATCH),  # fs
        np.empty(NUM_KINDS),  # costs
        np.empty(num_moves),  # move_lc
        np.empty(11),  # hist
        np.empty(11),  # weighted
        np.empty(wide + 1),  # cdf
        np.empty(cap + 1),  # not_beaten
        np.empty(cap + 1),  # beat
        np.empty(ir[R_END_SIZE]),  # end
    )
    return ints, floats, np.empty((n, MAX_HAND), np.int64), np.empty((2, wide + 1)), np.zeros(NUM_KINDS, np.bool_)


@numba.njit(cache=True)
def _decide_range(
    lo, hi, obs, card_end, known_start, card_starts, hand_sizes, alive, caller, stock, turns, phase, masks, n, w, ir,
    milestones, deck_counts, disc_counts, disc_takeable, disc_n_takeable, disc_move, num_moves, out, scratch,
):  # fmt: skip
    """The decisions of rows ``lo..hi - 1`` (each row on its own: any split gives the same);
    ``scratch``: :func:`_scratch`. Every array is used borrowed (see :func:`_borrowed`): the
    caller holds them."""
    obs, card_starts = _borrowed(obs), _borrowed(card_starts)
    hand_sizes, alive = _borrowed(hand_sizes), _borrowed(alive)
    caller, stock, turns, phase = _borrowed(caller), _borrowed(stock), _borrowed(turns), _borrowed(phase)
    masks, w, ir, deck_counts = _borrowed(masks), _borrowed(w), _borrowed(ir), _borrowed(deck_counts)
    milestones = _borrowed(milestones)
    disc_counts, disc_takeable = _borrowed(disc_counts), _borrowed(disc_takeable)
    disc_n_takeable, disc_move, out = _borrowed(disc_n_takeable), _borrowed(disc_move), _borrowed(out)
    ints, floats, known, dist, near = scratch
    known, dist, near = _borrowed(known), _borrowed(dist), _borrowed(near)
    hand, rest, n_known, pool = _borrowed(ints[0]), _borrowed(ints[1]), _borrowed(ints[2]), _borrowed(ints[3])
    sc, row, takes, move_a, moves = (_borrowed(ints[4]), _borrowed(ints[5]), _borrowed(ints[6]), _borrowed(ints[7]),
                                     _borrowed(ints[8]))  # fmt: skip
    fs, costs, move_lc, hist = _borrowed(floats[0]), _borrowed(floats[1]), _borrowed(floats[2]), _borrowed(floats[3])
    weighted, cdf, not_beaten, beat = (_borrowed(floats[4]), _borrowed(floats[5]), _borrowed(floats[6]),
                                       _borrowed(floats[7]))  # fmt: skip
    end = _borrowed(floats[8])
    end_start = -1  # the total ``end`` was built for (every total alike without score_aware)
    if not w[W_SCORE]:
        _end_costs(0, w, ir, milestones, end)
    A = masks.shape[1]
    cap = ir[R_CALL_MAX]
    mu = w[W_MU]
    lw = w[W_LEAVE]
    h_start, t_start, top_start = card_starts[0], card_starts[1], card_starts[2]
    p_start, d_start, o_start = card_starts[3], card_starts[4], card_starts[5]
    for b in range(lo, hi):
        first = first_legal(masks, b)
        out[b] = first
        if first < 0:
            continue
        for j in range(card_end):  # decode's card counts: rint, never negative
            c = np.int64(np.rint(obs[b, j]))
            row[j] = c if c > 0 else 0
        ph = phase[b]
        if ph == 4:
            if masks[b, BLAST]:
                out[b] = BLAST
            continue
        if ph == 3 and not masks[b, ASAF]:
            continue
        if ph == 2 and not masks[b, SLAM]:
            continue
        if ph > 4:
            continue
        # decode the cards (Info), unseen counts (pool)
        m = 0
        for k in range(NUM_KINDS):
            for _ in range(row[h_start + k]):
                hand[m] = k
                m += 1
        total_hand = _total(hand, m)
        n_known[0] = 0
        for r in range(1, n):
            nk = 0
            s0 = known_start + (r - 1) * NUM_KINDS
            for k in range(NUM_KINDS):
                for _ in range(row[s0 + k]):
                    known[r, nk] = k
                    nk += 1
            n_known[r] = nk
        out_of_play = 0
        for k in range(NUM_KINDS):
            c = deck_counts[k] - row[h_start + k] - row[top_start + k] - row[p_start + k]
            c -= row[o_start + k]
            out_of_play += row[o_start + k]
            for r in range(1, n):
                c -= row[known_start + (r - 1) * NUM_KINDS + k]
            pool[k] = c if c > 0 else 0
        pool_total = 0
        for k in range(NUM_KINDS):
            pool_total += pool[k]
        _hist(pool, deck_counts, hist)
        # bias_at
        n_alive = 0
        for r in range(n):
            n_alive += alive[b, r]
        bias = w[W_BIAS] + w[W_BIAS_TURN] * turns[b] / max(1, n_alive)
        if not bias < w[W_BIAS_MAX]:
            bias = w[W_BIAS_MAX]
        _weighted(hist, bias, weighted)
        if ph == 3:  # should_asaf
            act = PASS
            cr = caller[b]
            if cr >= 0 and total_hand <= cap:
                mk = n_known[cr] if cr > 0 else 0
                _sum_cdf(_known_total(known, cr, mk), max(0, hand_sizes[b, cr] - mk), weighted, cap, cdf, dist)
                z = cdf[cap]
                if z <= 0:
                    act = ASAF
                else:
                    p_lose = cdf[total_hand - 1] / z if total_hand > 0 else 0.0
                    p_win = 1.0 - p_lose
                    mean_caller = 0.0
                    for u in range(cap + 1):
                        mean_caller += u * (cdf[u] - (cdf[u - 1] if u else 0.0))
                    mean_caller = mean_caller / z
                    if p_win * (total_hand + mean_caller + ir[R_PENALTY]) > p_lose * ir[R_PENALTY]:
                        act = ASAF
            out[b] = act
            continue
        if w[W_SCORE]:
            start = np.int64(round(np.float64(obs[b, ir[R_SCORES]]) * ir[R_SCORE_LIMIT]))
            if start != end_start:
                if not _end_costs(start, w, ir, milestones, end):
                    out[b] = -2
                    continue
                end_start = start
        # Estimate
        mean_w = 0.0
        for v in range(11):
            mean_w += v * weighted[v]
        not_beaten[:] = 1.0
        not_end = 1.0
        gain = 0.0
        for r in range(1, n):
            if not alive[b, r]:
                continue
            base = _known_total(known, r, n_known[r])
            unknown = hand_sizes[b, r] - n_known[r]
            if unknown < 0:
                unknown = 0
            _sum_cdf(base, unknown, weighted, cap, cdf, dist)
            for t in range(cap + 1):
                not_beaten[t] *= 1.0 - cdf[t]
            gain += base + unknown * mean_w
            p_low = cdf[cap] * w[W_END]
            not_end *= 1.0 - (p_low if p_low < 1.0 else 1.0)
        for t in range(cap + 1):
            beat[t] = 1.0 - not_beaten[t]
        pe = 1.0 - not_end
        if ph == 2:  # slam
            drawn = -1
            for k in range(NUM_KINDS):
                if row[d_start + k] > 0:
                    drawn = k
                    break
            if drawn < 0:
                continue
            mr = 0
            removed = False
            for i in range(m):
                if hand[i] == drawn and not removed:
                    removed = True
                    continue
                rest[mr] = hand[i]
                mr += 1
            if not removed:
                out[b] = -2
                continue
            empties = mr == 0 and ir[R_EMPTY_WINS] != 0  # emptying the hand wins: no costs needed
            lowers = empties or _hand_cost(rest, mr, beat, end, pe, mu, ir, sc, 0) <= _hand_cost(
                hand, m, beat, end, pe, mu, ir, sc, 0
            )
            out[b] = SLAM if lowers else PASS
            continue
        if ph == 1:  # draw: least (cost, action) over the stock and the legal takes
            n_takes = 0
            for a in range(TAKE_BASE, DISCARD_BASE):
                if masks[b, a]:
                    takes[n_takes] = a - TAKE_BASE
                    n_takes += 1
            draw_stock = masks[b, DRAW_STOCK]
            rest[:m] = hand[:m]
            sc_cost = _draw_costs(
                rest, m, draw_stock, pool, pool_total, takes, n_takes, beat, end, pe, mu, ir, near, sc, fs, costs
            )
            bc = 0.0
            ba = -1
            if draw_stock:
                bc = sc_cost
                ba = DRAW_STOCK
            for j in range(n_takes):
                a = TAKE_BASE + takes[j]
                if ba < 0 or _less(costs[j], a, 0, bc, ba, 0):
                    bc = costs[j]
                    ba = a
            if ba >= 0:
                out[b] = ba
            continue
        # discard: one layout per move (least leave cost, first in id order), then the least plan
        stock_ok = stock[b] > 0 or out_of_play > 0
        nxt = -1
        for r in range(1, n):
            if alive[b, r]:
                nxt = r
                break
        n_moves = 0
        for blk in range(DISCARD_BASE, A, 8):  # eight discards at a time: most are illegal
            if blk + 8 <= A and _eight(masks, b, blk) == 0:
                continue
            for a in range(blk, min(blk + 8, A)):
                if not masks[b, a]:
                    continue
                i = a - DISCARD_BASE
                lc = 0.0
                if lw:
                    worst = 0.0
                    if nxt >= 0:
                        for j in range(disc_n_takeable[i]):
                            card = disc_takeable[i, j]
                            u = 4.0 - VALUE[card]
                            if u < 0.0:
                                u = 0.0
                            if n_known[nxt] and _combines(card, known, nxt, n_known[nxt]):
                                u += 3.0
                            if u > worst:
                                worst = u
                    lc = worst * lw
                mv = disc_move[i]
                if move_a[mv] < 0:
                    moves[n_moves] = mv
                    n_moves += 1
                    move_lc[mv] = lc
                    move_a[mv] = a
                elif lc < move_lc[mv]:
                    move_lc[mv] = lc
                    move_a[mv] = a
        n_takes = 0
        for k in range(NUM_KINDS):
            if row[t_start + k] > 0:
                takes[n_takes] = k
                n_takes += 1
        pc = 0.0
        pa = -1
        pd = -1
        bad = False
        for j in range(n_moves):  # plans compare as whole (cost, discard, draw) keys: any move order
            mv = moves[j]
            a = move_a[mv]
            move_a[mv] = -1
            lc = move_lc[mv]
            i = a - DISCARD_BASE
            mr = 0
            for k in range(NUM_KINDS):
                c = row[h_start + k] - disc_counts[i, k]
                if c < 0:
                    bad = True
                for _ in range(c):
                    rest[mr] = k
                    mr += 1
            if mr == 0 and ir[R_EMPTY_WINS]:
                if pa < 0 or _less(EMPTY_HAND_COST, a, DRAW_STOCK, pc, pa, pd):
                    pc, pa, pd = EMPTY_HAND_COST, a, DRAW_STOCK
                continue
            sc_cost = _draw_costs(
                rest, mr, stock_ok, pool, pool_total, takes, n_takes, beat, end, pe, mu, ir, near, sc, fs, costs
            )
            if stock_ok:
                cost = sc_cost + lc
                if pa < 0 or _less(cost, a, DRAW_STOCK, pc, pa, pd):
                    pc, pa, pd = cost, a, DRAW_STOCK
            for jt in range(n_takes):
                cost = costs[jt] + lc
                if pa < 0 or _less(cost, a, TAKE_BASE + takes[jt], pc, pa, pd):
                    pc, pa, pd = cost, a, TAKE_BASE + takes[jt]
        if bad:
            out[b] = -2
            continue
        if pa >= 0 and pc <= EMPTY_HAND_COST:
            out[b] = pa
            continue
        if masks[b, CALL_YANIV]:
            q = _beaten(beat, total_hand)
            if not q > w[W_CALL_RISK]:
                loss = total_hand + ir[R_PENALTY]
                v = w[W_CALL_AWARE]
                if v:
                    theirs = _opponents_end_cost(obs, b, n, alive, known, n_known, hand_sizes, weighted, w, ir,
                                                 milestones, cdf, dist)  # fmt: skip
                    if theirs != theirs:  # NaN: a total outside the milestone table
                        out[b] = -2
                        continue
                    ev = (1.0 - q) * ((1.0 - v) * gain + v * theirs) - q * ((1.0 - v) * loss + v * end[loss])
                else:
                    ev = (1.0 - q) * gain - q * loss
                if ev > w[W_CALL_MARGIN]:
                    out[b] = CALL_YANIV
                    continue
        if pa >= 0:
            out[b] = pa


@numba.njit(cache=True, parallel=True)
def _decide_rows_parallel(
    chunks, obs, card_end, known_start, card_starts, hand_sizes, alive, caller, stock, turns, phase, masks, n, w, ir,
    milestones, deck_counts, disc_counts, disc_takeable, disc_n_takeable, disc_move, num_moves, out,
):  # fmt: skip
    """:func:`_decide_range` over all rows, cut into ``chunks`` spread over Numba's threads."""
    B = masks.shape[0]
    for c in numba.prange(chunks):
        scratch = _scratch(n, ir, card_end, num_moves, masks.shape[1])
        _decide_range(
            c * B // chunks, (c + 1) * B // chunks, obs, card_end, known_start, card_starts, hand_sizes, alive, caller,
            stock, turns, phase, masks, n, w, ir, milestones, deck_counts, disc_counts, disc_takeable, disc_n_takeable,
            disc_move, num_moves, out, scratch,
        )  # fmt: skip


#: Fewest rows per thread worth a thread of its own.
MIN_ROWS_PER_THREAD = 32


def heuristic_batch(
    obs: np.ndarray, masks: np.ndarray, tables: HeuristicTables, w: np.ndarray, threads: int = 1
) -> np.ndarray:
    """Actions ``[B]`` of the heuristic policy with weights ``w`` (:func:`weights`); ``-1``
    where nothing is legal, ``-2`` where the scalar policy must decide. ``threads > 1``
    spreads the rows over that many of Numba's threads (at most ``numba.get_num_threads()``,
    and at least :data:`MIN_ROWS_PER_THREAD` rows each): the same actions, each row being
    decided on its own. Opt-in: they pay only on idle cores (with both cores busy, two
    threads measured no faster, and ten times slower under Numba's OpenMP layer, whose
    threads spin while waiting), and under that layer a process that has used them cannot
    ``fork`` children that use them (spawn them)."""
    out = np.empty(len(obs), dtype=np.int64)
    if not len(obs):
        return out
    masks = np.ascontiguousarray(masks, dtype=np.bool_)
    hand_sizes, alive, caller, stock, turns, phase = tables.decode(obs)
    t = tables
    chunks = min(threads, numba.get_num_threads(), len(obs) // MIN_ROWS_PER_THREAD) if threads > 1 else 1
    if chunks > 1:
        _decide_rows_parallel(
            chunks, obs, t.card_end, t.known_start, t.card_starts, hand_sizes, alive, caller, stock, turns, phase,
            masks, t.n, w, t.int_rules, t.milestones, t.deck_counts, t.disc_counts, t.disc_takeable, t.disc_n_takeable,
            t.disc_move, t.num_moves, out,
        )  # fmt: skip
    else:  # the same compiled _decide_range as the threads' (int64 bounds): compiled once
        scratch = _scratch(t.n, t.int_rules, t.card_end, t.num_moves, masks.shape[1])
        _decide_range(
            0, len(obs), obs, t.card_end, t.known_start, t.card_starts, hand_sizes, alive, caller, stock, turns, phase,
            masks, t.n, w, t.int_rules, t.milestones, t.deck_counts, t.disc_counts, t.disc_takeable, t.disc_n_takeable,
            t.disc_move, t.num_moves, out, scratch,
        )  # fmt: skip
    legal = out >= 0
    rows = np.flatnonzero(legal)
    bad = rows[~masks[rows, out[rows]]]
    out[bad] = -2  # never expected: the scalar agent decides these rows
    return out
