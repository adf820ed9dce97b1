"""The hard AI: every choice of its turn weighed in armies, with the exact battle odds.

It plays for a base: it claims the territories of one small continent with few ways in that nobody else has a
foot in, makes that continent (``appraisal.Position.base``) the goal of its placements and attacks, then
guards the continents it holds against the attack a neighbour may bring next turn (the stack it has there and
part of its income). A decision prices each candidate move in armies' worth (``appraisal``): a territory, a
continent completed or an enemy's broken, the card the turn's first conquest earns, a player it can finish
this turn (their cards), the game's goal, against the armies the battle is expected to cost (``engine.odds``:
the whole distribution of a blitz, and where to stop it) and the weakness it leaves behind. After the turn's
card it attacks on only for a conquest worth clearly more than its cost, and keeps the rest as a reserve;
once its income or armies dominate the table it sweeps (every territory counts, no reserve). Its
reinforcements go first to the threatened border of a held continent or its capital, then all on one front:
the start of the best attack, toward its base first. Conquering armies move on or stay as the threats around
both territories say; the free move brings the largest idle stack to the most threatened border.

It decides only on what its seat may know (``knowledge.seat_view``: under fog the board out of sight as it
last saw it, unknown territories counted as nobody's), and uses no randomness: the same position always gives
the same action, so a game replays and verifies."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..actions import Action, Blitz, ChooseCapital, Claim, EndAttack, EndTurn, Fortify, Occupy, Place, Trade
from ..choices import Choices, choices_for
from ..game import Game
from ..odds import BattleOdds, approximate_odds, battle_odds
from ..state import CAPITAL, CLAIM, NEUTRAL, REINFORCE, SETUP
from .appraisal import WIN, Position
from .knowledge import Memory, seat_view
from .normal import NormalAI

LOSS = 1.0                  # each army of ours a battle is expected to cost
DAMAGE = 0.1                # each enemy army it is expected to destroy (others gain from it too)
EXPOSED = 0.12              # each enemy army that can reach a newly taken territory, times the share that fights
WEAKENED = 0.8              # times what a source guards (a held continent, its capital), if the blitz leaves it
                            # short of the threat it faces
STALL_TURNS = 25            # turns per player after which a game is taken to have stalled
MARGIN = 0.6                # what a conquest after the turn's first must be worth beyond its cost


# Exact odds up to this many attackers × defenders (a millisecond or two), else the normal approximation.
EXACT = 1_500


def fight(armies: int, defenders: int, stop_at: int = 1) -> BattleOdds:
    """The odds of a blitz: exact when small enough to be quick, else the normal approximation."""
    if armies * defenders <= EXACT:
        return battle_odds(armies, defenders, stop_at)
    return approximate_odds(armies, defenders)


@dataclass(frozen=True)
class Plan:
    score: float
    source: str
    target: str
    stop_at: int


class HardAI(NormalAI):
    level = "hard"

    def __init__(self) -> None:
        super().__init__()

    def choose(self, game: Game, seat: int, memory: Memory | None = None) -> Action:
        """The next action of ``seat``, from what it may know (``memory``: what it saw under fog)."""
        view = seat_view(game, seat, memory)
        c = choices_for(view, seat)
        if c.phase in (CLAIM, SETUP, CAPITAL):
            return self._opening(view, seat, c)
        pos = Position.of(view, seat)
        if c.phase == REINFORCE:
            return self._reinforce(pos, c)
        if c.occupy is not None:
            return Occupy(seat, self._occupy(pos))
        if c.end_attack:
            plan = self.best_attack(pos, c)
            if plan is not None:
                return Blitz(seat, plan.source, plan.target, stop_at=plan.stop_at)
            return EndAttack(seat)
        if c.end_turn:
            return self._fortify(pos, c) or EndTurn(seat)
        raise RuntimeError(f"no move for phase {c.phase}")

    # -- the opening -------------------------------------------------------------------------------
    def _opening(self, game: Game, seat: int, c: Choices) -> Action:
        s = game.state
        if c.capital:
            return ChooseCapital(seat, self.capital_choice(game, seat))
        if c.claim:
            return Claim(seat, self._claim(game, seat))
        if c.place is None:
            return NormalAI._setup_place(self, game, seat, c)
        pos = Position.of(game, seat)
        options = set(c.placing)
        count = -(-c.place.most // 4) if s.sealed is not None else 1  # a set-up round: a quarter at a time
        return Place(seat, self._stack_for(pos, [t for t in pos.mine if t in options] or sorted(options), 0), count)

    def _claim(self, game: Game, seat: int) -> str:
        s, board = game.state, game.board

        def score(t: str) -> float:
            c = board.continent_of(t)
            size = len(c.territories)
            mine = sum(1 for x in c.territories if s.owners.get(x) == seat)
            others = sum(1 for x in c.territories if s.owners.get(x) not in (None, seat))
            near = sum(1 for n in board.neighbours(t) if s.owners.get(n) == seat)
            entries = sum(1 for x in c.territories
                          if any(board.continent_of(n).id != c.id for n in board.touching(x)))
            open_ = 1.0 if others == 0 else 0.4
            return (open_ * (c.bonus + 1.5) * (mine + 1) / size / (0.4 + 0.6 * entries) * 2
                    - others / size * 1.5 + near * 0.4)
        return max(game.claimable(), key=score)

    # -- reinforcements ------------------------------------------------------------------------------
    def _reinforce(self, pos: Position, c: Choices) -> Action:
        seat = pos.seat
        if c.trade:
            return Trade(seat, c.trade[0].cards)
        if c.place is None:
            raise RuntimeError("nothing to trade or place")
        count = c.place.most
        guard = self._guard(pos)
        if guard is not None:
            territory, need = guard
            return Place(seat, territory, max(1, min(need, count)))
        return Place(seat, self._stack_for(pos, pos.mine, count), count)

    def stake(self, pos: Position, territory: str) -> float:
        """What holding ``territory`` guards: its held continent's bonus, and the game's goal at a capital."""
        stake = 0.0
        continent = pos.game.board.continent_of(territory)
        if continent.id in pos.held:
            stake += continent.bonus
        if territory == pos.game.capital_of(pos.seat):
            stake += 8
        return stake

    def _guard(self, pos: Position) -> tuple[str, int] | None:
        """The held continent's border (or the capital) most in need of armies, and how many it needs against
        the attack a neighbour may bring next turn."""
        s = pos.game.state
        worst: tuple[float, str, int] | None = None
        for t in pos.mine:
            stake = self.stake(pos, t)
            if stake == 0:
                continue
            threat = pos.threat(t)
            need = math.ceil(threat * 0.8) - s.armies[t] + 1
            if threat <= 1 or need <= 0:
                continue
            urgency = stake * need / (threat + 1)
            if worst is None or urgency > worst[0]:
                worst = (urgency, t, need)
        return None if worst is None else (worst[1], worst[2])

    def _stack_for(self, pos: Position, options: list[str], extra: int) -> str:
        """Where to put ``extra`` armies: the start of the best attack they allow (toward its base first), else
        the most threatened border of its base."""
        s, board = pos.game.state, pos.game.board
        best: tuple[float, str] | None = None
        for t in options:
            armies = s.armies[t] + extra
            for dst in pos.game.attack_targets(pos.seat, t):
                score = self.price(pos, t, dst, armies)[0]
                if board.continent_of(dst).id in pos.goals:
                    score += 1.0
                if best is None or score > best[0]:
                    best = (score, t)
        if best is not None and best[0] > 0:
            return best[1]
        borders = [t for t in options if pos.hostile(t)] or options
        return max(borders, key=lambda t: (pos.threat(t) - s.armies[t]
                                           + (4 if board.continent_of(t).id in pos.goals else 0)))

    # -- attacks -----------------------------------------------------------------------------------
    def price(self, pos: Position, src: str, dst: str, armies: int) -> tuple[float, int]:
        """The worth of a blitz of ``armies`` from ``src`` on ``dst``, and where it should stop."""
        s = pos.game.state
        defenders = s.armies.get(dst, 1)
        if armies < 2:
            return -1e9, 1
        value = pos.conquest_value(dst)
        # Armies left in the conquered territory face the enemies around it.
        exposure = EXPOSED * pos.pressure(dst) if pos.hostile(dst) else 0.0
        onward = self._onward(pos, dst, src)
        damage = self.damage(pos) if s.owners.get(dst) != NEUTRAL else 0.0
        # A source that guards something must not be left short of the attack it faces.
        stake = self.stake(pos, src) if not pos.sweep else 0.0
        threat = pos.threat(src, without=dst) if stake else 0.0
        best: tuple[float, int] = (-1e9, 1)
        floor = max(1, armies // 2 - 1) if value < WIN else 1
        for stop_at in sorted({1, 2, 3, floor, max(1, math.ceil(threat))} if stake else {1, 2, 3, floor}):
            if stop_at >= armies:
                continue
            o = fight(armies, defenders, stop_at)
            lost = armies - o.expected_attacker_left
            killed = defenders - o.expected_defender_left
            score = o.win * (value + onward - exposure) - LOSS * lost + damage * killed
            if stake and threat > 0:
                left = o.expected_attacker_left if o.win < 1 else stop_at
                left = min(left, max(stop_at, o.expected_attacker_left * (1 - o.win) + stop_at * o.win))
                if left < threat:
                    score -= WEAKENED * stake * min(1.0, (threat - left) / max(1.0, threat))
            if score > best[0]:
                best = (score, stop_at)
        return best

    @staticmethod
    def damage(pos: Position) -> float:
        """What each enemy army destroyed is worth. Others gain from it too, unless one enemy is left or the
        game has stalled between large stacks: then the battles of attrition it wins are what ends the game."""
        s = pos.game.state
        if sum(1 for o in pos.income if pos.enemy(o)) == 1:
            return 0.9
        if s.turn > STALL_TURNS * len(s.players):
            return 1.0
        return DAMAGE

    def _onward(self, pos: Position, dst: str, src: str) -> float:
        """A push goes on: part of what the weakest enemy next to ``dst`` in the same continent is worth."""
        s, board = pos.game.state, pos.game.board
        continent = board.continent_of(dst).id
        if continent not in pos.goals:
            return 0.0
        rest = [n for n in board.neighbours(dst) if n != src and s.owners.get(n) != pos.seat
                and board.continent_of(n).id == continent and not pos.game.friendly(pos.seat, s.owners.get(n))]
        return 0.5 * len(rest) if rest else 0.0

    def best_attack(self, pos: Position, c: Choices) -> Plan | None:
        """The attack worth the most of those offered (``c``), if any is worth making."""
        s = pos.game.state
        best: Plan | None = None
        for src, dst in c.attack_pairs():
            score, stop_at = self.price(pos, src, dst, s.armies[src])
            if best is None or score > best.score:
                best = Plan(score, src, dst, stop_at)
        margin = MARGIN if s.conquered_this_turn and not pos.sweep else 0.0
        if best is None or best.score <= margin:
            return None
        return best

    def _occupy(self, pos: Position) -> int:
        s = pos.game.state
        p = s.pending
        assert p is not None
        lo, hi = int(p["min"]), int(p["max"])
        src, dst = str(p["from"]), str(p["to"])
        behind = pos.pressure(src, without=dst) if pos.hostile(src) else 0
        ahead = pos.pressure(dst) if pos.hostile(dst) else 0
        prospects = [n for n in pos.game.board.neighbours(dst) if not pos.game.friendly(pos.seat, s.owners.get(n))]
        if not pos.hostile(src) or behind == 0:
            return hi
        if not prospects and ahead == 0:
            return lo
        total = hi + 1  # armies in src before the move, one of them staying
        src_weight = behind * 1.0
        dst_weight = ahead + (6.0 if prospects else 0.0) + 2.0
        keep = math.floor(total * src_weight / (src_weight + dst_weight))
        return max(lo, min(hi, total - max(1, keep)))

    # -- the free move ----------------------------------------------------------------------------
    def _fortify(self, pos: Position, c: Choices) -> Action | None:
        game, s, seat = pos.game, pos.game.state, pos.seat
        best: tuple[float, str, str] | None = None
        for src, options in c.fortify.items():
            if pos.hostile(src):
                continue
            movable = options.most
            for dst in options.targets:
                if s.owners.get(dst) != seat:
                    continue
                if pos.hostile(dst):
                    need = pos.pressure(dst) - s.armies[dst] + 4
                    if game.board.continent_of(dst).id in pos.held:
                        need += 3
                    gain = movable * 1.0 + max(0, need) * 0.5
                elif game.fortify_ends_turn and any(pos.hostile(n) for n in game.board.neighbours(dst)
                                                    if s.owners.get(n) == seat):
                    gain = movable * 0.5  # a step toward the front
                else:
                    continue
                if best is None or gain > best[0]:
                    best = (gain, src, dst)
        if best is None:
            return None
        _, src, dst = best
        return Fortify(seat, src, dst, c.fortify[src].most)


__all__ = ["HardAI", "Position"]
