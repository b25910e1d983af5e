"""Long commands in logs: progress bars redraw about once a second when standard error is
not a terminal; ``--no-progress`` turns them off; the first compilation of Numba kernels
says so, once, and only when the cache is cold."""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_progress_bar_redraws_about_once_a_second_in_a_log(capsys):
    pytest.importorskip("tqdm")
    from agents.evaluation.progress import LOG_INTERVAL, progress_bar

    assert not sys.stderr.isatty()  # captured: as in a log file or a pipe
    seconds, updates = 2.5, 0
    bar = progress_bar(10**9, True, "test", "steps")
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        bar.update(1)
        updates += 1
        time.sleep(0.001)
    bar.close()
    redraws = capsys.readouterr().err.count("\r")
    # the first draw, one per LOG_INTERVAL, the last (at a terminal's 0.1 s: about 25)
    assert updates > 100 and redraws <= seconds / LOG_INTERVAL + 3, (updates, redraws)


@pytest.mark.parametrize("command", ["eval", "ladder"])
def test_commands_take_no_progress(command):
    out = subprocess.run(
        [sys.executable, "-m", "training.cli", command, "--help"], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert "--no-progress" in out.stdout


def test_train_takes_no_progress():
    from training.cli.train import parse_args

    args, _ = parse_args(["--no-progress"])
    assert args.progress is False


def test_compile_notice_only_when_the_cache_is_cold(tmp_path, monkeypatch, capsys):
    pytest.importorskip("numba")
    from yaniv_env.yaniv.batched.engine import cache_is_cold, compile_notice

    (tmp_path / "fresh_kernel.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef plus_one(x):\n    return x + 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    kernel = importlib.import_module("fresh_kernel").plus_one
    assert cache_is_cold(kernel)
    with compile_notice("the test kernel"), compile_notice("an inner part"):  # nested: silent
        assert kernel(1) == 2
    err = capsys.readouterr().err.splitlines()
    assert (
        len(err) == 2
        and err[0].startswith("compiling the test kernel (first run")
        and err[1].startswith("compiled in ")
    ), err
    assert not cache_is_cold(kernel)  # written to the cache: the next process reads it
