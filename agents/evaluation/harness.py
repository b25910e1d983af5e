"""Evaluations and leagues: :func:`evaluate`, :func:`league` and :func:`game_replay` check their
arguments, build the schedule (:mod:`agents.evaluation.schedule`), have the runner play it
(:mod:`agents.evaluation.runner`) and return an :class:`~agents.evaluation.reports.EvalResult`.

Both games
----------
``game="pis_yedili"`` (``yaniv eval --game pis_yedili``; implied by a
:class:`yaniv_env.pis_yedili.Rules` object) plays Pis Yedili through its ``raw_env``
with the same schedule, duplicate format and statistics: a "round" is then a deal
(``episode="deal"`` plays single deals; the round columns read "deal win rate" and
"points / deal", the penalty points taken per deal), and the call rates, the 002 rating
and replays, which are Yaniv's, are left out. Entrants must play the game
(``pis_random``, ``pis_heuristic``, ``random``, a Pis Yedili model).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from agents.evaluation.entrants import EntrantSpec, check_entrants, parse_entrants
from agents.evaluation.ratings import ratings_002, ratings_openskill
from agents.evaluation.reports import EvalResult
from agents.evaluation.runner import make_runner, run_jobs
from agents.evaluation.schedule import game_count_problem, schedule
from agents.evaluation.stats import entrant_statistics
from yaniv_env.games import game_of, get_game
from yaniv_env.yaniv.records import save as save_replay
from yaniv_env.yaniv.rules import Rules

#: The engines that can play an evaluation (``engine=``, ``yaniv eval --engine``).
ENGINES = ("auto", "batched", "scalar")


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
        from agents.evaluation.batched_runner import batched_problem  # loads Numba: only when it may be used

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
    docstring). ``games`` must be a multiple of :func:`agents.evaluation.schedule.game_multiple` (whole
    deals), else ``ValueError`` says which counts are possible; ``desc`` labels the progress
    bar. Up to ``num_players`` entrants share one table, seated cyclically; more
    entrants are spread over every pairing (2 seats) or random tables, as in :func:`league`
    (without the ratings; ``matchups`` gives the head-to-head results). ``game``:
    ``"yaniv"`` or ``"pis_yedili"`` (default: the game of a rules object, else Yaniv).
    ``executor``: a ``concurrent.futures.Executor`` that plays the shards instead of the
    process pool (``yaniv eval --ray``: :class:`training.rllib.shards.RayExecutor`); the
    results are the same. ``engine``: ``"auto"`` plays on the batched engine
    (:mod:`agents.evaluation.batched_runner`) for Yaniv when every entrant has an exact batched
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
    """A league: ``games`` games in all (a multiple of :func:`agents.evaluation.schedule.game_multiple`)
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
    with the agents' annotations (:func:`yaniv_env.yaniv.records.decide`). Yaniv only.
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
