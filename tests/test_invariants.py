"""The compiled invariant checks (:mod:`yaniv_env.yaniv.batched.invariants`) and the sweep that runs
them at every decision (:mod:`yaniv_env.tools.sweep`).

A few thousand games per preset here (house options and player counts drawn per batch);
``python -m pytest --runslow tests/test_invariants.py -k million`` (or ``yaniv sweep
--games 1000000 --workers 2``) plays the million games per preset of ``docs/verification.md``.

Each check is shown to catch a planted bug: the check functions are fed a state corrupted
by hand (a card lost or duplicated, a hand size, a total, a milestone, a limit, the player
to act), and the sweep is run on an engine whose tables mislead its step (no milestone,
a joker short, a wrong penalty, a hand too many, no turn limit) while the checks read the
rules themselves.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from yaniv_env.tools.sweep import HOUSE_OPTIONS, draw_rules, main, play_batch, sweep_preset
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.batched import BatchedYaniv
from yaniv_env.yaniv.batched import kernels as K
from yaniv_env.yaniv.batched import tables as T
from yaniv_env.yaniv.batched.invariants import CHECKS, PASSED, check_decision, check_round_end, reference
from yaniv_env.yaniv.batched.tables import greedy_tables, tables
from yaniv_env.yaniv.cards import NUM_KINDS
from yaniv_env.yaniv.rules import PRESETS, get_rules

#: Games per preset in CI (two batches of different rules each).
CI_GAMES = 200


class Game:
    """One batched game played from Python with the checks called as the sweep calls them."""

    def __init__(self, rules, seed=0):
        self.rules = rules
        self.eng = BatchedYaniv(rules, num_envs=1, seed=seed)
        self.st, self.tb, _ = self.eng.kernel_state()
        self.ref = reference(rules)
        n = rules.num_players
        self.round_scores = np.zeros(n, np.int64)
        self.round_alive = np.ones(n, np.int8)
        self.rounds = self.round_decisions = 0
        self.buf = np.empty(K.MAX_LEGAL, np.int64)
        self.scratch = np.zeros((2, NUM_KINDS), np.int64)
        self.values = np.zeros(n, np.int64)
        self.count = 0

    def check(self) -> str | None:
        """The checks before a decision: the name of the first one broken, else None."""
        code, self.count = check_decision(
            self.st,
            self.tb,
            self.ref,
            0,
            self.round_scores,
            self.round_alive,
            self.rounds,
            self.round_decisions,
            self.buf,
            self.scratch,
            self.values,
        )
        return None if code == PASSED else CHECKS[code]

    def step(self):
        """The greedy move (after :meth:`check`); returns the result and the seat that moved."""
        seat = int(self.eng.current[0])
        action = K.greedy_pick(self.buf, self.count, *greedy_tables(self.rules))
        self.round_decisions += 1
        return self.eng.step(np.array([action])), seat

    def check_round(self, res, seat) -> str | None:
        """The checks after the decision that ended a round."""
        rs = K.StepArrays(*(getattr(res, name) for name in K.StepArrays._fields))
        code = check_round_end(
            self.st,
            rs,
            self.ref,
            0,
            seat,
            self.round_scores,
            self.round_alive,
            self.values,
            self.rounds + 1,
            bool(self.eng.done[0]),
            np.zeros(self.rules.num_players, np.int64),
        )
        return None if code == PASSED else CHECKS[code]

    def next_round(self) -> None:
        self.rounds += 1
        self.round_scores[:] = self.st.scores[0]
        self.round_alive[:] = self.st.alive[0]
        self.round_decisions = 0

    def play_to_round_end(self):
        """Play (every check passing) until a round ends; returns its result and last seat."""
        while True:
            assert self.check() is None
            res, seat = self.step()
            if res.round_over[0]:
                return res, seat


def test_a_whole_game_passes_every_check():
    game = Game(get_rules("french", 3), seed=4)
    while not game.eng.done[0]:
        res, seat = game.play_to_round_end()
        assert game.check_round(res, seat) is None
        game.next_round()
    assert game.rounds >= 2


def _lose_a_stock_card(game):
    game.st.g[0, K.G_STOCK_LEN] -= 1


def _duplicate_a_hand_card(game):
    hand = game.st.hands[0, 1]
    hand[int(np.flatnonzero(hand)[0])] += 1
    game.st.hand_len[0, 1] += 1


def _replace_a_stock_card(game):
    game.st.stock[0, 0] = (game.st.stock[0, 0] + 1) % 52


def _miscount_the_pile(game):
    game.st.pile_cnt[0, 0] += 1


def _miscount_a_hand(game):
    game.st.hand_len[0, 1] += 1


def _stock_cards_to_hand(game):
    g, hands, hand_len, stock = game.st.g, game.st.hands, game.st.hand_len, game.st.stock
    while hand_len[0, 1] <= game.rules.hand_size:
        g[0, K.G_STOCK_LEN] -= 1
        hands[0, 1, stock[0, g[0, K.G_STOCK_LEN]]] += 1
        hand_len[0, 1] += 1


def _move_a_total(game):
    game.st.scores[0, 1] += 3


def _pass_the_turn_limit(game):
    game.st.g[0, K.G_ROUND_TURNS] = game.rules.turn_limit


def _pass_the_round_limit(game):
    game.rounds = game.st.g[0, K.G_ROUND_INDEX] = game.rules.round_limit


def _miss_a_round_end(game):
    game.rounds += 1


def _act_from_outside(game):
    game.st.g[0, K.G_CURRENT] = 7


def _play_past_the_end(game):
    game.st.g[0, K.G_PHASE] = engine.GAME_OVER


def _unknown_phase(game):
    game.st.g[0, K.G_PHASE] = 99


#: A corruption of a live game and the check that must name it.
CORRUPTIONS = {
    "a card lost from the stock": ("cards", _lose_a_stock_card),
    "a card duplicated in a hand": ("cards", _duplicate_a_hand_card),
    "a stock card replaced by another": ("cards", _replace_a_stock_card),
    "the pile's counts off": ("cards", _miscount_the_pile),
    "a hand size not its cards": ("hand_sizes", _miscount_a_hand),
    "a hand above the hand size": ("hand_sizes", _stock_cards_to_hand),
    "a total moved mid-round": ("totals", _move_a_total),
    "the turn limit passed": ("limits", _pass_the_turn_limit),
    "the round limit passed": ("limits", _pass_the_round_limit),
    "a round the sweep did not see end": ("limits", _miss_a_round_end),
    "the player to act out of the game": ("legal_move", _act_from_outside),
    "a live game past its end": ("legal_move", _play_past_the_end),
    "no phase of play": ("legal_move", _unknown_phase),
}


@pytest.mark.parametrize("what", list(CORRUPTIONS))
def test_each_decision_check_catches_a_corrupted_state(what):
    check, corrupt = CORRUPTIONS[what]
    game = Game(get_rules("standard", 3), seed=11)
    game.play_to_round_end()  # a state in the second round, some cards on the pile
    game.next_round()
    for _ in range(5):
        assert game.check() is None
        game.step()
    assert game.check() is None
    corrupt(game)
    assert game.check() == check


def _round_end(rules, seed=2):
    game = Game(rules, seed=seed)
    res, seat = game.play_to_round_end()
    assert game.check_round(res, seat) is None
    return game, res, seat


def test_a_total_changed_wrongly_at_a_round_end_is_caught():
    game, res, seat = _round_end(get_rules("standard", 3))
    p = int(np.argmax(res.points[0]))
    assert res.points[0, p] > 0
    for arr in (game.st.scores, res.scores, res.score_delta):
        arr[0, p] += 1
    assert game.check_round(res, seat) == "totals"


def test_wrong_round_points_are_caught():
    game, res, seat = _round_end(get_rules("standard", 3))
    res.points[0, (seat + 1) % 3] += 1
    assert game.check_round(res, seat) == "round_points"
    res.points[0, (seat + 1) % 3] -= 1
    res.hand_totals[0, seat] += 1  # a caller's hand total that is not the hand's value
    assert game.check_round(res, seat) == "round_points"


def test_a_missed_milestone_is_caught():
    """A call that lands the other seat on exactly 100 in ``standard``: the engine halves
    it to 50; a state and result that kept 100 break the totals check."""
    rules = get_rules("standard", 2)
    game = Game(rules, seed=5)
    while True:
        assert game.check() is None
        caller = int(game.eng.current[0])
        if game.eng.phase[0] == engine.DISCARD and game.values[caller] <= rules.call_max < game.values[1 - caller]:
            break  # the greedy player calls and wins: the other seat scores its hand
        res, seat = game.step()
        if res.round_over[0]:
            assert game.check_round(res, seat) is None and not game.eng.done[0]
            game.next_round()
    other = 1 - caller
    game.st.scores[0, other] = game.round_scores[other] = 100 - game.values[other]
    assert game.check() is None
    res, seat = game.step()
    assert seat == caller and res.points[0, other] == game.values[other]
    assert game.check_round(res, seat) is None and res.scores[0, other] == 50
    for arr in (game.st.scores, res.scores):
        arr[0, other] = 100  # the milestone missed
    res.score_delta[0, other] = game.values[other]
    assert game.check_round(res, seat) == "totals"


def test_an_elimination_or_game_end_missed_is_caught():
    game, res, seat = _round_end(get_rules("standard", 3))
    res.game_over[0] = True  # the engine says the game ended, nobody passed 200
    assert game.check_round(res, seat) == "limits"


PLANTED = {
    # the engine's step reads these tables; the checks read the rules
    "milestone never applied": ("standard", {}, T.R_MILESTONE, 0, "totals"),
    "a joker short in the deal": ("standard", {}, T.R_JOKERS_PER_DECK, 1, "cards"),
    "a card too many in each hand": ("standard", {}, T.R_HAND_SIZE, 6, "hand_sizes"),
    "a wrong penalty": ("standard", {}, T.R_PENALTY, 29, "round_points"),
    "the turn limit ignored": ("standard", {"turn_limit": 6}, T.R_TURN_LIMIT, 400, "limits"),
    "the score limit ignored": ("seven", {}, T.R_SCORE_LIMIT, 10_000, "limits"),
}


@pytest.mark.parametrize("what", list(PLANTED))
def test_a_bug_planted_in_the_step_is_reported_by_its_check(what):
    preset, options, field, value, check = PLANTED[what]
    rules = get_rules(preset, 3).replace(**options)
    good = tables(rules)
    bad = good._replace(rules=good.rules.copy())
    bad.rules[field] = value
    result = play_batch(rules, 40, key=9, kernel_tables=bad)
    assert check in result.violations, result.violations
    assert result.found and result.found[0]["check"] == check
    assert result.found[0]["game_key"] > 0 and result.found[0]["players"] == 3
    assert play_batch(rules, 40, key=9).violations == {}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_sweep_small(preset):
    summary = sweep_preset(preset, CI_GAMES, seed=3, batch_games=CI_GAMES // 2)
    assert sorted(summary.batches) == [0, 1] and summary.counts["games"] == CI_GAMES and summary.violations == {}
    c = summary.counts
    assert c["rounds"] >= CI_GAMES and c["decisions"] > 50 * CI_GAMES
    assert c["yaniv"] + c["empty_hand"] + c["draw"] + c["truncated"] == c["rounds"]


def test_the_sweep_depends_on_the_seed_only():
    one = sweep_preset("seven", 60, seed=8, batch_games=20)
    two = sweep_preset("seven", 60, seed=8, batch_games=20, workers=2)
    other = sweep_preset("seven", 60, seed=9, batch_games=20)
    assert one.counts == two.counts and one.players == two.players
    assert one.counts != other.counts


def test_batches_draw_players_and_house_options():
    drawn = [draw_rules("french", np.random.default_rng([0, i])) for i in range(60)]
    assert {r.num_players for r in drawn} == {2, 3, 4, 5}
    for option in HOUSE_OPTIONS:
        assert len({getattr(r, option) for r in drawn}) > 1, option
    assert any(r.turn_limit < 400 for r in drawn) and any(r.round_limit < 500 for r in drawn)
    assert all(r.jokers_per_deck == 0 and r.milestone == "subtract" for r in drawn)  # the preset stays
    two = [draw_rules("two_deck", np.random.default_rng([1, i])) for i in range(40)]
    assert all(not r.blast for r in two if r.num_decks == 2)


def test_command_prints_and_writes_json(tmp_path, capsys):
    out = tmp_path / "sweep.json"
    assert main(["--games", "30", "--presets", "seven", "--batch-games", "15", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "seven: 30 games" in text and "violations 0" in text and "all presets: 30 games" in text
    report = json.loads(out.read_text())
    assert report["total"]["games"] == 30 and report["total"]["violations"] == 0
    assert report["presets"][0]["batches"] == [0, 1] and report["checks"] == list(CHECKS)
    # a resumed run plays only the batches not done (here none), and only with the same games
    args = ["--presets", "seven", "--batch-games", "15", "--json", str(out), "--resume"]
    assert main(["--games", "30", *args]) == 0
    assert json.loads(out.read_text())["presets"][0]["batches"] == [0, 1]
    with pytest.raises(SystemExit):
        main(["--games", "45", *args])


@pytest.mark.slow
@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_million_games_per_preset(preset):
    summary = sweep_preset(preset, 1_000_000, seed=0, workers=2, batch_games=5000)
    assert summary.counts["games"] == 1_000_000 and summary.violations == {}
