"""The engine under adversarial play: random legal games under every setting, illegal actions of every kind at random
points, and the corners of surrender.

``play_adversarially`` plays one game with the ``random`` AI in every seat (and surrenders and undos of its own). At
random points it tries illegal actions: out of turn, in the wrong phase, with unknown ids, territories not owned or
not adjacent, too many dice, bad counts, invalid or unheld sets, by seats that surrendered, after the game is over.
Each must raise a ``RuleError`` and leave ``to_dict()`` unchanged, and every action the legal-move queries offer
must be accepted. After every action: every owned territory holds an army, the cards add up to the deck, the armies
change exactly by placements less battle losses, no turn starts past ``max_rounds``, and the log replays to the
live state. A finished log passes ``engine.verify``.

On CI a fixed set of games covers every value of every setting (``COVERING``); ``bench/adversarial.py`` plays as
many more as asked.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pytest
from conftest import position
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Game,
    GameState,
    Occupy,
    Place,
    Player,
    Surrender,
    Trade,
    Undo,
    events_for,
)
from engine import errors as E
from engine.actions import EndRound, ReleaseHold, StartTurn, action_from_dict
from engine.ai import ALL_LEVELS, LEVELS, PLAYER_LEVELS, make_ai
from engine.ai.random_play import RandomAI, amount
from engine.cards import WILD_CARDS, full_deck, set_kind
from engine.settings import CHOICES, DEADLINES, LOBBY_ONLY, Settings
from engine.simulate import main as simulate_main
from engine.simulate import play_game
from engine.state import (
    ATTACK,
    CAPITAL,
    CLAIM,
    FORTIFY,
    NEUTRAL,
    OCCUPY,
    OVER,
    REINFORCE,
    SETUP,
    WAITING,
    initial_state,
)
from engine.state import apply_event as reduce
from engine.verify import verify_events

BOARD = Game.new(["a", "b"], "x")[0].board
TERRITORIES = BOARD.territory_ids
DECK_SIZE = len(full_deck(BOARD, wilds=True))
# Names that are no territory: unknown, empty, too long, the start of several names, not text at all.
UNKNOWN_NAMES: tuple[Any, ...] = ("atlantis", "", "x" * 300, "Alaska Alaska", "🙂", "north", None, 7, ["alaska"])
UNKNOWN_CARDS: tuple[Any, ...] = ("atlantis", "wild_3", "", "y" * 300, "Alaska", None, 3)
BAD_SEATS: tuple[Any, ...] = (-1, 6, 99, "0", True, False, None, 0.0)
BAD_NUMBERS: tuple[Any, ...] = (0, -1, True, 1.5, "2", None)
PLAYERS_FOR_TEAMS = {"none": (2, 3, 4, 5, 6), "2v2": (4,), "3v3": (6,), "2v2v2": (6,)}
# Every value of every setting with a list of values, and a few of each number's range (its ends among them).
VALUES: dict[str, tuple[Any, ...]] = {
    **CHOICES,
    "setup_batch": (1, 2, 5, 50),
    # Set-up turns: everyone places at once in a set-up round, a race this harness's one-mover-at-a-time model does
    # not follow; its random games, refusals and replays are tests/test_setup_round.py's.
    "setup": ("turns",),
    "turn_deadline": (60, *DEADLINES, 30 * 86400),
    "max_missed": (0, 3, 100),
    "vacation_days": (0, 7, 60),
    "max_rounds": (0, 1, 2, 3, 15),
    "language": ("", "en", "nb", "es", "fil"),
    "map": ("classic",),
}


class Refused(AssertionError):
    """An adversarial game found a broken rule."""


@dataclass
class Tally:
    """What one adversarial game did."""

    actions: int = 0
    illegal: int = 0
    offered: int = 0
    surrenders: int = 0
    undos: int = 0
    finished: bool = False
    result: str | None = None
    codes: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    corners: Counter[str] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        self.actions += other.actions
        self.illegal += other.illegal
        self.offered += other.offered
        self.surrenders += other.surrenders
        self.undos += other.undos
        self.codes.update(other.codes)
        self.kinds.update(other.kinds)
        self.corners.update(other.corners)


# -- settings ----------------------------------------------------------------------------------------------
def covering_configs() -> list[dict[str, Any]]:
    """Games that between them use every value of every setting, every player count and every team format."""
    teams_cycle = ["none", "2v2", "none", "3v3", "none", "2v2v2", "none", "none", "none", "2v2", "none", "none"]
    players_none = iter([2, 3, 5, 4, 6, 2, 3, 2])
    width = max(len(teams_cycle), *(len(v) for v in VALUES.values()))
    configs = []
    for i in range(width):
        config: dict[str, Any] = {key: values[(i * 7 + len(key)) % len(values)] if key not in CHOICES
                                  else values[i % len(values)] for key, values in VALUES.items()}
        config["teams"] = teams_cycle[i % len(teams_cycle)]
        config["players"] = next(players_none) if config["teams"] == "none" else PLAYERS_FOR_TEAMS[config["teams"]][0]
        configs.append(config)
    return configs


def random_config(rng: random.Random) -> dict[str, Any]:
    """Any setting's value, teams with a player count they allow."""
    config = {key: rng.choice(values) for key, values in VALUES.items()}
    config["players"] = rng.choice(PLAYERS_FOR_TEAMS[config["teams"]])
    return config


COVERING = covering_configs()


def config_id(config: dict[str, Any]) -> str:
    return (f"{config['players']}p-{config['deployment']}-{config['cards']}-{config['fortify']}-{config['mode']}-"
            f"{config['teams']}-r{config['max_rounds']}")


# -- what the engine offers ----------------------------------------------------------------------------------
def offered_actions(game: Game) -> list[Action]:
    """Every action the legal-move queries offer the player whose move it is (one battle at most each)."""
    s = game.state
    seat = s.current
    out: list[Action] = []
    if s.phase == OVER:
        return out
    if s.phase == CLAIM:
        return [Claim(seat, t) for t in game.claimable()]
    if s.phase == SETUP:
        for t in game.placeable(seat):
            left = s.neutral_left if s.owners[t] == NEUTRAL else s.batch_left
            out += [Place(seat, t, 1), Place(seat, t, left)]
        return out
    if s.phase == CAPITAL:
        return [ChooseCapital(seat, t) for t in game.capital_choices(seat)]
    out.append(Surrender(seat))
    if game.can_undo(seat):
        out.append(Undo(seat))
    if s.phase == REINFORCE:
        for cards in game.ranked_sets(seat):
            out.append(Trade(seat, cards))
            out += [Trade(seat, cards, c) for c in cards if c not in WILD_CARDS and s.owners.get(c) == seat]
        if not game.must_trade(seat) and s.reinforcements > 0:
            out += [Place(seat, t, n) for t in game.placeable(seat) for n in {1, s.reinforcements}]
    elif s.phase == OCCUPY:
        low, high = game.move_in_range() or (0, 0)
        out += [Occupy(seat, n) for n in range(low, high + 1)]
    elif s.phase == ATTACK:
        out += [EndAttack(seat), EndTurn(seat)]
        for source in game.attack_sources(seat):
            for target in game.attack_targets(seat, source):
                out += [Attack(seat, source, target, d) for d in game.allowed_dice(source)]
                out += [Attack(seat, source, target), Blitz(seat, source, target, s.armies[source] - 1)]
    elif s.phase == FORTIFY:
        out.append(EndTurn(seat))
    if s.phase in (ATTACK, FORTIFY):
        for source in game.fortify_sources(seat):
            for target in game.fortify_targets(seat, source):
                out += [Fortify(seat, source, target, n) for n in {1, s.armies[source] - 1}]
    return out


def others_offer_nothing(game: Game) -> None:
    """The queries that know whose turn it is offer nothing to the other seats."""
    s = game.state
    for seat in range(len(s.players)):
        if seat == s.current and s.phase != OVER:
            continue
        assert game.tradeable_sets(seat) == [] and not game.must_trade(seat)
        assert game.capital_choices(seat) == [] and game.undoable(seat) == {}


# -- illegal actions ------------------------------------------------------------------------------------------
ALL_KINDS = ("claim", "place", "trade", "attack", "blitz", "occupy", "end_attack", "fortify", "end_turn",
             "choose_capital", "undo")


def any_action(kind: str, seat: Any, game: Game, rng: random.Random) -> Action:
    """An action of ``kind`` by ``seat`` with plausible arguments (territories of that seat where it has any)."""
    s = game.state
    mine = [t for t in TERRITORIES if s.owners.get(t) == seat] or list(TERRITORIES)
    t1 = rng.choice(mine)
    t2 = rng.choice(sorted(BOARD.neighbours(t1)))
    hand = s.hands.get(seat, []) if isinstance(seat, int) and not isinstance(seat, bool) else []
    cards = tuple(hand[:3]) if len(hand) >= 3 else ("wild_1", "wild_2", TERRITORIES[0])
    return {
        "claim": lambda: Claim(seat, rng.choice(game.claimable() or list(TERRITORIES))),
        "place": lambda: Place(seat, t1, 1),
        "trade": lambda: Trade(seat, cards),
        "attack": lambda: Attack(seat, t1, t2, 1),
        "blitz": lambda: Blitz(seat, t1, t2),
        "occupy": lambda: Occupy(seat, s.pending["min"] if s.pending else 1),
        "end_attack": lambda: EndAttack(seat),
        "fortify": lambda: Fortify(seat, t1, t2, 1),
        "end_turn": lambda: EndTurn(seat),
        "choose_capital": lambda: ChooseCapital(seat, t1),
        "undo": lambda: Undo(seat),
    }[kind]()


# The phases in which an action kind may be allowed at all (outside them it is always refused).
PHASES_OF = {"claim": {CLAIM}, "place": {SETUP, REINFORCE}, "trade": {REINFORCE}, "attack": {ATTACK},
             "blitz": {ATTACK}, "occupy": {OCCUPY}, "end_attack": {ATTACK}, "fortify": {ATTACK, FORTIFY},
             "end_turn": {ATTACK, FORTIFY}, "choose_capital": {CAPITAL}, "undo": {REINFORCE, ATTACK}}


# The refusals each kind of mistake may get; a mistake made in a phase that does not allow the action at all may
# also get WrongPhase, and one made while a set must be traded MustTrade (those checks come first).
EXPECTED: dict[str, tuple[type[E.RuleError], ...]] = {
    "after game over": (E.GameOver,), "out of turn": (E.NotYourTurn,), "not a seat": (E.NotYourTurn,),
    "after surrender": (E.NotYourTurn,), "not an action": (E.RuleError,), "wrong phase": (E.WrongPhase, E.MustTrade),
    "nothing to undo": (E.NothingToUndo, E.WrongPhase), "unknown id": (E.UnknownTerritory,),
    "unknown card": (E.InvalidSet,), "not cards": (E.InvalidSet,), "not on the cards": (E.InvalidSet,),
    "already claimed": (E.AlreadyClaimed,), "not owned": (E.NotOwner, E.Teammate),
    "not adjacent": (E.NotAdjacent,), "not reachable": (E.NotAdjacent, E.NotConnected, E.NotOwner),
    "same territory": (E.InvalidCount,), "too many dice": (E.InvalidDice,),
    "bad count": (E.InvalidCount, E.NotEnoughArmies), "unheld set": (E.InvalidSet,), "invalid set": (E.InvalidSet,),
}

# Mistakes of who acts (not of what they do): refused before the phase is looked at.
PERSONAL = {"after game over", "out of turn", "not a seat", "after surrender", "not an action"}


def illegal_actions(game: Game, rng: random.Random) -> Iterator[tuple[str, Action]]:
    """Actions the rules must refuse in this position, each with the kind of mistake it is. Mistakes of
    arguments are made with the actions of the phase, so that the check of that argument is reached."""
    s = game.state
    seat = s.current
    n = len(s.players)
    phase = s.phase
    if phase == OVER:
        for kind in ALL_KINDS:
            yield "after game over", any_action(kind, rng.randrange(n), game, rng)
        for other in range(n):
            yield "after game over", Surrender(other)
        return
    # Out of turn: anyone else, for every kind of action (surrender excepted: it needs no turn).
    for other in (x for x in range(n) if x != seat and not game.may_start(x)):  # freestyle: who may start, may
        yield "out of turn", any_action(rng.choice(ALL_KINDS), other, game, rng)
    yield "not a seat", any_action(rng.choice(ALL_KINDS), rng.choice(BAD_SEATS), game, rng)
    yield "not a seat", Surrender(rng.choice(BAD_SEATS))
    yield "not an action", Action(seat)
    for out in (*s.surrendered, *s.eliminated):
        yield "after surrender", rng.choice([Surrender(out), any_action(rng.choice(ALL_KINDS), out, game, rng)])
    if phase == WAITING:  # freestyle, between turns: a move starts the mover's turn if they may start one
        if not game.may_start(seat):
            yield "out of turn", any_action(rng.choice(ALL_KINDS), seat, game, rng)
        return
    # Wrong phase.
    for kind in ALL_KINDS:
        if phase not in PHASES_OF[kind]:
            yield "wrong phase", any_action(kind, seat, game, rng)
    if phase in (CLAIM, SETUP, CAPITAL):
        yield "wrong phase", Surrender(seat)
    if not game.can_undo(seat):
        yield "nothing to undo", Undo(seat)
    mine = [t for t in TERRITORIES if s.owners.get(t) == seat] or list(TERRITORIES)
    own = rng.choice(mine)
    near = rng.choice(sorted(BOARD.neighbours(own)))
    foreign = [t for t in TERRITORIES if t in s.owners and s.owners[t] != seat
               and not (phase == SETUP and s.two_player and s.owners[t] == NEUTRAL)]
    unfriendly = [t for t in foreign if not game.friendly(seat, s.owners[t])]
    far = [t for t in TERRITORIES if t not in BOARD.neighbours(own) and t != own
           and not game.friendly(seat, s.owners.get(t))]
    unreachable = [t for t in TERRITORIES if t != own and t not in game.fortify_targets(seat, own)]
    # Unknown ids, in every field that names a territory.
    bad = rng.choice(UNKNOWN_NAMES)
    by_phase: dict[str, list[Action]] = {
        CLAIM: [Claim(seat, bad)], SETUP: [Place(seat, bad, 1)], CAPITAL: [ChooseCapital(seat, bad)],
        REINFORCE: [Place(seat, bad, 1)],
        ATTACK: [Attack(seat, bad, near), Attack(seat, own, bad), Blitz(seat, bad, near), Blitz(seat, own, bad),
                 Fortify(seat, bad, own, 1), Fortify(seat, own, bad, 1)],
        FORTIFY: [Fortify(seat, bad, own, 1), Fortify(seat, own, bad, 1)],
    }
    if phase in by_phase and not (phase == REINFORCE and game.must_trade(seat)):
        yield "unknown id", rng.choice(by_phase[phase])
    # Cards: unknown, not cards at all, not held, not a set, a +2 territory not on them.
    hand = s.hands.get(seat, [])
    if phase == REINFORCE and game.can_trade(seat):
        yield "unknown card", Trade(seat, (*hand[:2], rng.choice(UNKNOWN_CARDS)))
        yield "not cards", Trade(seat, rng.choice([None, "abc", (1, 2, 3), (["alaska"], "b", "c")]))  # type: ignore[arg-type]
        unheld = [c for c in full_deck(BOARD) if c not in hand]
        yield "unheld set", Trade(seat, (*hand[:2], rng.choice(unheld)))
        yield "invalid set", Trade(seat, rng.choice([(), tuple(hand[:2]), tuple(hand[:4]) if len(hand) > 3 else ()]))
        if hand:
            yield "invalid set", Trade(seat, (hand[0], hand[0], hand[0]))
        not_sets = [c for c in combinations(hand, 3) if set_kind(BOARD, c) is None]
        if not_sets:
            yield "invalid set", Trade(seat, rng.choice(not_sets))
        sets = game.tradeable_sets(seat)
        if sets:
            cards = rng.choice(sets)
            yield "unknown id", Trade(seat, cards, rng.choice([x for x in UNKNOWN_NAMES if x is not None]))
            on_cards = {c for c in cards if c not in WILD_CARDS and s.owners.get(c) == seat}
            elsewhere = [t for t in mine if t not in on_cards]
            if elsewhere:
                yield "not on the cards", Trade(seat, cards, rng.choice(elsewhere))
    # Not owned, not adjacent, not reachable.
    if phase == CLAIM and s.owners:
        yield "already claimed", Claim(seat, rng.choice(sorted(s.owners)))
    if phase in (SETUP, REINFORCE) and foreign and not game.must_trade(seat):
        yield "not owned", Place(seat, rng.choice(foreign), 1)
    if phase == CAPITAL and foreign:
        yield "not owned", ChooseCapital(seat, rng.choice(foreign))
    if phase == ATTACK and foreign:
        theirs = rng.choice(foreign)
        yield "not owned", Attack(seat, theirs, rng.choice(sorted(BOARD.neighbours(theirs))))
    if phase == ATTACK:
        friendly = [t for t in TERRITORIES if game.friendly(seat, s.owners.get(t))]
        yield "not owned", Attack(seat, own, rng.choice(friendly))
        if far:
            yield "not adjacent", rng.choice([Attack(seat, own, rng.choice(far)), Blitz(seat, own, rng.choice(far))])
    if phase in (ATTACK, FORTIFY):
        if foreign:
            yield "not owned", Fortify(seat, rng.choice(foreign), own, 1)
        if unfriendly:
            yield "not owned", Fortify(seat, own, rng.choice(unfriendly), 1)
        if unreachable:
            yield "not reachable", Fortify(seat, own, rng.choice(unreachable), 1)
        yield "same territory", Fortify(seat, own, own, 1)
    # Too many dice, bad counts.
    sources = game.attack_sources(seat)
    if phase == ATTACK and sources:
        source = rng.choice(sources)
        target = rng.choice(game.attack_targets(seat, source))
        allowed = game.allowed_dice(source)
        yield "too many dice", Attack(seat, source, target, rng.choice([len(allowed) + 1, 4, 0, -1, True, 2.0, "2"]))
        stop_at = rng.choice([s.armies[source], s.armies[source] + 5, *BAD_NUMBERS])
        yield "bad count", Blitz(seat, source, target, stop_at)
    if phase == REINFORCE and not game.must_trade(seat):
        yield "bad count", Place(seat, own, rng.choice([s.reinforcements + 1, *BAD_NUMBERS]))
    if phase == SETUP:
        target = rng.choice(game.placeable(seat))
        left = s.neutral_left if s.owners.get(target) == NEUTRAL else s.batch_left
        yield "bad count", Place(seat, target, rng.choice([left + 1, *BAD_NUMBERS]))
    if phase == OCCUPY and s.pending:
        yield "bad count", Occupy(seat, rng.choice([s.pending["min"] - 1, s.pending["max"] + 1, *BAD_NUMBERS]))
    fortify_from = game.fortify_sources(seat)
    if phase in (ATTACK, FORTIFY) and fortify_from:
        source = rng.choice(fortify_from)
        target = rng.choice(game.fortify_targets(seat, source))
        yield "bad count", Fortify(seat, source, target, rng.choice([s.armies[source], *BAD_NUMBERS]))


def refuse(game: Game, action: Action, why: str, tally: Tally) -> None:
    """``action`` must raise a RuleError of the kind the mistake calls for, and leave the state as it was."""
    before = game.state.to_dict()
    try:
        game.apply(action)
    except E.RuleError as exc:
        if game.state.to_dict() != before:
            raise Refused(f"{why}: refusing {action!r} changed the state ({exc})") from exc
        if not str(exc):
            raise Refused(f"{why}: {action!r} was refused without a message") from exc
        expected = EXPECTED[why]
        if why not in PERSONAL and before["phase"] not in PHASES_OF.get(action.kind, {before["phase"]}):
            expected = (*expected, E.WrongPhase, E.MustTrade)
        if not isinstance(exc, expected):
            raise Refused(f"{why}: {action!r} was refused with {type(exc).__name__} ({exc}), not "
                          f"{' or '.join(c.__name__ for c in expected)}") from exc
        tally.codes[exc.code] += 1
    except Exception as exc:
        raise Refused(f"{why}: {action!r} raised {type(exc).__name__}: {exc}") from exc
    else:
        raise Refused(f"{why}: {action!r} was accepted in phase {before['phase']} (seat {before['current']} to play)")
    tally.illegal += 1
    tally.kinds[why] += 1


# -- invariants ------------------------------------------------------------------------------------------------
def army_change(events: list[dict[str, Any]]) -> int:
    """Armies put on the board (claims, deals, placements) less those taken back (undo) and lost in battle."""
    change = 0
    for e in events:
        kind = e["type"]
        if kind == "territory_claimed":
            change += 1
        elif kind == "territories_dealt":
            change += len(e["owners"])
        elif kind == "armies_placed":
            change += e["count"]
        elif kind == "placements_undone":
            change -= e["armies"]
        elif kind == "battle":
            change -= e["attacker_losses"] + e["defender_losses"]
    return change


def check_invariants(game: Game, armies: int, new: list[dict[str, Any]]) -> None:
    s = game.state
    if s.phase != CLAIM:
        assert set(s.owners) == set(TERRITORIES), "a territory has no owner"
    for t, owner in s.owners.items():
        assert s.armies[t] >= 1, f"{t} holds {s.armies[t]} armies"
        assert owner == NEUTRAL or (0 <= owner < len(s.players) and owner in s.active_seats()), f"{t}: {owner}"
    assert sum(s.armies.values()) == armies, "armies appeared or vanished"
    cards = s.deck + s.discard + [c for hand in s.hands.values() for c in hand]
    if s.settings.cards == "none":
        assert cards == []
    elif s.phase not in (CLAIM, SETUP):
        assert len(cards) == DECK_SIZE and len(set(cards)) == DECK_SIZE, "cards appeared or vanished"
    for seat in (*s.surrendered, *s.eliminated):
        assert s.hands[seat] == [], f"seat {seat} is out but holds cards"
    assert s.reinforcements >= 0
    assert (s.pending is not None) == (s.phase == OCCUPY)
    limit = s.settings.max_rounds
    if limit:
        assert s.round <= limit
        for e in new:
            if e["type"] == "turn_started":
                assert e["round"] <= limit, f"turn {e['turn']} started in round {e['round']} of {limit}"
    if s.phase == OVER:
        assert new and new[-1]["type"] == "game_over"


# -- one game --------------------------------------------------------------------------------------------------
def play_adversarially(config: dict[str, Any], seed: int, max_actions: int = 400, illegal_rate: float = 0.3,
                       offered_rate: float = 0.05, surrender_rate: float = 0.01, undo_rate: float = 0.1) -> Tally:
    """Play one game under ``config`` (settings and ``players``) as described above; raise Refused (an
    AssertionError) at the first broken rule. ``max_actions`` bounds the legal actions played."""
    rng = random.Random(f"adversarial:{seed}")
    tally = Tally()
    config = dict(config)
    count = config.pop("players")
    team_of = config.pop("team_of", None)
    players = [Player(i, f"R{i}", "ai", "random") for i in range(count)]
    secret = f"adversarial-{seed}"
    game, events = Game.new(players, secret, config, team_of=team_of)
    mirror = initial_state(events[0], secret)
    for e in events[1:]:
        reduce(mirror, e)
    armies = army_change(events)
    check_invariants(game, armies, events)
    ais = [RandomAI(str(i), seed=str(seed)) for i in range(count)]
    while tally.actions < max_actions:
        if rng.random() < illegal_rate or game.state.phase == OVER:
            for why, action in illegal_actions(game, rng):
                refuse(game, action, why, tally)
        if game.state.phase == OVER:
            break
        if rng.random() < offered_rate:
            for action in offered_actions(game):
                try:
                    game.validate(action)
                except E.RuleError as exc:
                    raise Refused(f"offered {action!r} was refused: {exc}") from exc
                tally.offered += 1
            others_offer_nothing(game)
        action = next_action(game, ais, rng, surrender_rate, undo_rate)
        tally.surrenders += isinstance(action, Surrender)
        tally.undos += isinstance(action, Undo)
        note_corners(game, action, tally)
        try:
            new = game.apply(action)
        except E.RuleError as exc:
            raise Refused(f"the legal {action!r} was refused: {exc}") from exc
        tally.actions += 1
        events += new
        armies += army_change(new)
        for e in new:
            reduce(mirror, e)
            if e["type"] in CORNER_EVENTS and (e["type"] != "deck_shuffled" or e.get("from_discard")):
                tally.corners[CORNER_EVENTS[e["type"]]] += 1
            if e["type"] == "game_over" and isinstance(action, Surrender):
                tally.corners[f"game over by a surrender ({e['reason']})"] += 1
        check_invariants(game, armies, new)
        if mirror.to_dict() != game.state.to_dict():
            raise Refused(f"the log no longer replays to the live state after {action!r}")
    state = game.state
    assert Game.from_events(events, seed=state.seed).state.to_dict() == state.to_dict()
    assert GameState.from_dict(json.loads(json.dumps(state.to_dict()))).to_dict() == state.to_dict()
    for seat in (None, *range(count)):
        assert len(events_for(events, seat)) == len(events)
    if state.phase == OVER:
        verify_events(events)
        tally.finished = True
        tally.result = state.result
    return tally


CORNER_EVENTS = {"player_eliminated": "elimination", "mission_changed": "mission changed",
                 "deck_shuffled": "discard pile reshuffled"}


def note_corners(game: Game, action: Action, tally: Tally) -> None:
    """Count the rare positions an action is played in (for the bench's report)."""
    s = game.state
    if isinstance(action, Surrender):
        if action.seat != s.current:
            tally.corners["surrender out of turn"] += 1
        elif s.phase == OCCUPY:
            tally.corners["surrender with a move-in pending"] += 1
        elif s.trade_down:
            tally.corners["surrender during a forced trade"] += 1
        elif s.phase == REINFORCE:
            tally.corners["surrender with reinforcements to place"] += 1
    elif isinstance(action, Trade) and s.trade_down:
        tally.corners["forced trade"] += 1
    elif isinstance(action, Occupy) and s.pending and s.pending["min"] < s.pending["max"]:
        edge = {s.pending["min"]: "the least", s.pending["max"]: "the most"}.get(action.count, "between")
        tally.corners[f"move-in: {edge}"] += 1
    elif isinstance(action, Attack) and action.dice == 1:
        tally.corners["attack with one die"] += 1


def next_action(game: Game, ais: list[RandomAI], rng: random.Random, surrender_rate: float,
                undo_rate: float) -> Action:
    """The random AI's move, or now and then a surrender (by anyone still playing) or an undo."""
    s = game.state
    if s.phase not in (CLAIM, SETUP, CAPITAL) and rng.random() < surrender_rate:
        return Surrender(rng.choice(s.active_seats()))
    if game.can_undo(s.current) and rng.random() < undo_rate:
        return Undo(s.current)
    if s.phase == WAITING:  # a freestyle round between turns: a player starts, a hold ends or time runs out
        if rng.random() < 0.05:
            return EndRound(s.active_seats()[0])
        starters = game.starters()
        return StartTurn(rng.choice(starters)) if starters else ReleaseHold(s.held if s.held is not None else -1)
    return ais[s.current].choose(game, s.current)


# -- the fixed games, and more at random ----------------------------------------------------------------------
def test_the_fixed_games_cover_every_setting_value_and_player_count():
    for key, values in VALUES.items():
        assert {c[key] for c in COVERING} == set(values), key
    assert {c["players"] for c in COVERING if c["teams"] == "none"} == {2, 3, 4, 5, 6}
    for config in COVERING:
        settings_only = {k: v for k, v in config.items() if k != "players"}
        Settings.from_dict(settings_only).check_players(config["players"])
    assert set(VALUES) == set(Settings().to_dict()) - LOBBY_ONLY  # every setting a game plays by


@pytest.mark.parametrize("config", COVERING, ids=config_id)
def test_adversarial_play_under_every_setting(config):
    tally = Tally()
    for seed in range(12):  # games until some 400 actions are played (a round limit may end them early)
        tally.add(play_adversarially(config, seed))
        if tally.actions >= 400:
            break
    assert tally.illegal > tally.actions > 0


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choice=st.randoms(use_true_random=False), seed=st.integers(0, 2**32 - 1), explicit_teams=st.booleans())
def test_adversarial_play_under_random_settings(choice, seed, explicit_teams):
    config = random_config(choice)
    if explicit_teams and config["teams"] != "none":
        settings_only = Settings.from_dict({"teams": config["teams"]})
        team_of = [t for t in range(settings_only.team_count) for _ in range(settings_only.team_size)]
        choice.shuffle(team_of)
        config["team_of"] = team_of
    play_adversarially(config, seed, max_actions=300)


# -- the random AI -----------------------------------------------------------------------------------------------
def test_random_is_a_level_for_simulations_but_not_offered_to_players():
    assert "random" in ALL_LEVELS and "random" not in PLAYER_LEVELS and LEVELS == PLAYER_LEVELS
    assert set(PLAYER_LEVELS) < set(ALL_LEVELS)
    assert isinstance(make_ai("random", salt="1"), RandomAI)


def test_random_games_finish_replay_and_verify():
    for players in (2, 4, 6):
        result = play_game(["random"] * players, f"random-{players}", {"deployment": "auto"})
        state = result.game.state
        assert state.phase == OVER and state.result is not None
        assert Game.from_events(result.events, seed=state.seed).state.to_dict() == state.to_dict()
        verify_events(result.events)


def test_random_ai_is_deterministic_and_uses_no_global_random():
    game, _ = Game.new(["A", "B", "C"], "det", {"deployment": "auto"})
    ai = RandomAI("0", seed="s")
    random.seed(1)
    first = ai.choose(game, game.state.current)
    random.seed(2)
    assert ai.choose(game, game.state.current) == first
    state = random.getstate()
    for _ in range(30):
        game.apply(ai.choose(game, game.state.current))
    assert random.getstate() == state
    other = [RandomAI("0", seed=str(k)).choose(Game.new(["A", "B", "C"], "det", {"deployment": "auto"})[0], 0)
             for k in range(12)]
    assert len(set(map(repr, other))) > 1, "the seed varies the choices"


def test_random_ai_favours_edge_values():
    rng = random.Random(4)
    drawn = Counter(amount(rng, 1, 10) for _ in range(3000))
    assert drawn[1] > 900 and drawn[10] > 900 and all(drawn[k] > 0 for k in range(2, 10))
    assert amount(rng, 3, 3) == 3


def test_random_ai_never_undoes_and_stops_attacking():
    game = position(Game.new(["A", "B"], "stop", {"deployment": "auto"})[0],
                    dict.fromkeys(TERRITORIES[:30], 0), dict.fromkeys(TERRITORIES[:30], 30), phase=ATTACK)
    game.state.undoable_placements = {TERRITORIES[0]: 3}
    kinds = Counter(type(RandomAI("0", seed=str(k), surrender=0).choose(game, 0)).__name__ for k in range(400))
    assert kinds["Undo"] == 0
    assert kinds["Attack"] > 100 and kinds["Blitz"] > 100
    assert 20 < kinds["EndAttack"] + kinds["EndTurn"] + kinds["Fortify"] < 120


def test_simulate_plays_random_games(capsys):
    assert simulate_main(["--ai", "random", "--players", "3", "--games", "2", "--set", "deployment=auto",
                          "--quiet"]) == 0
    assert "wins by AI level: random" in capsys.readouterr().out


# -- bug: an unknown id crashed instead of being refused -------------------------------------------------------
def in_reinforcement(hand: list[str]) -> Game:
    game, _ = Game.new(["A", "B", "C"], "ids", {"deployment": "auto"})
    assert game.state.phase == REINFORCE
    game.state.hands[game.state.current] = list(hand)
    return game


def refused(game: Game, action: Any) -> E.RuleError:
    before = game.state.to_dict()
    with pytest.raises(E.RuleError) as info:
        game.apply(action)
    assert game.state.to_dict() == before
    return info.value


def test_a_trade_naming_an_unknown_card_is_refused():
    game = in_reinforcement(["east_africa", "ontario", "brazil"])
    seat = game.state.current
    exc = refused(game, Trade(seat, ("east_africa", "ontario", "atlantis")))
    assert isinstance(exc, E.InvalidSet)
    assert exc.template == "There is no card “{card}”." and exc.params == {"card": "atlantis"}
    long = refused(game, Trade(seat, ("east_africa", "ontario", "z" * 500)))
    assert long.params["card"] == E.clip("z" * 500) and len(long.params["card"]) == E.ECHO_LIMIT
    assert game.missing_card("atlantis").params == {"card": "atlantis"}


SET = ("east_africa", "ontario", "peru")  # three cavalry
ODD_IDS = [
    (REINFORCE, Trade(0, None), E.InvalidSet), (REINFORCE, Trade(0, "abc"), E.InvalidSet),  # type: ignore[arg-type]
    (REINFORCE, Trade(0, (1, 2, 3)), E.InvalidSet), (REINFORCE, Trade(0, (["ontario"], "b", "c")), E.InvalidSet),  # type: ignore[arg-type]
    (REINFORCE, Trade(0, (*SET[:2], "atlantis")), E.InvalidSet), (REINFORCE, Trade(0, SET[:2]), E.InvalidSet),
    (REINFORCE, Trade(0, SET, "atlantis"), E.UnknownTerritory), (REINFORCE, Trade(0, SET, 5), E.UnknownTerritory),  # type: ignore[arg-type]
    (REINFORCE, Place(0, None), E.UnknownTerritory), (REINFORCE, Place(0, 5), E.UnknownTerritory),  # type: ignore[arg-type]
    (REINFORCE, Place(0, "atlantis"), E.UnknownTerritory), (REINFORCE, Place(0, ["alaska"]), E.UnknownTerritory),  # type: ignore[arg-type]
    (ATTACK, Attack(0, 3, "alaska"), E.UnknownTerritory), (ATTACK, Blitz(0, "alaska", None), E.UnknownTerritory),  # type: ignore[arg-type]
    (ATTACK, Fortify(0, "alaska", {"a": 1}, 1), E.UnknownTerritory),  # type: ignore[arg-type]
    (ATTACK, Fortify(0, "", "alaska", 1), E.UnknownTerritory),
    (REINFORCE, Claim("0", "alaska"), E.NotYourTurn), (REINFORCE, Place(True, "alaska"), E.NotYourTurn),  # type: ignore[arg-type]
    (REINFORCE, Surrender(True), E.NotYourTurn), (REINFORCE, Surrender(None), E.NotYourTurn),  # type: ignore[arg-type]
    (REINFORCE, Surrender(-1), E.NotYourTurn), (REINFORCE, Surrender(3), E.NotYourTurn),
    (REINFORCE, Undo(1.0), E.NotYourTurn), (REINFORCE, EndTurn(-1), E.NotYourTurn),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("phase", "action", "expected"), ODD_IDS, ids=lambda x: repr(x)[:60])
def test_every_id_from_outside_is_checked_before_use(phase, action, expected):
    game = in_reinforcement([])
    s = game.state
    s.current = 0
    s.hands[0] = list(SET)
    if phase == ATTACK:
        s.hands[0] = []
        game.apply(Place(0, game.placeable(0)[0], s.reinforcements))
    assert s.phase == phase
    assert isinstance(refused(game, action), expected)


def test_an_unknown_territory_is_named_clipped_in_the_refusal():
    game = in_reinforcement([])
    exc = refused(game, Place(game.state.current, "q" * 400))
    assert isinstance(exc, E.UnknownTerritory) and exc.params["text"] == E.clip("q" * 400)
    exc = refused(game, Place(game.state.current, 42))  # type: ignore[arg-type]
    assert isinstance(exc, E.UnknownTerritory) and exc.params["text"] == "42"


def test_actions_rebuilt_from_any_dict_are_refused_or_checked():
    game = in_reinforcement([])
    for data in ({"type": "trade", "seat": 0, "cards": [["x"], {}, None]}, {"type": "place", "seat": "x"},
                 {"type": "attack", "seat": 0, "source": {"a": 1}, "target": [], "dice": "many"}):
        try:
            action = action_from_dict(data)
        except E.RuleError:
            continue
        refused(game, action)


# -- bug: a surrender on the last turn of the final round started another turn -----------------------------------
def last_turn_of_round(max_rounds: int, players: int = 3) -> Game:
    game, _ = Game.new([f"P{i}" for i in range(players)], "limit", {"deployment": "auto", "max_rounds": max_rounds})
    ai = make_ai("skip")
    s = game.state
    while not (s.round == max_rounds and s.next_seat(s.current) == s.first_seat):
        game.apply(ai.choose(game, s.current))
    return game


@pytest.mark.parametrize("phase", [REINFORCE, ATTACK, OCCUPY])
def test_a_surrender_on_the_last_turn_of_the_final_round_ends_the_game_by_the_round_limit(phase):
    game = last_turn_of_round(2)
    s = game.state
    seat = s.current
    if phase != REINFORCE:
        game.apply(Place(seat, game.placeable(seat)[0], s.reinforcements))
    ended = Game(s.copy())  # the same turn ended the ordinary way
    if ended.state.phase == REINFORCE:
        ended.apply(Place(seat, ended.placeable(seat)[0], s.reinforcements))
    by_end_turn = ended.apply(EndTurn(seat))
    if phase == OCCUPY:
        source = max(game.attack_sources(seat), key=lambda t: s.armies[t])
        target = game.attack_targets(seat, source)[0]
        s.armies[source], s.armies[target] = 500, 1
        while s.phase != OCCUPY:
            game.apply(Attack(seat, source, target, 3))
    events = game.apply(Surrender(seat))
    assert [e["type"] for e in events] == ["player_surrendered", "turn_ended", "game_over"]
    assert [e["type"] for e in by_end_turn] == ["turn_ended", "game_over"]
    assert events[-1]["reason"] == by_end_turn[-1]["reason"] == "round_limit"
    assert s.phase == OVER and s.round == 2 and s.pending is None
    assert s.winner == game.leader() and s.winner != seat


def test_a_surrender_earlier_in_the_final_round_passes_the_turn():
    game, _ = Game.new(["A", "B", "C"], "limit", {"deployment": "auto", "max_rounds": 1})
    s = game.state
    events = game.apply(Surrender(s.current))
    assert events[-1]["type"] == "turn_started" and events[-1]["round"] == 1 and s.phase == REINFORCE


def test_a_round_limit_reached_by_a_surrender_with_teams_names_a_team_still_playing():
    game, _ = Game.new([f"P{i}" for i in range(4)], "limit", {"deployment": "auto", "max_rounds": 1, "teams": "2v2"})
    ai = make_ai("skip")
    s = game.state
    while s.next_seat(s.current) != s.first_seat:
        game.apply(ai.choose(game, s.current))
    seat = s.current
    over = game.apply(Surrender(seat))[-1]
    assert over["type"] == "game_over" and over["reason"] == "round_limit"
    team = s.teams[over["winner"]]
    assert over["winner"] != seat and over["winners"] == [x for x in range(4) if s.teams[x] == team]


# -- what a surrender does in the middle of a turn -------------------------------------------------------------
def conquest_pending() -> tuple[Game, int, dict[str, Any]]:
    """Four players; seat 0 has just taken Kamchatka from seat 1 and not yet moved in."""
    owners = {"alaska": 0, "kamchatka": 1, "yakutsk": 1, "irkutsk": 1, "siam": 3, "india": 3}
    game = position(Game.new([f"P{i}" for i in range(4)], "mid", {"deployment": "auto"})[0], owners,
                    {"alaska": 10, "kamchatka": 1}, seat=0, phase=ATTACK, default_owner=2)
    game.state.undoable_placements = None
    while game.state.phase != OCCUPY:
        game.apply(Attack(0, "alaska", "kamchatka", 3))
    return game, 0, dict(game.state.pending or {})


def test_a_surrender_with_a_move_in_pending_leaves_the_armies_that_moved_in_neutral():
    game, seat, pending = conquest_pending()
    s = game.state
    inside = s.armies["kamchatka"]
    behind = s.armies["alaska"]
    assert inside == pending["min"] and pending["max"] > pending["min"] and s.conquered_this_turn
    events = game.apply(Surrender(seat))
    assert [e["type"] for e in events] == ["player_surrendered", "turn_ended", "turn_started"]
    assert s.pending is None and s.phase == REINFORCE and s.current == 1
    assert s.owners["kamchatka"] == NEUTRAL and s.armies["kamchatka"] == inside
    assert s.owners["alaska"] == NEUTRAL and s.armies["alaska"] == behind


def test_a_surrender_loses_the_reinforcements_not_yet_placed():
    game, _ = Game.new(["A", "B", "C"], "unplaced", {"deployment": "auto"})
    s = game.state
    seat = s.current
    territory = game.placeable(seat)[0]
    game.apply(Place(seat, territory, 1))
    total = sum(s.armies.values())
    held = s.armies[territory]
    left = s.reinforcements
    assert left > 0
    events = game.apply(Surrender(seat))
    assert not any(e["type"] == "armies_placed" for e in events)
    assert sum(s.armies.values()) == total  # the placed army stays (now neutral); the others are never placed
    assert s.owners[territory] == NEUTRAL and s.armies[territory] == held
    nxt = events[-1]
    assert nxt["type"] == "turn_started" and s.reinforcements == nxt["total"]


def deal_hand(game: Game, seat: int, cards: list[str]) -> None:
    """Give ``seat`` these cards from the deck (the cards still add up to the deck)."""
    s = game.state
    for card in cards:
        s.deck.remove(card)
    s.hands[seat] = list(cards)


def test_a_surrender_during_a_forced_trade_discards_every_card_and_loses_the_armies_of_the_sets_traded():
    owners = {"alaska": 0, "kamchatka": 1, "siam": 3, "india": 3}
    game = position(Game.new(["A", "B", "C", "D"], "forced", {"deployment": "auto"})[0], owners,
                    {"alaska": 30, "kamchatka": 1}, seat=0, phase=ATTACK, default_owner=2)
    s = game.state
    s.undoable_placements = None
    deal_hand(game, 0, ["alberta", "ontario", "peru", "brazil"])
    deal_hand(game, 1, ["egypt", "congo", "wild_1", "japan", "china"])
    while s.phase != OCCUPY:
        game.apply(Attack(0, "alaska", "kamchatka", 3))
    game.apply(Occupy(0, s.pending["min"] if s.pending else 3))
    assert s.phase == REINFORCE and s.trade_down and len(s.hands[0]) == 9 and game.must_trade(0)
    game.apply(Trade(0, game.ranked_sets(0)[0]))
    assert game.must_trade(0) and s.reinforcements > 0
    armies, hand, discard = sum(s.armies.values()), list(s.hands[0]), list(s.discard)
    events = game.apply(Surrender(0))
    assert [e["type"] for e in events] == ["player_surrendered", "turn_ended", "turn_started"]
    assert s.hands[0] == [] and s.discard == discard + hand and len(s.hands[0] + s.discard) == 9
    assert sum(s.armies.values()) == armies  # the armies of the set are never placed
    assert s.trade_down is False and s.current == 2 and s.phase == REINFORCE


@pytest.mark.parametrize(("teams", "reason"), [("none", "conquest"), ("2v2", "teams")])
def test_the_last_player_standing_after_a_surrender_wins_by_conquest_though_neutral_territories_remain(teams, reason):
    players = 3 if teams == "none" else 4
    owners = {"alaska": 0, "kamchatka": 1, "siam": 0 if teams == "none" else 2}
    game = position(Game.new([f"P{i}" for i in range(players)], "last", {"deployment": "auto", "teams": teams})[0],
                    owners, {"alaska": 30, "kamchatka": 1}, seat=0, phase=ATTACK, default_owner=players - 1)
    s = game.state
    s.undoable_placements = None
    out = players - 1
    game.apply(Surrender(out))  # out of turn: the turn stays with seat 0; the surrendered territories are neutral
    assert s.current == 0 and s.phase == ATTACK and out not in s.active_seats()
    assert sum(1 for o in s.owners.values() if o == NEUTRAL) == 39
    events = []
    while s.phase != OVER:
        events += game.apply(Attack(0, "alaska", "kamchatka", 3))
    over = events[-1]
    assert over["type"] == "game_over" and over["reason"] == reason and over["winner"] == 0
    assert [e["type"] for e in events[-4:-1]] == ["territory_conquered", "player_eliminated", "occupied"]
    assert NEUTRAL in s.owners.values()
    if teams != "none":
        assert over["winners"] == [0, 2]


def test_the_last_player_standing_after_surrenders_wins_by_surrender_when_nobody_is_conquered():
    game, _ = Game.new(["A", "B", "C"], "last2", {"deployment": "auto"})
    s = game.state
    first = s.current
    game.apply(Surrender((first + 1) % 3))
    events = game.apply(Surrender((first + 2) % 3))
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "surrender"
    assert events[-1]["winner"] == first

