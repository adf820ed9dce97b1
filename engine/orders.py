"""Standing orders: a player's plan for their next turn, left in advance and played for them when it comes.

A plan (``Orders``) is a short list of orders, in the order of a turn:

1. trade the best set when one may be traded (``trade``; a forced trade is always the best set);
2. place armies (``place``): each ``Placing`` names a territory, or ``FRONT`` ("on my front": the territory of
   theirs where the enemy presses hardest), and a count (None: all that are left);
3. attacks (``attacks``), each with its stop: the attack stops when the attacking territory is down to
   ``stop_at`` armies, or when the odds of taking the target (``engine.odds``, attacking down to ``stop_at``) fall
   below ``odds``, and the plan goes on with its next order (the stop is the attack's planned end, told to the
   player); after a conquest ``move_in`` armies move in (None: all but ``leave``), within what the rules allow;
4. one fortify move (``fortify``; count None: all but one);
5. end the turn (``end``), or leave the rest of it to the player.

``repeat`` keeps the plan for the turn after, too.

**Stale orders.** A plan is played against the board as it stands, and stops at the first order that is no longer
legal (an attack's stop ends only that attack). Before the first step, it is also checked against the board it was
left on: if any territory it names changed owner since (``owners``, noted when the plan was left), nothing runs. The
player's plan assumed that board; the same order on a different board is another order. Once the plan has started,
the territories it names change owner by its own conquests, and only each order's own legality and stop count. A
repeating plan is checked against the board as its last run left it.

``next_step`` is the whole of the running: given the game, the seat, the plan and how far it got (``cursor``),
it answers the next action to apply and how far the plan will have got once it is applied, or why it stops. It is
pure: the table stores the cursor with each action (one transaction), so a plan runs once, across restarts.

``forced_step`` is the other automation of a turn: a step with exactly one choice, or a turn with nothing left to
decide, is taken for the player (after the same kind of delay, which is the table's: table/orders.py). It
decides only on what every player may know (the board under the game's fog as the public sees it, the number of
cards in a hand), except for a forced trade, which shows its cards anyway; so nothing automatic tells another
player anything about a hand or a mission.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .actions import Action, Attack, Blitz, EndTurn, Fortify, Occupy, Place, StartTurn, Trade
from .errors import BadOrders, OrdersStopped, RuleError, TemplateError, UnknownTerritory
from .fog import fog_hides_board
from .game import Game
from .odds import QUICK_LIMIT, battle_odds, odds
from .state import ATTACK, FORTIFY, OCCUPY, OVER, REINFORCE, WAITING

FRONT = "front"          # a placing "on my front"
MAX_ORDERS = 10          # placings, and attacks, in one plan
MAX_ARMIES = 1_000_000   # no count in a plan is larger
PLAN_ATTACKS = 5         # attacks in a plan built by taps (the turn panel's flow, the live board)
# The stops a plan built by taps offers an attack: down to k armies ("s2"), or the odds of taking it below p ("o60").
STOPS = ("s2", "s3", "s5", "o60", "o80")
# How many move in after its conquest: all but one ("a"), all but two ("k2"), the least the rules allow ("m").
MOVES = ("a", "k2", "m")


@dataclass(frozen=True)
class Placing:
    territory: str               # a territory's id, or FRONT
    count: int | None = None     # None: every army left to place


@dataclass(frozen=True)
class AttackOrder:
    source: str
    target: str
    stop_at: int = 1             # stop once the source is down to this many armies
    odds: float = 0.0            # stop once the chance of taking the target falls below this
    move_in: int | None = None   # armies to move in after the conquest (None: all but ``leave``)
    leave: int = 1               # with ``move_in`` None: armies left behind in the source


@dataclass(frozen=True)
class FortifyOrder:
    source: str
    target: str
    count: int | None = None     # None: all but one


@dataclass(frozen=True)
class Orders:
    trade: bool = True
    place: tuple[Placing, ...] = ()
    attacks: tuple[AttackOrder, ...] = ()
    fortify: FortifyOrder | None = None
    end: bool = True
    repeat: bool = False
    owners: Mapping[str, int] = field(default_factory=dict)   # each named territory's owner when it was left

    # -- the orders, one after another --------------------------------------------------------------------
    def items(self) -> list[tuple[str, int]]:
        """The orders in the order they run: what each is and its number among its kind. ``cursor`` counts them."""
        out: list[tuple[str, int]] = [("trade", 0)]
        out += [("place", i) for i in range(len(self.place))]
        out += [("attack", i) for i in range(len(self.attacks))]
        if self.fortify is not None:
            out.append(("fortify", 0))
        out.append(("end", 0))
        return out

    def named(self) -> list[str]:
        """The territories the plan names (not ``FRONT``), in order, each once."""
        names = [p.territory for p in self.place if p.territory != FRONT]
        for a in self.attacks:
            names += [a.source, a.target]
        if self.fortify is not None:
            names += [self.fortify.source, self.fortify.target]
        return list(dict.fromkeys(names))

    # -- storage ------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "trade": self.trade,
            "place": [{"territory": p.territory, "count": p.count} for p in self.place],
            "attacks": [{"source": a.source, "target": a.target, "stop_at": a.stop_at, "odds": a.odds,
                         "move_in": a.move_in, "leave": a.leave} for a in self.attacks],
            "fortify": None if self.fortify is None else {"source": self.fortify.source,
                                                          "target": self.fortify.target,
                                                          "count": self.fortify.count},
            "end": self.end, "repeat": self.repeat, "owners": dict(self.owners),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Orders:
        """A plan from ``to_dict``'s output, every field checked (``BadOrders``): stored text is trusted no more
        than a tap."""
        try:
            fortify = data.get("fortify")
            return cls(
                trade=_flag(data.get("trade", True)),
                place=tuple(Placing(_text(p["territory"]), _count(p.get("count"), None))
                            for p in _listed(data.get("place", ()))),
                attacks=tuple(AttackOrder(_text(a["source"]), _text(a["target"]), _count(a.get("stop_at"), 1) or 1,
                                          _chance(a.get("odds", 0.0)), _count(a.get("move_in"), None),
                                          _count(a.get("leave"), 1) or 1)
                              for a in _listed(data.get("attacks", ()))),
                fortify=None if fortify is None else FortifyOrder(_text(fortify["source"]), _text(fortify["target"]),
                                                                  _count(fortify.get("count"), None)),
                end=_flag(data.get("end", True)), repeat=_flag(data.get("repeat", False)),
                owners={_text(k): int(v) for k, v in dict(data.get("owners", {})).items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BadOrders("These orders cannot be read: {problem}.", problem=str(exc)[:100]) from exc


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("a flag must be true or false")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > 100:
        raise ValueError("a territory must be named")
    return value


def _count(value: Any, default: int | None) -> int | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ARMIES:
        raise ValueError("a count must be a whole number of at least 1")
    return value


def _chance(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError("odds must be between 0 and 1")
    return float(value)


def _listed(value: Any) -> list[Any]:
    if not isinstance(value, (list, tuple)) or len(value) > MAX_ORDERS:
        raise ValueError(f"at most {MAX_ORDERS} of each order")
    return list(value)


# -- leaving a plan ---------------------------------------------------------------------------------------
def left(game: Game, seat: int, orders: Orders) -> Orders:
    """The plan ``seat`` leaves now, its names resolved to ids and checked, with each named territory's owner
    noted (``BadOrders`` or the engine's ``UnknownTerritory``: nothing is left)."""
    s = game.state
    if s.phase == OVER:
        raise BadOrders("The game is over.")
    if not 0 <= seat < len(s.players) or seat not in s.active_seats():
        raise BadOrders("You are not playing in this game.")
    if len(orders.place) > MAX_ORDERS or len(orders.attacks) > MAX_ORDERS:
        raise BadOrders("At most {n} placings and {n} attacks in one plan.", n=MAX_ORDERS)
    ids = {name: game._territory(name) for name in orders.named()}
    place = tuple(replace(p, territory=ids.get(p.territory, FRONT)) for p in orders.place)
    attacks = []
    for a in orders.attacks:
        src, dst = ids[a.source], ids[a.target]
        if not game.board.adjacent(src, dst):
            raise BadOrders("{source} cannot attack {target}: they do not border.", source=game.ref(src),
                            target=game.ref(dst))
        if game.friendly(seat, s.owners.get(dst)):
            raise BadOrders("{territory} is held by your side: attack an enemy territory.", territory=game.ref(dst))
        if a.move_in is not None and a.leave != 1:
            raise BadOrders("Give either how many armies move in or how many stay behind, not both.")
        attacks.append(replace(a, source=src, target=dst))
    fortify = orders.fortify
    if fortify is not None:
        fortify = replace(fortify, source=ids[fortify.source], target=ids[fortify.target])
        if fortify.source == fortify.target:
            raise BadOrders("Choose two different territories.")
    given = [p.count for p in place]
    if None in given[:-1]:
        raise BadOrders("Only the last placing may take all the armies left.")
    plan = Orders(orders.trade, place, tuple(attacks), fortify, orders.end, orders.repeat)
    return replace(plan, owners={t: s.owners.get(t, -1) for t in plan.named()})


def tapped_attack(source: str, target: str, move: str, stop: str) -> AttackOrder:
    """An attack of a plan built by taps, its move-in and stop chosen among ``MOVES`` and ``STOPS`` (else
    ``BadOrders``)."""
    if move not in MOVES or stop not in STOPS:
        raise BadOrders("These orders cannot be read: {problem}.", problem="stop")
    order = AttackOrder(source, target)
    order = replace(order, stop_at=int(stop[1:])) if stop.startswith("s") else replace(order, odds=int(stop[1:]) / 100)
    return replace(order, leave=2) if move == "k2" else replace(order, move_in=1) if move == "m" else order


def planned(game: Game, seat: int, orders: Orders) -> None:
    """Check a plan built by taps (the turn panel's flow, the live board) against ``seat``'s territories as the
    plan will hold them: it places on its own territories (or ``FRONT``), attacks from a territory it holds by then
    (now, or taken by an earlier attack of the plan) a neighbour it does not, and fortifies between neighbours it
    holds by then. Territories are ids of the map. ``BadOrders`` (or ``UnknownTerritory``) if not; ``left`` checks
    the rest when the plan is kept."""
    s = game.state
    board = game.board
    for t in orders.named():
        if t not in board.territories:
            raise UnknownTerritory.called(t)
    mine = set(s.territories_of(seat))

    def own(t: str) -> None:
        if t not in mine:
            raise BadOrders("{territory} is not yours: plan only with your own territories.", territory=game.ref(t))
    for p in orders.place:
        if p.territory != FRONT:
            own(p.territory)
    for a in orders.attacks:
        own(a.source)
        if not board.adjacent(a.source, a.target):
            raise BadOrders("{source} cannot attack {target}: they do not border.", source=game.ref(a.source),
                            target=game.ref(a.target))
        if a.target in mine or game.friendly(seat, s.owners.get(a.target)):
            raise BadOrders("{territory} is held by your side: attack an enemy territory.",
                            territory=game.ref(a.target))
        mine.add(a.target)
    f = orders.fortify
    if f is not None:
        own(f.source)
        own(f.target)
        if f.source == f.target or not board.adjacent(f.source, f.target):
            raise BadOrders("{target} is not connected to {source} through your territories.",
                            source=game.ref(f.source), target=game.ref(f.target))


def renewed(game: Game, orders: Orders) -> Orders:
    """A repeating plan after its run: the same orders, checked next time against the board as it is now."""
    return replace(orders, owners={t: game.state.owners.get(t, -1) for t in orders.named()})


# -- running a plan ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """The next action of the plan, and where the plan stands once it is applied; ``notes``: the attacks its
    stop ended on the way (told to the player)."""

    action: Action
    cursor: int
    notes: tuple[OrdersStopped, ...] = ()


@dataclass(frozen=True)
class Stop:
    """The plan goes no further: ``done`` if it ran to its end (the turn ended by it, or its rest left to the
    player as they asked), else ``reason`` says why it stopped (told to the player only). ``waiting``: it is not
    the player's turn (nor may they start one): the plan has not begun and waits."""

    cursor: int
    reason: TemplateError      # OrdersStopped, or the engine's refusal of the order (``RuleError``)
    done: bool = False
    waiting: bool = False
    notes: tuple[OrdersStopped, ...] = ()


# How a plan that ran to its end is told (the texts of its ``Stop``).
ENDED = "Your orders ran to their end and ended your turn."
LEFT = "Your orders ran to their end: the rest of your turn is yours."


def next_step(game: Game, seat: int, orders: Orders, cursor: int = 0) -> Step | Stop:
    """What the plan does next on this board (see the module's doc)."""
    s = game.state
    items = orders.items()
    if s.phase == OVER:
        return Stop(cursor, OrdersStopped("The game is over."), done=cursor > 0)
    running = s.current == seat and s.phase in (REINFORCE, ATTACK, OCCUPY, FORTIFY)
    if not running:
        if cursor > 0:  # the plan's own move ended the turn
            return Stop(len(items), OrdersStopped("Your orders ran to their end and ended your turn."), done=True)
        if not (s.phase == WAITING and game.may_start(seat)):
            return Stop(0, OrdersStopped("It is not your turn."), waiting=True)
    if cursor == 0:
        stale = _stale(game, orders)
        if stale is not None:
            return Stop(0, OrdersStopped("{territory} changed hands since you left your orders: they did not run.",
                                         territory=game.ref(stale)))
    if not running:
        return Step(StartTurn(seat), 0)
    notes: list[OrdersStopped] = []
    while cursor < len(items):
        kind, index = items[cursor]
        answer = _ORDERS[kind](game, seat, orders, index)
        if answer is None:          # this order is done: the next
            cursor += 1
            continue
        if isinstance(answer, Passed):   # an attack's stop: that attack is over, the plan goes on
            notes.append(answer.reason)
            cursor += 1
            continue
        if isinstance(answer, OrdersStopped):
            return Stop(cursor, answer, notes=tuple(notes))
        action, finished = answer
        try:
            game.validate(action)
        except RuleError as exc:
            return Stop(cursor, exc, notes=tuple(notes))
        return Step(action, cursor + 1 if finished else cursor, tuple(notes))
    return Stop(cursor, OrdersStopped("Your orders ran to their end: the rest of your turn is yours."), done=True,
                notes=tuple(notes))


@dataclass(frozen=True)
class Passed:
    """An attack whose stop was reached: it ends there, and the plan goes on with its next order."""

    reason: OrdersStopped


Answer = tuple[Action, bool] | OrdersStopped | Passed | None   # an action (and whether it finishes the order),
#                                                               a stop, an attack's stop, done


def _stale(game: Game, orders: Orders) -> str | None:
    owners = game.state.owners
    return next((t for t, owner in orders.owners.items() if owners.get(t, -1) != owner), None)


def _trade(game: Game, seat: int, orders: Orders, _index: int) -> Answer:
    s = game.state
    if s.phase != REINFORCE:
        return None
    best = game.best_set(seat)
    if best is None:
        return None
    if game.must_trade(seat):
        return Trade(seat, best), False      # again while it must
    if orders.trade:
        return Trade(seat, best), True
    return None


def _place(game: Game, seat: int, orders: Orders, index: int) -> Answer:
    s = game.state
    if s.phase != REINFORCE or s.reinforcements == 0:
        return OrdersStopped("Your orders stopped: you had no armies left to place.")
    if game.must_trade(seat):
        return OrdersStopped("Your orders stopped: you must trade a set first.")
    placing = orders.place[index]
    territory = front(game, seat) if placing.territory == FRONT else placing.territory
    if territory is None:
        return OrdersStopped("Your orders stopped: you hold no territory to place on.")
    if s.owners.get(territory) != seat:
        return _lost(game, territory)
    count = min(placing.count or s.reinforcements, s.reinforcements)
    return Place(seat, territory, count), True


def _attack(game: Game, seat: int, orders: Orders, index: int) -> Answer:
    s = game.state
    order = orders.attacks[index]
    src, dst = order.source, order.target
    if s.phase == REINFORCE:
        return OrdersStopped("Your orders stopped: you still have {left} armies to place.", left=s.reinforcements)
    if s.phase == OCCUPY:
        pending = s.pending or {}
        if (pending.get("from"), pending.get("to")) != (src, dst):
            return OrdersStopped("Your orders stopped: move your armies into the territory you took first.")
        low, high = int(pending["min"]), int(pending["max"])
        # the armies of the last roll are in already (``Occupy`` counts them): all but ``leave`` of both
        wanted = order.move_in if order.move_in is not None else s.armies[src] + s.armies[dst] - order.leave
        return Occupy(seat, max(low, min(high, wanted))), False
    if s.phase != ATTACK:
        return OrdersStopped("Your orders stopped: your attacks are over for this turn.")
    if s.owners.get(dst) == seat:
        return None                 # taken: the next order
    if s.owners.get(src) != seat:
        return _lost(game, src)
    if s.armies[src] <= order.stop_at:
        return Passed(OrdersStopped("{source} is down to {armies} armies, your stop: the attack on {target} stopped "
                                    "there.", source=game.ref(src), armies=s.armies[src], target=game.ref(dst)))
    if order.odds > 0:
        chance = _odds_to(s.armies[src], s.armies[dst], order.stop_at)
        if chance < order.odds:
            return Passed(OrdersStopped("The odds of taking {target} from {source} were {win:.0%}, below your "
                                        "{odds:.0%}: that attack stopped there.", target=game.ref(dst),
                                        source=game.ref(src), win=chance, odds=order.odds))
        return Attack(seat, src, dst), False    # one roll, then the odds again
    return Blitz(seat, src, dst, order.stop_at), False


def _odds_to(armies: int, defenders: int, stop_at: int) -> float:
    """The chance of taking a territory of ``defenders`` armies from ``armies``, attacking down to ``stop_at``."""
    if armies * defenders > QUICK_LIMIT:        # a large battle: the approximation, attacking to the end
        return odds(armies, defenders, QUICK_LIMIT)[0].win
    return battle_odds(armies, defenders, stop_at).win


def _fortify(game: Game, seat: int, orders: Orders, _index: int) -> Answer:
    s = game.state
    order = orders.fortify
    assert order is not None
    if s.phase == REINFORCE:
        return OrdersStopped("Your orders stopped: you still have {left} armies to place.", left=s.reinforcements)
    if s.phase not in (ATTACK, FORTIFY):
        return OrdersStopped("Your orders stopped: move your armies into the territory you took first.")
    for t in (order.source, order.target):
        if s.owners.get(t) != seat:
            return _lost(game, t)
    most = s.armies[order.source] - 1
    if most < 1:
        return OrdersStopped("Your orders stopped: {territory} has only 1 army, none can move.",
                             territory=game.ref(order.source))
    return Fortify(seat, order.source, order.target, min(order.count or most, most)), True


def _end(game: Game, seat: int, orders: Orders, _index: int) -> Answer:
    s = game.state
    if not orders.end:
        return None
    if s.phase == REINFORCE:
        return OrdersStopped("Your orders stopped: you still have {left} armies to place.", left=s.reinforcements)
    if s.phase == OCCUPY:
        return OrdersStopped("Your orders stopped: move your armies into the territory you took first.")
    return EndTurn(seat), True


def _lost(game: Game, territory: str) -> OrdersStopped:
    return OrdersStopped("Your orders stopped: {territory} is no longer yours.", territory=game.ref(territory))


_ORDERS = {"trade": _trade, "place": _place, "attack": _attack, "fortify": _fortify, "end": _end}


def front(game: Game, seat: int) -> str | None:
    """"On my front": the territory of ``seat``'s where the enemy presses hardest (enemy armies next to it less its
    own armies; then the most enemy neighbours, then board order). Only neighbours count, which the seat sees
    under fog too."""
    s = game.state
    best: tuple[int, int, int] | None = None
    chosen = None
    for i, t in enumerate(game.board.territory_ids):
        if s.owners.get(t) != seat:
            continue
        enemies = [n for n in game.board.touching(t) if not game.friendly(seat, s.owners.get(n))]
        key = (1 if enemies else 0, sum(s.armies.get(n, 0) for n in enemies) - s.armies[t], -i)
        if best is None or key > best:
            best, chosen = key, t
    return chosen


# -- no turn waits for nothing ----------------------------------------------------------------------------
def forced_step(game: Game, seat: int) -> Action | None:
    """The step ``seat``'s running turn takes for them, if it has exactly one choice or nothing left to decide:
    a forced trade with one possible set (and no choice of its +2 territory); all the armies to place on the one
    territory they hold, when they hold too few cards for a set; the end of a turn where no attack and no fortify
    move is possible. None otherwise.

    Only a forced trade reads the hand, and its cards are shown by the trade itself; the other steps read what
    every player sees: the number of cards in a hand, and the board, which is why a game whose fog hides the board
    ends no turn by itself. So nothing automatic tells anyone what a hand or a mission holds, nor what fog hides."""
    s = game.state
    if s.phase not in (REINFORCE, ATTACK, FORTIFY) or s.current != seat or seat not in s.active_seats():
        return None
    if s.phase == REINFORCE:
        if game.must_trade(seat):
            sets = game.tradeable_sets(seat)
            bonus = {c for c in sets[0] if not game.board.is_wild(c) and s.owners.get(c) == seat} if sets else set()
            return Trade(seat, sets[0]) if len(sets) == 1 and len(bonus) <= 1 else None
        mine = s.territories_of(seat)
        if len(mine) == 1 and s.reinforcements and (len(s.hands.get(seat, [])) < 3 or s.settings.cards == "none"):
            return Place(seat, mine[0], s.reinforcements)
        return None
    if fog_hides_board(s):
        return None
    if s.phase == ATTACK and game.attack_sources(seat):
        return None
    if game.fortify_sources(seat):
        return None
    return EndTurn(seat)


__all__ = ["ENDED", "FRONT", "LEFT", "MOVES", "PLAN_ATTACKS", "STOPS", "AttackOrder", "FortifyOrder", "Orders",
           "Passed", "Placing", "Step", "Stop", "forced_step", "front", "left", "next_step", "planned", "renewed",
           "tapped_attack"]
