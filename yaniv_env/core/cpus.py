"""The CPUs this process may run on: the one place thread and worker counts are read from."""

from __future__ import annotations

import os


def available_cpus() -> int:
    """CPUs this process may run on: its affinity set where the system has one (``taskset``,
    a container's CPU set, a batch scheduler's allocation), else ``os.cpu_count()``; at
    least 1. ``os.cpu_count()`` alone counts the machine's CPUs, so a process limited to one
    would start more threads than it may use (Numba refuses them: "The number of threads
    must be between 1 and 1")."""
    if hasattr(os, "sched_getaffinity"):  # Linux; macOS and Windows have no affinity call
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


__all__ = ["available_cpus"]
