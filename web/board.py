"""What a board shows and what it may send: a game as one viewer may know it, and a board's message checked
into an action.

``view`` builds the JSON a board draws from, out of ``engine.fog.state_for`` only (what the viewer may know) and,
for the player to move, the legal choices of the state as it is now: the same ones the turn panel's buttons and
menus offer (``engine.choices``). ``action_of`` turns a board's message into an engine action only if it
is one of those choices, from the seat its cookie names, exactly as a component value is checked: anything else
is refused with the same words, and nothing reaches the table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine import (
    Action,
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Game,
    Occupy,
    Place,
    Trade,
    Undo,
)
from engine.choices import armies_to_place, choices_for, in_sight_first
from engine.events import Event
from engine.fog import Audience, events_for, fog_hides_board, friends_of, public_phase, state_for
from engine.odds import QUICK_LIMIT, odds
from engine.state import (
    NEUTRAL,
    OVER,
    GameState,
    apply_event,
)
from present.i18n import _, continent_name, territory_name
from present.text import describe, mission_line, phase_text, player_name
from render.seats import Look, look, turn_order, unknown_look

MAX_MESSAGE = 2_000  # characters of one board message: anything longer is not a tap
MOVES = ("claim", "capital", "place", "neutral", "trade", "attack", "blitz", "occupy", "fortify", "end_attack",
         "end_turn", "undo")


class Refused(Exception):
    """A board's message that is not a legal choice now (its words are for the player, in their language)."""


def _hex(colour: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def _look(seat: Look) -> dict[str, str]:
    """A seat's colours as the renderer draws them (its palette is the board's)."""
    return {"colour": _hex(seat.colour), "fill": _hex(seat.fill), "shape": seat.shape,
            "highlight": _hex(seat.highlight)}


def legal(game: Game, seat: int) -> dict[str, Any]:
    """The choices ``seat`` has now (``engine.choices``), as a board offers them (nothing when it is not their
    move; a freestyle turn is started from the turn panel)."""
    s = game.state
    if seat != game.playing():
        return {}
    c = choices_for(game, seat)
    out: dict[str, Any] = {}
    if c.claim:
        out["claim"] = list(c.claim)
    if c.capital:
        out["capital"] = list(c.capital)
    if c.place is not None:
        out["place"] = {"territories": list(c.place.territories), "most": c.place.most}
    if c.neutral is not None:  # under fog, the neutral territories in sight (all of them if none is)
        out["neutral"] = {"territories": in_sight_first(s, seat, c.neutral.territories), "most": c.neutral.most}
    if c.trade:
        out["trade"] = [{"cards": list(option.cards), "bonus": list(option.bonus)} for option in c.trade]
    if c.end_attack:
        attacks: dict[str, list[dict[str, Any]]] = {}
        for source, options in c.attack.items():
            attacks[source] = []
            for target in options.targets:
                chance, _exact = odds(s.armies[source], s.armies[target], QUICK_LIMIT)
                attacks[source].append({"to": target, "win": round(chance.win, 4), "dice": list(options.dice)})
        out["attack"] = attacks
        out["end_attack"] = True
    if c.occupy is not None:
        out["occupy"] = {"from": c.occupy.source, "to": c.occupy.target, "min": c.occupy.least,
                         "max": c.occupy.most}
    if c.end_turn:
        out["fortify"] = {source: {"to": list(options.targets), "most": options.most}
                          for source, options in c.fortify.items()}
        out["end_turn"] = True
    if c.undo:
        out["undo"] = True
    return out


def _continents(game: Game, seen: GameState, language: str) -> list[dict[str, Any]]:
    """Each continent with its bonus and who holds it whole, as far as the viewer sees (None: nobody, or not
    seen whole)."""
    out = []
    for cid, continent in game.board.continents.items():
        owners = {seen.owners.get(t) for t in continent.territories}
        holder = owners.pop() if len(owners) == 1 else None
        out.append({"id": cid, "name": continent_name(game.board, cid, language), "bonus": continent.bonus,
                    "holder": holder if holder != NEUTRAL else None})
    return out


def _tally(game: Game, seen: GameState, audience: Audience) -> dict[int, dict[str, int | None]]:
    """Each player's territories and armies as the viewer sees them, and their next income when the viewer may
    know it (under fog: their own side's only, since it tells how much a player holds)."""
    s = game.state
    fog = fog_hides_board(s)
    friends = friends_of(s, audience)
    out: dict[int, dict[str, int | None]] = {}
    for p in s.players:
        held = [t for t, o in seen.owners.items() if o == p.seat]
        income = game.reinforcement_breakdown(p.seat)["total"] if not fog or p.seat in friends else None
        out[p.seat] = {"territories": len(held), "armies": sum(seen.armies.get(t, 0) for t in held),
                       "income": income}
    return out


def view(game: Game, audience: Audience, language: str, seq: int, deadline: float | None = None) -> dict[str, Any]:
    """The board as ``audience`` may know it now, with the viewer's own choices, cards and mission (``deadline``:
    the seconds left in the current turn, when it has one)."""
    s = game.state
    seen = state_for(s, audience)
    board = game.board
    tally = _tally(game, seen, audience)
    players = [{"seat": p.seat, "name": player_name(p.name, p.kind == "ai", language), "ai": p.kind == "ai",
                **_look(look(p.seat, s)), "out": p.seat in s.eliminated or p.seat in s.surrendered,
                "cards": len(s.hands.get(p.seat, [])), **tally[p.seat]} for p in s.players if p.seat != NEUTRAL]
    out: dict[str, Any] = {
        "seq": seq, "phase": public_phase(s, audience), "phase_text": phase_text(s, language, audience),
        "turn": s.turn, "current": s.current, "you": audience, "players": players,
        "order": [seat for seat in turn_order(s) if seat != NEUTRAL],
        "neutral": _look(look(NEUTRAL, s)), "fog": _look(unknown_look()), "fogged": fog_hides_board(s),
        "owners": seen.owners, "armies": seen.armies, "over": s.phase == OVER,
        "capitals": {str(seat): t for seat, t in seen.capitals.items() if t in seen.owners},
        "continents": _continents(game, seen, language),
        "deadline": None if deadline is None or s.phase == OVER else round(deadline),
        "reinforcements": armies_to_place(seen) if audience == s.current else 0,
    }
    if audience is not None and audience >= 0:
        hand = s.hands.get(audience, [])
        out["hand"] = [{"card": c, "name": _("Wild", language) if board.is_wild(c) else
                        territory_name(board, c, language), "symbol": game.card_symbol(c)} for c in hand]
        mission = game.mission(audience)
        if mission is not None:
            out["mission"] = mission_line(mission, board, s, language)
        out["legal"] = legal(game, audience)
    return out


COUNTED = ("owners", "armies")  # a board's maps of territories: a change sends only the territories that changed


def diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """What a page that shows ``before`` needs to show ``after``: the top-level entries that changed (``set``),
    the ones gone (``drop``), and for owners and armies only the territories that changed (``None``: no longer
    seen)."""
    out: dict[str, Any] = {}
    changed = {k: v for k, v in after.items() if k not in COUNTED and before.get(k) != v}
    if changed:
        out["set"] = changed
    gone = [k for k in before if k not in after and k not in COUNTED]
    if gone:
        out["drop"] = gone
    for key in COUNTED:
        old, new = before.get(key, {}), after.get(key, {})
        delta = {t: v for t, v in new.items() if old.get(t) != v}
        delta.update({t: None for t in old if t not in new})
        if delta:
            out[key] = delta
    return out


def battles(events: Sequence[Any]) -> list[dict[str, Any]]:
    """The battles among events a viewer may see (already projected for them): each roll's dice and losses, and
    the conquests, for the page to show at the battle. A blitz's rolls carry the same ``blitz`` number."""
    out: list[dict[str, Any]] = []
    for e in events:
        if e.get("hidden"):
            continue
        if e["type"] == "battle":
            out.append({"kind": "roll", "from": e.get("from"), "to": e.get("to"), "seat": e.get("seat"),
                        "defender": e.get("defender"), "attack": e.get("attacker_dice", []),
                        "defend": e.get("defender_dice", []), "lost": e.get("attacker_losses", 0),
                        "killed": e.get("defender_losses", 0), "blitz": e.get("blitz")})
        elif e["type"] == "territory_conquered":
            out.append({"kind": "conquest", "from": e.get("from"), "to": e.get("to"), "seat": e.get("seat"),
                        "defender": e.get("defender")})
    return out


def _territory(value: object, allowed: list[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise Refused
    return value


def _count(value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Refused
    return value


def action_of(game: Game, seat: int, message: Mapping[str, Any]) -> Action:
    """The action a board's ``{"move": ..., ...}`` asks for, if it is a legal choice of ``seat`` now (else
    ``Refused``)."""
    choice = legal(game, seat)
    move = message.get("move")
    offered_as = "attack" if move == "blitz" else move  # a blitz is one of the attacks offered
    if not isinstance(move, str) or move not in MOVES or offered_as not in choice:
        raise Refused
    offered = choice[offered_as]
    match move:
        case "claim":
            return Claim(seat, _territory(message.get("territory"), offered))
        case "capital":
            return ChooseCapital(seat, _territory(message.get("territory"), offered))
        case "place" | "neutral":
            return Place(seat, _territory(message.get("territory"), offered["territories"]),
                         _count(message.get("count"), 1, offered["most"]))
        case "trade":
            cards = message.get("cards")
            sets = [o for o in offered if isinstance(cards, list) and o["cards"] == cards]
            if not sets:
                raise Refused
            bonus = message.get("bonus")
            if bonus is not None:
                _territory(bonus, sets[0]["bonus"])
            return Trade(seat, tuple(sets[0]["cards"]), bonus)
        case "attack" | "blitz":
            source = _territory(message.get("from"), list(choice["attack"]))
            targets = {t["to"]: t for t in choice["attack"][source]}
            target = _territory(message.get("to"), list(targets))
            if move == "blitz":
                stop = message.get("stop_at", 1)
                return Blitz(seat, source, target, _count(stop, 1, game.state.armies[source]))
            dice = message.get("dice")
            return Attack(seat, source, target, None if dice is None else _count(dice, 1, max(targets[target]["dice"])))
        case "occupy":
            return Occupy(seat, _count(message.get("count"), offered["min"], offered["max"]))
        case "fortify":
            source = _territory(message.get("from"), list(offered))
            target = _territory(message.get("to"), offered[source]["to"])
            return Fortify(seat, source, target, _count(message.get("count"), 1, offered[source]["most"]))
        case "end_attack":
            return EndAttack(seat)
        case "end_turn":
            return EndTurn(seat)
        case _:
            return Undo(seat)


def territory_names(game: Game, language: str) -> dict[str, str]:
    board = game.board
    return {t: territory_name(board, t, language) for t in board.territory_ids}


__all__ = ["MAX_MESSAGE", "Refused", "action_of", "battles", "diff", "legal", "territory_names", "view"]


# -- the replay: run in the log's worker process (``Store.with_log``), since it reads the log from its start ----
def state_at(events: Sequence[Event], seq: int) -> GameState:
    """The whole board after event ``seq`` (projected for its viewer by the caller)."""
    return Game.from_events(events[:seq]).state


def _window(events: Sequence[Event], before: str | None) -> tuple[Game, GameState | None]:
    """The game after a window of the log (``Store.with_window``: the events from a turn's first to the moment
    asked for, ``before`` the game just before them, None for a window from the log's start), and the board just
    before the window's last event (None before the game started)."""
    if before is None:
        game, rest = Game.from_events(events[:1]), list(events[1:])
    else:
        game, rest = Game(GameState.from_dict(json.loads(before))), list(events)
    for event in rest[:-1]:
        apply_event(game.state, event)
    previous = game.state.copy() if rest else None
    if rest:
        apply_event(game.state, rest[-1])
    return game, previous


def window_state(events: Sequence[Event], before: str | None) -> GameState:
    """The whole board at the end of a window of the log (a replay's picture: ``map.png?at=``)."""
    return _window(events, before)[0].state


def replay_frame(events: Sequence[Event], before: str | None, seq: int, audience: Audience, language: str,
                 last: int) -> dict[str, Any]:
    """The board after event ``seq`` (the window's last, ``Store.with_window``) as ``audience`` may know it at
    that moment (a spectator: the public projection), with that event in the channel's words; no choices: a
    replay plays nothing. ``last`` is the log's last event now."""
    game, previous = _window(events, before)
    shown = [e for e in events_for(events[-1:], audience, before=previous) if not e.get("hidden")]
    board = view(game, audience, language, seq)
    board.pop("legal", None)
    return {"type": "replay", "seq": seq, "of": last, "board": board,
            "lines": describe(shown, game.state, game.board, language, page=True)}
