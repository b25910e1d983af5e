"""The Pis Yedili rules engine: a small mutable state and the functions that play it.

No RL imports: the standard library and NumPy only. Typical use::

    from yaniv_env.pis_yedili import engine, PRESETS
    state = engine.new_game(PRESETS["standard"].with_players(4), seed=7)
    while state.phase != engine.GAME_OVER:
        if state.phase == engine.DEAL_OVER:
            engine.start_next_deal(state)
            continue
        action = my_policy(engine.legal_actions(state))
        engine.apply(state, action)          # mutates state; raises IllegalActionError
    print(engine.ranking(state))

Seats are numbered clockwise: ``direction`` +1 means play passes from seat ``p`` to
``p + 1`` ("clockwise", to the left), -1 the other way. The dealer of the first deal is
drawn by lots and the deal passes clockwise; the player left of the dealer opens.

Each decision belongs to ``state.current``; the phase says what kind it is:

* ``OPENING``: the first play of a deal must be a club (plain play ids; J♣ names
  nothing). Without a club the only move is ``DRAW``, one card at a time, until a club
  comes. The opening card's special effect does not apply (no skip, reverse, draw-3 or
  Ace follow-up; a J♣ leaves ♣ in force and, being a Jack, still cannot be covered by a
  Jack).
* ``PLAY``: a normal turn. Play a card matching the top card's rank or the suit in force,
  or a Jack naming a suit (never a Jack on a Jack); or ``DRAW`` one card (see
  ``draw_when_playable``); ``PASS`` once at least one card was drawn this turn.
* ``SEVEN``: sevens are pending (``state.pending_sevens``): play a 7 (the chain grows)
  or ``DRAW_PENALTY``, ``seven_draw`` cards per 7 in the chain.
* ``ACE``: the player just played an Ace (``ace_follow='optional'``): play a card that
  could be played on the Ace, or ``PASS``.
* ``DEAL_OVER``: ``state.deal_result`` holds the outcome; call :func:`start_next_deal`.
  ``GAME_OVER``: :func:`ranking` gives the final places.

Card effects: 8 skips the next player (with two players its player plays again); 10
reverses the direction (``two_player_ten``); 7 starts or extends the chain; an Ace gives
the follow-up; a Jack sets the suit in force to the one it names.

A deal ends when a hand empties (its player wins; the others score their hand at
``rank_values``, ×``seven_multiplier`` if the last card was a 7, ×``jack_multiplier`` if
a Jack), or by *stock-out*: a card must be drawn and none is left (the player to act has
no other legal move: no playable card and no draw yet this turn, or no 7 to answer
sevens, or no club to open; or a penalty draw runs dry). With ``reshuffle``, the discard
pile below its top card first becomes a new stock; only if it is empty is it a stock-out.
On a stock-out every player tied for the lowest hand total wins (scores 0) and the others
score their hands (no multiplier). After ``turn_limit`` turns the deal ends unscored
(``deal_result.truncated``). After ``deals`` deals the lowest total wins.

All randomness comes from the game key ``state.key``, drawn once from the
``np.random.Generator`` made from the seed, through the streams of
:mod:`yaniv_env.core.seeding` (``r`` the deal index): the first dealer is
``lot(n, stream_key(key, 0, LOTS))``; deal ``r`` shuffles the 52 cards in their natural
order, ``shuffled(range(52), stream_key(key, r, DEAL))``, and seat ``p`` gets the fixed
block ``seat_blocks`` gives it (the ``hand_size`` cards at positions ``p·hand_size …``
from the drawing end), whoever deals, the rest being the stock in its order (last card
drawn first); the ``k``-th reshuffle of deal ``r`` (``k`` = 0, 1, … within the deal) is
``shuffled(pile, stream_key(key, r, RESHUFFLE, k))``, the pile below the top card in its
order on the table. So two games with the same key deal the same hands to the same seats
in every deal, whatever was played. An illegal action raises
:class:`IllegalActionError` (a ``ValueError``) before anything changes.

Public information: hand sizes, the discard pile (``state.discard``, top last), the suit
in force, pending sevens, direction, cards drawn this turn, scores. :func:`public_view`
gathers it with one seat's hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core import engine as core_engine
from ..core.cards import RANK, SUIT, SUIT_SYMBOLS, card_name, cards_name
from ..core.engine import IllegalActionError, action_mask, blank_state, illegal_action
from ..core.outcome import Outcome, places
from ..core.seeding import DEAL, LOTS, RESHUFFLE, generator, lot, rekeyed, seat_blocks, shuffled, stream_key
from .actions import (
    ACE,
    BIT,
    CLUBS,
    CLUBS_MASK,
    DRAW,
    DRAW_PENALTY,
    EIGHT,
    JACK,
    JACK_BASE,
    PASS,
    SEVEN,
    SEVENS_MASK,
    TEN,
    ActionTable,
    action_table,
    card_of,
)
from .rules import DECK_SIZE, Rules

OPENING, PLAY, SEVEN_PHASE, ACE_PHASE, DEAL_OVER, GAME_OVER = range(6)
PHASE_NAMES = ("opening", "play", "seven", "ace", "deal_over", "game_over")
NUM_DECISION_PHASES = 4


@dataclass
class DealResult:
    """How a deal ended and what it did to the scores."""

    reason: str
    """``out`` (a hand emptied), ``stock_out`` (a card had to be drawn and none was left)
    or ``truncated`` (``turn_limit``)."""
    winners: list[int]
    """The player who went out, or every player tied for the lowest hand on a stock-out
    (empty when truncated)."""
    last_card: int
    """The winner's last card (``out``), else -1."""
    multiplier: int
    hand_totals: list[int]
    """Each seat's hand at ``rank_values`` when the deal ended."""
    points: list[int]
    """Points each seat added this deal (multiplier included)."""
    scores: list[int]
    """Totals after this deal."""
    truncated: bool = False
    turns: int = 0
    """Turns played in the deal."""
    extra: dict = field(default_factory=dict)


def hand_value(hand: Sequence[int], rules: Rules) -> int:
    """Penalty points of a hand of card kinds."""
    values = rules.rank_values
    return sum([values[RANK[k]] for k in hand])


class State:
    """The whole game. Fields are public for reading; change them only through
    :func:`apply` and :func:`start_next_deal` (or build positions with :func:`from_position`).

    ``hands[p]`` lists seat ``p``'s cards (drawn cards appended) and ``masks[p]`` is the
    same hand as a 52-bit mask; ``discard`` is the discard pile, bottom first, ``top`` its
    last card (-1 before the opening); ``stock`` is drawn from its end; ``suit`` is the
    suit in force (the named suit on a Jack); ``pending_sevens`` counts the sevens the
    player in ``SEVEN`` must answer; ``drawn`` counts the cards drawn this turn.
    """

    __slots__ = (
        "rules", "table", "key", "reshuffles", "num_players", "scores", "hands", "masks", "stock", "discard",
        "top", "suit", "pending_sevens", "direction", "phase", "current", "drawn", "dealer",
        "deal_index", "deal_turns", "decisions", "deal_result",
    )  # fmt: skip

    def copy(self, rng: np.random.Generator | None = None, key: int | None = None) -> State:
        """An independent copy (for search), with this game's key (the same future
        reshuffles and deals) unless re-keyed: ``key`` gives the copy that key, ``rng``
        draws a new one from that generator."""
        new = State.__new__(State)
        for slot in State.__slots__:
            setattr(new, slot, getattr(self, slot))
        new.key = rekeyed(self.key, rng, key)
        new.scores = list(self.scores)
        new.hands = [list(h) for h in self.hands]
        new.masks = list(self.masks)
        new.stock = list(self.stock)
        new.discard = list(self.discard)
        return new

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def __repr__(self) -> str:
        hands = "; ".join(f"P{i}: {cards_name(h)}" for i, h in enumerate(self.hands))
        top = card_name(self.top) if self.top >= 0 else "-"
        suit = SUIT_SYMBOLS[self.suit] if self.suit >= 0 else "-"
        return (
            f"PisYedili({self.rules.name}, deal {self.deal_index}, {self.phase_name}, P{self.current} to act, "
            f"top {top} suit {suit}, sevens {self.pending_sevens}, dir {self.direction:+d}, "
            f"stock {len(self.stock)}, scores {self.scores}, {hands})"
        )


# -- setting up ---------------------------------------------------------------------


def _empty_state(rules: Rules, rng: np.random.Generator) -> State:
    s = blank_state(State, rules, action_table(rules), rng)
    s.masks = [0] * rules.num_players
    s.stock, s.discard = [], []
    s.top, s.suit = -1, -1
    s.pending_sevens = 0
    s.direction = 1
    s.phase, s.current, s.drawn = OPENING, 0, 0
    s.dealer = rules.num_players - 1
    s.deal_index, s.deal_turns, s.decisions = 0, 0, 0
    s.deal_result = None
    return s


def new_game(rules: Rules, seed: int | None = None, rng: np.random.Generator | None = None) -> State:
    """A new game, first deal dealt. The first dealer is drawn by lots."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a pis_yedili Rules object, got {type(rules).__name__}")
    s = _empty_state(rules, generator(seed, rng))
    s.dealer = lot(rules.num_players, stream_key(s.key, 0, LOTS))
    _deal(s)
    return s


def _deal(s: State) -> None:
    n = s.num_players
    deck = shuffled(list(range(DECK_SIZE)), stream_key(s.key, s.deal_index, DEAL))
    hands, deck = seat_blocks(deck, n, s.rules.hand_size)
    first = (s.dealer + 1) % n
    s.reshuffles = 0
    s.hands = hands
    s.masks = [_mask(h) for h in hands]
    s.stock = deck
    s.discard = []
    s.top, s.suit = -1, -1
    s.pending_sevens = 0
    s.direction = 1
    s.deal_result = None
    s.deal_turns = 0
    _begin_turn(s, first, OPENING)


def _mask(cards: Sequence[int]) -> int:
    m = 0
    for k in cards:
        m |= BIT[k]
    return m


def from_position(
    rules: Rules,
    hands: Sequence[Sequence[int]],
    top: int | None = None,
    *,
    suit: int | None = None,
    pending_sevens: int = 0,
    ace_follow: bool = False,
    discard: Sequence[int] = (),
    stock: Sequence[int] | None = None,
    current: int = 0,
    direction: int = 1,
    drawn: int = 0,
    dealer: int | None = None,
    scores: Sequence[int] | None = None,
    deal_index: int = 0,
    seed: int | None = None,
    rng: np.random.Generator | None = None,
) -> State:
    """A position with ``current`` to act.

    ``top=None``: the deal's opening (``current`` must play a club). Otherwise ``top`` is
    the discard pile's top card and ``discard`` the cards below it (bottom first); the
    phase is ``SEVEN`` if ``pending_sevens`` > 0 (``top`` must be a 7), ``ACE`` if
    ``ace_follow`` (``current`` just played the Ace on top), else ``PLAY`` with ``drawn``
    cards already drawn this turn. ``suit`` is the suit in force: required on a Jack (the
    named suit), the top's suit otherwise. ``stock``: drawn from its end (default: the rest
    of the deck, shuffled by ``seed``). Every card must be in exactly one place.

    A position where the player must draw and cannot ends the deal at once (stock-out).
    """
    s = _empty_state(rules, generator(seed, rng))
    _place_cards(s, hands, top, discard, stock, deal_index)
    _place_players(s, current, direction, dealer, scores)
    if not 0 <= deal_index < rules.deals:
        raise ValueError(f"deal_index: {deal_index} is not a deal 0..{rules.deals - 1}")
    s.deal_index = deal_index
    if not isinstance(drawn, int) or drawn < 0:
        raise ValueError(f"drawn: must be an int ≥ 0, got {drawn!r}")
    phase = _place_top(s, top, suit, pending_sevens, ace_follow, discard, drawn)
    s.pending_sevens = pending_sevens
    s.current, s.phase, s.drawn = current, phase, drawn
    s.deal_turns = 1
    _check_stuck(s)
    return s


def _place_cards(
    s: State,
    hands: Sequence[Sequence[int]],
    top: int | None,
    discard: Sequence[int],
    stock: Sequence[int] | None,
    deal_index: int,
) -> None:
    """:func:`from_position`'s hands and stock: with the top card and the discard pile,
    every card of the deck exactly once (the default stock: the cards left, shuffled by the
    deal's stream)."""
    n = s.num_players
    if len(hands) != n:
        raise ValueError(f"hands: {len(hands)} hands given for {n} players")
    s.hands = [[int(k) for k in h] for h in hands]
    placed = Counter(k for h in s.hands for k in h) + Counter(int(k) for k in discard)
    if top is not None:
        placed[int(top)] += 1
    bad = [k for k in placed if not 0 <= k < DECK_SIZE]
    if bad:
        raise ValueError(f"card kinds {sorted(bad)} are not cards of the 52-card deck")
    twice = sorted(k for k, c in placed.items() if c > 1)
    if twice:
        raise ValueError(f"cards placed twice: {cards_name(twice)}")
    rest = sorted(set(range(DECK_SIZE)) - set(placed))
    if stock is None:
        stock = shuffled(rest, stream_key(s.key, deal_index, DEAL))
    elif sorted(int(k) for k in stock) != rest:
        raise ValueError(f"stock: must hold exactly the cards placed nowhere else: {cards_name(rest)}")
    s.stock = [int(k) for k in stock]
    s.masks = [_mask(h) for h in s.hands]


def _place_players(s: State, current: int, direction: int, dealer: int | None, scores: Sequence[int] | None) -> None:
    """:func:`from_position`'s direction of play, dealer (default: the seat before
    ``current``) and scores."""
    n = s.num_players
    if not (isinstance(current, int) and 0 <= current < n):
        raise ValueError(f"current: seat {current!r} is not a seat 0..{n - 1}")
    if direction not in (1, -1):
        raise ValueError(f"direction: must be 1 (clockwise) or -1, got {direction!r}")
    s.direction = direction
    s.dealer = (current - 1) % n if dealer is None else dealer
    if not 0 <= s.dealer < n:
        raise ValueError(f"dealer: seat {dealer!r} is not a seat 0..{n - 1}")
    if scores is not None:
        if len(scores) != n:
            raise ValueError(f"scores: {len(scores)} scores for {n} players")
        s.scores = [int(v) for v in scores]


def _place_top(
    s: State,
    top: int | None,
    suit: int | None,
    pending_sevens: int,
    ace_follow: bool,
    discard: Sequence[int],
    drawn: int,
) -> int:
    """:func:`from_position`'s discard pile, top card and suit in force; returns the phase
    they put ``current`` in (the opening without a top card)."""
    if top is None:
        if discard or suit is not None or pending_sevens or ace_follow:
            raise ValueError("top=None is the opening: no discard, suit, pending_sevens or ace_follow")
        return OPENING
    top = int(top)
    s.discard = [int(k) for k in discard] + [top]
    s.top = top
    if RANK[top] == JACK:
        if suit is None or not 0 <= suit < 4:
            raise ValueError(f"suit: a Jack on top needs the suit it named (0..3), got {suit!r}")
        s.suit = suit
    else:
        if suit is not None and suit != SUIT[top]:
            raise ValueError(f"suit: on {card_name(top)} the suit in force is {SUIT_SYMBOLS[SUIT[top]]}")
        s.suit = SUIT[top]
    if pending_sevens:
        if RANK[top] != SEVEN or not 1 <= pending_sevens <= 4:
            got = f"{pending_sevens} on {card_name(top)}"
            raise ValueError(f"pending_sevens: 1..4 sevens need a 7 on top, got {got}")
        if ace_follow or drawn:
            raise ValueError("pending_sevens: a player facing sevens has neither drawn nor played an Ace")
        return SEVEN_PHASE
    if ace_follow:
        if RANK[top] != ACE or drawn:
            raise ValueError(f"ace_follow: needs an Ace on top and no draws, got {card_name(top)}")
        if s.rules.ace_follow != "optional":
            raise ValueError("ace_follow: the ACE phase exists only with Rules.ace_follow='optional'")
        return ACE_PHASE
    return PLAY


# -- legal moves ----------------------------------------------------------------------


def _can_draw(s: State) -> bool:
    return bool(s.stock) or (s.rules.stock_exhausted == "reshuffle" and len(s.discard) > 1)


def legal_actions(s: State) -> list[int]:
    """Sorted ids of every legal action for ``s.current`` (empty between deals)."""
    phase = s.phase
    t = s.table
    if phase == PLAY:
        m = s.masks[s.current] & t.playable[s.top * 4 + s.suit]
        acts = []
        if (not m or s.rules.draw_when_playable) and (s.stock or _can_draw(s)):
            acts.append(DRAW)
        if s.drawn:
            acts.append(PASS)
        if m:
            acts += t.play_ids(m, s.suit)
        return acts
    if phase == SEVEN_PHASE:
        m = s.masks[s.current] & SEVENS_MASK
        acts = [DRAW_PENALTY] if s.stock or _can_draw(s) else []
        if m:
            acts += t.plain_ids(m)
        return acts
    if phase == ACE_PHASE:
        m = s.masks[s.current] & t.playable[s.top * 4 + s.suit]
        acts = [PASS]
        if m:
            acts += t.play_ids(m, s.suit)
        return acts
    if phase == OPENING:
        m = s.masks[s.current] & CLUBS_MASK
        if m:
            return t.plain_ids(m)
        return [DRAW] if _can_draw(s) else []
    return []


def legal_mask(s: State) -> np.ndarray:
    """The legal actions as an ``int8`` mask of length ``table.num_actions``."""
    return action_mask(legal_actions(s), s.table.num_actions)


# -- playing --------------------------------------------------------------------------


def _why_illegal(s: State, action: int) -> str:
    """A clear reason why ``action`` (a valid id) is not legal now."""
    phase = s.phase
    p = s.current
    hand = s.hands[p]
    if phase in (DEAL_OVER, GAME_OVER):
        return "no decision is pending (start the next deal, or the game is over)"
    top = card_name(s.top) if s.top >= 0 else "nothing"
    in_force = f"{top} with {SUIT_SYMBOLS[s.suit]} in force" if s.top >= 0 else "an empty pile"
    if action == DRAW:
        if phase == SEVEN_PHASE:
            return "facing sevens, draw the penalty (DRAW_PENALTY) or play a 7"
        if phase == ACE_PHASE:
            return "after an Ace, play a card matching it or pass; no drawing"
        if not _can_draw(s):
            return "the stock is empty"
        if phase == OPENING:
            return "the opener holds a club and must play one"
        return "a playable card is held and these rules (draw_when_playable=False) allow drawing only without one"
    if action == PASS:
        if phase == OPENING:
            return "the opener must play a club (or draw until one comes)"
        if phase == SEVEN_PHASE:
            return "facing sevens, draw the penalty or play a 7; passing is not allowed"
        return "passing is allowed only after drawing at least one card this turn"
    if action == DRAW_PENALTY:
        if phase != SEVEN_PHASE:
            return "no sevens are pending"
        return "the stock is empty"
    card = card_of(action)
    if not s.masks[p] & BIT[card]:
        return f"the hand {cards_name(hand)} does not hold {card_name(card)}"
    named = action >= JACK_BASE
    if phase == OPENING:
        if SUIT[card] != CLUBS:
            return f"the opening card must be a club, not {card_name(card)}"
        return "the opening J♣ names no suit (its effect does not apply): use the plain play id"
    if phase == SEVEN_PHASE:
        return f"facing {s.pending_sevens} seven(s), only a 7 may be played (not {card_name(card)})"
    if RANK[card] == JACK:
        if RANK[s.top] == JACK:
            return f"a Jack cannot be played on a Jack ({top})"
        if not named:
            return f"a Jack played as a wild card must name a suit (play {card_name(card)} naming ...)"
        return f"the Jack may not name {SUIT_SYMBOLS[s.suit]}, the suit already in force (jack_same_suit=False)"
    return f"{card_name(card)} matches neither the rank nor the suit of {in_force}"


def apply(s: State, action: int) -> None:
    """Play ``action`` for ``s.current``, mutating ``s``. Raises :class:`IllegalActionError`
    (leaving ``s`` unchanged) if the action is not legal."""
    try:
        action = s.table.check_id(action)
    except ValueError as e:
        raise IllegalActionError(f"{e} (player {s.current}, {s.phase_name} phase)") from None
    if action not in legal_actions(s):
        raise illegal_action(s, action, _why_illegal(s, action))
    p = s.current
    s.decisions += 1
    phase = s.phase
    if action == DRAW:
        _draw_one(s, p)
        if _stock_ended(s):
            _end_deal(s, "stock_out")
        else:
            s.drawn += 1
            if phase == OPENING:
                _check_stuck(s)  # still no club and nothing left to draw
        return
    if action == PASS:
        _begin_turn(s, _seat_after(s, p, 1), PLAY)
        return
    if action == DRAW_PENALTY:
        owed = s.rules.seven_draw * s.pending_sevens
        s.pending_sevens = 0
        for _ in range(owed):
            if not _can_draw(s):
                _end_deal(s, "stock_out")
                return
            _draw_one(s, p)
        if _stock_ended(s):
            _end_deal(s, "stock_out")
        elif s.rules.penalty_ends_turn:
            _begin_turn(s, _seat_after(s, p, 1), PLAY)
        else:
            _begin_turn(s, p, PLAY)
        return
    # a play
    card = card_of(action)
    s.hands[p].remove(card)
    s.masks[p] ^= BIT[card]
    s.discard.append(card)
    s.top = card
    if not s.hands[p]:
        s.suit = SUIT[card] if action < JACK_BASE else (action - JACK_BASE) % 4
        _end_deal(s, "out", winner=p, last_card=card)
        return
    if phase == OPENING:  # special effects do not apply to the opening club
        s.suit = CLUBS
        _begin_turn(s, _seat_after(s, p, 1), PLAY)
        return
    rank = RANK[card]
    if action >= JACK_BASE:
        s.suit = (action - JACK_BASE) % 4
        _begin_turn(s, _seat_after(s, p, 1), PLAY)
        return
    s.suit = SUIT[card]
    if rank == SEVEN:
        s.pending_sevens += 1
        _begin_turn(s, _seat_after(s, p, 1), SEVEN_PHASE)
    elif rank == EIGHT:
        _begin_turn(s, _seat_after(s, p, 2), PLAY)
    elif rank == TEN:
        s.direction = -s.direction
        if s.num_players == 2 and s.rules.two_player_ten == "skip":
            _begin_turn(s, p, PLAY)
        else:
            _begin_turn(s, _seat_after(s, p, 1), PLAY)
    elif rank == ACE:
        if s.rules.ace_follow == "optional":
            s.phase = ACE_PHASE
        else:
            _begin_turn(s, p, PLAY)
    else:
        _begin_turn(s, _seat_after(s, p, 1), PLAY)


def _seat_after(s: State, seat: int, steps: int) -> int:
    return (seat + s.direction * steps) % s.num_players


def _draw_one(s: State, p: int) -> int:
    """Move the stock's next card to seat ``p`` (reshuffling first if the rules say so).
    Callers check :func:`_can_draw` first."""
    if not s.stock:
        # reshuffle: the discard pile below its top card becomes the stock
        below = s.discard[:-1]
        s.discard = s.discard[-1:]
        s.stock = shuffled(below, stream_key(s.key, s.deal_index, RESHUFFLE, s.reshuffles))
        s.reshuffles += 1
    card = s.stock.pop()
    s.hands[p].append(card)
    s.masks[p] |= BIT[card]
    return card


def _stock_ended(s: State) -> bool:
    """``end_when_stock_empty``: the deal ends the moment the last stock card is drawn."""
    return not s.stock and s.rules.end_when_stock_empty


def _begin_turn(s: State, seat: int, phase: int) -> None:
    s.deal_turns += 1
    if s.deal_turns > s.rules.turn_limit:
        _end_deal(s, "truncated")
        return
    s.current = seat
    s.phase = phase
    s.drawn = 0
    _check_stuck(s)


def _check_stuck(s: State) -> None:
    """A player who must draw and cannot (no other legal move): the deal ends by stock-out."""
    if s.phase == ACE_PHASE or (s.drawn and s.phase == PLAY) or _can_draw(s):
        return
    hand = s.masks[s.current]
    phase = s.phase
    if phase == PLAY:
        stuck = not hand & s.table.playable[s.top * 4 + s.suit]
    elif phase == SEVEN_PHASE:
        stuck = not hand & SEVENS_MASK
    else:  # OPENING
        stuck = not hand & CLUBS_MASK
    if stuck:
        _end_deal(s, "stock_out")


# -- deal and game end ----------------------------------------------------------------


def _end_deal(s: State, reason: str, winner: int | None = None, last_card: int = -1) -> None:
    rules = s.rules
    n = s.num_players
    totals = [hand_value(h, rules) for h in s.hands]
    points = [0] * n
    multiplier = 1
    winners: list[int] = []
    if reason == "out":
        winners = [winner]
        if RANK[last_card] == SEVEN:
            multiplier = rules.seven_multiplier
        elif RANK[last_card] == JACK:
            multiplier = rules.jack_multiplier
        points = [0 if p == winner else totals[p] * multiplier for p in range(n)]
    elif reason == "stock_out":
        low = min(totals)
        winners = [p for p in range(n) if totals[p] == low]
        points = [0 if totals[p] == low else totals[p] for p in range(n)]
    for p in range(n):
        s.scores[p] += points[p]
    s.deal_result = DealResult(
        reason=reason,
        winners=winners,
        last_card=last_card,
        multiplier=multiplier,
        hand_totals=totals,
        points=points,
        scores=list(s.scores),
        truncated=reason == "truncated",
        turns=min(s.deal_turns, rules.turn_limit),
    )
    s.pending_sevens = 0
    s.drawn = 0
    s.phase = GAME_OVER if s.deal_index + 1 >= rules.deals else DEAL_OVER


def start_next_deal(s: State) -> None:
    """Deal the next deal (after ``DEAL_OVER``); the deal passes clockwise."""
    if s.phase != DEAL_OVER:
        raise IllegalActionError(f"the deal is not over (phase {s.phase_name})")
    s.deal_index += 1
    s.dealer = (s.dealer + 1) % s.num_players
    _deal(s)


def ranking(s: State) -> list[int]:
    """Each seat's place (0 = first) by lowest total, ties sharing the better place.
    Meaningful at any time; final once the game is over."""
    return places(s.scores)


def outcome(s: State, result: DealResult | None = None) -> Outcome:
    """How deal ``result`` (default: the last finished one) ended for each seat: places by
    the points taken in it (everyone plays every deal; nobody leaves the game)."""
    dr = s.deal_result if result is None else result
    return Outcome(tuple(places(dr.points)), ())


def is_over(s: State) -> bool:
    return s.phase == GAME_OVER


scores = core_engine.scores  # the cumulative scores (a copy), as every game's engine gives them


@dataclass(frozen=True)
class PublicView:
    """What ``seat`` knows: its own hand and everything public, seats in absolute order.

    Everything an observation needs is here as small tuples/ints: count vectors of 52
    kinds come from ``hand`` and ``discard`` (``np.bincount(..., minlength=52)``)."""

    seat: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    discard: tuple[int, ...]
    """The discard pile, bottom first; its last card is ``top``."""
    top: int
    """The top card (-1 before the opening)."""
    suit: int
    """The suit in force (the named suit on a Jack; -1 before the opening)."""
    pending_sevens: int
    pending_draw: int
    """Cards the player facing the sevens would draw (``seven_draw`` × sevens)."""
    direction: int
    stock_size: int
    drawn: int
    """Cards the player to act has drawn this turn."""
    scores: tuple[int, ...]
    phase: int
    current: int
    dealer: int
    deal_index: int


def public_view(s: State, seat: int) -> PublicView:
    """The information available to ``seat``; nothing hidden from it is included."""
    if not 0 <= seat < s.num_players:
        raise ValueError(f"seat {seat} is not a seat 0..{s.num_players - 1}")
    return PublicView(
        seat=seat,
        hand=tuple(s.hands[seat]),
        hand_sizes=tuple(len(h) for h in s.hands),
        discard=tuple(s.discard),
        top=s.top,
        suit=s.suit,
        pending_sevens=s.pending_sevens,
        pending_draw=s.pending_sevens * s.rules.seven_draw,
        direction=s.direction,
        stock_size=len(s.stock),
        drawn=s.drawn,
        scores=tuple(s.scores),
        phase=s.phase,
        current=s.current,
        dealer=s.dealer,
        deal_index=s.deal_index,
    )


def all_cards(s: State) -> Counter:
    """Every card in every place (for conservation checks): 52 distinct kinds once each."""
    c = Counter(s.stock) + Counter(s.discard)
    for h in s.hands:
        c.update(h)
    return c


__all__ = [
    "OPENING",
    "PLAY",
    "SEVEN_PHASE",
    "ACE_PHASE",
    "DEAL_OVER",
    "GAME_OVER",
    "PHASE_NAMES",
    "DealResult",
    "IllegalActionError",
    "PublicView",
    "State",
    "ActionTable",
    "all_cards",
    "apply",
    "from_position",
    "hand_value",
    "is_over",
    "legal_actions",
    "legal_mask",
    "new_game",
    "public_view",
    "outcome",
    "ranking",
    "scores",
    "start_next_deal",
]
