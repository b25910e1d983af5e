"""The lean PPO (:mod:`training.ppo`): its legal-move head is the masked distribution of the
full network, a tiny run writes a play file that loads as an agent and resumes, self-play
runs; and the learning sanity suite (issue 35): from scratch it learns to beat ``greedy``,
and a learner never ends below where it started against a fixed opponent (small here, full
size behind ``--runslow``)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

import torch  # noqa: E402

import agents  # noqa: E402
from agents.batched import batched  # noqa: E402
from agents.networks import actor_logits  # noqa: E402
from training import config, ppo  # noqa: E402
from training.args import ALGO_ONLY, Args  # noqa: E402
from training.cli import train as train_cli  # noqa: E402
from training.imitation import imitation_pretrain  # noqa: E402
from training.league import SelfPlayPool  # noqa: E402
from training.periodic_eval import EVAL_COLUMNS, read_evaluations  # noqa: E402
from training.plan import make_plan, ppo_settings  # noqa: E402
from training.plots import read_monitor  # noqa: E402
from training.run_state import read_csv  # noqa: E402
from yaniv_env.yaniv.batched.envs import LearnerGames  # noqa: E402
from yaniv_env.yaniv.rules import get_rules  # noqa: E402


@pytest.mark.parametrize("advised,score_features", [(False, False), (True, False), (False, True), (True, True)])
def test_legal_move_head_is_the_masked_full_distribution(advised, score_features):
    """Scoring only the legal moves gives the log-probabilities of the full logits masked
    with -1e8 and normalised (sb3-contrib's MaskableCategorical), and the same values; for an
    advised policy, those of :class:`agents.networks.AdvisedPolicy` on the observations with
    the advice column; with the score features, those of the networks reading them."""
    torch.manual_seed(0)
    rules = get_rules("standard", 2)
    policy = ppo.make_policy(rules, [32, 32], advice_scale=2.5 if advised else None, score_features=score_features)
    with torch.no_grad():  # a trained-looking head: the initial one is nearly flat
        for p in policy.action_net.parameters():
            p.normal_()
    games = LearnerGames(rules, 32, opponents="heuristic")
    obs = torch.as_tensor(games.reset(1))
    masks = torch.as_tensor(games.action_masks())
    ids, valid = ppo.legal_moves(masks)
    advice = ppo.advise(batched("heuristic", seed=0), obs.numpy(), masks.numpy()) if advised else None
    seen = torch.cat([obs, advice[:, None].float()], 1) if advised else obs
    with torch.no_grad():
        log_probs, values = ppo.policy_and_value(policy, obs, ids, valid, advice=advice)
        full = actor_logits(policy, seen).masked_fill(~masks, -1e8).log_softmax(-1)
        expected_values = policy.predict_values(seen).squeeze(-1)
    np.testing.assert_allclose(log_probs[valid], full.gather(1, ids)[valid], rtol=1e-5, atol=1e-5)
    assert (log_probs[~valid].exp() == 0).all()
    np.testing.assert_allclose(values, expected_values, rtol=1e-5, atol=1e-6)
    assert (valid.sum(1) == masks.sum(1)).all()


def test_the_periodic_evaluation_is_agents_evaluation_of_the_play_file(tmp_path):
    """:func:`training.ppo.evaluate` plays the games :func:`agents.evaluation.evaluate` plays with
    the run's play file (the same deals, seats and decisions, on the batched engine), and counts
    the learner's wins in them."""
    from agents.evaluation import evaluate

    torch.manual_seed(3)
    rules = get_rules("standard", 2)
    policy = ppo.make_policy(rules, [32, 32], advice_scale=5.0)
    ppo.save_play_file(policy, rules, tmp_path / "model.safetensors", 0, {"advice": "score_heuristic"})
    wins, games, unfinished = ppo.evaluate(policy, rules, "heuristic", 20, seed=7, advice="score_heuristic")
    res = evaluate([str(tmp_path / "model.safetensors"), "heuristic"], rules, 2, 20, seed=7, engine="batched")
    assert games == res.games == 20 and unfinished == 0
    assert wins == pytest.approx(res["model"].metrics["game_win_rate"].value * 20)
    assert 0 < wins < 20  # the advisor's games: some won


def test_the_periodic_evaluation_ends_every_game_and_seats_the_learner_once():
    """Every game ends: a game stopped at the rules' round limit is ranked by score and counted
    as unfinished. At three seats (the learner at one, the opponent at the two others) the
    games are rounded up to whole deals of three rotations."""
    torch.manual_seed(0)
    rules = get_rules("standard", 2).replace(round_limit=1)
    policy = ppo.make_policy(rules, [32, 32])
    wins, games, unfinished = ppo.evaluate(policy, rules, "random", 6, seed=1)
    assert games == unfinished == 6 and 0 <= wins <= 6
    three = get_rules("standard", 3)
    wins, games, unfinished = ppo.evaluate(ppo.make_policy(three, [32, 32]), three, "heuristic", 4, seed=1)
    assert games == 6 and unfinished == 0  # two deals of three rotations


def plan_of(tmp_path, **kw):
    """The plan of ``yaniv train --algo ppo`` with ``kw`` given, from scratch unless ``kw`` says
    otherwise, with no final evaluation."""
    base = dict(
        algo="ppo", advice="none", pretrain="none", final_eval_games=0, progress=False, output_dir=str(tmp_path)
    )
    args = {**base, **kw}
    return make_plan(Args(**args), set(args))


def small(tmp_path, **kw):
    base = dict(
        n_envs=16,
        n_steps=16,
        batch_size=128,
        total_timesteps=512,
        eval_every=0,
        torch_threads=1,  # the suite's two workers share two cores
        run_name="run",
    )
    return plan_of(tmp_path, **{**base, **kw})


@pytest.mark.parametrize("opponents", ["random", pytest.param("self", marks=pytest.mark.slow)])
def test_tiny_run_writes_a_loadable_agent_and_resumes(tmp_path, opponents):
    """``yaniv train --algo ppo``: the run directory of ``yaniv train`` (args.json, the
    checkpoint, the play file, eval.csv, learning_curve.png, TensorBoard logs, the final
    evaluation's tables), and ``--resume`` continues it."""
    # one game at a time: the final evaluation's one worker plays in this process
    argv = ["--algo", "ppo", "--advice", "none", "--pretrain", "none", "--opponents", opponents, "--n-envs", "1"]
    argv += ["--n-steps", "256", "--batch-size", "128", "--total-timesteps", "512", "--torch-threads", "1"]
    argv += ["--eval-every", "512", "--eval-games", "4", "--eval-opponents", "random", "--no-progress"]
    argv += ["--final-eval-games", "2", "--final-eval-opponents", "random", "--output-dir", str(tmp_path)]
    assert train_cli.main([*argv, "--run-name", "run"]) == 0
    run = tmp_path / "run"
    for name in ("args.json", "checkpoint.pt", "learning_curve.png", "final_eval.txt", "final_eval_vs_random.csv"):
        assert (run / name).is_file(), name
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    agent = agents.load(str(run / "model.safetensors"), rules="standard")
    meta = agent.metadata
    assert meta["advice"] is None and meta["training"]["pretrain"] is None and meta["timesteps"] == 512
    games = LearnerGames("standard", 4, opponents="random")
    obs, masks = games.reset(0), games.action_masks()
    for o, m in zip(obs, masks, strict=True):
        assert m[agent.act(o, m)]
    rows = read_csv(run / "eval.csv")  # the layout MaskablePPO's runs write too (tests/test_training.py)
    assert list(rows[0]) == EVAL_COLUMNS and [(r["timesteps"], r["opponent"]) for r in rows] == [
        ("0", "random"),
        ("512", "random"),
    ]
    first = read_monitor(run / "monitor")  # the training episodes, for the learning curve's lower panel
    assert first and {e["opp"] for e in first} == {opponents} and sum(e["l"] for e in first) <= 512
    again = ["--resume", str(run), "--total-timesteps", "1024", "--final-eval-games", "0", "--eval-every", "0"]
    assert train_cli.main(again) == 0
    assert json.loads((run / "args.json").read_text())["opponents"] == opponents
    assert agents.load(str(run / "model.safetensors")).metadata["timesteps"] == 1024
    kind = "self" if opponents == "self" else "games"
    assert (run / "monitor" / f"01_{kind}.monitor.csv").is_file()  # a file per segment
    both = read_monitor(run / "monitor")
    assert both[: len(first)] == first and 512 < sum(e["l"] for e in both) <= 1024


def test_score_features_and_round_bootstrapping_train_into_a_play_file(tmp_path):
    """``--score-features`` (the networks read :class:`agents.networks.ScoreFeatures`) with
    whole-game episodes bootstrapped at each round's end (``--round-end bootstrap``): the play file
    says so, and the agent it loads gives the learner's own distribution."""
    plan = small(tmp_path, score_features=True, episode="game", reward="outcome", round_end="bootstrap", shaping=0.0)
    ppo.train(plan)
    agent = agents.load(str(plan.run_dir / "model.safetensors"), rules="standard")
    assert agent.policy.score_features
    games = LearnerGames("standard", 8, opponents="heuristic")
    obs, masks = games.reset(3), games.action_masks()
    ids, valid = ppo.legal_moves(masks)
    with torch.no_grad():
        log_probs, _ = ppo.policy_and_value(agent.policy, torch.as_tensor(obs), ids, valid)
    best = ids.gather(1, log_probs.argmax(-1, keepdim=True)).squeeze(1).numpy()
    assert [agent.act(o, m) for o, m in zip(obs, masks, strict=True)] == best.tolist()


def test_n_envs_zero_plays_one_game_per_cpu(tmp_path):
    """``--n-envs 0`` means one game per CPU this process may use (the plan's ``n_envs``): the
    lean learner steps that many games, where it once read the option itself and stepped none."""
    from yaniv_env.core.cpus import available_cpus

    plan = small(tmp_path, n_envs=0, n_steps=8, batch_size=8, total_timesteps=1)
    assert plan.n_envs == available_cpus() >= 1
    result = ppo.train(plan)
    assert result["steps"] == plan.n_envs * 8
    with pytest.raises(ValueError, match="at least one game"):  # what reading the option's 0 would now do
        ppo.make_streams(plan.rules, plan.ppo, 0, None, None, None, 0)


def test_episode_log_counts_every_decision_of_each_seat(tmp_path):
    """Self-play: each ended game writes a row per seat, its return and that seat's decisions;
    with the decisions of the games still under way, they are every decision played."""
    rules = get_rules("standard", 3)
    stream = ppo.SelfPlayStream(rules, 4, "round", "outcome", seed=0)
    stream.log = ppo.EpisodeLog(tmp_path / "self")
    rng = np.random.default_rng(0)
    steps = 300
    stream.begin(steps)
    for _ in range(steps):
        _, masks = stream.observe()
        stream.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    rows = read_monitor(tmp_path)
    assert rows and {r["opp"] for r in rows} == {"self"}
    assert sum(r["l"] for r in rows) + stream._episode_length.sum() == steps * 4
    assert [r["r"] for r in rows] == pytest.approx(stream.ended_returns)
    # a one-round episode's first place (alone or tied) is what "outcome" pays +1 with 3 players
    assert [r["won"] > 0 for r in rows] == [r["r"] == pytest.approx(1.0) for r in rows]


def test_the_learning_curve_drops_episodes_a_resumed_run_played_again(tmp_path):
    """A run stopped after its last checkpoint plays the steps since that checkpoint again when
    resumed: the curve's reader keeps the resumed segment's episodes of those steps, not both."""
    first, second = ppo.EpisodeLog(tmp_path / "00_games"), ppo.EpisodeLog(tmp_path / "01_games")
    for log, stamps in ((first, (0, 100, 200, 300)), (second, (200, 300))):
        for stamp in stamps:
            log.timesteps = stamp
            log.write([stamp / 100], [100], ["heuristic"], [1.0])
    rows = read_monitor(tmp_path)
    assert [r["stamp"] for r in rows] == [0, 100, 200, 300]
    assert [r["r"] for r in rows] == [0.0, 1.0, 2.0, 3.0] and rows[-1]["timesteps"] == 400
    assert all(r["t"] >= second.start for r in rows[2:])  # the resumed segment's, not the first's
    alone = tmp_path / "resumed"  # a copy of the resumed segment's files only counts from where it resumed
    alone.mkdir()
    shutil.copy(second.path, alone)
    assert [r["timesteps"] for r in read_monitor(alone)] == [300, 400]


def test_options_the_algorithm_does_not_use_are_refused(tmp_path):
    """An option only one learner uses, given with the other, is a ``ValueError`` naming it;
    so is a game the lean learner does not play. The help of each such option says whose it is."""
    with pytest.raises(ValueError, match="--pool-size: used by --algo ppo only"):
        make_plan(Args(algo="maskable_ppo", pool_size=4, output_dir=str(tmp_path)), {"algo", "pool_size"})
    with pytest.raises(ValueError, match="--league: used by --algo maskable_ppo only, not by --algo ppo"):
        make_plan(Args(league=True, output_dir=str(tmp_path)), {"league"})  # the default learner
    with pytest.raises(ValueError, match="--league, --vec-env: used by --algo maskable_ppo only"):
        make_plan(Args(algo="ppo", league=True, vec_env="dummy", output_dir=str(tmp_path)), {"algo"})
    with pytest.raises(ValueError, match="--algo ppo trains Yaniv"):
        make_plan(Args(algo="ppo", game="pis_yedili", output_dir=str(tmp_path)), {"algo", "game"})
    with pytest.raises(ValueError, match="--algo must be one of"):
        make_plan(Args(algo="dqn", output_dir=str(tmp_path)), {"algo"})
    docs = config.field_docs(Args)
    for algo, names in ALGO_ONLY.items():
        assert all(docs[name].startswith(f"{algo} only:") for name in names), algo
    assert not any(
        doc.startswith(("ppo only:", "maskable_ppo only:"))
        for name, doc in docs.items()
        if name not in set().union(*ALGO_ONLY.values())
    )


def test_both_learners_imitate_with_the_one_behaviour_cloning(tmp_path):
    """``--pretrain greedy`` on the lean learner is :func:`training.imitation.imitation_pretrain`
    (the fit ``yaniv train`` does for MaskablePPO): a fresh network fitted by it directly, on a
    tiny set of demonstrations, gets the weights the run starts PPO with; the play file names
    the teacher."""
    kw = dict(pretrain="greedy", pretrain_samples=1_024, pretrain_epochs=2, total_timesteps=0, episode="round")
    plan = small(tmp_path, n_envs=64, batch_size=256, **kw)
    run = ppo.train(plan)["run_dir"]
    torch.manual_seed(plan.seeds.training)
    direct = ppo.run_policy(plan.model, plan.rules)  # the run's network (its defaults: the score features)
    imitation_pretrain(direct, plan.imitation, log=lambda _: None)
    trained = torch.load(run / "checkpoint.pt", weights_only=True)["policy"]
    fresh = ppo.run_policy(plan.model, plan.rules).state_dict()
    assert all(torch.equal(trained[k], v) for k, v in direct.state_dict().items())
    assert not all(torch.equal(trained[k], v) for k, v in fresh.items())  # it did fit
    agent = agents.load(str(run / "model.safetensors"))
    assert agent.metadata["training"]["pretrain"] == "greedy" and agent.metadata["timesteps"] == 0


def test_an_advised_run_starts_as_its_advisor_and_its_play_file_asks_it(tmp_path):
    """``--advice heuristic``: at step 0 the arg-max policy is the advisor (its logit's bonus
    dominates a fresh head); during ``--value-warmup`` only the critic learns; the play file
    loads as an advised agent that plays the advisor's moves."""
    plan = small(tmp_path, advice="heuristic", value_warmup=512, opponents="greedy", net_arch="128,128")
    run = ppo.train(plan)["run_dir"]
    saved = torch.load(run / "checkpoint.pt", weights_only=True)["policy"]
    torch.manual_seed(plan.seeds.training)  # the run's initial weights
    fresh = ppo.run_policy(plan.model, plan.rules).state_dict()
    actor = [k for k in fresh if "value" not in k]
    assert "advice_scale" in actor and all(torch.equal(saved[k], fresh[k]) for k in actor)
    assert not all(torch.equal(saved[k], fresh[k]) for k in fresh if "value" in k)
    agent = agents.load(str(run / "model.safetensors"))
    assert agent.metadata["advice"] == "heuristic"
    games = LearnerGames("standard", 64, opponents="greedy")
    obs, masks = games.reset(7), games.action_masks()
    advisor = batched("heuristic", seed=0)
    assert [agent.act(o, m) for o, m in zip(obs, masks, strict=True)] == list(advisor.act_batch(obs, masks))


def test_an_advised_rollout_measures_how_often_its_arg_max_follows_the_advice():
    """``collect``'s ``followed``: 1 for a fresh advised policy (the advice bonus dominates the
    head); once a head outweighs the advice, the share of the rollout's decisions with a
    choice on which the arg-max of the stored decisions' distributions is the advised move;
    ``None`` without an advisor."""
    from agents.advice import make_advisor

    rules = get_rules("standard", 2)
    torch.manual_seed(0)
    policy = ppo.make_policy(rules, [32, 32], advice_scale=5.0)
    advisor = make_advisor("heuristic", rules, seed=0)
    settings = ppo_settings(Args(algo="ppo", opponents="heuristic"))
    streams = ppo.make_streams(rules, settings, 16, policy, SelfPlayPool(rules, 1, advice="heuristic"), None, 3)
    generator = torch.Generator().manual_seed(0)
    assert ppo.collect(policy, streams, 8, generator, 0.99, advisor).followed == 1.0
    with torch.no_grad():
        policy.advice_scale.fill_(1.0)
        for p in policy.action_net.parameters():
            p.normal_()
    rollout = ppo.collect(policy, streams, 8, generator, 0.99, advisor)
    ids = torch.cat([torch.nn.functional.pad(i, (0, 64 - i.shape[1])) for i, _ in rollout.moves])
    valid = torch.cat([torch.nn.functional.pad(v, (0, 64 - v.shape[1])) for _, v in rollout.moves])
    with torch.no_grad():
        log_probs, _ = ppo.policy_and_value(policy, rollout.obs, ids, valid, advice=rollout.advice)
    several = valid.sum(1) > 1
    top = ids.gather(1, log_probs.argmax(1, keepdim=True)).squeeze(1)
    expected = float((top == rollout.advice)[several].float().mean())
    assert 0.0 < rollout.followed < 0.9
    assert rollout.followed == pytest.approx(expected)
    plain = ppo.make_policy(rules, [32, 32])
    assert ppo.collect(plain, streams, 2, generator, 0.99).followed is None


def test_split_opponents():
    assert ppo.split_opponents("self:3,past:1,heuristic:1", 250) == (150, [("heuristic", 1.0)], 0.5)
    assert ppo.split_opponents("self", 64) == (64, [("random", 1.0)], 0.0)
    assert ppo.split_opponents("greedy:1,heuristic:3", 64) == (0, [("greedy", 1.0), ("heuristic", 3.0)], 0.0)
    assert ppo.split_opponents("past", 64)[::2] == (0, 1.0)
    with pytest.raises(ValueError, match="leave none"):
        ppo.split_opponents("self:1000,greedy:1", 16)


def test_self_play_with_past_selves_and_baselines_resumes_with_its_pool(tmp_path):
    """Self-play games beside games against past selves and an agent: the pool grows by
    snapshots, is kept in the checkpoint and comes back on resume."""
    plan = small(tmp_path, opponents="self:2,past:1,greedy:1", n_envs=32, pool_every=256, pool_size=2)
    run = ppo.train(plan)["run_dir"]
    saved = torch.load(run / "checkpoint.pt", weights_only=True)
    pool = saved["pool"]
    assert len(pool) == 2  # the initial network and the snapshot after the update
    assert all(torch.equal(pool[1][k], saved["policy"][k]) for k in saved["policy"])
    assert not all(torch.equal(pool[0][k], saved["policy"][k]) for k in saved["policy"])
    again = ppo.train(make_plan(Args(resume=str(run), total_timesteps=1024), {"resume", "total_timesteps"}))
    assert again["steps"] == 512
    after = torch.load(run / "checkpoint.pt", weights_only=True)["pool"]
    assert len(after) == 2  # the resumed run's newest member joined, its oldest left
    assert all(torch.equal(after[0][k], pool[1][k]) for k in pool[1])
    # what a resumed run seats: its checkpoint's members, with their weights
    past = SelfPlayPool(plan.rules, 2)
    streams = ppo.make_streams(plan.rules, plan.ppo, 8, ppo.run_policy(plan.model, plan.rules), past, saved, 3)
    assert [m.agent for m in streams[-1].games.pool] == past.members and len(past.members) == 2
    for member, weights in zip(past.members, pool, strict=True):
        assert all(torch.equal(member.policy.state_dict()[k], weights[k]) for k in weights)


def distinct(policy, k: int):
    """``policy`` with every weight set to ``k``: a network told apart from others by any weight."""
    with torch.no_grad():
        for p in policy.parameters():
            p.fill_(k)
    return policy


def test_the_pool_keeps_its_last_members_as_frozen_sampling_agents():
    """:class:`training.league.SelfPlayPool`: a member added from the network is a copy (the
    network trains on without changing it), an agent sampling its moves seeded from the
    pool's generator in the order the members join; the last ``size`` are kept; ``weights``
    gives what the lean checkpoint stores, and ``add`` with them makes the member again."""
    from agents.trained import TrainedAgent

    rules = get_rules("standard", 2)
    policy = ppo.make_policy(rules, [16])
    pool = SelfPlayPool(rules, 2, seed=4)
    for k in range(3):
        pool.add(distinct(policy, k))
    distinct(policy, 9)  # the members are copies
    assert len(pool.members) == 2 and pool.paths == [None, None]
    rng = np.random.default_rng(4)
    seeds = [int(rng.integers(2**31)) for _ in range(3)]
    for k, member in enumerate(pool.members, start=1):
        assert isinstance(member, TrainedAgent) and not member.deterministic and member.name == "past"
        assert all((p == k).all() for p in member.policy.parameters())
        assert member.rng.bit_generator.state == np.random.default_rng(seeds[k]).bit_generator.state
    again = SelfPlayPool(rules, 2)
    for weights in pool.weights():
        again.add(policy, weights)
    for k, member in zip((1, 2), again.members, strict=True):
        assert all((p == k).all() for p in member.policy.parameters())


def test_an_advised_learners_past_selves_take_its_advice():
    """An advised learner's past selves ask the same advisor (each its own, seeded with it):
    a fresh network whose advice outweighs its head plays the advisor's moves, acting in batch
    (:class:`training.ppo.PastSelf`) as the agent itself does."""
    rules = get_rules("standard", 2)
    torch.manual_seed(0)
    pool = SelfPlayPool(rules, 1, advice="heuristic")
    pool.add(ppo.make_policy(rules, [16], advice_scale=50.0))
    (member,) = pool.members
    assert member.metadata["advice"] == "heuristic" and member.advisor is not None
    games = LearnerGames(rules, 32, opponents="heuristic")
    obs, masks = games.reset(1), games.action_masks()
    advised = batched("heuristic", seed=0).act_batch(obs, masks)
    np.testing.assert_array_equal(ppo.PastSelf(member).act_batch(obs, masks), advised)
    np.testing.assert_array_equal(member.choose(member.logits_batch(obs, masks)), advised)


def test_past_selves_are_drawn_per_episode_and_seat():
    """The games against past selves seat the pool's members (:meth:`LearnerGames.set_pool`,
    as MaskablePPO's league does): each other seat of a new episode draws one uniformly, which
    plays that seat until the episode ends; a member joining is seated from the next episodes."""
    rules = get_rules("standard", 3).replace(turn_limit=12)  # short rounds: many episodes
    torch.manual_seed(0)
    policy = ppo.make_policy(rules, [16])
    settings = ppo_settings(Args(algo="ppo", opponents="past", episode="round"))
    past = SelfPlayPool(rules, 3)
    (stream,) = ppo.make_streams(rules, settings, 32, policy, past, None, 5)
    games = stream.games
    for k in (1, 2):
        past.add(distinct(policy, k))
    ppo.seat_past_selves([stream], past)
    assert [m.agent for m in games.pool] == past.members and games.pool_probability == 1.0
    generator = torch.Generator().manual_seed(0)
    drawn = []
    for _ in range(80):
        before = games.choice.copy()
        ppo.collect(policy, [stream], 1, generator, 0.99)
        np.testing.assert_array_equal(games.choice[~stream.ended], before[~stream.ended])  # a whole episode
        drawn.append(games.choice[stream.ended].ravel())
    members = [games.policies.index(m) for m in games.pool]
    counts = np.bincount(np.concatenate(drawn), minlength=len(games.policies))
    assert counts.sum() > 300 and set(np.flatnonzero(counts)) == set(members)
    assert counts[members].min() > counts.sum() / 6  # uniform among the three
    assert set(games.labels[k] for k in members) == {"past"}


def test_init_starts_from_a_checkpoint_and_refuses_another_network(tmp_path):
    first = ppo.train(small(tmp_path, run_name="first"))["run_dir"]
    weights = torch.load(first / "checkpoint.pt", weights_only=True)["policy"]
    policy = ppo.make_policy(get_rules("standard", 2), [128, 128])
    assert all(torch.equal(ppo.initial_weights(first / "checkpoint.pt", policy)[k], weights[k]) for k in weights)
    assert ppo.initial_weights(first / "model.safetensors", policy).keys() == weights.keys()
    with pytest.raises(ValueError, match="--init .*should be"):
        ppo.train(small(tmp_path, run_name="other", net_arch="32", init=str(first / "checkpoint.pt")))


@pytest.mark.parametrize("advised", [False, True])
def test_init_temperature_divides_the_initial_networks_logits(tmp_path, advised):
    """``--init-temperature T`` starts from the ``--init`` network with every action logit
    divided by ``T`` (the advised move's weight too), and is refused without ``--init`` or
    when not positive, before anything is written."""
    extra = dict(advice="heuristic", pretrain="none") if advised else {}
    first = ppo.train(small(tmp_path, run_name="first", **extra))["run_dir"]
    plan = small(tmp_path, run_name="hot", init=str(first / "checkpoint.pt"), init_temperature=2.5, **extra)
    saved, cooled = ppo.run_policy(plan.model, plan.rules), ppo.run_policy(plan.model, plan.rules)
    saved.load_state_dict(ppo.initial_weights(first / "checkpoint.pt", saved))
    state = {"segment": 0}
    ppo.starting_point(cooled, None, state, None, plan.model, plan.imitation, 1)
    games = LearnerGames(plan.rules, 32, opponents="heuristic")
    obs = torch.as_tensor(games.reset(1))
    if advised:
        advice = ppo.advise(batched("heuristic", seed=0), obs.numpy(), games.action_masks())
        obs = torch.cat([obs, advice[:, None].float()], 1)
    with torch.no_grad():
        np.testing.assert_allclose(actor_logits(cooled, obs), actor_logits(saved, obs) / 2.5, rtol=1e-5, atol=1e-5)
        assert torch.equal(cooled.predict_values(obs), saved.predict_values(obs))  # the critic as saved
    hot = {"run_name": "refused", "init": str(first / "checkpoint.pt"), "init_temperature": 2.5}
    for bad, match in ((dict(init_temperature=0.0), "must be positive"), (dict(init=""), "give --init")):
        with pytest.raises(ValueError, match=match):
            small(tmp_path, **{**hot, **bad})
    assert not (tmp_path / "refused").exists()


def test_a_play_file_records_the_lineage_of_its_initial_network(tmp_path):
    """A run from ``--init`` records what that network was trained with, back to the first
    network of its lineage, from a checkpoint or a play file alike."""
    first = ppo.train(small(tmp_path, run_name="first"))["run_dir"]
    second = ppo.train(small(tmp_path, run_name="second", reward="margin_outcome", init=str(first / "checkpoint.pt")))
    third = ppo.train(small(tmp_path, run_name="third", init=str(second["run_dir"] / "model.safetensors")))
    record = agents.load(str(third["run_dir"] / "model.safetensors")).metadata["training"]
    lineage = [record, record["init_training"], record["init_training"]["init_training"]]
    assert [r["run_name"] for r in lineage] == ["third", "second", "first"]
    assert lineage[1]["reward"] == "margin_outcome" and lineage[2]["init"] is None and "init_training" not in lineage[2]
    assert all(r["advice"] is None and r["pretrain"] is None for r in lineage)
    assert ppo.init_training(tmp_path / "missing.pt", 8) is None


def test_training_is_reproducible(tmp_path):
    a = ppo.train(small(tmp_path, run_name="a"))["run_dir"]
    b = ppo.train(small(tmp_path, run_name="b"))["run_dir"]
    wa = torch.load(a / "checkpoint.pt", weights_only=True)["policy"]
    wb = torch.load(b / "checkpoint.pt", weights_only=True)["policy"]
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def sanity(tmp_path, steps: int, games: int, opponent: str, **kw):
    """A learner from scratch against ``opponent`` (the from-scratch recipe, but for ``kw``);
    its evaluations against it (at the start, at the half and at the end)."""
    plan = plan_of(
        tmp_path,
        opponents=opponent,
        total_timesteps=steps,
        torch_threads=1,
        eval_every=steps // 2,
        eval_games=games,
        eval_opponents=opponent,
        run_name=f"sanity_{opponent}",
        **kw,
    )
    curve = read_evaluations(ppo.train(plan)["run_dir"] / "eval.csv")[opponent]
    return [(steps, rate, low, high) for steps, _, rate, low, high in curve]


def check_learns(curve, floor: float) -> None:
    (_, start, _, start_high), *_, (_, end, end_low, _) = curve
    assert end_low > start_high, f"no clear rise: {curve}"  # above where it started, beyond both intervals
    assert end >= floor, f"ended at {end:.3f} < {floor}: {curve}"


@pytest.mark.slow
@pytest.mark.parametrize(("opponent", "steps", "floor"), [("random", 300_000, 0.9), ("greedy", 3_000_000, 0.4)])
def test_learns_from_scratch_full(tmp_path, opponent, steps, floor):
    check_learns(sanity(tmp_path, steps, 400, opponent), floor)


def test_learns_from_scratch_small(tmp_path):
    """From scratch (no advisor, no imitation) against random, a small budget: the win rate
    ends above where it started beyond both intervals, and no evaluation falls below the
    start by more than its interval."""
    curve = sanity(tmp_path, 32_768, 100, "random", seed=1, n_envs=128, n_epochs=2, batch_size=2048)
    check_learns(curve, 0.8)
    _, _, start_low, _ = curve[0]
    assert all(high >= start_low for _, _, _, high in curve), curve


def test_resume_refuses_a_corrupt_checkpoint_naming_the_run(tmp_path):
    run = tmp_path / "broken"
    run.mkdir()
    (run / "checkpoint.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="--resume .*broken: cannot read checkpoint.pt as a checkpoint"):
        make_plan(Args(resume=str(run)), {"resume"})


def test_resume_reads_a_run_from_before_the_shared_options(tmp_path):
    """A run of the lean learner written before it shared ``yaniv train``'s options (its
    checkpoint without arguments, its args.json with the old names, from scratch) resumes
    with its own settings under today's names."""
    run = tmp_path / "old_run"
    run.mkdir()
    torch.save(
        {"policy": {}, "optimizer": {}, "state": {"timesteps": 4096, "elapsed": 1.0}, "pool": []}, run / "checkpoint.pt"
    )
    old = {"opponents": "self:2,past:1", "num_envs": 64, "num_steps": 16, "update_epochs": 3, "minibatch_size": 512}
    old |= {"clip_coef": 0.1, "hidden": "64,64", "update_threads": 1, "rollout_threads": 1, "checkpoint_minutes": 10.0}
    (run / "args.json").write_text(json.dumps(old | {"gae_lambda": 0.5, "seed": 4, "output_dir": str(tmp_path)}))
    args, run_dir, meta = config.resume_args(Args(resume=str(run), minutes=5.0), {"resume", "minutes"})
    assert (args.algo, args.advice, args.pretrain, args.opponents) == ("ppo", "none", "none", "self:2,past:1")
    assert (args.n_envs, args.n_steps, args.n_epochs, args.batch_size) == (64, 16, 3, 512)
    assert (args.clip_range, args.net_arch, args.torch_threads, args.gae_lambda) == (0.1, "64,64", 1, 0.5)
    assert (args.minutes, args.seed, meta["timesteps"]) == (5.0, 4, 4096)
