"""A Yaniv state for people: the text table of ``render()``, ``yaniv play`` and replays, and
the same table for frames (:func:`table_view`, drawn by :mod:`yaniv_env.core.frames`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..core.frames import PileView, RevealSpec, SeatView, TableView, is_shown
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


def _heading(s: State) -> tuple[str, str]:
    """The table's title and status (``"Yaniv (standard) — round 1, turn 3"``, ``"draw
    phase, player_1 to act"``)."""
    if s.phase == GAME_OVER:
        status = "game over"
    elif s.phase == ROUND_OVER:
        status = "round over"
    else:
        status = f"{PHASE_NAMES[s.phase]} phase, player_{s.current} to act"
    return f"Yaniv ({s.rules.name}) — round {s.round_index + 1}, turn {s.round_turns + 1}", status


def _round_over_line(s: State) -> str:
    """How the round ended and the points it gave, once it is over (else ``""``)."""
    rr = s.round_result
    if rr is None or s.phase < ROUND_OVER:
        return ""
    points = ", ".join(f"player_{p} +{rr.points[p]}" for p in range(s.num_players) if rr.hand_totals[p] is not None)
    return f"round over: {round_result_line(rr)} ({points})"


def _shown(s: State, reveal: RevealSpec, p: int) -> bool:
    return is_shown(reveal, p, s.current, s.phase < ROUND_OVER)


def render_table(s: State, event: str = "", reveal: RevealSpec = True) -> str:
    """The table as text. ``reveal``: ``True`` shows every hand, an int shows only that
    seat's hand (the others as ``▮`` backs plus their publicly known cards), ``False``
    hides them all, ``"current"`` shows the hand of the player to act (every hand once the
    round is over)."""
    title, status = _heading(s)
    lines = [f"{title}, {status}"]
    if event:
        lines.append(f"last: {event}")
    top = cards_name(s.top) or "—"
    lines.append(f"discard: {top}   (may take: {cards_name(s.takeable) or '—'})   stock: {len(s.stock)} cards")
    if s.pending is not None and s.phase in (1, 2):
        lines.append(f"just laid: {cards_name(s.pending.cards)}")
    lines.append(f"{'':2}{'player':<10}{'score':>6}  hand")
    for p in range(s.num_players):
        hand = s.hands[p]
        if not s.alive[p]:
            desc = "out"
        elif _shown(s, reveal, p):
            desc = f"{hand_name(hand)}  (total {hand_value(hand)})"
        else:
            known = s.known[p]
            backs = "▮ " * (len(hand) - len(known))
            desc = (backs + (f"+ known {hand_name(known)}" if known else "")).strip() + f"  ({len(hand)} cards)"
        marker = "▶ " if p == s.current and s.phase < 5 else "  "
        lines.append(f"{marker}{'player_' + str(p):<10}{s.scores[p]:>6}  {desc}")
    if result := _round_over_line(s):
        lines.append(result)
    return "\n".join(lines)


def table_view(s: State, events: Sequence[str] = (), reveal: RevealSpec = True) -> TableView:
    """The table for a frame (:func:`yaniv_env.core.frames.draw_table`), with the words of
    :func:`render_table`: hidden hands as card backs followed by their publicly known
    cards; the discard with the cards that may be taken; ``events``, the last moves."""
    title, status = _heading(s)
    seats = []
    for p in range(s.num_players):
        hand = s.hands[p]
        seat = SeatView(f"player_{p}", s.scores[p], [], to_act=p == s.current and s.phase < ROUND_OVER)
        if not s.alive[p]:
            seat.out = True
        elif _shown(s, reveal, p):
            seat.cards, seat.note = sorted_cards(hand), f"hand {hand_value(hand)}"
        else:
            known = sorted_cards(s.known[p])
            seat.cards = [None] * (len(hand) - len(known)) + known
            seat.note = f"{len(hand)} cards" + (f", {len(known)} known" if known else "")
        seats.append(seat)
    takeable = set(s.takeable)
    piles = [
        PileView(
            "discard",
            list(s.top),
            [k in takeable for k in s.top],
            f"may take: {cards_name(s.takeable)}" if s.takeable else "",
        )
    ]
    if s.pending is not None and s.phase in (1, 2):
        piles.append(PileView("just laid", list(s.pending.cards)))
    return TableView(title, status, seats, piles, len(s.stock), events=list(events), result=_round_over_line(s))
