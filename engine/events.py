"""The events of a game, one type each, in the order of ``docs/events.md``.

An event is a plain dict, ready for JSON: these ``TypedDict`` only describe it, so the log, the exports and
``engine.verify`` read exactly the JSON they always did. ``Event`` is the union of them all: a consumer tells
them apart by ``type``, and the type checker narrows the union on it (``if e["type"] == "battle":``, or
``match e["type"]`` with ``assert_never`` for the ones it must handle all of).

The types describe an event as the log holds it. An audience's view of one (``engine.fog.events_for``) has no
other keys (a public copy adds a ``*_count`` of hidden cards) and may have fewer (another player's
``turn_started`` under fog); a field that audience may not know is ``null`` (the card drawn by someone else, a
territory in the fog); and an event out of its sight is a ``HiddenEvent``. ``View`` is the union of both.

Events that used randomness carry ``roll_index`` and ``rolls`` (dice) or ``draws`` (the shuffle stream); see
``docs/dice.md``.
"""

from typing import Any, Literal, NotRequired, TypedDict, get_args

Mission = dict[str, Any]  # a secret mission: ``id``, ``kind`` and the fields of its kind (engine/missions.py)
# ``from`` is a Python keyword: the TypedDicts with the keys ``from`` and ``to`` build on these.
_Move = TypedDict("_Move", {"from": str, "to": str})


class Roster(TypedDict):
    """One seat of ``game_started.players`` (the neutral army, in two-player games, as seat -1)."""

    seat: int
    name: str
    kind: str   # human, ai or neutral
    level: str | None


class GameStarted(TypedDict):
    """Creates the game: its settings, the seats, their starting armies and the commitment to the dice seed."""

    type: Literal["game_started"]
    settings: dict[str, Any]
    map: str
    players: list[Roster]
    seat_order: list[int]
    starting_armies: dict[str, int]
    seed_commitment: str
    teams: NotRequired[dict[str, int]]
    first_seat: NotRequired[int]   # read when present; no game writes it


class FirstPlayer(TypedDict):
    """Who claims and plays first, by the dice (re-rolls among ties)."""

    type: Literal["first_player"]
    seat: int
    rounds: list[dict[str, int]]
    roll_index: int
    rolls: int


class MissionsDealt(TypedDict):
    """Mode ``missions``: each player's secret mission, right after ``first_player``."""

    type: Literal["missions_dealt"]
    missions: dict[str, Mission]
    draws: int


class TerritoriesDealt(TypedDict):
    """Each territory gets 1 army of its owner (deployments ``deal``, ``auto``, and two players)."""

    type: Literal["territories_dealt"]
    owners: dict[str, int]
    draws: int


class SetupTurn(TypedDict):
    """Whose setup turn it is: to claim, to place starting armies, or to choose a capital."""

    type: Literal["setup_turn"]
    seat: int
    phase: str   # claim, setup or capital
    armies: NotRequired[int]
    neutral: NotRequired[int]


class CapitalChosen(TypedDict):
    """Mode ``capitals``: the seat's capital."""

    type: Literal["capital_chosen"]
    seat: int
    territory: str


class TerritoryClaimed(TypedDict):
    """Claims an empty territory with 1 army."""

    type: Literal["territory_claimed"]
    seat: int
    territory: str


PlacementSource = Literal["setup", "neutral", "random", "reinforcement", "card_bonus", "sealed"]


class ArmiesPlaced(TypedDict):
    """Adds armies to a territory, from the ``source`` they come from."""

    type: Literal["armies_placed"]
    seat: int
    territory: str
    count: int
    source: PlacementSource
    draws: NotRequired[int]


class DeckShuffled(TypedDict):
    """The draw pile, top first (from the discard pile when ``from_discard``)."""

    type: Literal["deck_shuffled"]
    cards: list[str]
    from_discard: NotRequired[bool]
    draws: int


class WildsReturned(TypedDict):
    """Two players: the wilds go back in and the deck is shuffled before play."""

    type: Literal["wilds_returned"]
    cards: list[str]
    draws: int


class Reinforcements(TypedDict):
    """The armies of a turn: for the territories held, and each continent held whole."""

    territories: int
    continents: dict[str, int]


class TurnStarted(TypedDict):
    """The reinforcement phase of a turn begins."""

    type: Literal["turn_started"]
    seat: int
    turn: int
    round: NotRequired[int]   # always written now; older logs may lack it
    reinforcements: Reinforcements
    total: int


class RoundStarted(TypedDict):
    """Turn order ``freestyle``: a round opens for ``seats``, each one's ``income`` fixed, ``held`` waiting."""

    type: Literal["round_started"]
    round: int
    seats: list[int]
    income: dict[str, Reinforcements]
    held: int | None


class HoldReleased(TypedDict):
    """Turn order ``freestyle``: the wait passed; the held player may start the round's first turn too."""

    type: Literal["hold_released"]
    seat: int


class RoundClosed(TypedDict):
    """Turn order ``freestyle``: the round's deadline passed; ``missed``: the players who had not played."""

    type: Literal["round_closed"]
    round: int
    missed: list[int]


class SetupRound(TypedDict):
    """Setting ``setup: round``: the players in ``seats`` place their starting armies in secret (source sealed)."""

    type: Literal["setup_round"]
    seats: list[int]


class PlacementsRevealed(TypedDict):
    """The set-up round's end: every sealed army on the board at once (``stand_in``: placed late, at random)."""

    type: Literal["placements_revealed"]
    placements: dict[str, dict[str, int]]
    stand_in: list[int]


class PlacementsUndone(TypedDict):
    """The action ``undo``: the turn's reinforcement placements go back to the armies to place."""

    type: Literal["placements_undone"]
    seat: int
    placements: dict[str, int]
    armies: int


class TradedCard(TypedDict):
    """One card of ``cards_traded``: the territory it shows (none for a wild) and its symbol."""

    card: str
    territory: str | None
    symbol: str


class CardsTraded(TypedDict):
    """Moves a set of cards to the discard pile and adds ``armies`` to the armies to place."""

    type: Literal["cards_traded"]
    seat: int
    cards: list[TradedCard]
    set_number: int
    armies: int
    bonus_territory: str | None
    bonus_armies: int


class Battle(_Move):
    """One roll of the dice between ``from`` and ``to``; removes the losses."""

    type: Literal["battle"]
    seat: int
    defender: int
    attacker_dice: list[int]
    defender_dice: list[int]
    attacker_losses: int
    defender_losses: int
    roll_index: int
    rolls: int
    blitz: NotRequired[int]   # the roll_index of the blitz's first battle


class TerritoryConquered(_Move):
    """The territory changes owner; the ``min_move`` armies of the last roll move in at once."""

    type: Literal["territory_conquered"]
    seat: int
    defender: int
    min_move: int


class Occupied(_Move):
    """Moves more armies into the conquered territory (``count`` is what it holds after)."""

    type: Literal["occupied"]
    seat: int
    count: int


class PlayerEliminated(TypedDict):
    """The eliminator (``by``) takes the loser's cards."""

    type: Literal["player_eliminated"]
    seat: int
    by: int
    cards_taken: list[str]


_MissionChange = TypedDict("_MissionChange", {"from": Mission, "to": Mission})


class MissionChanged(_MissionChange):
    """Mode ``missions``: the player to destroy went out by someone else's hand; the mission becomes 24 territories."""

    type: Literal["mission_changed"]
    seat: int
    reason: Literal["eliminated", "surrendered"]


class AttackEnded(TypedDict):
    """The fortify phase begins."""

    type: Literal["attack_ended"]
    seat: int


class Fortified(_Move):
    """Moves armies between two territories of the player (or a teammate's, as ``to``)."""

    type: Literal["fortified"]
    seat: int
    count: int


class CardDrawn(TypedDict):
    """The top card of the deck goes to the player."""

    type: Literal["card_drawn"]
    seat: int
    card: str


class TurnEnded(TypedDict):
    """The turn is over."""

    type: Literal["turn_ended"]
    seat: int


class PlayerSurrendered(TypedDict):
    """The player's territories become neutral, their cards go to the discard pile."""

    type: Literal["player_surrendered"]
    seat: int


class GameOver(TypedDict):
    """The game ends; the dice seed is revealed."""

    type: Literal["game_over"]
    winner: int
    reason: str   # conquest, surrender, round_limit, mission, capitals, teams, vote or draw
    winners: NotRequired[list[int]]
    mission: NotRequired[Mission]
    capitals: NotRequired[dict[str, str]]
    seed: str
    seed_commitment: str


class SeatClaimed(TypedDict):
    """A substitute takes the seat over: its player's name is ``name`` from here on."""

    type: Literal["seat_claimed"]
    seat: int
    name: str
    former: str   # the seat's player's name until now


Event = (GameStarted | FirstPlayer | MissionsDealt | TerritoriesDealt | SetupTurn | CapitalChosen
         | TerritoryClaimed | ArmiesPlaced | DeckShuffled | WildsReturned | TurnStarted | PlacementsUndone
         | CardsTraded | Battle | TerritoryConquered | Occupied | PlayerEliminated | MissionChanged | AttackEnded
         | Fortified | CardDrawn | TurnEnded | PlayerSurrendered | GameOver | SeatClaimed | RoundStarted
         | HoldReleased | RoundClosed | SetupRound | PlacementsRevealed)
"""Any event of the log."""

EventType = Literal["game_started", "first_player", "missions_dealt", "territories_dealt", "setup_turn",
                    "capital_chosen", "territory_claimed", "armies_placed", "deck_shuffled", "wilds_returned",
                    "turn_started", "placements_undone", "cards_traded", "battle", "territory_conquered",
                    "occupied", "player_eliminated", "mission_changed", "attack_ended", "fortified", "card_drawn",
                    "turn_ended", "player_surrendered", "game_over", "seat_claimed", "round_started",
                    "hold_released", "round_closed", "setup_round", "placements_revealed"]
"""The ``type`` of an event."""


class HiddenEvent(TypedDict):
    """An event out of an audience's sight under fog of war: only its type and seat are told."""

    type: EventType
    seat: NotRequired[int]
    hidden: Literal[True]


View = Event | HiddenEvent
"""An event as one audience sees it (``engine.fog.events_for``)."""

EVENT_CLASSES: tuple[type[Any], ...] = get_args(Event)
"""Every event's ``TypedDict``, in the order of the docs."""
EVENT_TYPES: tuple[EventType, ...] = get_args(EventType)
"""Every event type, in the order of the docs."""


def type_of(cls: type[Any]) -> str:
    """The ``type`` an event's ``TypedDict`` declares (``Battle`` -> ``"battle"``)."""
    (kind,) = get_args(cls.__annotations__["type"])
    return str(kind)


__all__ = [
    "EVENT_CLASSES", "EVENT_TYPES", "ArmiesPlaced", "AttackEnded", "Battle", "CapitalChosen", "CardDrawn",
    "CardsTraded", "DeckShuffled", "Event", "EventType", "FirstPlayer", "Fortified", "GameOver", "GameStarted",
    "HiddenEvent", "HoldReleased", "Mission", "MissionChanged", "MissionsDealt", "Occupied", "PlacementSource",
    "PlacementsUndone", "PlayerEliminated", "PlayerSurrendered", "Reinforcements", "Roster", "RoundClosed",
    "RoundStarted", "SeatClaimed", "SetupTurn", "TerritoriesDealt", "TerritoryClaimed", "TerritoryConquered",
    "TradedCard", "TurnEnded", "TurnStarted", "View", "WildsReturned", "type_of",
]
