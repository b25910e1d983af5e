"""The ladder: one OpenSkill league per preset and player count, of every baseline and
every shipped trained agent for those rules (``yaniv ladder``, :mod:`training.cli.ladder`).

.. code-block:: console

    yaniv ladder                                    # every preset with 2, 3 and 4 players
    yaniv ladder --tables standard:2,seven:2 --games 1200 --search standard:2
    yaniv ladder --json ladder.json --markdown ladder.md

Each table is a :func:`agents.evaluation.league` (duplicate deals, every pairing with two
players, random tables with more) of ``random``, ``greedy``, ``heuristic``,
``score_heuristic`` and the shipped trained agents for that preset and player count
(:data:`agents.SHIPPED_KINDS`: the default ``ppo``, and ``ppo_advised`` or ``ppo_scratch``
where that is another model than ``ppo``'s), plus
``search`` on the tables named by ``--search``: the search agent has no batched version,
so its league runs through the AEC environment, much slower (``docs/evaluation.md``). Entrants are
ranked by their OpenSkill ordinal (mu - 3 sigma); the games each played and its game win
rate against the whole field stand beside it.

``--markdown`` writes the table the docs' Evaluation page shows (``docs/evaluation.md``);
``--json`` keeps every league whole (:meth:`agents.evaluation.reports.EvalResult.to_dict`), which is
what notebook 03 reads.
"""

from __future__ import annotations

import sys
import time

import agents
from agents.evaluation.harness import league
from agents.evaluation.schedule import game_multiple
from yaniv_env.yaniv.rules import PRESETS

BASELINES = ("random", "greedy", "heuristic", "score_heuristic")


#: Player counts of the default ladder: Yaniv is mostly played by 2 to 5 people.
PLAYER_COUNTS = (2, 3, 4)


def default_tables() -> list[tuple[str, int]]:
    """Every Yaniv preset with each of :data:`PLAYER_COUNTS` players."""
    return [(preset, players) for preset in PRESETS for players in PLAYER_COUNTS]


def parse_tables(spec: str) -> list[tuple[str, int]]:
    """``"standard:2,seven:2"`` -> ``[("standard", 2), ("seven", 2)]``."""
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
    shipped agents for these rules."""
    names = list(BASELINES) + (["search"] if search else [])
    seated = set()  # model files: the default ``ppo`` is one of the others, seated once
    for name, models in agents.SHIPPED_KINDS.items():
        if (preset, players) in models and models[(preset, players)] not in seated:
            seated.add(models[(preset, players)])
            names.append(name)
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
    """One league per table; the :class:`agents.evaluation.reports.EvalResult` of each."""
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
