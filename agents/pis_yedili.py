"""Pis Yedili baselines: the uniform random agent and a rule-of-thumb heuristic.

Registered as ``pis_random`` and ``pis_heuristic`` (``agents.make("pis_heuristic",
rules=..., seed=...)``). Like every agent they follow :class:`agents.base.Policy` and read
only the observation vector (:class:`yaniv_env.pis_yedili.observation.PisObservationLayout`,
from the acting seat) and the action mask (ids of :mod:`yaniv_env.pis_yedili.actions`).
The player count is taken from the observation's length, so one agent object plays any
table size of its rule set.

:class:`PisHeuristicAgent`, in order:

* go out when a play empties the hand;
* facing sevens, pass them on with a 7 (drawing 3 per 7 is the worst thing that can happen);
* when the next player is about to go out (``threat`` cards or fewer), stop them: a 7
  (draw 3 or answer), an 8 (skip them), a 10 with three or more players (reverse away
  from them, unless the other neighbour is as close to going out);
* otherwise shed: every non-Jack play scores its penalty value (high cards first), plus
  the cards of the hand it leaves playable next turn (prefers staying in, or changing to,
  a suit it holds many of), plus a bonus for an 8 that gives it another turn (two
  players) or skips a threatening player, an Ace it can follow up, a 10 that turns play
  away from the closer-to-out neighbour;
* keep Jacks for when nothing else plays (or to go out on them: ×2), and name the suit it
  holds most of (then the most points);
* after an Ace, follow up with a non-Jack card when it has one, else pass;
* without a play, draw once, then pass (never draw when a card can be played).

``yaniv eval --game pis_yedili --agents pis_heuristic,pis_random --games 400`` plays the
ladder (heuristic against random, 2 players, seats swapped on every deal) with confidence
intervals.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from yaniv_env.core.cards import RANK, SUIT
from yaniv_env.pis_yedili import Rules, get_rules
from yaniv_env.pis_yedili.actions import DRAW, DRAW_PENALTY, JACK_BASE, PASS, card_of
from yaniv_env.pis_yedili.engine import ACE_PHASE, OPENING, SEVEN_PHASE
from yaniv_env.pis_yedili.observation import PisObservationLayout, players_from_size

from .base import RandomAgent

ACE, SEVEN, EIGHT, TEN, JACK = 0, 6, 7, 9, 10

#: The random baseline is the game-agnostic :class:`agents.base.RandomAgent`.
PisRandomAgent = RandomAgent

#: Tunable weights of :class:`PisHeuristicAgent` (override any with a keyword option).
DEFAULTS = {
    # the next player is "about to go out" with this many cards or fewer
    "threat": 2,
    # weight of each card of the hand left playable after the play (suit/rank flexibility)
    "follow": 4.0,
    # bonus of an 8 with two players (another turn) when a card can follow it
    "extra_turn": 12.0,
    # bonus of an Ace that can be followed up
    "ace_follow": 10.0,
    # bonus of a 7 (the next player draws 3 unless it holds a 7)
    "seven_attack": 6.0,
    # bonus per card of difference when an 8 skips / a 10 reverses away from the closer
    # neighbour (three or more players)
    "turn_away": 3.0,
}


@lru_cache(maxsize=32)
def _layout(rules: Rules, n: int) -> PisObservationLayout:
    return PisObservationLayout(rules.with_players(n))


class PisHeuristicAgent:
    """Rule-of-thumb Pis Yedili player (see the module docstring)."""

    name = "pis_heuristic"

    def __init__(
        self, seed: int | None = None, rules: str | Rules = "standard", num_players: int | None = None, **weights
    ):
        unknown = set(weights) - set(DEFAULTS)
        if unknown:
            raise TypeError(f"unknown PisHeuristicAgent options {sorted(unknown)}; options: {', '.join(DEFAULTS)}")
        self.rules = get_rules(rules)
        self.num_players = num_players
        self.w = {**DEFAULTS, **weights}
        self.rng = np.random.default_rng(seed)
        self.values = self.rules.rank_values

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    # -- reading the observation -----------------------------------------------------------
    def _read(self, obs: np.ndarray) -> dict:
        n = self.num_players or players_from_size(obs.size)
        view = _layout(self.rules, n).decode(obs)
        clockwise = view.clockwise
        return {
            "n": n,
            "hand": list(view.hand),
            "phase": view.phase,
            "sizes": list(view.hand_sizes),
            "next": 1 % n if clockwise else n - 1,
            "prev": n - 1 if clockwise else 1 % n,
            "after_next": 2 % n if clockwise else (n - 2) % n,
        }

    # -- deciding ------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask).tolist()
        if not legal:
            raise ValueError("the action mask allows no action")
        if len(legal) == 1:
            return legal[0]
        info = self._read(np.asarray(observation))
        hand = info["hand"]
        plays = [a for a in legal if a > DRAW_PENALTY]
        # go out whenever possible (a single card left that plays)
        if len(hand) == 1 and plays:
            return self._best_jack(plays, hand) if plays[0] >= JACK_BASE else plays[0]
        phase = info["phase"]
        if phase == SEVEN_PHASE:
            return self._best(plays, info) if plays else DRAW_PENALTY
        if not plays:
            return PASS if PASS in legal else DRAW
        plain = [a for a in plays if RANK[card_of(a)] != JACK or a < JACK_BASE]
        if phase == OPENING:
            return self._best(plays, info, opening=True)
        if phase == ACE_PHASE and not plain:
            return PASS
        if plain:
            threat = self._threat_play(plain, info)
            if threat is not None:
                return threat
            return self._best(plain, info)
        return self._best_jack(plays, hand)

    def _threat_play(self, plays: list[int], info: dict) -> int | None:
        """A play that stops the next player from going out, if it is about to."""
        sizes, n = info["sizes"], info["n"]
        nxt = sizes[info["next"]]
        if nxt > self.w["threat"]:
            return None
        by_rank: dict[int, list[int]] = {}
        for a in plays:
            by_rank.setdefault(RANK[card_of(a)], []).append(a)
        for rank in (SEVEN, EIGHT):
            if rank in by_rank:
                return self._best(by_rank[rank], info)
        if TEN in by_rank and n >= 3 and sizes[info["prev"]] > nxt:
            return self._best(by_rank[TEN], info)
        return None

    def _score(self, action: int, info: dict, opening: bool) -> float:
        w = self.w
        card = card_of(action)
        rank, suit = RANK[card], SUIT[card]
        rest = [k for k in info["hand"] if k != card]
        score = float(self.values[rank])
        # cards of the hand that will still play on this card next turn (Jacks always do)
        follow = sum(1 for k in rest if RANK[k] != JACK and (SUIT[k] == suit or RANK[k] == rank))
        score += w["follow"] * follow
        if opening:
            return score - (self.values[rank] if rank in (SEVEN, JACK) else 0.0)  # keep their power
        n, sizes = info["n"], info["sizes"]
        nxt, prev = sizes[info["next"]], sizes[info["prev"]]
        if rank == SEVEN:
            score += w["seven_attack"]
        elif rank == EIGHT:
            if n == 2:
                score += w["extra_turn"] if follow or any(RANK[k] == JACK for k in rest) else 0.0
            else:
                score += w["turn_away"] * max(0, sizes[info["after_next"]] - nxt)
        elif rank == TEN and n >= 3:
            score += w["turn_away"] * (prev - nxt)
        elif rank == ACE and follow:
            score += w["ace_follow"]
        if len(rest) == 1 and RANK[rest[0]] in (SEVEN, JACK):
            score += 15.0  # go out next turn on a multiplier card
        return score

    def _best(self, plays: list[int], info: dict, opening: bool = False) -> int:
        scores = [self._score(a, info, opening) for a in plays]
        top = max(scores)
        best = [a for a, s in zip(plays, scores, strict=True) if s == top]
        return best[0] if len(best) == 1 else int(best[self.rng.integers(len(best))])

    def _best_jack(self, plays: list[int], hand: list[int]) -> int:
        """A Jack naming the suit the hand (without the Jack) holds most of, then most points."""
        jacks = [a for a in plays if a >= JACK_BASE]
        if not jacks:
            return plays[0]
        held = [0.0] * 4
        for k in hand:
            if RANK[k] != JACK:
                held[SUIT[k]] += 100.0 + self.values[RANK[k]]
        return max(jacks, key=lambda a: (held[(a - JACK_BASE) % 4], -a))


__all__ = ["DEFAULTS", "PisHeuristicAgent", "PisRandomAgent"]
