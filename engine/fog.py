"""What each audience may know of a game: the one definition, used for every message, map, log and export.

An *audience* is a seat (that player, who also sees what their teammates see) or ``None``: everybody, such as
the channel or someone who is not playing. The log always holds everything; these functions build the view of
one audience:

- Hidden information (the card drawn, the deck, the cards taken, missions) is shown only to the player it
  belongs to (``engine.log.public_event`` removes it for everybody else).
- With fog of war ``on`` a player sees their own (and their teammates') territories and the ones next to them
  (across a one-way border, whichever way it may be crossed).
  Events that touch only territories out of sight are hidden, and in one that is seen a territory out of
  sight is named ``null`` (an attack from the fog); another player's turn shows no reinforcement
  figures (they would tell how many territories and which continents that player holds), and traded cards name
  no territory. Everybody (``None``) learns only that a turn started or ended, trades (without territories),
  eliminations, surrenders, a substitute's claim of a seat and the game's end.
- In a set-up round (``setup: round``) a player's starting armies placed so far are theirs alone to see, until
  the round's ``placements_revealed`` puts them all on the board at once.
- After the game everything is public, the dice seed included.

A hidden event keeps only ``type``, ``seat`` and ``"hidden": true``, so every audience sees the same number of
events (and counts them the same way).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from .board import load_map
from .events import Event, EventType, HiddenEvent, View
from .game import Game
from .log import public_event, sealed
from .state import ATTACK, OCCUPY, OVER, GameState, apply_event, initial_state

Audience = int | None  # a seat, or None: everybody (the channel, a spectator)
EVERYBODY: Audience = None

# Event fields that name one territory, and the events that touch the board through them.
_TERRITORY_FIELDS = ("from", "to", "territory")
_BOARD_EVENTS: frozenset[EventType] = frozenset({
    "battle", "territory_conquered", "occupied", "fortified", "armies_placed", "territory_claimed", "capital_chosen"})
# Under fog, the events every player may read about (their territories stripped by ``_fog_public``).
PUBLIC_UNDER_FOG: frozenset[EventType] = frozenset({
    "game_started", "first_player", "missions_dealt", "territories_dealt", "setup_turn", "deck_shuffled",
    "wilds_returned", "turn_started", "turn_ended", "cards_traded", "player_eliminated", "player_surrendered",
    "mission_changed", "game_over", "seat_claimed", "round_started", "hold_released", "round_closed",
    "setup_round", "placements_revealed"})


def fog_hides_board(state: GameState) -> bool:
    """Whether fog of war hides part of the board now (it lifts when the game ends)."""
    return state.settings.fog == "on" and state.phase != OVER


def friends_of(state: GameState, seat: int | None) -> set[int]:
    """The seat and its teammates (nobody for ``None``)."""
    if seat is None:
        return set()
    team = state.teams.get(seat)
    return {seat} if team is None else {s for s, t in state.teams.items() if t == team} | {seat}


def visible_territories(source: GameState | Game, seat: Audience) -> set[str]:
    """The territories ``seat`` can see under fog: its own and its teammates', and every territory next to them.
    Across a one-way border a seat sees both ways: the territory it may attack, and the one that may attack it
    (you see who borders you, as on the table).

    ``None`` (everybody) sees none. Without fog every territory is visible: ask ``visible_to`` instead."""
    state = source.state if isinstance(source, Game) else source
    if seat is None:
        return set()
    board = load_map(state.settings.map)
    friends = friends_of(state, seat)
    own = {t for t, owner in state.owners.items() if owner in friends}
    return own | {n for t in own for n in board.touching(t)}


def public_phase(state: GameState, audience: Audience) -> str:
    """The phase as an audience may know it: under fog, a conquest of another player (their ``occupy``) is
    told as ``attack``."""
    if state.phase == OCCUPY and fog_hides_board(state) and state.current not in friends_of(state, audience):
        return ATTACK
    return state.phase


def without_hidden(events: Sequence[View]) -> list[View]:
    """A view as it is written out (a log, an export): events out of sight are left out altogether, so not even
    their number tells how busy a player was."""
    return [e for e in events if not e.get("hidden")]


def visible_to(state: GameState, audience: Audience) -> set[str] | None:
    """The territories an audience can see now, or None when it can see the whole board."""
    return visible_territories(state, audience) if fog_hides_board(state) else None


def state_for(state: GameState, audience: Audience) -> GameState:
    """A copy of the state holding only what the audience may know: the state to draw a map or a panel from.

    Out of sight (fog), a territory has no owner and no armies; other players' cards are face down (their
    number stays, as on the table); missions other than the audience's own, the deck order and, before the end,
    the dice seed are gone."""
    view = state.copy()
    if state.phase == OVER:
        return view
    view.seed = ""
    view.deck = [""] * len(state.deck)
    view.discard = [""] * len(state.discard)
    friends = friends_of(state, audience)
    view.hands = {s: (list(h) if s == audience else [""] * len(h)) for s, h in state.hands.items()}
    view.missions = {s: m for s, m in state.missions.items() if s == audience}
    if state.sealed is not None:  # a set-up round: only the audience's own starting armies placed so far
        view.sealed = {s: (dict(p) if s == audience else {}) for s, p in state.sealed.items()}
    seen = visible_to(state, audience)
    if seen is not None:
        view.owners = {t: o for t, o in state.owners.items() if t in seen}
        view.armies = {t: a for t, a in state.armies.items() if t in seen}
        view.capitals = {s: t for s, t in state.capitals.items() if t in seen or s in friends}
        if view.pending is not None and state.current not in friends:
            view.pending = None
        if state.current not in friends:
            view.reinforcements = 0
            view.undoable_placements = None
    return view


def _hidden(event: Event) -> HiddenEvent:
    out: HiddenEvent = {"type": event["type"], "hidden": True}
    if "seat" in event:
        out["seat"] = _fields(event)["seat"]
    return out


def _fields(event: Event) -> dict[str, Any]:
    """An event as a plain dict: a view (``null`` where the audience may not know) is built field by field."""
    return cast("dict[str, Any]", event)


def _own_secrets(event: Event, seat: Audience) -> Event:
    """The event with hidden information removed, except what belongs to ``seat``."""
    if seat is not None:
        if (event["type"] in ("card_drawn", "mission_changed") or sealed(event)) and _fields(event).get("seat") == seat:
            return event.copy()
        if event["type"] == "player_eliminated" and seat in (event["seat"], event["by"]):
            return event.copy()
    out = public_event(event)
    if event["type"] == "missions_dealt" and out["type"] == "missions_dealt":
        mine = event["missions"].get(str(seat)) if seat is not None else None
        out["missions"] = {str(seat): dict(mine)} if mine is not None else {}
    return out


def events_for(events: Sequence[Event], audience: Audience, *, before: GameState | None = None) -> list[View]:
    """The events as an audience may see them.

    ``events`` is a whole log (from ``game_started``) or, with ``before`` (the state just before the first of
    them; it is not changed), a run of events from the middle of a game. Once the game is over (a ``game_over``
    among the events, or ``before`` already over) everything is shown."""
    if not events:
        return []
    if any(e["type"] == "game_over" for e in events) or (before is not None and before.phase == OVER):
        return [e.copy() for e in events]
    rest: Sequence[Event] = events
    out: list[View] = []
    first = events[0]
    if before is not None:
        state = before.copy()
    elif first["type"] == "game_started":
        state = initial_state(first)
        out.append(public_event(first))
        rest = events[1:]
    else:
        raise ValueError("give the state before the events, or a log that begins with game_started")
    fog = state.settings.fog == "on"
    for event in rest:
        seen_before = visible_territories(state, audience) if fog else set()
        friends = friends_of(state, audience)
        apply_event(state, event)
        if sealed(event) and _fields(event).get("seat") != audience:
            out.append(_hidden(event))  # another player's starting armies, before the set-up round's reveal
            continue
        view = _own_secrets(event, audience)
        if fog:
            seen = seen_before | visible_territories(state, audience)
            out.append(_fogged(view, event, seen, friends))
        else:
            out.append(view)
    return out


def public_events_for(events: Sequence[Event], seat: Audience, *, before: GameState | None = None,
                      game_over: bool = False) -> list[View]:
    """``events_for`` under its older name; ``game_over`` shows everything."""
    if game_over:
        return [e.copy() for e in events]
    return events_for(events, seat, before=before)


def _fogged(view: Event, event: Event, seen: set[str], friends: set[int]) -> View:
    kind = event["type"]
    mine = _fields(event).get("seat") in friends
    if event["type"] == "round_started" and view["type"] == "round_started":
        # Every player's income of the round tells how much of the board they hold: only their own side's is told.
        view["income"] = {k: v for k, v in event["income"].items() if int(k) in friends}
        return view
    if kind in PUBLIC_UNDER_FOG:
        return view if mine else _fog_public(view, seen)
    if event["type"] == "placements_undone":  # like the placements it takes back: only the territories in sight
        shown = {t: n for t, n in event["placements"].items() if t in seen}
        if not shown:
            return _hidden(event)
        return cast(Event, {**view, "placements": shown, "armies": sum(shown.values())})
    if kind in _BOARD_EVENTS:
        fields = _fields(view)
        touched: list[Any] = [_fields(event).get(key) for key in _TERRITORY_FIELDS if _fields(event).get(key)]
        if not any(t in seen for t in touched):
            return _hidden(event)
        for key in _TERRITORY_FIELDS:  # an attack from the fog onto a territory in sight: the source stays unknown
            if fields.get(key) and fields[key] not in seen:
                fields[key] = None
        return view
    return view if mine else _hidden(event)


def _fog_public(view: Event, seen: set[str]) -> Event:
    """A public event of another player (or of the game) under fog: no territory out of sight, no figures that
    tell how much of the board someone holds."""
    match view["type"]:
        case "territories_dealt":
            view["owners"] = {t: s for t, s in view["owners"].items() if t in seen}
        case "turn_started":
            return cast(Event, {"type": view["type"], "seat": view["seat"], "turn": view["turn"]})
        case "cards_traded":
            fields = _fields(view)
            fields["cards"] = [{"card": None, "territory": None, "symbol": c.get("symbol")} for c in view["cards"]]
            if view.get("bonus_territory") not in seen:  # nor that the trader held one of the cards' territories
                view["bonus_territory"] = None
                view["bonus_armies"] = 0
        case "placements_revealed":
            view["placements"] = {k: {t: n for t, n in placed.items() if t in seen}
                                  for k, placed in view["placements"].items()}
        case "setup_turn":
            return {"type": view["type"], "seat": view["seat"], "phase": view["phase"]}
        case _:
            pass
    return view


__all__ = ["EVERYBODY", "PUBLIC_UNDER_FOG", "Audience", "events_for", "fog_hides_board", "friends_of",
           "public_events_for", "public_phase", "state_for", "visible_territories", "visible_to", "without_hidden"]
