"""The panel under the map: players in turn order, whose turn and phase, the next card set, the last
battle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

from engine.game import PHASE_WORDS as ENGINE_PHASE_WORDS

from . import sprites, style
from .labels import ENGLISH, Labels
from .seats import NEUTRAL, on_dark, seat_colour, seat_shape, turn_order

if TYPE_CHECKING:
    from engine import Board, GameState

# The engine's phase words, two of them shortened to fit the map's panel.
PHASE_WORDS = {**ENGINE_PHASE_WORDS, "occupy": "moving in", "over": "game over"}
MARGIN = 14
COLUMNS = 3
CARD_W, CARD_H = 346, 84
STATUS_X = MARGIN + COLUMNS * (CARD_W + 10) + 6
WIDE_STATUS_W = 400   # the status box beside four columns of players


@dataclass(frozen=True)
class Battle:
    """The last battle, for the dice display."""

    source: str
    target: str
    attacker: int
    defender: int
    attacker_dice: tuple[int, ...]
    defender_dice: tuple[int, ...]


def _paste(img: Image.Image, sprite: Image.Image, x: float, y: float) -> None:
    img.paste(sprite, (round(x), round(y)), sprite)


def _text(img: Image.Image, x: float, y: float, text: str, size: int, colour: tuple[int, int, int],
          bold: bool = False) -> int:
    """Draw text with its top-left at (x, y); returns its width."""
    sprite = sprites.text_sprite(text, size, colour, bold)
    _paste(img, sprite, x, y)
    return sprite.width


def _fit(text: str, size: int, bold: bool, width: int) -> str:
    font = style.font(size, bold=bold)
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def fit_lines(text: str, width: int, sizes: tuple[int, ...] = (22, 21, 20, 19), wrapped: int = 20
              ) -> tuple[int, list[str]]:
    """A line of bold text that must be read whole (how the game was won): on one line at the largest of
    ``sizes`` that fits ``width``, else on two lines at ``wrapped`` px, broken between words where the longer
    line is shortest (shortened with "…" only if even that does not fit). Returns the size and the lines."""
    for size in sizes:
        if style.font(size, bold=True).getlength(text) <= width:
            return size, [text]
    font = style.font(wrapped, bold=True)
    words = text.split()
    splits = [(" ".join(words[:i]), " ".join(words[i:])) for i in range(1, len(words))]
    if not splits:
        return wrapped, [_fit(text, wrapped, True, width)]
    first, second = min(splits, key=lambda pair: max(font.getlength(pair[0]), font.getlength(pair[1])))
    return wrapped, [_fit(first, wrapped, True, width), _fit(second, wrapped, True, width)]


def _stat(img: Image.Image, x: float, y: float, number: str, unit: str, size: int) -> int:
    """A number in bold followed by its unit, dimmed; returns the width."""
    w = _text(img, x, y - 1, number, size + 1, style.TEXT, bold=True) if number else 0
    return w + _text(img, x + w, y, unit, size - 1, style.TEXT_DIM)


def next_set_value(state: GameState, labels: Labels = ENGLISH) -> str | None:
    cards = state.settings.cards
    if cards == "escalating":
        n = state.sets_traded + 1
        value = 2 + 2 * n if n <= 5 else 15 + 5 * (n - 6)
        return labels.word("Next card set: {value} armies", value=value)
    if cards == "fixed":
        return labels.word("Card sets: 4 · 6 · 8 · 10 armies")
    return None


# How the game was won, as the map's panel says it (the game's ``result``).
WINNER_WORDS = {"mission": "{winner} completed a mission", "capitals": "{winner} holds every capital",
                "round_limit": "{winner} leads at the round limit", "teams": "{winner}'s team wins",
                "surrender": "{winner} is the last one standing", "vote": "{winner} leads as the players voted",
                "draw": "A draw, as the players voted"}


def winner_words(state: GameState) -> str:
    """The panel's line for the winner: world domination only when one player holds every territory."""
    if state.result in WINNER_WORDS:
        return WINNER_WORDS[state.result]
    owners = set(state.owners.values())
    return "{winner} rules the world" if owners == {state.winner} else "{winner} is the last one standing"


def draw_panel(img: Image.Image, top: int, state: GameState, board: Board, *, battle: Battle | None,
               hidden_totals: bool, viewer: int | None, labels: Labels = ENGLISH) -> None:
    w = img.width
    draw = ImageDraw.Draw(img)
    draw.line((0, top, w, top), fill=style.PANEL_LINE, width=2)
    seats = turn_order(state)
    names = {p.seat: p.name for p in state.players}
    if any(owner == NEUTRAL for owner in state.owners.values()):
        seats.append(NEUTRAL)
        names[NEUTRAL] = labels.word("Neutral")
    eliminated = set(state.eliminated) | set(state.surrendered)
    # Up to six players in three columns; seven or eight in four narrower ones.
    columns = COLUMNS if len(seats) <= COLUMNS * 2 else COLUMNS + 1
    status_x = STATUS_X if columns == COLUMNS else w - MARGIN - WIDE_STATUS_W
    card_w = CARD_W if columns == COLUMNS else (status_x - MARGIN - 6) // columns - 10
    while len(seats) > columns * 2 and any(s in eliminated for s in seats):
        seats.remove(next(s for s in seats if s in eliminated))   # room for Neutral after a surrender
    over = state.phase == "over"
    winners = set(state.winners or ([state.winner] if state.winner is not None else []))
    territories = dict.fromkeys(seats, 0)
    armies = dict.fromkeys(seats, 0)
    for t, owner in state.owners.items():
        if owner in territories:
            territories[owner] += 1
            armies[owner] += state.armies.get(t, 0)

    rows = 1 if len(seats) <= columns else 2
    card_h = CARD_H if rows == 2 else 2 * CARD_H + 8
    stat_size, stat_gap = (19, 14) if columns == COLUMNS else (16, 8)
    for i, seat in enumerate(seats[: columns * 2]):
        col, row = i % columns, i // columns
        x = MARGIN + col * (card_w + 10)
        y = top + MARGIN + row * (CARD_H + 8)
        current = seat == state.current and not over
        out = seat in eliminated
        colour = seat_colour(seat, state)
        box_fill = (30, 42, 56) if current else (22, 32, 44)
        draw.rounded_rectangle((x, y, x + card_w, y + card_h), radius=10, fill=box_fill,
                               outline=on_dark(colour) if current else style.PANEL_LINE,
                               width=3 if current else 1)
        swatch = sprites.badge(seat_shape(seat), colour, "") if not out else sprites.badge(
            seat_shape(seat), (90, 96, 104), "")
        _paste(img, swatch, x + 12, y + 12)
        name = _fit(names.get(seat, f"Seat {seat}"), 24, True,
                    card_w - 70 - (70 if current else 0) - (90 if over and seat in winners else 0))
        name_colour = style.TEXT_DIM if out else style.TEXT
        nw = _text(img, x + 56, y + 10, name, 24, name_colour, bold=True)
        if out:
            draw.line((x + 54, y + 25, x + 58 + nw, y + 25), fill=style.TEXT, width=3)
        badge = sprites.tag(labels.word("TURN"), colour) if current else (
            sprites.tag(labels.word("WINNER"), colour) if over and seat in winners else None)
        if badge is not None:
            _paste(img, badge, x + card_w - badge.width - 10, y + 12)
        hand = len(state.hands.get(seat, [])) if seat != NEUTRAL else None
        cards = [(str(hand), labels.word(" card" if hand == 1 else " cards"))] if hand is not None else []
        if out:
            stats = [("", labels.word("eliminated" if seat in state.eliminated else "surrendered"))]
        elif hidden_totals and seat not in (viewer, NEUTRAL):
            stats = [("", labels.word("hidden")), *cards]
        else:
            stats = [(str(territories[seat]), labels.word(" terr.")), (str(armies[seat]), labels.word(" armies")),
                     *cards]
        if rows == 1:   # tall cards: one fact a line, larger
            for k, (number, unit) in enumerate(stats):
                _stat(img, x + 56, y + 50 + k * 32, number, unit, 22)
        else:
            sx = x + 56
            for number, unit in stats:
                sx += _stat(img, sx, y + 48, number, unit, stat_size) + stat_gap

    # Status: turn, phase, cards, last battle.
    x = status_x
    y = top + MARGIN
    draw.rounded_rectangle((x, y, w - MARGIN, y + 2 * CARD_H + 8), radius=10, fill=(22, 32, 44),
                           outline=style.PANEL_LINE, width=1)
    x += 16
    y += 10
    if over and state.winner is not None:
        _text(img, x, y, labels.word("Game over"), 26, style.TEXT, bold=True)
        winner = names.get(state.winner, "?")
        size, lines = fit_lines(labels.word(winner_words(state), winner=winner), w - MARGIN - x - 16)
        if len(lines) == 1:
            _text(img, x, y + 36, lines[0], size, on_dark(seat_colour(state.winner, state)), bold=True)
            y += 72
        else:   # two lines, closer under the title, so the last battle's dice stay inside the box
            for k, line in enumerate(lines):
                _text(img, x, y + 32 + 22 * k, line, size, on_dark(seat_colour(state.winner, state)), bold=True)
            y += 78
    else:
        label = labels.word("Turn {n}", n=state.turn) if state.turn else labels.word("Setup")
        tw = _text(img, x, y, label, 26, style.TEXT, bold=True)
        who = names.get(state.current, "")
        _text(img, x + tw + 12, y, _fit(who, 26, True, w - MARGIN - x - tw - 28), 26,
              on_dark(seat_colour(state.current, state)), bold=True)
        _text(img, x, y + 36, labels.word(PHASE_WORDS.get(state.phase, state.phase)), 21, style.TEXT_DIM)
        y += 70
    card_set = next_set_value(state, labels) if not over else None
    if card_set:
        _text(img, x, y, card_set, 19, style.TEXT_DIM)
    y += 30 if y < top + 100 else 26
    if battle is not None:
        src = labels.short(board, battle.source)
        dst = labels.short(board, battle.target)
        _text(img, x, y, f"{src} → {dst}", 18, style.TEXT_DIM)
        y += 24
        pairs = min(len(battle.attacker_dice), len(battle.defender_dice))
        a_sorted = sorted(battle.attacker_dice, reverse=True)
        d_sorted = sorted(battle.defender_dice, reverse=True)
        a_lost = [i < pairs and a_sorted[i] <= d_sorted[i] for i in range(len(a_sorted))]
        d_lost = [i < pairs and a_sorted[i] > d_sorted[i] for i in range(len(d_sorted))]
        dx = x
        for v, lost in zip(a_sorted, a_lost, strict=True):
            _paste(img, sprites.die(v, seat_colour(battle.attacker, state), 28, lost), dx, y)
            dx += 32
        dx += 8
        dx += _text(img, dx, y + 3, "vs", 18, style.TEXT_DIM) + 10
        for v, lost in zip(d_sorted, d_lost, strict=True):
            _paste(img, sprites.die(v, seat_colour(battle.defender, state), 28, lost), dx, y)
            dx += 32
