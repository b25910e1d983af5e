"""Training in phases (:mod:`training.phases`): each phase starts from the network the one
before it ended with, the phases share one budget, and every phase's arguments are checked
before the first one trains."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numba")

import agents  # noqa: E402
from training import phases  # noqa: E402
from training.checkpoint import read_ppo_checkpoint  # noqa: E402

FIRST = "--episode round --reward score_outcome --round-end continue --final-eval-games 0"
SECOND = "--episode game --reward margin_outcome --round-end terminal --final-eval-games 0"


def common(tmp_path) -> list[str]:
    return [
        *("--advice", "none", "--pretrain", "none", "--opponents", "self:1,random:1", "--score-features"),
        *("--n-envs", "16", "--n-steps", "16", "--batch-size", "128", "--net-arch", "32"),
        *("--eval-every", "0", "--torch-threads", "1", "--no-progress", "--output-dir", str(tmp_path)),
    ]


def run_phases(tmp_path, first: str, second: str, minutes: float = 10.0) -> int:
    argv = ["--minutes", str(minutes), "--seed", "3", "--run-name", "p", "--phase", first, "--phase", second]
    return phases.main([*argv, "--", *common(tmp_path)])


def arguments(run_dir) -> dict:
    return json.loads((run_dir / "args.json").read_text())


def elapsed(run_dir) -> float:
    return read_ppo_checkpoint(run_dir / "checkpoint.pt", "test", keys=("state",))["state"]["elapsed"]


def test_each_phase_starts_from_the_last_ones_network_with_its_own_options(tmp_path):
    second_options = f"{SECOND} --total-timesteps 512 --init-temperature 2"  # needs the --init the phase gets
    assert run_phases(tmp_path, f"{FIRST} --total-timesteps 512", second_options) == 0
    first, second = arguments(tmp_path / "p_1"), arguments(tmp_path / "p_2")
    assert second["init_temperature"] == 2.0
    assert (first["episode"], first["reward"], first["seed"], first["init"]) == ("round", "score_outcome", 3, "")
    assert (second["episode"], second["reward"], second["seed"]) == ("game", "margin_outcome", 4)
    assert second["init"] == str(tmp_path / "p_1" / "checkpoint.pt")
    assert second["opponents"] == first["opponents"] == "self:1,random:1"  # the common options
    record = agents.load(str(tmp_path / "p_2" / "model.safetensors")).metadata["training"]
    assert record["init_training"]["run_name"] == "p_1"
    # the second phase's budget is what the first left of the ten minutes
    assert second["minutes"] == pytest.approx(10.0 - elapsed(tmp_path / "p_1") / 60.0, abs=1e-4)


def test_a_phase_that_spends_the_budget_leaves_the_later_ones_unrun(tmp_path, capsys):
    assert run_phases(tmp_path, FIRST, SECOND, minutes=0.02) == 0
    assert elapsed(tmp_path / "p_1") >= 0.02 * 60.0
    assert not (tmp_path / "p_2").exists()
    assert "phase 2 and later: not run" in capsys.readouterr().out


@pytest.mark.parametrize(
    "first,second,named",
    [
        (f"{FIRST} --seed 2", SECOND, "phase 1: --seed"),
        (FIRST, f"{SECOND} --minutes 5", "phase 2: --minutes"),
        (FIRST, f"{SECOND} --init runs/x/checkpoint.pt", "phase 2: --init"),
        (f"{FIRST} --init-temperature 2", SECOND, "phase 1: --init-temperature divides"),
        (FIRST, f"{SECOND} --resume runs/x", "phase 2: --resume"),
        (FIRST, f"{SECOND} --reward no_such_reward", "phase 2: --reward"),
        (FIRST, f"{SECOND} --algo maskable_ppo", "phase 2: --algo"),
        (FIRST, f"{SECOND} --net-arch 64", "phase 2: --init from phase 1: "),
    ],
)
def test_a_bad_phase_is_refused_before_anything_trains(tmp_path, capsys, first, second, named):
    assert run_phases(tmp_path, first, second) == 2
    assert named in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_options_of_the_command_are_refused_among_the_common_ones(tmp_path, capsys):
    argv = ["--minutes", "1", "--run-name", "p", "--phase", FIRST, "--", "--init", "x.pt", *common(tmp_path)]
    assert phases.main(argv) == 2
    assert "the common options: --init" in capsys.readouterr().err
    assert phases.main(["--minutes", "0", "--run-name", "p", "--phase", FIRST, "--", *common(tmp_path)]) == 2
    assert "--minutes must be positive" in capsys.readouterr().err


def test_a_name_that_holds_a_run_is_refused_and_the_run_kept(tmp_path, capsys):
    assert run_phases(tmp_path, f"{FIRST} --total-timesteps 256", f"{SECOND} --total-timesteps 256") == 0
    saved = (tmp_path / "p_2" / "checkpoint.pt").read_bytes()
    assert run_phases(tmp_path, FIRST, SECOND) == 2
    assert "already holds a run" in capsys.readouterr().err
    assert (tmp_path / "p_2" / "checkpoint.pt").read_bytes() == saved
