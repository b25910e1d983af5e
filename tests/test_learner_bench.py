"""``yaniv bench --vector``'s learner rows (``training.bench``) and the lean masked
distribution they compare (``agents.networks.LeanMaskableCategorical``)."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
from sb3_contrib.common.maskable.distributions import MaskableCategorical  # noqa: E402

from agents.networks import LeanMaskableCategorical  # noqa: E402


def _logits_and_masks(rows: int = 6, actions: int = 40, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(rows, actions, generator=g) * 3
    masks = torch.rand(rows, actions, generator=g) < 0.3
    masks[:, 3] = True  # at least one legal action per row
    masks[0] = False
    masks[0, -1] = True  # one legal action, the last id
    masks[1] = False
    masks[1, 0] = True  # one legal action, the first id
    return logits, masks


@pytest.mark.parametrize("masked", [True, False])
def test_lean_distribution_is_sb3_contribs(masked):
    logits, masks = _logits_and_masks()
    masks = masks if masked else None
    lean, stock = LeanMaskableCategorical(logits), MaskableCategorical(logits=logits)
    lean.apply_masking(masks)
    stock.apply_masking(masks)
    actions = torch.arange(6) % 40
    assert torch.allclose(lean.log_prob(actions), stock.log_prob(actions))
    assert torch.allclose(lean.entropy(), stock.entropy())
    assert torch.allclose(lean.probs, stock.probs)
    lean.apply_masking(None)  # masking removed: the raw logits again
    assert torch.allclose(lean.probs, torch.softmax(logits, -1))


def test_lean_sampling_draws_legal_actions_with_their_probabilities():
    logits, masks = _logits_and_masks()
    dist = LeanMaskableCategorical(logits, masks=masks)
    torch.manual_seed(3)
    n = 20_000
    draws = torch.stack([dist.sample() for _ in range(n)])
    assert masks.gather(1, draws.T).all(), "a masked action was drawn"
    freq = torch.zeros_like(logits).scatter_add_(1, draws.T, torch.ones(6, n)) / n
    assert (freq - dist.probs).abs().max() < 0.015  # ~4 standard errors of a frequency
    assert set(draws[:, 0].tolist()) == {39} and set(draws[:, 1].tolist()) == {0}
    torch.manual_seed(3)
    again = torch.stack([dist.sample() for _ in range(50)])
    assert torch.equal(again, draws[:50]), "sampling follows torch's seeded generator"


def test_lean_log_prob_has_gradients():
    logits, masks = _logits_and_masks()
    logits.requires_grad_(True)
    LeanMaskableCategorical(logits, masks=masks).log_prob(torch.full((6,), 3)).sum().backward()
    assert logits.grad is not None and logits.grad[:, 3].abs().sum() > 0


def test_yaniv_bench_vector_learner_rows(capsys):
    from training import bench

    argv = ["--no-engine", "--no-pis", "--no-batched", "--vector", "--vector-envs", "8", "--seconds", "0.05"]
    argv += ["--tournament-games", "4", "--ppo-timesteps", "2048", "--json"]
    assert bench.main(argv) == 0
    ppo = json.loads(capsys.readouterr().out)["vector"]["ppo"]
    maskable, lean = {"vector", "gym", "vector_lean"}, {"lean_random", "lean_heuristic", "lean_selfplay"}
    assert set(ppo) == maskable | lean | {"matmul_gflops"}
    assert ppo["matmul_gflops"] and all(v > 0 for v in ppo["matmul_gflops"].values())
    for key in maskable | lean:
        row = ppo[key]
        assert row["steps"] >= 2048 and row["steps_per_s"] > 0 and row["steps_per_cpu_s"] > 0
        assert 0 < row["shares"]["update"] < 1
        if key in maskable:  # SB3's rows split the whole time in two; the lean rows also spend some elsewhere
            assert abs(sum(row["shares"].values()) - 1) < 1e-9
        else:
            assert sum(row["shares"].values()) <= 1 + 1e-9 and row["flops_per_step"] > 0
    assert bench.main([*argv[:-1], "--ppo-timesteps", "0"]) == 0
    out = capsys.readouterr().out
    assert "heuristic vs greedy" in out and "MaskablePPO" not in out


def test_yaniv_bench_agent_rows(capsys):
    from training import bench

    argv = ["--no-engine", "--no-env", "--agents", "heuristic,search", "--agent-decisions", "40"]
    assert bench.main([*argv, "--agent-games", "4", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["agents"]
    assert list(rows) == ["heuristic", "search"]
    assert rows["heuristic"]["batched"] and rows["heuristic"]["searched"] is None
    search = rows["search"]
    assert not search["batched"] and search["decisions"] >= 40 and search["decisions_per_s"] > 0
    # the search follows the heuristic where nothing is worth searching, never more than it decides
    assert 0 < search["searched"] <= search["decisions"]
    assert bench.main([*argv, "--agent-games", "4"]) == 0
    assert "search (row by row)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench.main([*argv, "--agent-games", "0"])
