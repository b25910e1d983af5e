"""``python -c SCRIPT`` without paying its start-up each time: the scripts of the docs pages and
the README run in forks of one interpreter per test worker that has already imported the heavy
third-party libraries (numpy, Numba, torch, Gymnasium, PettingZoo, Stable-Baselines3), as
``tests/test_layering.py``'s import probe does. Importing them is most of a short example's
time (seconds each, in every example).

Each script runs in a child forked from that interpreter as it was after those imports (none
imports this project: checked when it starts), as ``__main__`` in a fresh namespace, in its
own working directory, with its own environment and output files: nothing of one script
reaches the next. Where ``os.fork`` is missing, each script gets a fresh interpreter."""

from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

#: What the interpreter imports before it forks (those installed).
HEAVY = ("numpy", "numba", "torch", "gymnasium", "pettingzoo", "stable_baselines3", "sb3_contrib")
#: This project's packages, which must not be imported before a script imports them.
PROJECT = ("yaniv_env", "agents", "training")

_SERVER = r"""
import builtins, importlib, json, os, sys, traceback


def serve(preload, project):
    for name in preload:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    ours = {name.split(".")[0] for name in sys.modules} & set(project)
    if ours:
        raise SystemExit(f"preloading {preload} imported {sorted(ours)}")
    replies = os.fdopen(os.dup(1), "w")
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            run(job)
        _, status = os.waitpid(pid, 0)
        replies.write(json.dumps(os.waitstatus_to_exitcode(status)) + "\n")
        replies.flush()


def run(job):
    import builtins, os, sys, traceback  # locals: the module's globals are cleared below

    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    for fd, path in ((1, job["stdout"]), (2, job["stderr"])):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
    sys.argv = ["-c"]
    main = sys.modules["__main__"].__dict__  # as `python -c`: the script's globals are __main__'s
    main.clear()
    main.update(__name__="__main__", __builtins__=builtins)
    code = 0
    try:
        exec(compile(job["script"], "<string>", "exec"), main)
    except SystemExit as e:
        if isinstance(e.code, int) or e.code is None:
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


serve(*json.loads(sys.argv[1]))
"""


class _Server:
    """One forking interpreter, started with ``env`` (its ``sys.path`` and the libraries'
    settings read at import)."""

    def __init__(self, env: dict[str, str]):
        self.env = env
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER, json.dumps([HEAVY, PROJECT])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=tempfile.gettempdir(),
            env=env,
            start_new_session=True,  # a timeout kills its children too
        )

    def run(self, script: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory() as outputs:
            out, err = Path(outputs) / "stdout", Path(outputs) / "stderr"
            job = {"script": script, "cwd": str(cwd), "env": self.env, "stdout": str(out), "stderr": str(err)}
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
            with selectors.DefaultSelector() as waiting:
                waiting.register(self.proc.stdout, selectors.EVENT_READ)
                if not waiting.select(timeout):
                    self.close()
                    raise subprocess.TimeoutExpired(["python", "-c", "..."], timeout)
            reply = self.proc.stdout.readline()
            if not reply:
                self.close()
                raise RuntimeError(f"the forking interpreter died (exit status {self.proc.wait()})")
            return subprocess.CompletedProcess(
                ["python", "-c", script],
                json.loads(reply),
                out.read_text(errors="replace"),
                err.read_text(errors="replace"),
            )

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


_servers: dict[tuple, _Server] = {}


def run_python(script: str, cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """``subprocess.run([sys.executable, "-c", script], cwd=cwd, env=env, timeout=timeout,
    capture_output=True, text=True)``, in a fork of a preloaded interpreter (one per ``env``,
    ``PYTEST_CURRENT_TEST`` aside)."""
    if not hasattr(os, "fork"):
        return subprocess.run(
            [sys.executable, "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
        )
    key = tuple(sorted((k, v) for k, v in env.items() if k != "PYTEST_CURRENT_TEST"))
    server = _servers.get(key)
    if server is None or server.proc.poll() is not None:
        server = _servers[key] = _Server(env)
    try:
        return server.run(script, cwd, timeout)
    finally:
        if server.proc.poll() is not None:
            _servers.pop(key, None)


@atexit.register
def _close_servers() -> None:
    for server in _servers.values():
        server.close()
