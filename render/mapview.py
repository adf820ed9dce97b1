"""``render_map``: a game state in, a picture of the board out.

A render copies the static palette image, gives it this state's colours, lays the static overlay on top and
then draws what changes: highlights of the last action, army badges, placement tags and the panel. It reads
the state and the process's static layers (built once in each process that draws, and kept) and writes only to
its own new image. The bot never draws in its own process: it hands the render to a worker process
(``workers``), where it runs whole, below the bot's priority.
"""

from __future__ import annotations

import io
import math
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from PIL import Image, ImageChops, ImageFilter

from . import sprites, style
from .base import StaticLayers, palette_for, static_layers
from .geometry import Geometry, geometry_for
from .labels import ENGLISH, Labels
from .layout import MARK_WEIGHTS, Box, place_mark
from .panel import Battle, draw_panel
from .seats import NEUTRAL, Colour, fill_colour, highlight_for, seat_colour, seat_shape

if TYPE_CHECKING:
    from engine import Board, GameState
    from engine.events import Event, View


def _board_for(state: GameState) -> Board:
    from engine import load_map, registered_map

    if registered_map(state.settings.map) is None:
        # A server's map this process has not met (a worker process): its geometry's source registers it.
        geometry_for(state.settings.map)
    return load_map(state.settings.map)


def _fills(state: GameState, geo: Geometry, hidden: set[str]) -> dict[int, tuple[int, int, int]]:
    fills: dict[int, tuple[int, int, int]] = {}
    for tid, shape in geo.territories.items():
        if tid in hidden:
            fills[shape.value] = style.FOG_COLOUR
        elif tid in state.owners:
            fills[shape.value] = fill_colour(state.owners[tid], state)
        else:
            fills[shape.value] = style.UNOWNED_COLOUR
    return fills


def _last_battle(events: Sequence[View], state: GameState) -> Battle | None:
    for e in reversed(events):
        if "hidden" not in e and e["type"] == "battle":
            defender = e.get("defender", state.owners.get(e["to"], NEUTRAL))
            return Battle(e["from"], e["to"], e["seat"], defender, tuple(e.get("attacker_dice", ())),
                          tuple(e.get("defender_dice", ())))
    return None


def _shorten(a: tuple[float, float], b: tuple[float, float], by: float) -> tuple[float, float, float, float]:
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    by = min(by, d / 3)
    return a[0] + dx / d * by, a[1] + dy / d * by, b[0] - dx / d * by, b[1] - dy / d * by


def _behind_words(layers: StaticLayers, patch: Image.Image, pos: tuple[int, int]) -> Image.Image:
    """``patch`` (RGBA, to be pasted at ``pos``) without the pixels of this language's words and one pixel
    round them: a highlight passes behind names, continent names and the legend instead of over them."""
    if layers.words_mask is None:
        return patch
    x, y = pos
    words = layers.words_mask.crop((x, y, x + patch.width, y + patch.height))
    if words.getbbox() is None:
        return patch
    keep = ImageChops.invert(words.filter(ImageFilter.MaxFilter(3)))
    out = patch.copy()
    out.putalpha(ImageChops.multiply(patch.getchannel("A"), keep))
    return out


_arrows: dict[tuple[str, float, float, float, float, tuple[int, int, int]], tuple[Image.Image, tuple[int, int]]] = {}


def _arrow(layers: StaticLayers, x0: float, y0: float, x1: float, y1: float, colour: tuple[int, int, int]
           ) -> tuple[Image.Image, tuple[int, int]]:
    key = (layers.key, x0, y0, x1, y1, colour)
    hit = _arrows.get(key)
    if hit is None:
        patch, pos = sprites.arrow(x0, y0, x1, y1, colour=colour)
        hit = (_behind_words(layers, patch, pos), pos)
        if len(_arrows) > 512:   # a game draws a few hundred distinct arrows; keep the cache bounded
            _arrows.clear()
        _arrows[key] = hit
    return hit


def _draw_arrow(img: Image.Image, layers: StaticLayers, a: tuple[int, int], b: tuple[int, int],
                colour: tuple[int, int, int]) -> None:
    """An arrow between two badges, behind the names; across the map's east-west edge (Alaska-Kamchatka) it
    leaves one edge and comes back at the other."""
    width = layers.geometry.width
    gap = layers.geometry.badge_size / 2 + 4
    if abs(b[0] - a[0]) > width / 2:
        shift = width if b[0] < a[0] else -width
        x0, y0, x1, y1 = _shorten(a, (b[0] + shift, b[1]), gap)
        for dx in (0, -shift):
            patch, pos = _arrow(layers, x0 + dx, y0, x1 + dx, y1, colour)
            img.paste(patch, pos, patch)
        return
    x0, y0, x1, y1 = _shorten(a, b, gap)
    patch, pos = _arrow(layers, x0, y0, x1, y1, colour)
    img.paste(patch, pos, patch)


_outlines: dict[tuple[str, str, Colour], tuple[Image.Image, tuple[int, int]]] = {}


def _outline(layers: StaticLayers, territory: str, colour: Colour) -> tuple[Image.Image, tuple[int, int]]:
    """A conquered territory's outline in ``colour``, behind this language's words. Cached per language,
    territory and colour."""
    key = (layers.key, territory, colour)
    hit = _outlines.get(key)
    if hit is None:
        patch, pos = sprites.outline_sprite(territory, colour, map_id=layers.geometry.map_id)
        hit = (_behind_words(layers, patch, pos), pos)
        _outlines[key] = hit
    return hit


class Frame(NamedTuple):
    """Where the map's pixels go in the image drawn: the map point ``(x0, y0)`` at the image's origin, and
    ``scale`` image pixels for each map pixel (the whole map: the origin at scale 1)."""

    x0: float = 0.0
    y0: float = 0.0
    scale: float = 1.0

    def point(self, xy: tuple[float, float]) -> tuple[int, int]:
        return round((xy[0] - self.x0) * self.scale), round((xy[1] - self.y0) * self.scale)


WHOLE = Frame()


def hidden_from(board: Board, visible: set[str] | frozenset[str] | None) -> set[str]:
    """The territories drawn in the fog: those outside ``visible`` (none without fog)."""
    return set(board.territory_ids) - set(visible) if visible is not None else set()


def layers_for(state: GameState, board: Board, labels: Labels) -> StaticLayers:
    """The static layer of this board and language, its legend with the capital star only in a game of
    capitals."""
    return static_layers(board, labels, capitals=state.settings.mode == "capitals")


def seen_events(events: Sequence[View] | None) -> list[Event]:
    """The events an audience saw (those out of its sight left out)."""
    return [e for e in events or [] if "hidden" not in e]


def net_change(events: Sequence[Event]) -> Counter[str]:
    """How many armies each territory gained or lost over ``events`` (an action, or a whole turn): placements
    less undone ones, armies moved in less armies moved out, less the losses of its battles. A conquered
    territory starts again from nothing, so it shows the armies that moved in."""
    change: Counter[str] = Counter()
    for e in events:
        match e["type"]:
            case "armies_placed":
                change[e["territory"]] += e["count"]
            case "placements_undone":
                for tid, count in e["placements"].items():
                    change[tid] -= count
            case "battle":
                change[e["from"]] -= e["attacker_losses"]
                change[e["to"]] -= e["defender_losses"]
            case "territory_conquered":
                change[e["to"]] = 0
            case "fortified" | "occupied":
                change[e["to"]] += e["count"]
                change[e["from"]] -= e["count"]
            case _:
                pass
    return change


def scene_arrows(state: GameState, layers: StaticLayers, events: Sequence[Event], hidden: set[str]
                 ) -> tuple[list[tuple[tuple[int, int], tuple[int, int], Colour]], Battle | None]:
    """The arrows of the last action (its last battle, its fortifications) as map points and colours, and the
    battle: those the viewer could have seen."""
    geo = layers.geometry
    out: list[tuple[tuple[int, int], tuple[int, int], Colour]] = []
    battle = _last_battle(events, state)
    if battle is not None and battle.source in hidden and battle.target in hidden:
        battle = None   # nothing the viewer could have seen
    if battle is not None:
        out.append((geo.territories[battle.source].anchor, geo.territories[battle.target].anchor,
                    style.ATTACK_ARROW))
    for e in events:
        if e["type"] == "fortified" and not (e["from"] in hidden and e["to"] in hidden):
            out.append((geo.territories[e["from"]].anchor, geo.territories[e["to"]].anchor, style.FORTIFY_ARROW))
    return out, battle


def draw_scene(state: GameState, board: Board, layers: StaticLayers, events: Sequence[Event], hidden: set[str],
               arrows: bool = True) -> tuple[Image.Image, Battle | None]:
    """The whole map with its owners' colours, the conquered territories outlined and (with ``arrows``) the
    arrows of the last battle and fortification, all behind the words; nothing yet on the badges' layer."""
    geo = layers.geometry
    index = layers.index.copy()
    index.putpalette(palette_for(layers, _fills(state, geo, hidden)))
    img = index.convert("RGB")

    conquered = [e["to"] if e["type"] == "territory_conquered" else e["territory"] for e in events
                 if e["type"] == "territory_conquered" or e["type"] == "territory_claimed"]
    conquered = [t for t in conquered if t not in hidden]
    for tid in dict.fromkeys(conquered):
        owner = state.owners.get(tid)
        patch, pos = _outline(layers, tid, highlight_for(fill_colour(owner, state)) if owner is not None
                              else style.HIGHLIGHT)
        img.paste(patch, pos, patch)
    drawn, battle = scene_arrows(state, layers, events, hidden)
    for a, b, colour in drawn if arrows else ():
        _draw_arrow(img, layers, a, b, colour)
    return img, battle


def draw_badges(img: Image.Image, layers: StaticLayers, state: GameState, hidden: set[str],
                frame: Frame = WHOLE, phone: bool = False) -> None:
    """Every army badge (a "?" in the fog) at its anchor, drawn at the frame's scale; those outside the image
    fall off its edge."""
    geo = layers.geometry
    size = round(geo.badge_size * frame.scale)
    half = (size + 2) // 2
    for tid, shape in geo.territories.items():
        x, y = frame.point(shape.anchor)
        if not (-size < x < img.width + size and -size < y < img.height + size):
            continue
        if tid in hidden:
            sprite = sprites.badge("circle", style.FOG_BADGE, "?", size, phone)
        elif tid in state.owners:
            owner = state.owners[tid]
            sprite = sprites.badge(seat_shape(owner), seat_colour(owner, state), str(state.armies.get(tid, 0)), size,
                                   phone)
        else:
            continue
        img.paste(sprite, (x - half, y - half), sprite)


def draw_marks(img: Image.Image, layers: StaticLayers, state: GameState, events: Sequence[Event], hidden: set[str],
               frame: Frame = WHOLE, mark_scale: float = 1.0) -> None:
    """Capitals (mode capitals): a star at the badge, on its upper left unless that hides a name; then the
    "+N" tags of each territory's net gain, on its upper right unless that hides a name, a star or another
    tag. Placed on the map, drawn at the frame's scale (``mark_scale``: their size, relative to the map)."""
    geo = layers.geometry
    badge = geo.badge_size
    taken: list[tuple[Box, float]] = list(layers.marks_taken)

    def put(text: str, tid: str, first: str) -> None:
        size = sprites.tag(text, scale=mark_scale).size
        box = place_mark(geo.territories[tid].anchor, size, taken, geo.width, geo.height, first, badge)
        taken.append((box, MARK_WEIGHTS["mark"]))
        sprite = sprites.tag(text, scale=mark_scale * frame.scale)
        img.paste(sprite, frame.point((box[0], box[1])), sprite)

    for tid in dict.fromkeys(state.capitals.values()):
        if tid not in hidden and tid in geo.territories:
            put("★", tid, "upper left")
    for tid, count in net_change(events).items():
        if count > 0 and tid not in hidden:
            put(f"+{count}", tid, "upper right")


def render_map(state: GameState, board: Board | None = None, *, highlight_events: Sequence[View] | None = None,
               labels: Labels = ENGLISH,
               viewer: int | None = None, visible: set[str] | None = None) -> Image.Image:
    """Draw the board for a game state.

    ``highlight_events`` are the events of the last action (battle, territory_conquered, armies_placed,
    fortified, occupied, territory_claimed): the renderer draws the attack arrow, outlines a conquered or
    claimed territory, shows the dice and marks each territory's net gain (+N). With ``visible`` (fog of war,
    for ``viewer``), other territories are drawn without owner or army count and other players' totals are
    hidden. Returns an RGB image.
    """
    if board is None:
        board = _board_for(state)
    layers = layers_for(state, board, labels)
    hidden = hidden_from(board, visible)
    events = seen_events(highlight_events)
    img, battle = draw_scene(state, board, layers, events, hidden)
    draw_badges(img, layers, state, hidden)
    draw_marks(img, layers, state, events, hidden)
    draw_panel(img, layers.geometry.height, state, board, battle=battle, hidden_totals=visible is not None,
               viewer=viewer, labels=labels)
    return img


def encode_png(img: Image.Image, *, quantize: bool = True, compress_level: int = 1) -> bytes:
    """PNG bytes of a rendered map.

    By default the image is first reduced to a 256-colour palette (fast octree, no dithering): the map is
    made of flat colours, so this is hard to tell from the original and the PNG is about a third of the size
    of an RGB one, and quicker to write. ``quantize=False`` writes the exact RGB image.
    """
    if quantize and img.mode == "RGB":
        img = img.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    img.save(out, "PNG", compress_level=compress_level)
    return out.getvalue()


def draw_png(state: GameState, highlight_events: Sequence[View], viewer: int | None, labels: Labels,
             visible: set[str] | None) -> bytes:
    """``render_map`` then ``encode_png``: the whole of one map, as a worker process runs it."""
    return encode_png(render_map(state, highlight_events=highlight_events, viewer=viewer, labels=labels,
                                 visible=visible))


def warm_up() -> None:
    """Build the classic map's static layers now (about a third of a second), not at the first map."""
    from engine import load_map

    static_layers(load_map())

