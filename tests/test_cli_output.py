"""What a newcomer meets first: the learning curve, the final table, ``yaniv eval``'s game
counts and refusals, and the command line's help and version."""

from __future__ import annotations

import re

import numpy as np
import pytest

from agents.evaluation.reports import framed
from training import cli, config
from training.cli import train as T
from training.cli.eval import main as eval_main


def _synthetic_history():
    steps = [0, 100_000, 200_000, 300_000]
    evals = {
        name: {
            "timesteps": steps,
            "rate": list(rates),
            "low": [max(0.0, r - 0.15) for r in rates],
            "high": [min(1.0, r + 0.15) for r in rates],
        }
        for name, rates in {
            "random": (0.9, 0.95, 1.0, 1.0),
            "greedy": (0.4, 0.5, 0.55, 0.6),
            "heuristic": (0.1, 0.15, 0.2, 0.3),
        }.items()
    }
    rng = np.random.default_rng(0)
    episodes, t = [], 0
    for i in range(600):
        t += 20
        episodes.append(
            {"r": float(rng.normal()), "l": 20, "timesteps": t, "opp": ("random", "greedy", "heuristic")[i % 3]}
        )
    return evals, episodes


def test_learning_curve_shows_game_win_rates_in_one_colour_per_opponent(tmp_path):
    pytest.importorskip("matplotlib")
    from training.plots import draw_learning_curve

    evals, episodes = _synthetic_history()
    path = tmp_path / "learning_curve.png"
    title = (
        "MaskablePPO on Yaniv — standard, 2 players "
        "(a_rather_long_run_name__1__20261123-160000, after imitating 'heuristic')"
    )
    fig = draw_learning_curve(evals, episodes, title, path, "score_outcome, per round")
    assert path.stat().st_size > 20_000
    top, bottom = fig.axes
    assert top.get_ylim() == (0.0, 1.0)
    assert any(np.allclose(line.get_ydata(), 0.5) for line in top.get_lines() if line.get_label() == "0.5")
    assert "game win rate" in top.get_ylabel()
    colours = {line.get_label(): line.get_color() for line in top.get_lines()}
    assert {"vs random", "vs greedy", "vs heuristic"} <= set(colours)
    assert len({colours[f"vs {n}"] for n in evals}) == 3
    # the same opponent has the same colour in the training panel
    for line in bottom.get_lines():
        assert line.get_color() == colours[line.get_label()]
    # a 95% band per opponent
    assert len(top.collections) == 3
    # nothing clipped: the title lies inside the figure
    fig.canvas.draw()
    box = fig._suptitle.get_window_extent()
    width, height = fig.canvas.get_width_height()
    assert box.x0 >= 0 and box.x1 <= width and box.y1 <= height


def test_the_training_panel_shows_first_places_where_the_run_logged_them(tmp_path):
    """The lean learner logs each training episode's first place (``won``): the panel then
    shows the training win rate on the evaluation's 0-1 axis, not the reward."""
    pytest.importorskip("matplotlib")
    from training.plots import draw_learning_curve

    evals, episodes = _synthetic_history()
    rng = np.random.default_rng(1)
    won = [{**e, "won": float(rng.random() < 0.6)} for e in episodes]
    bottom = draw_learning_curve(evals, won, "t", tmp_path / "won.png", "outcome").axes[1]
    assert bottom.get_ylim() == (0.0, 1.0) and "won" in bottom.get_ylabel()
    curves = [line for line in bottom.get_lines() if line.get_label() != "0.5"]
    assert len(curves) == 3 and all(0 <= y <= 1 for line in curves for y in line.get_ydata())
    # a run without them (MaskablePPO's monitors) keeps the reward
    bottom = draw_learning_curve(evals, episodes, "t", tmp_path / "r.png", "outcome").axes[1]
    assert "training reward" in bottom.get_ylabel()


def test_framed_table_fits_its_title():
    text = framed("a title longer than the table underneath it", ["a", "b"], [["x", "1"]], ["model: m.zip"])
    lines = text.splitlines()
    assert len({len(line) for line in lines}) == 1
    assert lines[0].startswith("+-") and lines[-1] == lines[0]
    assert "| model: m.zip" in text


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agents", "heuristic,random", "--games", "3"], "must be a multiple of 2 (nearest: 2 or 4)"),
        (["--agents", "heuristic"], "needs at least two agents"),
        (["--agents", "random,greedy", "--players", "9", "--games", "2"], "multiple of 9 (nearest: 9)"),
        (["--agents", "random,greedy,heuristic", "--games", "4"], "all 3 pairings"),
    ],
)
def test_eval_refuses_counts_it_cannot_play_exactly(argv, message, capsys):
    assert eval_main([*argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err, err


def test_eval_plays_exactly_the_games_asked(capsys):
    assert eval_main(["--agents", "random,greedy", "--games", "4", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "4 games on 2 deals" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("random ", "greedy "))]
    assert [r[1] for r in rows] == ["4", "4"]
    assert eval_main(["--agents", "random,greedy", "--games", "3", "--no-duplicate", "--quiet"]) == 0
    assert "3 games on 3 deals" in capsys.readouterr().out


def test_version_and_help(capsys):
    assert cli.main(["--version"]) == 0
    assert re.match(r"yaniv \d+\.\d+", capsys.readouterr().out)
    assert cli.main(["--help"]) == 0
    assert "yaniv <command> --help" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        eval_main(["--help"])
    help_text = capsys.readouterr().out
    assert "95%" in help_text and "95%%" not in help_text


def test_train_help_shows_one_default_per_option():
    text = " ".join(config.build_parser(T.Args).format_help().split())
    assert "(default: )" not in text and "(default: None)" not in text
    for option in re.split(r"\s(?=--[a-z])", text):
        assert option.count("(default") <= 1, option
    assert "--seed INT the seed of the run" in text and "(default: 1)" in text
    assert re.search(r"--pretrain-data STR .*?(?=--pretrain-departure)", text).group(0).count("default") == 0
