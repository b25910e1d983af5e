"""Evaluation harness: agents against each other, with confidence intervals and ratings.

Library use:

.. code-block:: python

    from training.evaluate import evaluate, league

    res = evaluate(["heuristic", "random"], rules="standard", num_players=2, games=1000)
    print(res.table())
    res.to_json("eval.json"); res.to_csv("eval.csv"); res.plot("eval.png")

    lg = league(["search", "heuristic", "greedy", "random"], games=2000, rating="002")
    print(lg.table())        # OpenSkill mu/sigma/ordinal (+ the 002 rating)

Command line: ``yaniv eval --agents heuristic,random [--game yaniv] [--rules standard]
[--players 2] [--games 1000] [--seed 0] [--no-duplicate] [--workers 2] [--episode game]
[--json out.json] [--csv out.csv] [--plot out.png] [--league] [--rating 002]
[--save-replays DIR] [--replays 3] [--quiet]``.

Both games
----------
``game="pis_yedili"`` (``--game pis_yedili``; implied by a
:class:`yaniv_env.pis_yedili.Rules` object) plays Pis Yedili through its ``raw_env``
with the same schedule, duplicate format and statistics: a "round" is then a deal
(``episode="deal"`` plays single deals; the round columns read "deal win rate" and
"points / deal", the penalty points taken per deal), and the call rates, the 002 rating
and replays, which are Yaniv's, are left out. Entrants must play the game
(``pis_random``, ``pis_heuristic``, ``random``, a Pis Yedili model).

Entrants
--------
Each entrant is an agent *spec*: a registered name for ``agents.make`` (``"random"``,
``"heuristic"``...), a path to a trained ``.zip`` model (``agents.load``), or a
``(label, factory)`` pair where ``factory(seed=..., rules=...)`` returns a policy (a factory
may also be a name or a path, to relabel it). With ``workers > 1`` specs are sent to other
processes, so a factory must be picklable (a module-level function or class, no lambda).
Repeated labels get ``#1``, ``#2``... suffixes.

Games and seats
---------------
Games are played through ``yaniv_env.raw_env`` with the AEC API (``agent_iter``, ``last``,
``step``; dead steps get ``None``), each agent acting on ``obs["observation"]`` and
``obs["action_mask"]``. ``episode="game"`` (default) plays whole games; ``"round"``
single rounds (a "game win" is then the best round result, as in the environment's
``outcome`` reward).

A fixed list of *deal seeds* is derived from ``seed`` (:func:`deal_seeds`). The deal seed
seeds the environment's generator (deal, lots, reshuffles); the agent at seat ``s`` gets
its own seed ``yaniv_env.replay.agent_seed(deal_seed, s)`` (through ``reset(seed)`` when the
agent has it, else a fresh agent is built per game), so every game depends only on its deal
seed and seating and the results do not depend on ``workers``.

With ``k`` entrants and ``n`` seats: for ``k <= n`` one table seats the entrants
cyclically (``n = k = 2``: head to head; 2 entrants at 4 seats: ``A B A B``); for
``k > n`` the deals go round every pairing (``n = 2``) or random tables of ``n`` distinct
entrants (``n > 2``), interleaved deal by deal. :meth:`EvalResult.matchups` gives the
head-to-head results of each pair of entrants.

* **Duplicate format** (``duplicate=True``, default): each deal is replayed with the seating
  rotated through all ``n`` rotations (rotations giving the same seating are played once),
  so every entrant plays every seat with the same cards. ``games`` is the total number of
  games, rounded up to whole deals.
  Two copies of one agent therefore play the same game in both rotations and score
  exactly half each: a quick sanity check of the format.
* ``duplicate=False``: each deal is played once; the seating still rotates from deal to deal
  so that seats stay balanced.

:func:`league` plays the same schedule (games split evenly over the pairings) and adds
ratings.

Statistics (95 % confidence intervals)
--------------------------------------
Per entrant: the **game win rate** (ties for first place split), the **round win rate**
(share of the rounds it played that it won, ties split), the mean **points per round**
(points added in a round, before milestones), the **successful-call rate** and the
**beaten-call rate** (per Yaniv call made; in Asaf rules a call beaten in the duel counts
as beaten).

* ``duplicate=False``: rates get **Wilson** score intervals over games (rounds, calls for
  the per-round and per-call rates, taken as independent trials); the points per round get
  a **t** interval with games as the sampling unit (ratio estimator, rounds of one game are
  not independent).
* ``duplicate=True``: the rotations of one deal share their cards, so they are *paired*
  and are not independent. Every statistic is computed as a ratio over **deal-level**
  totals and its interval is a **t** interval over the deals (ratio estimator with the
  delta-method variance ``sum((y_d - R x_d)^2) / (m (m-1) xbar^2)``, ``m - 1`` degrees of
  freedom). For the game win rate this is exactly the t interval of the deal-level mean
  win rates. The pairing removes the luck of the deal from comparisons, which is why these
  intervals are narrower than independent games would give. When every deal gives the same
  rate (an agent that wins every game), the t interval would collapse to a point; the
  Wilson interval with the deals as trials is used instead.

Undefined values (no call made, a single deal) are ``nan`` (``null`` in JSON).

Ratings
-------
:func:`league` rates the entrants with **OpenSkill** (``openskill.models.PlackettLuce``,
one update per game in game order, places as ranks; an entrant holding several seats of a
game is one team ranked by its mean place) and reports ``mu``, ``sigma`` and the
``ordinal`` (``mu - 3 sigma``). With ``rating="002"`` it also runs the player rating of
the 002 rules (see :func:`rating_002_deduction`): everyone starts at 1000; a player who goes
out loses the sum of the differences between its score and each player still in, divided
by (players in the game − players still in), never going below 0; each player still in
gains the difference between the score of the player who just went out and its own,
divided by the number of players still in; results are truncated to whole points, as in
the source's ``85 / 3 = 28``. Several players going out in the same round go out one by one,
highest score first. In ``first_to_limit`` games (``seven``, ``two_deck``) the players over
the limit at the end go out. The quitting penalty does not apply. Ratings depend on the
order of games, which is fixed by the deal seeds.

Output
------
:class:`EvalResult` has ``table()`` (a text table), ``to_json(path=None)``, ``to_csv(path)``
and ``plot(path)`` (win rates with their intervals, matplotlib's Agg backend).
``progress=True`` shows a tqdm bar. ``workers > 1`` plays chunks of deals in a
``ProcessPoolExecutor`` (spawn context) and merges them in deal order: the results are
identical to one worker. ``save_replays=DIR`` writes the first ``replays`` games as
replay files (``yaniv replay FILE``).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import itertools
import json
import math
import multiprocessing
import pickle
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

import numpy as np

from yaniv_env import engine
from yaniv_env.games import GAMES, Game, game_of, get_game
from yaniv_env.replay import agent_seed, make_record, rules_to_dict
from yaniv_env.replay import save as save_replay
from yaniv_env.rules import PRESETS, Rules

CONFIDENCE = 0.95

#: metric name -> (column title, kind): kind "rate" (Wilson when games are independent) or "mean"
METRICS: dict[str, tuple[str, str]] = {
    "game_win_rate": ("game win rate", "rate"),
    "round_win_rate": ("round win rate", "rate"),
    "points_per_round": ("points / round", "mean"),
    "call_success_rate": ("call success", "rate"),
    "call_beaten_rate": ("call beaten", "rate"),
}
# per-seat counters of a game: games, win share, rounds, round wins, points, calls, ok, beaten
_FIELDS = ("games", "wins", "rounds", "round_wins", "points", "calls", "calls_ok", "calls_beaten")
# metric -> (numerator, denominator) counters
_RATIOS = {
    "game_win_rate": ("wins", "games"),
    "round_win_rate": ("round_wins", "rounds"),
    "points_per_round": ("points", "rounds"),
    "call_success_rate": ("calls_ok", "calls"),
    "call_beaten_rate": ("calls_beaten", "calls"),
}

EntrantSpec = str | tuple[str, Callable | str]


def metric_titles(game: Game) -> dict[str, str]:
    """The metrics measured in ``game`` and their column titles: Pis Yedili has no calls,
    and its scored unit is the deal."""
    return {
        m: title.replace("round", game.part)
        for m, (title, _) in METRICS.items()
        if game.name == "yaniv" or not m.startswith("call_")
    }


# -- entrants ---------------------------------------------------------------------------------


def _entrants(entrants: Sequence[EntrantSpec]) -> tuple[list[str], list]:
    """Labels and normalised specs (a name/path string, or a factory)."""
    if isinstance(entrants, str):
        entrants = [e for e in entrants.split(",") if e.strip()]
    labels, specs = [], []
    for e in entrants:
        if isinstance(e, str):
            spec = e.strip()
            label = Path(spec).stem if spec.endswith((".zip", ".safetensors")) else spec
        elif isinstance(e, (tuple, list)) and len(e) == 2 and isinstance(e[0], str):
            label, spec = e[0], e[1]
            if not (isinstance(spec, str) or callable(spec)):
                raise ValueError(f"entrant {label!r}: the factory must be callable or an agent name, got {spec!r}")
        else:
            raise ValueError(f"an entrant is an agent name, a .zip path or a (label, factory) pair, got {e!r}")
        labels.append(label)
        specs.append(spec)
    if not specs:
        raise ValueError("no entrants given")
    counts = {lab: labels.count(lab) for lab in labels}
    seen: dict[str, int] = {}
    for i, lab in enumerate(labels):
        if counts[lab] > 1:
            seen[lab] = seen.get(lab, 0) + 1
            labels[i] = f"{lab}#{seen[lab]}"
    return labels, specs


def _build(spec, seed: int, rules: Rules):
    if isinstance(spec, str):
        import agents

        try:
            return agents.make(spec, seed=seed, rules=rules)
        except ImportError as e:
            raise ValueError(f"agent {spec!r} could not be loaded: {e}") from None
    return spec(seed=seed, rules=rules)


def _check_entrants(labels: list[str], specs: list, rules: Rules, workers: int) -> None:
    """Build every entrant once here, so that an unknown name fails early and clearly."""
    for label, spec in zip(labels, specs, strict=True):
        try:
            policy = _build(spec, 0, rules)
        except ValueError as e:
            raise ValueError(f"entrant {label!r}: {e}") from None
        if not callable(getattr(policy, "act", None)):
            raise ValueError(f"entrant {label!r} has no act(observation, action_mask) method")
    if workers > 1:
        try:
            pickle.dumps(specs)
        except Exception as e:
            raise ValueError(
                f"with workers > 1 every entrant must be picklable (a name, a path, or a module-level factory): {e}"
            ) from None


def deal_seeds(seed: int, count: int) -> list[int]:
    """The deal seeds of an evaluation: ``count`` 63-bit seeds derived from ``seed``.
    The list for a larger ``count`` extends the list for a smaller one."""
    return [
        int(np.random.SeedSequence([int(seed), i]).generate_state(1, np.uint64)[0] >> np.uint64(1))
        for i in range(count)
    ]


# -- playing ---------------------------------------------------------------------------------------


@dataclass
class GameRecord:
    """The summary of one game (picklable, built in the worker that played it)."""

    deal: int
    deal_seed: int
    rotation: int
    seats: tuple[int, ...]
    """Entrant index at each seat."""
    places: list[int]
    scores: list[int]
    rounds: int
    turns: int
    truncated: bool
    seat_stats: list[list[float]]
    """Per seat, the counters of ``_FIELDS``."""
    outs: list[tuple[int, int, list[tuple[int, int]]]]
    """Players going out, in order: (seat, score, [(seat, score) of each player still in])."""
    replay: dict | None = None


class _Runner:
    """One environment and a cache of policies (one per entrant and seat)."""

    def __init__(self, specs: list, labels: list[str], rules, num_players: int, episode: str):
        self.game = game_of(rules)
        self.env = self.game.aec_class(rules=rules, num_players=num_players, episode=episode)
        self.rules = self.env.rules
        self.episode = episode
        self.specs = specs
        self.labels = labels
        self.n = num_players
        self.seat_of = {a: i for i, a in enumerate(self.env.possible_agents)}
        self.cache: dict[tuple[int, int], object] = {}

    def _policy(self, entrant: int, seat: int, seed: int):
        key = (entrant, seat)
        policy = self.cache.get(key)
        reset = getattr(policy, "reset", None)
        if policy is None or not callable(reset):
            policy = _build(self.specs[entrant], seed, self.rules)
            self.cache[key] = policy
            reset = getattr(policy, "reset", None)
        if callable(reset):
            reset(seed)
        return policy

    def play_job(self, job: tuple, record_until: int) -> list[GameRecord]:
        deal, seed, base, rotations, first_game = job
        return [self.play(deal, seed, base, r, record=first_game + i < record_until) for i, r in enumerate(rotations)]

    def play(self, deal: int, seed: int, base: tuple[int, ...], rotation: int, record: bool = False) -> GameRecord:
        n = self.n
        seats = tuple(base[(s - rotation) % n] for s in range(n))
        policies = [self._policy(seats[s], s, agent_seed(seed, s)) for s in range(n)]
        env = self.env
        env.reset(seed=seed)
        stats = [[0.0] * len(_FIELDS) for _ in range(n)]
        results: list = []  # the RoundResults (Yaniv) or DealResults (Pis Yedili) in order
        steps: list | None = [] if record else None
        last = None
        seat_of = self.seat_of
        result_key = self.game.result_key
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                s = seat_of[agent]
                action = int(policies[s].act(obs["observation"], obs["action_mask"]))
            if steps is not None:
                steps.append([agent, action])
            try:
                env.step(action)
            except ValueError as e:
                label = self.labels[seats[seat_of[agent]]]
                raise RuntimeError(f"agent {label!r} ({agent}, deal seed {seed}) made an illegal move: {e}") from None
            if action is not None:
                rr = env.infos[agent].get(result_key)
                if rr is not None and rr is not last:
                    last = rr
                    results.append(rr)
        g = env.game
        for rr in results:
            share = 1.0 / len(rr.winners) if rr.winners else 0.0
            for p in range(n):
                if rr.hand_totals[p] is None:
                    continue
                st = stats[p]
                st[2] += 1
                if p in rr.winners:
                    st[3] += share
                st[4] += rr.points[p]
                if getattr(rr, "caller", None) == p:  # Pis Yedili has no calls
                    st[5] += 1
                    st[7 if rr.caller_beaten else 6] += 1
        yaniv = self.game.name == "yaniv"
        if self.episode == self.game.part and results:
            rr = results[-1]
            played = [p for p in range(n) if rr.hand_totals[p] is not None]
            places = [sum(1 for q in played if rr.points[q] < rr.points[p]) for p in range(n)]
        else:
            places = self.game.engine.ranking(g)
        first = [p for p in range(n) if places[p] == 0]
        for p in range(n):
            stats[p][0] = 1
            stats[p][1] = 1.0 / len(first) if p in first else 0.0
        outs = _outs(self.rules, results, game_over=g.phase == engine.GAME_OVER) if yaniv else []
        rep = None
        if steps is not None and yaniv:
            labels = [self.labels[e] for e in seats]
            rep = make_record(self.rules, n, seed, steps, g, episode=self.episode, labels=labels)
        return GameRecord(
            deal=deal,
            deal_seed=seed,
            rotation=rotation,
            seats=seats,
            places=list(places),
            scores=list(g.scores),
            rounds=len(results),
            turns=g.turns if yaniv else sum(rr.turns for rr in results),
            truncated=bool(
                getattr(g, "game_truncated", False)
                or (results and results[-1].truncated and self.episode == self.game.part)
            ),
            seat_stats=stats,
            outs=outs,
            replay=rep,
        )


def _outs(rules: Rules, results: list[engine.RoundResult], game_over: bool) -> list:
    """Who went out, when, and who was still in (for the 002 rating)."""
    outs = []
    for i, rr in enumerate(results):
        alive = [p for p, t in enumerate(rr.hand_totals) if t is not None]
        if rules.game_end == "last_standing":
            gone = list(rr.eliminated)
        elif game_over and i == len(results) - 1:
            limit = rules.score_limit
            gone = [p for p in alive if rr.scores[p] > limit or (rules.limit_inclusive and rr.scores[p] >= limit)]
        else:
            gone = []
        remaining = list(alive)
        for x in sorted(gone, key=lambda p: (-rr.scores[p], p)):
            remaining.remove(x)
            outs.append((x, int(rr.scores[x]), [(q, int(rr.scores[q])) for q in remaining]))
    return outs


_WORKER: dict = {}


def _run_chunk(common: tuple, jobs: list[tuple]) -> list[GameRecord]:
    """Worker entry point (module level, so it works with the spawn start method)."""
    run_id, specs, labels, rules, n, episode, record_until = common
    if _WORKER.get("run") != run_id:
        _WORKER.clear()
        _WORKER["run"] = run_id
        _WORKER["runner"] = _Runner(specs, labels, rules, n, episode)
    runner = _WORKER["runner"]
    return [rec for job in jobs for rec in runner.play_job(job, record_until)]


def _progress_bar(total: int, enabled: bool, desc: str):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency of the train extra
        return None
    return tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)


def _run_jobs(
    specs, labels, rules, n, episode, jobs, workers, progress, record_until, desc="yaniv eval", executor=None
) -> list[GameRecord]:
    """The games of ``jobs``, in order: here (``workers`` 1), in a process pool, or by
    ``executor`` (a ``concurrent.futures.Executor``, e.g. ``training.rllib.shards.RayExecutor``)."""
    total = sum(len(job[3]) for job in jobs)
    bar = _progress_bar(total, progress, desc)
    try:
        if workers <= 1 and executor is None:
            runner = _Runner(specs, labels, rules, n, episode)
            records: list[GameRecord] = []
            for job in jobs:
                games = runner.play_job(job, record_until)
                records.extend(games)
                if bar is not None:
                    bar.update(len(games))
            return records
        size = max(1, math.ceil(len(jobs) / (workers * 8)))
        chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        common = (uuid.uuid4().hex, specs, labels, rules, n, episode, record_until)
        results: list[list[GameRecord] | None] = [None] * len(chunks)
        ctx = multiprocessing.get_context("spawn")
        with executor or ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=ctx) as pool:
            futures = {pool.submit(_run_chunk, common, chunk): i for i, chunk in enumerate(chunks)}
            try:
                for fut in as_completed(futures):
                    results[futures[fut]] = fut.result()
                    if bar is not None:
                        bar.update(len(results[futures[fut]]))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
        return [rec for chunk in results for rec in chunk]
    finally:
        if bar is not None:
            bar.close()


# -- statistics ---------------------------------------------------------------------------------------


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


def _statistics(records: list[GameRecord], labels: list[str], specs: list, n: int, paired: bool) -> dict:
    k = len(labels)
    nf = len(_FIELDS)
    # per entrant: deal -> counters
    clusters: list[dict[int, list[float]]] = [{} for _ in range(k)]
    seat_games = [[0] * n for _ in range(k)]
    for rec in records:
        for s, e in enumerate(rec.seats):
            acc = clusters[e].setdefault(rec.deal, [0.0] * nf)
            for j, v in enumerate(rec.seat_stats[s]):
                acc[j] += v
            seat_games[e][s] += 1
    idx = {name: j for j, name in enumerate(_FIELDS)}
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


# -- ratings ---------------------------------------------------------------------------------------------


def _trunc_div(a: float, b: float) -> int:
    q = abs(a) // b
    return int(q if a >= 0 else -q)


def rating_002_deduction(out_score: int, still_in: Sequence[int], num_players: int) -> int:
    """Points a player going out with ``out_score`` loses (002): the sum of the differences
    to the scores of the players still in, divided by (players in the game − players still
    in), truncated. 002's example: ``rating_002_deduction(210, [167, 180, 155], 4) == 128``."""
    gone = num_players - len(still_in)
    if gone < 1:
        raise ValueError(f"{len(still_in)} players still in out of {num_players}: nobody went out")
    return _trunc_div(sum(out_score - s for s in still_in), gone)


def rating_002_addition(score: int, out_score: int, players_still_in: int) -> int:
    """Points a player still in with ``score`` gains when a player goes out with
    ``out_score`` (002): the difference divided by the number of players still in,
    truncated. 002's example: ``rating_002_addition(125, 210, 3) == 28`` (85 / 3)."""
    if players_still_in < 1:
        raise ValueError("nobody is still in")
    return _trunc_div(out_score - score, players_still_in)


def ratings_002(records: Sequence[GameRecord], labels: list[str], num_players: int, initial: int = 1000) -> dict:
    """The 002 player rating of each entrant after ``records`` (in order)."""
    rating = {lab: initial for lab in labels}
    for rec in records:
        for seat, score, still in rec.outs:
            lab = labels[rec.seats[seat]]
            rating[lab] = max(0, rating[lab] - rating_002_deduction(score, [s for _, s in still], num_players))
            for q, sq in still:
                other = labels[rec.seats[q]]
                rating[other] += rating_002_addition(sq, score, len(still))
    return rating


def ratings_openskill(records: Sequence[GameRecord], labels: list[str]) -> dict:
    """OpenSkill (Plackett-Luce) ratings after ``records`` (in order): ``mu``, ``sigma``,
    ``ordinal`` per entrant."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {lab: model.rating(name=lab) for lab in labels}
    for rec in records:
        entrants = sorted(set(rec.seats))
        if len(entrants) < 2:
            continue
        ranks = []
        for e in entrants:
            places = [rec.places[s] for s, x in enumerate(rec.seats) if x == e]
            ranks.append(sum(places) / len(places))
        teams = [[current[labels[e]]] for e in entrants]
        new = model.rate(teams, ranks=ranks)
        for e, team in zip(entrants, new, strict=True):
            current[labels[e]] = team[0]
    return {
        lab: {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())} for lab, r in current.items()
    }


# -- results ---------------------------------------------------------------------------------------------------


@dataclass
class EvalResult:
    """The outcome of :func:`evaluate` or :func:`league`."""

    kind: str
    labels: list[str]
    rules: Rules
    """The rules played (a :class:`yaniv_env.pis_yedili.Rules` for Pis Yedili)."""
    num_players: int
    episode: str
    seed: int
    duplicate: bool
    deals: int
    games: int
    deal_seeds: list[int]
    stats: dict[str, EntrantStats]
    records: list[GameRecord] = field(repr=False)
    ratings: dict[str, dict] | None = None
    """OpenSkill ``mu``/``sigma``/``ordinal`` per entrant (league)."""
    rating_002: dict[str, int] | None = None
    """The 002 player rating per entrant (league with ``rating="002"``)."""
    rating: str | None = None
    replays: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    confidence: float = CONFIDENCE

    @property
    def game(self) -> Game:
        """The game played (from the rules)."""
        return game_of(self.rules)

    # -- views --------------------------------------------------------------------------------
    def __getitem__(self, label: str) -> EntrantStats:
        return self.stats[label]

    def order(self) -> list[str]:
        """Entrants in display order (by rating in a league, else as given)."""
        if self.rating == "002" and self.rating_002:
            return sorted(self.labels, key=lambda lab: -self.rating_002[lab])
        if self.ratings:
            return sorted(self.labels, key=lambda lab: -self.ratings[lab]["ordinal"])
        return list(self.labels)

    def matchups(self) -> dict[str, dict[str, dict]]:
        """Head to head: ``matchups()[a][b]`` has the ``games`` where ``a`` and ``b`` sat at
        the same table and ``a``'s ``score`` in them (1 for finishing ahead of ``b``, 0.5
        for a tie; an entrant holding several seats counts its mean place), and ``rate``."""
        acc: dict[tuple[int, int], list[float]] = {}
        for rec in self.records:
            place: dict[int, list[int]] = {}
            for s, e in enumerate(rec.seats):
                place.setdefault(e, []).append(rec.places[s])
            mean = {e: sum(v) / len(v) for e, v in place.items()}
            for a in mean:
                for b in mean:
                    if a != b:
                        cell = acc.setdefault((a, b), [0.0, 0])
                        cell[0] += 1.0 if mean[a] < mean[b] else 0.5 if mean[a] == mean[b] else 0.0
                        cell[1] += 1
        out: dict[str, dict[str, dict]] = {lab: {} for lab in self.labels}
        for (a, b), (score, games) in sorted(acc.items()):
            out[self.labels[a]][self.labels[b]] = {"games": games, "score": score, "rate": score / games}
        return out

    def describe(self) -> str:
        fmt = "duplicate: every deal with the seats rotated" if self.duplicate else "one game per deal"
        game = self.game
        games = "games" if self.episode == "game" else f"single-{game.part} games"
        return (
            f"{game.title} {self.kind} - rules {self.rules.name}, {self.num_players} players, "
            f"{self.games} {games} on {self.deals} deals ({fmt}), seed {self.seed}"
        )

    def table(self) -> str:
        """A text table of every entrant's statistics (and ratings)."""

        def cell(est: Estimate, digits: int) -> str:
            if not math.isfinite(est.value):
                return "n/a"
            if not (math.isfinite(est.low) and math.isfinite(est.high)):
                return f"{est.value:.{digits}f}"
            return f"{est.value:.{digits}f} [{est.low:.{digits}f}, {est.high:.{digits}f}]"

        titles = metric_titles(self.game)
        cols = ["agent", "games", *titles.values()]
        if self.ratings:
            cols += ["mu ± sigma", "ordinal"]
        if self.rating_002:
            cols += ["rating 002"]
        rows = []
        for lab in self.order():
            st = self.stats[lab]
            row = [lab, str(st.games)]
            row += [cell(st.metrics[m], 2 if METRICS[m][1] == "mean" else 3) for m in titles]
            if self.ratings:
                r = self.ratings[lab]
                row += [f"{r['mu']:.2f} ± {r['sigma']:.2f}", f"{r['ordinal']:.2f}"]
            if self.rating_002:
                row += [str(self.rating_002[lab])]
            rows.append(row)
        widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]

        def line(values):
            return "  ".join(
                v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths, strict=True))
            )

        pct = f"{self.confidence:.0%}"
        how = (
            "t intervals over deal-level totals (the rotations of a deal are paired)"
            if self.duplicate
            else "Wilson intervals for rates, t intervals over games for points"
        )
        out = [self.describe(), line(cols), "  ".join("-" * w for w in widths)]
        out += [line(r) for r in rows]
        if self.game.name == "yaniv":
            points = "call rates are per Yaniv call; points are added per round before milestones"
        else:
            points = "points are the penalty points taken per deal"
        out.append(f"[{pct} confidence intervals: {how}; win rates split ties; {points}]")
        if self.ratings:
            out.append("[OpenSkill Plackett-Luce ratings; ordinal = mu - 3 sigma]")
        if self.rating_002:
            out.append("[002 player rating: start 1000, points lost on going out and gained when others go out]")
        if len(self.labels) > 2:
            mu = self.matchups()
            order = self.order()
            head = ["head to head"] + order
            grid = [
                [a] + ["-" if a == b else (f"{mu[a][b]['rate']:.3f}" if b in mu[a] else "") for b in order]
                for a in order
            ]
            w = [max(len(head[i]), *(len(r[i]) for r in grid)) for i in range(len(head))]
            out.append("")
            out.append("  ".join(v.ljust(w[i]) if i == 0 else v.rjust(w[i]) for i, v in enumerate(head)))
            for r in grid:
                out.append("  ".join(v.ljust(w[i]) if i == 0 else v.rjust(w[i]) for i, v in enumerate(r)))
            out.append("[share of the games played together in which the row finished ahead of the column, ties half]")
        return "\n".join(out)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "game": self.game.name,
            "rules": self.rules.name,
            "rules_fields": rules_to_dict(self.rules),
            "num_players": self.num_players,
            "episode": self.episode,
            "games": self.games,
            "deals": self.deals,
            "duplicate": self.duplicate,
            "seed": self.seed,
            "confidence": self.confidence,
            "elapsed_seconds": round(self.elapsed, 3),
            "entrants": [self.stats[lab].to_dict() for lab in self.labels],
            "matchups": self.matchups(),
            "ratings": self.ratings,
            "rating_002": self.rating_002,
            "rating": self.rating,
            "replays": self.replays,
            "deal_seeds": self.deal_seeds,
        }

    def to_json(self, path: str | Path | None = None) -> str:
        """The result as JSON (written to ``path`` if given); undefined values are ``null``."""
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def to_csv(self, path: str | Path) -> Path:
        """One row per entrant: counts, each metric with its interval, ratings."""
        header = ["agent", "spec", "games", "rounds", "calls", "seat_games"]
        for m in METRICS:
            header += [m, f"{m}_low", f"{m}_high"]
        header += ["mu", "sigma", "ordinal", "rating_002"]
        path = Path(path)
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(header)
            for lab in self.labels:
                st = self.stats[lab]
                row = [lab, st.spec, st.games, st.rounds, st.calls, ";".join(map(str, st.seat_games))]
                for m in METRICS:
                    e = st.metrics[m]
                    row += ["" if not math.isfinite(v) else f"{v:.6g}" for v in (e.value, e.low, e.high)]
                r = (self.ratings or {}).get(lab)
                row += [f"{r['mu']:.6g}", f"{r['sigma']:.6g}", f"{r['ordinal']:.6g}"] if r else ["", "", ""]
                row += [self.rating_002[lab] if self.rating_002 else ""]
                w.writerow(row)
        return path

    def plot(self, path: str | Path) -> Path:
        """A bar chart of the game win rates with their confidence intervals (PNG, SVG...)."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        order = self.order()
        est = [self.stats[lab].metrics["game_win_rate"] for lab in order]
        values = [e.value if math.isfinite(e.value) else 0.0 for e in est]
        lows = [v - e.low if math.isfinite(e.low) else 0.0 for v, e in zip(values, est, strict=True)]
        highs = [e.high - v if math.isfinite(e.high) else 0.0 for v, e in zip(values, est, strict=True)]
        fig = Figure(figsize=(max(5.5, 1.2 * len(order) + 2), 4.4), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        x = np.arange(len(order))
        ax.bar(x, [100 * v for v in values], color="#4c72b0", width=0.6)
        ax.errorbar(
            x,
            [100 * v for v in values],
            yerr=[[100 * v for v in lows], [100 * v for v in highs]],
            fmt="none",
            ecolor="black",
            capsize=5,
        )
        ax.axhline(100 / self.num_players, color="grey", linestyle="--", linewidth=1, label="chance (1 / players)")
        for xi, v, hi in zip(x, values, highs, strict=True):
            ax.text(xi, 100 * (v + hi) + 1.5, f"{100 * v:.1f}%", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(x, order, rotation=20 if len(order) > 4 else 0)
        ax.set_ylim(0, 105)
        ax.set_xlabel("agent")
        ax.set_ylabel(f"game win rate (% of games, {self.confidence:.0%} CI)")
        fmt = "duplicate deals" if self.duplicate else "independent deals"
        ax.set_title(
            f"{self.game.title} game win rates - {self.rules.name} rules, {self.num_players} players\n"
            f"{self.games} games, {fmt}",
            fontsize=10,
        )
        ax.legend(loc="best", fontsize=8)
        path = Path(path)
        fig.savefig(path, dpi=120)
        return path


# -- entry points ---------------------------------------------------------------------------------------------


def _rotations(base: tuple[int, ...]) -> list[int]:
    """The rotations of ``base`` that give distinct seatings."""
    n = len(base)
    seen, out = set(), []
    for r in range(n):
        seating = tuple(base[(s - r) % n] for s in range(n))
        if seating not in seen:
            seen.add(seating)
            out.append(r)
    return out


def _finish(
    kind, labels, specs, rules, n, episode, seed, duplicate, seeds, jobs, workers, progress, save_replays, replays,
    executor=None,
):  # fmt: skip
    start = time.perf_counter()
    record_until = replays if save_replays else 0
    desc = f"{game_of(rules).name} {kind}"
    records = _run_jobs(specs, labels, rules, n, episode, jobs, workers, progress, record_until, desc, executor)
    paths = []
    if save_replays:
        folder = Path(save_replays)
        for i, rec in enumerate(records):
            if rec.replay is not None:
                name = f"game{i:04d}_deal{rec.deal}_rot{rec.rotation}.json"
                paths.append(str(save_replay(rec.replay, folder / name)))
                rec.replay = None
    stats = _statistics(records, labels, specs, n, paired=duplicate)
    return EvalResult(
        kind=kind,
        labels=labels,
        rules=rules,
        num_players=n,
        episode=episode,
        seed=seed,
        duplicate=duplicate,
        deals=len(seeds),
        games=len(records),
        deal_seeds=seeds,
        stats=stats,
        records=records,
        replays=paths,
        elapsed=time.perf_counter() - start,
    )


def _common_checks(rules, num_players, games, workers, episode, game=None, save_replays=None):
    """The rules (of ``game``: a name, or ``None`` for the game of a rules object, else
    Yaniv), after checking the other arguments."""
    if game is None:
        game = game_of(rules) if not isinstance(rules, str) else get_game("yaniv")
    game = get_game(game)
    rules = game.get_rules(rules, num_players)
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if episode not in ("game", game.part):
        raise ValueError(f"episode must be 'game' or {game.part!r} for {game.title}, got {episode!r}")
    if save_replays and game.name != "yaniv":
        raise ValueError(f"replays are recorded for Yaniv games only, not {game.title}")
    return rules


def _schedule(k: int, n: int, games: int, seed: int, duplicate: bool) -> tuple[list[int], list[tuple]]:
    """Deal seeds and jobs ``(deal, deal seed, base seating, rotations, first game index)``:
    one table (``k <= n``), every pairing (``n = 2``) or random tables of ``n`` distinct
    entrants; tables are interleaved deal by deal."""
    if k <= n:
        tables = [tuple(i % k for i in range(n))]
    elif n == 2:
        tables = list(itertools.combinations(range(k), 2))
    else:
        tables = []
    per_deal = (len(_rotations(tables[0])) if tables else n) if duplicate else 1
    deals = math.ceil(games / per_deal)
    if tables:
        deals = math.ceil(deals / len(tables)) * len(tables)
    seeds = deal_seeds(seed, deals)
    rng = np.random.default_rng([int(seed), 0x7AB1E])
    jobs, first = [], 0
    for d in range(deals):
        base = tables[d % len(tables)] if tables else tuple(int(x) for x in rng.permutation(k)[:n])
        rots = _rotations(base)
        if not duplicate:  # one game per deal; the seating still turns from deal to deal
            rots = [rots[(d // max(1, len(tables))) % len(rots)]]
        jobs.append((d, seeds[d], base, rots, first))
        first += len(rots)
    return seeds, jobs


def evaluate(
    entrants: Sequence[EntrantSpec],
    rules: str | Rules = "standard",
    num_players: int = 2,
    games: int = 1000,
    seed: int = 0,
    duplicate: bool = True,
    workers: int = 1,
    episode: str = "game",
    progress: bool = False,
    *,
    save_replays: str | Path | None = None,
    replays: int = 3,
    game: str | None = None,
    executor=None,
) -> EvalResult:
    """Play about ``games`` games between ``entrants`` and measure them (see the module
    docstring). Up to ``num_players`` entrants share one table, seated cyclically; more
    entrants are spread over every pairing (2 seats) or random tables, as in :func:`league`
    (without the ratings; ``matchups`` gives the head-to-head results). ``game``:
    ``"yaniv"`` or ``"pis_yedili"`` (default: the game of a rules object, else Yaniv).
    ``executor``: a ``concurrent.futures.Executor`` that plays the shards instead of the
    process pool (``yaniv eval --ray``: :class:`training.rllib.shards.RayExecutor`); the
    results are the same."""
    rules = _common_checks(rules, num_players, games, workers, episode, game, save_replays)
    labels, specs = _entrants(entrants)
    _check_entrants(labels, specs, rules, workers)
    seeds, jobs = _schedule(len(specs), num_players, games, seed, duplicate)
    return _finish(
        "evaluation", labels, specs, rules, num_players, episode, seed, duplicate, seeds, jobs, workers, progress,
        save_replays, replays, executor,
    )  # fmt: skip


def league(
    entrants: Sequence[EntrantSpec],
    games: int = 1000,
    rules: str | Rules = "standard",
    num_players: int = 2,
    seed: int = 0,
    duplicate: bool = True,
    workers: int = 1,
    episode: str = "game",
    rating: str = "openskill",
    progress: bool = False,
    *,
    save_replays: str | Path | None = None,
    replays: int = 3,
    game: str | None = None,
    executor=None,
) -> EvalResult:
    """A league: about ``games`` games in all between every pairing of entrants (2 seats)
    or random tables (more seats), with OpenSkill ratings and, with ``rating="002"`` (Yaniv
    only), the 002 player rating as well (the table is then sorted by it)."""
    if rating not in ("openskill", "002"):
        raise ValueError(f"rating must be 'openskill' or '002', got {rating!r}")
    rules = _common_checks(rules, num_players, games, workers, episode, game, save_replays)
    if rating == "002" and game_of(rules).name != "yaniv":
        raise ValueError(f"the 002 rating is a Yaniv rating; {game_of(rules).title} leagues use openskill")
    labels, specs = _entrants(entrants)
    if len(specs) < 2:
        raise ValueError("a league needs at least two entrants")
    _check_entrants(labels, specs, rules, workers)
    seeds, jobs = _schedule(len(specs), num_players, games, seed, duplicate)
    result = _finish(
        "league", labels, specs, rules, num_players, episode, seed, duplicate, seeds, jobs, workers, progress,
        save_replays, replays, executor,
    )  # fmt: skip
    result.rating = rating
    result.ratings = ratings_openskill(result.records, labels)
    if rating == "002":
        result.rating_002 = ratings_002(result.records, labels, num_players)
    return result


# -- command line ---------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """``yaniv eval``."""
    p = argparse.ArgumentParser(
        prog="yaniv eval",
        description="Evaluate Yaniv (or Pis Yedili) agents against each other (duplicate deals, 95%% confidence "
        "intervals).",
    )
    p.add_argument("--agents", required=True, help="comma-separated agent names or .zip model paths")
    p.add_argument("--game", default="yaniv", choices=sorted(GAMES), help="the game (default yaniv)")
    p.add_argument(
        "--rules", default="standard", help=f"rules preset of the game (default standard; Yaniv: {', '.join(PRESETS)})"
    )
    p.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    p.add_argument("--games", type=int, default=1000, help="games in all (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deal list (default 0)")
    p.add_argument("--no-duplicate", action="store_true", help="play each deal once instead of rotating the seats")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="play the shards as Ray tasks: on a local Ray instance, or on the cluster at ADDRESS (auto or "
        "HOST:PORT); same results as --workers (needs the [rllib] extra)",
    )
    p.add_argument(
        "--episode", default="game", choices=("game", "round", "deal"), help="whole games or single rounds (deals)"
    )
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--csv", metavar="FILE", help="write one CSV row per agent")
    p.add_argument("--plot", metavar="FILE", help="write a bar chart of the win rates (PNG)")
    p.add_argument("--league", action="store_true", help="all pairings / random tables, with OpenSkill ratings")
    p.add_argument("--rating", choices=("openskill", "002"), help="league rating to rank by (implies --league)")
    p.add_argument("--save-replays", metavar="DIR", help="save the first games as replays (yaniv replay FILE)")
    p.add_argument("--replays", type=int, default=3, help="how many games --save-replays keeps (default 3)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    entrants = [a.strip() for a in args.agents.split(",") if a.strip()]
    common = dict(
        rules=args.rules,
        num_players=args.players,
        games=args.games,
        seed=args.seed,
        duplicate=not args.no_duplicate,
        workers=args.workers,
        episode=args.episode,
        progress=not args.quiet,
        save_replays=args.save_replays,
        replays=args.replays,
        game=args.game,
    )
    try:
        if args.ray is not None:
            from training.rllib.shards import RayExecutor

            common["executor"] = executor = RayExecutor(args.ray or None, num_cpus=max(1, args.workers))
            common["workers"] = max(args.workers, executor.cpus)
        if args.league or args.rating:
            result = league(entrants, rating=args.rating or "openskill", **common)
        else:
            result = evaluate(entrants, **common)
    except ValueError as e:
        print(f"yaniv eval: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nyaniv eval: interrupted", file=sys.stderr)
        return 130
    print(result.table())
    print(f"({result.elapsed:.1f} s)")
    if args.json:
        result.to_json(args.json)
        print(f"wrote {args.json}")
    if args.csv:
        result.to_csv(args.csv)
        print(f"wrote {args.csv}")
    if args.plot:
        result.plot(args.plot)
        print(f"wrote {args.plot}")
    for path in result.replays:
        print(f"saved replay {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
