"""``python -m yaniv_env.pis_yedili.bench``: Pis Yedili engine and environment speed.

The same measurements as :mod:`yaniv_env.bench` (whose AEC loop, :func:`yaniv_env.bench.bench_aec`,
is reused as is), for Pis Yedili: random legal moves in one process (one core), picked
uniformly among the legal actions from one seeded generator, so the figures are the
engine's and the environments'.

* engine: ``new_game`` / ``legal_actions`` / ``apply`` / ``start_next_deal`` over whole
  games; a *decision* is one ``apply`` (a draw, a pass, a play), deals and games are
  finished ones.
* environments: the user's AEC loop (``agent_iter`` + ``last`` + ``step``) on ``raw_env``
  and on ``env()`` (PettingZoo's wrappers), every ``step`` call counted; the Gymnasium
  wrapper counts the learner's ``step`` calls (the random opponents play inside them).

Each measurement plays whole games until ``--seconds`` have passed. ``--json`` prints the
figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np

from ..bench import BLOCK, bench_aec
from . import engine
from .rules import get_rules


def bench_engine(rules, seconds: float, seed: int = 0) -> dict[str, float]:
    """Random play with the engine alone: decisions, deals and games per second."""
    rng = np.random.default_rng(seed)
    u = rng.random(BLOCK).tolist()
    i = 0
    legal_actions, apply, start_next_deal = engine.legal_actions, engine.apply, engine.start_next_deal
    DEAL_OVER, GAME_OVER = engine.DEAL_OVER, engine.GAME_OVER
    decisions = deals = games = 0
    start = time.perf_counter()
    while True:
        s = engine.new_game(rules, rng=rng)
        while True:
            phase = s.phase
            if phase >= DEAL_OVER:
                deals += 1
                if phase == GAME_OVER:
                    break
                start_next_deal(s)
                continue
            legal = legal_actions(s)
            if i == BLOCK:
                u = rng.random(BLOCK).tolist()
                i = 0
            apply(s, legal[int(u[i] * len(legal))])
            i += 1
            decisions += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {
        "decisions_per_s": decisions / elapsed,
        "deals_per_s": deals / elapsed,
        "games_per_s": games / elapsed,
        "decisions": decisions,
        "games": games,
        "seconds": elapsed,
    }


def bench_gym(make_env, seconds: float, seed: int = 0) -> dict[str, float]:
    """A Gymnasium wrapper with action masks (``info["action_mask"]``): learner steps per
    second, random learner (random opponents inside the wrapper)."""
    env = make_env()
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


def run(preset: str, players: int, seconds: float, seed: int = 0, envs: bool = True) -> dict:
    """Every measurement, as a dict (what ``--json`` prints)."""
    rules = get_rules(preset, players)  # a count the rules do not allow raises here
    result: dict = {
        "game": "pis_yedili",
        "preset": preset,
        "players": players,
        "seconds": seconds,
        "seed": seed,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "engine": bench_engine(rules, seconds, seed),
    }
    if envs:
        from .gym_env import PisYediliGymEnv
        from .pis_aec import env as wrapped_env
        from .pis_aec import raw_env

        kwargs = {"rules": preset, "num_players": players}
        result["env"] = {
            "aec_raw": bench_aec(lambda: raw_env(**kwargs), seconds, seed),
            "aec_wrapped": bench_aec(lambda: wrapped_env(**kwargs), seconds, seed),
            "gym": bench_gym(lambda: PisYediliGymEnv(**kwargs), seconds, seed),
        }
    return result


def format_table(result: dict) -> str:
    e = result["engine"]
    lines = [
        f"Pis Yedili bench ({result['preset']}): {result['players']} players, ~{result['seconds']:g} s per "
        f"measurement, one process (Python {result['python']}, NumPy {result['numpy']})",
        "",
        f"{'engine (random play)':<24}{'decisions/s':>14}{'deals/s':>12}{'games/s':>12}",
        f"{'':<24}{e['decisions_per_s']:>14,.0f}{e['deals_per_s']:>12,.1f}{e['games_per_s']:>12,.2f}",
    ]
    if "env" in result:
        env = result["env"]
        lines += [
            "",
            f"{'environments':<24}{'steps/s':>14}{'games/s':>12}",
            f"{'AEC raw_env':<24}{env['aec_raw']['steps_per_s']:>14,.0f}{env['aec_raw']['games_per_s']:>12,.2f}",
            f"{'AEC env() (wrapped)':<24}{env['aec_wrapped']['steps_per_s']:>14,.0f}"
            f"{env['aec_wrapped']['games_per_s']:>12,.2f}",
            f"{'Gymnasium (learner)':<24}{env['gym']['steps_per_s']:>14,.0f}{env['gym']['episodes_per_s']:>12,.2f}",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from .rules import PRESETS

    parser = argparse.ArgumentParser(
        prog="python -m yaniv_env.pis_yedili.bench",
        description="Measure Pis Yedili engine and environment speed with random legal play (one core).",
    )
    parser.add_argument("--players", type=int, default=2, help="players at the table (default 2)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--preset", default="standard", choices=list(PRESETS))
    parser.add_argument("--no-env", action="store_true", help="measure the engine only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    try:
        result = run(args.preset, args.players, args.seconds, args.seed, envs=not args.no_env)
    except ValueError as e:
        print(f"pis yedili bench: {e}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
