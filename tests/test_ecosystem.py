"""The environments with the libraries around them: the examples of ``docs/ecosystem.md``
(PettingZoo's parallel API, SuperSuit, TorchRL) and of the vector environments' docstring,
each skipped when a library it imports is missing, with checks of what they produce; and
the messages that name the extra to install when an optional library is missing."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

import yaniv_env

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "ecosystem.md"


def _page_examples() -> dict[str, str]:
    """The page's ```python blocks by the ``##`` section they are in."""
    examples, section = {}, None
    for part in re.split(r"^(## .*|```python\n(?:.*\n)*?```)$", PAGE.read_text(encoding="utf-8"), flags=re.M):
        if part.startswith("## "):
            section = part[3:].strip()
        elif part.startswith("```python"):
            assert section not in examples, f"two python blocks in section {section!r}"
            examples[section] = part[len("```python\n") : -3]
    return examples


EXAMPLES = _page_examples()


def _run_example(code: str, tmp_path, monkeypatch) -> dict:
    """Run an example as a script from an empty directory (as the docs test does); skip
    when a library it imports is not installed. Its variables, for the checks."""
    for node in ast.walk(ast.parse(code)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module]
        for name in names:
            pytest.importorskip(name.split(".")[0])
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the libraries' own deprecation notices
        exec(compile(code, str(PAGE), "exec"), namespace)
    return namespace


def test_the_page_has_the_examples():
    assert {"PettingZoo's parallel API", "SuperSuit", "TorchRL"} <= set(EXAMPLES)


def test_parallel_api(tmp_path, monkeypatch):
    ns = _run_example(EXAMPLES["PettingZoo's parallel API"], tmp_path, monkeypatch)
    assert ns["steps"] > 0 and not ns["env"].agents
    assert any(ns["terminations"].values()) or any(ns["truncations"].values())
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    parallel_api_test(turn_based_aec_to_parallel(yaniv_env.env()), num_cycles=100)


def test_supersuit(tmp_path, monkeypatch):
    ns = _run_example(EXAMPLES["SuperSuit"], tmp_path, monkeypatch)
    import numpy as np
    from pettingzoo.test import api_test

    assert ns["observation"]["observation"].dtype == np.float16 and ns["observation"]["action_mask"].any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice about Dict observations
        api_test(ns["env"], num_cycles=50)


def test_torchrl(tmp_path, monkeypatch):
    ns = _run_example(EXAMPLES["TorchRL"], tmp_path, monkeypatch)
    rollout = ns["rollout"]
    acted = 0
    for agent in ("player_0", "player_1"):
        seat = rollout[agent]
        chosen = seat["action_mask"].gather(-1, seat["action"].unsqueeze(-1)).squeeze(-1)
        assert bool(chosen[seat["mask"]].all()), f"{agent} chose an illegal action"
        acted += int(seat["mask"].sum())
    assert acted == 20  # one seat acts per step
    assert not bool(rollout["next", "done"].any()), "an illegal action would end the game"


def _docstring_example(module) -> str:
    doc = module.__doc__
    block = re.search(r"\.\. code-block:: python\n\n((?:    .*\n|\n)+)", doc)
    assert block, f"no code-block in {module.__name__}'s docstring"
    return textwrap.dedent(block.group(1))


def test_vector_env_docstring_example_runs_in_seconds(tmp_path, monkeypatch):
    # PPO collects num_envs x n_steps steps before its first update: the example must say
    # n_steps, else SB3's 2048 with 64 environments is 131,072 steps
    pytest.importorskip("numba")
    pytest.importorskip("sb3_contrib")
    import yaniv_env.yaniv.batched.envs as envs_module

    ns = _run_example(_docstring_example(envs_module), tmp_path, monkeypatch)
    model, venv = ns["model"], ns["venv"]
    assert model.num_timesteps >= model.n_steps * venv.num_envs  # at least one update
    assert model.num_timesteps <= 8_192


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)


@pytest.mark.parametrize(
    ("blocked", "code", "extra"),
    [
        ("numba", "import yaniv_env.yaniv.batched", "vector"),
        ("numba", "from yaniv_env.yaniv.batched.envs import YanivVectorEnv", "vector"),
        ("numba", "import agents; agents.make('search_fast', seed=0)", "vector"),
        ("numba", "import agents; agents.make('heuristic', seed=0)", "vector"),
        ("numba", "import agents; agents.make('greedy', seed=0)", "vector"),
        ("torch", "import agents; agents.make('ppo', seed=0)", "train"),
    ],
)
def test_missing_extra_is_named(blocked, code, extra):
    blocked_code = f"import sys; sys.modules[{blocked!r}] = None\n{code}"  # as if not installed
    out = _run(f"try:\n{textwrap.indent(blocked_code, '    ')}\nexcept ModuleNotFoundError as e:\n    print(e)")
    assert out.returncode == 0, out.stderr
    # names the extra (and the first missing library: without [train], maybe not torch itself)
    assert "which is not installed" in out.stdout and f"pip install 'yaniv-env[{extra}]'" in out.stdout, out.stdout


def test_missing_extra_leaves_other_errors_alone():
    out = _run(
        "from yaniv_env.core.imports import needs_extra\n"
        "try:\n    with needs_extra('x'):\n        import no_such_module_xyz\n"
        "except ModuleNotFoundError as e:\n    assert 'yaniv-env[' not in str(e), e\n"
    )
    assert out.returncode == 0, out.stderr


def test_plain_environments_do_not_load_numba_or_torch():
    # with Gymnasium's checker, which the minimum-versions check runs without SB3
    out = _run(
        "import sys, warnings, gymnasium, yaniv_env\n"
        "from gymnasium.utils.env_checker import check_env\n"
        "env = yaniv_env.env(); env.reset(seed=0)\n"
        "g = gymnasium.make('yaniv_env/Yaniv-v0'); g.reset(seed=0)\n"
        "warnings.simplefilter('ignore'); check_env(g.unwrapped, skip_render_check=True)\n"
        "loaded = {'numba', 'llvmlite', 'torch'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    assert out.returncode == 0, out.stderr


def test_a_command_without_its_extra_ends_with_one_line(tmp_path):
    code = "import sys; sys.modules['torch'] = None; from training.cli import main; sys.exit(main(sys.argv[1:]))"
    out = subprocess.run(
        [sys.executable, "-c", code, "train", "--total-timesteps", "10", "--output-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    # (torch, or the first missing [train] library: sb3_contrib in an install without the extra)
    assert len(lines) == 1 and "yaniv train needs " in lines[0] and "yaniv-env[train]" in lines[0], out.stderr
