"""The values a tournament is made of: its spec, its entrants, the pairings of each round, their results and the
standings, and the points a place at a table is worth.

Everything here is a frozen value; the functions that pair and rank (``competition.next_round``,
``competition.standings``) read them and return new ones. Nothing in this package knows Discord, the database or
the clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FORMATS = ("swiss", "round_robin", "single_elimination", "double_elimination")
MAX_ENTRANTS = 512          # beyond this a Swiss pairing or a round-robin schedule is no longer instant
MAX_ROUNDS = 64             # a Swiss's rounds, at most
MAX_SEATS = 6               # a game of Risk seats two to six players


class CompetitionError(ValueError):
    """A tournament that cannot be set up or paired as asked; str(exc) is an English sentence for players, made
    from ``template`` and ``params`` (which a translation reads: the store's refusals carry them on)."""

    def __init__(self, template: str, **params: object) -> None:
        self.template, self.params = template, params
        super().__init__(template.format(**params) if params else template)


def smallest_table(table_size: int) -> int:
    """The fewest entrants a table of a tournament with ``table_size`` seats may have when the count does not
    divide: a 1v1 table is always two; a free-for-all table may have one seat fewer, and never fewer than three
    (a free-for-all of two is another game)."""
    return 2 if table_size == 2 else max(3, table_size - 1)


@dataclass(frozen=True)
class Spec:
    """How a tournament is played.

    ``format`` is one of ``FORMATS``; ``table_size`` the entrants at a table (2: 1v1, or team against team; 3 to
    6: free-for-all); ``rounds`` a Swiss's rounds (0: ``default_rounds``); ``team_size`` 1 when each entrant is a
    player, 2 or 3 when each is a fixed team (then a table has 2 or 3 teams, and at most six players in all).
    """

    format: str                 # one of FORMATS
    table_size: int = 2         # entrants per table: 2 (1v1, or team against team) up to 6 (free-for-all)
    rounds: int = 0             # swiss: rounds to play (0: a documented default from the entrant count)
    team_size: int = 1          # 1: each entrant is a player; 2 or 3: each entrant is a fixed team

    def check(self, entrant_count: int) -> None:
        """Raise ``CompetitionError`` if this tournament cannot be played by ``entrant_count`` entrants (too few,
        too many, bad sizes)."""
        if self.format not in FORMATS:
            raise CompetitionError("There is no tournament format called {name}; the formats are {formats}.",
                                   name=repr(self.format), formats=", ".join(FORMATS))
        if self.team_size not in (1, 2, 3):
            raise CompetitionError("A team has 2 or 3 players (or 1, when each entrant plays alone).")
        if self.team_size == 1 and not 2 <= self.table_size <= MAX_SEATS:
            raise CompetitionError("A table seats 2 to {most} players.", most=MAX_SEATS)
        if self.team_size > 1 and (self.table_size not in (2, 3)
                                   or self.table_size * self.team_size > MAX_SEATS):
            raise CompetitionError("Teams play 2 or 3 to a table, with at most {most} players in all.",
                                   most=MAX_SEATS)
        if self.rounds < 0 or self.rounds > MAX_ROUNDS:
            raise CompetitionError("A Swiss plays 1 to {most} rounds.", most=MAX_ROUNDS)
        if self.rounds and self.format != "swiss":
            raise CompetitionError("Only a Swiss tournament takes a number of rounds; the others play until "
                                   "they are decided.")
        least = smallest_table(self.table_size)
        if entrant_count < least:
            raise CompetitionError("This tournament needs at least {least} entrants; it has {count}.", least=least,
                                   count=entrant_count)
        if entrant_count > MAX_ENTRANTS:
            raise CompetitionError("A tournament takes at most {most} entrants; it has {count}.",
                                   most=MAX_ENTRANTS, count=entrant_count)


@dataclass(frozen=True)
class Entrant:
    """One who plays: a player (their user id), or a fixed team (its number)."""

    key: int                    # a user id, or a team's number (team_size > 1)
    rating: float = 1000.0      # for seeding and Swiss pairing (the shown score)
    name: str = ""


@dataclass(frozen=True)
class Pairing:
    """One table of a round: who sits at it, in seat order; or a bye (one entrant, no game)."""

    round: int                  # from 1
    table: int                  # from 1 within its round
    entrants: tuple[int, ...]   # entrant keys in seat order
    bye: bool = False           # a bye: one entrant, no game; scored as documented
    bracket: str = ""           # double elimination: "winners", "losers" or "final"; "" otherwise


@dataclass(frozen=True)
class Result:
    """How a table ended: each entrant's place (1 is first; equal places for a draw or a shared place)."""

    round: int
    table: int
    places: tuple[tuple[int, int], ...]     # (entrant key, place): 1 is first; equal places for a draw/tie
    forfeits: frozenset[int] = field(default_factory=frozenset)  # forfeited the table (no-show): placed last


@dataclass(frozen=True)
class Standing:
    """One entrant's line in the standings."""

    key: int
    rank: int                   # 1 is first; equal ranks only where every tie-break is equal
    points: float
    tiebreaks: tuple[float, ...]    # in the order they apply (documented)
    played: int
    wins: int
    byes: int = 0
    forfeits: int = 0
    eliminated_in: int | None = None    # elimination formats: the round the entrant went out in


BYE_POINTS = 1.0            # a bye is worth a win


def placement_points(place: int, table_size: int) -> float:
    """The points a place at a table of ``table_size`` entrants is worth: 1 for first, 0 for last, evenly
    between (a 1v1: 1 and 0; four at a table: 1, ⅔, ⅓, 0). Entrants who share a place share the points of the
    places they cover (two tied for first at a 1v1 get ½ each); ``competition.scoring`` does the sharing."""
    if table_size < 2 or not 1 <= place <= table_size:
        raise CompetitionError("There is no place {place} at a table of {size}.", place=place, size=table_size)
    return (table_size - place) / (table_size - 1)
