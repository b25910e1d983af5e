"""Every command runs in a process limited to one CPU (``taskset -c 0``, a container's CPU
set): thread and worker counts come from :func:`yaniv_env.core.cpus.available_cpus`, not
from the machine's CPU count."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from yaniv_env.core.cpus import available_cpus, map_in_processes

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")

#: Runs a module as ``python -m`` does, in a process bound to one CPU (the first one this
#: process may use), as ``taskset -c N python -m ...`` would.
_ONE_CPU = """
import os, runpy, sys
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
from yaniv_env.core.cpus import available_cpus
assert available_cpus() == 1, available_cpus()
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def _run_on_one_cpu(*args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", _ONE_CPU, *args], capture_output=True, text=True, cwd=ROOT, timeout=600, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_available_cpus_reads_the_affinity():
    assert available_cpus() == len(os.sched_getaffinity(0)) >= 1


def test_map_in_processes_gives_the_same_results_in_process_and_in_workers():
    """The tools' one job loop: in this process in job order, in spawned workers in the order
    the jobs finish; the same results either way, and a job's error is raised here."""
    assert list(map_in_processes(abs, [-3, 1, -2], workers=1)) == [3, 1, 2]
    assert sorted(map_in_processes(abs, [-3, 1, -2], workers=2)) == [1, 2, 3]
    with pytest.raises(TypeError):
        list(map_in_processes(abs, ["a", "b"], workers=2))


def test_map_in_processes_stops_cleanly_after_an_error_or_an_early_exit():
    """A job's error among many cancels the jobs not started and leaves no worker behind,
    and so does a caller that stops reading after the first result (both used to hang at
    times in ``multiprocessing.Pool``'s ``terminate``)."""
    import multiprocessing

    for _ in range(3):
        with pytest.raises(TypeError):
            list(map_in_processes(abs, [-1, "a", *range(40)], workers=2))
        results = map_in_processes(abs, list(range(40)), workers=2)
        assert next(results) in range(40)
        results.close()
        assert not multiprocessing.active_children()


def test_bench_on_one_cpu():
    pytest.importorskip("numba")
    text = _run_on_one_cpu(
        "yaniv_env.tools.bench", "--seconds", "0.02", "--presets", "standard", "--no-env", "--no-pis", "--players", "2"
    )
    assert "B=1,024, 1 thread" in text and "2 threads" not in text


def test_eval_on_one_cpu():
    text = _run_on_one_cpu("training.cli", "eval", "--agents", "random,greedy", "--games", "4", "--quiet")
    assert "random" in text and "greedy" in text
