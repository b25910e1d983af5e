"""Ratings of a league: OpenSkill and the player rating of the 002 rules.

Ratings
-------
:func:`league` rates the entrants with **OpenSkill** (``openskill.models.PlackettLuce``,
one update per game in game order, places as ranks; an entrant holding several seats of a
game is one team ranked by its mean place) and reports ``mu``, ``sigma`` and the
``ordinal`` (``mu - 3 sigma``). With ``rating="002"`` it also runs the player rating of
the 002 rules (see :func:`rating_002_deduction`): everyone starts at 1000; a player who goes
out loses the sum of the differences between its score and each player still in, divided
by (players in the game − players still in), never going below 0; each player still in
gains the difference between the score of the player who just went out and its own,
divided by the number of players still in; results are truncated to whole points, as in
the source's ``85 / 3 = 28``. Several players going out in the same round go out one by one,
highest score first. In ``first_to_limit`` games (``seven``, ``two_deck``) the players over
the limit at the end go out. The quitting penalty does not apply. Ratings depend on the
order of games, which is fixed by the deal seeds.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.evaluation.records import GameRecord


def _trunc_div(a: float, b: float) -> int:
    q = abs(a) // b
    return int(q if a >= 0 else -q)


def rating_002_deduction(out_score: int, still_in: Sequence[int], num_players: int) -> int:
    """Points a player going out with ``out_score`` loses (002): the sum of the differences
    to the scores of the players still in, divided by (players in the game − players still
    in), truncated. 002's example: ``rating_002_deduction(210, [167, 180, 155], 4) == 128``."""
    gone = num_players - len(still_in)
    if gone < 1:
        raise ValueError(f"{len(still_in)} players still in out of {num_players}: nobody went out")
    return _trunc_div(sum(out_score - s for s in still_in), gone)


def rating_002_addition(score: int, out_score: int, players_still_in: int) -> int:
    """Points a player still in with ``score`` gains when a player goes out with
    ``out_score`` (002): the difference divided by the number of players still in,
    truncated. 002's example: ``rating_002_addition(125, 210, 3) == 28`` (85 / 3)."""
    if players_still_in < 1:
        raise ValueError("nobody is still in")
    return _trunc_div(out_score - score, players_still_in)


def ratings_002(records: Sequence[GameRecord], labels: list[str], num_players: int, initial: int = 1000) -> dict:
    """The 002 player rating of each entrant after ``records`` (in order)."""
    rating = {lab: initial for lab in labels}
    for rec in records:
        for seat, score, still in rec.outs:
            lab = labels[rec.seats[seat]]
            rating[lab] = max(0, rating[lab] - rating_002_deduction(score, [s for _, s in still], num_players))
            for q, sq in still:
                other = labels[rec.seats[q]]
                rating[other] += rating_002_addition(sq, score, len(still))
    return rating


def ratings_openskill(records: Sequence[GameRecord], labels: list[str]) -> dict:
    """OpenSkill (Plackett-Luce) ratings after ``records`` (in order): ``mu``, ``sigma``,
    ``ordinal`` per entrant."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {lab: model.rating(name=lab) for lab in labels}
    for rec in records:
        entrants = sorted(set(rec.seats))
        if len(entrants) < 2:
            continue
        ranks = []
        for e in entrants:
            places = [rec.places[s] for s, x in enumerate(rec.seats) if x == e]
            ranks.append(sum(places) / len(places))
        teams = [[current[labels[e]]] for e in entrants]
        new = model.rate(teams, ranks=ranks)
        for e, team in zip(entrants, new, strict=True):
            current[labels[e]] = team[0]
    return {
        lab: {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())} for lab, r in current.items()
    }
