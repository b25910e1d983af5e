"""Batched agents: one call decides for a whole batch of observations.

``act_batch(observations [B, S], masks [B, A], keys=None) -> actions [B]`` (``int64``)
makes, row by row, exactly the decision the scalar agent's ``act`` makes on that row:

=================  ============================================  ===============================
batched            scalar                                        how
=================  ============================================  ===============================
BatchedRandom      ``random`` (:class:`agents.base.RandomAgent`)  vectorised NumPy
BatchedGreedy      ``greedy`` (the agent itself)                 its kernel (Numba, cached)
BatchedHeuristic   ``heuristic`` and its variants (the agent)    its kernel (Numba, cached)
BatchedTrained     ``agents.load(...)`` (advised included)       one forward pass
ScalarLoop         any object with ``act``                       ``act`` per row
=================  ============================================  ===============================

The greedy and heuristic agents decide in a kernel for a batch; their ``act`` runs it on
one row (``BatchedGreedy`` and ``BatchedHeuristic`` are their classes).

``keys`` (one agent key per row, :func:`yaniv_env.core.streams.agent_key`) stands for one scalar
agent per row: row ``i`` decides as a scalar agent seeded so that its key is ``keys[i]``
(the random and greedy agents draw from their key and the observation only,
:mod:`yaniv_env.core.streams`); without it every row uses the batched agent's own key. The
others ignore ``keys``. :func:`batched` turns any agent (a name or an object) into a
batched one.

Rows whose mask allows nothing get ``-1`` (a finished game's final observation); the
scalar agents raise on them instead.
"""

from __future__ import annotations

import copy
import sys

import numpy as np

from yaniv_env import Rules
from yaniv_env.core.batched_random import BatchedRandomPolicy as BatchedRandom
from yaniv_env.core.batched_random import batched_random

from .compiled import as_batch
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent

__all__ = ["BatchedRandom", "BatchedGreedy", "BatchedHeuristic", "BatchedTrained", "ScalarLoop", "batched"]


#: The greedy agent decides for a batch itself (its kernel); the name stays for the table above.
BatchedGreedy = GreedyAgent


# -- scalar fallbacks ------------------------------------------------------------------------


class ScalarLoop:
    """Any scalar agent on a batch: ``act`` row by row (``-1`` where nothing is legal).

    Row ``i`` is game ``i`` of the caller (a vector environment's slot), so each row has
    its own copy of the agent: an agent that remembers its game between decisions (the
    search's planned draw and the cards it took) keeps one memory per game. Row 0 is the
    agent itself; the others are copies of the agent as it was given (or last reset),
    made on first use, each reseeded from the agent's generator when the agent has
    ``reset`` and ``rng``."""

    def __init__(self, agent):
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self._agents = [agent]
        self._template = copy.deepcopy(agent)

    def reset(self, seed: int | None = None) -> None:
        if hasattr(self.agent, "reset"):
            self.agent.reset(seed)
        self._agents = [self.agent]
        self._template = copy.deepcopy(self.agent)

    @property
    def row_agents(self) -> list:
        """The agents of the rows that have acted so far (row ``i`` is ``row_agents[i]``)."""
        return list(self._agents)

    def _row_agent(self, i: int):
        while len(self._agents) <= i:
            clone = copy.deepcopy(self._template)
            if hasattr(clone, "reset") and hasattr(self.agent, "rng"):
                clone.reset(int(self.agent.rng.integers(1 << 62)))
            self._agents.append(clone)
        return self._agents[i]

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        obs, m = as_batch(observations, masks)
        out = np.full(len(obs), -1, dtype=np.int64)
        for i in np.flatnonzero(m.any(axis=1)).tolist():
            out[i] = self._row_agent(i).act(obs[i], m[i])
        return out


#: The heuristic agents decide for a batch themselves (their kernel); the name stays for the table above.
BatchedHeuristic = HeuristicAgent


class BatchedTrained:
    """A trained agent (:func:`agents.load`) on a batch: one forward pass of its network for
    the whole batch (an advised model's advice comes from its advisor, batched). It decides
    as the agent does, in the agent's own batch methods (``act`` is their batch of one row):
    the arg-max of the masked logits, or (``deterministic=False``) draws row by row from the
    agent's generator."""

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name
        #: the advisor, batched (``None``: not an advised model)
        self.advisor = agent.advisor

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)  # its advisor too

    def logits(self, observations, masks) -> np.ndarray:
        """Masked logits ``[B, A]`` (``-inf`` where illegal): the agent's
        :meth:`~agents.trained.TrainedAgent.logits_batch`."""
        return self.agent.logits_batch(observations, masks)

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        """One action per row (``-1`` where nothing is legal), decided by the agent's
        :meth:`~agents.trained.TrainedAgent.choose` (where its ``act`` decides, on one row);
        ``keys`` is not used."""
        return self.agent.choose(self.logits(observations, masks))


def batched(agent, seed: int | None = None, rules: str | Rules = "standard", **options):
    """A batched agent: ``agent`` is a name (``agents.make``'s names, or a model path) or an
    agent object. Objects with ``act_batch`` are returned as they are; the random, greedy,
    heuristic and trained agents get their batched versions (same seed, rules and
    options); any other object with ``act`` is stepped row by row (:class:`ScalarLoop`)."""
    if hasattr(agent, "act_batch"):
        return agent
    if isinstance(agent, str):
        if agent == "random":
            return batched_random(agent, seed)
        import agents

        agent = agents.make(agent, seed=seed, rules=rules, **options)
        if hasattr(agent, "act_batch"):  # it decides for a batch itself (greedy, heuristic, search_fast)
            return agent
    from .base import RandomAgent

    if isinstance(agent, RandomAgent):
        return batched_random(agent)
    # a trained agent exists only once its module (and torch) is loaded: never load them here
    trained = sys.modules.get("agents.trained")
    if trained is not None and isinstance(agent, trained.TrainedAgent):
        return BatchedTrained(agent)
    if hasattr(agent, "act"):
        return ScalarLoop(agent)
    raise ValueError(f"cannot batch {agent!r}: give an agent name or an object with act() or act_batch()")
