"""Game settings: chosen before a game, frozen when it starts, recorded in ``game_started``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import SettingsError

CHOICES: dict[str, tuple[str, ...]] = {
    "deployment": ("claim", "deal", "auto"),
    "cards": ("escalating", "fixed", "none"),
    "fortify": ("adjacent", "connected"),
    "on_timeout": ("cautious", "skip", "ai"),
    "on_boot": ("ai", "neutral"),
    "reminders": ("auto", "none"),
}
# Turn deadlines a host can choose, in seconds: from live games to a week.
DEADLINES = (300, 900, 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 3 * 86400, 7 * 86400)
STARTING_ARMIES = {2: 40, 3: 35, 4: 30, 5: 25, 6: 20}
NEUTRAL_ARMIES_TWO_PLAYER = 40


@dataclass(frozen=True)
class Settings:
    """The rules a game is played with. Defaults are the seeds' classic rules."""

    deployment: str = "claim"
    setup_batch: int = 1
    cards: str = "escalating"
    fortify: str = "adjacent"
    map: str = "classic"
    # Asynchronous play: not rules of the board, but frozen with them when the game starts.
    turn_deadline: int = 86400          # seconds a player has for a turn
    reminders: str = "auto"             # auto: at half time and one hour before (none for live games)
    on_timeout: str = "cautious"        # what is played for a player whose deadline passed
    max_missed: int = 3                 # consecutive missed turns before the seat is replaced (0: never)
    on_boot: str = "ai"                 # the replaced seat goes to the AI, or its territories to neutral
    vacation_days: int = 7              # days of vacation each player may take in this game
    max_rounds: int = 0                 # 0: no limit; else the game ends after this many rounds
    language: str = ""                  # public messages' language ("" = the server's)

    def __post_init__(self) -> None:
        for key, allowed in CHOICES.items():
            value = getattr(self, key)
            if value not in allowed:
                raise SettingsError(f"{key} must be one of {', '.join(allowed)}, not “{value}”")
        _whole(self.setup_batch, "setup_batch", 1, 50)
        _whole(self.turn_deadline, "turn_deadline", 60, 30 * 86400)
        _whole(self.max_missed, "max_missed", 0, 100)
        _whole(self.vacation_days, "vacation_days", 0, 60)
        _whole(self.max_rounds, "max_rounds", 0, 10_000)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Settings:
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SettingsError(f"unknown setting {', '.join(unknown)}; known settings: {', '.join(sorted(known))}")
        for f in fields(cls):
            if f.type in ("int", int) and f.name in data and not isinstance(data[f.name], int):
                try:
                    data[f.name] = int(str(data[f.name]).strip())
                except ValueError as exc:
                    raise SettingsError(f"{f.name} must be a whole number, not “{data[f.name]}”") from exc
        return cls(**data)


def _whole(value: object, name: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SettingsError(f"{name} must be a whole number from {low} to {high}")
