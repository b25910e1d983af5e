"""Differential check of the batched engine against the scalar engine.

``python -m yaniv_env.vector.verify --games 1000000 --rules standard`` plays that many games
on :class:`~yaniv_env.vector.BatchedYaniv` and replays each, decision by decision, through
:mod:`yaniv_env.engine` from the same seed: at every decision the legal mask and the acting
seat's observation (every seat's every ``--all-seats-every`` decisions), at every round end
the round result, the score changes and the places, at the game end the ranking. It prints
one summary line (games, decisions, divergences, seconds) and exits 1 on any divergence.

The moves come from a mix of uniform random play and a greedy player (call Yaniv when
allowed, lay the heaviest discard, take a low card, slam, challenge and Blast when offered),
chosen per game, so that calls, challenges, slams, Blasts and long rounds all occur.

Seeding: the scalar game seeded ``s`` is ``engine.new_game(rules, seed=s)``; both engines
draw every deal, lot and reshuffle from the per-round streams of :mod:`yaniv_env.core.seeding`
(the contract in :mod:`yaniv_env.engine`'s docstring).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from .. import engine
from ..actions import ASAF, BLAST, CALL_YANIV, DISCARD_BASE, SLAM, TAKE_BASE
from ..cards import YANIV_VALUE
from ..observation import ObservationLayout
from ..rules import Rules
from .batched import REASONS, BatchedYaniv, StepResult
from .configs import ConfigSummary, run_configs


def scalar_game(rules: Rules, seed: int) -> engine.State:
    """The scalar game seeded ``seed`` (the batched slot seeded ``seed`` plays the same)."""
    return engine.new_game(rules, seed=seed)


class Divergence(AssertionError):
    """The batched engine and the scalar engine disagree."""


@dataclass
class Summary(ConfigSummary):
    divergences: int = 0

    def line(self) -> str:
        return (
            f"{self.label}: {self.games:,} games, {self.decisions:,} decisions, "
            f"{self.rounds:,} rounds, {self.divergences} divergences, {self.seconds:.1f} s"
        )


def _greedy_values(rules: Rules) -> np.ndarray:
    """Points laid by each action id (discards), for the greedy player."""
    table = engine.action_table(rules)
    values = np.zeros(table.num_actions)
    values[DISCARD_BASE:] = table.meld_counts @ np.array(YANIV_VALUE)
    return values


def _greedy(legal: list[int], values: np.ndarray) -> int:
    for preferred in (CALL_YANIV, SLAM, ASAF, BLAST):
        if preferred in legal:
            return preferred
    takes = [a for a in legal if TAKE_BASE <= a < DISCARD_BASE and YANIV_VALUE[a - TAKE_BASE] <= 3]
    if legal[-1] < DISCARD_BASE:  # the draw
        return takes[0] if takes else legal[0]
    return max(legal, key=values.__getitem__)


def _diverged(eng: BatchedYaniv, b: int, s: engine.State, what: str):
    rules = eng.rules
    raise Divergence(
        f"{rules.name} {rules.num_players}p, game seed {eng.game_seeds[b]}, round {s.round_index}, "
        f"turn {s.round_turns}: {what}"
    )


def _check_round(res: StepResult, b: int, s: engine.State, before: list[int], eng: BatchedYaniv) -> None:
    rr = s.round_result
    n = s.num_players
    totals = [-1 if t is None else t for t in rr.hand_totals]
    got = {
        "reason": REASONS[res.reason[b]],
        "caller": None if res.caller[b] < 0 else int(res.caller[b]),
        "challenger": None if res.challenger[b] < 0 else int(res.challenger[b]),
        "caller_beaten": bool(res.caller_beaten[b]),
        "hand_totals": res.hand_totals[b].tolist(),
        "points": res.points[b].tolist(),
        "winners": np.flatnonzero(res.winners[b]).tolist(),
        "scores": res.scores[b].tolist(),
        "eliminated": np.flatnonzero(res.eliminated[b]).tolist(),
        "truncated": bool(res.truncated[b]),
        "first_player": int(res.first_player[b]),
        "turns": int(res.turns[b]),
        "score_delta": res.score_delta[b].tolist(),
        "places": res.places[b].tolist(),
        "game_over": bool(res.game_over[b]),
        "game_truncated": bool(res.game_truncated[b]),
    }
    want = {
        "reason": rr.reason,
        "caller": rr.caller,
        "challenger": rr.challenger,
        "caller_beaten": rr.caller_beaten,
        "hand_totals": totals,
        "points": rr.points,
        "winners": sorted(rr.winners),
        "scores": rr.scores,
        "eliminated": sorted(rr.eliminated),
        "truncated": rr.truncated,
        "first_player": rr.first_player,
        "turns": rr.turns,
        "score_delta": [rr.scores[p] - before[p] for p in range(n)],
        "places": engine.ranking(s),
        "game_over": s.phase == engine.GAME_OVER,
        "game_truncated": s.game_truncated,
    }
    for name, value in want.items():
        if got[name] != value:
            _diverged(eng, b, s, f"round result {name}: batched {got[name]}, scalar {value}")


def verify(
    rules: Rules,
    games: int,
    seed: int = 0,
    batch: int = 64,
    greedy_share: float = 0.5,
    all_seats_every: int = 7,
    max_decisions: int | None = None,
) -> Summary:
    """Play ``games`` games both ways (see the module docstring); raises :class:`Divergence`
    at the first disagreement. ``max_decisions`` stops earlier (then games finished count)."""
    start = time.perf_counter()
    summary = Summary(rules.name, rules.num_players)
    batch = min(batch, games)
    eng = BatchedYaniv(rules, num_envs=batch, seed=seed)
    layout = ObservationLayout(rules)
    values = _greedy_values(rules)
    rng = np.random.default_rng(seed)
    states = [scalar_game(rules, int(s)) for s in eng.game_seeds]
    greedy = rng.random(batch) < greedy_share
    started = batch
    active = np.ones(batch, dtype=bool)
    n = rules.num_players
    while active.any():
        masks = eng.legal_masks()
        obs = eng.observations()
        current, phase = eng.current.tolist(), eng.phase.tolist()
        check_all = summary.decisions // batch % all_seats_every == 0
        seat_obs = [eng.observations(np.full(batch, p)) for p in range(n)] if check_all else None
        actions = np.zeros(batch, dtype=np.int64)
        for b in np.flatnonzero(active).tolist():
            s = states[b]
            legal = engine.legal_actions(s)
            row = masks[b]
            if current[b] != s.current or phase[b] != s.phase:
                _diverged(eng, b, s, f"seat/phase {current[b]}/{phase[b]} != {s.current}/{s.phase}")
            if row.sum() != len(legal) or not row[legal].all():
                _diverged(eng, b, s, f"legal mask {np.flatnonzero(row).tolist()} != scalar {legal}")
            if obs[b].tobytes() != layout.build(s, s.current).tobytes():
                diff = np.flatnonzero(obs[b] != layout.build(s, s.current)).tolist()
                _diverged(eng, b, s, f"observation of the acting seat differs at {diff}")
            if check_all:
                for p in range(n):
                    if seat_obs[p][b].tobytes() != layout.build(s, p).tobytes():
                        _diverged(eng, b, s, f"observation of seat {p} differs")
            actions[b] = _greedy(legal, values) if greedy[b] else legal[int(rng.integers(len(legal)))]
        before = [list(s.scores) for s in states]
        res = eng.step(actions)
        summary.decisions += int(active.sum())
        finished = np.zeros(batch, dtype=bool)
        for b in np.flatnonzero(active).tolist():
            s = states[b]
            engine.apply(s, int(actions[b]))
            over = s.phase in (engine.ROUND_OVER, engine.GAME_OVER)
            if bool(res.round_over[b]) != over:
                _diverged(eng, b, s, f"round over {bool(res.round_over[b])} != scalar {over}")
            if over:
                summary.rounds += 1
                _check_round(res, b, s, before[b], eng)
                if s.phase == engine.ROUND_OVER:
                    engine.start_next_round(s)
                else:
                    summary.games += 1
                    if res.places[b].tolist() != engine.ranking(s) or eng.ranking()[b].tolist() != engine.ranking(s):
                        _diverged(eng, b, s, f"final ranking {eng.ranking()[b]} != {engine.ranking(s)}")
                    finished[b] = True
        if max_decisions is not None and summary.decisions >= max_decisions:
            break
        if finished.any():
            more = np.flatnonzero(finished)[: max(0, games - started)]
            active[finished] = False
            if len(more):
                eng.reset_games(more)
                for b in more:
                    states[b] = scalar_game(rules, int(eng.game_seeds[b]))
                    greedy[b] = rng.random() < greedy_share
                active[more] = True
                started += len(more)
    summary.seconds = time.perf_counter() - start
    return summary


def main(argv: list[str] | None = None) -> int:
    return run_configs(
        argv,
        "python -m yaniv_env.vector.verify",
        "Replay batched-engine games through the scalar engine and count divergences.",
        verify,
        Divergence,
        players=[2],
        batch=256,
    )


if __name__ == "__main__":
    sys.exit(main())
