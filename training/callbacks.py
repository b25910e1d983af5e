"""The callbacks of the PPO phase, one concern each, run as one SB3 ``CallbackList``
(:func:`make_callback`): the progress bar, periodic evaluation, league snapshots,
checkpoints and the budget. The bar is first, so that the others can write on it; the
budget is last, so that a step's evaluation, snapshot and checkpoint happen before it stops."""

from __future__ import annotations

import time

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from agents.evaluation import evaluate, whole_deals
from agents.evaluation.progress import progress_bar
from agents.trained import TrainedAgent, load
from training.envs import EnvSpec
from training.periodic_eval import periodic_evaluation
from training.plan import EvalSettings, LeagueSettings
from training.run_state import Run
from yaniv_env.core.outcome import place_reward


def make_callback(
    run: Run, venv, evaluation: EvalSettings, league: LeagueSettings, *, checkpoint_every: int,
    total: int | None, budget: float | None, progress: bool,
) -> CallbackList:  # fmt: skip
    """The callbacks of a run's PPO phase, in the order they act at each step: the bar
    (``progress``: shown), the periodic evaluation (every ``evaluation.every`` steps), the
    league (when the run's environments have one), the checkpoint (every ``checkpoint_every``
    steps; 0: none) and the budget (``total`` steps, ``budget`` seconds)."""
    bar = ProgressCallback(run, total, budget, progress)
    callbacks: list[BaseCallback] = [bar]
    if evaluation.every:
        callbacks.append(EvaluationCallback(run, evaluation, bar))
    if run.env.league:
        callbacks.append(LeagueCallback(run, league, venv, bar))
    if checkpoint_every:
        callbacks.append(CheckpointCallback(run, checkpoint_every))
    callbacks.append(BudgetCallback(run, total, budget))
    return CallbackList(callbacks)


def next_multiple(n: int, every: int) -> int:
    """The first multiple of ``every`` after ``n``."""
    return (n // every + 1) * every


def gate_score(model, member, spec: EnvSpec, games: int, seed: int) -> float:
    """The mean placement reward (+1 first, -1 last: the ``outcome`` reward) of ``model`` at one
    seat against ``member`` at every other (entrant factories ``(seed, rules) -> agent``), in
    ``games`` games (rounded up to whole deals) of :func:`agents.evaluation.evaluate`'s
    duplicate format on the deals of ``seed``: the gate's episodes (``spec.gate_episode``) of
    the run's game and rules, under its ``--turn-limit``."""
    n = spec.rules.num_players
    rules = spec.rules if spec.turn_limit is None else spec.rules.replace(turn_limit=spec.turn_limit)
    entrants = [("model", model), *[("member", member)] * (n - 1)]
    res = evaluate(
        entrants, rules, n, whole_deals(games, n, n, duplicate=True), seed=seed, episode=spec.gate_episode,
        game=spec.game,
    )  # fmt: skip
    rewards = [
        place_reward(rec.places[s], n) if rec.places[s] is not None else 0.0
        for rec in res.records
        for s, entrant in enumerate(rec.seats)
        if entrant == 0
    ]
    return float(np.mean(rewards))


class ProgressCallback(BaseCallback):
    """The PPO bar (``show``: drawn): minutes of the ``budget`` (or ``total`` steps), steps/s
    without the evaluations' time, the last periodic evaluation, the league pool, and what the
    other callbacks are doing."""

    def __init__(self, run: Run, total: int | None, budget: float | None, show: bool):
        super().__init__()
        self.run, self.total, self.budget, self.show = run, total, budget, show
        self.bar = None
        self.paused_seconds = 0.0  # spent evaluating: not counted in the steps/s

    def _on_training_start(self) -> None:
        self.start_steps = self.model.num_timesteps
        self.start_time = time.time()
        if self.budget is not None:
            self.bar = progress_bar(self.budget / 60, self.show, "PPO", minutes=True)
        else:
            self.bar = progress_bar(self.total, self.show, "PPO", "steps")
        self.note()

    def _on_step(self) -> bool:
        self.note()
        return True

    def note(self, doing: str | None = None) -> None:
        """Advance the bar; ``doing`` (``""`` to clear it) redraws it with that note."""
        if self.bar is None:
            return
        n, budget = self.model.num_timesteps, self.budget
        target = min(self.run.elapsed, budget) / 60 if budget is not None else min(n, self.total)
        if target <= self.bar.n and doing is None:
            return
        self.bar.update(max(0, target - self.bar.n))
        sps = (n - self.start_steps) / max(time.time() - self.start_time - self.paused_seconds, 1e-9)
        text = f"{n:,} steps, {sps:,.0f} steps/s" if budget is not None else f"{sps:,.0f} steps/s"
        if self.run.last_eval:
            rates = ", ".join(f"{name} {res['game_win_rate']:.2f}" for name, res in self.run.last_eval.items())
            text += f" | last evaluation, game win rate vs {rates}"
        if self.run.env.league:
            text += f" | league pool {len(self.run.league.pool)}"
        if doing:
            text += f" | {doing}"
        self.bar.set_postfix_str(text, refresh=True)

    def write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.note()
            self.bar.close()


class EvaluationCallback(BaseCallback):
    """Every ``--eval-every`` steps (and at step 0): the periodic evaluation
    (:func:`training.periodic_eval.periodic_evaluation`) of the current policy with
    MaskablePPO's seating, deals and interval: whole games in the duplicate format against
    each evaluation opponent, the two seated cyclically, every opponent on the same deals at
    every evaluation; a row per opponent in ``eval.csv`` and a line per opponent on the
    progress bar, and the game win rate with its 95% interval over the deals on the bar and in
    TensorBoard."""

    def __init__(self, run: Run, settings: EvalSettings, progress: ProgressCallback):
        super().__init__()
        self.run, self.settings, self.progress = run, settings, progress

    def _on_training_start(self) -> None:
        n = self.model.num_timesteps
        self.next = next_multiple(n, self.settings.every)
        if n == 0:
            self.evaluate()  # the starting point of the learning curve

    def _on_step(self) -> bool:
        if self.model.num_timesteps >= self.next:
            self.next += self.settings.every
            self.evaluate()
        return True

    def evaluate(self) -> None:
        run, n = self.run, self.model.num_timesteps
        started = time.time()
        meta = run.metadata(self.model)

        def current_policy(seed, rules):
            return TrainedAgent(self.model.policy, meta, rules, seed=seed)

        rates = periodic_evaluation(
            current_policy, self.settings, n, run.elapsed, one_seat=False, own_deals=False, paired=True,
            announce=self.progress.note, write=self.progress.write,
        )  # fmt: skip
        for name, est in rates.items():
            run.last_eval[name] = {"game_win_rate": est.value, "low": est.low, "high": est.high}
            self.logger.record(f"eval/{name}_game_win_rate", est.value)
        self.logger.dump(n)
        self.progress.paused_seconds += time.time() - started
        self.progress.note("")  # redraw without the "evaluating" note


class LeagueCallback(BaseCallback):
    """Every ``--snapshot-every`` steps: the current policy plays each pool member (the
    gate); it joins the pool when its mean placement reward reaches ``--gate-margin`` (the
    first always joins), and the training environments get the new pool; the gate's games are
    those of the run's environments (``run.env``)."""

    def __init__(self, run: Run, settings: LeagueSettings, venv, progress: ProgressCallback):
        super().__init__()
        self.run, self.settings, self.venv, self.progress = run, settings, venv, progress

    def _on_training_start(self) -> None:
        self.next = next_multiple(self.model.num_timesteps, self.settings.snapshot_every)

    def _on_step(self) -> bool:
        if self.model.num_timesteps >= self.next:
            self.next += self.settings.snapshot_every
            self.snapshot()
        return True

    def gate(self) -> dict[str, float]:
        """The current policy's mean placement reward against each pool member (:func:`gate_score`)."""
        run, settings, games = self.run, self.settings, self.settings.gate_games
        meta = run.metadata(self.model)

        def current_policy(seed, rules):
            return TrainedAgent(self.model.policy, meta, run.rules, seed=seed)

        scores = {}
        for rel, path in zip(run.league.pool, run.league.paths(run.dir), strict=True):

            def member(seed, rules, path=path):  # a snapshot this run wrote
                return load(path, rules=run.rules, deterministic=run.env.league_deterministic, seed=seed, trusted=True)

            self.progress.note(f"gate: {games} games vs {rel}")
            scores[rel] = gate_score(current_policy, member, run.env, games, settings.gate_seed)
        self.progress.note("")
        return scores

    def snapshot(self) -> None:
        run, n = self.run, self.model.num_timesteps
        scores = self.gate()
        mean = float(np.mean(list(scores.values()))) if scores else None
        joined = mean is None or mean >= self.settings.gate_margin
        entry = {"timesteps": n, "vs_pool": scores, "mean": mean, "joined": joined}
        if joined:
            rel = f"league/snapshot_{n:010d}.zip"
            run.save(self.model, run.dir / rel)
            entry["snapshot"] = rel
            for gone in run.league.admit(rel):
                entry.setdefault("left", []).append(gone)
            self.venv.env_method("set_pool", run.league.paths(run.dir))
        run.league.history.append(entry)
        self.logger.record("league/pool_size", len(run.league.pool))
        if mean is not None:
            self.logger.record("league/gate_mean_outcome", mean)
        verdict = "joins" if joined else "stays out"
        self.progress.write(f"[{n} steps] snapshot {verdict} (mean placement vs pool: {mean})")


class CheckpointCallback(BaseCallback):
    """``checkpoints/latest.zip`` every ``every`` steps (the run saves it at the end too)."""

    def __init__(self, run: Run, every: int):
        super().__init__()
        self.run, self.every = run, every

    def _on_training_start(self) -> None:
        self.next = next_multiple(self.model.num_timesteps, self.every)

    def _on_step(self) -> bool:
        if self.model.num_timesteps >= self.next:
            self.next += self.every
            self.run.save(self.model)
        return True


class BudgetCallback(BaseCallback):
    """Stops PPO at ``total`` timesteps or when the run's time reaches ``budget`` seconds."""

    def __init__(self, run: Run, total: int | None, budget: float | None):
        super().__init__()
        self.run, self.total, self.budget = run, total, budget

    def _on_step(self) -> bool:
        if self.total is not None and self.model.num_timesteps >= self.total:
            return False
        return not (self.budget is not None and self.run.elapsed >= self.budget)
