"""The search baseline: determinized rollouts of whole turn plans."""

from __future__ import annotations

import numpy as np

from yaniv_env import Rules
from yaniv_env.yaniv import engine
from yaniv_env.yaniv.cards import NUM_KINDS, YANIV_VALUE

from .base import checked_choice, strict_default
from .common import (
    CALL_YANIV,
    DISCARD_BASE,
    DISCARD_PHASE,
    DRAW_PHASE,
    TAKE_BASE,
    AgentBase,
    Context,
    Info,
    unseen_counts,
)
from .heuristic import DEFAULTS as HEURISTIC_DEFAULTS
from .heuristic import EMPTY_HAND_COST, HeuristicPolicy

_ROUND_END = (engine.ROUND_OVER, engine.GAME_OVER)


def info_from_state(ctx: Context, s: engine.State, seat: int) -> Info:
    """The public :class:`Info` of ``seat`` in a position the search built itself: what the
    observation of that seat says (:meth:`yaniv_env.yaniv.observation.ObservationLayout.view`,
    nothing hidden from that seat), with the legal actions."""
    return ctx.layout.view(s, seat, Info, ctx=ctx, legal=engine.legal_actions(s))


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


#: What a rollout can score (the ``value`` option).
ROLLOUT_VALUES = ("score", "points", "round")


class SearchAgent(AgentBase):
    """Determinized Monte Carlo search over whole-turn plans, heuristic rollouts.

    At a *discard* decision the heuristic proposes its best turn plans (a discard together
    with the draw that follows it: the stock or a takeable card), up to ``candidates`` of
    them within ``cost_window`` of the best, plus *Yaniv* when it may be called. The
    hidden cards are then sampled ``simulations`` times (``call_simulations`` when Yaniv
    may be called; at most ``max_rollouts`` rollouts in all) consistently with public
    information: the unseen pool is the deck minus my hand, the opponents' known cards,
    the previous discard, my pending set and the cards out of play; opponent ``i`` holds
    its known cards plus ``hand_size_i - len(known_i)`` cards drawn from the pool
    (weighted towards low values as the round goes on, as the heuristic assumes: players
    keep low cards); the rest, shuffled, is the stock. Each sample becomes an engine
    position (``engine.from_position``, me to discard) in which every candidate is played
    (discard, then its draw, then the heuristic's slam choice) and rolled out to the end of
    the round with the heuristic for every seat (its fast ``lite`` variant). A rollout
    scores the opponents' average points change minus mine (totals after milestones, so
    landing on a halving total counts; plus ``game_weight`` for a game won or lost in the
    rollout). All candidates share each sample and its rollout generator (common random
    numbers), so their differences are measured with little noise. The heuristic's own
    choice is played unless another candidate's mean value beats it by ``confidence``
    standard errors of the paired difference; in particular Yaniv is called only when the
    rollouts rate the call at least as well as continuing (and clearly better when the
    heuristic would not call). The chosen plan's draw is remembered for the *draw*
    decision (the heuristic decides if that draw is not legal there). Slam, Asaf and Blast
    decisions are the heuristic's.

    The search runs only where it pays: when Yaniv may be called or some hand (mine or an
    opponent's) holds at most ``search_cards`` cards, i.e. when the round may end soon;
    elsewhere, and when there is a single candidate, the heuristic's plan is played.
    Early in a round the rollouts are long and noisy and searching there did not help.
    With the defaults a searched decision takes about 5-40 ms on one core (at most
    ``max_rollouts`` = 100 rollouts), about 2-4 ms per decision on average over a game.

    Where its edge comes from (2 players, default preset, measured): its points per round
    are about the heuristic's; it wins games because its rollouts are scored on the game
    totals (halving at multiples of 50, elimination at 200). With ``value="points"`` (round
    points only) it is close to even with the heuristic, as it is under rules without
    milestones (004).

    ``strict``: raise if the logic ever picks an illegal action (:mod:`agents.base`).
    Options (keywords; others are a ``TypeError``): :data:`SEARCH_DEFAULTS`, and any heuristic option
    (:data:`agents.heuristic.DEFAULTS`, used by both the plans and the rollouts).
    """

    name = "search"

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
        h_opts = {k: v for k, v in options.items() if k in HEURISTIC_DEFAULTS}
        s_opts = {k: v for k, v in options.items() if k not in HEURISTIC_DEFAULTS}
        unknown = set(s_opts) - set(SEARCH_DEFAULTS)
        if unknown:
            raise TypeError(
                f"unknown search options: {', '.join(sorted(unknown))}; "
                f"known: {', '.join([*SEARCH_DEFAULTS, *HEURISTIC_DEFAULTS])}"
            )
        o = dict(SEARCH_DEFAULTS)
        o.update(s_opts)
        self.simulations = int(o["simulations"])
        self.call_simulations = int(o["call_simulations"])
        self.max_rollouts = int(o["max_rollouts"])
        self.candidates = int(o["candidates"])
        self.cost_window = float(o["cost_window"])
        self.game_weight = float(o["game_weight"])
        if o["value"] not in ROLLOUT_VALUES:
            raise ValueError(f"value must be one of {', '.join(map(repr, ROLLOUT_VALUES))}, got {o['value']!r}")
        self.value = o["value"]
        self.heuristic = HeuristicPolicy(**h_opts)
        if o["rollout"] not in ("lite", "full"):
            raise ValueError(f"rollout must be 'lite' or 'full', got {o['rollout']!r}")
        self.rollout_policy = HeuristicPolicy(lite=o["rollout"] == "lite", **h_opts)
        self.sample_bias = None if o["sample_bias"] is None else float(o["sample_bias"])
        self.confidence = float(o["confidence"])
        self.search_cards = None if o["search_cards"] is None else int(o["search_cards"])
        self._plan: tuple[tuple[int, ...], int] | None = None
        self._my_known: list[int] = []
        self._last_turns = -1
        self.searched = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None
        self._my_known = []
        self._last_turns = -1

    # -- acting -----------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.act_annotated(observation, action_mask)[0]

    def act_annotated(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[int, dict | None]:
        """The move :meth:`act` makes and, at a searched decision, the mean rollout value
        (points, higher is better) of each first move searched (its best plan's), as
        ``{"kind": "values", "actions": [...], "values": [...]}``; ``None`` where the
        heuristic decided alone (for replays: :func:`yaniv_env.tools.replay.decide`)."""
        info = self.info(observation, action_mask)
        a, cands = self._prepare(info)
        note = None
        if cands is not None:
            values = self.evaluate(info, cands)
            a = self._searched(info, cands, values)
            note = None if values is None else values_note(*values_by_action(cands, values))
        if a is None:
            a = self.heuristic.decide(info)
        return self._chosen(info, a), note

    def _prepare(self, info: Info) -> tuple[int | None, list[tuple[int, int | None]] | None]:
        """``(action, None)`` when the move needs no rollouts (``None``: the heuristic's
        move), or ``(None, candidates)`` to search."""
        self._track_known(info)
        if info.phase == DISCARD_PHASE:
            self._plan = None
            cands = self.candidate_plans(info)
            if len(cands) > 1 and self.simulations > 0 and self._worth_searching(info):
                return None, cands
            if cands:
                self._remember(info, *cands[0])
                return cands[0][0], None
        elif info.phase == DRAW_PHASE and self._plan is not None:
            key, draw = self._plan
            self._plan = None
            if tuple(sorted(info.pending)) == key and draw in info.legal:
                return draw, None
        return None, None

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
    def candidate_plans(self, info: Info) -> list[tuple[int, int | None]]:
        """The (discard or Yaniv, draw) plans to search, best heuristic cost first."""
        h = self.heuristic
        est = h.estimate(info)
        plans = h.plans(info, est)
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
            if h.should_call(info, est):
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

    def evaluate(self, info: Info, cands: list[tuple[int, int | None]]) -> np.ndarray | None:
        """Rollout values (``simulations × candidates``): each sample rolled out once per
        candidate, with the same generator for every candidate."""
        ctx = info.ctx
        sims = self.call_simulations if CALL_YANIV in info.legal else self.simulations
        sims = max(2, min(sims, self.max_rollouts // len(cands)))
        values = np.zeros((sims, len(cands)))
        seeds = self.rng.integers(0, 2**63, size=(sims, 2))
        start_scores = list(info.scores)
        start_alive = list(info.alive)
        bias = self.heuristic.bias_at(info) if self.sample_bias is None else self.sample_bias
        for sim in range(sims):
            base = self.determinize(info, np.random.default_rng(seeds[sim, 0]), bias)
            if base is None:
                return None
            for c, (a, d) in enumerate(cands):
                s = base.copy(rng=np.random.default_rng(seeds[sim, 1]))
                values[sim, c] = self._play_plan(ctx, s, a, d, start_scores, start_alive)
        return values

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

    def _play_plan(self, ctx: Context, s: engine.State, a: int, d: int | None, scores0, alive0) -> float:
        """Play a plan for seat 0 in ``s``, roll out to the end of the round, and score it."""
        try:
            engine.apply(s, a)
            if s.phase == engine.DRAW:
                legal = engine.legal_actions(s)
                if d not in legal:
                    d = self.rollout_policy.decide(info_from_state(ctx, s, 0))
                engine.apply(s, d)
        except engine.IllegalActionError:
            return -1e6
        policy = self.rollout_policy
        steps = 0
        while s.phase not in _ROUND_END and steps < 2000:
            engine.apply(s, policy.decide(info_from_state(ctx, s, s.current)))
            steps += 1
        return self._value(s, scores0, alive0)

    def _value(self, s: engine.State, scores0, alive0) -> float:
        n = s.num_players
        result = s.round_result
        game_over = s.phase == engine.GAME_OVER
        return self.rollout_value(
            result is not None and 0 in result.winners,
            result.points if result is not None else [0] * n,
            s.scores,
            scores0,
            alive0,
            game_over,
            engine.ranking(s)[0] if game_over and self.game_weight else 0,
            not s.alive[0],
        )

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
