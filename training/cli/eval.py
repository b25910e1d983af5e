"""``yaniv eval``: agents against each other (:mod:`agents.evaluation`), from the command line.

``yaniv eval --agents heuristic,random [--game yaniv] [--rules standard] [--players 2]
[--games 1000] [--seed 0] [--no-duplicate] [--workers 2] [--engine auto] [--episode game]
[--json out.json] [--csv out.csv] [--plot out.png] [--league] [--rating 002]
[--save-replays DIR] [--replays 3] [--record-game I --html OUT.html --replay-file OUT.json]
[--quiet]``: ``--record-game`` plays game ``I`` again (:func:`agents.evaluation.game_replay`).
An agent with options is written as a call, ``--agents "heuristic(mu=4, call_margin=-4),heuristic"``
(values are literals, read without running anything).
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

from agents.evaluation import ENGINES, EvalResult, evaluate, game_replay, league
from agents.evaluation.entrants import load_trusted, split_agents
from yaniv_env.games import GAMES
from yaniv_env.yaniv.records import save as save_replay
from yaniv_env.yaniv.rules import PRESETS


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
        from yaniv_env.tools.replay import write_html

        print(f"wrote game {args.record_game} as a page: {write_html(record, args.html)}")


def parser() -> argparse.ArgumentParser:
    """The options of ``yaniv eval``."""
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
    return p


def main(argv: list[str] | None = None) -> int:
    """``yaniv eval``."""
    p = parser()
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
        if args.ray is not None:  # training's Ray package only when asked for Ray
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
