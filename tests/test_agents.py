"""The baseline agents: always legal, deterministic, any table size, and a sane ladder."""

from __future__ import annotations

import math

import numpy as np
import pytest

import agents
import yaniv_env
from agents.base import STRICT_ENV, IllegalChoiceError
from agents.common import context, decode, num_players_from_obs
from agents.play_format import read_play_file
from yaniv_env import PRESETS, get_rules
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.cards import YANIV_VALUE
from yaniv_env.yaniv.observation import ObservationLayout

PRESET_NAMES = list(PRESETS)
# A cheap search agent: it still determinizes and rolls out, on a tiny budget.
SEARCH_FAST = {"simulations": 2, "call_simulations": 3, "candidates": 2, "search_cards": 1}


def make(name: str, seed: int, rules: str, fast: bool = True) -> agents.Policy:
    options = SEARCH_FAST if name == "search" and fast else {}
    return agents.make(name, seed=seed, rules=rules, **options)


def play(
    rules: str,
    n: int,
    names: list[str],
    seed: int,
    episode: str = "game",
    max_steps: int | None = None,
    fast: bool = True,
):
    """Play one episode of ``raw_env``; every action must be in its mask. Returns the env
    and the list of (seat, action)."""
    env = yaniv_env.raw_env(rules=rules, num_players=n, episode=episode)
    env.reset(seed=seed)
    pols = [make(nm, seed * 31 + i, rules, fast) for i, nm in enumerate(names)]
    log = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = int(agent.rsplit("_", 1)[1])
        mask = obs["action_mask"]
        a = pols[seat].act(obs["observation"], mask)
        assert isinstance(a, int), f"{names[seat]} returned {a!r}"
        assert mask[a] == 1, f"{names[seat]} chose illegal action {a} ({env.unwrapped.action_name(a)})"
        log.append((seat, a))
        env.step(a)
        if max_steps is not None and len(log) >= max_steps:
            break
    return env, log


def test_unknown_agent_name_raises():
    with pytest.raises(ValueError, match="unknown agent"):
        agents.make("no-such-agent")


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "search", "pis_random", "pis_heuristic", "ppo"])
def test_unknown_option_raises_type_error_naming_it(name):
    with pytest.raises(TypeError, match="colour"):
        agents.make(name, seed=0, colour=3)


def test_unknown_loader_option_raises_type_error_naming_it():
    with pytest.raises(TypeError, match="colour"):
        agents.load(str(agents.SHIPPED_MODEL), colour=3)


def _choose_illegal(bot, name: str, monkeypatch) -> None:
    """Make ``bot``'s logic choose action 0 (draw from the stock, never legal in the discard
    phase of a fresh deal): the heuristic's kernel, the search's move before any rollout."""
    if name == "heuristic":
        monkeypatch.setattr(bot, "_kernel", lambda obs, masks, tables: np.zeros(len(obs), np.int64))
    else:
        monkeypatch.setattr(bot, "_prepare", lambda info, obs, mask: (0, None, 0.0))


@pytest.mark.parametrize("name", ["heuristic", "search"])
def test_strict_mode_raises_on_an_illegal_choice(name, monkeypatch):
    env = yaniv_env.raw_env(rules="standard", num_players=2)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][0] == 0
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    bot = make(name, 0, "standard")
    assert bot.strict  # the suite's conftest turns strict mode on for every agent
    _choose_illegal(bot, name, monkeypatch)
    with pytest.raises(IllegalChoiceError, match=rf"agent '{name}' chose action 0.*legal actions: \[{legal[0]}, "):
        bot.act(obs["observation"], obs["action_mask"])
    # without strict mode the slip is replaced by a legal move, with a warning
    lenient = agents.make(name, seed=0, strict=False, **(SEARCH_FAST if name == "search" else {}))
    _choose_illegal(lenient, name, monkeypatch)
    with pytest.warns(RuntimeWarning, match="not legal"):
        assert lenient.act(obs["observation"], obs["action_mask"]) in legal


def test_strict_mode_default_follows_the_environment(monkeypatch):
    monkeypatch.setenv(STRICT_ENV, "0")
    assert not agents.make("heuristic").strict and agents.make("heuristic", strict=True).strict
    monkeypatch.setenv(STRICT_ENV, "1")
    assert agents.make("search").strict and not agents.make("search", strict=False).strict


@pytest.mark.parametrize("rules", PRESET_NAMES)
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_agents_always_legal(rules, n):
    """Whole games of every preset and table size with every agent seated; the search
    agent on a tiny budget and for part of the games only, to keep the file fast."""
    pool = ["greedy", "heuristic", "random"]
    for g in range(4):
        names = [pool[(g + i) % len(pool)] for i in range(n)]
        play(rules, n, names, seed=1000 * n + g)
    names = ["search"] + [pool[i % len(pool)] for i in range(n - 1)]
    env, log = play(rules, n, names, seed=77 + n, max_steps=600)
    assert any(seat == 0 for seat, _ in log)


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_search_default_budget_legal(rules):
    """The search agent with its default budget, for a round of each preset."""
    play(rules, 2, ["search", "heuristic"], seed=11, episode="round", fast=False)


@pytest.mark.parametrize("name", ["greedy", "heuristic", "search"])
def test_agents_are_deterministic_given_their_seed(name):
    names = [name, "heuristic"]
    _, a = play("standard", 2, names, seed=5, episode="round")
    _, b = play("standard", 2, names, seed=5, episode="round")
    assert a == b
    # reset(seed) restarts the same choices on the same observations
    env = yaniv_env.raw_env(rules="french", num_players=3)
    env.reset(seed=3)
    agent = make(name, 11, "french")
    obs, *_ = env.last()
    first = [agent.act(obs["observation"], obs["action_mask"]) for _ in range(3)]
    agent.reset(11)
    again = [agent.act(obs["observation"], obs["action_mask"]) for _ in range(3)]
    assert first == again


@pytest.mark.parametrize("name", ["greedy", "heuristic", "search"])
def test_player_count_inferred_or_fixed(name):
    """``num_players=None`` reads the table size from the observation; a fixed count
    that does not match the observation is an error."""
    agent = agents.make(name, seed=0, rules="seven")
    for n in (2, 3, 4, 5):
        env = yaniv_env.raw_env(rules="seven", num_players=n)
        env.reset(seed=n)
        obs, *_ = env.last()
        assert num_players_from_obs(len(obs["observation"])) == n
        a = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1
    fixed = agents.make(name, seed=0, rules="seven", num_players=2)
    env = yaniv_env.raw_env(rules="seven", num_players=3)
    env.reset(seed=0)
    obs, *_ = env.last()
    with pytest.raises(ValueError, match="does not match"):
        fixed.act(obs["observation"], obs["action_mask"])


def test_rules_object_accepted():
    rules = get_rules("two_deck", 4)
    agent = agents.make("heuristic", seed=1, rules=rules)
    env = yaniv_env.raw_env(rules=rules, num_players=4)
    env.reset(seed=2)
    obs, *_ = env.last()
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])] == 1


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_decode_matches_public_view(rules):
    """The observation decoding gives back the engine's public information."""
    r = get_rules(rules, 3)
    ctx = context(r)
    layout = ObservationLayout(r)
    s = engine.new_game(r, seed=4)
    rng = np.random.default_rng(0)
    checked = 0
    while s.phase != engine.GAME_OVER and checked < 300:
        if s.phase == engine.ROUND_OVER:
            engine.start_next_round(s)
            continue
        seat = s.current
        info = decode(ctx, layout.build(s, seat), engine.legal_mask(s))
        view = engine.public_view(s, seat)
        order = [(seat + i) % 3 for i in range(3)]
        assert sorted(info.hand) == sorted(view.hand)
        assert sorted(info.takeable) == sorted(view.takeable)
        assert sorted(info.top) == sorted(view.top)
        assert sorted(info.out_of_play) == sorted(view.out_of_play)
        assert [sorted(info.known[i]) for i in range(1, 3)] == [sorted(view.known[p]) for p in order[1:]]
        assert info.hand_sizes == tuple(view.hand_sizes[p] for p in order)
        assert info.scores == tuple(view.scores[p] for p in order)
        assert info.stock_size == view.stock_size
        assert info.phase == s.phase
        assert info.legal == engine.legal_actions(s)
        legal = engine.legal_actions(s)
        engine.apply(s, legal[int(rng.integers(len(legal)))])
        checked += 1


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_best_removed_agrees_with_action_table(rules):
    """The direct meld arithmetic of the heuristic's kernel (the best discard's value plus ``mu``
    per card) agrees with the rules' action table."""
    pytest.importorskip("numba")
    from agents.heuristic_batched import SCRATCH, _best_removed, heuristic_tables

    for n in (2, 4):
        ctx = context(get_rules(rules, n))
        ir, sc = heuristic_tables(ctx.rules).int_rules, np.zeros(2 * SCRATCH, np.int64)
        kinds = [k for k in range(53) for _ in range(ctx.deck_counts[k])]
        # small card subsets so that sets and runs are frequent
        subset = [k for k in kinds if k == 52 or (k % 13 in (2, 3, 4, 5, 11) and k // 13 < 2)]
        rng = np.random.default_rng(n)
        for pool in (kinds, subset):
            for _ in range(400):
                size = int(rng.integers(1, min(len(pool), ctx.rules.hand_size) + 1))
                hand = [pool[i] for i in rng.choice(len(pool), size, replace=False)]
                ids = ctx.table.legal_discards(hand)
                for mu in (0.0, 3.0):
                    discards = [ctx.table.discards[a - 59].cards for a in ids]
                    ref = max(sum(YANIV_VALUE[k] for k in d) + mu * len(d) for d in discards)
                    got = _best_removed(np.array(hand, np.int64), len(hand), mu, ir, sc, np.int64(0))
                    assert got == pytest.approx(ref), (hand, mu)


def test_search_plans_the_draw():
    """The draw the search planned at the discard decision is the one it plays."""
    agent = agents.make("search", seed=3, simulations=3, candidates=3)
    env = yaniv_env.raw_env(rules="standard", num_players=2)
    env.reset(seed=9)
    other = agents.make("heuristic", seed=4)
    planned = 0
    for agent_name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if agent_name == "player_0":
            before = agent._plan
            a = agent.act(obs["observation"], obs["action_mask"])
            if before is not None and a == before[1]:
                planned += 1
        else:
            a = other.act(obs["observation"], obs["action_mask"])
        env.step(a)
        if env.unwrapped.game.round_index >= 2:
            break
    assert planned > 0


def _match(a: str, b: str, games: int, rules: str = "standard", seed: int = 0, fast: bool = True) -> list[float]:
    """Duplicate-format 2-player games: the same seeds with seats swapped. Returns a's
    score per game (1 win, 0 loss)."""
    out = []
    for i in range(games // 2):
        for swap in (False, True):
            names = [b, a] if swap else [a, b]
            env, _ = play(rules, 2, names, seed=seed + i, fast=fast)
            places = engine.ranking(env.unwrapped.game)
            out.append(1.0 if places[1 if swap else 0] == 0 else 0.0)
    return out


def test_greedy_beats_random():
    wins = _match("greedy", "random", 100, seed=500)
    rate = float(np.mean(wins))
    half_width = 1.96 * math.sqrt(rate * (1 - rate) / len(wins) + 1e-9)
    assert rate - half_width > 0.6, rate


@pytest.mark.slow
@pytest.mark.parametrize(("strong", "weak"), [("heuristic", "greedy"), ("search", "heuristic")])
def test_ladder(strong, weak):
    """The ladder in 2-player games of the default preset (slow: full search budget)."""
    wins = _match(strong, weak, 200, seed=10_000, fast=False)
    rate = float(np.mean(wins))
    assert rate - 1.96 * math.sqrt(rate * (1 - rate) / len(wins)) > 0.5, rate


def test_shipped_agent_registry_picks_the_model_for_the_rules():
    assert agents.shipped_model("standard", 2) == agents.SHIPPED_MODEL == agents.SCRATCH_MODEL
    assert agents.shipped_model(PRESETS["standard"]) == agents.SHIPPED_MODEL
    assert agents.shipped_model("standard", 2, "ppo_advised") == agents.ADVISED_MODEL != agents.SHIPPED_MODEL
    # where nothing was learnt from scratch, ``ppo`` is the advised model
    assert agents.shipped_model("seven", 2) == agents.shipped_model("seven", 2, "ppo_advised")
    for name in agents.SHIPPED_KINDS:
        bot = agents.make(name, rules="standard", num_players=2, seed=0)
        meta, _ = read_play_file(agents.shipped_model("standard", 2, name))
        assert bot.rules == PRESETS["standard"] and bot.metadata["training"] == meta["training"]
    with pytest.raises(ValueError, match="no shipped agent is named 'ppo_v9'; the shipped agents: ppo, ppo_advised"):
        agents.shipped_model("standard", 2, "ppo_v9")
    with pytest.raises(ValueError, match="no trained agent 'ppo_scratch' is shipped for 'seven' rules"):
        agents.make("ppo_scratch", rules="seven")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"rules": "two_deck", "num_players": 3},
            "no trained agent 'ppo' is shipped for 'two_deck' rules with 3 players",
        ),
        ({"num_players": 5}, "'standard' rules with 5 players"),
        ({"rules": "french", "num_players": 4}, "'french' rules with 4 players"),
        ({"rules": PRESETS["standard"].replace(call_max=7)}, "rules changed from the preset 'standard'"),
    ],
)
def test_shipped_agent_registry_says_when_none_is_shipped(options, message):
    import agents

    with pytest.raises(ValueError, match=message) as err:
        agents.make("ppo", **options)
    shipped = "standard with 2 players, standard with 3 players, standard with 4 players, seven with 2 players, "
    assert f"shipped: {shipped}french with 2 players" in str(err.value)
