"""The event log as a file: JSON Lines, and the public view of events that hides what players may not see."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

from .events import Event, View

# Fields that reveal hidden information: cards in hand, the deck order, secret missions, the seed.
_HIDDEN: dict[str, tuple[str, ...]] = {
    "card_drawn": ("card",),
    "deck_shuffled": ("cards",),
    "wilds_returned": ("cards",),
    "player_eliminated": ("cards_taken",),
    "missions_dealt": ("missions",),
    "mission_changed": ("seat", "from", "to"),
}


def sealed(event: Event) -> bool:
    """Whether ``event`` is a starting army placed in secret in a set-up round (told only to its player until the
    round's ``placements_revealed``)."""
    return event["type"] == "armies_placed" and event.get("source") == "sealed"


def public_event(event: Event, game_over: bool = False) -> Event:
    """The event as every player may see it: its hidden fields ``null`` (a list counted in a ``*_count`` field).
    After the game everything is public."""
    hidden = None if game_over else _HIDDEN.get(event["type"])
    if not game_over and sealed(event):  # a starting army placed in secret: who placed, not where nor how many
        hidden = ("territory", "count")
    if not hidden:
        return event.copy()
    out: dict[str, Any] = dict(event)
    for key in hidden:
        value = out.get(key)
        out[key] = None
        if isinstance(value, list):
            out[f"{key}_count"] = len(value)
    return cast(Event, out)


def dumps(events: Iterable[View]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)


def write_log(path: str | Path, events: Iterable[View]) -> None:
    Path(path).write_text(dumps(events), encoding="utf-8")


def read_log(path: str | Path) -> list[Event]:
    """A log file; one compressed with gzip (a name ending in ``.gz``, as a long game's export comes) too."""
    data = Path(path).read_bytes()
    if str(path).endswith(".gz"):
        data = gzip.decompress(data)
    return list(iter_log(data.decode("utf-8").splitlines()))


def iter_log(lines: Iterable[str]) -> Iterator[Event]:
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"line {number} is not JSON: {exc}") from exc
        if not isinstance(event, dict) or "type" not in event:
            raise ValueError(f"line {number} is not an event (an object with a type)")
        yield cast(Event, event)   # as written by the engine: engine.verify checks a log from elsewhere
