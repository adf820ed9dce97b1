"""What a seat may do now: one answer, composed from the phase table and the game's legal-action queries.

``choices_for(game, seat)`` walks the actions the phase allows (``engine.phases.PHASES``) and, for each, asks the
``Game`` query that says where and how much (``claimable``, ``placeable``, ``ranked_sets``, ``attack_sources``,
``attack_targets``, ``allowed_dice``, ``fortify_targets``, ``move_in_range``, ``can_undo``, ``may_start``...).
The answer lists exactly the moves ``Game.apply`` accepts from that seat (tests/test_choices.py checks it both
ways over random games): the turn panel's menus, the live board and the AIs all read it, so none of them keeps a
chain of phase comparisons of its own.

The table's own actions (a round limit, a vote's end, a seat claimed, a freestyle round's hold released or its
deadline passed) are no seat's choice: they are in ``TABLE_ACTIONS`` and never listed.

Under fog the answer is the rules' (every neutral territory a two-player set-up may place on, in sight or not);
a menu that shows the ones in sight first asks ``in_sight_first``. An AI asks it of its ``seat_view``, whose own
``claimable`` and ``placeable`` say what the seat may know.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

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
from .fog import visible_to
from .game import Game
from .phases import PHASES
from .state import OVER, REINFORCE, SETUP, WAITING, GameState

# The table's actions (table/flow.py, table/seats.py): allowed by the phases, but never a seat's choice.
TABLE_ACTIONS: frozenset[type[Action]] = frozenset({RoundLimit, VoteEnd, ClaimSeat, ReleaseHold, EndRound})


@dataclass(frozen=True)
class Placing:
    """Armies to place: on any of ``territories``, from 1 to ``most`` at a time."""

    territories: tuple[str, ...]
    most: int


@dataclass(frozen=True)
class SetChoice:
    """A set of cards that may be traded, and the territories on its cards the seat holds (any one of them, or
    none, may be named for the +2)."""

    cards: tuple[str, ...]
    bonus: tuple[str, ...]


@dataclass(frozen=True)
class AttackFrom:
    """The attacks from one territory: its targets, the dice it may roll (any of them, or None for the most), and
    the highest army count a blitz from it may stop at (from 1)."""

    targets: tuple[str, ...]
    dice: tuple[int, ...]
    stop_most: int


@dataclass(frozen=True)
class MoveIn:
    """A conquest to follow: from ``least`` to ``most`` armies move from ``source`` into ``target``."""

    source: str
    target: str
    least: int
    most: int


@dataclass(frozen=True)
class FortifyFrom:
    """The fortify moves from one territory: where to, and from 1 to ``most`` armies."""

    targets: tuple[str, ...]
    most: int


def _frozen() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Choices:
    """Everything ``seat`` may do now (``phase``: the game's). Empty fields: nothing of that kind.

    ``attack`` and ``fortify`` map each source, in the order the game lists them, to what it may do."""

    seat: int
    phase: str
    start: bool = False                        # a freestyle turn may be started now (StartTurn)
    claim: tuple[str, ...] = ()
    capital: tuple[str, ...] = ()
    place: Placing | None = None               # on the seat's own territories
    neutral: Placing | None = None             # two-player set-up: the neutral armies of this set-up turn
    trade: tuple[SetChoice, ...] = ()          # the best first (``Game.ranked_sets``)
    must_trade: bool = False                   # nothing may be placed before a set is traded
    attack: Mapping[str, AttackFrom] = field(default_factory=_frozen)
    end_attack: bool = False
    occupy: MoveIn | None = None
    fortify: Mapping[str, FortifyFrom] = field(default_factory=_frozen)
    end_turn: bool = False
    undo: bool = False
    surrender: bool = False

    def __bool__(self) -> bool:
        """Whether the seat has any move at all now (surrender aside)."""
        return any((self.start, self.claim, self.capital, self.place, self.neutral, self.trade, self.attack,
                    self.end_attack, self.occupy, self.fortify, self.end_turn, self.undo))

    @property
    def placing(self) -> tuple[str, ...]:
        """Every territory the seat may place on now, its own first."""
        return (self.place.territories if self.place else ()) + (self.neutral.territories if self.neutral else ())

    def placing_most(self, territory: str) -> int:
        """The most armies the seat may place on ``territory`` now (0: none)."""
        for placing in (self.place, self.neutral):
            if placing is not None and territory in placing.territories:
                return placing.most
        return 0

    def attack_pairs(self) -> list[tuple[str, str]]:
        """Every attack, as (source, target), sources in the game's order, each one's targets sorted."""
        return [(source, target) for source, options in self.attack.items() for target in options.targets]

    def fortify_pairs(self) -> list[tuple[str, str]]:
        """Every fortify move, as (source, target), in the same order."""
        return [(source, target) for source, options in self.fortify.items() for target in options.targets]

    def offers(self, action: Action) -> bool:
        """Whether ``action`` is one of these choices (by this seat, with arguments in range)."""
        if type(action) in TABLE_ACTIONS or action.seat != self.seat or isinstance(action.seat, bool):
            return False
        offered = _OFFERS.get(type(action))
        return offered is not None and offered(self, action)


def _count(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _offers_place(c: Choices, a: Place) -> bool:
    return isinstance(a.territory, str) and _count(a.count, 1, c.placing_most(a.territory))


def _offers_trade(c: Choices, a: Trade) -> bool:
    if not isinstance(a.cards, tuple) or not all(isinstance(card, str) for card in a.cards):
        return False
    for option in c.trade:
        if sorted(option.cards) == sorted(a.cards):
            return a.bonus_territory is None or a.bonus_territory in option.bonus
    return False


def _offers_attack(c: Choices, a: Attack) -> bool:
    options = c.attack.get(a.source) if isinstance(a.source, str) else None
    return options is not None and a.target in options.targets \
        and (a.dice is None or (_count(a.dice, 1, 3) and a.dice in options.dice))


def _offers_blitz(c: Choices, a: Blitz) -> bool:
    options = c.attack.get(a.source) if isinstance(a.source, str) else None
    return options is not None and a.target in options.targets and _count(a.stop_at, 1, options.stop_most)


def _offers_fortify(c: Choices, a: Fortify) -> bool:
    options = c.fortify.get(a.source) if isinstance(a.source, str) else None
    return options is not None and a.target in options.targets and _count(a.count, 1, options.most)


def _offers_occupy(c: Choices, a: Occupy) -> bool:
    return c.occupy is not None and _count(a.count, c.occupy.least, c.occupy.most)


_OFFERS: dict[type[Action], Callable[[Choices, Any], bool]] = {
    StartTurn: lambda c, a: c.start,
    Claim: lambda c, a: a.territory in c.claim,
    ChooseCapital: lambda c, a: a.territory in c.capital,
    Place: _offers_place,
    Trade: _offers_trade,
    Attack: _offers_attack,
    Blitz: _offers_blitz,
    Occupy: _offers_occupy,
    EndAttack: lambda c, a: c.end_attack,
    Fortify: _offers_fortify,
    EndTurn: lambda c, a: c.end_turn,
    Undo: lambda c, a: c.undo,
    Surrender: lambda c, a: c.surrender,
}


# -- composing the answer, one action of the phase at a time ------------------------------------------------------
Fields = dict[str, Any]


def _claim(game: Game, seat: int, out: Fields) -> None:
    out["claim"] = tuple(game.claimable())


def _capital(game: Game, seat: int, out: Fields) -> None:
    out["capital"] = tuple(game.capital_choices(seat))


def _place(game: Game, seat: int, out: Fields) -> None:
    s = game.state
    if s.phase == SETUP:
        # A set-up turn (or a set-up round: the seat's own armies); in a two-player set-up the neutral armies too.
        territories = game.placeable(seat)
        mine = tuple(t for t in territories if s.owners.get(t) == seat)
        # Under fog an AI's view may not show a neutral territory as neutral: any placeable one not its own is.
        others = tuple(t for t in territories if s.owners.get(t) != seat)
        left = game.setup_left(seat)
        if mine and left:
            out["place"] = Placing(mine, left)
        if others and s.sealed is None and s.neutral_left:
            out["neutral"] = Placing(others, s.neutral_left)
        return
    out["must_trade"] = game.must_trade(seat)
    if not out["must_trade"] and s.reinforcements > 0:
        out["place"] = Placing(tuple(game.placeable(seat)), s.reinforcements)


def _trade(game: Game, seat: int, out: Fields) -> None:
    s, board = game.state, game.board
    out["trade"] = tuple(SetChoice(cards, tuple(c for c in cards if not board.is_wild(c) and s.owners.get(c) == seat))
                         for cards in game.ranked_sets(seat))


def _attack(game: Game, seat: int, out: Fields) -> None:
    armies = game.state.armies
    out["attack"] = MappingProxyType({
        source: AttackFrom(tuple(game.attack_targets(seat, source)), tuple(game.allowed_dice(source)),
                           armies[source] - 1)
        for source in game.attack_sources(seat)})


def _end_attack(game: Game, seat: int, out: Fields) -> None:
    out["end_attack"] = True


def _occupy(game: Game, seat: int, out: Fields) -> None:
    pending = game.state.pending
    if pending is not None:
        out["occupy"] = MoveIn(pending["from"], pending["to"], pending["min"], pending["max"])


def _fortify(game: Game, seat: int, out: Fields) -> None:
    armies = game.state.armies
    moves = {source: FortifyFrom(tuple(game.fortify_targets(seat, source)), armies[source] - 1)
             for source in game.fortify_sources(seat)}
    out["fortify"] = MappingProxyType({source: move for source, move in moves.items() if move.targets})


def _end_turn(game: Game, seat: int, out: Fields) -> None:
    out["end_turn"] = True


def _undo(game: Game, seat: int, out: Fields) -> None:
    out["undo"] = game.can_undo(seat)


# What each action of a phase adds to the answer, for the player to move (Surrender and StartTurn: any seat).
_COMPOSE: dict[type[Action], Callable[[Game, int, Fields], None]] = {
    Claim: _claim, ChooseCapital: _capital, Place: _place, Trade: _trade, Attack: _attack, EndAttack: _end_attack,
    Occupy: _occupy, Fortify: _fortify, EndTurn: _end_turn, Undo: _undo,
}


def choices_for(game: Game, seat: int) -> Choices:
    """Everything ``seat`` may do now in ``game`` (nothing for a seat not in it, or once the game is over).

    In a freestyle round while no turn runs, a seat that may start a turn may also make any first move of it
    (which starts it): the answer then holds the moves of the turn as it would start, with ``start``."""
    s = game.state
    none = Choices(seat, s.phase)
    if s.phase == OVER or isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(s.players):
        return none
    allowed = PHASES[s.phase].actions
    surrender = Surrender in allowed and seat in s.active_seats()
    if s.phase == WAITING:
        if not game.may_start(seat):
            return replace(none, surrender=surrender)
        turn = copy.copy(game)   # the same board (and, for a seat's view, the same knowledge), a state of its own
        turn.state = s.copy()
        turn.apply(StartTurn(seat))
        return replace(choices_for(turn, seat), phase=s.phase, start=True, surrender=surrender)
    out: Fields = {"surrender": surrender}
    # The player to move; in a set-up round, everyone with starting armies left.
    moving = seat in s.sealed if s.sealed is not None and s.phase == SETUP else seat == s.current
    if moving:
        for action in allowed:
            compose = _COMPOSE.get(action)
            if compose is not None:
                compose(game, seat, out)
    return Choices(seat, s.phase, **out)


def armies_to_place(state: GameState, seat: int | None = None) -> int:
    """The armies the player to move still has to place (none outside placing); in a set-up round, ``seat``'s.
    A state query (a board's projection has no ``Game``): the figure a panel or a board shows."""
    if state.sealed is not None:
        return state.setup_remaining.get(seat, 0) if seat in state.sealed else 0
    return state.reinforcements if state.phase == REINFORCE else state.batch_left if state.phase == SETUP else 0


def in_sight_first(state: GameState, seat: int, territories: tuple[str, ...]) -> list[str]:
    """Of ``territories``, those ``seat`` sees under fog (all of them without fog, or if it sees none): where a
    menu offers the neutral armies of a two-player set-up."""
    seen = visible_to(state, seat)
    return [t for t in territories if seen is None or t in seen] or list(territories)


__all__ = ["TABLE_ACTIONS", "AttackFrom", "Choices", "FortifyFrom", "MoveIn", "Placing", "SetChoice",
           "armies_to_place", "choices_for", "in_sight_first"]
