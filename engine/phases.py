"""The phases of a game as data: what may be done in each, how a message names it, and what follows it.

One table, as boardgame.io keeps its ``phases``: the rules refuse an action its phase does not allow
(``Game._check_turn``, naming the phases with ``Phase.doing``), the reducers (``engine/state.py``) end a phase
into its ``next`` one where that is fixed, ``engine/choices.py`` composes what a seat may do now from the actions
the phase allows, and the turn panel (``cogs/play/panel.py``) offers their buttons.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import (
    Action,
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    ClaimSeat,
    EndAttack,
    EndRound,
    EndTurn,
    Fortify,
    Occupy,
    Place,
    ReleaseHold,
    RoundLimit,
    StartTurn,
    Surrender,
    Trade,
    Undo,
    VoteEnd,
)

# Phases, in the order a game goes through them.
CLAIM = "claim"          # deployment "claim": claim one empty territory per turn
SETUP = "setup"          # place the remaining starting armies
CAPITAL = "capital"      # mode "capitals": each player chooses a capital, in turn order
REINFORCE = "reinforce"  # trade cards and place reinforcements
ATTACK = "attack"
OCCUPY = "occupy"        # a territory was conquered: decide how many armies move in
FORTIFY = "fortify"
WAITING = "waiting"      # turn order "freestyle": a round is open and no turn runs; who has not played may start
OVER = "over"


@dataclass(frozen=True)
class Phase:
    """One phase of a game."""

    name: str
    doing: str                          # how a message names it: "now you are {doing}"
    actions: tuple[type[Action], ...]   # what may be done in it: Surrender by anyone still playing, the rest
    #                                     by the player to move
    next: str | None = None             # the phase it ends into, where that does not depend on the game

    def allows(self, action: type[Action]) -> bool:
        return action in self.actions


PHASES: dict[str, Phase] = {phase.name: phase for phase in (
    # ClaimSeat: the table hands a seat to a substitute (table/seats.py), in any phase of a game going on.
    # After the claims, the starting armies left (if any); after setup, capitals or the first turn by mode.
    Phase(CLAIM, "claiming territories", (Claim, ClaimSeat)),
    Phase(SETUP, "placing starting armies", (Place, ClaimSeat)),
    Phase(CAPITAL, "choosing capitals", (ChooseCapital, ClaimSeat), next=REINFORCE),
    # RoundLimit: the table ends a game no human plays any more (table/flow.py), in any phase of play; VoteEnd:
    # the table ends a game its players voted to end, in any phase of play too.
    Phase(REINFORCE, "placing reinforcements", (Place, Trade, Undo, Surrender, RoundLimit, VoteEnd, ClaimSeat),
          next=ATTACK),
    Phase(ATTACK, "attacking", (Attack, Blitz, EndAttack, Fortify, EndTurn, Undo, Surrender, RoundLimit, VoteEnd,
                                ClaimSeat), next=FORTIFY),
    # A conquest goes back to attacking (by way of a forced trade when it took a hand of six cards or more).
    Phase(OCCUPY, "moving into a conquered territory", (Occupy, Surrender, RoundLimit, VoteEnd, ClaimSeat),
          next=ATTACK),
    # After fortifying: the next player's turn.
    Phase(FORTIFY, "fortifying", (Fortify, EndTurn, Surrender, RoundLimit, VoteEnd, ClaimSeat), next=REINFORCE),
    # Freestyle rounds: between turns. StartTurn (or any move of a turn, which starts it first) by a player who
    # has not played this round; ReleaseHold and EndRound: the table's, when the round's wait or deadline passes.
    Phase(WAITING, "waiting for a player to start a turn",
          (StartTurn, ReleaseHold, EndRound, Surrender, RoundLimit, VoteEnd, ClaimSeat)),
    Phase(OVER, "over", ()),
)}


def allowed_in(action: type[Action]) -> tuple[str, ...]:
    """The phases that allow ``action``, in the order a game goes through them."""
    return tuple(name for name, phase in PHASES.items() if phase.allows(action))


def next_phase(phase: str) -> str:
    """The phase ``phase`` ends into (only for a phase whose next one is fixed)."""
    following = PHASES[phase].next
    if following is None:
        raise ValueError(f"what follows the {phase} phase depends on the game")
    return following


__all__ = ["ATTACK", "CAPITAL", "CLAIM", "FORTIFY", "OCCUPY", "OVER", "PHASES", "REINFORCE", "SETUP", "WAITING",
           "Phase", "allowed_in", "next_phase"]
