"""Engine states as the plain data the web pages draw: the cards, a table seen from a
seat (or with every hand, for replays), a round's result, move names."""

from __future__ import annotations

from collections.abc import Iterable

from ...yaniv.actions import ActionTable
from ...yaniv.cards import JOKER, NUM_KINDS, RANK, RANK_NAMES, SUIT, SUIT_SYMBOLS, YANIV_VALUE
from ...yaniv.engine import PHASE_NAMES, RoundResult, State, hand_value
from ...yaniv.render import round_result_line, sorted_cards


def card_table() -> list[dict]:
    """How to draw each card kind: rank label, suit symbol, red or black, Yaniv value."""
    cards = []
    for k in range(NUM_KINDS):
        if k == JOKER:
            cards.append({"rank": "★", "suit": "", "red": False, "joker": True, "value": 0})
        else:
            suit = SUIT_SYMBOLS[SUIT[k]]
            cards.append({"rank": RANK_NAMES[RANK[k]], "suit": suit, "red": suit in "♥♦", "value": YANIV_VALUE[k]})
    return cards


def _cards(kinds: Iterable[int]) -> list[int]:
    return [int(k) for k in kinds]


def table_view(s: State, seat: int | None = None) -> dict:
    """The table as data. ``seat=None``: every hand (a replay shows them, the page hides
    them on request); a seat: that seat's hand only, the others as their sizes and the
    cards publicly known to be in them (what that player may see)."""
    players = []
    for p in range(s.num_players):
        shown = seat is None or seat == p
        players.append(
            {
                "seat": p,
                "score": int(s.scores[p]),
                "alive": bool(s.alive[p]),
                "size": len(s.hands[p]),
                "known": _cards(s.known[p]),
                "hand": _cards(sorted_cards(s.hands[p])) if shown else None,
                "total": hand_value(s.hands[p]) if shown else None,
            }
        )
    return {
        "round": int(s.round_index + 1),
        "turn": int(s.round_turns + 1),
        "phase": PHASE_NAMES[s.phase],
        "current": int(s.current),
        "top": _cards(s.top),
        "takeable": _cards(s.takeable),
        "pending": _cards(s.pending.cards) if s.pending is not None and s.phase in (1, 2) else [],
        "stock": len(s.stock),
        "out_of_play": len(s.pile),
        "players": players,
    }


def round_data(rr: RoundResult) -> dict:
    """A round's end as the rules reveal it: how it ended (in words), every hand still in
    with its total, the points taken, the scores after, the winners and who went out."""
    return {
        "text": round_result_line(rr),
        "hands": [_cards(sorted_cards(h)) for h in rr.hands],
        "totals": list(rr.hand_totals),
        "points": [int(v) for v in rr.points],
        "scores": [int(v) for v in rr.scores],
        "winners": [int(v) for v in rr.winners],
        "eliminated": [int(v) for v in rr.eliminated],
    }


def move_names(table: ActionTable, actions: Iterable[int]) -> dict[str, str]:
    """``{str(id): name}`` of ``actions`` (JSON object keys are strings)."""
    return {str(int(a)): table.name(int(a)) for a in actions}
