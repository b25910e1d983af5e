"""The repository's import graph read from the source, for the layering tests: every
``import`` statement (at module level, inside functions, under ``TYPE_CHECKING``) is an
arrow between modules, and :func:`circles` finds the circles among them."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def module_name(path: Path, root: Path = ROOT) -> str:
    """``a/b/c.py`` is ``a.b.c``; ``a/b/__init__.py`` is ``a.b``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(packages, root: Path = ROOT) -> dict[str, Path]:
    """Every module of ``packages`` (top-level package names under ``root``) and its file."""
    return {module_name(p, root): p for pkg in packages for p in sorted((root / pkg).rglob("*.py"))}


def imported(module: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``module`` (the file ``path``) imports anywhere in its code.
    ``from package import name`` points at ``package.name`` when that is a module, else at
    ``package``; a relative import is resolved against ``module``'s package."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names = {f"{source}.{alias.name}" for alias in node.names} & known
            # ``from P import m`` of a submodule ``m`` is an arrow to ``P.m`` only
            out.update(names if len(names) == len(node.names) else names | {source})
    return {name for name in out if name in known and name != module}


def graph(packages, root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the modules of ``packages`` it imports."""
    found = modules(packages, root)
    known = set(found)
    return {name: imported(name, path, known) for name, path in found.items()}


def circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(arrows.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(arrows):
        if v not in index:
            visit(v)
    return found


def say(found: list[list[str]]) -> str:
    return "import circles (function-level imports included):\n" + "\n".join(" -> ".join(c) for c in found)
