"""The two entrances: ``next_round`` pairs the next round of any format, ``standings`` ranks the entrants."""

from __future__ import annotations

from collections.abc import Sequence

from .elimination import elimination_standings, next_elimination
from .model import CompetitionError, Entrant, Pairing, Result, Spec, Standing
from .ranking import points_standings
from .round_robin import next_round_robin
from .scoring import history
from .swiss import next_swiss


def next_round(spec: Spec, entrants: Sequence[Entrant], pairings: Sequence[Pairing],
               results: Sequence[Result]) -> list[Pairing] | None:
    """The next round's pairings from every earlier round's pairings and results; None when the tournament is
    over. Deterministic: the same input gives the same output. Raises CompetitionError if a round is
    incomplete (a pairing without its result; a bye needs no result)."""
    spec.check(len(entrants))
    past = history(entrants, pairings, results)
    if spec.format == "swiss":
        return next_swiss(spec, past)
    if spec.format == "round_robin":
        return next_round_robin(spec, past)
    return next_elimination(spec, past)


def standings(spec: Spec, entrants: Sequence[Entrant], pairings: Sequence[Pairing],
              results: Sequence[Result]) -> list[Standing]:
    """Every entrant ranked, first first (see ``competition.ranking`` and ``competition.elimination`` for the
    tie-breaks). Tables still without a result count for nothing yet."""
    spec.check(len(entrants))
    past = history(entrants, pairings, results)
    if spec.format in ("swiss", "round_robin"):
        return points_standings(past)
    if spec.format in ("single_elimination", "double_elimination"):
        return elimination_standings(spec, past)
    raise CompetitionError(f"There is no tournament format called {spec.format!r}.")
