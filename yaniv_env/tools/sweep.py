"""The invariant sweep: millions of whole games on the batched engine, every invariant of
:mod:`yaniv_env.yaniv.batched.invariants` checked inside the compiled game loop at every decision.

``python -m yaniv_env.tools.sweep --games 1000000 --workers 2`` (or ``yaniv sweep``) plays
that many games per preset in batches of ``--batch-games`` games. Each batch draws its own
rule set from the preset (:func:`draw_rules`): a player count from 2 to 5 and the house
options (each kept as the preset has it or drawn among its values, half the time each),
sometimes a short ``turn_limit`` or ``round_limit`` so that truncation happens. In each
game every seat is either the greedy player (:func:`~yaniv_env.yaniv.batched.kernels.greedy_pick`:
calls, slams, challenges, Blasts) or uniform random play, drawn per seat
(``--greedy-share``). The kernel (:func:`sweep_games`) checks the state before every
decision (:func:`~yaniv_env.yaniv.batched.invariants.check_decision`) and after every decision
that ends a round (:func:`~yaniv_env.yaniv.batched.invariants.check_round_end`); a game that
breaks one is counted under the check's name, its first few are reported (batch, rules,
game key, round, decision) and the game stops there (its state can no longer be trusted).

The presets' batches are taken in turn. It prints one line per preset (games, decisions,
rounds and how they ended, violations by check, the seconds its batches took and the CPU
time they used) and the total; ``--json FILE`` writes the same figures after every batch,
and ``--resume`` continues a stopped run from that file (the batches it lists are not
played again). The exit status is 1 on any violation. Everything is a function of
``--seed``: the batches' rules, the games' keys and every move (not of ``--workers``).
Measured figures: ``docs/verification.md``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from ..core.cpus import map_in_processes
from ..core.seeding import GOLDEN, MASK64, mix64
from ..yaniv.batched.engine import REASONS, BatchedYaniv
from ..yaniv.batched.invariants import CHECKS, STATS, reference, sweep_games
from ..yaniv.batched.tables import Tables, greedy_tables
from ..yaniv.rules import PRESETS, Rules

#: The house options a batch draws (each kept as the preset has it half the time, else
#: drawn uniformly among these values); combinations the rules refuse are drawn again.
HOUSE_OPTIONS: dict[str, tuple] = {
    "challenge": ("reveal", "asaf"),
    "beaten_caller_alone": (False, True),
    "next_leader": ("winner", "caller"),
    "set_pickup": ("any", "ends", "top"),
    "run_pickup": ("any", "ends", "top"),
    "set_jokers": ("none", "pair", "any"),
    "slam": ("none", "single", "same_rank"),
    "slam_from_stock_only": (False, True),
    "slam_joker_on_joker": (False, True),
    "blast": (False, True),
    "private_windows": (False, True),
    "empty_hand_wins": (False, True),
    "limit_inclusive": (False, True),
    "stock_exhaustion": ("reshuffle", "draw"),
}
#: Short limits drawn a quarter of the time each (the truncation paths).
SHORT_TURN_LIMITS = (4, 60)
SHORT_ROUND_LIMITS = (1, 12)
PLAYERS = (2, 3, 4, 5)
#: Violations reported in full per batch (all are counted).
REPORTED = 4


def draw_rules(preset: str, rng: np.random.Generator) -> Rules:
    """A rule set for one batch: ``preset`` at a random player count with random house
    options and, a quarter of the time each, a short turn or round limit."""
    base = PRESETS[preset]
    while True:
        changes = {"num_players": int(rng.choice(PLAYERS))}
        for option, values in HOUSE_OPTIONS.items():
            if rng.random() < 0.5:
                changes[option] = values[int(rng.integers(len(values)))]
        if rng.random() < 0.25:
            changes["turn_limit"] = int(rng.integers(SHORT_TURN_LIMITS[0], SHORT_TURN_LIMITS[1] + 1))
        if rng.random() < 0.25:
            changes["round_limit"] = int(rng.integers(SHORT_ROUND_LIMITS[0], SHORT_ROUND_LIMITS[1] + 1))
        try:
            return base.replace(**changes)
        except ValueError:
            continue  # a combination the rules refuse (Blast with two decks, ...)


def game_key(batch_key: int, game: int) -> int:
    """The key of game ``game`` of a batch (:func:`sweep_games`; the engine deals from it)."""
    return mix64((batch_key + GOLDEN * (game + 1)) & MASK64)


def batch_key(seed: int, preset: str, batch: int) -> int:
    """The key of batch ``batch`` of ``preset`` in the sweep seeded ``seed``."""
    z = mix64((seed + GOLDEN * (list(PRESETS).index(preset) + 1)) & MASK64)
    return mix64((z + GOLDEN * (batch + 1)) & MASK64)


@dataclass
class BatchResult:
    """What :func:`play_batch` found."""

    rules: Rules
    key: int
    stats: dict[str, int]
    violations: dict[str, int]
    found: list[dict]
    seconds: float
    cpu_seconds: float


def play_batch(
    rules: Rules, games: int, key: int, greedy_share: float = 0.5, kernel_tables: Tables | None = None
) -> BatchResult:
    """Play and check ``games`` games of ``rules`` from batch key ``key``. ``kernel_tables``
    replaces the tables the engine plays from (a test plants a bug in the step this way; the
    checks read :func:`~yaniv_env.yaniv.batched.invariants.reference`, made from ``rules``)."""
    start, cpu = time.perf_counter(), time.process_time()
    eng = BatchedYaniv(rules, num_envs=1, seed=0)
    st, tb, rs = eng.kernel_state()
    values, low_take = greedy_tables(rules)
    stats = np.zeros(len(STATS), np.int64)
    violations = np.zeros(len(CHECKS), np.int64)
    found = np.full((REPORTED, 4), -1, np.int64)
    sweep_games(
        st,
        tb if kernel_tables is None else kernel_tables,
        rs,
        reference(rules),
        games,
        np.uint64(key),
        greedy_share,
        values,
        low_take,
        stats,
        violations,
        found,
    )
    return BatchResult(
        rules=rules,
        key=key,
        stats=dict(zip(STATS, stats.tolist(), strict=True)),
        violations={name: c for name, c in zip(CHECKS, violations.tolist(), strict=True) if c},
        found=[
            {
                "check": CHECKS[check],
                "game_key": game_key(key, game),
                "round": rnd,
                "decision": decision,
                "players": rules.num_players,
                "rules": rules.describe(),
            }
            for check, game, rnd, decision in found.tolist()
            if check >= 0
        ],
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - cpu,
    )


@dataclass
class PresetSummary:
    """A preset's sweep: counters (:data:`STATS`), games by player count, violations by
    check and the first ones in full, the batches done (by index), the seconds they took
    and the CPU time they used (summed over the workers)."""

    preset: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATS, 0))
    players: dict[int, int] = field(default_factory=dict)
    violations: dict[str, int] = field(default_factory=dict)
    found: list[dict] = field(default_factory=list)
    batches: list[int] = field(default_factory=list)
    worker_seconds: float = 0.0
    cpu_seconds: float = 0.0

    @classmethod
    def from_json(cls, data: dict) -> PresetSummary:
        return cls(**(data | {"players": {int(n): c for n, c in data["players"].items()}}))

    def add(self, batch: int, result: BatchResult) -> None:
        for name, value in result.stats.items():
            self.counts[name] += value
        n = result.rules.num_players
        self.players = dict(sorted((self.players | {n: self.players.get(n, 0) + result.stats["games"]}).items()))
        for name, value in result.violations.items():
            self.violations[name] = self.violations.get(name, 0) + value
        self.found.extend(result.found[: max(0, REPORTED - len(self.found))])
        self.batches.append(batch)
        self.worker_seconds += result.seconds
        self.cpu_seconds += result.cpu_seconds

    def line(self) -> str:
        c = self.counts
        ends = ", ".join(f"{k} {c[k]:,}" for k in (*REASONS, "truncated"))
        broken = ", ".join(f"{k} {v:,}" for k, v in self.violations.items()) or "0"
        return (
            f"{self.preset}: {c['games']:,} games, {c['decisions']:,} decisions, {c['rounds']:,} rounds "
            f"({ends}), violations {broken}, {self.worker_seconds:.1f} worker-seconds ({self.cpu_seconds:.1f} s of CPU)"
        )


def _job(args: tuple) -> tuple[str, int, BatchResult]:
    preset, seed, batch, games, greedy_share = args
    rules = draw_rules(preset, np.random.default_rng([seed, list(PRESETS).index(preset), batch]))
    return preset, batch, play_batch(rules, games, batch_key(seed, preset, batch), greedy_share)


def sweep(
    presets: list[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
    batch_games: int = 2000,
    greedy_share: float = 0.5,
    done: dict[str, PresetSummary] | None = None,
    on_batch: Callable[[dict[str, PresetSummary]], None] | None = None,
) -> dict[str, PresetSummary]:
    """Sweep ``games`` games of each preset (module docstring) in ``workers`` processes,
    the presets' batches taken in turn; ``done`` (a stopped run's summaries) is continued:
    its batches are not played again. ``on_batch`` sees the summaries after each batch."""
    summaries = {preset: PresetSummary(preset) for preset in presets} | (done or {})
    per_preset = [
        [
            (preset, seed, i, min(batch_games, games - first), greedy_share)
            for i, first in enumerate(range(0, games, batch_games))
            if i not in summaries[preset].batches
        ]
        for preset in presets
    ]
    jobs = [job for turn in itertools.zip_longest(*per_preset) for job in turn if job is not None]
    for preset, batch, result in map_in_processes(_job, jobs, workers):
        summaries[preset].add(batch, result)
        if on_batch is not None:
            on_batch(summaries)
    return summaries


def sweep_preset(preset: str, games: int, **options) -> PresetSummary:
    """:func:`sweep` of one preset."""
    return sweep([preset], games, **options)[preset]


def machine() -> dict:
    """The machine a run was made on (for the results files)."""
    return {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()}


def _totals(summaries: list[PresetSummary]) -> dict[str, int]:
    return {
        "games": sum(s.counts["games"] for s in summaries),
        "decisions": sum(s.counts["decisions"] for s in summaries),
        "violations": sum(sum(s.violations.values()) for s in summaries),
    }


#: The options a resumed run must share with the run it continues.
_RUN_OPTIONS = ("games", "seed", "batch_games", "greedy_share")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="yaniv sweep",
        description="Whole games on the batched engine, the rules' invariants checked in the kernel at each decision.",
    )
    parser.add_argument("--games", type=int, default=100_000, help="games per preset (default 100000)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=list(PRESETS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="processes sharing the batches (default 1)")
    parser.add_argument("--batch-games", type=int, default=2000, help="games per batch, one rule set each")
    parser.add_argument("--greedy-share", type=float, default=0.5, help="share of the seats the greedy player takes")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON (after every batch)")
    parser.add_argument("--resume", action="store_true", help="continue the run whose results are in --json FILE")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.batch_games < 1 or not 0 <= args.greedy_share <= 1:
        parser.error("--games, --workers and --batch-games must be ≥ 1 and --greedy-share in [0, 1]")
    if args.resume and not args.json:
        parser.error("--resume continues the run of --json FILE")
    done, wall = {}, 0.0
    if args.resume and os.path.exists(args.json):
        with open(args.json) as f:
            previous = json.load(f)
        for option in _RUN_OPTIONS:
            if previous[option] != getattr(args, option):
                parser.error(
                    f"--resume: {args.json} was run with {option} {previous[option]}, not {getattr(args, option)}"
                )
        done = {p["preset"]: PresetSummary.from_json(p) for p in previous["presets"] if p["preset"] in args.presets}
        wall = previous["wall_seconds"]
    start = time.perf_counter()

    def save(summaries: dict[str, PresetSummary]) -> None:
        if args.json:
            report = {option: getattr(args, option) for option in _RUN_OPTIONS} | {
                "command": "yaniv sweep " + " ".join(sys.argv[1:] if argv is None else argv),
                "workers": args.workers,
                "checks": list(CHECKS),
                "machine": machine(),
                "wall_seconds": round(wall + time.perf_counter() - start, 1),
                "presets": [asdict(s) for s in summaries.values()],
                "total": _totals(list(summaries.values())),
            }
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1)

    summaries = sweep(
        args.presets, args.games, args.seed, args.workers, args.batch_games, args.greedy_share, done, on_batch=save
    )
    save(summaries)
    for summary in summaries.values():
        print(summary.line(), flush=True)
        for v in summary.found:
            print(
                f"  {v['check']}: {v['players']} players, game key {v['game_key']}, round {v['round']}, "
                f"decision {v['decision']}; {v['rules']}"
            )
    total = _totals(list(summaries.values()))
    print(
        f"all presets: {total['games']:,} games, {total['decisions']:,} decisions, "
        f"{total['violations']} violations, {wall + time.perf_counter() - start:.1f} s"
    )
    return 1 if total["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
