"""AI players. ``choose_action(game, seat, level, ...)`` returns the next action for a seat whose move it is.

Every AI decides only on what its seat may know (``knowledge.seat_view``); under fog of war it is given the
seat's ``Memory`` of the board it saw, which whoever drives it keeps (``knowledge.Recollection``)."""

from __future__ import annotations

from ..actions import Action
from ..game import Game
from .easy import EasyAI
from .hard import HardAI
from .knowledge import Memory, Recollection, recollect, seat_view
from .normal import NormalAI
from .random_play import RandomAI

# The levels a player may give a bot seat (``/risk addbot``).
PLAYER_LEVELS = ("easy", "normal", "hard")
# The same levels under their older name.
LEVELS = PLAYER_LEVELS
# Every level ``make_ai`` plays by name, for simulations and tests: ``random`` plays any legal move at random (it
# drives the rules through their corners, and is no opponent to offer a player).
ALL_LEVELS = (*PLAYER_LEVELS, "random")
# The version of each player level's play, bumped whenever the level plays differently: a finished game records
# the version its AI seats played (``results.ai_version``), so the ratings rate each game against the AI it met
# (``ratings.AI_VERSION_RATINGS`` holds a rating for every version, old ones included).
VERSIONS: dict[str, int] = {"easy": 1, "normal": 1, "hard": 2}


def version_of(level: str | None) -> int | None:
    """The version of a player level's play now (None for no level, or one that is not a player level)."""
    return VERSIONS.get(level) if level is not None else None


def make_ai(level: str, salt: str = "", seed: str = "") -> EasyAI | NormalAI | HardAI | RandomAI:
    """An AI of a level. ``salt`` varies the easy and random AIs' choices between seats, ``seed`` the random AI's
    between runs.

    ``cautious`` and ``skip`` play the turn of an absent player (see ``NormalAI``)."""
    if level == "easy":
        return EasyAI(salt)
    if level == "normal":
        return NormalAI()
    if level == "hard":
        return HardAI()
    if level == "random":
        return RandomAI(salt, seed)
    if level == "cautious":
        return NormalAI(cautious=True)
    if level == "skip":
        return NormalAI(minimal=True)
    raise ValueError(f"unknown AI level “{level}”; levels: {', '.join(ALL_LEVELS)}")


def choose_action(game: Game, seat: int, level: str = "normal", memory: Memory | None = None) -> Action:
    return make_ai(level, salt=str(seat)).choose(game, seat, memory)


__all__ = ["ALL_LEVELS", "LEVELS", "PLAYER_LEVELS", "VERSIONS", "EasyAI", "HardAI", "Memory", "NormalAI", "RandomAI",
           "Recollection", "choose_action", "make_ai", "recollect", "seat_view", "version_of"]
