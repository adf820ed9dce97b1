"""An action applied to a game: the engine decides, the store writes, in one transaction (``Store.change``).

``Plays.apply`` reads the game's head in the change's transaction (the game locked), applies the action with the
engine, and gives the store the rows it makes: the state, the events, the turns, the interaction's summary. More
of the same change (``also``: the timers, a missed-turn counter, a vote's close) is decided with the action's
result and written in that transaction too, so a change is stored whole or not at all.

A small cache keeps the engine ``Game`` of recently played games with the version it matches: the head read
says whether the stored version is still the cached one, and the state is read and parsed again only when it is
not, so a game changed by another process is read afresh. One ``Plays`` serves a store (``plays_for``): the table
and whatever else applies actions to it share its cache.

An action that ends a game is rolled back once and tried again, when what the results take from the whole log is
known (worked out in the log's worker process, with no transaction open); the last attempt reads the log in its
transaction, should the game keep changing under another process.
"""

from __future__ import annotations

import logging
import secrets
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from engine import SCHEMA_VERSION, Action, Event, Game, RuleError
from engine.actions import ClaimSeat
from ops import metrics
from store import (
    FINISHED,
    LOBBY,
    PAUSED,
    RUNNING,
    ActionResult,
    AlreadySeated,
    GameNotRunning,
    GameRecord,
    NotEnoughPlayers,
    NotInLobby,
    Store,
    VersionConflict,
)
from store.change import GameChange, Played, dumps, seat_name
from store.records import status_word
from store.results import LogFacts, log_facts

from .results import finish

log = logging.getLogger(__name__)

_ENDING_ATTEMPTS = 3
CACHE_SIZE = 2048

# More of one change, decided with the action's result, in its transaction.
Also = Callable[[GameChange, ActionResult], Awaitable[None]]
# More of one change, written before the action's rows (what the action's rows must find: a missed turn's mark
# on the turn the action ends).
Before = Callable[[GameChange], Awaitable[None]]


class _GameEnds(Exception):
    """The action ends the game: its transaction gives way while the whole log is read and summed up."""

    def __init__(self, first_seq: int, events: list[Event]) -> None:
        super().__init__(first_seq)
        self.first_seq, self.events = first_seq, events


@dataclass(frozen=True)
class _Ending:
    first_seq: int
    events: list[Event]
    facts: LogFacts | None


def ending_facts(events: list[Event], game_id: int, ending: list[Event]) -> LogFacts | None:
    """In the log's worker: what the results take from the log, the ending action's events last."""
    try:
        return log_facts([*events, *ending])
    except Exception:  # the change is tried again, and a game must be able to end (``finish``)
        log.exception("game %s: what its results take from the log could not be worked out", game_id)
        return None


class Plays:
    """Actions applied to the games of one store, with the cache of their engine games."""

    def __init__(self, store: Store, cache_size: int = CACHE_SIZE) -> None:
        self.store = store
        self.cache_size = cache_size
        self._cache: OrderedDict[int, tuple[GameRecord, Game]] = OrderedDict()
        self.stats = {"cache_hits": 0, "cache_misses": 0}

    def _remember(self, record: GameRecord, game: Game) -> None:
        if record.status != RUNNING:
            self._cache.pop(record.id, None)
            return
        self._cache[record.id] = (record, game)
        self._cache.move_to_end(record.id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    async def apply(self, game_id: int, action: Action, interaction_id: str | None = None,
                    expected_version: int | None = None, removed_by: int | None = None,
                    also: Also | None = None, before: Before | None = None) -> ActionResult:
        """Apply one action in one transaction and return what happened (with ``also``, more of the change).

        ``removed_by``: the user who removes the action's seat (a host's kick, a ``Surrender`` of another's seat),
        stored with it for the game's ratings. A repeated ``interaction_id`` returns the first result with
        ``duplicate=True`` and writes nothing. ``expected_version`` raises ``VersionConflict`` if the game changed
        since the caller read it. When the game ends, its results and ratings are written in the same
        transaction (``table/results.py``). ``before``: more of the change, written before the action's rows."""
        if not isinstance(action, Action):
            raise TypeError(f"apply needs an engine Action, not {type(action).__name__}")
        ending: _Ending | None = None
        for attempt in range(_ENDING_ATTEMPTS):
            try:
                result = await self._apply_once(game_id, action, interaction_id, expected_version, removed_by, also,
                                                before, ending, last_try=attempt == _ENDING_ATTEMPTS - 1)
            except _GameEnds as end:  # rolled back: what the results take from the log, off the loop
                facts = await self.store.with_log(game_id, ending_facts, game_id, end.events)
                ending = _Ending(end.first_seq, end.events, facts)
                metrics.transaction_retried()
                continue
            if not result.duplicate:
                metrics.action_applied(action)
            return result
        raise AssertionError("unreachable: the last attempt never asks for the log")

    async def _apply_once(self, game_id: int, action: Action, interaction_id: str | None,
                          expected_version: int | None, removed_by: int | None, also: Also | None,
                          before: Before | None, ending: _Ending | None, *, last_try: bool) -> ActionResult:
        # The cached game is checked out while the action runs: it goes back only once the change is committed
        # (an engine refusal leaves it unchanged and it goes back at once; a failed write does not).
        cached = self._cache.pop(game_id, None)
        keep: list[tuple[GameRecord, Game]] = []
        applied_game: list[Game] = []

        async def work(change: GameChange) -> ActionResult:
            head = await change.head(cached[0].version if cached else None, interaction_id)
            fresh = cached if cached is not None and head.state_json is None and cached[0].status == head.status \
                else None
            if fresh is not None:
                keep.append(fresh)  # it matches the database: it goes back whatever happens next, until applied
            if head.previous is not None:
                record = fresh[0] if fresh is not None else await change.record()
                events = await change.events(head.previous["first_seq"], head.previous["last_seq"])
                return ActionResult(record, events, duplicate=True, first_seq=head.previous["first_seq"])
            if expected_version is not None and expected_version != head.version:
                raise VersionConflict("The game has moved on since this was shown; look at the board again and "
                                      "retry.")
            if head.status != RUNNING:
                raise GameNotRunning("Game #{id} is {status}; no moves can be made.", id=game_id,
                                     status=status_word(head.status))
            if fresh is not None:
                record, game = fresh
                self.stats["cache_hits"] += 1
            else:
                record = await change.record()
                game = record.game()
                self.stats["cache_misses"] += 1
                keep.append((record, game))
            try:
                events = game.apply(action)
            except RuleError:
                raise  # the engine changed nothing: the game is still right
            except BaseException:
                keep.clear()
                raise
            keep.clear()  # the game is ahead of the database until the commit
            applied_game[:] = [game]
            status = FINISHED if game.over else RUNNING
            first_seq = head.last_seq + 1
            known = False
            if status == FINISHED:  # the results and ratings, in the transaction that ends the game
                known = ending is not None and ending.first_seq == first_seq and ending.events == events
                if not known and not last_try:
                    raise _GameEnds(first_seq, events)
                # The server's ratings are this transaction's from here until the commit; the time taken next
                # orders the games as they are rated (a rebuild rates them in that order).
                await change.lock_ratings(record.guild_id or 0)
            if before is not None:
                await before(change)
            played = Played(record, dumps(game.state.to_dict()), status, head.version + 1, first_seq, events)
            change.store_action(played, interaction_id=interaction_id, action=action.to_dict(),
                                removed_by=removed_by, removed_seat=getattr(action, "seat", None),
                                finished=status == FINISHED)
            if status == FINISHED:
                await finish(change, record, ending.facts if ending is not None and known else None)
            applied = replace(record, status=status, state_json=played.state_json, state_schema=SCHEMA_VERSION,
                              version=played.version, last_seq=first_seq + len(events) - 1, updated_at=change.now)
            result = ActionResult(applied, events, duplicate=False, first_seq=first_seq)
            if also is not None:
                await also(change, result)
            return result

        try:
            done = await self.store.change(game_id, work)
            if not done.duplicate:
                keep.append((done.record, applied_game[0]))
            return done
        finally:
            if keep:
                self._remember(*keep[-1])

    async def start(self, game_id: int, seed: str | None = None) -> tuple[GameRecord, list[Event]]:
        """Start the game with the seated players in seat order: the record and the opening events."""
        self._cache.pop(game_id, None)

        async def work(change: GameChange) -> tuple[GameRecord, Game, list[Event]]:
            record = await change.record()
            if record.status != LOBBY:
                raise NotInLobby("Game #{id} is {status}; only a game in its lobby can start.", id=game_id,
                                 status=status_word(record.status))
            if len(record.players) < 2:
                raise NotEnoughPlayers("A game needs at least 2 players; the lobby has {n}.",
                                       n=len(record.players))
            game, events = Game.new([p.engine_player() for p in record.players], seed or secrets.token_hex(32),
                                    record.settings)
            status = FINISHED if game.over else RUNNING
            state = dumps(game.state.to_dict())
            change.store_start(state, status, events)
            started = replace(record, status=status, state_json=state, state_schema=SCHEMA_VERSION,
                              version=record.version + 1, last_seq=len(events), updated_at=change.now)
            return started, game, events

        started, game, events = await self.store.change(game_id, work)
        self._remember(started, game)  # committed: the cache may hold it
        return started, events

    async def claim(self, game_id: int, seat: int, offer: str, user_id: int, name: str,
                    since_turn: int) -> GameRecord | None:
        """``user_id`` takes the offered seat from ``since_turn`` on, in one transaction: the offer must still be
        open with this key (None if not: claimed, withdrawn, or never made), and the user must never have held a
        seat of the game (``AlreadySeated``). The seat's players are remembered, and the log tells the claim (the
        engine's ``ClaimSeat``: the seat's name is theirs from here on, for every reader)."""
        self._cache.pop(game_id, None)
        taken = seat_name(name)

        async def work(change: GameChange) -> GameRecord | None:
            record = await change.record()
            status = await change.seat_status(seat)
            if status.offer is None or status.offer != offer or status.booted_user_id is None \
                    or record.status not in (RUNNING, PAUSED):
                return None
            if await change.ever_seated(user_id):
                raise AlreadySeated("You play in this game already (or did): a seat is offered to another "
                                    "player.")
            holders = [] if await change.holders_noted(seat) else [
                (0, status.booted_user_id, status.booted_name or record.player(seat).name)]
            game = record.game()
            events = game.apply(ClaimSeat(seat, taken))
            change.store_claim(record, seat, [*holders, (since_turn, user_id, taken)], user_id, taken,
                               dumps(game.state.to_dict()), events)
            return record

        claimed = await self.store.change(game_id, work)
        return await self.store.get_game(game_id) if claimed is not None else None


_plays: weakref.WeakKeyDictionary[Store, Plays] = weakref.WeakKeyDictionary()


def plays_for(store: Store) -> Plays:
    """The one ``Plays`` of a store (its cache of games is the store's, whoever applies the actions)."""
    found = _plays.get(store)
    if found is None:
        found = _plays[store] = Plays(store, getattr(store, "cache_size", CACHE_SIZE))
        getattr(store, "on_close", []).append(found._cache.clear)  # a store opened again is read afresh
    return found


async def apply_action(store: Store, game_id: int, action: Action, interaction_id: str | None = None,
                       expected_version: int | None = None, removed_by: int | None = None) -> ActionResult:
    """``Plays.apply`` on the store's one ``Plays`` (for the command-line tools, the benches and the tests)."""
    return await plays_for(store).apply(game_id, action, interaction_id, expected_version, removed_by)


async def start_game(store: Store, game_id: int, seed: str | None = None) -> tuple[GameRecord, list[Event]]:
    """``Plays.start`` on the store's one ``Plays``."""
    return await plays_for(store).start(game_id, seed)


__all__ = ["Also", "Before", "Plays", "apply_action", "ending_facts", "plays_for", "start_game"]
