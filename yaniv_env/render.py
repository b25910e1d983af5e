"""A readable text table of a Yaniv state, for ``render()``, ``yaniv play`` and replays."""

from __future__ import annotations

from .cards import cards_name
from .engine import PHASE_NAMES, State, hand_value


def render_table(s: State, event: str = "", reveal: bool | int | None = True) -> str:
    """The table as text. ``reveal``: ``True`` shows every hand, an int shows only that
    seat's hand (the others as ``▮`` backs plus their publicly known cards), ``False``
    hides them all."""
    rules = s.rules
    lines = [
        f"Yaniv ({rules.name}) — round {s.round_index + 1}, turn {s.round_turns + 1}, "
        f"{PHASE_NAMES[s.phase]} phase, player_{s.current} to act"
    ]
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
            desc = f"{cards_name(hand)}  (total {hand_value(hand)})"
        else:
            known = s.known[p]
            backs = "▮ " * (len(hand) - len(known))
            desc = (backs + (f"+ known {cards_name(known)}" if known else "")).strip() + f"  ({len(hand)} cards)"
        marker = "▶ " if p == s.current and s.phase < 5 else "  "
        lines.append(f"{marker}{'player_' + str(p):<10}{s.scores[p]:>6}  {desc}")
    if s.round_result is not None and s.phase >= 5:
        rr = s.round_result
        lines.append(
            f"round result: {rr.reason}"
            + (f", caller player_{rr.caller}" if rr.caller is not None else "")
            + (" (beaten)" if rr.caller_beaten else "")
            + f", winners {rr.winners}, points {rr.points}"
        )
    return "\n".join(lines)
