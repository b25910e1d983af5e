"""A readable text table of a Yaniv state, for ``render()``, ``yaniv play`` and replays."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import RANK, SUIT, cards_name
from .engine import GAME_OVER, PHASE_NAMES, ROUND_OVER, RoundResult, State, hand_value


def sorted_cards(kinds: Iterable[int]) -> list[int]:
    """Cards in the order a player holds them: jokers first, then by rank (A … K), then
    by suit."""
    return sorted(kinds, key=lambda k: (RANK[k], SUIT[k]))


def hand_name(kinds: Iterable[int]) -> str:
    """A hand as sorted card names (``"🃏 A♠ 7♥ 7♣"``)."""
    return cards_name(sorted_cards(kinds))


def _seats(seats: Iterable[int]) -> str:
    names = [f"player_{p}" for p in seats]
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


def round_result_line(rr: RoundResult) -> str:
    """How a round ended, in words (``"player_0 called Yaniv and was beaten; player_1
    won"``)."""
    if rr.reason == "yaniv":
        text = f"player_{rr.caller} called Yaniv"
        if rr.challenger is not None:
            text += f", player_{rr.challenger} declared Asaf"
        text += " and was beaten" if rr.caller_beaten else " and won"
        if rr.caller_beaten:
            text += f"; {_seats(rr.winners)} won"
        return text
    if rr.reason == "empty_hand":
        return f"{_seats(rr.winners)} emptied their hand and won"
    return "a draw, no points" + (" (turn limit)" if rr.truncated else " (the stock ran out)")


def render_table(s: State, event: str = "", reveal: bool | int | None = True) -> str:
    """The table as text. ``reveal``: ``True`` shows every hand, an int shows only that
    seat's hand (the others as ``▮`` backs plus their publicly known cards), ``False``
    hides them all."""
    rules = s.rules
    if s.phase == GAME_OVER:
        status = "game over"
    elif s.phase == ROUND_OVER:
        status = "round over"
    else:
        status = f"{PHASE_NAMES[s.phase]} phase, player_{s.current} to act"
    lines = [f"Yaniv ({rules.name}) — round {s.round_index + 1}, turn {s.round_turns + 1}, {status}"]
    if event:
        lines.append(f"last: {event}")
    top = cards_name(s.top) or "—"
    lines.append(f"discard: {top}   (may take: {cards_name(s.takeable) or '—'})   stock: {len(s.stock)} cards")
    if s.pending is not None and s.phase in (1, 2):
        lines.append(f"just laid: {cards_name(s.pending.cards)}")
    lines.append(f"{'':2}{'player':<10}{'score':>6}  hand")
    for p in range(s.num_players):
        hand = s.hands[p]
        shown = reveal is True or (reveal is not False and reveal == p)
        if not s.alive[p]:
            desc = "out"
        elif shown:
            desc = f"{hand_name(hand)}  (total {hand_value(hand)})"
        else:
            known = s.known[p]
            backs = "▮ " * (len(hand) - len(known))
            desc = (backs + (f"+ known {hand_name(known)}" if known else "")).strip() + f"  ({len(hand)} cards)"
        marker = "▶ " if p == s.current and s.phase < 5 else "  "
        lines.append(f"{marker}{'player_' + str(p):<10}{s.scores[p]:>6}  {desc}")
    if s.round_result is not None and s.phase >= 5:
        rr = s.round_result
        points = ", ".join(f"player_{p} +{rr.points[p]}" for p in range(s.num_players) if rr.hand_totals[p] is not None)
        lines.append(f"round over: {round_result_line(rr)} ({points})")
    return "\n".join(lines)
