"""The trained agents shipped in agents/models: the 2-player play file loads without
pickle, plays exactly as the checkpoint it was converted from, only legal moves, refuses
other rules, and an export for play keeps its decisions; the 3- and 4-player agents load
by player count and play legal moves."""

import ast
import re
from pathlib import Path

import numpy as np
import pytest
import torch

import agents
import yaniv_env
from agents.evaluation import evaluate
from agents.play_format import read_play_file
from agents.trained import export_for_play
from yaniv_env.yaniv.rules import get_rules

ROOT = Path(__file__).resolve().parents[1]

#: 600 decisions (observation, mask, action) of the first shipped 2-player agent (kept as
#: FIRST_2P, advised by the plain heuristic), recorded with the Stable-Baselines3 checkpoint
#: it was converted from (``ppo_standard_2p.zip``, loaded by the previous loader) on
#: positions of 24 standard 2-player games against random, greedy and heuristic opponents.
DECISIONS = Path(__file__).parent / "data" / "shipped_decisions.npz"
FIRST_2P = agents.ADVISED_MODEL.parent / "ppo_standard_2p_v1.safetensors"


@pytest.mark.parametrize(
    "path, advice, timesteps",
    [(agents.ADVISED_MODEL, "score_heuristic", 2_456_336), (FIRST_2P, "heuristic", 3_854_176)],
)
def test_advised_model_is_small_and_described(path, advice, timesteps):
    assert path.is_file() and path.suffix == ".safetensors"
    assert path.stat().st_size < 5_000_000
    meta, weights = read_play_file(path)
    assert meta["format"] == "yaniv-play" and meta["game"] == "yaniv"
    assert meta["rules"]["name"] == "standard" and meta["num_players"] == 2
    assert meta["advice"] == advice and meta["network"]["policy"] == "AdvisedPolicy"
    assert meta["network"]["net_arch"] == {"pi": [256, 256], "vf": [256, 256]}
    assert meta["timesteps"] == timesteps
    assert all(t.dtype == torch.float32 for t in weights.values())


def test_first_shipped_agent_plays_exactly_as_the_checkpoint_it_came_from():
    data = np.load(DECISIONS)
    masks = np.unpackbits(data["action_mask"], axis=1)[:, : int(data["num_actions"])]
    bot = agents.load(FIRST_2P, seed=0)
    played = [bot.act(obs, mask) for obs, mask in zip(data["observation"], masks, strict=True)]
    assert len(played) == 600 and len(set(played)) > 100
    assert played == data["action"].tolist()


def test_loading_leaves_torch_threads_alone_unless_asked():
    before = torch.get_num_threads()
    try:
        agents.load(agents.SHIPPED_MODEL)
        assert torch.get_num_threads() == before
        agents.load(agents.SHIPPED_MODEL, torch_threads=before + 1)
        assert torch.get_num_threads() == before + 1
    finally:
        torch.set_num_threads(before)


def _plays_legal_moves(bot, opponent, players: int, seeds, max_steps: int = 2**63, rules: str = "standard") -> None:
    """``bot`` in seat 0 and ``opponent`` elsewhere play one round per seed: every move legal."""
    env = yaniv_env.raw_env(rules=rules, num_players=players, episode="round")
    for seed in seeds:
        env.reset(seed=seed)
        for agent in env.agent_iter(max_steps):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            policy = bot if agent == "player_0" else opponent
            action = policy.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)


def test_the_scratch_agent_learnt_without_an_advisor_or_imitation():
    """``ppo_scratch``: the lean learner's self-play from random weights, its metadata says so
    (of every network of its lineage: a run may start from an earlier run's network); it plays
    legal moves and refuses rules it was not trained for."""
    meta, weights = read_play_file(agents.SCRATCH_MODEL)
    assert agents.SCRATCH_MODEL.stat().st_size < 5_000_000
    assert meta["advice"] is None and meta["network"]["policy"] == "ActionFeaturePolicy"
    lineage = [meta["training"]]
    while lineage[-1]["init"] is not None:
        assert lineage[-1].get("init_training"), f"{lineage[-1]['run_name']}: its initial network is not recorded"
        lineage.append(lineage[-1]["init_training"])
    assert all(r["advice"] is None and r["pretrain"] is None for r in lineage)
    assert all(r["algorithm"].startswith("ppo") and "self" in r["opponents"] for r in lineage)
    assert meta["rules"]["name"] == "standard" and meta["num_players"] == 2
    _plays_legal_moves(agents.make("ppo_scratch", seed=0), agents.make("heuristic", seed=1), 2, range(2))
    with pytest.raises(ValueError, match="seven"):
        agents.make("ppo_scratch", rules="seven")


def _marked_block(page: Path, says: str) -> str:
    """The python block of ``page`` under its marker ``<!-- tested-by: tests/test_shipped_agent.py
    {says} ...``."""
    text = page.read_text(encoding="utf-8")
    marker = text.index(f"<!-- tested-by: tests/test_shipped_agent.py {says}")
    return re.search(r"```python\n(.*?)```", text[marker:], re.S).group(1)


@pytest.mark.parametrize(
    "note, timesteps, weights_sha256, run_name",
    [
        # the shipped file: S5's play file at eight hours of the lineage, its record completed
        ("experiments/2026-11-28-eight-hours.md", 60_563_456, None, "s5_vs_totals"),
        # the files it replaced: S5's at 6.17 hours, S4's at 16.13 million steps
        (
            "experiments/2026-11-28-playing-for-the-totals.md",
            28_950_528,
            "b887ec40e7308856e7b442d04a67fb8367dc3a115becef68efd6940882888fcf",
            "s5_vs_totals",
        ),
        (
            "experiments/2026-11-28-an-hour-from-scratch.md",
            16_130_048,
            "8142204f3e91b512bbbbe8790a515168b04079268ce87d5d3dd76569062586f2",
            "s4_margin",
        ),
    ],
)
def test_the_scratch_agent_notes_rebuild_their_play_files(
    tmp_path, monkeypatch, note, timesteps, weights_sha256, run_name
):
    """The block of a note that made a ``ppo_scratch`` file from its run directory, run again,
    gives the same weights and training record: for the shipped file, the shipped file's."""
    page = ROOT / "docs" / note
    code = _marked_block(page, "rebuilds")
    (tmp_path / "docs").symlink_to(ROOT / "docs")  # the block reads docs/results from the root
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(page), "exec"), {})
    rebuilt, _ = read_play_file(tmp_path / "ppo_scratch_standard_2p.safetensors")
    assert rebuilt["timesteps"] == timesteps
    if weights_sha256 is None:
        shipped, _ = read_play_file(agents.SCRATCH_MODEL)
        assert rebuilt["weights_sha256"] == shipped["weights_sha256"] and rebuilt["training"] == shipped["training"]
    else:
        assert rebuilt["weights_sha256"] == weights_sha256
    assert rebuilt["training"]["run_name"] == run_name and rebuilt["training"]["advice"] is None


def test_a_play_file_from_a_run_without_its_checkpoint_is_refused(tmp_path):
    from training import ppo

    with pytest.raises(ValueError, match=f"the run in {tmp_path}: cannot read checkpoint.pt"):
        ppo.play_file_from_run(tmp_path, tmp_path / "out.safetensors")
    assert not (tmp_path / "out.safetensors").exists()


def test_the_call_count_block_counts_every_call(capsys):
    """The note's block that sets ``ppo_scratch``'s Yaniv calls beside ``heuristic``'s, run for
    two games: each call is counted once, in one kind, and beaten calls are among them."""
    page = ROOT / "docs/experiments/2026-11-28-playing-for-the-totals.md"
    code = _marked_block(page, "runs this block")
    assert "GAMES = 200\n" in code
    exec(compile(code.replace("GAMES = 200\n", "GAMES = 2\n"), str(page), "exec"), {})
    counts = ast.literal_eval(capsys.readouterr().out.strip())
    kinds = ("learner calls (heuristic too)", "learner calls (heuristic not)", "heuristic calls")
    assert sum(counts.get(kind, 0) for kind in kinds) >= 2  # two whole games: rounds enough for calls
    for kind in kinds:
        assert 0 <= counts.get(kind + ", beaten", 0) <= counts.get(kind, 0)


def test_shipped_agent_plays_legal_moves():
    _plays_legal_moves(agents.make("ppo", seed=0), agents.make("random", seed=1), 2, range(3))


def test_shipped_agent_refuses_other_rules():
    with pytest.raises(ValueError, match="'two_deck' rules with 3 players"):
        agents.make("ppo", rules="two_deck", num_players=3)
    with pytest.raises(ValueError):
        agents.make("ppo", rules="standard", num_players=5)


@pytest.mark.parametrize(
    "preset, players, advice",
    [
        ("standard", 3, "score_heuristic"),
        ("standard", 4, "score_heuristic"),
        ("seven", 2, "score_heuristic"),
        ("french", 2, "score_heuristic"),
        ("two_deck", 2, "tuned_two_deck"),
    ],
)
def test_shipped_agents_load_by_rules_and_play_legal_moves(preset, players, advice):
    """The 3- and 4-player agents and the seven, french and two_deck ones: small play files
    with their advisor, found by the registry for their rules and player count, legal moves
    in whole rounds."""
    path = agents.shipped_model(preset, players)
    assert path.stat().st_size < 5_000_000
    meta, _ = read_play_file(path)
    assert meta["num_players"] == players and meta["advice"] == advice
    bot = agents.make("ppo", rules=preset, num_players=players, seed=0)
    assert bot.rules == get_rules(preset, players)
    opponent = agents.make("heuristic", seed=1, rules=preset)
    _plays_legal_moves(bot, opponent, players, [2], max_steps=300, rules=preset)


@pytest.mark.parametrize("name", ["ppo_advised", "ppo_scratch"])
def test_export_for_play_keeps_the_policy(tmp_path, name):
    model = agents.shipped_model("standard", 2, name)
    copy = export_for_play(agents.make(name), tmp_path / "copy.safetensors")
    assert copy.read_bytes() == model.read_bytes()
    with pytest.raises(ValueError, match=r"ends in \.safetensors"):
        export_for_play(agents.make(name), tmp_path / "copy.zip")
    a, b = agents.load(model), agents.load(copy)
    env = yaniv_env.raw_env(rules="standard", num_players=2)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs = env.observe(env.agent_selection)
        assert a.act(obs["observation"], obs["action_mask"]) == b.act(obs["observation"], obs["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.slow
def test_advised_agent_beats_heuristic():
    """``ppo_advised``'s model card measurement (2,000 duplicate games, seed 4001): a game win
    rate of at least 0.70, the lower bound of its 95% interval above 0.55."""
    result = evaluate([str(agents.ADVISED_MODEL), "heuristic"], games=2000, seed=4001, workers=2)
    rate = result.stats[result.labels[0]].metrics["game_win_rate"]
    assert rate.value >= 0.70 and rate.low > 0.55, (rate.value, rate.low, rate.high)


@pytest.mark.slow
@pytest.mark.parametrize("model", [agents.ADVISED_MODEL, agents.SCRATCH_MODEL], ids=["ppo_advised", "ppo_scratch"])
def test_shipped_agents_beat_search(model):
    """The model cards' measurement (1,000 duplicate games, seed 9001, the search through the
    AEC environment: about a quarter of an hour with two workers): a game win rate of at least
    0.55, the lower bound of its 95% interval above 0.5."""
    result = evaluate([str(model), "search"], games=1000, seed=9001, workers=2)
    rate = result.stats[result.labels[0]].metrics["game_win_rate"]
    assert rate.value >= 0.55 and rate.low > 0.5, (rate.value, rate.low, rate.high)


@pytest.mark.slow
def test_scratch_agent_beats_heuristic():
    """``ppo_scratch``'s model card measurement (1,000 duplicate games, seed 4001): the lower
    bound of its game win rate's 95% interval above 0.5."""
    result = evaluate([str(agents.SCRATCH_MODEL), "heuristic"], games=1000, seed=4001, workers=2)
    rate = result.stats[result.labels[0]].metrics["game_win_rate"]
    assert rate.low > 0.5, (rate.value, rate.low, rate.high)


@pytest.mark.slow
@pytest.mark.parametrize(
    "preset, players, bar",
    [("standard", 3, 1 / 3), ("standard", 4, 1 / 4), ("seven", 2, 0.5), ("french", 2, 0.5), ("two_deck", 2, 0.5)],
)
def test_shipped_agents_beat_a_table_of_heuristics(preset, players, bar):
    """The model cards' measurements (600 duplicate games, seed 5001): the lower bound of the
    seat's game win rate is above chance (1/players); the 2-player agents' rate is above
    0.55 too."""
    path = str(agents.shipped_model(preset, players))
    result = evaluate([path] + ["heuristic"] * (players - 1), preset, num_players=players, games=600, seed=5001)
    rate = result.stats[result.labels[0]].metrics["game_win_rate"]
    assert rate.low > bar and (players > 2 or rate.value > 0.55), (rate.value, rate.low, rate.high)


def _best_response_curves(tmp_path, **options) -> dict:
    """The periodic evaluations (:func:`training.periodic_eval.read_evaluations`) of a lean-learner run
    against a frozen agent (by default the advised agent, ``ppo_advised``, the notes' ``ppo`` before
    2026-11-29), with ``options`` on top of one evaluation per million steps."""
    from training import ppo
    from training.args import Args
    from training.periodic_eval import read_evaluations
    from training.plan import make_plan

    given = dict(
        algo="ppo", opponents="ppo_advised", eval_every=1_000_000, final_eval_games=0, output_dir=str(tmp_path)
    )
    given.update(options)
    given["run_name"] = f"best_response_vs_{given['opponents']}"
    return read_evaluations(ppo.train(make_plan(Args(**given), set(given)))["run_dir"] / "eval.csv")


@pytest.mark.slow
def test_a_best_response_learner_learns_and_stays_below_the_advised_agent(tmp_path):
    """The best-response measurement (docs/experiments/2026-11-27-best-response.md): the lean
    learner of training/ppo.py, from scratch, trains against the frozen advised agent for
    2 M steps, evaluated every 1 M steps (200 games each) against it and against
    ``heuristic``. The measurement counts only if the learner learns: its rate against
    ``heuristic`` ends above its start beyond both intervals. Then no evaluation against
    the advised agent has an upper bound above 0.55. About 15 minutes on a quiet machine."""
    curves = _best_response_curves(
        tmp_path,
        advice="none",
        pretrain="none",
        total_timesteps=2_000_000,
        seed=3,
        eval_games=200,
        eval_opponents="ppo_advised,heuristic",
    )
    (*_, start_high), *_, (*_, end_low, _) = curves["heuristic"]
    assert end_low > start_high, f"the learner did not learn, so the measurement failed: {curves['heuristic']}"
    assert max(high for *_, high in curves["ppo_advised"]) < 0.55, curves["ppo_advised"]


@pytest.mark.slow
def test_a_warm_best_response_learns_against_the_advised_agent(tmp_path):
    """The warm-start best response (docs/experiments/2026-11-28-a-reward-for-the-race.md): the
    main job's recipe (advised by and imitating ``heuristic``, the score features,
    ``margin_outcome``, each round its own return) trained against the frozen advised agent for
    4 M steps, evaluated every 1 M steps (400 games) against it. It must learn against the
    opponent it trains on: its best evaluation's lower bound above the step-0 upper bound. No
    evaluation's upper bound is above 0.55 at this length. About 20 minutes on a quiet machine."""
    curves = _best_response_curves(tmp_path, total_timesteps=4_000_000, eval_games=400, eval_opponents="ppo_advised")
    curve = curves["ppo_advised"]
    start_high = curve[0][-1]
    assert max(low for *_, low, _ in curve) > start_high, f"the learner did not learn against its opponent: {curve}"
    assert max(high for *_, high in curve) < 0.55, curve


# S5's recipe, which trained the default ``ppo`` (docs/results/selfplay_8h/args.json), started
# from the shipped network itself
_OWN_WEIGHTS = dict(
    advice="none",
    pretrain="none",
    episode="game",
    reward="margin_outcome",
    round_end="terminal",
    score_features=True,
    shaping=1.0,
    ent_coef=0.03,
    gae_lambda=0.5,
    value_warmup=200_000,
    torch_threads=1,
    eval_games=400,
)


@pytest.mark.slow
def test_a_best_response_from_the_default_agents_own_weights_gains_little(tmp_path):
    """The own-weights best response against the default ``ppo`` (the model learnt from scratch;
    docs/experiments/2026-11-29-the-margin-after-half-an-hour.md). The control first: the same
    learner trained against ``heuristic`` for 1 M steps learns (its lower bound above the
    start's upper bound). Then, trained against ``ppo`` for 4 M steps, it starts at 0.5 (it
    plays itself on duplicate deals) and no evaluation's upper bound reaches 0.65. About 15
    minutes on a quiet machine."""
    init = str(agents.shipped_model("standard", 2))
    control = _best_response_curves(
        tmp_path,
        **_OWN_WEIGHTS,
        init=init,
        opponents="heuristic",
        eval_opponents="heuristic",
        total_timesteps=1_000_000,
        seed=32,
    )["heuristic"]
    (*_, start_high), *_, (*_, end_low, _) = control
    assert end_low > start_high, f"the learner did not learn, so the measurement failed: {control}"
    curve = _best_response_curves(
        tmp_path, **_OWN_WEIGHTS, init=init, opponents="ppo", eval_opponents="ppo", total_timesteps=4_000_000, seed=31
    )["ppo"]
    assert curve[0][2] == 0.5, curve
    assert max(high for *_, high in curve) < 0.65, curve


@pytest.mark.slow
def test_a_best_response_from_scratch_learns_and_stays_below_the_default_agent(tmp_path):
    """The from-scratch best response against the default ``ppo`` (the same note): the
    from-scratch defaults against ``ppo`` alone for 4 M steps, evaluated every 2 M steps (400
    games) against ``ppo`` and ``heuristic``. It learns (its last rate against ``heuristic``
    above the start beyond both intervals), and no evaluation against ``ppo`` has an upper
    bound above 0.55. About 10 minutes on a quiet machine."""
    curves = _best_response_curves(
        tmp_path,
        advice="none",
        pretrain="none",
        opponents="ppo",
        eval_opponents="ppo,heuristic",
        total_timesteps=4_000_000,
        eval_every=2_000_000,
        eval_games=400,
        torch_threads=1,
        seed=33,
    )
    (*_, start_high), *_, (*_, end_low, _) = curves["heuristic"]
    assert end_low > start_high, f"the learner did not learn, so the measurement failed: {curves['heuristic']}"
    assert max(high for *_, high in curves["ppo"]) < 0.55, curves["ppo"]
