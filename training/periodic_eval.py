"""The periodic evaluation of a training run, whichever learner trains it, and its log ``eval.csv``.

:func:`periodic_evaluation` plays the current policy against each periodic evaluation
opponent (``--eval-opponents``) through :mod:`agents.evaluation` and appends a row per
opponent to the run's ``eval.csv`` (:data:`EVAL_COLUMNS`). The lean learner
(:func:`training.ppo.log_evaluation`) and MaskablePPO's callback
(:class:`training.callbacks.EvaluationCallback`) both call it, each with its own seating,
deals and interval (its keywords), so that a run plays and reports what it did before the
two shared this function.

:func:`evaluation_rows` and :func:`read_evaluations` read ``eval.csv`` back, in this layout
or in the one MaskablePPO once wrote (a row per evaluation, with columns
``{opponent}_game_win_rate``, ``_low``, ``_high`` and ``_games`` per opponent and ``elapsed_s``);
:func:`append_evaluations` rewrites such a file in this layout before appending to it (a run
resumed from before).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable
from pathlib import Path

from agents.evaluation import Estimate, EvalResult, evaluate, whole_deals
from agents.evaluation.stats import entrant_statistics
from training.plan import EvalSettings
from training.run_state import read_csv

#: The columns of ``eval.csv``, a row per evaluation and opponent: the learner's steps, the
#: run's minutes, the opponent, the games played, the learner's game win rate with its 95%
#: interval, and the games stopped at the rules' round limit (ranked by score).
EVAL_COLUMNS = ["timesteps", "minutes", "opponent", "games", "win_rate", "low", "high", "unfinished"]

#: The label of the evaluated policy among the entrants of :func:`play_learner`.
LEARNER = "learner"


def _print(line: str) -> None:
    print(line, flush=True)


def learner_entrants(learner: Callable, opponent: str, num_players: int, one_seat: bool) -> list:
    """The entrants of an evaluation of ``learner`` (an entrant factory ``(seed, rules) ->
    agent``) against ``opponent``: the learner at one seat and the opponent at every other
    (``one_seat``), or the two seated cyclically by :func:`agents.evaluation.evaluate`
    (``A B A`` at three seats, ``A B A B`` at four)."""
    return [(LEARNER, learner), *[opponent] * (num_players - 1 if one_seat else 1)]


def play_learner(
    learner: Callable, rules, opponent: str, games: int, seed: int, *, one_seat: bool = True, episode: str = "game",
    game: str | None = None,
) -> EvalResult:  # fmt: skip
    """The games of ``learner`` against ``opponent`` (seated as :func:`learner_entrants` says)
    in :func:`agents.evaluation.evaluate`'s duplicate format on the deals of ``seed``: ``games``
    rounded up to whole deals, each game played to its end (``episode="round"``: single
    rounds) under ``rules``, on the batched engine when every agent has an exact batched version."""
    n = rules.num_players
    entrants = learner_entrants(learner, opponent, n, one_seat)
    return evaluate(entrants, rules, n, learner_games(games, n, one_seat), seed=seed, episode=episode, game=game)


def learner_games(games: int, num_players: int, one_seat: bool) -> int:
    """The games :func:`play_learner` plays for ``games`` asked: rounded up to whole deals of
    its entrants (``num_players`` of them with ``one_seat``, else the learner and one opponent)."""
    return whole_deals(games, num_players if one_seat else 2, num_players, duplicate=True)


def learner_win_rate(result: EvalResult, paired: bool) -> Estimate:
    """The learner's game win rate in ``result`` (:func:`play_learner`; a tie for first place
    shares the win) with its 95% interval, as :mod:`agents.evaluation.stats` computes it: the
    duplicate format's t interval over the deals (``paired``), or a Wilson interval over the
    games taken as independent trials."""
    stats = result.stats
    if not paired:
        specs = [result[label].spec for label in result.labels]
        stats = entrant_statistics(result.records, result.labels, specs, result.num_players, paired=False)
    return stats[LEARNER].metrics["game_win_rate"]


def unfinished(result: EvalResult) -> int:
    """The games of ``result`` stopped at the rules' round limit (ranked by score)."""
    return sum(record.truncated for record in result.records)


def periodic_evaluation(
    learner: Callable, settings: EvalSettings, timesteps: int, elapsed: float, *, one_seat: bool = True,
    own_deals: bool = True, paired: bool = False, announce: Callable[[str], None] | None = None,
    write: Callable[[str], None] = _print,
) -> dict[str, Estimate]:  # fmt: skip
    """Evaluate ``learner`` (an entrant factory ``(seed, rules) -> agent``: the run's policy as
    it is, at ``timesteps`` steps and ``elapsed`` seconds of the run) against each periodic
    evaluation opponent of ``settings`` (:func:`play_learner`: ``--eval-games`` games of
    ``--eval-episode``, the same deals at every evaluation); append a row per opponent to the
    run's ``eval.csv`` (:func:`append_evaluations`); ``write`` a line per opponent
    (``announce`` says which games are about to be played); return the game win rate against
    each opponent (:func:`learner_win_rate`).

    Each learner keeps the evaluation it had: the lean learner's defaults (the learner at one
    seat, the opponent ``k`` on the deals of ``settings.seed + k``, a Wilson interval over the
    games); MaskablePPO's ``one_seat=False, own_deals=False, paired=True`` (the two seated
    cyclically, every opponent on the deals of ``settings.seed``, the duplicate format's
    interval over the deals)."""
    rules = settings.rules
    rows, rates = [], {}
    for k, (opponent, _) in enumerate(settings.opponents):
        if announce is not None:
            announce(f"evaluating: {learner_games(settings.games, rules.num_players, one_seat)} games vs {opponent}")
        seed = settings.seed + (k if own_deals else 0)
        result = play_learner(
            learner, rules, opponent, settings.games, seed, one_seat=one_seat, episode=settings.episode,
            game=settings.game,
        )  # fmt: skip
        rate, stopped = learner_win_rate(result, paired), unfinished(result)
        rates[opponent] = rate
        rows.append(
            [timesteps, round(elapsed / 60, 2), opponent, result.games, rate.value, rate.low, rate.high, stopped]
        )
        write(
            f"  eval vs {opponent}: {rate.value:.3f} [{rate.low:.3f}, {rate.high:.3f}] of {result.games} games "
            f"({stopped} unfinished)"
        )
    append_evaluations(settings.run_dir / "eval.csv", rows)
    return rates


def append_evaluations(path: Path, rows: list[list]) -> None:
    """Append ``rows`` (of :data:`EVAL_COLUMNS`) to the ``eval.csv`` at ``path``, written with
    its header when new. A file of another layout (a run resumed from before, in
    MaskablePPO's former layout) is first rewritten in this one (:func:`evaluation_rows`), so
    that the file holds one layout."""
    path = Path(path)
    if not path.exists() or _header(path) != EVAL_COLUMNS:
        earlier = evaluation_rows(read_csv(path))
        rewritten = path.with_suffix(".tmp")  # then renamed: an interruption loses no evaluation
        with rewritten.open("w", newline="") as f:
            out = csv.writer(f)
            out.writerow(EVAL_COLUMNS)
            out.writerows([row[column] for column in EVAL_COLUMNS] for row in earlier)
        rewritten.replace(path)
    with path.open("a", newline="") as f:
        csv.writer(f).writerows(rows)


def _header(path: Path) -> list[str]:
    with path.open(newline="") as f:
        return next(csv.reader(f), [])


def _number(text, kind: type = float):
    """``text`` as a ``kind``: an empty cell is NaN, or ``None`` for an ``int`` (which may read ``12.0``)."""
    if text in ("", None):
        return None if kind is int else math.nan
    return int(float(text)) if kind is int else kind(text)


def evaluation_rows(rows: list[dict]) -> list[dict]:
    """The rows of an ``eval.csv`` (as :func:`training.run_state.read_csv` reads them) as
    :data:`EVAL_COLUMNS` dicts of numbers (NaN for an empty cell), a row per evaluation and
    opponent, whichever the layout: MaskablePPO's former rows (a row per evaluation) are split
    per opponent, with the minutes from ``elapsed_s`` and no ``unfinished`` count (``None``: not
    logged then); the rows of runs from before game win rates were logged are left out."""
    out = []
    for row in rows:
        if "opponent" in row:
            typed = {key: _number(row.get(key)) for key in ("minutes", "win_rate", "low", "high")}
            counts = {key: _number(row.get(key), int) for key in ("timesteps", "games", "unfinished")}
            out.append({**typed, **counts, "opponent": row["opponent"]})
            continue
        seconds = _number(row.get("elapsed_s"))
        for key in row:
            if not key.endswith("_game_win_rate") or row[key] in ("", None):
                continue
            name = key[: -len("_game_win_rate")]
            out.append(
                {
                    "timesteps": _number(row["timesteps"], int),
                    "minutes": round(seconds / 60, 2),
                    "opponent": name,
                    "games": _number(row.get(f"{name}_games"), int),
                    "win_rate": float(row[key]),
                    "low": _number(row.get(f"{name}_low")),
                    "high": _number(row.get(f"{name}_high")),
                    "unfinished": None,
                }
            )
    return out


def read_evaluations(path: Path) -> dict[str, list[tuple[int, float, float, float, float]]]:
    """A run's ``eval.csv`` (either layout: :func:`evaluation_rows`) per opponent, in the order
    written: ``(timesteps, minutes, win_rate, low, high)`` of each evaluation."""
    curves: dict[str, list[tuple[int, float, float, float, float]]] = {}
    for row in evaluation_rows(read_csv(Path(path))):
        point = (row["timesteps"], *(row[key] for key in ("minutes", "win_rate", "low", "high")))
        curves.setdefault(row["opponent"], []).append(point)
    return curves
