"""``yaniv ladder``: one OpenSkill league per preset and player count (:mod:`agents.evaluation.ladder`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agents.evaluation import ladder


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="yaniv ladder", description=ladder.__doc__.split("\n\n")[0])
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
        tables = ladder.parse_tables(a.tables) if a.tables else ladder.default_tables()
        search = set(ladder.parse_tables(a.search)) if a.search else set()
        if a.games <= 0 or a.search_games <= 0:
            raise ValueError("--games and --search-games must be positive")
        results = ladder.run(tables, a.games, a.seed, a.workers, search, a.search_games, progress=not a.quiet)
    except ValueError as e:
        print(f"yaniv ladder: {e}", file=sys.stderr)
        return 2
    table = ladder.markdown(results)
    print(table)
    if a.markdown:
        Path(a.markdown).write_text(table + "\n", encoding="utf-8")
    if a.json:
        Path(a.json).write_text(json.dumps([r.to_dict() for r in results], indent=1) + "\n", encoding="utf-8")
    return 0
