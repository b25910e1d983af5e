"""The evaluation harness: reproducible numbers, duplicate seating, intervals, ratings,
outputs and the ``yaniv eval`` command."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

pytest.importorskip("openskill")
pytest.importorskip("matplotlib")

import agents  # noqa: E402
from agents.base import RandomAgent  # noqa: E402
from agents.evaluation import (  # noqa: E402
    METRICS,
    GameRecord,
    evaluate,
    league,
    rating_002_addition,
    rating_002_deduction,
    ratings_002,
    ratio_estimate,
    t_quantile,
    wilson,
)
from agents.evaluation.records import SEAT_COUNTERS, call_choices, game_record  # noqa: E402
from training.cli.eval import main  # noqa: E402
from yaniv_env import PRESETS  # noqa: E402
from yaniv_env.tools import replay as rp  # noqa: E402
from yaniv_env.yaniv.actions import CALL_YANIV, DRAW_STOCK  # noqa: E402

# Short games: out at 40 points (2-3 rounds with random agents).
QUICK = PRESETS["standard"].replace(name="quick", score_limit=40)


class FirstLegal:
    """A deterministic agent unlike ``random``: always the lowest legal id (calls Yaniv
    when it may)."""

    name = "first"

    def __init__(self, seed=None, **_):
        pass

    def act(self, observation, action_mask):
        return int(action_mask.nonzero()[0][0])


class NeverCalls:
    """``greedy`` with the Yaniv call masked out: it never calls, though it may (unlike
    ``greedy`` itself, which always calls when it may)."""

    def __init__(self, seed=None, rules=None):
        self.agent = agents.make("greedy", seed=seed, rules=rules)

    def act(self, observation, action_mask):
        mask = action_mask.copy()
        mask[CALL_YANIV] = 0
        return self.agent.act(observation, mask)


def _available(name: str) -> bool:
    """A registered baseline whose module exists (the baselines are written separately)."""
    try:
        agents.make(name, seed=0, rules=QUICK)
    except ImportError:
        return False
    return True


def _numbers(res) -> dict:
    d = res.to_dict()
    d.pop("elapsed_seconds")
    return d


def _check_sane(res, n_players: int):
    for lab in res.labels:
        st = res[lab]
        for name, est in st.metrics.items():
            if math.isfinite(est.value):
                assert est.value >= 0
                if METRICS[name][1] == "rate":
                    assert est.value <= 1
            if math.isfinite(est.low):
                assert est.low <= est.value + 1e-12 <= est.high + 2e-12, (lab, name, est)
        assert st.games == sum(st.seat_games)
    wins = sum(res[lab].metrics["game_win_rate"].value * res[lab].games for lab in res.labels)
    assert wins == pytest.approx(res.games)  # exactly one win (ties split) per game


# -- numbers --------------------------------------------------------------------------------------


def test_random_vs_random_reproducible_and_sane():
    a = evaluate(["random", "random"], rules=QUICK, games=40, seed=3)
    b = evaluate(["random", "random"], rules=QUICK, games=40, seed=3)
    assert _numbers(a) == _numbers(b)
    assert a.labels == ["random#1", "random#2"]
    assert a.games == 40 and a.deals == 20
    _check_sane(a, 2)
    # Two copies of one agent in the duplicate format play the same game in both
    # rotations (same deal, same seat seeds): exactly half each.
    for lab in a.labels:
        assert a[lab].metrics["game_win_rate"].value == 0.5
        assert a[lab].metrics["round_win_rate"].value == pytest.approx(0.5)
    c = evaluate(["random", "random"], rules=QUICK, games=40, seed=4)
    assert _numbers(c) != _numbers(a)


def test_independent_deals_random_vs_random():
    res = evaluate(["random", "random"], rules=QUICK, games=60, seed=1, duplicate=False)
    _check_sane(res, 2)
    assert res.deals == 60 and res.games == 60
    assert res["random#1"].seat_games == [30, 30]  # seats still alternate
    for lab in res.labels:
        est = res[lab].metrics["game_win_rate"]
        assert est.method == "wilson"
        assert 0.2 < est.value < 0.8


@pytest.mark.parametrize("name,games", [("greedy", 20), ("heuristic", 20), ("search", 4)])
def test_baselines_beat_random(name, games):
    if not _available(name):
        pytest.skip(f"agent {name!r} is not written yet")
    res = evaluate([name, "random"], rules=QUICK, games=games, seed=2)
    _check_sane(res, 2)
    assert res[name].metrics["game_win_rate"].value >= 0.5
    assert res[name].metrics["points_per_round"].value <= res["random"].metrics["points_per_round"].value


def test_workers_give_identical_results():
    other = "greedy" if _available("greedy") else "random"
    one = evaluate(["random", other], rules=QUICK, games=16, seed=11, workers=1)
    two = evaluate(["random", other], rules=QUICK, games=16, seed=11, workers=2)
    assert _numbers(one) == _numbers(two)
    assert one.records == two.records
    lg1 = league(["random", other, ("rnd", RandomAgent)], rules=QUICK, games=12, seed=5, rating="002")
    lg2 = league(["random", other, ("rnd", RandomAgent)], rules=QUICK, games=12, seed=5, rating="002", workers=2)
    assert _numbers(lg1) == _numbers(lg2)


def test_unpicklable_factory_rejected_with_workers():
    with pytest.raises(ValueError, match="picklable"):
        evaluate(["random", ("anon", lambda seed, rules: RandomAgent(seed))], rules=QUICK, games=2, workers=2)


# -- seating --------------------------------------------------------------------------------------


def test_duplicate_rotates_seats_on_the_same_deals(tmp_path):
    res = evaluate(
        ["random", ("rnd", RandomAgent), "random"],
        rules=QUICK.replace(score_limit=15),
        num_players=3,
        games=12,
        seed=7,
        save_replays=tmp_path,
        replays=100,
    )
    assert res.deals == 4 and res.games == 12
    for lab in res.labels:
        assert res[lab].seat_games == [4, 4, 4]
    assert len(res.replays) == 12
    by_deal: dict[int, list] = {}
    for rec, path in zip(res.records, res.replays, strict=True):
        by_deal.setdefault(rec.deal, []).append((rec, rp.load(path)))
    first_hands = []
    for deal, games in by_deal.items():
        assert {record["seed"] for _, record in games} == {res.deal_seeds[deal]}  # each replay names its deal's seed
        # every entrant sits at every seat once per deal
        for e in range(3):
            assert sorted(rec.seats.index(e) for rec, _ in games) == [0, 1, 2]
        hands = []
        for _, record in games:
            start = next(iter(rp.replay(record)))
            hands.append([list(h) for h in start.state.hands])
        assert hands[0] == hands[1] == hands[2]  # same cards in every rotation
        first_hands.append(hands[0])
    assert first_hands[0] != first_hands[1]


def test_cyclic_seating_and_too_many_entrants():
    res = evaluate(["random", ("rnd", RandomAgent)], rules=QUICK, num_players=4, games=8, seed=0)
    # A B A B: two distinct rotations per deal
    assert res.deals == 4
    assert res["random"].seat_games == [4, 4, 4, 4]
    assert res["random"].games == 16
    # more entrants than seats: every pairing, deals interleaved, head-to-head results
    many = evaluate(["random", ("first", FirstLegal), ("rnd", RandomAgent)], rules=QUICK, games=12, seed=1)
    assert many.games == 12 and many.deals == 6
    assert sorted({tuple(sorted(r.seats)) for r in many.records}) == [(0, 1), (0, 2), (1, 2)]
    for lab in many.labels:
        assert many[lab].games == 8 and many[lab].seat_games == [4, 4]
    mu = many.matchups()
    assert mu["first"]["rnd"]["games"] == 4
    assert mu["first"]["rnd"]["score"] + mu["rnd"]["first"]["score"] == 4
    assert "head to head" in many.table()
    with pytest.raises(ValueError, match="unknown agent"):
        evaluate(["random", "no-such-agent"], rules=QUICK, games=2)


# -- statistics -----------------------------------------------------------------------------------


def test_interval_helpers():
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert all(math.isnan(v) for v in wilson(0, 0))
    assert t_quantile(0.975, 10) == pytest.approx(2.2281, abs=1e-3)
    assert t_quantile(0.975, 3) == pytest.approx(3.1824, abs=1e-2)
    assert t_quantile(0.975, 1) == pytest.approx(12.706, abs=1e-3)
    # With equal weights the ratio estimate is the t interval of the unit means.
    ys = [0.0, 1.0, 0.5, 1.0, 0.5, 0.0, 1.0, 0.5]
    est = ratio_estimate(ys, [1] * len(ys), rate=True)
    m = len(ys)
    mean = sum(ys) / m
    sd = math.sqrt(sum((y - mean) ** 2 for y in ys) / (m - 1))
    half = t_quantile(0.975, m - 1) * sd / math.sqrt(m)
    assert est.value == pytest.approx(mean)
    assert est.low == pytest.approx(mean - half) and est.high == pytest.approx(mean + half)
    same = ratio_estimate([1, 1, 1], [1, 1, 1], rate=True)  # collapsed: Wilson over the units
    assert same.method == "wilson-units" and same.low < 1 == same.value == same.high


def test_intervals_contain_estimate_and_shrink():
    pair = ["random", ("first", FirstLegal)]
    small = evaluate(pair, rules=QUICK, games=16, seed=9, duplicate=False)
    big = evaluate(pair, rules=QUICK, games=48, seed=9, duplicate=False)
    dup_small = evaluate(pair, rules=QUICK, games=16, seed=9)
    dup_big = evaluate(pair, rules=QUICK, games=48, seed=9)
    for res in (small, big, dup_small, dup_big):
        _check_sane(res, 2)
    assert big["random"].metrics["game_win_rate"].method == "wilson"
    assert dup_big["random"].metrics["game_win_rate"].method == "t-ratio"
    for a, b in ((small, big), (dup_small, dup_big)):
        for metric in ("game_win_rate", "round_win_rate", "points_per_round"):
            ea, eb = a["random"].metrics[metric], b["random"].metrics[metric]
            assert eb.high - eb.low < ea.high - ea.low, metric


# -- outputs --------------------------------------------------------------------------------------


def test_table_json_csv_plot(tmp_path):
    res = evaluate(["random", ("rnd", RandomAgent)], rules=QUICK, games=10, seed=1)
    text = res.table()
    assert "game win rate" in text and "random" in text and "rnd" in text and "95%" in text
    data = json.loads(res.to_json(tmp_path / "r.json"))
    assert json.loads((tmp_path / "r.json").read_text()) == data
    assert [e["label"] for e in data["entrants"]] == ["random", "rnd"]
    assert set(data["entrants"][0]["metrics"]) == set(METRICS)
    assert data["rules_fields"]["score_limit"] == 40 and len(data["deal_seeds"]) == res.deals
    res.to_csv(tmp_path / "r.csv")
    rows = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert [r["agent"] for r in rows] == ["random", "rnd"]
    assert (
        float(rows[0]["game_win_rate_low"]) <= float(rows[0]["game_win_rate"]) <= float(rows[0]["game_win_rate_high"])
    )
    res.plot(tmp_path / "r.png")
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- Pis Yedili -----------------------------------------------------------------------------------


def test_pis_yedili_evaluation(tmp_path, capsys):
    """The same harness plays Pis Yedili: duplicate deals, deal columns, no Yaniv-only parts."""
    from yaniv_env import pis_yedili

    res = evaluate(["pis_heuristic", "pis_random"], game="pis_yedili", games=24, seed=2)
    _check_sane(res, 2)
    assert res.games == 24 and res.deals == 12 and res.game.name == "pis_yedili"
    assert res["pis_heuristic"].metrics["game_win_rate"].value > 0.5
    assert math.isnan(res["pis_heuristic"].metrics["call_success_rate"].value)
    assert math.isnan(res["pis_heuristic"].metrics["call_when_allowed"].value)
    chances = SEAT_COUNTERS.index("call_chances")
    assert all(stats[chances] == 0 for rec in res.records for stats in rec.seat_stats)  # PASS is not a call
    text = res.table()
    assert text.startswith("Pis Yedili evaluation") and "deal win rate" in text and "points / deal" in text
    assert "call" not in text
    assert json.loads(res.to_json())["game"] == "pis_yedili"
    # the game follows a Pis Yedili rules object; results do not depend on the workers
    rules = pis_yedili.get_rules("standard")
    one = evaluate(["pis_random", "random"], rules=rules, num_players=3, games=6, seed=1, episode="deal")
    two = evaluate(["pis_random", "random"], rules=rules, num_players=3, games=6, seed=1, episode="deal", workers=2)
    assert _numbers(one) == _numbers(two) and one.rules.num_players == 3
    with pytest.raises(ValueError, match="entrant 'heuristic'.*got a Pis Yedili Rules object"):
        evaluate(["heuristic", "pis_random"], game="pis_yedili", games=2)
    with pytest.raises(ValueError, match="'game' or 'deal' for Pis Yedili"):
        evaluate(["pis_random", "random"], game="pis_yedili", games=2, episode="round")
    with pytest.raises(ValueError, match="002 rating is a Yaniv rating"):
        league(["pis_random", "random"], game="pis_yedili", games=2, rating="002")
    with pytest.raises(ValueError, match="replays are recorded for Yaniv"):
        evaluate(["pis_random", "random"], game="pis_yedili", games=2, save_replays=tmp_path)
    assert main(["--game", "pis_yedili", "--agents", "pis_heuristic,random", "--games", "4", "--quiet"]) == 0
    assert "Pis Yedili evaluation" in capsys.readouterr().out
    assert main(["--game", "pis_yedili", "--rules", "seven", "--agents", "random,random", "--games", "2"]) == 2
    assert "unknown Pis Yedili rules preset 'seven'" in capsys.readouterr().err


# -- ratings --------------------------------------------------------------------------------------


def test_002_worked_examples():
    # 002: out with 210 while 167, 180 and 155 are still in, 4 players: 43 + 30 + 55 = 128.
    assert rating_002_deduction(210, [167, 180, 155], 4) == 128
    # 002: player 4 goes out with 210, you (125) and two others still in: 85 / 3 = 28.
    assert rating_002_addition(125, 210, 3) == 28
    # the second player out of four divides by 2
    assert rating_002_deduction(205, [100, 150], 4) == (105 + 55) // 2
    with pytest.raises(ValueError):
        rating_002_deduction(210, [1, 2, 3, 4], 4)


def _rec(outs, seats=(0, 1, 2, 3)):
    return GameRecord(0, 0, tuple(seats), [0] * len(seats), [0] * len(seats), 1, 1, False, [], outs)


def test_002_rating_sequence():
    labels = ["a", "b", "c", "d"]
    # d goes out with 210 (a 125, b 167, c 180 still in), then c with 201 (a 150, b 190)
    rec = _rec([(3, 210, [(0, 125), (1, 167), (2, 180)]), (2, 201, [(0, 150), (1, 190)])])
    r = ratings_002([rec], labels, 4)
    d_loss = rating_002_deduction(210, [125, 167, 180], 4)
    assert r["d"] == 1000 - d_loss
    assert r["c"] == 1000 + (210 - 180) // 3 - (51 + 11) // 2
    assert r["a"] == 1000 + 85 // 3 + 51 // 2
    assert r["b"] == 1000 + 43 // 3 + 11 // 2
    # never below zero
    assert ratings_002([rec], labels, 4, initial=10)["d"] == 0


def test_league_openskill_and_002():
    names = ["random", ("rnd", RandomAgent)]
    strong = "greedy" if _available("greedy") else None
    if strong:
        names.append(strong)
    res = league(names, rules=QUICK, games=36, seed=4, rating="002")
    _check_sane(res, 2)
    assert res.kind == "league" and set(res.ratings) == set(res.labels) == set(res.rating_002)
    for r in res.ratings.values():
        assert r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"])
        assert r["sigma"] < 25 / 3  # updated from the prior
    assert all(v >= 0 for v in res.rating_002.values())
    pairs = {tuple(sorted(rec.seats)) for rec in res.records}
    assert len(pairs) == len(names) * (len(names) - 1) // 2  # all pairings
    if strong:
        assert res.order()[0] == strong
        assert max(res.ratings, key=lambda k: res.ratings[k]["ordinal"]) == strong
    assert "ordinal" in res.table() and "rating 002" in res.table()


def test_league_zero_sum_002_in_two_player_games():
    res = league(["random", ("rnd", RandomAgent)], rules=QUICK, games=20, seed=8, rating="002")
    if min(res.rating_002.values()) > 0:
        assert sum(res.rating_002.values()) == 2000


def test_league_random_tables_for_more_seats():
    entrants = ["random", ("r2", RandomAgent), ("r3", RandomAgent), ("r4", RandomAgent)]
    res = league(entrants, rules=QUICK.replace(score_limit=15), num_players=3, games=24, seed=2)
    assert res.games == 24
    for rec in res.records:
        assert len(set(rec.seats)) == 3
    assert sum(res[lab].games for lab in res.labels) == 24 * 3
    assert set(res.ratings) == set(res.labels) and res.rating_002 is None


# -- command line ---------------------------------------------------------------------------------


def test_cli_eval(tmp_path, capsys):
    out = tmp_path / "o"
    rc = main(
        ["--agents", "random,random", "--rules", "seven", "--games", "4", "--quiet"]
        + ["--json", f"{out}.json", "--csv", f"{out}.csv", "--plot", f"{out}.png"]
        + ["--save-replays", str(tmp_path / "rep"), "--replays", "2"]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "game win rate" in text and "random#1" in text
    for ext in ("json", "csv", "png"):
        assert (tmp_path / f"o.{ext}").stat().st_size > 0
    saved = sorted((tmp_path / "rep").glob("*.json"))
    assert len(saved) == 2
    rp.verify(rp.load(saved[0]))


def test_cli_league_and_errors(capsys):
    from training.cli import main as yaniv

    assert yaniv(["eval", "--agents", "random,random", "--rules", "seven", "--games", "4", "--rating", "002"]) == 0
    text = capsys.readouterr().out
    assert "league" in text and "rating 002" in text
    assert main(["--agents", "random,nobody", "--games", "2", "--quiet"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    assert main(["--agents", "random", "--games", "2", "--league", "--quiet"]) == 2
    assert "a league needs at least two agents" in capsys.readouterr().err


def test_agents_with_options_on_the_command_line(capsys):
    """``NAME(key=value, ...)`` makes the agent with those options: the same games as the
    same agent built in Python, in one process or two; bad texts are refused, naming the
    problem, without running anything."""
    from functools import partial

    from agents.evaluation.entrants import AgentWithOptions, split_agents

    text = "heuristic(mu=4, call_margin=-4.0, strict=True),heuristic"
    assert split_agents(text) == ["heuristic(mu=4, call_margin=-4.0, strict=True)", "heuristic"]
    spec = AgentWithOptions.parse(split_agents(text)[0])
    assert spec == AgentWithOptions("heuristic", (("mu", 4), ("call_margin", -4.0), ("strict", True)))
    assert spec.label == "heuristic(mu=4, call_margin=-4.0, strict=True)"
    assert spec(seed=0, rules=PRESETS["two_deck"]).options["mu"] == 4.0
    kw = dict(rules="two_deck", games=16, seed=3)
    by_text = evaluate(split_agents(text), **kw)
    by_python = evaluate([("t", partial(agents.make, "heuristic", mu=4, call_margin=-4.0)), "heuristic"], **kw)
    two_workers = evaluate(text, workers=2, **kw)
    rates = [r.stats[r.labels[0]].metrics["game_win_rate"].value for r in (by_text, by_python, two_workers)]
    assert rates[0] == rates[1] == rates[2] and by_text.labels[0] == spec.label
    assert main(["--agents", "heuristic(mu=3.5),random", "--games", "4", "--quiet"]) == 0
    assert "heuristic(mu=3.5)" in capsys.readouterr().out
    for bad, why in [
        ("heuristic(mu=", "expected NAME(key=value, ...)"),
        ("heuristic(4)", "expected NAME(key=value, ...)"),
        ("heuristic(mu=__import__('os').getcwd())", "option values must be literals"),
        ("heuristic(speed=9)", "unknown heuristic options: speed"),
    ]:
        assert main(["--agents", f"{bad},random", "--games", "2", "--quiet"]) == 2
        assert why in capsys.readouterr().err


def test_milestone_rate_counts_the_rounds_that_left_a_total_on_a_milestone():
    from yaniv_env.yaniv import engine

    def result(points, scores):
        return engine.RoundResult(
            reason="yaniv", caller=0, challenger=None, caller_beaten=False, hand_totals=[0, 9],
            points=points, winners=[0], scores=scores,
        )  # fmt: skip

    # seat 1: 43, then 43 + 7 = 50 halved to 25, then 25 + 25 = 50 halved to 25 again;
    # seat 0: no points for three rounds, then 50 halved to 25
    results = [result([0, 43], [0, 43]), result([0, 7], [0, 25]), result([0, 25], [0, 25]), result([50, 0], [25, 25])]
    rec = game_record(0, 0, (0, 1), results, [0, 1], [25, 25], turns=40, truncated=False, outs=[])
    m = SEAT_COUNTERS.index("milestones")
    assert [stats[m] for stats in rec.seat_stats] == [1, 2]
    # in real games: the score-aware heuristic lands on more milestones than the heuristic
    res = evaluate(["score_heuristic", "heuristic"], games=40, seed=3)
    rates = {lab: st.metrics["milestone_rate"].value for lab, st in res.stats.items()}
    assert rates["score_heuristic"] > 2 * rates["heuristic"] > 0, rates
    assert "milestones" in res.table()


def test_calls_when_allowed_is_the_share_of_the_legal_calls_made():
    """Per decision at which calling Yaniv was legal, the share on which the agent called:
    1 for an agent that always calls when it may, 0 for one that never does (though it
    could), in the records and in every output."""
    # no slam-down: a hand is never empty, so never calling is always possible (an empty hand must call)
    rules = QUICK.replace(slam="none")
    res = evaluate(["greedy", ("never", NeverCalls)], rules=rules, games=10, seed=4)
    chances, taken, calls = (SEAT_COUNTERS.index(c) for c in ("call_chances", "calls_taken", "calls"))
    seat = {e: [st for rec in res.records for s, st in enumerate(rec.seat_stats) if rec.seats[s] == e] for e in (0, 1)}
    assert sum(st[chances] for st in seat[0]) > 0 and sum(st[chances] for st in seat[1]) > 0
    assert all(st[taken] == st[chances] == st[calls] for st in seat[0])  # each call taken ended a round
    assert all(st[taken] == 0 for st in seat[1])
    rate = {lab: st.metrics["call_when_allowed"] for lab, st in res.stats.items()}
    assert rate["greedy"].value == 1.0 and rate["never"].value == 0.0
    assert math.isnan(res["never"].metrics["call_success_rate"].value)  # it made no call to rate
    header = res.table().splitlines()[1]
    assert header.index("call beaten") < header.index("calls when allowed") < header.index("milestones")
    assert "calls when allowed per decision at which it could call or play on" in res.table()
    data = json.loads(res.to_json())
    assert [e["metrics"]["call_when_allowed"]["value"] for e in data["entrants"]] == [1.0, 0.0]
    # the counts handed to the record are the record's: none (Pis Yedili) counts 0
    rec = game_record(0, 0, (0, 1), [], [0, 1], [0, 0], turns=0, truncated=False, outs=[], call_counts=[(3, 2), (0, 0)])
    assert [(st[chances], st[taken]) for st in rec.seat_stats] == [(3, 2), (0, 0)]
    rec = game_record(0, 0, (0, 1), [], [0, 1], [0, 0], turns=0, truncated=False, outs=[])
    assert [(st[chances], st[taken]) for st in rec.seat_stats] == [(0, 0), (0, 0)]
    # a call forced by an empty hand (the only legal move) is no choice: not counted
    forced, free = np.zeros((2, 8), bool), np.zeros(8, bool)
    forced[:, CALL_YANIV] = free[[CALL_YANIV, DRAW_STOCK]] = True
    assert call_choices(forced, CALL_YANIV).tolist() == [[0, 0], [0, 0]]
    assert call_choices(free, CALL_YANIV).tolist() == [1, 1] and call_choices(free, DRAW_STOCK).tolist() == [1, 0]
