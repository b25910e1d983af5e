"""The search baseline: determinized rollouts of whole turn plans, on the batched engine."""

from __future__ import annotations

import contextlib

import numba
import numpy as np

from yaniv_env import Rules
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.batched import kernels as K
from yaniv_env.yaniv.cards import NUM_KINDS, YANIV_VALUE
from yaniv_env.yaniv.engine import DRAW

from .base import checked_choice, strict_default
from .common import (
    CALL_YANIV,
    DISCARD_BASE,
    DISCARD_PHASE,
    DRAW_PHASE,
    TAKE_BASE,
    AgentBase,
    Info,
    legal_list,
    unseen_counts,
)
from .compiled import compiled_once
from .heuristic import HeuristicAgent
from .heuristic_batched import DEFAULTS as HEURISTIC_DEFAULTS
from .heuristic_batched import (
    EMPTY_HAND_COST,
    T_CARD_STARTS,
    T_DECK_COUNTS,
    T_DISC_COUNTS,
    T_DISC_MOVE,
    T_DISC_N_TAKEABLE,
    T_DISC_TAKEABLE,
    TurnPlans,
    check_consistent,
    compile_once,
    decide_rows,
    heuristic_plans,
    heuristic_tables,
    weights,
    work_arrays,
)

#: Search options (keywords of :class:`SearchAgent`); heuristic options are also accepted.
SEARCH_DEFAULTS = {
    # determinizations (sampled deals of the hidden cards) per searched decision; every
    # candidate is rolled out once on each (common random numbers)
    "simulations": 20,
    # determinizations when Yaniv may be called (the decision with the most at stake)
    "call_simulations": 30,
    # at most this many rollouts per decision (fewer samples when there are many
    # candidates), which bounds the time of one decision
    "max_rollouts": 100,
    # turn plans searched: the heuristic's best ones (plus Yaniv when it may be called)
    "candidates": 4,
    # plans whose heuristic cost is more than this above the best one are not searched
    "cost_window": 6.0,
    # rollout policy: the heuristic's fast "lite" variant or the "full" heuristic (slower)
    "rollout": "lite",
    # what a rollout scores: "score", the change of the totals (after milestones),
    # "points", the round's points before milestones (blind to the game score), or
    # "round", 1 for a round I win and 0 otherwise (for one-round play: game_weight=0)
    "value": "score",
    # weight of a game won (+) or lost (-) inside a rollout, in points
    "game_weight": 50.0,
    # bias of the sampled opponents' unknown cards towards low values; None: the
    # heuristic's estimate for the point of the round; 0: uniform over the unseen cards
    "sample_bias": None,
    # search only when Yaniv may be called or a hand (mine or an opponent's) holds at
    # most this many cards (the round may end soon); None: every discard decision
    "search_cards": 2,
    # the heuristic's first choice is kept unless another candidate beats it by this many
    # standard errors of the paired difference (the search is noisy; its prior is good)
    "confidence": 1.0,
}

#: What a rollout can score (the ``value`` option).
ROLLOUT_VALUES = ("score", "points", "round")

#: Most steps of one rollout (rounds end long before: the rules' turn limit).
MAX_ROLLOUT_STEPS = 2000


def values_by_action(cands: list[tuple[int, int | None]], values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct first actions of the plans ``cands`` and, for each, the best mean
    rollout value among its plans (two plans may discard alike and draw differently)."""
    means = values.mean(axis=0)
    best: dict[int, float] = {}
    for (a, _), v in zip(cands, means.tolist(), strict=True):
        best[a] = max(v, best.get(a, -np.inf))
    return np.fromiter(best, dtype=np.int64), np.fromiter(best.values(), dtype=np.float64)


def values_note(actions: np.ndarray, means: np.ndarray) -> dict:
    """The annotation of a searched decision (:meth:`SearchAgent.act_annotated`): each
    first move searched and its mean rollout value."""
    return {"kind": "values", "actions": actions.tolist(), "values": means.tolist()}


@numba.njit(cache=True)
def _play_out(st, tb, rs, rows, first, draw, max_steps, w, ht, fields, scales, obs, mask):
    """Play each slot of ``rows`` to the end of its round: ``first[i]`` for the acting
    seat, then the heuristic with weights ``w`` (``decide_rows`` on the acting seat's
    observation, decoded as :meth:`HeuristicTables.decode` does) for every seat, except that
    the decision right after ``first[i]`` takes ``draw[i]`` where it is a legal draw. ``ht``:
    the heuristic's tables (card_end, known_start, n, int_rules, milestones, num_moves, then
    the tuple of arrays its kernel indexes by the ``T_*`` constants);
    ``fields``: the observation offsets of hand_sizes, alive, caller, stock, round_progress and
    phase; ``scales``: hand size, deck size, turn limit; ``obs`` and ``mask``: one row of work space."""
    card_end, known_start, n, ir, milestones, num_moves, tabs = ht
    card_starts, deck_counts, disc_counts = tabs[T_CARD_STARTS], tabs[T_DECK_COUNTS], tabs[T_DISC_COUNTS]
    disc_takeable, disc_n_takeable, disc_move = tabs[T_DISC_TAKEABLE], tabs[T_DISC_N_TAKEABLE], tabs[T_DISC_MOVE]
    g = st.g
    round_over = rs.round_over
    legal = np.empty(K.MAX_LEGAL, np.int64)
    hand_sizes = np.zeros((1, n), np.int64)
    alive = np.zeros((1, n), np.bool_)
    caller = np.zeros(1, np.int64)
    stock = np.zeros(1, np.int64)
    turns = np.zeros(1, np.int64)
    phase = np.zeros(1, np.int64)
    out = np.zeros(1, np.int64)
    # int64 values, not the literals 0 and 1: a literal argument would compile work_arrays and
    # decide_rows a second time (as Python's calls of them compile them with int64)
    zero, one = np.int64(0), np.int64(1)
    scratch = work_arrays(n, ir, card_end, num_moves, mask.shape[1], zero)
    f_hand, f_alive, f_caller, f_stock, f_progress, f_phase = fields
    for i in range(rows.shape[0]):
        b = rows[i]
        a = first[i]
        # one call site of the inlined K.apply (each site compiles the whole engine step again)
        for step in range(max_steps):
            K.apply(st, tb, rs, b, a)
            if round_over[b] or step == max_steps - 1:
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
            decide_rows(
                zero, one, obs, card_end, known_start, card_starts, hand_sizes, alive, caller, stock, turns, phase,
                mask, n, w, ir, milestones, deck_counts, disc_counts, disc_takeable, disc_n_takeable, disc_move,
                num_moves, out, scratch,
            )  # fmt: skip
            a = out[0]
            if step == 0 and draw[i] >= 0 and g[b, K.G_PHASE] == DRAW and mask[0, draw[i]]:
                a = draw[i]
            if a < 0 or not mask[0, a]:  # never expected (the batched heuristic hands these to Python)
                a = legal[0]
        if round_over[b]:
            K.ranking(st, tb, b, rs.places[b])


class SearchAgent(AgentBase):
    """Determinized Monte Carlo search over whole-turn plans, heuristic rollouts.

    At a *discard* decision the heuristic (:func:`agents.heuristic_batched.heuristic_plans`)
    proposes its best turn plans (a discard together with the draw that follows it: the
    stock or a takeable card), up to ``candidates`` of them within ``cost_window`` of the
    best, plus *Yaniv* when it may be called. The hidden cards are then sampled
    ``simulations`` times (``call_simulations`` when Yaniv may be called; at most
    ``max_rollouts`` rollouts in all) consistently with public information: the unseen pool
    is the deck minus my hand, the opponents' known cards, the previous discard, my pending
    set and the cards out of play; opponent ``i`` holds its known cards plus
    ``hand_size_i - len(known_i)`` cards drawn from the pool (weighted towards low values as
    the round goes on, as the heuristic assumes: players keep low cards); the rest, shuffled,
    is the stock. Each sample becomes a slot of the batched engine
    (:meth:`~yaniv_env.yaniv.batched.BatchedYaniv.load_positions`, me to discard), copied once
    per candidate; in each copy the candidate is played (discard, then its draw) and rolled
    out to the end of the round with the compiled heuristic for every seat (``rollout``: its
    fast ``lite`` variant, or the ``full`` heuristic). A rollout scores the opponents'
    average points change minus mine (totals after milestones, so landing on a halving total
    counts; plus ``game_weight`` for a game won or lost in the rollout). All candidates share
    each sample and its game key (common random numbers), so their differences are measured
    with little noise. The heuristic's own choice is played unless another candidate's mean
    value beats it by ``confidence`` standard errors of the paired difference; in particular
    Yaniv is called only when the rollouts rate the call at least as well as continuing (and
    clearly better when the heuristic would not call). The chosen plan's draw is remembered
    for the *draw* decision (the heuristic decides if that draw is not legal there). Slam,
    Asaf and Blast decisions are the heuristic's.

    The search runs only where it pays: when Yaniv may be called or some hand (mine or an
    opponent's) holds at most ``search_cards`` cards, i.e. when the round may end soon;
    elsewhere, and when there is a single candidate, the heuristic's plan is played. Early in
    a round the rollouts are long and noisy. Where its edge over the heuristic comes from:
    ``docs/experiments/2026-11-25-where-the-search-edge-lies.md``.

    :meth:`act_rows` decides for many games at once (row ``i`` is game ``i``: each row keeps
    the search's memory of its game, the planned draw and the cards it took), every rollout
    of every searched decision of the rows stepping together; :meth:`act` is row 0's. It is
    ``search_fast``'s ``act_batch``; ``search`` itself has none, so a batch of its games is
    played by a copy of it per game (:class:`agents.batched.ScalarLoop`).

    ``strict``: raise if the logic ever picks an illegal action (:mod:`agents.base`).
    Options (keywords; others are a ``TypeError``): :data:`SEARCH_DEFAULTS`, and any heuristic
    option (:data:`agents.heuristic_batched.DEFAULTS`, used by both the plans and the rollouts).
    """

    name = "search"
    #: options a subclass plays with unless given
    default_options: dict = {}

    def __init__(
        self,
        seed: int | None = None,
        rules: str | Rules = "standard",
        num_players: int | None = None,
        strict: bool | None = None,
        **options,
    ):
        super().__init__(seed, rules, num_players)
        self.strict = strict_default(strict)
        options = {**self.default_options, **options}
        h_opts = {k: v for k, v in options.items() if k in HEURISTIC_DEFAULTS}
        s_opts = {k: v for k, v in options.items() if k not in HEURISTIC_DEFAULTS}
        unknown = set(s_opts) - set(SEARCH_DEFAULTS)
        if unknown:
            raise TypeError(
                f"unknown search options: {', '.join(sorted(unknown))}; "
                f"known: {', '.join([*SEARCH_DEFAULTS, *HEURISTIC_DEFAULTS])}"
            )
        o = {**SEARCH_DEFAULTS, **s_opts}
        self.simulations = int(o["simulations"])
        self.call_simulations = int(o["call_simulations"])
        self.max_rollouts = int(o["max_rollouts"])
        self.candidates = int(o["candidates"])
        self.cost_window = float(o["cost_window"])
        self.game_weight = float(o["game_weight"])
        if o["value"] not in ROLLOUT_VALUES:
            raise ValueError(f"value must be one of {', '.join(map(repr, ROLLOUT_VALUES))}, got {o['value']!r}")
        self.value = o["value"]
        if o["rollout"] not in ("lite", "full"):
            raise ValueError(f"rollout must be 'lite' or 'full', got {o['rollout']!r}")
        #: the heuristic's weights (:data:`agents.heuristic_batched.DEFAULTS` overridden by the options)
        self.heuristic_options = {**HEURISTIC_DEFAULTS, **h_opts}
        self._plan_weights = weights(h_opts)
        self._rollout_weights = weights(h_opts, lite=o["rollout"] == "lite")
        self.sample_bias = None if o["sample_bias"] is None else float(o["sample_bias"])
        self.confidence = float(o["confidence"])
        self.search_cards = None if o["search_cards"] is None else int(o["search_cards"])
        self._plan: tuple[tuple[int, ...], int] | None = None
        self._my_known: list[int] = []
        self._last_turns = -1
        self._memories: list[tuple] = []
        self.searched = 0
        #: the last :meth:`act_rows`'s searched rows: ``row -> (actions, values)``, each
        #: first action of the candidate plans with the mean rollout value (in points) of
        #: its best plan; what imitation uses as soft targets (``--pretrain-temperature``)
        self.searched_values: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._engine = None
        self._heuristic_agent = None
        self._kernel_args = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None
        self._my_known = []
        self._last_turns = -1
        self._memories = []

    # -- acting -----------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal_list(action_mask)  # a mask that allows nothing is a ValueError here, -1 in a batch
        return int(self.act_rows(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_annotated(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[int, dict | None]:
        """The move :meth:`act` makes and, at a searched decision, the mean rollout value
        (points, higher is better) of each first move searched (its best plan's), as
        ``{"kind": "values", "actions": [...], "values": [...]}``; ``None`` where the
        heuristic decided alone (for replays: :func:`yaniv_env.yaniv.records.decide`)."""
        action = self.act(observation, action_mask)
        searched = self.searched_values.get(0)
        return action, None if searched is None else values_note(*searched)

    def act_rows(self, observations, masks) -> np.ndarray:
        """One decision per row (``-1`` where nothing is legal), row ``i`` being game ``i``."""
        obs = np.ascontiguousarray(np.asarray(observations, dtype=np.float32))
        m = np.ascontiguousarray(np.asarray(masks).astype(bool, copy=False))
        rows = len(obs)
        while len(self._memories) < rows:
            self._memories.append((None, [], -1))
        out = np.full(rows, -1, dtype=np.int64)
        infos: dict[int, Info] = {}
        searches: list[tuple[int, Info, list, float]] = []
        by_heuristic: list[int] = []
        for i in range(rows):
            if not m[i].any():
                continue
            info = infos[i] = self.info(obs[i], m[i])
            with self._game(i):
                a, cands, bias = self._prepare(info, obs[i], m[i])
            if cands is not None:
                searches.append((i, info, cands, bias))
            elif a is None:
                by_heuristic.append(i)
            else:
                out[i] = a
        self.searched_values = {}
        for (i, info, cands, _), values in zip(searches, self._evaluate_all(searches) if searches else [], strict=True):
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
            out[idx] = self._heuristic().act_batch(obs[idx], m[idx])
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

    def _heuristic(self) -> HeuristicAgent:
        """The heuristic that decides where the search does not (its options, full variant)."""
        if self._heuristic_agent is None:
            self._heuristic_agent = HeuristicAgent(
                rules=self.base_rules, num_players=self.num_players, **self.heuristic_options
            )
        return self._heuristic_agent

    def _prepare(self, info: Info, obs: np.ndarray, mask: np.ndarray):
        """``(action, None, 0.0)`` when the move needs no rollouts (``None``: the heuristic's
        move), or ``(None, candidates, bias)`` to search, ``bias`` that of the samples."""
        self._track_known(info)
        if info.phase == DISCARD_PHASE:
            self._plan = None
            turn = self.turn_plans(info, obs, mask)
            cands = self.candidate_plans(info, turn)
            if len(cands) > 1 and self.simulations > 0 and self._worth_searching(info):
                return None, cands, turn.bias if self.sample_bias is None else self.sample_bias
            if cands:
                self._remember(info, *cands[0])
                return cands[0][0], None, 0.0
        elif info.phase == DRAW_PHASE and self._plan is not None:
            key, draw = self._plan
            self._plan = None
            if tuple(sorted(info.pending)) == key and draw in info.legal:
                return draw, None, 0.0
        return None, None, 0.0

    def _searched(self, info: Info, cands: list[tuple[int, int | None]], values: np.ndarray | None) -> int | None:
        """The candidate the rollout ``values`` choose (``None`` without values)."""
        if values is None:
            return None
        a, d = cands[self.choose(values)]
        self._remember(info, a, d)
        self.searched += 1
        return a

    def _chosen(self, info: Info, a: int) -> int:
        a = checked_choice(self.name, a, info.legal, self.rng, self.strict)
        if info.phase == DRAW_PHASE and TAKE_BASE <= a < DISCARD_BASE:
            self._my_known.append(a - TAKE_BASE)
        return int(a)

    def _track_known(self, info: Info) -> None:
        """Cards I took from a discard and still hold (the opponents know them)."""
        if info.round_turns < self._last_turns:
            self._my_known = []
        self._last_turns = info.round_turns
        hand = list(info.hand)
        kept = []
        for k in self._my_known:
            if k in hand:
                hand.remove(k)
                kept.append(k)
        self._my_known = kept

    # -- search -----------------------------------------------------------------------
    def turn_plans(self, info: Info, obs: np.ndarray, mask: np.ndarray) -> TurnPlans:
        """The heuristic's turn plans at the discard decision ``obs`` (its compiled kernel)."""
        tables = heuristic_tables(info.ctx.rules)
        compile_once(tables)
        turn = heuristic_plans(obs, mask, tables, self._plan_weights)
        check_consistent(np.array([turn.action]), tables)
        return turn

    def candidate_plans(self, info: Info, turn: TurnPlans) -> list[tuple[int, int | None]]:
        """The (discard or Yaniv, draw) plans to search, best heuristic cost first."""
        plans = turn.plans
        out: list[tuple[int, int | None]] = []
        if plans and plans[0][0] <= EMPTY_HAND_COST:
            return [(plans[0][1], plans[0][2])]  # 001: emptying the hand wins the round
        if plans:
            best = plans[0][0]
            for cost, a, d in plans[: self.candidates]:
                if cost > best + self.cost_window and out:
                    break
                out.append((a, d))
        if CALL_YANIV in info.legal:
            if turn.calls:
                out.insert(0, (CALL_YANIV, None))
            else:
                out.append((CALL_YANIV, None))
        return out

    def _worth_searching(self, info: Info) -> bool:
        if self.search_cards is None or CALL_YANIV in info.legal:
            return True
        sizes = [info.hand_sizes[r] for r in range(info.ctx.n) if info.alive[r]]
        return min(sizes) <= self.search_cards

    def choose(self, values: np.ndarray) -> int:
        """The candidate to play from the rollout values (``simulations × candidates``):
        the best mean, if it beats candidate 0 (the heuristic's own choice, Yaniv or its
        best plan) by ``confidence`` standard errors of the paired difference; else
        candidate 0. The samples are few, so the heuristic's choice acts as a prior."""
        means = values.mean(axis=0)
        best = int(np.argmax(means))
        if best == 0:
            return 0
        diff = values[:, best] - values[:, 0]
        m = values.shape[0]
        se = diff.std(ddof=1) / np.sqrt(m) if m > 1 else 0.0
        return best if diff.mean() > self.confidence * se else 0

    def _remember(self, info: Info, a: int, d: int | None) -> None:
        if a >= DISCARD_BASE and d is not None:
            self._plan = (info.ctx.move_key[a - DISCARD_BASE], d)

    def determinize(self, info: Info, rng: np.random.Generator, bias: float = 0.0) -> engine.State | None:
        """A full position consistent with public information, me at seat 0 (seats are
        relative to me), at the start of my turn."""
        sample = self.sample_hidden(info, rng, bias)
        if sample is None:
            return None
        hands, stock = sample
        known = [list(self._my_known)] + [list(info.known[r]) for r in range(1, info.ctx.n)]
        try:
            return engine.from_position(
                info.ctx.rules,
                hands,
                list(info.top),
                stock=stock,
                pile=list(info.out_of_play),
                takeable=list(info.takeable) if info.takeable else None,
                current=0,
                scores=list(info.scores),
                alive=list(info.alive),
                known=known,
                rng=rng,
            )
        except ValueError:
            return None

    def sample_hidden(
        self, info: Info, rng: np.random.Generator, bias: float = 0.0
    ) -> tuple[list[list[int]], list[int]] | None:
        """The hidden cards of one determinization: every hand (mine, and each opponent's
        known cards plus cards drawn from the unseen pool, low values first with ``bias``)
        and the stock (the rest, shuffled); ``None`` when the pool is too small."""
        ctx = info.ctx
        n = ctx.n
        pool = unseen_counts(info)
        cards = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
        need = [max(0, info.hand_sizes[r] - len(info.known[r])) if info.alive[r] else 0 for r in range(n)]
        need[0] = 0
        hidden = sum(need)
        if hidden > len(cards):
            return None
        arr = np.array(cards, dtype=np.int64)
        if bias > 0 and hidden:
            # weighted sampling without replacement (exponential race): low cards first
            w = np.exp(-bias * np.array([YANIV_VALUE[k] for k in cards], dtype=np.float64))
            keys = rng.exponential(size=len(cards)) / w
            order = np.argsort(keys, kind="stable")
            chosen, rest = arr[order[:hidden]], arr[order[hidden:]]
            chosen = rng.permutation(chosen)
            stock = rng.permutation(rest).tolist()
        else:
            perm = rng.permutation(arr)
            chosen, stock = perm[:hidden], perm[hidden:].tolist()
        hands = []
        at = 0
        for r in range(n):
            if r == 0:
                hands.append(list(info.hand))
            elif info.alive[r]:
                hands.append(list(info.known[r]) + chosen[at : at + need[r]].tolist())
                at += need[r]
            else:
                hands.append([])
        return hands, stock

    # -- rollouts on the batched engine -------------------------------------------------
    def _samples(self, info: Info, sims: int, bias: float) -> list[engine.State] | None:
        """``sims`` determinizations of ``info``, each keyed for its rollouts (``None`` when
        no position can be sampled). Seeds come from the agent's generator: one pair per sample,
        the first for its hidden cards, the second for its game key (every candidate's)."""
        seeds = self.rng.integers(0, 2**63, size=(sims, 2))
        # The first sample is built and checked by engine.from_position; the others differ
        # from it only in their hidden cards (the same draws as determinize).
        states, base = [], None
        for sim in range(sims):
            rng = np.random.default_rng(seeds[sim, 0])
            if base is None:
                base = self.determinize(info, rng, bias)
                sample = None if base is None else (base.hands, base.stock)
            else:
                sample = self.sample_hidden(info, rng, bias)
            if sample is None:
                return None
            state = base.copy(rng=np.random.default_rng(seeds[sim, 1]))
            state.hands, state.stock = [list(h) for h in sample[0]], list(sample[1])
            states.append(state)
        return states

    def _engine_for(self, rules, size: int):
        from yaniv_env.yaniv.batched import BatchedYaniv

        if self._engine is None or self._engine.rules != rules or self._engine.num_envs < size:
            capacity = max(size, 2 * self._engine.num_envs if self._engine is not None else 256)
            self._engine = BatchedYaniv(rules, num_envs=capacity, seed=0)
        return self._engine

    def _evaluate_all(self, searches: list[tuple[int, Info, list, float]]) -> list[np.ndarray | None]:
        """Rollout values (``simulations × candidates``) of every searched decision, or
        ``None`` where no position could be sampled: each sample rolled out once per
        candidate, with the same game key for every candidate; all rolled out together."""
        samples, rows_of = [], []  # per search: its states, and its rows (sims × candidates)
        first, draw, start_scores, start_alive = [], [], [], []
        count = 0
        for _, info, cands, bias in searches:
            sims = self.call_simulations if CALL_YANIV in info.legal else self.simulations
            sims = max(2, min(sims, self.max_rollouts // len(cands)))
            states = self._samples(info, sims, bias)
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
        (:func:`_play_out`), and score it (:meth:`rollout_value`)."""
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
                (ht.card_end, ht.known_start, ht.n, ht.int_rules, ht.milestones, ht.num_moves,
                 (ht.card_starts, ht.deck_counts, ht.disc_counts, ht.disc_takeable, ht.disc_n_takeable,
                  ht.disc_move)),  # in the order of the T_* indices
            )  # fmt: skip
        _, fields, scales, tables = self._kernel_args
        rows = np.arange(count, dtype=np.int64)
        obs = np.zeros((1, eng.layout.size), np.float32)
        mask = np.zeros((1, eng.num_actions), np.bool_)
        first, draw, w = first.astype(np.int64), draw.astype(np.int64), self._rollout_weights
        compiled_once("the search's rollouts", _play_out, lambda: _play_out(
            st, tb, rs, rows[:0], first, draw, MAX_ROLLOUT_STEPS, w, tables, fields, scales, obs, mask))  # fmt: skip
        _play_out(st, tb, rs, rows, first, draw, MAX_ROLLOUT_STEPS, w, tables, fields, scales, obs, mask)
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

    def rollout_value(self, won, points, scores, scores0, alive0, game_over, place, eliminated) -> float:
        """What a rollout that ended its round scores for seat 0 (the ``value`` option, plus
        ``game_weight`` for a game won or lost): ``won``, whether seat 0 won the round;
        ``points`` and ``scores``, the round's points and the totals after it, per seat;
        ``scores0`` and ``alive0``, the totals and the seats alive before; ``place``, seat 0's
        place when the game is over; ``eliminated``, whether seat 0 is out."""
        n = len(scores0)
        opps = [p for p in range(1, n) if alive0[p]]
        if self.value == "round":
            v = float(won)
        elif self.value == "points":
            v = float(sum(points[p] for p in opps) / max(1, len(opps)) - points[0])
        else:
            v = float(sum(scores[p] - scores0[p] for p in opps) / max(1, len(opps)) - (scores[0] - scores0[0]))
        if self.game_weight:
            if game_over:
                v += self.game_weight * (n - 1 - 2 * int(place)) / (n - 1)
            elif eliminated:
                v -= self.game_weight
        return v
