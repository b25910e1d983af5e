"""The periodic evaluation both learners share (:mod:`training.periodic_eval`): each learner plays
the games and reports the interval it did before they shared it (the same seeds, seats and
deals), both write ``eval.csv`` in one layout, and the readers still read MaskablePPO's former
layout (a row per evaluation), which a resumed run's file is rewritten from."""

from __future__ import annotations

import csv
import functools

import pytest

pytest.importorskip("sb3_contrib")

import agents  # noqa: E402
from agents.evaluation import evaluate, whole_deals, wilson  # noqa: E402
from agents.evaluation.records import SEAT_COUNTERS  # noqa: E402
from training import ppo  # noqa: E402
from training.args import Args  # noqa: E402
from training.league import as_agent  # noqa: E402
from training.periodic_eval import (  # noqa: E402
    EVAL_COLUMNS,
    append_evaluations,
    evaluation_rows,
    periodic_evaluation,
    read_evaluations,
)
from training.plan import make_plan  # noqa: E402
from training.plots import eval_history  # noqa: E402
from training.run_state import read_csv  # noqa: E402

#: A stand-in for the learner's policy: an entrant factory ``(seed, rules) -> agent``.
LEARNER = functools.partial(agents.make, "greedy")


def plan_of(tmp_path, **kw):
    """A plan with two periodic evaluation opponents and a few games (its run directory made)."""
    given = dict(advice="none", pretrain="none", eval_opponents="random,heuristic", eval_games=4, progress=False)
    given.update(kw, output_dir=str(tmp_path), run_name="run")
    plan = make_plan(Args(**given), set(given))
    plan.run_dir.mkdir(parents=True)
    return plan


def test_the_lean_learner_keeps_its_games_and_its_wilson_interval(tmp_path):
    """The lean learner's evaluation (the defaults): the learner at one seat and opponent ``k``
    at every other, on the deals of ``periodic_evaluation + k``, its wins over the games with a
    Wilson interval: what :func:`training.ppo.log_evaluation` computed itself before, row for
    row, with a line printed per opponent."""
    plan = plan_of(tmp_path, algo="ppo", num_players=3)
    lines: list[str] = []
    rates = periodic_evaluation(LEARNER, plan.evaluation, 512, 90.0, write=lines.append)
    rows = read_csv(plan.run_dir / "eval.csv")
    assert list(rows[0]) == EVAL_COLUMNS and [r["opponent"] for r in rows] == ["random", "heuristic"]
    won = SEAT_COUNTERS.index("wins")
    for k, (row, line) in enumerate(zip(rows, lines, strict=True)):
        opponent = row["opponent"]
        seed = plan.seeds.periodic_evaluation + k
        before = evaluate([("learner", LEARNER), opponent, opponent], plan.rules, 3, whole_deals(4, 3, 3, True), seed)
        wins = sum(r.seat_stats[s][won] for r in before.records for s, e in enumerate(r.seats) if e == 0)
        low, high = wilson(wins, before.games)
        assert int(row["games"]) == before.games == 6 and row["timesteps"] == "512" and row["minutes"] == "1.5"
        assert float(row["win_rate"]) == pytest.approx(wins / before.games) == rates[opponent].value
        assert (float(row["low"]), float(row["high"])) == pytest.approx((low, high))
        assert int(row["unfinished"]) == sum(r.truncated for r in before.records)
        assert line.startswith(f"  eval vs {opponent}: {wins / before.games:.3f} [{low:.3f}, {high:.3f}] of 6 games")


def test_maskable_ppo_keeps_its_games_and_its_paired_interval(tmp_path):
    """MaskablePPO's evaluation (``one_seat=False, own_deals=False, paired=True``): the learner
    and the opponent seated cyclically (``A B A`` at three seats), every opponent on the deals
    of ``periodic_evaluation``, the duplicate format's interval: what its callback read from
    :func:`agents.evaluation.evaluate` before, now a row per opponent; the bar is told which
    games are being played."""
    plan = plan_of(tmp_path, algo="maskable_ppo", num_players=3)
    notes: list[str] = []
    rates = periodic_evaluation(
        LEARNER, plan.evaluation, 0, 0.0, one_seat=False, own_deals=False, paired=True, announce=notes.append,
        write=notes.append,
    )  # fmt: skip
    rows = read_csv(plan.run_dir / "eval.csv")
    assert list(rows[0]) == EVAL_COLUMNS and [r["opponent"] for r in rows] == ["random", "heuristic"]
    games = whole_deals(4, 2, 3, duplicate=True)
    for row in rows:
        name = row["opponent"]
        before = evaluate(
            [("model", LEARNER), name], rules=plan.rules, num_players=3, games=games,
            seed=plan.seeds.periodic_evaluation, episode=plan.evaluation.episode, game=plan.env.game,
        )  # fmt: skip
        est = before["model"].metrics["game_win_rate"]
        assert int(row["games"]) == before.games == games
        assert [float(row[c]) for c in ("win_rate", "low", "high")] == [est.value, est.low, est.high]
        assert rates[name] == est and f"evaluating: {games} games vs {name}" in notes


def test_the_lean_evaluate_is_the_periodic_evaluations_games():
    """:func:`training.ppo.evaluate` (kept for notebooks and notes) plays the lean learner's games."""
    from yaniv_env.yaniv.rules import get_rules

    rules = get_rules("standard", 2)
    policy = ppo.make_policy(rules, [32, 32])
    wins, games, unfinished = ppo.evaluate(policy, rules, "random", 4, seed=3)
    result = evaluate([("learner", functools.partial(as_agent, policy)), "random"], rules, 2, 4, seed=3)
    assert (wins, games, unfinished) == (result["learner"].metrics["game_win_rate"].value * 4, 4, 0)


#: An ``eval.csv`` as MaskablePPO wrote it before: a row per evaluation, columns per opponent.
WIDE = [
    ["timesteps", "elapsed_s", "random_game_win_rate", "random_low", "random_high", "random_games"]
    + ["greedy_game_win_rate", "greedy_low", "greedy_high", "greedy_games"],
    [0, 12.0, 0.5, 0.2, 0.8, 20, 0.25, 0.05, 0.6, 20],
    [128, 90.0, 0.75, 0.4, 0.95, 20, 0.5, 0.2, 0.8, 20],
]
#: The same evaluations as a row per opponent.
LONG = [
    EVAL_COLUMNS,
    [0, 0.2, "random", 20, 0.5, 0.2, 0.8, ""],
    [0, 0.2, "greedy", 20, 0.25, 0.05, 0.6, ""],
    [128, 1.5, "random", 20, 0.75, 0.4, 0.95, ""],
    [128, 1.5, "greedy", 20, 0.5, 0.2, 0.8, ""],
]


def write(path, rows):
    with path.open("w", newline="") as f:
        csv.writer(f).writerows(rows)
    return path


def test_the_readers_read_maskable_ppos_former_layout(tmp_path):
    """:func:`training.plots.eval_history` and :func:`training.periodic_eval.read_evaluations`
    read a file of the former layout as the same evaluations written a row per opponent."""
    wide, long = write(tmp_path / "wide.csv", WIDE), write(tmp_path / "long.csv", LONG)
    assert eval_history(read_csv(wide)) == eval_history(read_csv(long))
    assert eval_history(read_csv(wide))["greedy"] == {
        "timesteps": [0, 128],
        "rate": [0.25, 0.5],
        "low": [0.05, 0.2],
        "high": [0.6, 0.8],
    }
    curves = read_evaluations(wide)
    assert curves == read_evaluations(long)
    assert curves["random"] == [(0, 0.2, 0.5, 0.2, 0.8), (128, 1.5, 0.75, 0.4, 0.95)]


def test_a_resumed_run_rewrites_the_former_layout_before_appending(tmp_path):
    """Appending to a file of the former layout (a MaskablePPO run resumed from before) first
    rewrites its evaluations a row per opponent, so that the file holds one layout."""
    path = write(tmp_path / "eval.csv", WIDE)
    append_evaluations(path, [[256, 3.0, "random", 20, 0.9, 0.7, 0.97, 0]])
    rows = read_csv(path)
    assert list(rows[0]) == EVAL_COLUMNS and len(rows) == 5
    assert evaluation_rows(rows[:4]) == evaluation_rows(read_csv(write(tmp_path / "long.csv", LONG)))
    assert read_evaluations(path)["random"][-1] == (256, 3.0, 0.9, 0.7, 0.97)
    append_evaluations(path, [[384, 4.0, "greedy", 20, 0.6, 0.3, 0.8, 1]])  # now appended to as it is
    assert len(read_csv(path)) == 6 and read_csv(path)[-1]["unfinished"] == "1"
