"""The heuristic baseline: hand evaluation with public-information risk estimates. The agents
(:class:`HeuristicAgent` and its variants) decide in the compiled kernel of
:mod:`agents.heuristic_batched`; :class:`HeuristicPolicy` is the search's planner."""

from __future__ import annotations

import math

import numpy as np

from yaniv_env import Rules
from yaniv_env.yaniv.cards import JOKER, NUM_KINDS, RANK, SUIT, YANIV_VALUE
from yaniv_env.yaniv.engine import after_milestone, past_limit

from .base import checked_choice, strict_default
from .common import (
    ASAF,
    ASAF_PHASE,
    BLAST,
    BLAST_PHASE,
    CALL_YANIV,
    DISCARD_BASE,
    DISCARD_PHASE,
    DRAW_PHASE,
    DRAW_STOCK,
    PASS,
    SLAM,
    SLAM_PHASE,
    TAKE_BASE,
    AgentBase,
    Context,
    Info,
    combines,
    hand_total,
    remove_cards,
    unseen_counts,
)
from .compiled import as_batch, compiled_once, one_row
from .heuristic_batched import (
    DEFAULTS,
    EMPTY_HAND_COST,
    INCONSISTENT,
    HeuristicTables,
    _decide_range,
    end_cost_size,
    heuristic_batch,
    heuristic_tables,
    warm_up_batch,
    weights,
    widest_hand_total,
)


def _sum_cdf(base: int, unknown: int, hist: list[float], cap: int) -> list[float]:
    """``P(base + sum of `unknown` cards <= t)`` for ``t = 0..cap``, each card's value
    drawn independently with probabilities ``hist`` (values 0..10)."""
    if base > cap:
        return [0.0] * (cap + 1)
    dist = [0.0] * (cap + 1)
    dist[base] = 1.0
    for _ in range(unknown):
        new = [0.0] * (cap + 1)
        for t in range(cap + 1):
            pt = dist[t]
            if pt:
                for v in range(min(10, cap - t) + 1):
                    new[t + v] += pt * hist[v]
        dist = new
    out = []
    acc = 0.0
    for p in dist:
        acc += p
        out.append(acc)
    return out


def _weighted(hist: list[float], bias: float) -> list[float]:
    w = [hist[v] * math.exp(-bias * v) for v in range(11)]
    s = sum(w)
    return [x / s for x in w] if s > 0 else [1.0] + [0.0] * 10


class Estimate:
    """Per-decision estimates from public information: the value distribution of a stock
    card, each opponent's chance of holding a total ``<= t`` (``t`` up to the call limit)
    and mean total, and the chance the round ends before my next turn."""

    __slots__ = ("pool", "pool_total", "hist", "weighted", "beat", "opp_mean", "p_end", "end")

    def __init__(
        self, ctx: Context, pool, hist, known, sizes, alive, bias: float, end_weight: float, end, cdfs=None
    ):  # fmt: skip
        #: ``end[x]``: the cost of taking ``x`` points when the round ends (HeuristicPolicy.end_costs)
        self.end = end
        self.pool = pool
        self.pool_total = sum(pool) if pool is not None else 0
        self.hist = hist
        if cdfs is None:
            weighted = _weighted(hist, bias)
            mean_w = sum(v * weighted[v] for v in range(11))
        else:  # a fixed prior: the distributions are cached by (known total, unknown cards)
            weighted, mean_w = cdfs["weighted"]
        #: a card of an opponent's unknown hand: the value distribution, lower than the pool's
        self.weighted = weighted
        cap = ctx.rules.call_max
        not_beaten = [1.0] * (cap + 1)
        not_end = 1.0
        means = []
        for r in range(1, ctx.n):
            if not alive[r]:
                continue
            kn = known[r]
            base = 0
            for k in kn:
                base += YANIV_VALUE[k]
            unknown = sizes[r] - len(kn)
            if unknown < 0:
                unknown = 0
            if cdfs is None:
                cdf = _sum_cdf(base, unknown, weighted, cap)
            else:
                cdf = cdfs.get((base, unknown))
                if cdf is None:
                    cdf = cdfs[(base, unknown)] = _sum_cdf(base, unknown, weighted, cap)
            for t in range(cap + 1):
                not_beaten[t] *= 1.0 - cdf[t]
            means.append(base + unknown * mean_w)
            p_low = cdf[cap] * end_weight
            not_end *= 1.0 - (p_low if p_low < 1.0 else 1.0)
        self.beat = [1.0 - x for x in not_beaten]
        self.opp_mean = means
        self.p_end = 1.0 - not_end

    def beaten(self, t: int) -> float:
        """Chance that some opponent holds a total ``<= t`` (``t`` at most the call limit)."""
        beat = self.beat
        return beat[t] if t < len(beat) else beat[-1]


class HeuristicPolicy:
    """The heuristic's costs in Python on an :class:`~agents.common.Info`: the search's
    planner (:mod:`agents.search`: its ranked turn plans, its call test, and its rollouts on
    positions it builds). The agents decide in the compiled kernel
    (:mod:`agents.heuristic_batched`), whose decisions :meth:`decide` makes too, bit for bit
    (the test suite checks it).

    ``lite=True`` is the fast variant used inside search rollouts: the same cost
    function, but the unseen cards are taken to be the deck's value distribution and a
    stock card is scored by its value alone (no exact set/run completion)."""

    def __init__(self, lite: bool = False, **options):
        unknown = set(options) - set(DEFAULTS)
        if unknown:
            raise TypeError(f"unknown heuristic options: {', '.join(sorted(unknown))}; known: {', '.join(DEFAULTS)}")
        o = dict(DEFAULTS)
        o.update(options)
        self.options = o
        self.lite = lite
        self.mu = float(o["mu"])
        self.bias = float(o["bias"])
        self.bias_per_turn = float(o["bias_per_turn"])
        self.bias_max = float(o["bias_max"])
        self.call_risk = float(o["call_risk"])
        self.call_margin = float(o["call_margin"])
        self.leave_weight = float(o["leave_weight"])
        self.end_weight = float(o["end_weight"])
        self.score_aware = float(o["score_aware"])
        self.limit_cost = float(o["limit_cost"])
        self.call_aware = float(o["call_aware"])
        self._end: dict = {}
        self._prior: dict[Context, list[float]] = {}
        self._cdfs: dict[tuple, dict] = {}
        self._gmin: dict = {}

    # -- estimates ---------------------------------------------------------------------
    def prior_hist(self, ctx: Context) -> list[float]:
        h = self._prior.get(ctx)
        if h is None:
            h = [0.0] * 11
            for k in range(NUM_KINDS):
                h[YANIV_VALUE[k]] += ctx.deck_counts[k]
            s = sum(h)
            h = self._prior[ctx] = [x / s for x in h]
        return h

    def end_costs(self, info: Info) -> list[float]:
        """``[cost of taking x points when this round ends for x = 0, 1, ...]`` for the
        acting seat: ``x`` itself, or with ``score_aware`` = w, ``(1 - w)·x + w·Δ`` where Δ
        is the change of its total once the rules' milestone applies (negative when the
        total lands on a halving milestone), plus ``limit_cost`` when the new total is past
        the score limit."""
        ctx = info.ctx
        w = self.score_aware
        start = info.scores[0] if w else 0
        key = (ctx, start)
        costs = self._end.get(key)
        if costs is None:
            rules = ctx.rules
            top = end_cost_size(rules)
            costs = [float(x) for x in range(top)]
            if w:
                for x in range(1, top):
                    costs[x] = (1.0 - w) * x + w * self.total_change(rules, start, x)
            self._end[key] = costs
        return costs

    def total_change(self, rules: Rules, start: int, x: int) -> float:
        """The change of a total ``start`` that takes ``x`` points at the end of a round,
        once the milestone applies, plus ``limit_cost`` when the new total is past the limit."""
        new = after_milestone(rules, start + x)
        return new - start + (self.limit_cost if past_limit(rules, new) else 0.0)

    def estimate(self, info: Info) -> Estimate:
        ctx = info.ctx
        end = self.end_costs(info)
        bias = self.bias_at(info)
        if self.lite:
            hist = self.prior_hist(ctx)
            key = (ctx, round(bias, 2))
            cdfs = self._cdfs.get(key)
            if cdfs is None:
                w = _weighted(hist, key[1])
                cdfs = self._cdfs[key] = {"weighted": (w, sum(v * w[v] for v in range(11)))}
            return Estimate(ctx, None, hist, info.known, info.hand_sizes, info.alive, bias, self.end_weight, end, cdfs)
        pool = unseen_counts(info)
        hist = [0.0] * 11
        for k in range(NUM_KINDS):
            if pool[k]:
                hist[YANIV_VALUE[k]] += pool[k]
        s = sum(hist)
        hist = [x / s for x in hist] if s > 0 else self.prior_hist(ctx)
        return Estimate(ctx, pool, hist, info.known, info.hand_sizes, info.alive, bias, self.end_weight, end)

    def bias_at(self, info: Info) -> float:
        """The low-card bias of the opponents' unknown cards at this point of the round."""
        b = self.bias + self.bias_per_turn * info.round_turns / max(1, sum(info.alive))
        return b if b < self.bias_max else self.bias_max

    def hand_cost(self, ctx: Context, hand: list[int], est: Estimate) -> float:
        """Expected-points proxy of holding ``hand`` at the end of my turn: its total if
        the round ends before my next turn, else its value after the best next discard,
        or the cost of calling with it if that is lower."""
        total = hand_total(hand)
        after = ctx.best_after(hand, self.mu)
        rules = ctx.rules
        end = est.end
        if total <= rules.call_max:
            c = est.beaten(total) * end[total + rules.penalty]
            if c < after:
                after = c
        pe = est.p_end
        return pe * end[total] + (1.0 - pe) * after

    def stock_cost(self, ctx: Context, rest: list[int], est: Estimate) -> float:
        """Expected :meth:`hand_cost` of ``rest`` plus a card from the stock (any unseen card)."""
        by_value = [0.0] * 11
        acc = 0.0
        pool = est.pool
        if pool is None:
            if rest:
                return self._stock_cost_lite(ctx, rest, est)
            by_value = list(est.hist)
            n = 1.0
        else:
            n = est.pool_total
            if n <= 0:
                return self.hand_cost(ctx, rest, est)
            # cards that may combine with the hand are evaluated exactly, the others
            # through their value only
            near = _near_kinds(rest)
            for k in range(NUM_KINDS):
                c = pool[k]
                if not c:
                    continue
                if k in near:
                    acc += c * self.hand_cost(ctx, [*rest, k], est)
                else:
                    by_value[YANIV_VALUE[k]] += c
        total = hand_total(rest)
        mu = self.mu
        call_max = ctx.rules.call_max
        penalty = ctx.rules.penalty
        pe = est.p_end
        end = est.end
        if rest:
            drop_new = total + mu * len(rest)
            keep_new = ctx.best_after(rest, mu) + mu
        for v in range(11):
            c = by_value[v]
            if c:
                tv = total + v
                if rest:
                    after = keep_new + v
                    if drop_new < after:
                        after = drop_new
                else:
                    after = 0.0
                if tv <= call_max:
                    x = est.beaten(tv) * end[tv + penalty]
                    if x < after:
                        after = x
                acc += c * (pe * end[tv] + (1.0 - pe) * after)
        return acc / n

    def _stock_cost_lite(self, ctx: Context, rest: list[int], est: Estimate) -> float:
        """:meth:`stock_cost` when a stock card is known only by its value distribution
        (``est.hist``): the same sum in closed form, ``E[min(x, v)]`` cached per ``x``."""
        h = est.hist
        total = hand_total(rest)
        mu = self.mu
        drop_new = total + mu * len(rest)
        keep_new = ctx.best_after(rest, mu) + mu
        x = drop_new - keep_new
        key = (ctx, x)
        g = self._gmin.get(key)
        if g is None:
            g = self._gmin[key] = sum(h[v] * (x if x < v else v) for v in range(11))
        ev = self._gmin.get(ctx)
        if ev is None:
            ev = self._gmin[ctx] = sum(h[v] * v for v in range(11))
        pe = est.p_end
        end = est.end
        ended = sum(h[v] * end[total + v] for v in range(11)) if self.score_aware else total + ev
        cost = pe * ended + (1.0 - pe) * (keep_new + g)
        call_max = ctx.rules.call_max
        if total <= call_max:
            penalty = ctx.rules.penalty
            for v in range(min(10, call_max - total) + 1):
                p = h[v]
                if p:
                    plain = keep_new + (x if x < v else v)
                    tv = total + v
                    c = est.beaten(tv) * end[tv + penalty]
                    if c < plain:
                        cost += p * (1.0 - pe) * (c - plain)
        return cost

    def leave_cost(self, info: Info, takeable) -> float:
        """How useful the cards a discard leaves to take are to the next player."""
        nxt = None
        for r in range(1, info.ctx.n):
            if info.alive[r]:
                nxt = r
                break
        if nxt is None:
            return 0.0
        known = info.known[nxt]
        worst = 0.0
        for c in takeable:
            u = 4.0 - YANIV_VALUE[c]
            if u < 0.0:
                u = 0.0
            if known and combines(c, known):
                u += 3.0
            if u > worst:
                worst = u
        return worst

    # -- plans ------------------------------------------------------------------------
    def draw_options(self, info: Info, rest: list[int], takeable, est: Estimate, stock: bool = True):
        """``(cost, action)`` for each way to draw after laying a discard leaving ``rest``."""
        ctx = info.ctx
        out = []
        if stock:
            out.append((self.stock_cost(ctx, rest, est), DRAW_STOCK))
        for c in sorted(set(takeable)):
            out.append((self.hand_cost(ctx, [*rest, c], est), TAKE_BASE + c))
        return out

    def plans(self, info: Info, est: Estimate) -> list[tuple[float, int, int]]:
        """Every (cost, discard id, draw id) turn plan, best first; one layout per move
        (the one leaving the least useful cards to the next player)."""
        ctx = info.ctx
        rules = ctx.rules
        stock_ok = info.stock_size > 0 or bool(info.out_of_play)
        best_layout: dict[tuple, tuple[float, int]] = {}
        lw = self.leave_weight
        for a in info.legal:
            if a < DISCARD_BASE:
                continue
            i = a - DISCARD_BASE
            key = ctx.move_key[i]
            lc = self.leave_cost(info, ctx.disc_takeable[i]) * lw if lw else 0.0
            prev = best_layout.get(key)
            if prev is None or lc < prev[0]:
                best_layout[key] = (lc, a)
        out = []
        for key, (lc, a) in best_layout.items():
            rest = remove_cards(info.hand, key)
            if not rest and rules.empty_hand_wins:
                out.append((EMPTY_HAND_COST, a, DRAW_STOCK))
                continue
            opts = self.draw_options(info, rest, info.takeable, est, stock_ok)
            for cost, d in opts:
                out.append((cost + lc, a, d))
        out.sort()
        return out

    # -- decisions --------------------------------------------------------------------
    def should_call(self, info: Info, est: Estimate) -> bool:
        t = hand_total(info.hand)
        q = est.beaten(t)
        if q > self.call_risk:
            return False
        penalty = info.ctx.rules.penalty
        if self.call_aware:
            v = self.call_aware
            gain = (1.0 - v) * sum(est.opp_mean) + v * self.opponents_end_cost(info, est)
            loss = (1.0 - v) * (t + penalty) + v * est.end[t + penalty]
        else:
            gain = sum(est.opp_mean)
            loss = t + penalty
        ev = (1.0 - q) * gain - q * loss
        return ev > self.call_margin

    def opponents_end_cost(self, info: Info, est: Estimate) -> float:
        """The expected change of the alive opponents' totals (after the milestone, plus
        ``limit_cost`` past the limit) if the round ends now, their unknown cards drawn from
        ``est.weighted``."""
        ctx = info.ctx
        rules = ctx.rules
        weighted = est.weighted
        top = widest_hand_total(rules)
        acc = 0.0
        for r in range(1, ctx.n):
            if not info.alive[r]:
                continue
            kn = info.known[r]
            base = hand_total(kn)
            cdf = _sum_cdf(base, max(0, info.hand_sizes[r] - len(kn)), weighted, top)
            start = info.scores[r]
            prev = 0.0
            for x in range(top + 1):
                p = cdf[x] - prev
                prev = cdf[x]
                if p:
                    acc += p * self.total_change(rules, start, x)
        return acc

    def decide(self, info: Info) -> int:
        legal = info.legal
        phase = info.phase
        ctx = info.ctx
        if phase == DISCARD_PHASE:
            est = self.estimate(info)
            plans = self.plans(info, est)
            if plans and plans[0][0] <= EMPTY_HAND_COST:
                return plans[0][1]  # 001: emptying the hand wins, and cannot be challenged
            if CALL_YANIV in legal and self.should_call(info, est):
                return CALL_YANIV
            if plans:
                return plans[0][1]
        elif phase == DRAW_PHASE:
            est = self.estimate(info)
            takes = [a - TAKE_BASE for a in legal if TAKE_BASE <= a < DISCARD_BASE]
            opts = self.draw_options(info, info.hand, takes, est, DRAW_STOCK in legal)
            if opts:
                return min(opts)[1]
        elif phase == SLAM_PHASE:
            if SLAM in legal and info.drawn is not None:
                rest = list(info.hand)
                rest.remove(info.drawn)
                if not rest and ctx.rules.empty_hand_wins:
                    return SLAM
                est = self.estimate(info)
                if self.hand_cost(ctx, rest, est) <= self.hand_cost(ctx, info.hand, est):
                    return SLAM
                return PASS
        elif phase == ASAF_PHASE:
            if ASAF in legal:
                return ASAF if self.should_asaf(info) else PASS
        elif phase == BLAST_PHASE and BLAST in legal:
            return BLAST
        return legal[0]

    def should_asaf(self, info: Info) -> bool:
        """Declare Asaf when ``P(win)·(my hand + caller's hand + penalty) > P(lose)·penalty``,
        the caller's total being at most the call limit."""
        ctx = info.ctx
        rules = ctx.rules
        caller = info.caller
        if caller is None:
            return False
        t = hand_total(info.hand)
        cap = rules.call_max
        if t > cap:
            return False  # the caller holds at most the call limit: a sure loss
        est = self.estimate(info)
        w = _weighted(est.hist, self.bias_at(info))
        kn = info.known[caller]
        cdf = _sum_cdf(hand_total(kn), max(0, info.hand_sizes[caller] - len(kn)), w, cap)
        z = cdf[cap]
        if z <= 0:
            return True
        p_lose = cdf[t - 1] / z if t > 0 else 0.0  # the caller is strictly lower
        p_win = 1.0 - p_lose
        mean_caller = sum(u * (cdf[u] - (cdf[u - 1] if u else 0.0)) for u in range(cap + 1)) / z
        return p_win * (t + mean_caller + rules.penalty) > p_lose * rules.penalty


def _near_kinds(hand) -> set[int]:
    """Card kinds that could form a set or run with a card of ``hand``."""
    near: set[int] = set()
    has_joker = False
    for k in hand:
        if k == JOKER:
            has_joker = True
            continue
        r, s = RANK[k], SUIT[k]
        for s2 in range(4):
            near.add(s2 * 13 + r)
        for dr in (-2, -1, 1, 2):
            if 0 <= r + dr < 13:
                near.add(s * 13 + r + dr)
    if hand:
        near.add(JOKER)
    if has_joker:  # a joker bridges one more rank
        for k in hand:
            if k != JOKER:
                r, s = RANK[k], SUIT[k]
                for dr in (-3, 3):
                    if 0 <= r + dr < 13:
                        near.add(s * 13 + r + dr)
    return near


class HeuristicAgent(AgentBase):
    """Plans each turn by the value of the hand it leads to, with risks read from public
    information.

    *Turn plan*: every legal discard is paired with every draw it allows (the stock or a
    takeable card of the previous discard) and scored by the resulting hand's cost: with
    probability ``p_end`` (the chance that an opponent can call before my next turn,
    from its known cards, hand size and the unseen cards) the round ends and the cost is
    the hand total; otherwise it is the hand's value after its best next discard plus
    ``mu`` per card still held, or the expected cost of calling with it. So pairs and run
    draws are kept (they leave a big discard for next turn), high cards are shed, a
    discard card is taken when it builds a set/run or lowers the hand, and the stock
    draw is the expectation over the unseen cards (cards that combine with the hand are
    evaluated exactly). A small penalty goes to discards that leave the next player a
    low card, a joker or a card that combines with what it is known to hold; where the
    rules let the discarder order a set (000 top card, 004 end cards) the layout leaving
    the least useful cards is chosen.

    *Call*: each opponent's hand total is a distribution: its known cards plus
    ``hand_size - len(known)`` cards drawn from the unseen pool, weighted towards low
    values more and more as the round goes on (players keep low cards; the weighting was
    fitted on self-play). Yaniv is called when the chance that some opponent is at or
    below my total is at most ``call_risk`` and the expected relative points (opponents'
    hands won vs. my hand plus the penalty lost) are positive. Where emptying the hand
    wins the round (001) and a discard does it, that discard comes first: it cannot be
    challenged. *Slam*: when it lowers the hand cost (almost always). *Asaf* (001): when
    ``P(win)·(my hand + the caller's hand + penalty)`` exceeds ``P(lose)·penalty``, the
    caller's total restricted to the call limit. *Blast*: always.

    It decides in one compiled kernel (:mod:`agents.heuristic_batched`, Numba): :meth:`act_batch`
    for a batch of observations (``-1`` where nothing is legal), :meth:`act` for one (a batch
    of one row). ``threads``: Numba threads to spread a batch's rows over (default 1; the same
    actions whatever the count, see :func:`agents.heuristic_batched.heuristic_batch`).

    Options (keywords): see :data:`DEFAULTS` (others are a ``TypeError``). ``strict``: raise
    if the logic ever picks an illegal action (:mod:`agents.base`, strict mode).
    """

    name = "heuristic"
    #: Options this agent sets unless given (a variant's defaults).
    default_options: dict = {}
    #: Numba threads per :meth:`act_batch` call (opt-in, see :func:`agents.heuristic_batched.heuristic_batch`).
    threads: int = 1

    def __init__(
        self,
        seed: int | None = None,
        rules: str | Rules = "standard",
        num_players: int | None = None,
        strict: bool | None = None,
        **options,
    ):
        super().__init__(seed, rules, num_players)
        options = {**self.default_options, **options}
        unknown = set(options) - set(DEFAULTS)
        if unknown:
            raise TypeError(f"unknown heuristic options: {', '.join(sorted(unknown))}; known: {', '.join(DEFAULTS)}")
        #: the weights this agent plays with (:data:`DEFAULTS` overridden by its options)
        self.options = {**DEFAULTS, **options}
        self.weights = weights(self.options)
        self.strict = strict_default(strict)

    def _tables(self, observation: np.ndarray) -> HeuristicTables:
        return heuristic_tables(self.context_for(observation).rules)

    def _kernel(self, obs: np.ndarray, m: np.ndarray, t: HeuristicTables) -> np.ndarray:
        compiled_once(
            "the heuristic agents", _decide_range, lambda: heuristic_batch(*warm_up_batch(t), t, self.weights)
        )
        return heuristic_batch(obs, m, t, self.weights, self.threads)

    def _decide(self, obs: np.ndarray, m: np.ndarray, t: HeuristicTables) -> np.ndarray:
        out = self._kernel(obs, m, t)
        bad = np.flatnonzero(out == INCONSISTENT)
        if bad.size:
            raise ValueError(
                f"observation {int(bad[0])} of the batch contradicts itself (a legal discard's cards, the drawn "
                f"card or more cards than a hand holds): not an observation of a game of {t.rules.name!r}"
            )
        for b in np.flatnonzero(out >= 0):
            if not m[b, out[b]]:  # never expected (the kernel picks among legal actions)
                out[b] = checked_choice(self.name, int(out[b]), np.flatnonzero(m[b]).tolist(), self.rng, self.strict)
        return out

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        t = self._tables(observation)
        obs, m = one_row(t.layout, t.num_actions, f"the {t.rules.name!r} rules with {t.n} players", observation,
                         action_mask)  # fmt: skip
        return int(self._decide(obs, m, t)[0])

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        """One action per row (``-1`` where nothing is legal); ``keys`` is not used (the
        heuristic does not draw)."""
        obs, m = as_batch(observations, masks)
        if not len(obs):
            return np.empty(0, dtype=np.int64)
        t = self._tables(obs[0])
        if obs.shape[1] != t.size or m.shape[1] != t.num_actions:
            raise ValueError(
                f"observations [B, {obs.shape[1]}] and masks [B, {m.shape[1]}] do not match the "
                f"{t.rules.name!r} rules with {t.n} players ([B, {t.size}] and [B, {t.num_actions}])"
            )
        return self._decide(obs, m, t)


class ScoreHeuristicAgent(HeuristicAgent):
    """:class:`HeuristicAgent` playing for the game totals (``score_aware=1`` and
    ``call_aware=3`` unless given): the points it may take when the round ends are counted
    as the change of its total once the milestone applies, so it steers its hand towards a
    total that lands on a halving milestone and away from one that takes it past the score
    limit; and when it may call Yaniv, what the opponents would take counts as the change of
    their totals, with that change's difference from their points weighted 3 times (an
    opponent halved by my call is a loss, one put past the limit a win). Everything else is
    the heuristic's, and so is its compiled batched version."""

    name = "score_heuristic"
    default_options = {"score_aware": 1.0, "call_aware": 3.0}


class TunedTwoDeckAgent(HeuristicAgent):
    """:class:`HeuristicAgent` with weights tuned for 2-player ``two_deck`` against the
    heuristic (a coordinate search: ``docs/experiments/2026-11-26-two-deck.md``): it sheds
    cards sooner (``mu=4``), calls Yaniv sooner but less riskily (``call_margin=-4``,
    ``call_risk=0.25``), counts less on the round ending before its next turn
    (``end_weight=0.6``) and assumes the opponent keeps fewer low cards
    (``bias_per_turn=0.02``). It plays any rules (it is the advisor of the shipped
    ``two_deck`` model; how it fares: the note above and the model card
    ``docs/agents/ppo_two_deck_2p.md``). Everything else is the heuristic's, and so is its
    compiled batched version."""

    name = "tuned_two_deck"
    default_options = {"mu": 4.0, "call_margin": -4.0, "end_weight": 0.6, "bias_per_turn": 0.02, "call_risk": 0.25}
