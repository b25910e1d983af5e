"""Speed of the batched engine: random play inside the kernels (``yaniv bench`` calls this).

Each game of the batch picks uniformly among its legal actions with a counter-based
SplitMix64 stream of its own (no Python per decision), and a finished game restarts at once,
so the figures are the engine's. A *turn* is one player's whole turn (``state.turns``, as in
the scalar rows of ``yaniv bench``); decisions (discard, draw, slam, ...) are reported too.
One core: the kernel over the whole batch; two cores (when the process may use two CPUs,
:func:`yaniv_env.core.cpus.available_cpus`): the same kernel on two threads, each playing
half of the games (:func:`yaniv_env.core.cpus.in_threads`).
"""

from __future__ import annotations

import resource
import time

import numpy as np

from ..core.cpus import available_cpus, in_threads
from ..yaniv.batched import kernels as K
from ..yaniv.batched.engine import BatchedYaniv, compile_seconds


def _play(eng: BatchedYaniv, threads: int, seconds: float, seed: int) -> dict[str, float]:
    B = eng.num_envs
    rs = eng._result_arrays()
    play_key = (np.arange(B, dtype=np.uint64) + np.uint64(seed)) * np.uint64(0x9E3779B97F4A7C15)
    done = np.zeros((B, 3), np.int64)
    # decisions per game per call: 20,000 decisions a call, enough that a call's own cost vanishes
    per_call = max(1, 20_000 // B)

    def play(decisions: int) -> None:
        in_threads(lambda lo, hi: K.random_play(eng._st, eng._tb, rs, lo, hi, decisions, play_key, done), B, threads)

    first = time.perf_counter()
    play(1)  # compiles or loads the kernel on first use
    first = time.perf_counter() - first
    done[:] = 0
    g = eng._st[0]
    turns_start = g[:, K.G_TURNS].copy()
    calls = 0
    cpu_start = time.process_time()
    start = time.perf_counter()
    while True:
        play(per_call)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    cpu = time.process_time() - cpu_start
    turns = int(done[:, 0].sum() + (g[:, K.G_TURNS] - turns_start).sum())
    decisions = calls * per_call * B
    return {
        "turns_per_s": turns / elapsed,
        "decisions_per_s": decisions / elapsed,
        "games_per_s": int(done[:, 2].sum()) / elapsed,
        "turns": turns,
        "decisions": decisions,
        "seconds": elapsed,
        "cpu_seconds": cpu,
        "first_call_seconds": first,
    }


def bench_batched(
    rules,
    seconds: float,
    seed: int = 0,
    sizes: tuple[int, ...] = (1, 64, 1024),
    threads: tuple[int, ...] | None = None,
) -> dict:
    """Batched random play at each batch size and thread count (default: 1, and 2 when two
    CPUs are available), the compile (or cache load) time apart, and the memory of a
    1,024-game batch. A thread count above the CPUs available raises ``ValueError``."""
    cpus = available_cpus()
    if threads is None:
        threads = (1, 2) if cpus >= 2 else (1,)
    elif any(t < 1 or t > cpus for t in threads):
        raise ValueError(f"threads must be between 1 and the {cpus} CPU(s) this process may use, got {threads}")
    result: dict = {"compile_seconds": compile_seconds(), "runs": {}}
    for t in threads:
        for B in sizes:
            eng = BatchedYaniv(rules, num_envs=B, seed=seed)
            result["runs"][f"B={B},threads={t}"] = {"batch": B, "threads": t, **_play(eng, t, seconds, seed)}
    eng = BatchedYaniv(rules, num_envs=1024, seed=seed)
    state_bytes = sum(a.nbytes for a in eng._st)
    batch_bytes = state_bytes + eng.legal_masks().nbytes + eng.observations().nbytes
    result["memory_B1024"] = {
        "state_mb": state_bytes / 2**20,
        "state_masks_observations_mb": batch_bytes / 2**20,
        "process_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    return result
