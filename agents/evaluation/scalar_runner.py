"""The scalar engine's table: one game at a time through the game's AEC environment (any game,
any agent), with the AEC API (``agent_iter``, ``last``, ``step``; dead steps get ``None``),
each agent acting on ``obs["observation"]`` and ``obs["action_mask"]``. ``episode="game"``
(default) plays whole games; ``"round"`` single rounds (a "game win" is then the best round
result, as in the environment's ``outcome`` reward). Replays are recorded here."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.evaluation.entrants import build_agent
from agents.evaluation.loop import Game, games_of, play_games
from agents.evaluation.records import GameRecord, call_choices, game_outs, game_record
from yaniv_env.core.seeding import agent_seed
from yaniv_env.games import game_of
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.records import decide, make_record


class ScalarRunner:
    """The games on the scalar engine, one at a time (one slot: :func:`play_games`) through the
    game's AEC environment, with a cache of policies (one per entrant and seat)."""

    slots = 1

    def __init__(self, specs: list, labels: list[str], rules, num_players: int, episode: str):
        self.game = game_of(rules)
        self.env = self.game.aec_class(rules=rules, num_players=num_players, episode=episode)
        self.rules = self.env.rules
        self.episode = episode
        self.specs = specs
        self.labels = labels
        self.n = num_players
        self.seat_of = {a: i for i, a in enumerate(self.env.possible_agents)}
        self.yaniv = self.game.name == "yaniv"  # the call counters: Pis Yedili has no calls
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
        return play_games(self, games_of(jobs, self.n, record_until), on_games)

    def play(self, deal: int, seed: int, base: tuple[int, ...], rotation: int, record: bool = False) -> GameRecord:
        """One game, ``record``: with its replay."""
        return play_games(self, games_of([(deal, seed, base, [rotation], 0)], self.n, int(record)))[0]

    def start(self, starting: list[tuple[int, Game]]) -> None:
        ((_, game),) = starting
        _, seed, seats, _, record = game
        self.current = game
        self.policies = [self._policy(seats[s], s, agent_seed(seed, s)) for s in range(self.n)]
        self.env.reset(seed=seed)
        self.turns = iter(self.env.agent_iter())
        self.results: list = []  # the RoundResults (Yaniv) or DealResults (Pis Yedili) in order
        self.steps: list | None = [] if record else None
        self.notes: list[dict | None] = []  # the agents' annotations of a recorded game
        self.last = None
        self.calls = np.zeros((self.n, 2), dtype=np.int64) if self.yaniv else None  # per seat: call_choices summed

    def advance(self, slots: np.ndarray) -> list[tuple[int, GameRecord]]:
        """The next step of the game (a decision, or a dead step ``None``); its record once over."""
        agent = next(self.turns, None)
        if agent is None:
            return [(0, self._record())]
        env, steps = self.env, self.steps
        obs, _, term, trunc, _ = env.last()
        note = None
        if term or trunc:
            action = None
        elif steps is not None:  # recording: with what the agent says of its move (the same move)
            action, note = decide(self.policies[self.seat_of[agent]], obs["observation"], obs["action_mask"])
        else:
            action = int(self.policies[self.seat_of[agent]].act(obs["observation"], obs["action_mask"]))
        if steps is not None:
            steps.append([agent, action])
            self.notes.append(note)
        if self.calls is not None and action is not None:
            self.calls[self.seat_of[agent]] += call_choices(obs["action_mask"], action)
        try:
            env.step(action)
        except ValueError as e:
            _, seed, seats, _, _ = self.current
            label = self.labels[seats[self.seat_of[agent]]]
            raise RuntimeError(f"agent {label!r} ({agent}, deal seed {seed}) made an illegal move: {e}") from None
        if action is not None:
            rr = env.infos[agent].get(self.game.result_key)
            if rr is not None and rr is not self.last:
                self.last = rr
                self.results.append(rr)
        return []

    def _record(self) -> GameRecord:
        deal, seed, seats, rotation, _ = self.current
        g, results, yaniv = self.env.game, self.results, self.yaniv
        if self.episode == self.game.part and results:
            places = self.game.engine.outcome(g, results[-1]).places
        else:
            places = self.game.engine.ranking(g)
        rep = None
        if self.steps is not None and yaniv:
            labels = [self.labels[e] for e in seats]
            rep = make_record(
                self.rules, self.n, seed, self.steps, g, episode=self.episode, labels=labels, annotations=self.notes
            )
        return game_record(
            deal, rotation, seats, results, places, g.scores,
            turns=g.turns if yaniv else sum(rr.turns for rr in results),
            truncated=bool(
                getattr(g, "game_truncated", False)
                or (results and results[-1].truncated and self.episode == self.game.part)
            ),
            outs=game_outs(self.rules, results, g.phase == engine.GAME_OVER) if yaniv else [],
            replay=rep, call_counts=self.calls,
        )  # fmt: skip
