"""What the rounds so far amount to: every pairing checked against its result, each table's order and points,
and each entrant's tally. The formats pair and rank from this.

A result's places are read as given (1 is first, equal places share); an entrant who forfeited is placed after
every entrant who did not, whatever place the result gives them, and all who forfeited one table share its last
places. Entrants who share places share those places' points (``placement_points``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from .model import BYE_POINTS, CompetitionError, Entrant, Pairing, Result, placement_points


@dataclass(frozen=True)
class Played:
    """One table that has its result: its entrants in groups that share a place, best first, and each one's
    points."""

    pairing: Pairing
    order: tuple[tuple[int, ...], ...]
    points: dict[int, float]
    forfeits: frozenset[int]

    def place(self, key: int) -> int:
        """``key``'s place at this table (1 is first; entrants who share a place have the same)."""
        place = 1
        for group in self.order:
            if key in group:
                return place
            place += len(group)
        raise KeyError(key)

    @property
    def winners(self) -> tuple[int, ...]:
        return self.order[0]


@dataclass
class Tally:
    """One entrant's record so far."""

    points: float = 0.0
    played: int = 0
    wins: int = 0
    byes: int = 0
    forfeits: int = 0
    tables: list[Played] = field(default_factory=list)


@dataclass(frozen=True)
class History:
    """Every pairing and result so far, checked. ``pending`` are the pairings still without a result."""

    entrants: dict[int, Entrant]
    rounds: dict[int, list[Pairing]]
    played: dict[tuple[int, int], Played]
    pending: tuple[Pairing, ...]

    @property
    def last_round(self) -> int:
        return max(self.rounds, default=0)

    def tally(self) -> dict[int, Tally]:
        tallies = {key: Tally() for key in self.entrants}
        for number in sorted(self.rounds):
            for pairing in self.rounds[number]:
                if pairing.bye:
                    tally = tallies[pairing.entrants[0]]
                    tally.byes += 1
                    tally.points += BYE_POINTS
                    continue
                table = self.played.get((pairing.round, pairing.table))
                if table is None:
                    continue
                for key in pairing.entrants:
                    tally = tallies[key]
                    tally.played += 1
                    tally.points += table.points[key]
                    tally.wins += key in table.winners and key not in table.forfeits
                    tally.forfeits += key in table.forfeits
                    tally.tables.append(table)
        return tallies

    def meetings(self) -> dict[tuple[int, int], int]:
        """How often each two entrants have sat at a table together (the pair in ascending order)."""
        met: dict[tuple[int, int], int] = defaultdict(int)
        for pairings in self.rounds.values():
            for pairing in pairings:
                seats = sorted(pairing.entrants)
                for i, a in enumerate(seats):
                    for b in seats[i + 1:]:
                        met[a, b] += 1
        return met


def table_order(pairing: Pairing, result: Result) -> Played:
    """The table's places as groups, forfeits last, and each entrant's share of the points."""
    places = dict(result.places)
    if sorted(places) != sorted(pairing.entrants) or len(result.places) != len(pairing.entrants):
        raise CompetitionError(f"The result of round {result.round}, table {result.table} does not place "
                               f"exactly the entrants at that table.")
    if any(place < 1 for place in places.values()):
        raise CompetitionError(f"The result of round {result.round}, table {result.table} has a place below 1.")
    forfeits = frozenset(result.forfeits)
    if not forfeits <= set(places):
        raise CompetitionError(f"The result of round {result.round}, table {result.table} names a forfeit by "
                               f"an entrant not at that table.")
    groups: list[tuple[int, ...]] = []
    by_place: dict[int, list[int]] = defaultdict(list)
    for key in pairing.entrants:
        if key not in forfeits:
            by_place[places[key]].append(key)
    groups = [tuple(by_place[place]) for place in sorted(by_place)]
    if forfeits:
        groups.append(tuple(key for key in pairing.entrants if key in forfeits))
    size = len(pairing.entrants)
    points: dict[int, float] = {}
    first = 1
    for group in groups:
        shared = sum(placement_points(place, size) for place in range(first, first + len(group))) / len(group)
        points.update(dict.fromkeys(group, shared))
        first += len(group)
    return Played(pairing, tuple(groups), points, forfeits)


def history(entrants: Sequence[Entrant], pairings: Sequence[Pairing], results: Sequence[Result]) -> History:
    """Check the pairings and results against each other and the entrants, and index them."""
    known: dict[int, Entrant] = {}
    for entrant in entrants:
        if entrant.key in known:
            raise CompetitionError(f"Entrant {entrant.key} is entered twice.")
        known[entrant.key] = entrant
    rounds: dict[int, list[Pairing]] = defaultdict(list)
    seated: dict[int, set[int]] = defaultdict(set)
    by_table: dict[tuple[int, int], Pairing] = {}
    for pairing in pairings:
        where = (pairing.round, pairing.table)
        if where in by_table:
            raise CompetitionError(f"Round {pairing.round} has two tables numbered {pairing.table}.")
        if pairing.bye != (len(pairing.entrants) == 1):
            raise CompetitionError(f"Round {pairing.round}, table {pairing.table}: a bye has exactly one "
                                   f"entrant, and a game at least two.")
        for key in pairing.entrants:
            if key not in known:
                raise CompetitionError(f"Round {pairing.round}, table {pairing.table} seats {key}, who is "
                                       f"not entered.")
            if key in seated[pairing.round]:
                raise CompetitionError(f"Entrant {key} is seated twice in round {pairing.round}.")
            seated[pairing.round].add(key)
        by_table[where] = pairing
        rounds[pairing.round].append(pairing)
    if sorted(rounds) != list(range(1, len(rounds) + 1)):
        raise CompetitionError("The rounds are not numbered from 1 without a gap.")
    played: dict[tuple[int, int], Played] = {}
    for result in results:
        where = (result.round, result.table)
        game = by_table.get(where)
        if game is None or game.bye:
            raise CompetitionError(f"There is a result for round {result.round}, table {result.table}, "
                                   f"which has no game.")
        if where in played:
            raise CompetitionError(f"Round {result.round}, table {result.table} has two results.")
        played[where] = table_order(game, result)
    pending = tuple(p for number in sorted(rounds) for p in sorted(rounds[number], key=lambda p: p.table)
                    if not p.bye and (p.round, p.table) not in played)
    for tables in rounds.values():
        tables.sort(key=lambda p: p.table)
    return History(known, dict(rounds), played, pending)


def require_complete(past: History) -> None:
    """Refuse to pair a new round while a table of an earlier one has no result."""
    if past.pending:
        first = past.pending[0]
        raise CompetitionError(f"Round {first.round} is not over: table {first.table} has no result yet.")


def table_sizes(count: int, table_size: int) -> tuple[list[int], int]:
    """How ``count`` entrants sit at tables of ``table_size``: the tables' sizes (largest first) and how many
    sit out with a bye. Every table is full, or one seat short (``smallest_table``), and byes are only for what
    no such split seats."""
    from .model import smallest_table

    least = smallest_table(table_size)
    tables = -(-count // table_size)
    while tables and tables * least > count:
        tables -= 1
    seated = min(count, tables * table_size)
    sizes = [seated // tables + (i < seated % tables) for i in range(tables)] if tables else []
    return sizes, count - seated


def snake(order: Sequence[int], sizes: Sequence[int]) -> list[list[int]]:
    """Deal ``order`` (best first) to tables of ``sizes`` back and forth, so each table has one of the best, one
    of the next best and so on (at 1v1: 1 v 16, 2 v 15, ... 8 v 9)."""
    tables: list[list[int]] = [[] for _ in sizes]
    forward = True
    queue = list(order)
    while queue:
        turn = range(len(sizes)) if forward else range(len(sizes) - 1, -1, -1)
        for index in turn:
            if queue and len(tables[index]) < sizes[index]:
                tables[index].append(queue.pop(0))
        forward = not forward
    return tables
