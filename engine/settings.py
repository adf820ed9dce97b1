"""Game settings: chosen before a game, frozen when it starts, recorded in ``game_started``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from .board import Board, load_map
from .errors import MapError, SettingsError


@dataclass(frozen=True)
class Option:
    """One game setting as a host chooses it, declared once: the values it takes (words, or whole numbers
    from ``low`` to ``high``), how players read it (``label``, and ``words`` for its values) and what the
    ``/risk new`` option says of it (``help``, empty for a setting that command does not offer; ``offered``:
    the range it offers, if narrower).

    The texts are English; the Discord layer translates them (they are in the message catalogue)."""

    name: str
    label: str
    help: str
    values: tuple[str, ...] = ()
    low: int = 0
    high: int = 0
    words: tuple[tuple[object, str], ...] = ()
    offered: tuple[int, int] | None = None

    @property
    def numeric(self) -> bool:
        return not self.values

    def check(self, value: object) -> None:
        """Raise SettingsError if ``value`` is not one this setting takes."""
        if self.values:
            if value not in self.values:
                raise SettingsError(f"{self.name} must be one of {', '.join(self.values)}, not “{value}”")
        else:
            _whole(value, self.name, self.low, self.high)

    def word(self, value: object) -> str | None:
        """The value in words (English), if it has words."""
        return next((text for v, text in self.words if v == value), None)


OPTIONS: tuple[Option, ...] = (
    Option("deployment", "Deployment", "How territories are taken at the start", ("claim", "deal", "auto"),
           words=(("claim", "territories claimed one by one"), ("deal", "territories dealt at random"),
                  ("auto", "territories and armies placed at random"))),
    Option("setup", "Starting armies", "Starting armies placed in set-up turns, or all at once in one round",
           ("turns", "round"),
           words=(("turns", "placed in turns, a few at a time"),
                  ("round", "all at once: placed in secret, revealed together"))),
    Option("setup_batch", "Starting armies per set-up turn", "Armies per setup turn", low=1, high=50),
    Option("cards", "Card sets", "Card set values", ("escalating", "fixed", "none"),
           words=(("escalating", "escalating: 4, 6, 8, 10, 12, 15, then 5 more each"),
                  ("fixed", "fixed: 4, 6, 8 or 10 armies by symbols"), ("none", "no cards"))),
    Option("fortify", "Fortify", "The free move at the end of a turn", ("adjacent", "connected", "unlimited"),
           words=(("adjacent", "one move to a neighbouring territory"),
                  ("connected", "one move along a chain of your territories"),
                  ("unlimited", "any number of moves along your territories"))),
    Option("mode", "Goal", "Classic world domination, secret missions, or capitals",
           ("classic", "missions", "capitals"),
           words=(("classic", "world domination"), ("missions", "secret missions"),
                  ("capitals", "capture the capitals"))),
    Option("teams", "Teams", "Play in teams", ("none", "2v2", "3v3", "2v2v2"), words=(("none", "no teams"),)),
    Option("fog", "Fog of war", "Fog of war: see only your territories and their neighbours", ("off", "on"),
           words=(("off", "off"), ("on", "on: you see your territories and their neighbours"))),
    Option("turn_order", "Turn order", "Turns in seat order, or freestyle: anyone who has not played this round",
           ("sequential", "freestyle"),
           words=(("sequential", "in seat order"),
                  ("freestyle", "freestyle: each round, anyone who has not played may go, one at a time"))),
    Option("turn_deadline", "Time per turn", "Time for each turn", low=60, high=30 * 86400),
    Option("reminders", "Reminders", "", ("auto", "none"),
           words=(("auto", "at half time and an hour before the end"), ("none", "none"))),
    Option("on_timeout", "When time runs out", "What happens when time runs out", ("cautious", "skip", "ai"),
           words=(("cautious", "the AI plays a cautious turn"), ("skip", "the turn is skipped"),
                  ("ai", "the AI plays the turn"))),
    Option("max_missed", "Missed turns before the seat is replaced",
           "Missed turns in a row before the seat is replaced (0: never)", low=0, high=100, words=((0, "never"),),
           offered=(0, 20)),
    Option("on_boot", "A replaced seat goes to", "Who takes a replaced seat", ("ai", "neutral"),
           words=(("ai", "the AI"), ("neutral", "nobody: the territories become neutral"))),
    Option("stand_in", "The AI playing for absent players", "The AI that plays a missed turn or a replaced seat",
           ("normal", "hard"), words=(("normal", "the normal AI"), ("hard", "the hard AI"))),
    Option("vacation_days", "Vacation days per player", "", low=0, high=60),
    Option("max_rounds", "Round limit", "End after this many rounds (0: no limit)", low=0, high=10_000,
           words=((0, "no limit"),), offered=(0, 1000)),
    Option("min_reliability", "Minimum reliability to join",
           "The reliability a player needs to join, 0 to 100 (0: anyone)", low=0, high=100,
           words=((0, "anyone may join"),)),
    Option("hints", "Hints", "", ("off", "on"),
           words=(("off", "no hints"), ("on", "players may ask for a hint"))),
)
OPTION = {o.name: o for o in OPTIONS}
# The settings that take words, and their words (for validation, choices and tests).
CHOICES: dict[str, tuple[str, ...]] = {o.name: o.values for o in OPTIONS if o.values}
# Settings of the lobby alone (who may take a seat), not rules of the game: a game's log and state leave them out.
LOBBY_ONLY = frozenset({"min_reliability"})
# Settings added after games were first recorded, left out of a game's record at their default: a game that keeps
# it reads (and digests) as one from before the setting existed, and an older record reads as that default.
RECORDED_UNLESS_DEFAULT = frozenset({"stand_in", "turn_order", "setup", "hints"})
# A language code (the bot has catalogs for en, nb and es; others fall back to English), or "" for the server's.
LANGUAGE_CODE = re.compile(r"(?:[a-z]{2,3})?")
# Turn deadlines a host can choose, in seconds: from live games to a week.
DEADLINES = (300, 900, 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 3 * 86400, 7 * 86400)
# Armies each player starts with, by number of players (docs/rules.md). On a map with many territories a
# player gets at least half as many again as the territories they will hold (see ``starting_armies``).
STARTING_ARMIES = {2: 40, 3: 35, 4: 30, 5: 25, 6: 20, 7: 20, 8: 18}
NEUTRAL_ARMIES_TWO_PLAYER = 40
# Team formats: (number of teams, players per team).
TEAM_FORMATS: dict[str, tuple[int, int]] = {"none": (0, 0), "2v2": (2, 2), "3v3": (2, 3), "2v2v2": (3, 2)}


@dataclass(frozen=True)
class Settings:
    """The rules a game is played with. Defaults are the seeds' classic rules."""

    deployment: str = "claim"
    # turns: the starting armies are placed in set-up turns, ``setup_batch`` at a time; round: each player places
    # all of theirs privately, and they are revealed together (docs/rules.md, "Set-up in one round")
    setup: str = "turns"
    setup_batch: int = 1
    cards: str = "escalating"
    fortify: str = "adjacent"
    map: str = "classic"
    mode: str = "classic"               # classic | missions (secret missions) | capitals
    teams: str = "none"                 # none | 2v2 | 3v3 | 2v2v2: teammates share a victory
    fog: str = "off"                    # on: each player sees only their territories and their neighbours
    # sequential: turns in seat order; freestyle: each round every player still in takes one turn, in any order,
    # one at a time (docs/rules.md, "Freestyle rounds")
    turn_order: str = "sequential"
    # Asynchronous play: not rules of the board, but frozen with them when the game starts.
    turn_deadline: int = 86400          # seconds a player has for a turn
    reminders: str = "auto"             # auto: at half time and one hour before (none for live games)
    on_timeout: str = "cautious"        # what is played for a player whose deadline passed
    max_missed: int = 3                 # consecutive missed turns before the seat is replaced (0: never)
    on_boot: str = "ai"                 # the replaced seat goes to the AI, or its territories to neutral
    stand_in: str = "normal"            # the AI level of on_timeout "ai" and on_boot "ai": normal | hard
    vacation_days: int = 7              # days of vacation each player may take in this game
    max_rounds: int = 0                 # 0: no limit; else the game ends after this many rounds
    min_reliability: int = 0            # the lobby refuses a player whose reliability is lower (docs/history.md)
    hints: str = "off"                  # on: a player on turn may ask what the hard AI would do (/hint)
    language: str = ""                  # public messages' language ("" = the server's)

    def __post_init__(self) -> None:
        for option in OPTIONS:
            option.check(getattr(self, option.name))
        if not isinstance(self.language, str) or not LANGUAGE_CODE.fullmatch(self.language):
            raise SettingsError(f"language must be a language code like en, nb or es, not “{str(self.language)[:20]}”")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def game_dict(self) -> dict[str, Any]:
        """The settings a game is played with, as its ``game_started`` and its state record them: every setting
        but the lobby's own (``LOBBY_ONLY``), and a later setting at its default (``RECORDED_UNLESS_DEFAULT``)."""
        return {k: v for k, v in asdict(self).items() if k not in LOBBY_ONLY
                and not (k in RECORDED_UNLESS_DEFAULT and v == _DEFAULTS[k])}

    def board(self) -> Board:
        """The map these settings play on (SettingsError if it is not known)."""
        try:
            return load_map(self.map)
        except MapError as exc:
            raise SettingsError(f"there is no map called “{self.map[:40]}”") from exc

    def check_map(self) -> None:
        """Raise SettingsError if the map is unknown, or the mode needs what the map does not have."""
        board = self.board()
        if self.mode == "missions" and not board.has_missions:
            raise SettingsError(f"the map {board.title} has no missions: choose another mode or map")

    @property
    def team_count(self) -> int:
        """How many teams the ``teams`` format has (0 without teams)."""
        return TEAM_FORMATS[self.teams][0]

    @property
    def team_size(self) -> int:
        """Players per team (0 without teams)."""
        return TEAM_FORMATS[self.teams][1]

    def check_players(self, count: int) -> None:
        """Raise SettingsError if ``count`` players cannot play with these settings (on this map)."""
        low, high = self.board().players
        if not low <= count <= high:
            if (low, high) == (2, 6):
                raise SettingsError("Risk is played by 2 to 6 players")
            raise SettingsError(f"this map is played by {low} to {high} players")
        if self.teams != "none" and count != self.team_count * self.team_size:
            raise SettingsError(f"teams {self.teams} needs exactly {self.team_count * self.team_size} players, "
                                f"not {count}")

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Settings:
        """Settings from a dict of values (strings are fine for numbers). A ``preset`` key starts from that
        preset, and the other keys override it."""
        data = dict(data or {})
        if "preset" in data:
            name = str(data.pop("preset")).strip()
            return apply_preset(name, data)
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


# Named starting points for a game's settings; a host may still change any setting after choosing one.
PRESETS: dict[str, dict[str, Any]] = {
    # The classic rules of the seeds: every default.
    "classic": {},
    # A shorter game: no set-up turns (territories dealt and armies placed at random), escalating cards, fortify
    # along a chain, half a day a turn, and at most 15 rounds (then the most territories win).
    "quick": {"deployment": "auto", "cards": "escalating", "fortify": "connected", "turn_deadline": 12 * 3600,
              "max_rounds": 15},
}


def apply_preset(name: str, overrides: dict[str, Any] | None = None) -> Settings:
    """The settings of preset ``name`` with ``overrides`` on top. Raises SettingsError for an unknown preset."""
    if name not in PRESETS:
        raise SettingsError(f"there is no preset “{name}”; presets: {', '.join(PRESETS)}")
    overrides = dict(overrides or {})
    overrides.pop("preset", None)
    return Settings.from_dict({**PRESETS[name], **overrides})


def starting_armies(players: int, territories: int) -> int:
    """Armies each player starts with: the table's number for this many players, or on a large map half as
    many again as the territories each holder gets (a two-player game deals to a neutral third holder)."""
    holders = 3 if players == 2 else players
    return max(STARTING_ARMIES[players], -(-territories // holders) * 3 // 2)


def _whole(value: object, name: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SettingsError(f"{name} must be a whole number from {low} to {high}")


_DEFAULTS: dict[str, Any] = asdict(Settings())


def assign_teams(settings: Settings, count: int, team_of: Sequence[int] | None = None) -> dict[int, int]:
    """Seat -> team for a game of ``count`` players: ``team_of[seat]`` if given, else seat order
    (team of seat i = i % number of teams, so 2v2 is seats 0 and 2 against 1 and 3). Empty without teams."""
    settings.check_players(count)
    if settings.teams == "none":
        if team_of is not None:
            raise SettingsError("teams are given but the game is played without teams (choose teams 2v2, 3v3 or 2v2v2)")
        return {}
    n, size = settings.team_count, settings.team_size
    if team_of is None:
        return {seat: seat % n for seat in range(count)}
    chosen = list(team_of)
    if len(chosen) != count:
        raise SettingsError(f"give a team for each of the {count} players, not {len(chosen)}")
    for team in chosen:
        if isinstance(team, bool) or not isinstance(team, int) or not 0 <= team < n:
            raise SettingsError(f"teams are numbered 0 to {n - 1} in {settings.teams}, not “{team}”")
    for team in range(n):
        if chosen.count(team) != size:
            raise SettingsError(f"teams {settings.teams} needs {size} players in each team; "
                                f"team {team + 1} has {chosen.count(team)}")
    return dict(enumerate(chosen))


# Freestyle rounds (``turn_order: freestyle``): a started turn must end within a 24th of the round (an hour of a
# one-day round, at least a minute), and the player who ended a round may take the next round's first turn once
# another player has started one or a quarter of the round has passed (docs/rules.md, "Freestyle rounds").
TURN_LIMIT_SHARE = 24
HOLD_SHARE = 4


def turn_limit(settings: Settings) -> int:
    """Seconds a started turn of a freestyle round may run (never beyond the round's deadline: the table's)."""
    return max(60, settings.turn_deadline // TURN_LIMIT_SHARE)


def hold_time(settings: Settings) -> int:
    """Seconds after a freestyle round opens until the player who ended the last one may start it."""
    return max(60, settings.turn_deadline // HOLD_SHARE)
