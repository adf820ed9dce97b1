"""Actions: one small frozen value per thing a player can do. ``seat`` is who does it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from .errors import RuleError


@dataclass(frozen=True)
class Action:
    kind: ClassVar[str] = ""
    seat: int

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key, value in data.items():
            if isinstance(value, tuple):
                data[key] = list(value)
        return {"type": self.kind, **data}


@dataclass(frozen=True)
class Claim(Action):
    """Claim an empty territory (deployment ``claim``)."""

    kind: ClassVar[str] = "claim"
    territory: str


@dataclass(frozen=True)
class Place(Action):
    """Place armies: in setup, from reinforcements, or (two players, setup) a neutral army on a neutral territory."""

    kind: ClassVar[str] = "place"
    territory: str
    count: int = 1


@dataclass(frozen=True)
class Trade(Action):
    """Trade three cards for armies; ``bonus_territory`` picks which held territory gets the +2."""

    kind: ClassVar[str] = "trade"
    cards: tuple[str, ...]
    bonus_territory: str | None = None


@dataclass(frozen=True)
class Attack(Action):
    """One battle: ``dice`` attacker dice (None = the most allowed)."""

    kind: ClassVar[str] = "attack"
    source: str
    target: str
    dice: int | None = None


@dataclass(frozen=True)
class Blitz(Action):
    """Attack with the most dice until the target falls or the source is down to ``stop_at`` armies."""

    kind: ClassVar[str] = "blitz"
    source: str
    target: str
    stop_at: int = 1


@dataclass(frozen=True)
class Occupy(Action):
    """Move armies into a just-conquered territory."""

    kind: ClassVar[str] = "occupy"
    count: int


@dataclass(frozen=True)
class EndAttack(Action):
    """Stop attacking and go on to fortify."""

    kind: ClassVar[str] = "end_attack"


@dataclass(frozen=True)
class Fortify(Action):
    """The free move of the turn; ends the turn (with fortify ``unlimited``: one of any number of moves)."""

    kind: ClassVar[str] = "fortify"
    source: str
    target: str
    count: int


@dataclass(frozen=True)
class EndTurn(Action):
    """End the turn without (more) attacks or a fortify move."""

    kind: ClassVar[str] = "end_turn"


@dataclass(frozen=True)
class ChooseCapital(Action):
    """Mode ``capitals``: choose one of your territories as your capital (once, before the first turn)."""

    kind: ClassVar[str] = "choose_capital"
    territory: str


@dataclass(frozen=True)
class Surrender(Action):
    """Resign: the player's territories become neutral."""

    kind: ClassVar[str] = "surrender"


@dataclass(frozen=True)
class Undo(Action):
    """Take back every reinforcement army placed this turn, before the turn's first battle or fortify move."""

    kind: ClassVar[str] = "undo"


@dataclass(frozen=True)
class RoundLimit(Action):
    """End the game now by the round-limit rule (the leader wins): no player's move, the table's, for a game no
    human plays any more (table/flow.py); ``seat`` is the seat on turn."""

    kind: ClassVar[str] = "round_limit"


@dataclass(frozen=True)
class VoteEnd(Action):
    """End the game now because its players voted so: by the standings (the leader wins, as at a round limit) or,
    with ``draw``, as a draw (every player still in shares first place). The table's action once a vote passed
    (table/flow.py), not one player's move; ``seat`` is the seat on turn."""

    kind: ClassVar[str] = "vote_end"
    draw: bool = False


@dataclass(frozen=True)
class ClaimSeat(Action):
    """A substitute takes the seat over and plays it under ``name`` from now on: the table's action once a player
    claimed the seat's offer (table/seats.py), not a move; ``seat`` is the seat claimed, at any moment of a game
    going on."""

    kind: ClassVar[str] = "claim_seat"
    name: str


@dataclass(frozen=True)
class StartTurn(Action):
    """Turn order ``freestyle``: start your turn of this round, which claims the board until it ends (any move
    of a turn starts it too)."""

    kind: ClassVar[str] = "start_turn"


@dataclass(frozen=True)
class ReleaseHold(Action):
    """Turn order ``freestyle``: the player who ended the last round may now take this round's first turn too.
    The table's action once the wait passed (table/flow.py); ``seat`` is the player held back."""

    kind: ClassVar[str] = "release_hold"


@dataclass(frozen=True)
class EndRound(Action):
    """Turn order ``freestyle``: the round's deadline passed with no turn running, and the players who have not
    played are out of this round (the table has played or skipped their turns as its ``on_timeout`` says): the
    next round opens. In a set-up round (``setup: round``) its deadline: the starting armies not yet placed go at
    random to their players' territories, and all are revealed. The table's action; ``seat`` is any player
    still in."""

    kind: ClassVar[str] = "end_round"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.kind: cls for cls in (Claim, Place, Trade, Attack, Blitz, Occupy, EndAttack, Fortify, EndTurn, ChooseCapital,
                               Surrender, Undo, RoundLimit, VoteEnd, ClaimSeat, StartTurn, ReleaseHold, EndRound)
}


def action_from_dict(data: dict[str, Any]) -> Action:
    """Rebuild an action from ``to_dict`` output (for storage and replays)."""
    kind = data.get("type")
    cls = ACTION_TYPES.get(str(kind))
    if cls is None:
        raise RuleError("Unknown action “{kind}”.", kind=str(kind))
    names = {f.name for f in fields(cls)}
    kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in names}
    try:
        return cls(**kwargs)  # type: ignore[arg-type]
    except TypeError as exc:
        raise RuleError("Incomplete action “{kind}”: {problem}.", kind=str(kind), problem=str(exc)) from exc
