"""The packages depend one way: ``training`` → ``agents`` → ``yaniv_env`` (and
``yaniv_env.core`` below the games). Each module is imported in a fresh interpreter and
the packages it pulled in are compared with the ones it may use."""

from __future__ import annotations

import importlib.util
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import import_graph
import pytest
from import_graph import circles

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ("yaniv_env", "agents", "training")
#: What a package's modules must never import (directly or through others).
FORBIDDEN = {"yaniv_env": ("agents", "training"), "agents": ("training",)}
RL_LIBRARIES = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib")
#: Modules that make no environment: the rules cores, the observations, the light core.
LIGHT = [
    "yaniv_env",
    "yaniv_env.yaniv.engine",
    "yaniv_env.yaniv.observation",
    "yaniv_env.games",
    "yaniv_env.pis_yedili",
    "yaniv_env.pis_yedili.engine",
    "yaniv_env.pis_yedili.observation",
    "yaniv_env.core",
    "yaniv_env.core.cards",
    "yaniv_env.core.frames",
    "yaniv_env.core.cpus",
    "yaniv_env.core.ids",
    "yaniv_env.core.game",
    "yaniv_env.core.imports",
    "yaniv_env.core.layout",
    "yaniv_env.core.limits",
    "yaniv_env.core.outcome",
    "yaniv_env.core.policies",
    "yaniv_env.core.opponents",
    "yaniv_env.core.engine",
    "yaniv_env.core.random_policy",
    "yaniv_env.core.streams",
    "yaniv_env.core.rules",
    "yaniv_env.core.seeding",
]


def _modules(package: str) -> list[str]:
    names = [package]
    for info in pkgutil.walk_packages([str(ROOT / package.replace(".", "/"))], prefix=package + "."):
        names.append(info.name)
    return sorted(names)


_PROBE = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(sys.modules)))
"""


def _imports(module: str) -> set[str]:
    """The modules in ``sys.modules`` after importing ``module`` in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _PROBE, module], capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, f"importing {module} failed:\n{out.stderr}"
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


# A fresh interpreter per module spends most of its second importing numpy, torch and the
# RL libraries again (about 90 worker-seconds for the modules below). The fork probe imports
# them once, then imports each module in a forked child of that interpreter: the child's
# ``sys.modules`` is what a fresh interpreter would hold plus the preloaded libraries, and
# those import none of this project (checked), so the project's packages a module pulls in
# are the same; test_fork_probe_sees_what_a_fresh_interpreter_imports checks it.
_FORK_PROBE = """
import importlib, json, os, sys, traceback
preload, modules, PROJECT = json.loads(sys.argv[1])
for name in preload:
    importlib.import_module(name)
ours = {name.split(".")[0] for name in sys.modules} & set(PROJECT)
assert not ours, f"preloading {preload} imported {sorted(ours)}"
found = {}
for module in modules:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            importlib.import_module(module)
            out = {"modules": sorted(sys.modules)}
        except BaseException:
            out = {"error": traceback.format_exc()}
        with os.fdopen(write, "w") as pipe:
            json.dump(out, pipe)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        found[module] = json.loads(pipe.read() or '{"error": "the child died"}')
    os.waitpid(pid, 0)
print(json.dumps(found))
"""

#: What the upward-import probe preloads: the heavy third-party libraries (none imports this project).
HEAVY = ("numpy", "numba", "torch", "gymnasium", "pettingzoo", "stable_baselines3", "sb3_contrib")


def _fork_probe(modules: list[str], preload: tuple[str, ...]) -> dict[str, set[str]]:
    """Each of ``modules`` -> the modules in ``sys.modules`` after importing it in a fork of an
    interpreter that imported ``preload`` (those installed) first."""
    if not hasattr(os, "fork"):  # (Windows: a fresh interpreter per module)
        return {m: _imports(m) for m in modules}
    preload = [name for name in preload if importlib.util.find_spec(name) is not None]
    arg = json.dumps([preload, modules, PROJECT])
    out = subprocess.run(
        [sys.executable, "-c", _FORK_PROBE, arg], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout.strip().splitlines()[-1])
    errors = {m: r["error"] for m, r in found.items() if "error" in r}
    assert not errors, "\n".join(f"importing {m} failed:\n{e}" for m, e in errors.items())
    return {m: set(r["modules"]) for m, r in found.items()}


def _top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def _all_modules() -> list[str]:
    # __main__ modules run code when imported
    return [m for p in FORBIDDEN for m in _modules(p) if not m.endswith("__main__")]


def test_every_package_module_is_probed():
    mods = _all_modules()
    assert "yaniv_env.yaniv.gym_env" in mods and "yaniv_env.core.policies" in mods and "agents.search" in mods


@pytest.fixture(scope="session")
def imported_with_heavy_libraries() -> dict[str, set[str]]:
    """Every package module -> what importing it loads (the fork probe, HEAVY preloaded)."""
    return _fork_probe(_all_modules(), HEAVY)


@pytest.fixture(scope="session")
def imported_with_numpy() -> dict[str, set[str]]:
    """Each LIGHT module -> what importing it loads (the fork probe, only numpy preloaded)."""
    return _fork_probe(LIGHT, ("numpy",))


@pytest.mark.parametrize(
    "module,probe",
    [("yaniv_env", "imported_with_heavy_libraries"), ("yaniv_env.yaniv.batched.sb3", "imported_with_heavy_libraries")]
    + [("yaniv_env.yaniv.observation", "imported_with_numpy")],
)
def test_fork_probe_sees_what_a_fresh_interpreter_imports(module, probe, request):
    # of this project's modules, the probe may see more (a hook waiting for a preloaded
    # library runs at once), never fewer: so a module that passes there passes alone
    def project(names):
        return {name for name in names if name.split(".")[0] in PROJECT}

    forked = project(request.getfixturevalue(probe)[module])
    assert project(_imports(module)) <= forked and module in forked


@pytest.mark.parametrize("module", _all_modules())
def test_no_upward_import(module, imported_with_heavy_libraries):
    package = module.split(".")[0]
    upward = _top_level(imported_with_heavy_libraries[module]) & set(FORBIDDEN[package])
    assert not upward, f"{module} imports {', '.join(sorted(upward))}, a layer above {package}"


def _imported_packages(path: Path) -> set[str]:
    """Top-level packages a source file imports anywhere (functions included)."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_upward_import_anywhere_in_the_source(package):
    # Imports inside functions escape the import probe above; the source shows them.
    bad = {
        str(path.relative_to(ROOT)): sorted(_imported_packages(path) & set(FORBIDDEN[package]))
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    bad = {path: names for path, names in bad.items() if names}
    assert not bad, f"upward imports: {bad}"


def test_training_evaluates_through_the_one_evaluation_package():
    """One evaluation runner (issue 34): :mod:`agents.evaluation` imports ``agents`` and
    ``yaniv_env`` only, never ``training``; the training modules that evaluate (the
    learners' one periodic evaluation, the SB3 learner's league gate, the final evaluation)
    import it, both learners evaluate periodically through that one module
    (:mod:`training.periodic_eval`), and none plays evaluation games in a loop of its own
    (sb3-contrib's ``evaluate_policy``)."""
    arrows = import_graph.graph(PROJECT)

    def evaluation(name: str) -> bool:
        return name == "agents.evaluation" or name.startswith("agents.evaluation.")

    outside = {m: sorted(t for t in arrows[m] if t.split(".")[0] not in ("agents", "yaniv_env")) for m in arrows}
    assert not {m: t for m, t in outside.items() if evaluation(m) and t}, "agents.evaluation imports outside its layers"
    for module in ("training.periodic_eval", "training.callbacks", "training.final_eval"):
        assert any(evaluation(t) for t in arrows[module]), f"{module} does not evaluate through agents.evaluation"
    for learner in ("training.ppo", "training.callbacks"):
        assert "training.periodic_eval" in arrows[learner], f"{learner} has a periodic evaluation of its own"
    loops = [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "training").rglob("*.py"))
        if "evaluate_policy" in p.read_text()
    ]
    assert not loops, f"evaluation loops of their own: {loops}"


def _relative_imports(path: Path) -> set[tuple[int, str]]:
    """``(level, module)`` of a source file's relative imports, and ``(0, module)`` of its
    absolute ``yaniv_env`` imports."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("yaniv_env")):
            found.add((node.level, node.module or ""))
        elif isinstance(node, ast.Import):
            found |= {(0, a.name) for a in node.names if a.name.startswith("yaniv_env")}
    return found


def test_pis_yedili_uses_only_the_core_and_itself():
    bad = {}
    for path in sorted((ROOT / "yaniv_env" / "pis_yedili").rglob("*.py")):
        names = [
            m
            for level, m in _relative_imports(path)
            if (level == 2 and not m.startswith("core"))
            or (level == 0 and not m.startswith(("yaniv_env.core", "yaniv_env.pis_yedili")))
        ]
        if names:
            bad[path.name] = names
    assert not bad, f"Pis Yedili imports Yaniv's modules: {bad}"


def test_game_packages_never_import_the_registry():
    # the registry (yaniv_env.games) describes the games from above: a game package takes what
    # it needs from its own modules and the core, never from the registry or the package
    # root that imports it, functions included
    arrows = import_graph.graph(["yaniv_env"])
    games = ("yaniv_env.yaniv", "yaniv_env.pis_yedili")
    bad = {
        m: sorted(t for t in targets if t in ("yaniv_env", "yaniv_env.games"))
        for m, targets in arrows.items()
        if any(m == g or m.startswith(g + ".") for g in games)
    }
    assert {"yaniv_env.yaniv.records", "yaniv_env.pis_yedili.aec"} <= set(bad)
    assert not {m: t for m, t in bad.items() if t}, f"game modules that import the registry: {bad}"


def test_core_knows_no_game():
    bad = {}
    for path in sorted((ROOT / "yaniv_env" / "core").rglob("*.py")):
        names = [m for level, m in _relative_imports(path) if level >= 2 or (level == 0 and ".core" not in m)]
        if names:
            bad[path.name] = names
    assert not bad, f"the core imports game modules: {bad}"


def _absolute(path: Path, level: int, module: str) -> str:
    """The absolute name of an import ``(level, module)`` made in the source file ``path``."""
    if not level:
        return module
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    base = package[: len(package) - (level - 1)]
    return ".".join([*base, module] if module else base)


def test_the_library_never_imports_its_tools():
    """The tools (bench, verify, sweep, play, replay, web) are built on the library: no module
    of ``yaniv_env`` outside ``tools/``, nor of ``agents``, imports them, functions included
    (the game records the evaluation writes are :mod:`yaniv_env.yaniv.records`)."""
    tools = ROOT / "yaniv_env" / "tools"
    bad = {}
    for path in sorted([*(ROOT / "yaniv_env").rglob("*.py"), *(ROOT / "agents").rglob("*.py")]):
        if tools in path.parents:
            continue
        names = sorted(
            m for m in (_absolute(path, *i) for i in _relative_imports(path)) if m.startswith("yaniv_env.tools")
        )
        if names:
            bad[str(path.relative_to(ROOT))] = names
    assert not bad, f"the library imports its tools: {bad}"


@pytest.mark.parametrize("module", LIGHT)
def test_rules_cores_import_no_rl_library(module, imported_with_numpy):
    heavy = _top_level(imported_with_numpy[module]) & set(RL_LIBRARIES)
    assert not heavy, f"{module} imports {', '.join(sorted(heavy))}"


@pytest.mark.parametrize("first", ["yaniv_env", "gymnasium", "pettingzoo"])
def test_environments_are_registered_whatever_is_imported_first(first):
    # yaniv_env registers its games when Gymnasium and PettingZoo are imported, or at once
    order = [first] + [m for m in ("yaniv_env", "gymnasium", "pettingzoo") if m != first]
    code = "; ".join(f"import {m}" for m in order) + (
        "; from pettingzoo.env_registry.registration import aec_registry"
        "; from yaniv_env.games import GAMES"
        "; ids = [g.env_id for g in GAMES.values()]"
        "; assert all(i in gymnasium.registry and i in aec_registry for i in ids), ids"
        "; env = gymnasium.make('yaniv_env/PisYedili-v0', num_players=3); env.reset(seed=0)"
    )
    _run(code)


def test_when_imported_runs_hooks_once_after_the_import():
    code = (
        "import sys; from yaniv_env.core.imports import when_imported; seen = []"
        "; when_imported('json', lambda m: seen.append(m.__name__))"
        "; when_imported('json', lambda m: seen.append(m.dumps([1])))"
        "; assert seen == [], seen; import json; import json"
        "; assert seen == ['json', '[1]'], seen; assert json.__spec__.loader is json.__loader__"
        "; when_imported('json', lambda m: seen.append('now')); assert seen[-1] == 'now'"
        "; when_imported('no_such_module_xyz', seen.append)"
        "\ntry:\n    import no_such_module_xyz\nexcept ImportError:\n    pass"
        "\nassert seen[-1] == 'now'"
    )
    _run(code)


def test_policy_names_come_from_the_announced_packages():
    # the registry imports agents (announced by its entry point) only when a name is asked for
    _run(
        "import sys; from yaniv_env.core.policies import make_policy, policy_names"
        "; assert 'agents' not in sys.modules"
        "; assert make_policy('heuristic', seed=0, rules='standard').act is not None"
        "; assert 'agents' in sys.modules and {'random', 'greedy', 'pis_random'} <= set(policy_names())"
    )


def test_drawing_libraries_are_imported_to_draw_only():
    # Pillow and pygame-ce (the [render] extra) wait for the first frame or window
    _run(
        "import sys, yaniv_env, yaniv_env.core.frames; from yaniv_env import pis_yedili"
        "; yaniv_env.raw_env(render_mode='rgb_array').reset(seed=0); pis_yedili.raw_env(render_mode='human')"
        "; assert not {'PIL', 'pygame', 'moviepy'} & set(sys.modules), sorted(sys.modules)"
    )


def _run(code: str) -> None:
    """Run ``code`` in a fresh interpreter; fail with its error output."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr


def test_the_evaluation_cli_imports_training_rllib_only_for_ray():
    # yaniv eval plays on Ray (training.rllib.shards) only with --ray: without it, nothing of
    # training's RLlib package is imported, as training.rllib's docstring promises
    _run(
        "import sys; from training.cli.eval import main, parser"
        "; assert parser().parse_args(['--agents', 'random,random']).ray is None"
        "; assert not [m for m in sys.modules if m.startswith('training.rllib')], 'training.rllib imported'"
    )


def test_gymnasium_vector_env_needs_neither_sb3_nor_torch():
    # the Stable-Baselines3 VecEnv lives in yaniv_env.yaniv.batched.sb3, which the Gymnasium one never imports
    pytest.importorskip("numba")
    _run(
        "import sys, importlib.abc"
        "\nclass Blocked(importlib.abc.MetaPathFinder):"
        "\n    def find_spec(self, name, path=None, target=None):"
        "\n        if name.split('.')[0] in ('stable_baselines3', 'sb3_contrib', 'torch'):"
        "\n            raise ImportError(f'{name} is blocked')"
        "\nsys.meta_path.insert(0, Blocked())"
        "\nimport numpy as np"
        "\nfrom yaniv_env.yaniv.batched.envs import YanivVectorEnv"
        "\nenvs = YanivVectorEnv('standard', num_envs=4, opponents='random')"
        "\nobs, _ = envs.reset(seed=0)"
        "\nfor _ in range(50):"
        "\n    obs, rewards, terminated, truncated, infos = envs.step(envs.action_masks().argmax(axis=1))"
        "\nassert not {'stable_baselines3', 'torch'} & set(sys.modules)"
        "\ntry:"
        "\n    from yaniv_env.yaniv.batched.sb3 import YanivVecEnv"
        "\nexcept ImportError as e:"
        "\n    assert 'blocked' in str(e)"
        "\nelse:"
        "\n    raise AssertionError('YanivVecEnv imported without Stable-Baselines3')"
    )


_BLOCK_UPPER_LAYERS = (
    "import sys, importlib.abc"
    "\nclass Blocked(importlib.abc.MetaPathFinder):"
    "\n    def find_spec(self, name, path=None, target=None):"
    "\n        if name.split('.')[0] in ('agents', 'training'):"
    "\n            raise ImportError(f'{name} is blocked')"
    "\nsys.meta_path.insert(0, Blocked())"
)


def test_every_environment_builds_with_defaults_without_agents():
    # the default opponent ("random", scalar and batched) is the core's: no layer above is needed
    pytest.importorskip("numba")
    pytest.importorskip("stable_baselines3")
    _run(
        _BLOCK_UPPER_LAYERS + "\nimport gymnasium, numpy as np, yaniv_env"
        "\nfrom yaniv_env import pis_yedili"
        "\nfrom yaniv_env.yaniv.batched.envs import BatchedSelfPlay, YanivVectorEnv"
        "\nfrom yaniv_env.yaniv.batched.sb3 import YanivVecEnv"
        "\nfor make in (yaniv_env.env, yaniv_env.raw_env, pis_yedili.env, pis_yedili.raw_env):"
        "\n    env = make(); env.reset(seed=0)"
        "\n    for _ in range(20):"
        "\n        if not env.agents: break"
        "\n        obs, _, term, trunc, _ = env.last()"
        "\n        env.step(None if term or trunc else int(np.flatnonzero(obs['action_mask'])[0]))"
        "\nfor env_id in ('yaniv_env/Yaniv-v0', 'yaniv_env/PisYedili-v0'):"
        "\n    env = gymnasium.make(env_id); obs, info = env.reset(seed=0)"
        "\n    for _ in range(20):"
        "\n        obs, r, term, trunc, info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))"
        "\n        if term or trunc: env.reset()"
        "\nfor envs in (YanivVectorEnv(), YanivVecEnv()):"
        "\n    envs.reset(seed=0) if isinstance(envs, YanivVectorEnv) else envs.reset()"
        "\n    for _ in range(20): envs.step(envs.action_masks().argmax(axis=1))"
        "\nself_play = BatchedSelfPlay(); self_play.reset(seed=0)"
        "\nfor _ in range(20): self_play.step(self_play.masks.argmax(axis=1))"
        "\nassert not {'agents', 'training'} & {m.split('.')[0] for m in sys.modules}"
    )


def test_scalar_yaniv_never_needs_the_batched_package():
    # the scalar engine is the reference: nothing of it imports the batched engine, even in a function
    batched = "yaniv_env.yaniv.batched"
    scalar = [m for m in _modules("yaniv_env.yaniv") if not m.startswith(batched)]
    arrows = import_graph.graph(["yaniv_env"])
    bad = {m: sorted(t for t in arrows[m] if t == batched or t.startswith(batched + ".")) for m in scalar}
    assert not {m: t for m, t in bad.items() if t}, bad
    _run(
        "import sys, importlib"
        + "".join(f"; importlib.import_module({m!r})" for m in scalar if not m.endswith("__main__"))
        + f"; assert not [m for m in sys.modules if m.startswith({batched!r})], 'batched imported'"
        + "; assert 'numba' not in sys.modules"
    )


def _cycles(package: str, root: Path = ROOT) -> list[list[str]]:
    """The import circles among ``package``'s modules (function-level imports included)."""
    arrows = import_graph.graph([package.split(".")[0]], root)
    inside = {m: {t for t in ts if t == package or t.startswith(package + ".")} for m, ts in arrows.items()}
    return circles({m: ts for m, ts in inside.items() if m == package or m.startswith(package + ".")})


def test_cycle_finder_finds_a_circle(tmp_path, monkeypatch):
    pkg = tmp_path / "circle_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import g\n")
    (pkg / "c.py").write_text("from .b import f\n")
    assert _cycles("circle_pkg", tmp_path) == [["circle_pkg.a", "circle_pkg.b"]]


#: Packages whose modules must import each other without circles.
ACYCLIC = ("yaniv_env", "agents", "training")


@pytest.mark.parametrize("package", ACYCLIC)
def test_no_import_circle_inside_a_package(package):
    found = _cycles(package)
    assert not found, import_graph.say(found)
