"""Playing the games of an evaluation (:mod:`agents.evaluation.schedule`), in this process or in
worker processes, by one loop (:func:`agents.evaluation.loop.play_games`) on the scalar engine
(:class:`~agents.evaluation.scalar_runner.ScalarRunner`, any game and agent) or the batched
one (:class:`~agents.evaluation.batched_runner.BatchedRunner`); both give the same
:class:`~agents.evaluation.records.GameRecord` list."""

from __future__ import annotations

import math
import multiprocessing
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager

from agents.evaluation.progress import progress_bar
from agents.evaluation.records import GameRecord
from agents.evaluation.scalar_runner import ScalarRunner

_WORKER: dict = {}


def make_runner(specs, labels, rules, n, episode, engine_name: str = "scalar"):
    """The runner of ``engine_name``: ``"scalar"`` (the AEC environment, any game and agent)
    or ``"batched"`` (:class:`agents.evaluation.batched_runner.BatchedRunner`); both play the same games."""
    if engine_name == "batched":
        from agents.evaluation.batched_runner import BatchedRunner

        return BatchedRunner(specs, labels, rules, n, episode)
    return ScalarRunner(specs, labels, rules, n, episode)


def _run_chunk(common: tuple, jobs: list[tuple]) -> list[GameRecord]:
    """Worker entry point (module level, so it works with the spawn start method)."""
    run_id, specs, labels, rules, n, episode, record_until, engine_name = common
    if _WORKER.get("run") != run_id:
        _WORKER.clear()
        _WORKER["run"] = run_id
        _WORKER["runner"] = make_runner(specs, labels, rules, n, episode, engine_name)
    _one_torch_thread()
    records = _WORKER["runner"].play_jobs(jobs, record_until)
    _one_torch_thread()  # the scalar runner builds its agents as it meets them
    return records


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """One torch thread while games are played in this process (a trained entrant's forward
    passes are a few rows each: a second thread slows them down when the other cores are
    busy, ``docs/experiments/2026-11-25-speed.md``), the caller's setting restored afterwards."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else 1
    _one_torch_thread()
    try:
        yield
    finally:
        if before != 1:
            torch.set_num_threads(before)


def _one_torch_thread() -> None:
    """Once a trained entrant has loaded torch: one thread per worker process, or the
    workers oversubscribe the cores."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)


def run_jobs(
    specs, labels, rules, n, episode, jobs, workers, progress, record_until, desc="yaniv eval", executor=None,
    engine_name: str = "scalar",
) -> list[GameRecord]:  # fmt: skip
    """The games of ``jobs``, in order: here (``workers`` 1), in a process pool, or by
    ``executor`` (a ``concurrent.futures.Executor``, e.g. ``training.rllib.shards.RayExecutor``),
    on the engine ``engine_name`` (:func:`make_runner`); the shards and so the results are
    the same."""
    total = sum(len(job[3]) for job in jobs)
    bar = progress_bar(total, progress, desc, "games")
    try:
        if workers <= 1 and executor is None:
            runner = make_runner(specs, labels, rules, n, episode, engine_name)
            with one_torch_thread():
                return runner.play_jobs(jobs, record_until, bar.update if bar is not None else None)
        # a batched runner fills its batch from a chunk: fewer, larger chunks
        per_worker = 2 if engine_name == "batched" else 8
        size = max(1, math.ceil(len(jobs) / (workers * per_worker)))
        chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        common = (uuid.uuid4().hex, specs, labels, rules, n, episode, record_until, engine_name)
        results: list[list[GameRecord] | None] = [None] * len(chunks)
        ctx = multiprocessing.get_context("spawn")
        with executor or ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=ctx) as pool:
            futures = {pool.submit(_run_chunk, common, chunk): i for i, chunk in enumerate(chunks)}
            try:
                for fut in as_completed(futures):
                    results[futures[fut]] = fut.result()
                    if bar is not None:
                        bar.update(len(results[futures[fut]]))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
        return [rec for chunk in results for rec in chunk]
    finally:
        if bar is not None:
            bar.close()
