"""``yaniv bench`` / ``python -m yaniv_env.bench``: engine and environment speed.

Every measurement plays random legal moves in this one process (one core): a uniform pick
among the legal actions from one seeded ``np.random.Generator`` (uniforms drawn in blocks
of 4096, ``legal[int(u * len(legal))]``), so the policy costs next to nothing and the
figures are the engine's and the environments'.

* engine, per preset: ``engine.new_game`` / ``legal_actions`` / ``apply`` /
  ``start_next_round`` over whole games. A *turn* is one player's whole turn (discard or
  call, draw, optional slam), as counted by ``state.turns``; rounds and games are
  finished ones.
* environments, for one preset (``--env-preset``, default ``standard``): the loop a user
  writes (``agent_iter`` + ``last`` + ``step``, the move picked from
  ``obs["action_mask"].nonzero()[0]``) on ``raw_env`` and on ``env()`` (PettingZoo's
  wrappers); every ``step`` call counts, the ``None`` steps of finished agents included.
  The Gymnasium wrapper counts the learner's ``step`` calls (the random opponents play
  inside them).

Each measurement plays whole games until ``--seconds`` have passed, so it can run over by
one game. ``--json`` prints the same figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np

from . import engine
from .rules import PRESETS, get_rules

BLOCK = 4096


def bench_engine(rules, seconds: float, seed: int = 0) -> dict[str, float]:
    """Random play with the engine alone: turns, rounds and games per second."""
    rng = np.random.default_rng(seed)
    u = rng.random(BLOCK).tolist()
    i = 0
    legal_actions, apply, start_next_round = engine.legal_actions, engine.apply, engine.start_next_round
    ROUND_OVER, GAME_OVER = engine.ROUND_OVER, engine.GAME_OVER
    turns = rounds = games = decisions = 0
    start = time.perf_counter()
    while True:
        s = engine.new_game(rules, rng=rng)
        while True:
            phase = s.phase
            if phase >= ROUND_OVER:
                rounds += 1
                if phase == GAME_OVER:
                    break
                start_next_round(s)
                continue
            legal = legal_actions(s)
            if i == BLOCK:
                u = rng.random(BLOCK).tolist()
                i = 0
            apply(s, legal[int(u[i] * len(legal))])
            i += 1
            decisions += 1
        turns += s.turns
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {
        "turns_per_s": turns / elapsed,
        "rounds_per_s": rounds / elapsed,
        "games_per_s": games / elapsed,
        "decisions_per_s": decisions / elapsed,
        "turns": turns,
        "games": games,
        "seconds": elapsed,
    }


def bench_aec(make_env, seconds: float, seed: int = 0) -> dict[str, float]:
    """The user's AEC loop (``agent_iter`` + ``last`` + ``step``) with random legal moves."""
    env = make_env()
    rng = np.random.default_rng(seed)
    u = rng.random(BLOCK).tolist()
    i = 0
    steps = games = 0
    start = time.perf_counter()
    while True:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                if i == BLOCK:
                    u = rng.random(BLOCK).tolist()
                    i = 0
                action = int(legal[int(u[i] * len(legal))])
                i += 1
            env.step(action)
            steps += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    env.close()
    return {"steps_per_s": steps / elapsed, "games_per_s": games / elapsed, "steps": steps, "seconds": elapsed}


def bench_gym(rules, num_players: int, seconds: float, seed: int = 0) -> dict[str, float]:
    """The Gymnasium wrapper: learner steps per second, random learner and opponents."""
    from .gym_env import YanivGymEnv

    env = YanivGymEnv(rules=rules, num_players=num_players, opponents=["random"])
    rng = np.random.default_rng(seed)
    u = rng.random(BLOCK).tolist()
    i = 0
    steps = episodes = 0
    start = time.perf_counter()
    while True:
        obs, info = env.reset(seed=seed + episodes)
        done = not info["action_mask"].any()
        while not done:
            legal = info["action_mask"].nonzero()[0]
            if i == BLOCK:
                u = rng.random(BLOCK).tolist()
                i = 0
            obs, reward, terminated, truncated, info = env.step(int(legal[int(u[i] * len(legal))]))
            i += 1
            steps += 1
            done = terminated or truncated
        episodes += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    env.close()
    return {"steps_per_s": steps / elapsed, "episodes_per_s": episodes / elapsed, "steps": steps, "seconds": elapsed}


def run(presets: list[str], players: int, seconds: float, env_preset: str | None = "standard", seed: int = 0) -> dict:
    """Every measurement, as a dict (what ``--json`` prints)."""
    result: dict = {
        "players": players,
        "seconds": seconds,
        "seed": seed,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "engine": {},
        "skipped": {},
    }
    if env_preset is not None:
        get_rules(env_preset, players)  # a count the rules do not allow raises before anything runs
    for name in presets:
        try:
            rules = get_rules(name, players)
        except ValueError as e:
            result["skipped"][name] = str(e)
            continue
        result["engine"][name] = bench_engine(rules, seconds, seed)
    if env_preset is not None:
        from .yaniv_aec import env as wrapped_env
        from .yaniv_aec import raw_env

        kwargs = {"rules": env_preset, "num_players": players}
        result["env"] = {
            "preset": env_preset,
            "aec_raw": bench_aec(lambda: raw_env(**kwargs), seconds, seed),
            "aec_wrapped": bench_aec(lambda: wrapped_env(**kwargs), seconds, seed),
            "gym": bench_gym(env_preset, players, seconds, seed),
        }
    return result


def format_table(result: dict) -> str:
    lines = [
        f"yaniv bench: {result['players']} players, ~{result['seconds']:g} s per measurement, one process "
        f"(Python {result['python']}, NumPy {result['numpy']})",
        "",
        f"{'engine (random play)':<24}{'turns/s':>12}{'rounds/s':>12}{'games/s':>12}{'decisions/s':>14}",
    ]
    for name, r in result["engine"].items():
        lines.append(
            f"{name:<24}{r['turns_per_s']:>12,.0f}{r['rounds_per_s']:>12,.1f}{r['games_per_s']:>12,.2f}"
            f"{r['decisions_per_s']:>14,.0f}"
        )
    for name, why in result["skipped"].items():
        lines.append(f"{name:<24}skipped: {why}")
    if "env" in result:
        env = result["env"]
        lines += [
            "",
            f"environments ({env['preset']}){'':<4}{'steps/s':>12}{'games/s':>12}",
            f"{'AEC raw_env':<24}{env['aec_raw']['steps_per_s']:>12,.0f}{env['aec_raw']['games_per_s']:>12,.2f}",
            f"{'AEC env() (wrapped)':<24}{env['aec_wrapped']['steps_per_s']:>12,.0f}"
            f"{env['aec_wrapped']['games_per_s']:>12,.2f}",
            f"{'Gymnasium (learner)':<24}{env['gym']['steps_per_s']:>12,.0f}{env['gym']['episodes_per_s']:>12,.2f}",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="yaniv bench", description="Measure engine and environment speed with random legal play (one core)."
    )
    parser.add_argument("--players", type=int, default=2, help="players at the table (default 2)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument(
        "--presets", nargs="+", default=list(PRESETS), choices=list(PRESETS), help="presets for the engine runs"
    )
    parser.add_argument(
        "--env-preset", default="standard", choices=list(PRESETS), help="preset for the environment runs"
    )
    parser.add_argument("--no-env", action="store_true", help="measure the engine only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    try:
        result = run(args.presets, args.players, args.seconds, None if args.no_env else args.env_preset, args.seed)
    except ValueError as e:
        print(f"yaniv bench: {e}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
