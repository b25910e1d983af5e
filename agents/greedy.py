"""The greedy baseline."""

from __future__ import annotations

import numpy as np

from yaniv_env import Rules
from yaniv_env.cards import YANIV_VALUE

from .common import (
    ASAF,
    ASAF_PHASE,
    BLAST,
    BLAST_PHASE,
    CALL_YANIV,
    DISCARD_BASE,
    DISCARD_PHASE,
    DRAW_PHASE,
    DRAW_STOCK,
    PASS,
    SLAM,
    SLAM_PHASE,
    TAKE_BASE,
    AgentBase,
    hand_total,
)
from .streams import agent_key, below, decision_words


class GreedyAgent(AgentBase):
    """Throws the most points it can, every turn, and calls Yaniv at the first chance.

    *Discard*: the legal discard removing the most points from the hand (ties: more
    cards, then a random one: ``below(word, ties)``, ``word`` the agent's per-decision word
    for the observation, :mod:`agents.streams`). *Draw*: takes a card from the previous discard only if
    it is low (value ≤ ``take_max``, 3 by default) or completes a set or run with the cards
    left in hand (then the one that does, the lowest first); otherwise draws from the
    stock. *Call*: Yaniv as soon as the hand total allows it. *Slam*: always. *Asaf* (001):
    declared when its hand is at most the call limit, i.e. no more than the most a caller
    can hold. *Blast* (001): always. It ignores everything the opponents do.
    """

    name = "greedy"

    def __init__(
        self,
        seed: int | None = None,
        rules: str | Rules = "standard",
        num_players: int | None = None,
        take_max: int = 3,
        **options,
    ):
        if options:
            raise TypeError(f"unknown greedy options: {', '.join(sorted(options))}; known: take_max")
        super().__init__(seed, rules, num_players)
        self.take_max = take_max
        self.key = agent_key(seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.key = agent_key(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        info = self.info(observation, action_mask)
        legal = info.legal
        ctx = info.ctx
        if info.phase == DISCARD_PHASE:
            if CALL_YANIV in legal:
                return CALL_YANIV
            best, best_key = [], None
            for a in legal:
                if a < DISCARD_BASE:
                    continue
                i = a - DISCARD_BASE
                key = (ctx.disc_value[i], ctx.disc_size[i])
                if best_key is None or key > best_key:
                    best, best_key = [a], key
                elif key == best_key:
                    best.append(a)
            if best:
                if len(best) == 1:
                    return best[0]
                return best[int(below(decision_words(self.key, observation)[0], len(best)))]
        elif info.phase == DRAW_PHASE:
            takes = [a for a in legal if TAKE_BASE <= a < DISCARD_BASE]
            hand = info.hand
            completing = []
            low = []
            for a in takes:
                c = a - TAKE_BASE
                if any(c in ctx.disc_cards[m - DISCARD_BASE] for m in ctx.meld_ids([*hand, c])):
                    completing.append(a)
                elif YANIV_VALUE[c] <= self.take_max:
                    low.append(a)
            for group in (completing, low):
                if group:
                    return min(group, key=lambda a: (YANIV_VALUE[a - TAKE_BASE], a))
            if DRAW_STOCK in legal:
                return DRAW_STOCK
        elif info.phase == SLAM_PHASE:
            if SLAM in legal:
                return SLAM
        elif info.phase == ASAF_PHASE:
            if ASAF in legal and hand_total(info.hand) <= ctx.rules.call_max:
                return ASAF
            if PASS in legal:
                return PASS
        elif info.phase == BLAST_PHASE and BLAST in legal:
            return BLAST
        return legal[0]
