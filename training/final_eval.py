"""The final evaluation of a training run, whichever learner trained it: the model's play
file against each baseline (:func:`final_evaluation`)."""

from __future__ import annotations

import json
from pathlib import Path

from agents.evaluation import evaluate, whole_deals
from agents.evaluation.reports import final_table
from training import config
from training.league import parse_mix
from training.plan import FinalEvalSettings
from yaniv_env.games import get_game


def final_evaluation(settings: FinalEvalSettings, model_path: Path) -> int:
    """Evaluate the model against each baseline with :func:`agents.evaluation.evaluate`
    (duplicate format, on the deals of ``--seed``), save the tables as
    ``final_eval.{txt,json}`` and ``final_eval_vs_*.csv`` in the run's directory and end with
    the framed summary table."""
    rules, run_dir = settings.rules, settings.run_dir
    game = get_game(settings.game)
    mix = config.filter_available(parse_mix(settings.opponents), rules, "final evaluation", False)
    entrants = [name for name, _ in mix]
    games = whole_deals(settings.games, 2, rules.num_players, duplicate=True)
    unit = "games" if settings.episode == "game" else f"single-{game.part} games"
    print(
        f"\nfinal evaluation: {games} {unit} against each of {', '.join(entrants)} "
        f"(duplicate format, {settings.workers} workers)"
    )
    tables, results = [], {}
    for opp in entrants:
        res = evaluate(
            [("trained", str(model_path)), opp],
            rules=rules,
            num_players=rules.num_players,
            games=games,
            seed=settings.seed,
            duplicate=True,
            workers=settings.workers,
            episode=settings.episode,
            progress=settings.progress,
            game=game.name,
            desc=f"final evaluation vs {opp}",
        )
        tables.append(res.table())
        results[opp] = res
        res.to_csv(run_dir / f"final_eval_vs_{opp}.csv")
    (run_dir / "final_eval.json").write_text(
        json.dumps({opp: json.loads(res.to_json()) for opp, res in results.items()}, indent=1) + "\n"
    )
    summary = final_table(results, "trained", model_path, run_dir / "final_eval.txt")
    (run_dir / "final_eval.txt").write_text("\n\n".join([*tables, summary]) + "\n")
    print("\n" + "\n\n".join(tables))
    print("\n" + summary)
    return 0
