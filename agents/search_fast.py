"""``search_fast`` and ``round_search``: the search with the full heuristic in its rollouts."""

from __future__ import annotations

import numpy as np

from .search import SearchAgent


class FastSearchAgent(SearchAgent):
    """:class:`agents.search.SearchAgent` rolling out with the *full* compiled heuristic
    instead of its ``lite`` variant (``rollout="full"``, which it does not take as an option):
    the same candidate plans, determinizations, values and choice rule, so its decisions
    are those of ``search`` with ``rollout="full"``. A batch of games is one call of
    :meth:`act_batch` (one generator for all rows). It is the imitation teacher
    (``yaniv train --pretrain search_fast``, which reads :attr:`~SearchAgent.searched_values`).

    Options: those of ``search`` (:data:`agents.search.SEARCH_DEFAULTS`) but ``rollout``,
    and the heuristic's (they weigh both the plans and the rollouts).
    """

    name = "search_fast"
    default_options = {"rollout": "full"}

    def __init__(
        self,
        seed: int | None = None,
        rules="standard",
        num_players: int | None = None,
        strict: bool | None = None,
        **options,
    ):
        if "rollout" in options:
            raise TypeError("search_fast rolls out with the compiled full heuristic: it takes no 'rollout' option")
        super().__init__(seed, rules, num_players, strict, **options)

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        """:meth:`~SearchAgent.act_rows`: one decision per row, row ``i`` being game ``i`` (``-1``
        where nothing is legal); ``keys`` is not used."""
        return self.act_rows(observations, masks)


class RoundSearchAgent(FastSearchAgent):
    """:class:`FastSearchAgent` playing to win the round in front of it, not the game: its
    rollouts score 1 for a round it wins and 0 otherwise (``value="round"``, no game
    term), with four times the default samples and a looser prior (``confidence=0.5``);
    any option given overrides these. It is the advisor for one-round training
    (``yaniv train --episode round --reward round_win --advice round_search``); what it
    wins: ``docs/experiments/2026-11-26-one-round-at-a-time.md``."""

    name = "round_search"
    default_options = {
        **FastSearchAgent.default_options,
        "value": "round",
        "game_weight": 0.0,
        "simulations": 80,
        "call_simulations": 120,
        "max_rollouts": 400,
        "confidence": 0.5,
    }
