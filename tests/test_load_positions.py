"""``BatchedYaniv.load_positions``/``copy_rows``: a scalar state put into a batched slot plays
exactly as the scalar engine from there (legal moves, every seat's observation, round
results), for every preset and player count."""

import numpy as np
import pytest

from yaniv_env.yaniv import engine
from yaniv_env.yaniv.batched import BatchedYaniv
from yaniv_env.yaniv.observation import ObservationLayout
from yaniv_env.yaniv.rules import PRESETS, get_rules


def _positions(rules, seed: int, count: int) -> list[engine.State]:
    """``count`` states at the start of a turn, from random play (copies, taken at random
    points of whole games, reshuffles and later rounds included)."""
    rng = np.random.default_rng(seed)
    out: list[engine.State] = []
    s = engine.new_game(rules, seed=seed)
    while len(out) < count:
        if s.phase == engine.GAME_OVER:
            s = engine.new_game(rules, rng=rng)
        elif s.phase == engine.ROUND_OVER:
            engine.start_next_round(s)
        else:
            if s.phase == engine.DISCARD and rng.random() < 0.05:
                out.append(s.copy())
            legal = engine.legal_actions(s)
            engine.apply(s, legal[int(rng.integers(len(legal)))])
    return out


def _assert_same(eng: BatchedYaniv, b: int, s: engine.State, layout: ObservationLayout) -> None:
    assert eng.legal_actions(b) == sorted(engine.legal_actions(s))
    for seat in range(s.num_players):
        got = eng.observations(np.array([seat]), rows=np.array([b]))[0]
        np.testing.assert_array_equal(got, layout.build(s, seat))


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_loaded_positions_play_as_the_scalar_engine(preset, players):
    rules = get_rules(preset, players)
    layout = ObservationLayout(rules)
    states = _positions(rules, seed=players * 100 + len(preset), count=12)
    eng = BatchedYaniv(rules, num_envs=2 * len(states), seed=0)
    rows = np.arange(0, 2 * len(states), 2)
    eng.load_positions(rows, states)
    eng.copy_rows(rows, rows + 1)  # the copies play the same too
    rng = np.random.default_rng(players)
    for b, s in enumerate(states):
        for row in (2 * b, 2 * b + 1):
            _assert_same(eng, row, s, layout)
    # every slot plays the scalar game's moves to the end of its round
    live = list(range(len(states)))
    while live:
        actions = np.full(eng.num_envs, -1, dtype=np.int64)
        for b in live:
            legal = engine.legal_actions(states[b])
            actions[2 * b] = actions[2 * b + 1] = legal[int(rng.integers(len(legal)))]
        res = eng.step(actions)
        for b in list(live):
            s = states[b]
            engine.apply(s, int(actions[2 * b]))
            over = s.phase in (engine.ROUND_OVER, engine.GAME_OVER)
            for row in (2 * b, 2 * b + 1):
                assert bool(res.round_over[row]) == over
                if over:
                    assert res.scores[row].tolist() == s.scores
                    assert res.points[row].tolist() == s.round_result.points
                else:
                    _assert_same(eng, row, s, layout)
            if over:
                live.remove(b)


def test_load_positions_refuses_what_it_cannot_hold():
    rules = get_rules("standard", 2)
    eng = BatchedYaniv(rules, num_envs=2, seed=0)
    s = engine.new_game(rules, seed=1)
    engine.apply(s, engine.legal_actions(s)[-1])  # a discard: the draw phase follows
    with pytest.raises(ValueError, match="start of a turn"):
        eng.load_positions([0], [s])
    with pytest.raises(ValueError, match="rules"):
        eng.load_positions([0], [engine.new_game(get_rules("seven", 2), seed=1)])
    with pytest.raises(ValueError, match="1 rows for 2 states"):
        eng.load_positions([0], [s, s])
