"""``yaniv bench`` / ``python -m yaniv_env.tools.bench``: engine and environment speed.

Every measurement plays random legal moves in this one process (one core): a uniform pick
among the legal actions from one seeded ``np.random.Generator`` (uniforms drawn in blocks
of 4096, ``legal[int(u * len(legal))]``), so the policy costs next to nothing and the
figures are the engine's and the environments'.

* engine, per preset: ``engine.new_game`` / ``legal_actions`` / ``apply`` /
  ``start_next_round`` over whole games. A *turn* is one player's whole turn (discard or
  call, draw, optional slam), as counted by ``state.turns``; rounds and games are
  finished ones.
* environments, for one preset (``--env-preset``, default ``standard``): the loop a user
  writes (``agent_iter`` + ``last`` + ``step``, the move picked among
  ``obs["action_mask"].astype(bool).nonzero()[0]``: NumPy finds the nonzero entries of a
  boolean array faster than those of the ``int8`` mask itself) on
  ``raw_env`` and on ``env()`` (PettingZoo's wrappers); every ``step`` call counts, the
  ``None`` steps of finished agents included.
  The Gymnasium wrapper counts the learner's ``step`` calls (the random opponents play
  inside them).
* batched engine (``--batched-preset``, default ``standard``; ``--no-batched`` leaves it
  out): :mod:`yaniv_env.yaniv.batched` random play inside the compiled kernels at B = 1, 64 and
  1,024 games, on one core and, when the process may use two CPUs, on two (two threads,
  each playing half of the games), next to the scalar engine's turns/s of the same preset
  measured in the same run (the ``engine`` rows; the ratio is printed); compile (or cache
  load) time apart, and the memory of a 1,024-game batch. Turns as above; decisions too
  (see :mod:`yaniv_env.tools.bench_engine`).
* Pis Yedili (``--pis-preset``, default ``standard``; ``--no-pis`` leaves it out), at the
  same player count: the engine (``new_game`` / ``legal_actions`` / ``apply`` /
  ``start_next_deal``; a *decision* is one ``apply``: a draw, a pass, a play; deals and
  games are finished ones) and, unless ``--no-env``, the same three environment loops. A
  player count the Pis Yedili rules cannot seat is reported as skipped.

Each measurement plays whole games until ``--seconds`` have passed, so it can run over by
one game. ``--no-engine`` leaves the engine measurements out, the batched engine's too (``--no-env``,
``--no-pis``, ``--no-batched`` the others). Rates are per second of wall-clock time; every measurement also records the
CPU time the process used (``cpu_seconds``), and the environment rows add steps per CPU
second, which stays close to the rate on an idle core when other processes share it.
``--json`` prints the same figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np

from ..yaniv import engine
from ..yaniv.rules import PRESETS, get_rules

BLOCK = 4096


class _RandomIndex:
    """Uniform indices for random play, from uniforms ``rng`` draws ``BLOCK`` at a time (one
    NumPy call per block, not per move: the loops measure the environment, not the draws)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.uniforms = rng.random(BLOCK).tolist()
        self.at = 0

    def __call__(self, n: int) -> int:
        """An index below ``n``."""
        if self.at == BLOCK:
            self.uniforms = self.rng.random(BLOCK).tolist()
            self.at = 0
        index = int(self.uniforms[self.at] * n)
        self.at += 1
        return index


def _random_games(eng, new_part, part_over: int, rules, seconds: float, seed: int, per_game=None):
    """Whole games of random legal moves with the engine module ``eng`` (``new_game``,
    ``legal_actions``, ``apply``, ``GAME_OVER``) until ``seconds`` have passed; from phase
    ``part_over`` on the round (deal) is over and ``new_part(state)`` deals the next one.
    Returns (decisions, finished rounds or deals, games, the sum of ``per_game(state)`` over
    the finished games, elapsed seconds, CPU seconds)."""
    rng = np.random.default_rng(seed)
    pick = _RandomIndex(rng)
    legal_actions, apply, GAME_OVER = eng.legal_actions, eng.apply, eng.GAME_OVER
    decisions = parts = games = counted = 0
    cpu_start = time.process_time()
    start = time.perf_counter()
    while True:
        s = eng.new_game(rules, rng=rng)
        while True:
            phase = s.phase
            if phase >= part_over:
                parts += 1
                if phase == GAME_OVER:
                    break
                new_part(s)
                continue
            legal = legal_actions(s)
            apply(s, legal[pick(len(legal))])
            decisions += 1
        if per_game is not None:
            counted += per_game(s)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return decisions, parts, games, counted, elapsed, time.process_time() - cpu_start


def bench_engine(rules, seconds: float, seed: int = 0) -> dict[str, float]:
    """Random play with the Yaniv engine alone: turns, rounds and games per second."""
    decisions, rounds, games, turns, elapsed, cpu = _random_games(
        engine, engine.start_next_round, engine.ROUND_OVER, rules, seconds, seed, per_game=lambda s: s.turns
    )
    return {
        "turns_per_s": turns / elapsed,
        "rounds_per_s": rounds / elapsed,
        "games_per_s": games / elapsed,
        "decisions_per_s": decisions / elapsed,
        "turns": turns,
        "games": games,
        "seconds": elapsed,
        "cpu_seconds": cpu,
    }


def bench_pis_engine(rules, seconds: float, seed: int = 0) -> dict[str, float]:
    """Random play with the Pis Yedili engine alone: decisions, deals and games per second."""
    from ..pis_yedili import engine as pis_engine

    decisions, deals, games, _, elapsed, cpu = _random_games(
        pis_engine, pis_engine.start_next_deal, pis_engine.DEAL_OVER, rules, seconds, seed
    )
    return {
        "decisions_per_s": decisions / elapsed,
        "deals_per_s": deals / elapsed,
        "games_per_s": games / elapsed,
        "decisions": decisions,
        "games": games,
        "seconds": elapsed,
        "cpu_seconds": cpu,
    }


def bench_aec(make_env, seconds: float, seed: int = 0) -> dict[str, float]:
    """The user's AEC loop (``agent_iter`` + ``last`` + ``step``) with random legal moves."""
    env = make_env()
    pick = _RandomIndex(np.random.default_rng(seed))
    steps = games = 0
    cpu_start = time.process_time()
    start = time.perf_counter()
    while True:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = obs["action_mask"].astype(bool).nonzero()[0]
                action = int(legal[pick(len(legal))])
            env.step(action)
            steps += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    cpu = time.process_time() - cpu_start
    env.close()
    return _steps_result(steps, games, "games", elapsed, cpu)


def _steps_result(steps: int, episodes: int, what: str, elapsed: float, cpu: float) -> dict[str, float]:
    return {
        "steps_per_s": steps / elapsed,
        f"{what}_per_s": episodes / elapsed,
        "steps_per_cpu_s": steps / cpu,
        "steps": steps,
        "seconds": elapsed,
        "cpu_seconds": cpu,
    }


def bench_gym(make_env, seconds: float, seed: int = 0) -> dict[str, float]:
    """A Gymnasium wrapper with action masks (``info["action_mask"]``): learner steps per
    second, random learner (the wrapper's random opponents play inside its steps)."""
    env = make_env()
    pick = _RandomIndex(np.random.default_rng(seed))
    steps = episodes = 0
    cpu_start = time.process_time()
    start = time.perf_counter()
    while True:
        obs, info = env.reset(seed=seed + episodes)
        done = not info["action_mask"].any()
        while not done:
            legal = info["action_mask"].astype(bool).nonzero()[0]
            obs, reward, terminated, truncated, info = env.step(int(legal[pick(len(legal))]))
            steps += 1
            done = terminated or truncated
        episodes += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    cpu = time.process_time() - cpu_start
    env.close()
    return _steps_result(steps, episodes, "episodes", elapsed, cpu)


class IdleAEC:
    """A two-player AEC environment that does nothing (every move legal, a game lasts
    ``game_steps`` steps), with the observation and mask sizes of the environment it stands
    for: the Python floor of the AEC loop, measured in the same wrappers and the same run so
    that the environment rows can be read as ratios that travel between machines."""

    metadata = {"name": "idle_v0", "is_parallelizable": False, "render_modes": []}

    def __new__(cls, *args, **kwargs):  # subclass AECEnv lazily: pettingzoo is imported only here
        from pettingzoo import AECEnv

        if not issubclass(cls, AECEnv):
            cls = type(cls.__name__, (cls, AECEnv), {})
        return object.__new__(cls)

    def __init__(self, obs_size: int, num_actions: int, game_steps: int = 120):
        from gymnasium import spaces

        self.possible_agents = ["player_0", "player_1"]
        self._obs = {"observation": np.zeros(obs_size, np.float32), "action_mask": np.ones(num_actions, np.int8)}
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(num_actions)
        self.game_steps = game_steps

    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    def reset(self, seed=None, options=None):
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._t = 0

    def observe(self, agent):
        return self._obs

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._t += 1
        if self._t >= self.game_steps:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.agents[self._t % 2]

    def no_game_error(self):  # the messages CheckedOrderEnforcingWrapper asks for
        return RuntimeError("the idle game is over")

    def action_error(self, agent, action):
        return ValueError(f"{agent}: action {action!r} is out of the action space")


class IdleGym:
    """The Gymnasium counterpart of :class:`IdleAEC`: constant observation and mask, an
    episode of ``game_steps`` learner steps."""

    def __new__(cls, *args, **kwargs):
        import gymnasium

        if not issubclass(cls, gymnasium.Env):
            cls = type(cls.__name__, (cls, gymnasium.Env), {})
        return object.__new__(cls)

    def __init__(self, obs_size: int, num_actions: int, game_steps: int = 60):
        from gymnasium import spaces

        self.observation_space = spaces.Box(0.0, 1.0, (obs_size,), np.float32)
        self.action_space = spaces.Discrete(num_actions)
        self._obs = np.zeros(obs_size, np.float32)
        self._info = {"action_mask": np.ones(num_actions, np.int8)}
        self.game_steps = game_steps

    def reset(self, *, seed=None, options=None):
        self._t = 0
        return self._obs, self._info

    def step(self, action):
        self._t += 1
        return self._obs, 0.0, self._t >= self.game_steps, False, self._info


def bench_idle(raw, seconds: float, seed: int = 0) -> dict:
    """The three environment loops on the idle environments sized like ``raw`` (an AEC
    environment), the AEC one also in :func:`yaniv_env.core.aec.wrap`'s wrappers."""
    from ..core.aec import wrap

    agent = raw.possible_agents[0]
    sizes = (raw.observation_space(agent)["observation"].shape[0], raw.action_space(agent).n)
    return {
        "aec_raw": bench_aec(lambda: IdleAEC(*sizes), seconds, seed),
        "aec_wrapped": bench_aec(lambda: wrap(IdleAEC(*sizes)), seconds, seed),
        "gym": bench_gym(lambda: IdleGym(*sizes), seconds, seed),
    }


def run(
    presets: list[str],
    players: int,
    seconds: float,
    env_preset: str | None = "standard",
    seed: int = 0,
    pis_preset: str | None = "standard",
    engines: bool = True,
    batched_preset: str | None = None,
) -> dict:
    """Every measurement, as a dict (what ``--json`` prints). ``env_preset=None`` measures
    the engines only; ``pis_preset=None`` leaves Pis Yedili out; ``engines=False`` leaves
    the engine measurements out (``presets`` then go unused); ``batched_preset`` adds the
    batched engine (and the scalar engine of that preset if ``presets`` leaves it out)."""
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
    for name in presets if engines else ():
        try:
            rules = get_rules(name, players)
        except ValueError as e:
            result["skipped"][name] = str(e)
            continue
        result["engine"][name] = bench_engine(rules, seconds, seed)
    if batched_preset is not None:
        from .bench_engine import bench_batched

        rules = get_rules(batched_preset, players)
        scalar = result["engine"].get(batched_preset) or bench_engine(rules, seconds, seed)
        result["batched"] = {
            "preset": batched_preset,
            "scalar_turns_per_s": scalar["turns_per_s"],
            "scalar_turns_per_cpu_s": scalar["turns"] / scalar["cpu_seconds"],
            **bench_batched(rules, seconds, seed),
        }
    if env_preset is not None:
        from ..yaniv.aec import env as wrapped_env
        from ..yaniv.aec import raw_env
        from ..yaniv.gym_env import YanivGymEnv

        kwargs = {"rules": env_preset, "num_players": players}
        result["env"] = {
            "preset": env_preset,
            **bench_envs(raw_env, wrapped_env, YanivGymEnv, kwargs, seconds, seed),
        }
    if pis_preset is not None:
        result["pis_yedili"] = run_pis(pis_preset, players, seconds, seed, envs=env_preset is not None, engine=engines)
    return result


def bench_envs(raw_env, wrapped_env, gym_env, kwargs: dict, seconds: float, seed: int) -> dict:
    """The AEC loop on ``raw_env(**kwargs)`` and ``wrapped_env(**kwargs)`` and the Gymnasium
    wrapper ``gym_env(**kwargs)`` (its default random opponents), and the same loops on the
    idle environments (``idle``, :func:`bench_idle`) for the ratios."""
    return {
        "aec_raw": bench_aec(lambda: raw_env(**kwargs), seconds, seed),
        "aec_wrapped": bench_aec(lambda: wrapped_env(**kwargs), seconds, seed),
        "gym": bench_gym(lambda: gym_env(**kwargs), seconds, seed),
        "idle": bench_idle(raw_env(**kwargs), seconds, seed),
    }


def run_pis(preset: str, players: int, seconds: float, seed: int = 0, envs: bool = True, engine: bool = True) -> dict:
    """The Pis Yedili measurements (``result["pis_yedili"]``: the engine unless ``engine`` is
    false, the environments if ``envs``); a player count the rules cannot seat gives
    ``{"preset": ..., "skipped": why}``."""
    from ..pis_yedili.rules import get_rules as get_pis_rules

    try:
        rules = get_pis_rules(preset, players)
    except ValueError as e:
        return {"preset": preset, "skipped": str(e)}
    result: dict = {"preset": preset}
    if engine:
        result["engine"] = bench_pis_engine(rules, seconds, seed)
    if envs:
        from ..pis_yedili.aec import env as wrapped_env
        from ..pis_yedili.aec import raw_env
        from ..pis_yedili.gym_env import PisYediliGymEnv

        kwargs = {"rules": preset, "num_players": players}
        result["env"] = bench_envs(raw_env, wrapped_env, PisYediliGymEnv, kwargs, seconds, seed)
    return result


def _env_rows(env: dict, what: str = "") -> list[str]:
    rows = []
    for label, key, per_game in (
        ("AEC raw_env", "aec_raw", "games_per_s"),
        ("AEC env() (wrapped)", "aec_wrapped", "games_per_s"),
        ("Gymnasium (learner)", "gym", "episodes_per_s"),
    ):
        r, idle = env[key], env["idle"][key]
        rows.append(
            f"{label + what:<28}{r['steps_per_s']:>12,.0f}{r[per_game]:>12,.2f}{r['steps_per_cpu_s']:>16,.0f}"
            f"{idle['steps_per_cpu_s']:>14,.0f}{r['steps_per_cpu_s'] / idle['steps_per_cpu_s']:>9.2f}"
        )
    return rows


IDLE_NOTE = (
    "idle: the same loop on an environment that does nothing, in the same wrappers, in this run;\n"
    "× idle: steps per CPU second over the idle ones, the figure to compare between machines"
)
ENV_HEADER = f"{'steps/s':>12}{'games/s':>12}{'steps/CPU s':>16}{'idle/CPU s':>14}{'× idle':>9}"


def format_table(result: dict) -> str:
    lines = [
        f"yaniv bench: {result['players']} players, ~{result['seconds']:g} s per measurement, one process "
        f"(Python {result['python']}, NumPy {result['numpy']})",
    ]
    if result["engine"] or result["skipped"]:
        lines += ["", f"{'engine (random play)':<24}{'turns/s':>12}{'rounds/s':>12}{'games/s':>12}{'decisions/s':>14}"]
    for name, r in result["engine"].items():
        lines.append(
            f"{name:<24}{r['turns_per_s']:>12,.0f}{r['rounds_per_s']:>12,.1f}{r['games_per_s']:>12,.2f}"
            f"{r['decisions_per_s']:>14,.0f}"
        )
    for name, why in result["skipped"].items():
        lines.append(f"{name:<24}skipped: {why}")
    batched = result.get("batched")
    if batched is not None:
        scalar = batched["scalar_turns_per_s"]
        lines += [
            "",
            f"{'batched engine (' + batched['preset'] + ')':<28}{'turns/s':>12}{'× scalar':>10}{'decisions/s':>14}"
            f"{'turns/CPU s':>14}",
        ]
        for r in batched["runs"].values():
            label = f"B={r['batch']:,}, {r['threads']} thread{'s' if r['threads'] > 1 else ''}"
            lines.append(
                f"{label:<28}{r['turns_per_s']:>12,.0f}{r['turns_per_s'] / scalar:>10.1f}{r['decisions_per_s']:>14,.0f}"
                f"{r['turns'] / r['cpu_seconds']:>14,.0f}"
            )
        mem = batched["memory_B1024"]
        lines.append(
            f"scalar engine {scalar:,.0f} turns/s ({batched['scalar_turns_per_cpu_s']:,.0f}/CPU s); "
            f"first use of the kernels {batched['compile_seconds']:.1f} s "
            f"(compile, or load from Numba's cache); B=1,024: {mem['state_masks_observations_mb']:.1f} MB of "
            f"arrays, process peak {mem['process_peak_rss_mb']:.0f} MB"
        )
    if "env" in result:
        env = result["env"]
        lines += ["", f"{'environments (' + env['preset'] + ')':<28}{ENV_HEADER}"]
        lines += _env_rows(env)
    pis = result.get("pis_yedili")
    if pis is not None:
        title = f"Pis Yedili ({pis['preset']})"
        lines.append("")
        if "skipped" in pis:
            lines.append(f"{title}: skipped: {pis['skipped']}")
        else:
            e = pis.get("engine")
            if e:
                lines.append(f"{title:<28}{'decisions/s':>12}{'games/s':>12}{'deals/s':>16}")
                lines.append(
                    f"{'engine':<28}{e['decisions_per_s']:>12,.0f}{e['games_per_s']:>12,.2f}{e['deals_per_s']:>16,.1f}"
                )
            if "env" in pis:
                lines.append(f"{'Pis envs (' + pis['preset'] + ')':<28}{ENV_HEADER}")
                lines += _env_rows(pis["env"])
    if "env" in result or "env" in (pis or {}):
        lines += ["", IDLE_NOTE]
    return "\n".join(lines)


def build_parser(prog: str = "yaniv bench") -> argparse.ArgumentParser:
    """The options of the bench (``training.bench`` adds the learners' own)."""
    from ..pis_yedili.rules import PRESETS as PIS_PRESETS

    parser = argparse.ArgumentParser(
        prog=prog,
        description="Measure Yaniv and Pis Yedili engine and environment speed with random legal play (one core).",
    )
    parser.add_argument("--players", type=int, default=2, help="players at the table (default 2)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument(
        "--presets", nargs="+", default=list(PRESETS), choices=list(PRESETS), help="presets for the engine runs"
    )
    parser.add_argument(
        "--env-preset", default="standard", choices=list(PRESETS), help="preset for the environment runs"
    )
    parser.add_argument(
        "--pis-preset", default="standard", choices=list(PIS_PRESETS), help="Pis Yedili preset (default standard)"
    )
    parser.add_argument("--no-engine", action="store_true", help="leave the engine measurements out")
    parser.add_argument("--no-env", action="store_true", help="measure the engines only")
    parser.add_argument("--no-pis", action="store_true", help="leave Pis Yedili out")
    parser.add_argument(
        "--batched-preset", default="standard", choices=list(PRESETS), help="preset for the batched engine runs"
    )
    parser.add_argument("--no-batched", action="store_true", help="leave the batched engine out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--vector",
        action="store_true",
        help="also the vector environments and a batched heuristic-vs-greedy tournament "
        "(yaniv_env.tools.bench_envs), next to the single-env wrapper",
    )
    parser.add_argument("--vector-envs", type=int, default=256, help="games per vector env (default 256)")
    parser.add_argument("--tournament-games", type=int, default=1000, help="games of the tournament (default 1000)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser


def measure(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict:
    """Every measurement ``args`` (of :func:`build_parser`) asks for; contradictory options
    exit through ``parser.error``, a player count the rules cannot seat is a ``ValueError``."""
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    if args.no_engine and args.no_env:
        parser.error("--no-engine and --no-env leave nothing to measure")
    result = run(
        args.presets,
        args.players,
        args.seconds,
        None if args.no_env else args.env_preset,
        args.seed,
        None if args.no_pis else args.pis_preset,
        engines=not args.no_engine,
        batched_preset=None if args.no_batched or args.no_engine else args.batched_preset,
    )
    if args.vector:
        from .bench_envs import run_vector

        result["vector"] = run_vector(
            args.env_preset,
            args.players,
            args.seconds,
            args.vector_envs,
            tournament_games=args.tournament_games,
            seed=args.seed,
        )
    return result


def report(result: dict) -> str:
    """The tables of :func:`measure`'s result."""
    text = format_table(result)
    if "vector" in result:
        from .bench_envs import format_vector

        text += "\n\n" + format_vector(result["vector"])
    return text


def main(argv: list[str] | None = None) -> int:
    parser = build_parser("python -m yaniv_env.tools.bench")
    args = parser.parse_args(argv)
    try:
        result = measure(parser, args)
    except ValueError as e:
        print(f"yaniv bench: {e}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
