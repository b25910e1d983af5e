"""The README's examples run as written and print what the README says they print.

Every ```python block that the README follows with "which prints:" and a ```text block is
run in a fresh namespace; its standard output must be the text block, line for line.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
EXAMPLE = re.compile(r"```python\n(.*?)```\s*\n+which prints:\s*\n+```text\n(.*?)```", re.S)


def _examples() -> list[tuple[str, str]]:
    return EXAMPLE.findall(README.read_text(encoding="utf-8"))


def test_readme_has_printed_examples():
    assert _examples(), "the README shows no example with its output"


@pytest.mark.parametrize("code,printed", _examples(), ids=lambda v: v.splitlines()[0][:40])
def test_readme_example_prints_what_it_says(code, printed):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
    assert out.getvalue().splitlines() == printed.splitlines()
