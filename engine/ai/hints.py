"""A hint: what the hard AI would do now for a seat, and why, from the seat's own view.

``hint_for`` asks ``HardAI`` for the seat's next action on what the seat may know (``knowledge.seat_view``, with
its ``Memory`` under fog), and adds the reasons a player can weigh: an attack's chance of taking its target (the
battle odds of the armies the seat sees, with the AI's stop), and the continent a move aims for."""

from __future__ import annotations

from dataclasses import dataclass

from ..actions import Action, Blitz, Fortify, Place
from ..game import Game
from ..odds import QUICK_LIMIT, battle_odds, odds
from .hard import HardAI
from .knowledge import Memory, seat_view


@dataclass(frozen=True)
class Hint:
    """The hard AI's next action for a seat, the chance its attack takes the target (an attack), and the
    continent (its id) the move aims for (the territory it places on, attacks or fortifies)."""

    action: Action
    odds: float | None = None
    continent: str | None = None


def hint_for(game: Game, seat: int, memory: Memory | None = None) -> Hint:
    """What the hard AI would do now for ``seat``, on what the seat may know."""
    action = HardAI().choose(game, seat, memory)
    view = seat_view(game, seat, memory)
    if isinstance(action, Blitz):
        source, defenders = view.state.armies[action.source], view.state.armies[action.target]
        # Exact with the AI's stop while that takes a few milliseconds; a larger battle's odds to the end.
        chance = (battle_odds(source, defenders, max(1, action.stop_at)) if source * defenders <= QUICK_LIMIT
                  else odds(source, defenders, QUICK_LIMIT)[0]).win
        return Hint(action, chance, game.board.continent_of(action.target).id)
    if isinstance(action, (Place, Fortify)):
        aimed = action.territory if isinstance(action, Place) else action.target
        return Hint(action, None, game.board.continent_of(aimed).id)
    return Hint(action)


__all__ = ["Hint", "hint_for"]
