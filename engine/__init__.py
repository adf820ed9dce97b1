"""The rules engine of Risk: pure, deterministic and verifiable. No I/O beyond its own map files."""

from .actions import (
    Action,
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    Place,
    Surrender,
    Trade,
    Undo,
    action_from_dict,
)
from .board import (
    Board,
    Continent,
    Territory,
    builtin_maps,
    load_map,
    load_map_file,
    parse_map,
    register_map,
    registered_map,
    registered_maps,
)
from .errors import MapError, RuleError, SettingsError, Teammate
from .fog import events_for, public_events_for, state_for, visible_territories
from .game import Game
from .missions import mission_text
from .settings import PRESETS, Settings, apply_preset
from .state import NEUTRAL, SCHEMA_VERSION, Event, GameState, Player, apply_event

__all__ = [
    "NEUTRAL", "PRESETS", "SCHEMA_VERSION", "Action", "Attack", "Blitz", "Board", "ChooseCapital", "Claim", "Continent",
    "EndAttack", "EndTurn", "Event", "Fortify", "Game", "GameState", "MapError", "Occupy", "Place", "Player",
    "RuleError", "Settings", "SettingsError", "Surrender", "Teammate", "Territory", "Trade", "Undo", "action_from_dict",
    "apply_event", "apply_preset", "builtin_maps", "events_for", "load_map", "load_map_file", "mission_text",
    "parse_map", "public_events_for", "register_map", "registered_map", "registered_maps", "state_for",
    "visible_territories",
]
