"""Pis Yedili environments: PettingZoo AEC conformance, whole games and rewards, hidden
information, bad input, rendering, the Gymnasium wrapper, the registries, the baselines
and a smoke run of the Pis Yedili section of ``yaniv_env.tools.bench``."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from aec_checks import check_illegal_actions_raise, place_reward, play_until_illegal
from pettingzoo.test import api_test, render_test, seed_test

import agents
from agents.pis_yedili import PisHeuristicAgent
from yaniv_env import pis_yedili
from yaniv_env.pis_yedili import PRESETS
from yaniv_env.pis_yedili import actions as A
from yaniv_env.pis_yedili import engine as E
from yaniv_env.pis_yedili.gym_env import PisYediliGymEnv
from yaniv_env.pis_yedili.observation import PisObservationLayout, PisStateLayout, players_from_size
from yaniv_env.yaniv.cards import SUIT_SYMBOLS, card_name, cards_name, parse_cards

STD = PRESETS["standard"]
REWARD_SCHEMES = ("score", "outcome", "deal_win", "score_outcome")
COUNTS = list(range(2, STD.max_seats + 1))  # 2..7 with 7-card hands
ENV_ID = "yaniv_env/PisYedili-v0"

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:.*[Ii]llegal move.*"),
]


# -- PettingZoo's own tests -------------------------------------------------------------


def test_player_counts():
    assert COUNTS == [2, 3, 4, 5, 6, 7]
    with pytest.raises(ValueError, match="num_players"):
        pis_yedili.raw_env(num_players=8)


@pytest.mark.parametrize("n", COUNTS)
def test_pettingzoo_api_seed_render(n, headless_window):
    api_test(pis_yedili.env(num_players=n), num_cycles=200)
    api_test(pis_yedili.raw_env(num_players=n, episode="deal"), num_cycles=200)
    seed_test(lambda: pis_yedili.env(num_players=n), num_cycles=200)
    seed_test(lambda: pis_yedili.raw_env(num_players=n, episode="deal"), num_cycles=200)

    def make(render_mode=None):
        return pis_yedili.env(num_players=n, render_mode=render_mode)

    render_test(make, custom_tests={"ansi": lambda text: "Pis Yedili (standard)" in text and "player_0" in text})


# -- whole games through the AEC API ----------------------------------------------------


def play_checked(env, action_seed: int) -> dict:
    """Play one episode with random legal moves through agent_iter/last/step, checking
    the mask against the engine, the observation and state spaces, and who is rewarded."""
    raw = env.unwrapped
    rng = np.random.default_rng(action_seed)
    n = len(raw.possible_agents)
    totals = {a: 0.0 for a in raw.possible_agents}
    deals = []
    steps = 0
    non_acting_rewarded = False
    for agent in env.agent_iter(max_iter=100_000):
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        g = raw.game
        assert raw.observation_space(agent).contains(obs)
        if steps % 7 == 0:
            assert raw.state_space.contains(env.state())
        if term or trunc:
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        seat = raw.possible_agents.index(agent)
        assert g.current == seat
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        assert legal == E.legal_actions(g)
        others = [a for a in raw.possible_agents if a != agent]
        for other in others[: 1 + steps % (n - 1)]:
            assert not env.observe(other)["action_mask"].any()
        env.step(legal[rng.integers(len(legal))])
        steps += 1
        dr = raw.infos[agent].get("deal_result")  # the deal result reaches every agent's info
        if dr is not None and (not deals or deals[-1] is not dr):
            deals.append(dr)
        if any(raw.rewards[a] for a in others):
            non_acting_rewarded = True
    assert env.agents == []
    return {
        "totals": totals,
        "scores": list(raw.game.scores),
        "ranking": E.ranking(raw.game),
        "deals": deals,
        "steps": steps,
        "non_acting_rewarded": non_acting_rewarded,
    }


@pytest.mark.parametrize("episode", ["game", "deal"])
@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_random_games_and_rewards(n, episode):
    agents_ = [f"player_{i}" for i in range(n)]
    non_acting = False
    for seed in range(3):
        make = pis_yedili.env if seed % 2 == 0 else pis_yedili.raw_env
        runs = {}
        for scheme in REWARD_SCHEMES:
            env = make(num_players=n, episode=episode, reward=scheme)
            env.reset(seed=100 + seed)
            runs[scheme] = play_checked(env, action_seed=seed)
        first = runs["score"]
        for r in runs.values():  # the reward scheme does not change the play
            assert (r["scores"], r["steps"]) == (first["scores"], first["steps"])
        assert len(first["deals"]) == (STD.deals if episode == "game" else 1)
        score, outcome, wins, both = (runs[s]["totals"] for s in REWARD_SCHEMES)
        last = first["deals"][-1]
        for p, a in enumerate(agents_):
            assert score[a] == pytest.approx(-first["scores"][p] / 100, abs=1e-9)
            if episode == "game":
                expected = place_reward(first["ranking"][p], n)
            else:
                place = sum(1 for q in last.points if q < last.points[p])
                expected = 0.0 if last.truncated else place_reward(place, n)
            assert outcome[a] == pytest.approx(expected, abs=1e-9)
            assert wins[a] == sum(p in d.winners for d in first["deals"])
            assert both[a] == pytest.approx(score[a] + outcome[a], abs=1e-9)
        non_acting |= first["non_acting_rewarded"]
    assert non_acting, "no reward ever reached a player who was not acting"


def test_many_random_games_without_error():
    """Whole games and deals at every table size, and a reshuffling variant."""
    rng = np.random.default_rng(0)
    rules_list = [STD, STD.replace(stock_exhausted="reshuffle", ace_follow="must", jack_same_suit=False)]
    games = 0
    for rules in rules_list:
        for n in COUNTS:
            for episode in ("game", "deal"):
                env = pis_yedili.raw_env(rules=rules, num_players=n, episode=episode)
                for seed in range(3):
                    env.reset(seed=seed)
                    random_steps(env, 100_000, rng)
                    assert env.agents == []
                    assert env.game.phase == (E.GAME_OVER if episode == "game" else E.DEAL_OVER)
                    games += 1
    assert games == 2 * len(COUNTS) * 2 * 3


def test_turn_limit_truncates_a_deal_episode():
    env = pis_yedili.raw_env(num_players=3, episode="deal", turn_limit=2)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    truncated, totals = set(), {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter(1000):
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            assert trunc and not term
            truncated.add(agent)
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    assert truncated == set(env.possible_agents)
    assert env.game.deal_result.truncated
    assert all(v == 0.0 for v in totals.values())  # unscored, and no outcome for a truncated deal


def test_truncated_deals_do_not_end_a_game_episode():
    env = pis_yedili.raw_env(num_players=2, turn_limit=2)
    env.reset(seed=0)
    for _agent in env.agent_iter(1000):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            assert term and not trunc
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.game.phase == E.GAME_OVER and env.game.deal_index == STD.deals - 1
    assert env.game.scores == [0, 0]


# -- the observation --------------------------------------------------------------------


def test_layout_table_and_sizes():
    for n in COUNTS:
        layout = PisObservationLayout(STD.with_players(n))
        assert layout.size == 195 + 3 * n and players_from_size(layout.size) == n
        assert list(layout.pieces) == [
            "hand", "top", "discard", "suit", "pending_sevens", "direction", "hand_sizes", "scores",
            "to_act", "stock", "drawn", "phase", "progress", "rules",
        ]  # fmt: skip
        assert layout.pieces["rules"].start == 170 + 3 * n
        assert "hand_sizes" in layout.table()
        env = pis_yedili.raw_env(num_players=n)
        assert env.observation_space("player_0")["observation"].shape == (195 + 3 * n,)
        assert env.state_space.shape == (52 * (n + 1) + 143 + 3 * n,)
    with pytest.raises(ValueError):
        players_from_size(200)


def test_observation_pieces_match_the_state():
    rng = np.random.default_rng(3)
    for n in (2, 5):
        env = pis_yedili.raw_env(num_players=n)
        env.reset(seed=n)
        layout = env.layout
        seen_phases = set()
        for _agent in env.agent_iter(max_iter=3000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            g = env.game
            seat = g.current
            parts = layout.split(obs["observation"])
            assert sorted(np.flatnonzero(parts["hand"]).tolist()) == sorted(g.hands[seat])
            if g.top >= 0:
                assert np.flatnonzero(parts["top"]).tolist() == [g.top]
                assert np.flatnonzero(parts["suit"]).tolist() == [g.suit]
                assert sorted(np.flatnonzero(parts["discard"]).tolist()) == sorted(g.discard)
            else:
                assert not parts["top"].any() and not parts["suit"].any() and not parts["discard"].any()
            order = [(seat + r) % n for r in range(n)]
            assert np.allclose(parts["hand_sizes"] * 7, [len(g.hands[p]) for p in order])
            assert np.allclose(parts["scores"] * 100, [g.scores[p] for p in order])
            assert parts["to_act"].tolist() == [1.0] + [0.0] * (n - 1)
            assert parts["phase"].argmax() == g.phase and parts["phase"].sum() == 1
            assert parts["pending_sevens"][0] * 4 == g.pending_sevens
            assert parts["direction"][0] == (g.direction > 0)
            assert parts["drawn"][0] * 7 == pytest.approx(g.drawn)
            assert parts["stock"][0] * 52 == pytest.approx(len(g.stock))
            seen_phases.add(g.phase)
            # the next seat's view of whose turn it is
            other = env.observe(env.possible_agents[(seat + 1) % n])["observation"]
            assert layout.split(other)["to_act"].tolist() == [0.0] * (n - 1) + [1.0]
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
        assert {E.OPENING, E.PLAY, E.SEVEN_PHASE, E.ACE_PHASE} <= seen_phases


def _position(rules, hands, stock, **kw):
    return E.from_position(rules, hands, stock=stock, **kw)


def test_observation_ignores_opponents_hidden_cards():
    rules = STD.with_players(3)
    hands = [parse_cards("AS 5H 9D KC 3S"), parse_cards("2H 7C JD QS 4D"), parse_cards("6C 6D 10S 8S 2C")]
    top = parse_cards("6S")[0]
    discard = parse_cards("8H 8D")
    placed = {k for h in hands for k in h} | {top} | set(discard)
    rest = [k for k in range(52) if k not in placed]
    base = dict(top=top, discard=discard, scores=[12, 40, 77], current=0)
    layout = PisObservationLayout(rules)
    state_layout = PisStateLayout(rules)
    a = _position(rules, hands, rest, **base)
    obs_a = layout.build(a, 0)

    def swapped(p, card, stock_card):
        hs = [list(h) for h in hands]
        hs[p][hs[p].index(card)] = stock_card
        st = [card if k == stock_card else k for k in rest]
        return _position(rules, hs, st, **base)

    jd, qh, kh, s10, kc = parse_cards("JD QH KH 10S KC")
    b = swapped(1, jd, qh)
    assert np.array_equal(layout.build(b, 0), obs_a)
    assert not np.array_equal(state_layout.build(b), state_layout.build(a))
    assert np.array_equal(layout.build(swapped(2, s10, kh), 0), obs_a)
    assert np.array_equal(layout.build(_position(rules, hands, rest[::-1], **base), 0), obs_a)  # stock order
    assert not np.array_equal(layout.build(swapped(0, kc, qh), 0), obs_a)  # its own hand is seen
    assert not np.array_equal(layout.build(b, 1), layout.build(a, 1))  # the swapped seat sees it
    assert np.array_equal(layout.build(b, 2), layout.build(a, 2))


def test_observation_ignores_hidden_cards_in_play():
    """Positions met in random play: dealing the hidden cards (other hands and stock) anew,
    hand sizes kept, changes nothing the player to act observes (and the mask is its own)."""
    rng = np.random.default_rng(11)
    checked = 0
    for n in (2, 3, 5):
        rules = STD.with_players(n)
        layout = PisObservationLayout(rules)
        s = E.new_game(rules, seed=n)
        while s.phase != E.GAME_OVER:
            if s.phase == E.DEAL_OVER:
                E.start_next_deal(s)
                continue
            if rng.random() < 0.15:
                seat = s.current
                t = s.copy()
                pool = [k for p in range(n) if p != seat for k in t.hands[p]] + list(t.stock)
                rng.shuffle(pool)
                for p in range(n):
                    if p != seat:
                        size = len(t.hands[p])
                        t.hands[p], pool = pool[:size], pool[size:]
                        t.masks[p] = sum(1 << k for k in t.hands[p])
                t.stock = pool
                assert np.array_equal(layout.build(t, seat), layout.build(s, seat))
                assert E.legal_actions(t) == E.legal_actions(s)
                checked += 1
            legal = E.legal_actions(s)
            E.apply(s, legal[rng.integers(len(legal))])
    assert checked > 30


# -- bad input --------------------------------------------------------------------------


def _snapshot(raw):
    g = raw.game
    return (
        repr(g),
        [list(h) for h in g.hands],
        list(g.masks),
        list(g.stock),
        list(g.discard),
        (g.top, g.suit, g.pending_sevens, g.direction, g.phase, g.current, g.drawn, g.deal_turns, g.decisions),
        (g.key, g.reshuffles),
        raw.agent_selection,
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        list(raw.agents),
    )


def test_raw_env_illegal_action_raises_and_changes_nothing():
    env = pis_yedili.raw_env(num_players=3)
    env.reset(seed=5)
    assert env.action_space("player_0").n == A.NUM_ACTIONS
    phases = check_illegal_actions_raise(env, _snapshot, max_iter=1500)
    assert {E.OPENING, E.PLAY, E.SEVEN_PHASE} <= phases


@pytest.mark.parametrize(
    "action, message",
    [
        (71, "action 71 is out of range 0..70"),
        (-1, "action -1 is out of range 0..70"),
        (1.0, "an action is an int id"),
        (True, "an action is an int id, got True"),  # Discrete.contains takes it for 1
        (np.array(1), "an action is an int id, got array(1)"),
    ],
)
def test_wrapped_env_action_outside_the_space_is_named(action, message):
    env = pis_yedili.env(num_players=3)
    env.reset(seed=2)
    with pytest.raises(ValueError, match="Legal actions: ") as err:
        env.step(action)
    assert str(err.value).startswith(f"{env.agent_selection}: {message}")


@pytest.mark.parametrize("make", [pis_yedili.raw_env, pis_yedili.env], ids=["raw", "wrapped"])
def test_step_and_last_after_the_game_raise(make):
    from yaniv_env.core.aec import ResetNeededError

    env = make(num_players=2)
    if make is pis_yedili.raw_env:
        with pytest.raises(ResetNeededError, match=r"no game yet: call reset\(\)"):
            env.step(0)
    env.reset(seed=4)
    for agent in env.agent_iter(5000):
        _, _, terminated, truncated, _ = env.last()
        env.step(
            None if terminated or truncated else int(np.flatnonzero(env.unwrapped.observe(agent)["action_mask"])[0])
        )
    assert not env.agents
    for call in (lambda: env.step(0), lambda: env.last()):
        with pytest.raises(ResetNeededError, match=r"the game is over \(every agent has left\): call reset\(\)"):
            call()


def test_wrapped_env_illegal_action_terminates_with_penalty(caplog):
    env = pis_yedili.env(num_players=3)
    env.reset(seed=2)
    _, received = play_until_illegal(env, 20, caplog)
    assert set(received) == {"player_0", "player_1", "player_2"}


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(num_players=1),
        dict(num_players=8),
        dict(rules="no_such_preset"),
        dict(rules=42),
        dict(episode="round"),
        dict(reward="round_win"),
        dict(render_mode="rgb"),
        dict(turn_limit=0),
        dict(reveal=2),
        dict(reveal="all"),
    ],
)
def test_bad_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        pis_yedili.raw_env(**kwargs)
    with pytest.raises(ValueError):
        pis_yedili.env(**kwargs)
    with pytest.raises(ValueError):
        PisYediliGymEnv(**kwargs)


# -- rendering, helpers, registries, lazy imports -----------------------------------------


def random_steps(env, count: int, rng: np.random.Generator | int = 0) -> None:
    """Up to ``count`` random legal moves (``None`` for a finished agent), drawn by ``rng``
    (a generator, or the seed of a new one)."""
    rng = np.random.default_rng(rng)
    for _ in range(count):
        if not env.agents:
            return
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))


def test_render_hides_hands_unless_asked():
    env = pis_yedili.raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    suits_seen = set()
    for i in range(120):
        g = env.game
        text = env.render()
        suits_seen |= {s for s in SUIT_SYMBOLS if s in text}
        assert text.startswith(f"Pis Yedili (standard) — deal {g.deal_index + 1}/4")
        if g.phase < E.DEAL_OVER:
            assert f"player_{g.current} to act" in text
            assert f"stock: {len(g.stock)} card" in text
            for p in range(3):
                line = next(ln for ln in text.splitlines() if ln[2:].startswith(f"player_{p} "))
                assert str(len(g.hands[p])) in line
                if p == g.current:
                    assert cards_name(g.hands[p]) in line and line.startswith("▶")
                else:
                    assert "▮ " * (len(g.hands[p]) - 1) + "▮" in line and card_name(g.hands[p][0]) not in line
        if g.top >= 0 and g.phase < E.DEAL_OVER:
            assert f"top: {card_name(g.top)}   suit in force: {SUIT_SYMBOLS[g.suit]}" in text
        if i:
            assert text.splitlines()[1].startswith("last: ")
        random_steps(env, 1, rng=i)
    assert len(suits_seen) >= 3
    # asked for: every hand, or one seat's, or none
    for reveal, shown in ((True, {0, 1, 2}), (1, {1}), (False, set())):
        e = pis_yedili.raw_env(num_players=3, render_mode="ansi", reveal=reveal)
        e.reset(seed=0)
        text = e.render()
        for p in range(3):
            assert (cards_name(e.game.hands[p]) in text) == (p in shown)


def test_render_deal_result():
    env = pis_yedili.raw_env(render_mode="ansi", episode="deal")
    env.reset(seed=0)
    texts = []
    while env.agents:
        random_steps(env, 1)
        texts.append(env.render())
    assert all("last: player_" in text for text in texts)
    assert "deal result:" in texts[-1] and "deal result:" not in texts[0]
    quiet = pis_yedili.raw_env()
    quiet.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None


def test_decode_and_names():
    env = pis_yedili.raw_env()
    env.reset(seed=0)
    assert env.action_name(0) == "draw" and env.action_name(1) == "pass"
    assert env.action_name(A.encode(parse_cards("7H")[0])) == "play 7♥"
    assert env.action_name(A.JACK_BASE + 3) == "play J♠ naming ♣"
    assert env.decode(2).kind == "penalty"
    for a in env.legal_actions():  # the opening: clubs, or a draw
        d = env.decode(a)
        assert d.kind == "draw" or (d.kind == "play" and card_name(d.card).endswith("♣"))
    assert env.action_space("player_0").n == 71


def test_registries():
    from pettingzoo.env_registry.registration import aec_registry

    assert ENV_ID in aec_registry and ENV_ID in gymnasium.registry
    env = pettingzoo.make("aec", ENV_ID, num_players=3)
    assert env.unwrapped.rules.num_players == 3 and env.unwrapped.metadata["name"] == "pis_yedili_v0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=50)
    assert {"pis_random", "pis_heuristic"} <= set(agents.names())
    assert isinstance(agents.make("pis_heuristic", rules=STD), PisHeuristicAgent)


def test_env_is_imported_lazily():
    code = (
        "import sys; import yaniv_env.pis_yedili as p; "
        "assert 'yaniv_env.pis_yedili.aec' not in sys.modules; "
        "e = p.env; assert 'yaniv_env.pis_yedili.aec' in sys.modules; print(p.raw_env.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "raw_env"


# -- the Gymnasium wrapper --------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_gym_env_checkers(players):
    from gymnasium.utils.env_checker import check_env as gym_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gymnasium.make(ENV_ID, num_players=players, opponents=["pis_heuristic"])
    assert isinstance(env.unwrapped, PisYediliGymEnv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(env.unwrapped, skip_render_check=True)
        sb3_check_env(PisYediliGymEnv(num_players=players), warn=False)
    env.close()


def _gym_episode(env, seed, action_seed=0):
    rng = np.random.default_rng(action_seed)
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool)) and mask.any()
        assert env.observation_space.contains(obs)
        legal = np.flatnonzero(mask)
        obs, reward, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps


def test_gym_opponents_seats_and_rewards():
    calls = []

    def first_legal(observation, action_mask):
        calls.append(1)
        return int(np.flatnonzero(action_mask)[0])

    class Obj:
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[-1])

    env = PisYediliGymEnv(num_players=4, opponents=["pis_heuristic", first_legal, Obj()], learner_seat="random")
    seats = set()
    for seed in range(6):
        total, _ = _gym_episode(env, seed=seed)
        seats.add(env.seat)
        g = env.aec.game
        place = E.ranking(g)[env.seat]
        assert total == pytest.approx(-g.scores[env.seat] / 100 + place_reward(place, 4), abs=1e-9)
    assert len(seats) > 1 and calls
    with pytest.raises(RuntimeError):
        env.step(0)
    # the same seed replays the same episode
    a = PisYediliGymEnv(num_players=3, opponents="pis_heuristic", learner_seat=1)
    b = PisYediliGymEnv(num_players=3, opponents="pis_heuristic", learner_seat=1)
    assert _gym_episode(a, seed=9) == _gym_episode(b, seed=9)
    with pytest.raises(ValueError):
        PisYediliGymEnv(num_players=3, opponents=["pis_random"] * 3)
    with pytest.raises(ValueError):
        PisYediliGymEnv(num_players=3, learner_seat=3)


def test_gym_illegal_action():
    env = PisYediliGymEnv(num_players=2)
    obs, info = env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(bad)
    assert terminated and reward == -1.0 and info["illegal_action"]
    raising = PisYediliGymEnv(num_players=2, illegal_action="raise")
    raising.reset(seed=0)
    with pytest.raises(ValueError, match="Legal actions"):
        raising.step(bad)
    with pytest.raises(ValueError, match=r"action 71 is not an action id: the ids are the ints 0..70"):
        raising.step(71)
    text = PisYediliGymEnv(num_players=3, render_mode="ansi")
    text.reset(seed=0)
    assert "Pis Yedili (standard)" in text.render()


# -- the baselines ----------------------------------------------------------------------


def test_heuristic_never_plays_an_illegal_move():
    rng = np.random.default_rng(0)
    decisions = 0
    for n, rules in ((2, STD), (3, STD), (5, STD), (3, STD.replace(jack_same_suit=False, ace_follow="must"))):
        env = pis_yedili.raw_env(rules=rules, num_players=n)
        players = [PisHeuristicAgent(seed=i, rules=rules) for i in range(n)]
        for _seed in range(3):
            env.reset(seed=int(rng.integers(1000)))
            for agent in env.agent_iter(max_iter=100_000):
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                a = players[env.possible_agents.index(agent)].act(obs["observation"], obs["action_mask"])
                assert obs["action_mask"][a], (agent, a, env.action_name(a))
                env.step(a)  # raw_env raises on an illegal move anyway
                decisions += 1
    assert decisions > 1000


def test_heuristic_prefers_the_documented_moves():
    h = PisHeuristicAgent(seed=0)
    rules = STD

    def decide(hands, top, **kw):
        s = E.from_position(rules, [parse_cards(x) for x in hands], parse_cards(top)[0], **kw)
        obs = PisObservationLayout(rules).build(s, s.current)
        return A.name(h.act(obs, E.legal_mask(s)))

    # facing sevens with a 7: pass them on
    assert decide(["7C 9H KD", "2S 3S"], "7H", pending_sevens=1) == "play 7♣"
    # the next player is about to go out: a 7 (it draws 3) rather than the high K
    assert decide(["7H KH 3C 4D", "2S"], "9H") == "play 7♥"
    # otherwise shed the high card, keeping the Jack
    assert decide(["2H KH JS 5C 4D", "2S 3S 4S 5S"], "9H") == "play K♥"
    # only a Jack plays: name the suit it holds most of
    assert decide(["JS 2C 5C 9C 4D", "2S 3S 4S 5S"], "8H") == "play J♠ naming ♣"
    # no play: draw, then pass
    assert decide(["2C 5C", "2S 3S 4S 5S"], "9H") == "draw"
    assert decide(["2C 5C 3D", "2S 3S 4S 5S"], "9H", drawn=1) == "pass"
    # going out on the last card
    assert decide(["9D", "2S 3S"], "9H") == "play 9♦"


def test_heuristic_beats_random_in_a_small_sample():
    from agents.evaluation import evaluate

    def ladder(games, seed):
        return evaluate(["pis_heuristic", "pis_random"], games=games, seed=seed, game="pis_yedili")

    res = ladder(60, 0)
    assert res["pis_heuristic"].games == 60
    assert res["pis_heuristic"].metrics["game_win_rate"].low > 0.5, res.table()
    # deterministic: the same seed gives the same results
    a, b = (ladder(10, 3).to_dict() for _ in range(2))
    assert a.pop("elapsed_seconds") >= 0 and b.pop("elapsed_seconds") >= 0
    assert a == b


# -- bench ------------------------------------------------------------------------------


def test_bench_smoke(capsys):
    from yaniv_env.tools import bench

    assert bench.main(["--seconds", "0.05", "--presets", "standard", "--json"]) == 0
    pis = json.loads(capsys.readouterr().out)["pis_yedili"]
    assert pis["preset"] == "standard"
    numbers = [pis["engine"]["decisions_per_s"]]
    numbers += [pis["env"][k]["steps_per_s"] for k in ("aec_raw", "aec_wrapped", "gym")]
    assert all(isinstance(v, float) and v > 0 for v in numbers)
    assert bench.main(["--seconds", "0.02", "--presets", "standard", "--no-env", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "Pis Yedili (standard)" in out and "decisions/s" in out and "Pis envs" not in out
    # a count Yaniv seats but Pis Yedili cannot: Pis Yedili is skipped with the reason
    assert bench.main(["--seconds", "0.02", "--presets", "standard", "--no-env", "--players", "8", "--json"]) == 0
    pis = json.loads(capsys.readouterr().out)["pis_yedili"]
    assert "at most 7" in pis["skipped"] and "engine" not in pis
    assert bench.main(["--seconds", "0.02", "--presets", "standard", "--no-env", "--no-pis", "--json"]) == 0
    assert "pis_yedili" not in json.loads(capsys.readouterr().out)
    assert bench.main(["--seconds", "0.02", "--players", "11"]) == 2
