"""Pictures of a card table: the frames of ``render_mode="rgb_array"`` and the window of
``render_mode="human"``, for every game.

A game describes what is on its table as a :class:`TableView` (the words come from the
same functions as its text render); :func:`draw_table` draws it with Pillow as an
``(H, W, 3)`` ``uint8`` array of a fixed size (:data:`FRAME_SIZE`): a heading, one row per
seat (name, score, the hand as card faces or card backs, the seat to act outlined), the
piles in the middle of the table (cards that may be taken raised and outlined, the others
dimmed), the stock, a few more facts, the last moves in words and, when a round is over,
how it ended. :func:`card_image` draws one card; the images are cached, so a frame costs
a few milliseconds. :func:`table_layout` gives the boxes the cards are drawn in (the
tests compare those pixels with :func:`card_image`).

Pillow (the ``[render]`` extra) is imported when the first frame is drawn, pygame-ce when
the first window opens (:class:`Window`); a missing library raises ``ImportError`` naming
the extra. The text uses DejaVu Sans (found among the system's fonts or matplotlib's),
else Pillow's own font, whose missing symbols (suits, joker) are written as letters.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .cards import JOKER, JOKER_NAME, RANK, RANK_NAMES, SUIT, SUIT_SYMBOLS

#: ``(width, height)`` of every frame, whatever the game and the number of players.
FRAME_SIZE = (960, 640)
#: Moves listed under "last moves".
RECENT_EVENTS = 6

RevealSpec = Any  # "current", True, False or a seat number


def check_reveal(reveal: RevealSpec, num_players: int) -> None:
    """``ValueError`` unless ``reveal`` is ``"current"``, ``True``, ``False`` or a seat."""
    if not (
        reveal is True or reveal is False or reveal == "current" or (type(reveal) is int and 0 <= reveal < num_players)
    ):
        raise ValueError(f"reveal must be 'current', True, False or a seat 0..{num_players - 1}, got {reveal!r}")


def is_shown(reveal: RevealSpec, seat: int, current: int, deciding: bool) -> bool:
    """Whether a render with ``reveal`` shows ``seat``'s hand: ``True`` every hand,
    ``False`` none, a seat number that seat's, ``"current"`` the hand of the player to act
    (``current``) while a decision is pending (``deciding``) and every hand once the round
    is over (they were shown to score it)."""
    if reveal == "current":
        reveal = current if deciding else True
    return reveal is True or (reveal is not False and reveal == seat)


# -- what a game puts on the table --------------------------------------------------------


@dataclass
class SeatView:
    """One seat: ``cards`` are card kinds (faces) or ``None`` (a card back)."""

    name: str
    score: int
    cards: list[int | None]
    note: str = ""
    to_act: bool = False
    out: bool = False


@dataclass
class PileView:
    """Cards in the middle of the table; ``takeable[i]``: whether card ``i`` may be taken
    (``None``: the question does not arise, every card is drawn plainly)."""

    label: str
    cards: list[int]
    takeable: list[bool] | None = None
    note: str = ""


@dataclass
class TableView:
    """Everything a frame shows, in the words of the game's text render."""

    title: str
    status: str
    seats: list[SeatView]
    piles: list[PileView]
    stock: int
    facts: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    result: str = ""


# -- layout ---------------------------------------------------------------------------------

_W, _H = FRAME_SIZE
_HEADING = 48
_FOOTER = 52
_SEATS_X = (12, 604)
_LABEL_W = 150
_PANEL_X = (620, _W - 12)
_PILE_CARD = (66, 94)
_STOCK_CARD = (36, 51)
_RAISE = 10
#: Rows lower than this (8 players or more) write the seat's name and facts on two lines.
_COMPACT_ROW = 72


@dataclass
class Box:
    x: int
    y: int
    w: int
    h: int


@dataclass
class TableLayout:
    """Where :func:`draw_table` draws: ``seat_rows[p]`` the row of seat ``p``,
    ``seat_cards[p][i]`` the box of its card ``i`` (later cards overlap earlier ones),
    ``pile_cards[j][i]`` the box of card ``i`` of pile ``j``, ``stock`` the stock's card."""

    seat_rows: list[Box]
    seat_cards: list[list[Box]]
    pile_cards: list[list[Box]]
    pile_tops: list[int]
    stock: Box
    facts_top: int


def _spread(count: int, x0: int, width: int, card_w: int, gap: int) -> list[int]:
    """Left edges of ``count`` cards in ``width`` pixels from ``x0``, overlapping when they
    do not fit side by side."""
    if count == 0:
        return []
    step = card_w + gap if count == 1 else min(card_w + gap, (width - card_w) / (count - 1))
    return [x0 + round(i * step) for i in range(count)]


def table_layout(view: TableView) -> TableLayout:
    """The boxes of ``view``'s seats, cards, piles and stock (see :class:`TableLayout`)."""
    n = len(view.seats)
    area = _H - _HEADING - _FOOTER
    row_h = min(132, area // max(n, 1))
    card_h = min(100, row_h - (14 if row_h >= _COMPACT_ROW else 8))
    card_w = round(card_h * 0.7)
    rows, seat_cards = [], []
    x0, x1 = _SEATS_X
    for p, seat in enumerate(view.seats):
        y = _HEADING + p * row_h
        rows.append(Box(x0, y + 2, x1 - x0, row_h - 4))
        cy = y + (row_h - card_h) // 2
        xs = _spread(len(seat.cards), x0 + _LABEL_W, x1 - x0 - _LABEL_W - 8, card_w, 6)
        seat_cards.append([Box(x, cy, card_w, card_h) for x in xs])
    px0, px1 = _PANEL_X
    pw, ph = _PILE_CARD
    pile_cards, pile_tops = [], []
    y = _HEADING + 26
    for pile in view.piles:
        pile_tops.append(y - 22)
        xs = _spread(len(pile.cards), px0, px1 - px0, pw, 8)
        marks = pile.takeable or [False] * len(pile.cards)
        pile_cards.append([Box(x, y + (0 if m else _RAISE), pw, ph) for x, m in zip(xs, marks, strict=True)])
        y += ph + _RAISE + (52 if pile.note else 32)
    sw, sh = _STOCK_CARD
    stock = Box(px0, y - 10, sw, sh)
    return TableLayout(rows, seat_cards, pile_cards, pile_tops, stock, y + sh)


# -- Pillow, fonts and cards ------------------------------------------------------------------

_EXTRA_HINT = 'pip install "yaniv-env[render]"'


def _pil():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as e:
        raise ImportError(
            f"render_mode='rgb_array' and 'human' draw with Pillow, which is not installed: {_EXTRA_HINT}"
        ) from e
    return Image, ImageDraw, ImageFont


_FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}


def _font_paths(bold: bool) -> list[str]:
    # Pillow looks a bare file name up among the system's fonts; matplotlib ships DejaVu too.
    name = _FONT_FILES[bold]
    paths = [name]
    spec = importlib.util.find_spec("matplotlib")
    if spec is not None and spec.submodule_search_locations:
        paths.append(str(Path(spec.submodule_search_locations[0]) / "mpl-data" / "fonts" / "ttf" / name))
    return paths


@functools.cache
def font(size: int, bold: bool = False):
    """DejaVu Sans (bold) at ``size`` pixels, or Pillow's own font if DejaVu is not found."""
    _, _, ImageFont = _pil()
    for path in _font_paths(bold):
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


#: What to write for a symbol the font lacks.
_FALLBACK = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "★": "*", "—": "-", "×": "x", "▶": ">"}


@functools.cache
def _missing(f, char: str) -> bool:
    # A glyph the font lacks is drawn as the font's "no glyph" box: compare with one.
    return (f.getbbox(char), bytes(f.getmask(char))) == (f.getbbox("\U0010fffd"), bytes(f.getmask("\U0010fffd")))


def _writable(f, text: str) -> str:
    # The joker's symbol is a tiny picture where fonts have it: the cards say "JK" too.
    text = text.replace(JOKER_NAME, "JK")
    return "".join(_FALLBACK[c] if c in _FALLBACK and _missing(f, c) else c for c in text)


_RED = (200, 30, 40)
_BLACK = (25, 25, 30)
_JOKER_INK = (120, 40, 160)
_FELT = (28, 92, 60)
_ROW = (22, 74, 48)
_PANEL = (20, 66, 44)
_INK = (240, 236, 220)
_DIM_INK = (170, 190, 175)
_GOLD = (245, 200, 60)
_TAKE = (120, 230, 120)
_BACK = (38, 62, 140)
_BACK_LINES = (70, 96, 176)


def _rounded_mask(size: tuple[int, int], radius: int):
    Image, ImageDraw, _ = _pil()
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), radius, fill=255)
    return mask


@functools.lru_cache(maxsize=512)
def card_image(card: int | None, width: int, height: int, dim: bool = False):
    """One card as an RGBA Pillow image (transparent round corners): the face of card kind
    ``card`` (rank and suit in the corner, a large suit in the middle; the joker as
    ``JK`` and a star), or the back for ``None``; ``dim`` greys it (a card of a pile that
    may not be taken). Cached: the same arguments give the same image object."""
    Image, ImageDraw, _ = _pil()
    radius = max(3, width // 8)
    img = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    box = (0, 0, width - 1, height - 1)
    if card is None:
        d.rounded_rectangle(box, radius, fill=_BACK, outline=(230, 230, 240), width=2)
        inset = 5
        iw, ih = width - 2 * inset, height - 2 * inset
        lattice = Image.new("RGBA", (iw, ih), (*_BACK, 255))
        ld = ImageDraw.Draw(lattice)
        for x in range(-ih, iw, max(6, width // 6)):
            ld.line((x, 0, x + ih, ih), fill=_BACK_LINES)
            ld.line((x + ih, 0, x, ih), fill=_BACK_LINES)
        img.paste(lattice, (inset, inset), _rounded_mask((iw, ih), max(2, radius - 3)))
        d.rounded_rectangle(
            (inset, inset, width - 1 - inset, height - 1 - inset), max(2, radius - 3), outline=(150, 170, 220)
        )
    else:
        d.rounded_rectangle(box, radius, fill=(252, 252, 248), outline=(90, 90, 90), width=1)
        if card == JOKER:
            ink, corner, middle = _JOKER_INK, "JK", "★"
        else:
            ink = _RED if SUIT[card] in (1, 2) else _BLACK
            corner, middle = RANK_NAMES[RANK[card]], SUIT_SYMBOLS[SUIT[card]]
        small = font(max(9, round(height * 0.2)), bold=True)
        pad = max(2, width // 14)
        d.text((pad, pad // 2), _writable(small, corner), font=small, fill=ink)
        if card != JOKER:
            d.text((pad, pad // 2 + round(height * 0.2)), _writable(small, middle), font=small, fill=ink)
        big = font(round(height * 0.42))
        d.text((width * 0.58, height * 0.6), _writable(big, middle), font=big, fill=ink, anchor="mm")
    if dim:
        grey = Image.new("RGBA", (width, height), (*_PANEL, 255))
        img = Image.composite(Image.blend(img, grey, 0.45), img, img.getchannel("A"))
    return img


@functools.lru_cache(maxsize=4096)
def _wrap(text: str, size: int, bold: bool, width: int) -> tuple[str, ...]:
    """``text`` cut into lines no wider than ``width`` pixels at ``font(size, bold)``, at spaces."""
    f = font(size, bold)
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if line and f.getlength(_writable(f, trial)) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return (*lines, line) if line else tuple(lines)


@functools.lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, bold: bool, anchor: str):
    """``text`` as a mask to paste a colour through, and the offset of its corner from the
    anchor point; cached, since drawing text is most of the cost of a frame."""
    Image, ImageDraw, _ = _pil()
    f = font(size, bold)
    text = _writable(f, text)
    left, top, right, bottom = f.getbbox(text, anchor=anchor)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
    return mask, left, top


@functools.lru_cache(maxsize=16)
def _background(rows: tuple[tuple[int, int, int, int], ...]):
    """The felt, the heading band, the seat rows (``(x, y, w, h)``) and the middle panel."""
    Image, ImageDraw, _ = _pil()
    img = Image.new("RGB", FRAME_SIZE, _FELT)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, _W, _HEADING - 6), fill=(16, 56, 36))
    for x, y, w, h in rows:
        d.rounded_rectangle((x, y, x + w, y + h), 8, fill=_ROW, outline=(40, 110, 75), width=1)
    px0, px1 = _PANEL_X
    d.rounded_rectangle((px0 - 8, _HEADING + 2, px1 + 4, _H - _FOOTER - 2), 10, fill=_PANEL)
    return img


def draw_table(view: TableView) -> np.ndarray:
    """The frame of ``view``: an ``(H, W, 3)`` ``uint8`` array (``FRAME_SIZE`` is ``(W, H)``)."""
    _, ImageDraw, _ = _pil()
    lay = table_layout(view)
    img = _background(tuple((r.x, r.y, r.w, r.h) for r in lay.seat_rows)).copy()
    d = ImageDraw.Draw(img)

    def text(xy, s, size=15, bold=False, fill=_INK, anchor="la"):
        mask, left, top = _text_mask(s, size, bold, anchor)
        img.paste(fill, (round(xy[0]) + left, round(xy[1]) + top), mask)

    def card(kind, b, dim=False):
        im = card_image(kind, b.w, b.h, dim)
        img.paste(im, (b.x, b.y), im)

    text((14, 12), view.title, size=19, bold=True)
    text((_W - 14, 14), view.status, size=16, fill=_GOLD, anchor="ra")

    # seats
    for seat, row, boxes in zip(view.seats, lay.seat_rows, lay.seat_cards, strict=True):
        if seat.to_act:
            d.rounded_rectangle((row.x, row.y, row.x + row.w, row.y + row.h), 8, outline=_GOLD, width=3)
        ink = _DIM_INK if seat.out else _INK
        name = ("▶ " if seat.to_act else "") + seat.name
        note = "out" if seat.out else seat.note
        if row.h >= _COMPACT_ROW:
            top = row.y + (row.h - 58) // 2
            text((row.x + 10, top), name, size=16, bold=True, fill=ink)
            text((row.x + 10, top + 21), f"score {seat.score}", size=14, fill=ink)
            text((row.x + 10, top + 39), note, size=13, fill=_DIM_INK)
        else:
            top = row.y + (row.h - 34) // 2
            text((row.x + 10, top), name, size=14, bold=True, fill=ink)
            text((row.x + 10, top + 19), f"score {seat.score} · {note}", size=12, fill=_DIM_INK)
        for kind, b in zip(seat.cards, boxes, strict=True):
            card(kind, b)

    # piles, stock, facts and the last moves
    px0, px1 = _PANEL_X
    for pile, top, boxes in zip(view.piles, lay.pile_tops, lay.pile_cards, strict=True):
        text((px0, top + 2), pile.label, size=14, bold=True, fill=_DIM_INK)
        marks = pile.takeable or [None] * len(pile.cards)
        for kind, b, mark in zip(pile.cards, boxes, marks, strict=True):
            card(kind, b, dim=mark is False)
            if mark:
                d.rounded_rectangle((b.x - 2, b.y - 2, b.x + b.w + 1, b.y + b.h + 1), 9, outline=_TAKE, width=3)
        if not pile.cards:
            text((px0, top + 30), "—", size=20, fill=_DIM_INK)
        if pile.note:
            bottom = max((b.y + b.h for b in boxes), default=top + 60)
            text((px0, bottom + 6), pile.note, size=14, fill=_TAKE if pile.takeable else _INK)
    s = lay.stock
    if view.stock:
        card(None, s)
    text((s.x + s.w + 10, s.y + s.h // 2), f"stock: {view.stock} card{'' if view.stock == 1 else 's'}", anchor="lm")
    y = lay.facts_top + 8
    for fact in view.facts:
        text((px0, y), fact, size=14)
        y += 19
    y += 6
    text((px0, y), "last moves", size=14, bold=True, fill=_DIM_INK)
    y += 20
    room = max(0, (_H - _FOOTER - 8 - y) // 17)
    shown: list[tuple[str, bool]] = []
    for i, event in enumerate(reversed(view.events)):  # the newest first, whole events only
        lines = _wrap(event, 13, i == 0, px1 - px0)
        if len(shown) + len(lines) > room:
            break
        shown[:0] = [(line, i == 0) for line in lines]
    for line, newest in shown:
        text((px0, y), line, size=13, bold=newest, fill=_INK if newest else _DIM_INK)
        y += 17

    # how the round ended
    for i, line in enumerate(_wrap(view.result, 14, True, _W - 28)[:2]):
        text((14, _H - _FOOTER + 6 + 20 * i), line, size=14, bold=True, fill=_GOLD)
    return np.asarray(img)


# -- the window of render_mode="human" ------------------------------------------------------


class Window:
    """A pygame-ce window showing frames at ``fps`` frames a second at most (as
    PettingZoo's classic games do). Opened by the first :meth:`show`; without a display
    that raises ``RuntimeError`` saying so, without pygame-ce ``ImportError`` naming the
    extra."""

    def __init__(self, title: str, fps: float):
        self.title = title
        self.fps = fps
        self._screen = None
        self._clock = None

    def show(self, frame: np.ndarray) -> None:
        pygame = self._pygame()
        if self._screen is None:
            pygame.display.init()
            try:
                self._screen = pygame.display.set_mode((frame.shape[1], frame.shape[0]))
                # Without a display SDL falls back to a window nobody sees, unless asked for one.
                if pygame.display.get_driver() in ("offscreen", "dummy") and not os.environ.get("SDL_VIDEODRIVER"):
                    raise pygame.error("SDL found only its offscreen driver (DISPLAY and WAYLAND_DISPLAY unset?)")
            except pygame.error as e:
                self._screen = None
                pygame.display.quit()
                raise RuntimeError(
                    f"render_mode='human' opens a window and needs a display: {e}; "
                    "use render_mode='rgb_array' for frames without a window"
                ) from None
            pygame.display.set_caption(self.title)
            self._clock = pygame.time.Clock()
        self._screen.blit(pygame.surfarray.make_surface(frame.swapaxes(0, 1)), (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        if self._screen is not None:
            self._pygame().display.quit()
            self._screen = None

    @staticmethod
    def _pygame():
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        try:
            import pygame
        except ImportError as e:
            raise ImportError(
                f"render_mode='human' shows frames with pygame-ce, which is not installed: {_EXTRA_HINT}"
            ) from e
        return pygame


__all__ = [
    "FRAME_SIZE",
    "PileView",
    "SeatView",
    "TableLayout",
    "TableView",
    "Window",
    "card_image",
    "check_reveal",
    "draw_table",
    "font",
    "is_shown",
    "table_layout",
]
