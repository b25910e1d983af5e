"""Code that says what it is (issue 34): no function in the packages runs over
:data:`MAX_LINES` lines; a longer one is split into helpers that read as its steps (the
Numba kernels too: their helpers on a decision's path are inlined, ``inline="always"``)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("yaniv_env", "agents", "training")
#: The most lines a function may span, from its ``def`` line to its last line.
MAX_LINES = 80
#: The functions allowed to be longer, by file and qualified name, each with the reason.
ALLOWED: dict[tuple[str, str], str] = {}


def _functions(tree: ast.AST, prefix: str = ""):
    """``(qualified name, node)`` of every function in ``tree``, methods and nested ones too."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = prefix + node.name
            if not isinstance(node, ast.ClassDef):
                yield name, node
            yield from _functions(node, name + ".")
        elif not isinstance(node, ast.expr):  # a def is a statement: no need to search expressions
            yield from _functions(node, prefix)


@cache
def long_functions() -> dict[tuple[str, str], int]:
    """The functions over :data:`MAX_LINES` lines: ``(file, qualified name) -> lines``."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_bytes(), str(path))
            for name, node in _functions(tree):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_LINES:
                    found[(path.relative_to(ROOT).as_posix(), name)] = lines
    return found


def test_no_function_is_over_the_line_limit():
    over = {key: lines for key, lines in long_functions().items() if key not in ALLOWED}
    assert not over, f"functions over {MAX_LINES} lines; split them into helpers: " + "; ".join(
        f"{path} {name} ({lines} lines)" for (path, name), lines in sorted(over.items())
    )


def test_every_allowed_long_function_still_needs_it():
    shortened = sorted(set(ALLOWED) - set(long_functions()))
    assert not shortened, f"no longer over {MAX_LINES} lines; remove from ALLOWED: {shortened}"
