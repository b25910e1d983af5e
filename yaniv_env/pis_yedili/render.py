"""A Pis Yedili state for people: the text table of ``render()`` (``render_mode="ansi"``)
and the same table for frames (:func:`table_view`, drawn by :mod:`yaniv_env.core.frames`),
as :mod:`yaniv_env.yaniv.render` is for Yaniv."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.cards import SUIT_SYMBOLS, card_name, cards_name
from ..core.frames import PileView, RevealSpec, SeatView, TableView, is_shown
from . import engine
from .engine import DEAL_OVER, GAME_OVER, PHASE_NAMES, State, hand_value


def _cards(count: int) -> str:
    return f"{count} card" + ("" if count == 1 else "s")


def _heading(s: State) -> tuple[str, str]:
    """The table's title and status (``"Pis Yedili (standard) — deal 1/4, turn 3"``,
    ``"play phase, player_1 to act"``)."""
    rules = s.rules
    turn = min(s.deal_turns, rules.turn_limit)
    status = f"{PHASE_NAMES[s.phase]} phase" + (f", player_{s.current} to act" if s.phase < DEAL_OVER else "")
    return f"Pis Yedili ({rules.name}) — deal {s.deal_index + 1}/{rules.deals}, turn {turn}", status


def _top(s: State) -> tuple[str, str]:
    """The top card and the suit in force (or what the opener must play)."""
    if s.top >= 0:
        return f"top: {card_name(s.top)}", f"suit in force: {SUIT_SYMBOLS[s.suit]}"
    return "top: —", "(the opener must play a club)"


def _facts(s: State) -> list[str]:
    """The direction, the discard's size and, while a decision is pending, the sevens to
    answer and the cards drawn this turn."""
    facts = [f"direction: {'clockwise' if s.direction > 0 else 'anticlockwise'}", f"discard: {_cards(len(s.discard))}"]
    if s.phase < DEAL_OVER and s.pending_sevens:
        facts.append(f"sevens pending: {s.pending_sevens} (draw {s.pending_sevens * s.rules.seven_draw})")
    if s.phase < DEAL_OVER and s.drawn:
        facts.append(f"drawn this turn: {s.drawn}")
    return facts


def _result_lines(s: State) -> list[str]:
    """How the deal ended, once it is over, and the places once the game is."""
    lines = []
    dr = s.deal_result
    if dr is not None and s.phase >= DEAL_OVER:
        how = dr.reason + (f" on {card_name(dr.last_card)}" if dr.last_card >= 0 else "")
        how += f" ×{dr.multiplier}" if dr.multiplier != 1 else ""
        lines.append(
            f"deal result: {how}, winners {['player_' + str(p) for p in dr.winners]}, "
            f"hands {dr.hand_totals}, points {dr.points}"
        )
    if s.phase == GAME_OVER:
        lines.append(f"game over: places {engine.ranking(s)} (0 = first)")
    return lines


def _shown(s: State, reveal: RevealSpec, p: int) -> bool:
    return is_shown(reveal, p, s.current, s.phase < DEAL_OVER)


def render_table(s: State, event: str = "", reveal: RevealSpec = "current") -> str:
    """The table as text. ``reveal``: ``"current"`` shows only the hand of the player to
    act (every hand once the deal is over), ``True`` every hand, ``False`` none, an int that
    seat's hand; the others show as ``▮`` card backs."""
    title, status = _heading(s)
    lines = [f"{title}, {status}"]
    if event:
        lines.append(f"last: {event}")
    direction, discard, *pending = _facts(s)
    lines.append(f"{'   '.join(_top(s))}   {direction}   stock: {_cards(len(s.stock))}   {discard}")
    lines += pending
    deciding = s.phase < DEAL_OVER
    lines.append(f"{'':2}{'player':<10}{'score':>6}{'cards':>7}  hand")
    for p in range(s.num_players):
        hand = s.hands[p]
        shown = _shown(s, reveal, p)
        desc = f"{cards_name(hand)}  (total {hand_value(hand, s.rules)})" if shown else ("▮ " * len(hand)).strip()
        marker = "▶ " if deciding and p == s.current else "  "
        lines.append(f"{marker}{'player_' + str(p):<10}{s.scores[p]:>6}{len(hand):>7}  {desc}")
    return "\n".join(lines + _result_lines(s))


def table_view(s: State, events: Sequence[str] = (), reveal: RevealSpec = "current") -> TableView:
    """The table for a frame (:func:`yaniv_env.core.frames.draw_table`), with the words of
    :func:`render_table`; ``events``, the last moves."""
    title, status = _heading(s)
    seats = []
    for p in range(s.num_players):
        hand = s.hands[p]
        if _shown(s, reveal, p):
            cards, note = sorted(hand), f"hand {hand_value(hand, s.rules)}"
        else:
            cards, note = [None] * len(hand), _cards(len(hand))
        seats.append(SeatView(f"player_{p}", s.scores[p], cards, note, to_act=p == s.current and s.phase < DEAL_OVER))
    pile = PileView("top of the discard", [s.top] if s.top >= 0 else [], note=_top(s)[1])
    return TableView(title, status, seats, [pile], len(s.stock), _facts(s), list(events), " ".join(_result_lines(s)))
