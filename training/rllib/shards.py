"""Tournaments on Ray: ``yaniv eval --ray [ADDRESS]`` plays the evaluation's shards as Ray tasks.

The evaluation harness cuts its schedule into chunks of deals and hands each chunk to an
executor (a process pool with ``--workers``); every game depends only on its deal seed and
seating and the chunks are merged in deal order, so the results are the same whatever
runs the chunks. :class:`RayExecutor` is a ``concurrent.futures.Executor`` whose
``submit`` runs the function as a Ray task (one CPU each) on the local machine or on the
cluster at ``address``: the same shards, another executor, the same numbers as
``--workers`` for the same seed.

Every node must be able to import the entrants (install yaniv-env on each node, as any
code a Ray cluster runs).
"""

from __future__ import annotations

from concurrent.futures import Executor, Future


class RayExecutor(Executor):
    """Runs submitted calls as Ray tasks; ``address``: ``None`` (a local Ray instance with
    ``num_cpus``), ``"auto"`` or ``HOST:PORT`` of a running cluster's head."""

    def __init__(self, address: str | None = None, num_cpus: int | None = None):
        from training.rllib.train import connect, require_ray

        self._started_here = not require_ray().is_initialized()  # leave a caller's Ray session alone
        self._ray = connect(address, num_cpus)
        self._remote = self._ray.remote(num_cpus=1, max_retries=0)(_call)

    @property
    def cpus(self) -> int:
        """CPUs of the cluster (the harness sizes its chunks by it)."""
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def submit(self, fn, /, *args, **kwargs) -> Future:
        return self._remote.remote(fn, args, kwargs).future()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._started_here and self._ray.is_initialized():
            self._ray.shutdown()


def _call(fn, args, kwargs):
    return fn(*args, **kwargs)
