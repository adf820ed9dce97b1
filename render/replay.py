"""Renders from a game's event log: any turn, every turn, and a timelapse of the whole game."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from .mapview import render_map

if TYPE_CHECKING:
    from engine import GameState
    from engine.events import Event, EventType

ACTION_EVENTS: frozenset[EventType] = frozenset({
    "battle", "territory_conquered", "occupied", "player_eliminated", "armies_placed", "fortified",
    "territory_claimed",
})
# The events of one attack (the battles of a blitz on one target, the conquest, the move in, an elimination).
ATTACK_EVENTS: frozenset[EventType] = frozenset({"battle", "territory_conquered", "occupied", "player_eliminated"})
# Events written after an action that are not part of what a player sees happen on the board.
BOOKKEEPING: frozenset[EventType] = frozenset({
    "card_drawn", "turn_ended", "attack_ended", "deck_shuffled", "wilds_returned", "game_over", "turn_started",
    "setup_turn", "first_player", "seat_claimed",
})


def read_log(path: str | Path) -> list[Event]:
    """Events from a JSON Lines log (one event per line), a JSON list, or a JSON object with "events"."""
    text = Path(path).read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        return list(json.loads(stripped))
    if stripped.startswith("{") and "\n" not in stripped.strip():
        data = json.loads(stripped)
        return list(data["events"]) if "events" in data else [data]
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict) and "events" in data:
        return list(data["events"])
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def last_action(events: list[Event]) -> list[Event]:
    """The events of the last thing a player did on the board: one attack (all the battles of a blitz on one
    target, the conquest, the move in), a run of placements, a fortification or a claim."""
    i = len(events) - 1
    while i >= 0 and events[i].get("type") in BOOKKEEPING:
        i -= 1
    if i < 0 or events[i].get("type") not in ACTION_EVENTS:
        return []
    last = events[i]
    kind, seat = last["type"], last.get("seat")
    j = i
    if kind in ATTACK_EVENTS:
        target = next((e.get("to") for e in reversed(events[: i + 1]) if e.get("type") in ATTACK_EVENTS - {
            "player_eliminated"}), None)
        while j > 0:
            e = events[j - 1]
            if e.get("type") == "player_eliminated" or (
                    e.get("type") in ATTACK_EVENTS and e.get("to") == target and e.get("seat") == seat):
                j -= 1
            else:
                break
    elif kind == "armies_placed":
        while j > 0 and events[j - 1].get("type") == kind and events[j - 1].get("seat") == seat:
            j -= 1
    return events[j: i + 1]


def replay_states(events: list[Event]) -> Iterator[tuple[int, GameState, list[Event]]]:
    """(event count, state, events so far) at the end of setup, at the end of each turn and at the end."""
    from engine import Game, apply_event

    game = Game.from_events(events[:1])
    seen = 1
    for e in events[1:]:
        if e.get("type") == "turn_started":
            yield seen, game.state, events[:seen]
        apply_event(game.state, e)
        seen += 1
    yield seen, game.state, events[:seen]


def state_at_turn(events: list[Event], turn: int | None) -> tuple[GameState, list[Event]]:
    """The state at the end of a turn (the end of the game if ``turn`` is None), and the events up to it."""
    last = None
    for _, state, upto in replay_states(events):
        last = (state.copy(), upto)
        if turn is not None and state.turn >= turn:
            break
    assert last is not None
    return last


def render_turns(events: list[Event], *, viewer: int | None = None) -> Iterator[tuple[int, Image.Image]]:
    for _, state, upto in replay_states(events):
        yield state.turn, render_map(state, highlight_events=last_action(upto), viewer=viewer,
                                     visible=visible_to(state, viewer))


def visible_to(state: GameState, viewer: int | None) -> set[str] | None:
    """Fog of war for a seat: its own territories and their neighbours, both ways across a one-way border
    (None: no fog)."""
    if viewer is None:
        return None
    from engine import load_map

    board = load_map(state.settings.map)
    own = {t for t, s in state.owners.items() if s == viewer}
    return own | {n for t in own for n in board.touching(t)}


def timelapse(events: list[Event], *, width: int = 800, frame_ms: int = 350, limit_bytes: int = 9_500_000
              ) -> tuple[bytes, str]:
    """An animated WebP of the game, one frame per turn (the last frame held), at most ``limit_bytes``.

    Frames are rendered full size, reduced to ``width`` and stored lossy (quality 80: at this size the flat
    colours and text survive it well, and a six-player game of ~90 turns takes about 2 MB). If the result is
    still too large, every other frame is dropped until it fits.
    """
    frames: list[Image.Image] = []
    for _, state, _upto in replay_states(events):
        img = render_map(state)
        frames.append(img.resize((width, round(img.height * width / img.width)), Image.Resampling.LANCZOS))
    step = 1
    while True:
        chosen = frames[::step]
        if chosen[-1] is not frames[-1]:
            chosen.append(frames[-1])
        durations = [frame_ms * step] * (len(chosen) - 1) + [3000]
        out = io.BytesIO()
        chosen[0].save(out, "WEBP", save_all=True, append_images=chosen[1:], duration=durations, loop=0,
                       lossless=False, quality=80, method=4)
        data = out.getvalue()
        if len(data) <= limit_bytes or len(chosen) <= 2:
            return data, "webp"
        step *= 2
