"""Game settings: chosen before a game, frozen when it starts, recorded in ``game_started``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import SettingsError

CHOICES: dict[str, tuple[str, ...]] = {
    "deployment": ("claim", "deal", "auto"),
    "cards": ("escalating", "fixed", "none"),
    "fortify": ("adjacent", "connected"),
}
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

    def __post_init__(self) -> None:
        for key, allowed in CHOICES.items():
            value = getattr(self, key)
            if value not in allowed:
                raise SettingsError(f"{key} must be one of {', '.join(allowed)}, not “{value}”")
        if not isinstance(self.setup_batch, int) or not 1 <= self.setup_batch <= 50:
            raise SettingsError("setup_batch must be a whole number from 1 to 50")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Settings:
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SettingsError(f"unknown setting {', '.join(unknown)}; known settings: {', '.join(sorted(known))}")
        if "setup_batch" in data:
            try:
                data["setup_batch"] = int(data["setup_batch"])
            except (TypeError, ValueError) as exc:
                raise SettingsError("setup_batch must be a whole number from 1 to 50") from exc
        return cls(**data)
