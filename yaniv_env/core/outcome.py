"""Places, how a round (deal) ended for each seat, and the outcome reward of a place, in the
terms every game shares.

Each game's engine has ``outcome(state, result=None) -> Outcome`` (the one place that
says who placed where in a round and who left the game with it) and ``ranking(state)``
(the game's places); both count places with :func:`places`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def places(values: Sequence) -> list[int]:
    """Each seat's place (0 = first) when lower ``values`` rank first, ties sharing the
    better place: ``[3, 1, 3] -> [1, 0, 1]``. Values may be tuples (sort keys)."""
    return [sum(1 for q in values if q < v) for v in values]


@dataclass(frozen=True)
class Outcome:
    """How one round (deal) ended for each seat."""

    places: tuple[int | None, ...]
    """Each seat's place by the points it took in it, among the seats that played it
    (0 = first, ties share the better place; ``None`` for a seat that did not play)."""
    out: tuple[int, ...]
    """The seats that left the game with it, highest total first."""


def place_reward(place: int, players: int) -> float:
    """The outcome reward of finishing at ``place`` (0 = first) among ``players``:
    ``(n - 1 - 2·place) / (n - 1)``, +1 for the winner, -1 for the last."""
    return 1.0 if players < 2 else (players - 1 - 2 * place) / (players - 1)


__all__ = ["Outcome", "place_reward", "places"]
