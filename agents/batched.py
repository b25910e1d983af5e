"""Batched agents: one call decides for a whole batch of observations.

``act_batch(observations [B, S], masks [B, A], keys=None) -> actions [B]`` (``int64``)
makes, row by row, exactly the decision the scalar agent's ``act`` makes on that row:

=================  =========================================  ===========================
batched            scalar                                     how
=================  =========================================  ===========================
BatchedRandom      ``random`` (:class:`agents.base.RandomAgent`)  vectorised NumPy
BatchedGreedy      ``greedy`` (:class:`agents.greedy.GreedyAgent`) Numba (nopython, cached)
BatchedHeuristic   ``heuristic``                              Numba (nopython, cached)
BatchedTrained     ``agents.load(...)`` (advised included)    one forward pass
ScalarLoop         any object with ``act``                    ``act`` per row
=================  =========================================  ===========================

``keys`` (one agent key per row, :func:`agents.streams.agent_key`) stands for one scalar
agent per row: row ``i`` decides as a scalar agent seeded so that its key is ``keys[i]``
(the random and greedy agents draw from their key and the observation only,
:mod:`agents.streams`); without it every row uses the batched agent's own key. The
others ignore ``keys``. :func:`batched` turns any agent (a name or an object) into a
batched one.

Rows whose mask allows nothing get ``-1`` (a finished game's final observation); the
scalar agents raise on them instead.
"""

from __future__ import annotations

import copy
from functools import lru_cache

import numba
import numpy as np

from yaniv_env import Rules
from yaniv_env.actions import (
    ASAF,
    BLAST,
    CALL_YANIV,
    DISCARD_BASE,
    DRAW_STOCK,
    PASS,
    SLAM,
    TAKE_BASE,
    action_table,
)
from yaniv_env.cards import NUM_KINDS, YANIV_VALUE
from yaniv_env.core.seeding import GOLDEN
from yaniv_env.observation import ObservationLayout
from yaniv_env.vector.kernels import pick_legal

from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .heuristic_batched import _eight, first_legal, heuristic_batch, heuristic_tables, weights
from .streams import agent_key

__all__ = ["BatchedRandom", "BatchedGreedy", "BatchedHeuristic", "BatchedTrained", "ScalarLoop", "batched"]


def _as_batch(observations, masks) -> tuple[np.ndarray, np.ndarray]:
    obs = np.ascontiguousarray(np.asarray(observations, dtype=np.float32))
    m = np.ascontiguousarray(np.asarray(masks).astype(np.bool_, copy=False))
    if obs.ndim != 2 or m.ndim != 2 or obs.shape[0] != m.shape[0]:
        raise ValueError(
            f"act_batch takes observations [B, S] and masks [B, A] with the same B; got {obs.shape} and {m.shape}"
        )
    return obs, m


_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(GOLDEN)


@numba.njit(cache=True)
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True)
def _words_kernel(keys, bits, out):
    for b in range(bits.shape[0]):
        total = np.uint64(0)
        for j in range(bits.shape[1]):
            total += _mix(bits[b, j] + _GOLDEN * np.uint64(j + 1))
        out[b] = _mix(total ^ keys[b])


def batch_words(keys: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """:func:`agents.streams.decision_words` compiled (the same formula, for whole batches)."""
    if obs.shape[1] % 2:
        obs = np.concatenate([obs, np.zeros((obs.shape[0], 1), np.float32)], axis=1)
    out = np.empty(len(obs), dtype=np.uint64)
    _words_kernel(np.ascontiguousarray(keys, dtype=np.uint64), np.ascontiguousarray(obs).view(np.uint64), out)
    return out


def _row_keys(keys, own_key: int, size: int) -> np.ndarray:
    if keys is None:
        return np.full(size, own_key, dtype=np.uint64)
    k = np.asarray(keys, dtype=np.uint64)
    return np.broadcast_to(k, (size,)) if k.ndim == 0 else k


class BatchedRandom:
    """:class:`agents.base.RandomAgent` on a batch: the ``below(word, n)``-th legal action."""

    name = "random"

    def __init__(self, seed: int | None = None, **_: object):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.key = agent_key(seed)

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        obs, m = _as_batch(observations, masks)
        out = np.empty(len(obs), dtype=np.int64)
        pick_legal(m, batch_words(_row_keys(keys, self.key, len(obs)), obs), out)
        return out


# -- greedy --------------------------------------------------------------------------------


class _GreedyTables:
    """What the greedy kernel reads for one rule set and player count."""

    def __init__(self, rules: Rules):
        table = action_table(rules)
        layout = ObservationLayout(rules)
        discards = table.discards
        self.hand_start = layout.pieces["hand"].start
        self.phase_start = layout.pieces["phase"].start
        self.disc_value = np.array([sum(YANIV_VALUE[k] for k in d.cards) for d in discards], dtype=np.int64)
        self.disc_size = np.array([len(d.cards) for d in discards], dtype=np.int64)
        self.disc_counts = np.zeros((len(discards), NUM_KINDS), dtype=np.int64)
        self.disc_cards = np.zeros((len(discards), max(len(d.cards) for d in discards)), dtype=np.int64)
        for i, d in enumerate(discards):
            self.disc_cards[i, : len(d.cards)] = d.cards
            for k in d.cards:
                self.disc_counts[i, k] += 1
        # melds_with[c, :n_melds_with[c]]: discards of more than one card that contain card c
        rows = [[i for i, d in enumerate(discards) if len(d.cards) > 1 and c in d.cards] for c in range(NUM_KINDS)]
        self.n_melds_with = np.array([len(r) for r in rows], dtype=np.int64)
        self.melds_with = np.full((NUM_KINDS, max(1, self.n_melds_with.max())), -1, dtype=np.int64)
        for c, r in enumerate(rows):
            self.melds_with[c, : len(r)] = r
        self.card_value = np.array(YANIV_VALUE, dtype=np.int64)
        self.call_max = rules.call_max


@lru_cache(maxsize=64)
def _greedy_tables(rules: Rules) -> _GreedyTables:
    return _GreedyTables(rules)


@numba.njit(cache=True)
def _greedy_kernel(
    obs, masks, words, use_words, take_max, hand_start, phase_start, disc_value, disc_size, disc_counts, disc_cards,
    melds_with, n_melds_with, card_value, call_max, out,
):  # fmt: skip
    """GreedyAgent.act for each row (see its docstring); a row whose discard has tied
    candidates gets -2 unless ``use_words`` (then ``below(words[b], ties)`` picks)."""
    B = obs.shape[0]
    A = masks.shape[1]
    hand = np.zeros(53, np.int64)
    best = np.zeros(A, np.int64)
    for b in range(B):
        first = first_legal(masks, b)
        if first < 0:
            out[b] = -1
            continue
        phase = 0
        for p in range(1, 5):
            if obs[b, phase_start + p] > obs[b, phase_start + phase]:
                phase = p
        total = 0
        for k in range(53):
            c = np.int64(np.rint(obs[b, hand_start + k]))
            hand[k] = c if c > 0 else 0
            total += hand[k] * card_value[k]
        act = first
        if phase == 0:
            if masks[b, CALL_YANIV]:
                act = CALL_YANIV
            else:
                nbest = 0
                bv = -1
                bs = -1
                for blk in range(DISCARD_BASE, A, 8):  # eight discards at a time: most are illegal
                    if blk + 8 <= A and _eight(masks, b, blk) == 0:
                        continue
                    for a in range(blk, min(blk + 8, A)):
                        if not masks[b, a]:
                            continue
                        i = a - DISCARD_BASE
                        v = disc_value[i]
                        s = disc_size[i]
                        if v > bv or (v == bv and s > bs):
                            bv = v
                            bs = s
                            nbest = 0
                        if v == bv and s == bs:
                            best[nbest] = a
                            nbest += 1
                if nbest == 1:
                    act = best[0]
                elif nbest > 1:
                    if use_words:
                        act = best[((words[b] >> np.uint64(32)) * np.uint64(nbest)) >> np.uint64(32)]
                    else:
                        act = -2
        elif phase == 1:
            best_complete = -1
            best_low = -1
            for a in range(TAKE_BASE, DISCARD_BASE):
                if not masks[b, a]:
                    continue
                c = a - TAKE_BASE
                hand[c] += 1
                completes = False
                for j in range(n_melds_with[c]):
                    d = melds_with[c, j]
                    fits = True
                    for j in range(disc_size[d]):  # the meld's cards (the other kinds need none)
                        k = disc_cards[d, j]
                        if disc_counts[d, k] > hand[k]:
                            fits = False
                            break
                    if fits:
                        completes = True
                        break
                hand[c] -= 1
                # takes are met in increasing id order: a strictly lower value wins (ties: lower id)
                if completes:
                    if best_complete < 0 or card_value[c] < card_value[best_complete - TAKE_BASE]:
                        best_complete = a
                elif card_value[c] <= take_max and (best_low < 0 or card_value[c] < card_value[best_low - TAKE_BASE]):
                    best_low = a
            if best_complete >= 0:
                act = best_complete
            elif best_low >= 0:
                act = best_low
            elif masks[b, DRAW_STOCK]:
                act = DRAW_STOCK
        elif phase == 2:
            if masks[b, SLAM]:
                act = SLAM
        elif phase == 3:
            if masks[b, ASAF] and total <= call_max:
                act = ASAF
            elif masks[b, PASS]:
                act = PASS
        elif masks[b, BLAST]:
            act = BLAST
        out[b] = act


class BatchedGreedy(GreedyAgent):
    """:class:`agents.greedy.GreedyAgent` that also decides on a batch (Numba kernel); its
    ``act`` is the scalar agent's."""

    def _run(self, obs, m, words, use_words, t: _GreedyTables) -> np.ndarray:
        out = np.empty(len(obs), dtype=np.int64)
        _greedy_kernel(
            obs, m, words, use_words, self.take_max, t.hand_start, t.phase_start, t.disc_value, t.disc_size,
            t.disc_counts, t.disc_cards, t.melds_with, t.n_melds_with, t.card_value, t.call_max, out,
        )  # fmt: skip
        return out

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        obs, m = _as_batch(observations, masks)
        if not len(obs):
            return np.empty(0, dtype=np.int64)
        t = _greedy_tables(self.context_for(obs[0]).rules)
        out = self._run(obs, m, np.zeros(len(obs), np.uint64), False, t)
        tied = np.flatnonzero(out == -2)
        if tied.size:  # hash only the observations whose decision draws
            words = batch_words(_row_keys(keys, self.key, len(obs))[tied], obs[tied])
            out[tied] = self._run(obs[tied], m[tied], words, True, t)
        return out


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
        obs, m = _as_batch(observations, masks)
        out = np.full(len(obs), -1, dtype=np.int64)
        for i in np.flatnonzero(m.any(axis=1)).tolist():
            out[i] = self._row_agent(i).act(obs[i], m[i])
        return out


class BatchedHeuristic(HeuristicAgent):
    """:class:`agents.heuristic.HeuristicAgent` that also decides on a batch: its policy
    compiled (:mod:`agents.heuristic_batched`, the same decisions bit for bit, with the
    agent's weights); its ``act`` is the scalar agent's. Rows the kernel hands back (-2, an
    inconsistent observation) are decided by ``act``. ``threads``: Numba threads to spread a
    batch's rows over (default 1; the same actions whatever the count, see
    :func:`agents.heuristic_batched.heuristic_batch` for when more help)."""

    #: Numba threads per call (opt-in, see :func:`agents.heuristic_batched.heuristic_batch`).
    threads: int = 1

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        obs, m = _as_batch(observations, masks)
        if not len(obs):
            return np.empty(0, dtype=np.int64)
        t = heuristic_tables(self.context_for(obs[0]).rules)
        if obs.shape[1] != t.size or m.shape[1] != t.num_actions:
            raise ValueError(
                f"observations [B, {obs.shape[1]}] and masks [B, {m.shape[1]}] do not match the "
                f"{t.rules.name!r} rules with {t.n} players ([B, {t.size}] and [B, {t.num_actions}])"
            )
        out = heuristic_batch(obs, m, t, weights(self.policy.options), self.threads)
        for b in np.flatnonzero(out == -2):
            out[b] = self.act(obs[b], m[b])
        return out


class BatchedTrained:
    """A trained agent (:func:`agents.load`) on a batch: one forward pass of its network for
    the whole batch (an advised model's advice comes from its advisor, batched). Its
    deterministic decisions are the arg-max of the masked logits, as ``act``; sampling
    (``deterministic=False``) draws row by row from the agent's generator."""

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name
        #: the advisor's batched version (``None``: not an advised model)
        self.advisor = batched(agent.advisor) if agent.advisor is not None else None

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)
        if self.advisor is not None:
            self.advisor.reset(seed)

    def logits(self, observations, masks) -> np.ndarray:
        """Masked logits ``[B, A]`` (``-inf`` where illegal)."""
        obs, m = _as_batch(observations, masks)
        agent = self.agent
        agent._check(obs, m)
        if self.advisor is not None:
            advice = np.maximum(self.advisor.act_batch(obs, m), 0).astype(np.float32)
            obs = np.concatenate([obs, advice[:, None]], axis=1)
        import torch

        from .networks import actor_logits

        with torch.no_grad():
            logits = actor_logits(agent.policy, torch.as_tensor(obs)).numpy().astype(np.float64)
        return np.where(m, logits, -np.inf)

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        logits = self.logits(observations, masks)
        legal = np.isfinite(logits).any(axis=1)
        if self.agent.deterministic:
            actions = logits.argmax(axis=1)
        else:
            rng = self.agent.rng
            z = np.exp(logits - np.where(legal, logits.max(axis=1), 0.0)[:, None])
            actions = np.array([rng.choice(r.size, p=r / r.sum()) if r.sum() > 0 else -1 for r in z])
        return np.where(legal, actions, -1).astype(np.int64)


def batched(agent, seed: int | None = None, rules: str | Rules = "standard", **options):
    """A batched agent: ``agent`` is a name (``agents.make``'s names, or a model path) or an
    agent object. Objects with ``act_batch`` are returned as they are; the random, greedy,
    heuristic and trained agents get their batched versions (same seed, rules and
    options); any other object with ``act`` is stepped row by row (:class:`ScalarLoop`)."""
    if hasattr(agent, "act_batch"):
        return agent
    if isinstance(agent, str):
        if agent == "random":
            return BatchedRandom(seed)
        if agent == "greedy":
            return BatchedGreedy(seed, rules=rules, **options)
        if agent == "heuristic":
            return BatchedHeuristic(seed, rules=rules, **options)
        import agents

        agent = agents.make(agent, seed=seed, rules=rules, **options)
        if hasattr(agent, "act_batch"):  # it decides for a batch itself (search_fast)
            return agent
    from .base import RandomAgent
    from .trained import TrainedAgent

    if isinstance(agent, RandomAgent):
        out = BatchedRandom()
        out.key = agent.key
        return out
    if isinstance(agent, GreedyAgent):
        out = BatchedGreedy(rules=agent.base_rules, num_players=agent.num_players, take_max=agent.take_max)
        out.key = agent.key
        return out
    if isinstance(agent, HeuristicAgent):
        out = BatchedHeuristic(rules=agent.base_rules, num_players=agent.num_players, **agent.policy.options)
        out.rng = agent.rng
        return out
    if isinstance(agent, TrainedAgent):
        return BatchedTrained(agent)
    if hasattr(agent, "act"):
        return ScalarLoop(agent)
    raise ValueError(f"cannot batch {agent!r}: give an agent name or an object with act() or act_batch()")
