"""What the hard AI knows of a position and what things are worth to it, in armies.

``Position`` works out once per decision, from the seat's view only, the facts the hard AI's choices rest on:
its territories and continents, the continent it makes its base (one, chosen for its bonus, how few ways lead
into it and how little stands in the way), every player's income next turn (territories, continents, and a set
of cards once they hold three), the threat each territory faces from a neighbour's stack and income, and
whether the game has come to the sweep (its income or armies dominate the table). ``conquest_value`` prices a
conquest: a territory, a continent completed or broken, the turn's card, a player eliminated for their cards,
the game's goal."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..game import Game
from ..state import NEUTRAL

# What things are worth, in armies.
TERRITORY = 0.5             # a territory: income (a third of an army a turn) and one fewer for its owner
IN_BASE = 0.9               # more for one in the continent it plays for
COMPLETE = 2.5              # times a continent's bonus, for completing it
BREAK = 1.6                 # times an enemy continent's bonus, for breaking it
PROGRESS = 0.9              # times the bonus of the continent it is after, spread over its territories
ELIMINATE = 6.0             # a player out of the game (and each card taken is worth ``card_worth``)
HUNT = 0.8                  # share of an elimination's worth each territory of a player it can finish carries
CAPITAL_TAKEN = 14.0        # an enemy capital
WIN = 1000.0
SWEEP_TERRITORY = 1.6       # a territory once its income dominates: every conquest brings the end nearer
THREAT_INCOME = 0.5         # the share of a neighbour's income expected on the stack facing us
SWEEP_SHARE = 0.42          # the share of all income (or of all armies) from which it sweeps


@dataclass
class Position:
    """One seat's facts about the board at one decision, worked out once."""

    game: Game
    seat: int
    mine: list[str] = field(default_factory=list)
    held: set[str] = field(default_factory=set)         # continents the seat holds whole
    goals: set[str] = field(default_factory=set)        # continents it plays to complete
    base: str | None = None                             # the open continent it plays for first
    prey: int | None = None                             # the player a destroy mission names
    capitals: set[str] = field(default_factory=set)     # enemy capitals
    counts: dict[int, int] = field(default_factory=dict)  # territories per owner
    armies: dict[int, int] = field(default_factory=dict)  # armies per owner
    income: dict[int, float] = field(default_factory=dict)  # expected reinforcements per owner next turn
    huntable: set[int] = field(default_factory=set)     # players it can eliminate this turn
    sweep: bool = False                                 # its income or armies dominate: take everything

    @classmethod
    def of(cls, game: Game, seat: int) -> Position:
        s, board = game.state, game.board
        p = cls(game, seat)
        p.mine = [t for t in board.territory_ids if s.owners.get(t) == seat]
        for t, owner in s.owners.items():
            p.counts[owner] = p.counts.get(owner, 0) + 1
            p.armies[owner] = p.armies.get(owner, 0) + s.armies.get(t, 0)
        for c in board.continents.values():
            if all(s.owners.get(t) == seat for t in c.territories):
                p.held.add(c.id)
        p.goals = p.choose_goals()
        mission = game.mission(seat)
        if mission is not None and mission["kind"] == "destroy":
            p.prey = int(mission["seat"])
        p.capitals = {t for t in s.capitals.values() if not game.friendly(seat, s.owners.get(t))}
        p.income = {owner: p.expected_income(owner) for owner in p.counts if owner != NEUTRAL}
        others = [o for o in p.income if p.enemy(o)]
        if others:
            total_income = sum(p.income.values())
            total_armies = sum(a for o, a in p.armies.items() if o != NEUTRAL)
            p.sweep = (p.income.get(seat, 0) >= SWEEP_SHARE * total_income
                       or p.armies.get(seat, 0) >= SWEEP_SHARE * total_armies)
        p.huntable = {o for o in others if p.can_finish(o)}
        return p

    def enemy(self, owner: int | None) -> bool:
        return owner is not None and owner != NEUTRAL and not self.game.friendly(self.seat, owner)

    def expected_income(self, owner: int) -> float:
        """The armies ``owner`` is expected to receive on its next turn."""
        s, board = self.game.state, self.game.board
        income = float(max(3, self.counts.get(owner, 0) // 3))
        for c in board.continents.values():
            if all(s.owners.get(t) == owner for t in c.territories):
                income += c.bonus
        cards = len(s.hands.get(owner, []))
        if cards >= 3 and s.settings.cards != "none":
            trade = self.game.next_set_value() if s.settings.cards == "escalating" else 6
            income += trade * (1.0 if cards >= 5 else 0.6 if cards == 4 else 0.35)
        return income

    def pressure(self, territory: str, without: str | None = None) -> int:
        """The enemy armies next to ``territory`` that may attack it (neutral armies never attack)."""
        s = self.game.state
        return sum(s.armies.get(n, 0) - 1 for n in self.game.board.attackers(territory)
                   if n != without and self.enemy(s.owners.get(n)) and s.armies.get(n, 0) > 1)

    def strongest_neighbour(self, territory: str) -> int:
        s = self.game.state
        return max((s.armies.get(n, 0) for n in self.game.board.attackers(territory)
                    if self.enemy(s.owners.get(n))), default=0)

    def threat(self, territory: str, without: str | None = None) -> float:
        """The largest attack a neighbour may bring on ``territory`` next turn: its biggest stack next to it
        and part of its income."""
        s = self.game.state
        worst = 0.0
        for n in self.game.board.attackers(territory):
            owner = s.owners.get(n)
            if n == without or not self.enemy(owner):
                continue
            assert owner is not None
            worst = max(worst, s.armies.get(n, 0) - 1 + THREAT_INCOME * self.income.get(owner, 3.0))
        return worst

    def hostile(self, territory: str) -> bool:
        s = self.game.state
        return any(not self.game.friendly(self.seat, s.owners.get(n)) for n in self.game.board.touching(territory))

    def can_finish(self, owner: int) -> bool:
        """Whether the seat's stacks next to ``owner`` are enough to take all that is left of it this turn."""
        s, board = self.game.state, self.game.board
        theirs = [t for t in board.territory_ids if s.owners.get(t) == owner]
        if not theirs or len(theirs) > 5:
            return False
        near = {n for t in theirs for n in board.attackers(t) if s.owners.get(n) == self.seat}
        ours = sum(s.armies.get(n, 0) - 1 for n in near) + s.reinforcements
        return ours >= 1.6 * sum(s.armies.get(t, 1) for t in theirs) + 2 * len(theirs)

    def appeal(self, cid: str) -> float:
        """How good a base a continent makes: its bonus against its ways in, how much of it the seat holds and
        what stands in the way."""
        game, s = self.game, self.game.state
        c = game.board.continents[cid]
        size = len(c.territories)
        held = sum(1 for t in c.territories if s.owners.get(t) == self.seat)
        enemies = sum(s.armies.get(t, 3) for t in c.territories if s.owners.get(t) != self.seat)
        mine = sum(s.armies.get(t, 0) for t in c.territories if s.owners.get(t) == self.seat)
        entries = sum(1 for t in c.territories
                      if any(game.board.continent_of(n).id != cid for n in game.board.touching(t)))
        return (c.bonus + 1.5) * (held + 1) / size / (0.4 + entries * 0.6) - enemies * 0.06 + mine * 0.03

    def choose_goals(self) -> set[str]:
        """The continents worth playing for: a mission's, else the ones held and the best open one."""
        game = self.game
        mission = game.mission(self.seat)
        if mission is not None and mission["kind"] == "continents":
            return set(mission["continents"])
        open_ = sorted((c for c in game.board.continents if c not in self.held), key=self.appeal, reverse=True)
        self.base = open_[0] if open_ else None
        return set(self.held) | set(open_[:1])

    def card_worth(self) -> float:
        s = self.game.state
        if s.settings.cards == "none":
            return 0.0
        if s.settings.cards == "escalating":
            return max(3.0, self.game.next_set_value() / 2.5)
        return 3.0

    def conquest_value(self, dst: str) -> float:
        """What taking ``dst`` is worth to the seat, before the cost of the battle."""
        game, s, board = self.game, self.game.state, self.game.board
        defender = s.owners.get(dst)
        continent = board.continent_of(dst)
        value = SWEEP_TERRITORY if self.sweep else TERRITORY
        others = [t for t in continent.territories if t != dst]
        if all(s.owners.get(t) == self.seat for t in others):
            value += COMPLETE * continent.bonus + 1.0
        elif continent.id in self.goals:
            value += IN_BASE + PROGRESS * continent.bonus * 2.0 / len(continent.territories)
        if defender is not None and defender != NEUTRAL and continent.id not in self.held \
                and all(s.owners.get(t) == defender for t in continent.territories):
            value += BREAK * continent.bonus
        if not s.conquered_this_turn:
            value += self.card_worth()
        if self.enemy(defender):
            assert defender is not None
            spoils = ELIMINATE + len(s.hands.get(defender, [])) * self.card_worth()
            if self.counts.get(defender, 0) == 1:
                value += spoils + (WIN if defender == self.prey else 0.0)
            elif defender in self.huntable:
                value += HUNT * spoils / self.counts[defender]
        if defender is not None and defender == self.prey and self.counts.get(defender, 0) > 1:
            value += 3.0 + 8.0 / max(1, self.counts.get(defender, 1))
        if dst in self.capitals:
            value += CAPITAL_TAKEN
            if len(s.capitals) == len(s.players) and all(
                    game.friendly(self.seat, s.owners.get(t)) for t in s.capitals.values() if t != dst):
                value += WIN
        if defender == NEUTRAL:
            value -= 0.3
        value += self.mission_bonus(dst)
        return value

    def mission_bonus(self, dst: str) -> float:
        """A territories mission: each territory counts; a completed mission wins."""
        game, s = self.game, self.game.state
        mission = game.mission(self.seat)
        if mission is None:
            return 0.0
        if mission["kind"] == "territories":
            enough = sum(1 for t in self.mine if s.armies.get(t, 0) >= mission["armies"])
            if mission["armies"] <= 1 and enough + 1 >= mission["count"]:
                return WIN
            return 1.0
        if mission["kind"] == "continents":
            continent = game.board.continent_of(dst)
            others = [t for t in continent.territories if t != dst]
            if all(s.owners.get(t) == self.seat for t in others):
                held = self.held | {continent.id}
                required = set(mission["continents"])
                if required <= held and len(held - required) >= mission.get("plus_any", 0):
                    return WIN
        return 0.0


__all__ = ["WIN", "Position"]
