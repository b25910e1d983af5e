"""Recording and replaying games (``yaniv replay``) and playing in the terminal (``yaniv play``)."""

from __future__ import annotations

import json

import pytest

import agents
from yaniv_env import PRESETS, Rules
from yaniv_env.tools import play as play_mod
from yaniv_env.tools import replay as rp
from yaniv_env.tools.play import match_moves, parse_move, play
from yaniv_env.yaniv.actions import action_table
from yaniv_env.yaniv.render import hand_name, round_result_line

QUICK = PRESETS["standard"].replace(name="quick", score_limit=30)


def _policies(n, seed=0):
    return [agents.make("random", seed=seed + s) for s in range(n)]


# -- replay ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset,players", [("standard", 2), ("seven", 3), ("french", 2), ("two_deck", 4)])
def test_replay_reproduces_every_preset(preset, players, tmp_path):
    record = rp.record_game(preset, players, seed=5, policies=_policies(players))
    json.dumps(record)  # JSON-serialisable as is
    assert record["rules"]["name"] == preset and record["num_players"] == players
    path = rp.save(record, tmp_path / "g" / "game.json")
    loaded = rp.load(path)
    assert loaded == record
    steps = list(rp.replay(loaded))
    assert steps[0].agent is None and len(steps) == len(record["steps"]) + 1
    assert [[s.agent, s.action] for s in steps[1:]] == record["steps"]
    final = rp.verify(loaded)
    assert final.scores == record["result"]["scores"]
    assert sum(1 for s in steps if s.round_result is not None) == record["result"]["rounds"]


def test_custom_rules_round_trip(tmp_path):
    rules = Rules(
        name="mine",
        call_max=7,
        score_limit=60,
        milestone="table",
        milestone_table=((50, 0),),
        turn_limit=60,
    )
    record = rp.record_game(rules, 2, seed=1, policies=_policies(2))
    loaded = rp.load(rp.save(record, tmp_path / "c.json"))
    assert rp.rules_from_dict(loaded["rules"]) == rules
    rp.verify(loaded)


def test_record_with_policy_dict_and_round_episode():
    pols = dict(zip(["player_0", "player_1"], _policies(2), strict=True))
    record = rp.record_game("standard", 2, seed=3, policies=pols, episode="round")
    assert record["episode"] == "round" and record["result"]["rounds"] == 1
    rp.verify(record)


@pytest.fixture(scope="module")
def record():
    return rp.record_game(QUICK, 2, seed=11, policies=_policies(2))


def _expect_error(record, match):
    with pytest.raises(ValueError, match=match):
        rp.verify(record)


def test_corrupted_records_raise(record, tmp_path):
    def copy():
        return json.loads(json.dumps(record))

    r = copy()
    live = next(i for i, (_, a) in enumerate(r["steps"]) if a is not None and a > 0)
    r["steps"][live][1] = 0 if r["steps"][live][1] != 0 else 1
    _expect_error(r, "does not reproduce")
    r = copy()
    r["result"]["scores"][0] += 1
    _expect_error(r, "does not reproduce: final scores")
    r = copy()
    del r["steps"][-3:]
    _expect_error(r, "does not reproduce")
    r = copy()
    r["steps"].append(["player_0", 0])
    _expect_error(r, "does not reproduce")
    r = copy()
    r["steps"][0][0] = "player_9"
    _expect_error(r, "does not reproduce")
    r = copy()
    r["seed"] += 1
    _expect_error(r, "does not reproduce")
    r = copy()
    r["version"] = 99
    _expect_error(r, "version 99 is not supported")
    r = copy()
    r["format"] = "chess"
    _expect_error(r, "not a Yaniv replay")
    r = copy()
    del r["steps"]
    _expect_error(r, "missing steps")
    r = copy()
    r["steps"][0] = ["player_0", "x"]
    _expect_error(r, "step 0")
    r = copy()
    r["rules"]["call_max"] = -1
    _expect_error(r, "bad rules")
    r = copy()
    r["rules"]["wings"] = 2
    _expect_error(r, "unknown rules fields")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "yaniv-replay", "steps": [')
    with pytest.raises(ValueError, match="invalid JSON"):
        rp.load(bad)
    bad.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="not a Yaniv replay"):
        rp.load(bad)


def test_yaniv_replay_prints(record, tmp_path, capsys):
    from training.cli import main as yaniv

    path = rp.save(record, tmp_path / "r.json")
    assert yaniv(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "== start" in out and "step 1: " in out and "Final ranking" in out and "replay verified" in out
    assert "(total" in out  # hands shown
    assert yaniv(["replay", str(path), "--hide"]) == 0
    assert "(total" not in capsys.readouterr().out


def test_yaniv_replay_step_eof_and_quit(record, tmp_path):
    path = str(rp.save(record, tmp_path / "r.json"))
    lines: list[str] = []

    def eof(prompt):
        raise EOFError

    assert rp.main([path, "--step"], input_fn=eof, print_fn=lines.append) == 0
    assert "replay verified" in lines[-1]
    answers = iter(["", "", "q"])
    lines.clear()
    assert rp.main([path, "--step"], input_fn=lambda p: next(answers), print_fn=lines.append) == 0
    assert lines[-1] == "replay stopped" and sum(line.startswith("\n== ") for line in lines) == 3

    def interrupt(prompt):
        raise KeyboardInterrupt

    assert rp.main([path, "--step"], input_fn=interrupt, print_fn=lines.append) == 130


def test_yaniv_replay_bad_file(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]")
    assert rp.main([str(bad)]) == 2
    assert "not a Yaniv replay" in capsys.readouterr().err
    missing = tmp_path / "missing.json"
    assert rp.main([str(missing)]) == 2
    assert capsys.readouterr().err == f"yaniv replay: cannot read {missing}: No such file or directory\n"


# -- play -----------------------------------------------------------------------------------------


class Script:
    """Scripted answers, then a fallback answer (or an exception) forever."""

    def __init__(self, answers, then="1"):
        self.answers = list(answers)
        self.then = then
        self.prompts = 0

    def __call__(self, prompt):
        self.prompts += 1
        if self.answers:
            return self.answers.pop(0)
        if isinstance(self.then, BaseException) or (
            isinstance(self.then, type) and issubclass(self.then, BaseException)
        ):
            raise self.then
        return self.then


def test_parse_move():
    table = action_table(PRESETS["standard"])
    legal = [0, 6 + 7, 6 + 20]
    names = [table.name(a) for a in legal]
    assert names[0] == "draw from stock"
    assert parse_move("1", legal, names) == 0
    assert parse_move(" 3 ", legal, names) == legal[2]
    assert parse_move("0", legal, names) is None and parse_move("4", legal, names) is None
    assert parse_move("Draw From Stock", legal, names) == 0
    assert parse_move("draw", legal, names) == 0  # unique beginning
    assert parse_move("take", legal, names) is None  # ambiguous
    assert parse_move(names[1].replace("♠", "s").replace("♥", "h").upper(), legal, names) == legal[1]
    assert parse_move("", legal, names) is None and parse_move("fold", legal, names) is None


def test_play_whole_game_with_bad_input(tmp_path):
    out: list[str] = []
    script = Script(["what?", "0", "99", "", "1"])
    rc = play(
        ["random", "random"], rules=QUICK, seed=4, record=str(tmp_path / "p.json"), input_fn=script, print_fn=out.append
    )
    text = "\n".join(out)
    assert rc == 0, text
    assert "'what?' is not one of your moves" in text and "'99' is not one of your moves" in text
    assert "Your moves:" in text and "player_0 to act" in text
    assert "Round 1 over" in text and "Final ranking" in text and "You finished" in text
    assert "(total" in text and "▮" in text  # own hand shown, the others hidden
    record = rp.load(tmp_path / "p.json")
    assert record["agents"] == ["you", "random", "random"]
    rp.verify(record)


def test_play_by_name_at_another_seat():
    out: list[str] = []
    # names: "draw" (draw from stock) whenever it is legal, else the first move
    script = Script(["draw from stock", "1"], then="1")
    rc = play(["random"], rules=QUICK, seed=2, seat=1, input_fn=script, print_fn=out.append)
    assert rc == 0
    assert "You are player_1" in out[1]
    assert any("player_1 to act" in line for line in out)


def test_play_eof_interrupt_quit_and_errors(capsys):
    out: list[str] = []
    assert play(["random"], rules=QUICK, seed=1, input_fn=Script(["1"], then=EOFError), print_fn=out.append) == 0
    assert "End of input" in out[-1]
    out.clear()
    rc = play(["random"], rules=QUICK, seed=1, input_fn=Script([], then=KeyboardInterrupt), print_fn=out.append)
    assert rc == 130 and "Interrupted" in out[-1]
    out.clear()
    assert play(["random"], rules=QUICK, seed=1, input_fn=Script(["q"]), print_fn=out.append) == 0
    assert "You left the game." in out[-1]
    out.clear()
    capsys.readouterr()
    # errors: one line on stderr, exit code 2
    assert play(["no-such-agent"], rules=QUICK, input_fn=Script([]), print_fn=out.append) == 2
    assert "unknown agent 'no-such-agent'" in capsys.readouterr().err
    assert play(["random"], rules=QUICK, seat=5, input_fn=Script([]), print_fn=out.append) == 2
    assert "--seat" in capsys.readouterr().err
    assert play(["random"] * 9, rules="two_deck", input_fn=Script([]), print_fn=out.append) == 2
    assert "players" in capsys.readouterr().err and not out


def test_play_cli_with_turn_limit(tmp_path):
    out: list[str] = []
    rec = tmp_path / "cli.json"
    argv = ["--opponents", "random", "--rules", "seven", "--seed", "3", "--record", str(rec), "--turn-limit", "20"]
    rc = play_mod.main(argv, input_fn=Script([]), print_fn=out.append)
    assert rc == 0, "\n".join(out)
    text = "\n".join(out)
    assert "at the turn limit" in text and "Final ranking" in text  # some rounds hit 20 turns
    record = rp.load(rec)
    assert record["rules"]["turn_limit"] == 20
    rp.verify(record)


def test_play_cli_with_house_rules(tmp_path, capsys):
    rec = tmp_path / "house.json"
    argv = [
        "--opponents",
        "random",
        "--seed",
        "3",
        "--record",
        str(rec),
        "--set",
        "call_max=7",
        "--set",
        "score_limit=60",
    ]
    assert play_mod.main(argv, input_fn=Script([]), print_fn=lambda *a, **k: None) == 0
    record = rp.load(rec)
    assert (record["rules"]["call_max"], record["rules"]["score_limit"]) == (7, 60)
    rp.verify(record)
    with pytest.raises(SystemExit):
        play_mod.main(["--set", "call_max=high"], input_fn=Script([]))
    assert "rule option 'call_max': 'high' is not of type int" in capsys.readouterr().err


def test_match_moves_lists_ambiguity_and_takes_sets_in_any_order():
    seven = action_table(PRESETS["seven"])
    standard = action_table(PRESETS["standard"])
    orders = ("discard 7♥ 7♠ (7♠ on top)", "discard 7♠ 7♥ (7♥ on top)")
    pair = [a for a in range(seven.num_actions) if seven.name(a) in orders]
    five = [a for a in range(standard.num_actions) if standard.name(a) in ("discard 5♠", "discard 5♠ 5♥")]
    legal = sorted(five)
    names = [standard.name(a) for a in legal]
    # "discard 5" begins two moves: both are offered, none is chosen
    assert sorted(match_moves("discard 5", legal, names)) == legal and parse_move("discard 5", legal, names) is None
    # a set typed in another order than its name is the same move when only one move has those cards
    assert parse_move("discard 5h 5s", legal, names) == five[1]
    # where the order decides (seven: the top card), the order typed is the order laid...
    triple = [a for a in range(seven.num_actions) if seven.name(a).startswith("discard 7♠ 7♥ 7♦")]
    legal = pair + triple
    names = [seven.name(a) for a in legal]
    top_heart = pair[[seven.name(a) for a in pair].index("discard 7♠ 7♥ (7♥ on top)")]
    assert parse_move("discard 7s 7h", legal, names) == top_heart  # also begins the triple's name
    # ...and cards typed in an order that no move has fit every order of them
    three = [
        a
        for a in range(seven.num_actions)
        if sorted(seven.name(a).split("(")[0].split()) == sorted(["discard", "7♠", "7♥", "7♦"])
    ]
    names = [seven.name(a) for a in three]
    assert len(three) == 3 and sorted(match_moves("discard 7d 7s 7h", three, names)) == sorted(three)


def test_play_help_ambiguity_and_sorted_hand():
    out: list[str] = []
    script = Script(["?", "help", "discard", "q"])
    assert play(["random"], rules=QUICK, seed=4, input_fn=script, print_fn=out.append) == 0
    text = "\n".join(out)
    assert text.count("Commands:") == 2 and "q, quit" in text
    assert "'discard' fits" in text and "type the number of the one you mean" in text
    mine = next(line for line in out if "player_0 to act" in line).splitlines()
    row = next(line for line in mine if line.startswith("▶ player_0"))
    cards = row.split("(total")[0].split()[3:]  # marker, seat, score, then the cards
    from yaniv_env.yaniv.cards import RANK, SUIT, parse_card

    kinds = [parse_card(c.replace("🃏", "JK")) for c in cards]
    assert kinds == sorted(kinds, key=lambda k: (RANK[k], SUIT[k])) and len(kinds) == PRESETS["standard"].hand_size


def test_play_round_end_reveals_hands_and_last_draws(tmp_path):
    out: list[str] = []
    answers = iter(["1", "draw from stock"] * 500)  # the first move, then a draw from the stock when asked
    rc = play(["random"], rules=QUICK, seed=11, input_fn=lambda prompt: next(answers), print_fn=out.append)
    text = "\n".join(out)
    assert rc in (0,) and "Round 1 over" in text
    start = out.index(next(line for line in out if line.startswith("Round 1 over")))
    reveal = out[start + 1 : start + 3]
    assert all(" = " in line and "score" in line for line in reveal), reveal
    assert all("[" not in line for line in out[start : start + 3])  # words, not Python lists
    assert any("last drew" in line for line in reveal)
    assert "You drew " in text


def test_round_result_line_in_words():
    rr = rp.engine.RoundResult(
        reason="yaniv", caller=0, challenger=None, caller_beaten=True, hand_totals=[5, 3, 9], points=[35, 0, 9],
        winners=[1], scores=[35, 0, 9],
    )  # fmt: skip
    assert round_result_line(rr) == "player_0 called Yaniv and was beaten; player_1 won"
    assert hand_name([52, 13 + 6, 6, 0]) == "🃏 A♠ 7♠ 7♥"


@pytest.mark.parametrize("leave", ["q", EOFError, KeyboardInterrupt])
def test_leaving_with_record_saves_a_partial_game(tmp_path, leave):
    path = tmp_path / "left.json"
    out: list[str] = []
    script = Script(["1", "1", "1"], then=leave)
    rc = play(["random"], rules=QUICK, seed=3, record=str(path), input_fn=script, print_fn=out.append)
    assert rc == (130 if leave is KeyboardInterrupt else 0)
    assert "partial record" in out[-1] and str(path) in out[-1]
    record = rp.load(path)
    assert record["complete"] is False and len(record["steps"]) >= 3
    rp.verify(record)  # reproduces up to where the game was left
    printed: list[str] = []
    assert rp.main([str(path)], print_fn=printed.append) == 0
    assert "partial record" in printed[-2] and "position is identical" in printed[-1]
    # a partial record whose position was changed does not verify
    record["result"]["scores"][0] += 1
    with pytest.raises(ValueError, match="last scores"):
        rp.verify(record)


def test_leaving_with_an_unwritable_record_says_nothing_was_saved(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    out: list[str] = []
    rc = play(
        ["random"], rules=QUICK, seed=3, record=str(blocker / "x.json"), input_fn=Script(["q"]), print_fn=out.append
    )
    assert rc == 0 and "nothing was saved" in out[-1]
