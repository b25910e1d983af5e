"""One frozen rules configuration for Pis Yedili ("Dirty Seven"), and the presets.

The game follows source 003 (``003_7dd16aa342779349.txt``, see ``yaniv_env/yaniv/RULES.md``). Every point that
source leaves open is an option of :class:`Rules`; the defaults follow the source's text
where it says something and the most literal reading where it does not:

=========================  =============  ============================================
option                     default        why
=========================  =============  ============================================
``hand_size``              7              "Seven cards are dealt to each player."
``max_players``            None (deck)    "two or more players": as many as the deck
                                          can deal to, leaving one card in the stock
``jack_same_suit``         True           "the player can nominate any suit" (the
                                          example's "a different suit" is the option)
``seven_draw``             3              "draw three cards for each 7 in the sequence"
``penalty_ends_turn``      True           "must either draw three cards or play another
                                          7": drawing is the turn, as in Uno/Crazy Eights
``ace_follow``             ``optional``   "the player *can* play another card which
                                          matches the rank or suit of the Ace"
``two_player_ten``         ``reverse``    literal: the direction flips, which with two
                                          players changes nothing (Uno's reading:
                                          ``skip``)
``draw_when_playable``     True           "each player in turn must either play a legal
                                          card ... or draw a card"
``stock_exhausted``        ``lowest_hand``  "if the players run out of cards in the
                                          deck, the player with the lowest point score
                                          in their hand wins"
``end_when_stock_empty``   False          the deal ends when a card must be drawn and
                                          none is left, not the moment the stock empties
``rank_values``            source table   J 25, 7 20, A 15, K Q 10, pips face value
``seven_multiplier``       3              last card a 7: others' points ×3
``jack_multiplier``        2              last card a Jack: others' points ×2
``deals``                  4              "After 4 consecutive games (deals)"
``turn_limit``             500            not in the source: every deal ends
=========================  =============  ============================================

``Rules`` is hashable, so derived tables (:func:`yaniv_env.pis_yedili.actions.action_table`)
are cached per rule set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..core.cards import NUM_NATURAL, NUM_RANKS
from ..core.rules import RulesBase

AceFollow = Literal["optional", "must"]
TwoPlayerTen = Literal["reverse", "skip"]
StockExhausted = Literal["lowest_hand", "reshuffle"]

#: Penalty points of each rank (index 0 = Ace .. 12 = King), the source's table:
#: J 25, 7 20, A 15, K and Q 10, the other cards ("spot cards", 2-6 and 8-10) face value.
SOURCE_RANK_VALUES: tuple[int, ...] = (15, 2, 3, 4, 5, 6, 20, 8, 9, 10, 25, 10, 10)

#: Cards in the deck (one 52-card deck, no jokers).
DECK_SIZE = NUM_NATURAL


@dataclass(frozen=True)
class Rules(RulesBase):
    """A complete Pis Yedili rule set. Build variants with :meth:`replace`.

    Invalid values or combinations raise ``ValueError`` naming the option.
    """

    _preset_kind = "Pis Yedili rules preset"
    _object_kind = "Pis Yedili Rules object"

    name: str = "custom"
    """A label for display; presets carry their name."""
    num_players: int = 2
    """Players at the table (the source: "two or more")."""
    max_players: int | None = None
    """The most players allowed (``None``: as many as one 52-card deck can deal
    ``hand_size`` cards to while leaving at least one card in the stock: 7 with 7 cards)."""
    hand_size: int = 7
    """Cards dealt to each player."""
    jack_same_suit: bool = True
    """Whether a Jack may name the suit already in force. The source's special-card list
    says "the player can nominate any suit" (True, default); its worked example says the
    player of a Jack "must declare a different suit" (False)."""
    seven_draw: int = 3
    """Cards the player facing sevens draws for each 7 in the chain."""
    penalty_ends_turn: bool = True
    """Whether drawing the sevens' penalty is the whole turn (True: the source offers
    "draw three cards *or* play another 7" as the two ways to answer). False: after
    drawing, the same player takes a normal turn on the 7 (the penalty cards do not count
    as the draw that allows a pass)."""
    ace_follow: AceFollow = "optional"
    """After an Ace, its player ``can`` play another card matching it (a card of the
    Ace's rank or suit, or a Jack, exactly what could be played on the Ace):
    ``optional`` (the source's "can"): play one or pass, no drawing; ``must``: the player
    takes another full turn on the Ace (play, or draw until a card can be played or pass
    after drawing at least one)."""
    two_player_ten: TwoPlayerTen = "reverse"
    """A 10 with two players: ``reverse`` (literal: the direction flips, the opponent
    still plays next) or ``skip`` (as in two-player Uno: the player of the 10 plays
    again). With three or more players a 10 always reverses."""
    draw_when_playable: bool = True
    """Whether a player holding a playable card may draw instead (the source: "each
    player in turn must either play a legal card ... or draw a card"). False: drawing is
    allowed only without a playable card. Passing needs at least one draw this turn."""
    stock_exhausted: StockExhausted = "lowest_hand"
    """What happens when a card must be drawn and the stock is empty: ``lowest_hand``
    (the source): the deal ends and the lowest hand total wins it; ``reshuffle``: the
    discard pile below its top card is shuffled into a new stock (if it holds no card,
    the deal ends as with ``lowest_hand``)."""
    end_when_stock_empty: bool = False
    """With ``lowest_hand``: whether the deal ends the moment the last stock card is drawn
    (True) instead of when a card must next be drawn and none is left (False, default:
    play goes on while players can play or pass)."""
    rank_values: tuple[int, ...] = SOURCE_RANK_VALUES
    """Penalty points per rank, Ace first (the source's table)."""
    seven_multiplier: int = 3
    """Others' points are multiplied by this when the winner's last card is a 7."""
    jack_multiplier: int = 2
    """Others' points are multiplied by this when the winner's last card is a Jack."""
    deals: int = 4
    """Deals in a game; the lowest total after them wins."""
    turn_limit: int = 500
    """Turns in one deal before it ends unscored (reported as truncation). Without
    reshuffling every turn draws or plays a card, so a deal ends within ~52 turns anyway."""

    # -- derived values ---------------------------------------------------------------
    @property
    def max_seats(self) -> int:
        """Most players these rules and the deck allow."""
        by_deck = (DECK_SIZE - 1) // self.hand_size
        return by_deck if self.max_players is None else min(by_deck, self.max_players)

    @property
    def reshuffle(self) -> bool:
        return self.stock_exhausted == "reshuffle"

    def describe(self) -> str:
        """The options that differ from the default preset, one per line."""
        return self._describe(f"{self.name}: Pis Yedili, {self.num_players} players", PRESETS["standard"])

    # -- validation -------------------------------------------------------------------
    def _validate(self) -> None:
        bad = self._bad
        self._check_at_least(
            1, ("hand_size", "seven_draw", "seven_multiplier", "jack_multiplier", "deals", "turn_limit")
        )
        if self.max_players is not None and self.max_players < 2:
            bad("max_players", f"must be ≥ 2 or None, got {self.max_players!r}")
        if self.num_players < 2:
            bad("num_players", f"Pis Yedili needs at least 2 players, got {self.num_players}")
        if self.hand_size * self.num_players > DECK_SIZE - 1:
            bad(
                "num_players",
                f"{self.num_players} players × {self.hand_size} cards leave no stock in a {DECK_SIZE}-card deck "
                f"(at most {(DECK_SIZE - 1) // self.hand_size} players)",
            )
        if self.max_players is not None and self.num_players > self.max_players:
            bad("num_players", f"{self.num_players} players, but these rules allow at most {self.max_players}")
        values = self.rank_values
        if len(values) != NUM_RANKS or min(values) < 0:
            bad("rank_values", f"must be a tuple of {NUM_RANKS} ints ≥ 0 (Ace first), got {values!r}")
        if self.end_when_stock_empty and self.stock_exhausted != "lowest_hand":
            bad("end_when_stock_empty", "only applies with stock_exhausted='lowest_hand' (a reshuffled stock refills)")


STANDARD = Rules(name="standard")

PRESETS: dict[str, Rules] = {
    # 003: the source's rules; every open point at its default (see the module docstring).
    "standard": STANDARD,
}

#: The source document each preset follows, by file name (``yaniv_env/yaniv/RULES.md`` describes them).
PRESET_SOURCES: dict[str, str] = {"standard": "003_7dd16aa342779349.txt"}


#: The largest value of each option a rules dict read from a file may ask for, checked
#: before any table is built for it (:meth:`Rules.from_dict`; ``Game.rule_limits`` of
#: :mod:`yaniv_env.games`): far above the preset (``docs/loading-limits.md``).
RULE_LIMITS: tuple[tuple[str, int], ...] = (
    ("num_players", 51),
    ("max_players", 51),
    ("hand_size", 51),
    ("seven_draw", 52),
    ("seven_multiplier", 1_000),
    ("jack_multiplier", 1_000),
    ("deals", 10_000),
    ("turn_limit", 100_000),
)


def get_rules(rules: str | Rules = "standard", num_players: int | None = None) -> Rules:
    """A preset by name (or a ``Rules`` object), optionally with another player count."""
    return Rules.lookup(rules, num_players, PRESETS)


__all__ = ["Rules", "PRESETS", "PRESET_SOURCES", "RULE_LIMITS", "SOURCE_RANK_VALUES", "get_rules"]
