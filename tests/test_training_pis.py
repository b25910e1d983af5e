"""Training on Pis Yedili (``yaniv train --game pis_yedili``): a tiny real run that is
checkpointed, resumed, loaded and evaluated; the game's defaults and refusals; Pis Yedili
and Yaniv checkpoints refused in each other's game."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

import gymnasium  # noqa: E402

import agents  # noqa: E402
import yaniv_env  # noqa: E402
from agents import trained  # noqa: E402
from agents.play_format import read_play_file  # noqa: E402
from training import config  # noqa: E402
from training.checkpoint import build_metadata  # noqa: E402
from training.cli import train as T  # noqa: E402
from training.periodic_eval import EVAL_COLUMNS  # noqa: E402
from training.run_state import read_csv  # noqa: E402
from yaniv_env import pis_yedili  # noqa: E402

TINY = [
    "--game", "pis_yedili", "--num-players", "3", "--total-timesteps", "256", "--n-envs", "1",
    "--n-steps", "128", "--batch-size", "64", "--n-epochs", "1", "--net-arch", "32",
    "--eval-every", "128", "--eval-games", "2", "--checkpoint-every", "128", "--league",
    "--snapshot-every", "128", "--gate-games", "2", "--final-eval-games", "6", "--no-progress",
    "--pretrain-samples", "300", "--pretrain-epochs", "1",
]  # fmt: skip


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pis_runs")
    assert T.main([*TINY, "--output-dir", str(out), "--run-name", "tiny", "--seed", "5"]) == 0
    return out / "tiny"


@pytest.fixture(scope="module")
def model_path(run_dir) -> Path:
    return run_dir / "model.safetensors"


def test_run_trains_pis_yedili_with_its_defaults(run_dir):
    meta = trained.read_metadata(run_dir / "checkpoints" / "latest.zip")
    assert meta["game"] == "pis_yedili" and meta["format_version"] == 2
    assert meta["timesteps"] == 256 and meta["num_players"] == 3
    rules = pis_yedili.get_rules("standard", 3)
    assert trained.rules_from_dict(meta["rules"], game="pis_yedili") == rules
    assert meta["observation"]["size"] == 204 and meta["observation"]["pieces"][0] == ["hand", 0, 52]
    assert meta["actions"]["size"] == 71 and meta["actions"] == trained.action_fingerprint(rules)
    args = meta["args"]
    assert args["game"] == "pis_yedili" and args["episode"] == "deal"
    assert args["opponents"] == "pis_random:1,pis_heuristic:2" and args["action_features"] is False
    assert meta["pretrain"]["agent"] == "pis_heuristic" and meta["pretrain"]["samples"] > 200
    assert meta["league"]["pool"] and all((run_dir / p).is_file() for p in meta["league"]["pool"])
    rows = read_csv(run_dir / "eval.csv")  # a row per evaluation and opponent
    assert list(rows[0]) == EVAL_COLUMNS and [int(r["timesteps"]) for r in rows] == [0, 0, 128, 128, 256, 256]
    assert [r["opponent"] for r in rows[:2]] == ["pis_random", "pis_heuristic"]
    assert {p.name for p in run_dir.glob("final_eval_vs_*.csv")} == {
        "final_eval_vs_pis_random.csv",
        "final_eval_vs_pis_heuristic.csv",
    }
    text = (run_dir / "final_eval.txt").read_text()
    assert "Pis Yedili evaluation" in text and "deal win rate" in text and "duplicate" in text
    assert (run_dir / "learning_curve.png").stat().st_size > 1000


def test_resume_continues_the_pis_run(run_dir, tmp_path):
    copy = tmp_path / "tiny"
    shutil.copytree(run_dir, copy)
    assert T.main(["--resume", str(copy), "--total-timesteps", "384", "--final-eval-games", "0", "--no-progress"]) == 0
    meta = trained.read_metadata(copy / "checkpoints" / "latest.zip")
    assert meta["timesteps"] == 384 and meta["segment"] == 1 and meta["game"] == "pis_yedili"
    # the game is part of the run
    assert T.main(["--resume", str(copy), "--game", "yaniv", "--no-progress"]) == 2


def test_loaded_pis_agent_plays_and_is_evaluated(model_path):
    from agents.evaluation import evaluate

    bot = agents.load(str(model_path), seed=0)
    assert bot.game.name == "pis_yedili" and bot.timesteps == 256
    env = gymnasium.make("yaniv_env/PisYedili-v0", num_players=3, opponents=["pis_heuristic"], episode="deal")
    env = env.unwrapped
    obs, _ = env.reset(seed=1)
    for _ in range(40):
        mask = env.action_masks()
        a = bot.act(obs, mask)
        assert mask[a]
        assert a == int(bot.policy.predict(obs, action_masks=mask, deterministic=True)[0])
        obs, _, term, trunc, _ = env.step(a)
        if term or trunc:
            obs, _ = env.reset()
    # by path: as an opponent inside the Pis Yedili environment, and in the harness
    env = gymnasium.make("yaniv_env/PisYedili-v0", num_players=3, opponents=[str(model_path)]).unwrapped
    assert env.reset(seed=2)[0].shape == (204,)
    res = evaluate([str(model_path), "pis_random"], game="pis_yedili", num_players=3, games=3, episode="deal", seed=0)
    assert res[model_path.stem].games == 6 and res.games == 3  # two seats of three, three rotations


def test_pis_checkpoint_is_refused_as_yaniv(model_path, run_dir, tmp_path):
    path = str(model_path)
    with pytest.raises(ValueError, match="trained for Pis Yedili .* but it is used for Yaniv"):
        agents.load(path, game="yaniv")
    with pytest.raises(ValueError, match="trained for Pis Yedili .* but the environment plays Yaniv"):
        agents.load(path, rules=yaniv_env.get_rules("standard", 3))
    with pytest.raises(ValueError, match="trained for Pis Yedili .* but the environment plays Yaniv"):
        gymnasium.make("yaniv_env/Yaniv-v0", num_players=3, opponents=[path])
    # other Pis Yedili rules or player counts are refused as for Yaniv
    with pytest.raises(ValueError, match="trained for 3 players .* has 2 players"):
        agents.load(path, num_players=2)
    with pytest.raises(ValueError, match=r"\(seven_draw=3\).*\(seven_draw=2\)"):
        agents.load(path, rules=pis_yedili.get_rules("standard", 3).replace(seven_draw=2, name="soft"))
    # without rules, playing Yaniv observations: refused at act()
    bot = agents.load(path)
    env = gymnasium.make("yaniv_env/Yaniv-v0", num_players=3).unwrapped
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match="trained for Pis Yedili rules 'standard' .* plays another game"):
        bot.act(obs, env.action_masks())
    # a Pis Yedili run cannot be resumed as Yaniv, nor fed to Yaniv evaluation
    from agents.evaluation import evaluate

    with pytest.raises(ValueError, match="trained for Pis Yedili"):
        evaluate([path, "random"], num_players=3, games=3)


def test_checkpoint_without_game_is_yaniv(tmp_path, tiny_checkpoint):
    old = tmp_path / "before_games.zip"  # a Yaniv checkpoint written before the game key
    with zipfile.ZipFile(tiny_checkpoint) as src, zipfile.ZipFile(old, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == trained.META_NAME:
                meta = json.loads(data)
                del meta["game"]
                data = json.dumps(meta).encode()
            dst.writestr(item, data)
    meta = trained.read_metadata(old)
    assert "game" not in meta and meta["format_version"] == 1
    assert agents.load(old, trusted=True).game.name == "yaniv"
    with pytest.raises(ValueError, match="trained for Yaniv .* but it is used for Pis Yedili"):
        agents.load(old, game="pis_yedili")


def test_yaniv_model_is_refused_as_pis_yedili():
    shipped = str(agents.SHIPPED_MODEL)
    assert read_play_file(shipped)[0]["game"] == "yaniv"
    assert agents.load(shipped).game.name == "yaniv"
    with pytest.raises(ValueError, match="trained for Yaniv .* but it is used for Pis Yedili"):
        agents.load(shipped, game="pis_yedili")
    with pytest.raises(ValueError, match="trained for Yaniv .* but the environment plays Pis Yedili"):
        agents.make("ppo", rules=pis_yedili.get_rules("standard"))
    with pytest.raises(ValueError, match="trained for Yaniv .* but the environment plays Pis Yedili"):
        gymnasium.make("yaniv_env/PisYedili-v0", opponents=[shipped])
    bot = agents.load(shipped)
    env = gymnasium.make("yaniv_env/PisYedili-v0").unwrapped
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match="trained for Yaniv rules 'standard' .* plays another game"):
        bot.act(obs, env.action_masks())


def test_new_yaniv_checkpoints_name_their_game():
    meta = build_metadata(yaniv_env.get_rules("standard"), timesteps=0)
    assert meta["game"] == "yaniv" and meta["format_version"] == 1
    assert trained.check_metadata(meta, game="yaniv") == yaniv_env.get_rules("standard")
    bad = {**meta, "game": "chess"}
    with pytest.raises(ValueError, match="game this version does not know: 'chess'"):
        trained.check_metadata(bad)


def test_game_defaults_and_refusals(tmp_path, capsys):
    args, given = T.parse_args(["--game", "pis_yedili", "--opponents", "pis_heuristic"])
    args = config.apply_defaults(args, given)
    assert args.opponents == "pis_heuristic"  # given: kept
    assert (args.episode, args.pretrain, args.action_features) == ("deal", "pis_heuristic", False)
    assert args.final_eval_opponents == "pis_random,pis_heuristic"
    # without a command line: options left at the Yaniv default take the game's
    assert config.apply_defaults(T.Args(game="pis_yedili"), set()).episode == "deal"
    assert config.apply_defaults(T.Args(), set()) == T.Args()
    assert "[pis_yedili: pis_random:1,pis_heuristic:2]" in " ".join(config.build_parser(T.Args).format_help().split())
    refusals = {
        ("--rules", "seven"): "unknown Pis Yedili rules preset 'seven'",
        ("--action-features",): "--action-features scores actions by their Yaniv cards",
        ("--pretrain", "heuristic"): "agent 'heuristic' is not available for Pis Yedili",
        ("--opponents", "greedy"): "agent 'greedy' is not available for Pis Yedili",
        ("--episode", "round"): "--episode must be one of ('deal', 'game') for Pis Yedili",
        ("--reward", "round_win"): "--reward must be one of",
    }
    for flags, message in refusals.items():
        assert T.main(["--game", "pis_yedili", *flags, "--output-dir", str(tmp_path)]) == 2
        assert message in capsys.readouterr().err
    assert T.main(["--game", "chess", "--output-dir", str(tmp_path)]) == 2
    assert "unknown game 'chess'; games: yaniv, pis_yedili" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing written for refused arguments


def test_hand_shaping_counts_pis_penalty_points():
    """The potential is minus the hand's penalty points / 100 and telescopes over an episode."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.envs import VecHandShaping
    from yaniv_env.pis_yedili.engine import hand_value

    base = gymnasium.make("yaniv_env/PisYedili-v0", opponents=["pis_heuristic"], episode="deal").unwrapped
    env = VecHandShaping(DummyVecEnv([lambda: base]), coef=2.0, gamma=1.0)
    rng = np.random.default_rng(0)
    for episode in range(3):
        env.seed(episode)
        obs = env.reset()
        hand = base.aec.game.hands[base.seat]
        phi0, shaped, unshaped, done = env.potential(obs)[0], 0.0, 0.0, False
        assert phi0 == pytest.approx(-2.0 * hand_value(hand, base.rules) / 100)
        while not done:
            a = int(rng.choice(np.flatnonzero(base.action_masks())))
            _, r, dones, infos = env.step(np.array([a]))
            shaped += float(r[0])
            unshaped += infos[0]["unshaped_reward"]
            done = bool(dones[0])
        assert shaped == pytest.approx(unshaped - phi0, abs=1e-4)


def test_pis_training_envs_draw_the_mix_and_the_pool_under_advice(run_dir):
    """The Pis Yedili training environments (one PisYediliGymEnv each, no batched engine)
    under the wrappers of every kind: each episode's opponents drawn from the mix and, with
    the league's probability, from the pool the run's snapshot joined (labelled "pool");
    the advice column (here pis_heuristic's move) appended after the game's observation."""
    from agents.advice import make_advisor
    from training.envs import make_train_venv
    from training.plan import make_plan

    argv = [*TINY, "--advice", "pis_heuristic", "--league-prob", "0.5"]
    plan = make_plan(*T.parse_args([*argv, "--output-dir", str(run_dir.parent)]))
    assert plan.kind == "dummy"
    venv = make_train_venv(plan.env, 3, 2, None, plan.kind, advice_seed=0)
    assert venv.observation_space.shape == (204 + 1,)
    league = trained.read_metadata(run_dir / "model.zip")["league"]["pool"]
    assert venv.env_method("set_pool", [str(run_dir / p) for p in league]) == [len(league)] * 2
    advisor = make_advisor("pis_heuristic", plan.rules, seed=0)  # the wrapper's, drawing its ties alike
    obs, labels = venv.reset(), []
    for _ in range(300):
        masks = np.stack(venv.env_method("action_masks"))
        np.testing.assert_array_equal(obs[:, -1], advisor.act_batch(obs[:, :-1], masks))
        obs, _, dones, infos = venv.step(masks.argmax(axis=1))
        ended = [info["opponent"] for info, done in zip(infos, dones, strict=True) if done]
        labels += [seat for label in ended for seat in label.split("+")]
    venv.close()
    assert set(labels) == {"pis_random", "pis_heuristic", "pool"}
    pool = labels.count("pool")
    assert abs(pool - len(labels) / 2) <= 5 * np.sqrt(len(labels) / 4), (pool, len(labels))
