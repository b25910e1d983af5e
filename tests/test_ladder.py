"""``yaniv ladder``: one OpenSkill league per preset and player count."""

from __future__ import annotations

import json

import pytest

from agents.evaluation import ladder
from training.cli import ladder as ladder_command


def test_tables_are_parsed_and_bad_ones_refused():
    assert ladder.parse_tables("standard:2, seven:3") == [("standard", 2), ("seven", 3)]
    for bad in ("standard", "nope:2", "seven:x", ""):
        with pytest.raises(ValueError):
            ladder.parse_tables(bad)
    assert ("two_deck", 4) in ladder.default_tables() and len(ladder.default_tables()) == 12


def test_entrants_seat_the_shipped_agents_only_where_they_are_shipped_each_model_once():
    # standard 2-player: ``ppo`` is the model learnt from scratch, the advised one sits beside it
    expected = ["random", "greedy", "heuristic", "score_heuristic", "ppo", "ppo_advised"]
    assert ladder.entrants("standard", 2, search=False) == expected
    assert ladder.entrants("standard", 2, search=True)[-3:] == ["search", "ppo", "ppo_advised"]
    assert ladder.entrants("standard", 3, search=False)[-1] == "ppo"  # the advised model, seated once
    assert "ppo_advised" not in ladder.entrants("standard", 3, search=False)
    assert "ppo" not in ladder.entrants("two_deck", 4, search=False)
    assert ladder.entrants("two_deck", 2, search=False)[-1] == "ppo"


def test_a_small_ladder_ranks_by_ordinal_and_writes_its_tables(tmp_path, capsys):
    md, js = tmp_path / "ladder.md", tmp_path / "ladder.json"
    argv = ["--tables", "seven:3", "--games", "10", "--seed", "3", "--quiet", "--markdown", str(md), "--json", str(js)]
    assert ladder_command.main(argv) == 0
    rows = [line for line in md.read_text().splitlines() if line.startswith("| `seven`")]
    assert [r.split("|")[4].strip() for r in rows] == ["1", "2", "3", "4"]
    (league,) = json.loads(js.read_text())
    assert league["num_players"] == 3 and league["games"] >= 10
    ordinals = [league["ratings"][r.split("`")[3]]["ordinal"] for r in rows]
    assert ordinals == sorted(ordinals, reverse=True)
    assert capsys.readouterr().out.strip().endswith(rows[-1])


def test_bad_arguments_exit_2_naming_the_problem(capsys):
    assert ladder_command.main(["--tables", "standard:two"]) == 2
    assert "PRESET:PLAYERS" in capsys.readouterr().err
    assert ladder_command.main(["--tables", "standard:2", "--games", "0"]) == 2
