"""The arrays the batched kernels read: rule values, the discard table and the legal-move
lookups, all taken from the scalar core (:func:`yaniv_env.yaniv.actions.action_table`,
:class:`yaniv_env.yaniv.observation.ObservationLayout`), never re-derived.

Legal discards are found from the hand's counts, without scanning every discard id:

* singles: ``single_id[kind]``;
* sets: per rank, the hand's copies of each suit make a code (base ``decks + 1``, one digit
  per suit); every sub-code, with ``j`` jokers (0, or up to ``R_SET_JOKERS_MAX`` with
  ``Rules.set_jokers``), indexes ``set_ids[set_start[i] : set_start[i + 1]]`` at
  ``i = (rank * codes + code) * (R_SET_JOKERS_MAX + 1) + j``: the set ids of those cards
  (all their orders);
* runs: ``run_id[suit, low, length, joker_mask, end]`` is the id of the run of ``length``
  cards from rank ``low`` with jokers at the bits of ``joker_mask`` (-1: no such id under
  the rules, or the id is found under another reading of the same cards); ``end`` 1 is
  used with ``run_pickup="top"``, where the run may be laid with either end on top (``end``
  0: the high end). A hand lays it when it holds the natural cards and enough jokers, so
  the kernel walks the windows of each suit the hand holds cards of and, in each, the
  joker masks that cover the missing ranks.

Plain NumPy (no Numba): the tables are built once per rule set and cached.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..actions import DISCARD_BASE, SET_JOKER_MIN_NATURAL, TAKE_BASE, action_table
from ..cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS, RANK, SUIT, YANIV_VALUE
from ..observation import ObservationLayout
from ..rules import Rules

# Indices into the rule-values array ``Tables.rules`` (read by the kernels).
(
    R_PLAYERS,
    R_HAND_SIZE,
    R_CALL_MAX,
    R_ASAF,
    R_PENALTY,
    R_BEATEN_ZERO,
    R_SET_PICKUP,
    R_RUN_PICKUP,
    R_SLAM,
    R_SLAM_STOCK_ONLY,
    R_BLAST,
    R_EMPTY_WINS,
    R_MILESTONE,
    R_MILESTONE_EVERY,
    R_MILESTONE_SUBTRACT,
    R_LAST_STANDING,
    R_SCORE_LIMIT,
    R_LIMIT_INCLUSIVE,
    R_ROUNDS_PER_PLAYER,
    R_RESHUFFLE,
    R_TURN_LIMIT,
    R_ROUND_LIMIT,
    R_DECK_SIZE,
    R_DECKS,
    R_JOKERS_PER_DECK,
    R_RUN_MIN,
    R_MAX_RUN_JOKERS,
    R_RUN_MAX,
    R_PRIVATE_WINDOWS,
    R_SLAM_JOKER_ON_JOKER,
    R_BEATEN_CALLER_ALONE,
    R_NEXT_LEADER_CALLER,
    R_MILESTONE_MAX,
    R_SET_JOKER_MIN,
    R_SET_JOKERS_MAX,
    NUM_RULE_VALUES,
) = range(36)

PICKUPS = ("any", "ends", "top")
SLAMS = ("none", "single", "same_rank")
MILESTONES = ("none", "halve", "subtract", "table")
MELD_TYPES = ("single", "set", "run")

# Indices into the observation offsets array ``Tables.obs_offsets``.
OBS_PIECES = (
    "hand",
    "takeable",
    "top",
    "pending",
    "drawn",
    "known",
    "out_of_play",
    "hand_sizes",
    "scores",
    "alive",
    "turn_player",
    "caller",
    "stock",
    "round_progress",
    "phase",
    "rounds_left",
)
(
    O_HAND,
    O_TAKEABLE,
    O_TOP,
    O_PENDING,
    O_DRAWN,
    O_KNOWN,
    O_OUT_OF_PLAY,
    O_HAND_SIZES,
    O_SCORES,
    O_ALIVE,
    O_TURN_PLAYER,
    O_CALLER,
    O_STOCK,
    O_ROUND_PROGRESS,
    O_PHASE,
    O_ROUNDS_LEFT,
) = range(len(OBS_PIECES))
# Indices into the observation scales ``Tables.obs_scale``.
SCALE_HAND_SIZE, SCALE_SCORE, SCALE_STOCK, SCALE_ROUND_TURNS = range(4)


class Tables(NamedTuple):
    """Everything a kernel needs about one rule set (passed to Numba as one tuple)."""

    rules: np.ndarray  # int64 [NUM_RULE_VALUES]
    milestone_table: np.ndarray  # int64 [m, 2]
    value: np.ndarray  # int64 [53] Yaniv value of each kind
    rank: np.ndarray  # int64 [53] (-1 for the joker)
    discard_cards: np.ndarray  # int8 [D, L] cards as laid
    discard_len: np.ndarray  # int64 [D]
    discard_take: np.ndarray  # int8 [D, L] takeable kinds
    discard_take_len: np.ndarray  # int64 [D]
    discard_type: np.ndarray  # int64 [D] index in MELD_TYPES
    discard_rank: np.ndarray  # int64 [D]
    single_id: np.ndarray  # int64 [53] (-1: none)
    set_start: np.ndarray  # int64 [13 * codes + 1]
    set_ids: np.ndarray  # int64
    run_id: np.ndarray  # int64 [4, 13, run_max + 1, 2**run_max, 2]
    obs_offsets: np.ndarray  # int64 [len(OBS_PIECES)] (-1: a piece these rules do not have)
    obs_template: np.ndarray  # float32 [S] (the rules piece filled)
    obs_scale: np.ndarray  # float64 [4] (SCALE_*): 1/hand_size, 1/score_limit, 1/deck_size, 1/turn_limit


def rule_values(rules: Rules) -> np.ndarray:
    """The rule options as integers, at the ``R_*`` indices."""
    v = np.zeros(NUM_RULE_VALUES, dtype=np.int64)
    v[R_PLAYERS] = rules.num_players
    v[R_HAND_SIZE] = rules.hand_size
    v[R_CALL_MAX] = rules.call_max
    v[R_ASAF] = rules.challenge == "asaf"
    v[R_PENALTY] = rules.penalty
    v[R_BEATEN_ZERO] = rules.beaten_winners_score == "zero"
    v[R_SET_PICKUP] = PICKUPS.index(rules.set_pickup)
    v[R_RUN_PICKUP] = PICKUPS.index(rules.run_pickup)
    v[R_SLAM] = SLAMS.index(rules.slam)
    v[R_SLAM_STOCK_ONLY] = rules.slam_from_stock_only
    v[R_BLAST] = rules.blast
    v[R_EMPTY_WINS] = rules.empty_hand_wins
    v[R_MILESTONE] = MILESTONES.index(rules.milestone)
    v[R_MILESTONE_EVERY] = rules.milestone_every
    v[R_MILESTONE_SUBTRACT] = rules.milestone_subtract
    v[R_LAST_STANDING] = rules.game_end == "last_standing"
    v[R_SCORE_LIMIT] = rules.score_limit
    v[R_LIMIT_INCLUSIVE] = rules.limit_inclusive
    v[R_ROUNDS_PER_PLAYER] = -1 if rules.rounds_per_player is None else rules.rounds_per_player
    v[R_RESHUFFLE] = rules.stock_exhaustion == "reshuffle"
    v[R_TURN_LIMIT] = rules.turn_limit
    v[R_ROUND_LIMIT] = rules.round_limit
    v[R_DECK_SIZE] = rules.deck_size
    v[R_DECKS] = rules.num_decks
    v[R_JOKERS_PER_DECK] = rules.jokers_per_deck
    v[R_RUN_MIN] = rules.run_min
    v[R_MAX_RUN_JOKERS] = rules.max_run_jokers
    v[R_RUN_MAX] = min(rules.hand_size, NUM_RANKS)
    v[R_PRIVATE_WINDOWS] = rules.private_windows
    v[R_SLAM_JOKER_ON_JOKER] = rules.slam_joker_on_joker
    v[R_BEATEN_CALLER_ALONE] = rules.beaten_caller_alone
    v[R_NEXT_LEADER_CALLER] = rules.next_leader == "caller"
    milestone_max = rules.milestone_max
    v[R_MILESTONE_MAX] = -1 if milestone_max is None else milestone_max
    v[R_SET_JOKER_MIN] = SET_JOKER_MIN_NATURAL.get(rules.set_jokers, 0)
    v[R_SET_JOKERS_MAX] = min(rules.num_jokers, rules.hand_size - 1) if v[R_SET_JOKER_MIN] else 0
    return v


def set_code(suit_counts, decks: int) -> int:
    """The code of a same-rank group holding ``suit_counts[s]`` copies of each suit."""
    return sum(int(c) * (decks + 1) ** s for s, c in enumerate(suit_counts))


def run_ids(rules: Rules) -> np.ndarray:
    """``run_id`` (module docstring): every window and joker mask read as a run laid low to
    high, its id found by the cards and what they leave to take; an id met again under
    another reading of the same cards (jokers standing for other ranks) is kept once."""
    table = action_table(rules)
    run_max = min(rules.hand_size, NUM_RANKS)
    out = np.full((NUM_SUITS, NUM_RANKS, run_max + 1, 1 << run_max, 2), -1, dtype=np.int64)
    seen: set[int] = set()
    for suit in range(NUM_SUITS):
        for length in range(max(2, rules.run_min), run_max + 1):
            for low in range(NUM_RANKS - length + 1):
                for mask in range(1 << length):
                    run = [JOKER if mask >> i & 1 else suit * NUM_RANKS + low + i for i in range(length)]
                    if rules.run_pickup == "top":
                        ends = [{run[-1]}, {run[0]}]
                    else:
                        ends = [set(run) if rules.run_pickup == "any" else {run[0], run[-1]}]
                    for end, takeable in enumerate(ends):
                        try:
                            action = table.encode_discard(run, takeable)
                        except ValueError:
                            continue
                        if table.decode(action).meld == "run" and action not in seen:
                            seen.add(action)
                            out[suit, low, length, mask, end] = action
    return out


@lru_cache(maxsize=64)
def tables(rules: Rules) -> Tables:
    """The (cached) kernel tables of a rule set."""
    table = action_table(rules)
    discards = table.discards
    num = len(discards)
    width = max(len(d.cards) for d in discards)
    cards = np.full((num, width), -1, dtype=np.int8)
    take = np.full((num, width), -1, dtype=np.int8)
    for i, d in enumerate(discards):
        cards[i, : len(d.cards)] = d.cards
        take[i, : len(d.takeable)] = d.takeable
    values = rule_values(rules)
    decks = rules.num_decks
    codes = (decks + 1) ** NUM_SUITS
    set_width = values[R_SET_JOKERS_MAX] + 1
    single_id = np.full(NUM_KINDS, -1, dtype=np.int64)
    by_code: list[list[int]] = [[] for _ in range(NUM_RANKS * codes * set_width)]
    for i, d in enumerate(discards):
        action = DISCARD_BASE + i
        if d.type == "single":
            single_id[d.cards[0]] = action
        elif d.type == "set":
            counts = [0] * NUM_SUITS
            for k in d.cards:
                if k != JOKER:
                    counts[SUIT[k]] += 1
            by_code[(d.rank * codes + set_code(counts, decks)) * set_width + d.cards.count(JOKER)].append(action)
    set_start = np.zeros(len(by_code) + 1, dtype=np.int64)
    set_start[1:] = np.cumsum([len(ids) for ids in by_code])
    set_ids = np.array([a for ids in by_code for a in ids], dtype=np.int64)
    layout = ObservationLayout(rules)
    return Tables(
        rules=values,
        milestone_table=np.array(rules.milestone_table or [(-1, -1)], dtype=np.int64).reshape(-1, 2),
        value=np.array(YANIV_VALUE, dtype=np.int64),
        rank=np.array(RANK, dtype=np.int64),
        discard_cards=cards,
        discard_len=np.array([len(d.cards) for d in discards], dtype=np.int64),
        discard_take=take,
        discard_take_len=np.array([len(d.takeable) for d in discards], dtype=np.int64),
        discard_type=np.array([MELD_TYPES.index(d.type) for d in discards], dtype=np.int64),
        discard_rank=np.array([d.rank for d in discards], dtype=np.int64),
        single_id=single_id,
        set_start=set_start,
        set_ids=set_ids,
        run_id=run_ids(rules),
        obs_offsets=np.array(
            [layout.pieces[name].start if name in layout.pieces else -1 for name in OBS_PIECES], dtype=np.int64
        ),
        obs_template=layout._template.copy(),
        obs_scale=np.array(
            [1.0 / rules.hand_size, 1.0 / rules.score_limit, 1.0 / rules.deck_size, 1.0 / rules.turn_limit]
        ),
    )


@lru_cache(maxsize=64)
def greedy_tables(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """What the greedy player (:func:`yaniv_env.yaniv.batched.kernels.greedy_pick`) reads, per
    action id: the points each discard lays (float64) and whether a take takes a card worth
    3 or less (int8)."""
    table = action_table(rules)
    values = np.zeros(table.num_actions)
    values[DISCARD_BASE:] = table.meld_counts @ np.array(YANIV_VALUE)
    low_take = np.zeros(table.num_actions, np.int8)
    low_take[[TAKE_BASE + k for k in range(NUM_KINDS) if YANIV_VALUE[k] <= 3]] = 1
    return values, low_take
