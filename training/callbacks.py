"""The callback of the PPO phase: progress bar, time budget, checkpoints, periodic
evaluation and league snapshots."""

from __future__ import annotations

import time

import numpy as np

from agents.evaluation import evaluate, whole_deals
from agents.evaluation.progress import progress_bar
from training.envs import evaluate_against, make_eval_env
from training.run_state import Run, append_csv


def make_callback(run: Run, venv, total: int | None, budget: float | None, eval_mix, baseline_mix):
    from stable_baselines3.common.callbacks import BaseCallback

    args = run.args

    class TrainingCallback(BaseCallback):
        """Progress bar, time budget, checkpoints, periodic evaluation and league snapshots."""

        def _on_training_start(self) -> None:
            n = self.model.num_timesteps
            self.next_ckpt = (n // args.checkpoint_every + 1) * args.checkpoint_every if args.checkpoint_every else None
            self.next_eval = (n // args.eval_every + 1) * args.eval_every if args.eval_every else None
            self.next_snap = (n // args.snapshot_every + 1) * args.snapshot_every if args.league else None
            self.start_steps = n
            self.start_time = time.time()
            self.eval_seconds = 0.0  # not counted in the steps/s
            if budget is not None:  # the bar counts minutes of the budget
                self.bar = progress_bar(budget / 60, args.progress, "PPO", minutes=True)
            else:
                self.bar = progress_bar(total, args.progress, "PPO", "steps")
            self.update_bar()
            if n == 0 and self.next_eval is not None:
                self.evaluate()  # the starting point of the learning curve

        def _on_step(self) -> bool:
            n = self.model.num_timesteps
            if self.next_eval is not None and n >= self.next_eval:
                self.next_eval += args.eval_every
                self.evaluate()
            if self.next_snap is not None and n >= self.next_snap:
                self.next_snap += args.snapshot_every
                self.snapshot()
            if self.next_ckpt is not None and n >= self.next_ckpt:
                self.next_ckpt += args.checkpoint_every
                run.save(self.model)
            self.update_bar()
            if total is not None and n >= total:
                return False
            return not (budget is not None and run.elapsed >= budget)

        def update_bar(self, doing: str | None = None) -> None:
            """Advance the bar; its label says what each number is."""
            if self.bar is None:
                return
            n = self.model.num_timesteps
            target = min(run.elapsed, budget) / 60 if budget is not None else min(n, total)
            if target <= self.bar.n and doing is None:
                return
            self.bar.update(max(0, target - self.bar.n))
            training_seconds = time.time() - self.start_time - self.eval_seconds
            sps = (n - self.start_steps) / max(training_seconds, 1e-9)
            text = f"{n:,} steps, {sps:,.0f} steps/s" if budget is not None else f"{sps:,.0f} steps/s"
            if run.last_eval:
                rates = ", ".join(f"{name} {res['game_win_rate']:.2f}" for name, res in run.last_eval.items())
                text += f" | last evaluation, game win rate vs {rates}"
            if args.league:
                text += f" | league pool {len(run.league.pool)}"
            if doing:
                text += f" | {doing}"
            self.bar.set_postfix_str(text, refresh=True)

        def evaluate(self) -> None:
            """Whole games in the duplicate format against each evaluation opponent: the game
            win rate with its 95% interval, in ``eval.csv`` and TensorBoard."""
            from agents.trained import TrainedAgent

            n = self.model.num_timesteps
            started = time.time()
            meta = run.metadata(self.model)

            def current_policy(seed, rules):
                return TrainedAgent(self.model.policy, meta, rules, seed=seed)

            games = whole_deals(args.eval_games, 2, args.num_players, duplicate=True)
            row = {"timesteps": n, "elapsed_s": round(run.elapsed, 1)}
            for name, _ in eval_mix:
                self.update_bar(doing=f"evaluating: {games} games vs {name}")
                res = evaluate(
                    [("model", current_policy), name],
                    rules=run.rules,
                    num_players=args.num_players,
                    games=games,
                    seed=args.seed + 10_000,
                    episode=args.eval_episode or "game",
                    game=args.game,
                )
                est = res["model"].metrics["game_win_rate"]
                run.last_eval[name] = {"game_win_rate": est.value, "low": est.low, "high": est.high}
                self.logger.record(f"eval/{name}_game_win_rate", est.value)
                row[f"{name}_game_win_rate"] = round(est.value, 4)
                row[f"{name}_low"] = round(est.low, 4)
                row[f"{name}_high"] = round(est.high, 4)
                row[f"{name}_games"] = res.games
            append_csv(run.dir / "eval.csv", row)
            self.logger.dump(n)
            self.eval_seconds += time.time() - started
            self.update_bar(doing="")  # redraw without the "evaluating" note

        def snapshot(self) -> None:
            """Gate the current policy against the pool; save it into the pool if it wins."""
            from agents.trained import load

            n = self.model.num_timesteps
            paths = run.league.paths(run.dir)
            scores = {}
            for rel, path in zip(run.league.pool, paths, strict=True):
                member = load(  # a snapshot this run wrote
                    path, rules=run.rules, deterministic=args.league_deterministic, seed=n, trusted=True
                )
                env = make_eval_env(args, member, min(4, args.gate_games), args.seed + 20_000)
                scores[rel] = evaluate_against(self.model, args, env, args.gate_games, args.seed + 20_000)["outcome"]
                env.close()
            mean = float(np.mean(list(scores.values()))) if scores else None
            joined = mean is None or mean >= args.gate_margin
            entry = {"timesteps": n, "vs_pool": scores, "mean": mean, "joined": joined}
            if joined:
                rel = f"league/snapshot_{n:010d}.zip"
                run.save(self.model, run.dir / rel)
                entry["snapshot"] = rel
                for gone in run.league.admit(rel):
                    entry.setdefault("left", []).append(gone)
                venv.env_method("set_pool", run.league.paths(run.dir))
            run.league.history.append(entry)
            self.logger.record("league/pool_size", len(run.league.pool))
            if mean is not None:
                self.logger.record("league/gate_mean_outcome", mean)
            if self.bar is not None:
                verdict = "joins" if joined else "stays out"
                self.bar.write(f"[{n} steps] snapshot {verdict} (mean placement vs pool: {mean})")

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.update_bar()
                self.bar.close()

    return TrainingCallback()
