"""The CPUs this process may run on: the one place thread and worker counts are read from,
the one pool of worker processes the tools share (:func:`map_in_processes`) and the one way
compiled kernels are spread over threads (:func:`in_threads`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from itertools import pairwise
from typing import TypeVar

_Job = TypeVar("_Job")
_Result = TypeVar("_Result")


def available_cpus() -> int:
    """CPUs this process may run on: its affinity set where the system has one (``taskset``,
    a container's CPU set, a batch scheduler's allocation), else ``os.cpu_count()``; at
    least 1. ``os.cpu_count()`` alone counts the machine's CPUs, so a process limited to one
    would start more threads than it may use (Numba refuses them: "The number of threads
    must be between 1 and 1")."""
    if hasattr(os, "sched_getaffinity"):  # Linux; macOS and Windows have no affinity call
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def map_in_processes(function: Callable[[_Job], _Result], jobs: Iterable[_Job], workers: int) -> Iterator[_Result]:
    """``function`` over ``jobs``, each result as soon as it is ready: in this process, in
    job order, when ``workers`` <= 1 or there is one job; else in a pool of
    ``min(workers, len(jobs))`` worker processes, in the order the jobs finish. The workers
    are spawned, not forked: the parent may run threads (a fork would copy their locks).
    ``function`` must be importable by name (a module-level function). A job's exception is
    raised here and stops the pool."""
    jobs = list(jobs)
    if workers <= 1 or len(jobs) <= 1:
        yield from map(function, jobs)
        return
    import multiprocessing

    # an executor, not multiprocessing.Pool: Pool's terminate() after a job's exception
    # could hang on its defunct workers; here the jobs not started are cancelled and the
    # running ones finish before the exception leaves
    spawn = multiprocessing.get_context("spawn")
    executor = ProcessPoolExecutor(min(workers, len(jobs)), mp_context=spawn)
    try:
        for future in as_completed([executor.submit(function, job) for job in jobs]):
            yield future.result()
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


_pools: dict[int, ThreadPoolExecutor] = {}  # thread count -> its pool


def _forget_threads() -> None:
    # a forked child has none of its parent's threads: a pool copied from the parent would
    # never run what it is given
    _pools.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_threads)


def in_threads(work: Callable[[int, int], None], rows: int, threads: int) -> None:
    """``work(lo, hi)`` over ``threads`` contiguous slices of ``range(rows)`` (as even as
    they can be), each on a thread of its own, returning when all are done; in this thread
    when ``threads`` (at most ``rows``) is 1. ``work`` must release the GIL to run side by side (a Numba kernel
    compiled with ``nogil=True``) and its slices must not write to each other's rows. The
    threads are kept for the next call and wait without spinning; the caller's compiled
    kernel is the same one a single thread runs (no parallel variant to compile). A
    thread's exception is raised here."""
    threads = min(threads, rows)
    if threads <= 1:
        work(0, rows)
        return
    pool = _pools.get(threads)
    if pool is None:
        pool = _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix="yaniv-kernel")
    bounds = [rows * c // threads for c in range(threads + 1)]
    for future in [pool.submit(work, lo, hi) for lo, hi in pairwise(bounds)]:
        future.result()


__all__ = ["available_cpus", "in_threads", "map_in_processes"]
