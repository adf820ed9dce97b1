"""The hard AI's weights: what each thing it weighs is worth, in armies.

The values it plays with are tuned (``bench/tune_hard.py`` plays candidate weights against each other and keeps
the winners) and kept in ``hard_weights.json`` beside this module; a field the file does not name keeps its
default here. ``Weights.tuned()`` reads them once."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path
from typing import Any

TUNED = Path(__file__).with_name("hard_weights.json")


@dataclass(frozen=True)
class Weights:
    loss: float = 1.0           # each army of ours a battle is expected to cost
    damage: float = 0.1         # each enemy army it is expected to destroy (others gain from it too)
    exposed: float = 0.12       # each enemy army that can reach a newly taken territory, times the share that fights
    weakened: float = 0.8       # times what a source guards, if the blitz leaves it short of the threat it faces
    duel: float = 0.9           # each enemy army destroyed when one enemy is left (the attrition that ends it)
    sweep: float = 0.42         # the share of all income or armies from which it takes everything it can
    sweep_duel: float = 0.3     # the same against a single enemy
    mission: float = 2.0        # times a mission continent's bonus for completing it (a share for each step)
    fortify_plan: float = 0.3   # how much next turn's plan from a border counts in where the free move goes
    risk: float = 0.5           # times what the enemy's next turn is expected to take of what a battle leaves
    neutral: float = 0.0        # less for a neutral territory (it weakens no enemy)
    stall: float = 25.0         # turns per player after which a game is taken to have stalled (attrition pays)
    capital: float = 12.0       # what its own capital is worth to hold, when the enemy's next turn may take it
    captured: float = 12.0      # the same for another's capital it holds
    margin: float = 0.6         # what a conquest after the turn's first must be worth beyond its cost
    chain: float = 0.85         # how much of the onward conquests a stack can go on to make counts now
    leader: float = 0.6         # more for a territory or continent of a runaway leader, times its share beyond fair
    guard: float = 0.8          # the share of the threat a held continent's border is kept against
    wall_own: float = 0.25      # two players' set-up: each army of its own next to where a neutral army would go

    # Against a single enemy (two players, or the last two): the same things weighed apart, as the duel is
    # another game than the table of many.
    loss_duel: float = 1.0
    exposed_duel: float = 0.12
    margin_duel: float = 0.6
    guard_duel: float = 0.8
    chain_duel: float = 0.85
    risk_duel: float = 0.5
    neutral_duel: float = 0.0

    # In a team game: what the enemies' next turn may take is weighed apart (the table's ``risk`` made the
    # team player passive while the other team pressed on).
    risk_team: float = 0.0

    def teamed(self) -> Weights:
        """The weights to play beside teammates with."""
        return _teamed(self)

    def duelled(self) -> Weights:
        """The weights to play a single enemy with: each ``_duel`` field in place of its own."""
        return _duelled(self)

    def with_values(self, values: dict[str, float]) -> Weights:
        """These weights with some fields replaced (unknown names are an error)."""
        names = {f.name for f in fields(self)}
        unknown = set(values) - names
        if unknown:
            raise ValueError(f"unknown weights: {', '.join(sorted(unknown))}")
        return replace(self, **{k: float(v) for k, v in values.items()})

    def as_dict(self) -> dict[str, float]:
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}

    @staticmethod
    def tuned() -> Weights:
        return _tuned()


@cache
def _teamed(w: Weights) -> Weights:
    return replace(w, risk=w.risk_team)


@cache
def _duelled(w: Weights) -> Weights:
    return replace(w, **{f.name[:-5]: getattr(w, f.name) for f in fields(w) if f.name.endswith("_duel")
                         and f.name != "sweep_duel"})


@cache
def _tuned() -> Weights:
    if not TUNED.exists():
        return Weights()
    data: dict[str, Any] = json.loads(TUNED.read_text())
    return Weights().with_values(data.get("weights", {}))


__all__ = ["TUNED", "Weights"]
