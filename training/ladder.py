"""The ladder: one OpenSkill league per preset and player count, of every baseline and
every shipped trained agent for those rules (``yaniv ladder``).

.. code-block:: console

    yaniv ladder                                    # every preset with 2, 3 and 4 players
    yaniv ladder --tables standard:2,seven:2 --games 1200 --search standard:2
    yaniv ladder --json ladder.json --markdown ladder.md

Each table is a :func:`training.evaluate.league` (duplicate deals, every pairing with two
players, random tables with more) of ``random``, ``greedy``, ``heuristic``,
``score_heuristic`` and the shipped agent ``ppo`` for that preset and player count (:data:`agents.SHIPPED_MODELS`), plus
``search`` on the tables named by ``--search``: the search agent has no batched version,
so its league runs through the AEC environment, about a hundred times slower. Entrants are
ranked by their OpenSkill ordinal (mu - 3 sigma); the games each played and its game win
rate against the whole field stand beside it.

``--markdown`` writes the table the docs' Evaluation page shows (``docs/evaluation.md``);
``--json`` keeps every league whole (:meth:`training.reports.EvalResult.to_dict`), which is what notebook 03 reads.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

BASELINES = ("random", "greedy", "heuristic", "score_heuristic")


#: Player counts of the default ladder: Yaniv is mostly played by 2 to 5 people.
PLAYER_COUNTS = (2, 3, 4)


def default_tables() -> list[tuple[str, int]]:
    """Every Yaniv preset with each of :data:`PLAYER_COUNTS` players."""
    from yaniv_env.rules import PRESETS

    return [(preset, players) for preset in PRESETS for players in PLAYER_COUNTS]


def parse_tables(spec: str) -> list[tuple[str, int]]:
    """``"standard:2,seven:2"`` -> ``[("standard", 2), ("seven", 2)]``."""
    from yaniv_env.rules import PRESETS

    tables = []
    for item in (x.strip() for x in spec.split(",") if x.strip()):
        preset, _, players = item.partition(":")
        if preset not in PRESETS or not players.isdigit():
            raise ValueError(f"a table is PRESET:PLAYERS with a preset of {sorted(PRESETS)}, got {item!r}")
        tables.append((preset, int(players)))
    if not tables:
        raise ValueError("no table given")
    return tables


def entrants(preset: str, players: int, search: bool) -> list[str]:
    """The ladder's entrants for one table: the baselines, ``search`` if asked, and the
    shipped agent when there is one for these rules."""
    import agents

    names = list(BASELINES) + (["search"] if search else [])
    if (preset, players) in agents.SHIPPED_MODELS:
        names.append("ppo")
    return names


def run(
    tables: list[tuple[str, int]],
    games: int,
    seed: int,
    workers: int,
    search: set[tuple[str, int]],
    search_games: int,
    progress: bool = False,
) -> list:
    """One league per table; the :class:`training.reports.EvalResult` of each."""
    from training.evaluate import league
    from training.runner import game_multiple

    results = []
    for preset, players in tables:
        with_search = (preset, players) in search
        names = entrants(preset, players, with_search)
        wanted = search_games if with_search else games
        unit = game_multiple(len(names), players, True)
        n = max(unit, -(-wanted // unit) * unit)  # whole schedules, at least the asked number
        t0 = time.perf_counter()
        res = league(names, games=n, rules=preset, num_players=players, seed=seed, workers=workers, progress=progress)
        print(f"{preset}, {players} players: {n} games in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        results.append(res)
    return results


def markdown(results: list) -> str:
    """One row per entrant of each league, ranked: the table of ``docs/evaluation.md``."""
    lines = [
        "| rules | players | games | rank | agent | OpenSkill ordinal (mu ± sigma) | game win rate [95% CI] |",
        "|---|---|---|---|---|---|---|",
    ]
    for res in results:
        for rank, lab in enumerate(res.order(), 1):
            r, st = res.ratings[lab], res.stats[lab]
            win = st.metrics["game_win_rate"]
            lines.append(
                f"| `{res.rules.name}` | {res.num_players} | {res.games} | {rank} | `{lab}` | "
                f"{r['ordinal']:.1f} ({r['mu']:.1f} ± {r['sigma']:.1f}) | "
                f"{win.value:.3f} [{win.low:.3f}, {win.high:.3f}] |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="yaniv ladder", description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", default="", help="PRESET:PLAYERS,... (default: every preset with 2, 3 and 4 players)")
    p.add_argument("--games", type=int, default=1200, help="games per league, rounded up to whole schedules")
    p.add_argument("--search", default="", help="tables that also seat the search agent (PRESET:PLAYERS,...)")
    p.add_argument("--search-games", type=int, default=300, help="games of a league with search")
    p.add_argument("--seed", type=int, default=0, help="seed of the deal lists")
    p.add_argument("--workers", type=int, default=1, help="processes")
    p.add_argument("--json", help="write every league as JSON")
    p.add_argument("--markdown", help="write the ranked table as Markdown")
    p.add_argument("--no-progress", "--quiet", dest="quiet", action="store_true", help="no progress bars")
    a = p.parse_args(argv)
    try:
        tables = parse_tables(a.tables) if a.tables else default_tables()
        search = set(parse_tables(a.search)) if a.search else set()
        if a.games <= 0 or a.search_games <= 0:
            raise ValueError("--games and --search-games must be positive")
        results = run(tables, a.games, a.seed, a.workers, search, a.search_games, progress=not a.quiet)
    except ValueError as e:
        print(f"yaniv ladder: {e}", file=sys.stderr)
        return 2
    table = markdown(results)
    print(table)
    if a.markdown:
        Path(a.markdown).write_text(table + "\n", encoding="utf-8")
    if a.json:
        Path(a.json).write_text(json.dumps([r.to_dict() for r in results], indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
