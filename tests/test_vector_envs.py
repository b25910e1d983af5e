"""Vector environments (yaniv_env.yaniv.batched.envs): the same episodes, rewards and observations
as the single-env Gymnasium wrapper, the Gymnasium and SB3 vector APIs, MaskablePPO.

The learner-game logic is checked twice against ``YanivGymEnv``: on :class:`ScalarBatch`, a
stand-in for the batched engine made of scalar-engine games (so the vector env's own logic
is tested whatever the engine), and on the batched engine itself."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from agents.batched import batched  # noqa: E402
from yaniv_env.yaniv import engine  # noqa: E402
from yaniv_env.yaniv.actions import action_table  # noqa: E402
from yaniv_env.yaniv.batched import StepResult  # noqa: E402
from yaniv_env.yaniv.batched.envs import BatchedSelfPlay, LearnerGames, YanivVectorEnv  # noqa: E402
from yaniv_env.yaniv.batched.sb3 import YanivVecEnv  # noqa: E402
from yaniv_env.yaniv.gym_env import YanivGymEnv  # noqa: E402
from yaniv_env.yaniv.observation import ObservationLayout  # noqa: E402
from yaniv_env.yaniv.rules import get_rules  # noqa: E402


class ScalarBatch:
    """The part of ``BatchedYaniv``'s interface the vector envs use, on scalar games."""

    def __init__(self, rules, num_envs, seed=0):
        self.rules = get_rules(rules)
        self.num_envs = num_envs
        self.num_players = self.rules.num_players
        self.layout = ObservationLayout(self.rules)
        self.num_actions = action_table(self.rules).num_actions
        self.games = [None] * num_envs
        self.reset_games(np.arange(num_envs), seeds=seed + np.arange(num_envs))

    def reset_games(self, which, seeds=None):
        which = np.asarray(which)
        slots = np.flatnonzero(which) if which.dtype == bool else which
        for b, s in zip(slots, seeds, strict=True):
            self.games[b] = engine.new_game(self.rules, seed=int(s))
        return slots

    @property
    def current(self):
        return np.array([g.current for g in self.games])

    def observations(self, seats=None, rows=None):
        rows = np.arange(self.num_envs) if rows is None else np.asarray(rows)
        seats = self.current[rows] if seats is None else np.broadcast_to(seats, rows.shape)
        out = [self.layout.build(self.games[b], int(p)) for b, p in zip(rows, seats, strict=True)]
        return np.stack(out) if out else np.zeros((0, self.layout.size), np.float32)

    def legal_masks(self, rows=None):
        rows = np.arange(self.num_envs) if rows is None else np.asarray(rows)
        m = np.zeros((len(rows), self.num_actions), bool)
        for i, b in enumerate(rows):
            if self.games[b].phase != engine.GAME_OVER:
                m[i, engine.legal_actions(self.games[b])] = True
        return m

    def step(self, actions):
        B, n = self.num_envs, self.num_players
        f = {k: np.zeros((B, n) if k in PER_SEAT else B, dtype=v) for k, v in FIELDS.items()}
        for b, (g, a) in enumerate(zip(self.games, actions, strict=True)):
            if a < 0 or g.phase == engine.GAME_OVER:
                continue
            before = list(g.scores)
            engine.apply(g, int(a))
            if g.phase >= engine.ROUND_OVER:
                rr = g.round_result
                f["round_over"][b] = True
                f["game_over"][b] = g.phase == engine.GAME_OVER
                f["score_delta"][b] = np.array(g.scores) - before
                f["points"][b] = rr.points
                f["hand_totals"][b] = [-1 if t is None else t for t in rr.hand_totals]
                f["winners"][b, rr.winners] = True
                f["eliminated"][b, rr.eliminated] = True
                f["truncated"][b] = rr.truncated
                f["game_truncated"][b] = g.game_truncated
                f["places"][b] = engine.ranking(g)
                if g.phase != engine.GAME_OVER:
                    engine.start_next_round(g)
        return StepResult(**{k: f.get(k, np.zeros(B)) for k in StepResult.__dataclass_fields__})


FIELDS = {
    "round_over": bool,
    "game_over": bool,
    "score_delta": np.int64,
    "points": np.int64,
    "hand_totals": np.int64,
    "winners": bool,
    "eliminated": bool,
    "truncated": bool,
    "game_truncated": bool,
    "places": np.int64,
}
PER_SEAT = {"score_delta", "points", "hand_totals", "winners", "eliminated", "places"}


class ScalarLearnerGames(LearnerGames):
    engine_class = ScalarBatch


CASES = [
    ("standard", 2, "random", 0, "game", "score_outcome"),
    ("standard", 3, "greedy", "random", "game", "score"),
    ("seven", 4, ["random", "greedy", "random"], "random", "round", "outcome"),
    ("french", 5, "greedy", 2, "game", "round_win"),
    ("two_deck", 2, "heuristic", "random", "round", "score_outcome"),
    ("standard", 3, ["heuristic", "random"], "random", "round", "round_win"),
    ("standard", 2, "greedy", "random", "game", "score_round_outcome"),
    ("standard", 3, "greedy", 1, "game", "margin_outcome"),
]


def compare_with_gym(games_class, preset, n, opp, seat, episode, reward, B=3, steps=300, seed=7, turn_limit=40):
    """Play ``steps`` learner steps of B games with greedy learner moves in the vector env and
    in B ``YanivGymEnv``s; everything the learner sees must be equal. Returns the episodes
    ended. (A short turn limit makes random games end, and rounds truncate.)"""
    kw = dict(num_players=n, opponents=opp, learner_seat=seat, episode=episode, reward=reward, turn_limit=turn_limit)
    g = games_class(preset, B, **kw)
    obs = g.reset(seed)
    envs = [YanivGymEnv(preset, **kw) for _ in range(B)]
    expected = [e.reset(seed=seed + i)[0] for i, e in enumerate(envs)]
    learner = batched("greedy", seed=99, rules=g.rules)  # ends rounds: games finish within the test
    ended_episodes = 0
    for t in range(steps):
        for i, e in enumerate(envs):
            assert e.seat == g.seats[i], (t, i)
            np.testing.assert_array_equal(expected[i], obs[i], err_msg=f"step {t} game {i}")
            np.testing.assert_array_equal(e.action_masks(), g.action_masks()[i])
        actions = learner.act_batch(obs, g.action_masks())
        obs, rewards, terminated, truncated, final, ended = g.step(actions)
        for i, e in enumerate(envs):
            o, r, te, tr, _ = e.step(int(actions[i]))
            assert (r, te, tr) == (rewards[i], terminated[i], truncated[i]), (t, i)
            if te or tr:
                ended_episodes += 1
                if episode == "game":  # round episodes: the engine has dealt the next round
                    np.testing.assert_array_equal(o, final[i])
                o = e.reset()[0]
            expected[i] = o
    return ended_episodes


def _steps(case) -> int:
    """Learner steps enough for some episodes of ``case`` to end (whole games take longest)."""
    return 100 if "heuristic" in case[2] else 300 if case[4] == "round" else 800


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c[:2])) + f"-{c[4]}-{c[5]}")
def test_learner_logic_matches_gym_wrapper(case):
    assert compare_with_gym(ScalarLearnerGames, *case, steps=_steps(case)) > 0


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c[:2])) + f"-{c[4]}-{c[5]}")
def test_vector_env_matches_gym_wrapper(case):
    assert compare_with_gym(LearnerGames, *case, steps=_steps(case)) > 0


def test_gymnasium_vector_api():
    envs = YanivVectorEnv("standard", num_envs=4, num_players=3, opponents="greedy", episode="round")
    assert envs.metadata["autoreset_mode"].value == "SameStep"
    obs, infos = envs.reset(seed=3)
    assert obs.shape == (4, envs.single_observation_space.shape[0]) and obs.dtype == np.float32
    assert obs in envs.observation_space
    again, _ = YanivVectorEnv("standard", num_envs=4, num_players=3, opponents="greedy", episode="round").reset(seed=3)
    np.testing.assert_array_equal(obs, again)  # seeded
    learner = batched("random", seed=1)
    ended = 0
    for _ in range(200):
        masks = envs.action_masks()
        assert masks.shape == (4, envs.single_action_space.n) and masks.dtype == bool and masks.any(axis=1).all()
        actions = learner.act_batch(obs, masks)
        assert actions in envs.action_space
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert rewards.shape == terminated.shape == truncated.shape == (4,)
        assert obs.dtype == np.float32 and terminated.dtype == bool
        done = terminated | truncated
        if done.any():
            ended += int(done.sum())
            np.testing.assert_array_equal(infos["_final_obs"], done)
            np.testing.assert_array_equal(infos["_episode"], done)
            for i in np.flatnonzero(done):
                assert infos["final_obs"][i].shape == obs[i].shape
                assert infos["episode"]["l"][i] >= 1
        else:
            assert "final_obs" not in infos
    assert ended > 0


def test_illegal_learner_action_names_the_game():
    envs = YanivVectorEnv("standard", num_envs=3, opponents="random")
    obs, _ = envs.reset(seed=0)
    masks = envs.action_masks()
    actions = masks.argmax(axis=1)
    bad = np.flatnonzero(~masks[1])[0]
    actions[1] = bad
    with pytest.raises(ValueError, match=f"game 1: illegal action {bad}"):
        envs.step(actions)
    np.testing.assert_array_equal(envs.action_masks(), masks)  # nothing moved


def test_sb3_vecenv_checks_and_monitor_infos():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    venv = YanivVecEnv("french", num_envs=4, num_players=2, opponents="heuristic", episode="round")
    venv.seed(11)
    obs = venv.reset()
    assert obs.shape == (4, *venv.observation_space.shape) and obs.dtype == np.float32
    assert is_masking_supported(venv)
    learner = batched("greedy", seed=2, rules=venv.rules)
    returns, ended = np.zeros(4), 0
    for _ in range(150):
        masks = get_action_masks(venv)
        np.testing.assert_array_equal(masks, venv.action_masks())
        assert masks.shape == (4, venv.action_space.n)
        obs, rewards, dones, infos = venv.step(learner.act_batch(obs, masks))
        assert rewards.dtype == np.float32 and dones.dtype == bool and len(infos) == 4
        returns += rewards
        for i in np.flatnonzero(dones):
            ended += 1
            ep = infos[i]["episode"]
            assert ep["r"] == pytest.approx(returns[i], abs=1e-5) and ep["l"] >= 1 and ep["t"] >= 0
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            assert "TimeLimit.truncated" in infos[i]
            returns[i] = 0.0
        for i in np.flatnonzero(~dones):
            assert infos[i] == {}
    assert ended > 0
    venv.seed(11)
    again = YanivVecEnv("french", num_envs=4, num_players=2, opponents="heuristic", episode="round")
    again.seed(11)
    np.testing.assert_array_equal(venv.reset(), again.reset())  # seeded


def test_maskable_ppo_smoke():
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    venv = YanivVecEnv("standard", num_envs=8, opponents="random", episode="round")
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(300)
    assert model.num_timesteps >= 256


def test_self_play_acts_for_every_seat():
    sp = BatchedSelfPlay("standard", num_envs=6, num_players=3, episode="round", reward="round_win")
    sp.reset(seed=5)
    policy = batched("greedy", seed=0, rules=sp.rules)
    seen, ended = set(), 0
    totals = np.zeros((6, 3))
    for _ in range(300):
        assert sp.masks[np.arange(6)].any(axis=1).all()
        seen.update(sp.seats.tolist())
        rewards, done = sp.step(policy.act_batch(sp.observations, sp.masks))
        assert rewards.shape == (6, 3)
        totals += rewards
        ended += int(done.sum())
    assert seen == {0, 1, 2} and ended > 0
    # round_win: one point per round winner, nothing else
    assert totals.sum() >= ended and np.all(totals == np.round(totals))


# -- hostile input: every bad batch of actions is refused before any game moves ------------------------------------


def _bad_value(legal: np.ndarray, masks_row: np.ndarray):
    """Strategies of one action that is not a legal id of its game."""
    illegal = np.flatnonzero(~masks_row)
    return st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=len(masks_row), max_value=2**70),
        st.sampled_from(illegal.tolist()),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([float(legal[0]), np.float32(legal[0]), True, False, np.True_]),
        st.text(max_size=3),
        st.sampled_from([None, object(), [int(legal[0])], {"a": 1}]),
    )


@st.composite
def bad_actions(draw, masks: np.ndarray) -> tuple:
    """A batch of actions with something wrong (one game's action, the dtype or the shape)
    and the start of the message that must refuse it."""
    B = len(masks)
    legal = [np.flatnonzero(m) for m in masks]
    good = [int(draw(st.sampled_from(ids.tolist()))) for ids in legal]
    kind = draw(st.sampled_from(["one game", "dtype", "shape"]))
    if kind == "one game":
        b = draw(st.integers(0, B - 1))
        actions = list(good)
        actions[b] = draw(_bad_value(legal[b], masks[b]))
        return draw(st.sampled_from([actions, tuple(actions), np.array(actions, dtype=object)])), f"game {b}: "
    if kind == "dtype":
        dtype = draw(st.sampled_from([np.float64, np.float32, bool, str, object]))
        actions = np.array(good, dtype=dtype) if dtype is not object else np.array([float(a) for a in good], object)
        return actions, "game 0: "
    shape = draw(st.sampled_from(["short", "long", "column", "scalar", "empty"]))
    actions = {
        "short": good[:-1],
        "long": good + [good[0]],
        "column": np.array(good).reshape(B, 1),
        "scalar": good[0],
        "empty": [],
    }[shape]
    return actions, f"actions must be {B} action ids"


def _learner_state(g: LearnerGames) -> list:
    """Everything a learner-games step may change: the engine's arrays and the wrapper's."""
    return [
        *(a.copy() for a in g.engine._st),
        g.engine.game_seeds.copy(),
        g.seats.copy(),
        g.choice.copy(),
        g.opponent_keys.copy(),
        g._carry.copy(),
        g._returns.copy(),
        g._lengths.copy(),
        g.action_masks().copy(),
        g.engine.observations(),
        [r.bit_generator.state for r in g._slot_rngs],
    ]


HOSTILE = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("kind", ["gymnasium", "sb3"])
def test_bad_actions_change_no_game(kind):
    def make():
        if kind == "gymnasium":
            env = YanivVectorEnv("standard", num_envs=4, num_players=3, opponents="random", turn_limit=30)
            env.reset(seed=3)
        else:
            env = YanivVecEnv("standard", num_envs=4, num_players=3, opponents="random", turn_limit=30)
            env.seed(3)
            env.reset()
        return env

    @HOSTILE
    @given(data=st.data(), warmup=st.integers(0, 25))
    def check(data, warmup):
        env, twin = make(), make()  # the twin never sees the bad input
        for _ in range(warmup):  # to some state of the games, the same in both
            first_legal = env.action_masks().argmax(axis=1)
            env.step(first_legal), twin.step(first_legal)
        masks = env.action_masks().copy()
        actions, message = data.draw(bad_actions(masks))
        before = _learner_state(env.games)
        with pytest.raises(ValueError) as refused:
            env.step(actions)
        assert str(refused.value).startswith(message)
        np.testing.assert_equal(_learner_state(env.games), before)
        # the next legal step plays as on the twin that never saw the bad input
        legal = np.array([data.draw(st.sampled_from(np.flatnonzero(m).tolist())) for m in masks])
        out, twin_out = env.step(legal), twin.step(legal.copy())
        np.testing.assert_equal(out[:-1], twin_out[:-1])
        np.testing.assert_equal(_learner_state(env.games), _learner_state(twin.games))

    check()


def _self_play_state(sp: BatchedSelfPlay) -> list:
    e = sp.engine
    return [
        *(a.copy() for a in e._st),
        e.game_seeds.copy(),
        e._next_seed,
        sp.seats,
        sp.observations,
        sp.masks,
        sp.last_ranking.copy(),
    ]


def test_bad_actions_change_no_self_play_game():
    def make():
        sp = BatchedSelfPlay("standard", num_envs=4, num_players=3, turn_limit=30)
        sp.reset(seed=4)
        return sp

    @HOSTILE
    @given(data=st.data(), warmup=st.integers(0, 25))
    def check(data, warmup):
        sp, twin = make(), make()  # the twin never sees the bad input
        for _ in range(warmup):
            first_legal = sp.masks.argmax(axis=1)
            sp.step(first_legal), twin.step(first_legal)
        actions, message = data.draw(bad_actions(sp.masks))
        before = _self_play_state(sp)
        with pytest.raises(ValueError) as refused:
            sp.step(actions)
        assert str(refused.value).startswith(message)
        np.testing.assert_equal(_self_play_state(sp), before)
        legal = np.array([data.draw(st.sampled_from(np.flatnonzero(m).tolist())) for m in sp.masks])
        np.testing.assert_equal(sp.step(legal), twin.step(legal.copy()))
        np.testing.assert_equal(_self_play_state(sp), _self_play_state(twin))

    check()


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ([-1, None], r"game 0: illegal action -1 \(not an action id: the ids are 0\.\.\d+\); legal: \d+ \("),
        ([1.5, None], r"game 0: action 1\.5 is not an action id \(an int 0\.\.\d+\); legal: \d+ \("),
        ([3.0, None], r"game 0: action 3\.0 is not an action id"),
        ([None, True], r"game 1: action True is not an action id"),
        ([None, "2"], r"game 1: action '2' is not an action id"),
        ([None, float("nan")], r"game 1: action nan is not an action id"),
        ([None, 2.5], r"game 1: action 2\.5 is not an action id"),
    ],
)
def test_bad_action_messages_name_the_game_the_action_and_the_legal_ones(actions, message):
    envs = YanivVectorEnv("standard", num_envs=2, opponents="random")
    envs.reset(seed=0)
    legal = envs.action_masks().argmax(axis=1)
    actions = [legal[i] if a is None else a for i, a in enumerate(actions)]
    with pytest.raises(ValueError, match=message):
        envs.step(actions)


def test_integer_arrays_of_any_width_are_actions():
    a, b = (YanivVectorEnv("standard", num_envs=3, opponents="random") for _ in range(2))
    a.reset(seed=1), b.reset(seed=1)
    ids = a.action_masks().argmax(axis=1)
    np.testing.assert_equal(a.step(ids.astype(np.uint16))[:4], b.step(ids.tolist())[:4])


def test_step_before_reset_raises():
    with pytest.raises(RuntimeError, match="reset"):
        YanivVectorEnv("standard", num_envs=2).step([0, 0])
    with pytest.raises(RuntimeError, match="reset"):
        BatchedSelfPlay("standard", num_envs=2).step([0, 0])


@pytest.mark.parametrize("num_envs", [0, -1, True, 2.0, "2", None])
def test_num_envs_must_be_a_positive_int(num_envs):
    for make in (YanivVectorEnv, BatchedSelfPlay):
        with pytest.raises(ValueError, match="num_envs must be a positive int"):
            make("standard", num_envs=num_envs)


# -- env_method / call, get_attr, set_attr: per game where a game has its own answer ---------------------------------


def test_sb3_env_method_reset_restarts_only_the_games_named():
    venv = YanivVecEnv("standard", num_envs=3, opponents="random")
    venv.seed(5)
    obs = venv.reset()
    state = _learner_state(venv.games)
    results = venv.env_method("reset", indices=[1], seed=40)
    after = venv.games
    assert len(results) == 1 and results[0][0].shape == obs[1].shape
    single = YanivGymEnv("standard", opponents="random", learner_seat="random")
    np.testing.assert_array_equal(results[0][0], single.reset(seed=40)[0])  # game 1 now plays seed 40's episode
    now = _learner_state(after)
    for b in (0, 2):  # the other games are untouched
        np.testing.assert_array_equal(after.engine.observations()[b], obs[b])
        np.testing.assert_equal([a[b] for a in now], [a[b] for a in state])
    # whole-batch methods: once for every game; not for some games only
    assert venv.env_method("seed", 9) == [[9, 10, 11]] * 3
    with pytest.raises(ValueError, match="'seed' belongs to the whole batch of 3 games"):
        venv.env_method("seed", 9, indices=[0, 2])
    assert venv.get_attr("seat", indices=[2, 0]) == [int(after.seats[2]), int(after.seats[0])]
    assert venv.get_attr("rules", indices=1) == [venv.rules]
    np.testing.assert_array_equal(venv.env_method("action_masks", indices=[2]), venv.action_masks()[[2]])
    venv.set_attr("render_mode", None)
    with pytest.raises(ValueError, match="whole batch"):
        venv.set_attr("render_mode", None, indices=[0])
    with pytest.raises(ValueError, match="read-only"):
        venv.set_attr("seat", 1)
    with pytest.raises(ValueError, match="indices must be"):
        venv.get_attr("seat", indices=[3])
    with pytest.raises(ValueError, match="indices must be"):
        venv.env_method("action_masks", indices=[True])
    assert venv.env_is_wrapped(object, indices=[0, 1]) == [False, False]
    for bad in (True, 2.5, [1, 2, 3]):
        with pytest.raises(ValueError, match="seed must be an int or None"):
            venv.seed(bad)


def test_gymnasium_call_get_attr_set_attr_and_reset_mask():
    envs = YanivVectorEnv("standard", num_envs=3, opponents="random")
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, _ = envs.reset(seed=2)
    assert envs.get_attr("seat") == tuple(int(s) for s in envs.games.seats)
    assert envs.get_attr("num_envs") == (3, 3, 3)
    masks = envs.call("action_masks")
    assert len(masks) == 3 and all(m.shape == (envs.single_action_space.n,) for m in masks)
    assert envs.call("set_pool", [], 0.0) == (0, 0, 0)
    envs.set_attr("tag", "x")
    envs.set_attr("tag", ["y", "y", "y"])
    assert envs.get_attr("tag") == ("y", "y", "y")
    with pytest.raises(ValueError, match="share one tag"):
        envs.set_attr("tag", ["a", "b", "c"])
    with pytest.raises(ValueError, match="2 values for 3 games"):
        envs.set_attr("tag", ["a", "b"])
    again, _ = envs.reset(seed=[None, 11, None], options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(again[[0, 2]], obs[[0, 2]])
    single = YanivGymEnv("standard", opponents="random", learner_seat="random")
    np.testing.assert_array_equal(again[1], single.reset(seed=11)[0])
    for bad in (np.array([1, 0, 0]), np.zeros(3, bool), np.ones(2, bool)):
        with pytest.raises(ValueError, match="reset_mask"):
            envs.reset(options={"reset_mask": bad})
    with pytest.raises(ValueError, match="seed must be"):
        envs.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="seed must be"):
        envs.reset(seed=True)


@pytest.mark.parametrize("episode", ["game", "round"])
def test_ended_won_is_the_first_place_the_outcome_reward_pays(episode):
    """``ended_won``: the learner's share of the first place of each ended episode. Under the
    ``outcome`` reward with 2 players the first place (alone or tied) is paid +1, so an episode
    is won (in part) exactly when its return is +1, and a tie shares the win."""
    g = LearnerGames("standard", 8, num_players=2, opponents="greedy", episode=episode, reward="outcome")
    obs = g.reset(3)
    learner = batched("greedy", seed=5, rules=g.rules)
    won, returns = [], []
    while len(won) < 40:
        obs, _, _, _, _, ended = g.step(learner.act_batch(obs, g.action_masks()))
        if ended.any():
            won.extend(g.ended_won.tolist())
            returns.extend(g.ended_returns.tolist())
    assert set(won) <= {0.0, 0.5, 1.0} and 0 < sum(won) < len(won)
    assert [w > 0 for w in won] == [r == pytest.approx(1.0) for r in returns]


def test_self_play_ended_won_shares_one_first_place_per_decided_game():
    sp = BatchedSelfPlay("standard", 6, 3, episode="game", reward="outcome")
    sp.reset(0)
    rng = np.random.default_rng(0)
    decided = 0
    while decided < 10:
        _, ended = sp.step(np.array([rng.choice(np.flatnonzero(m)) for m in sp.masks]))
        if ended.any():
            assert sp.ended_won.shape == (ended.sum(), 3)
            np.testing.assert_allclose(sp.ended_won.sum(axis=1), 1.0)  # a game always has a first place
            np.testing.assert_array_equal(sp.ended_won > 0, sp.last_ranking[ended] == 0)
            decided += int(ended.sum())


@pytest.mark.parametrize(
    "opponents, message",
    [(["greedy"] * 3, "3 given for 2 other seats"), (42, "a policy or a sequence of policies, got int")],
)
@pytest.mark.parametrize("kind", ["batched", "gym"])
def test_fixed_opponents_are_read_as_the_gym_env_reads_them(kind, opponents, message):
    """The batched learner games and the Gymnasium environment read fixed opponents with one
    function: one for every seat or one per seat, the same refusals."""
    with pytest.raises(ValueError, match=message):
        if kind == "batched":
            LearnerGames("standard", 2, 3, opponents=opponents)
        else:
            YanivGymEnv(num_players=3, opponents=opponents)
    games = LearnerGames("standard", 2, 3, opponents=["greedy"])  # one name for both seats: one policy
    assert games.labels == ["greedy"] and len(games.policies) == 1
