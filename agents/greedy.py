"""The greedy baseline, decided in one compiled kernel (:func:`_greedy_kernel`) for a whole
batch; the scalar ``act`` is a batch of one row."""

from __future__ import annotations

from functools import lru_cache

import numba
import numpy as np

from yaniv_env import Rules
from yaniv_env.core.streams import agent_key, decision_words
from yaniv_env.yaniv.actions import action_table
from yaniv_env.yaniv.cards import NUM_KINDS, YANIV_VALUE
from yaniv_env.yaniv.observation import ObservationLayout

from .common import (
    ASAF,
    ASAF_PHASE,
    BLAST,
    CALL_YANIV,
    DISCARD_BASE,
    DISCARD_PHASE,
    DRAW_PHASE,
    DRAW_STOCK,
    PASS,
    PHASES,
    SLAM,
    SLAM_PHASE,
    TAKE_BASE,
    AgentBase,
)
from .compiled import as_batch, compiled_once, decoded_phase, first_legal, legal_from, one_row, row_keys

NUM_PHASES = len(PHASES)

__all__ = ["GreedyAgent"]


class _GreedyTables:
    """What the greedy kernel reads for one rule set and player count."""

    def __init__(self, rules: Rules):
        table = action_table(rules)
        discards = table.discards
        self.rules = rules
        self.layout = ObservationLayout(rules)
        self.num_actions = table.num_actions
        self.hand_start = self.layout.pieces["hand"].start
        self.phase_start = self.layout.pieces["phase"].start
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


@numba.njit(cache=True, inline="always")
def _best_discards(masks, b, disc_value, disc_size, ids, best):
    """The legal discards of row ``b`` removing the most points (ties: the most cards) into
    ``best``, in id order; returns how many (``ids``: scratch)."""
    nbest = 0
    bv = -1
    bs = -1
    for j in range(legal_from(masks, b, DISCARD_BASE, ids)):
        a = ids[j]
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
    return nbest


@numba.njit(cache=True, inline="always")
def _completes(c, hand, disc_size, disc_counts, disc_cards, melds_with, n_melds_with):
    """Whether card ``c`` lays a discard of more than one card with ``hand`` (counts by kind,
    ``c`` included)."""
    for j in range(n_melds_with[c]):
        d = melds_with[c, j]
        fits = True
        for i in range(disc_size[d]):  # the meld's cards (the other kinds need none)
            k = disc_cards[d, i]
            if disc_counts[d, k] > hand[k]:
                fits = False
                break
        if fits:
            return True
    return False


@numba.njit(cache=True, inline="always")
def _draw(masks, b, hand, take_max, disc_size, disc_counts, disc_cards, melds_with, n_melds_with, card_value):
    """The draw of row ``b``: the lowest takeable card that completes a meld, else the lowest
    one worth at most ``take_max``, else the stock (ties: the lower id); -1 if none is legal."""
    best_complete = -1
    best_low = -1
    for a in range(TAKE_BASE, DISCARD_BASE):
        if not masks[b, a]:
            continue
        c = a - TAKE_BASE
        hand[c] += 1
        completes = _completes(c, hand, disc_size, disc_counts, disc_cards, melds_with, n_melds_with)
        hand[c] -= 1
        # takes are met in increasing id order: a strictly lower value wins (ties: lower id)
        if completes:
            if best_complete < 0 or card_value[c] < card_value[best_complete - TAKE_BASE]:
                best_complete = a
        elif card_value[c] <= take_max and (best_low < 0 or card_value[c] < card_value[best_low - TAKE_BASE]):
            best_low = a
    if best_complete >= 0:
        return best_complete
    if best_low >= 0:
        return best_low
    return DRAW_STOCK if masks[b, DRAW_STOCK] else -1


@numba.njit(cache=True)
def _greedy_kernel(
    obs, masks, words, use_words, take_max, hand_start, phase_start, disc_value, disc_size, disc_counts, disc_cards,
    melds_with, n_melds_with, card_value, call_max, out,
):  # fmt: skip
    """GreedyAgent's decision for each row (see its docstring); a row whose discard has tied
    candidates gets -2 unless ``use_words`` (then ``below(words[b], ties)`` picks); -1 where
    nothing is legal."""
    hand = np.zeros(NUM_KINDS, np.int64)
    best = np.zeros(masks.shape[1], np.int64)
    ids = np.zeros(masks.shape[1], np.int64)
    for b in range(obs.shape[0]):
        act = first_legal(masks, b)
        out[b] = act
        if act < 0:
            continue
        phase = decoded_phase(obs, b, phase_start, NUM_PHASES)
        total = 0
        for k in range(NUM_KINDS):
            c = np.int64(np.rint(obs[b, hand_start + k]))
            hand[k] = c if c > 0 else 0
            total += hand[k] * card_value[k]
        if phase == DISCARD_PHASE:
            if masks[b, CALL_YANIV]:
                act = CALL_YANIV
            else:
                nbest = _best_discards(masks, b, disc_value, disc_size, ids, best)
                if nbest == 1:
                    act = best[0]
                elif nbest > 1:
                    if use_words:
                        act = best[((words[b] >> np.uint64(32)) * np.uint64(nbest)) >> np.uint64(32)]
                    else:
                        act = -2
        elif phase == DRAW_PHASE:
            d = _draw(
                masks, b, hand, take_max, disc_size, disc_counts, disc_cards, melds_with, n_melds_with, card_value
            )
            if d >= 0:
                act = d
        elif phase == SLAM_PHASE:
            if masks[b, SLAM]:
                act = SLAM
        elif phase == ASAF_PHASE:
            if masks[b, ASAF] and total <= call_max:
                act = ASAF
            elif masks[b, PASS]:
                act = PASS
        elif phase < NUM_PHASES and masks[b, BLAST]:
            act = BLAST
        out[b] = act


class GreedyAgent(AgentBase):
    """Throws the most points it can, every turn, and calls Yaniv at the first chance.

    *Discard*: the legal discard removing the most points from the hand (ties: more
    cards, then a random one: ``below(word, ties)``, ``word`` the agent's per-decision word
    for the observation, :mod:`yaniv_env.core.streams`). *Draw*: takes a card from the previous discard only if
    it is low (value ≤ ``take_max``, 3 by default) or completes a set or run with the cards
    left in hand (then the one that does, the lowest first); otherwise draws from the
    stock. *Call*: Yaniv as soon as the hand total allows it. *Slam*: always. *Asaf* (001):
    declared when its hand is at most the call limit, i.e. no more than the most a caller
    can hold. *Blast* (001): always. It ignores everything the opponents do.

    It decides in a compiled kernel (:func:`_greedy_kernel`, Numba): :meth:`act_batch` for a
    batch of observations (``keys``: one agent key per row, :mod:`yaniv_env.core.streams`; ``-1``
    where nothing is legal), :meth:`act` for one (a batch of one row).
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

    def _tables(self, observation: np.ndarray) -> _GreedyTables:
        return _greedy_tables(self.context_for(observation).rules)

    def _run(self, obs, m, words, use_words, t: _GreedyTables) -> np.ndarray:
        compiled_once("the greedy agent", _greedy_kernel, lambda: self._warm_up(t))
        out = np.empty(len(obs), dtype=np.int64)
        _greedy_kernel(
            obs, m, words, use_words, self.take_max, t.hand_start, t.phase_start, t.disc_value, t.disc_size,
            t.disc_counts, t.disc_cards, t.melds_with, t.n_melds_with, t.card_value, t.call_max, out,
        )  # fmt: skip
        return out

    def _warm_up(self, t: _GreedyTables) -> None:
        obs = np.zeros((1, t.layout.size), np.float32)
        m = np.zeros((1, t.num_actions), np.bool_)
        _greedy_kernel(
            obs, m, np.zeros(1, np.uint64), False, self.take_max, t.hand_start, t.phase_start, t.disc_value,
            t.disc_size, t.disc_counts, t.disc_cards, t.melds_with, t.n_melds_with, t.card_value, t.call_max,
            np.empty(1, np.int64),
        )  # fmt: skip

    def _decide(self, obs: np.ndarray, m: np.ndarray, keys, t: _GreedyTables) -> np.ndarray:
        out = self._run(obs, m, np.zeros(len(obs), np.uint64), False, t)
        tied = np.flatnonzero(out == -2)
        if tied.size:  # hash only the observations whose decision draws
            words = decision_words(row_keys(keys, self.key, len(obs))[tied], obs[tied])
            out[tied] = self._run(obs[tied], m[tied], words, True, t)
        return out

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        t = self._tables(observation)
        obs, m = one_row(t.layout, t.num_actions, f"the {t.rules.name!r} rules with {t.rules.num_players} players",
                         observation, action_mask)  # fmt: skip
        return int(self._decide(obs, m, None, t)[0])

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        obs, m = as_batch(observations, masks)
        if not len(obs):
            return np.empty(0, dtype=np.int64)
        return self._decide(obs, m, keys, self._tables(obs[0]))
