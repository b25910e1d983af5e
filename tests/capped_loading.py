"""Load files in a fresh interpreter under a memory cap and a time cap per file, and report
how each load ended: ``ok``, ``refused`` (a ``ValueError``, with its message) or
``failed`` (any other exception, a timeout or a memory blow-up, with the traceback).

One interpreter loads a whole batch (importing torch costs seconds; a case costs
milliseconds). Its address space is capped at what it uses after the imports plus
``extra_bytes`` (``RLIMIT_AS``), so that a loader allocating more fails with
``MemoryError`` (or dies) instead of taking the machine; a case running longer than
``seconds`` is interrupted (``SIGALRM``), and the batch as a whole is killed after
``seconds`` per case (a hang in C code that the alarm cannot interrupt).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Memory the loads may use above the interpreter's own (the issue's cap: 1.5 GiB).
EXTRA_BYTES = 3 << 29

_WORKER = r"""
import json, os, resource, signal, sys, traceback

import agents
from agents import checkpoint
from yaniv_env.yaniv import records

extra, seconds = int(sys.argv[1]), int(sys.argv[2])


class Timeout(BaseException):
    pass


def alarm(signum, frame):
    raise Timeout(f"still loading after {seconds} s")


LOADERS = {
    "agent": lambda path: agents.load(path),
    "metadata": checkpoint.read_metadata,
    "replay": records.load,
}
# import what loading imports lazily (torch's operators, Stable-Baselines3) before the caps:
# an import interrupted by the alarm would leave torch half initialised for the next cases
agents.load(agents.SHIPPED_MODEL)
import sb3_contrib  # noqa: E402,F401

pages = int(open("/proc/self/statm").read().split()[0])
cap = pages * os.sysconf("SC_PAGE_SIZE") + extra
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
signal.signal(signal.SIGALRM, alarm)
for line in sys.stdin:
    kind, path = json.loads(line)
    signal.alarm(seconds)
    try:
        LOADERS[kind](path)
        out = {"end": "ok"}
    except ValueError as e:
        out = {"end": "refused", "message": str(e)}
    except BaseException as e:
        out = {"end": "failed", "message": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
    finally:
        signal.alarm(0)
    print(json.dumps(out), flush=True)
"""


def load_capped(cases: list[tuple[str, Path]], *, extra_bytes: int = EXTRA_BYTES, seconds: int = 20) -> list[dict]:
    """How each ``(loader, path)`` of ``cases`` ended (``loader``: ``agent`` for
    ``agents.load`` untrusted, ``metadata`` for ``agents.checkpoint.read_metadata``,
    ``replay`` for ``yaniv_env.yaniv.records.load``), in order: dicts with ``end`` and ``message``.
    A batch that dies or hangs reports ``failed`` for the cases it did not finish."""
    stdin = "".join(json.dumps([kind, str(path)]) + "\n" for kind, path in cases)
    try:
        run = subprocess.run(
            [sys.executable, "-c", _WORKER, str(extra_bytes), str(seconds)],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60 + seconds * len(cases),
            check=False,
        )
        lines, err = run.stdout.splitlines(), run.stderr[-2000:]
    except subprocess.TimeoutExpired as e:
        lines, err = (e.stdout or b"").decode().splitlines(), "the batch hung"
    results = [json.loads(line) for line in lines]
    dead = {"end": "failed", "message": f"the loading process ended early: {err}"}
    return results + [dead] * (len(cases) - len(results))


def assert_bounded(cases: list[tuple[str, Path]], results: list[dict]) -> None:
    """Every case loaded or was refused with a ``ValueError``: nothing else."""
    failed = [(c, r) for c, r in zip(cases, results, strict=True) if r["end"] not in ("ok", "refused")]
    assert not failed, "\n".join(f"{c}: {r['message']}\n{r.get('traceback', '')}" for c, r in failed[:5])
