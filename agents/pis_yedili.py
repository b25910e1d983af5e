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

``python -m agents.pis_yedili --games 400`` plays the ladder (heuristic against random,
2 players, seats swapped on every deal seed) and prints the win rate with its 95 % Wilson
interval; :func:`play_match` is the harness.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from yaniv_env.cards import RANK, SUIT
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
        lay = _layout(self.rules, n)
        pc = lay.pieces
        hs = self.rules.hand_size

        def piece(name: str) -> np.ndarray:
            return obs[pc[name].slice]

        sizes = [int(round(x * hs)) for x in piece("hand_sizes")]
        clockwise = piece("direction")[0] > 0.5
        return {
            "n": n,
            "hand": np.flatnonzero(piece("hand")).tolist(),
            "phase": int(np.argmax(piece("phase"))),
            "sizes": sizes,
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


# -- the ladder -------------------------------------------------------------------------------


def play_match(
    entrants: Sequence,
    games: int = 400,
    num_players: int = 2,
    rules: str | Rules = "standard",
    episode: str = "game",
    seed: int = 0,
) -> dict:
    """Play ``games`` games through the AEC ``raw_env``, seats rotated on every deal seed
    (entrant ``i`` at seat ``(i + r) % num_players`` in rotation ``r``; with two entrants
    and two players, seats swapped on the same cards). ``entrants`` are agent names (for
    ``agents.make``) or objects with ``act``; with fewer entrants than seats they repeat
    cyclically. Returns ``{"games", "wins", "win_rate", "places"}`` per entrant index (a
    win is first place, ties for first split)."""
    import agents
    from yaniv_env.pis_yedili import raw_env

    rules = get_rules(rules, num_players)
    k = len(entrants)
    policies = [agents.make(e, rules=rules) if isinstance(e, str) else e for e in entrants]
    env = raw_env(rules=rules, num_players=num_players, episode=episode, reward="outcome")
    played = [0] * k
    wins = [0.0] * k
    places = [0.0] * k
    g = 0
    deal_seed = seed
    while g < games:
        for r in range(num_players):
            if g >= games:
                break
            seats = [(s - r) % num_players % k for s in range(num_players)]  # seat -> entrant
            for s, e in enumerate(seats):
                if hasattr(policies[e], "reset"):
                    policies[e].reset(seed=deal_seed * 1000 + s)
            env.reset(seed=deal_seed)
            for agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                e = seats[env.possible_agents.index(agent)]
                env.step(int(policies[e].act(obs["observation"], obs["action_mask"])))
            if episode == "game":
                place = [sum(1 for q in env.game.scores if q < v) for v in env.game.scores]
            else:
                pts = env.game.deal_result.points
                place = [sum(1 for q in pts if q < v) for v in pts]
            firsts = place.count(0)
            for s, e in enumerate(seats):
                played[e] += 1
                places[e] += place[s]
                if place[s] == 0:
                    wins[e] += 1.0 / firsts
            g += 1
        deal_seed += 1
    return {
        "games": played,
        "wins": wins,
        "win_rate": [w / p if p else float("nan") for w, p in zip(wins, played, strict=True)],
        "mean_place": [q / p if p else float("nan") for q, p in zip(places, played, strict=True)],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.pis_yedili", description="Pis Yedili ladder: one agent against another, seats swapped."
    )
    parser.add_argument("--agents", default="pis_heuristic,pis_random", help="two agent names (default: %(default)s)")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--episode", default="game", choices=("game", "deal"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from training.evaluate import wilson

    names = args.agents.split(",")
    res = play_match(names, games=args.games, num_players=args.players, episode=args.episode, seed=args.seed)
    for i, label in enumerate(names):
        lo, hi = wilson(res["wins"][i], res["games"][i])
        print(
            f"{label:<16} games {res['games'][i]:>5}  wins {res['wins'][i]:>7.1f}  win rate {res['win_rate'][i]:.3f} "
            f"[95% Wilson {lo:.3f}, {hi:.3f}]  mean place {res['mean_place'][i]:.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["DEFAULTS", "PisHeuristicAgent", "PisRandomAgent", "play_match"]
