"""Secret missions (mode ``missions``): the mission deck, when a mission is complete, and its text.

A mission is a plain JSON-ready dict with an ``id`` and a ``kind``:

* ``{"kind": "continents", "continents": [a, b], "plus_any": 0 or 1}``: hold continents ``a`` and ``b``
  whole (and, with ``plus_any``, one more continent of your choice);
* ``{"kind": "territories", "count": 24, "armies": 1}``: hold ``count`` territories with at least
  ``armies`` armies on each;
* ``{"kind": "destroy", "seat": n}``: eliminate seat ``n`` yourself; a map's own destroy card may say what
  it becomes (``"count"``, ``"armies"``: Domination's fallback), else the map's fallback (24 territories on the
  classic map).

Any mission may carry ``"description"``: the map's own words for it (shown to readers of the map's language).

The deck: a map that lists no destroy card (the classic map) gets one per seat in play; a map that lists its
own (Domination's "destroy player N") is dealt as it is, without the cards that name a seat not in play, as
Domination leaves out the missions of an absent player.

A destroy mission that cannot be played (your own seat, a teammate, a seat not in play) is dealt as its
fallback, with ``"replaces"`` naming the mission it stands for (Domination keeps the card and counts its
territories instead: the same goal); one whose target is eliminated by someone else, or surrenders, becomes
its fallback during the game (event ``mission_changed``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .board import Board
from .state import GameState, Player

Mission = dict[str, Any]


def continents_mission(continents: Sequence[str], plus_any: int = 0) -> Mission:
    ident = "+".join([*continents, *["any"] * plus_any])
    return {"id": ident, "kind": "continents", "continents": list(continents), "plus_any": plus_any}


def territories_mission(count: int, armies: int = 1) -> Mission:
    ident = f"territories-{count}" + (f"x{armies}" if armies > 1 else "")
    return {"id": ident, "kind": "territories", "count": count, "armies": armies}


def destroy_mission(seat: int) -> Mission:
    return {"id": f"destroy-{seat}", "kind": "destroy", "seat": seat}


def fallback_count(mission: Mission, board: Board) -> tuple[int, int]:
    """The territories (and armies on each) a destroy mission becomes: its own, else the map's fallback."""
    if mission.get("count"):
        return int(mission["count"]), int(mission.get("armies", 1))
    return board.mission_fallback, 1


def fallback_mission(replaces: Mission, board: Board) -> Mission:
    """The territories mission standing for a destroy mission that cannot be played: the card's own fallback,
    else the map's (24 territories on the classic map)."""
    return {**territories_mission(*fallback_count(replaces, board)), "replaces": replaces["id"]}


def mission_deck(board: Board, seats: Sequence[int]) -> list[Mission]:
    """The mission cards in a fixed order: the map's own cards (continents, then territories on the classic
    map), then one destroy card per seat in play; on a map that lists its own destroy cards, those instead of
    the ones per seat, without the cards that name a seat not in play."""
    in_play = set(seats)
    deck = [dict(m) for m in board.missions if m["kind"] != "destroy" or m["seat"] in in_play]
    if not board.has_destroy_missions:
        deck += [destroy_mission(seat) for seat in seats]
    return deck


def playable(mission: Mission, seat: int, state: GameState, board: Board) -> Mission:
    """The mission as dealt to ``seat``: a destroy card for yourself, a teammate or a seat out of play is the
    map's fallback (24 territories on the classic map)."""
    if mission["kind"] != "destroy":
        return mission
    target = mission["seat"]
    team = state.teams.get(seat)
    if target == seat or target not in state.active_seats() or (team is not None and state.teams.get(target) == team):
        return fallback_mission(mission, board)
    return mission


def continents_held(state: GameState, board: Board, seat: int) -> set[str]:
    return {c.id for c in board.continents.values() if all(state.owners.get(t) == seat for t in c.territories)}


def mission_complete(mission: Mission, state: GameState, board: Board, seat: int) -> bool:
    """Whether ``seat`` has completed ``mission`` in this position."""
    kind = mission["kind"]
    if kind == "continents":
        held = continents_held(state, board, seat)
        required = set(mission["continents"])
        extra: int = mission.get("plus_any", 0)
        return required <= held and len(held - required) >= extra
    if kind == "territories":
        enough = [t for t, o in state.owners.items() if o == seat and state.armies.get(t, 0) >= mission["armies"]]
        count: int = mission["count"]
        return len(enough) >= count
    if kind == "destroy":
        return bool(mission["seat"] in state.eliminated)
    raise ValueError(f"unknown mission kind “{kind}”")


def _names(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def with_player(description: str, mission: Mission, name: str) -> str:
    """A map's own words for a destroy mission with the player's name in place of ``{PLAYERn}`` or
    ``PLAYERn`` (Domination's placeholders; ``n`` counts seats from 1)."""
    if mission["kind"] != "destroy":
        return description
    key = f"PLAYER{int(mission['seat']) + 1}"
    return description.replace("{" + key + "}", name).replace(key, name)


def mission_text(mission: Mission, board: Board, players: Sequence[Player] | Mapping[int, str]) -> str:
    """The mission in plain English, e.g. “Conquer North America and Africa.”; the map's own words if it
    gives them."""
    def seat_name(seat: int) -> str:
        if isinstance(players, Mapping):
            return players.get(seat, f"seat {seat + 1}")
        return players[seat].name if 0 <= seat < len(players) else f"seat {seat + 1}"

    if mission.get("description"):
        target = seat_name(int(mission["seat"])) if mission["kind"] == "destroy" else ""
        return with_player(str(mission["description"]), mission, target)
    kind = mission["kind"]
    if kind == "continents":
        names = [board.continents[c].name if c in board.continents else c for c in mission["continents"]]
        more = int(mission.get("plus_any", 0))
        if not names:
            return f"Conquer {more} continents of your choice."
        if more:
            extra = "one more continent" if more == 1 else f"{more} more continents"
            return f"Conquer {', '.join(names)} and {extra} of your choice."
        return f"Conquer {_names(names)}."
    if kind == "territories":
        text = f"Occupy {mission['count']} territories"
        if mission["armies"] > 1:
            text += f" with at least {mission['armies']} armies in each"
        text += "."
        replaced = str(mission.get("replaces", ""))
        if replaced.startswith("destroy-"):
            text += f" (This replaces destroying {seat_name(int(replaced.split('-', 1)[1]))}.)"
        return text
    if kind == "destroy":
        name = seat_name(mission["seat"])
        return (f"Destroy all of {name}'s armies: take their last territory yourself. If someone else eliminates "
                f"{name} first, your mission becomes occupying {fallback_count(mission, board)[0]} territories.")
    raise ValueError(f"unknown mission kind “{kind}”")
