"""The heuristic baseline: hand evaluation with public-information risk estimates. The agents
(:class:`HeuristicAgent` and its variants) decide in the compiled kernel of
:mod:`agents.heuristic_batched`, which also gives the search its turn plans and rollouts."""

from __future__ import annotations

import numpy as np

from yaniv_env import Rules

from .base import checked_choice, strict_default
from .common import AgentBase
from .compiled import as_batch, one_row
from .heuristic_batched import (
    DEFAULTS,
    HeuristicTables,
    check_consistent,
    compile_once,
    heuristic_batch,
    heuristic_tables,
    weights,
)


class HeuristicAgent(AgentBase):
    """Plans each turn by the value of the hand it leads to, with risks read from public
    information.

    *Turn plan*: every legal discard is paired with every draw it allows (the stock or a
    takeable card of the previous discard) and scored by the resulting hand's cost: with
    probability ``p_end`` (the chance that an opponent can call before my next turn,
    from its known cards, hand size and the unseen cards) the round ends and the cost is
    the hand total; otherwise it is the hand's value after its best next discard plus
    ``mu`` per card still held, or the expected cost of calling with it. So pairs and run
    draws are kept (they leave a big discard for next turn), high cards are shed, a
    discard card is taken when it builds a set/run or lowers the hand, and the stock
    draw is the expectation over the unseen cards (cards that combine with the hand are
    evaluated exactly). A small penalty goes to discards that leave the next player a
    low card, a joker or a card that combines with what it is known to hold; where the
    rules let the discarder order a set (000 top card, 004 end cards) the layout leaving
    the least useful cards is chosen.

    *Call*: each opponent's hand total is a distribution: its known cards plus
    ``hand_size - len(known)`` cards drawn from the unseen pool, weighted towards low
    values more and more as the round goes on (players keep low cards; the weighting was
    fitted on self-play). Yaniv is called when the chance that some opponent is at or
    below my total is at most ``call_risk`` and the expected relative points (opponents'
    hands won vs. my hand plus the penalty lost) are positive. Where emptying the hand
    wins the round (001) and a discard does it, that discard comes first: it cannot be
    challenged. *Slam*: when it lowers the hand cost (almost always). *Asaf* (001): when
    ``P(win)·(my hand + the caller's hand + penalty)`` exceeds ``P(lose)·penalty``, the
    caller's total restricted to the call limit. *Blast*: always.

    It decides in one compiled kernel (:mod:`agents.heuristic_batched`, Numba): :meth:`act_batch`
    for a batch of observations (``-1`` where nothing is legal), :meth:`act` for one (a batch
    of one row). ``threads``: threads to spread a batch's rows over (default 1; the same
    actions whatever the count, see :func:`agents.heuristic_batched.heuristic_batch`).

    Options (keywords): see :data:`DEFAULTS` (others are a ``TypeError``). ``strict``: raise
    if the logic ever picks an illegal action (:mod:`agents.base`, strict mode).
    """

    name = "heuristic"
    #: Options this agent sets unless given (a variant's defaults).
    default_options: dict = {}
    #: Threads per :meth:`act_batch` call (opt-in, see :func:`agents.heuristic_batched.heuristic_batch`).
    threads: int = 1

    def __init__(
        self,
        seed: int | None = None,
        rules: str | Rules = "standard",
        num_players: int | None = None,
        strict: bool | None = None,
        **options,
    ):
        super().__init__(seed, rules, num_players)
        options = {**self.default_options, **options}
        unknown = set(options) - set(DEFAULTS)
        if unknown:
            raise TypeError(f"unknown heuristic options: {', '.join(sorted(unknown))}; known: {', '.join(DEFAULTS)}")
        #: the weights this agent plays with (:data:`DEFAULTS` overridden by its options)
        self.options = {**DEFAULTS, **options}
        self.weights = weights(self.options)
        self.strict = strict_default(strict)

    def _tables(self, observation: np.ndarray) -> HeuristicTables:
        return heuristic_tables(self.context_for(observation).rules)

    def _kernel(self, obs: np.ndarray, m: np.ndarray, t: HeuristicTables) -> np.ndarray:
        compile_once(t)
        return heuristic_batch(obs, m, t, self.weights, self.threads)

    def _decide(self, obs: np.ndarray, m: np.ndarray, t: HeuristicTables) -> np.ndarray:
        out = self._kernel(obs, m, t)
        check_consistent(out, t)
        for b in np.flatnonzero(out >= 0):
            if not m[b, out[b]]:  # never expected (the kernel picks among legal actions)
                out[b] = checked_choice(self.name, int(out[b]), np.flatnonzero(m[b]).tolist(), self.rng, self.strict)
        return out

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        t = self._tables(observation)
        obs, m = one_row(t.layout, t.num_actions, f"the {t.rules.name!r} rules with {t.n} players", observation,
                         action_mask)  # fmt: skip
        return int(self._decide(obs, m, t)[0])

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        """One action per row (``-1`` where nothing is legal); ``keys`` is not used (the
        heuristic does not draw)."""
        obs, m = as_batch(observations, masks)
        if not len(obs):
            return np.empty(0, dtype=np.int64)
        t = self._tables(obs[0])
        if obs.shape[1] != t.size or m.shape[1] != t.num_actions:
            raise ValueError(
                f"observations [B, {obs.shape[1]}] and masks [B, {m.shape[1]}] do not match the "
                f"{t.rules.name!r} rules with {t.n} players ([B, {t.size}] and [B, {t.num_actions}])"
            )
        return self._decide(obs, m, t)


class ScoreHeuristicAgent(HeuristicAgent):
    """:class:`HeuristicAgent` playing for the game totals (``score_aware=1`` and
    ``call_aware=3`` unless given): the points it may take when the round ends are counted
    as the change of its total once the milestone applies, so it steers its hand towards a
    total that lands on a halving milestone and away from one that takes it past the score
    limit; and when it may call Yaniv, what the opponents would take counts as the change of
    their totals, with that change's difference from their points weighted 3 times (an
    opponent halved by my call is a loss, one put past the limit a win). Everything else is
    the heuristic's, and so is its compiled batched version."""

    name = "score_heuristic"
    default_options = {"score_aware": 1.0, "call_aware": 3.0}


class TunedTwoDeckAgent(HeuristicAgent):
    """:class:`HeuristicAgent` with weights tuned for 2-player ``two_deck`` against the
    heuristic (a coordinate search: ``docs/experiments/2026-11-26-two-deck.md``): it sheds
    cards sooner (``mu=4``), calls Yaniv sooner but less riskily (``call_margin=-4``,
    ``call_risk=0.25``), counts less on the round ending before its next turn
    (``end_weight=0.6``) and assumes the opponent keeps fewer low cards
    (``bias_per_turn=0.02``). It plays any rules (it is the advisor of the shipped
    ``two_deck`` model; how it fares: the note above and the model card
    ``docs/agents/ppo_two_deck_2p.md``). Everything else is the heuristic's, and so is its
    compiled batched version."""

    name = "tuned_two_deck"
    default_options = {"mu": 4.0, "call_margin": -4.0, "end_weight": 0.6, "bias_per_turn": 0.02, "call_risk": 0.25}
