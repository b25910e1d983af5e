"""A model trained with Stable-Baselines3 directly becomes an agent and a play file: the
snippet of the docs' Training page runs (at a tiny size) and its file is accepted by agents.load and the
evaluation harness; mismatched spaces and plain SB3 zips are refused with directions."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

import agents  # noqa: E402
import yaniv_env  # noqa: E402

PAGE = Path(__file__).resolve().parents[1] / "docs" / "training.md"
MARKER = "<!-- tested-by: tests/test_from_sb3.py"


def training_page_snippet() -> str:
    """The block the Training page marks as run here (tests/test_docs.py leaves it to us)."""
    text = PAGE.read_text(encoding="utf-8")
    marker = text.index(MARKER)
    return re.search(r"```python\n(.*?)```", text[marker:], re.S).group(1)


@pytest.fixture(scope="module")
def snippet_run(tmp_path_factory):
    """The Training page's snippet, run as written but for its sizes (64 steps per environment)."""
    code = training_page_snippet()
    tiny = code.replace("n_steps=512, batch_size=256", "n_steps=16, batch_size=32").replace(
        "total_timesteps=4096", "total_timesteps=64"
    )
    assert tiny.count("16") > code.count("16"), "the snippet's sizes changed: update this test"
    where = tmp_path_factory.mktemp("snippet")
    namespace: dict = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(where)
        exec(compile(tiny, "docs/training.md snippet", "exec"), namespace)
    return where, namespace


def test_training_page_snippet_runs_and_its_file_is_accepted(snippet_run):
    where, ns = snippet_run
    assert ns["model"].num_timesteps >= 64 and (where / "my_sb3_model.zip").is_file()
    bot, loaded = ns["bot"], agents.load(where / "my_model.safetensors")
    assert loaded.timesteps == ns["model"].num_timesteps and loaded.metadata["network"]["policy"] == "MlpPolicy"
    env = yaniv_env.raw_env(rules="standard", num_players=2)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        obs = env.observe(env.agent_selection)
        a = bot.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] and a == loaded.act(obs["observation"], obs["action_mask"])
        expected, _ = ns["model"].predict(obs["observation"], action_masks=obs["action_mask"], deterministic=True)
        assert a == int(expected)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    # what `yaniv eval --agents my_model.safetensors,heuristic` does, at two games
    from agents.evaluation import evaluate

    res = evaluate([str(where / "my_model.safetensors"), "heuristic"], games=2, seed=0)
    assert res["my_model"].games == 2


def test_sb3_models_need_the_rules_they_were_trained_for(snippet_run, tmp_path):
    where, ns = snippet_run
    model = ns["model"]
    with pytest.raises(ValueError, match=r"observations of 410 values .* 3 players build 468 values"):
        agents.from_sb3(model, rules="standard", num_players=3)
    with pytest.raises(ValueError, match="needs rules="):
        agents.trained.export_for_play(model, tmp_path / "x.safetensors")
    with pytest.raises(ValueError, match="expected a MaskablePPO model"):
        agents.from_sb3(object(), rules="standard")
    # SB3's own zip has no rules: refused (it would also need trust), pointing at from_sb3
    with pytest.raises(ValueError, match=r"plain Stable-Baselines3 model.*agents\.from_sb3"):
        agents.load(where / "my_sb3_model.zip", trusted=True)
    from sb3_contrib import MaskablePPO

    again = agents.from_sb3(MaskablePPO.load(where / "my_sb3_model.zip"), rules="standard", num_players=2)
    assert again.metadata["actions"] == ns["bot"].metadata["actions"]
