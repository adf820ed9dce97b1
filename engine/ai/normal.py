"""The normal AI: continent focus, reinforced borders, attacks when the exact odds are good, sensible cards.

It plays toward the game's goal: the continents or the player named by its secret mission, the capitals of
its enemies (and the defence of its own), and never against its teammates. It decides on what its seat may
know (``knowledge.seat_view``): under fog, the board out of sight as it last saw it."""

from __future__ import annotations

from collections.abc import Sequence

from ..actions import Action, Blitz, ChooseCapital, Claim, EndAttack, EndTurn, Fortify, Occupy, Place, Trade
from ..choices import Choices, choices_for
from ..game import Game
from ..odds import QUICK_LIMIT, odds
from ..state import NEUTRAL, REINFORCE, SETUP
from .knowledge import Memory, seat_view


class NormalAI:
    """``cautious``: the turn of an absent player: trade only if forced, reinforce threatened borders, no attacks,
    no fortify. ``minimal``: place everything at once on the most threatened border and stop."""

    level = "normal"

    def __init__(self, cautious: bool = False, minimal: bool = False) -> None:
        self.cautious = cautious or minimal
        self.minimal = minimal

    # -- evaluation helpers --------------------------------------------------------------------------
    @staticmethod
    def continent_share(game: Game, seat: int) -> dict[str, float]:
        """How much of each continent a seat holds, weighted so small valuable continents come first."""
        s = game.state
        out: dict[str, float] = {}
        for c in game.board.continents.values():
            held = sum(1 for t in c.territories if s.owners.get(t) == seat)
            out[c.id] = held / len(c.territories) + c.bonus / (len(c.territories) * 4)
        return out

    @staticmethod
    def enemy_pressure(game: Game, seat: int, territory: str) -> int:
        """The enemy armies that may attack ``territory`` (across a one-way border only those it faces)."""
        s = game.state
        return sum(s.armies[n] for n in game.board.attackers(territory)
                   if s.owners.get(n) != NEUTRAL and not game.friendly(seat, s.owners.get(n)))

    def is_border(self, game: Game, seat: int, territory: str) -> bool:
        """Whether ``territory`` touches an enemy, whichever way their border may be crossed."""
        s = game.state
        return any(not game.friendly(seat, s.owners.get(n)) for n in game.board.touching(territory))

    def target_continent(self, game: Game, seat: int) -> str:
        share = self.continent_share(game, seat)
        s = game.state
        # Prefer continents we are close to finishing that are not yet ours.
        open_continents = [c for c in share
                           if any(s.owners.get(t) != seat for t in game.board.continents[c].territories)]
        # A continents mission names the continents to take first.
        mission = game.mission(seat)
        if mission is not None and mission["kind"] == "continents":
            required = [c for c in mission["continents"] if c in open_continents]
            if required:
                open_continents = required
        pool = open_continents or list(share)
        return max(pool, key=lambda c: share[c])

    @staticmethod
    def target_seat(game: Game, seat: int) -> int | None:
        """The player a destroy mission names, if any."""
        mission = game.mission(seat)
        if mission is not None and mission["kind"] == "destroy":
            return int(mission["seat"])
        return None

    @staticmethod
    def enemy_capitals(game: Game, seat: int) -> set[str]:
        s = game.state
        return {t for t in s.capitals.values() if not game.friendly(seat, s.owners.get(t))}

    # -- decisions -------------------------------------------------------------------------------------
    def choose(self, game: Game, seat: int, memory: Memory | None = None) -> Action:
        """The next action of ``seat``, from what it may know (``memory``: what it saw under fog)."""
        return self._decide(seat_view(game, seat, memory), seat)

    def _decide(self, game: Game, seat: int) -> Action:
        """The move for what ``seat`` may do now (``engine.choices``), phase by phase."""
        c = choices_for(game, seat)
        if c.claim:
            return Claim(seat, self._claim_choice(game, seat))
        if c.capital:
            return ChooseCapital(seat, self.capital_choice(game, seat))
        if c.phase == SETUP:
            return self._setup_place(game, seat, c)
        if c.phase == REINFORCE:
            return self._reinforce_move(game, seat, c)
        if c.occupy is not None:
            return Occupy(seat, self._occupy_count(game, seat))
        if self.cautious and c.end_turn:
            return EndTurn(seat)
        if c.end_attack:
            return self._attack_choice(game, seat, c) or EndAttack(seat)
        if c.end_turn:
            return self._fortify_move(game, seat, c) or EndTurn(seat)
        raise RuntimeError(f"no move for phase {c.phase}")

    def _reinforce_move(self, game: Game, seat: int, c: Choices) -> Action:
        """The best set while one may be traded (cautious: only a forced trade), else the reinforcements."""
        if c.trade and (not self.cautious or c.must_trade):
            return Trade(seat, c.trade[0].cards)
        if c.place is None:
            raise RuntimeError("nothing to trade or place")
        if self.cautious:
            count = c.place.most if self.minimal else max(1, (c.place.most + 1) // 2)
            return Place(seat, self._most_threatened(game, seat), count)
        return Place(seat, self._reinforce_target(game, seat), c.place.most)

    def _fortify_move(self, game: Game, seat: int, c: Choices) -> Action | None:
        """The free move of the turn, or None to end the turn without one."""
        return self._fortify_choice(game, seat, c)

    @staticmethod
    def claim_scores(game: Game, seat: int, near: float = 0.3) -> dict[str, float]:
        """Each claimable territory's worth: its continent's share already held, less the others' foothold
        there and its size, plus ``near`` for each neighbour already held."""
        s = game.state
        share = NormalAI.continent_share(game, seat)
        def score(t: str) -> float:
            c = game.board.territories[t].continent
            size = len(game.board.continents[c].territories)
            others = sum(1 for x in game.board.continents[c].territories if s.owners.get(x) not in (None, seat))
            mine_near = sum(1 for n in game.board.neighbours(t) if s.owners.get(n) == seat)
            return share[c] * 3 - others / size * 2 + mine_near * near - size * 0.05
        return {t: score(t) for t in game.claimable()}

    def _claim_choice(self, game: Game, seat: int) -> str:
        scores = self.claim_scores(game, seat)
        return max(scores, key=scores.__getitem__)

    def _setup_place(self, game: Game, seat: int, c: Choices) -> Action:
        s = game.state
        if c.place is None and c.neutral is not None:
            # Two-player setup: put the neutral army where it blocks the opponent most. Every territory offered
            # now is neutral (under fog the seat's view may not show them as such: the menu does).
            def wall(t: str) -> float:
                enemies = sum(1 for n in game.board.neighbours(t) if s.owners.get(n) not in (seat, NEUTRAL))
                return enemies - s.armies.get(t, 0) * 0.1
            return Place(seat, max(c.neutral.territories, key=wall), 1)
        if c.place is None:
            raise RuntimeError("no starting army to place")
        # In a set-up round the armies go a quarter of what is left at a time (fewer decisions, the same spread).
        count = -(-c.place.most // 4) if s.sealed is not None else 1
        return Place(seat, self._reinforce_target(game, seat), count)

    def capital_choice(self, game: Game, seat: int) -> str:
        """A well-defended capital: many armies, few enemy neighbours, surrounded by our own territories."""
        s = game.state

        def score(t: str) -> float:
            nbs = game.board.touching(t)
            own = sum(1 for n in nbs if s.owners.get(n) == seat)
            return own / len(nbs) * 4 + s.armies[t] * 0.5 - self.enemy_pressure(game, seat, t) * 0.3

        return max(game.capital_choices(seat), key=score)

    def _reinforce_target(self, game: Game, seat: int) -> str:
        s = game.state
        goal = self.target_continent(game, seat)
        mine = [t for t in game.board.territory_ids if s.owners.get(t) == seat]
        borders = [t for t in mine if self.is_border(game, seat, t)] or mine
        capital = game.capital_of(seat)
        if capital is not None and s.owners.get(capital) == seat \
                and self.enemy_pressure(game, seat, capital) > s.armies[capital]:
            return capital  # losing the capital loses the game's goal
        prey = self.target_seat(game, seat)
        capitals = self.enemy_capitals(game, seat)

        def score(t: str) -> float:
            c = game.board.territories[t].continent
            enemy_near = [n for n in game.board.neighbours(t) if not game.friendly(seat, s.owners.get(n))]
            weakest = min((s.armies[n] for n in enemy_near), default=99)
            in_goal = 1.0 if c == goal else 0.0
            targets_in_goal = sum(1 for n in enemy_near if game.board.territories[n].continent == goal)
            prey_near = sum(1 for n in enemy_near if s.owners.get(n) == prey) if prey is not None else 0
            capitals_near = sum(1 for n in enemy_near if n in capitals)
            threat = self.enemy_pressure(game, seat, t) - s.armies[t]
            return (in_goal * 4 + targets_in_goal * 2 + prey_near * 2 + capitals_near * 3 + max(threat, 0) * 0.15
                    - weakest * 0.1 + s.armies[t] * 0.05)

        return max(borders, key=score)

    def _most_threatened(self, game: Game, seat: int) -> str:
        s = game.state
        mine = [t for t in game.board.territory_ids if s.owners.get(t) == seat]
        return max(mine, key=lambda t: (self.enemy_pressure(game, seat, t) - s.armies[t],
                                        self.is_border(game, seat, t)))

    def _attack_choice(self, game: Game, seat: int, c: Choices) -> Action | None:
        s = game.state
        goal = self.target_continent(game, seat)
        best: tuple[float, str, str] | None = None
        owned_continents = {c.id for c in game.board.continents.values()
                            if all(s.owners.get(t) == seat for t in c.territories)}
        prey = self.target_seat(game, seat)
        capitals = self.enemy_capitals(game, seat)
        for src, dst in c.attack_pairs():
            chance = odds(s.armies[src], s.armies[dst], QUICK_LIMIT)[0]  # a large battle: approximated
            continent = game.board.territories[dst].continent
            value = chance.win
            value += 0.25 if continent == goal else 0.0
            defender = s.owners[dst]
            if defender != NEUTRAL:
                remaining = sum(1 for o in s.owners.values() if o == defender)
                if remaining <= 3:
                    value += 0.3  # finish a player: cards
                    if len(s.hands.get(defender, [])) >= 3:
                        value += 0.2
                # Breaking an enemy continent is worth a lot.
                if all(s.owners.get(t) == defender for t in game.board.continents[continent].territories):
                    value += 0.3
            else:
                value -= 0.1
            if continent in owned_continents:
                value += 0.1
            if prey is not None and defender == prey:
                value += 0.35
            if dst in capitals:
                value += 0.35
            threshold = 0.6 if not s.conquered_this_turn else 0.75
            if chance.win >= threshold and (best is None or value > best[0]):
                best = (value, src, dst)
        if best is None:
            return None
        _, src, dst = best
        # Keep a garrison behind on exposed borders.
        keep = 1
        return Blitz(seat, src, dst, stop_at=max(keep, min(3, s.armies[src] // 4)))

    def _occupy_count(self, game: Game, seat: int) -> int:
        s = game.state
        p = s.pending
        assert p is not None
        lo, hi = int(p["min"]), int(p["max"])
        src, dst = str(p["from"]), str(p["to"])
        src_exposed = self.enemy_pressure(game, seat, src) > 0 or any(
            not game.friendly(seat, s.owners.get(n)) for n in game.board.touching(src) if n != dst)
        dst_exposed = any(not game.friendly(seat, s.owners.get(n)) for n in game.board.touching(dst))
        if not dst_exposed:
            return lo
        if not src_exposed:
            return hi
        return max(lo, min(hi, (hi + 1) * 2 // 3))

    def _fortify_choice(self, game: Game, seat: int, c: Choices) -> Action | None:
        # Armies only ever move from interior territories toward borders, so with fortify "unlimited" the
        # moves of a turn run out: a border territory is never a source.
        s = game.state
        interior = [t for t in c.fortify if not self.is_border(game, seat, t)]
        best: tuple[int, str, str] | None = None
        for src in interior:
            for dst in self._own_targets(game, seat, c.fortify[src].targets):
                if self.is_border(game, seat, dst):
                    gain = s.armies[src] - 1 + self.enemy_pressure(game, seat, dst)
                    if best is None or gain > best[0]:
                        best = (gain, src, dst)
        if best is None:
            # Move interior armies one step closer to a border.
            for src in interior:
                for dst in self._own_targets(game, seat, c.fortify[src].targets):
                    if any(self.is_border(game, seat, n) for n in game.board.neighbours(dst)
                           if s.owners.get(n) == seat):
                        return Fortify(seat, src, dst, c.fortify[src].most)
            return None
        _, src, dst = best
        return Fortify(seat, src, dst, c.fortify[src].most)

    @staticmethod
    def _own_targets(game: Game, seat: int, targets: Sequence[str]) -> list[str]:
        """Fortify targets that stay ours (armies moved to a teammate become the teammate's)."""
        return [t for t in targets if game.state.owners.get(t) == seat]
