"""Small images drawn over the map: army badges, dice, text, arrows and highlights.

Sprites are drawn at four times their size and reduced (smooth edges at any angle), then cached: a game uses
a few hundred distinct badges, so after the first renders a badge costs one ``alpha_composite``.
Cached images are never modified after creation, so they are safe to share between threads.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

from . import style

SS = 4   # super-sampling factor

Colour = tuple[int, int, int]


def _shape_points(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]] | None:
    """Polygon of a badge shape (None for the circle)."""
    if shape == "square":
        s = r * 0.86
        return [(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)]
    if shape == "diamond":
        return [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)]
    if shape == "hexagon":
        return [(cx + r * math.cos(math.radians(a)), cy + r * 0.94 * math.sin(math.radians(a)))
                for a in range(0, 360, 60)]
    if shape == "shield":       # flat top, pointed bottom
        s = r * 0.86
        return [(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + 0.25 * r), (cx, cy + r),
                (cx - s, cy + 0.25 * r)]
    if shape == "octagon":
        return [(cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a)))
                for a in (22.5 + 45 * k for k in range(8))]
    if shape == "cross":        # a plus sign with broad arms
        a, b = r * 0.92, r * 0.5
        return [(cx - b, cy - a), (cx + b, cy - a), (cx + b, cy - b), (cx + a, cy - b), (cx + a, cy + b),
                (cx + b, cy + b), (cx + b, cy + a), (cx - b, cy + a), (cx - b, cy + b), (cx - a, cy + b),
                (cx - a, cy - b), (cx - b, cy - b)]
    if shape == "triangle":     # pointing down, its wide side on top where the count sits
        return [(cx - r, cy - 0.78 * r), (cx + r, cy - 0.78 * r), (cx, cy + r)]
    if shape == "house":        # pointed top, flat bottom
        s = r * 0.86
        return [(cx, cy - r), (cx + s, cy - 0.25 * r), (cx + s, cy + s), (cx - s, cy + s),
                (cx - s, cy - 0.25 * r)]
    return None


def _draw_shape(draw: ImageDraw.ImageDraw, shape: str, cx: float, cy: float, r: float, fill: tuple[int, ...]
                ) -> None:
    points = _shape_points(shape, cx, cy, r)
    if points is None:
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)
    else:
        draw.polygon(points, fill=fill)


def luminance(c: Colour) -> float:
    def lin(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])


def text_colour_on(c: Colour) -> Colour:
    """Dark or light text, whichever reads better on a colour."""
    return style.INK if luminance(c) > 0.18 else style.TEXT


@lru_cache(maxsize=64)
def shape_sprite(shape: str, colour: Colour, size: int, outline: int = 2) -> Image.Image:
    """A filled shape with a dark outline, ``size`` px square."""
    big = Image.new("RGBA", (size * SS, size * SS), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    c = size * SS / 2
    r = c - SS * 0.5
    _draw_shape(draw, shape, c, c, r, (*style.INK, 255))
    _draw_shape(draw, shape, c, c, r - outline * SS, (*style.BADGE_RING, 255))
    _draw_shape(draw, shape, c, c, r - (outline + style.BADGE_RING_WIDTH) * SS, (*colour, 255))
    return big.reduce(SS)


INNER = {"diamond": 18, "house": 22, "shield": 22, "triangle": 20}   # room for the count, at 34 px
NUMBER_SIZES = (20, 18, 16, 14, 12)             # the count's font, largest first (at 34 px)
PHONE_NUMBER_SIZES = (17, 16, 15, 14, 13, 12, 11, 10)   # condensed: two and three digits stay large
PHONE_REACH = 1.12


@lru_cache(maxsize=4096)
def number_font(shape: str, text: str, diameter: int, phone: bool = False) -> ImageFont.FreeTypeFont:
    """The font of a badge's count: the largest that fits the shape. The whole map uses bold digits; the phone
    view condensed bold ones, which keep two and three digits larger in the same badge."""
    scale = diameter / style.BADGE_SIZE
    # Condensed digits are narrow and tall: they may reach a little further towards the ring.
    inner = round(INNER.get(shape, 24) * scale * (PHONE_REACH if phone else 1.0))
    sizes = tuple(max(9, round(s * scale)) for s in (PHONE_NUMBER_SIZES if phone else NUMBER_SIZES))
    for size in sizes:
        f = style.font(size, bold=True, condensed=phone)
        left, _, right, _ = f.getbbox(text, anchor="mm")
        if right - left <= inner:
            return f
    return style.font(sizes[-1], bold=True, condensed=phone)


def digit_height(font: ImageFont.FreeTypeFont) -> int:
    """How tall a font's digits are, in pixels (their ink, not the font's size)."""
    _, top, _, bottom = style.text_bbox(font, "0123456789")
    return bottom - top


@lru_cache(maxsize=4096)
def badge(shape: str, colour: Colour, text: str, diameter: int = style.BADGE_SIZE, phone: bool = False
          ) -> Image.Image:
    """An army badge: the owner's shape in the owner's colour, with the count in the middle; ``diameter``
    smaller than the classic 34 px on a map of small territories (``phone``: the phone view's digits)."""
    size = diameter + 2
    img = shape_sprite(shape, colour, size).copy()
    draw = ImageDraw.Draw(img)
    scale = diameter / style.BADGE_SIZE
    font = number_font(shape, text, diameter, phone)
    dy = round({"house": 2, "shield": -2, "triangle": -4}.get(shape, 0) * scale)
    draw.text((size / 2, size / 2 + dy), text, font=font, anchor="mm", fill=text_colour_on(colour))
    return img


@lru_cache(maxsize=512)
def text_sprite(text: str, size: int, colour: Colour, bold: bool = False, stroke: int = 0,
                stroke_colour: Colour = style.INK) -> Image.Image:
    """Text as an RGBA image with a little margin; drawn with its top-left at the returned image's origin."""
    font = style.font(size, bold=bold)
    left, top, right, bottom = style.text_bbox(font, text, stroke=stroke)
    w, h = right - left + 2, bottom - top + 2
    mask_stroke = Image.new("L", (w, h), 0)
    mask_fill = Image.new("L", (w, h), 0)
    origin = (1 - left, 1 - top)
    if stroke:
        ImageDraw.Draw(mask_stroke).text(origin, text, font=font, fill=255, stroke_width=stroke,
                                         stroke_fill=255)
    ImageDraw.Draw(mask_fill).text(origin, text, font=font, fill=255)
    img = Image.new("RGBA", (w, h), (*stroke_colour, 0))
    if stroke:
        img.putalpha(mask_stroke)
    top_layer = Image.new("RGBA", (w, h), (*colour, 0))
    top_layer.putalpha(mask_fill)
    img.alpha_composite(top_layer)
    return img


TAG_FONT = 16   # a tag's words at the whole map's size


@lru_cache(maxsize=128)
def tag(text: str, colour: Colour = (255, 255, 255), scale: float = 1.0) -> Image.Image:
    """A small rounded label ("+3") with a dark outline, its text dark or light to suit the colour; ``scale``
    times its size on the whole map."""
    font = style.font(round(TAG_FONT * scale), bold=True)
    left, _top, right, _bottom = style.text_bbox(font, text, anchor="lm")
    w, h = right - left + round(12 * scale), round(22 * scale)
    big = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle((0, 0, w * SS - 1, h * SS - 1), radius=h * SS // 2, fill=(*style.INK, 255))
    edge = max(2, round(2 * scale))
    draw.rounded_rectangle((edge * SS, edge * SS, (w - edge) * SS - 1, (h - edge) * SS - 1),
                           radius=(h - 2 * edge) * SS // 2, fill=(*colour, 255))
    img = big.reduce(SS)
    ImageDraw.Draw(img).text((w / 2, h / 2 + max(1, round(scale))), text, font=font, anchor="mm",
                             fill=text_colour_on(colour))
    return img


PIPS = {
    1: [(0.5, 0.5)], 2: [(0.27, 0.27), (0.73, 0.73)], 3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
    6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
}


def _dimmed(colour: Colour) -> Colour:
    r, g, b = (round(v * 0.45 + 40) for v in colour)
    return r, g, b


@lru_cache(maxsize=64)
def die(value: int, colour: Colour, size: int = 30, lost: bool = False) -> Image.Image:
    """A die face in a player's colour; a lost die is dimmed and crossed."""
    s = size * SS
    big = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle((0, 0, s - 1, s - 1), radius=s // 5, fill=(*style.INK, 255))
    face = colour if not lost else _dimmed(colour)
    draw.rounded_rectangle((2 * SS, 2 * SS, s - 2 * SS - 1, s - 2 * SS - 1), radius=s // 6, fill=(*face, 255))
    pip = text_colour_on(face)
    pr = s * 0.085
    for px, py in PIPS.get(value, []):
        draw.ellipse((px * s - pr, py * s - pr, px * s + pr, py * s + pr), fill=(*pip, 255))
    img = big.reduce(SS)
    if lost:
        d = ImageDraw.Draw(img)
        d.line((3, size - 4, size - 4, 3), fill=(*style.INK, 255), width=3)
    return img


@lru_cache(maxsize=128)
def arrow(x0: float, y0: float, x1: float, y1: float, colour: Colour = style.ATTACK_ARROW, width: float = 7,
          head: float = 20, outline: float = 2.5, tip: bool = True) -> tuple[Image.Image, tuple[int, int]]:
    """An arrow from (x0, y0) to (x1, y1), as an RGBA patch and the patch's top-left corner on the map.
    Drawn at twice the size (arrows can be long: 4x would cost milliseconds) and cached."""
    ss = 2
    pad = head + outline + 2
    left, top = math.floor(min(x0, x1) - pad), math.floor(min(y0, y1) - pad)
    right, bottom = math.ceil(max(x0, x1) + pad), math.ceil(max(y0, y1) + pad)
    w, h = right - left, bottom - top
    edge = Image.new("L", (w * ss, h * ss), 0)
    body_mask = Image.new("L", (w * ss, h * ss), 0)
    ax, ay = (x0 - left) * ss, (y0 - top) * ss
    bx, by = (x1 - left) * ss, (y1 - top) * ss
    length = math.hypot(bx - ax, by - ay) or 1.0
    ux, uy = (bx - ax) / length, (by - ay) / length
    nx, ny = -uy, ux
    hl = min(head * ss, length * 0.6) if tip else 0.0
    hw = head * ss * 0.62

    def body(grow: float) -> list[tuple[float, float]]:
        half = width * ss / 2 + grow
        sx, sy = ax - ux * grow, ay - uy * grow
        ex, ey = bx - ux * hl, by - uy * hl
        if not tip:
            ex, ey = bx + ux * grow, by + uy * grow
        pts = [(sx + nx * half, sy + ny * half), (ex + nx * half, ey + ny * half)]
        if tip:
            pts += [(ex + nx * (hw + grow), ey + ny * (hw + grow)),
                    (bx + ux * grow * 1.6, by + uy * grow * 1.6),
                    (ex - nx * (hw + grow), ey - ny * (hw + grow))]
        pts += [(ex - nx * half, ey - ny * half), (sx - nx * half, sy - ny * half)]
        return pts

    # Masks drawn in "L" (fast) and coloured afterwards.
    ImageDraw.Draw(edge).polygon(body(outline * ss), fill=235)
    ImageDraw.Draw(body_mask).polygon(body(0), fill=255)
    img = Image.new("RGBA", (w, h), (*style.INK, 0))
    img.putalpha(edge.reduce(ss))
    img.paste(colour, (0, 0), body_mask.reduce(ss))
    return img, (left, top)


@lru_cache(maxsize=64)
def outline_sprite(territory: str, colour: Colour = style.HIGHLIGHT, width: int = 3, map_id: str = "classic"
                   ) -> tuple[Image.Image, tuple[int, int]]:
    """A glowing outline around every piece of one territory, and where it goes on the map."""
    from .geometry import geometry_for

    geo = geometry_for(map_id)
    shape = geo.territories[territory]
    label, value, bbox = geo.label, shape.value, shape.bbox
    pad = width + 6
    box = (max(0, bbox[0] - pad), max(0, bbox[1] - pad), min(label.width, bbox[2] + pad),
           min(label.height, bbox[3] + pad))
    mask = label.crop(box).point(lambda v: 255 if v == value else 0)
    # The ring lies mostly on the territory's own fill, which its colour is chosen to contrast with
    # (``render.seats.highlight_for``); the dark glow outside sets it off from the neighbours and the sea.
    outer = mask.filter(ImageFilter.MaxFilter(3))
    inner = mask
    for _ in range(width):
        inner = inner.filter(ImageFilter.MinFilter(3))
    ring = ImageChops.subtract(outer, inner).filter(ImageFilter.GaussianBlur(0.7))
    for _ in range(width - 1):
        outer = outer.filter(ImageFilter.MaxFilter(3))
    glow = outer.filter(ImageFilter.MaxFilter(5)).filter(ImageFilter.GaussianBlur(2.5))
    glow = ImageChops.subtract(glow, mask).point(lambda v: v * 3 // 5)
    img = Image.new("RGBA", mask.size, (*style.INK, 0))
    img.putalpha(glow)
    top = Image.new("RGBA", mask.size, (*colour, 0))
    top.putalpha(ring)
    img.alpha_composite(top)
    return img, (box[0], box[1])
