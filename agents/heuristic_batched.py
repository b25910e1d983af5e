"""The heuristic's decision, compiled for whole batches (Numba, nopython, cached): the one
place where ``heuristic``, ``score_heuristic`` and ``tuned_two_deck`` decide (their scalar
``act`` is a batch of one row), and where the search gets its turn plans
(:func:`heuristic_plans`) and its rollout policy (the *lite* variant, :data:`W_LITE`).

:func:`heuristic_batch` returns, row by row, the action of the heuristic described in
:class:`agents.heuristic.HeuristicAgent` (ties broken: plans, least ``(cost, discard id,
draw id)``; draws, least ``(cost, action id)``). Its floating-point operations keep the order
of the Python implementation it replaced (``agents/heuristic.py``'s ``HeuristicPolicy``), whose
decisions the test suite holds it to (``tests/data``). The pieces are small kernels over
card lists and count arrays (decode, unseen counts, the weighted value histogram, the
sum-of-values CDF, call risk, best next discard, hand and stock costs, the leave weight, the
end-of-round chance, the cost of the points taken when the round ends as the acting seat's
total makes it). Rows whose mask allows nothing get ``-1``; a row whose observation
contradicts itself gets :data:`INCONSISTENT`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numba
import numpy as np

from yaniv_env import Rules
from yaniv_env.core.cpus import available_cpus, in_threads
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
)
from yaniv_env.yaniv.cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS, RANK, SUIT, YANIV_VALUE, standard_deck
from yaniv_env.yaniv.engine import after_milestone, past_limit
from yaniv_env.yaniv.observation import ObservationLayout

from .common import ASAF_PHASE, BLAST_PHASE, DRAW_PHASE, PHASES, SLAM_PHASE
from .compiled import borrowed, compiled_once, first_legal, legal_from

__all__ = [
    "DEFAULTS",
    "HeuristicTables",
    "TurnPlans",
    "check_consistent",
    "heuristic_tables",
    "heuristic_batch",
    "heuristic_plans",
    "weights",
    "compile_once",
    "HEURISTIC_KERNELS",
    "decide_rows",
    "work_arrays",
]

#: Tunable weights of :class:`HeuristicAgent` (override any with a keyword option).
DEFAULTS = {
    # cost of each card still held after the next discard (fewer cards = sooner to call)
    "mu": 3.0,
    # opponents' unknown cards are assumed lower than the unseen pool: value v is weighted
    # exp(-b·v), b = bias + bias_per_turn · (turns each player has had this round), at
    # most bias_max (players keep their low cards; fitted on heuristic self-play)
    "bias": 0.04,
    "bias_per_turn": 0.035,
    "bias_max": 0.35,
    # call Yaniv only when the estimated chance of being beaten is at most this...
    "call_risk": 0.3,
    # ...and the expected relative points of calling exceed this
    "call_margin": 0.0,
    # weight of what a discard leaves the next player to take (low cards, jokers, cards
    # that combine with the cards it is known to hold)
    "leave_weight": 0.6,
    # scale of the chance that the round ends before my next turn (it mixes the hand
    # total now with the hand's value after the next discard)
    "end_weight": 1.0,
    # weight of the game totals in the cost of the points I take when the round ends: 0
    # counts them as round points; 1 as the change of my total after the milestone (a
    # total landing on a halving milestone costs less than nothing), plus limit_cost when
    # it puts me past the score limit
    "score_aware": 0.0,
    "limit_cost": 100.0,
    # weight of the game totals in calling Yaniv: v mixes (1 - v)·points + v·(change of the
    # total after the milestone, plus limit_cost past the limit), for the opponents' hands
    # and for my own if I am beaten; above 1 it stretches the totals' difference from points
    "call_aware": 0.0,
}


def widest_hand_total(rules: Rules) -> int:
    """The largest total a hand of ``hand_size + 1`` cards can hold (every card a 10)."""
    return 10 * (rules.hand_size + 1)


def end_cost_size(rules: Rules) -> int:
    """Entries of the end-cost table (:func:`_end_costs`): every total a hand of ``hand_size + 1``
    cards can hold, plus the penalty."""
    return widest_hand_total(rules) + rules.penalty + 1


#: Plan cost of a discard that empties the hand when that wins the round (001).
EMPTY_HAND_COST = -100.0


VALUE = np.array(YANIV_VALUE, dtype=np.int64)
RANKS = np.array(RANK, dtype=np.int64)
SUITS = np.array(SUIT, dtype=np.int64)
MAX_HAND = 64
#: Card values 0..10: the length of a value histogram.
NUM_VALUES = max(YANIV_VALUE) + 1
# Scratch ints per block (``sc``): counts by rank, by suit, the kinds present (one per
# non-joker kind), a suit's ranks in order
S_BY_SUIT = NUM_RANKS
S_PRESENT = S_BY_SUIT + NUM_SUITS
S_SUIT_RANKS = S_PRESENT + NUM_SUITS * NUM_RANKS
SCRATCH = S_SUIT_RANKS + NUM_RANKS
#: The offsets of the two scratch blocks as kernel arguments: int64 values, not Python int
#: literals (a literal argument makes Numba compile the callee once per value).
BLOCK_0, BLOCK_1 = np.int64(0), np.int64(SCRATCH)


#: The observation's card-count pieces whose starts ``HeuristicTables.card_starts`` holds, and
#: their indices there.
CARD_PIECES = ("hand", "takeable", "top", "pending", "drawn", "out_of_play")
C_HAND, C_TAKEABLE, C_TOP, C_PENDING, C_DRAWN, C_OUT_OF_PLAY = range(len(CARD_PIECES))


class HeuristicTables:
    """What the kernel reads for one rule set and player count."""

    def __init__(self, rules: Rules):
        table = action_table(rules)
        layout = ObservationLayout(rules)
        p = layout.pieces
        discards = table.discards
        self.rules = rules
        self.layout = layout
        self.n = rules.num_players
        self.num_actions = table.num_actions
        self.size = layout.size
        self.card_starts = np.array([p[name].start for name in CARD_PIECES], dtype=np.int64)
        self.known_start = p["known"].start
        self.card_end = p["out_of_play"].start + NUM_KINDS  # the card-count blocks end with out_of_play
        self.slices = {
            name: p[name].slice for name in ("hand_sizes", "alive", "caller", "stock", "round_progress", "scores")
        }
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
        # acting seat's total, the score limit, the size of the end-cost table and the lowest
        # total of the milestone table
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
                0,
            ],
            dtype=np.int64,
        )
        self.milestones = self.milestone_table(0, rules.score_limit)
        self._wider: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def milestone_table(self, lo: int, hi: int) -> np.ndarray:
        """``table[t - lo]``: a total ``t`` once the milestone has applied, and whether that
        is past the limit, for the totals a seat whose total is ``lo..hi`` can reach in a round."""
        rules = self.rules
        after = [after_milestone(rules, t) for t in range(lo, hi + self.int_rules[R_END_SIZE])]
        return np.array([(a, past_limit(rules, a)) for a in after], dtype=np.int64)

    def for_totals(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(int_rules, milestones)`` covering the totals the observations hold: the tables'
        own (totals from 0 to the limit), or wider ones (built once) for totals outside that."""
        r = self.rules
        totals = np.round(obs[:, self.slices["scores"]].astype(np.float64) * r.score_limit)
        lo, hi = int(min(0, totals.min())), int(max(r.score_limit, totals.max()))
        if (lo, hi) == (0, r.score_limit):
            return self.int_rules, self.milestones
        got = self._wider.get((lo, hi))
        if got is None:
            ir = self.int_rules.copy()
            ir[R_MILESTONE_LO] = lo
            got = self._wider[(lo, hi)] = (ir, self.milestone_table(lo, hi))
        return got

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
        phase_vec = obs[:, self.phase_slice]
        phase = np.where(phase_vec.max(axis=1) > 0.5, phase_vec.argmax(axis=1), len(PHASES)).astype(np.int64)
        return hand_sizes, alive, caller, stock, turns, phase


@lru_cache(maxsize=64)
def heuristic_tables(rules: Rules) -> HeuristicTables:
    return HeuristicTables(rules)


def compile_once(tables: HeuristicTables) -> None:
    """Before this process first runs the kernel: compile it (or read Numba's cache) on a batch
    of one row, under a notice on stderr when the cache is cold (:func:`agents.compiled.compiled_once`)."""
    warm = np.zeros((1, tables.size), np.float32), np.zeros((1, tables.num_actions), np.bool_)
    compiled_once("the heuristic agents", decide_rows, lambda: heuristic_batch(*warm, tables, weights({})))


def weights(options: dict, lite: bool = False) -> np.ndarray:
    """The policy's weights as the kernel reads them (defaults overridden by ``options``),
    then the variant: ``lite`` is the search's fast rollout policy (:data:`W_LITE`)."""
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown heuristic options: {', '.join(sorted(unknown))}; known: {', '.join(DEFAULTS)}")
    o = {**DEFAULTS, **options}
    return np.array([*(float(o[k]) for k in DEFAULTS), float(lite)], dtype=np.float64)


# weight indices (the order of DEFAULTS)
_W = {name: i for i, name in enumerate(DEFAULTS)}
W_MU, W_BIAS, W_BIAS_TURN, W_BIAS_MAX = _W["mu"], _W["bias"], _W["bias_per_turn"], _W["bias_max"]
W_CALL_RISK, W_CALL_MARGIN, W_LEAVE, W_END = _W["call_risk"], _W["call_margin"], _W["leave_weight"], _W["end_weight"]
W_SCORE, W_LIMIT, W_CALL_AWARE = _W["score_aware"], _W["limit_cost"], _W["call_aware"]
#: The variant flag after the weights: nonzero for the *lite* heuristic, the search's rollout
#: policy, which takes the unseen cards to follow the deck's value distribution (its low-card
#: weighting at the bias rounded to hundredths) and scores a stock card by its value alone
#: (:func:`_stock_cost_lite`; no exact set or run completion).
W_LITE = len(DEFAULTS)
# int_rules indices
R_CALL_MAX, R_PENALTY, R_EMPTY_WINS, R_RUN_MIN, R_RUN_JOKERS, R_ENDS_OK, R_HAND_SIZE = range(7)
R_SCORES, R_SCORE_LIMIT, R_END_SIZE, R_MILESTONE_LO = range(7, 11)


# -- hand arithmetic ---------------------------------------------------------------------------
#
# Speed: the row loop (:func:`decide_rows`) works on borrowed arrays (:func:`agents.compiled.borrowed`)
# and its helpers take scratch arrays at offsets, never slices or fresh arrays. With owned
# arrays, every array argument of every helper call (inlined or not) and every slice cost an
# atomic reference-count increment and decrement: more than half of a decision's time. The
# small helpers are inlined (``inline="always"``); the larger ones (_hand_cost, _best_removed,
# _sum_cdf and each phase's decision) are called: Numba's inlining copies a helper's IR into
# every caller, and inlined everywhere the row loop took minutes to compile.
# Scratch ints (``sc``, :data:`SCRATCH` ints per block, laid out as the ``S_*`` offsets say):
# block 0 holds the parts of the hand being drawn to (:func:`_parts`), block 1 serves whole
# hand costs.


@numba.njit(cache=True, inline="always")
def _total(hand, m):
    t = np.int64(0)  # not the literal 0: see _unseen
    for i in range(m):
        t += VALUE[hand[i]]
    return t


@numba.njit(cache=True, inline="always")
def _suit_run(sc, o, s, in_suit, J, mu, ir):
    """The best run of suit ``s`` (``value + mu·length``), -1 if none; ``sc[o + S_PRESENT:]``: the
    kinds held, ``in_suit``: the suit's cards (duplicates counted)."""
    best = -1.0
    run_min = ir[R_RUN_MIN]
    if in_suit == 0 or in_suit + J < run_min:
        return best
    ends_ok = ir[R_ENDS_OK] != 0
    cap = ir[R_HAND_SIZE]
    rs = o + S_SUIT_RANKS
    present = o + S_PRESENT + s * NUM_RANKS
    nr = 0
    for r in range(NUM_RANKS):
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
            length = min(span + J - gaps, cap, NUM_RANKS) if ends_ok else span
            if length >= run_min:
                x = vsum + mu * length
                if x > best:
                    best = x
    return best


@numba.njit(cache=True, inline="always")
def _count(hand, m, mu, sc, o):
    """``hand[:m]`` by rank, by suit and kinds present (``sc[o:o + S_SUIT_RANKS]``); returns
    its jokers and the best single-card term of :func:`_best_removed` (a max over a set of
    exact values: any order gives the same float)."""
    best = -1.0
    jokers = 0
    for i in range(S_SUIT_RANKS):
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
        sc[o + S_BY_SUIT + SUITS[k]] += 1
        sc[o + S_PRESENT + k] = 1
    if jokers and mu > best:
        best = mu
    return jokers, best


@numba.njit(cache=True, inline="always")
def _group(g, r, mu):
    """A same-rank group's term (-1 for fewer than two cards)."""
    return g * (VALUE[r] + mu) if g > 1 else -1.0


@numba.njit(cache=True)
def _best_removed(hand, m, mu, ir, sc, o):
    """``max`` over the discards ``d`` that ``hand[:m]`` can lay of ``value(d) + mu·|d|`` (-1 for an
    empty hand), computed directly: singles, whole same-rank groups, runs with the jokers the
    rules allow (scratch block at ``sc[o:]``)."""
    jokers, best = _count(hand, m, mu, sc, o)
    for r in range(NUM_RANKS):
        x = _group(sc[o + r], r, mu)
        if x > best:
            best = x
    if m >= ir[R_RUN_MIN]:
        J = min(jokers, ir[R_RUN_JOKERS])
        for s in range(NUM_SUITS):
            x = _suit_run(sc, o, s, sc[o + S_BY_SUIT + s], J, mu, ir)
            if x > best:
                best = x
    return best


@numba.njit(cache=True, inline="always")
def _beaten(beat, t):
    return beat[t] if t < beat.shape[0] else beat[beat.shape[0] - 1]


@numba.njit(cache=True)
def _hand_cost(hand, m, beat, end, pe, mu, ir, sc, o):
    """Expected-points proxy of holding ``hand[:m]`` at the end of my turn: its end cost if the
    round ends before my next turn (``pe``), else its value after the best next discard plus
    ``mu`` per card left, or the cost of calling with it if that is lower (:func:`_cost`)."""
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
    """:func:`widest_hand_total`: the largest total of ``hand_size + 1`` cards."""
    return 10 * (ir[R_HAND_SIZE] + 1)


@numba.njit(cache=True, inline="always")
def _total_change(milestones, ir, start, x, lc):
    """The change of a total ``start`` that takes ``x`` points,
    after the milestone, plus ``lc`` (limit_cost) past the limit."""
    t = start + x - ir[R_MILESTONE_LO]
    return milestones[t, 0] - start + (lc if milestones[t, 1] else 0.0)


@numba.njit(cache=True, inline="always")
def _end_costs(start, w, ir, milestones, end):
    """``end[x]``, the cost for a seat whose total is ``start`` of taking ``x`` points when the
    round ends: ``x``, or with ``score_aware`` = s, ``(1 - s)·x + s·Δ`` with Δ the change of its
    total once the milestone applies, plus ``limit_cost`` past the limit (``end``: the table,
    ``ir[R_END_SIZE]`` entries)."""
    size = ir[R_END_SIZE]
    score = w[W_SCORE]
    if not score:
        for x in range(size):
            end[x] = x
        return
    lc = w[W_LIMIT]
    end[0] = 0.0
    for x in range(1, size):
        end[x] = (1.0 - score) * x + score * _total_change(milestones, ir, start, x, lc)


@numba.njit(cache=True, inline="always")
def _near_kinds(hand, m, near):
    """The card kinds that could form a set or run with a card of ``hand[:m]``, as a mask
    over the kinds (a joker in the hand bridges one more rank)."""
    near[:] = False
    has_joker = False
    for i in range(m):
        k = hand[i]
        if k == JOKER:
            has_joker = True
            continue
        r, s = RANKS[k], SUITS[k]
        for s2 in range(NUM_SUITS):
            near[s2 * NUM_RANKS + r] = True
        for dr in (-2, -1, 1, 2):
            if 0 <= r + dr < NUM_RANKS:
                near[s * NUM_RANKS + r + dr] = True
    if m:
        near[JOKER] = True
    if has_joker:
        for i in range(m):
            k = hand[i]
            if k != JOKER:
                r, s = RANKS[k], SUITS[k]
                for dr in (-3, 3):
                    if 0 <= r + dr < NUM_RANKS:
                        near[s * NUM_RANKS + r + dr] = True


# float scratch (``fs``): counts by value, each rank's best other group, each suit's best other run
F_BY_VALUE = 0
F_GX = F_BY_VALUE + NUM_VALUES
F_RX = F_GX + NUM_RANKS
F_SCRATCH = F_RX + NUM_SUITS


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
    for r in range(NUM_RANKS):
        x = _group(sc[r], r, mu)
        if x > g1:
            g2 = g1
            g1 = x
            i1 = r
        elif x > g2:
            g2 = x
    for r in range(NUM_RANKS):
        g = g2 if r == i1 else g1
        fs[F_GX + r] = g if g > singles else singles
    best = singles if singles > g1 else g1
    J = min(jokers, ir[R_RUN_JOKERS])
    r0 = _suit_run(sc, 0, 0, sc[S_BY_SUIT], J, mu, ir)
    r1 = _suit_run(sc, 0, 1, sc[S_BY_SUIT + 1], J, mu, ir)
    r2 = _suit_run(sc, 0, 2, sc[S_BY_SUIT + 2], J, mu, ir)
    r3 = _suit_run(sc, 0, 3, sc[S_BY_SUIT + 3], J, mu, ir)
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
    """:func:`_hand_cost` of the hand of :func:`_parts` (``m`` cards, ``total``) plus
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
        held = sc[S_PRESENT + k]
        sc[S_PRESENT + k] = 1
        x = _suit_run(sc, 0, s, sc[S_BY_SUIT + s] + 1, J, mu, ir)
        sc[S_PRESENT + k] = held
        if x > best:
            best = x
    tk = total + v
    return _cost(tk, tk + mu * (m + 1) - best, beat, end, pe, ir)


@numba.njit(cache=True, inline="always")
def _draw_costs(hand, m, stock, unseen, takes, n_takes, beat, end, pe, mu, ir, near, sc, fs, costs):
    """The costs of drawing to ``hand[:m]`` (room for one more card): the expected cost of a
    stock card if ``stock`` (returned; else 0) and the hand cost of taking each of
    ``takes[:n_takes]`` (into ``costs``). ``unseen``: the unseen pool's counts and size, the
    value histogram and the weights (the lite variant scores a stock card by ``hist`` only)."""
    pool, pool_total, hist, w = unseen
    total = _total(hand, m)
    br, singles, J = _parts(hand, m, mu, ir, sc, fs)
    for j in range(n_takes):
        k = takes[j]
        if k == JOKER:
            hand[m] = k
            costs[j] = _hand_cost(hand, m + 1, beat, end, pe, mu, ir, sc, BLOCK_1)
        else:
            costs[j] = _plus_cost(k, m, total, singles, J, beat, end, pe, mu, ir, sc, fs)
    if not stock:
        return 0.0
    if w[W_LITE]:
        if m:
            return _stock_cost_lite(total, m, br, hist, w[W_SCORE], beat, end, pe, mu, ir)
        for v in range(NUM_VALUES):  # an empty hand: the card's value distribution, weights summing to 1
            fs[F_BY_VALUE + v] = hist[v]
        return _by_value_cost(0.0, total, m, br, beat, end, pe, mu, ir, fs)
    if pool_total <= 0:
        return _hand_cost(hand, m, beat, end, pe, mu, ir, sc, BLOCK_1)
    for v in range(NUM_VALUES):
        fs[F_BY_VALUE + v] = 0.0
    acc = 0.0
    _near_kinds(hand, m, near)
    for k in range(NUM_KINDS):  # cards that may combine with the hand exactly, the others by value
        c = pool[k]
        if not c:
            continue
        if not near[k]:
            fs[F_BY_VALUE + VALUE[k]] += c
            continue
        if k == JOKER:
            hand[m] = k
            acc += c * _hand_cost(hand, m + 1, beat, end, pe, mu, ir, sc, BLOCK_1)
            continue
        acc += c * _plus_cost(k, m, total, singles, J, beat, end, pe, mu, ir, sc, fs)
    return _by_value_cost(acc, total, m, br, beat, end, pe, mu, ir, fs) / pool_total


@numba.njit(cache=True, inline="always")
def _by_value_cost(acc, total, m, br, beat, end, pe, mu, ir, fs):
    """``acc`` plus the cost of drawing to ``hand[:m]`` (``total``, best_removed ``br``) each
    card counted by value in ``fs[F_BY_VALUE:]``, times its count: the card is kept or dropped
    at the next discard, whichever is cheaper, or the hand calls."""
    call_max = ir[R_CALL_MAX]
    penalty = ir[R_PENALTY]
    drop_new = 0.0
    keep_new = 0.0
    if m:
        drop_new = total + mu * m
        keep_new = total + mu * m - br + mu
    for v in range(NUM_VALUES):
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
    return acc


@numba.njit(cache=True, inline="always")
def _stock_cost_lite(total, m, br, hist, score, beat, end, pe, mu, ir):
    """The lite variant's cost of drawing a stock card to a hand of ``m > 0`` cards (``total``,
    best_removed ``br``), the card known by its value distribution ``hist`` only: the sum of
    :func:`_by_value_cost` in closed form, ``E[min(x, v)]`` with ``x`` what dropping the new card
    saves over keeping it (``score``: the score_aware weight, for the cost of the round ending)."""
    drop_new = total + mu * m
    keep_new = total + mu * m - br + mu
    x = drop_new - keep_new
    g = 0.0
    ev = 0.0
    ended = 0.0
    for v in range(NUM_VALUES):
        g += hist[v] * (x if x < v else v)
        ev += hist[v] * v
        ended += hist[v] * end[total + v]
    if not score:
        ended = total + ev
    cost = pe * ended + (1.0 - pe) * (keep_new + g)
    call_max = ir[R_CALL_MAX]
    if total <= call_max:
        penalty = ir[R_PENALTY]
        for v in range(min(10, call_max - total) + 1):
            p = hist[v]
            if p:
                plain = keep_new + (x if x < v else v)
                tv = total + v
                c = _beaten(beat, tv) * end[tv + penalty]
                if c < plain:
                    cost += p * (1.0 - pe) * (c - plain)
    return cost


@numba.njit(cache=True, inline="always")
def _combines(card, known, r0, m):
    """Whether ``card`` could form a set or run with a card of ``known[r0, :m]`` (same rank,
    same suit within two ranks, or either one a joker)."""
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
    for v in range(NUM_VALUES):
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
def _hist(pool, deck_counts, hist, lite):
    """The unseen pool's value distribution (the deck's when the pool is empty, or ``lite``)."""
    hist[:] = 0.0
    if not lite:
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
    t = np.int64(0)  # not the literal 0: _sum_cdf would be compiled once more for it
    for i in range(m):
        t += VALUE[known[r, i]]
    return t


@numba.njit(cache=True)
def _opponents_end_cost(obs, b, n, alive, known, n_known, hand_sizes, weighted, w, ir, milestones, cdf, dist):
    """The expected change of the alive opponents' totals of row ``b`` (after the milestone,
    plus ``limit_cost`` past the limit) if the round ends now, their unknown cards drawn from
    ``weighted``; ``cdf`` and ``dist``: scratch of
    ``_widest_hand_total(ir) + 1`` totals."""
    top = _widest_hand_total(ir)
    lc = w[W_LIMIT]
    acc = 0.0
    for r in range(1, n):
        if not alive[b, r]:
            continue
        _sum_cdf(_known_total(known, r, n_known[r]), max(0, hand_sizes[b, r] - n_known[r]), weighted, top, cdf, dist)
        start = np.int64(round(np.float64(obs[b, ir[R_SCORES] + r]) * ir[R_SCORE_LIMIT]))
        prev = 0.0
        for x in range(top + 1):
            p = cdf[x] - prev
            prev = cdf[x]
            if p:
                acc += p * _total_change(milestones, ir, start, x, lc)
    return acc


# -- the decision ------------------------------------------------------------------------------

#: A row whose observation contradicts itself (a legal discard's cards or the drawn card
#: missing from the hand, more cards than a hand can hold): the agent raises ``ValueError``.
INCONSISTENT = -3


@numba.njit(cache=True, inline="always")
def _less(c1, a1, d1, c2, a2, d2):
    """``(c1, a1, d1) < (c2, a2, d2)`` as Python compares tuples."""
    if c1 != c2:
        return c1 < c2
    if a1 != a2:
        return a1 < a2
    return d1 < d2


#: What :func:`work_arrays`'s int arrays (``ints``) hold, by index.
I_HAND, I_REST, I_N_KNOWN, I_POOL, I_SC, I_ROW, I_TAKES, I_MOVE_A, I_MOVES, I_IDS = range(10)
#: What its float arrays (``floats``) hold, by index.
F_FS, F_COSTS, F_MOVE_LC, F_HIST, F_WEIGHTED, F_CDF, F_NOT_BEATEN, F_BEAT, F_END = range(9)
#: The observation's fields that :func:`decide_rows` passes on (``fields``), by index.
FIELD_HAND_SIZES, FIELD_ALIVE, FIELD_CALLER, FIELD_STOCK, FIELD_TURNS, FIELD_PHASE = range(6)
#: Its tables (``tabs``), by index.
T_CARD_STARTS, T_DECK_COUNTS, T_DISC_COUNTS, T_DISC_TAKEABLE, T_DISC_N_TAKEABLE, T_DISC_MOVE = range(6)
#: The opponents' estimates (``est``: the tables ``beat`` and ``end``, then the chance ``pe``), by index.
E_BEAT, E_END = range(2)


@numba.njit(cache=True)
def work_arrays(n, ir, card_end, num_moves, num_actions, plan_rows):
    """The work arrays of :func:`decide_rows` (one set per thread), with a plan record for
    ``plan_rows`` plans (:func:`_keep_plan`; 0: none kept)."""
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
        np.empty(num_actions, np.int64),  # legal discard ids
    )
    floats = (
        np.zeros(F_SCRATCH),  # fs
        np.empty(NUM_KINDS),  # costs
        np.empty(num_moves),  # move_lc
        np.empty(NUM_VALUES),  # hist
        np.empty(NUM_VALUES),  # weighted
        np.empty(wide + 1),  # cdf
        np.empty(cap + 1),  # not_beaten
        np.empty(cap + 1),  # beat
        np.empty(ir[R_END_SIZE]),  # end
    )
    plans = np.zeros((plan_rows + 1, 3))  # row 0: the count, the call (1, 0; -1 not asked), the bias
    known, dist, near = np.empty((n, MAX_HAND), np.int64), np.empty((2, wide + 1)), np.zeros(NUM_KINDS, np.bool_)
    return ints, floats, known, dist, near, plans


@numba.njit(cache=True, inline="always")
def _cards(row, start, dst):
    """The cards counted in ``row[start:start + NUM_KINDS]`` into ``dst``, kinds in order;
    returns their number, -1 for more than a hand can hold."""
    m = 0
    for k in range(NUM_KINDS):
        m += row[start + k]
    if m > MAX_HAND:
        return -1
    m = 0
    for k in range(NUM_KINDS):
        for _ in range(row[start + k]):
            dst[m] = k
            m += 1
    return m


@numba.njit(cache=True, inline="always")
def _read_cards(obs, b, card_end, known_start, h_start, n, row, hand, known, n_known):
    """decode's card counts of row ``b`` (rint, never negative) into ``row``, the hand into
    ``hand`` and each opponent's known cards into ``known[r, :n_known[r]]``; returns the
    hand's size, -1 for more cards than a hand can hold."""
    for j in range(card_end):
        c = np.int64(np.rint(obs[b, j]))
        row[j] = c if c > 0 else 0
    m = _cards(row, h_start, hand)
    n_known[0] = 0
    for r in range(1, n):
        nk = _cards(row, known_start + (r - 1) * NUM_KINDS, known[r])
        if nk < 0:
            return -1
        n_known[r] = nk
    return m


@numba.njit(cache=True, inline="always")
def _unseen(row, deck_counts, n, known_start, card_starts, pool):
    """unseen_counts into ``pool``; returns the pool's size and the number of cards out of play."""
    h_start, top_start = card_starts[C_HAND], card_starts[C_TOP]
    p_start, o_start = card_starts[C_PENDING], card_starts[C_OUT_OF_PLAY]
    out_of_play = np.int64(0)
    for k in range(NUM_KINDS):
        c = deck_counts[k] - row[h_start + k] - row[top_start + k] - row[p_start + k]
        c -= row[o_start + k]
        out_of_play += row[o_start + k]
        for r in range(1, n):
            c -= row[known_start + (r - 1) * NUM_KINDS + k]
        pool[k] = c if c > 0 else 0
    # int64 from the start: an accumulator that starts as the literal 0 is typed Literal[int](0)
    # in Numba's first pass, and every kernel it is handed to is compiled twice
    pool_total = np.int64(0)
    for k in range(NUM_KINDS):
        pool_total += pool[k]
    return pool_total, out_of_play


@numba.njit(cache=True, inline="always")
def _round_cents(x):
    """``round(x, 2)`` as Python rounds a float: the multiple of 0.01 nearest the exact value
    of ``x`` (ties to even), as the nearest float. The product ``100·x`` is rounded; its exact
    error (Dekker's two-product: ``100`` needs no split) decides where the product alone cannot."""
    p = x * 100.0
    c = 134217729.0 * x  # 2**27 + 1: x split into two halves of 26 bits
    hi = c - (c - x)
    lo = x - hi
    err = (hi * 100.0 - p) + lo * 100.0
    k = math.floor(p)
    d = (p - k) - 0.5  # exact: a multiple of p's last bit, which err is smaller than
    if d > 0.0 or (d == 0.0 and (err > 0.0 or (err == 0.0 and k % 2 == 1))):
        k += 1
    return k / 100.0


@numba.njit(cache=True, inline="always")
def _bias_at(w, alive, b, n, turns):
    """The low-card bias of the opponents' unknown cards at this point of the round."""
    n_alive = 0
    for r in range(n):
        n_alive += alive[b, r]
    bias = w[W_BIAS] + w[W_BIAS_TURN] * turns / max(1, n_alive)
    if not bias < w[W_BIAS_MAX]:
        bias = w[W_BIAS_MAX]
    return bias


@numba.njit(cache=True)
def _asaf(total_hand, cr, known, n_known, caller_size, weighted, ir, cdf, dist):
    """Asaf when ``P(win)·(my hand + the caller's hand + penalty) > P(lose)·penalty``, the
    caller's total at most the call limit (``cr``: the caller's seat, -1 if none): ASAF or PASS."""
    cap = ir[R_CALL_MAX]
    if cr < 0 or total_hand > cap:
        return PASS
    mk = n_known[cr] if cr > 0 else 0
    _sum_cdf(_known_total(known, cr, mk), max(0, caller_size - mk), weighted, cap, cdf, dist)
    z = cdf[cap]
    if z <= 0:
        return ASAF
    p_lose = cdf[total_hand - 1] / z if total_hand > 0 else 0.0
    p_win = 1.0 - p_lose
    mean_caller = 0.0
    for u in range(cap + 1):
        mean_caller += u * (cdf[u] - (cdf[u - 1] if u else 0.0))
    mean_caller = mean_caller / z
    return ASAF if p_win * (total_hand + mean_caller + ir[R_PENALTY]) > p_lose * ir[R_PENALTY] else PASS


@numba.njit(cache=True)
def _estimate(b, n, alive, known, n_known, hand_sizes, weighted, w, ir, cdf, dist, not_beaten, beat):
    """Estimate: ``beat[t]``, the chance some opponent holds a total at most ``t``; returns
    the chance the round ends before my next turn and the sum of the opponents' mean totals."""
    cap = ir[R_CALL_MAX]
    mean_w = 0.0
    for v in range(NUM_VALUES):
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
    return 1.0 - not_end, gain


@numba.njit(cache=True)
def _slam(row, d_start, hand, m, rest, beat, end, pe, mu, ir, sc):
    """The slam decision: SLAM when it lowers the hand's cost, else PASS; -1 with no drawn card."""
    drawn = -1
    for k in range(NUM_KINDS):
        if row[d_start + k] > 0:
            drawn = k
            break
    if drawn < 0:
        return -1
    mr = np.int64(0)  # not the literal 0: see _unseen
    removed = False
    for i in range(m):
        if hand[i] == drawn and not removed:
            removed = True
            continue
        rest[mr] = hand[i]
        mr += 1
    if not removed:
        return INCONSISTENT
    if mr == 0 and ir[R_EMPTY_WINS] != 0:  # emptying the hand wins: no costs needed
        return SLAM
    lowers = _hand_cost(rest, mr, beat, end, pe, mu, ir, sc, BLOCK_0) <= _hand_cost(
        hand, m, beat, end, pe, mu, ir, sc, BLOCK_0
    )
    return SLAM if lowers else PASS


@numba.njit(cache=True)
def _draw(masks, b, hand, m, rest, takes, unseen, beat, end, pe, mu, ir, near, sc, fs, costs):
    """The draw: least ``(cost, action)`` over the stock and the legal takes; -1 if none."""
    n_takes = 0
    for a in range(TAKE_BASE, DISCARD_BASE):
        if masks[b, a]:
            takes[n_takes] = a - TAKE_BASE
            n_takes += 1
    draw_stock = masks[b, DRAW_STOCK]
    rest[:m] = hand[:m]
    sc_cost = _draw_costs(rest, m, draw_stock, unseen, takes, n_takes, beat, end, pe, mu, ir, near, sc, fs, costs)
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
    return ba


@numba.njit(cache=True, inline="always")
def _leave_cost(i, nxt, known, n_known, disc_takeable, disc_n_takeable):
    """How useful the cards discard ``i`` leaves to take are to the next seat ``nxt`` (-1: none)."""
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
    return worst


@numba.njit(cache=True)
def _layouts(masks, b, nxt, lw, known, n_known, tabs, move_a, move_lc, moves, ids):
    """One layout per move (least leave cost, first in id order): ``move_a[mv]`` and
    ``move_lc[mv]`` of the moves ``moves[:count]``; returns the count (``ids``: scratch)."""
    disc_takeable, disc_n_takeable, disc_move = tabs[T_DISC_TAKEABLE], tabs[T_DISC_N_TAKEABLE], tabs[T_DISC_MOVE]
    n_moves = 0
    for j in range(legal_from(masks, b, DISCARD_BASE, ids)):
        a = ids[j]
        i = a - DISCARD_BASE
        lc = _leave_cost(i, nxt, known, n_known, disc_takeable, disc_n_takeable) * lw if lw else 0.0
        mv = disc_move[i]
        if move_a[mv] < 0:
            moves[n_moves] = mv
            n_moves += 1
            move_lc[mv] = lc
            move_a[mv] = a
        elif lc < move_lc[mv]:
            move_lc[mv] = lc
            move_a[mv] = a
    return n_moves


@numba.njit(cache=True, inline="always")
def _keep_plan(plans, cost, a, d):
    """Append the plan ``(cost, a, d)`` to ``plans`` (:func:`work_arrays`'s plan record: rows 1..,
    the count in ``plans[0, 0]``) if it has room; the count goes on (the caller checks it)."""
    i = np.int64(plans[0, 0]) + 1
    if i < plans.shape[0]:
        plans[i, 0] = cost
        plans[i, 1] = a
        plans[i, 2] = d
    plans[0, 0] = i


@numba.njit(cache=True)
def _best_plan(row, n_moves, moves, move_a, move_lc, tabs, stock_ok, unseen, est, ir, mu, ints, floats, near, plans):
    """The least turn plan ``(cost, discard, draw)``, one layout per move: returns its cost and
    discard (-1: no plan) and whether a move's cards are missing from the hand (every
    ``move_a`` is reset to -1). Every plan is kept in ``plans`` (:func:`_keep_plan`)."""
    card_starts, disc_counts = tabs[T_CARD_STARTS], tabs[T_DISC_COUNTS]
    beat, end, pe = est
    rest, sc, takes = ints[I_REST], ints[I_SC], ints[I_TAKES]
    fs, costs = floats[F_FS], floats[F_COSTS]
    h_start, t_start = card_starts[C_HAND], card_starts[C_TAKEABLE]
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
        i = a - DISCARD_BASE
        mr = np.int64(0)
        for k in range(NUM_KINDS):
            c = row[h_start + k] - disc_counts[i, k]
            if c < 0:
                bad = True
            for _ in range(c):
                rest[mr] = k
                mr += 1
        if mr == 0 and ir[R_EMPTY_WINS]:
            _keep_plan(plans, EMPTY_HAND_COST, a, DRAW_STOCK)
            if pa < 0 or _less(EMPTY_HAND_COST, a, DRAW_STOCK, pc, pa, pd):
                pc, pa, pd = EMPTY_HAND_COST, a, DRAW_STOCK
            continue
        sc_cost = _draw_costs(rest, mr, stock_ok, unseen, takes, n_takes, beat, end, pe, mu, ir, near, sc, fs, costs)
        if stock_ok:
            cost = sc_cost + move_lc[mv]
            _keep_plan(plans, cost, a, DRAW_STOCK)
            if pa < 0 or _less(cost, a, DRAW_STOCK, pc, pa, pd):
                pc, pa, pd = cost, a, DRAW_STOCK
        for jt in range(n_takes):
            cost = costs[jt] + move_lc[mv]
            _keep_plan(plans, cost, a, TAKE_BASE + takes[jt])
            if pa < 0 or _less(cost, a, TAKE_BASE + takes[jt], pc, pa, pd):
                pc, pa, pd = cost, a, TAKE_BASE + takes[jt]
    return pc, pa, bad


@numba.njit(cache=True, inline="always")
def _calls(obs, b, fields, known, n_known, weighted, w, ir, milestones, cdf, dist, est, total_hand, gain):
    """Whether to call Yaniv with the hand total ``total_hand``
    (``gain``: the sum of the opponents' mean totals)."""
    hand_sizes, alive = fields[FIELD_HAND_SIZES], fields[FIELD_ALIVE]
    beat, end = est[E_BEAT], est[E_END]
    q = _beaten(beat, total_hand)
    if q > w[W_CALL_RISK]:
        return False
    loss = total_hand + ir[R_PENALTY]
    v = w[W_CALL_AWARE]
    if v:
        n = hand_sizes.shape[1]
        theirs = _opponents_end_cost(obs, b, n, alive, known, n_known, hand_sizes, weighted, w, ir, milestones, cdf,
                                     dist)  # fmt: skip
        ev = (1.0 - q) * ((1.0 - v) * gain + v * theirs) - q * ((1.0 - v) * loss + v * end[loss])
    else:
        ev = (1.0 - q) * gain - q * loss
    return ev > w[W_CALL_MARGIN]


@numba.njit(cache=True)
def _discard(obs, b, masks, fields, row, m, unseen, out_of_play, est, weighted, gain, w, ir, milestones, tabs,
             scratch):  # fmt: skip
    """The discard decision: the best plan's discard, or Yaniv. Whether it would call is kept
    in the plan record (``plans[0, 1]``: 1 yes, 0 no, -1 not asked)."""
    ints, floats, known, dist, near, plans = scratch
    hand, n_known, move_a, moves = ints[I_HAND], ints[I_N_KNOWN], ints[I_MOVE_A], ints[I_MOVES]
    move_lc, cdf = floats[F_MOVE_LC], floats[F_CDF]
    alive, stock = fields[FIELD_ALIVE], fields[FIELD_STOCK]
    n = alive.shape[1]
    stock_ok = stock[b] > 0 or out_of_play > 0
    nxt = -1
    for r in range(1, n):
        if alive[b, r]:
            nxt = r
            break
    n_moves = _layouts(masks, b, nxt, w[W_LEAVE], known, n_known, tabs, move_a, move_lc, moves, ints[I_IDS])
    plans[0, 0] = 0.0
    plans[0, 1] = -1.0
    pc, pa, bad = _best_plan(row, n_moves, moves, move_a, move_lc, tabs, stock_ok, unseen, est, ir, w[W_MU], ints,
                             floats, near, plans)  # fmt: skip
    if bad:
        return INCONSISTENT
    if pa >= 0 and pc <= EMPTY_HAND_COST:
        return pa  # 001: emptying the hand wins, and cannot be challenged
    total_hand = _total(hand, m)
    if masks[b, CALL_YANIV]:
        calls = _calls(obs, b, fields, known, n_known, weighted, w, ir, milestones, cdf, dist, est, total_hand, gain)
        plans[0, 1] = 1.0 if calls else 0.0
        if calls:
            return CALL_YANIV
    return pa


@numba.njit(cache=True)
def _decide_row(b, obs, masks, fields, w, ir, milestones, tabs, sizes, scratch, end_start):
    """The decision of row ``b`` (-1: none made, the first legal action stands) and the total
    the end-cost table ``end`` now holds (``end_start``: the one it held)."""
    hand_sizes, alive, caller, stock, turns, phase = fields
    card_starts, deck_counts = tabs[T_CARD_STARTS], tabs[T_DECK_COUNTS]
    n, card_end, known_start = sizes
    ints, floats, known, dist, near, plans = scratch
    hand, rest, n_known, pool = ints[I_HAND], ints[I_REST], ints[I_N_KNOWN], ints[I_POOL]
    sc, row, takes = ints[I_SC], ints[I_ROW], ints[I_TAKES]
    fs, costs, hist, weighted = floats[F_FS], floats[F_COSTS], floats[F_HIST], floats[F_WEIGHTED]
    cdf, not_beaten, beat, end = floats[F_CDF], floats[F_NOT_BEATEN], floats[F_BEAT], floats[F_END]
    ph = phase[b]
    if ph == BLAST_PHASE:
        return (BLAST if masks[b, BLAST] else -1), end_start
    if ph > BLAST_PHASE or (ph == ASAF_PHASE and not masks[b, ASAF]) or (ph == SLAM_PHASE and not masks[b, SLAM]):
        return -1, end_start
    m = _read_cards(obs, b, card_end, known_start, card_starts[C_HAND], n, row, hand, known, n_known)
    if m < 0:
        return INCONSISTENT, end_start
    pool_total, out_of_play = _unseen(row, deck_counts, n, known_start, card_starts, pool)
    lite = w[W_LITE] != 0
    _hist(pool, deck_counts, hist, lite)
    bias = _bias_at(w, alive, b, n, turns[b])
    plans[0, 2] = bias
    _weighted(hist, bias, weighted)
    if ph == ASAF_PHASE:
        cr = caller[b]
        return _asaf(_total(hand, m), cr, known, n_known, hand_sizes[b, cr], weighted, ir, cdf, dist), end_start
    if lite:  # the lite estimate weights the deck's values at the bias rounded to hundredths
        _weighted(hist, _round_cents(bias), weighted)
    if w[W_SCORE]:
        start = np.int64(round(np.float64(obs[b, ir[R_SCORES]]) * ir[R_SCORE_LIMIT]))
        if start != end_start:
            _end_costs(start, w, ir, milestones, end)
            end_start = start
    pe, gain = _estimate(b, n, alive, known, n_known, hand_sizes, weighted, w, ir, cdf, dist, not_beaten, beat)
    mu = w[W_MU]
    unseen = (pool, pool_total, hist, w)
    if ph == SLAM_PHASE:
        return _slam(row, card_starts[C_DRAWN], hand, m, rest, beat, end, pe, mu, ir, sc), end_start
    if ph == DRAW_PHASE:
        return _draw(masks, b, hand, m, rest, takes, unseen, beat, end, pe, mu, ir, near, sc, fs, costs), end_start
    est = (beat, end, pe)
    return _discard(obs, b, masks, fields, row, m, unseen, out_of_play, est, weighted, gain, w, ir, milestones, tabs,
                    scratch), end_start  # fmt: skip


@numba.njit(cache=True, nogil=True)
def decide_rows(
    lo, hi, obs, card_end, known_start, card_starts, hand_sizes, alive, caller, stock, turns, phase, masks, n, w, ir,
    milestones, deck_counts, disc_counts, disc_takeable, disc_n_takeable, disc_move, num_moves, out, scratch,
):  # fmt: skip
    """The decisions of rows ``lo..hi - 1`` into ``out`` (each row on its own: any split gives
    the same; -1 where nothing is legal, :data:`INCONSISTENT` for a self-contradicting
    observation); ``scratch``: :func:`work_arrays`. Every array is used borrowed
    (:func:`agents.compiled.borrowed`): the caller holds them."""
    obs, masks, w, ir, milestones, out = borrowed(obs), borrowed(masks), borrowed(w), borrowed(ir), borrowed(
        milestones), borrowed(out)  # fmt: skip
    fields = (borrowed(hand_sizes), borrowed(alive), borrowed(caller), borrowed(stock), borrowed(turns),
              borrowed(phase))  # fmt: skip
    tabs = (borrowed(card_starts), borrowed(deck_counts), borrowed(disc_counts), borrowed(disc_takeable),
            borrowed(disc_n_takeable), borrowed(disc_move))  # fmt: skip
    ints, floats, known, dist, near, plans = scratch
    scratch = (
        (borrowed(ints[0]), borrowed(ints[1]), borrowed(ints[2]), borrowed(ints[3]), borrowed(ints[4]),
         borrowed(ints[5]), borrowed(ints[6]), borrowed(ints[7]), borrowed(ints[8]), borrowed(ints[9])),
        (borrowed(floats[0]), borrowed(floats[1]), borrowed(floats[2]), borrowed(floats[3]), borrowed(floats[4]),
         borrowed(floats[5]), borrowed(floats[6]), borrowed(floats[7]), borrowed(floats[8])),
        borrowed(known), borrowed(dist), borrowed(near), borrowed(plans),
    )  # fmt: skip
    sizes = (n, card_end, known_start)
    # the total ``end`` was built for (every total alike without score_aware); an int64, not
    # the literal -1: a literal argument would make Numba type (and compile) _decide_row twice
    end_start = np.int64(-1)
    if not w[W_SCORE]:
        _end_costs(0, w, ir, milestones, scratch[1][F_END])
    for b in range(lo, hi):
        first = first_legal(masks, b)
        out[b] = first
        if first < 0:
            continue
        act, end_start = _decide_row(b, obs, masks, fields, w, ir, milestones, tabs, sizes, scratch, end_start)
        if act != -1:
            out[b] = act


#: The heuristic agents' Numba kernels (``cache=True``), for checks of Numba's cache before
#: their first use (:func:`yaniv_env.yaniv.batched.engine.cache_is_cold`), as
#: :data:`~yaniv_env.yaniv.batched.engine.ENGINE_KERNELS` are the engine's.
HEURISTIC_KERNELS = (decide_rows,)

#: Fewest rows per thread worth a thread of its own.
MIN_ROWS_PER_THREAD = 32


def heuristic_batch(
    obs: np.ndarray, masks: np.ndarray, tables: HeuristicTables, w: np.ndarray, threads: int = 1
) -> np.ndarray:
    """Actions ``[B]`` of the heuristic policy with weights ``w`` (:func:`weights`); ``-1``
    where nothing is legal, :data:`INCONSISTENT` where the observation contradicts itself.
    ``obs``: C-contiguous float32, ``masks``: C-contiguous bool. ``threads > 1`` spreads the
    rows over that many threads (at most the CPUs this process may use, and at least
    :data:`MIN_ROWS_PER_THREAD` rows each; :func:`yaniv_env.core.cpus.in_threads`): the same
    actions, each row being decided on its own. Opt-in: they pay only on idle cores."""
    out = np.empty(len(obs), dtype=np.int64)
    if len(obs):
        _decide(obs, masks, tables, w, out, threads, 0)
    return out


def _decide(obs, masks, t: HeuristicTables, w, out, threads: int, plan_rows: int) -> np.ndarray | None:
    """:func:`heuristic_batch` into ``out``; on one thread, returns the plan record of the last
    row (room for ``plan_rows`` plans: :func:`_keep_plan`)."""
    hand_sizes, alive, caller, stock, turns, phase = t.decode(obs)
    ir, milestones = t.for_totals(obs) if w[W_SCORE] or w[W_CALL_AWARE] else (t.int_rules, t.milestones)
    chunks = min(threads, available_cpus(), len(obs) // MIN_ROWS_PER_THREAD) if threads > 1 else 1

    kept_plans = plan_rows if chunks == 1 else 0  # the threads' plan records are never read

    def decide(lo: int, hi: int):
        scratch = work_arrays(t.n, ir, t.card_end, t.num_moves, masks.shape[1], kept_plans)
        decide_rows(
            lo, hi, obs, t.card_end, t.known_start, t.card_starts, hand_sizes, alive, caller, stock, turns, phase,
            masks, t.n, w, ir, milestones, t.deck_counts, t.disc_counts, t.disc_takeable, t.disc_n_takeable,
            t.disc_move, t.num_moves, out, scratch,
        )  # fmt: skip
        return scratch

    if chunks > 1:
        in_threads(decide, len(obs), chunks)
        return None
    *_, plans = decide(0, len(obs))
    return plans


def check_consistent(out: np.ndarray, tables: HeuristicTables) -> None:
    """Raise ``ValueError`` if a row of the kernel's decisions ``out`` is :data:`INCONSISTENT`."""
    bad = np.flatnonzero(out == INCONSISTENT)
    if bad.size:
        raise ValueError(
            f"observation {int(bad[0])} of the batch contradicts itself (a legal discard's cards, the drawn "
            f"card or more cards than a hand holds): not an observation of a game of {tables.rules.name!r}"
        )


class TurnPlans(NamedTuple):
    """What the heuristic makes of one discard decision (:func:`heuristic_plans`)."""

    #: its decision (as :func:`heuristic_batch`'s)
    action: int
    #: every turn plan ``(cost, discard id, draw id)``, least first (ties: least discard, then
    #: draw), one layout per move (the one leaving the least useful cards to the next player)
    plans: list[tuple[float, int, int]]
    #: whether it would call Yaniv (``None``: not asked, Yaniv not legal or a discard empties the hand)
    calls: bool | None
    #: the low-card bias of the opponents' unknown cards at this point of the round
    bias: float


def heuristic_plans(obs: np.ndarray, mask: np.ndarray, tables: HeuristicTables, w: np.ndarray) -> TurnPlans:
    """The heuristic's turn plans at the discard decision ``obs`` (one row, shapes as
    :func:`heuristic_batch`'s), with the costs it decides by; the search's candidates."""
    out = np.empty(1, dtype=np.int64)
    room = tables.num_moves * (1 + tables.disc_takeable.shape[1])  # a stock draw and every take, per move
    record = _decide(obs[None], mask[None], tables, w, out, 1, room)
    count = int(record[0, 0])
    if count > room:  # never expected: more takeable cards than a discard leaves
        raise ValueError(f"the observation offers more plans ({count}) than a discard of {tables.rules.name!r} can")
    plans = record[1 : count + 1]
    order = np.lexsort((plans[:, 2], plans[:, 1], plans[:, 0]))
    ranked = [(float(c), int(a), int(d)) for c, a, d in plans[order]]
    calls = None if record[0, 1] < 0 else bool(record[0, 1])
    return TurnPlans(int(out[0]), ranked, calls, float(record[0, 2]))
