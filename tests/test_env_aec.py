"""The PettingZoo AEC environment: API conformance, whole games, rewards, hidden information,
bad input, rendering, the registry; and a smoke run of ``yaniv_env.tools.bench``."""

from __future__ import annotations

import copy
import json
import warnings
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pettingzoo
import pytest
from aec_checks import check_illegal_actions_raise, place_reward, play_until_illegal
from pettingzoo.test import api_test, render_test, seed_test

import yaniv_env
from yaniv_env import PRESETS, pis_yedili
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.actions import CALL_YANIV
from yaniv_env.yaniv.cards import SUIT_SYMBOLS, card_name, cards_name, parse_cards
from yaniv_env.yaniv.observation import ObservationLayout, StateLayout, rules_vector
from yaniv_env.yaniv.render import hand_name

REWARD_SCHEMES = ("score", "outcome", "round_win", "score_outcome", "score_round_outcome", "margin_outcome")

#: Every preset at every player count it allows in 2..5.
PRESET_COUNTS = [(name, n) for name, rules in PRESETS.items() for n in range(2, min(5, rules.max_seats) + 1)]

pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:.*[Ii]llegal move.*"),
]


def _id(pc):
    return f"{pc[0]}-{pc[1]}p"


def test_preset_counts_cover_every_preset():
    assert {name for name, _ in PRESET_COUNTS} == set(PRESETS)
    assert len(PRESET_COUNTS) == 16  # every preset allows 2..5


# -- PettingZoo's own tests -------------------------------------------------------------


@pytest.mark.parametrize("preset_count", PRESET_COUNTS, ids=_id)
def test_pettingzoo_api_seed_render(preset_count, headless_window):
    name, n = preset_count
    api_test(yaniv_env.env(rules=name, num_players=n), num_cycles=300)
    api_test(yaniv_env.raw_env(rules=name, num_players=n), num_cycles=300)
    seed_test(lambda: yaniv_env.env(rules=name, num_players=n), num_cycles=300)
    seed_test(lambda: yaniv_env.raw_env(rules=name, num_players=n), num_cycles=300)

    def make(render_mode=None):
        return yaniv_env.env(rules=name, num_players=n, render_mode=render_mode)

    render_test(make, custom_tests={"ansi": lambda text: f"Yaniv ({name})" in text and "player_0" in text})


# -- whole games through the AEC API ----------------------------------------------------


@dataclass
class EpisodeTally:
    """What :func:`play_checked` counts and remembers over one episode."""

    agents: list[str]
    total_env: dict[str, float]  # sum of env.rewards after every step
    total_last: dict[str, float]  # sum of what last() hands out
    round_start: list[int]  # the scores at the round's start
    rounds: list = field(default_factory=list)
    last_rr: engine.RoundResult | None = None
    eliminated: list[str] = field(default_factory=list)  # out of the game before its end
    pending_dead: set[str] = field(default_factory=set)  # terminated, yet to step
    non_acting_rewarded: bool = False
    steps: int = 0


def _check_decision(env, agent: str, obs: dict, seat: int, full: bool) -> list[int]:
    """The legal actions of ``agent``'s decision, its mask checked against the engine's."""
    g = env.unwrapped.game
    legal = engine.legal_actions(g)
    assert g.current == seat
    mask = obs["action_mask"]
    assert np.flatnonzero(mask).tolist() == legal
    if full:
        assert mask.dtype == np.int8
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any(), (agent, other)
    return legal


def _check_round_end(env, tally: EpisodeTally, rr: engine.RoundResult, agent: str) -> None:
    """The rewards and terminations after the step of ``agent`` that ended a round."""
    raw = env.unwrapped
    seat = {a: i for i, a in enumerate(tally.agents)}
    tally.rounds.append(rr)
    for a in env.agents:
        assert env.infos[a]["round_result"] is rr
    if raw.reward_scheme == "score":
        for a in env.agents:
            expected = -(rr.scores[seat[a]] - tally.round_start[seat[a]]) / 100
            assert env.rewards[a] == pytest.approx(expected, abs=1e-12)
            if a != agent and expected != 0:
                tally.non_acting_rewarded = True
    tally.round_start = list(rr.scores)
    if raw.episode == "game" and raw.game.phase != engine.GAME_OVER:
        # players out of the game are terminated and step first
        for p in rr.eliminated:
            a = tally.agents[p]
            assert env.terminations[a] and not env.truncations[a]
            assert a in env.agents
            tally.eliminated.append(a)
            tally.pending_dead.add(a)
        if rr.eliminated:
            assert env.agent_selection in tally.pending_dead


def _check_episode_end(env, tally: EpisodeTally) -> None:
    assert env.agents == [], "the episode did not end"
    assert tally.rounds, "no round finished"
    g = env.unwrapped.game
    if env.unwrapped.episode == "game":
        assert g.phase == engine.GAME_OVER
        assert len(tally.rounds) == g.round_index + 1
        for a in tally.eliminated:
            assert not g.alive[tally.agents.index(a)]
    else:
        assert len(tally.rounds) == 1
    for a in tally.agents:
        assert tally.total_last[a] == pytest.approx(tally.total_env[a], abs=1e-9), a


def play_checked(env, action_seed: int, full: bool = True) -> dict:
    """Play one episode with uniform random legal moves, checking the API invariants at
    every step (``full=False`` skips the costly ones: spaces, ``state()``, the other
    agents' masks). Returns the per-agent reward totals and what happened."""
    raw = env.unwrapped
    agents = list(raw.possible_agents)
    seat = {a: i for i, a in enumerate(agents)}
    rng = np.random.default_rng(action_seed)
    obs_space = env.observation_space(agents[0])
    zeros = dict.fromkeys(agents, 0.0)
    tally = EpisodeTally(agents, dict(zeros), dict(zeros), [0] * len(agents))
    for agent in env.agent_iter(max_iter=500_000):
        tally.steps += 1
        obs, reward, termination, truncation, info = env.last()
        assert type(reward) is float, (agent, reward)
        tally.total_last[agent] += reward
        if full:
            assert obs_space.contains(obs), agent
            assert raw.state_space.contains(raw.state())
        if termination or truncation:
            assert not obs["action_mask"].any()
            env.step(None)
            assert agent not in env.agents
            tally.pending_dead.discard(agent)
            continue
        assert not tally.pending_dead, "finished agents step before live ones"
        legal = _check_decision(env, agent, obs, seat[agent], full)
        env.step(int(legal[rng.integers(len(legal))]))
        # -- after the step
        assert set(env.rewards) == set(env.agents)
        for a, r in env.rewards.items():
            assert type(r) is float, (a, r)
            tally.total_env[a] += r
        rr = next((i["round_result"] for i in env.infos.values() if "round_result" in i), None)
        if rr is not None and rr is not tally.last_rr:  # a round just ended
            tally.last_rr = rr
            _check_round_end(env, tally, rr, agent)
        done = [a for a in env.agents if env.terminations[a] or env.truncations[a]]
        assert set(done) >= tally.pending_dead
        if done and set(done) != tally.pending_dead:
            assert set(done) == set(env.agents), "the episode ends for every player at once"
    _check_episode_end(env, tally)
    g = raw.game
    return {
        "totals": tally.total_env,
        "rounds": tally.rounds,
        "scores": list(g.scores),
        "ranking": engine.ranking(g),
        "turns": g.turns,
        "steps": tally.steps,
        "eliminated": tally.eliminated,
        "non_acting_rewarded": tally.non_acting_rewarded,
    }


#: Episodes per reward scheme: one whole game, or two rounds (short episodes), × 5 schemes.
EPISODES_PER_SCHEME = {"game": 1, "round": 2}
# The "score" runs check everything at every step (through env() for the first episode, raw_env
# after); the same episodes replayed with the other schemes check the cheaper invariants.


@pytest.mark.parametrize("episode", ["game", "round"])
@pytest.mark.parametrize("preset_count", PRESET_COUNTS, ids=_id)
def test_random_games(preset_count, episode):
    name, n = preset_count
    agents = [f"player_{i}" for i in range(n)]
    non_acting_rewarded = False
    for seed in range(EPISODES_PER_SCHEME[episode]):
        runs = {}
        for scheme in REWARD_SCHEMES:
            full = scheme == "score"
            make = yaniv_env.env if full and seed == 0 else yaniv_env.raw_env
            env = make(rules=name, num_players=n, episode=episode, reward=scheme)
            env.reset(seed=1000 + seed)
            runs[scheme] = play_checked(env, action_seed=seed, full=full)
        # the reward scheme does not change the play
        first = runs["score"]
        for r in runs.values():
            assert (r["scores"], r["turns"], r["steps"]) == (first["scores"], first["turns"], first["steps"])
        score, outcome, wins, both, per_round, margin = (runs[s]["totals"] for s in REWARD_SCHEMES)
        rr_last = first["rounds"][-1]
        for p, a in enumerate(agents):
            # "score": minus the final total / 100, milestones included
            assert score[a] == pytest.approx(-first["scores"][p] / 100, abs=1e-9)
            # "outcome": the place, once
            if episode == "game":
                expected = place_reward(first["ranking"][p], n)
            else:
                seats = [q for q in range(n) if rr_last.hand_totals[q] is not None]
                place = sum(1 for q in seats if rr_last.points[q] < rr_last.points[p])
                expected = place_reward(place, len(seats)) if rr_last.winners else 0.0  # a draw places nobody
            assert outcome[a] == pytest.approx(expected, abs=1e-9)
            # "round_win": one per round won
            assert wins[a] == sum(p in rr.winners for rr in first["rounds"])
            assert both[a] == pytest.approx(score[a] + outcome[a], abs=1e-9)
            # "score_round_outcome": the points, each round's place, and the game's place at its end
            rounds_places = 0.0
            for rr in first["rounds"] if episode == "game" else []:
                seats = [q for q in range(n) if rr.hand_totals[q] is not None]
                if p in seats and rr.winners:
                    place = sum(1 for q in seats if rr.points[q] < rr.points[p])
                    rounds_places += place_reward(place, len(seats))
            assert per_round[a] == pytest.approx(both[a] + rounds_places, abs=1e-9)
            # "margin_outcome": each round, the player's score change against the others' mean
            margins, before = 0.0, [0] * n
            for rr in first["rounds"]:
                seats = [q for q in range(n) if rr.hand_totals[q] is not None]
                delta = [rr.scores[q] - before[q] for q in range(n)]
                if p in seats and len(seats) > 1:
                    others = sum(delta[q] for q in seats if q != p) / (len(seats) - 1)
                    margins -= (delta[p] - others) / 100
                before = list(rr.scores)
            assert margin[a] == pytest.approx(margins + outcome[a], abs=1e-9)
        non_acting_rewarded |= first["non_acting_rewarded"]
    assert non_acting_rewarded, "no reward ever reached a player who was not acting"


def test_elimination_mid_game_is_exercised():
    """3-player standard games eliminate players before the end; they leave ``agents``."""
    seen = 0
    for seed in range(3):
        env = yaniv_env.raw_env(rules="standard", num_players=3, reward="score")
        env.reset(seed=seed)
        seen += len(play_checked(env, action_seed=seed, full=seed == 0)["eliminated"])
    assert seen > 0


def test_masks_are_zero_while_an_eliminated_agent_steps():
    rng = np.random.default_rng(0)
    for seed in range(20):
        env = yaniv_env.raw_env(rules="standard", num_players=3)
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=200_000):
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                if env.unwrapped.game.phase != engine.GAME_OVER:
                    for other in env.agents:
                        if other != agent:
                            assert not env.observe(other)["action_mask"].any(), other
                    return
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
    pytest.skip("no mid-game elimination found")


def play_without_calling(env) -> set[str]:
    """Random legal moves to the episode's end, never calling Yaniv (the rounds must run
    into the turn limit); returns the agents whose episode was truncated."""
    rng = np.random.default_rng(0)
    truncated = set()
    for agent in env.agent_iter(10_000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            if trunc:
                truncated.add(agent)
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            legal = [a for a in legal if a != CALL_YANIV] or legal
            env.step(int(legal[rng.integers(len(legal))]))
    return truncated


@pytest.mark.parametrize("preset", list(PRESETS))
def test_turn_limit_truncates(preset):
    # a round that hits the turn limit ends as a draw: truncation in "round" episodes
    env = yaniv_env.raw_env(rules=preset, num_players=2, episode="round", turn_limit=1)
    env.reset(seed=4)
    assert play_without_calling(env) == {"player_0", "player_1"}
    assert env.unwrapped.game.round_result.truncated


@pytest.mark.parametrize("scheme", ["outcome", "score_outcome", "score_round_outcome", "margin_outcome"])
def test_a_drawn_round_places_nobody(scheme):
    """A round drawn at the turn limit has no winner: the round's place pays 0 to everyone (with
    ties sharing the better place, every player would otherwise get the first place's +1)."""
    env = yaniv_env.raw_env(rules="standard", num_players=2, episode="round", turn_limit=1, reward=scheme)
    env.reset(seed=4)
    totals = dict.fromkeys(env.agents, 0.0)
    for agent in env.agent_iter(1_000):
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
        else:
            env.step(int(next(a for a in np.flatnonzero(obs["action_mask"]) if a != CALL_YANIV)))
    assert env.unwrapped.game.round_result.truncated and env.unwrapped.game.round_result.winners == []
    assert totals == {"player_0": 0.0, "player_1": 0.0}


def test_round_limit_truncates_the_game():
    rules = PRESETS["standard"].replace(turn_limit=1, round_limit=7)
    env = yaniv_env.raw_env(rules=rules, num_players=2, episode="game")
    env.reset(seed=0)
    truncated = play_without_calling(env)
    g = env.unwrapped.game
    assert g.game_truncated and g.round_index == 6
    assert truncated == {"player_0", "player_1"}


# -- the observation, value by value -----------------------------------------------------


def reference_observation(layout, s, seat: int) -> np.ndarray:
    """The observation of ``seat`` built the plain way, piece by piece from the state's
    lists (the builder gathers the card pieces from the counts the engine keeps)."""
    rules = layout.rules
    P = layout.pieces
    n, K = s.num_players, 53
    obs = np.zeros(layout.size, dtype=np.float32)
    order = [(seat + r) % n for r in range(n)]

    def add(piece, cards, offset=0):
        for k in cards:
            obs[P[piece].start + offset + k] += 1

    add("hand", s.hands[seat])
    add("takeable", s.takeable)
    add("top", s.top)
    if s.phase in (engine.DRAW, engine.SLAM_PHASE) and s.pending is not None:
        add("pending", s.pending.cards)
    if s.phase == engine.SLAM_PHASE and seat == s.current:
        add("drawn", [s.drawn])
    for r in range(1, n):
        add("known", s.known[order[r]], (r - 1) * K)
    add("out_of_play", s.pile)
    obs[P["hand_sizes"].slice] = [len(s.hands[p]) * (1.0 / rules.hand_size) for p in order]
    obs[P["scores"].slice] = [s.scores[p] * (1.0 / rules.score_limit) for p in order]
    obs[P["alive"].slice] = [1.0 if s.alive[p] else 0.0 for p in order]
    obs[P["turn_player"].start + (s.turn_player - seat) % n] = 1
    if s.phase == engine.ASAF_PHASE and s.caller is not None:
        obs[P["caller"].start + (s.caller - seat) % n] = 1
    obs[P["stock"].start] = len(s.stock) * (1.0 / rules.deck_size)
    obs[P["round_progress"].start] = s.round_turns * (1.0 / rules.turn_limit)
    if seat == s.current and s.phase < engine.NUM_DECISION_PHASES:
        obs[P["phase"].start + s.phase] = 1
    obs[P["rules"].slice] = rules_vector(rules)
    if rules.rounds_per_player is not None:
        rounds = rules.rounds_per_player * n
        obs[P["rounds_left"].start] = (rounds - s.round_index) / rounds
    else:
        assert "rounds_left" not in P
    return obs


@pytest.mark.parametrize("preset_count", PRESET_COUNTS, ids=_id)
def test_observation_matches_the_plain_builder(preset_count):
    """Every seat's observation equals the plain builder's at every decision of random
    games (slams, Asaf, Blast, reshuffles and new deals included), also when one layout
    builds for several states in turn and for copies that start without kept counts."""
    name, n = preset_count
    rules = PRESETS[name].with_players(n).replace(turn_limit=60)
    layout = ObservationLayout(rules)
    rng = np.random.default_rng(n)
    s = engine.new_game(rules, rng=rng)
    phases = set()
    for step in range(1500):
        if s.phase == engine.GAME_OVER:
            s = engine.new_game(rules, rng=rng)
        if s.phase == engine.ROUND_OVER:
            for seat in range(n):
                assert np.array_equal(layout.build(s, seat), reference_observation(layout, s, seat))
            engine.start_next_round(s)
        phases.add(s.phase)
        for seat in range(n):
            assert np.array_equal(layout.build(s, seat), reference_observation(layout, s, seat)), (step, seat)
        if step % 7 == 0:
            c = s.copy()
            assert np.array_equal(layout.build(c, s.current), reference_observation(layout, s, s.current))
        legal = engine.legal_actions(s)
        engine.apply(s, legal[rng.integers(len(legal))])
    assert {engine.DISCARD, engine.DRAW} <= phases


# -- hidden information -----------------------------------------------------------------


def _position(rules, **kw):
    return engine.from_position(rules, **kw)


def test_observation_ignores_opponents_hidden_cards():
    rules = PRESETS["standard"].with_players(3)
    hands = [parse_cards("AS 5H 9D KC 3S"), parse_cards("2H 7C JD QS 4D"), parse_cards("6C 6D 10S 8S 2C")]
    top = parse_cards("6S")
    pile = parse_cards("8H 8D")
    known = [[], parse_cards("7C"), []]
    deck = Counter(range(52)) + Counter({52: 2})
    rest = sorted((deck - Counter(k for h in hands for k in h) - Counter(top) - Counter(pile)).elements())
    base = dict(rules=rules, top=top, pile=pile, known=known, scores=[12, 40, 77], current=0)
    layout = ObservationLayout(rules)
    a = _position(hands=hands, stock=rest, **base)
    obs_a = layout.build(a, 0)

    def swapped(p, card, stock_card, new_known=None):
        hs = copy.deepcopy(hands)
        hs[p][hs[p].index(card)] = stock_card
        st = [card if k == stock_card else k for k in rest]
        kw = dict(base)
        if new_known is not None:
            kw["known"] = new_known
        return _position(hands=hs, stock=st, **kw)

    # an opponent's unknown card swapped with a stock card: same observation
    jd, qh, kh = parse_cards("JD QH KH")
    b = swapped(1, jd, qh)
    assert np.array_equal(layout.build(b, 0), obs_a)
    assert not np.array_equal(StateLayout(rules).build(b), StateLayout(rules).build(a))
    c = swapped(2, parse_cards("10S")[0], kh)
    assert np.array_equal(layout.build(c, 0), obs_a)
    # the stock's order is hidden too
    d = _position(hands=hands, stock=rest[::-1], **base)
    assert np.array_equal(layout.build(d, 0), obs_a)
    # the observer's own hand is seen
    e = swapped(0, parse_cards("KC")[0], qh)
    assert not np.array_equal(layout.build(e, 0), obs_a)
    # an opponent's known card is seen
    c7, d7 = parse_cards("7C 7D")
    f = swapped(1, c7, d7, new_known=[[], [d7], []])
    assert not np.array_equal(layout.build(f, 0), obs_a)
    # and the swapped opponent sees its own change
    assert not np.array_equal(layout.build(b, 1), layout.build(a, 1))
    assert np.array_equal(layout.build(b, 2), layout.build(a, 2))


def _snapshot_positions(rules, seed: int, count: int):
    """Positions met in random play, at the start of a turn, as from_position kwargs."""
    rng = np.random.default_rng(seed)
    s = engine.new_game(rules, seed=seed)
    out = []
    while len(out) < count and s.phase != engine.GAME_OVER:
        if s.phase == engine.ROUND_OVER:
            engine.start_next_round(s)
            continue
        if s.phase == engine.DISCARD and rng.random() < 0.1:
            out.append(
                dict(
                    hands=[list(h) for h in s.hands],
                    top=list(s.top),
                    stock=list(s.stock),
                    pile=list(s.pile),
                    takeable=list(s.takeable),
                    current=s.current,
                    scores=list(s.scores),
                    alive=list(s.alive),
                    known=[list(k) for k in s.known],
                    round_index=s.round_index,
                )
            )
        legal = engine.legal_actions(s)
        engine.apply(s, legal[rng.integers(len(legal))])
    return out


@pytest.mark.parametrize("preset_count", PRESET_COUNTS, ids=_id)
def test_observation_ignores_hidden_cards_in_play(preset_count):
    """In positions from random play, swapping one opponent's unknown card with a stock
    card (and shuffling the stock) changes no other seat's observation; the seat whose hand
    changed, and every seat when a known card changes, does see it."""
    name, n = preset_count
    rules = PRESETS[name].with_players(n)
    layout = ObservationLayout(rules)
    rng = np.random.default_rng(n)
    checked = known_checked = 0
    for kw in _snapshot_positions(rules, seed=n, count=12):
        a = engine.from_position(rules, **kw)
        for p in range(n):
            unknown = list((Counter(kw["hands"][p]) - Counter(kw["known"][p])).elements())
            candidates = [k for k in set(kw["stock"]) if k not in unknown]
            if not unknown or not candidates:
                continue
            card = unknown[rng.integers(len(unknown))]
            new = candidates[rng.integers(len(candidates))]
            hands = [list(h) for h in kw["hands"]]
            hands[p][hands[p].index(card)] = new
            stock = list(kw["stock"])
            stock[stock.index(new)] = card
            rng.shuffle(stock)
            b = engine.from_position(rules, **{**kw, "hands": hands, "stock": stock})
            for q in range(n):
                if not kw["alive"][q]:
                    continue
                same = np.array_equal(layout.build(a, q), layout.build(b, q))
                assert same == (q != p), (p, q, card_name(card), card_name(new))
            checked += 1
            # a known card changing is seen by every seat
            if kw["known"][p]:
                kcard = kw["known"][p][0]
                cands = [k for k in set(kw["stock"]) if k != kcard]
                new = cands[rng.integers(len(cands))]
                hands = [list(h) for h in kw["hands"]]
                hands[p][hands[p].index(kcard)] = new
                known = [list(k) for k in kw["known"]]
                known[p][0] = new
                stock = list(kw["stock"])
                stock[stock.index(new)] = kcard
                c = engine.from_position(rules, **{**kw, "hands": hands, "stock": stock, "known": known})
                for q in range(n):
                    if kw["alive"][q]:
                        assert not np.array_equal(layout.build(a, q), layout.build(c, q)), (p, q)
                known_checked += 1
    assert checked >= 5 and known_checked >= 3


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_acting_seat_ignores_hidden_cards_in_every_phase(preset, players):
    """At every kind of decision met in random play (discard, draw, slam, Asaf, Blast), the
    deciding seat's observation does not change when another player's unknown card is
    swapped with a stock card."""
    rules = PRESETS[preset].with_players(players)
    layout = ObservationLayout(rules)
    rng = np.random.default_rng(7)
    s = engine.new_game(rules, seed=7)
    phases = Counter()
    # every decision kind the rules have: slam (not two_deck), Asaf and Blast (french)
    kinds = {"standard": 3, "seven": 3, "french": 5, "two_deck": 2}[preset]
    while sum(phases.values()) < 150 or (len(phases) < kinds and sum(phases.values()) < 3000):
        if s.phase == engine.GAME_OVER:
            s = engine.new_game(rules, rng=rng)
        if s.phase == engine.ROUND_OVER:
            engine.start_next_round(s)
            continue
        q = s.current
        if rng.random() < 0.3 or s.phase >= engine.SLAM_PHASE:
            others = [p for p in range(players) if p != q and s.hands[p]]
            p = others[rng.integers(len(others))]
            unknown = list((Counter(s.hands[p]) - Counter(s.known[p])).elements())
            cands = [k for k in set(s.stock) if k not in unknown]
            if unknown and cands:
                card, new = unknown[rng.integers(len(unknown))], cands[rng.integers(len(cands))]
                b = s.copy()
                b.hands[p][b.hands[p].index(card)] = new
                b.stock[b.stock.index(new)] = card
                rng.shuffle(b.stock)
                assert np.array_equal(layout.build(s, q), layout.build(b, q)), (s.phase_name, p, q)
                assert not np.array_equal(layout.build(s, p), layout.build(b, p))
                phases[s.phase] += 1
        legal = engine.legal_actions(s)
        engine.apply(s, legal[rng.integers(len(legal))])
    assert set(phases) == set(range(kinds))


def test_other_seats_do_not_see_the_card_drawn_from_the_stock():
    rules = PRESETS["standard"]
    layout = ObservationLayout(rules)
    hands = [parse_cards("7H KS QS JS 10S"), parse_cards("2H 3H 4H 5D 6D")]
    top = parse_cards("2C")
    deck = Counter(range(52)) + Counter({52: 2})
    rest = sorted((deck - Counter(k for h in hands for k in h) - Counter(top)).elements())
    views = []
    for drawn in parse_cards("7S 7D"):  # the stock's next card: one 7 or another
        s = engine.from_position(rules, hands=hands, top=top, stock=[k for k in rest if k != drawn] + [drawn])
        engine.apply(s, s.table.encode_discard(parse_cards("7H")))
        engine.apply(s, 0)  # draw from the stock: a 7, so player_0 may slam it
        assert s.phase == engine.SLAM_PHASE and s.current == 0
        views.append(layout.build(s, 1))
    assert np.array_equal(views[0], views[1]), "player_1 sees which 7 player_0 drew"


def _twin(env):
    """A copy of a raw env sharing its tables: the game and the per-agent dicts copied."""
    twin = copy.copy(env)
    twin.game = env.game.copy()
    for name in ("agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        setattr(twin, name, copy.copy(getattr(env, name)))
    twin._round_start_scores = copy.copy(env._round_start_scores)
    twin.layout = ObservationLayout(env.rules)  # its count cache follows one state
    return twin


def _hidden_swap_leaks(rules, seed: int, steps: int) -> tuple[int, int]:
    """Random play in a raw env; before each step, a copy of the env in which one
    opponent's unknown card (not the acting seat's) is swapped with a stock card and the
    stock reshuffled. Both take the same step; counts the steps after which the agent to
    act, or what a seat that is neither the one changed nor the actor sees, differs
    (their observations, masks and ``agent_selection``), and the steps compared."""
    env = yaniv_env.raw_env(rules=rules, num_players=rules.num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    leaks = compared = 0
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            if not env.agents or all(env.terminations.values()) or all(env.truncations.values()):
                break
            env.step(None)
            continue
        g = env.game
        actor, round_index = g.current, g.round_index
        others = [p for p in range(g.num_players) if p != actor and g.alive[p]]
        p = others[rng.integers(len(others))]
        unknown = list((Counter(g.hands[p]) - Counter(g.known[p])).elements())
        cands = [k for k in set(g.stock) if k not in unknown]
        mask = env.observe(agent)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        if unknown and cands and g.phase <= engine.BLAST_PHASE:
            twin = _twin(env)
            b = twin.game
            card, new = unknown[rng.integers(len(unknown))], cands[rng.integers(len(cands))]
            b.hands[p][b.hands[p].index(card)] = new
            b.stock[b.stock.index(new)] = card
            rng.shuffle(b.stock)
            b._counts = None
            twin.step(action)
            env.step(action)
            # a call shows the hands (and the env deals the next round): compare within a round
            if env.game.phase not in (engine.ROUND_OVER, engine.GAME_OVER) and env.game.round_index == round_index:
                compared += 1
                differs = env.agent_selection != twin.agent_selection
                for q in range(g.num_players):
                    if q not in (p, actor) and g.alive[q]:
                        name = f"player_{q}"
                        o1, o2 = env.observe(name), twin.observe(name)
                        differs |= not np.array_equal(o1["observation"], o2["observation"])
                        differs |= not np.array_equal(o1["action_mask"], o2["action_mask"])
                leaks += differs
        else:
            env.step(action)
    return leaks, compared


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("preset", ["standard", "seven", "french"])
def test_decision_sequence_shows_nothing_hidden(preset, players):
    """Private windows (the default): changing hidden cards (an opponent's unknown card,
    the stock's order, so the card the actor draws) changes neither ``agent_selection``
    nor what the other seats see, through slam and Blast windows included. Without them,
    the sequence leaks."""
    rules = PRESETS[preset].with_players(players)
    leaks, compared = _hidden_swap_leaks(rules, seed=players, steps=500)
    assert compared > 100 and leaks == 0
    leaks, compared = _hidden_swap_leaks(rules.replace(private_windows=False), seed=players, steps=500)
    assert leaks > 0


# -- bad input --------------------------------------------------------------------------


def _snapshot(raw):
    g = raw.game
    return (
        repr(g),
        copy.deepcopy(g.hands),
        list(g.stock),
        list(g.pile),
        list(g.top),
        copy.deepcopy(g.known),
        list(g.scores),
        (g.phase, g.current, g.turn_player, g.turns, g.round_turns, g.takeable, g.pending, g.drawn),
        (g.key, g.reshuffles, list(g.blast_queue), g.drawn_slammable),
        raw.agent_selection,
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        list(raw.agents),
    )


@pytest.mark.parametrize("preset", list(PRESETS))
def test_raw_env_illegal_action_raises_and_changes_nothing(preset):
    env = yaniv_env.raw_env(rules=preset, num_players=3 if preset != "two_deck" else 4)
    env.reset(seed=5)
    phases = check_illegal_actions_raise(env, _snapshot, max_iter=3000)
    # every decision kind the rules have was tried: slam (not two_deck), Asaf and Blast (french)
    expected = {"standard": 3, "seven": 3, "french": 5, "two_deck": 2}[preset]
    assert phases == set(range(expected))


def test_wrapped_env_illegal_action_terminates_with_penalty(caplog):
    for turn in (0, 25):
        env = yaniv_env.env(rules="standard", num_players=3)
        env.reset(seed=2)
        offender, received = play_until_illegal(env, turn, caplog)
        assert set(received) == {"player_0", "player_1", "player_2"}
        if turn == 0:
            assert all(r == 0.0 for a, r in received.items() if a != offender)


@pytest.mark.parametrize(
    "action, message",
    [
        (1543, "action 1543 is out of range 0..1542 for the 'standard' rules"),
        (99999, "action 99999 is out of range 0..1542"),
        (-1, "action -1 is out of range 0..1542"),
        (1.0, "an action is an int id, got 1.0"),
        ("x", "an action is an int id, got 'x'"),
        (None, "an action is an int id, got None"),
        (True, "an action is an int id, got True"),  # Discrete.contains takes it for 1
        (False, "an action is an int id, got False"),
        (np.True_, "an action is an int id, got np.True_"),
        (np.float64(64.0), "an action is an int id, got np.float64(64.0)"),
        (np.array(64), "an action is an int id, got array(64)"),
        (np.array([64]), "an action is an int id, got array([64])"),
    ],
)
@pytest.mark.parametrize("make", [yaniv_env.raw_env, yaniv_env.env], ids=["raw", "wrapped"])
def test_action_out_of_the_space_is_named(make, action, message):
    # env() says what raw_env says (not PettingZoo's bare AssertionError), state untouched.
    env = make(rules="standard", num_players=2)
    env.reset(seed=0)
    agent = env.agent_selection
    before = env.unwrapped.state().copy()
    with pytest.raises(ValueError, match="Legal actions: ") as err:
        env.step(action)
    assert str(err.value).startswith(f"{agent}: {message}")
    assert np.array_equal(env.unwrapped.state(), before) and env.agent_selection == agent


@pytest.mark.parametrize("game", ["yaniv", "pis_yedili"])
def test_observe_answers_for_an_agent_that_has_left(game):
    # an illegal move ends the game (TerminateIllegalWrapper); every agent leaves, and each
    # is still observed (SuperSuit's wrappers observe the last agent selected)
    make = yaniv_env.env if game == "yaniv" else pis_yedili.env
    env = make(num_players=3)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.unwrapped.observe(env.agent_selection)["action_mask"] == 0)[0]))
    for _agent in env.agent_iter():
        env.step(None)
    assert not env.agents
    for agent in env.possible_agents:
        obs = env.observe(agent)
        assert obs in env.observation_space(agent) and not obs["action_mask"].any()


@pytest.mark.parametrize("game", ["yaniv", "pis_yedili"])
@pytest.mark.parametrize("wrapper", ["sticky_actions_v0", "delay_observations_v0", "clip_reward_v0"])
def test_supersuit_wrappers_play_whole_episodes(game, wrapper):
    supersuit = pytest.importorskip("supersuit")
    make, part = (yaniv_env.env, "round") if game == "yaniv" else (pis_yedili.env, "deal")
    args = {"sticky_actions_v0": (0.5,), "delay_observations_v0": (1,), "clip_reward_v0": (-1, 1)}[wrapper]
    rng = np.random.default_rng(0)
    for seed in range(3):
        env = getattr(supersuit, wrapper)(make(num_players=3, episode=part), *args)
        env.reset(seed=seed)
        steps = 0
        for _agent in env.agent_iter(20_000):
            obs, _, terminated, truncated, _ = env.last()
            steps += 1
            # sticky or delayed actions may be illegal: TerminateIllegalWrapper then ends the game
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert not env.agents and steps > 1


@pytest.mark.parametrize("make", [yaniv_env.raw_env, yaniv_env.env], ids=["raw", "wrapped"])
def test_step_and_last_after_the_game_raise(make):
    from yaniv_env.core.aec import ResetNeededError

    env = make(rules="standard", num_players=2, turn_limit=20)
    env.reset(seed=0)
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        env.step(
            None if terminated or truncated else int(np.flatnonzero(env.unwrapped.observe(agent)["action_mask"])[0])
        )
    for call in (lambda: env.step(0), lambda: env.step(None), lambda: env.last()):
        with pytest.raises(ResetNeededError, match=r"the game is over \(every agent has left\): call reset\(\)"):
            call()
    env.reset(seed=1)
    assert env.agents


def test_raw_env_before_reset_raises():
    from yaniv_env.core.aec import ResetNeededError

    env = yaniv_env.raw_env()
    for call in (lambda: env.step(0), lambda: env.last()):
        with pytest.raises(ResetNeededError, match=r"no game yet: call reset\(\) before step\(\) or last\(\)"):
            call()
    wrapped = yaniv_env.env()  # PettingZoo's OrderEnforcingWrapper says it already
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        wrapped.step(0)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(num_players=1),
        dict(num_players=0),
        dict(rules="two_deck", num_players=6),
        dict(rules="standard", num_players=11),
        dict(rules="french", num_players=11),
        dict(rules="no_such_preset"),
        dict(rules=42),
        dict(episode="match"),
        dict(reward="win"),
        dict(render_mode="rgb"),
        dict(turn_limit=0),
        dict(reveal=3),
        dict(reveal="all"),
    ],
)
def test_bad_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        yaniv_env.raw_env(**kwargs)
    with pytest.raises(ValueError):
        yaniv_env.env(**kwargs)


def test_largest_tables_are_allowed():
    for name, rules in PRESETS.items():
        env = yaniv_env.raw_env(rules=name, num_players=rules.max_seats)
        env.reset(seed=0)
        assert len(env.agents) == rules.max_seats


# -- rendering, helpers, registry -------------------------------------------------------


def test_render_ansi_shows_the_table():
    env = yaniv_env.raw_env(rules="standard", num_players=3, render_mode="ansi", reveal=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    suits_seen = set()
    for i, _agent in enumerate(env.agent_iter(max_iter=400)):
        text = env.render()
        assert isinstance(text, str)
        g = env.unwrapped.game
        suits_seen |= {s for s in SUIT_SYMBOLS if s in text}
        assert f"Yaniv (standard) — round {g.round_index + 1}" in text
        assert f"player_{g.current} to act" in text
        assert f"stock: {len(g.stock)} cards" in text
        assert f"discard: {cards_name(g.top) or '—'}" in text
        for p in range(3):
            line = next(line for line in text.splitlines() if line.lstrip("▶ ").startswith(f"player_{p} "))
            assert str(g.scores[p]) in line
            if g.alive[p]:
                assert hand_name(g.hands[p]) in line  # render shows every hand by design, sorted
                assert f"(total {engine.hand_value(g.hands[p])})" in line
        if i > 0:
            assert text.splitlines()[1].startswith("last: ")
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
    assert suits_seen == set("♠♥♦♣")


def test_render_shows_the_hands_reveal_asks_for():
    # the default, "current": the hand of the player to act, the others as backs and known cards
    for reveal, shown in (("current", {1}), (True, {0, 1, 2}), (2, {2}), (False, set())):
        asked = {} if reveal == "current" else {"reveal": reveal}
        env = yaniv_env.raw_env(num_players=3, render_mode="ansi", **asked)
        env.reset(seed=1)
        assert env.game.current == 1
        text = env.render()
        for p in range(3):
            line = next(line for line in text.splitlines() if line.lstrip("▶ ").startswith(f"player_{p} "))
            assert (hand_name(env.game.hands[p]) in line) == (p in shown), (reveal, line)
            assert ("▮" in line) == (p not in shown)


def test_render_without_a_mode_warns():
    quiet = yaniv_env.raw_env()
    quiet.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None


def test_decode_and_names():
    env = yaniv_env.raw_env()
    env.reset(seed=0)
    assert env.action_name(0) == "draw from stock"
    assert env.action_name(1) == "call Yaniv"
    assert env.action_name(6 + 4 + 13) == "take 5♥"
    assert env.decode(0).kind == "draw"
    for a in env.legal_actions():
        d = env.decode(a)
        assert d.kind in ("discard", "call")
        if d.kind == "discard":
            assert env.action_name(a).startswith("discard " + cards_name(d.cards))
    assert env.action_space("player_0").n == 1543


def test_pettingzoo_registry():
    assert hasattr(pettingzoo, "make")
    from pettingzoo.env_registry.registration import aec_registry

    assert "yaniv_env/Yaniv-v0" in aec_registry
    env = pettingzoo.make("aec", "yaniv_env/Yaniv-v0", rules="seven", num_players=3)
    assert env.unwrapped.rules.name == "seven" and env.unwrapped.rules.num_players == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=50)


# -- bench ------------------------------------------------------------------------------


def test_bench_json(capsys):
    from yaniv_env.tools import bench

    assert bench.main(["--seconds", "0.2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["engine"]) == set(PRESETS)
    numbers = [v for r in result["engine"].values() for k, v in r.items() if k.endswith("_per_s")]
    numbers += [result["env"][k]["steps_per_s"] for k in ("aec_raw", "aec_wrapped", "gym")]
    assert len(numbers) == 4 * 4 + 3
    assert all(isinstance(v, float) and v > 0 for v in numbers)


def test_bench_sections(capsys):
    from yaniv_env.tools import bench

    assert bench.main(["--seconds", "0.05", "--no-engine", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["engine"] == {} and "engine" not in result["pis_yedili"]
    for r in (*[result["env"][k] for k in ("aec_raw", "aec_wrapped", "gym")], result["pis_yedili"]["env"]["gym"]):
        assert r["steps_per_cpu_s"] > 0 and r["cpu_seconds"] > 0
    assert bench.main(["--seconds", "0.05", "--no-engine", "--no-pis"]) == 0
    out = capsys.readouterr().out
    assert "turns/s" not in out and "Pis Yedili" not in out and "steps/CPU s" in out and "AEC env()" in out
    # each environment row next to the idle environment in the same wrappers, measured in the same run
    assert "× idle" in out and "does nothing" in out
    idle = result["env"]["idle"]
    assert all(idle[k]["steps_per_cpu_s"] > result["env"][k]["steps_per_cpu_s"] * 0.5 for k in ("aec_raw", "gym"))
    with pytest.raises(SystemExit):
        bench.main(["--no-engine", "--no-env"])
    assert "nothing to measure" in capsys.readouterr().err


def test_bench_text_and_bad_count(capsys):
    from yaniv_env.tools import bench

    assert bench.main(["--seconds", "0.05", "--presets", "seven", "--no-env", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "seven" in out and "turns/s" in out
    assert bench.main(["--seconds", "0.05", "--env-preset", "two_deck", "--players", "6"]) == 2
    assert "at most 5" in capsys.readouterr().err
