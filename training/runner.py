"""Playing the games of an evaluation: entrants, the schedule of deals and seats, and the
games themselves (in this process or in worker processes). :mod:`training.evaluate` is the
entry point; :mod:`training.stats` turns the :class:`GameRecord` list into estimates.

Entrants
--------
Each entrant is an agent *spec*: a registered name for ``agents.make`` (``"random"``,
``"heuristic"``...), a path to a trained ``.zip`` model (``agents.load``), or a
``(label, factory)`` pair where ``factory(seed=..., rules=...)`` returns a policy (a factory
may also be a name or a path, to relabel it). With ``workers > 1`` specs are sent to other
processes, so a factory must be picklable (a module-level function or class, no lambda).
Repeated labels get ``#1``, ``#2``... suffixes.

Games and seats
---------------
Games are played through ``yaniv_env.raw_env`` with the AEC API (``agent_iter``, ``last``,
``step``; dead steps get ``None``), each agent acting on ``obs["observation"]`` and
``obs["action_mask"]``. ``episode="game"`` (default) plays whole games; ``"round"``
single rounds (a "game win" is then the best round result, as in the environment's
``outcome`` reward).

A fixed list of *deal seeds* is derived from ``seed`` (:func:`deal_seeds`). The deal seed
seeds the environment's generator (deal, lots, reshuffles); the agent at seat ``s`` gets
its own seed ``yaniv_env.replay.agent_seed(deal_seed, s)`` (through ``reset(seed)`` when the
agent has it, else a fresh agent is built per game), so every game depends only on its deal
seed and seating and the results do not depend on ``workers``.

With ``k`` entrants and ``n`` seats: for ``k <= n`` one table seats the entrants
cyclically (``n = k = 2``: head to head; 2 entrants at 4 seats: ``A B A B``); for
``k > n`` the deals go round every pairing (``n = 2``) or random tables of ``n`` distinct
entrants (``n > 2``), interleaved deal by deal. :meth:`EvalResult.matchups` gives the
head-to-head results of each pair of entrants.

* **Duplicate format** (``duplicate=True``, default): each deal is replayed with the seating
  rotated through all ``n`` rotations (rotations giving the same seating are played once),
  so every entrant plays every seat with the same cards. ``games`` is the total number of
  games: :func:`training.evaluate.evaluate` refuses a count that is not a whole number of
  deals (:func:`game_multiple`: 2 agents at 2 seats, multiples of 2; at 3 seats, A B A has 3
  distinct seatings, multiples of 3; at 4 seats A B A B has 2) and says which counts work.
  Two copies of one agent therefore play the same game in both rotations and score
  exactly half each: a quick sanity check of the format.
* ``duplicate=False``: each deal is played once; the seating still rotates from deal to deal
  so that seats stay balanced.

:func:`league` plays the same schedule (games split evenly over the pairings) and adds
ratings.
"""

from __future__ import annotations

import ast
import itertools
import math
import multiprocessing
import pickle
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from training.progress import progress_bar
from yaniv_env import engine
from yaniv_env.games import game_of
from yaniv_env.replay import agent_seed, decide, make_record
from yaniv_env.rules import Rules

EntrantSpec = str | tuple[str, Callable | str]

#: Per-seat counters of a game, in the order of :attr:`GameRecord.seat_stats`: games, win
#: share, rounds, round wins, points, calls, successful calls, beaten calls.
SEAT_COUNTERS = ("games", "wins", "rounds", "round_wins", "points", "calls", "calls_ok", "calls_beaten", "milestones")


# -- entrants ---------------------------------------------------------------------------------


def split_agents(text: str) -> list[str]:
    """A comma-separated agent list split at the commas outside parentheses:
    ``"heuristic(mu=4, bias=0),random"`` → ``["heuristic(mu=4, bias=0)", "random"]``."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


@dataclass(frozen=True)
class AgentWithOptions:
    """A registered agent made with keyword options (``agents.make(name, **options)``),
    from the text ``NAME(key=value, ...)`` (:meth:`parse`); picklable, so that worker
    processes build it too."""

    name: str
    options: tuple[tuple[str, object], ...]

    @classmethod
    def parse(cls, text: str) -> AgentWithOptions:
        """``NAME(key=value, ...)`` with literal values (numbers, 'strings', True, None),
        read without running anything; ``ValueError`` saying what is wrong otherwise."""
        try:
            node = ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            node = None
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and not node.args
            and all(k.arg for k in node.keywords)
        ):
            raise ValueError(f"agent {text!r}: expected NAME(key=value, ...), for example heuristic(mu=4, bias=0)")
        try:
            options = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords)
        except ValueError:
            raise ValueError(
                f"agent {text!r}: option values must be literals (numbers, 'strings', True, False, None)"
            ) from None
        return cls(node.func.id, options)

    @property
    def label(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.options)})"

    def __call__(self, seed: int, rules: Rules):
        import agents

        try:
            return agents.make(self.name, seed=seed, rules=rules, **dict(self.options))
        except TypeError as e:  # an option the agent does not take
            raise ValueError(f"agent {self.label!r}: {e}") from None


def parse_entrants(entrants: Sequence[EntrantSpec]) -> tuple[list[str], list]:
    """Labels and normalised specs (a name/path string, or a factory). A string entrant
    ``NAME(key=value, ...)`` is the agent made with those options
    (:class:`AgentWithOptions`); a string of several is split at its top-level commas."""
    if isinstance(entrants, str):
        entrants = split_agents(entrants)
    labels, specs = [], []
    for e in entrants:
        if isinstance(e, str) and "(" in e:
            spec = AgentWithOptions.parse(e)
            label = spec.label
        elif isinstance(e, str):
            spec = e.strip()
            label = Path(spec).stem if spec.endswith((".safetensors", ".zip")) else spec
        elif isinstance(e, (tuple, list)) and len(e) == 2 and isinstance(e[0], str):
            label, spec = e[0], e[1]
            if not (isinstance(spec, str) or callable(spec)):
                raise ValueError(f"entrant {label!r}: the factory must be callable or an agent name, got {spec!r}")
        else:
            raise ValueError(f"an entrant is an agent name, a model path or a (label, factory) pair, got {e!r}")
        labels.append(label)
        specs.append(spec)
    if not specs:
        raise ValueError("no entrants given")
    counts = {lab: labels.count(lab) for lab in labels}
    seen: dict[str, int] = {}
    for i, lab in enumerate(labels):
        if counts[lab] > 1:
            seen[lab] = seen.get(lab, 0) + 1
            labels[i] = f"{lab}#{seen[lab]}"
    return labels, specs


def load_trusted(path: str, seed: int, rules: Rules):
    """The model at ``path`` as an agent, read even if reading it unpickles (``yaniv eval
    --trust``): for training checkpoints you made yourself."""
    import agents

    return agents.load(path, seed=seed, rules=rules, trusted=True)


def build_agent(spec, seed: int, rules: Rules):
    if isinstance(spec, str):
        import agents

        try:
            return agents.make(spec, seed=seed, rules=rules)
        except ImportError as e:
            raise ValueError(f"agent {spec!r} could not be loaded: {e}") from None
    return spec(seed=seed, rules=rules)


def check_entrants(labels: list[str], specs: list, rules: Rules, workers: int) -> None:
    """Build every entrant once here, so that an unknown name fails early and clearly."""
    for label, spec in zip(labels, specs, strict=True):
        try:
            policy = build_agent(spec, 0, rules)
        except ValueError as e:
            raise ValueError(f"entrant {label!r}: {e}") from None
        if not callable(getattr(policy, "act", None)):
            raise ValueError(f"entrant {label!r} has no act(observation, action_mask) method")
    if workers > 1:
        try:
            pickle.dumps(specs)
        except Exception as e:
            raise ValueError(
                f"with workers > 1 every entrant must be picklable (a name, a path, or a module-level factory): {e}"
            ) from None


def deal_seeds(seed: int, count: int) -> list[int]:
    """The deal seeds of an evaluation: ``count`` 63-bit seeds derived from ``seed``.
    The list for a larger ``count`` extends the list for a smaller one."""
    return [
        int(np.random.SeedSequence([int(seed), i]).generate_state(1, np.uint64)[0] >> np.uint64(1))
        for i in range(count)
    ]


# -- playing ---------------------------------------------------------------------------------------


@dataclass
class GameRecord:
    """The summary of one game (picklable, built in the worker that played it)."""

    deal: int
    deal_seed: int
    rotation: int
    seats: tuple[int, ...]
    """Entrant index at each seat."""
    places: list[int]
    scores: list[int]
    rounds: int
    turns: int
    truncated: bool
    seat_stats: list[list[float]]
    """Per seat, the counters of ``SEAT_COUNTERS``."""
    outs: list[tuple[int, int, list[tuple[int, int]]]]
    """Players going out, in order: (seat, score, [(seat, score) of each player still in])."""
    replay: dict | None = None


class _Runner:
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


def game_record(
    deal: int, deal_seed: int, rotation: int, seats: tuple[int, ...], results: list, places, scores, turns: int,
    truncated: bool, outs: list, replay: dict | None = None,
) -> GameRecord:  # fmt: skip
    """The :class:`GameRecord` of a finished game from its round (deal) results in order and
    its final places: the per-seat counters of :data:`SEAT_COUNTERS` are summed here, for
    the scalar and the batched runner alike."""
    n = len(seats)
    stats = [[0.0] * len(SEAT_COUNTERS) for _ in range(n)]
    totals = [0] * n  # every game starts at 0
    for rr in results:
        share = 1.0 / len(rr.winners) if rr.winners else 0.0
        for p in range(n):
            if rr.hand_totals[p] is None:
                continue
            st = stats[p]
            st[2] += 1
            if p in rr.winners:
                st[3] += share
            st[4] += rr.points[p]
            if getattr(rr, "caller", None) == p:  # Pis Yedili has no calls
                st[5] += 1
                st[7 if rr.caller_beaten else 6] += 1
            if rr.points[p] > 0 and totals[p] + rr.points[p] != rr.scores[p]:  # the total landed on a milestone
                st[8] += 1
        totals = list(rr.scores)
    first = [p for p in range(n) if places[p] == 0]
    for p in range(n):
        stats[p][0] = 1
        stats[p][1] = 1.0 / len(first) if p in first else 0.0
    return GameRecord(
        deal=deal,
        deal_seed=deal_seed,
        rotation=rotation,
        seats=tuple(seats),
        places=[None if x is None else int(x) for x in places],
        scores=[int(x) for x in scores],
        rounds=len(results),
        turns=int(turns),
        truncated=bool(truncated),
        seat_stats=stats,
        outs=outs,
        replay=replay,
    )


def game_outs(rules: Rules, results: list[engine.RoundResult], game_over: bool) -> list:
    """Who went out, when, and who was still in (for the 002 rating); ``game_over``: the
    last round ended the game."""
    outs = []
    for i, rr in enumerate(results):
        remaining = [p for p, t in enumerate(rr.hand_totals) if t is not None]
        ended_game = game_over and i == len(results) - 1
        for x in engine.round_outcome(rules, rr, ended_game).out:
            remaining.remove(x)
            outs.append((x, int(rr.scores[x]), [(q, int(rr.scores[q])) for q in remaining]))
    return outs


_WORKER: dict = {}


def make_runner(specs, labels, rules, n, episode, engine_name: str = "scalar"):
    """The runner of ``engine_name``: ``"scalar"`` (the AEC environment, any game and agent)
    or ``"batched"`` (:class:`training.batched_runner.BatchedRunner`); both play the same games."""
    if engine_name == "batched":
        from training.batched_runner import BatchedRunner

        return BatchedRunner(specs, labels, rules, n, episode)
    return _Runner(specs, labels, rules, n, episode)


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


def _rotations(base: tuple[int, ...]) -> list[int]:
    """The rotations of ``base`` that give distinct seatings."""
    n = len(base)
    seen, out = set(), []
    for r in range(n):
        seating = tuple(base[(s - r) % n] for s in range(n))
        if seating not in seen:
            seen.add(seating)
            out.append(r)
    return out


def _tables(k: int, n: int) -> list[tuple[int, ...]]:
    """The fixed tables of ``k`` entrants at ``n`` seats: one (``k <= n``, seated
    cyclically), every pairing (``n = 2``), or none (random tables of ``n`` distinct entrants)."""
    if k <= n:
        return [tuple(i % k for i in range(n))]
    if n == 2:
        return list(itertools.combinations(range(k), 2))
    return []


def _games_per_deal(tables: list[tuple[int, ...]], n: int, duplicate: bool) -> int:
    return (len(_rotations(tables[0])) if tables else n) if duplicate else 1


def game_multiple(k: int, n: int, duplicate: bool) -> int:
    """The game counts a schedule of ``k`` entrants at ``n`` seats plays exactly are the
    multiples of this: the distinct seatings of a deal (duplicate format) times the tables
    the deals go round (every pairing when ``k > n = 2``)."""
    tables = _tables(k, n)
    return _games_per_deal(tables, n, duplicate) * max(1, len(tables))


def whole_deals(games: int, k: int, n: int, duplicate: bool) -> int:
    """``games`` rounded up to a count the schedule plays exactly (see :func:`game_multiple`)."""
    multiple = game_multiple(k, n, duplicate)
    return -(-games // multiple) * multiple


def game_count_problem(k: int, n: int, games: int, duplicate: bool) -> str | None:
    """``None`` when ``games`` is a count the schedule plays exactly, else why not, with the
    allowed multiples and the nearest counts."""
    multiple = game_multiple(k, n, duplicate)
    if games % multiple == 0:
        return None
    tables = _tables(k, n)
    reasons = []
    if duplicate:
        per_deal = _games_per_deal(tables, n, duplicate)
        reasons.append(f"the duplicate format plays every deal in each of its {per_deal} distinct seatings")
    if len(tables) > 1:
        reasons.append(f"the deals go round all {len(tables)} pairings of the {k} agents")
    lower = games // multiple * multiple
    nearest = f"{lower} or {lower + multiple}" if lower else f"{multiple}"
    hint = " (or play each deal once with --no-duplicate)" if duplicate and len(tables) <= 1 else ""
    return (
        f"{games} games cannot be played exactly: {' and '.join(reasons)}, so the number of games must be a "
        f"multiple of {multiple} (nearest: {nearest}){hint}"
    )


def schedule(k: int, n: int, games: int, seed: int, duplicate: bool) -> tuple[list[int], list[tuple]]:
    """Deal seeds and jobs ``(deal, deal seed, base seating, rotations, first game index)``:
    one table (``k <= n``), every pairing (``n = 2``) or random tables of ``n`` distinct
    entrants; tables are interleaved deal by deal. ``games`` is rounded up to whole deals
    and whole rounds of the tables (see :func:`game_multiple`)."""
    tables = _tables(k, n)
    per_deal = _games_per_deal(tables, n, duplicate)
    deals = math.ceil(games / per_deal)
    if tables:
        deals = math.ceil(deals / len(tables)) * len(tables)
    seeds = deal_seeds(seed, deals)
    rng = np.random.default_rng([int(seed), 0x7AB1E])
    jobs, first = [], 0
    for d in range(deals):
        base = tables[d % len(tables)] if tables else tuple(int(x) for x in rng.permutation(k)[:n])
        rots = _rotations(base)
        if not duplicate:  # one game per deal; the seating still turns from deal to deal
            rots = [rots[(d // max(1, len(tables))) % len(rots)]]
        jobs.append((d, seeds[d], base, rots, first))
        first += len(rots)
    return seeds, jobs
