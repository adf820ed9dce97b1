"""Tournaments, pure: how a tournament is paired round by round, and how its entrants rank.

The formats (``FORMATS``): Swiss (``competition.swiss``), round-robin (``competition.round_robin``), single and
double elimination (``competition.elimination``), for 1v1 tables, free-for-all tables of 3 to 6, and fixed
teams (an entrant is a team). Points per place: ``placement_points``; the standings' tie-breaks:
``competition.ranking``. docs/tournaments.md tells it all in one place.

Nothing here knows Discord, the database, the clock or a random source: the same pairings and results always
give the same next round.
"""

from .model import (
    BYE_POINTS,
    FORMATS,
    MAX_ENTRANTS,
    CompetitionError,
    Entrant,
    Pairing,
    Result,
    Spec,
    Standing,
    placement_points,
)
from .rounds import next_round, standings

__all__ = ["BYE_POINTS", "FORMATS", "MAX_ENTRANTS", "CompetitionError", "Entrant", "Pairing", "Result", "Spec",
           "Standing", "next_round", "placement_points", "standings"]
