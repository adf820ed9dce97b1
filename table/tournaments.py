"""Tournaments the bot runs: it opens every game of a round itself, scores each game as it ends and pairs the
next round when the last game of a round has ended (docs/tournaments.md, "Running a tournament").

``Tournaments`` is the table's desk for them, with no Discord in it: the Discord layer gives it ``rooms`` (where
a table's game is played: a thread under the tournament's channel) and a ``sink`` for what it did on its own
(a round opened by a timer, the final standings). Every change is a method here and returns a
``TournamentOutcome``; the games themselves change only through the ``Table``.

The flow, each step kept in the store so a restart goes on where it stopped:

1. ``start`` pairs the first round (``competition.next_round``) and sets the tournament's timer to open it;
   with a check-in, it opens the check-in first and its timer starts the tournament when it closes.
2. Opening a round (``open_round``, from the timer): for each table, a thread (``rooms``), a lobby with the
   tournament's settings, its players seated, the game started. Each step checks what is stored first (a
   thread or a game the table has already), so opening again after a restart opens nothing twice.
3. When a game ends, the table calls ``game_over`` (``Table.game_over_hooks``): the game's places become the
   table's ``Result`` and the store pairs the next round in the transaction that stores the round's last
   result, with a timer to open it (or a timer to post the final standings).
4. A round past its time limit (``round_time``): every game still going is ended by the round limit
   (``RoundLimit``, the engine's one standings rule) and scored like any other end.

A player the AI replaced after too many missed turns (the game's ``max_missed``) forfeits their table: they are
placed last at it, and the standings count the forfeit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from competition import FORMATS, CompetitionError, Pairing, Result, Spec, Standing, standings
from engine import RuleError, Settings
from engine.actions import RoundLimit
from engine.errors import SettingsError
from engine.state import OVER
from store import FINISHED, RUNNING, ChannelBusy, GameRecord, StoreError
from store.results import below_minimum
from store.tournaments import (
    DUE_CHECKIN,
    DUE_OPEN,
    DUE_ROUND,
    STARTED,
    TournamentRecord,
    TournamentView,
)

from .flow import Table
from .outcome import Outcome

log = logging.getLogger(__name__)

DUE_FINAL = "final"  # the last round ended: the final standings are to be posted
# What a tournament outcome tells.
CREATED, JOINED, LEFT, CHECKED_IN, CHECKIN_OPEN, ROUND, FINAL, CANCELLED = (
    "created", "joined", "left", "checked_in", "checkin_open", "round", "final", "cancelled")


class Rooms(Protocol):
    """Where a table's game is played (the Discord layer: a thread under the tournament's channel)."""

    async def open_room(self, tournament: TournamentRecord, pairing: Pairing, names: Sequence[str]) -> int:
        """A new channel for the table's game; returns its id."""


@dataclass
class TournamentOutcome:
    """What one step of a tournament did: its kind (``CREATED``, ``ROUND``, ...), the tournament afterwards, the
    outcomes of the games it started (each told in its own thread), and the standings when a round opened or the
    tournament ended."""

    kind: str
    record: TournamentRecord
    view: TournamentView | None = None
    games: list[Outcome] = field(default_factory=list)
    standings: list[Standing] = field(default_factory=list)
    user_id: int | None = None


class EntryRefused(StoreError):
    """A player the tournament's entry rules keep out; the message gives their figure."""


def entry_spec(format_: str, table_size: int, rounds: int) -> Spec:
    """The spec a host asks for, checked as far as it can be before anyone joins."""
    if format_ not in FORMATS:
        raise StoreError("There is no tournament format {name}.", name=format_)
    spec = Spec(format_, table_size=table_size, rounds=rounds)
    try:
        spec.check(max(table_size, 2) * 2)
    except CompetitionError as exc:
        raise StoreError("{reason}", reason=str(exc)) from exc
    return spec


def view_standings(view: TournamentView) -> list[Standing]:
    """The tournament's standings now (the entrants who play, ranked)."""
    if not view.pairings:
        return []
    return standings(view.record.spec, view.players(), view.pairing_list(), view.results)


class Tournaments:
    """The tournaments of every server this process serves."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.store = table.store
        self.clock = table.clock
        self.rooms: Rooms | None = None
        self.sink: Callable[[TournamentOutcome], Awaitable[None]] | None = None
        self._locks: dict[int, asyncio.Lock] = {}
        self._forced: set[int] = set()  # games ended by their round's time limit
        table.game_over_hooks.append(self.game_over)

    def lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    # -- before the start --------------------------------------------------------------------------------
    async def create(self, guild_id: int | None, channel_id: int, host_id: int, name: str, spec: Spec,
                     settings: Mapping[str, Any]) -> TournamentOutcome:
        """A new tournament in a channel. ``settings``: "game" (the games' settings, checked by the engine),
        "round_time" and "checkin" (seconds), and the entry rules "min_games", "min_reliability", "min_rating",
        "max_rating"."""
        try:
            Settings.from_dict(dict(settings.get("game") or {})).check_map()
        except SettingsError as exc:
            raise StoreError("{reason}", reason=str(exc)) from exc
        record = await self.store.create_tournament(guild_id, channel_id, host_id, name, spec, settings)
        return TournamentOutcome(CREATED, record, user_id=host_id)

    async def join(self, tournament_id: int, user_id: int, name: str) -> TournamentOutcome:
        """A player enters, if they meet the entry rules (refused with their own figure)."""
        record = await self.store.get_tournament(tournament_id)
        rules = record.settings
        rating = (await self.store.ratings(record.guild_id, record.channel_id)).get(user_id)
        score = float(rating.score) if rating is not None else 1000.0
        games = rating.games if rating is not None else 0
        if int(rules.get("min_games") or 0) > games:
            raise EntryRefused("You have played {games} rated games here; this tournament asks for at least "
                               "{minimum}.", games=games, minimum=int(rules["min_games"]))
        low, high = rules.get("min_rating"), rules.get("max_rating")
        if (low is not None and score < low) or (high is not None and score > high):
            raise EntryRefused("Your rating here is {rating}; this tournament takes ratings from {low} to {high}.",
                               rating=int(score), low=int(low if low is not None else 0),
                               high=int(high if high is not None else 9999))
        minimum = int(rules.get("min_reliability") or 0)
        if minimum:
            figures = await self.store.reliability(record.guild_id, [user_id], record.channel_id)
            refusal = below_minimum(figures[user_id], minimum)
            if refusal is not None:
                raise EntryRefused("Your reliability here is {figure}% (games counted: {games}); this tournament "
                                   "asks for at least {minimum}%.", **refusal.params)
        await self.store.join_tournament(tournament_id, user_id, name, score)
        return TournamentOutcome(JOINED, record, await self.store.tournament_view(tournament_id), user_id=user_id)

    async def leave(self, tournament_id: int, user_id: int) -> TournamentOutcome:
        await self.store.leave_tournament(tournament_id, user_id)
        return TournamentOutcome(LEFT, await self.store.get_tournament(tournament_id), user_id=user_id)

    async def check_in(self, tournament_id: int, user_id: int) -> TournamentOutcome:
        await self.store.check_in(tournament_id, user_id)
        return TournamentOutcome(CHECKED_IN, await self.store.get_tournament(tournament_id), user_id=user_id)

    async def start(self, tournament_id: int) -> TournamentOutcome:
        """With a check-in not yet held: open it (its timer starts the tournament). Else pair the first round
        and open its games. A second start is refused (``StoreError``): the first round is paired once."""
        async with self.lock(tournament_id):
            record = await self.store.get_tournament(tournament_id)
            seconds = float(record.settings.get("checkin") or 0)
            if seconds and record.status == "open":
                record = await self.store.open_checkin(tournament_id, self.clock() + seconds)
                self.table.timers_changed()
                return TournamentOutcome(CHECKIN_OPEN, record)
            await self.store.start_tournament(tournament_id)
            return await self._open_round(tournament_id)

    async def cancel(self, tournament_id: int) -> TournamentOutcome:
        """The host calls the tournament off; its games still going are cancelled (or end by the standings)."""
        async with self.lock(tournament_id):
            record = await self.store.cancel_tournament(tournament_id)
            view = await self.store.tournament_view(tournament_id)
            games = []
            for p in view.pairings:
                if p.game_id is not None and (await self.store.get_game(p.game_id)).status in (RUNNING, "paused",
                                                                                                 "lobby"):
                    games.append(await self.table.cancel(p.game_id))
            return TournamentOutcome(CANCELLED, record, view, games)

    # -- a round ----------------------------------------------------------------------------------------
    async def _open_round(self, tournament_id: int) -> TournamentOutcome:
        """Open every game of the current round that has none yet (the caller holds the tournament's lock)."""
        view = await self.store.tournament_view(tournament_id)
        record = view.record
        if record.status != STARTED:
            return TournamentOutcome(ROUND, record, view)
        names = {e.user_id: e.name for e in view.entrants}
        games: list[Outcome] = []
        for p in view.pairings:
            pairing = p.pairing
            if pairing.round != record.round or pairing.bye or p.game_id is not None:
                continue
            if self.rooms is None:
                raise RuntimeError("the tournament has no rooms to open its games in")
            seats = [names.get(k, str(k)) for k in pairing.entrants]
            thread = p.thread_id
            if thread is None:
                thread = await self.store.set_pairing_room(
                    record.id, pairing.round, pairing.table, await self.rooms.open_room(record, pairing, seats))
            games.append(await self._open_game(record, pairing, thread, seats))
        round_time = float(record.settings.get("round_time") or 0)
        started = record.round_started_at or self.clock()
        await self.store.set_tournament_due(record.id, started + round_time if round_time else None,
                                            DUE_ROUND if round_time else None)
        self.table.timers_changed()
        view = await self.store.tournament_view(tournament_id)
        return TournamentOutcome(ROUND, view.record, view, games, view_standings(view))

    async def _open_game(self, record: TournamentRecord, pairing: Pairing, thread: int, names: Sequence[str]
                         ) -> Outcome:
        """The table's game in its thread: a lobby with the tournament's settings (one found there from an
        opening cut short is taken over), its players seated, started."""
        host, *others = pairing.entrants
        settings = dict(record.settings.get("game") or {})
        try:
            lobby = await self.store.create_lobby(record.guild_id, thread, host, names[0], settings)
        except ChannelBusy:
            found = await self.store.get_active_game(thread)
            if found is None:
                raise
            lobby = found
        for user, name in zip(others, names[1:], strict=True):
            if lobby.seat_of(user) is None:
                lobby = (await self.table.join(lobby.id, user, name)).record
        await self.store.set_pairing_game(record.id, pairing.round, pairing.table, lobby.id)
        if lobby.status != "lobby":
            return Outcome(lobby)
        return await self.table.start(lobby.id)

    async def game_over(self, record: GameRecord) -> None:
        """A game has ended (the table's hook, under the game's lock): if a tournament opened it, its places are
        the table's result; the store pairs the next round with the round's last result."""
        if record.status != FINISHED:
            return
        table = await self.store.tournament_of_game(record.id)
        if table is None:
            return
        tournament_id, round_, table_no = table
        results = await self.store.results(record.id)
        places = tuple((r.user_id, r.placement) for r in results if r.user_id is not None)
        forfeits = frozenset(r.user_id for r in results if r.user_id is not None and r.ai_took_over)
        forced = record.id in self._forced
        self._forced.discard(record.id)
        await self.store.record_table_result(Result(round_, table_no, places, forfeits), tournament_id, forced)
        self.table.timers_changed()

    async def _force_round(self, tournament_id: int) -> list[Outcome]:
        """The round's time is up: every game of it still going ends by the round limit."""
        view = await self.store.tournament_view(tournament_id)
        ended = []
        for p in view.pairings:
            if p.pairing.round != view.record.round or p.game_id is None:
                continue
            async with self.table.lock(p.game_id):
                record = await self.store.get_game(p.game_id)
                if record.status != RUNNING or record.state_json is None:
                    continue
                state = record.game().state
                if state.phase == OVER:
                    continue
                self._forced.add(record.id)
                try:
                    result = await self.store.apply_action(record.id, RoundLimit(state.current))
                except (StoreError, RuleError) as exc:
                    log.warning("tournament %s: game %s could not be ended: %s", tournament_id, record.id, exc)
                    self._forced.discard(record.id)
                    continue
                part = self.table._part(state.current, "host", state, result)
                ended.append(await self.table._finish(result.record, [part]))
        return ended

    # -- timers -------------------------------------------------------------------------------------------
    async def next_due(self) -> float | None:
        return await self.store.next_tournament_due()

    async def run_due(self, now: float) -> int:
        """Every tournament timer due now; each outcome goes to the sink. Returns how many were handled."""
        handled = 0
        for record in await self.store.due_tournaments(now):
            try:
                outcome = await self.fire(record)
            except Exception:
                log.exception("tournament %s: its %s timer failed; dropping it", record.id, record.due_kind)
                await self.store.set_tournament_due(record.id, None, None)
                continue
            handled += 1
            if outcome is not None and self.sink is not None:
                await self.sink(outcome)
        return handled

    async def fire(self, due: TournamentRecord) -> TournamentOutcome | None:
        async with self.lock(due.id):
            record = await self.store.get_tournament(due.id)
            if record.due_at is None or record.due_at > self.clock():
                return None
            kind = record.due_kind
            await self.store.set_tournament_due(record.id, None, None)
            if kind == DUE_CHECKIN:
                try:
                    await self.store.start_tournament(record.id)
                except StoreError as exc:  # too few checked in: the tournament cannot be played
                    log.info("tournament %s: not started after check-in: %s", record.id, exc)
                    record = await self.store.cancel_tournament(record.id)
                    return TournamentOutcome(CANCELLED, record, await self.store.tournament_view(record.id))
                return await self._open_round(record.id)
            if kind == DUE_OPEN:
                return await self._open_round(record.id)
            if kind == DUE_ROUND:
                games = await self._force_round(record.id)
                view = await self.store.tournament_view(record.id)
                return TournamentOutcome(ROUND, view.record, view, games, []) if games else None
            if kind == DUE_FINAL:
                view = await self.store.tournament_view(record.id)
                return TournamentOutcome(FINAL, view.record, view, [], view_standings(view))
            return None

    async def catch_up(self, tournament_ids: Sequence[int]) -> None:
        """After a restart: a game of a running tournament that ended while the bot was away (its result not
        stored yet) is scored now."""
        for tournament_id in tournament_ids:
            view = await self.store.tournament_view(tournament_id)
            done = {(r.round, r.table) for r in view.results}
            for p in view.pairings:
                if p.game_id is not None and (p.pairing.round, p.pairing.table) not in done:
                    await self.game_over(await self.store.get_game(p.game_id))


__all__ = ["CANCELLED", "CHECKED_IN", "CHECKIN_OPEN", "CREATED", "DUE_FINAL", "FINAL", "JOINED", "LEFT", "ROUND",
           "EntryRefused", "Rooms", "TournamentOutcome", "Tournaments", "entry_spec", "view_standings"]
