"""Evaluation games on the batched engine (:mod:`yaniv_env.yaniv.batched`): the games of
:mod:`agents.evaluation.runner`, many at a time in compiled code.

The batched runner plays exactly the games the scalar runner plays: the game with deal seed
``s`` in a slot of :class:`yaniv_env.yaniv.batched.BatchedYaniv` is ``engine.new_game(rules,
seed=s)``, and the batched agents (:mod:`agents.batched`) decide row by row as the scalar
agents do, the agent at seat ``p`` of a game drawing from the key of its seed
``agent_seed(deal seed, p)`` as :meth:`agents.evaluation.scalar_runner.ScalarRunner.play` seeds it. So the
:class:`~agents.evaluation.records.GameRecord` list, and every statistic built on it, is the same
whatever the engine, the batch size or the number of workers (``tests/test_evaluate.py``
compares them game by game).

It plays Yaniv (any rules) when every entrant has a batched version that decides like its
scalar agent (``random``, ``greedy``, ``heuristic``, deterministic trained models);
:func:`batched_problem` says why not otherwise.
Replays are recorded by the scalar runner only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np

from agents.batched import BatchedGreedy, BatchedHeuristic, BatchedRandom, BatchedTrained, batched
from agents.evaluation.entrants import build_agent
from agents.evaluation.loop import Game, games_of, play_games
from agents.evaluation.records import GameRecord, call_choices, game_outs, game_record
from agents.heuristic_batched import HEURISTIC_KERNELS
from yaniv_env.core.policies import batched_policy
from yaniv_env.core.seeding import agent_seed
from yaniv_env.core.streams import agent_key
from yaniv_env.games import game_of
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.batched import REASONS, BatchedYaniv
from yaniv_env.yaniv.batched.engine import ENGINE_KERNELS, cache_is_cold, compile_notice
from yaniv_env.yaniv.rules import Rules

#: Games stepped together in one process.
BATCH_SIZE = 256

#: The agents whose batched versions are compiled kernels.
COMPILED_AGENTS = ("random", "greedy", "heuristic")

_compiled: set[tuple[Rules, bool]] = set()


def compile_kernels(rules: Rules, announce: bool = False, search: bool = False) -> None:
    """Compile (or read from Numba's cache) the batched engine's and the compiled agents'
    kernels on one game of ``rules``, once per process, before a progress bar starts: a
    first run on a machine compiles for about a minute, which a bar would show as a stall.
    ``announce``: say so on stderr when Numba's cache is cold (:func:`compile_notice`);
    ``search``: also the rollout kernel of ``search_fast`` (an imitation teacher)."""
    if (rules, search) in _compiled:
        return
    cold = announce and cache_is_cold(*ENGINE_KERNELS, *HEURISTIC_KERNELS)
    with compile_notice("the batched engine and agents") if cold else contextlib.nullcontext():
        eng = BatchedYaniv(rules, num_envs=1, seed=0)
        masks, obs = eng.legal_masks(), eng.observations()
        for name in COMPILED_AGENTS:
            batched_policy(name, seed=0, rules=rules).act_batch(obs, masks)
        eng.step(np.flatnonzero(masks[0])[:1])
        eng.ranking()
        if search:  # the rollout kernel runs once the search searches: play until it has
            import agents

            searcher = agents.make("search_fast", seed=0, rules=rules)
            eng = BatchedYaniv(rules, num_envs=1, seed=0)
            while not searcher.searched and not eng.done[0]:  # one game holds a Yaniv call
                eng.step(searcher.act_batch(eng.observations(), eng.legal_masks()))
    _compiled.add((rules, search))


_EXACT = (BatchedRandom, BatchedGreedy, BatchedHeuristic)


def _batched_entrant(spec, rules: Rules):
    """The entrant's batched agent if it decides exactly as its scalar agent, else ``None``."""
    agent = batched(build_agent(spec, 0, rules))
    if isinstance(agent, _EXACT):
        return agent
    # an advisor with a memory per row (the search) must see the same game in the same row
    exact_advisor = isinstance(agent, BatchedTrained) and (agent.advisor is None or isinstance(agent.advisor, _EXACT))
    if exact_advisor and agent.agent.deterministic:
        return agent
    return None


def batched_problem(specs: list, labels: list[str], rules: Rules) -> str | None:
    """``None`` when the batched engine can play these games exactly, else why not."""
    game = game_of(rules)
    if game.name != "yaniv":
        return f"the batched engine plays Yaniv, not {game.title}"
    for label, spec in zip(labels, specs, strict=True):
        if _batched_entrant(spec, rules) is None:
            return f"entrant {label!r} has no batched version that decides as it does"
    return None


class BatchedRunner:
    """Plays lists of jobs (:func:`agents.evaluation.schedule.schedule`) on one batched engine."""

    def __init__(self, specs: list, labels: list[str], rules: Rules, num_players: int, episode: str):
        self.rules = rules
        self.labels = labels
        self.n = num_players
        self.episode = episode
        self.agents = [_batched_entrant(spec, rules) for spec in specs]
        if any(a is None for a in self.agents):
            raise ValueError(batched_problem(specs, labels, rules))

    def play_jobs(
        self, jobs: list[tuple], record_until: int = 0, on_games: Callable[[int], None] | None = None
    ) -> list[GameRecord]:
        """The games of ``jobs`` in order (``record_until`` must be 0: no replays here);
        ``on_games(k)`` is called as games finish."""
        if record_until:
            raise ValueError("the batched runner records no replays")
        compile_kernels(self.rules, announce=on_games is not None)
        games = games_of(jobs, self.n)
        if not games:
            return []
        B = self.slots = min(BATCH_SIZE, len(games))
        self.eng = BatchedYaniv(self.rules, num_envs=B, seed=0, num_players=self.n)
        self.game_at: list[Game | None] = [None] * B  # the game each slot plays
        self.entrant_at = np.zeros((B, self.n), dtype=np.int64)
        self.keys = np.zeros((B, self.n), dtype=np.uint64)
        self.results: list[list[engine.RoundResult]] = [[] for _ in range(B)]
        self.calls = np.zeros((B, self.n, 2), dtype=np.int64)  # per slot and seat: call_choices summed
        return play_games(self, games, on_games)

    def start(self, starting: list[tuple[int, Game]]) -> None:
        """Deal each game into its slot, its agents keyed by their seeds."""
        for b, game in starting:
            _, seed, seats, _, _ = game
            self.game_at[b] = game
            self.entrant_at[b] = seats
            self.keys[b] = [agent_key(agent_seed(seed, p)) for p in range(self.n)]
            self.results[b] = []
            self.calls[b] = 0
        slots = np.array([b for b, _ in starting], dtype=np.int64)
        seeds = np.array([game[1] for _, game in starting], dtype=np.int64)
        self.eng.reset_games(slots, seeds=seeds)

    def advance(self, slots: np.ndarray) -> list[tuple[int, GameRecord]]:
        """One decision in every busy slot, each entrant's games in one batch; the records of
        the games that ended."""
        eng = self.eng
        active = np.zeros(len(self.game_at), dtype=bool)
        active[slots] = True
        cur = eng.current
        actions = np.full(len(active), -1, dtype=np.int64)
        acting_entrant = self.entrant_at[np.arange(len(active)), cur]
        for e, agent in enumerate(self.agents):
            rows = np.flatnonzero(active & (acting_entrant == e))
            if not rows.size:
                continue
            # each entrant's games only: no observation is built or copied twice
            masks = eng.legal_masks(rows=rows)
            chosen = agent.act_batch(eng.observations(rows=rows), masks, self.keys[rows, cur[rows]])
            actions[rows] = chosen
            self.calls[rows, cur[rows]] += call_choices(masks, chosen)  # one decision per row: no repeated index
            bad = np.flatnonzero(~(masks[np.arange(rows.size), np.maximum(chosen, 0)] & (chosen >= 0)))
            if bad.size:
                i, b = int(bad[0]), int(rows[bad[0]])
                raise RuntimeError(
                    f"agent {self.labels[e]!r} (player_{int(cur[b])}, deal seed {self.game_at[b][1]}) made an illegal "
                    f"move: action {int(chosen[i])}, legal: {np.flatnonzero(masks[i]).tolist()}"
                )
        res = eng.step(actions)
        ended = []
        for b in np.flatnonzero(res.round_over & active):
            self.results[b].append(_round_result(res, b))
            if res.game_over[b] or self.episode == "round":
                ended.append((int(b), self._record(self.game_at[b], self.results[b], res, b, int(eng.turns[b]))))
        return ended

    def _record(self, game: Game, results: list, res, b: int, turns: int) -> GameRecord:
        deal, _, seats, rotation, _ = game
        game_over = bool(res.game_over[b])
        if self.episode == "round":
            places = engine.round_outcome(self.rules, results[-1], ended_game=game_over).places
        else:
            places = res.places[b]
        return game_record(
            deal, rotation, seats, results, places, res.scores[b], turns,
            truncated=bool(res.game_truncated[b] or (self.episode == "round" and results[-1].truncated)),
            outs=game_outs(self.rules, results, game_over), call_counts=self.calls[b],
        )  # fmt: skip


def _round_result(res, b: int) -> engine.RoundResult:
    """Row ``b`` of a batched step result as the scalar engine's :class:`RoundResult`
    (without the revealed hands, which no statistic reads)."""

    def seat(x) -> int | None:
        return None if x < 0 else int(x)

    return engine.RoundResult(
        reason=REASONS[int(res.reason[b])],
        caller=seat(res.caller[b]),
        challenger=seat(res.challenger[b]),
        caller_beaten=bool(res.caller_beaten[b]),
        hand_totals=[seat(t) for t in res.hand_totals[b]],
        points=[int(x) for x in res.points[b]],
        winners=np.flatnonzero(res.winners[b]).tolist(),
        scores=[int(x) for x in res.scores[b]],
        eliminated=np.flatnonzero(res.eliminated[b]).tolist(),
        truncated=bool(res.truncated[b]),
        first_player=int(res.first_player[b]),
        turns=int(res.turns[b]),
    )
