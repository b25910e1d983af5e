"""Evaluation of agents against each other: duplicate deals, 95 % confidence intervals, ratings.

.. code-block:: python

    from agents.evaluation import evaluate, league

    res = evaluate(["heuristic", "random"], rules="standard", num_players=2, games=1000)
    print(res.table())
    res.to_json("eval.json"); res.to_csv("eval.csv"); res.plot("eval.png")

    lg = league(["search", "heuristic", "greedy", "random"], games=2000, rating="002")
    print(lg.table())        # OpenSkill mu/sigma/ordinal (+ the 002 rating)

The command line is ``yaniv eval`` (:mod:`training.cli.eval`) and ``yaniv ladder``
(:mod:`training.cli.ladder`). This package imports ``agents`` and ``yaniv_env`` only;
training uses it, and no module of ``agents`` outside it imports it.

Modules
-------
=======================================  ==========================================================
:mod:`agents.evaluation.harness`         :func:`evaluate`, :func:`league`, :func:`game_replay`
:mod:`agents.evaluation.entrants`        agent specs, labels, agents with options
:mod:`agents.evaluation.schedule`        the deal seeds and the seatings of each deal
:mod:`agents.evaluation.runner`          the games played, in this process or in workers
:mod:`agents.evaluation.loop`            the one loop: games dealt into slots, a decision at a time
:mod:`agents.evaluation.scalar_runner`   the scalar engine's table (any game, any agent, replays)
:mod:`agents.evaluation.batched_runner`  the same games on the batched engine
:mod:`agents.evaluation.records`         :class:`GameRecord`: one game's summary
:mod:`agents.evaluation.stats`           estimates and their 95 % confidence intervals
:mod:`agents.evaluation.ratings`         OpenSkill and the 002 player rating
:mod:`agents.evaluation.reports`         :class:`EvalResult`: table, JSON, CSV, bar chart
:mod:`agents.evaluation.ladder`          one league per preset and player count
:mod:`agents.evaluation.progress`        progress bars that say what they count
=======================================  ==========================================================
"""

from __future__ import annotations

from agents.evaluation.entrants import EntrantSpec
from agents.evaluation.harness import ENGINES, evaluate, game_replay, league
from agents.evaluation.ratings import rating_002_addition, rating_002_deduction, ratings_002, ratings_openskill
from agents.evaluation.records import GameRecord
from agents.evaluation.reports import EvalResult
from agents.evaluation.schedule import deal_seeds, game_multiple, whole_deals
from agents.evaluation.stats import (
    CONFIDENCE,
    METRICS,
    EntrantStats,
    Estimate,
    metric_titles,
    ratio_estimate,
    t_quantile,
    wilson,
)

__all__ = [
    "CONFIDENCE",
    "ENGINES",
    "METRICS",
    "EntrantSpec",
    "EntrantStats",
    "Estimate",
    "EvalResult",
    "GameRecord",
    "deal_seeds",
    "evaluate",
    "game_multiple",
    "game_replay",
    "league",
    "metric_titles",
    "rating_002_addition",
    "rating_002_deduction",
    "ratings_002",
    "ratings_openskill",
    "ratio_estimate",
    "t_quantile",
    "whole_deals",
    "wilson",
]
