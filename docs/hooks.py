"""MkDocs hooks (``mkdocs.yml``: ``hooks: [docs/hooks.py]``): tables generated at build time
from files kept in the repository, so that the pages cannot drift from them.

* ``<!-- bench: NAME.json -->`` on a page becomes the speed tables of
  ``docs/results/bench/NAME.json``, a ``yaniv bench --json`` result file (any sections it
  holds: engine, batched engine, environments, Pis Yedili, vector environments, MaskablePPO,
  agents).
* ``<!-- model-metadata: NAME -->`` becomes the metadata of the shipped model
  ``agents/models/NAME.safetensors``, read with ``agents.play_format.read_play_file`` (no
  torch; nothing in the file is run).

A marker naming a missing file stops the build with an error that names it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT / "docs" / "results" / "bench"
MODELS_DIR = ROOT / "agents" / "models"
BENCH = re.compile(r"<!-- bench: ([\w.-]+\.json) -->")
MODEL = re.compile(r"<!-- model-metadata: ([\w.-]+) -->")


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _n(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


def _env_rows(env: dict, what: str = "") -> list[list[str]]:
    rows = []
    for label, key in (
        ("AEC `raw_env`", "aec_raw"),
        ("AEC `env()` (PettingZoo's wrappers)", "aec_wrapped"),
        ("Gymnasium wrapper (learner steps)", "gym"),
    ):
        r, idle = env[key], env["idle"][key]
        rows.append(
            [
                label + what,
                _n(r["steps_per_s"]),
                _n(r["steps_per_cpu_s"]),
                _n(idle["steps_per_cpu_s"]),
                f"{r['steps_per_cpu_s'] / idle['steps_per_cpu_s']:.2f}",
            ]
        )
    return rows


ENV_HEADER = ["loop", "steps/s", "steps/CPU s", "idle env, steps/CPU s", "× idle"]


def _engine_table(engine: dict) -> str:
    rows = [
        [
            f"`{name}`",
            _n(r["turns_per_s"]),
            _n(r["turns"] / r["cpu_seconds"]),
            _n(r["rounds_per_s"], 1),
            _n(r["games_per_s"], 2),
            _n(r["decisions_per_s"]),
        ]
        for name, r in engine.items()
    ]
    return _table(["engine, random play", "turns/s", "turns/CPU s", "rounds/s", "games/s", "decisions/s"], rows)


def _batched_table(batched: dict) -> str:
    scalar = batched["scalar_turns_per_s"]
    rows = [["scalar engine", _n(scalar), "1", _n(batched["scalar_turns_per_cpu_s"])]]
    for r in batched["runs"].values():
        threads = f"{r['threads']} thread{'s' if r['threads'] > 1 else ''}"
        rows.append(
            [
                f"batched, B = {r['batch']:,}, {threads}",
                _n(r["turns_per_s"]),
                f"{r['turns_per_s'] / scalar:.1f}",
                _n(r["turns"] / r["cpu_seconds"]),
            ]
        )
    mem = batched["memory_B1024"]
    return (
        _table([f"batched engine (`{batched['preset']}`), random play", "turns/s", "× scalar", "turns/CPU s"], rows)
        + f"\n\nFirst use of the kernels: {batched['compile_seconds']:.1f} s "
        "(compile, or load from Numba's cache); "
        f"a 1,024-game batch holds {mem['state_masks_observations_mb']:.1f} MB of state, masks and observations, "
        f"the process peaked at {mem['process_peak_rss_mb']:.0f} MB."
    )


def _pis_tables(pis: dict) -> list[str]:
    parts = []
    e = pis.get("engine")
    if e:
        parts.append(
            _table(
                [f"Pis Yedili engine (`{pis['preset']}`)", "decisions/s", "games/s", "deals/s"],
                [["random play", _n(e["decisions_per_s"]), _n(e["games_per_s"], 2), _n(e["deals_per_s"], 1)]],
            )
        )
    if "env" in pis:
        parts.append(_table([f"Pis Yedili environment (`{pis['preset']}`)"] + ENV_HEADER[1:], _env_rows(pis["env"])))
    return parts


def _vector_table(vector: dict) -> str:
    rows = []
    for opp, r in vector["vector_env"].items():
        v, g = r["vector"]["steps_per_s"], r["gym"]["steps_per_s"]
        rows.append([f"`{opp}` opponents", _n(v), _n(g), f"{v / g:.1f}"])
    text = _table(
        [
            f"learner steps/s (`{vector['preset']}`, {vector['players']} players, B = {vector['num_envs']})",
            "vector env",
            "Gymnasium wrapper",
            "ratio",
        ],
        rows,
    )
    if "load" in vector:
        text += f"\n\nLoad average when the vector rows started: {vector['load']:.1f} (2 cores)."
    t = vector.get("tournament")
    if t:
        text += (
            f"\n\nTournament on the batched engine: {t['games']:,} `heuristic` vs `greedy` games in "
            f"{t['seconds']:.1f} s ({_n(t['decisions_per_s'])} decisions/s; the heuristic won "
            f"{t['heuristic_win_share']:.3f})."
        )
    return text


def _learner_cells(label: str, r: dict, stock: float) -> list[str]:
    """A learner row's first cells: its label, steps/s, ratio to MaskablePPO's vector row,
    steps per CPU second and the update's share of the time."""
    return [
        label.strip(),
        _n(r["steps_per_s"]),
        f"{r['steps_per_s'] / stock:.2f}",
        _n(r["steps_per_cpu_s"]),
        f"{r['shares']['update']:.0%}",
    ]


def _ppo_table(ppo: dict) -> str:
    from training.bench import PPO_ROWS

    stock = ppo["vector"]["steps_per_s"]
    rows = []
    for key, label, *_ in PPO_ROWS:
        r = ppo[key]
        shares = r["shares"]
        cells = [f"{shares['environment']:.0%}", f"{shares['forward_and_buffer']:.0%}"]
        rows.append([*_learner_cells(label, r, stock), *cells])
    header = ["MaskablePPO, learner steps", "steps/s", "× vector", "steps/CPU s", "update", "environment"]
    return _table([*header, "forward, sampling, buffer"], rows)


def _lean_table(ppo: dict) -> str:
    """The lean learner's rows (:data:`training.bench.LEAN_ROWS`) beside MaskablePPO's vector
    row, with the FLOPs per step and the share of the machine's measured matrix throughput."""
    from training.bench import LEAN_ROWS

    stock = ppo["vector"]["steps_per_s"]
    peak = max(ppo["matmul_gflops"].values())
    rows = []
    for key, label, _ in LEAN_ROWS:
        r = ppo[key]
        used = r["steps_per_s"] * r["flops_per_step"] / 1e9
        cells = [f"{r['flops_per_step'] / 1e6:.2f}", f"{used:.1f} of {peak:.1f}"]
        rows.append([*_learner_cells(label, r, stock), *cells])
    header = ["lean PPO, learner steps", "steps/s", "× MaskablePPO vector", "steps/CPU s", "update", "MFLOP/step"]
    return _table([*header, "GFLOP/s used of the measured matmul peak"], rows)


def _agents_table(agents: dict) -> str:
    rows = []
    for name, r in agents.items():
        searched = "" if r["searched"] is None else _n(r["searched"])
        per = "" if r["ms_per_searched"] is None else f"{r['ms_per_searched']:.1f}"
        rows.append([f"`{name}`", _n(r["decisions_per_s"]), searched, per])
    return _table(["agent", "decisions/s", "searched", "ms per searched decision"], rows)


def bench_tables(result: dict) -> str:
    """Markdown tables of a ``yaniv bench --json`` result."""
    parts = []
    if "players" in result:
        parts.append(
            f"{result['players']} players, about {result['seconds']:g} s per measurement, seed {result['seed']}, "
            f"Python {result['python']}, NumPy {result['numpy']}."
        )
    if result.get("engine"):
        parts.append(_engine_table(result["engine"]))
    if result.get("batched"):
        parts.append(_batched_table(result["batched"]))
    if "env" in result:
        parts.append(_table([f"environment (`{result['env']['preset']}`)"] + ENV_HEADER[1:], _env_rows(result["env"])))
    pis = result.get("pis_yedili")
    if pis and "skipped" not in pis:
        parts.extend(_pis_tables(pis))
    vector = result.get("vector")
    if vector:
        parts.append(_vector_table(vector))
        if vector.get("ppo"):
            parts.append(_ppo_table(vector["ppo"]))
            if "matmul_gflops" in vector["ppo"]:
                parts.append(_lean_table(vector["ppo"]))
    if result.get("agents"):
        parts.append(_agents_table(result["agents"]))
    return "\n\n".join(parts)


def _lineage(training: dict) -> str:
    """The networks a run started from (``init`` and each one's ``init_training``), newest
    first, or random weights."""
    steps, record = [], training
    while record.get("init"):
        record = record.get("init_training") or {}
        steps.append(
            f"run `{record.get('run_name', '?')}` (reward `{record.get('reward')}`, episode "
            f"`{record.get('episode')}`, advisor {record.get('advice') or 'none'}, "
            f"imitation {record.get('pretrain') or 'none'})"
        )
    return " ← ".join([*steps, "random weights"])


def model_metadata(name: str) -> str:
    """A Markdown table of the play file ``agents/models/NAME.safetensors``'s metadata."""
    from agents.play_format import read_play_file

    path = MODELS_DIR / f"{name}.safetensors"
    meta, _ = read_play_file(path)
    training, network = meta.get("training") or {}, meta["network"]
    versions = ", ".join(f"{k} {v}" for k, v in sorted((training.get("versions") or {}).items()))
    arch = network.get("net_arch", {})
    rows = [
        ["file", f"`agents/models/{path.name}` ({path.stat().st_size / 1e6:.1f} MB)"],
        ["game, rules, players", f"{meta['game']}, `{network['action_rules']['name']}`, {meta['num_players']}"],
        ["network", f"`{network['policy']}`, policy {arch.get('pi')}, value {arch.get('vf')}, {network['activation']}"],
        ["observation, actions", f"{network['observation_size']} floats, {network['num_actions']} action ids"],
        ["advisor", f"`{meta['advice']}`" if meta.get("advice") else "none"],
        ["imitation", f"`{training['pretrain']}`" if training.get("pretrain") else "none"],
        ["started from", _lineage(training)],
        [
            "training",
            f"{training.get('algorithm', '?')}, {meta['timesteps']:,} steps, "
            f"{training.get('elapsed_seconds', 0) / 60:.0f} min of wall clock, episode `{training.get('episode')}`, "
            f"reward `{training.get('reward')}`, run `{training.get('run_name')}`",
        ],
        ["versions", versions or "not recorded"],
        ["weights SHA-256", f"`{meta['weights_sha256']}`"],
    ]
    return _table(["metadata (read from the file)", ""], rows)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001
    def bench(match: re.Match) -> str:
        path = BENCH_DIR / match.group(1)
        if not path.is_file():
            raise FileNotFoundError(f"{page.file.src_path}: no benchmark result file {path}")
        return bench_tables(json.loads(path.read_text(encoding="utf-8")))

    markdown = BENCH.sub(bench, markdown)
    return MODEL.sub(lambda m: model_metadata(m.group(1)), markdown)
