"""One decoder: the observation read back by its layout says what the state says, and the
agents' view of a state (made from the state) is that decoded observation."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents.common import Info, context, decode
from yaniv_env import PRESETS, get_rules
from yaniv_env.pis_yedili import engine as pis_engine
from yaniv_env.pis_yedili import get_rules as pis_rules
from yaniv_env.pis_yedili.observation import PisObservationLayout
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.observation import ObservationLayout

CARD_FIELDS = ("hand", "takeable", "top", "pending", "out_of_play", "discard")


def _normal(view) -> dict:
    """The fields of a view with every card multiset in kind order."""
    d = {f.name: getattr(view, f.name) for f in dataclasses.fields(view)}
    for name in CARD_FIELDS:
        if name in d:
            d[name] = tuple(sorted(d[name]))
    if "known" in d:
        d["known"] = tuple(tuple(sorted(k)) for k in d["known"])
    return d


def _yaniv_states(rules, seed: int, every: int = 3):
    """States along a random game (rounds chained), every ``every`` decisions."""
    rng = np.random.default_rng(seed)
    s = engine.new_game(rules, seed=seed)
    step = 0
    while s.phase != engine.GAME_OVER and step < 600:
        if s.phase == engine.ROUND_OVER:
            yield s
            engine.start_next_round(s)
            continue
        if step % every == 0:
            yield s
        legal = engine.legal_actions(s)
        engine.apply(s, legal[int(rng.integers(len(legal)))])
        step += 1
    yield s


CONFIGS = [(name, n) for name in PRESETS for n in (2, 3, 4, 5)]


@pytest.mark.parametrize(("preset", "n"), CONFIGS)
def test_search_view_is_the_decoded_observation(preset, n):
    try:
        rules = get_rules(preset, n)
    except ValueError:
        pytest.skip(f"{preset} does not seat {n} players")
    layout = ObservationLayout(rules)
    ctx = context(rules)
    checked = 0
    for seed in range(2):
        for s in _yaniv_states(rules, seed):
            for seat in range(n):
                obs = layout.build(s, seat)
                decoded = layout.decode(obs)
                assert _normal(layout.view(s, seat)) == _normal(decoded), (preset, n, seed, seat)
                assert np.array_equal(layout.build(s, seat), obs)  # decoding changed nothing
                checked += 1
            if s.phase < engine.NUM_DECISION_PHASES:
                seat = s.current
                mask = np.zeros(ctx.table.num_actions, dtype=np.int8)
                mask[engine.legal_actions(s)] = 1
                agent_view = decode(ctx, layout.build(s, seat), mask)
                state_view = layout.view(s, seat, Info, ctx=ctx, legal=engine.legal_actions(s))
                assert _normal(state_view) == _normal(agent_view), (preset, n, seed)
    assert checked > 100


def test_decoded_fields_mean_what_they_say():
    rules = get_rules("standard", 3)
    layout = ObservationLayout(rules)
    s = engine.new_game(rules, seed=5)
    seat = s.current
    v = layout.decode(layout.build(s, seat))
    assert sorted(v.hand) == sorted(s.hands[seat]) and len(v.hand) == rules.hand_size
    assert v.phase == 0 and v.hand_sizes == (5, 5, 5) and v.scores == (0, 0, 0)
    assert v.known == ((), (), ()) and v.stock_size == len(s.stock) and v.drawn is None
    other = layout.decode(layout.build(s, (seat + 1) % 3))
    assert other.phase is None and other.turn_player == 2  # the turn player sits two seats on
    for size, count in ((layout.size, 3), (ObservationLayout(get_rules("standard", 5)).size, 5)):
        assert ObservationLayout.players_from_size(size) == count
    with pytest.raises(ValueError, match="matches no player count"):
        ObservationLayout.players_from_size(layout.size + 2)
    with pytest.raises(ValueError, match="does not match"):
        layout.decode(np.zeros(layout.size - 1, dtype=np.float32))


@pytest.mark.parametrize("n", [2, 3])
def test_rounds_left_counts_down_under_a_fixed_round_count(n):
    """``two_deck`` ends after five rounds per player: the observation says how many are
    left (this one included), in every seat's vector; rules without a fixed count have no
    such piece and a one-longer vector reads as the same player count."""
    rules = get_rules("two_deck", n)
    layout = ObservationLayout(rules)
    plain = ObservationLayout(get_rules("standard", n))
    assert "rounds_left" not in plain.pieces and layout.size == plain.size + 1
    assert layout.pieces["rounds_left"].start == plain.size  # the other offsets stay put
    assert ObservationLayout.players_from_size(layout.size) == n
    rng = np.random.default_rng(3)
    s = engine.new_game(rules, seed=3)
    seen = []
    while s.phase != engine.GAME_OVER:
        if s.phase == engine.ROUND_OVER:
            engine.start_next_round(s)
            continue
        for seat in range(n):
            obs = layout.build(s, seat)
            assert obs[layout.pieces["rounds_left"].start] == np.float32((5 * n - s.round_index) / (5 * n))
            assert layout.decode(obs).rounds_left == 5 * n - s.round_index
        if not seen or seen[-1] != s.round_index:
            seen.append(s.round_index)
        legal = engine.legal_actions(s)
        engine.apply(s, legal[int(rng.integers(len(legal)))])
    assert seen == list(range(len(seen))) and len(seen) <= 5 * n
    assert plain.decode(plain.build(engine.new_game(plain.rules, seed=3), 0)).rounds_left is None


@pytest.mark.parametrize("n", [2, 3, 5])
def test_pis_yedili_decoded_observation_is_the_state(n):
    rules = pis_rules("standard", n)
    layout = PisObservationLayout(rules)
    rng = np.random.default_rng(n)
    checked = 0
    for seed in range(2):
        s = pis_engine.new_game(rules, seed=seed)
        steps = 0
        while s.phase != pis_engine.GAME_OVER and steps < 3000:
            if s.phase == pis_engine.DEAL_OVER:
                pis_engine.start_next_deal(s)
                continue
            for seat in range(n):
                v = layout.decode(layout.build(s, seat))
                assert sorted(v.hand) == sorted(s.hands[seat])
                assert v.hand_sizes == tuple(len(s.hands[(seat + r) % n]) for r in range(n))
                assert v.scores == tuple(s.scores[(seat + r) % n] for r in range(n))
                assert v.to_act == (s.current - seat) % n and v.phase == s.phase
                assert v.top == (s.top if s.top >= 0 else None) and sorted(v.discard) == sorted(s.discard)
                assert v.suit == (s.suit if s.top >= 0 else None) and v.pending_sevens == s.pending_sevens
                assert v.clockwise == (s.direction > 0) and v.stock_size == len(s.stock) and v.drawn == s.drawn
                assert v.deal_index == s.deal_index
                checked += 1
            legal = pis_engine.legal_actions(s)
            pis_engine.apply(s, legal[int(rng.integers(len(legal)))])
            steps += 1
    assert checked > 100
    assert PisObservationLayout.players_from_size(layout.size) == n
