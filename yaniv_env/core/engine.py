"""What the games' scalar engines share: the fields every new game state starts from, the
error an illegal action raises (and its message), the legal-action mask and the scores.

Each game's engine (:mod:`yaniv_env.yaniv.engine`, :mod:`yaniv_env.pis_yedili.engine`) keeps
its state in a small ``State`` class with ``__slots__`` and changes it through functions;
:func:`blank_state` fills the fields they have in common, and the engine the rest. Each
engine re-exports :class:`IllegalActionError` and :func:`scores` as its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from .seeding import game_key

S = TypeVar("S")


def blank_state(state_class: type[S], rules, table, rng: np.random.Generator) -> S:
    """A ``state_class`` object (made without ``__init__``) holding what every game starts
    from: its ``rules`` and ``num_players``, its action ``table``, the game's ``key`` drawn
    from ``rng`` (:func:`yaniv_env.core.seeding.game_key`), no ``reshuffles``, zero
    ``scores`` and empty ``hands``. The engine sets its game's other fields."""
    s = state_class.__new__(state_class)
    n = rules.num_players
    s.rules = rules
    s.num_players = n
    s.table = table
    s.key = game_key(rng)
    s.reshuffles = 0
    s.scores = [0] * n
    s.hands = [[] for _ in range(n)]
    return s


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; the state is unchanged."""


def action_name(table, action) -> str:
    """``table.name(action)`` (``table``: the game's action table), or ``"not an action id"``
    where the table cannot name it: an error message naming an action never raises itself."""
    try:
        return table.name(action)
    except ValueError:
        return "not an action id"


def illegal_action(s, action: int, why: str) -> IllegalActionError:
    """The error for ``action``, which ``s.current`` may not play in the state ``s`` (a game's
    state with its action ``table`` and ``phase_name``), for the reason ``why``."""
    return IllegalActionError(
        f"illegal action {action} ({action_name(s.table, action)}) for player {s.current} "
        f"in the {s.phase_name} phase: {why}"
    )


def action_mask(legal: Sequence[int], num_actions: int) -> np.ndarray:
    """The action ids ``legal`` as an ``int8`` mask of length ``num_actions``."""
    mask = np.zeros(num_actions, dtype=np.int8)
    mask[legal] = 1
    return mask


def scores(s) -> list[int]:
    """Cumulative scores (a copy)."""
    return list(s.scores)


__all__ = ["IllegalActionError", "action_mask", "action_name", "blank_state", "illegal_action", "scores"]
