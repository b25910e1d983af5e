"""Determinism: a game is a function of its seed and the actions played. All randomness
comes from the game key ``state.key`` (drawn once from the seed's generator); the global
``random`` and ``np.random`` states play no part, and
``state.copy()`` is an independent state with the same future."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from yaniv_env import PRESETS
from yaniv_env.core.seeding import DEAL, game_key, seat_blocks, shuffled, stream_key
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.cards import standard_deck
from yaniv_env.yaniv.engine import State

CONFIGS = [(name, n) for name in sorted(PRESETS) for n in (2, 4)]


@pytest.fixture(autouse=True)
def _restore_global_generators():
    """These tests reseed the global generators; put them back for the rest of the run."""
    py_state, np_state = random.getstate(), np.random.get_state()
    yield
    random.setstate(py_state)
    np.random.set_state(np_state)


def fingerprint(s: State) -> tuple:
    """Everything about a state, the game key and reshuffle counter included."""
    parts = []
    for name in State.__slots__:
        value = getattr(s, name)
        if name == "table":
            value = value.rules
        parts.append((name, copy.deepcopy(value)))
    return (repr(s), tuple(parts))


def play_randomly(s: engine.State, g: np.random.Generator, steps: int) -> None:
    """Up to ``steps`` decisions and round starts of ``s``, the actions drawn by ``g``."""
    for _ in range(steps):
        if s.phase == engine.GAME_OVER:
            return
        if s.phase == engine.ROUND_OVER:
            engine.start_next_round(s)
            continue
        acts = engine.legal_actions(s)
        engine.apply(s, acts[int(g.integers(len(acts)))])


def play_game(rules, seed: int, policy_seed: int, noise: bool = False, max_steps: int = 100_000):
    """Play a whole game, actions drawn by a generator of its own. Returns the actions,
    the round results and the final state."""
    s = engine.new_game(rules, seed=seed)
    g = np.random.default_rng(policy_seed)
    actions, results = [], []
    for _ in range(max_steps):
        if noise:  # other users of the global generators must not matter
            random.random()
            random.seed(random.random())
            np.random.random(3)
            np.random.seed(int(np.random.randint(1 << 30)))
        if s.phase == engine.GAME_OVER:
            break
        if s.phase == engine.ROUND_OVER:
            results.append(copy.deepcopy(s.round_result))
            engine.start_next_round(s)
            continue
        acts = engine.legal_actions(s)
        a = acts[int(g.integers(len(acts)))]
        actions.append(a)
        engine.apply(s, a)
    assert s.phase == engine.GAME_OVER
    results.append(copy.deepcopy(s.round_result))
    return actions, results, s


@pytest.mark.parametrize(("name", "n"), CONFIGS)
def test_same_seed_same_game(name, n):
    rules = PRESETS[name].with_players(n)
    a1, r1, s1 = play_game(rules, seed=5, policy_seed=50)
    a2, r2, s2 = play_game(rules, seed=5, policy_seed=50)
    assert a1 == a2
    assert r1 == r2
    assert fingerprint(s1) == fingerprint(s2)
    assert engine.ranking(s1) == engine.ranking(s2)


@pytest.mark.parametrize(("name", "n"), CONFIGS)
def test_rng_argument_equals_seed(name, n):
    rules = PRESETS[name].with_players(n)
    s1 = engine.new_game(rules, seed=9)
    s2 = engine.new_game(rules, rng=np.random.default_rng(9))
    assert fingerprint(s1) == fingerprint(s2)


@pytest.mark.parametrize(("name", "n"), CONFIGS)
def test_different_seeds_differ(name, n):
    rules = PRESETS[name].with_players(n)
    deals = {
        repr((engine.new_game(rules, seed=seed).hands, engine.new_game(rules, seed=seed).top)) for seed in range(20)
    }
    assert len(deals) == 20
    a1, _, s1 = play_game(rules, seed=1, policy_seed=50)
    a2, _, s2 = play_game(rules, seed=2, policy_seed=50)
    assert a1 != a2 or fingerprint(s1) != fingerprint(s2)


@pytest.mark.parametrize(("name", "n"), CONFIGS)
def test_global_random_state_changes_nothing(name, n):
    rules = PRESETS[name].with_players(n)
    random.seed(1)
    np.random.seed(1)
    a1, r1, s1 = play_game(rules, seed=3, policy_seed=30)
    random.seed(2)
    np.random.seed(2)
    a2, r2, s2 = play_game(rules, seed=3, policy_seed=30, noise=True)
    assert a1 == a2 and r1 == r2
    assert fingerprint(s1) == fingerprint(s2)


@pytest.mark.parametrize(("name", "n"), CONFIGS)
def test_copy_is_independent_and_continues_identically(name, n):
    rules = PRESETS[name].with_players(n)
    s = engine.new_game(rules, seed=4)
    g = np.random.default_rng(40)
    play_randomly(s, g, 150)  # into the game, across at least one round end for most configurations
    c = s.copy()
    assert fingerprint(c) == fingerprint(s)
    before = fingerprint(s)
    # play the copy on with other actions: the original does not move
    play_randomly(c, np.random.default_rng(999), 300)
    assert fingerprint(s) == before
    # two copies continue identically under the same actions
    c1, c2 = s.copy(), s.copy()
    g1, g2 = copy.deepcopy(g), copy.deepcopy(g)
    for _ in range(400):
        if c1.phase == engine.GAME_OVER:
            break
        if c1.phase == engine.ROUND_OVER:
            engine.start_next_round(c1)
            engine.start_next_round(c2)
        else:
            acts = engine.legal_actions(c1)
            assert acts == engine.legal_actions(c2)
            a1, a2 = acts[int(g1.integers(len(acts)))], acts[int(g2.integers(len(acts)))]
            assert a1 == a2
            engine.apply(c1, a1)
            engine.apply(c2, a2)
        assert fingerprint(c1) == fingerprint(c2)
    assert fingerprint(s) == before


def test_copy_with_another_generator():
    rules = PRESETS["standard"]
    s = engine.new_game(rules, seed=8)
    other = np.random.default_rng(123)
    before = fingerprint(s)
    c = s.copy(rng=other)
    assert c.key == game_key(np.random.default_rng(123)) and c.key != s.key
    assert s.copy(key=5).key == 5
    with pytest.raises(ValueError, match="key"):
        s.copy(key=-1)
    with pytest.raises(ValueError, match="not both"):
        s.copy(rng=other, key=5)
    assert c.hands == s.hands and c.hands is not s.hands
    for name in ("hands", "known", "stock", "pile", "top", "scores", "alive", "out_round", "asaf_queue"):
        assert getattr(c, name) is not getattr(s, name), name
    c.hands[0].append(52)
    c.known[1].append(3)
    c.stock.pop()
    c.scores[0] = 99
    c.alive[1] = False
    c.top.append(1)
    c.pile.append(2)
    assert fingerprint(s) == before


def test_lots_and_reshuffles_use_only_the_game_key():
    """Same state, same generator state: identical reshuffles and lots, whatever the
    global generators do in between."""
    rules = PRESETS["standard"].with_players(3)
    outcomes = []
    for global_seed in (0, 1):
        random.seed(global_seed)
        np.random.seed(global_seed)
        _, results, s = play_game(rules, seed=21, policy_seed=22, noise=True)
        outcomes.append((results, fingerprint(s)))
    assert outcomes[0] == outcomes[1]


# -- duplicate deals: every round, whatever the players did ------------------------------------


def _deals_of_game(rules, seed: int, seat_agents, max_rounds: int) -> list[dict]:
    """Play one game with the given agent per seat; each round's deal as it was dealt."""
    import agents
    from yaniv_env.yaniv.observation import ObservationLayout

    layout = ObservationLayout(rules)
    players = [agents.make(name, seed=seed * 10 + p, rules=rules) for p, name in enumerate(seat_agents)]
    s = engine.new_game(rules, seed=seed)
    deals = []
    while True:
        deals.append(
            {"hands": [list(h) for h in s.hands], "alive": list(s.alive), "top": list(s.top), "stock": list(s.stock)}
        )
        while s.phase not in (engine.ROUND_OVER, engine.GAME_OVER):
            p = s.current
            engine.apply(s, players[p].act(layout.build(s, p), engine.legal_mask(s)))
        if s.phase == engine.GAME_OVER or len(deals) == max_rounds:
            return deals
        engine.start_next_round(s)


DUPLICATE_CONFIGS = [
    (name, n) for name in sorted(PRESETS) for n in (2, 3, 4, 5) if n <= PRESETS[name].with_players(2).max_seats
]


@pytest.mark.parametrize(("name", "n"), DUPLICATE_CONFIGS)
@pytest.mark.parametrize("pair", [("random", "greedy"), ("heuristic", "random")])
def test_duplicate_pairs_deal_every_round_the_same_hands_to_the_same_seats(name, n, pair):
    """Two games with the same seed and the agents' seats swapped: in every round both
    games play, each seat still in the game gets the same hand, and when the same seats
    are in, the face-up card and the whole stock are the same too."""
    rules = PRESETS[name].with_players(n)
    compared = differing_play = 0
    for seed in range(2):
        seats = [pair[p % 2] for p in range(n)]
        swapped = [pair[(p + 1) % 2] for p in range(n)]
        a = _deals_of_game(rules, seed, seats, max_rounds=6)
        b = _deals_of_game(rules, seed, swapped, max_rounds=6)
        for da, db in zip(a, b, strict=False):
            for p in range(n):
                if da["alive"][p] and db["alive"][p]:
                    assert da["hands"][p] == db["hands"][p]
                    compared += 1
            if da["alive"] == db["alive"]:
                assert (da["top"], da["stock"]) == (db["top"], db["stock"])
        differing_play += a[-1] != b[-1] or len(a) != len(b)
    assert compared >= 2 * n  # at least every first round
    assert compared > 2 * n or differing_play == 0  # later rounds were compared


def test_a_seats_deal_does_not_depend_on_who_starts_or_on_reshuffles():
    """The deal of round r is a function of the key and r only: the first player, the
    lots and the reshuffles of earlier rounds do not shift it."""
    rules = PRESETS["standard"].with_players(3)
    s = engine.new_game(rules, seed=5)
    key = s.key
    deck = standard_deck(rules.jokers_per_deck, rules.num_decks)
    for r in range(3):
        shuffled_deck = shuffled(deck, stream_key(key, r, DEAL))
        blocks, rest = seat_blocks(shuffled_deck, 3, 5)
        t = engine.from_position(rules, blocks, [rest[-1]], stock=rest[:-1])
        assert t.hands == blocks
        u = engine.new_game(rules, seed=5)
        u.round_index, u.phase = r, engine.ROUND_OVER
        u.next_first = (r + 1) % 3
        engine.start_next_round(u)  # round r + 1
        expected = seat_blocks(shuffled(deck, stream_key(key, r + 1, DEAL)), 3, 5)
        assert u.hands == expected[0] and u.top == [expected[1][-1]] and u.stock == expected[1][:-1]
        assert u.first_player == (r + 1) % 3
