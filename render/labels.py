"""The words on the map, in the game's language. The renderer knows no catalogs: callers hand it these."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine import Board


@dataclass(frozen=True)
class Labels:
    """Territory short names, continent names and the panel's words; anything missing stays English.

    ``key`` names the set (a language code): static layers are built once per board and key.
    """

    key: str = "en"
    territories: Mapping[str, str] = field(default_factory=dict)
    continents: Mapping[str, str] = field(default_factory=dict)
    words: Mapping[str, str] = field(default_factory=dict)

    def short(self, board: Board, territory: str) -> str:
        return self.territories.get(territory) or board.territories[territory].short

    def continent(self, board: Board, continent: str) -> str:
        return self.continents.get(continent) or board.continents[continent].name

    def word(self, english: str, **values: object) -> str:
        text = self.words.get(english) or english
        return text.format(**values) if values else text


ENGLISH = Labels()

# The legend in the map's corner, one row a symbol: a "+N" tag, a lost die (crossed), the capital star.
LEGEND_WORDS = ("armies just added", "dice that lost", "capital")

# Every panel text, for translators (the keys of ``Labels.words``).
PANEL_WORDS = (
    "claiming territories", "placing starting armies", "choosing capitals", "placing reinforcements", "attacking",
    "moving in",
    "fortifying", "game over", "Turn {n}", "Setup", "Game over", "{winner} rules the world",
    "{winner} completed a mission", "{winner} holds every capital", "{winner} leads at the round limit",
    "{winner}'s team wins", "{winner} is the last one standing", "{winner} leads as the players voted",
    "A draw, as the players voted",
    "Next card set: {value} armies", "Card sets: 4 · 6 · 8 · 10 armies", " terr.", " armies", " card", " cards",
    "hidden", "Neutral", "TURN", "WINNER", "eliminated", "surrendered", *LEGEND_WORDS,
)
