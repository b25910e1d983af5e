"""What a learner is fed (issue 35, point 1): each seat's rewards and episode ends, the mask
stored with each decision, bootstrapping at truncation, the advice logit under the entropy
bonus; and the lean learner's advantages (:mod:`training.ppo`). Findings and commands:
``docs/experiments/2026-11-26-learning.md``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

import torch  # noqa: E402
from stable_baselines3.common.vec_env import VecEnvWrapper  # noqa: E402

from agents.batched import batched  # noqa: E402
from training import ppo  # noqa: E402
from training.args import Args  # noqa: E402
from training.envs import VecAdvice, VecHandShaping  # noqa: E402
from training.league import SelfPlayPool  # noqa: E402
from training.plan import make_plan  # noqa: E402
from yaniv_env.core.outcome import place_reward  # noqa: E402
from yaniv_env.yaniv.batched.envs import BatchedSelfPlay  # noqa: E402
from yaniv_env.yaniv.batched.sb3 import YanivVecEnv  # noqa: E402


class MaskRecorder(VecEnvWrapper):
    """Records, for every observation handed to the learner, the mask the environment
    gives for it at that moment."""

    def __init__(self, venv):
        super().__init__(venv)
        self.seen: dict[bytes, list[np.ndarray]] = {}

    def _record(self, obs):
        masks = np.asarray(self.venv.env_method("action_masks"), dtype=bool)
        for o, m in zip(obs, masks, strict=True):
            self.seen.setdefault(o.tobytes(), []).append(m.copy())
        return obs

    def reset(self):
        return self._record(self.venv.reset())

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        return self._record(obs), rewards, dones, infos


def test_maskable_ppo_stores_the_mask_of_the_observation_it_acted_on():
    """MaskablePPO's rollout buffer (on the wrappers ``yaniv train`` uses, round episodes so
    that many end inside the rollout, i.e. auto-resets happen): every stored mask is the
    mask given with the stored observation, and every stored action is legal under it."""
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    venv = YanivVecEnv("standard", num_envs=4, opponents="greedy", episode="round")
    venv.seed(3)
    recorder = MaskRecorder(VecAdvice(VecHandShaping(venv), "heuristic", seed=0))
    model = MaskablePPO("MlpPolicy", recorder, n_steps=128, batch_size=128, n_epochs=1, seed=0)
    model.learn(512)
    buf = model.rollout_buffer
    obs = buf.observations.reshape(-1, buf.observations.shape[-1])
    masks = buf.action_masks.reshape(len(obs), -1).astype(bool)
    actions = buf.actions.reshape(-1).astype(int)
    starts = buf.episode_starts.reshape(-1)
    assert starts[4:].sum() >= 4  # episodes ended (and restarted) inside this rollout
    for o, m, a in zip(obs, masks, actions, strict=True):
        assert any(np.array_equal(m, seen) for seen in recorder.seen[o.tobytes()])
        assert m[a]


def test_terminal_observation_and_truncation_flags_reach_sb3():
    """Truncated episodes (turn limit) carry ``TimeLimit.truncated`` and the last observation,
    advice column included, so that MaskablePPO bootstraps them; finished ones do not."""
    venv = YanivVecEnv("standard", num_envs=8, opponents="greedy", episode="round", turn_limit=12)
    venv.seed(0)
    stack = VecAdvice(VecHandShaping(venv), "heuristic", seed=0)
    obs = stack.reset()
    learner = batched("greedy", seed=1, rules=venv.rules)
    kinds = {True: 0, False: 0}
    for _ in range(200):
        masks = np.asarray(stack.env_method("action_masks"), dtype=bool)
        obs, _, dones, infos = stack.step(learner.act_batch(obs[:, :-1], masks))
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            kinds[infos[i]["TimeLimit.truncated"]] += 1
    assert kinds[True] > 0 and kinds[False] > 0


@pytest.mark.parametrize("players", [2, 3])
def test_self_play_rewards_per_seat_add_up_to_the_game(players):
    """BatchedSelfPlay: each seat's ``outcome`` rewards over a game sum to its place reward,
    its ``score`` rewards to minus its final total / 100."""
    B = 6
    sums = {}
    for scheme in ("outcome", "score"):
        sp = BatchedSelfPlay("standard", num_envs=B, num_players=players, reward=scheme)
        sp.reset(seed=4)
        policy = batched("greedy", seed=0, rules=sp.rules)
        total, done = np.zeros((B, players)), np.zeros(B, bool)
        final_scores = np.zeros((B, players))
        while not done.all():
            scores_before = sp.engine.scores.copy()
            rewards, ended = sp.step(policy.act_batch(sp.observations, sp.masks))
            total[~done] += rewards[~done]
            first = ended & ~done
            final_scores[first] = scores_before[first]  # scores are reset with the new game
            if first.any():
                ranking = sp.last_ranking[first]
                sums.setdefault(scheme, []).append((total[first].copy(), ranking))
            done |= ended
        if scheme == "outcome":
            for tot, ranking in sums[scheme]:
                expected = np.vectorize(lambda p: place_reward(int(p), players))(ranking)
                np.testing.assert_allclose(tot, expected)
        else:
            assert (total <= 0.5).all() and (total < 0).any()


def test_gae_follows_successor_links():
    """``training.ppo.gae`` on links (a seat's next decision some rows later, an end, a
    bootstrap) equals the recursion written out for each decision."""
    rng = np.random.default_rng(0)
    B, T = 3, 5
    n = B * T
    rewards, values = rng.normal(size=n), rng.normal(size=n)
    next_index = np.full(n, -1)
    ended = np.zeros(n, bool)
    next_index[0], next_index[3], next_index[9] = 6, 12, 13  # chains across rows
    next_index[1] = 4
    ended[4] = True
    boot = rng.normal(size=n)
    gamma, lam = 0.9, 0.8
    adv = ppo.gae(rewards, values, ended, next_index, boot, gamma, lam, B)
    ref = np.zeros(n)
    for i in reversed(range(n)):
        if ended[i]:
            ref[i] = rewards[i] - values[i]
        elif next_index[i] >= 0:
            j = next_index[i]
            ref[i] = rewards[i] + gamma * values[j] - values[i] + gamma * lam * ref[j]
        else:
            ref[i] = rewards[i] + gamma * boot[i] - values[i]
    np.testing.assert_allclose(adv, ref)


def test_gae_cut_bootstraps_each_round_end():
    """``cut`` sets λ to 0 at the decisions it marks (``--round-end bootstrap``): a decision's
    advantage is then its round's rewards plus the critic's value of the next round's first
    decision, whatever λ is inside the round; unmarked, GAE(λ) as before."""
    rng = np.random.default_rng(1)
    B, T = 1, 6
    rewards, values, boot = rng.normal(size=T), rng.normal(size=T), rng.normal(size=T)
    next_index = np.append(np.arange(1, T), -1)
    ended = np.zeros(T, bool)
    round_end = np.zeros(T, bool)
    round_end[2] = True  # decisions 0-2 are one round, 3-5 the next
    gamma = 0.9
    adv = ppo.gae(rewards, values, ended, next_index, boot, gamma, 1.0, B, cut=round_end)
    for i in range(3):
        ret = sum(gamma ** (k - i) * rewards[k] for k in range(i, 3)) + gamma ** (3 - i) * values[3]
        assert adv[i] == pytest.approx(ret - values[i])
    plain = ppo.gae(rewards, values, ended, next_index, boot, gamma, 1.0, B)
    np.testing.assert_allclose(adv[3:], plain[3:])  # the last round is not followed by one
    assert not np.allclose(adv[:3], plain[:3])


def test_round_end_terminal_makes_each_round_its_own_return(tmp_path):
    """``--round-end terminal``: a round's last decision in a whole game has no successor in
    the advantages (its round's rewards only); ``bootstrap`` cuts λ there; ``continue`` leaves
    the game's return whole. ``bootstrap`` needs whole-game episodes (a one-round episode's end
    is terminal already)."""
    from training.plan import ppo_settings
    from yaniv_env.yaniv.rules import get_rules

    rules = get_rules("standard", 2)
    torch.manual_seed(0)
    policy = ppo.make_policy(rules, [16])
    out = {}
    for mode in ("continue", "bootstrap", "terminal"):
        settings = ppo_settings(Args(algo="ppo", opponents="greedy", episode="game", round_end=mode, n_steps=64))
        streams = ppo.make_streams(rules, settings, 8, policy, SelfPlayPool(rules, 1), None, 5)
        rollout = ppo.collect(policy, streams, 64, torch.Generator().manual_seed(0), settings.gamma)
        out[mode] = ppo.advantages(policy, rollout, streams, torch.zeros(rollout.obs.shape[1]), settings)
        marks = streams[0].round_end.copy()
    assert marks.any()
    stream = streams[0]
    returns = out["terminal"] + rollout.values
    last = np.flatnonzero(marks & ~stream.ended)
    np.testing.assert_allclose(returns[last], stream.rewards[last], atol=1e-6)
    assert not np.allclose(out["continue"][last], out["terminal"][last])
    assert not np.allclose(out["continue"][last], out["bootstrap"][last])
    with pytest.raises(ValueError, match="round-end"):
        make_plan(
            Args(algo="ppo", advice="none", pretrain="none", episode="round", round_end="bootstrap"), {"round_end"}
        )


@pytest.mark.parametrize("players", [2, 3])
def test_round_ends_are_marked_on_each_seats_last_decision_of_the_round(players):
    """Whole-game rollouts mark a decision ``round_end`` exactly when its successor (the same
    seat's next decision in the same game, against opponents or in self-play) is in a later
    round of the game: the engine's round index tells."""
    from yaniv_env.yaniv.rules import get_rules

    rules = get_rules("standard", players)
    B, T = 6, 150
    for stream in (
        ppo.LearnerStream(rules, B, [("greedy", 1.0)], "game", "outcome", seed=3),
        ppo.SelfPlayStream(rules, B, "game", "outcome", seed=3),
    ):
        policy = batched("greedy", seed=0, rules=rules)
        stream.begin(T)
        round_of = np.zeros(B * T, np.int64)
        for t in range(T):
            obs, masks = stream.observe()
            round_of[t * B : (t + 1) * B] = stream.games.engine.round_index
            stream.step(policy.act_batch(obs, masks), lambda o: np.zeros(len(o)))
        linked = np.flatnonzero((stream.next_index >= 0) & ~stream.ended)
        later = round_of[stream.next_index[linked]] != round_of[linked]
        np.testing.assert_array_equal(stream.round_end[linked], later)
        assert later.any() and (~later).any()


def test_self_play_stream_credits_each_seat_and_links_its_decisions():
    """Self-play rollouts: a decision's successor is its own seat's next decision in the same
    game, and the rewards credited in the rollout are the ones the games paid to seats that
    had decided."""
    from yaniv_env.yaniv.rules import get_rules

    B, T, players = 4, 60, 3
    stream = ppo.SelfPlayStream(get_rules("standard", players), B, "round", "score_outcome", seed=2)
    policy = batched("greedy", seed=0, rules=stream.games.rules)
    stream.begin(T)
    seat_of, game_of = np.zeros(B * T, int), np.zeros(B * T, int)
    for t in range(T):
        obs, masks = stream.observe()
        seat_of[t * B : (t + 1) * B] = stream.games.seats
        game_of[t * B : (t + 1) * B] = np.arange(B)
        stream.step(policy.act_batch(obs, masks))
    linked = np.flatnonzero(stream.next_index >= 0)
    assert len(linked) > B * T // 2 and stream.ended.any()
    nxt = stream.next_index[linked]
    assert (nxt > linked).all()
    np.testing.assert_array_equal(seat_of[nxt], seat_of[linked])
    np.testing.assert_array_equal(game_of[nxt], game_of[linked])
    assert not (stream.ended & (stream.next_index >= 0)).any()  # an ended decision has no successor
    assert np.abs(stream.rewards).sum() > 0


def test_entropy_bonus_pulls_the_advice_scale_down():
    """The advised policy's ``advice_scale`` is one trained scalar in every decision's logits:
    the entropy bonus's gradient on it is negative at every legal-move count, so with Adam
    (steps of about the learning rate whatever the gradient's size) ``--ent-coef`` lowers it
    by up to ``lr`` per gradient step (finding 3 of the experiment note)."""
    from gymnasium import spaces

    from agents.networks import AdvisedPolicy
    from yaniv_env.yaniv.batched.envs import LearnerGames

    games = LearnerGames("standard", 16, opponents="heuristic")
    obs = games.reset(0)
    masks = torch.as_tensor(games.action_masks())
    advice = batched("heuristic", rules=games.rules).act_batch(obs, games.action_masks())
    x = torch.as_tensor(np.concatenate([obs, advice[:, None].astype(np.float32)], axis=1))
    space = spaces.Box(-np.inf, np.inf, shape=(x.shape[1],), dtype=np.float32)
    policy = AdvisedPolicy(space, spaces.Discrete(games.num_actions), lambda _: 1e-4)
    entropy = policy.get_distribution(x, action_masks=masks).entropy().mean()
    entropy.backward()
    assert policy.advice_scale.grad.item() < 0  # loss -ent_coef * entropy: the scale goes down


def test_a_run_from_scratch_does_not_get_the_advised_learning_rate(tmp_path):
    """``yaniv train --advice none --pretrain none`` trained at the advised recipe's 1e-5 with
    no entropy bonus (finding 2): a run from scratch now gets ``SCRATCH_DEFAULTS`` for the
    options it does not give; an advised run and explicit values keep theirs."""
    from training.cli import train as T
    from training.plan import make_plan

    def resolved(*argv):
        return make_plan(*T.parse_args([*argv, "--output-dir", str(tmp_path)])).args

    for algo, (advised_lr, scratch_ent) in {"maskable_ppo": (1e-5, 0.01), "ppo": (1e-4, 0.03)}.items():
        scratch = resolved("--algo", algo, "--advice", "none", "--pretrain", "none")
        assert (scratch.learning_rate, scratch.ent_coef) == (3e-4, scratch_ent)
        advised = resolved("--algo", algo)
        assert (advised.learning_rate, advised.ent_coef) == (advised_lr, 0.0)
        mine = resolved("--algo", algo, "--advice", "none", "--pretrain", "none", "--learning-rate", "1e-5")
        assert (mine.learning_rate, mine.ent_coef) == (1e-5, scratch_ent)
