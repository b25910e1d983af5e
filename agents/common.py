"""Shared helpers of the baseline agents: observation decoding and the unseen cards.

An agent sees only its observation vector and action mask. :func:`decode` turns them into
an :class:`Info`, a small struct of public information from the agent's seat (seats are
*relative*: 0 is the agent, 1 the next player in turn order, ...), and :class:`AgentBase`
resolves the rules and the player count; :func:`unseen_counts` counts the cards the agent
cannot see (the search samples them).

Player count. The observation layout depends on the number of players (one ``known``
block per opponent and one entry per seat in the per-player pieces): its length is
``58·n + 294`` (one more under a fixed round count: ``rounds_left``). Agents take
``rules`` (a preset name or a :class:`yaniv_env.Rules`) and an optional ``num_players``;
when ``num_players`` is ``None`` the count is inferred from the length of each
observation, so one agent object can play any table size of its rule set.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from yaniv_env import Rules, get_rules
from yaniv_env.yaniv.actions import (
    ASAF,
    BLAST,
    CALL_YANIV,
    DISCARD_BASE,
    DRAW_STOCK,
    PASS,
    SLAM,
    TAKE_BASE,
    ActionTable,
    action_table,
)
from yaniv_env.yaniv.cards import NUM_KINDS, standard_deck
from yaniv_env.yaniv.observation import ObservationLayout, ObservationView

__all__ = [
    "AgentBase",
    "Context",
    "Info",
    "PHASES",
    "context",
    "decode",
    "legal_list",
    "num_players_from_obs",
    "unseen_counts",
    "DISCARD_PHASE",
    "DRAW_PHASE",
    "SLAM_PHASE",
    "ASAF_PHASE",
    "BLAST_PHASE",
    "ASAF",
    "BLAST",
    "CALL_YANIV",
    "DISCARD_BASE",
    "DRAW_STOCK",
    "PASS",
    "SLAM",
    "TAKE_BASE",
]

#: Decision phases in the order of the observation's ``phase`` one-hot.
PHASES = ("discard", "draw", "slam", "asaf", "blast")
DISCARD_PHASE, DRAW_PHASE, SLAM_PHASE, ASAF_PHASE, BLAST_PHASE = range(5)


#: The player count of an observation vector of length ``size`` (``58·n + 294``, or 295).
num_players_from_obs = ObservationLayout.players_from_size


class Context:
    """Tables derived from one rule set (with its player count), shared by all agents.

    Build it with :func:`context` (cached). ``move_key[i]`` is the move of discard entry ``i``
    (id ``DISCARD_BASE + i``): its cards, sorted.
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        self.n = rules.num_players
        self.table: ActionTable = action_table(rules)
        self.layout = ObservationLayout(rules)
        self.deck_counts = [0] * NUM_KINDS
        for k in standard_deck(rules.jokers_per_deck, rules.num_decks):
            self.deck_counts[k] += 1
        # a move's key (its sorted cards): the discards with the same key are layouts of one move
        self.move_key = [tuple(sorted(d.cards)) for d in self.table.discards]


@lru_cache(maxsize=64)
def context(rules: Rules) -> Context:
    return Context(rules)


@dataclass(frozen=True)
class Info(ObservationView):
    """Public information from the acting seat (relative seats: 0 = me, 1 = next, ...): the
    observation's fields (:class:`yaniv_env.yaniv.observation.ObservationView`: ``phase``, 0
    discard, 1 draw, 2 slam, 3 asaf, 4 blast, see :data:`PHASES`; ``hand``; ``known``...),
    the rules' tables and the legal actions."""

    ctx: Context
    legal: list[int]

    @property
    def n(self) -> int:
        return self.ctx.n

    @property
    def rules(self) -> Rules:
        return self.ctx.rules

    def opponents(self) -> list[int]:
        """Relative seats of the opponents still in the game, in turn order."""
        return [r for r in range(1, self.ctx.n) if self.alive[r]]


def legal_list(action_mask: np.ndarray) -> list[int]:
    """The legal action ids of a mask, sorted."""
    legal = np.flatnonzero(np.asarray(action_mask)).tolist()
    if not legal:
        raise ValueError("the action mask allows no action")
    return legal


def decode(ctx: Context, observation: np.ndarray, action_mask: np.ndarray) -> Info:
    """The :class:`Info` of an observation vector (and its mask) under ``ctx``'s rules
    (the layout's :meth:`~yaniv_env.yaniv.observation.ObservationLayout.decode`)."""
    if len(action_mask) != ctx.table.num_actions:
        raise ValueError(
            f"action mask of length {len(action_mask)} does not match the {ctx.rules.name!r} rules with "
            f"{ctx.n} players ({ctx.table.num_actions} actions)"
        )
    return ctx.layout.decode(observation, Info, ctx=ctx, legal=legal_list(action_mask))


def unseen_counts(info: Info) -> list[int]:
    """Count per card kind of the cards I cannot see: the deck minus my hand, the
    opponents' known cards, the previous discard, my pending set and the cards out of play.
    They are the opponents' unknown cards and the stock."""
    c = list(info.ctx.deck_counts)
    for group in (info.hand, info.top, info.pending, info.out_of_play):
        for k in group:
            c[k] -= 1
    for ks in info.known:
        for k in ks:
            c[k] -= 1
    for k in range(NUM_KINDS):
        if c[k] < 0:  # inconsistent input; never negative
            c[k] = 0
    return c


class AgentBase:
    """Rules, player count, seeding and decoding shared by the baseline agents.

    ``rules``: a preset name or a :class:`yaniv_env.Rules`. ``num_players``: the table
    size; ``None`` (default) infers it from each observation's length, so the agent plays
    any table size of its rule set (the preset's other options are kept).
    """

    name = "base"

    def __init__(self, seed: int | None = None, rules: str | Rules = "standard", num_players: int | None = None):
        self.base_rules = get_rules(rules)
        self.num_players = num_players
        self._contexts: dict[int, Context] = {}
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's generator (and forget any plan)."""
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def context_for(self, observation: np.ndarray) -> Context:
        n = self.num_players or num_players_from_obs(len(observation))
        ctx = self._contexts.get(n)
        if ctx is None:
            ctx = self._contexts[n] = context(get_rules(self.base_rules, n))
        return ctx

    def info(self, observation: np.ndarray, action_mask: np.ndarray) -> Info:
        return decode(self.context_for(observation), observation, action_mask)
