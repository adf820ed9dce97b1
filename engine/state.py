"""The game state and the event reducer.

Every change to a game is an event (a plain JSON-ready dict with a ``type``, typed in ``engine.events``).
``apply_event`` is the one place that changes a state, so a game's log replays to exactly the state the engine had.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from . import events as ev
from .board import Board, load_map
from .events import Event as Event  # noqa: PLC0414  (re-exported; the events are typed in engine.events)
from .phases import ATTACK, CAPITAL, CLAIM, FORTIFY, OCCUPY, OVER, REINFORCE, SETUP, WAITING, next_phase
from .settings import Settings

SCHEMA_VERSION = 1
NEUTRAL = -1



@dataclass
class Player:
    seat: int
    name: str
    kind: str = "human"          # human | ai
    level: str | None = None     # AI level for kind "ai"

    def to_dict(self) -> ev.Roster:
        return {"seat": self.seat, "name": self.name, "kind": self.kind, "level": self.level}


@dataclass
class GameState:
    """Everything about one game. Serialises to JSON and back without loss."""

    settings: Settings
    players: list[Player]
    seed: str = ""
    seed_commitment: str = ""
    owners: dict[str, int] = field(default_factory=dict)
    armies: dict[str, int] = field(default_factory=dict)
    phase: str = CLAIM
    current: int = 0
    first_seat: int = 0
    turn: int = 0
    round: int = 0
    setup_remaining: dict[int, int] = field(default_factory=dict)
    batch_left: int = 0
    neutral_left: int = 0
    reinforcements: int = 0
    deck: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    hands: dict[int, list[str]] = field(default_factory=dict)
    sets_traded: int = 0
    bonus_this_turn: int = 0
    conquered_this_turn: bool = False
    # Turn order "freestyle": the players who may still take a turn this round (seat order), each one's
    # reinforcements for it (fixed when it opened), and the player held back from its first turn, if any.
    to_play: list[int] = field(default_factory=list)
    income: dict[int, ev.Reinforcements] = field(default_factory=dict)
    held: int | None = None
    trade_down: bool = False
    # Set-up in one round (``setup: round``): each player's starting armies placed but not yet revealed,
    # {seat: {territory: armies}} (hidden information: only its player sees their own); None outside the round.
    sealed: dict[int, dict[str, int]] | None = None
    # Reinforcement armies placed this turn that ``Undo`` would take back ({territory: armies}); None once the turn
    # can no longer be undone (a battle, the end of the attacks, a fortify move) and outside turns.
    undoable_placements: dict[str, int] | None = None
    pending: dict[str, Any] | None = None
    eliminated: list[int] = field(default_factory=list)
    surrendered: list[int] = field(default_factory=list)
    winner: int | None = None
    winners: list[int] = field(default_factory=list)   # the winner, or with teams the whole winning team
    result: str | None = None
    teams: dict[int, int] = field(default_factory=dict)             # seat -> team (teams games only)
    missions: dict[int, dict[str, Any]] = field(default_factory=dict)  # seat -> mission (mode "missions")
    capitals: dict[int, str] = field(default_factory=dict)          # seat -> territory (mode "capitals")
    dice_index: int = 0
    draw_index: int = 0
    event_count: int = 0

    # -- derived facts ---------------------------------------------------------------------------
    @property
    def board(self) -> Board:
        return load_map(self.settings.map)

    @property
    def two_player(self) -> bool:
        return len(self.players) == 2

    def active_seats(self) -> list[int]:
        """Seats still in the game, in seat order."""
        out = set(self.eliminated) | set(self.surrendered)
        return [p.seat for p in self.players if p.seat not in out]

    @property
    def freestyle(self) -> bool:
        """Whether turns are taken in freestyle rounds (``turn_order: freestyle``)."""
        return self.settings.turn_order == "freestyle"

    def player(self, seat: int) -> Player:
        return self.players[seat]

    def seat_name(self, seat: int) -> str:
        return "Neutral" if seat == NEUTRAL else self.players[seat].name

    def territories_of(self, seat: int) -> list[str]:
        return [t for t, s in self.owners.items() if s == seat]

    def army_total(self, seat: int) -> int:
        return sum(a for t, a in self.armies.items() if self.owners.get(t) == seat)

    def next_seat(self, seat: int, candidates: list[int] | None = None) -> int:
        """The next seat after ``seat`` in seat order among ``candidates`` (default: active seats)."""
        pool = self.active_seats() if candidates is None else candidates
        n = len(self.players)
        for step in range(1, n + 1):
            s = (seat + step) % n
            if s in pool:
                return s
        return seat

    def copy(self) -> GameState:
        """A deep copy (hand-written: this runs before every action, and deepcopy is slow)."""
        new = copy.copy(self)
        new.players = [copy.copy(p) for p in self.players]
        new.owners = dict(self.owners)
        new.armies = dict(self.armies)
        new.setup_remaining = dict(self.setup_remaining)
        new.deck = list(self.deck)
        new.discard = list(self.discard)
        new.hands = {k: list(v) for k, v in self.hands.items()}
        new.pending = dict(self.pending) if self.pending else None
        new.undoable_placements = None if self.undoable_placements is None else dict(self.undoable_placements)
        new.eliminated = list(self.eliminated)
        new.surrendered = list(self.surrendered)
        new.winners = list(self.winners)
        new.teams = dict(self.teams)
        new.missions = dict(self.missions)  # the reducer replaces a mission whole, never edits one in place
        new.capitals = dict(self.capitals)
        new.to_play = list(self.to_play)
        new.income = dict(self.income)
        new.sealed = None if self.sealed is None else {k: dict(v) for k, v in self.sealed.items()}
        return new

    # -- serialisation ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = self._fields_dict()
        if self.freestyle:  # only a freestyle game has a round's state: others read as before it existed
            data.update({"to_play": list(self.to_play),
                     "income": {str(k): copy.deepcopy(v) for k, v in self.income.items()},
                         "held": self.held})
        if self.sealed is not None:  # only a set-up round has sealed placements: others read as before it existed
            data["sealed"] = {str(k): dict(v) for k, v in self.sealed.items()}
        return data

    def _fields_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "settings": self.settings.game_dict(),
            "players": [p.to_dict() for p in self.players],
            "seed": self.seed, "seed_commitment": self.seed_commitment,
            "owners": dict(self.owners), "armies": dict(self.armies),
            "phase": self.phase, "current": self.current, "first_seat": self.first_seat, "turn": self.turn,
            "round": self.round,
            "setup_remaining": {str(k): v for k, v in self.setup_remaining.items()},
            "batch_left": self.batch_left, "neutral_left": self.neutral_left,
            "reinforcements": self.reinforcements,
            "deck": list(self.deck), "discard": list(self.discard),
            "hands": {str(k): list(v) for k, v in self.hands.items()},
            "sets_traded": self.sets_traded, "bonus_this_turn": self.bonus_this_turn,
            "conquered_this_turn": self.conquered_this_turn, "trade_down": self.trade_down,
            "pending": dict(self.pending) if self.pending else None,
            "undoable_placements": None if self.undoable_placements is None else dict(self.undoable_placements),
            "eliminated": list(self.eliminated), "surrendered": list(self.surrendered),
            "winner": self.winner, "winners": list(self.winners), "result": self.result,
            "teams": {str(k): v for k, v in self.teams.items()},
            "missions": {str(k): copy.deepcopy(v) for k, v in self.missions.items()},
            "capitals": {str(k): v for k, v in self.capitals.items()},
            "dice_index": self.dice_index, "draw_index": self.draw_index, "event_count": self.event_count,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        schema = data.get("schema")
        if schema != SCHEMA_VERSION:
            raise ValueError(f"game state schema {schema} is not supported (this engine reads {SCHEMA_VERSION})")
        return cls(
            settings=Settings.from_dict(data["settings"]),
            players=[Player(**p) for p in data["players"]],
            seed=data["seed"], seed_commitment=data["seed_commitment"],
            owners=dict(data["owners"]), armies=dict(data["armies"]),
            phase=data["phase"], current=data["current"], first_seat=data["first_seat"], turn=data["turn"],
            round=data.get("round", 0),
            setup_remaining={int(k): v for k, v in data["setup_remaining"].items()},
            batch_left=data["batch_left"], neutral_left=data["neutral_left"],
            reinforcements=data["reinforcements"],
            deck=list(data["deck"]), discard=list(data["discard"]),
            hands={int(k): list(v) for k, v in data["hands"].items()},
            sets_traded=data["sets_traded"], bonus_this_turn=data["bonus_this_turn"],
            conquered_this_turn=data["conquered_this_turn"], trade_down=data["trade_down"],
            pending=data["pending"], eliminated=list(data["eliminated"]), surrendered=list(data["surrendered"]),
            winner=data["winner"], result=data["result"],
            # Fields added with the variants: older stored states lack them.
            winners=list(data.get("winners") or ([data["winner"]] if data["winner"] is not None else [])),
            teams={int(k): v for k, v in (data.get("teams") or {}).items()},
            missions={int(k): dict(v) for k, v in (data.get("missions") or {}).items()},
            capitals={int(k): v for k, v in (data.get("capitals") or {}).items()},
            # Added with undo: a state stored before it has nothing to undo.
            undoable_placements=_undoable(data.get("undoable_placements", {})),
            dice_index=data["dice_index"], draw_index=data["draw_index"], event_count=data["event_count"],
            # Added with freestyle rounds: a state stored before them has no round open.
            to_play=[int(x) for x in data.get("to_play") or []],
            income={int(k): {"territories": v["territories"], "continents": dict(v["continents"])}
                    for k, v in (data.get("income") or {}).items()},
            held=data.get("held"),
            # Added with set-up in one round.
            sealed=None if data.get("sealed") is None else {int(k): {str(t): int(n) for t, n in v.items()}
                                                             for k, v in data["sealed"].items()},
        )


def _undoable(value: Any) -> dict[str, int] | None:
    return None if value is None else {str(k): int(v) for k, v in value.items()}


def initial_state(started: ev.GameStarted, seed: str = "") -> GameState:
    """The state right after a ``game_started`` event."""
    players = [Player(seat=p["seat"], name=p["name"], kind=p["kind"], level=p.get("level"))
               for p in started["players"] if p["kind"] != "neutral"]
    state = GameState(settings=Settings.from_dict(started["settings"]), players=players, seed=seed,
                      seed_commitment=started["seed_commitment"])
    state.setup_remaining = {int(k): v for k, v in started["starting_armies"].items()}
    state.hands = {p.seat: [] for p in players}
    state.first_seat = started.get("first_seat", 0)
    state.teams = {int(k): v for k, v in (started.get("teams") or {}).items()}
    return state


def _advance_counters(state: GameState, event: Event) -> None:
    counters = cast("Mapping[str, int]", event)  # draws, roll_index and rolls: on any event that used randomness
    state.draw_index += counters.get("draws", 0)
    if "roll_index" in counters:
        state.dice_index = counters["roll_index"] + counters.get("rolls", 0)


def apply_event(state: GameState, event: Event) -> None:
    """Apply one event to a state. The only function that changes a game."""
    kind = event["type"]
    _advance_counters(state, event)
    state.event_count += 1
    handler = _REDUCERS.get(kind)
    if handler is not None:
        handler(state, event)


def _first_player(state: GameState, e: ev.FirstPlayer) -> None:
    state.first_seat = e["seat"]
    state.current = e["seat"]


def _deck_shuffled(state: GameState, e: ev.DeckShuffled) -> None:
    if e.get("from_discard"):
        state.discard = []
    state.deck = list(e["cards"])


def _setup_turn(state: GameState, e: ev.SetupTurn) -> None:
    state.phase = e["phase"]
    state.current = e["seat"]
    state.batch_left = e.get("armies", 0)
    state.neutral_left = e.get("neutral", 0)


def _claimed(state: GameState, e: ev.TerritoryClaimed) -> None:
    t = e["territory"]
    state.owners[t] = e["seat"]
    state.armies[t] = 1
    state.setup_remaining[e["seat"]] -= 1


def _dealt(state: GameState, e: ev.TerritoriesDealt) -> None:
    for t, seat in e["owners"].items():
        state.owners[t] = seat
        state.armies[t] = 1
        state.setup_remaining[seat] -= 1


def _placed(state: GameState, e: ev.ArmiesPlaced) -> None:
    t, count, source = e["territory"], e["count"], e.get("source", "reinforcement")
    if source != "sealed":
        state.armies[t] += count
    if source == "setup":
        state.setup_remaining[e["seat"]] -= count
        state.batch_left -= count
    elif source == "neutral":
        state.setup_remaining[NEUTRAL] -= count
        state.neutral_left -= count
    elif source == "sealed":  # set-up in one round: counted off, on the board only when revealed
        state.setup_remaining[e["seat"]] -= count
        assert state.sealed is not None
        mine = state.sealed.setdefault(e["seat"], {})
        mine[t] = mine.get(t, 0) + count
    elif source == "random":
        state.setup_remaining[state.owners[t]] -= count
    elif source == "reinforcement":
        state.reinforcements -= count
        if state.undoable_placements is not None:
            state.undoable_placements[t] = state.undoable_placements.get(t, 0) + count
        if state.reinforcements == 0 and state.phase == REINFORCE and (
            not state.trade_down or len(state.hands[e["seat"]]) <= 4
        ):
            state.phase = next_phase(REINFORCE)
            state.trade_down = False


def _turn_started(state: GameState, e: ev.TurnStarted) -> None:
    state.phase = REINFORCE
    state.current = e["seat"]
    state.turn = e["turn"]
    state.round = e.get("round", state.round)
    state.reinforcements = e["total"]
    state.bonus_this_turn = 0
    state.conquered_this_turn = False
    state.trade_down = False
    state.pending = None
    state.undoable_placements = {}
    if state.freestyle:  # the board is claimed: the player has taken their turn of the round, and nobody is held
        state.to_play = [s for s in state.to_play if s != e["seat"]]
        state.held = None


def _round_started(state: GameState, e: ev.RoundStarted) -> None:
    state.phase = WAITING
    state.round = e["round"]
    state.to_play = list(e["seats"])
    state.income = {int(k): {"territories": v["territories"], "continents": dict(v["continents"])}
                    for k, v in e["income"].items()}
    state.held = e["held"]
    state.reinforcements = 0
    state.pending = None


def _setup_round(state: GameState, e: ev.SetupRound) -> None:
    state.phase = SETUP
    state.batch_left = 0
    state.neutral_left = 0
    state.sealed = {seat: {} for seat in e["seats"]}


def _placements_revealed(state: GameState, e: ev.PlacementsRevealed) -> None:
    for placed in e["placements"].values():
        for t, count in placed.items():
            state.armies[t] += count
    state.sealed = None


def _hold_released(state: GameState, e: ev.HoldReleased) -> None:
    state.held = None


def _round_closed(state: GameState, e: ev.RoundClosed) -> None:
    state.to_play = []
    state.held = None


def _out_of_round(state: GameState, seat: int) -> None:
    """A player out of the game is out of the round too."""
    state.to_play = [s for s in state.to_play if s != seat]
    if state.held == seat:
        state.held = None


def _placements_undone(state: GameState, e: ev.PlacementsUndone) -> None:
    # Every reinforcement placed this turn goes back to the armies to place; the reinforcement phase begins again.
    for t, count in e["placements"].items():
        state.armies[t] -= count
        state.reinforcements += count
    state.undoable_placements = {}
    state.phase = REINFORCE


def _close_undo(state: GameState) -> None:
    """A battle, the end of the attacks, a fortify move or the end of a turn: no placement of it is undone now."""
    state.undoable_placements = None


def _traded(state: GameState, e: ev.CardsTraded) -> None:
    hand = state.hands[e["seat"]]
    for card in e["cards"]:
        hand.remove(card["card"])
        state.discard.append(card["card"])
    state.sets_traded = e["set_number"]
    state.reinforcements += e["armies"]
    if e.get("bonus_territory"):
        state.bonus_this_turn += e["bonus_armies"]
    if state.phase == ATTACK:  # a forced trade after an elimination
        state.phase = REINFORCE


def _battle(state: GameState, e: ev.Battle) -> None:
    _close_undo(state)
    state.armies[e["from"]] -= e["attacker_losses"]
    state.armies[e["to"]] -= e["defender_losses"]


def _conquered(state: GameState, e: ev.TerritoryConquered) -> None:
    # The armies of the last roll move in at once (no territory is ever empty); the rest is a decision.
    src, dst, moved = e["from"], e["to"], e["min_move"]
    state.owners[dst] = e["seat"]
    state.pending = {"from": src, "to": dst, "min": moved, "max": state.armies[src] - 1}
    state.armies[src] -= moved
    state.armies[dst] = moved
    state.conquered_this_turn = True
    state.phase = OCCUPY


def _occupied(state: GameState, e: ev.Occupied) -> None:
    extra = e["count"] - state.armies[e["to"]]
    state.armies[e["from"]] -= extra
    state.armies[e["to"]] += extra
    state.pending = None
    if len(state.hands[e["seat"]]) >= 6 and state.settings.cards != "none":
        state.phase = REINFORCE
        state.trade_down = True
    else:
        state.phase = next_phase(OCCUPY)


def _eliminated(state: GameState, e: ev.PlayerEliminated) -> None:
    seat, by = e["seat"], e["by"]
    state.eliminated.append(seat)
    _out_of_round(state, seat)
    state.hands[by].extend(state.hands[seat])
    state.hands[seat] = []


def _attack_ended(state: GameState, e: ev.AttackEnded) -> None:
    state.phase = next_phase(ATTACK)
    _close_undo(state)


def _fortified(state: GameState, e: ev.Fortified) -> None:
    _close_undo(state)
    state.armies[e["from"]] -= e["count"]
    state.armies[e["to"]] += e["count"]


def _card_drawn(state: GameState, e: ev.CardDrawn) -> None:
    card = e["card"]
    state.deck.remove(card)
    state.hands[e["seat"]].append(card)


def _wilds_returned(state: GameState, e: ev.WildsReturned) -> None:
    state.deck = list(e["cards"])


def _surrendered(state: GameState, e: ev.PlayerSurrendered) -> None:
    seat = e["seat"]
    state.surrendered.append(seat)
    _out_of_round(state, seat)
    for t, owner in state.owners.items():
        if owner == seat:
            state.owners[t] = NEUTRAL
    state.discard.extend(state.hands[seat])
    state.hands[seat] = []


def _missions_dealt(state: GameState, e: ev.MissionsDealt) -> None:
    state.missions = {int(k): copy.deepcopy(v) for k, v in e["missions"].items()}


def _mission_changed(state: GameState, e: ev.MissionChanged) -> None:
    state.missions[e["seat"]] = copy.deepcopy(e["to"])


def _capital_chosen(state: GameState, e: ev.CapitalChosen) -> None:
    state.capitals[e["seat"]] = e["territory"]


def _turn_ended(state: GameState, e: ev.TurnEnded) -> None:
    _close_undo(state)
    if state.freestyle:  # nobody's turn runs until another player starts one
        state.phase = WAITING
        state.reinforcements = 0
        state.pending = None


def _game_over(state: GameState, e: ev.GameOver) -> None:
    state.phase = OVER
    _close_undo(state)
    state.winner = e["winner"]
    state.winners = list(e.get("winners", [e["winner"]]))
    state.result = e["reason"]
    state.pending = None
    if e.get("seed"):
        state.seed = e["seed"]


def _seat_claimed(state: GameState, e: ev.SeatClaimed) -> None:
    state.players[e["seat"]].name = e["name"]


# Each reducer takes the event of its type: the table is where the type is looked up.
_REDUCERS: dict[str, Callable[[GameState, Any], None]] = {
    "first_player": _first_player,
    "deck_shuffled": _deck_shuffled,
    "setup_turn": _setup_turn,
    "territory_claimed": _claimed,
    "territories_dealt": _dealt,
    "armies_placed": _placed,
    "turn_started": _turn_started,
    "placements_undone": _placements_undone,
    "turn_ended": _turn_ended,
    "cards_traded": _traded,
    "battle": _battle,
    "territory_conquered": _conquered,
    "occupied": _occupied,
    "player_eliminated": _eliminated,
    "attack_ended": _attack_ended,
    "fortified": _fortified,
    "card_drawn": _card_drawn,
    "wilds_returned": _wilds_returned,
    "player_surrendered": _surrendered,
    "missions_dealt": _missions_dealt,
    "mission_changed": _mission_changed,
    "capital_chosen": _capital_chosen,
    "game_over": _game_over,
    "seat_claimed": _seat_claimed,
    "round_started": _round_started,
    "hold_released": _hold_released,
    "round_closed": _round_closed,
    "setup_round": _setup_round,
    "placements_revealed": _placements_revealed,
}
EVENT_TYPES = frozenset(_REDUCERS) | {"game_started"}

__all__ = ["ATTACK", "CAPITAL", "CLAIM", "EVENT_TYPES", "FORTIFY", "NEUTRAL", "OCCUPY", "OVER", "REINFORCE",
           "SCHEMA_VERSION", "SETUP", "WAITING", "Event", "GameState", "Player", "apply_event", "initial_state"]
