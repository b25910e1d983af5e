"""The result of an evaluation and its reports: a text table, JSON, CSV and a bar chart.

Output
------
:class:`EvalResult` has ``table()`` (a text table), ``to_json(path=None)``, ``to_csv(path)``
and ``plot(path)`` (win rates with their intervals, matplotlib's Agg backend).
``progress=True`` shows a tqdm bar. ``workers > 1`` plays chunks of deals in a
``ProcessPoolExecutor`` (spawn context) and merges them in deal order: the results are
identical to one worker. ``save_replays=DIR`` writes the first ``replays`` games as
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.evaluation.records import GameRecord
from agents.evaluation.stats import CONFIDENCE, METRICS, EntrantStats, Estimate, metric_titles
from yaniv_env.core.game import rules_to_dict
from yaniv_env.games import Game, game_of
from yaniv_env.yaniv.rules import Rules


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
        # An entrant holding several seats of a game counts the game once per seat.
        seat_counts = any(len(set(rec.seats)) < len(rec.seats) for rec in self.records)
        cols = ["agent", "seat-games" if seat_counts else "games", *titles.values()]
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
            points = (
                "call success and beaten are per Yaniv call, calls when allowed per decision at which it "
                "could call or play on; points are added per round before milestones; "
                "milestones: the share of its rounds that left the player's total on a milestone"
            )
        else:
            points = "points are the penalty points taken per deal"
        out.append(f"[{pct} confidence intervals: {how}; win rates split ties; {points}]")
        if seat_counts:
            out.append("[seat-games: an agent holding several seats of a game counts it once per seat]")
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


def framed(title: str, header: list[str], rows: list[list[str]], footer: list[str]) -> str:
    """An ASCII table in a frame: the title, the column heads, the rows, then footer lines."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    table_inner = sum(widths) + 3 * (len(widths) - 1)
    widths[-1] += max(0, max(len(line) for line in [title, *footer]) - table_inner)  # room for the title
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    plain = "+" + "-" * (len(rule) - 2) + "+"
    inner = len(rule) - 4

    def row(values: list[str]) -> str:
        cells = [v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths, strict=True))]
        return "| " + " | ".join(cells) + " |"

    def text(line: str) -> str:
        return "| " + line.ljust(inner) + " |"

    out = [plain, text(title), rule, row(header), rule, *(row(r) for r in rows), rule]
    out += [text(line) for line in footer]
    return "\n".join([*out, plain] if footer else out)


def final_table(results: dict[str, EvalResult], label: str, model_path: Path, details: Path) -> str:
    """The summary ``yaniv train`` ends with: one row per opponent of the entrant ``label``
    (game win rate [95% CI], games, round win rate, points per round), in a frame with the
    path of the saved model."""
    first = next(iter(results.values()))
    game, part = first.game, first.game.part

    def cell(est: Estimate, digits: int) -> str:
        if not math.isfinite(est.low):
            return f"{est.value:.{digits}f}"
        return f"{est.value:.{digits}f} [{est.low:.{digits}f}, {est.high:.{digits}f}]"

    rows = []
    for opponent, res in results.items():
        m = res[label].metrics
        rows.append(
            [
                opponent,
                f"{res.games:,}",
                cell(m["game_win_rate"], 3),
                f"{m['round_win_rate'].value:.3f}",
                f"{m['points_per_round'].value:.1f}",
            ]
        )
    header = ["opponent", "games", "game win rate [95% CI]", f"{part} win rate", f"model's points / {part}"]
    title = (
        f"RESULT: the trained model against each baseline - {game.title} {first.rules.name}, "
        f"{first.num_players} players, duplicate deals"
    )
    footer = [
        f"model: {model_path}",
        f"details: {details}",
        f"(chance is {1 / first.num_players:.2f}; points are added per {part}: fewer is better)",
    ]
    return framed(title, header, rows, footer)
