"""``yaniv bench``: the measurements of :mod:`yaniv_env.tools.bench` (engines, environments and,
with ``--vector``, the vector environments and a batched tournament) plus, with
``--vector``, the learners: MaskablePPO end to end.

MaskablePPO rows (``--ppo-timesteps`` learner steps each, random opponents, standard
MaskablePPO settings but ``n_steps * n_envs = 2048``, ``batch_size=256``, one epoch,
``torch.set_num_threads(1)``):

==========================  ================================================================
row                         what runs
==========================  ================================================================
``vector``                  ``MaskablePPO("MlpPolicy", YanivVecEnv(..., num_envs=64))``:
                            sb3-contrib as a user writes it, on the vector env
``gym``                     the same on today's single-env path, a ``DummyVecEnv`` of 8
                            Gymnasium wrappers
``vector_lean``             the same network (two layers of 64, ``MlpPolicy``'s) and
                            settings on the vector env, with the masked distribution of
                            :class:`agents.networks.LeanMaskableCategorical` (no argument
                            validation, one normalisation, inverse-CDF sampling): what
                            ``yaniv train``'s policies use
==========================  ================================================================

Lean PPO rows (:mod:`training.ppo`, the same ``--ppo-timesteps``, its default recipe
(``yaniv train --algo ppo`` from scratch: rollout, network and update sizes), ``--ppo-threads`` torch
threads in the update): against ``random`` opponents (the
MaskablePPO rows' environment), against ``heuristic`` opponents, and in self-play (one
network at every seat of :class:`yaniv_env.yaniv.batched.envs.BatchedSelfPlay`), each with its
floating-point operations per learner step (:func:`training.ppo.flops_per_step`). The
machine's measured matrix-product throughput (float32, [1024, 256] x [256, 1543], one
thread and ``--ppo-threads``) is printed beside them: steps/s times FLOPs per step over it
is the share of the machine's arithmetic the learner uses.

Each row's profile splits the wall clock into PPO's update (``train()``), the environment
(``step_wait``: the engine, the opponents, the observations and masks) and the rest of the
rollout (the policy's forward pass, the masked distribution, sampling and the rollout
buffer), timed around those calls.

Agent rows (``--agents``, each agent in the learner's seat of a vector environment of
``--agent-games`` games against ``heuristic`` opponents, as ``yaniv train --pretrain``
collects its decisions): the agent's own time per decision through ``act_batch`` (the
batched version where there is one, otherwise the scalar agent row by row), and for the
searching agents its time divided by the decisions it searched (the others follow the
heuristic and cost little). ``× first``: decisions/s against the first agent named.
"""

from __future__ import annotations

import json
import sys
import time

from yaniv_env.tools.bench import build_parser, measure, report

#: The MaskablePPO rows: (key, label, environment, policy).
PPO_ROWS = (
    ("vector", "MaskablePPO, vector env (B = 64)", "vector", "MlpPolicy"),
    ("gym", "MaskablePPO, 8 Gymnasium wrappers", "gym", "MlpPolicy"),
    ("vector_lean", "  lean distribution, vector env", "vector", "lean"),
)


def _venv(preset: str, players: int, kind: str, num_envs: int):
    if kind == "vector":
        from yaniv_env.yaniv.batched.sb3 import YanivVecEnv

        return YanivVecEnv(preset, num_envs=num_envs, num_players=players, opponents="random")
    from stable_baselines3.common.vec_env import DummyVecEnv

    from yaniv_env.yaniv.gym_env import YanivGymEnv

    return DummyVecEnv([lambda: YanivGymEnv(preset, num_players=players, opponents="random")] * num_envs)


def bench_ppo(preset: str, players: int, kind: str, policy: str, num_envs: int, timesteps: int, seed: int = 0) -> dict:
    """MaskablePPO for ``timesteps`` learner steps on ``kind`` (``vector`` or ``gym``) with
    ``policy`` (``MlpPolicy`` or ``lean``: the same network with the lean distribution);
    the rates and the time split of the module docstring."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.networks import ActionFeaturePolicy

    torch.set_num_threads(1)
    venv = _venv(preset, players, kind, num_envs)
    # ActionFeaturePolicy without action rules is MlpPolicy's network with the lean distribution
    policy_class = ActionFeaturePolicy if policy == "lean" else "MlpPolicy"
    model = MaskablePPO(policy_class, venv, n_steps=2048 // num_envs, batch_size=256, n_epochs=1, seed=seed)
    spent = {"update": 0.0, "environment": 0.0}

    def timed(what, call):
        def run(*args, **kwargs):
            start = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                spent[what] += time.perf_counter() - start

        return run

    model.train = timed("update", model.train)
    venv.step_wait = timed("environment", venv.step_wait)
    cpu0, t0 = time.process_time(), time.perf_counter()
    model.learn(timesteps)
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    venv.close()
    shares = {k: v / elapsed for k, v in spent.items()}
    shares["forward_and_buffer"] = 1.0 - sum(shares.values())
    return {
        "steps_per_s": model.num_timesteps / elapsed,
        "steps_per_cpu_s": model.num_timesteps / cpu,
        "steps": model.num_timesteps,
        "seconds": elapsed,
        "cpu_seconds": cpu,
        "num_envs": num_envs,
        "shares": shares,
        # kept under its old name for readers of earlier --json output
        "update_share": shares["update"],
    }


#: The lean PPO rows: (key, label, opponents of ``training.ppo``).
LEAN_ROWS = (
    ("lean_random", "lean PPO (training/ppo.py), vs random", "random"),
    ("lean_heuristic", "lean PPO, vs heuristic", "heuristic"),
    ("lean_selfplay", "lean PPO, self-play", "self"),
)


def bench_lean(preset: str, players: int, opponents: str, timesteps: int, threads: int, seed: int = 0) -> dict:
    """:mod:`training.ppo` for ``timesteps`` learner steps against ``opponents`` (no
    evaluation; the run's files go to a temporary directory)."""
    import contextlib
    import tempfile

    from training import ppo
    from training.args import Args
    from training.plan import make_plan

    with tempfile.TemporaryDirectory() as tmp:
        given = dict(
            algo="ppo",
            rules=preset,
            num_players=players,
            opponents=opponents,
            advice="none",  # from scratch
            pretrain="none",
            total_timesteps=timesteps,
            seed=seed,
            eval_every=0,
            final_eval_games=0,
            torch_threads=threads,
            output_dir=tmp,
            run_name="bench",
        )
        plan = make_plan(Args(**given), set(given))
        cpu0 = time.process_time()
        with contextlib.redirect_stdout(sys.stderr):  # the run's log, never into the bench's --json output
            r = ppo.train(plan)
        cpu = time.process_time() - cpu0
    return {
        "steps_per_s": r["steps"] / r["seconds"],
        "steps_per_cpu_s": r["steps"] / cpu,
        "steps": r["steps"],
        "seconds": r["seconds"],
        "flops_per_step": r["flops_per_step"],
        "shares": {"update": r["update_seconds"] / r["seconds"], "rollout": r["rollout_seconds"] / r["seconds"]},
    }


def matmul_gflops(threads: int, seconds: float = 1.0) -> float:
    """Measured float32 matrix-product throughput (GFLOP/s) with ``threads`` torch threads."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    a, b = torch.randn(1024, 256), torch.randn(256, 1543)
    a @ b
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        a @ b
        count += 1
    rate = count * 2 * 1024 * 256 * 1543 / (time.perf_counter() - start) / 1e9
    torch.set_num_threads(before)
    return rate


def run_learners(preset: str, players: int, timesteps: int, seed: int = 0, threads: int = 1) -> dict:
    """Every row of :data:`PPO_ROWS` and :data:`LEAN_ROWS`, and the matrix-product throughput."""
    rows = {
        key: bench_ppo(preset, players, kind, policy, 64 if kind == "vector" else 8, timesteps, seed)
        for key, _, kind, policy in PPO_ROWS
    }
    for key, _, opponents in LEAN_ROWS:
        rows[key] = bench_lean(preset, players, opponents, timesteps, threads, seed)
    rows["matmul_gflops"] = {"1": matmul_gflops(1), str(threads): matmul_gflops(threads)}
    return rows


def format_learners(result: dict) -> str:
    stock = result["vector"]["steps_per_s"]
    lines = [
        f"{'learner steps/s':<36}{'steps/s':>10}{'× vector':>10}{'steps/CPU s':>13}"
        f"{'update':>8}{'env':>6}{'forward':>9}",
    ]
    for key, label, _, _ in PPO_ROWS:
        r = result[key]
        s = r["shares"]
        lines.append(
            f"{label:<36}{r['steps_per_s']:>10,.0f}{r['steps_per_s'] / stock:>10.2f}{r['steps_per_cpu_s']:>13,.0f}"
            f"{s['update']:>8.0%}{s['environment']:>6.0%}{s['forward_and_buffer']:>9.0%}"
        )
    lines.append(
        "update: PPO's train(); env: the environments' step; forward: the rest of the rollout "
        "(policy forward pass, masked distribution, sampling, rollout buffer)"
    )
    lines.append(f"{'':<36}{'steps/s':>10}{'× vector':>10}{'steps/CPU s':>13}{'update':>8}{'MFLOP/step':>12}")
    for key, label, _ in LEAN_ROWS:
        r = result[key]
        lines.append(
            f"{label:<36}{r['steps_per_s']:>10,.0f}{r['steps_per_s'] / stock:>10.2f}{r['steps_per_cpu_s']:>13,.0f}"
            f"{r['shares']['update']:>8.0%}{r['flops_per_step'] / 1e6:>12.2f}"
        )
    rates = ", ".join(f"{g:.1f} GFLOP/s with {t} thread(s)" for t, g in result["matmul_gflops"].items())
    lines.append(f"matrix products on this machine (float32, [1024, 256] x [256, 1543]): {rates}")
    return "\n".join(lines)


def bench_agent(preset: str, players: int, name: str, decisions: int, num_envs: int = 64, seed: int = 0) -> dict:
    """``name`` deciding in the learner's seat of ``num_envs`` games against ``heuristic``
    opponents until it has made ``decisions`` decisions; only its ``act_batch`` is timed."""
    from agents.batched import ScalarLoop, batched
    from yaniv_env.yaniv.batched.sb3 import YanivVecEnv

    venv = YanivVecEnv(preset, num_envs=num_envs, num_players=players, opponents="heuristic")
    venv.seed(seed)
    agent = batched(name, seed=seed, rules=venv.rules)
    obs = venv.reset()
    # the first batch is not timed: it loads the agent's compiled code
    obs, _, _, _ = venv.step(agent.act_batch(obs, venv.action_masks()))

    def count_searched() -> int | None:  # the searching agents count their searched decisions
        deciders = agent.row_agents if isinstance(agent, ScalarLoop) else [agent]
        return sum(a.searched for a in deciders) if hasattr(deciders[0], "searched") else None

    searched0 = count_searched()
    made, spent = 0, 0.0
    cpu0 = time.process_time()
    while made < decisions:
        masks = venv.action_masks()
        start = time.perf_counter()
        actions = agent.act_batch(obs, masks)
        spent += time.perf_counter() - start
        made += len(actions)
        obs, _, _, _ = venv.step(actions)
    cpu = time.process_time() - cpu0
    venv.close()
    searched = count_searched() - searched0 if searched0 is not None else None
    return {
        "decisions": made,
        "seconds": spent,
        "decisions_per_s": made / spent,
        "searched": searched,
        "ms_per_searched": 1000 * spent / searched if searched else None,
        "batched": not isinstance(agent, ScalarLoop),
        "num_envs": num_envs,
        "cpu_seconds_all": cpu,
    }


def format_agents(result: dict) -> str:
    first = next(iter(result.values()))["decisions_per_s"]
    header = f"{'agent decisions':<28}{'decisions':>10}{'decisions/s':>13}{'× first':>9}"
    lines = [header + f"{'searched':>10}{'ms/searched':>13}"]
    for name, r in result.items():
        label = f"{name} ({'batched' if r['batched'] else 'row by row'})"
        searched = "" if r["searched"] is None else f"{r['searched']:,}"
        per = "" if r["ms_per_searched"] is None else f"{r['ms_per_searched']:.1f}"
        lines.append(
            f"{label:<28}{r['decisions']:>10,}{r['decisions_per_s']:>13,.0f}"
            f"{r['decisions_per_s'] / first:>9.2f}{searched:>10}{per:>13}"
        )
    num_envs = next(iter(result.values()))["num_envs"]
    lines.append(
        f"each agent in the learner's seat of {num_envs} games against heuristic opponents; "
        "only its own decisions are timed"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    parser.add_argument(
        "--ppo-timesteps",
        type=int,
        default=16_384,
        help="with --vector: learner steps of each MaskablePPO row (0 leaves them out; default 16384)",
    )
    parser.add_argument(
        "--ppo-threads",
        type=int,
        default=1,
        help="with --vector: torch threads of the lean PPO rows' update (default 1)",
    )
    parser.add_argument(
        "--agents",
        default="",
        help="comma-separated agent names to time deciding against heuristic opponents (for example "
        "search,search_fast); with --no-engine --no-env only these are measured",
    )
    parser.add_argument(
        "--agent-decisions", type=int, default=2000, help="with --agents: decisions per agent (default 2000)"
    )
    parser.add_argument(
        "--agent-games", type=int, default=64, help="with --agents: games played side by side (default 64)"
    )
    args = parser.parse_args(argv)
    if args.ppo_timesteps < 0:
        parser.error("--ppo-timesteps must be at least 0")
    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    if names and (args.agent_decisions < 1 or args.agent_games < 1):
        parser.error("--agent-decisions and --agent-games must be at least 1")
    try:
        # --no-engine --no-env with --agents: the agents alone
        result = {} if names and args.no_engine and args.no_env else measure(parser, args)
        if names:
            agent_rows = {
                name: bench_agent(
                    args.env_preset, args.players, name, args.agent_decisions, args.agent_games, args.seed
                )
                for name in names
            }
    except ValueError as e:
        print(f"yaniv bench: {e}", file=sys.stderr)
        return 2
    text = report(result) if result else ""
    if names:
        result["agents"] = agent_rows
        text = (text + "\n\n" if text else "") + format_agents(agent_rows)
    if args.vector and args.ppo_timesteps:
        result["vector"]["ppo"] = run_learners(
            args.env_preset, args.players, args.ppo_timesteps, args.seed, args.ppo_threads
        )
        text += "\n\n" + format_learners(result["vector"]["ppo"])
    print(json.dumps(result, indent=2) if args.json else text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
