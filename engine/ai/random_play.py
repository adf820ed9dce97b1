"""The random AI: any legal action, chosen at random, for driving the rules through their corners.

Each decision picks uniformly among the kinds of action the rules allow now (trade or place, attack or blitz,
stop attacking, fortify, end the turn, now and then surrender) and then among their arguments, favouring the
edge values: one die and the most dice, the least and the most armies to move in, a fortify move of all armies
but one, any valid set with any +2 territory. It never undoes (undo and place again could go on for ever), and
it stops attacking now and then, so every game ends.

It decides on what its seat may know (``knowledge.seat_view``). Its randomness comes from the game's public
state (the seed commitment and the event and dice counters; under fog not the dice counter) and
the ``seed`` it is given: the same game and the same seed give the same choices, and a replay plays the same
game. It never uses the global random generator.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from ..actions import (
    Action,
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    Place,
    Surrender,
    Trade,
)
from ..choices import Choices, choices_for
from ..game import Game
from ..state import CAPITAL, CLAIM, REINFORCE, SETUP
from .knowledge import Memory, seat_view

T = TypeVar("T")

# The chance, at each decision while attacking, of stopping (ending the attacks, ending the turn or fortifying).
STOP_CHANCE = 0.15
# The chance, at each decision of a turn, of surrendering; from round PATIENCE on it grows by as much again each
# round. Random play is no way to win a game of Risk: without this, games could go on for thousands of turns.
SURRENDER_CHANCE = 0.0005
PATIENCE = 40


class RandomAI:
    """Random legal play. ``seed`` varies the choices between runs, ``salt`` between seats; ``surrender`` is the
    chance of surrendering at each decision of a turn (growing each round from round ``patience`` on), ``stop``
    the chance of ending the attacks at each decision while attacking."""

    level = "random"

    def __init__(self, salt: str = "", seed: str = "", surrender: float = SURRENDER_CHANCE,
                 stop: float = STOP_CHANCE, patience: int = PATIENCE) -> None:
        if not 0.0 < stop <= 1.0:
            raise ValueError("the chance of stopping the attacks must be above 0 (else a turn may never end)")
        self.salt = salt
        self.seed = seed
        self.surrender = surrender
        self.stop = stop
        self.patience = patience

    def rng(self, game: Game) -> random.Random:
        """A generator for the decision in this position: the same position and seed give the same one."""
        s = game.state
        dice = "" if s.settings.fog == "on" else s.dice_index  # under fog it tells how much fighting went on
        return random.Random(f"random-ai:{self.seed}:{self.salt}:{s.seed_commitment}:{s.event_count}:"
                             f"{dice}:{s.draw_index}")

    def choose(self, game: Game, seat: int, memory: Memory | None = None) -> Action:
        """The next action of ``seat``, from what it may know (``memory``: what it saw under fog)."""
        return self._decide(seat_view(game, seat, memory), seat)

    def _decide(self, game: Game, seat: int) -> Action:
        s = game.state
        rng = self.rng(game)
        c = choices_for(game, seat)
        if c.phase == CLAIM:
            return Claim(seat, pick(rng, c.claim))
        if c.phase == SETUP:
            territory = pick(rng, c.placing)
            return Place(seat, territory, amount(rng, 1, c.placing_most(territory)))
        if c.phase == CAPITAL:
            return ChooseCapital(seat, pick(rng, c.capital))
        if c.surrender and rng.random() < self.surrender_chance(game):
            return Surrender(seat)
        if c.phase == REINFORCE:
            # Any set, in the order of the hand.
            hand = s.hands.get(seat, [])
            sets = sorted(c.trade, key=lambda option: [hand.index(card) for card in option.cards])
            if sets and (c.must_trade or rng.random() < 0.5 or c.place is None):
                option = pick(rng, sets)
                return Trade(seat, option.cards, pick(rng, [None, *option.bonus]))
            assert c.place is not None
            return Place(seat, pick(rng, c.place.territories), amount(rng, 1, c.place.most))
        if c.occupy is not None:
            return Occupy(seat, amount(rng, c.occupy.least, c.occupy.most))
        if c.end_attack:
            sources = list(c.attack)
            if not sources or rng.random() < self.stop:
                moves = [EndAttack(seat), EndTurn(seat)]
                if c.fortify:
                    moves.append(self._fortify(c, rng))
                return pick(rng, moves)
            source = pick(rng, sources)
            options = c.attack[source]
            target = pick(rng, options.targets)
            if rng.random() < 0.5:
                return Blitz(seat, source, target, amount(rng, 1, options.stop_most))
            allowed = options.dice
            return Attack(seat, source, target, pick(rng, [1, allowed[-1], pick(rng, allowed), None]))
        if c.end_turn:
            if c.fortify and rng.random() < 0.5:
                return self._fortify(c, rng)
            return EndTurn(seat)
        raise RuntimeError(f"no move for phase {s.phase}")

    def surrender_chance(self, game: Game) -> float:
        """The chance of surrendering at a decision now: ``surrender``, growing each round from ``patience`` on."""
        return self.surrender * (1 + max(0, game.state.round - self.patience))

    @staticmethod
    def _fortify(c: Choices, rng: random.Random) -> Fortify:
        """Any fortify move offered: from any source, to any territory it may reach, 1 to all but one."""
        source = pick(rng, list(c.fortify))
        options = c.fortify[source]
        return Fortify(c.seat, source, pick(rng, options.targets), amount(rng, 1, options.most))


def pick(rng: random.Random, options: Sequence[T]) -> T:
    """One of ``options``, uniformly."""
    if not options:
        raise RuntimeError("no legal choice")
    return options[rng.randrange(len(options))]


def amount(rng: random.Random, low: int, high: int) -> int:
    """A number from ``low`` to ``high``: each edge a third of the time, else any of them."""
    if high <= low:
        return low
    roll = rng.random()
    if roll < 1 / 3:
        return low
    if roll < 2 / 3:
        return high
    return rng.randint(low, high)


__all__ = ["RandomAI", "amount", "pick"]
