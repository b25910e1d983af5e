"""The web side without a browser: annotations in records, the replay viewer's data and
page, game I of an evaluation played again, and the play server's API (Flask's test client):
whole games, the person's view hiding the other hands, and every refusal changing nothing."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import agents
from agents.evaluation import evaluate, game_replay
from yaniv_env import raw_env
from yaniv_env.tools import replay
from yaniv_env.tools.web import pages
from yaniv_env.yaniv.engine import JOKER, hand_value

flask = pytest.importorskip("flask")
from yaniv_env.tools.web.server import BASELINES, create_app  # noqa: E402


def _embedded(html: str) -> dict:
    text = re.search(r'<script type="application/json" id="[a-z-]+">(.*?)</script>', html, re.S).group(1)
    return json.loads(text)


# -- annotations ------------------------------------------------------------------------------


@pytest.mark.parametrize("name, kind", [("ppo", "probabilities"), ("search", "values"), ("search_fast", "values")])
def test_annotated_agents_make_the_moves_act_makes(name, kind):
    # act_annotated is act plus a note: the same moves from the same seeds, so a recorded game
    # is the game the agents play
    for seed in range(5):  # one round (search is slow) in which the agent annotates
        game = dict(rules="standard", num_players=2, seed=seed, episode="round")
        played = replay.record_game(policies=[agents.make(name, seed=0), agents.make("heuristic", seed=1)], **game)
        if played.get("annotations"):
            break
    env = raw_env(rules="standard", num_players=2, episode="round")
    env.reset(seed=seed)
    plain = [agents.make(name, seed=0), agents.make("heuristic", seed=1)]
    for agent, action in played["steps"]:
        obs = env.observe(agent)
        if action is not None:  # act makes the recorded move
            assert plain[int(agent[-1])].act(obs["observation"], obs["action_mask"]) == action
        env.step(action)
    notes = [a for a in played["annotations"] if a is not None]
    assert notes and all(a["kind"] == kind for a in notes)
    for (agent, action), note in zip(played["steps"], played["annotations"], strict=True):
        if note is not None:
            assert agent == "player_0" and len(note["actions"]) == len(note["values"])
            assert action in note["actions"]  # a policy rates every legal move, a search the moves it chose from
            if kind == "probabilities":
                assert abs(sum(note["values"]) - 1) < 1e-3
                assert note["actions"][int(np.argmax(note["values"]))] == action  # deterministic: the arg-max


def test_records_without_annotations_load_and_bad_ones_are_refused(tmp_path):
    rec = replay.record_game("standard", 2, 1, [agents.make("random", seed=0), agents.make("greedy", seed=1)])
    assert "annotations" not in rec
    replay.verify(replay.load(replay.save(rec, tmp_path / "plain.json")))
    notes = [None] * len(rec["steps"])
    for bad, words in [
        ([None], "one entry"),
        (notes[:-1] + [{"kind": "odds", "actions": [1], "values": [1.0]}], "kind"),
        (notes[:-1] + [{"kind": "values", "actions": [1, 2], "values": [1.0]}], "same length"),
        (notes[:-1] + [{"kind": "values", "actions": [1], "values": [float("nan")]}], "finite"),
        (notes[:-1] + [{"kind": "values", "actions": [-1], "values": [1.0]}], "action ids"),
    ]:
        with pytest.raises(ValueError, match=words):
            replay.check_record({**rec, "annotations": bad})


# -- the replay viewer ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def annotated_record():
    # seven: first to 100 points, a short game
    players = [agents.make("ppo", rules="seven", seed=0), agents.make("heuristic", rules="seven", seed=1)]
    return replay.record_game("seven", 2, 11, players)


def test_viewer_frames_follow_the_game(annotated_record):
    rec = annotated_record
    data = replay.viewer_data(rec)
    frames = data["frames"]
    live = [(a, x) for a, x in rec["steps"] if x is not None]
    decided = [f["decision"] for f in frames if f["decision"] is not None]
    assert [(f"player_{d['seat']}", d["action"]) for d in decided] == live
    assert frames[-1]["decision"] is None and frames[-1]["table"]["phase"] == "game_over"
    assert all(d["action"] in d["legal"] for d in decided)
    assert {str(a) for d in decided for a in d["legal"]} <= set(data["moves"])
    noted = [d["note"] for d in decided if d["note"] is not None]
    assert noted and {n["kind"] for n in noted} == {"probabilities"}
    # the hands add up to what the table says, and a round's end shows every hand revealed
    for f in frames:
        for p in f["table"]["players"]:
            assert len(p["hand"]) == p["size"] and p["total"] == hand_value(p["hand"])
    ends = [f["round_over"] for f in frames if f["round_over"] is not None]
    assert len(ends) == rec["result"]["rounds"]
    assert ends[-1]["scores"] == rec["result"]["scores"]
    assert len(data["cards"]) == JOKER + 1 and data["cards"][JOKER]["rank"] == "★"


def test_viewer_shows_where_a_partial_record_was_left(tmp_path):
    from yaniv_env.tools.play import play

    answers = iter(["1", "1", "1", "q"])
    path = tmp_path / "left.json"
    play(["random"], seed=2, record=str(path), input_fn=lambda _: next(answers), print_fn=lambda *a: None)
    data = replay.viewer_data(replay.load(path))
    last = data["frames"][-1]["decision"]
    assert data["complete"] is False and "action" not in last and last["legal"] and last["seat"] == 0


def test_viewer_page_is_self_contained_and_escapes_text(annotated_record, tmp_path):
    rec = dict(annotated_record, agents=["</script><script>alert(1)</script>", "search", "a & b"])
    page = replay.write_html(rec, tmp_path / "out" / "game.html").read_text(encoding="utf-8")
    assert "{{" not in page and "/*{{" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), "the page must load nothing"
    assert page.count("</script>") == 3  # the data, the shared code and the page's: nothing from the labels
    assert _embedded(page)["labels"][0] == "</script><script>alert(1)</script>"


def test_yaniv_replay_html_command(annotated_record, tmp_path, capsys):
    path = replay.save(annotated_record, tmp_path / "g.json")
    assert replay.main([str(path), "--html", str(tmp_path / "g.html")]) == 0
    assert "wrote" in capsys.readouterr().out and (tmp_path / "g.html").stat().st_size > 10_000
    broken = dict(annotated_record, seed=annotated_record["seed"] + 1)
    bad = replay.save(broken, tmp_path / "bad.json")
    assert replay.main([str(bad), "--html", str(tmp_path / "bad.html")]) == 2
    assert "does not reproduce" in capsys.readouterr().err and not (tmp_path / "bad.html").exists()


def test_json_for_html_cannot_close_the_script():
    text = pages.json_for_html({"a": "</script><!-- & -->"})
    assert "<" not in text and ">" not in text and json.loads(text) == {"a": "</script><!-- & -->"}


# -- a game of an evaluation, played again ----------------------------------------------------------


def test_game_of_an_evaluation_is_played_again_exactly():
    entrants = ["search", "heuristic", "random"]
    kw = dict(rules="standard", num_players=2, games=6, seed=4, episode="round")
    result = evaluate(entrants, **kw)
    for i in (0, 3, 5):
        rec = game_replay(entrants, i, **kw)
        game = result.records[i]
        assert rec["result"]["scores"] == game.scores and rec["result"]["rounds"] == game.rounds
        assert rec["agents"] == [entrants[e] for e in game.seats]
        replay.verify(rec)
    assert any(a is not None for a in game_replay(entrants, 0, **kw).get("annotations", []))  # search at seat 0
    with pytest.raises(ValueError, match="games 0 to 5"):
        game_replay(entrants, 6, **kw)


def test_yaniv_eval_record_game_writes_page_and_file(tmp_path, capsys):
    from training.cli.eval import main

    html, js = tmp_path / "g.html", tmp_path / "g.json"
    argv = ["--agents", "heuristic,random", "--games", "4", "--quiet", "--record-game", "3"]
    assert main([*argv, "--html", str(html), "--replay-file", str(js)]) == 0
    assert replay.load(js)["agents"] == ["random", "heuristic"] and html.stat().st_size > 10_000
    assert main([*argv[:-1], "9", "--html", str(html)]) == 2
    assert "no game 9" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(argv[:4] + ["--html", str(html)])


# -- the play server ---------------------------------------------------------------------------


@pytest.fixture()
def client():
    app = create_app(shipped=False)
    return app.test_client()


def _new(client, **body):
    body = {"rules": "standard", "num_players": 2, "opponents": ["heuristic"], "seed": 3, **body}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.json
    return r.json


def _move(client, view, **over):
    body = {"seq": view["seq"], "seat": view["seat"], "action": view["legal"][0]["action"], **over}
    return client.post(f"/api/games/{view['game']}/move", json=body)


def _check_hidden(view):
    for p in view["table"]["players"]:
        if p["seat"] == view["seat"]:
            assert p["hand"] is not None and len(p["hand"]) == p["size"]
        else:
            assert p["hand"] is None and p["total"] is None


def test_options_and_opponents(client):
    options = client.get("/api/options").json
    assert [p["name"] for p in options["presets"]] == ["standard", "seven", "french", "two_deck"]
    assert options["presets"][3]["players"] == [2, 3, 4, 5]
    assert client.get("/api/opponents?rules=french&players=3").json["opponents"] == list(BASELINES)
    assert client.get("/api/opponents?rules=french&players=30").status_code == 400
    assert client.get("/api/opponents?rules=nope&players=2").status_code == 400


def test_the_shipped_agent_is_offered_where_one_is_shipped():
    c = create_app().test_client()
    assert c.get("/api/opponents?rules=standard&players=2").json["opponents"][0] == "ppo"
    assert "ppo" not in c.get("/api/opponents?rules=french&players=3").json["opponents"]


@pytest.mark.parametrize("rules, players, seat", [("standard", 2, 0), ("french", 3, 2), ("two_deck", 4, 1)])
def test_whole_games_in_the_person_s_view(client, rules, players, seat):
    opponents = ["heuristic", "greedy", "random"][: players - 1]
    view = _new(client, rules=rules, num_players=players, opponents=opponents, seat=seat, seed=7)
    rng = np.random.default_rng(0)
    rounds = 0
    while not view["over"]:
        _check_hidden(view)
        assert view["legal"] and view["table"]["current"] == seat
        calls = [m["action"] for m in view["legal"] if m["name"] == "call Yaniv"]  # short games
        r = _move(
            client, view, action=calls[0] if calls else view["legal"][int(rng.integers(len(view["legal"])))]["action"]
        )
        assert r.status_code == 200, r.json
        rounds += sum("round_over" in e for e in r.json["events"])
        assert r.json["seq"] == view["seq"] + 1
        view = r.json
    assert view["legal"] == [] and sorted(view["result"]["ranking"]) == sorted(view["result"]["ranking"])
    rec = client.get(f"/api/games/{view['game']}/replay")
    assert rec.status_code == 200 and "attachment" in rec.headers["Content-Disposition"]
    final = replay.verify(rec.json)
    assert final.scores == view["result"]["scores"] and rec.json["agents"][seat] == "you"
    assert rounds == rec.json["result"]["rounds"]


def test_round_ends_reveal_every_hand(client):
    view = _new(client, opponents=["greedy"])
    while not view["over"]:
        ends = [e["round_over"] for e in view["events"] if "round_over" in e]
        if ends:
            assert all(len(h) > 0 for h in ends[0]["hands"]) and len(ends[0]["totals"]) == 2
            return
        view = _move(client, view).json
    pytest.fail("no round ended")


def test_refusals_change_nothing(client):
    view = _new(client)
    url = f"/api/games/{view['game']}"
    before = client.get(url).json
    legal = {m["action"] for m in view["legal"]}
    illegal = next(a for a in range(500) if a not in legal)
    new = {"rules": "standard", "num_players": 2, "opponents": ["random"]}
    cases = [
        (_move(client, view, action=illegal), 422, "not legal"),
        (_move(client, view, seat=1), 403, "seat"),
        (_move(client, view, seq=view["seq"] + 1), 409, "sequence"),
        (_move(client, view, seq=view["seq"] - 1), 409, "sequence"),
        (_move(client, view, action="1"), 400, "integer"),
        (_move(client, view, action=True), 400, "integer"),
        (client.post(url + "/move", data="{not json", content_type="application/json"), 400, "JSON"),
        (client.post(url + "/move", json=[1, 2]), 400, "object"),
        (client.post("/api/games/nope/move", json={"seq": 0, "seat": 0, "action": 1}), 404, "no game"),
        (client.get(url + "/replay"), 409, "game is over"),
        (client.post("/api/games", json={**new, "opponents": ["ppo"]}), 400, "opp"),
        (client.post("/api/games", json={**new, "num_players": 3}), 400, "opp"),
        (client.post("/api/games", json={**new, "seat": 2}), 400, "seat"),
        (client.get(url + "/nothing"), 404, "Not Found"),
    ]
    for response, status, words in cases:
        assert response.status_code == status, (status, response.json)
        assert words.lower() in response.json["error"].lower()
    assert client.get(url).json == before
    # the right move is accepted once; sent again, it is a replayed request
    first = _move(client, view)
    assert first.status_code == 200
    again = _move(client, view)
    assert again.status_code == 409 and client.get(url).json == first.json
