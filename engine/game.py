"""The rules of Risk: validate an action, turn it into events, apply them.

``Game`` wraps a ``GameState``. ``apply(action)`` either raises a ``RuleError`` and changes nothing, or
returns the events it applied. Legal-action queries (``attack_sources``, ``attack_targets``, ...) serve
autocomplete, buttons and the AI.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from . import dice
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
from .board import Board, load_map
from .cards import full_deck, set_kind, set_value, symbol, valid_sets
from .errors import (
    AlreadyClaimed,
    GameOver,
    InvalidCount,
    InvalidDice,
    InvalidSet,
    MustTrade,
    NotAdjacent,
    NotConnected,
    NotEnoughArmies,
    NothingToUndo,
    NotOwner,
    NotYourTurn,
    Phrase,
    RuleError,
    SettingsError,
    Teammate,
    Territory,
    TurnRunning,
    UnknownTerritory,
    WrongPhase,
    clip,
)
from .events import ArmiesPlaced, DeckShuffled, GameStarted, Reinforcements, Roster, RoundStarted, WildsReturned
from .events import GameOver as GameEnded
from .missions import Mission, mission_deck, mission_text
from .modes import MODES, Mode, Victory
from .phases import PHASES, allowed_in
from .settings import NEUTRAL_ARMIES_TWO_PLAYER, Settings, assign_teams, starting_armies
from .state import (
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
    Event,
    GameState,
    Player,
    apply_event,
    initial_state,
)

# How messages name each phase (the turn panel, the map's panel and the catalogs read it here).
PHASE_WORDS = {name: phase.doing for name, phase in PHASES.items()}
# Fortify rules: whether armies may travel along a chain of friendly territories, and whether a move ends the turn.
FORTIFY_RULES: dict[str, tuple[bool, bool]] = {
    "adjacent": (False, True),
    "connected": (True, True),
    "unlimited": (True, False),
}
# Turn order "freestyle": the moves of a turn, any of which starts the mover's turn when no turn runs (and the
# move is then checked as the first of that turn: a refused one starts nothing).
TURN_MOVES: frozenset[type[Action]] = frozenset({Place, Trade, Attack, Blitz, Occupy, EndAttack, Fortify, EndTurn,
                                                 Undo})


class Game:
    """One game of Risk: its state, and the rules that change it."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.board: Board = load_map(state.settings.map)

    # -- creation --------------------------------------------------------------------------------
    @classmethod
    def new(cls, players: list[Player | tuple[str, str] | str] | list[Player] | list[str], seed: str,
            settings: Settings | dict[str, Any] | None = None,
            team_of: Sequence[int] | None = None) -> tuple[Game, list[Event]]:
        """Start a game: seats in the order given. Returns the game and its opening events.

        With teams, ``team_of[seat]`` (0-based) puts seats in teams; by default seat i is in team
        i % number of teams."""
        if not isinstance(settings, Settings):
            settings = Settings.from_dict(settings)
        seats: list[Player] = []
        for i, p in enumerate(players):
            if isinstance(p, Player):
                seats.append(Player(i, p.name, p.kind, p.level))
            elif isinstance(p, tuple):
                seats.append(Player(i, p[0], "ai" if p[1] != "human" else "human", None if p[1] == "human" else p[1]))
            else:
                seats.append(Player(i, p))
        teams = assign_teams(settings, len(seats), team_of)
        if not seed:
            raise SettingsError("a game needs a secret seed")
        board = load_map(settings.map)
        n = len(seats)
        settings.check_map()
        if settings.mode == "missions" and len(mission_deck(board, range(n))) < n:
            raise SettingsError(f"the map {board.title} has {len(mission_deck(board, range(n)))} missions for "
                                f"{n} players: each player needs one")
        armies = starting_armies(n, len(board.territory_ids))
        starting = {p.seat: armies for p in seats}
        roster: list[Roster] = [p.to_dict() for p in seats]
        if n == 2:
            starting[NEUTRAL] = max(NEUTRAL_ARMIES_TWO_PLAYER, armies)
            roster.append({"seat": NEUTRAL, "name": "Neutral", "kind": "neutral", "level": None})
        if len(roster) > len(board.territory_ids):   # a map's own check refuses this; a board made by hand too
            raise SettingsError(f"this map has {len(board.territory_ids)} territories, too few for "
                                f"{len(roster)} armies")
        started: GameStarted = {
            "type": "game_started", "settings": settings.game_dict(), "map": board.id, "players": roster,
            "seat_order": [p.seat for p in seats], "starting_armies": {str(k): v for k, v in starting.items()},
            "seed_commitment": dice.commitment(seed),
        }
        if teams:
            started["teams"] = {str(k): v for k, v in teams.items()}
        game = cls(initial_state(started, seed))
        events: list[Event] = [started]
        events += game._emit_all(game._opening())
        events += game._emit_all(game._checkpoint())
        return game, events

    @classmethod
    def from_events(cls, events: Iterable[Event], seed: str = "") -> Game:
        """Rebuild a game by replaying its log."""
        it = iter(events)
        started = next(it)
        if started.get("type") != "game_started":
            raise ValueError("a game log must begin with game_started")
        game = cls(initial_state(cast(GameStarted, started), seed))
        for event in it:
            apply_event(game.state, event)
        return game

    # -- applying ---------------------------------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        """Validate and apply one action. Raises RuleError (and changes nothing) if it is not allowed."""
        handler = self._handlers().get(type(action))
        if handler is None:
            raise RuleError("Unknown action {action}.", action=clip(repr(action)))
        if isinstance(action.seat, bool) or not isinstance(action.seat, int):
            raise NotYourTurn("You are not playing in this game.")
        saved = self.state.copy()
        s = self.state
        moves: Iterable[Event] = handler(action)
        if s.freestyle and s.phase == WAITING and type(action) in TURN_MOVES:
            moves = self._started(action, moves)
        try:
            events = self._emit_all(moves)
            events += self._emit_all(self._checkpoint())
            return events
        except BaseException:
            # Put every field back in place, so references to the state stay valid.
            self.state.__dict__.update(saved.__dict__)
            raise

    def _started(self, action: Action, moves: Iterable[Event]) -> Iterable[Event]:
        """A move while no turn runs (freestyle): the mover's turn starts first, then the move is played in it."""
        yield from self._start_turn(StartTurn(action.seat))
        yield from moves

    def validate(self, action: Action) -> None:
        """Raise the RuleError ``apply`` would raise, without changing the game."""
        trial = Game(self.state.copy())
        trial.apply(action)

    def _handlers(self) -> dict[type[Action], Callable[[Any], Iterable[Event]]]:
        return {
            Claim: self._claim, Place: self._place, Trade: self._trade, Attack: self._attack,
            Blitz: self._blitz, Occupy: self._occupy, EndAttack: self._end_attack, Fortify: self._fortify,
            EndTurn: self._end_turn, ChooseCapital: self._choose_capital, Surrender: self._surrender,
            Undo: self._undo, RoundLimit: self._round_limit, VoteEnd: self._vote_end, ClaimSeat: self._claim_seat,
            StartTurn: self._start_turn, ReleaseHold: self._release_hold, EndRound: self._end_round,
        }

    def _emit_all(self, generated: Iterable[Event]) -> list[Event]:
        """Drain a generator of events, applying each as it comes so later checks see the new state."""
        out: list[Event] = []
        for event in generated:
            apply_event(self.state, event)
            out.append(event)
        return out

    # -- shared checks ----------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.state.phase == OVER

    def allows(self, action: type[Action]) -> bool:
        """Whether the phase the game is in allows ``action`` (``engine.phases.PHASES``), whoever's move it is."""
        return PHASES[self.state.phase].allows(action)

    @property
    def mode(self) -> Mode:
        """The hooks of this game's mode (classic, missions, capitals)."""
        return MODES[self.state.settings.mode]

    # -- teams --------------------------------------------------------------------------------------
    def team_of(self, seat: int) -> int | None:
        """The team (0-based) of a seat, or None in a game without teams."""
        return self.state.teams.get(seat)

    def teammates(self, seat: int) -> list[int]:
        """The other seats of ``seat``'s team (none without teams)."""
        team = self.team_of(seat)
        if team is None:
            return []
        return sorted(s for s, t in self.state.teams.items() if t == team and s != seat)

    def side(self, seat: int) -> int:
        """Who wins together with ``seat``, as one number: its team, or (without teams) the seat."""
        team = self.team_of(seat)
        return seat if team is None else team

    def friendly(self, seat: int, owner: int | None) -> bool:
        """Whether ``owner`` is ``seat`` itself or one of its teammates (never neutral or nobody)."""
        if owner is None or owner == NEUTRAL:
            return False
        return owner == seat or (self.team_of(seat) is not None and self.team_of(owner) == self.team_of(seat))

    def _side_members(self, seat: int) -> list[int]:
        return sorted([seat, *self.teammates(seat)])

    def name(self, territory: str) -> str:
        return self.board.name(territory)

    def _territory(self, text: str) -> str:
        """The territory id of ``text`` (an id, a name or an alias), or UnknownTerritory; never used unchecked."""
        if not isinstance(text, str):
            raise UnknownTerritory.called(str(text))
        if text in self.board.territories:
            return text
        return self.board.resolve(text)

    def _check_mover(self, seat: int) -> None:
        """That the game goes on and ``seat`` is the player to move."""
        s = self.state
        if s.phase == OVER:
            raise GameOver("The game is over.")
        if not 0 <= seat < len(s.players):
            raise NotYourTurn("You are not playing in this game.")
        if seat != s.current:
            if s.freestyle and s.phase in (WAITING, REINFORCE, ATTACK, OCCUPY, FORTIFY):
                refusal = self.start_refusal(seat)
                if refusal is not None:
                    raise refusal
                if s.phase == WAITING:
                    return
            raise NotYourTurn("It is {player}'s turn, not yours.", player=s.seat_name(s.current))

    def _check_turn(self, action: Action, *refused_later: str) -> None:
        """That it is ``action.seat``'s move and the phase allows ``action`` (``engine.phases.PHASES``).
        ``refused_later``: phases the handler goes on to refuse itself, with a reason of their own."""
        self._check_mover(action.seat)
        phase = self.state.phase
        wanted = allowed_in(type(action)) + refused_later
        if phase == WAITING and phase not in wanted:
            raise self.start_refusal(action.seat) or WrongPhase("Start your turn first: no turn is running.")
        if phase not in wanted:
            raise WrongPhase("You can do that only while {wanted}; now you are {now}.",
                             wanted=Phrase(*(PHASE_WORDS[p] for p in wanted)), now=Phrase(PHASE_WORDS[phase]))

    def _own(self, seat: int, territory: str) -> None:
        owner = self.state.owners.get(territory)
        if owner != seat:
            if owner is None:
                raise NotOwner("{territory} belongs to nobody, not you.", territory=self.ref(territory))
            raise NotOwner("{territory} belongs to {player}, not you.", territory=self.ref(territory),
                           player=self.state.seat_name(owner))

    @staticmethod
    def _positive(count: Any, what: str) -> int:
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidCount("{what} must be a whole number of at least 1.", what=Phrase(what))
        return count

    # -- setup --------------------------------------------------------------------------------------
    def _opening(self) -> Iterable[Event]:
        """First player by dice, the deck, and deployment."""
        s = self.state
        contenders = [p.seat for p in s.players]
        rounds: list[dict[str, int]] = []
        start = s.dice_index
        index = start
        while len(contenders) > 1:
            rolls = {seat: dice.die(s.seed, index + i) for i, seat in enumerate(contenders)}
            index += len(contenders)
            rounds.append({str(k): v for k, v in rolls.items()})
            best = max(rolls.values())
            contenders = [seat for seat, v in rolls.items() if v == best]
        yield {"type": "first_player", "seat": contenders[0], "rounds": rounds,
               "roll_index": start, "rolls": index - start}
        yield from self.mode.opening(self)
        first = contenders[0]
        mode = s.settings.deployment
        if s.two_player or mode in ("deal", "auto"):
            yield from self._deal(first)
        if mode == "claim" and not s.two_player:
            yield self._setup_turn_event(first, CLAIM)
        elif mode == "auto":
            yield from self._random_placements()
            yield from self._shuffle_deck()
            yield from self.mode.begin_play(self, first)
        elif self.setup_round:
            yield from self._open_setup_round()
        else:
            yield self._setup_turn_event(first, SETUP)

    def _deal(self, first: int) -> Iterable[Event]:
        """Deal territories: as cards from a shuffled deck without wilds, round-robin from the first seat."""
        s = self.state
        order = list(self.board.territory_ids)
        used = dice.shuffle(s.seed, s.draw_index, order)
        seats = [p.seat for p in s.players]
        if s.two_player:
            seats.append(NEUTRAL)
        rotation = seats[seats.index(first):] + seats[:seats.index(first)]
        owners = {t: rotation[i % len(rotation)] for i, t in enumerate(order)}
        yield {"type": "territories_dealt", "owners": owners, "draws": used}

    def _random_placements(self, seats: Sequence[int] | None = None, source: str = "random") -> Iterable[Event]:
        """Deployment ``auto``: every remaining starting army to a random territory of its owner (of ``seats``
        only, if given: in a set-up round, the neutral armies at its start and the stand-in's at its deadline,
        then with ``source`` ``sealed``)."""
        s = self.state
        added: dict[str, int] = {}
        draws = 0
        for seat, left in sorted(s.setup_remaining.items()):
            if seats is not None and seat not in seats:
                continue
            mine = sorted(t for t, o in s.owners.items() if o == seat)
            for _ in range(left):
                t = mine[dice.draw(s.seed, dice.SHUFFLE, s.draw_index + draws, len(mine))]
                draws += 1
                added[t] = added.get(t, 0) + 1
        first = True
        for t in self.board.territory_ids:
            if t in added:
                event = cast(ArmiesPlaced, {"type": "armies_placed", "seat": s.owners[t], "territory": t,
                                            "count": added[t], "source": source})
                if first:
                    event["draws"] = draws
                    first = False
                yield event

    def shuffle_event(self, kind: str, cards: list[str], **extra: Any) -> DeckShuffled | WildsReturned:
        """Shuffle ``cards`` with the seed's next draws; the event that records the new order."""
        deck = list(cards)
        used = dice.shuffle(self.state.seed, self.state.draw_index, deck)
        return cast("DeckShuffled | WildsReturned", {"type": kind, "cards": deck, **extra, "draws": used})

    def _shuffle_deck(self, kind: str = "deck_shuffled") -> Iterable[Event]:
        """The whole deck, wilds included, shuffled for play (nothing in a game without cards)."""
        if self.state.settings.cards != "none":
            yield self.shuffle_event(kind, full_deck(self.board, wilds=True))

    def _setup_turn_event(self, seat: int, phase: str) -> Event:
        s = self.state
        if phase == CLAIM:
            return {"type": "setup_turn", "seat": seat, "phase": CLAIM}
        batch = s.settings.setup_batch
        per_turn = 2 * batch if s.two_player else batch
        armies = min(per_turn, s.setup_remaining[seat])
        neutral = min(batch, s.setup_remaining.get(NEUTRAL, 0)) if s.two_player else 0
        return {"type": "setup_turn", "seat": seat, "phase": SETUP, "armies": armies, "neutral": neutral}

    def _claim(self, a: Claim) -> Iterable[Event]:
        self._check_turn(a)
        t = self._territory(a.territory)
        if t in self.state.owners:
            raise AlreadyClaimed("{territory} is already held by {player}.", territory=self.ref(t),
                                 player=self.state.seat_name(self.state.owners[t]))
        yield {"type": "territory_claimed", "seat": a.seat, "territory": t}
        if len(self.state.owners) < len(self.board.territories):
            yield self._setup_turn_event(self.state.next_seat(a.seat), CLAIM)
        else:
            yield from self._next_setup_turn(a.seat)

    def _next_setup_turn(self, seat: int) -> Iterable[Event]:
        s = self.state
        if self.setup_round and s.phase == CLAIM:  # every territory claimed: the armies are placed in one round
            yield from self._open_setup_round()
            return
        waiting = [p.seat for p in s.players if s.setup_remaining[p.seat] > 0]
        if waiting:
            yield self._setup_turn_event(s.next_seat(seat, waiting), SETUP)
            return
        yield from self._end_setup()

    def _end_setup(self) -> Iterable[Event]:
        s = self.state
        # Two players dealt the territory cards without wilds: the wilds go back in before play.
        yield from self._shuffle_deck("wilds_returned" if s.two_player else "deck_shuffled")
        yield from self.mode.begin_play(self, s.first_seat)

    # -- capitals -------------------------------------------------------------------------------------
    def capital_choices(self, seat: int) -> list[str]:
        """Territories ``seat`` may choose as capital now (none unless it is their turn to choose)."""
        s = self.state
        if not self.allows(ChooseCapital) or s.current != seat or seat in s.capitals:
            return []
        return [t for t in self.board.territory_ids if s.owners.get(t) == seat]

    def _choose_capital(self, a: ChooseCapital) -> Iterable[Event]:
        s = self.state
        self._check_turn(a)
        t = self._territory(a.territory)
        self._own(a.seat, t)
        yield {"type": "capital_chosen", "seat": a.seat, "territory": t}
        waiting = [p.seat for p in s.players if p.seat not in s.capitals]
        if waiting:
            yield {"type": "setup_turn", "seat": s.next_seat(a.seat, waiting), "phase": CAPITAL}
        else:
            yield from self.begin_turns(s.first_seat)

    def _place(self, a: Place) -> Iterable[Event]:
        s = self.state
        if s.sealed is not None and s.phase == SETUP:
            yield from self._place_sealed(a)
            return
        self._check_turn(a)
        t = self._territory(a.territory)
        count = self._positive(a.count, "The number of armies")
        if s.phase == SETUP:
            yield from self._place_setup(a.seat, t, count)
            return
        hand = s.hands[a.seat]
        if s.trade_down and len(hand) > 4:
            raise MustTrade("You hold {cards} cards after the elimination: trade sets until you hold 4 or fewer.",
                            cards=len(hand))
        if not s.trade_down and len(hand) >= 5:
            raise MustTrade("You hold {cards} cards: you must trade a set before placing armies.", cards=len(hand))
        self._own(a.seat, t)
        if count > s.reinforcements:
            raise InvalidCount("You have only {left} left to place, not {count}.", left=s.reinforcements, count=count)
        yield {"type": "armies_placed", "seat": a.seat, "territory": t, "count": count, "source": "reinforcement"}

    def _place_setup(self, seat: int, t: str, count: int) -> Iterable[Event]:
        s = self.state
        owner = s.owners.get(t)
        if owner == NEUTRAL and s.two_player:
            if s.neutral_left == 0:
                raise InvalidCount("You have already placed this turn's neutral army.")
            if count > s.neutral_left:
                raise InvalidCount("You may place only {n} neutral army this turn.", n=s.neutral_left)
            yield {"type": "armies_placed", "seat": seat, "territory": t, "count": count, "source": "neutral"}
        else:
            self._own(seat, t)
            if s.batch_left == 0:
                raise InvalidCount("You have placed all your armies for this turn; now place the neutral army.")
            if count > s.batch_left:
                raise InvalidCount("You may place {n} more armies this turn, not {count}.", n=s.batch_left, count=count)
            yield {"type": "armies_placed", "seat": seat, "territory": t, "count": count, "source": "setup"}
        if s.batch_left == 0 and s.neutral_left == 0:
            yield from self._next_setup_turn(seat)

    # -- set-up in one round -------------------------------------------------------------------------
    @property
    def setup_round(self) -> bool:
        """Whether the starting armies are placed all at once, in one round (``setup: round``; deployment
        ``auto`` places them at random instead)."""
        settings = self.state.settings
        return settings.setup == "round" and settings.deployment != "auto"

    def setup_left(self, seat: int) -> int:
        """Starting armies ``seat`` may place on their own territories now: the set-up turn's, or in a set-up
        round all they have left (none once they have placed them all, or outside set-up)."""
        s = self.state
        if s.phase != SETUP:
            return 0
        if s.sealed is not None:
            return s.setup_remaining.get(seat, 0) if seat in s.sealed else 0
        return s.batch_left if seat == s.current else 0

    def setup_waiting(self) -> list[int]:
        """In a set-up round, the players who have starting armies left to place (seat order)."""
        s = self.state
        if s.sealed is None:
            return []
        return [seat for seat in sorted(s.sealed) if s.setup_remaining.get(seat, 0) > 0]

    def _open_setup_round(self) -> Iterable[Event]:
        """Every player places their starting armies at once; in a two-player game the neutral armies first, at
        random (nobody places them)."""
        s = self.state
        if s.two_player:
            yield from self._random_placements([NEUTRAL])
        yield {"type": "setup_round", "seats": [p.seat for p in s.players]}
        if not self.setup_waiting():
            yield from self._reveal([])

    def _place_sealed(self, a: Place) -> Iterable[Event]:
        s = self.state
        if s.phase == OVER:
            raise GameOver("The game is over.")
        if isinstance(a.seat, bool) or not isinstance(a.seat, int) or s.sealed is None or a.seat not in s.sealed:
            raise NotYourTurn("You are not playing in this game.")
        t = self._territory(a.territory)
        count = self._positive(a.count, "The number of armies")
        self._own(a.seat, t)
        left = s.setup_remaining.get(a.seat, 0)
        if left == 0:
            raise InvalidCount("You have placed all your starting armies: they are revealed when everyone has "
                               "placed theirs.")
        if count > left:
            raise InvalidCount("You have only {left} left to place, not {count}.", left=left, count=count)
        yield {"type": "armies_placed", "seat": a.seat, "territory": t, "count": count, "source": "sealed"}
        if not self.setup_waiting():
            yield from self._reveal([])

    def _reveal(self, stand_in: list[int]) -> Iterable[Event]:
        """Every player's sealed starting armies go on the board together, and play begins."""
        s = self.state
        assert s.sealed is not None
        placements = {str(seat): {t: placed[t] for t in self.board.territory_ids if placed.get(t)}
                      for seat, placed in sorted(s.sealed.items())}
        yield {"type": "placements_revealed", "placements": placements, "stand_in": stand_in}
        yield from self._end_setup()

    def _close_setup_round(self) -> Iterable[Event]:
        """The set-up round's deadline: the armies not placed yet go at random to their players' territories
        (sealed like the rest), and all are revealed."""
        late = self.setup_waiting()
        yield from self._random_placements(late, source="sealed")
        yield from self._reveal(late)

    # -- undo ---------------------------------------------------------------------------------------
    def undoable(self, seat: int) -> dict[str, int]:
        """The reinforcement armies ``Undo(seat)`` would take back now, {territory: armies} in board order; empty
        when it would be refused. Armies a trade placed (the +2 of a card) are never among them."""
        s = self.state
        placed = s.undoable_placements
        if not placed or not self.allows(Undo) or s.current != seat or seat not in s.active_seats():
            return {}
        return {t: placed[t] for t in self.board.territory_ids if placed.get(t)}

    def can_undo(self, seat: int) -> bool:
        """Whether ``seat`` may undo their placements now (for showing an Undo button)."""
        return bool(self.undoable(seat))

    def _undo(self, a: Undo) -> Iterable[Event]:
        s = self.state
        self._check_mover(a.seat)
        if s.phase in (CLAIM, SETUP, CAPITAL):
            raise WrongPhase("Starting armies cannot be taken back: you can undo only the reinforcements you place "
                             "during your turn.")
        if s.phase == FORTIFY:
            raise WrongPhase("You have moved on to fortifying: your placements can no longer be undone.")
        if s.undoable_placements is None or not self.allows(Undo):
            raise WrongPhase("You have attacked this turn: your placements can no longer be undone.")
        placements = self.undoable(a.seat)
        if not placements:
            raise NothingToUndo("You have placed no reinforcements this turn: there is nothing to undo.")
        yield {"type": "placements_undone", "seat": a.seat, "placements": placements,
               "armies": sum(placements.values())}

    # -- turns --------------------------------------------------------------------------------------
    def reinforcement_breakdown(self, seat: int) -> dict[str, Any]:
        """Armies a player would receive now: territories // 3 (at least 3) plus continents held whole."""
        owners = self.state.owners
        held = sum(1 for o in owners.values() if o == seat)
        continents = {c.id: c.bonus for c in self.board.continents.values()
                      if all(owners.get(t) == seat for t in c.territories)}
        base = max(3, held // 3)
        return {"territories": base, "territory_count": held, "continents": continents,
                "total": base + sum(continents.values())}

    def turn_started_event(self, seat: int, turn: int) -> Event:
        """The event that starts ``seat``'s turn number ``turn``, with its reinforcements (in a freestyle round,
        the ones fixed when the round opened)."""
        s = self.state
        if s.freestyle and seat in s.income:
            fixed = s.income[seat]
            return {"type": "turn_started", "seat": seat, "turn": turn, "round": s.round,
                    "reinforcements": {"territories": fixed["territories"], "continents": dict(fixed["continents"])},
                    "total": fixed["territories"] + sum(fixed["continents"].values())}
        r = self.reinforcement_breakdown(seat)
        return {"type": "turn_started", "seat": seat, "turn": turn, "round": self._round_of(seat, turn),
                "reinforcements": {"territories": r["territories"], "continents": r["continents"]},
                "total": r["total"]}

    def begin_turns(self, first: int) -> Iterable[Event]:
        """The play after deployment (and capitals): ``first``'s turn, or in freestyle the first round."""
        if self.state.freestyle:
            yield self._round_event(1, held=None)
        else:
            yield self.turn_started_event(first, turn=1)

    # -- freestyle rounds ------------------------------------------------------------------------------
    def _round_event(self, number: int, held: int | None) -> RoundStarted:
        """A freestyle round opens for every player still in, each one's reinforcements fixed now."""
        income: dict[str, Reinforcements] = {}
        for seat in self.state.active_seats():
            r = self.reinforcement_breakdown(seat)
            income[str(seat)] = {"territories": r["territories"], "continents": r["continents"]}
        return {"type": "round_started", "round": number, "seats": self.state.active_seats(), "income": income,
                "held": held}

    def start_refusal(self, seat: int) -> RuleError | None:
        """Why ``seat`` may not start a turn now in a freestyle game, or None if they may (``StartTurn``, or any
        move of a turn, which starts it)."""
        s = self.state
        if s.phase == OVER:
            return GameOver("The game is over.")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(s.players) \
                or seat not in s.active_seats():
            return NotYourTurn("You are not playing in this game.")
        if not s.freestyle:
            if seat == s.current:
                return None
            return NotYourTurn("It is {player}'s turn, not yours.", player=s.seat_name(s.current))
        if s.phase in (REINFORCE, ATTACK, OCCUPY, FORTIFY):
            if seat == s.current:
                return WrongPhase("Your turn is already running.")
            return TurnRunning("{player} is playing their turn now: wait until it ends.", player=s.seat_name(s.current))
        if s.phase != WAITING:
            return WrongPhase("You can do that only while {wanted}; now you are {now}.",
                              wanted=Phrase(PHASE_WORDS[WAITING]), now=Phrase(PHASE_WORDS[s.phase]))
        if seat not in s.to_play:
            return NotYourTurn("You have played your turn this round: the next round opens when everyone has played.")
        if seat == s.held:
            return NotYourTurn("You ended the last round: another player may start this one first, for a while.")
        return None

    def may_start(self, seat: int) -> bool:
        """Whether ``seat`` may start a freestyle turn now."""
        return self.state.freestyle and self.start_refusal(seat) is None

    def starters(self) -> list[int]:
        """The players who may start a freestyle turn now, in seat order (none while a turn runs)."""
        return [seat for seat in self.state.to_play if self.may_start(seat)]

    def playing(self) -> int | None:
        """The player whose turn is running (None in a freestyle round while nobody plays, or the game is over)."""
        s = self.state
        if s.phase in (OVER, WAITING):
            return None
        return s.current

    def _start_turn(self, a: StartTurn) -> Iterable[Event]:
        s = self.state
        if not s.freestyle:
            if s.phase == OVER:
                raise GameOver("The game is over.")
            raise WrongPhase("In this game turns are taken in seat order: your turn starts when the one before "
                             "it ends.")
        refusal = self.start_refusal(a.seat)
        if refusal is not None:
            raise refusal
        yield self.turn_started_event(a.seat, s.turn + 1)

    def _release_hold(self, a: ReleaseHold) -> Iterable[Event]:
        s = self.state
        if not s.freestyle or s.phase != WAITING or s.held is None or s.held != a.seat:
            raise WrongPhase("Nobody is waiting to start this round.")
        yield {"type": "hold_released", "seat": a.seat}

    def _end_round(self, a: EndRound) -> Iterable[Event]:
        s = self.state
        if s.phase == OVER:
            raise GameOver("The game is over.")
        if s.sealed is not None and s.phase == SETUP:
            yield from self._close_setup_round()
            return
        if not s.freestyle or s.phase != WAITING:
            raise WrongPhase("A round can close only while no turn runs.")
        missed = [seat for seat in s.to_play if seat in s.active_seats()]
        yield {"type": "round_closed", "round": s.round, "missed": missed}
        yield from self._next_round(None)

    def _after_turn(self, seat: int) -> Iterable[Event]:
        """What follows ``seat``'s turn_ended: the next seat's turn, or in freestyle the next round once everyone
        has played (either way the round limit may end the game here)."""
        s = self.state
        if s.freestyle:
            if not any(x in s.active_seats() for x in s.to_play):
                yield from self._next_round(seat)
            return
        nxt = s.next_seat(seat)
        if self._round_limit_reached(nxt):
            yield self._game_over(self.leader(), "round_limit")
            return
        yield self.turn_started_event(nxt, s.turn + 1)

    def _next_round(self, ended_by: int | None) -> Iterable[Event]:
        """A freestyle round is over: the round limit, or the next round (its first turn not ``ended_by``'s)."""
        s = self.state
        if s.settings.max_rounds and s.round >= s.settings.max_rounds:
            yield self._game_over(self.leader(), "round_limit")
            return
        held = ended_by if ended_by in s.active_seats() and len(s.active_seats()) > 1 else None
        yield self._round_event(s.round + 1, held)

    def _round_of(self, seat: int, turn: int) -> int:
        """The round a turn belongs to: a new round begins when play comes round past the first seat again (in
        freestyle, the round open)."""
        s = self.state
        if s.freestyle:
            return s.round
        if turn == 1:
            return 1
        n = len(s.players)
        def pos(x: int) -> int:
            return (x - s.first_seat) % n
        return s.round + 1 if pos(seat) <= pos(s.current) else s.round

    def _round_limit_reached(self, next_seat: int) -> bool:
        s = self.state
        limit = s.settings.max_rounds
        return bool(limit) and self._round_of(next_seat, s.turn + 1) > limit

    def _round_limit(self, a: RoundLimit) -> Iterable[Event]:
        """The game ends now as at a round limit: the leader wins. Whether it is time is the table's call (it
        knows which seats humans hold); the engine only checks that the game is in play."""
        self._check_turn(a)
        yield self._game_over(self.leader(), "round_limit")

    def _vote_end(self, a: VoteEnd) -> Iterable[Event]:
        """The game ends now because its players voted so: by the standings (the leader wins, as at a round
        limit), or as a draw, where every player still in shares first place (``winners``; ``winner`` is the
        first of them as for a team: the player on turn if in, else the first seat). Whether the vote passed is
        the table's call; the engine only checks that the game is in play."""
        self._check_turn(a)
        if not a.draw:
            yield self._game_over(self.leader(), "vote")
            return
        active = self.state.active_seats()
        yield self._game_over(self._lead(active), "draw", winners=sorted(active))

    def _claim_seat(self, a: ClaimSeat) -> Iterable[Event]:
        """A substitute plays the seat from now on, under their name. Who may claim it is the table's call (the
        seat's offer, the claimer's record); the engine checks that the game goes on and the seat is one of its
        players'. The name as the store keeps a player's: its spaces folded, at most 64 characters."""
        s = self.state
        if s.phase == OVER:
            raise GameOver("The game is over.")
        if not 0 <= a.seat < len(s.players):
            raise NotYourTurn("You are not playing in this game.")
        name = " ".join(a.name.split())[:64] if isinstance(a.name, str) else ""
        if not name:
            raise RuleError("A player needs a name.")
        yield {"type": "seat_claimed", "seat": a.seat, "name": name, "former": s.players[a.seat].name}

    def leader(self) -> int:
        """The player ahead on territories, then armies, then the earlier seat (for a round limit)."""
        s = self.state
        return max(s.active_seats(), key=lambda seat: (len(s.territories_of(seat)), s.army_total(seat), -seat))

    def _trade(self, a: Trade) -> Iterable[Event]:
        s = self.state
        self._check_turn(a)
        if s.settings.cards == "none":
            raise InvalidSet("This game is played without cards.")
        hand = s.hands[a.seat]
        if s.trade_down and len(hand) <= 4:
            raise WrongPhase("You hold 4 cards or fewer: no more trading until your next turn.")
        if not isinstance(a.cards, (tuple, list)) or not all(isinstance(c, str) for c in a.cards):
            raise InvalidSet("Those cards are not a set: trade three of a kind, one of each, or any two with a wild.")
        cards = tuple(a.cards)
        unknown = [c for c in cards if not self.is_card(c)]
        if unknown:
            raise self.missing_card(unknown[0])
        missing = [c for c in cards if c not in hand]
        if missing:
            raise self.missing_card(missing[0])
        kind = set_kind(self.board, cards)
        if kind is None:
            raise InvalidSet("Those cards are not a set: trade three of a kind, one of each, or any two with a wild.")
        number = s.sets_traded + 1
        armies = set_value(s.settings.cards, number, kind)
        matching = [c for c in cards if not self.board.is_wild(c) and s.owners.get(c) == a.seat]
        bonus_territory: str | None = None
        if a.bonus_territory is not None:
            chosen = self._territory(a.bonus_territory)
            if chosen not in matching:
                raise InvalidSet("{territory} is not on a traded card showing a territory you hold.",
                                 territory=self.ref(chosen))
            bonus_territory = chosen
        elif matching:
            bonus_territory = matching[0]
        bonus = min(2, 2 - s.bonus_this_turn) if bonus_territory else 0
        if bonus <= 0:
            bonus_territory = None
        yield {"type": "cards_traded", "seat": a.seat,
               "cards": [{"card": c, "territory": None if self.board.is_wild(c) else c,
                          "symbol": self.card_symbol(c)} for c in cards],
               "set_number": number, "armies": armies, "bonus_territory": bonus_territory, "bonus_armies": bonus}
        if bonus_territory:
            yield {"type": "armies_placed", "seat": a.seat, "territory": bonus_territory, "count": bonus,
                   "source": "card_bonus"}

    def card_symbol(self, card: str) -> str:
        """The symbol on a card of this game's deck: ``wild`` or its territory's."""
        return symbol(self.board, card)

    def is_card(self, card: str) -> bool:
        """Whether ``card`` is a card of this map's deck: a wild, or a territory that has a card."""
        if self.board.is_wild(card):
            return True
        territory = self.board.territories.get(card)
        return territory is not None and territory.card is not None

    def ref(self, territory: str) -> Territory:
        """A territory for a message: its name now, its id for translation."""
        return Territory(territory, self.name(territory))

    def missing_card(self, card: str) -> InvalidSet:
        """The refusal of a card the player does not hold (a card that does not exist is echoed, clipped)."""
        if self.board.is_wild(card):
            return InvalidSet("You do not hold a wild card.")
        if card in self.board.territories and not self.is_card(card):
            return InvalidSet("{territory} has no card in this map's deck.", territory=self.ref(card))
        if not self.is_card(card):
            return InvalidSet("There is no card “{card}”.", card=clip(str(card)))
        return InvalidSet("You do not hold the {territory} card.", territory=self.ref(card))

    # -- attack -------------------------------------------------------------------------------------
    def _check_attack(self, a: Attack | Blitz) -> tuple[str, str]:
        s = self.state
        seat = a.seat
        self._check_turn(a, REINFORCE)
        src, dst = self._territory(a.source), self._territory(a.target)
        if s.phase == REINFORCE:
            if s.trade_down:
                raise MustTrade("Trade down to 4 cards and place those armies before attacking again.")
            raise WrongPhase("Place all your reinforcements first ({left} left).", left=s.reinforcements)
        self._own(seat, src)
        if s.owners[dst] == seat:
            raise NotOwner("{territory} is yours: attack an enemy territory.", territory=self.ref(dst))
        if self.friendly(seat, s.owners[dst]):
            raise Teammate("{territory} is held by your teammate {player}: teammates cannot attack each other.",
                           territory=self.ref(dst), player=s.seat_name(s.owners[dst]))
        if not self.board.adjacent(src, dst):
            if self.board.adjacent(dst, src):
                raise NotAdjacent("The border between {source} and {target} is one-way: it may be crossed only "
                                  "from {target} to {source}.", source=self.ref(src), target=self.ref(dst))
            raise NotAdjacent("{source} is not adjacent to {target}.", source=self.ref(src), target=self.ref(dst))
        if s.armies[src] < 2:
            raise NotEnoughArmies("{territory} has only 1 army: you need at least 2 to attack.",
                                  territory=self.ref(src))
        return src, dst

    def _battle(self, seat: int, src: str, dst: str, attacker_dice: int) -> Iterable[Event]:
        s = self.state
        defender = s.owners[dst]
        defender_dice = min(2, s.armies[dst])
        start = s.dice_index
        rolled = dice.roll(s.seed, start, attacker_dice + defender_dice)
        att = sorted(rolled[:attacker_dice], reverse=True)
        dfn = sorted(rolled[attacker_dice:], reverse=True)
        a_loss = d_loss = 0
        for x, y in zip(att, dfn, strict=False):
            if x > y:
                d_loss += 1
            else:
                a_loss += 1  # ties go to the defender
        yield {"type": "battle", "seat": seat, "from": src, "to": dst, "defender": defender,
               "attacker_dice": att, "defender_dice": dfn, "attacker_losses": a_loss, "defender_losses": d_loss,
               "roll_index": start, "rolls": attacker_dice + defender_dice}
        if s.armies[dst] == 0:
            yield from self._conquer(seat, src, dst, defender, attacker_dice)

    def _conquer(self, seat: int, src: str, dst: str, defender: int, last_dice: int) -> Iterable[Event]:
        s = self.state
        min_move = min(last_dice, s.armies[src] - 1)
        yield {"type": "territory_conquered", "seat": seat, "from": src, "to": dst, "defender": defender,
               "min_move": min_move}
        if defender != NEUTRAL and not any(o == defender for o in s.owners.values()):
            yield {"type": "player_eliminated", "seat": defender, "by": seat,
                   "cards_taken": list(s.hands[defender])}
            yield from self.mode.player_out(self, defender, seat)
        winner = self._winner()
        victory = Victory("conquest") if winner is not None else self.mode.victory(self, seat)
        if victory is not None:
            yield {"type": "occupied", "seat": seat, "from": src, "to": dst, "count": s.pending["max"] if s.pending
                   else min_move}
            yield self._game_over(seat if winner is None else winner, victory.reason, **victory.details)
            return
        if s.pending and s.pending["min"] == s.pending["max"]:
            yield {"type": "occupied", "seat": seat, "from": src, "to": dst, "count": s.pending["min"]}

    def _winner(self) -> int | None:
        """The winner, if one player (or team) is left or holds every territory. With teams: the team's lead
        seat (the player whose turn it is if they are in it, else its first seat still in the game)."""
        s = self.state
        active = s.active_seats()
        sides = {self.side(seat) for seat in active}
        if len(sides) == 1:
            return self._lead(active)
        owners = set(s.owners.values())
        if len(s.owners) == len(self.board.territories) and NEUTRAL not in owners \
                and len({self.side(o) for o in owners}) == 1:
            return self._lead([o for o in active if o in owners] or sorted(owners))
        return None

    def _lead(self, seats: list[int]) -> int:
        return self.state.current if self.state.current in seats else min(seats)

    def _game_over(self, winner: int, reason: str, **details: Any) -> GameEnded:
        event: dict[str, Any] = {"type": "game_over", "winner": winner, "reason": reason}
        if self.state.teams:
            event["winners"] = self._side_members(winner)
            event["reason"] = "teams" if reason == "conquest" else reason
        event.update(details)
        event["seed"] = self.state.seed
        event["seed_commitment"] = self.state.seed_commitment
        return cast(GameEnded, event)

    def _checkpoint(self) -> Iterable[Event]:
        """After each action (and before a turn passes): has the player whose turn it is won by the mode's goal?"""
        s = self.state
        if s.phase in (OVER, CLAIM, SETUP, CAPITAL, OCCUPY, WAITING):
            return
        victory = self.mode.victory(self, s.current)
        if victory is not None:
            yield self._game_over(s.current, victory.reason, **victory.details)

    def _attack(self, a: Attack) -> Iterable[Event]:
        src, dst = self._check_attack(a)
        allowed = min(3, self.state.armies[src] - 1)
        n = allowed if a.dice is None else a.dice
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 3:
            raise InvalidDice("Roll 1, 2 or 3 dice.")
        if n > allowed:
            if allowed == 1:
                raise InvalidDice("With {armies} armies in {territory} you can roll only 1 die.",
                                  armies=self.state.armies[src], territory=self.ref(src))
            raise InvalidDice("With {armies} armies in {territory} you can roll at most {allowed} dice.",
                              armies=self.state.armies[src], territory=self.ref(src), allowed=allowed)
        yield from self._battle(a.seat, src, dst, n)

    def _blitz(self, a: Blitz) -> Iterable[Event]:
        src, dst = self._check_attack(a)
        stop_at = self._positive(a.stop_at, "The stop threshold")
        s = self.state
        if s.armies[src] <= stop_at:
            raise NotEnoughArmies("{territory} already has {armies} armies, at or below your stop threshold of "
                                  "{stop_at}.", territory=self.ref(src), armies=s.armies[src], stop_at=stop_at)
        first: int | None = None  # the battles of one blitz carry the roll index of its first battle
        while s.phase == ATTACK and s.owners[dst] != a.seat and s.armies[src] > stop_at:
            for event in self._battle(a.seat, src, dst, min(3, s.armies[src] - 1)):
                if event["type"] == "battle":
                    first = event["roll_index"] if first is None else first
                    event["blitz"] = first
                yield event

    def _occupy(self, a: Occupy) -> Iterable[Event]:
        s = self.state
        self._check_turn(a)
        p = s.pending
        assert p is not None
        count = a.count
        if isinstance(count, bool) or not isinstance(count, int) or not p["min"] <= count <= p["max"]:
            raise InvalidCount("Move between {low} and {high} armies into {territory}.", low=p["min"], high=p["max"],
                               territory=self.ref(p["to"]))
        yield {"type": "occupied", "seat": a.seat, "from": p["from"], "to": p["to"], "count": count}

    def _end_attack(self, a: EndAttack) -> Iterable[Event]:
        self._check_turn(a)
        yield {"type": "attack_ended", "seat": a.seat}

    # -- fortify and end of turn ---------------------------------------------------------------------
    @property
    def fortify_ends_turn(self) -> bool:
        """Whether a fortify move ends the turn (every rule but ``unlimited``)."""
        return FORTIFY_RULES[self.state.settings.fortify][1]

    def fortify_targets(self, seat: int, source: str) -> list[str]:
        """Territories armies may move to from ``source`` under this game's fortify rule: your own and (with
        teams) your teammates', adjacent or along a chain of your team's territories."""
        s = self.state
        if s.owners.get(source) != seat:
            return []
        if not FORTIFY_RULES[s.settings.fortify][0]:
            return sorted(n for n in self.board.neighbours(source) if self.friendly(seat, s.owners.get(n)))
        reached = {source}
        queue = deque([source])
        while queue:
            for n in self.board.neighbours(queue.popleft()):
                if n not in reached and self.friendly(seat, s.owners.get(n)):
                    reached.add(n)
                    queue.append(n)
        reached.discard(source)
        return sorted(reached)

    def _fortify(self, a: Fortify) -> Iterable[Event]:
        s = self.state
        self._check_turn(a)
        src, dst = self._territory(a.source), self._territory(a.target)
        self._own(a.seat, src)
        if not self.friendly(a.seat, s.owners.get(dst)):
            self._own(a.seat, dst)
        if src == dst:
            raise InvalidCount("Choose two different territories.")
        if dst not in self.fortify_targets(a.seat, src):
            if s.settings.fortify == "adjacent" and self.board.adjacent(dst, src):
                raise NotAdjacent("The border between {source} and {target} is one-way: it may be crossed only "
                                  "from {target} to {source}.", source=self.ref(src), target=self.ref(dst))
            if s.settings.fortify == "adjacent":
                raise NotAdjacent("{source} is not adjacent to {target}: in this game you fortify only between "
                                  "adjacent territories.", source=self.ref(src), target=self.ref(dst))
            if s.teams:
                raise NotConnected("{target} is not connected to {source} through your team's territories.",
                                   source=self.ref(src), target=self.ref(dst))
            raise NotConnected("{target} is not connected to {source} through your territories.",
                               source=self.ref(src), target=self.ref(dst))
        count = self._positive(a.count, "The number of armies")
        if count > s.armies[src] - 1:
            raise NotEnoughArmies("At most {most} can move from {territory}: one army must stay behind.",
                                  most=s.armies[src] - 1, territory=self.ref(src))
        if not self.fortify_ends_turn and s.phase == ATTACK:
            yield {"type": "attack_ended", "seat": a.seat}
        yield {"type": "fortified", "seat": a.seat, "from": src, "to": dst, "count": count}
        if self.fortify_ends_turn:
            yield from self._finish_turn(a.seat)

    def _end_turn(self, a: EndTurn) -> Iterable[Event]:
        self._check_turn(a)
        yield from self._finish_turn(a.seat)

    def _finish_turn(self, seat: int) -> Iterable[Event]:
        s = self.state
        # A mission completed by the last move is won before the turn passes.
        won = list(self._checkpoint())
        if won:
            yield from won
            return
        if s.conquered_this_turn and s.settings.cards != "none":
            if not s.deck and s.discard:
                yield self.shuffle_event("deck_shuffled", s.discard, from_discard=True)
            if s.deck:
                yield {"type": "card_drawn", "seat": seat, "card": s.deck[0]}
        yield {"type": "turn_ended", "seat": seat}
        yield from self._after_turn(seat)

    def _surrender(self, a: Surrender) -> Iterable[Event]:
        s = self.state
        if s.phase == OVER:
            raise GameOver("The game is over.")
        if a.seat not in s.active_seats():
            raise NotYourTurn("You are not playing in this game.")
        if not self.allows(Surrender):
            raise WrongPhase("You can surrender once deployment is over.")
        was_current = s.current == a.seat and s.phase != WAITING
        last = s.current
        yield {"type": "player_surrendered", "seat": a.seat}
        yield from self.mode.player_out(self, a.seat, None)
        winner = self._winner()
        if winner is not None:
            yield self._game_over(winner, "surrender")
        elif was_current:
            # The turn passes as at any end of turn (without a card): the round limit may end the game here.
            yield {"type": "turn_ended", "seat": a.seat}
            yield from self._after_turn(a.seat)
        elif s.freestyle and s.phase == WAITING and not any(x in s.active_seats() for x in s.to_play):
            yield from self._next_round(last)  # the last player the round waited for gave up

    # -- legal-action queries -----------------------------------------------------------------------
    def allowed_dice(self, source: str) -> list[int]:
        return list(range(1, min(3, self.state.armies.get(source, 0) - 1) + 1))

    def attack_sources(self, seat: int) -> list[str]:
        """Your territories that can attack now (at least 2 armies and an enemy neighbour)."""
        s = self.state
        return [t for t in self.board.territory_ids if s.owners.get(t) == seat and s.armies[t] >= 2
                and any(not self.friendly(seat, s.owners.get(n)) for n in self.board.neighbours(t))]

    def attack_targets(self, seat: int, source: str) -> list[str]:
        """Enemy (and neutral) neighbours of ``source``; never your own or a teammate's territory."""
        s = self.state
        if s.owners.get(source) != seat:
            return []
        return sorted(n for n in self.board.neighbours(source) if not self.friendly(seat, s.owners.get(n)))

    def fortify_sources(self, seat: int) -> list[str]:
        s = self.state
        return [t for t in self.board.territory_ids if s.owners.get(t) == seat and s.armies[t] >= 2
                and any(self.friendly(seat, s.owners.get(n)) for n in self.board.neighbours(t))]

    def mission(self, seat: int) -> Mission | None:
        """The secret mission of ``seat`` (mode ``missions``), or None. Hidden information: show it only to them."""
        mission = self.state.missions.get(seat)
        return copy.deepcopy(mission) if mission is not None else None

    def mission_text(self, seat: int) -> str | None:
        """The mission of ``seat`` in plain English, or None without missions."""
        mission = self.state.missions.get(seat)
        return None if mission is None else mission_text(mission, self.board, self.state.players)

    def capital_of(self, seat: int) -> str | None:
        return self.state.capitals.get(seat)

    def move_in_range(self) -> tuple[int, int] | None:
        p = self.state.pending
        return (p["min"], p["max"]) if p else None

    def can_trade(self, seat: int) -> bool:
        s = self.state
        if s.settings.cards == "none" or not self.allows(Trade) or s.current != seat:
            return False
        return not s.trade_down or len(s.hands[seat]) > 4

    def tradeable_sets(self, seat: int) -> list[tuple[str, ...]]:
        """The sets ``seat`` may trade now (none outside their reinforcement phase)."""
        if not self.can_trade(seat):
            return []
        return valid_sets(self.board, self.state.hands.get(seat, []))

    def ranked_sets(self, seat: int) -> list[tuple[str, ...]]:
        """The sets ``seat`` may trade now, the best first: value, then a +2 territory bonus, then keeping wilds
        (the order of the hand breaks ties)."""
        s = self.state

        def score(cards: tuple[str, ...]) -> tuple[int, int, int]:
            kind = set_kind(self.board, cards)
            assert kind is not None
            value = set_value(s.settings.cards, s.sets_traded + 1, kind)
            bonus = 1 if any(not self.board.is_wild(c) and s.owners.get(c) == seat for c in cards) else 0
            return value, bonus, -sum(1 for c in cards if self.board.is_wild(c))
        return sorted(self.tradeable_sets(seat), key=score, reverse=True)

    def best_set(self, seat: int) -> tuple[str, ...] | None:
        """The set worth the most now: value, then a +2 territory bonus, then keeping wilds."""
        ranked = self.ranked_sets(seat)
        return ranked[0] if ranked else None

    def next_set_value(self) -> int:
        s = self.state
        if s.settings.cards == "escalating":
            return set_value("escalating", s.sets_traded + 1, "mixed")
        return 0

    def must_trade(self, seat: int) -> bool:
        s = self.state
        if not self.allows(Trade) or s.current != seat or s.settings.cards == "none":
            return False
        return len(s.hands[seat]) > 4 if s.trade_down else len(s.hands[seat]) >= 5

    def claimable(self) -> list[str]:
        return [t for t in self.board.territory_ids if t not in self.state.owners]

    def placeable(self, seat: int) -> list[str]:
        """Territories ``seat`` may place on now (in a two-player setup, neutral ones too)."""
        s = self.state
        mine = [t for t in self.board.territory_ids if s.owners.get(t) == seat]
        if s.phase == SETUP and s.sealed is not None:
            return mine if self.setup_left(seat) else []
        if s.phase == SETUP and s.two_player:
            neutral = [t for t in self.board.territory_ids if s.owners.get(t) == NEUTRAL]
            return (mine if s.batch_left else []) + (neutral if s.neutral_left else [])
        return mine


def split_log(events: Sequence[Event], told: int) -> tuple[GameState | None, list[Event]]:
    """The board after the first ``told`` events (None for none) and the events after them: what a restart's
    catch-up or a turn panel needs of a log that grows with the game (run where the log is worked on)."""
    before = Game.from_events(events[:told]).state if told else None
    return before, list(events[told:])


__all__ = ["Game", "split_log"]
