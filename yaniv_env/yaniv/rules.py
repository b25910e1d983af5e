"""One frozen rules configuration for every Yaniv variant, and the named presets.

Every row of the variant table in the project's rules document (``yaniv_env/yaniv/RULES.md``) is
an option of :class:`Rules`; each rule source is a preset in :data:`PRESETS`:

============  ======================  ==================================================
preset        source                  in short
============  ======================  ==================================================
standard      002 (default)           call at ≤5, reveal ("Assaf"), halve at ×50, out at 200
seven         000                     call at ≤7, one inner joker per run, top-card pick-up,
                                      50→0 and 100→50, first player over 100 ends the game
french        001                     no jokers, declared Asaf duel, Flash, Blast, empty hand
                                      wins, −50 at ×50, out above 200
two_deck      004                     two decks for 4–5 players, call < 6, end-card pick-up
                                      with the set's order chosen by the discarder, fixed
                                      number of rounds or a score limit
============  ======================  ==================================================

Tables (actions, legal melds) and spaces are derived from a ``Rules`` object, never from
constants. ``Rules`` is hashable, so derived tables are cached per rule set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..core.cards import NUM_NATURAL
from ..core.rules import RulesBase

Challenge = Literal["reveal", "asaf"]
BeatenWinnersScore = Literal["zero", "hand"]
SetPickup = Literal["any", "ends", "top"]
RunPickup = Literal["any", "ends", "top"]
SetJokers = Literal["none", "pair", "any"]
NextLeader = Literal["winner", "caller"]
Slam = Literal["none", "single", "same_rank"]
Milestone = Literal["none", "halve", "subtract", "table"]
GameEnd = Literal["last_standing", "first_to_limit"]
StockExhaustion = Literal["reshuffle", "draw"]


@dataclass(frozen=True)
class Rules(RulesBase):
    """A complete Yaniv rule set. Build variants with :meth:`replace`.

    Invalid values or combinations raise ``ValueError`` naming the option.
    """

    _object_kind = "Yaniv Rules object"

    name: str = "custom"
    """A label for display; presets carry their name."""
    num_players: int = 2
    """Players seated at the start of a game."""
    max_players: int | None = None
    """The most players the rules allow (``None``: as many as the deck can deal to)."""
    jokers_per_deck: int = 2
    """Jokers added to each 52-card pack (0 or more)."""
    decks: int = 1
    """Packs used with fewer than ``two_decks_from`` players."""
    two_decks_from: int | None = None
    """With this many players or more, two packs are used (004: 4). ``None``: never."""
    hand_size: int = 5
    """Cards dealt to each player."""
    call_max: int = 5
    """Yaniv may be called at the start of a turn when the hand totals at most this."""
    challenge: Challenge = "reveal"
    """``reveal``: every hand is shown and any player with a total ≤ the caller's beats
    the call. ``asaf``: one other player may declare Asaf, in turn order from the caller's
    left; the duel goes to the lower total, ties to the challenger."""
    penalty: int = 30
    """Points added, on top of the hand, to a beaten caller (or the duel's loser)."""
    beaten_winners_score: BeatenWinnersScore = "zero"
    """When a reveal beats the caller, the lowest hands score ``zero`` (002, 004) or add
    their ``hand`` like everyone else (000, as written)."""
    beaten_caller_alone: bool = False
    """When the caller is beaten (a reveal, or an Asaf duel the challenger wins), only the
    caller scores (hand + ``penalty``); everyone else adds nothing. No preset: a house rule."""
    next_leader: NextLeader = "winner"
    """Who plays first in the round after a Yaniv call: the round ``winner`` (every source;
    lots among tied winners) or the ``caller``, even when beaten (a house rule). After an
    empty-hand win or a drawn round the usual rule applies."""
    run_min: int = 3
    """Shortest run (same suit, consecutive ranks, Ace low, no wrap)."""
    run_jokers_max: int | None = None
    """Most jokers in one run (``None``: any number, as long as one natural card stays)."""
    run_jokers_at_ends: bool = True
    """Whether a joker may be the first or last card of a run (000: no)."""
    set_pickup: SetPickup = "any"
    """What the next player may take from a same-rank set: ``any`` card (001, 002), one of
    the two ``ends`` of the set as laid (004), or the ``top`` card (000). With ``ends`` and
    ``top`` the discarder chooses the order, so that choice is part of the discard action."""
    run_pickup: RunPickup = "ends"
    """What the next player may take from a run: ``any`` card (001), its first or last
    (``ends``), or only the end laid on ``top`` (the last card laid; the discarder lays the
    run in either direction, so that choice is part of the discard action)."""
    set_jokers: SetJokers = "none"
    """Jokers in same-rank sets: ``none`` (every source), ``pair`` (jokers may join at
    least two natural cards of a rank: 7 7 🃏) or ``any`` (one natural card is enough:
    7 🃏). A set keeps at least one natural card; cards that also form a run with the same
    cards to take are one move, counted as the set (so a slam-down may follow it)."""
    slam: Slam = "same_rank"
    """Slam-down of the drawn card: ``none``; ``single`` (000: after a one-card discard);
    ``same_rank`` (002, and 001's Flash: after a single card or a same-rank set)."""
    slam_from_stock_only: bool = True
    """Whether only a card drawn from the stock may be slammed (000: any draw)."""
    slam_joker_on_joker: bool = True
    """Whether a joker drawn right after discarding a single joker may be slammed down
    (002's "the same kind as the card they just discarded" and 000's "equal (same value)"
    both read so)."""
    blast: bool = False
    """001's Blast: any player may complete the discard into four of a kind between turns
    (not on a discard holding a flashed card)."""
    private_windows: bool = True
    """Whether the sequence of decisions hides who could slam or Blast: the drawer answers
    every slam window its draw opens (pass only when the drawn card cannot be slammed), and
    every player still in answers every Blast window in turn (pass only without the
    completing cards), so that whose turn it is tells nothing the observations hide. With
    ``False`` a window is offered only to a player who can use it (fewer steps, but
    ``agent_selection`` then shows it to everyone). See :mod:`yaniv_env.yaniv.engine`."""
    empty_hand_wins: bool = False
    """001: a player whose hand becomes empty wins the round at once."""
    milestone: Milestone = "halve"
    """What happens to a total landing on a milestone after a round added points:
    ``halve`` (002) or ``subtract`` ``milestone_subtract`` (001) at each positive multiple
    of ``milestone_every``; ``table``: the exact totals in ``milestone_table`` (000)."""
    milestone_every: int = 50
    milestone_subtract: int = 50
    milestone_table: tuple[tuple[int, int], ...] = ()
    """``((50, 0), (100, 50))`` for 000: a total of exactly 50 becomes 0, 100 becomes 50."""
    milestone_max: int | None = None
    """``halve``/``subtract``: the highest total a milestone applies to (001: 200, its
    steps being 50, 100, 150 and 200, so 250 is not one). ``None``: every multiple."""
    game_end: GameEnd = "last_standing"
    """``last_standing``: players past ``score_limit`` are out, the last one left wins.
    ``first_to_limit``: the game ends when a player passes ``score_limit`` (or after
    ``rounds_per_player`` × players rounds); the lowest total wins."""
    score_limit: int = 200
    limit_inclusive: bool = True
    """Whether reaching ``score_limit`` passes it (002: reaching 200) or only exceeding it
    (000: over 100; 001: over 200)."""
    rounds_per_player: int | None = None
    """004: the game also ends after this many rounds per seated player."""
    stock_exhaustion: StockExhaustion = "reshuffle"
    """When the stock runs out: ``reshuffle`` the discards below the top set into a new
    stock, or end the round as a ``draw`` (no points)."""
    turn_limit: int = 400
    """Turns in one round before it ends as a draw (reported as truncation)."""
    round_limit: int = 500
    """Rounds in one game before it ends, ranked by score (reported as truncation)."""

    # -- derived values ---------------------------------------------------------------
    @property
    def num_decks(self) -> int:
        if self.two_decks_from is not None and self.num_players >= self.two_decks_from:
            return 2
        return self.decks

    @property
    def num_jokers(self) -> int:
        return self.jokers_per_deck * self.num_decks

    @property
    def deck_size(self) -> int:
        return self.num_decks * (NUM_NATURAL + self.jokers_per_deck)

    @property
    def total_rounds(self) -> int | None:
        """The rounds a game lasts at most by its fixed round count (``rounds_per_player`` ×
        players), or ``None`` when these rules fix none."""
        return None if self.rounds_per_player is None else self.rounds_per_player * self.num_players

    @property
    def max_run_jokers(self) -> int:
        """Most jokers a run can hold under these rules and this deck."""
        cap = self.hand_size - 1 if self.run_jokers_max is None else self.run_jokers_max
        return min(cap, self.num_jokers, self.hand_size - 1)

    @property
    def max_seats(self) -> int:
        """Most players these rules and the deck allow."""
        decks = 2 if self.two_decks_from is not None else self.decks
        by_deck = (decks * (NUM_NATURAL + self.jokers_per_deck) - 2) // self.hand_size
        return by_deck if self.max_players is None else min(by_deck, self.max_players)

    def describe(self) -> str:
        """The options that differ from the default preset, one per line."""
        return self._describe(f"{self.name}: {self.num_players} players, {self.num_decks} deck(s)", PRESETS["standard"])

    # -- validation -------------------------------------------------------------------
    def _validate(self) -> None:
        bad = self._bad
        self._check_at_least(0, ("jokers_per_deck", "call_max", "penalty"))
        self._check_at_least(1, ("hand_size", "score_limit", "turn_limit", "round_limit", "milestone_every"))
        if self.decks not in (1, 2):
            bad("decks", f"must be 1 or 2, got {self.decks}")
        if self.two_decks_from is not None and self.two_decks_from < 2:
            bad("two_decks_from", f"must be ≥ 2 or None, got {self.two_decks_from}")
        if self.run_min < 3:
            bad("run_min", f"a run has at least 3 cards, got {self.run_min}")
        if self.run_jokers_max is not None and self.run_jokers_max < 0:
            bad("run_jokers_max", f"must be ≥ 0 or None, got {self.run_jokers_max}")
        if self.max_players is not None and self.max_players < 2:
            bad("max_players", f"must be ≥ 2 or None, got {self.max_players}")
        if self.num_players < 2:
            bad("num_players", f"Yaniv needs at least 2 players, got {self.num_players}")
        if self.max_players is not None and self.num_players > self.max_players:
            bad("num_players", f"{self.num_players} players, but these rules allow at most {self.max_players}")
        if self.num_players * self.hand_size + 2 > self.deck_size:
            bad(
                "num_players",
                f"{self.num_players} players × {self.hand_size} cards need more than "
                f"the {self.deck_size} cards of {self.num_decks} deck(s) "
                "(a face-up card and a stock card are needed too)",
            )
        if self.beaten_caller_alone and self.beaten_winners_score == "hand":
            bad("beaten_caller_alone", "nobody but a beaten caller scores, so beaten_winners_score must be 'zero'")
        if self.milestone_max is not None:
            if self.milestone_max < self.milestone_every:
                bad("milestone_max", f"must be ≥ milestone_every ({self.milestone_every}), got {self.milestone_max}")
            if self.milestone not in ("halve", "subtract"):
                bad("milestone_max", f"is only used with milestone 'halve' or 'subtract' (it is {self.milestone!r})")
        if self.blast and self.num_decks != 1:
            bad("blast", "Blast completes a four of a kind and is only defined with one deck")
        if self.milestone == "table" and not self.milestone_table:
            bad("milestone_table", "milestone 'table' needs at least one (total, new total) pair")
        if self.milestone_table:
            for pair in self.milestone_table:
                if min(pair) < 0:
                    bad("milestone_table", f"entries must be (total, new total) pairs of ints ≥ 0, got {pair!r}")
            if self.milestone != "table":
                bad("milestone_table", f"is only used with milestone='table' (milestone is {self.milestone!r})")
        if self.rounds_per_player is not None:
            if self.rounds_per_player < 1:
                bad("rounds_per_player", f"must be ≥ 1 or None, got {self.rounds_per_player}")
            if self.game_end != "first_to_limit":
                bad("rounds_per_player", "a fixed number of rounds goes with game_end='first_to_limit'")


STANDARD = Rules(name="standard")

PRESETS: dict[str, Rules] = {
    # 002: the default.
    "standard": STANDARD,
    # 000: call at 7 or less, one joker per run and never at its ends, top-card pick-up.
    "seven": STANDARD.replace(
        name="seven",
        call_max=7,
        beaten_winners_score="hand",
        run_jokers_max=1,
        run_jokers_at_ends=False,
        set_pickup="top",
        run_pickup="ends",
        slam="single",
        slam_from_stock_only=False,
        milestone="table",
        milestone_table=((50, 0), (100, 50)),
        game_end="first_to_limit",
        score_limit=100,
        limit_inclusive=False,
    ),
    # 001: French rules without jokers.
    "french": STANDARD.replace(
        name="french",
        jokers_per_deck=0,
        challenge="asaf",
        set_pickup="any",
        run_pickup="any",
        slam="same_rank",
        slam_from_stock_only=True,
        blast=True,
        empty_hand_wins=True,
        milestone="subtract",
        milestone_subtract=50,
        milestone_max=200,
        score_limit=200,
        limit_inclusive=False,
    ),
    # 004: 2-5 players, two decks for 4-5, call below 6, end-card pick-up.
    "two_deck": STANDARD.replace(
        name="two_deck",
        max_players=5,
        two_decks_from=4,
        call_max=5,
        run_jokers_max=1,
        set_pickup="ends",
        run_pickup="ends",
        slam="none",
        milestone="none",
        game_end="first_to_limit",
        score_limit=100,
        limit_inclusive=True,
        rounds_per_player=5,
    ),
}

#: The source document each preset follows, by file name (``yaniv_env/yaniv/RULES.md`` describes them).
PRESET_SOURCES: dict[str, str] = {
    "standard": "002_ca30a48b828425ba.txt",
    "seven": "000_b2322435e3217bc5.txt",
    "french": "001_b1afc0b7088644f0.txt",
    "two_deck": "004_77809b0bd563f6f4.txt",
}


#: The largest value of each option a rules dict read from a file may ask for, checked
#: before any table is built for it (:meth:`Rules.from_dict`; ``Game.rule_limits`` of
#: :mod:`yaniv_env.games`): far above every preset, below the sizes whose tables cost
#: too much (``docs/loading-limits.md``).
RULE_LIMITS: tuple[tuple[str, int], ...] = (
    ("num_players", 32),
    ("max_players", 32),
    ("two_decks_from", 32),
    ("hand_size", 10),
    ("jokers_per_deck", 8),
    ("call_max", 1_000),
    ("penalty", 10_000),
    ("run_min", 64),
    ("run_jokers_max", 64),
    ("milestone_every", 10_000),
    ("milestone_subtract", 10_000),
    ("milestone_max", 10_000),
    ("score_limit", 10_000),
    ("rounds_per_player", 10_000),
    ("turn_limit", 100_000),
    ("round_limit", 100_000),
)


def get_rules(rules: str | Rules = "standard", num_players: int | None = None) -> Rules:
    """A preset by name (or a ``Rules`` object), optionally with another player count."""
    return Rules.lookup(rules, num_players, PRESETS)


__all__ = ["Rules", "PRESETS", "PRESET_SOURCES", "RULE_LIMITS", "get_rules"]
