"""AI players. ``choose_action(game, seat, level, ...)`` returns the next action for a seat whose move it is."""

from __future__ import annotations

from ..actions import Action
from ..game import Game
from .easy import EasyAI
from .normal import NormalAI

LEVELS = ("easy", "normal")


def make_ai(level: str, salt: str = "") -> EasyAI | NormalAI:
    """An AI of a level. ``salt`` varies the easy AI's choices between seats.

    ``cautious`` and ``skip`` play the turn of an absent player (see ``NormalAI``)."""
    if level == "easy":
        return EasyAI(salt)
    if level == "normal":
        return NormalAI()
    if level == "cautious":
        return NormalAI(cautious=True)
    if level == "skip":
        return NormalAI(minimal=True)
    raise ValueError(f"unknown AI level “{level}”; levels: {', '.join(LEVELS)}")


def choose_action(game: Game, seat: int, level: str = "normal") -> Action:
    return make_ai(level, salt=str(seat)).choose(game, seat)


__all__ = ["LEVELS", "EasyAI", "NormalAI", "choose_action", "make_ai"]
