"""The single-agent Gymnasium wrapper: registration, the environment checkers, opponents,
the learner's seat, rewards and termination from the learner's side, masks, illegal
actions, determinism, and a MaskablePPO smoke run."""

from __future__ import annotations

import re
import warnings

import gymnasium
import numpy as np
import pytest

import yaniv_env  # noqa: F401  (registers yaniv_env/Yaniv-v0)
from yaniv_env.core.seeding import agent_seed, opponent_seed
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.cards import parse_cards
from yaniv_env.yaniv.gym_env import YanivGymEnv

ENV_ID = "yaniv_env/Yaniv-v0"

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def random_episode(env, seed: int, action_seed: int, check=None):
    """Play one episode with uniform random legal moves for the learner; returns the
    summed reward, the number of learner steps and the last step's flags and info."""
    base = env.unwrapped
    rng = np.random.default_rng(action_seed)
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    terminated = truncated = False
    while True:
        mask = base.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        if check is not None:
            check(base, obs, info)
        legal = np.flatnonzero(mask)
        action = int(legal[rng.integers(len(legal))])
        obs, reward, terminated, truncated, info = env.step(action)
        assert type(reward) is float
        assert "illegal_action" not in info
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps, terminated, truncated, info


def _check_learner_view(base, obs, info):
    """The learner is to act, the mask is the engine's legal set, the observation is the
    learner's."""
    aec = base.aec
    g = aec.game
    seat = base.seat
    assert info["seat"] == seat
    assert aec.agent_selection == f"player_{seat}"
    assert g.current == seat and g.phase < engine.ROUND_OVER
    assert np.flatnonzero(base.action_masks()).tolist() == engine.legal_actions(g)
    assert np.array_equal(obs, aec.layout.build(g, seat))
    assert base.observation_space.contains(obs)


# -- construction -----------------------------------------------------------------------


def test_gymnasium_make():
    env = gymnasium.make(ENV_ID, rules="seven", num_players=3, opponents=["random"])
    assert isinstance(env.unwrapped, YanivGymEnv)
    assert env.unwrapped.rules.name == "seven" and env.unwrapped.rules.num_players == 3
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
    assert env.action_space.n == 828
    assert info["action_mask"].any()
    legal = np.flatnonzero(env.unwrapped.action_masks())
    obs, reward, terminated, truncated, info = env.step(int(legal[0]))
    assert env.observation_space.contains(obs)
    env.close()


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(num_players=4, opponents=["random", "random"]),
        dict(num_players=3, opponents=["random"] * 3),
        dict(num_players=2, opponents=[]),
        dict(opponents=[42]),
        dict(opponents=["no_such_agent"]),
        dict(num_players=3, learner_seat=3),
        dict(learner_seat="left"),
        dict(illegal_action="ignore"),
        dict(num_players=1),
        dict(rules="two_deck", num_players=6),
        dict(episode="match"),
        dict(reward="win"),
    ],
)
def test_bad_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        YanivGymEnv(**kwargs)


# -- environment checkers ---------------------------------------------------------------


@pytest.mark.parametrize(
    "rules,players", [("standard", 2), ("seven", 2), ("french", 2), ("two_deck", 2), ("standard", 4)]
)
def test_env_checkers(rules, players):
    from gymnasium.utils.env_checker import check_env as gym_check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gymnasium.make(ENV_ID, rules=rules, num_players=players, opponents=["random"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(env.unwrapped, skip_render_check=True)
        sb3_check_env(YanivGymEnv(rules=rules, num_players=players), warn=False)
    env.close()


def test_render():
    env = YanivGymEnv(rules="french", num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "Yaniv (french)" in text


# -- opponents --------------------------------------------------------------------------


class CountingAgent:
    def __init__(self):
        self.calls = 0
        self.rng = np.random.default_rng(0)

    def act(self, observation, action_mask):
        self.calls += 1
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


def test_opponent_kinds_play_their_seats():
    obj = CountingAgent()
    seen = {"fn": 0}

    def fn(observation, action_mask):
        # the callable plays seat 2 (seats other than the learner's, in order: 0, 2, 3)
        assert env.aec.agent_selection == "player_2"
        assert observation.shape == env.observation_space.shape
        assert np.flatnonzero(action_mask).tolist() == engine.legal_actions(env.aec.game)
        seen["fn"] += 1
        legal = np.flatnonzero(action_mask)
        return int(legal[-1])

    env = YanivGymEnv(rules="standard", num_players=4, learner_seat=1, opponents=[obj, fn, "random"])
    orig_act = obj.act

    def act_seat0(observation, action_mask):
        assert env.aec.agent_selection == "player_0"
        return orig_act(observation, action_mask)

    obj.act = act_seat0
    random_episode(env, seed=3, action_seed=0, check=_check_learner_view)
    assert obj.calls > 0 and seen["fn"] > 0


def test_set_opponents_takes_effect_at_the_next_reset():
    first, second = CountingAgent(), CountingAgent()
    env = YanivGymEnv(num_players=3, opponents=first)
    env.reset(seed=0)
    env.set_opponents([second, second])
    assert env.opponents == [first, first]  # the episode under way keeps its opponents
    random_episode(env, seed=1, action_seed=0)  # resets: now the new ones play
    assert env.opponents == [second, second] and second.calls > 0
    calls = first.calls
    random_episode(env, seed=2, action_seed=0)
    assert first.calls == calls
    with pytest.raises(AttributeError):
        env.opponents = [first, first]
    env.opponents.append(first)  # a copy: the seats do not change
    assert env.opponents == [second, second]
    refused = [
        ([first] * 3, "3 given for 2 other seats"),
        ([42], "a policy must be"),
        (["nobody"], "unknown agent 'nobody'; agents: .*heuristic"),
    ]
    for bad, match in refused:
        with pytest.raises(ValueError, match=match):
            env.set_opponents(bad)
    env.reset(seed=3)
    assert env.opponents == [second, second]  # a refused call changed nothing
    env.set_opponents("greedy")  # a registered name, made with the environment's rules
    env.reset(seed=4)
    assert [type(o).__name__ for o in env.opponents] == ["GreedyAgent", "GreedyAgent"]


def test_single_opponent_spec_is_reused():
    obj = CountingAgent()
    env = YanivGymEnv(num_players=3, opponents=obj)
    assert env.opponents == [obj, obj]
    random_episode(env, seed=0, action_seed=0)
    assert obj.calls > 0
    env = YanivGymEnv(num_players=3, opponents="random")
    assert len(env.opponents) == 2
    env = YanivGymEnv(num_players=3, opponents=lambda o, m: int(np.flatnonzero(m)[0]))
    random_episode(env, seed=0, action_seed=0)


def within(count: int, total: int, p: float) -> None:
    """``count`` of ``total`` draws is within 5 standard deviations of probability ``p``."""
    assert abs(count - total * p) <= 5 * np.sqrt(total * p * (1 - p)), (count, total, p)


def test_opponent_mix_is_drawn_per_episode_from_the_environments_generator():
    mix = [("random", 1.0), ("greedy", 3.0)]
    env = YanivGymEnv(num_players=3, opponent_mix=mix, episode="round")
    assert env.opponents == []  # nothing drawn before the first reset
    _, info = env.reset(seed=7)
    labels = [info["opponent"]] + [env.reset()[1]["opponent"] for _ in range(799)]
    seats = [label.split("+") for label in labels]
    assert all(len(s) == 2 for s in seats)
    draws = [name for s in seats for name in s]
    within(draws.count("greedy"), len(draws), 0.75)  # by weight, each seat on its own
    assert {"random+greedy", "greedy+random", "greedy+greedy", "random+random"} <= set(labels)
    # the label names the opponents seated; a name is made once per seat (each its own agent)
    kinds = {"random": "RandomPolicy", "greedy": "GreedyAgent"}
    both_greedy = []
    for _ in range(20):
        _, info = env.reset()
        assert [type(o).__name__ for o in env.opponents] == [kinds[name] for name in info["opponent"].split("+")]
        if info["opponent"] == "greedy+greedy":
            both_greedy.append(env.opponents[0] is not env.opponents[1])
    assert both_greedy and all(both_greedy)
    # the same seed draws the same opponents; the label is in every step's info
    again = YanivGymEnv(num_players=3, opponent_mix=mix, episode="round")
    _, info = again.reset(seed=7)
    assert [info["opponent"]] + [again.reset()[1]["opponent"] for _ in range(99)] == labels[:100]
    *_, info = again.step(int(np.flatnonzero(again.action_masks())[0]))
    assert info["opponent"] == labels[99]
    # an object is shared by the seats; set_opponents seats fixed ones instead
    obj = CountingAgent()
    env = YanivGymEnv(num_players=3, opponent_mix=[(obj, 1.0)])
    assert env.reset(seed=0)[1]["opponent"] == "CountingAgent+CountingAgent" and env.opponents == [obj, obj]
    env.set_opponents("greedy")
    assert env.reset()[1]["opponent"] == "greedy+greedy"
    with pytest.raises(ValueError, match="not both"):
        YanivGymEnv(opponents="random", opponent_mix=mix)
    with pytest.raises(ValueError, match="positive sum"):
        YanivGymEnv(opponent_mix=[("greedy", 0.0)])


def test_set_pool_draws_members_with_its_probability_from_the_next_reset_on():
    env = YanivGymEnv(num_players=3, opponent_mix=[("random", 1.0), ("greedy", 1.0)], episode="round")
    env.reset(seed=1)
    a, b = CountingAgent(), CountingAgent()
    under_way = env.opponents
    assert env.set_pool([a, b], 0.3) == 2 and env.pool == [a, b]
    assert env.opponents == under_way  # the episode under way keeps its opponents
    draws, members = [], []
    for _ in range(1500):
        _, info = env.reset()
        draws.extend(info["opponent"].split("+"))
        members.extend(o for o in env.opponents if o in (a, b))
        # a pool member is named "pool", the mix's opponents by their names
        assert [o in (a, b) for o in env.opponents] == [d == "pool" for d in info["opponent"].split("+")]
    within(draws.count("pool"), len(draws), 0.3)
    within(members.count(a), len(members), 0.5)  # uniform among the members
    within(draws.count("greedy"), len(draws) - draws.count("pool"), 0.5)  # the mix's weights otherwise
    # fixed seats with a pool; another label; an empty pool: the fixed seats only
    env.set_opponents(["greedy", "random"])
    env.set_pool([a], 1.0, label="past")
    assert env.reset()[1]["opponent"] == "past+past" and env.opponents == [a, a]
    env.set_pool([], 1.0)
    assert env.reset()[1]["opponent"] == "greedy+random"
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        env.set_pool([a], 1.5)


def test_a_seeded_reset_reseeds_the_mix_not_the_pool():
    """reset(seed) seeds every seat's agents of the mix (seat i from opponent_seed(seed, i),
    as the fixed opponents), whichever is drawn; the pool's members keep their own generators."""

    class Seeded(CountingAgent):
        def __init__(self):
            super().__init__()
            self.seeds = []

        def reset(self, seed=None):
            self.seeds.append(seed)

    mixed, member = Seeded(), Seeded()
    env = YanivGymEnv(num_players=3, opponent_mix=[(mixed, 1.0), ("random", 1.0)])
    env.set_pool([member], 0.5)
    env.reset(seed=4)
    seeds = [opponent_seed(4, 0), opponent_seed(4, 1)]
    assert mixed.seeds == seeds and member.seeds == []  # one agent at both seats, reset for each
    env.reset()
    assert mixed.seeds == seeds


def test_opponent_seeds_are_a_stream_of_their_own():
    """An opponent's seed is a SeedSequence draw of the episode's seed and its seat, apart from
    the agents' seeds of an evaluation and from the seeds of other games (a vector of games
    seeded s, s + 1, ...)."""
    seeds = {opponent_seed(s, i) for s in range(200) for i in range(4)}
    assert len(seeds) == 800 and all(0 <= x < 2**63 for x in seeds)
    assert opponent_seed(7, 1) == opponent_seed(7, 1)
    assert not seeds & {agent_seed(s, i) for s in range(200) for i in range(4)}
    assert not seeds & set(range(10**6))


# -- the learner's seat, rewards, termination -------------------------------------------


def test_learner_seat_random_is_seeded():
    env = YanivGymEnv(rules="standard", num_players=4, learner_seat="random")
    seats = []
    for seed in range(20):
        _, info = env.reset(seed=seed)
        assert info["seat"] == env.seat
        seats.append(env.seat)
        _check_learner_view(env, env._observe(), info)
    assert len(set(seats)) > 1
    again = YanivGymEnv(rules="standard", num_players=4, learner_seat="random")
    assert [again.reset(seed=s)[1]["seat"] for s in range(20)] == seats
    # unseeded resets continue the seeded sequence deterministically
    a = YanivGymEnv(num_players=3, learner_seat="random")
    b = YanivGymEnv(num_players=3, learner_seat="random")
    a.reset(seed=11)
    b.reset(seed=11)
    assert [a.reset()[1]["seat"] for _ in range(10)] == [b.reset()[1]["seat"] for _ in range(10)]


@pytest.mark.parametrize("rules,players", [("standard", 2), ("standard", 3), ("french", 3), ("seven", 2)])
def test_learner_score_rewards_sum_to_its_final_score(rules, players):
    env = YanivGymEnv(rules=rules, num_players=players, reward="score", learner_seat="random")
    for seed in range(4):
        total, steps, terminated, truncated, info = random_episode(env, seed, seed, check=_check_learner_view)
        g = env.aec.game
        assert total == pytest.approx(-g.scores[env.seat] / 100, abs=1e-9)
        assert terminated and not truncated
        assert not info["action_mask"].any()
        assert info["round_result"].scores == g.scores  # the last finished round
        if g.phase != engine.GAME_OVER:  # the learner was eliminated before the end
            assert not g.alive[env.seat]
        with pytest.raises(RuntimeError):
            env.step(0)


def test_round_episodes_and_truncation():
    env = YanivGymEnv(rules="standard", num_players=3, episode="round", reward="round_win")
    for seed in range(5):
        total, *_ = random_episode(env, seed, seed)
        rr = env.aec.game.round_result
        assert total == float(env.seat in rr.winners)
    env = YanivGymEnv(
        rules="standard",
        num_players=2,
        episode="round",
        turn_limit=1,
        opponents=lambda o, m: int(np.flatnonzero(m)[-1]),
    )
    rng = np.random.default_rng(0)
    # with a one-turn limit only the first player acts: take a deal where it is the learner
    seed = next(s for s in range(50) if env.reset(seed=s) and env.aec.game.first_player == env.seat)
    obs, info = env.reset(seed=seed)
    while True:
        legal = [a for a in np.flatnonzero(env.action_masks()) if a != 1]
        obs, reward, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
        if terminated or truncated:
            break
    assert truncated and not terminated
    assert env.aec.game.round_result.truncated


def test_same_seed_same_trajectory():
    def trajectory(env, seed):
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        out = [obs.copy()]
        for _ in range(300):
            legal = np.flatnonzero(env.action_masks())
            obs, reward, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
            out += [obs.copy(), reward, terminated, truncated]
            if terminated or truncated:
                break
        return out

    def same(a, b):
        return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))

    kw = dict(rules="french", num_players=3, learner_seat="random", opponents=["random"])
    a, b = YanivGymEnv(**kw), YanivGymEnv(**kw)
    ta = trajectory(a, 5)
    assert same(ta, trajectory(b, 5))
    trajectory(a, 6)
    assert same(ta, trajectory(a, 5))  # a reset with the seed starts over, opponents included
    assert not same(ta, trajectory(b, 6))


# -- illegal actions --------------------------------------------------------------------


def test_illegal_action_terminates_with_penalty():
    env = YanivGymEnv(rules="standard", num_players=2, reward="score")
    env.reset(seed=0)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is True
    with pytest.raises(RuntimeError):
        env.step(int(np.flatnonzero(mask)[0]))
    env = YanivGymEnv(illegal_reward=-3.5)
    env.reset(seed=0)
    assert env.step(illegal)[1] == -3.5


def test_illegal_action_raise():
    env = YanivGymEnv(rules="standard", num_players=2, illegal_action="raise")
    env.reset(seed=0)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    before = repr(env.aec.game)
    with pytest.raises(ValueError, match=f"illegal action {illegal}.*Legal actions:"):
        env.step(illegal)
    assert repr(env.aec.game) == before
    # the episode goes on with a legal move
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
    assert "illegal_action" not in info


@pytest.mark.parametrize("illegal_action", ["terminate", "raise"])
@pytest.mark.parametrize("action", [1543, 99999, -1, 1.0, "x", None, np.float64(3.0), True, False, np.True_])
def test_action_outside_the_space_raises_whatever_illegal_action_says(illegal_action, action):
    # A programming error, not a move: it ends nothing and changes nothing.
    env = YanivGymEnv(rules="standard", num_players=2, illegal_action=illegal_action)
    env.reset(seed=0)
    before = repr(env.aec.game)
    with pytest.raises(
        ValueError, match=f"action {re.escape(repr(action))} is not an action id: the ids are the ints 0..1542"
    ):
        env.step(action)
    assert repr(env.aec.game) == before
    legal = int(np.flatnonzero(env.action_masks())[0])
    assert "illegal_action" not in env.step(np.int64(legal))[4]


def test_numpy_integer_ids_are_actions():
    env = YanivGymEnv(rules="standard", num_players=2)
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_masks())[0])
    assert "illegal_action" not in env.step(np.array(legal))[4]


# -- the first round can end before the learner's first decision ------------------------


def _caller_first(monkeypatch, games: int | None = None):
    """Make new games start with player_0 to act holding A♠ A♥ A♦ 2♠ (total 5): it may
    call Yaniv at once, before player_1 has decided anything. ``games``: only the first
    that many games (then the normal deal)."""
    real_new_game = engine.new_game
    made = []

    def new_game(rules, seed=None, rng=None):
        if games is not None and len(made) >= games:
            return real_new_game(rules, seed=seed, rng=rng)
        made.append(1)
        hands = [parse_cards("AS AH AD 2S JK"), parse_cards("KS KH KD QS QH")]
        return engine.from_position(rules, hands=hands, top=parse_cards("9C"), current=0, rng=rng, seed=seed)

    monkeypatch.setattr(engine, "new_game", new_game)
    return made


def _always_call(observation, action_mask):
    return 1 if action_mask[1] else int(np.flatnonzero(action_mask)[0])


def test_reset_deals_again_when_opponents_end_the_round_first(monkeypatch):
    made = _caller_first(monkeypatch, games=1)
    env = YanivGymEnv(rules="standard", num_players=2, episode="round", learner_seat=1, opponents=_always_call)
    obs, info = env.reset(seed=0)
    assert len(made) == 1  # the first deal was called at once by the opponent ...
    assert env.aec.game.round_result is None  # ... so the learner got a fresh deal
    assert info["action_mask"].any() and env.aec.agent_selection == "player_1"


def test_reset_gives_up_with_a_clear_error_when_every_deal_ends_first(monkeypatch):
    _caller_first(monkeypatch)
    env = YanivGymEnv(rules="standard", num_players=2, episode="round", learner_seat=1, opponents=_always_call)
    with pytest.raises(RuntimeError, match="before the learner's first decision"):
        env.reset(seed=0)


def test_reset_keeps_rewards_earned_before_the_first_decision(monkeypatch):
    _caller_first(monkeypatch)
    env = YanivGymEnv(rules="standard", num_players=2, reward="score", learner_seat=1, opponents=_always_call)
    total, *_ = random_episode(env, seed=0, action_seed=0)
    assert env.aec.game.round_index > 0
    assert total == pytest.approx(-env.aec.game.scores[1] / 100, abs=1e-9)


# -- MaskablePPO ------------------------------------------------------------------------


def test_maskable_ppo_smoke():
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch.set_num_threads(1)
    env = YanivGymEnv(rules="standard", num_players=2)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=128,
        batch_size=64,
        n_epochs=2,
        policy_kwargs=dict(net_arch=[16]),
        seed=0,
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=384)
    assert model.num_timesteps >= 384
    obs, info = env.reset(seed=123)
    for _ in range(200):
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert env.action_masks()[int(action)]
        obs, reward, terminated, truncated, info = env.step(int(action))
        assert "illegal_action" not in info
        if terminated or truncated:
            break
