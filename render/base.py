"""The static layer of the map, built once per process and shared read-only by every render.

The whole static picture (sea, coasts, borders, sea routes, names, continent bonuses, the panel background) is
one palette image. Its pixel values say what a pixel shows:

- ``1..42``: territory *t*'s fill; ``t + 42 k`` (k = 1, 2, 3): that fill under k quarters of dark ink, the
  anti-aliased edge of a border or of a name's halo;
- ``STATIC_BASE..254``: fixed colours (the sea and everything drawn on it, letters, solid ink);
- ``PANEL_VALUE``: the panel's background.

A render copies the image, writes the owners' colours into palette entries 1..168 and converts it: one
``putpalette`` recolours the world with anti-aliased borders intact. No flood fill, no per-territory paste,
no compositing of a full-size overlay.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont, ImageMath

from . import layout, sprites, style
from .geometry import Geometry, geometry_for
from .labels import ENGLISH, LEGEND_WORDS, Labels
from .layout import Box, MapLayout
from .seats import on_dark

if TYPE_CHECKING:
    from engine import Board

N_TERRITORY_VALUES = 42          # the classic board
INK_LEVELS = 4                   # ink coverage steps on land: 0, 1/4, 2/4, 3/4 (and solid)
STATIC_BASE = N_TERRITORY_VALUES * INK_LEVELS + 1
PANEL_VALUE = 255
N_STATIC = PANEL_VALUE - STATIC_BASE
MIN_STATIC = 40                  # fixed colours kept on a map with many territories
QUANTIZE_METHOD = Image.Quantize.FASTOCTREE


@dataclass(frozen=True)
class PaletteLayout:
    """How a map's territories share the 256 palette entries: ``territories`` fills, each with ``ink_levels``
    shades (fewer on a map with many territories), then the fixed colours up to the panel's entry."""

    territories: int = N_TERRITORY_VALUES
    ink_levels: int = INK_LEVELS

    @property
    def static_base(self) -> int:
        return self.territories * self.ink_levels + 1

    @property
    def n_static(self) -> int:
        return PANEL_VALUE - self.static_base


def palette_layout(territories: int) -> PaletteLayout:
    """The classic layout for up to 42 territories; beyond that, fewer edge shades per territory."""
    if territories <= N_TERRITORY_VALUES:
        return PaletteLayout()
    levels = min(INK_LEVELS, (PANEL_VALUE - 1 - MIN_STATIC) // territories)
    if levels < 1:
        raise ValueError(f"the palette holds at most {(PANEL_VALUE - 1 - MIN_STATIC)} territories")
    return PaletteLayout(territories, levels)


@dataclass(frozen=True)
class StaticLayers:
    geometry: Geometry
    index: Image.Image              # "P" image, width x (map height + panel height); palette set per render
    static_palette: tuple[int, ...]  # 768 palette values with the fixed entries filled in
    panel_height: int
    key: str = ""                   # board and language
    layout: MapLayout | None = None  # where this language's words are
    words_mask: Image.Image | None = None    # "L": the names' halos, continent names and legend: highlights
                                             # drawn later leave these pixels alone
    marks_taken: tuple[tuple[Box, float], ...] = ()   # what a "+N" tag or a star should not cover
    slots: PaletteLayout = PaletteLayout()


def _scaled(mask: Image.Image, factor: float) -> Image.Image:
    return mask.point(lambda v: min(255, round(v * factor)))


def _ramp(mask: Image.Image, at: int, soft: float = 8.0) -> Image.Image:
    """A threshold of a blurred mask with a short ramp: a band with a smooth edge but a flat inside."""
    return mask.point(lambda v: max(0, min(255, round((v - at) * 255 / soft + 128))))


def _text_masks(size: tuple[int, int], items: list[tuple[str, tuple[int, int], ImageFont.FreeTypeFont, int]]
                ) -> tuple[Image.Image, Image.Image]:
    """Masks of the halos and of the letters of text items (text, centre, font, halo width)."""
    halo = Image.new("L", size, 0)
    letters = Image.new("L", size, 0)
    dh, dl = ImageDraw.Draw(halo), ImageDraw.Draw(letters)
    for text, centre, font, width in items:
        dh.text(centre, text, font=font, anchor="mm", fill=255, stroke_width=width, stroke_fill=255)
        dl.text(centre, text, font=font, anchor="mm", fill=255)
    return halo, letters


def _dashed(draw: ImageDraw.ImageDraw, x0: float, y0: float, x1: float, y1: float, dash: float, gap: float,
            width: int) -> None:
    length = math.hypot(x1 - x0, y1 - y0)
    if not 0 < length < 1e6 or dash <= 0 or gap < 0:   # nothing to draw (or no end to it)
        return
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    for i in range(math.ceil(length / (dash + gap))):
        pos = i * (dash + gap)
        end = min(pos + dash, length)
        draw.line([(x0 + ux * pos, y0 + uy * pos), (x0 + ux * end, y0 + uy * end)], fill=255, width=width)


def _over(base: Image.Image, colour: tuple[int, int, int], alpha: Image.Image) -> Image.Image:
    return Image.composite(Image.new("RGB", base.size, colour), base, alpha)


def _sea(geo: Geometry, land: Image.Image, continent_masks: dict[str, Image.Image]) -> Image.Image:
    size = (geo.width, geo.height)
    tints = geo.tints or style.CONTINENT_TINTS
    if geo.background is not None:   # the map's own picture, darkened a little so names and routes stand out
        sea = Image.blend(geo.background.convert("RGB"), Image.new("RGB", size, style.SEA), 0.35)
        _tint_coasts(sea, continent_masks, tints)
        return sea
    sea = Image.new("RGB", size, style.SEA)
    # Shallow water: two flat bands of lighter blue along every coast.
    spread = land.filter(ImageFilter.GaussianBlur(8))
    sea = _over(sea, style.SEA_MID, _ramp(spread, 14))
    sea = _over(sea, style.SEA_LIGHT, _ramp(spread, 70))
    _tint_coasts(sea, continent_masks, tints)
    return sea


def _tint_coasts(sea: Image.Image, continent_masks: dict[str, Image.Image],
                 tints: dict[str, tuple[int, int, int]]) -> None:
    """Each continent's coast edged with its own tint, which tells the continents apart at a glance. Drawn
    in the continent's box with room for the blur (the same pixels as over the whole map, in a fraction of
    the time on a map of many continents)."""
    for cid, mask in continent_masks.items():
        box = mask.getbbox()
        if box is None:
            continue
        box = _grown_box(box, 16, sea.size)
        halo = _ramp(mask.crop(box).filter(ImageFilter.GaussianBlur(2.5)), 34, 30)
        sea.paste(_over(sea.crop(box), tints[cid], _scaled(halo, 0.8)), box[:2])


LEGEND_DIE: tuple[int, int, int] = (214, 220, 226)


def legend_words(capitals: bool) -> tuple[str, ...]:
    """The legend's rows: the capital star only in a game of capitals."""
    return LEGEND_WORDS if capitals else tuple(w for w in LEGEND_WORDS if w != "capital")


def _draw_legend(img: Image.Image, labels: Labels, geo: Geometry, capitals: bool,
                 continents: Sequence[tuple[str, tuple[int, int, int]]] = (),
                 keyed: Sequence[tuple[str, str]] = (), symbols: bool = True) -> Box:
    """The legend in a corner (the lower left on the classic map), on a dark rounded box: a "+N" tag, a lost
    die and, in a game of capitals, the capital star, each with its meaning in the map's language; then the
    continents that found no room on the map, each name and bonus in its tint beside a swatch of it; then the
    territories whose name found no room, each number drawn in its place beside the name. Without ``symbols``
    (a picture whose marks are drawn by someone else) only the continents and names; with none of them, no
    legend at all. Returns its box (empty when there is no legend)."""
    words = [labels.word(w) for w in legend_words(capitals)] if symbols else []
    box, rows = _legend([*words, *(text for text, _ in continents), *(name for _, name in keyed)], geo, len(words))
    if not rows:
        return box
    size = (box[2] - box[0] + 1, box[3] - box[1] + 1)
    shade = Image.new("L", size, 0)
    ImageDraw.Draw(shade).rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), radius=8, fill=225)
    img.paste(Image.new("RGB", size, style.PANEL_BG), box[:2], shade)
    ImageDraw.Draw(img).rounded_rectangle(box, radius=8, outline=style.PANEL_LINE, width=1)
    sprites_of = [sprites.tag("+2"), sprites.die(2, LEGEND_DIE, 26, lost=True), sprites.tag("★")][:len(words)]
    font = layout.legend_font()
    draw = ImageDraw.Draw(img)
    for sprite, word, (cx, cy, text_x) in zip(sprites_of, words, rows, strict=False):
        img.paste(sprite, (cx - sprite.width // 2, cy - sprite.height // 2), sprite)
        draw.text((text_x, cy), word, font=font, anchor="lm", fill=style.TEXT)
    for (text, tint), (cx, cy, text_x) in zip(continents, rows[len(words):len(words) + len(continents)],
                                              strict=True):
        draw.rounded_rectangle((cx - 9, cy - 9, cx + 9, cy + 9), radius=4, fill=tint, outline=style.INK)
        draw.text((text_x, cy), text, font=font, anchor="lm", fill=words_tint(tint, style.PANEL_BG))
    for (key, name), (cx, cy, text_x) in zip(keyed, rows[len(words) + len(continents):], strict=True):
        draw.text((cx, cy), key, font=style.label_font(), anchor="mm", fill=style.TEXT, stroke_width=style.LABEL_STROKE,
                  stroke_fill=style.INK)
        draw.text((text_x, cy), name, font=font, anchor="lm", fill=style.TEXT)
    return box


def words_tint(tint: tuple[int, int, int], background: tuple[int, int, int]) -> tuple[int, int, int]:
    """A continent's tint for its name on a dark ground (a plate, the sea, the legend): the tint itself, or
    lightened until its letters reach 4.5:1 there, so that a dark tint ("MORDOR +2") still reads."""
    return on_dark(tint, background, 4.5)


def _legend(words: list[str], geo: Geometry, column: int = layout.LEGEND_COLUMN_ROWS
            ) -> tuple[Box, list[tuple[int, int, int]]]:
    """The legend's box and rows; no words, no legend: an empty box (it covers nothing) in its corner."""
    box, rows = layout.legend_rows(words, geo.height, geo.raw.get("legend", "lower left"), geo.width, column)
    if not words:
        return (box[0], box[3], box[0], box[3]), []
    return box, rows


def _grown_box(box: Box, by: int, size: tuple[int, int]) -> Box:
    return max(0, box[0] - by), max(0, box[1] - by), min(size[0], box[2] + by), min(size[1], box[3] + by)


def _plate(img: Image.Image, box: Box) -> None:
    """The dark rounded plate a continent name sits on where no open sea is near."""
    size = (box[2] - box[0] + 1, box[3] - box[1] + 1)
    shade = Image.new("L", size, 0)
    ImageDraw.Draw(shade).rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), radius=PLATE_RADIUS, fill=255)
    img.paste(Image.new("RGB", size, style.PANEL_BG), box[:2], shade)


PLATE_RADIUS = 6


def build_static_layers(board: Board, labels: Labels = ENGLISH, capitals: bool = False,
                        symbols: bool = True) -> StaticLayers:
    """The map's fixed layers in a language; ``symbols``: the legend explains the renderer's marks (a "+N" tag,
    a lost die, the capital star), which a page drawing its own marks leaves out."""
    geo = geometry_for(board.id)
    if set(geo.territories) != set(board.territory_ids):
        raise ValueError(f"the geometry does not match the map “{board.id}”")
    slots = palette_layout(len(geo.territories))
    n_values, ink_levels = slots.territories, slots.ink_levels
    size = (geo.width, geo.height)
    land = geo.label.point(lambda v: 255 if v else 0)
    continent_masks: dict[str, Image.Image] = {}
    for cid, continent in board.continents.items():
        members = {geo.territories[t].value for t in continent.territories}
        continent_masks[cid] = geo.label.point(lambda v, members=members: 255 if v in members else 0)

    # Coverage masks of everything drawn in ink, and of light marks (sea routes at sea, letters).
    routes_big = Image.new("L", (size[0] * 2, size[1] * 2), 0)
    draw = ImageDraw.Draw(routes_big)
    for _a, _b, segments in geo.sea_routes:
        for x0, y0, x1, y1 in segments:
            _dashed(draw, x0 * 2, y0 * 2, x1 * 2, y1 * 2, dash=12, gap=9, width=4)
    routes = routes_big.reduce(2)

    # Where this language's words go: the stored layout, fitted to their lengths.
    words = {tid: labels.short(board, tid) for tid in geo.territories}
    continent_texts = {cid: layout.continent_text(labels.continent(board, cid), board.continents[cid].bonus)
                       for cid in geo.continent_labels}
    legend_texts = [labels.word(w) for w in legend_words(capitals)] if symbols else []
    legend_box, _ = _legend(legend_texts, geo, len(legend_texts))
    placed = layout.localise_layout(
        geo.label, geo.raw, words, continent_texts, legend_box, geo.badge_size,
        members={cid: c.territories for cid, c in board.continents.items()},
        legend_naming=lambda cids, keyed: _legend([*legend_texts, *(continent_texts[c] for c in cids),
                                                   *(name for _, name in keyed)], geo, len(legend_texts))[0])
    names = [(text, placed.labels[tid], style.label_font(), style.LABEL_STROKE)
             for tid, text in placed.texts.items()]
    halo, letters = _text_masks(size, names)
    ink = ImageChops.screen(_scaled(geo.borders, 0.6), _scaled(geo.continents, 0.92))
    ink = ImageChops.screen(ink, _scaled(geo.coast, 0.95))
    ink_land = ImageChops.screen(ink, ImageChops.multiply(routes, land))   # routes cross land in ink
    ink_land = ImageChops.screen(ink_land, halo)

    # The fixed colours: the sea with its lines and words, and the letters and solid ink on land.
    fixed = _sea(geo, land, continent_masks)
    fixed = _over(fixed, style.INK, ink)
    fixed = _over(fixed, style.ROUTE, ImageChops.multiply(_scaled(routes, 0.92), ImageChops.invert(land)))
    fixed = _over(fixed, style.INK, halo)
    fixed = _over(fixed, style.TEXT, letters)
    cfont = style.font(style.CONTINENT_FONT_SIZE, bold=True)
    tints = geo.tints or style.CONTINENT_TINTS
    words_mask = halo.copy()
    # Plates (continent names over land) and the legend take fixed colours whatever is under them.
    legend_mask = Image.new("L", size, 0)
    plate_draw = ImageDraw.Draw(legend_mask)
    boxes = {b.owner: b.box for b in placed.of_kind("continent")}
    for cid, centre in placed.continents.items():
        if cid in placed.plates:
            _plate(fixed, boxes[cid])
            plate_draw.rounded_rectangle(boxes[cid], radius=PLATE_RADIUS, fill=255)
        # Drawn in the words' own box (with room for the halo), not over the whole map: a dense map has dozens.
        x0, y0, x1, y1 = _grown_box(boxes[cid], style.CONTINENT_STROKE + 2, size)
        local = (centre[0] - x0, centre[1] - y0)
        chalo, cletters = _text_masks((x1 - x0, y1 - y0),
                                      [(placed.continent_texts[cid], local, cfont, style.CONTINENT_STROKE)])
        under = style.PANEL_BG if cid in placed.plates else style.SEA
        part = _over(fixed.crop((x0, y0, x1, y1)), under, chalo)
        fixed.paste(_over(part, words_tint(tints[cid], under), cletters), (x0, y0))
        words_mask.paste(ImageChops.lighter(words_mask.crop((x0, y0, x1, y1)), chalo), (x0, y0))
    legend_box = _draw_legend(fixed, labels, geo, capitals,
                              [(continent_texts[cid], tints[cid]) for cid in placed.in_legend],
                              [(key, words[tid]) for tid, key in placed.keys.items()], symbols)
    assert legend_box == placed.legend
    if legend_box[0] < legend_box[2]:
        plate_draw.rectangle(legend_box, fill=255)
    words_mask = ImageChops.lighter(words_mask, legend_mask)

    # Which pixels take a fixed colour: the sea, letters, and nearly solid ink.
    level = ink_land.point(lambda v: min(ink_levels, round(v * ink_levels / 255)))
    solid = level.point(lambda v: 255 if v >= ink_levels else 0)
    is_fixed = ImageChops.lighter(ImageChops.invert(land), ImageChops.lighter(solid, letters.point(
        lambda v: 255 if v > 24 else 0)))
    is_fixed = ImageChops.lighter(is_fixed, legend_mask)
    only_fixed = Image.composite(fixed, Image.new("RGB", size, style.SEA), is_fixed)
    quantized = only_fixed.quantize(colors=slots.n_static, method=QUANTIZE_METHOD, dither=Image.Dither.NONE)
    fixed_values = quantized.point(lambda v: v + slots.static_base)
    fixed_values = Image.frombytes("L", size, fixed_values.tobytes())
    land_values = ImageMath.lambda_eval(
        lambda a: a["label"] + a["level"] * n_values, label=geo.label, level=level).convert("L")
    values = Image.composite(fixed_values, land_values, is_fixed)

    panel_height = style.PANEL_HEIGHT
    full = Image.new("L", (geo.width, geo.height + panel_height), PANEL_VALUE)
    full.paste(values, (0, 0))
    index = Image.frombytes("P", full.size, full.tobytes())

    palette = [0] * 768
    qpal = quantized.getpalette() or []
    for i in range(slots.n_static):
        base = slots.static_base + i
        palette[base * 3: base * 3 + 3] = qpal[i * 3: i * 3 + 3] or [0, 0, 0]
    palette[0:3] = style.SEA
    palette[PANEL_VALUE * 3: PANEL_VALUE * 3 + 3] = style.PANEL_BG
    taken = tuple((b.box, layout.MARK_WEIGHTS[b.kind]) for b in placed.boxes)
    return StaticLayers(geometry=geo, index=index, static_palette=tuple(palette), panel_height=panel_height,
                        key=_key(board, labels, capitals, symbols), layout=placed, words_mask=words_mask,
                        marks_taken=taken, slots=slots)


def palette_for(layers: StaticLayers, fills: dict[int, tuple[int, int, int]]) -> list[int]:
    """The full palette for one render: each territory value's fill, its ink-blended edge shades, and the
    fixed colours."""
    palette = list(layers.static_palette)
    ink = style.INK
    n_values, levels = layers.slots.territories, layers.slots.ink_levels
    for value, colour in fills.items():
        for k in range(levels):
            a = k / levels
            i = (value + k * n_values) * 3
            palette[i: i + 3] = [round(c * (1 - a) + n * a) for c, n in zip(colour, ink, strict=True)]
    return palette


_lock = threading.Lock()
_layers: dict[str, StaticLayers] = {}


def _key(board: Board, labels: Labels, capitals: bool, symbols: bool = True) -> str:
    return f"{board.id}:{labels.key}" + (":capitals" if capitals else "") + ("" if symbols else ":bare")


def static_layers(board: Board, labels: Labels = ENGLISH, capitals: bool = False,
                  symbols: bool = True) -> StaticLayers:
    """The static layer for a board, a language and a legend with or without the capital star, or without the
    renderer's marks explained (``symbols``; built on first use, then shared)."""
    key = _key(board, labels, capitals, symbols)
    layers = _layers.get(key)
    if layers is None:
        with _lock:
            layers = _layers.get(key)
            if layers is None:
                layers = build_static_layers(board, labels, capitals, symbols)
                _layers[key] = layers
    return layers
