"""The CPUs this process may run on: the one place thread and worker counts are read from,
and the one pool of worker processes the tools share (:func:`map_in_processes`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
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
    are spawned, not forked: the parent may run Numba's threads (a fork would copy their
    locks). ``function`` must be importable by name (a module-level function). A job's
    exception is raised here and stops the pool."""
    jobs = list(jobs)
    if workers <= 1 or len(jobs) <= 1:
        yield from map(function, jobs)
        return
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
        yield from pool.imap_unordered(function, jobs)


__all__ = ["available_cpus", "map_in_processes"]
