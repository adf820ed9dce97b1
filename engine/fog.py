"""Fog of war and what one player may see of a game's events.

The log always holds everything; these functions build the view of one seat. With fog ``on`` a player sees
their own territories (and their teammates') and the territories next to them; events that touch only
territories they cannot see are hidden. Independently of fog, hidden information (cards drawn, the deck,
missions) is shown only to the player it belongs to. After the game everything is public.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .board import load_map
from .game import Game
from .log import public_event
from .state import Event, GameState, apply_event, initial_state

# Event fields that name one territory, and the events that touch the board through them.
_TERRITORY_FIELDS = ("from", "to", "territory")
_BOARD_EVENTS = frozenset({"battle", "territory_conquered", "occupied", "fortified", "armies_placed"})


def visible_territories(source: GameState | Game, seat: int | None) -> set[str]:
    """The territories ``seat`` can see: its own and its teammates', and every territory next to them.

    ``seat`` None (a spectator) sees nothing. Without fog the UI need not ask: everything is visible."""
    state = source.state if isinstance(source, Game) else source
    if seat is None:
        return set()
    board = load_map(state.settings.map)
    team = state.teams.get(seat)
    friends = {seat} if team is None else {s for s, t in state.teams.items() if t == team} | {seat}
    own = {t for t, owner in state.owners.items() if owner in friends}
    return own | {n for t in own for n in board.neighbours(t)}


def _hidden(event: Event) -> Event:
    out: Event = {"type": event["type"], "hidden": True}
    if "seat" in event:
        out["seat"] = event["seat"]
    return out


def _own_secrets(event: Event, seat: int | None) -> Event:
    """The event with hidden information removed, except what belongs to ``seat``."""
    kind = event["type"]
    if seat is not None:
        if kind in ("card_drawn", "mission_changed") and event.get("seat") == seat:
            return dict(event)
        if kind == "player_eliminated" and seat in (event.get("seat"), event.get("by")):
            return dict(event)
    out = public_event(event)
    if kind == "missions_dealt":
        mine = event["missions"].get(str(seat)) if seat is not None else None
        out["missions"] = {str(seat): dict(mine)} if mine is not None else {}
    return out


def public_events_for(events: Sequence[Event], seat: int | None, *, before: GameState | None = None,
                      game_over: bool = False) -> list[Event]:
    """The events as ``seat`` may see them (None: a spectator).

    ``events`` is a whole log (from ``game_started``) or, with ``before`` (the state just before the first
    of them; it is not changed), a run of events from the middle of a game. A hidden event keeps only its
    ``type``, ``seat`` and ``"hidden": true``. With ``game_over`` everything is shown."""
    if game_over:
        return [dict(e) for e in events]
    if not events:
        return []
    rest: Sequence[Event] = events
    out: list[Event] = []
    if before is not None:
        state = before.copy()
    elif events[0]["type"] == "game_started":
        state = initial_state(events[0])
        out.append(public_event(events[0]))
        rest = events[1:]
    else:
        raise ValueError("give the state before the events, or a log that begins with game_started")
    fog = state.settings.fog == "on"
    for event in rest:
        seen_before = visible_territories(state, seat) if fog else set()
        apply_event(state, event)
        view = _own_secrets(event, seat)
        if fog:
            seen = seen_before | visible_territories(state, seat)
            view = _fogged(view, event, seen)
        out.append(view)
    return out


def _fogged(view: Event, event: Event, seen: set[str]) -> Event:
    kind = event["type"]
    if kind == "territories_dealt":
        view["owners"] = {t: s for t, s in event["owners"].items() if t in seen}
        return view
    if kind == "cards_traded" and event.get("bonus_territory") not in (None, *seen):
        view["bonus_territory"] = None
        return view
    if kind in _BOARD_EVENTS:
        touched: list[Any] = [event.get(key) for key in _TERRITORY_FIELDS if event.get(key)]
        if not any(t in seen for t in touched):
            return _hidden(event)
    return view


__all__ = ["public_events_for", "visible_territories"]
