"""Statistics of an evaluation: estimates with 95 % confidence intervals per entrant,
from the :class:`agents.evaluation.records.GameRecord` list.

Statistics (95 % confidence intervals)
--------------------------------------
Per entrant: the **game win rate** (ties for first place split), the **round win rate**
(share of the rounds it played that it won, ties split), the mean **points per round**
(points added in a round, before milestones), the **successful-call rate** and the
**beaten-call rate** (per Yaniv call made; in Asaf rules a call beaten in the duel counts
as beaten), the **calls when allowed** (per decision at which the agent could call Yaniv or
play on, the share on which it called: 1 for an agent that always calls when it may; a call
forced by an empty hand is no choice and does not count) and the
**milestone rate** (per round, the share that left the player's total on a milestone).

* ``duplicate=False``: rates get **Wilson** score intervals over games (rounds, calls or
  decisions for the per-round, per-call and per-decision rates, taken as independent
  trials); the points per round get a **t** interval with games as the sampling unit
  (ratio estimator, rounds of one game are not independent).
* ``duplicate=True``: the rotations of one deal share their cards, so they are *paired*
  and are not independent. Every statistic is computed as a ratio over **deal-level**
  totals and its interval is a **t** interval over the deals (ratio estimator with the
  delta-method variance ``sum((y_d - R x_d)^2) / (m (m-1) xbar^2)``, ``m - 1`` degrees of
  freedom). For the game win rate this is exactly the t interval of the deal-level mean
  win rates. The pairing removes the luck of the deal from comparisons, which is why these
  intervals are narrower than independent games would give. When every deal gives the same
  rate (an agent that wins every game), the t interval would collapse to a point; the
  Wilson interval with the deals as trials is used instead.

Undefined values (no call made or allowed, a single deal) are ``nan`` (``null`` in JSON).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from agents.evaluation.records import SEAT_COUNTERS, GameRecord
from yaniv_env.games import Game

CONFIDENCE = 0.95

#: metric name -> (column title, kind): kind "rate" (Wilson when games are independent) or "mean"
METRICS: dict[str, tuple[str, str]] = {
    "game_win_rate": ("game win rate", "rate"),
    "round_win_rate": ("round win rate", "rate"),
    "points_per_round": ("points / round", "mean"),
    "call_success_rate": ("call success", "rate"),
    "call_beaten_rate": ("call beaten", "rate"),
    "call_when_allowed": ("calls when allowed", "rate"),
    "milestone_rate": ("milestones", "rate"),
}
# metric -> (numerator, denominator) counters of SEAT_COUNTERS
_RATIOS = {
    "game_win_rate": ("wins", "games"),
    "round_win_rate": ("round_wins", "rounds"),
    "points_per_round": ("points", "rounds"),
    "call_success_rate": ("calls_ok", "calls"),
    "call_beaten_rate": ("calls_beaten", "calls"),
    "call_when_allowed": ("calls_taken", "call_chances"),
    "milestone_rate": ("milestones", "rounds"),
}


def metric_titles(game: Game) -> dict[str, str]:
    """The metrics measured in ``game`` and their column titles: Pis Yedili has no calls,
    and its scored unit is the deal."""
    return {
        m: title.replace("round", game.part)
        for m, (title, _) in METRICS.items()
        if game.name == "yaniv" or not m.startswith(("call_", "milestone_"))
    }


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its confidence interval; ``n`` is the number of trials (games,
    rounds or calls) it rests on, ``clusters`` the number of independent units (deals)."""

    value: float
    low: float
    high: float
    n: float
    clusters: int
    method: str
    """``wilson`` (trials taken as independent), ``t-ratio`` (t interval of a ratio over
    independent units: deals, or games) or ``wilson-units`` (every unit gave the same rate,
    so the Wilson interval with the units as trials replaces the collapsed t interval)."""

    def to_dict(self) -> dict:
        return {k: _clean(v) for k, v in dataclasses.asdict(self).items()}


def _clean(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def t_quantile(p: float, df: int) -> float:
    """Student t quantile (exact for 1 and 2 degrees of freedom, Cornish-Fisher expansion
    otherwise: within 0.2 % at 3 degrees of freedom, better above)."""
    if df < 1:
        return math.nan
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = NormalDist().inv_cdf(p)
    v = float(df)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / v + g2 / v**2 + g3 / v**3 + g4 / v**4


def wilson(successes: float, n: float, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a proportion (``nan`` for no trials)."""
    if n <= 0:
        return math.nan, math.nan
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def ratio_estimate(ys: Sequence[float], xs: Sequence[float], rate: bool, confidence: float = CONFIDENCE) -> Estimate:
    """``sum(y) / sum(x)`` over independent units with a t interval (delta method); units
    with ``x = 0`` carry no information and are dropped. The interval is clipped at 0 (and
    at 1 for a rate): every quantity measured here is non-negative."""
    pairs = [(y, x) for y, x in zip(ys, xs, strict=True) if x > 0]
    m = len(pairs)
    sx = sum(x for _, x in pairs)
    if m == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, 0, "t-ratio")
    r = sum(y for y, _ in pairs) / sx
    if m < 2:
        return Estimate(r, math.nan, math.nan, sx, m, "t-ratio")
    xbar = sx / m
    var = sum((y - r * x) ** 2 for y, x in pairs) / (m * (m - 1) * xbar * xbar)
    if rate and var <= 1e-18:
        # Every unit gave the same rate (say 100 % wins): the t interval collapses to a
        # point, so fall back to the Wilson interval with the units as trials.
        low, high = wilson(r * m, m, confidence)
        return Estimate(r, min(low, r), max(high, r), sx, m, "wilson-units")
    half = t_quantile(0.5 + confidence / 2, m - 1) * math.sqrt(var)
    low, high = max(0.0, r - half), r + half  # every measured quantity is ≥ 0
    if rate:
        high = min(1.0, high)
    return Estimate(r, low, high, sx, m, "t-ratio")


@dataclass
class EntrantStats:
    """Everything measured for one entrant."""

    label: str
    spec: str
    games: int
    rounds: int
    calls: int
    seat_games: list[int]
    """Games played at each seat."""
    metrics: dict[str, Estimate]

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "spec": self.spec,
            "games": self.games,
            "rounds": self.rounds,
            "calls": self.calls,
            "seat_games": self.seat_games,
            "metrics": {k: v.to_dict() for k, v in self.metrics.items()},
        }


def _spec_text(spec) -> str:
    if isinstance(spec, str):
        return spec
    return f"{getattr(spec, '__module__', '?')}:{getattr(spec, '__qualname__', repr(spec))}"


def entrant_statistics(records: list[GameRecord], labels: list[str], specs: list, n: int, paired: bool) -> dict:
    k = len(labels)
    nf = len(SEAT_COUNTERS)
    # per entrant: deal -> counters
    clusters: list[dict[int, list[float]]] = [{} for _ in range(k)]
    seat_games = [[0] * n for _ in range(k)]
    for rec in records:
        for s, e in enumerate(rec.seats):
            acc = clusters[e].setdefault(rec.deal, [0.0] * nf)
            for j, v in enumerate(rec.seat_stats[s]):
                acc[j] += v
            seat_games[e][s] += 1
    idx = {name: j for j, name in enumerate(SEAT_COUNTERS)}
    out = {}
    for e, label in enumerate(labels):
        units = list(clusters[e].values())
        totals = [sum(u[j] for u in units) for j in range(nf)]
        metrics = {}
        for name, (num, den) in _RATIOS.items():
            ys = [u[idx[num]] for u in units]
            xs = [u[idx[den]] for u in units]
            rate = METRICS[name][1] == "rate"
            if rate and not paired:
                succ, trials = totals[idx[num]], totals[idx[den]]
                low, high = wilson(succ, trials)
                value = succ / trials if trials else math.nan
                metrics[name] = Estimate(value, low, high, trials, len(units), "wilson")
            else:
                metrics[name] = ratio_estimate(ys, xs, rate)
        out[label] = EntrantStats(
            label=label,
            spec=_spec_text(specs[e]),
            games=int(totals[idx["games"]]),
            rounds=int(totals[idx["rounds"]]),
            calls=int(totals[idx["calls"]]),
            seat_games=seat_games[e],
            metrics=metrics,
        )
    return out
