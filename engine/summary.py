"""What a finished game's log says about its players: placements, turns, the armies over time, key moments,
and how lucky each player's dice were.

Everything here reads the event log only (docs/events.md), so it gives the same answer for a game played
now and for one replayed from an export years later.

Dice luck: every ``battle`` event is one roll, with the dice each side threw. For the number of dice each
side threw, ``engine.odds.roll_outcomes`` gives the exact chance of each result, hence the expected armies a
side loses on that roll and the variance of that loss. Rolls are independent, so over a game a player's
expected losses are the sum of the expectations and the variance of the total is the sum of the variances.
The luck index is ``(expected - actual) / spread``: how many standard deviations fewer armies the player lost
than fair dice would cost on average. Fair dice give an index between -2 and 2 about 95% of the time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from .board import load_map
from .events import Event, GameStarted
from .game import Game
from .odds import roll_outcomes
from .state import NEUTRAL, apply_event

__all__ = [
    "ContinentChange", "DiceLuck", "Fight", "KeyMoments", "Point", "dice_luck", "expected_loss",
    "favourite_continents", "key_moments", "placements", "teams", "timeline", "turns_played",
]


# -- dice -------------------------------------------------------------------------------------------------
def expected_loss(attacker_dice: int, defender_dice: int, side: str) -> tuple[float, float]:
    """The mean and variance of the armies ``side`` (``attacker`` or ``defender``) loses on one roll."""
    index = 0 if side == "attacker" else 1
    mean = 0.0
    square = 0.0
    for losses, p in roll_outcomes(attacker_dice, defender_dice).items():
        mean += p * losses[index]
        square += p * losses[index] ** 2
    return mean, square - mean * mean


@dataclass(frozen=True)
class DiceLuck:
    """One player's dice over a game: as attacker and as defender together."""

    seat: int
    rolls: int        # rolls the player threw dice in
    lost: int         # armies the player actually lost in them
    expected: float   # armies fair dice would take from them on average, for exactly the dice thrown
    variance: float   # of the armies lost, under fair dice

    @property
    def spread(self) -> float:
        """The standard deviation of the armies lost under fair dice."""
        return math.sqrt(self.variance)

    @property
    def index(self) -> float:
        """Standard deviations fewer armies lost than expected: above 0 lucky, below 0 unlucky."""
        return (self.expected - self.lost) / self.spread if self.variance > 0 else 0.0


def dice_luck(events: Iterable[Event]) -> dict[int, DiceLuck]:
    """Each player's dice luck (players who never threw a die are left out; the neutral army too)."""
    totals: dict[int, list[float]] = {}
    for e in events:
        if e["type"] != "battle":
            continue
        a_dice, d_dice = len(e["attacker_dice"]), len(e["defender_dice"])
        for seat, side, lost in ((e["seat"], "attacker", e["attacker_losses"]),
                                 (e["defender"], "defender", e["defender_losses"])):
            if seat == NEUTRAL:
                continue
            mean, variance = expected_loss(a_dice, d_dice, side)
            row = totals.setdefault(seat, [0, 0, 0.0, 0.0])
            row[0] += 1
            row[1] += lost
            row[2] += mean
            row[3] += variance
    return {seat: DiceLuck(seat, int(r[0]), int(r[1]), r[2], r[3]) for seat, r in sorted(totals.items())}


# -- players ------------------------------------------------------------------------------------------------
def _started(events: Sequence[Event]) -> GameStarted:
    return cast(GameStarted, events[0])  # a log begins with game_started


def _seats(started: GameStarted) -> list[int]:
    return [int(p["seat"]) for p in started["players"] if int(p["seat"]) != NEUTRAL and p.get("kind") != "neutral"]


def teams(events: Sequence[Event]) -> dict[int, int]:
    """Seat to team, in a team game (empty otherwise)."""
    return {int(seat): int(team) for seat, team in (_started(events).get("teams") or {}).items()}


def placements(events: Sequence[Event]) -> dict[int, int]:
    """Each seat's placement, 1 the best: the winners first, then those still standing at the end (tied),
    then the others in reverse order of going out (eliminated or surrendered). In a team game a team goes
    out with its last player, and every player of a team has the team's placement. Ties share a placement
    and the next one is skipped (1, 2, 2, 4)."""
    seats = _seats(_started(events))
    team_of = teams(events)
    unit = {seat: team_of.get(seat, seat) if team_of else seat for seat in seats}
    out: dict[int, int] = {}
    winners: set[int] = set()
    for e in events:
        if e["type"] in ("player_eliminated", "player_surrendered") and e["seat"] not in out:
            out[e["seat"]] = len(out)
        elif e["type"] == "game_over":
            winners = {int(s) for s in (e.get("winners") or [e["winner"]]) if s is not None}
    keys: dict[int, tuple[int, int]] = {}
    for u in set(unit.values()):
        members = [s for s in seats if unit[s] == u]
        if any(unit[w] == u for w in winners if w in unit):
            keys[u] = (0, 0)
        elif any(s not in out for s in members):
            keys[u] = (1, 0)
        else:
            keys[u] = (2, -max(out[s] for s in members))
    return {s: 1 + sum(1 for k in keys.values() if k < keys[unit[s]]) for s in seats}


def turns_played(events: Iterable[Event]) -> dict[int, int]:
    """How many turns each seat started."""
    counts: dict[int, int] = {}
    for e in events:
        if e["type"] == "turn_started":
            counts[e["seat"]] = counts.get(e["seat"], 0) + 1
    return counts


def favourite_continents(events: Iterable[Event]) -> dict[int, str]:
    """The continent whose bonus each player collected most often (players who held none are left out)."""
    counts: dict[int, dict[str, int]] = {}
    for e in events:
        if e["type"] == "turn_started":
            held = e["reinforcements"]["continents"] if "reinforcements" in e else {}
            for continent in held:
                mine = counts.setdefault(e["seat"], {})
                mine[continent] = mine.get(continent, 0) + 1
    return {seat: min(c, key=lambda k: (-c[k], k)) for seat, c in counts.items() if c}


# -- the game over time ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    """Territories and armies of each seat (the neutral army too) at the end of a turn (0: after setup)."""

    turn: int
    territories: dict[int, int]
    armies: dict[int, int]


@dataclass(frozen=True)
class Fight:
    """An attack on one territory: a run of rolls by one attacker from one territory, or one blitz."""

    turn: int
    seat: int
    defender: int
    source: str
    target: str
    rolls: int
    attacker_lost: int
    defender_lost: int
    conquered: bool

    @property
    def armies_lost(self) -> int:
        return self.attacker_lost + self.defender_lost


@dataclass(frozen=True)
class ContinentChange:
    turn: int
    continent: str
    taken_by: int | None   # the seat that now holds all of it
    lost_by: int | None    # the seat that held all of it until then


@dataclass
class KeyMoments:
    biggest_battle: Fight | None = None
    longest_blitz: Fight | None = None
    continents: list[ContinentChange] = field(default_factory=list)


def timeline(events: Sequence[Event]) -> list[Point]:
    """Territories and armies of every seat at the start of the first turn, after each turn, and at the end."""
    game = Game.from_events(events[:1])
    state = game.state
    points: list[Point] = []

    def snapshot() -> Point:
        territories: dict[int, int] = {}
        armies: dict[int, int] = {}
        for t, seat in state.owners.items():
            territories[seat] = territories.get(seat, 0) + 1
            armies[seat] = armies.get(seat, 0) + state.armies.get(t, 0)
        return Point(state.turn, territories, armies)

    for e in events[1:]:
        if e.get("type") == "turn_started":
            points.append(snapshot())
        apply_event(state, e)
    points.append(snapshot())
    return points


def key_moments(events: Sequence[Event]) -> KeyMoments:
    """The biggest battle (most armies lost on both sides), the longest blitz (most rolls), and every continent
    taken or lost during play (not in the setup)."""
    game = Game.from_events(events[:1])
    state = game.state
    board = load_map(state.settings.map)
    moments = KeyMoments()
    fights: list[Fight] = []
    blitzes: dict[int, Fight] = {}
    current: Fight | None = None
    holders: dict[str, int | None] = {}
    playing = False

    def holder(continent: str) -> int | None:
        seats = {state.owners.get(t) for t in board.continents[continent].territories}
        return seats.pop() if len(seats) == 1 else None

    for e in events[1:]:
        kind = e.get("type")
        apply_event(state, e)
        if e["type"] == "turn_started" and not playing:
            playing = True
            holders = {c: holder(c) for c in board.continents}
        if e["type"] == "battle":
            key = (e["seat"], e["from"], e["to"])
            if current is not None and (current.seat, current.source, current.target) == key \
                    and not current.conquered:
                current = Fight(current.turn, current.seat, current.defender, current.source, current.target,
                                current.rolls + 1, current.attacker_lost + e["attacker_losses"],
                                current.defender_lost + e["defender_losses"], False)
                fights[-1] = current
            else:
                current = Fight(state.turn, e["seat"], e["defender"], e["from"], e["to"], 1, e["attacker_losses"],
                                e["defender_losses"], False)
                fights.append(current)
            if e.get("blitz") is not None:
                b = blitzes.get(e["blitz"])
                blitzes[e["blitz"]] = Fight(state.turn, e["seat"], e["defender"], e["from"], e["to"],
                                            (b.rolls if b else 0) + 1,
                                            (b.attacker_lost if b else 0) + e["attacker_losses"],
                                            (b.defender_lost if b else 0) + e["defender_losses"], False)
        elif e["type"] == "territory_conquered":
            if current is not None and current.target == e["to"]:
                current = Fight(current.turn, current.seat, current.defender, current.source, current.target,
                                current.rolls, current.attacker_lost, current.defender_lost, True)
                fights[-1] = current
            for number, b in blitzes.items():
                if b.target == e["to"] and not b.conquered and b.seat == e["seat"]:
                    blitzes[number] = Fight(b.turn, b.seat, b.defender, b.source, b.target, b.rolls,
                                            b.attacker_lost, b.defender_lost, True)
        elif kind not in ("occupied", "player_eliminated", "mission_changed", "card_drawn"):
            current = None
        if playing and kind in ("territory_conquered", "player_surrendered", "occupied"):
            for c in board.continents:
                now = holder(c)
                if now != holders.get(c):
                    moments.continents.append(ContinentChange(state.turn, c, now, holders.get(c)))
                    holders[c] = now
    if fights:
        moments.biggest_battle = max(fights, key=lambda f: (f.armies_lost, -f.turn))
    if blitzes:
        moments.longest_blitz = max(blitzes.values(), key=lambda f: (f.rolls, f.armies_lost, -f.turn))
    return moments
