"""``search_fast``: the search baseline with its rollouts on the batched engine."""

from __future__ import annotations

import contextlib

import numba
import numpy as np

from yaniv_env.yaniv.batched import kernels as K
from yaniv_env.yaniv.engine import DRAW

from .common import CALL_YANIV, Info
from .heuristic import HeuristicAgent
from .heuristic_batched import _decide_range, _scratch, heuristic_tables, weights
from .search import SearchAgent, values_by_action, values_note

#: Most steps of one rollout (rounds end long before: the rules' turn limit).
MAX_ROLLOUT_STEPS = 2000


@numba.njit(cache=True)
def _play_out(st, tb, rs, rows, first, draw, max_steps, w, ht, fields, scales, obs, mask):
    """Play each slot of ``rows`` to the end of its round: ``first[i]`` for the acting
    seat, then the heuristic (``_decide_range`` on the acting seat's observation, decoded
    as :meth:`HeuristicTables.decode` does) for every seat, except that the decision right
    after ``first[i]`` takes ``draw[i]`` where it is a legal draw. ``ht``: the heuristic's
    tables (card_end, known_start, card_starts, n, int_rules, milestones, deck_counts,
    disc_counts, disc_takeable, disc_n_takeable, disc_move, num_moves); ``fields``: the observation
    offsets of hand_sizes, alive, caller, stock, round_progress and phase; ``scales``:
    hand size, deck size, turn limit; ``obs`` and ``mask``: one row of work space."""
    card_end, known_start, card_starts, n, ir, milestones, deck_counts, disc_counts, disc_takeable = ht[:9]
    disc_n_takeable, disc_move, num_moves = ht[9], ht[10], ht[11]
    g = st[0]
    round_over = rs[2]
    legal = np.empty(K.MAX_LEGAL, np.int64)
    hand_sizes = np.zeros((1, n), np.int64)
    alive = np.zeros((1, n), np.bool_)
    caller = np.zeros(1, np.int64)
    stock = np.zeros(1, np.int64)
    turns = np.zeros(1, np.int64)
    phase = np.zeros(1, np.int64)
    out = np.zeros(1, np.int64)
    scratch = _scratch(n, ir, card_end, num_moves, mask.shape[1])
    f_hand, f_alive, f_caller, f_stock, f_progress, f_phase = fields
    for i in range(rows.shape[0]):
        b = rows[i]
        K.apply(st, tb, rs, b, first[i])
        for step in range(1, max_steps):
            if round_over[b]:
                break
            mask[0, :] = False
            count = K.legal_list(st, tb, b, legal)
            for j in range(count):
                mask[0, legal[j]] = True
            K.observe(st, tb, b, g[b, K.G_CURRENT], obs[0])
            arg = 0
            for p in range(n):
                hand_sizes[0, p] = round(obs[0, f_hand + p] * np.float32(scales[0]))
                alive[0, p] = obs[0, f_alive + p] > 0.5
                if obs[0, f_caller + p] > obs[0, f_caller + arg]:
                    arg = p
            caller[0] = arg if obs[0, f_caller + arg] > 0.5 else -1
            stock[0] = round(np.float64(obs[0, f_stock]) * scales[1])
            turns[0] = round(np.float64(obs[0, f_progress]) * scales[2])
            top = 0
            for q in range(1, 5):
                if obs[0, f_phase + q] > obs[0, f_phase + top]:
                    top = q
            phase[0] = top
            _decide_range(
                0, 1, obs, card_end, known_start, card_starts, hand_sizes, alive, caller, stock, turns, phase, mask,
                n, w, ir, milestones, deck_counts, disc_counts, disc_takeable, disc_n_takeable, disc_move, num_moves,
                out, scratch,
            )  # fmt: skip
            a = out[0]
            if step == 1 and draw[i] >= 0 and g[b, K.G_PHASE] == DRAW and mask[0, draw[i]]:
                a = draw[i]
            if a < 0 or not mask[0, a]:  # never expected (the batched heuristic hands these to Python)
                a = legal[0]
            K.apply(st, tb, rs, b, a)
        if round_over[b]:
            K.ranking(st, tb, b, rs[18][b])


class FastSearchAgent(SearchAgent):
    """:class:`agents.search.SearchAgent` whose rollouts run on the batched engine
    (:class:`yaniv_env.yaniv.batched.BatchedYaniv`), the compiled heuristic
    (:class:`agents.heuristic.HeuristicAgent`'s kernel) playing every seat.

    The same candidate plans, determinizations (drawn from the agent's generator as the
    search draws them), values and choice rule as ``search``; what differs is the rollout
    policy, the *full* heuristic compiled instead of its ``lite`` variant in Python, so
    its decisions are its own (not ``search``'s). Each sample becomes a slot of the engine
    (:meth:`~yaniv_env.yaniv.batched.BatchedYaniv.load_positions`), copied once per candidate, and
    every rollout of every searched decision of a batch steps together.
    :meth:`act_batch` decides for many games at once (row ``i`` is game ``i``: each row
    keeps the search's memory of its game, the planned draw and the cards it took), which
    is how imitation collects its decisions (``yaniv train --pretrain search_fast``);
    :meth:`act` is row 0's.

    Options: those of ``search`` (:data:`agents.search.SEARCH_DEFAULTS`) but ``rollout``,
    and the heuristic's (they weigh both the plans and the rollouts).
    """

    name = "search_fast"
    #: options a subclass plays with unless given
    default_options: dict = {}

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
        super().__init__(seed, rules, num_players, strict, rollout="full", **{**self.default_options, **options})
        self._memories: list[tuple] = []
        #: the last :meth:`act_batch`'s searched rows: ``row -> (actions, values)``, each
        #: first action of the candidate plans with the mean rollout value (in points) of
        #: its best plan; what imitation uses as soft targets (``--pretrain-temperature``)
        self.searched_values: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._engine = None
        self._rollout_agent = None
        self._kernel_args = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._memories = []

    # -- acting -----------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_annotated(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[int, dict | None]:
        """:meth:`act`, and the rollout values of a searched decision as
        :meth:`SearchAgent.act_annotated` gives them (``None`` where it did not search)."""
        action = self.act(observation, action_mask)
        searched = self.searched_values.get(0)
        return action, None if searched is None else values_note(*searched)

    def act_batch(self, observations, masks, keys=None) -> np.ndarray:
        """One decision per row (``-1`` where nothing is legal); ``keys`` is not used."""
        obs = np.ascontiguousarray(np.asarray(observations, dtype=np.float32))
        m = np.ascontiguousarray(np.asarray(masks).astype(bool, copy=False))
        rows = len(obs)
        while len(self._memories) < rows:
            self._memories.append((None, [], -1))
        out = np.full(rows, -1, dtype=np.int64)
        infos: dict[int, Info] = {}
        searches: list[tuple[int, Info, list]] = []
        by_heuristic: list[int] = []
        for i in range(rows):
            if not m[i].any():
                continue
            info = infos[i] = self.info(obs[i], m[i])
            with self._game(i):
                a, cands = self._prepare(info)
            if cands is not None:
                searches.append((i, info, cands))
            elif a is None:
                by_heuristic.append(i)
            else:
                out[i] = a
        self.searched_values = {}
        for (i, info, cands), values in zip(searches, self._evaluate_all(searches) if searches else [], strict=True):
            with self._game(i):
                a = self._searched(info, cands, values)
            if values is not None:
                self.searched_values[i] = values_by_action(cands, values)
            if a is None:
                by_heuristic.append(i)
            else:
                out[i] = a
        if by_heuristic:
            idx = np.array(sorted(by_heuristic))
            out[idx] = self._rollout_policy_batch().act_batch(obs[idx], m[idx])
        for i, info in infos.items():
            with self._game(i):
                out[i] = self._chosen(info, int(out[i]))
        return out

    @contextlib.contextmanager
    def _game(self, row: int):
        """The search's memory of game ``row`` (its planned draw, the cards it took) while
        the block decides for that game."""
        self._plan, self._my_known, self._last_turns = self._memories[row]
        try:
            yield
        finally:
            self._memories[row] = (self._plan, self._my_known, self._last_turns)

    # -- rollouts on the batched engine -------------------------------------------------
    def _rollout_policy_batch(self):
        if self._rollout_agent is None:
            self._rollout_agent = HeuristicAgent(
                rules=self.base_rules, num_players=self.num_players, **self.heuristic.options
            )
        return self._rollout_agent

    def _engine_for(self, rules, size: int):
        from yaniv_env.yaniv.batched import BatchedYaniv

        if self._engine is None or self._engine.rules != rules or self._engine.num_envs < size:
            capacity = max(size, 2 * self._engine.num_envs if self._engine is not None else 256)
            self._engine = BatchedYaniv(rules, num_envs=capacity, seed=0)
        return self._engine

    def _evaluate_all(self, searches: list[tuple[int, Info, list]]) -> list[np.ndarray | None]:
        """Rollout values (``simulations × candidates``) of every searched decision, or
        ``None`` where no position could be sampled: the samples drawn as
        :meth:`SearchAgent.evaluate` draws them, all rolled out together."""
        samples, rows_of = [], []  # per search: its states, and its rows (sims × candidates)
        first, draw, start_scores, start_alive = [], [], [], []
        count = 0
        for _, info, cands in searches:
            sims = self.call_simulations if CALL_YANIV in info.legal else self.simulations
            sims = max(2, min(sims, self.max_rollouts // len(cands)))
            seeds = self.rng.integers(0, 2**63, size=(sims, 2))
            bias = self.heuristic.bias_at(info) if self.sample_bias is None else self.sample_bias
            # The first sample is built and checked by engine.from_position; the others
            # differ from it only in their hidden cards (the same draws as determinize).
            states, base = [], None
            for sim in range(sims):
                rng = np.random.default_rng(seeds[sim, 0])
                if base is None:
                    base = self.determinize(info, rng, bias)
                    sample = None if base is None else (base.hands, base.stock)
                else:
                    sample = self.sample_hidden(info, rng, bias)
                if sample is None:
                    states = None
                    break
                state = base.copy(rng=np.random.default_rng(seeds[sim, 1]))
                state.hands, state.stock = [list(h) for h in sample[0]], list(sample[1])
                states.append(state)
            samples.append(states)
            if states is None:
                rows_of.append(None)
                continue
            rows_of.append(np.arange(count, count + sims * len(cands)).reshape(sims, len(cands)))
            count += sims * len(cands)
            for _ in range(sims):
                for a, d in cands:
                    first.append(a)
                    draw.append(-1 if d is None else d)
                    start_scores.append(info.scores)
                    start_alive.append(info.alive)
        if not count:
            return [None] * len(searches)
        rules = next(s for s in samples if s is not None)[0].rules
        eng = self._engine_for(rules, count)
        for states, rows in zip(samples, rows_of, strict=True):
            if states is not None:
                eng.load_positions(rows[:, 0], states)
                for c in range(1, rows.shape[1]):
                    eng.copy_rows(rows[:, 0], rows[:, c])
        values = self._rollouts(eng, count, np.array(first), np.array(draw), start_scores, start_alive)
        return [None if rows is None else values[rows] for rows in rows_of]

    def _rollouts(self, eng, count: int, first, draw, start_scores, start_alive) -> np.ndarray:
        """Play each row's plan for seat 0 (``first``, then the planned ``draw`` where it is
        legal), roll every row out to the end of its round with the compiled heuristic
        (:func:`_play_out`), and score it as :meth:`SearchAgent._value` does."""
        from yaniv_env.yaniv.batched.engine import StepResult

        st, tb, rs = eng.kernel_state()
        ht = heuristic_tables(eng.rules)
        if self._kernel_args is None or self._kernel_args[0] is not ht:
            s = ht.slices
            fields = [s[name].start for name in ("hand_sizes", "alive", "caller", "stock", "round_progress")]
            self._kernel_args = (
                ht,
                np.array([*fields, ht.phase_slice.start], dtype=np.int64),
                np.array([eng.rules.hand_size, eng.rules.deck_size, eng.rules.turn_limit], dtype=np.float64),
                (ht.card_end, ht.known_start, ht.card_starts, ht.n, ht.int_rules, ht.milestones, ht.deck_counts,
                 ht.disc_counts, ht.disc_takeable, ht.disc_n_takeable, ht.disc_move, ht.num_moves),
                weights(self.heuristic.options),
            )  # fmt: skip
        _, fields, scales, tables, w = self._kernel_args
        rows = np.arange(count, dtype=np.int64)
        obs = np.zeros((1, eng.layout.size), np.float32)
        mask = np.zeros((1, eng.num_actions), np.bool_)
        _play_out(st, tb, rs, rows, first.astype(np.int64), draw.astype(np.int64), MAX_ROLLOUT_STEPS, w, tables,
                  fields, scales, obs, mask)  # fmt: skip
        res = StepResult(*rs, reset=np.zeros(eng.num_envs, dtype=bool))
        return np.array([
            self._row_value(res, r, start_scores[r], start_alive[r]) if res.round_over[r] else 0.0
            for r in range(count)
        ])  # fmt: skip

    def _row_value(self, res, r: int, scores0, alive0) -> float:
        return self.rollout_value(
            res.winners[r, 0], res.points[r], res.scores[r], scores0, alive0, res.game_over[r], res.places[r, 0],
            res.eliminated[r, 0],
        )  # fmt: skip


class RoundSearchAgent(FastSearchAgent):
    """:class:`FastSearchAgent` playing to win the round in front of it, not the game: its
    rollouts score 1 for a round it wins and 0 otherwise (``value="round"``, no game
    term), with four times the default samples and a looser prior (``confidence=0.5``);
    any option given overrides these. It is the advisor for one-round training
    (``yaniv train --episode round --reward round_win --advice round_search``); what it
    wins: ``docs/experiments/2026-11-26-one-round-at-a-time.md``."""

    name = "round_search"
    default_options = {
        "value": "round",
        "game_weight": 0.0,
        "simulations": 80,
        "call_simulations": 120,
        "max_rollouts": 400,
        "confidence": 0.5,
    }
