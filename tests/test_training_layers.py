"""The layers of ``agents`` and ``training`` read from the source (:mod:`import_graph`): every ``import`` statement
(at module level, inside functions, under ``TYPE_CHECKING``) is an arrow: ``agents`` never
points at ``training``, and the evaluation package
(``agents.evaluation``) is used by training but by no other part of ``agents``."""

from __future__ import annotations

import import_graph
from import_graph import circles, imported

PACKAGES = ("agents", "training")


def graph() -> dict[str, set[str]]:
    return import_graph.graph(PACKAGES)


def test_the_finder_sees_a_circle_through_a_function_level_import(tmp_path):
    """The checker itself: a circle closed by an import inside a function is found."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import f\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n")
    (pkg / "c.py").write_text("import pkg.a\n")
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c"}
    arrows = {name: imported(name, pkg / f"{name.split('.')[-1]}.py", known) for name in ("pkg.a", "pkg.b", "pkg.c")}
    assert arrows == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": {"pkg.a"}}
    assert circles(arrows) == [["pkg.a", "pkg.b"]]


def test_agents_never_import_training():
    arrows = graph()
    wrong = {m: sorted(t for t in ts if t.startswith("training")) for m, ts in arrows.items() if m.startswith("agents")}
    wrong = {m: ts for m, ts in wrong.items() if ts}
    assert not wrong, f"modules of agents that import training: {wrong}"


def test_evaluation_is_used_by_training_only():
    """``agents.evaluation`` imports ``agents`` and ``yaniv_env`` only (checked above for
    ``training``), and no other module of ``agents`` imports it."""
    arrows = graph()
    inside = [m for m in arrows if m == "agents.evaluation" or m.startswith("agents.evaluation.")]
    assert "agents.evaluation.runner" in inside and "agents.evaluation.harness" in inside
    users = {m for m, ts in arrows.items() if m.startswith("agents") and m not in inside and set(ts) & set(inside)}
    assert not users, f"modules of agents that import the evaluation package: {sorted(users)}"
    assert any("agents.evaluation" in ts for m, ts in arrows.items() if m.startswith("training"))
