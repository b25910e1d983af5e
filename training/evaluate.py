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
[--players 2] [--games 1000] [--seed 0] [--no-duplicate] [--workers 2] [--engine auto] [--episode game]
[--json out.json] [--csv out.csv] [--plot out.png] [--league] [--rating 002]
[--save-replays DIR] [--replays 3] [--record-game I --html OUT.html --replay-file OUT.json]
[--quiet]``: ``--record-game`` plays game ``I`` again (:func:`game_replay`). An agent with options is written as a call,
``--agents "heuristic(mu=4, call_margin=-4),heuristic"`` (values are literals, read
without running anything).

Both games
----------
``game="pis_yedili"`` (``--game pis_yedili``; implied by a
:class:`yaniv_env.pis_yedili.Rules` object) plays Pis Yedili through its ``raw_env``
with the same schedule, duplicate format and statistics: a "round" is then a deal
(``episode="deal"`` plays single deals; the round columns read "deal win rate" and
"points / deal", the penalty points taken per deal), and the call rates, the 002 rating
and replays, which are Yaniv's, are left out. Entrants must play the game
(``pis_random``, ``pis_heuristic``, ``random``, a Pis Yedili model).

Modules
-------
=========================  ==========================================================
:mod:`training.evaluate`   :func:`evaluate`, :func:`league` and ``yaniv eval`` (this module)
:mod:`training.runner`     entrants, the schedule of deals and seats, playing the games
:mod:`training.stats`      estimates and their 95 % confidence intervals
:mod:`training.ratings`    OpenSkill and the 002 player rating
:mod:`training.reports`    :class:`EvalResult`: table, JSON, CSV, bar chart
=========================  ==========================================================

The names other code imports from here (``wilson``, ``METRICS``, ``GameRecord``, the
rating functions...) are re-exported.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from training.ratings import (
    rating_002_addition,
    rating_002_deduction,
    ratings_002,
    ratings_openskill,
)
from training.reports import EvalResult
from training.runner import (
    EntrantSpec,
    GameRecord,
    check_entrants,
    deal_seeds,
    game_count_problem,
    load_trusted,
    make_runner,
    parse_entrants,
    run_jobs,
    schedule,
    split_agents,
)
from training.stats import (
    CONFIDENCE,
    METRICS,
    EntrantStats,
    Estimate,
    entrant_statistics,
    metric_titles,
    ratio_estimate,
    t_quantile,
    wilson,
)
from yaniv_env.games import GAMES, game_of, get_game
from yaniv_env.replay import save as save_replay
from yaniv_env.rules import PRESETS, Rules

#: The engines that can play an evaluation (``engine=``, ``yaniv eval --engine``).
ENGINES = ("auto", "batched", "scalar")

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
    "game_replay",
    "league",
    "main",
    "metric_titles",
    "rating_002_addition",
    "rating_002_deduction",
    "ratings_002",
    "ratings_openskill",
    "ratio_estimate",
    "t_quantile",
    "wilson",
]


def _engine_name(engine: str, specs: list, labels: list[str], rules, record_until: int) -> str:
    """The engine that plays the games: ``"batched"`` where it can (same games, faster),
    else ``"scalar"``; ``engine="batched"`` refuses what it cannot play, saying why."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine == "scalar":
        return engine
    if record_until:
        problem = "replays are recorded by the scalar engine"
    else:
        from training.batched_runner import batched_problem  # loads Numba: only when it may be used

        problem = batched_problem(specs, labels, rules)
    if problem is None:
        return "batched"
    if engine == "batched":
        raise ValueError(f"the batched engine cannot play this evaluation: {problem} (use --engine scalar)")
    return "scalar"


def _finish(
    kind, labels, specs, rules, n, episode, seed, duplicate, seeds, jobs, workers, progress, save_replays, replays,
    desc=None, executor=None, engine="auto",
):  # fmt: skip
    start = time.perf_counter()
    record_until = replays if save_replays else 0
    desc = desc or f"{game_of(rules).name} {kind}"
    engine_name = _engine_name(engine, specs, labels, rules, record_until)
    records = run_jobs(
        specs, labels, rules, n, episode, jobs, workers, progress, record_until, desc, executor, engine_name
    )  # fmt: skip
    paths = []
    if save_replays:
        folder = Path(save_replays)
        for i, rec in enumerate(records):
            if rec.replay is not None:
                name = f"game{i:04d}_deal{rec.deal}_rot{rec.rotation}.json"
                paths.append(str(save_replay(rec.replay, folder / name)))
                rec.replay = None
    stats = entrant_statistics(records, labels, specs, n, paired=duplicate)
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


def _check_schedule(kind: str, specs: list, num_players: int, games: int, duplicate: bool) -> None:
    """Refuse what cannot be played as asked: one agent (it would hold every seat, and count
    each game once per seat), or a game count the schedule cannot play exactly."""
    if len(specs) < 2:
        raise ValueError(
            f"{'a' if kind == 'league' else 'an'} {kind} needs at least two agents (for example "
            "--agents heuristic,random); to play an agent against itself, name it twice (heuristic,heuristic)"
        )
    problem = game_count_problem(len(specs), num_players, games, duplicate)
    if problem:
        raise ValueError(problem)


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
    desc: str | None = None,
    executor=None,
    engine: str = "auto",
) -> EvalResult:
    """Play ``games`` games between ``entrants`` and measure them (see the module
    docstring). ``games`` must be a multiple of :func:`training.runner.game_multiple` (whole
    deals), else ``ValueError`` says which counts are possible; ``desc`` labels the progress
    bar. Up to ``num_players`` entrants share one table, seated cyclically; more
    entrants are spread over every pairing (2 seats) or random tables, as in :func:`league`
    (without the ratings; ``matchups`` gives the head-to-head results). ``game``:
    ``"yaniv"`` or ``"pis_yedili"`` (default: the game of a rules object, else Yaniv).
    ``executor``: a ``concurrent.futures.Executor`` that plays the shards instead of the
    process pool (``yaniv eval --ray``: :class:`training.rllib.shards.RayExecutor`); the
    results are the same. ``engine``: ``"auto"`` plays on the batched engine
    (:mod:`training.batched_runner`) for Yaniv when every entrant has an exact batched
    version and no replays are asked for, else through the AEC environment (``"scalar"``); ``"batched"``
    refuses otherwise. The games and results are the same either way."""
    rules = _common_checks(rules, num_players, games, workers, episode, game, save_replays)
    labels, specs = parse_entrants(entrants)
    _check_schedule("evaluation", specs, num_players, games, duplicate)
    check_entrants(labels, specs, rules, workers)
    seeds, jobs = schedule(len(specs), num_players, games, seed, duplicate)
    return _finish(
        "evaluation", labels, specs, rules, num_players, episode, seed, duplicate, seeds, jobs, workers, progress,
        save_replays, replays, desc, executor, engine,
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
    engine: str = "auto",
) -> EvalResult:
    """A league: ``games`` games in all (a multiple of :func:`training.runner.game_multiple`)
    between every pairing of entrants (2 seats) or random tables (more seats), with
    OpenSkill ratings and, with ``rating="002"`` (Yaniv only), the 002 player rating as well
    (the table is then sorted by it). ``executor`` and ``engine``: as in :func:`evaluate`."""
    if rating not in ("openskill", "002"):
        raise ValueError(f"rating must be 'openskill' or '002', got {rating!r}")
    rules = _common_checks(rules, num_players, games, workers, episode, game, save_replays)
    if rating == "002" and game_of(rules).name != "yaniv":
        raise ValueError(f"the 002 rating is a Yaniv rating; {game_of(rules).title} leagues use openskill")
    labels, specs = parse_entrants(entrants)
    _check_schedule("league", specs, num_players, games, duplicate)
    check_entrants(labels, specs, rules, workers)
    seeds, jobs = schedule(len(specs), num_players, games, seed, duplicate)
    result = _finish(
        "league", labels, specs, rules, num_players, episode, seed, duplicate, seeds, jobs, workers, progress,
        save_replays, replays, None, executor, engine,
    )  # fmt: skip
    result.rating = rating
    result.ratings = ratings_openskill(result.records, labels)
    if rating == "002":
        result.rating_002 = ratings_002(result.records, labels, num_players)
    return result


def game_replay(
    entrants: Sequence[EntrantSpec],
    index: int,
    rules: str | Rules = "standard",
    num_players: int = 2,
    games: int = 1000,
    seed: int = 0,
    duplicate: bool = True,
    episode: str = "game",
) -> dict:
    """The replay record of game ``index`` (0-based, the order of ``EvalResult.records``)
    of the evaluation (or league: the same schedule) that these arguments play: that game
    alone, played again from its deal seed and seating (every game depends only on them),
    with the agents' annotations (:func:`yaniv_env.replay.decide`). Yaniv only.
    ``ValueError`` for an index outside the evaluation."""
    rules = _common_checks(rules, num_players, games, 1, episode, None, save_replays=True)
    labels, specs = parse_entrants(entrants)
    _check_schedule("evaluation", specs, num_players, games, duplicate)
    _, jobs = schedule(len(specs), num_players, games, seed, duplicate)
    total = sum(len(job[3]) for job in jobs)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < total:
        raise ValueError(f"the evaluation plays games 0 to {total - 1}; there is no game {index!r}")
    deal, deal_seed, base, rotations, first = next(job for job in jobs if job[4] <= index < job[4] + len(job[3]))
    runner = make_runner(specs, labels, rules, num_players, episode)
    return runner.play(deal, deal_seed, base, rotations[index - first], record=True).replay


def _write_game(result: EvalResult, entrants, args, common: dict) -> None:
    """``--record-game I``: game I of ``result`` played again, checked against the
    evaluation's record of it, and written as ``--html`` and/or ``--replay-file``."""
    keys = ("rules", "num_players", "games", "seed", "duplicate", "episode")
    record = game_replay(entrants, args.record_game, **{k: common[k] for k in keys})
    played = result.records[args.record_game]
    if record["result"]["scores"] != played.scores:
        raise ValueError(
            f"game {args.record_game} played again ended with scores {record['result']['scores']}, the evaluation's "
            f"with {played.scores}: an agent does not play the same from its seed"
        )
    if args.replay_file:
        print(f"wrote game {args.record_game} to {save_replay(record, args.replay_file)}")
    if args.html:
        from yaniv_env.web.viewer import write_html

        print(f"wrote game {args.record_game} as a page: {write_html(record, args.html)}")


# -- command line ---------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """``yaniv eval``."""
    p = argparse.ArgumentParser(
        prog="yaniv eval",
        description="Evaluate Yaniv (or Pis Yedili) agents against each other (duplicate deals, 95% confidence "
        "intervals).",
    )
    p.add_argument(
        "--agents",
        required=True,
        help="comma-separated agent names or model paths (.safetensors); NAME(key=value, ...) gives an agent "
        "options, for example 'heuristic(mu=4, call_margin=-4),heuristic' (quote it for the shell)",
    )
    p.add_argument("--game", default="yaniv", choices=sorted(GAMES), help="the game (default yaniv)")
    p.add_argument(
        "--rules", default="standard", help=f"rules preset of the game (default standard; Yaniv: {', '.join(PRESETS)})"
    )
    p.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    p.add_argument(
        "--games",
        type=int,
        default=1000,
        help="games in all, played exactly: with duplicate deals a multiple of the seatings of a deal (default 1000)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the deal list (default 0)")
    p.add_argument("--no-duplicate", action="store_true", help="play each deal once instead of rotating the seats")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    p.add_argument(
        "--engine",
        default="auto",
        choices=ENGINES,
        help="auto (default): the batched engine for Yaniv when every agent has a batched version (random, "
        "greedy, heuristic, trained models) and no replays are saved, else the AEC environment (scalar); the "
        "same games and results either way",
    )
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
    p.add_argument(
        "--record-game",
        type=int,
        metavar="I",
        help="play game I of the evaluation (0-based) again with the agents' annotations and write it with --html "
        "and/or --replay-file",
    )
    p.add_argument("--html", metavar="FILE", help="with --record-game: the game as a replay page (open in a browser)")
    p.add_argument("--replay-file", metavar="FILE", help="with --record-game: the game as a replay (yaniv replay)")
    p.add_argument("--no-progress", "--quiet", dest="quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--trust",
        action="store_true",
        help="also load .zip training checkpoints, whose reading unpickles and can run code: only files you made "
        "yourself or trust (.safetensors play files never need it)",
    )
    args = p.parse_args(argv)
    if (args.record_game is None) != (args.html is None and args.replay_file is None):
        p.error("--record-game I goes with --html FILE and/or --replay-file FILE")
    entrants = split_agents(args.agents)
    if args.trust:
        entrants = [(Path(e).stem, functools.partial(load_trusted, e)) if e.endswith(".zip") else e for e in entrants]
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
        engine=args.engine,
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
    if args.record_game is not None:
        try:
            _write_game(result, entrants, args, common)
        except ValueError as e:
            print(f"yaniv eval: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
