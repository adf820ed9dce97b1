"""The rules engine of Risk: pure, deterministic and verifiable. No I/O beyond its own map files."""

from .actions import (
    Action,
    Attack,
    Blitz,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    Place,
    Surrender,
    Trade,
    action_from_dict,
)
from .board import Board, Continent, Territory, load_map, load_map_file, parse_map
from .errors import MapError, RuleError, SettingsError
from .game import Game
from .settings import Settings
from .state import NEUTRAL, SCHEMA_VERSION, Event, GameState, Player, apply_event

__all__ = [
    "NEUTRAL", "SCHEMA_VERSION", "Action", "Attack", "Blitz", "Board", "Claim", "Continent", "EndAttack", "EndTurn",
    "Event", "Fortify", "Game", "GameState", "MapError", "Occupy", "Place", "Player", "RuleError", "Settings",
    "SettingsError", "Surrender", "Territory", "Trade", "action_from_dict", "apply_event", "load_map",
    "load_map_file", "parse_map",
]
