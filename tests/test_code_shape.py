"""Code that says what it is (issue 34): no function in the packages runs over
:data:`MAX_LINES` lines; a longer one is split into helpers that read as its steps (the
Numba kernels too: their helpers on a decision's path are inlined, ``inline="always"``).
And a training phase is passed values, not the bag: only the learners' top levels
(:data:`PLAN_READERS`) take the run's :class:`training.plan.Plan`; each phase gets its
settings."""

from __future__ import annotations

import ast
import re
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


#: The functions that may take a run's :class:`training.plan.Plan` (a parameter named ``plan``
#: or annotated with ``Plan``), by file and qualified name, each with the reason: the learners'
#: top levels read the plan and hand each phase its settings, as values.
PLAN_READERS: dict[tuple[str, str], str] = {
    ("training/train.py", "run"): "the top level of yaniv train (MaskablePPO's phases, or the lean learner's run)",
    ("training/ppo.py", "run"): "the lean learner's top level",
    ("training/ppo.py", "train"): "the lean learner's training (its run, notebooks and the benchmark call it)",
}


def _names_plan(annotation: ast.expr | None) -> bool:
    """Whether an annotation names ``Plan`` (a name, an attribute or a string annotation)."""
    for node in ast.walk(annotation) if annotation is not None else ():
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
        if name == "Plan" or re.search(r"\bPlan\b", text):
            return True
    return False


def _takes_plan(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    a = node.args
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(p for p in (a.vararg, a.kwarg) if p is not None)]
    return any(p.arg == "plan" or _names_plan(p.annotation) for p in params)


def plan_takers(root: Path = ROOT) -> set[tuple[str, str]]:
    """``(file, qualified name)`` of the functions of ``training`` that take a ``Plan``."""
    return {
        (path.relative_to(root).as_posix(), name)
        for path in sorted((root / "training").rglob("*.py"))
        for name, node in _functions(ast.parse(path.read_bytes(), str(path)))
        if _takes_plan(node)
    }


def test_the_plan_finder_sees_each_way_of_taking_the_plan(tmp_path):
    """The checker itself: a ``plan`` parameter, a ``Plan`` annotation (plain, dotted, in a
    string or a union), a method's; not a settings value nor a function returning a plan."""
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "phase.py").write_text(
        "from training import plan as p\n"
        "def named(plan): ...\n"
        "def plain(x, *, settings: Plan): ...\n"
        "def dotted(x: p.Plan | None = None): ...\n"
        "def quoted(x: 'Plan'): ...\n"
        "class Phase:\n"
        "    def __init__(self, x: Plan): ...\n"
        "def values(settings: EvalSettings, plans: list[int]) -> Plan: ...\n"
        "def planned(x: 'PlanB'): ...\n"
    )
    found = {name for _, name in plan_takers(tmp_path)}
    assert found == {"named", "plain", "dotted", "quoted", "Phase.__init__"}


def test_only_the_learners_take_the_plan():
    below = sorted(plan_takers() - set(PLAN_READERS))
    assert not below, f"functions below the learners' top level that take the Plan; pass them values: {below}"


def test_every_plan_reader_still_takes_it():
    gone = sorted(set(PLAN_READERS) - plan_takers())
    assert not gone, f"no longer take the Plan; remove from PLAN_READERS: {gone}"
