"""The README's examples run as written and print what the README says they print.

Every ```python block that the README follows with "which prints:" and a ```text block is
run in a fresh namespace; its standard output must be the text block, line for line. Every
other ```python block runs as written, as a fresh process would run it (``test_docs.run_script``),
in a temporary directory.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from test_docs import run_script

README = Path(__file__).resolve().parent.parent / "README.md"
EXAMPLE = re.compile(r"```python\n(.*?)```\s*\n+which prints:\s*\n+```text\n(.*?)```", re.S)
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _examples() -> list[tuple[str, str]]:
    return EXAMPLE.findall(README.read_text(encoding="utf-8"))


def _other_blocks() -> list[str]:
    printed = {code for code, _ in _examples()}
    return [code for code in BLOCK.findall(README.read_text(encoding="utf-8")) if code not in printed]


def test_readme_has_printed_examples():
    assert _examples(), "the README shows no example with its output"


@pytest.mark.parametrize("code,printed", _examples(), ids=lambda v: v.splitlines()[0][:40])
def test_readme_example_prints_what_it_says(code, printed):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
    assert out.getvalue().splitlines() == printed.splitlines()


def test_readme_shows_the_three_examples():
    blocks = BLOCK.findall(README.read_text(encoding="utf-8"))
    assert len(blocks) == 3
    assert "agent_iter" in blocks[0] and "YanivVecEnv" in blocks[2]
    assert 'gymnasium.make("yaniv_env/Yaniv-v0"' in blocks[1] and "MaskablePPO" in blocks[1]


@pytest.mark.parametrize("code", _other_blocks(), ids=lambda v: next(x for x in v.splitlines() if "(" in x)[:40])
def test_readme_example_runs(code, tmp_path):
    proc = run_script(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
