"""Single and double elimination."""

from __future__ import annotations

from .model import CompetitionError, Pairing, Spec, Standing
from .scoring import History


def next_elimination(spec: Spec, past: History) -> list[Pairing] | None:
    raise CompetitionError("Elimination tournaments are not open yet.")


def elimination_standings(spec: Spec, past: History) -> list[Standing]:
    raise CompetitionError("Elimination tournaments are not open yet.")
