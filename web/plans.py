"""Plan my turn on the live board: a board's plan checked into standing orders, and a player's own plan as their
board shows it (engine/orders.py, table/orders.py; the turn panel's flow is cogs/play/plan.py).

A board sends its plan whole, as one message::

    {"type": "plan", "id": "...", "place": "alaska" | "front" | null,
     "attacks": [{"from": "alaska", "to": "kamchatka", "stop": "s3", "move": "a"}, ...],
     "fortify": {"from": "alberta", "to": "alaska"} | null, "end": true, "repeat": false}

``plan_of`` reads it strictly, before any work is spent on it: exactly these keys, territories as the map's ids,
at most ``PLAN_ATTACKS`` attacks, stops and move-ins among those the turn panel offers (``STOPS``, ``MOVES``);
then ``engine.orders.planned`` checks it against the seat's territories as the plan will hold them, as the turn
panel's flow does, and the table (``leave_orders``) against the board. Anything else is refused and nothing is
kept. ``plan_message`` is the answer, sent to the socket that asked only: a plan is never part of the board that
every viewer is sent (``web.board.view``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import Board, Game
from engine.orders import (
    FRONT,
    MOVES,
    PLAN_ATTACKS,
    STOPS,
    AttackOrder,
    FortifyOrder,
    Orders,
    Placing,
    planned,
    tapped_attack,
)
from present.plans import plan_lines

from .board import Refused

PLAN_TYPES = ("plan", "plan_show", "plan_cancel")   # leave a plan, ask for one's own plan, take it back
KEYS = {"type", "id", "place", "attacks", "fortify", "end", "repeat"}


def _territory(game: Game, value: object) -> str:
    if not isinstance(value, str) or value not in game.board.territories:
        raise Refused
    return value


def _pair(game: Game, value: object, keys: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict) or set(value) != keys:
        raise Refused
    return {k: value[k] if k in ("stop", "move") else _territory(game, value[k]) for k in keys}


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise Refused
    return value


def plan_of(game: Game, seat: int, message: Mapping[str, Any]) -> Orders:
    """The plan a board's ``{"type": "plan", ...}`` leaves for ``seat``: ``Refused`` if it is not of that form,
    ``BadOrders`` (or ``UnknownTerritory``) if it is not a plan of theirs on this board."""
    if not set(message) <= KEYS or message.get("type") != "plan":
        raise Refused
    place = message.get("place")
    if place is not None and place != FRONT:
        place = _territory(game, place)
    attacks = message.get("attacks", [])
    if not isinstance(attacks, list) or len(attacks) > PLAN_ATTACKS:
        raise Refused
    orders = []
    for a in attacks:
        pair = _pair(game, a, {"from", "to", "stop", "move"})
        if pair["stop"] not in STOPS or pair["move"] not in MOVES:
            raise Refused
        orders.append(tapped_attack(pair["from"], pair["to"], pair["move"], pair["stop"]))
    fortify = message.get("fortify")
    if fortify is not None:
        pair = _pair(game, fortify, {"from", "to"})
        fortify = FortifyOrder(pair["from"], pair["to"])
    plan = Orders(place=(Placing(place),) if place is not None else (), attacks=tuple(orders), fortify=fortify,
                  end=_flag(message.get("end", True)), repeat=_flag(message.get("repeat", False)))
    planned(game, seat, plan)
    return plan


def _stop(a: AttackOrder) -> str:
    return f"o{round(a.odds * 100)}" if a.odds else f"s{a.stop_at}"


def _move(a: AttackOrder) -> str:
    return "m" if a.move_in == 1 else "k2" if a.move_in is None and a.leave == 2 else "a"


def plan_message(plan: Orders | None, board: Board, language: str, tap_id: str | None = None) -> dict[str, Any]:
    """A player's own plan as their board shows it: its summary lines (present/plans.py) and its orders in the
    form a board sends them, to change it (``plan`` None: they have none)."""
    out: dict[str, Any] = {"type": "plan", "id": tap_id, "plan": None, "lines": []}
    if plan is None:
        return out
    out["lines"] = plan_lines(plan, board, language)
    out["plan"] = {
        "place": plan.place[0].territory if plan.place else None,
        "attacks": [{"from": a.source, "to": a.target, "stop": _stop(a), "move": _move(a)} for a in plan.attacks],
        "fortify": None if plan.fortify is None else {"from": plan.fortify.source, "to": plan.fortify.target},
        "end": plan.end, "repeat": plan.repeat,
    }
    return out


__all__ = ["PLAN_TYPES", "plan_message", "plan_of"]
