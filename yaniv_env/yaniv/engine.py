"""The Yaniv rules engine: a small mutable state and the functions that play it.

No RL imports: the standard library and NumPy only. Typical use::

    from yaniv_env.yaniv import engine
    from yaniv_env import PRESETS
    state = engine.new_game(PRESETS["standard"], seed=7)
    while state.phase != engine.GAME_OVER:
        if state.phase == engine.ROUND_OVER:
            engine.start_next_round(state)
            continue
        action = my_policy(engine.legal_actions(state))
        engine.apply(state, action)          # mutates state; raises IllegalActionError
    print(engine.ranking(state))

A turn is split into decisions of the player in ``state.current``:

* ``DISCARD``: call Yaniv (hand total ≤ ``call_max``) or lay one discard id;
* ``DRAW``: draw from the stock or take a card from the *previous* discard (``state.top``,
  of which ``state.takeable`` may be taken); the set just laid is ``state.pending``;
* ``SLAM``: slam the drawn card down or pass (the slam window, below);
* ``ASAF`` (001): after a call, each other player in turn from the caller's left may
  declare Asaf or pass; the first declaration starts the duel;
* ``BLAST`` (001): between turns, Blast (complete the discard into four of a kind) or
  pass (the Blast window, below);
* ``ROUND_OVER``: ``state.round_result`` holds the round's outcome; call
  :func:`start_next_round`. ``GAME_OVER``: :func:`ranking` gives the final places.

An illegal action raises :class:`IllegalActionError` (a ``ValueError``) before anything
changes.

Deals, lots and reshuffles (the contract the batched engine copies)
-------------------------------------------------------------------
Every random draw is a pure function of the game key and of where it is made, through
the streams of :mod:`yaniv_env.core.seeding`. ``new_game(rules, seed=...)`` (or
``rng=``) draws the key once: ``key = game_key(generator(seed, rng))``; the state keeps it
in ``state.key`` and draws from no generator during play. ``r`` is ``state.round_index``
(0 for the first round), ``n = rules.num_players`` (the seats at the start, eliminated
ones included), ``H = rules.hand_size``:

1. First player of the game: ``lot(n, stream_key(key, 0, LOTS))`` (lot index 0).
2. Deal of round ``r``: ``D = shuffled(standard_deck(rules.jokers_per_deck,
   rules.num_decks), stream_key(key, r, DEAL))``, the deck in its natural order;
   ``M = len(D)``; cards are drawn from the end of a list. Seat ``p`` (``0 ≤ p < n``) owns
   the block ``D[M-(p+1)·H : M-p·H]`` (positions ``p·H … p·H+H-1`` from the drawing
   end), its hand in that list order, whoever starts the round and whatever happened
   before (``seat_blocks``). The face-up card is ``D[M-n·H-1]``; the stock is
   ``E + D[: M-n·H-1]`` (its last card drawn first), where ``E`` is the concatenation,
   by increasing seat, of the blocks of the seats out of the game: they go to the bottom
   of the stock, so the cards drawn first are the same whoever is out. Two games with
   the same key therefore deal the same hands to the same seats in every round (the
   duplicate format holds for the whole game); the face-up card and the stock too when
   the same seats are in.
3. Lots among the tied winners of round ``r`` (who starts round ``r + 1``):
   ``winners[lot(len(winners), stream_key(key, r, LOTS, 1))]``, ``winners`` in
   increasing seat order.
4. Reshuffles: the ``k``-th time the stock runs out in round ``r`` (``k = 0, 1, …``
   counted in ``state.reshuffles``, reset by each deal; an empty pile counts too), the new
   stock is ``shuffled(pile, stream_key(key, r, RESHUFFLE, k))``, ``pile`` (the discards
   below the top set) in its order on the table, oldest first.

:func:`from_position` draws its key the same way; a stock it fills itself is
``shuffled(rest, stream_key(key, round_index, DEAL))`` with ``rest`` sorted.
``State.copy(key=...)`` or ``copy(rng=...)`` re-keys a copy, so that a search does not play
on the real hidden future.

Decision windows (``Rules.private_windows``)
--------------------------------------------
With ``private_windows=True`` (the default) the sequence of players to act is a function
of public information only, so that ``agent_selection`` shows nothing the observations
hide; with ``False`` a window is offered only to a player who can use it.

* Slam window, after every draw when ``rules.slam != "none"`` and the discard just laid
  (``d``) lets a slam-down follow it: ``d`` is a single card, or a same-rank set with
  ``slam == "same_rank"``. The drawn card ``c`` is *slammable* when
  ``(from the stock or not slam_from_stock_only)`` and either ``c`` is natural with
  ``rank(c) == d.rank``, or ``c`` is a joker, ``d`` is a single joker and
  ``slam_joker_on_joker``. The drawer enters ``SLAM`` when ``c`` is slammable, or, with
  private windows, whenever ``c`` came from the stock (hidden): legal ``[SLAM, PASS]``
  if slammable, else ``[PASS]``. Otherwise the turn ends.
* Blast window (``rules.blast``), at a fresh deal and at the end of every turn, before
  the next player discards: it exists when the top set is not flashed (no slammed card),
  has fewer than 4 cards, all natural and of one rank; ``missing`` = the cards of that
  rank not in it. With private windows, no window if a missing card is out of play
  (``state.pile``, public); else every seat still in whose hand holds at least
  ``len(missing)`` cards answers, in turn order starting from ``turn_player`` (the player
  about to discard) and going round the table (``state.blast_queue``): ``[BLAST, PASS]``
  for the seat holding every missing card, ``[PASS]`` for the others. A Blast closes the
  window (nobody after it answers). Without private windows the only seat asked is the
  lowest seat holding every missing card (at most one can, with one deck). After the
  window the turn player discards.

Public information is tracked as play goes: ``state.known[seat]`` lists the cards that
seat is known to hold (taken from a discard and not yet thrown), ``state.pile`` the cards
out of play, hand sizes and scores are public. :func:`public_view` gathers them for a seat.

For the observation builder the state can also keep card *counts* beside its lists (which
stay the truth): :func:`card_counts` makes them on first use and every move keeps them up
to date from then on, through the card-move helpers (one section, the only code that
changes them); a new deal, :meth:`State.copy` and :func:`from_position` start without
them, so the engine alone never pays for them. Code that edits a state's lists by
hand (tests do) sets ``state._counts = None`` afterwards, or edits a fresh copy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core import engine as core_engine
from ..core.engine import IllegalActionError, action_mask, blank_state, illegal_action
from ..core.outcome import Outcome, places
from ..core.seeding import DEAL, LOTS, RESHUFFLE, generator, lot, rekeyed, seat_blocks, shuffled, stream_key
from .actions import (
    ASAF,
    BLAST,
    CALL_YANIV,
    DISCARD_BASE,
    DRAW_STOCK,
    PASS,
    SET_JOKER_MIN_NATURAL,
    SLAM,
    TAKE_BASE,
    Discard,
    action_table,
)
from .cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS, RANK, YANIV_VALUE, cards_name, standard_deck
from .rules import Rules

DISCARD, DRAW, SLAM_PHASE, ASAF_PHASE, BLAST_PHASE, ROUND_OVER, GAME_OVER = range(7)
PHASE_NAMES = ("discard", "draw", "slam", "asaf", "blast", "round_over", "game_over")
NUM_DECISION_PHASES = 5


@dataclass
class RoundResult:
    """How a round ended and what it did to the scores."""

    reason: str
    """``yaniv`` (a call), ``empty_hand`` (001), or ``draw`` (stock exhausted / turn limit)."""
    caller: int | None
    challenger: int | None
    caller_beaten: bool
    hand_totals: list[int | None]
    """Each seat's hand total at the end (``None`` for seats already out)."""
    points: list[int]
    """Points each seat added this round, before milestones."""
    winners: list[int]
    scores: list[int]
    """Totals after points, milestones and elimination checks."""
    eliminated: list[int] = field(default_factory=list)
    truncated: bool = False
    """The round hit ``turn_limit``."""
    first_player: int = 0
    """Who played first in this round."""
    turns: int = 0
    """Whole turns completed in the round (a Yaniv call ends the round without one)."""
    hands: list[list[int]] = field(default_factory=list)
    """Each seat's cards at the end of the round (empty for seats already out): what
    everyone reveals."""


def hand_value(hand: Sequence[int]) -> int:
    """Yaniv total of a hand of card kinds."""
    return sum(map(YANIV_VALUE.__getitem__, hand))


class State:
    """The whole game. Fields are public for reading; change them only through
    :func:`apply` and :func:`start_next_round` (or build positions with :func:`from_position`).
    """

    __slots__ = (
        "rules", "table", "key", "reshuffles", "num_players", "scores", "alive", "out_round", "hands", "known",
        "stock", "pile", "top", "takeable", "take_ids", "top_flashed", "pending", "drawn",
        "drawn_slammable", "phase", "current", "turn_player", "caller", "asaf_queue",
        "blast_cards", "blast_queue", "round_index", "round_turns", "turns", "first_player", "next_first",
        "round_result", "game_truncated", "draw_ends_round", "_counts",
    )  # fmt: skip

    def copy(self, rng: np.random.Generator | None = None, key: int | None = None) -> State:
        """An independent copy (for search). The copy keeps this game's key (the same
        future reshuffles, lots and deals) unless re-keyed: ``key`` gives the copy that
        key, ``rng`` draws a new one from that generator
        (:func:`yaniv_env.core.seeding.game_key`), so that a search does not play on the real
        hidden future."""
        new = State.__new__(State)
        for name in State.__slots__:
            setattr(new, name, getattr(self, name))
        new.key = rekeyed(self.key, rng, key)
        new.scores = list(self.scores)
        new.alive = list(self.alive)
        new.out_round = list(self.out_round)
        new.hands = [list(h) for h in self.hands]
        new.known = [list(k) for k in self.known]
        new.stock = list(self.stock)
        new.pile = list(self.pile)
        new.top = list(self.top)
        new.asaf_queue = list(self.asaf_queue)
        new.blast_queue = list(self.blast_queue)
        new._counts = None  # made again from the lists when needed
        return new

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def __repr__(self) -> str:
        hands = "; ".join(f"P{i}: {cards_name(h)}" for i, h in enumerate(self.hands))
        return (
            f"State({self.rules.name}, round {self.round_index}, {self.phase_name}, P{self.current} to act, "
            f"scores {self.scores}, top {cards_name(self.top)}, {hands})"
        )


# -- setting up ---------------------------------------------------------------------


def _empty_state(rules: Rules, rng: np.random.Generator) -> State:
    s = blank_state(State, rules, action_table(rules), rng)
    n = rules.num_players
    s.alive = [True] * n
    s.out_round = [-1] * n
    s.known = [[] for _ in range(n)]
    s.stock, s.pile, s.top = [], [], []
    s.takeable, s.take_ids = (), ()
    s.top_flashed = False
    s.pending = None
    s.drawn, s.drawn_slammable = -1, False
    s.phase, s.current, s.turn_player = DISCARD, 0, 0
    s.caller = None
    s.asaf_queue, s.blast_cards, s.blast_queue = [], (), []
    s.round_index, s.round_turns, s.turns = 0, 0, 0
    s.first_player = s.next_first = 0
    s.round_result = None
    s.game_truncated = False
    s.draw_ends_round = False
    s._counts = None
    return s


def new_game(rules: Rules, seed: int | None = None, rng: np.random.Generator | None = None) -> State:
    """A new game, first round dealt. The first player is drawn by lots."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules object, got {type(rules).__name__}")
    s = _empty_state(rules, generator(seed, rng))
    s.first_player = lot(rules.num_players, stream_key(s.key, 0, LOTS))
    _deal(s)
    return s


def _deal(s: State) -> None:
    """Deal round ``s.round_index`` as the module docstring's contract says."""
    s._counts = None  # made again from the new deal when needed
    rules = s.rules
    n = s.num_players
    deck = shuffled(standard_deck(rules.jokers_per_deck, rules.num_decks), stream_key(s.key, s.round_index, DEAL))
    blocks, stock = seat_blocks(deck, n, rules.hand_size)
    top = stock.pop()
    out = [block for p, block in enumerate(blocks) if not s.alive[p]]
    s.hands = [block if s.alive[p] else [] for p, block in enumerate(blocks)]
    s.known = [[] for _ in range(n)]
    s.stock = [k for block in out for k in block] + stock if out else stock
    s.reshuffles = 0
    s.pile = []
    _set_top(s, [top], None)
    s.pending = None
    s.round_turns = 0
    s.round_result = None
    s.caller = None
    s.asaf_queue = []
    s.draw_ends_round = False
    s.current = s.turn_player = s.first_player
    s.phase = DISCARD
    _offer_blast(s)


_TAKE_BASE_PLUS = TAKE_BASE.__add__


def _set_top(s: State, cards: list[int], discard: Discard | None) -> None:
    """Put ``cards`` on top of the pile; what may be taken follows the rules."""
    s.top = cards
    if discard is not None:
        s.takeable = discard.takeable
    else:
        s.takeable = _takeable_of(s.rules, cards)
    s.take_ids = tuple(map(_TAKE_BASE_PLUS, s.takeable))
    s.top_flashed = False
    if s._counts is not None:
        _recount_top(s._counts, s)


def _takeable_of(rules: Rules, cards: list[int]) -> tuple[int, ...]:
    """What may be taken from ``cards`` laid in this order (a set, a run or one card)."""
    if len(cards) == 1:
        return (cards[0],)
    natural = [k for k in cards if k != JOKER]
    jokers = len(cards) - len(natural)
    is_set = len({RANK[k] for k in natural}) == 1 and (
        not jokers or len(natural) >= SET_JOKER_MIN_NATURAL.get(rules.set_jokers, len(cards))
    )
    pickup = rules.set_pickup if is_set else rules.run_pickup
    if pickup == "any":
        return tuple(sorted(set(cards)))
    if pickup == "top":
        return (cards[-1],)
    return tuple(sorted({cards[0], cards[-1]}))


def from_position(
    rules: Rules,
    hands: Sequence[Sequence[int]],
    top: Sequence[int],
    *,
    stock: Sequence[int] | None = None,
    pile: Sequence[int] = (),
    takeable: Sequence[int] | None = None,
    current: int = 0,
    scores: Sequence[int] | None = None,
    alive: Sequence[bool] | None = None,
    known: Sequence[Sequence[int]] | None = None,
    round_index: int = 0,
    blast_window: bool = False,
    seed: int | None = None,
    rng: np.random.Generator | None = None,
) -> State:
    """A position at the start of ``current``'s turn (``DISCARD`` phase), or, with
    ``blast_window=True``, just before it with the Blast window open on ``top`` as a fresh
    deal or a finished turn opens it (``BLAST`` phase; a ``ValueError`` if the rules or
    the position open no window).

    ``hands``: card kinds per seat (an eliminated seat holds none); ``top``: the previous
    discard as laid (``takeable`` defaults to what the rules let the next player take from
    it); ``stock``: the stock, its last element drawn first (default: the rest of the deck,
    shuffled by ``seed``); ``pile``: cards out of play below the top set; ``known``: cards
    each seat is known to hold. Every card of the deck must be in exactly one place.
    """
    s = _empty_state(rules, generator(seed, rng))
    _place_hands(s, hands, alive)
    _place_table(s, top, stock, pile, round_index)
    if takeable is not None:
        _place_takeable(s, takeable, top)
    _place_players(s, current, scores, known)
    s.round_index = round_index
    s.out_round = [-1 if a else max(round_index - 1, 0) for a in s.alive]
    s.phase = DISCARD
    if blast_window:
        _offer_blast(s)
        if s.phase != BLAST_PHASE:
            raise ValueError(f"blast_window: the {rules.name!r} rules open no Blast window on {cards_name(top)} here")
    return s


def _place_hands(s: State, hands: Sequence[Sequence[int]], alive: Sequence[bool] | None) -> None:
    """:func:`from_position`'s hands and the seats still in (at least two)."""
    n = s.num_players
    if len(hands) != n:
        raise ValueError(f"hands: {len(hands)} hands given for {n} players")
    s.alive = [True] * n if alive is None else [bool(a) for a in alive]
    if len(s.alive) != n or sum(s.alive) < 2:
        raise ValueError(f"alive: need {n} flags with at least two players in, got {alive!r}")
    s.hands = [[int(k) for k in h] for h in hands]
    for p, h in enumerate(s.hands):
        if len(h) > s.rules.hand_size:
            raise ValueError(f"hands[{p}]: {len(h)} cards, more than the hand size {s.rules.hand_size}")
        if not s.alive[p] and h:
            raise ValueError(f"hands[{p}]: seat {p} is out of the game and holds no cards")


def _place_table(
    s: State, top: Sequence[int], stock: Sequence[int] | None, pile: Sequence[int], round_index: int
) -> None:
    """:func:`from_position`'s top set, pile and stock: with the hands, every card of the
    deck exactly once (the default stock: the cards left, shuffled by the round's deal
    stream)."""
    rules = s.rules
    if not top:
        raise ValueError("top: the previous discard needs at least one card")
    deck = Counter(standard_deck(rules.jokers_per_deck, rules.num_decks))
    placed = Counter(k for h in s.hands for k in h) + Counter(top) + Counter(pile)
    extra = placed - deck
    if extra:
        raise ValueError(f"cards not in the deck (or placed twice): {cards_name(sorted(extra.elements()))}")
    rest = sorted((deck - placed).elements())
    if stock is None:
        stock = shuffled(rest, stream_key(s.key, round_index, DEAL))
    elif Counter(stock) != deck - placed:
        raise ValueError(f"stock: must hold exactly the cards placed nowhere else: {cards_name(rest)}")
    s.stock = [int(k) for k in stock]
    s.pile = [int(k) for k in pile]
    _set_top(s, [int(k) for k in top], None)


def _place_takeable(s: State, takeable: Sequence[int], top: Sequence[int]) -> None:
    """:func:`from_position`'s ``takeable``: cards of the top set, instead of the rules' own."""
    takeable = tuple(sorted({int(k) for k in takeable}))
    if not takeable or not set(takeable) <= set(top):
        raise ValueError(f"takeable: {cards_name(takeable)} must be cards of the top set {cards_name(top)}")
    s.takeable = takeable
    s.take_ids = tuple(TAKE_BASE + k for k in takeable)


def _place_players(s: State, current: int, scores: Sequence[int] | None, known: Sequence[Sequence[int]] | None) -> None:
    """:func:`from_position`'s seat to act (who also started the round), scores and the cards
    each seat is known to hold (cards of its hand)."""
    n = s.num_players
    if not (0 <= current < n and s.alive[current]):
        raise ValueError(f"current: seat {current} is not a player in the game")
    s.current = s.turn_player = s.first_player = current
    if scores is not None:
        if len(scores) != n:
            raise ValueError(f"scores: {len(scores)} scores for {n} players")
        s.scores = [int(v) for v in scores]
    if known is not None:
        if len(known) != n:
            raise ValueError(f"known: {len(known)} lists for {n} players")
        for p, ks in enumerate(known):
            if Counter(ks) - Counter(s.hands[p]):
                raise ValueError(f"known[{p}]: {cards_name(ks)} are not all in that hand")
        s.known = [[int(k) for k in ks] for ks in known]


# -- card moves and card counts -------------------------------------------------------
#
# ``card_counts(s)`` is a bytearray of rows of NUM_KINDS counts (row r at r * NUM_KINDS):
# each seat's hand (rows 0..n-1), the cards each seat is known to hold (n..2n-1), then the
# takeable cards, the top set, the pending set (the set just laid, while it is pending),
# the pile below the top set, and a row of zeros.
#
# Every move of a card during a round goes through the helpers of this section (and
# ``_set_top``, through ``_recount_top``), which change the state's lists and, when the
# state has counts, the counts with them: no rule function touches ``_counts``. A new
# deal, ``State.copy`` and ``from_position`` drop the counts instead.


def _takeable_row(n: int) -> int:
    return 2 * n  # the top row follows


def _pending_row(n: int) -> int:
    return 2 * n + 2


def _pile_row(n: int) -> int:
    return 2 * n + 3  # the zero row follows


def count_rows(n: int) -> dict[str, int]:
    """The rows of :func:`card_counts` with ``n`` players, by name (``hand_p`` and
    ``known_p`` per seat ``p``)."""
    rows = {f"hand_{p}": p for p in range(n)} | {f"known_{p}": n + p for p in range(n)}
    take, pile = _takeable_row(n), _pile_row(n)
    return rows | {"takeable": take, "top": take + 1, "pending": _pending_row(n), "pile": pile, "zeros": pile + 1}


_ZERO_ROWS = bytes(2 * NUM_KINDS)


def _count(c: bytearray, start: int, cards, delta: int) -> None:
    for k in cards:
        c[start + k] += delta


def _leave_hand(s: State, p: int, rest: list[int], cards) -> None:
    """``p`` threw ``cards`` (``rest`` is its hand without them): they leave its hand and
    are no longer known to be in it."""
    s.hands[p] = rest
    c = s._counts
    if c is not None:
        _count(c, p * NUM_KINDS, cards, -1)
    known = s.known[p]
    if known:
        for k in cards:
            if k in known:
                known.remove(k)
                if c is not None:
                    c[(s.num_players + p) * NUM_KINDS + k] -= 1


def _to_hand(s: State, p: int, card: int, from_top: bool) -> None:
    """``card`` (popped from the stock, or taken from the top set: then everyone knows
    ``p`` holds it) joins ``p``'s hand. The top rows are counted again by the
    ``_set_top`` that follows every draw."""
    s.hands[p].append(card)
    if from_top:
        s.top.remove(card)
        s.known[p].append(card)
    c = s._counts
    if c is not None:
        c[p * NUM_KINDS + card] += 1
        if from_top:
            c[(s.num_players + p) * NUM_KINDS + card] += 1


def _lay_pending(s: State, d: Discard) -> None:
    """The discard ``d`` waits beside the top set until the discarder has drawn."""
    s.pending = d
    if s._counts is not None:
        _count(s._counts, _pending_row(s.num_players) * NUM_KINDS, d.cards, 1)


def _clear_pending(s: State) -> None:
    """No discard is pending any more (it became the top set, or the round ended)."""
    if s.pending is not None and s._counts is not None:
        _count(s._counts, _pending_row(s.num_players) * NUM_KINDS, s.pending.cards, -1)
    s.pending = None


def _top_to_pile(s: State) -> None:
    """The top set goes out of play, below the next top set (``_set_top`` follows)."""
    if s._counts is not None:
        _count(s._counts, _pile_row(s.num_players) * NUM_KINDS, s.top, 1)
    s.pile.extend(s.top)


def _pile_to_stock(s: State) -> None:
    """The stock ran out: the pile below the top set is shuffled into a new stock."""
    s.stock = shuffled(s.pile, stream_key(s.key, s.round_index, RESHUFFLE, s.reshuffles))
    s.reshuffles += 1
    s.pile = []
    if s._counts is not None:
        row = _pile_row(s.num_players) * NUM_KINDS
        s._counts[row : row + NUM_KINDS] = _ZERO_ROWS[:NUM_KINDS]


def _recount_top(c: bytearray, s: State) -> None:
    """Count the takeable cards and the top set of ``s`` again."""
    row = _takeable_row(s.num_players) * NUM_KINDS  # the takeable row, then the top row
    c[row : row + 2 * NUM_KINDS] = _ZERO_ROWS
    for k in s.takeable:
        c[row + k] += 1
    row += NUM_KINDS
    for k in s.top:
        c[row + k] += 1


def card_counts(s: State) -> bytearray:
    """The card count rows of ``s`` (see :func:`count_rows`): kept up to date by every move
    once made; made from the state's lists when the state has none yet."""
    c = s._counts
    if c is None:
        n = s.num_players
        c = bytearray((_pile_row(n) + 2) * NUM_KINDS)
        for p in range(n):
            _count(c, p * NUM_KINDS, s.hands[p], 1)
            _count(c, (n + p) * NUM_KINDS, s.known[p], 1)
        _count(c, _takeable_row(n) * NUM_KINDS, s.takeable, 1)
        _count(c, (_takeable_row(n) + 1) * NUM_KINDS, s.top, 1)
        if s.pending is not None:
            _count(c, _pending_row(n) * NUM_KINDS, s.pending.cards, 1)
        _count(c, _pile_row(n) * NUM_KINDS, s.pile, 1)
        s._counts = c
    return c


# -- legal moves ----------------------------------------------------------------------


def legal_actions(s: State) -> list[int]:
    """Sorted ids of every legal action for ``s.current`` (empty between rounds)."""
    phase = s.phase
    if phase == DISCARD:
        hand = s.hands[s.current]
        acts = s.table.legal_discards(hand)
        if hand_value(hand) <= s.rules.call_max:
            acts.insert(0, CALL_YANIV)
        return acts
    if phase == DRAW:
        return [DRAW_STOCK, *s.take_ids] if s.stock else list(s.take_ids)
    if phase == SLAM_PHASE:
        return [SLAM, PASS] if s.drawn_slammable else [PASS]
    if phase == ASAF_PHASE:
        return [ASAF, PASS]
    if phase == BLAST_PHASE:
        return [BLAST, PASS] if _holds(s.hands[s.current], s.blast_cards) else [PASS]
    return []


def legal_mask(s: State) -> np.ndarray:
    """The legal actions as an ``int8`` mask of length ``table.num_actions``."""
    return action_mask(legal_actions(s), s.table.num_actions)


# -- playing --------------------------------------------------------------------------


def apply(s: State, action: int) -> None:
    """Play ``action`` for ``s.current``, mutating ``s``. Raises :class:`IllegalActionError`
    (leaving ``s`` unchanged) if the action is not legal."""
    if type(action) is not int or not 0 <= action < s.table.num_actions:  # else a valid id already
        try:
            action = s.table.check_id(action)
        except ValueError as e:
            raise IllegalActionError(str(e)) from None
    phase = s.phase
    if phase == DISCARD:
        _apply_discard(s, action)
    elif phase == DRAW:
        _apply_draw(s, action)
    elif phase == SLAM_PHASE:
        _apply_slam(s, action)
    elif phase == ASAF_PHASE:
        _apply_asaf(s, action)
    elif phase == BLAST_PHASE:
        _apply_blast(s, action)
    else:
        raise illegal_action(s, action, "no decision is pending (start the next round or the game is over)")


def _remove(hand: list[int], cards) -> list[int] | None:
    """``hand`` without ``cards`` (a new list), or None if the hand lacks one of them."""
    rest = list(hand)
    try:
        for k in cards:
            rest.remove(k)
    except ValueError:
        return None
    return rest


def _apply_discard(s: State, action: int) -> None:
    p = s.current
    hand = s.hands[p]
    if action == CALL_YANIV:
        total = hand_value(hand)
        if total > s.rules.call_max:
            raise illegal_action(s, action, f"hand total {total} is above the call limit {s.rules.call_max}")
        s.turns += 1
        s.caller = p
        if s.rules.challenge == "asaf":
            n = s.num_players
            s.asaf_queue = [(p + i) % n for i in range(1, n) if s.alive[(p + i) % n]]
            s.phase = ASAF_PHASE
            s.current = s.asaf_queue[0]
        else:
            _end_round(s, "yaniv", caller=p)
        return
    if action < DISCARD_BASE:
        raise illegal_action(s, action, "discard a card or set, or call Yaniv")
    d = s.table.discards[action - DISCARD_BASE]
    rest = _remove(hand, d.cards)
    if rest is None:
        raise illegal_action(s, action, f"the hand {cards_name(hand)} does not hold {cards_name(d.cards)}")
    _leave_hand(s, p, rest, d.cards)
    _lay_pending(s, d)
    if not rest and s.rules.empty_hand_wins:
        _top_to_pile(s)
        _set_top(s, list(d.cards), d)
        s.turns += 1
        _end_round(s, "empty_hand", empty=p)
        return
    s.phase = DRAW


def _apply_draw(s: State, action: int) -> None:
    p = s.current
    if action == DRAW_STOCK:
        if not s.stock:
            raise illegal_action(s, action, "the stock is empty")
        card = s.stock.pop()
        from_stock = True
    elif TAKE_BASE <= action < DISCARD_BASE and action in s.take_ids:
        card = action - TAKE_BASE
        from_stock = False
    else:
        raise illegal_action(s, action, f"draw from the stock or take one of {cards_name(s.takeable)}")
    _to_hand(s, p, card, from_top=not from_stock)
    d = s.pending
    _top_to_pile(s)
    _set_top(s, list(d.cards), d)
    _clear_pending(s)
    if not s.stock:
        if s.rules.stock_exhaustion == "reshuffle":
            _pile_to_stock(s)
        else:
            s.draw_ends_round = True
    rules = s.rules
    if rules.slam != "none" and (d.type == "single" or (d.type == "set" and rules.slam == "same_rank")):
        slammable = (from_stock or not rules.slam_from_stock_only) and (
            RANK[card] == d.rank if card != JOKER else d.cards == (JOKER,) and rules.slam_joker_on_joker
        )
        # With private windows a card from the stock (hidden) always opens the window.
        if slammable or (from_stock and rules.private_windows):
            s.drawn, s.drawn_slammable = card, slammable
            s.phase = SLAM_PHASE
            return
    _end_turn(s)


def _apply_slam(s: State, action: int) -> None:
    p = s.current
    if action == SLAM and s.drawn_slammable:
        card = s.drawn
        _leave_hand(s, p, _remove(s.hands[p], (card,)), (card,))
        _set_top(s, s.top + [card], None)
        s.top_flashed = True
        if not s.hands[p] and s.rules.empty_hand_wins:
            s.turns += 1
            _end_round(s, "empty_hand", empty=p)
            return
    elif action == PASS:
        pass
    else:
        raise illegal_action(s, action, "slam down the drawn card or pass" if s.drawn_slammable else "pass")
    _end_turn(s)


def _end_turn(s: State) -> None:
    s.turns += 1
    s.round_turns += 1
    s.drawn, s.drawn_slammable = -1, False
    if s.draw_ends_round:
        _end_round(s, "draw")
        return
    if s.round_turns >= s.rules.turn_limit:
        _end_round(s, "draw", truncated=True)
        return
    s.turn_player = s.current = _next_alive(s, s.turn_player)
    s.phase = DISCARD
    _offer_blast(s)


def _next_alive(s: State, seat: int) -> int:
    n = s.num_players
    for i in range(1, n + 1):
        if s.alive[(seat + i) % n]:
            return (seat + i) % n
    raise AssertionError("no player left")


def _offer_blast(s: State) -> None:
    """Between turns (001): open the Blast window on the discard (see the module
    docstring): to every player who may answer, in turn from ``turn_player``, with private
    windows; else to the player who can complete the discard."""
    rules = s.rules
    top = s.top
    if not rules.blast or s.top_flashed or len(top) >= NUM_SUITS:
        return
    rank = RANK[top[0]]
    if rank < 0:
        return
    for k in top:
        if RANK[k] != rank:
            return
    missing = tuple(k for k in range(rank, NUM_SUITS * NUM_RANKS, NUM_RANKS) if k not in top)
    n = s.num_players
    if rules.private_windows:
        if any(k in s.pile for k in missing):  # public: nobody can complete it
            return
        order = [(s.turn_player + i) % n for i in range(n)]
        queue = [p for p in order if s.alive[p] and len(s.hands[p]) >= len(missing)]
    else:
        alive, hands = s.alive, s.hands
        queue = next(([p] for p in range(n) if alive[p] and _holds(hands[p], missing)), [])
    if queue:
        s.blast_cards = missing
        s.blast_queue = queue
        s.current = queue[0]
        s.phase = BLAST_PHASE


def _holds(hand: list[int], cards) -> bool:
    return all(k in hand for k in cards)


def _apply_blast(s: State, action: int) -> None:
    p = s.current
    if action == BLAST and _holds(s.hands[p], s.blast_cards):
        _leave_hand(s, p, _remove(s.hands[p], s.blast_cards), s.blast_cards)
        _set_top(s, s.top + list(s.blast_cards), None)
        if not s.hands[p] and s.rules.empty_hand_wins:
            s.blast_cards, s.blast_queue = (), []
            _end_round(s, "empty_hand", empty=p)
            return
    elif action == PASS:
        s.blast_queue.pop(0)
        if s.blast_queue:
            s.current = s.blast_queue[0]
            return
    else:
        raise illegal_action(s, action, "Blast or pass" if _holds(s.hands[p], s.blast_cards) else "pass")
    s.blast_cards = ()
    s.blast_queue = []
    s.current = s.turn_player
    s.phase = DISCARD


def _apply_asaf(s: State, action: int) -> None:
    p = s.current
    if action == ASAF:
        _end_round(s, "yaniv", caller=s.caller, challenger=p)
    elif action == PASS:
        s.asaf_queue.pop(0)
        if s.asaf_queue:
            s.current = s.asaf_queue[0]
        else:
            _end_round(s, "yaniv", caller=s.caller)
    else:
        raise illegal_action(s, action, "declare Asaf or pass")


# -- round and game end ---------------------------------------------------------------


def _end_round(
    s: State,
    reason: str,
    caller: int | None = None,
    challenger: int | None = None,
    empty: int | None = None,
    truncated: bool = False,
) -> None:
    """The round is over: every hand is revealed and scored (after a call, by the reveal or
    the Asaf duel; after an empty hand, everyone else; a drawn round scores nothing), the
    points are added with their milestones, players past the limit leave or end the game,
    the round is recorded and the next round's first player is chosen."""
    n = s.num_players
    seats = [p for p in range(n) if s.alive[p]]
    totals: list[int | None] = [hand_value(s.hands[p]) if s.alive[p] else None for p in range(n)]
    if reason == "yaniv" and s.rules.challenge == "asaf":
        points, winners, beaten = _score_asaf_duel(s.rules, totals, caller, challenger)
    elif reason == "yaniv":
        points, winners, beaten = _score_reveal(s.rules, seats, totals, caller)
    elif reason == "empty_hand":  # 001: the empty hand wins
        points, winners, beaten = _others_add_hands(totals, empty), [empty], False
    else:
        points, winners, beaten = [0] * n, [], False
    _add_points(s, seats, points)
    passed = [p for p in seats if past_limit(s.rules, s.scores[p])]
    eliminated = _eliminate(s, passed) if s.rules.game_end == "last_standing" else []
    game_over = _game_ends(s, passed)
    s.round_result = RoundResult(
        reason=reason,
        caller=caller,
        challenger=challenger,
        caller_beaten=beaten,
        hand_totals=totals,
        points=points,
        winners=winners,
        scores=list(s.scores),
        eliminated=eliminated,
        truncated=truncated,
        first_player=s.first_player,
        turns=s.round_turns,
        hands=[list(h) for h in s.hands],
    )
    if not game_over:
        s.next_first = _next_first_player(s, caller, winners)
    _clear_pending(s)
    s.phase = GAME_OVER if game_over else ROUND_OVER


def _others_add_hands(totals: list, seat: int) -> list[int]:
    """Points where every seat in the round but ``seat`` adds its hand (``totals``: ``None``
    for the seats out)."""
    return [t if t is not None and p != seat else 0 for p, t in enumerate(totals)]


def _score_asaf_duel(
    rules: Rules, totals: list, caller: int, challenger: int | None
) -> tuple[list[int], list[int], bool]:
    """A call under ``challenge="asaf"``: ``(points, winners, caller beaten)``. The duel (if
    anyone declared Asaf) goes to the lower total, ties to the challenger; its loser adds
    the penalty, its winner nothing, everyone else their hand (or nothing, when the beaten
    caller scores alone)."""
    points = _others_add_hands(totals, caller)
    beaten = challenger is not None and totals[challenger] <= totals[caller]
    winner, loser = (challenger, caller) if beaten else (caller, challenger)
    if loser is not None:
        points[loser] = totals[loser] + rules.penalty
    points[winner] = 0
    if beaten and rules.beaten_caller_alone:
        points = [0] * rules.num_players
        points[caller] = totals[caller] + rules.penalty
    return points, [winner], beaten


def _score_reveal(rules: Rules, seats: list[int], totals: list, caller: int) -> tuple[list[int], list[int], bool]:
    """A call under ``challenge="reveal"``: ``(points, winners, caller beaten)``. Everyone
    but the caller adds their hand; a total at or below the caller's beats the call: the
    caller adds the penalty, the lowest hands win (and score nothing with
    ``beaten_winners_score="zero"``; nobody but the caller scores with
    ``beaten_caller_alone``); else the caller wins with nothing."""
    points = _others_add_hands(totals, caller)
    others = [p for p in seats if p != caller]
    low = min(totals[p] for p in others)
    if low > totals[caller]:
        return points, [caller], False
    winners = [p for p in others if totals[p] == low]
    if rules.beaten_caller_alone:
        points = [0] * rules.num_players
    elif rules.beaten_winners_score == "zero":
        for p in winners:
            points[p] = 0
    points[caller] = totals[caller] + rules.penalty
    return points, winners, True


def _add_points(s: State, seats: list[int], points: list[int]) -> None:
    """Each seat that scored adds its points; a milestone may then change its total."""
    for p in seats:
        if points[p] > 0:
            s.scores[p] = after_milestone(s.rules, s.scores[p] + points[p])


def _eliminate(s: State, passed: list[int]) -> list[int]:
    """``last_standing``: the players past the limit are out of the game (returned)."""
    for p in passed:
        s.alive[p] = False
        s.out_round[p] = s.round_index
    return list(passed)


def _game_ends(s: State, passed: list[int]) -> bool:
    """Whether this round ends the game: one player left (``last_standing``), or anyone past
    the limit or the fixed round count played (``first_to_limit``); ``round_limit`` ends
    any game, as truncated."""
    rules = s.rules
    rounds_played = s.round_index + 1
    if rules.game_end == "last_standing":
        game_over = sum(s.alive) <= 1
    else:
        game_over = bool(passed) or (rules.total_rounds is not None and rounds_played >= rules.total_rounds)
    if not game_over and rounds_played >= rules.round_limit:
        s.game_truncated = True
        return True
    return game_over


def _next_first_player(s: State, caller: int | None, winners: list[int]) -> int:
    """Who starts the next round: the round winner (or the caller, ``next_leader="caller"``);
    lots among tied winners; after a drawn round, the seat after this round's first player;
    the next seat still in if that one is out."""
    if caller is not None and s.rules.next_leader == "caller":
        nxt = caller
    elif len(winners) > 1:
        nxt = winners[lot(len(winners), stream_key(s.key, s.round_index, LOTS, 1))]
    else:
        nxt = winners[0] if winners else _next_alive(s, s.first_player)
    return nxt if s.alive[nxt] else _next_alive(s, nxt)


def past_limit(rules: Rules, total: int) -> bool:
    """Whether ``total`` is past the score limit: above it, or at it when reaching it counts
    (``limit_inclusive``)."""
    return total > rules.score_limit or (rules.limit_inclusive and total >= rules.score_limit)


def after_milestone(rules: Rules, total: int) -> int:
    """A player's total once the rules' milestone has applied to it (``total`` itself when
    it lands on none): what a round's points lead to before the elimination check."""
    kind = rules.milestone
    if kind == "none":
        return total
    if kind == "table":
        return dict(rules.milestone_table).get(total, total)
    if (
        total > 0
        and total % rules.milestone_every == 0
        and (rules.milestone_max is None or total <= rules.milestone_max)
    ):
        return total // 2 if kind == "halve" else total - rules.milestone_subtract
    return total


def start_next_round(s: State) -> None:
    """Deal the next round (after ``ROUND_OVER``); the round winner (lots among tied
    winners) plays first."""
    if s.phase != ROUND_OVER:
        raise IllegalActionError(f"the round is not over (phase {s.phase_name})")
    s.round_index += 1
    s.first_player = s.next_first
    _deal(s)


def ranking(s: State) -> list[int]:
    """Each seat's place (0 = first), ties sharing the better place. Meaningful at any
    time; final once the game is over. ``last_standing``: players still in rank first,
    then the later a player went out the better; ties by lower score."""
    if s.rules.game_end == "last_standing":
        keys = [(0 if s.alive[p] else 1, -s.out_round[p], s.scores[p]) for p in range(s.num_players)]
    else:
        keys = [(s.scores[p],) for p in range(s.num_players)]
    return places(keys)


def outcome(s: State, result: RoundResult | None = None) -> Outcome:
    """How round ``result`` (default: the last finished one) ended for each seat: places by
    the points taken in it among the seats that played it, and who left the game with it
    (eliminated, or over the limit when it ended a ``first_to_limit`` game)."""
    rr = s.round_result if result is None else result
    return round_outcome(s.rules, rr, ended_game=s.phase == GAME_OVER and rr is s.round_result)


def round_outcome(rules: Rules, rr: RoundResult, ended_game: bool) -> Outcome:
    """:func:`outcome` from the round's result alone: ``ended_game`` says whether the round
    ended the game (in a ``first_to_limit`` game, who is over the limit leaves only then).
    For callers that keep round results but no state, such as the batched evaluation."""
    played = tuple(p for p, t in enumerate(rr.hand_totals) if t is not None)
    by_points = places([rr.points[p] for p in played])
    seat_places = [None] * len(rr.hand_totals)
    for p, place in zip(played, by_points, strict=True):
        seat_places[p] = place
    if rules.game_end == "last_standing":
        gone = list(rr.eliminated)
    elif ended_game:
        gone = [p for p in played if past_limit(rules, rr.scores[p])]
    else:
        gone = []
    return Outcome(tuple(seat_places), tuple(sorted(gone, key=lambda p: (-rr.scores[p], p))))


def is_over(s: State) -> bool:
    return s.phase == GAME_OVER


scores = core_engine.scores  # the cumulative scores (a copy), as every game's engine gives them


@dataclass(frozen=True)
class PublicView:
    """What ``seat`` knows: its own hand and everything public, seats in absolute order."""

    seat: int
    hand: tuple[int, ...]
    known: tuple[tuple[int, ...], ...]
    """Cards each seat is known to hold (taken from a discard, not yet thrown)."""
    hand_sizes: tuple[int, ...]
    top: tuple[int, ...]
    takeable: tuple[int, ...]
    pending: tuple[int, ...]
    out_of_play: tuple[int, ...]
    """Discarded cards below the top set: out of play until the stock runs out and they
    are shuffled into a new stock (``stock_exhaustion="reshuffle"``)."""
    stock_size: int
    scores: tuple[int, ...]
    alive: tuple[bool, ...]
    phase: int
    current: int
    turn_player: int


def public_view(s: State, seat: int) -> PublicView:
    """The information available to ``seat``; nothing hidden from it is included."""
    return PublicView(
        seat=seat,
        hand=tuple(s.hands[seat]),
        known=tuple(tuple(k) for k in s.known),
        hand_sizes=tuple(len(h) for h in s.hands),
        top=tuple(s.top),
        takeable=tuple(s.takeable),
        pending=tuple(s.pending.cards) if s.pending is not None else (),
        out_of_play=tuple(s.pile),
        stock_size=len(s.stock),
        scores=tuple(s.scores),
        alive=tuple(s.alive),
        phase=s.phase,
        current=s.current,
        turn_player=s.turn_player,
    )


def all_cards(s: State) -> Counter:
    """Every card in every place (for conservation checks)."""
    c = Counter(s.stock) + Counter(s.pile) + Counter(s.top)
    for h in s.hands:
        c.update(h)
    if s.pending is not None and s.phase == DRAW:
        c.update(s.pending.cards)
    return c
