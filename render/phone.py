"""The phone view: the part of the board that matters now, cropped and scaled so that it reads at phone width.

Discord shows an attachment at most about 400 CSS px wide in a phone's chat (550 x 350 on the desktop; see
docs/map.md). The whole map at 1600 px shown 400 px wide makes army numbers about 8 px high; the phone view
crops the map to a window narrow enough that, shown 400 px wide, every army number is at least
``MIN_NUMBER_PX`` high and every territory name ``MIN_NAME_PX`` (the height of digits and capitals, not the
font's size), and places the window over what matters (``focus``: territories with a weight, such as the
last battle, the player's territories and their neighbours).

The window is chosen from what the audience may see only: the focus is reduced to the visible territories,
and the numbers that set its width are those drawn (a fogged territory shows "?"), so a crop can never tell
where hidden armies are. The map under the window is the whole render's, enlarged; badges, "+N" tags and
capital stars are drawn afresh at the enlarged size, so the numbers stay sharp.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

from . import sprites, style
from .labels import ENGLISH, Labels
from .layout import Box
from .mapview import (
    Frame,
    _board_for,
    draw_badges,
    draw_marks,
    draw_scene,
    encode_png,
    hidden_from,
    layers_for,
    scene_arrows,
    seen_events,
)
from .seats import NEUTRAL, Colour, seat_colour, seat_shape, turn_order

if TYPE_CHECKING:
    from engine import Board, GameState
    from engine.events import View

    from .base import StaticLayers

PHONE_WIDTH = 400       # CSS px: the widest a phone's chat shows an attachment
MIN_NUMBER_PX = 12      # army numbers at least this high at PHONE_WIDTH
MIN_NAME_PX = 10        # territory names' capitals at least this high at PHONE_WIDTH
ASPECT = 4 / 3          # width : height, under the desktop's 550 x 350 and a phone's width
OUTPUT_WIDTH = 800      # image px: twice the phone's width, sharp on a screen of two pixels per CSS px
MARK_SCALE = 1.3        # "+N" tags and stars, relative to their size on the whole map
REACH = 44              # map px round a focus territory's badge that should be in the window (its name)
MUST_SHOW = 16.0        # a focus weight this high must be in the window (a territory that changed hands): the
                        # window widens for it, legible or not, rather than leave it out
KEY_FONT = 26           # the colour key's names, image px (capitals about 9.5 CSS px at phone width)
KEY_ROW = 40            # one row of the colour key, image px
KEY_PAD = 6
KEY_PER_ROW = 4         # players in one row of the key; five to eight take two rows
ARROW_WIDTH = 12        # the last action's arrow in the phone view, image px: drawn over the names
ARROW_HEAD = 30


@dataclass(frozen=True)
class PhoneLayout:
    """How one phone view is drawn: the window on the map (map px), the image pixels per map pixel, the image's
    size, and the font size (image px) of each drawn army number, by territory: what legibility is checked on."""

    crop: Box
    scale: float
    size: tuple[int, int]
    numbers: Mapping[str, int]
    badge: int              # badge diameter, image px
    mark_font: int          # the "+N" tags' font size, image px
    key: Box = (0, 0, 0, 0)                              # the colour key along the image's bottom edge
    arrows: tuple[tuple[float, float, float, float], ...] = ()   # the last action's arrows drawn, image px

    def shown(self, px: float, width: int = PHONE_WIDTH) -> float:
        """How many CSS px ``px`` image pixels take when the image is shown ``width`` px wide."""
        return px * width / self.size[0]

    def number_heights(self) -> dict[str, int]:
        """Each drawn army number's digit height in image px."""
        return {tid: sprites.digit_height(style.font(size, bold=True, condensed=True))
                for tid, size in self.numbers.items()}

    def name_height(self) -> float:
        """The territory names' capital height in image px (names are the map's, enlarged)."""
        return name_cap_height() * self.scale


def name_cap_height() -> int:
    """The capital height of the territory names on the whole map, px."""
    _, top, _, bottom = style.text_bbox(style.label_font(), "H")
    return bottom - top


def _counts(state: GameState, layers: StaticLayers, hidden: set[str]) -> dict[str, tuple[str, str]]:
    """Every army number drawn: territory -> (badge shape, the number). Fogged territories show "?"."""
    return {tid: (seat_shape(state.owners[tid]), str(state.armies.get(tid, 0)))
            for tid in layers.geometry.territories if tid not in hidden and tid in state.owners}


def _number_sizes(counts: Mapping[str, tuple[str, str]], diameter: int) -> dict[str, int]:
    return {tid: int(sprites.number_font(shape, text, diameter, phone=True).size)
            for tid, (shape, text) in counts.items()}


def _window_width(counts: Mapping[str, tuple[str, str]], badge: int) -> float:
    """The widest window (map px) whose numbers and names still read at phone width, at the map's scale."""
    heights = [sprites.digit_height(style.font(size, bold=True, condensed=True))
               for size in _number_sizes(counts, badge).values()]
    number = min(heights, default=sprites.digit_height(style.font(sprites.PHONE_NUMBER_SIZES[0], bold=True,
                                                                  condensed=True)))
    return PHONE_WIDTH * min(number / MIN_NUMBER_PX, name_cap_height() / MIN_NAME_PX)


def choose_window(points: Sequence[tuple[tuple[int, int], float]], width: float, height: float,
                  map_size: tuple[int, int]) -> tuple[float, float]:
    """The top left corner of the ``width`` x ``height`` window inside the map that holds the most weight of
    ``points`` (map positions with a weight), with ``REACH`` round each; among equals the one nearest the
    points' centre of weight. The window is then centred on what it holds."""
    mw, mh = map_size

    def clamp(x: float, y: float) -> tuple[float, float]:
        return min(max(0.0, x), mw - width), min(max(0.0, y), mh - height)

    if not points:
        return clamp((mw - width) / 2, (mh - height) / 2)
    total = sum(w for _, w in points) or 1.0
    cx = sum(p[0] * w for p, w in points) / total
    cy = sum(p[1] * w for p, w in points) / total

    def inside(x: float, y: float) -> list[tuple[tuple[int, int], float]]:
        return [(p, w) for p, w in points
                if x + REACH <= p[0] <= x + width - REACH and y + REACH <= p[1] <= y + height - REACH]

    def score(x: float, y: float) -> tuple[float, float]:
        return sum(w for _, w in inside(x, y)), -((x + width / 2 - cx) ** 2 + (y + height / 2 - cy) ** 2)

    candidates = [clamp(cx - width / 2, cy - height / 2)]
    for (px, py), _ in points:
        candidates += [clamp(px - width / 2, py - height / 2), clamp(px - REACH, py - REACH),
                       clamp(px - width + REACH, py - REACH), clamp(px - REACH, py - height + REACH),
                       clamp(px - width + REACH, py - height + REACH)]
    best = max(candidates, key=lambda c: score(*c))
    held = inside(*best)
    if held:   # centre the window on what it holds, if that keeps all of it
        x0, x1 = min(p[0] for p, _ in held), max(p[0] for p, _ in held)
        y0, y1 = min(p[1] for p, _ in held), max(p[1] for p, _ in held)
        centred = clamp((x0 + x1 - width) / 2, (y0 + y1 - height) / 2)
        if score(*centred)[0] >= score(*best)[0]:
            best = centred
    return best


def key_entries(state: GameState, labels: Labels) -> list[tuple[int, str]]:
    """The colour key's seats and names: the players still in the game in turn order, and the neutral where it
    holds territories."""
    out = {p.seat: p.name for p in state.players}
    gone = set(state.eliminated) | set(state.surrendered)
    entries = [(seat, out.get(seat, "")) for seat in turn_order(state) if seat not in gone]
    if any(owner == NEUTRAL for owner in state.owners.values()):
        entries.append((NEUTRAL, labels.word("Neutral")))
    return entries


def key_height(entries: int) -> int:
    """The colour key's height in image px."""
    return math.ceil(entries / KEY_PER_ROW) * KEY_ROW + KEY_PAD if entries else 0


def _fit(text: str, width: float) -> str:
    font = style.font(KEY_FONT, bold=True, condensed=True)
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def draw_key(img: Image.Image, state: GameState, entries: Sequence[tuple[int, str]]) -> Box:
    """The colour key along the image's bottom edge: each player's badge shape in their colour and their name
    (the whole map's panel is not in the phone view). Returns its box."""
    if not entries:
        return (0, 0, 0, 0)
    w, h = img.size
    top = h - key_height(len(entries))
    shade = Image.new("RGB", (w, h - top), style.PANEL_BG)
    img.paste(shade, (0, top))
    draw = ImageDraw.Draw(img)
    draw.line((0, top, w, top), fill=style.PANEL_LINE, width=2)
    per_row = min(len(entries), KEY_PER_ROW)
    cell = (w - 2 * KEY_PAD) / per_row
    font = style.font(KEY_FONT, bold=True, condensed=True)
    diameter = KEY_ROW - 10
    for i, (seat, name) in enumerate(entries):
        x = KEY_PAD + (i % per_row) * cell
        y = top + KEY_PAD // 2 + (i // per_row) * KEY_ROW
        swatch = sprites.badge(seat_shape(seat), seat_colour(seat, state), "", diameter=diameter)
        img.paste(swatch, (round(x), round(y + (KEY_ROW - swatch.height) / 2)), swatch)
        text_x = x + swatch.width + 6
        draw.text((text_x, y + KEY_ROW / 2), _fit(name, x + cell - text_x - 8), font=font, anchor="lm",
                  fill=style.TEXT)
    return (0, top, w, h)


def _phone_arrow(img: Image.Image, a: tuple[float, float], b: tuple[float, float], colour: Colour,
                 badge: int) -> tuple[float, float, float, float]:
    """The last action's arrow drawn afresh over the enlarged map, names included (a name never hides it),
    from badge to badge; where the badges are so near each other that it would be a stub, it runs beside
    them instead, from behind the source to beside the target, pointing the same way. Returns where it runs."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    gap = badge / 2 + 4
    x0, y0 = a[0] + ux * gap, a[1] + uy * gap
    x1, y1 = b[0] - ux * gap, b[1] - uy * gap
    if d - 2 * gap < 2 * ARROW_HEAD:
        nx, ny = (uy, -ux) if uy < 0 or (uy == 0 and ux > 0) else (-uy, ux)   # the side above the line
        off = badge / 2 + ARROW_WIDTH
        x0, y0 = a[0] - ux * badge / 2 + nx * off, a[1] - uy * badge / 2 + ny * off
        x1, y1 = b[0] + nx * off, b[1] + ny * off
    patch, pos = sprites.arrow(x0, y0, x1, y1, colour=colour, width=ARROW_WIDTH, head=ARROW_HEAD, outline=3.5)
    img.paste(patch, pos, patch)
    return x0, y0, x1, y1


def phone_layout(state: GameState, board: Board, layers: StaticLayers, focus: Mapping[str, float],
                 hidden: set[str], reserve: int = 0) -> PhoneLayout:
    """Where the phone view's window goes and at what scale, from the drawn state only (``hidden``: fogged).

    The window starts as wide as the numbers of the focus allow and narrows until every number drawn in it
    reads at phone width (a stack of three digits elsewhere on the board does not narrow it). ``reserve``
    image px along the bottom (the colour key) hold no focus."""
    geo = layers.geometry
    counts = _counts(state, layers, hidden)
    points = [(geo.territories[tid].anchor, weight) for tid, weight in focus.items()
              if tid in geo.territories and tid not in hidden and weight > 0]
    held = {tid: counts[tid] for tid in focus if tid in counts} or counts
    width = min(geo.width, round(_window_width(held, geo.badge_size)))
    must = [geo.territories[tid].anchor for tid, weight in focus.items()
            if weight >= MUST_SHOW and tid in geo.territories and tid not in hidden]
    spread: tuple[float, float, float, float] | None = None
    if must:
        spread = (min(p[0] for p in must) - REACH, min(p[1] for p in must) - REACH,
                  max(p[0] for p in must) + REACH, max(p[1] for p in must) + REACH)
        need = max(spread[2] - spread[0], (spread[3] - spread[1]) * ASPECT * 1.15)
        if need > width:
            width = min(geo.width, math.ceil(need))
        else:
            spread = None   # they fit in a legible window: it is chosen as usual
    out_w = OUTPUT_WIDTH
    for _ in range(30):
        scale = out_w / width
        height = min(round(width / ASPECT), geo.height)   # a map less tall than the window: as tall as the map
        kept = max(1.0, height - reserve / scale)
        if spread is not None:   # centred on what must be shown, above the key
            x = min(max(0.0, (spread[0] + spread[2] - width) / 2), geo.width - width)
            y = min(max(0.0, (spread[1] + spread[3] - kept) / 2), max(0.0, geo.height - height))
        else:
            x, y = choose_window(points, width, kept, (geo.width, geo.height))
            y = min(y, geo.height - height)
        crop = (round(x), round(y), round(x) + width, round(y) + height)
        badge = round(geo.badge_size * scale)
        reach = geo.badge_size // 2
        drawn = {tid: c for tid, c in counts.items()
                 if crop[0] - reach < geo.territories[tid].anchor[0] < crop[2] + reach
                 and crop[1] - reach < geo.territories[tid].anchor[1] < crop[3] + reach}
        numbers = _number_sizes(drawn, badge)
        heights = [sprites.digit_height(style.font(size, bold=True, condensed=True)) for size in numbers.values()]
        if spread is not None or (min(heights, default=out_w) * PHONE_WIDTH / out_w >= MIN_NUMBER_PX and
                                  name_cap_height() * scale * PHONE_WIDTH / out_w >= MIN_NAME_PX):
            break
        width = round(width * 0.97)   # the enlarged fonts are whole sizes: narrow until every number reads
    out_h = min(round(OUTPUT_WIDTH / ASPECT), round(height * scale))
    return PhoneLayout(crop=crop, scale=scale, size=(out_w, out_h), numbers=numbers, badge=badge,
                       mark_font=round(sprites.TAG_FONT * MARK_SCALE * scale))


def render_phone(state: GameState, board: Board | None = None, *, focus: Mapping[str, float] | None = None,
                 highlight_events: Sequence[View] | None = None, labels: Labels = ENGLISH,
                 visible: set[str] | frozenset[str] | None = None) -> tuple[Image.Image, PhoneLayout]:
    """The phone view of the board and how it was laid out. ``focus`` weighs the territories that matter now;
    ``visible`` (fog of war) as for ``render_map``: territories outside it count for nothing here."""
    if board is None:
        board = _board_for(state)
    layers = layers_for(state, board, labels)
    hidden = hidden_from(board, visible)
    events = seen_events(highlight_events)
    entries = key_entries(state, labels)
    lay = phone_layout(state, board, layers, focus or {}, hidden, key_height(len(entries)))
    scene, _ = draw_scene(state, board, layers, events, hidden, arrows=False)
    img = scene.crop(lay.crop).resize(lay.size, Image.Resampling.LANCZOS)
    frame = Frame(lay.crop[0], lay.crop[1], lay.scale)
    drawn = []
    width = layers.geometry.width
    for a, b, colour in scene_arrows(state, layers, events, hidden)[0]:
        if abs(b[0] - a[0]) > width / 2:   # across the east-west edge: the way round, as on the whole map
            shift = width if b[0] < a[0] else -width
            pairs = [(a, (b[0] + shift, b[1])), ((a[0] - shift, a[1]), b)]
        else:
            pairs = [(a, b)]
        for p, q in pairs:
            pa, pb = frame.point(p), frame.point(q)
            drawn.append(_phone_arrow(img, pa, pb, colour, lay.badge))
    draw_badges(img, layers, state, hidden, frame, phone=True)
    draw_marks(img, layers, state, events, hidden, frame, MARK_SCALE)
    key = draw_key(img, state, entries)
    return img, replace(lay, key=key, arrows=tuple(drawn))


def draw_phone_png(state: GameState, highlight_events: Sequence[View], labels: Labels,
                   visible: set[str] | frozenset[str] | None, focus: Mapping[str, float]) -> bytes:
    """``render_phone`` then ``encode_png``, as a worker process runs it."""
    img, _ = render_phone(state, focus=focus, highlight_events=highlight_events, labels=labels, visible=visible)
    return encode_png(img)
