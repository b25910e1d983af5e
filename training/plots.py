"""The learning curve of a run (``learning_curve.png``): the game win rate against each
evaluation opponent with its 95% interval, and the training episodes per opponent (the
learner's first places where the run logged them, else its reward), one colour per opponent
in both panels."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np

from training.periodic_eval import evaluation_rows
from training.run_state import read_csv


def read_monitor(monitor_dir: Path) -> list[dict]:
    """All Monitor episodes of a run, in wall-clock order, with cumulative ``timesteps``.
    Files name their segment first (``00_games``, ``01_games``: the lean learner's, whose rows
    carry the step count of their rollout): a segment's rows from at or after the step where a
    later segment resumed are dropped, as that segment played those steps again. The count
    starts at the first episode's stamp (0 without one): a directory holding only a resumed
    segment's files counts from the step where it resumed."""
    segments: dict[str, list[dict]] = {}
    for file in sorted(Path(monitor_dir).glob("*.monitor.csv")):
        segments.setdefault(file.name.split("_")[0], []).extend(_monitor_rows(file))
    rows, resumed_at = [], math.inf
    for segment in reversed(sorted(segments)):
        stamps = [r["stamp"] for r in segments[segment] if r["stamp"] is not None]
        rows += [r for r in segments[segment] if r["stamp"] is None or r["stamp"] < resumed_at]
        resumed_at = min([resumed_at, *stamps])
    rows.sort(key=lambda r: r["t"])
    steps = (rows[0]["stamp"] or 0) if rows else 0
    for r in rows:
        steps += r["l"]
        r["timesteps"] = steps
    return rows


def _monitor_rows(file: Path) -> list[dict]:
    """The episodes of one Monitor file (none when its header is not a Monitor's)."""
    rows = []
    with open(file) as f:
        header = f.readline()
        try:
            t_start = float(json.loads(header.lstrip("#"))["t_start"])
        except (ValueError, KeyError):
            return rows
        for r in csv.DictReader(f):
            try:
                won, stamp = r.get("won"), r.get("timesteps")
                rows.append(
                    {
                        "r": float(r["r"]),
                        "l": int(r["l"]),
                        "t": t_start + float(r["t"]),
                        "opp": r.get("opponent"),
                        "won": float(won) if won not in (None, "") else None,
                        "stamp": int(stamp) if stamp not in (None, "") else None,
                    }
                )
            except (TypeError, ValueError, KeyError):
                continue
    return rows


def eval_history(rows: list[dict]) -> dict[str, dict[str, list[float]]]:
    """``eval.csv`` rows (either layout: :func:`training.periodic_eval.evaluation_rows`) -> per
    opponent: ``timesteps``, ``rate``, ``low``, ``high`` (rows of runs from before game win
    rates were logged are skipped)."""
    out: dict[str, dict[str, list[float]]] = {}
    for row in evaluation_rows(rows):
        series = out.setdefault(row["opponent"], {"timesteps": [], "rate": [], "low": [], "high": []})
        series["timesteps"].append(row["timesteps"])
        for field, column in (("rate", "win_rate"), ("low", "low"), ("high", "high")):
            series[field].append(row[column])
    return out


def opponent_colours(names) -> dict[str, str]:
    """One colour per opponent, the same in every panel (tab10, in order of appearance)."""
    palette = [f"C{i}" for i in range(10)]
    colours: dict[str, str] = {}
    for name in names:
        if name not in colours:
            colours[name] = palette[len(colours) % len(palette)]
    return colours


def draw_learning_curve(
    evals: dict[str, dict[str, list[float]]], episodes: list[dict], title: str, path: Path, reward: str = ""
):
    """Draw and save the learning curve; returns the matplotlib figure.

    Top: the game win rate against each opponent at each periodic evaluation, with its 95%
    interval (the shaded band), on a 0-1 axis with a line at 0.5. Bottom (when there are
    training episodes), rolling means per opponent in the same colours: the learner's share of
    the first place in its training episodes (the sampling policy's win rate, on the same axis)
    when every episode has one, else the training reward."""
    import textwrap

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import StrMethodFormatter

    opponents = sorted({r["opp"] for r in episodes if r.get("opp")})
    colours = opponent_colours([*evals, *opponents])
    panels = int(bool(evals)) + int(bool(episodes))
    fig = Figure(figsize=(9, 3.6 * panels + 0.8), layout="constrained")
    FigureCanvasAgg(fig)
    fig.suptitle(textwrap.fill(title, 90), fontsize=10)
    axes = fig.subplots(panels, 1, squeeze=False)[:, 0]
    if evals:
        ax = axes[0]
        for name, series in evals.items():
            x = np.asarray(series["timesteps"])
            ax.plot(x, series["rate"], marker="o", color=colours[name], label=f"vs {name}", clip_on=False)
            ax.fill_between(x, series["low"], series["high"], color=colours[name], alpha=0.15, lw=0)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--", label="0.5")
        ax.set_ylim(0, 1)
        ax.set_ylabel("game win rate (95% CI band)")
        ax.set_xlabel("timesteps (learner decisions)")
        ax.set_title("periodic evaluation: whole games, deterministic policy", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    if episodes:
        ax = axes[-1]
        window = max(10, len(episodes) // 50)
        won = all(r.get("won") is not None for r in episodes)
        for name in opponents or [None]:
            sub = [r for r in episodes if name is None or r.get("opp") == name]
            x, y = _rolling([r["timesteps"] for r in sub], [r["won" if won else "r"] for r in sub], window)
            ax.plot(x, y, lw=1, color=colours.get(name, "black"), label=f"vs {name}" if name else "all opponents")
        ax.set_xlabel("timesteps (learner decisions)")
        if won:
            ax.set_ylim(0, 1)
            ax.axhline(0.5, color="grey", lw=0.8, ls="--", label="0.5")
            ax.set_ylabel("training episodes won (first place)")
            what = "the learner's first places (sampling policy)"
        else:
            ax.set_ylabel(f"training reward{f' ({reward})' if reward else ''}")
            what = "reward per episode"
        ax.set_title(f"training episodes: {what}, rolling mean over {window} episodes", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    for ax in axes:
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    fig.savefig(path, dpi=110)
    return fig


def _rolling(xs, ys, window: int):
    ys = np.asarray(ys, dtype=float)
    if len(ys) < window:
        return np.asarray(xs), ys
    return np.asarray(xs)[window - 1 :], np.convolve(ys, np.ones(window) / window, mode="valid")


def plot_learning_curve(run_dir: Path, path: Path, title: str, reward: str = "") -> Path | None:
    """``learning_curve.png`` of a run from its ``eval.csv`` and Monitor files."""
    evals = eval_history(read_csv(run_dir / "eval.csv"))
    episodes = read_monitor(run_dir / "monitor")
    if not evals and not episodes:
        return None
    draw_learning_curve(evals, episodes, title, path, reward)
    return path
