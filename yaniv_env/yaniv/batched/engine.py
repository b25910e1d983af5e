"""``BatchedYaniv``: the Python face of the batched kernels (see the package docstring)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields

import numpy as np

from ...core.engine import action_name
from ...core.ids import is_int
from ...core.seeding import game_key
from ..actions import action_table
from ..cards import NUM_KINDS, NUM_SUITS
from ..engine import DISCARD, GAME_OVER
from ..observation import ObservationLayout
from ..rewards import check_reward, seat_rewards
from ..rules import Rules, get_rules
from . import kernels as K
from .tables import Tables, tables

REASONS = ("yaniv", "empty_hand", "draw")

_compile_seconds: float | None = None
#: The kernels the first engine of a process compiles (or reads from Numba's cache).
ENGINE_KERNELS = (K.new_games, K.legal_masks, K.observations, K.step, K.ranking)
_first_use_checked = False
_notice_depth = 0


def cache_is_cold(*kernels) -> bool:
    """Whether Numba's on-disk cache lacks one of these ``cache=True`` functions for the
    current source and Numba version, so that their first use compiles them."""
    for kernel in kernels:
        try:
            # Numba's cache index (a private API): empty when missing or stale
            if not kernel._cache._cache_file._load_index():
                return True
        except Exception:  # another Numba: unknown, so say it may compile
            return True
    return False


@contextlib.contextmanager
def compile_notice(what: str) -> Iterator[None]:
    """Say on stderr that ``what`` is being compiled (first run on a machine, about a
    minute, cached afterwards), then how long it took; nested notices stay silent."""
    global _notice_depth
    _notice_depth += 1
    start = time.perf_counter()
    try:
        if _notice_depth == 1:
            print(f"compiling {what} (first run, about a minute; cached afterwards)...", file=sys.stderr, flush=True)
        yield
    finally:
        _notice_depth -= 1
    if _notice_depth == 0:
        print(f"compiled in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


def _compile_if_cold() -> None:
    """Before the process's first engine: when the kernels are not in Numba's cache, compile
    them now under a notice rather than stall silently in the first step."""
    global _first_use_checked
    if _first_use_checked:
        return
    _first_use_checked = True
    if cache_is_cold(*ENGINE_KERNELS):
        with compile_notice("the batched engine"):
            compile_seconds()


def compile_seconds() -> float:
    """Seconds the first use of :class:`BatchedYaniv`'s kernels took in this process
    (compiling them, or reading them from Numba's cache): they run once on a tiny batch to
    find out."""
    global _compile_seconds
    if _compile_seconds is None:
        start = time.perf_counter()
        eng = BatchedYaniv("standard", num_envs=1, seed=0)
        eng.legal_masks()
        eng.observations()
        eng.step(np.flatnonzero(eng.legal_masks()[0])[:1])
        eng.ranking()
        _compile_seconds = time.perf_counter() - start
    return _compile_seconds


@dataclass
class StepResult:
    """What one :meth:`BatchedYaniv.step` did, per game (see the package docstring)."""

    acted: np.ndarray
    seat: np.ndarray
    round_over: np.ndarray
    game_over: np.ndarray
    score_delta: np.ndarray
    points: np.ndarray
    hand_totals: np.ndarray
    winners: np.ndarray
    eliminated: np.ndarray
    scores: np.ndarray
    reason: np.ndarray
    caller: np.ndarray
    challenger: np.ndarray
    caller_beaten: np.ndarray
    truncated: np.ndarray
    game_truncated: np.ndarray
    first_player: np.ndarray
    turns: np.ndarray
    places: np.ndarray
    reset: np.ndarray


class BatchedYaniv:
    """``num_envs`` games of one rule set, stepped together (see the package docstring)."""

    def __init__(
        self,
        rules: str | Rules = "standard",
        num_envs: int = 1,
        seed: int | None = None,
        num_players: int | None = None,
        autoreset: bool = False,
    ):
        self.rules = get_rules(rules, num_players)
        if not is_int(num_envs) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        _compile_if_cold()
        self.num_envs = num_envs = int(num_envs)
        self.num_players = n = self.rules.num_players
        self.autoreset = autoreset
        self.table = action_table(self.rules)
        self.layout = ObservationLayout(self.rules)
        self.num_actions = self.table.num_actions
        self._tb = tables(self.rules)
        B = num_envs
        deck = self.rules.deck_size
        self._st = K.BatchState(
            g=np.zeros((B, K.NG), np.int64),
            scores=np.zeros((B, n), np.int64),
            alive=np.zeros((B, n), np.int8),
            out_round=np.zeros((B, n), np.int64),
            hands=np.zeros((B, n, NUM_KINDS), np.int8),
            hand_len=np.zeros((B, n), np.int64),
            known=np.zeros((B, n, NUM_KINDS), np.int8),
            stock=np.zeros((B, deck), np.int8),
            pile=np.zeros((B, deck), np.int8),
            pile_cnt=np.zeros((B, NUM_KINDS), np.int8),
            # the longest top set is a discarded hand and a card slammed on it, or a set a Blast
            # completes to one card of each suit
            top=np.zeros((B, max(self.rules.hand_size + 1, NUM_SUITS)), np.int8),
            takeable=np.zeros((B, NUM_KINDS), np.int8),
            keys=np.zeros(B, np.uint64),
        )
        self.game_seeds = np.zeros(B, np.int64)
        self._next_seed = 0
        self._legal_buf = np.empty(K.MAX_LEGAL, np.int64)
        self._all_rows = np.arange(B, dtype=np.int64)
        self.reset(seed)

    # -- state ------------------------------------------------------------------------
    @property
    def current(self) -> np.ndarray:
        """Seat to act in each game (meaningless where ``done``)."""
        return self._st.g[:, K.G_CURRENT]

    @property
    def phase(self) -> np.ndarray:
        return self._st.g[:, K.G_PHASE]

    @property
    def scores(self) -> np.ndarray:
        return self._st.scores

    @property
    def alive(self) -> np.ndarray:
        return self._st.alive.astype(bool)

    @property
    def round_index(self) -> np.ndarray:
        return self._st.g[:, K.G_ROUND_INDEX]

    @property
    def turns(self) -> np.ndarray:
        """Whole turns played in each game (``state.turns``)."""
        return self._st.g[:, K.G_TURNS]

    @property
    def done(self) -> np.ndarray:
        return self.phase == GAME_OVER

    # -- resetting --------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Every game anew: slot ``i`` plays the game seeded ``seed + i``."""
        if seed is None:
            seed = int(np.random.default_rng().integers(1 << 62))
        self._next_seed = int(seed)
        self.reset_games(np.ones(self.num_envs, dtype=bool))

    def reset_games(self, which, seeds=None) -> np.ndarray:
        """Start new games in the slots ``which`` (a bool mask or indices) with the next
        seeds in slot order, or with ``seeds`` (one per slot; the vector environments draw
        them as the Gymnasium wrapper does); returns the slots."""
        slots = np.asarray(which)
        slots = np.flatnonzero(slots) if slots.dtype == bool else slots.astype(np.int64)
        if seeds is None:
            seeds = self._next_seed + np.arange(len(slots), dtype=np.int64)
            self._next_seed += len(slots)
        seeds = np.asarray(seeds, dtype=np.int64)
        self.game_seeds[slots] = seeds
        keys = np.array([game_key(np.random.default_rng(int(s))) for s in seeds], dtype=np.uint64)
        K.new_games(self._st, self._tb, slots, keys)
        return slots

    def load_positions(self, rows, states) -> None:
        """Put scalar engine states (:class:`yaniv_env.yaniv.engine.State` of these rules) into the
        slots ``rows``, each at the start of a turn (the ``DISCARD`` phase, no Blast window
        open: what :func:`yaniv_env.yaniv.engine.from_position` builds, or any game between two
        turns). From there the slot plays exactly as the scalar state would: the same legal
        moves, observations and round results, its reshuffles drawn from the state's key (a
        search rolls positions out on the batched engine this way)."""
        rows = self._rows(rows)
        if len(rows) != len(states):
            raise ValueError(f"{len(rows)} rows for {len(states)} states")
        g, scores, alive, out_round, hands, hand_len, known, stock, pile, pile_cnt, top, takeable, keys = self._st
        n = self.num_players
        for b, s in zip(rows.tolist(), states, strict=True):
            if s.rules != self.rules:
                raise ValueError(f"state of rules {s.rules.name!r} ({s.num_players} players) for {self.rules.name!r}")
            if s.phase != DISCARD or s.pending is not None or s.drawn >= 0 or s.caller is not None:
                raise ValueError(f"load_positions takes states at the start of a turn; this one is in {s.phase_name}")
            g[b, :] = 0
            g[b, K.G_PHASE] = DISCARD
            g[b, K.G_CURRENT] = s.current
            g[b, K.G_TURN_PLAYER] = s.turn_player
            g[b, K.G_CALLER] = -1
            g[b, K.G_PENDING] = -1
            g[b, K.G_DRAWN] = -1
            g[b, K.G_BLAST_RANK] = -1
            g[b, K.G_STOCK_LEN] = len(s.stock)
            g[b, K.G_PILE_LEN] = len(s.pile)
            g[b, K.G_TOP_LEN] = len(s.top)
            g[b, K.G_TOP_FLASHED] = int(s.top_flashed)
            g[b, K.G_ROUND_INDEX] = s.round_index
            g[b, K.G_ROUND_TURNS] = s.round_turns
            g[b, K.G_TURNS] = s.turns
            g[b, K.G_FIRST_PLAYER] = s.first_player
            g[b, K.G_NEXT_FIRST] = s.next_first
            g[b, K.G_GAME_TRUNCATED] = int(s.game_truncated)
            g[b, K.G_DRAW_ENDS_ROUND] = int(s.draw_ends_round)
            g[b, K.G_RESHUFFLES] = s.reshuffles
            scores[b] = s.scores
            alive[b] = s.alive
            out_round[b] = s.out_round
            hands[b] = 0
            known[b] = 0
            for p in range(n):
                np.add.at(hands[b, p], s.hands[p], 1)
                np.add.at(known[b, p], s.known[p], 1)
                hand_len[b, p] = len(s.hands[p])
            stock[b, : len(s.stock)] = s.stock
            pile[b, : len(s.pile)] = s.pile
            pile_cnt[b] = 0
            np.add.at(pile_cnt[b], s.pile, 1)
            top[b, : len(s.top)] = s.top
            takeable[b] = 0
            takeable[b, list(s.takeable)] = 1
            keys[b] = np.uint64(s.key)

    def copy_rows(self, source, rows) -> None:
        """Slot ``rows[i]`` becomes a copy of slot ``source[i]`` (its whole game)."""
        source, rows = self._rows(source), self._rows(rows)
        if source.shape != rows.shape:
            raise ValueError(f"{len(source)} source slots for {len(rows)} rows")
        for a in self._st:
            a[rows] = a[source]
        self.game_seeds[rows] = self.game_seeds[source]

    def kernel_state(self) -> tuple[K.BatchState, Tables, K.StepArrays]:
        """``(state, tables, results)`` for compiled code that plays the slots itself (the
        search's rollouts, :mod:`agents.search_fast`): the state and rule tables the kernels
        take (:class:`~yaniv_env.yaniv.batched.kernels.BatchState`,
        :class:`~yaniv_env.yaniv.batched.tables.Tables`) and fresh per-step result arrays
        (:class:`~yaniv_env.yaniv.batched.kernels.StepArrays`, :class:`StepResult`'s fields).
        Writing into the state changes the games; only the kernels' ``apply`` keeps them legal."""
        return self._st, self._tb, self._result_arrays()

    # -- reading --------------------------------------------------------------------
    def _rows(self, rows) -> np.ndarray:
        """``rows`` (game indices; ``None``: every game) as a checked int64 array."""
        if rows is None:
            return self._all_rows
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        if rows.ndim != 1 or ((rows < 0) | (rows >= self.num_envs)).any():
            raise ValueError(f"rows must be game indices in 0..{self.num_envs - 1}, got {rows!r}")
        return rows

    def legal_masks(self, rows=None) -> np.ndarray:
        """bool [B, A]: the legal actions of each game's acting seat; with ``rows`` (game
        indices), of those games only, in that order (``[len(rows), A]``)."""
        rows = self._rows(rows)
        masks = np.empty((rows.size, self.num_actions), dtype=bool)
        K.legal_masks(self._st, self._tb, rows, masks)
        return masks

    def legal_actions(self, game: int) -> list[int]:
        """Sorted legal ids of one game."""
        count = K.legal_list(self._st, self._tb, game, self._legal_buf)
        return sorted(self._legal_buf[:count].tolist())

    def observations(self, seats=None, rows=None) -> np.ndarray:
        """float32 [B, S]: each game's observation from ``seats[b]`` (default: the acting
        seat), equal to ``ObservationLayout.build(state, seat)``; with ``rows`` (game
        indices), of those games only, in that order (``[len(rows), S]``; ``seats`` then
        gives one seat per row)."""
        rows = self._rows(rows)
        if seats is None:
            seats = self.current[rows]
        else:
            # a writable copy: a read-only array would be another signature for Numba to compile
            seats = np.array(np.broadcast_to(np.asarray(seats, dtype=np.int64), rows.size))
        if ((seats < 0) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be in 0..{self.num_players - 1}, got {seats.tolist()}")
        out = np.empty((rows.size, self.layout.size), dtype=np.float32)
        K.observations(self._st, self._tb, rows, seats, out)
        return out

    def card_counts(self) -> np.ndarray:
        """int64 [B, 53]: every card of each game by kind, wherever it lies (hands, stock,
        discards); each row equals the deck's counts in every reachable state."""
        out = np.empty((self.num_envs, NUM_KINDS), np.int64)
        K.card_counts(self._st, self._tb, out)
        return out

    @property
    def hand_sizes(self) -> np.ndarray:
        """int64 [B, n]: cards in each hand."""
        return self._st.hand_len

    def ranking(self) -> np.ndarray:
        """int64 [B, n]: each game's places (``engine.ranking``)."""
        out = np.empty((self.num_envs, self.num_players), np.int64)
        for b in range(self.num_envs):
            K.ranking(self._st, self._tb, b, out[b])
        return out

    # -- playing --------------------------------------------------------------------
    def _result_arrays(self) -> K.StepArrays:
        B, n = self.num_envs, self.num_players
        rs = K.StepArrays(
            *(np.zeros((B, n) if per_seat else B, dtype=dtype) for dtype, per_seat in K.STEP_ARRAYS.values())
        )
        for none in (rs.seat, rs.caller, rs.challenger, rs.reason):
            none[:] = -1
        return rs

    def step(self, actions) -> StepResult:
        """One decision in every unfinished game (see the package docstring)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} int ids, got {actions!r}")
        actions = actions.astype(np.int64)
        bad = K.first_illegal(self._st, self._tb, actions)
        if bad >= 0:
            a = int(actions[bad])
            name = action_name(self.table, a)
            legal = ", ".join(f"{i} ({self.table.name(i)})" for i in self.legal_actions(bad))
            raise ValueError(
                f"game {bad}: illegal action {a} ({name}) for player {int(self.current[bad])}; legal: {legal}"
            )
        rs = self._result_arrays()
        K.step(self._st, self._tb, rs, actions)
        result = StepResult(*rs, reset=np.zeros(self.num_envs, dtype=bool))
        if self.autoreset and result.game_over.any():
            result.reset[self.reset_games(result.game_over)] = True
        return result


def round_rewards(result: StepResult, scheme: str = "score_outcome", episode: str = "game") -> np.ndarray:
    """float64 [B, n]: the AEC environment's rewards for the rounds that ended in ``result``
    (zeros elsewhere), for reward ``scheme`` and ``episode`` (``game`` or ``round``): the one
    definition, :func:`yaniv_env.yaniv.rewards.seat_rewards`, read from the step's arrays.
    Seats already out of the game get none, as in the environment."""
    check_reward(scheme, episode)
    B, n = result.score_delta.shape
    rewards = np.zeros((B, n))
    for b in np.flatnonzero(result.round_over):
        rewards[b] = seat_rewards(
            scheme,
            episode,
            n,
            np.flatnonzero(result.hand_totals[b] >= 0).tolist(),
            result.score_delta[b].tolist(),
            np.flatnonzero(result.winners[b]).tolist(),
            result.points[b].tolist(),
            bool(result.game_over[b]),
            np.flatnonzero(result.eliminated[b]).tolist(),
            result.places[b].tolist(),
        )
    return rewards


def first_place_shares(result: StepResult, episode: str = "game") -> np.ndarray:
    """float64 [B, n]: each seat's share of the first place of the episodes that ended in
    ``result`` (zeros elsewhere): a ``game`` episode's ranking when the game is over, a
    ``round`` episode's winners; ``k`` seats tied for it share it, ``1/k`` each, as the
    evaluation's game win rate counts them. A round drawn at the turn limit has no winner."""
    if episode == "round":
        first = result.winners.astype(bool) & result.round_over[:, None]
    else:
        first = (result.places == 0) & result.game_over[:, None]
    tied = first.sum(axis=1, keepdims=True)
    return np.where(first, 1.0 / np.maximum(tied, 1), 0.0)


assert [f.name for f in fields(StepResult)][:-1] == list(K.StepArrays._fields)
