"""The documentation site: every ```python block of ``docs/**/*.md`` runs, the reST-to-Markdown
conversion of the API pages does what it says, and ``mkdocs build --strict`` passes.

A page's blocks run in order as one script, as a fresh Python process would run them (in a
fork of a preloaded interpreter: :mod:`forked`), in a temporary directory (files the
examples write land there). A block preceded by
``<!-- tested-by: tests/FILE.py ... -->`` is run by that test instead (at a smaller size):
the marker must name a test file that reads the page.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from forked import run_python

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BLOCK = re.compile(r"^(<!-- tested-by: (\S+).*?-->\n)?```python\n(.*?)^```", re.S | re.M)
#: Seconds a page's script may take: seconds in practice; the margin covers a first use of
#: the batched engine on a machine with an empty Numba cache (compiling its kernels).
PAGE_TIMEOUT = 600


def _pages() -> dict[str, list[str]]:
    """Each page (relative path) with its python blocks to run here, in order."""
    pages = {}
    for path in sorted(DOCS.rglob("*.md")):
        blocks = [code for marker, _, code in BLOCK.findall(path.read_text(encoding="utf-8")) if not marker]
        if blocks:
            pages[str(path.relative_to(DOCS))] = blocks
    return pages


def test_docs_have_examples_and_markers_name_their_tests():
    with_examples = {"index.md", "environments/aec.md", "environments/gymnasium.md", "environments/vector.md"}
    assert with_examples | {"environments/pis-yedili.md", "agents/index.md"} <= set(_pages())
    for path in DOCS.rglob("*.md"):
        text = path.read_text(encoding="utf-8")
        for marker, test, _ in BLOCK.findall(text):
            if marker:
                test_file = ROOT / test
                assert test_file.is_file(), f"{path}: {test} does not exist"
                assert str(path.relative_to(ROOT)).split("/", 1)[1] in test_file.read_text(encoding="utf-8"), (
                    f"{test} does not read {path}"
                )


def run_script(script: str, cwd: Path) -> subprocess.CompletedProcess:
    """``script`` as a fresh Python process would run it in ``cwd`` (:mod:`forked`), importing
    this checkout's packages (tests/test_readme.py runs the README's examples with it too)."""
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    return run_python(script, cwd, dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=path), PAGE_TIMEOUT)


@pytest.mark.parametrize("page", sorted(_pages()))
def test_page_examples_run(page, tmp_path):
    proc = run_script("\n\n".join(_pages()[page]), tmp_path)
    assert proc.returncode == 0, f"docs/{page}:\n{proc.stderr[-3000:]}"


def _griffe_rst():
    pytest.importorskip("griffe")
    spec = importlib.util.spec_from_file_location("griffe_rst", DOCS / "griffe_rst.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rest_constructs_become_markdown():
    convert = _griffe_rst().rst_to_markdown
    text = """Intro with :class:`yaniv_env.Rules` and :func:`~agents.make` and :mod:`numpy`.

.. code-block:: python

    x = 1
    y = 2

Action ids::

    0 draw   1 call

==========  =======================
Import      ``env()``; registered
            as ``Yaniv-v0``
Agents      ``player_0``
==========  =======================

``rules``       a preset
                name
``num_players`` players
after"""
    out = convert(text)
    assert '<autoref identifier="yaniv_env.Rules" optional><code>yaniv_env.Rules</code></autoref>' in out
    assert '<autoref identifier="agents.make" optional><code>make</code></autoref>' in out
    assert "`numpy`" in out and ":mod:" not in out
    assert "```python\nx = 1\ny = 2\n```" in out
    assert "Action ids:\n\n```text\n0 draw   1 call\n```" in out
    assert "| Import | ``env()``; registered as ``Yaniv-v0`` |" in out
    assert "| Agents | ``player_0`` |" in out
    assert "* ``rules``: a preset name\n* ``num_players``: players" in out


def test_rest_table_with_header():
    convert = _griffe_rst().rst_to_markdown
    out = convert("=====  =====\nname   value\n=====  =====\na      1\nb      2\n=====  =====\n")
    assert out.splitlines()[:4] == ["| name | value |", "|---|---|", "| a | 1 |", "| b | 2 |"]
    # a role in a cell: the columns are those of the text as written
    out = convert("====================  ====\n:mod:`training.stats`  ok\n====================  ====\n")
    assert '| <autoref identifier="training.stats" optional><code>training.stats</code></autoref> | ok |' in out
    assert convert("```text\n:mod:`x`\n```") == "```text\n:mod:`x`\n```"


def test_mkdocs_build_strict(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings_handlers") is None:
        pytest.skip('mkdocs is not installed: pip install -e ".[docs]" (CI runs .ci/docs)')
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-5000:]
    site = tmp_path / "site"
    assert (site / "environments" / "aec" / "index.html").is_file()
    # strict mode does not check images: each one a page shows must be in the site (the notes'
    # learning curves live under docs/results/, most of which the site leaves out)
    shown = [
        (page, (page.parent / src).resolve())
        for page in site.rglob("*.html")
        for src in re.findall(r'<img[^>]* src="([^"#?:]+)"', page.read_text(encoding="utf-8"))
    ]
    assert any("results" in image.parts for _, image in shown)
    missing = sorted({f"{page.relative_to(site)}: {image}" for page, image in shown if not image.is_file()})
    assert not missing, missing
    print(f"mkdocs build --strict: {time.perf_counter() - start:.1f} s")


def test_import_graph_pictures_are_drawn_from_the_imports(tmp_path):
    spec = importlib.util.spec_from_file_location("draw_imports", DOCS / "draw_imports.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    arrows, lines = module.package_graph("yaniv_env", ROOT)
    level = module.floors(arrows, module.circles(arrows))
    assert arrows["core"] == set() and level["core"] == 0
    assert level["tools"] > level["yaniv"] > level["core"] and lines["yaniv"] > 1000
    assert module.floors({"a": {"b"}, "b": {"a", "c"}, "c": set()}, [["a", "b"]]) == {"a": 1, "b": 1, "c": 0}
    module.main(["yaniv_env", str(tmp_path / "graph.png")])
    assert (tmp_path / "graph.png").read_bytes()[:4] == b"\x89PNG"


def test_scripts_run_as_a_fresh_interpreter_would(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), CHECK="yes")
    first = run_python(
        "import os, sys, numpy\nnumpy.left_behind = 1\nopen('here.txt', 'w').write(os.environ['CHECK'])\n"
        "print(__name__, sorted(m for m in sys.modules if m.split('.')[0] in ('yaniv_env', 'agents', 'training')))",
        tmp_path,
        env,
        60,
    )
    assert (first.returncode, first.stdout) == (0, "__main__ []\n") and (tmp_path / "here.txt").read_text() == "yes"
    second = run_python("import numpy\nprint(hasattr(numpy, 'left_behind'))\nleft_behind", tmp_path, env, 60)
    assert (second.returncode, second.stdout) == (1, "False\n") and "NameError: name 'left_behind'" in second.stderr
    assert run_python("raise SystemExit(3)", tmp_path, env, 60).returncode == 3
    said = run_python("import sys\nsys.exit('a message')", tmp_path, env, 60)
    assert (said.returncode, said.stderr) == (1, "a message\n")
    with pytest.raises(subprocess.TimeoutExpired):
        run_python("import time\ntime.sleep(30)", tmp_path, env, 1)
    assert run_python("print('after a timeout')", tmp_path, env, 60).stdout == "after a timeout\n"
