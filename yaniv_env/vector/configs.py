"""The command line shared by the engine checks that run per preset and player count
(:mod:`yaniv_env.vector.verify`, :mod:`yaniv_env.vector.sweep`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..rules import PRESETS, Rules, get_rules

#: What a check counts (added up over the parts of a configuration run in several processes).
COUNTS = ("games", "decisions", "rounds")
#: The counters every check's summary carries, added up over the configurations.
TOTALS = (*COUNTS, "seconds")


@dataclass
class ConfigSummary:
    """What a check did on one configuration (``players`` 0: the total over several)."""

    rules: str
    players: int
    games: int = 0
    decisions: int = 0
    rounds: int = 0
    seconds: float = 0.0

    def add(self, other: ConfigSummary, counters: tuple[str, ...] = TOTALS) -> None:
        """Add ``other``'s ``counters`` to this summary's."""
        for attr in counters:
            setattr(self, attr, getattr(self, attr) + getattr(other, attr))

    @property
    def label(self) -> str:
        return f"{self.rules} {self.players}p" if self.players else self.rules


def run_configs(
    argv: list[str] | None,
    prog: str,
    description: str,
    check: Callable[..., object],
    failure: type[Exception],
    players: list[int],
    batch: int | None,
    options: Sequence[tuple[str, type, object, str]] = (),
) -> int:
    """Parse ``--games --rules --players --batch --seed`` and the check's own ``options``
    (``(flag, type, default, help)``: ``--flag`` passed as the keyword ``flag`` with dashes
    as underscores), run ``check(rules, games, seed=..., batch=..., **options)`` (a summary
    with ``line()`` and the :data:`TOTALS`) for every preset and player count, print one
    line each and the total; a ``failure`` is printed and the exit status is 1."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--games", type=int, default=10_000, help="games per preset and player count")
    parser.add_argument("--rules", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    parser.add_argument(
        "--players", type=int, nargs="+", default=players, help=f"player counts (default {' '.join(map(str, players))})"
    )
    shown = "chosen by the check" if batch is None else batch
    parser.add_argument("--batch", type=int, default=batch, help=f"games stepped together (default {shown})")
    parser.add_argument("--seed", type=int, default=0)
    for flag, kind, default, text in options:
        parser.add_argument(f"--{flag}", type=kind, default=default, help=f"{text} (default {default})")
    args = parser.parse_args(argv)
    extra = {flag.replace("-", "_"): getattr(args, flag.replace("-", "_")) for flag, *_ in options}
    failed: list[str] = []
    total = None
    for name in args.rules:
        for n in args.players:
            try:
                rules: Rules = get_rules(name, n)
            except ValueError as e:
                print(f"{name} {n}p: skipped: {e}")
                continue
            try:
                summary = check(rules, args.games, seed=args.seed, batch=args.batch, **extra)
            except failure as e:
                failed.append(f"{name} {n}p")
                print(f"{name} {n}p: {type(e).__name__}: {e}", flush=True)
                continue
            print(summary.line(), flush=True)
            if total is None:
                total = type(summary)("all configurations", 0)
            total.add(summary)
            if hasattr(total, "endings"):
                total.endings.update(summary.endings)
    if total is not None:
        print(total.line() + (" (the configurations that passed)" if failed else ""))
    if failed:
        print(f"FAILED: {', '.join(failed)}")
    return 1 if failed else 0
