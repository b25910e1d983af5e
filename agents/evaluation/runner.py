"""Playing the games of an evaluation (:mod:`agents.evaluation.schedule`), in this process or in
worker processes, on the scalar engine (:class:`ScalarRunner`, any game and agent) or the
batched one (:class:`agents.evaluation.batched_runner.BatchedRunner`); both give the same
:class:`~agents.evaluation.records.GameRecord` list.

The scalar engine
-----------------
Games are played through ``yaniv_env.raw_env`` with the AEC API (``agent_iter``, ``last``,
``step``; dead steps get ``None``), each agent acting on ``obs["observation"]`` and
``obs["action_mask"]``. ``episode="game"`` (default) plays whole games; ``"round"``
single rounds (a "game win" is then the best round result, as in the environment's
``outcome`` reward).
"""

from __future__ import annotations

import math
import multiprocessing
import sys
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager

from agents.evaluation.entrants import build_agent
from agents.evaluation.progress import progress_bar
from agents.evaluation.records import GameRecord, game_outs, game_record
from yaniv_env import engine
from yaniv_env.games import game_of
from yaniv_env.replay import agent_seed, decide, make_record


class ScalarRunner:
    """One environment and a cache of policies (one per entrant and seat)."""

    def __init__(self, specs: list, labels: list[str], rules, num_players: int, episode: str):
        self.game = game_of(rules)
        self.env = self.game.aec_class(rules=rules, num_players=num_players, episode=episode)
        self.rules = self.env.rules
        self.episode = episode
        self.specs = specs
        self.labels = labels
        self.n = num_players
        self.seat_of = {a: i for i, a in enumerate(self.env.possible_agents)}
        self.cache: dict[tuple[int, int], object] = {}

    def _policy(self, entrant: int, seat: int, seed: int):
        key = (entrant, seat)
        policy = self.cache.get(key)
        reset = getattr(policy, "reset", None)
        if policy is None or not callable(reset):
            policy = build_agent(self.specs[entrant], seed, self.rules)
            self.cache[key] = policy
            reset = getattr(policy, "reset", None)
        if callable(reset):
            reset(seed)
        return policy

    def play_jobs(
        self, jobs: list[tuple], record_until: int = 0, on_games: Callable[[int], None] | None = None
    ) -> list[GameRecord]:
        """The games of ``jobs`` in order, recording the first ``record_until`` games of the
        evaluation; ``on_games(k)`` is called as games finish."""
        records = []
        for deal, seed, base, rotations, first_game in jobs:
            for i, r in enumerate(rotations):
                records.append(self.play(deal, seed, base, r, record=first_game + i < record_until))
            if on_games is not None:
                on_games(len(rotations))
        return records

    def play(self, deal: int, seed: int, base: tuple[int, ...], rotation: int, record: bool = False) -> GameRecord:
        n = self.n
        seats = tuple(base[(s - rotation) % n] for s in range(n))
        policies = [self._policy(seats[s], s, agent_seed(seed, s)) for s in range(n)]
        env = self.env
        env.reset(seed=seed)
        results: list = []  # the RoundResults (Yaniv) or DealResults (Pis Yedili) in order
        steps: list | None = [] if record else None
        notes: list[dict | None] = []  # the agents' annotations of a recorded game
        last = None
        seat_of = self.seat_of
        result_key = self.game.result_key
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            note = None
            if term or trunc:
                action = None
            elif steps is not None:  # recording: with what the agent says of its move (the same move)
                action, note = decide(policies[seat_of[agent]], obs["observation"], obs["action_mask"])
            else:
                action = int(policies[seat_of[agent]].act(obs["observation"], obs["action_mask"]))
            if steps is not None:
                steps.append([agent, action])
                notes.append(note)
            try:
                env.step(action)
            except ValueError as e:
                label = self.labels[seats[seat_of[agent]]]
                raise RuntimeError(f"agent {label!r} ({agent}, deal seed {seed}) made an illegal move: {e}") from None
            if action is not None:
                rr = env.infos[agent].get(result_key)
                if rr is not None and rr is not last:
                    last = rr
                    results.append(rr)
        g = env.game
        yaniv = self.game.name == "yaniv"
        if self.episode == self.game.part and results:
            places = self.game.engine.outcome(g, results[-1]).places
        else:
            places = self.game.engine.ranking(g)
        rep = None
        if steps is not None and yaniv:
            labels = [self.labels[e] for e in seats]
            rep = make_record(self.rules, n, seed, steps, g, episode=self.episode, labels=labels, annotations=notes)
        return game_record(
            deal, seed, rotation, seats, results, places, g.scores,
            turns=g.turns if yaniv else sum(rr.turns for rr in results),
            truncated=bool(
                getattr(g, "game_truncated", False)
                or (results and results[-1].truncated and self.episode == self.game.part)
            ),
            outs=game_outs(self.rules, results, g.phase == engine.GAME_OVER) if yaniv else [],
            replay=rep,
        )  # fmt: skip


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
    passes are a few rows each: a second thread made them twenty times slower with the
    other core busy), the caller's setting restored afterwards."""
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
