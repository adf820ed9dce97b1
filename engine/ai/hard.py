"""The hard AI (version 2): a turn planned as a whole, every choice weighed in armies with the exact battle odds.

It plays for a base: it claims the territories of one small continent with few ways in that nobody else has a
foot in, makes that continent (``appraisal.Position.base``) the goal of its placements and attacks, then guards
the continents it holds against the attack a neighbour may bring next turn. A battle is priced in armies'
worth (``price``): a territory, a continent completed or an enemy's broken, the turn's card, a player it can
finish (their cards), a runaway leader's territory, the game's goal (``appraisal``, ``_mission_step``), against
the armies it is expected to cost (``engine.odds``, and where to stop the blitz) and what the enemies' next
turn is expected to take of what it leaves (``at_risk``). An attack is not priced alone: ``chain`` follows the
conquests the stack can make in a row on the board the ones before it leave (up to ``DEPTH``), going on from
the territory taken or from where the stack stood; placements go where that plan is worth most, the move-in
and the free move follow it. Its weights (``weights.Weights``) are tuned (``bench/tune_hard.py``); against a
single enemy and beside teammates it plays with weights of their own. In a two-player set-up the neutral army
goes in the way of the enemy's stacks (``_wall``); a game that has stalled (``stalled``) is played to its end.

It decides only on what its seat may know (``knowledge.seat_view``: under fog the board out of sight as it
last saw it, unknown territories counted as nobody's), keeps nothing from one decision to the next, bounds its
work by a count of battles priced (``NODES``), not by a clock, and uses no randomness: the same position always
gives the same action, on a new AI as on one that played the whole game, so a game replays and verifies and a
restart in the middle of a turn goes on as it would have."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..actions import Action, Blitz, ChooseCapital, Claim, EndAttack, EndTurn, Fortify, Occupy, Place, Trade
from ..choices import Choices, choices_for
from ..game import Game
from ..odds import BattleOdds, approximate_odds, battle_odds
from ..state import CAPITAL, CLAIM, NEUTRAL, REINFORCE, SETUP
from .appraisal import WIN, Position
from .knowledge import Memory, seat_view
from .normal import NormalAI
from .weights import Weights

# Exact odds up to this many attackers × defenders (a millisecond or two), else the normal approximation.
EXACT = 1_500


@lru_cache(maxsize=8192)
def fight(armies: int, defenders: int, stop_at: int = 1) -> BattleOdds:
    """The odds of a blitz: exact when small enough to be quick, else the normal approximation. A stack far
    larger than the defence it meets is worked out as a stack of ``overwhelming`` armies plus the rest, which
    never fight: the odds are the same to a millionth, and a stack of hundreds costs no more than one of tens."""
    most = overwhelming(defenders, stop_at)
    if armies > most:
        o = fight(most, defenders, stop_at)
        extra = armies - most
        return BattleOdds(o.win, o.expected_attacker_left + extra, o.expected_defender_left,
                          {left + extra: p for left, p in o.attacker_distribution.items()}, o.defender_distribution)
    if armies * defenders <= EXACT:
        return battle_odds(armies, defenders, stop_at)
    return approximate_odds(armies, defenders)


def overwhelming(defenders: int, stop_at: int) -> int:
    """A stack that beats ``defenders`` before a blitz stopping at ``stop_at`` comes near its stop, all but
    certainly (more armies than this change nothing but how many are left)."""
    return stop_at + 3 * defenders + 30


def at_risk(armies: int, threat: float, worth: float) -> float:
    """What holding a territory of ``worth`` with ``armies`` is expected to lose on the enemy's next turn: the
    chance the strongest attack on it (``threat``: a neighbour's stack and part of its income) takes it."""
    if threat < 1:
        return 0.0
    return fight(int(threat) + 1, max(1, armies)).win * worth


def enemies_of(pos: Position) -> list[int]:
    """The players with territories the seat may attack (the neutral and teammates aside)."""
    return [o for o in pos.income if pos.enemy(o)]


def left_if_won(o: BattleOdds, stop_at: int) -> float:
    """The armies expected in the source after a blitz that conquers (a lost one leaves about ``stop_at``)."""
    if o.win <= 0:
        return float(stop_at)
    return max(2.0, (o.expected_attacker_left - (1 - o.win) * stop_at) / o.win)


# The work one decision may do: the battles a turn's plan may price. A plan that would need more is cut to its
# first conquests (each decision counts it in ``fallbacks``); the count, not the clock, bounds the search, so
# the same position always gives the same move.
NODES = 2_500
DEPTH = 5                   # conquests a plan looks ahead from where its stack stands
WIDTH = 6                   # starts of a plan weighed for the reinforcements


@dataclass(frozen=True)
class Plan:
    score: float
    source: str
    target: str
    stop_at: int


class HardAI(NormalAI):
    level = "hard"

    def __init__(self, weights: Weights | None = None) -> None:
        super().__init__()
        self.weights = weights if weights is not None else Weights.tuned()
        self.w = self.weights   # this decision's: ``weights``, or their own against a single enemy or with teammates
        self.decisions = 0      # decisions made
        self.fallbacks = 0      # decisions whose plan was cut short by the work allowed (``NODES``)
        self.nodes = 0          # battles priced in this decision
        self.cut = False
        self.leader: tuple[int, float] | None = None  # a runaway enemy and how far its income is beyond fair

    def choose(self, game: Game, seat: int, memory: Memory | None = None) -> Action:
        """The next action of ``seat``, from what it may know (``memory``: what it saw under fog)."""
        self.decisions += 1
        self.nodes, self.cut = 0, False
        try:
            return self._choose(game, seat, memory)
        finally:
            if self.cut:
                self.fallbacks += 1

    def _choose(self, game: Game, seat: int, memory: Memory | None) -> Action:
        view = seat_view(game, seat, memory)
        # Everything a decision weighs comes from its position alone, so a restart decides the same.
        enemies = [o for o in view.state.active_seats() if not view.friendly(seat, o)]
        teammates = [o for o in view.state.active_seats() if o != seat and view.friendly(seat, o)]
        self.w = (self.weights.duelled() if len(enemies) == 1 else self.weights.teamed() if teammates
                  else self.weights)
        self.leader = None
        c = choices_for(view, seat)
        if c.phase in (CLAIM, SETUP, CAPITAL):
            return self._opening(view, seat, c)
        pos = Position.of(view, seat)
        pos.sweep = self._sweeps(pos)
        self.leader = self._runaway(pos)
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
        if c.place is None and c.neutral is not None:
            return Place(seat, self._wall(game, seat, c.neutral.territories), 1)
        if c.place is None:
            return NormalAI._setup_place(self, game, seat, c)
        pos = Position.of(game, seat)
        options = set(c.placing)
        count = -(-c.place.most // 4) if s.sealed is not None else 1  # a set-up round: a quarter at a time
        return Place(seat, self._stack_for(pos, [t for t in pos.mine if t in options] or sorted(options), count), count)

    def _wall(self, game: Game, seat: int, offered: Sequence[str]) -> str:
        """Two players' set-up: the neutral army goes where it stands most in the enemy's way: before the enemy's
        stacks (their armies next to it), less before its own (``wall_own``), and spread a little."""
        s, board = game.state, game.board

        def wall(t: str) -> float:
            enemy = own = 0
            for n in board.neighbours(t):
                owner = s.owners.get(n)
                if owner == seat:
                    own += s.armies.get(n, 0)
                elif owner not in (None, NEUTRAL) and not game.friendly(seat, owner):
                    enemy += s.armies.get(n, 0)
            return enemy - self.w.wall_own * own - 0.1 * s.armies.get(t, 0)
        return max(sorted(offered), key=wall)

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
        if territory in pos.game.state.capitals.values():
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
            need = math.ceil(threat * self.w.guard) - s.armies[t] + 1
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
        starts: list[tuple[float, str]] = []
        for t in options:
            armies = s.armies[t] + extra
            quick = max((self.price(pos, t, dst, armies)[0] + (1.0 if board.continent_of(dst).id in pos.goals else 0.0)
                         for dst in pos.game.attack_targets(pos.seat, t)), default=None)
            if quick is not None:
                starts.append((quick, t))
        starts.sort(key=lambda st: (-st[0], st[1]))
        best: tuple[float, str] | None = None
        for quick, t in starts[:WIDTH]:
            score = self.chain(pos, t, s.armies[t] + extra)[0] if extra else quick
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
        self.nodes += 1
        value = pos.conquest_value(dst)
        if self.leader is not None and s.owners.get(dst) == self.leader[0]:
            value += self.w.leader * self.leader[1]
        value += self._mission_step(pos, dst)
        if s.owners.get(dst) == NEUTRAL and not self.stalled(pos):
            value -= self.w.neutral
        # Armies left in the conquered territory face the enemies around it.
        exposure = self.w.exposed * pos.pressure(dst) if pos.hostile(dst) else 0.0
        onward = self._onward(pos, dst, src)
        damage = self.damage(pos) if s.owners.get(dst) != NEUTRAL else 0.0
        # A source that guards something must not be left short of the attack it faces.
        stake = self.stake(pos, src) if not pos.sweep else 0.0
        threat = pos.threat(src, without=dst) if stake else 0.0
        # What the turn's end leaves open to the enemy's next: the source thinned, the territory taken held.
        risky = self.w.risk > 0
        if risky:
            src_threat, dst_threat = pos.threat(src, without=dst), pos.threat(dst)
            src_worth, dst_worth = self.worth(pos, src), self.worth(pos, dst, taking=True)
            before = at_risk(armies, src_threat, src_worth)
            thinned = at_risk(1, src_threat, src_worth)
        best: tuple[float, int] = (-1e9, 1)
        floor = max(1, armies // 2 - 1) if value < WIN else 1
        for stop_at in sorted({1, 2, 3, floor, max(1, math.ceil(threat))} if stake else {1, 2, 3, floor}):
            if stop_at >= armies:
                continue
            o = fight(armies, defenders, stop_at)
            lost = armies - o.expected_attacker_left
            killed = defenders - o.expected_defender_left
            score = o.win * (value + onward - exposure) - self.w.loss * lost + damage * killed
            if risky:
                moved = max(1, int(left_if_won(o, stop_at)) - 1)
                after = (o.win * (at_risk(moved, dst_threat, dst_worth) + thinned)
                         + (1 - o.win) * at_risk(stop_at, src_threat, src_worth))
                score -= self.w.risk * (after - before)
            if stake and threat > 0:
                left = o.expected_attacker_left if o.win < 1 else stop_at
                left = min(left, max(stop_at, o.expected_attacker_left * (1 - o.win) + stop_at * o.win))
                if left < threat:
                    score -= self.w.weakened * stake * min(1.0, (threat - left) / max(1.0, threat))
            if score > best[0]:
                best = (score, stop_at)
        return best

    def worth(self, pos: Position, territory: str, taking: bool = False) -> float:
        """What holding ``territory`` is worth when the enemy's next turn may take it: a territory, the bonus of
        its continent when held whole (or completed by ``taking`` it), and the game's goal at a capital (its own
        most, ``capital``; another's it holds, ``captured``)."""
        s = pos.game.state
        continent = pos.game.board.continent_of(territory)
        held = all(s.owners.get(t) == pos.seat for t in continent.territories if not (taking and t == territory))
        worth = 1.0 + (continent.bonus if held else 0.0)
        if territory == pos.game.capital_of(pos.seat):
            worth += self.w.capital
        elif territory in pos.game.state.capitals.values():
            worth += self.w.captured
        return worth

    def damage(self, pos: Position) -> float:
        """What each enemy army destroyed is worth. Others gain from it too, unless one enemy is left or the
        game has stalled between large stacks: then the battles of attrition it wins are what ends the game."""
        enemies = enemies_of(pos)
        stalled = self.stalled(pos)
        if len(enemies) == 1:
            if not stalled:
                return self.w.duel
            # A duel that has stalled between stacks of thousands: every even trade brings the end nearer for
            # the larger side, the more so the larger it is (a stack that never attacks never wins).
            ratio = pos.armies.get(pos.seat, 0) / max(1, pos.armies.get(enemies[0], 0))
            return max(self.w.duel, 1.0) * max(1.0, ratio)
        if stalled:
            return 1.0
        return self.w.damage

    def stalled(self, pos: Position) -> bool:
        """Whether the game has gone on so long (``stall`` turns a player) that it is taken to have stalled
        between large stacks: then the battles that end it are worth their cost, a neutral's among them."""
        s = pos.game.state
        return s.turn > self.w.stall * len(s.players)

    def _sweeps(self, pos: Position) -> bool:
        """Whether its income or armies dominate the table, so that every conquest counts and it keeps no
        reserve: a share of all income or armies (the neutral's aside), a larger one against a single enemy."""
        enemies = enemies_of(pos)
        if not enemies:
            return False
        share = self.w.sweep if len(enemies) > 1 else self.w.sweep_duel
        income = sum(pos.income.values())
        armies = sum(a for o, a in pos.armies.items() if o != NEUTRAL)
        return pos.income.get(pos.seat, 0) >= share * income or pos.armies.get(pos.seat, 0) >= share * armies

    def _mission_step(self, pos: Position, dst: str) -> float:
        """More for a conquest that completes a continent its mission names (the mission's own win aside)."""
        mission = pos.game.mission(pos.seat)
        if mission is None or mission["kind"] != "continents":
            return 0.0
        continent = pos.game.board.continent_of(dst)
        if continent.id not in mission["continents"] or continent.id in pos.held:
            return 0.0
        s = pos.game.state
        if all(s.owners.get(t) == pos.seat for t in continent.territories if t != dst):
            return self.w.mission * continent.bonus
        return self.w.mission * continent.bonus / len(continent.territories)

    def _runaway(self, pos: Position) -> tuple[int, float] | None:
        """The enemy whose income runs away from the table's (with three or more players left), and how many
        fair shares beyond its own it has."""
        enemies = enemies_of(pos)
        if len(pos.income) < 3 or not enemies:
            return None
        total = sum(pos.income.values())
        fair = total / len(pos.income)
        top = max(enemies, key=lambda o: (pos.income[o], -o))
        beyond = pos.income[top] / fair - 1.5
        return (top, min(2.0, beyond)) if beyond > 0 else None

    def chain(self, pos: Position, src: str, armies: int, first: str | None = None) -> tuple[float, int]:
        """What a stack of ``armies`` at ``src`` can make of the rest of its turn, and where its first blitz
        should stop: up to ``DEPTH`` conquests in a row (the first on ``first`` if given), each priced as
        ``price`` prices it on the board the ones before it leave (a continent completed by the last of them
        counts), weighed by the chance of getting that far. After each conquest the stack goes on from the
        territory taken (all moved in) or from where it stood (the least moved in), whichever offers more. The
        board is changed in place and put back."""
        game, s, seat = pos.game, pos.game.state, pos.seat
        owners: dict[str, int | None] = {}
        armies_of: dict[str, int | None] = {}
        counts, conquered = dict(pos.counts), s.conquered_this_turn
        total, reach, first_stop = 0.0, 1.0, 1
        last: tuple[str, str, int] | None = None  # the last conquest: from, taken, armies left to share
        try:
            for step in range(DEPTH):
                if step and self.nodes >= NODES:
                    self.cut = True
                    break
                if last is None:
                    starts = [(src, armies, [first] if first is not None else game.attack_targets(seat, src))]
                else:
                    back, taken, left = last
                    least = min(3, left - 1)   # moved in when the stack goes on from where it stood
                    starts = [(taken, left - 1, game.attack_targets(seat, taken)),
                              (back, left - least, [d for d in game.attack_targets(seat, back) if d != taken])]
                best: tuple[float, str, int, str, int] | None = None
                for at, stack, targets in starts:
                    for dst in targets:
                        score, stop_at = self.price(pos, at, dst, stack)
                        if best is None or score > best[0]:
                            best = (score, dst, stop_at, at, stack)
                if best is None or (step and best[0] <= 0):
                    break
                score, dst, stop_at, at, stack = best
                if last is not None:   # the last conquest's move-in, as the stack goes on
                    s.armies[taken] = left - 1 if at == taken else least
                    s.armies[back] = 1 if at == taken else left - least
                if step == 0:
                    total, first_stop = score, stop_at
                else:
                    total += reach * self.w.chain ** step * score
                o = fight(stack, s.armies.get(dst, 1), stop_at)
                reach *= o.win
                if reach < 0.3 or step == DEPTH - 1:
                    break
                left = max(2, int(left_if_won(o, stop_at)))
                owners.setdefault(dst, s.owners.get(dst))
                armies_of.setdefault(dst, s.armies.get(dst))
                armies_of.setdefault(at, s.armies.get(at))
                loser = s.owners.get(dst)
                if loser is not None and loser in pos.counts:
                    pos.counts[loser] -= 1
                pos.counts[seat] = pos.counts.get(seat, 0) + 1
                s.owners[dst], s.armies[dst], s.armies[at] = seat, left - 1, 1
                s.conquered_this_turn = True
                last = (at, dst, left)
        finally:
            for t, owner in owners.items():
                if owner is None:
                    s.owners.pop(t, None)
                else:
                    s.owners[t] = owner
            for t, count in armies_of.items():
                if count is None:
                    s.armies.pop(t, None)
                else:
                    s.armies[t] = count
            pos.counts.clear()
            pos.counts.update(counts)
            s.conquered_this_turn = conquered
        return total, first_stop

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
            score, stop_at = self.chain(pos, src, s.armies[src], dst)
            if best is None or score > best.score:
                best = Plan(score, src, dst, stop_at)
        margin = self.w.margin if s.conquered_this_turn and not pos.sweep else 0.0
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
        # Where the turn's plan goes on: from the territory taken with all, or from the source with the rest.
        ahead_plan = max((self.price(pos, dst, n, hi)[0] for n in pos.game.attack_targets(pos.seat, dst)),
                         default=0.0)
        back_plan = max((self.price(pos, src, n, hi + 1 - lo)[0] for n in pos.game.attack_targets(pos.seat, src)
                         if n != dst), default=0.0)
        if max(ahead_plan, back_plan) > self.w.margin:
            return hi if ahead_plan >= back_plan else lo
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
        """The free move: an idle stack, or a border's armies beyond the threat it faces, to the border that
        needs them most or where next turn's plan starts best."""
        game, s, seat = pos.game, pos.game.state, pos.seat
        best: tuple[float, str, str, int] | None = None
        for src, options in c.fortify.items():
            if pos.hostile(src):
                keep = max(1, math.ceil(pos.threat(src) * self.w.guard) + (3 if self.stake(pos, src) else 0))
                movable = min(options.most, s.armies[src] - keep)
                if movable < 3:
                    continue
            else:
                movable = options.most
            for dst in options.targets:
                if s.owners.get(dst) != seat:
                    continue
                if pos.hostile(dst):
                    need = pos.pressure(dst) - s.armies[dst] + 4
                    if game.board.continent_of(dst).id in pos.held:
                        need += 3
                    gain = movable * 1.0 + max(0, need) * 0.5
                    if self.w.fortify_plan:
                        gain += self.w.fortify_plan * max(0.0, self.chain(pos, dst, s.armies[dst] + movable)[0])
                    if pos.hostile(src):
                        gain -= movable * 0.5 + max(0, pos.pressure(src) - s.armies[src] + 4) * 0.5
                elif game.fortify_ends_turn and not pos.hostile(src) and any(
                        pos.hostile(n) for n in game.board.neighbours(dst) if s.owners.get(n) == seat):
                    gain = movable * 0.5  # a step toward the front
                else:
                    continue
                if best is None or gain > best[0]:
                    best = (gain, src, dst, movable)
        if best is None or best[0] <= 0:
            return None
        _, src, dst, movable = best
        return Fortify(seat, src, dst, movable)


__all__ = ["HardAI", "Position"]
