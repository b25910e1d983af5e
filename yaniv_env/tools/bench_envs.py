"""Speed of the vector environments and the batched agents, next to today's paths (same run).

* ``vector_env``: learner steps per second of :class:`~yaniv_env.yaniv.batched.sb3.YanivVecEnv`
  (``num_envs`` games, a uniform random learner picking among each game's legal actions)
  and of the single-env Gymnasium wrapper (:class:`yaniv_env.yaniv.gym_env.YanivGymEnv`, the same
  learner), for each opponent (``random``, ``heuristic``, the shipped trained model ``ppo``).
* ``tournament``: ``games`` ``heuristic`` vs ``greedy`` games on the batched engine (seats
  alternate), each agent acting on its whole batch at once.

Every row records wall-clock and CPU seconds. ``run_vector`` returns the dict that ``yaniv
bench --vector`` prints.
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["bench_vector_env", "bench_gym_learner", "bench_tournament", "run_vector"]


def _learner(seed: int):
    from ..core.policies import batched_policy

    return batched_policy("random", seed=seed)


def _rates(steps: int, elapsed: float, cpu: float, **extra) -> dict:
    return {"steps_per_s": steps / elapsed, "steps": steps, "seconds": elapsed, "cpu_seconds": cpu, **extra}


def bench_vector_env(preset: str, players: int, opponent: str, num_envs: int, seconds: float, seed: int = 0) -> dict:
    """Learner steps per second of the SB3 vector env against ``opponent``."""
    from ..yaniv.batched.sb3 import YanivVecEnv

    venv = YanivVecEnv(preset, num_envs=num_envs, num_players=players, opponents=opponent)
    venv.seed(seed)
    obs = venv.reset()
    learner = _learner(seed)
    learner.act_batch(obs, venv.action_masks())
    steps = episodes = 0
    cpu0, t0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, _, dones, _ = venv.step(learner.act_batch(obs, venv.action_masks()))
        steps += num_envs
        episodes += int(dones.sum())
    return _rates(steps, time.perf_counter() - t0, time.process_time() - cpu0, episodes=episodes)


def bench_gym_learner(preset: str, players: int, opponent: str, seconds: float, seed: int = 0) -> dict:
    """Learner steps per second of the single-env Gymnasium wrapper against ``opponent``."""
    from ..yaniv.gym_env import YanivGymEnv

    env = YanivGymEnv(preset, num_players=players, opponents=opponent)
    learner = _learner(seed)
    obs, _ = env.reset(seed=seed)
    steps = episodes = 0
    cpu0, t0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        a = learner.act_batch(obs[None], env.action_masks()[None])[0]
        obs, _, terminated, truncated, _ = env.step(int(a))
        steps += 1
        if terminated or truncated:
            episodes += 1
            obs, _ = env.reset()
    return _rates(steps, time.perf_counter() - t0, time.process_time() - cpu0, episodes=episodes)


def bench_tournament(preset: str, games: int, num_envs: int, seed: int = 0) -> dict:
    """``games`` heuristic-vs-greedy 2-player games on the batched engine (heuristic in seat
    ``slot % 2``); returns the time and the heuristic's share of wins."""
    from ..core.policies import batched_policy as batched
    from ..yaniv.batched import BatchedYaniv

    num_envs = min(num_envs, games)
    eng = BatchedYaniv(preset, num_envs=num_envs, seed=seed, num_players=2)
    heuristic = batched("heuristic", seed=seed, rules=preset)
    greedy = batched("greedy", seed=seed + 1, rules=preset)
    heuristic_seat = np.arange(num_envs) % 2
    started = num_envs
    finished = wins = decisions = 0
    cpu0, t0 = time.process_time(), time.perf_counter()
    live = np.ones(num_envs, bool)
    while live.any():
        actions = np.full(num_envs, -1, np.int64)
        heuristic_to_act = eng.current == heuristic_seat
        for policy, rows in ((heuristic, live & heuristic_to_act), (greedy, live & ~heuristic_to_act)):
            sel = np.flatnonzero(rows)
            if sel.size:
                actions[sel] = policy.act_batch(eng.observations(rows=sel), eng.legal_masks(rows=sel))
        decisions += int(live.sum())
        res = eng.step(actions)
        over = np.flatnonzero(res.game_over)
        for b in over:
            finished += 1
            wins += int(res.places[b, heuristic_seat[b]] == 0)
        if over.size:
            restart = over[: max(0, games - started)]
            if restart.size:
                eng.reset_games(restart)
                started += restart.size
            live[np.setdiff1d(over, restart)] = False
    elapsed = time.perf_counter() - t0
    return {
        "games": finished,
        "seconds": elapsed,
        "cpu_seconds": time.process_time() - cpu0,
        "decisions_per_s": decisions / elapsed,
        "heuristic_win_share": wins / max(1, finished),
    }


def run_vector(
    preset: str = "standard",
    players: int = 2,
    seconds: float = 3.0,
    num_envs: int = 256,
    opponents: tuple[str, ...] = ("random", "heuristic", "ppo"),
    tournament_games: int = 1000,
    seed: int = 0,
) -> dict:
    """Every vector measurement (see the module docstring); ``tournament_games=0`` leaves
    the tournament out. MaskablePPO's rows are the learners' (``training.bench``)."""
    import os

    out: dict = {"preset": preset, "players": players, "num_envs": num_envs, "load": os.getloadavg()[0]}
    out["vector_env"] = {}
    for opp in opponents:
        out["vector_env"][opp] = {
            "vector": bench_vector_env(preset, players, opp, num_envs, seconds, seed),
            "gym": bench_gym_learner(preset, players, opp, seconds, seed),
        }
    if tournament_games:
        out["tournament"] = bench_tournament(preset, tournament_games, min(num_envs * 4, 1024), seed)
    return out


def format_vector(result: dict) -> str:
    """The rows of :func:`run_vector` as a table."""
    lines = [
        f"vector environments ({result['preset']}, {result['players']} players, B = {result['num_envs']}, "
        f"load {result['load']:.1f})",
        f"{'learner steps/s vs':<28}{'vector env':>12}{'Gymnasium':>12}{'ratio':>8}"
        f"{'vector/CPU s':>14}{'Gym/CPU s':>12}",
    ]
    for opp, r in result["vector_env"].items():
        v, g = r["vector"]["steps_per_s"], r["gym"]["steps_per_s"]
        vc, gc = (r[k]["steps"] / r[k]["cpu_seconds"] for k in ("vector", "gym"))
        lines.append(f"{opp:<28}{v:>12,.0f}{g:>12,.0f}{v / g:>8.1f}{vc:>14,.0f}{gc:>12,.0f}")
    if "tournament" in result:
        t = result["tournament"]
        lines.append(
            f"heuristic vs greedy: {t['games']:,} games in {t['seconds']:.1f} s "
            f"({t['decisions_per_s']:,.0f} decisions/s; heuristic wins {t['heuristic_win_share']:.3f})"
        )
    return "\n".join(lines)
