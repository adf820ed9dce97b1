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

A game that ends otherwise than by its own finish still gives its table a result, so its round goes on: the
tournament's host cancelling it (``Table.cancel`` of a game whose result is needed: by the standings, nobody
resigning), its players' vote to end it, a round limit; a game still in its set-up then is a draw. Its own
game host's controls are the Discord layer's to refuse (``control_refusal``): the tournament's host runs it.

In a tournament of fixed teams (``Spec.team_size`` 2 or 3) the players join naming their team (``join(...,
team=...)``); each table's game is a team game (the engine's ``teams`` setting: 2v2, 3v3 or 2v2v2), the teams'
players seated in turn (``TournamentView.seats``), and the team's place is its players' place.

A player the AI replaced after too many missed turns (the game's ``max_missed``) forfeits their table: they are
placed last at it, and the standings count the forfeit (a team forfeits when the AI replaced all its players).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from competition import FORMATS, CompetitionError, Pairing, Result, Spec, Standing, standings
from engine import Settings
from engine.errors import SettingsError
from engine.settings import TEAM_FORMATS
from ratings import EARLY_TURNS, Rating
from store import ACTIVE_STATUSES, FINISHED, LOBBY, ChannelBusy, GameRecord, Shards, StoreError, StoreReader
from store import CANCELLED as GAME_CANCELLED
from store.results import below_minimum
from store.tournaments import (
    CHECKIN,
    DUE_CHECKIN,
    DUE_OPEN,
    DUE_ROUND,
    OPEN,
    STARTED,
    T_ACTIVE,
    Seat,
    TeamRecord,
    TournamentRecord,
    TournamentView,
    competition_refusal,
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
        """A new channel for the table's game; returns its id. ``names``: the table's entrants (the players, or
        the teams), in the pairing's order."""


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
    team: TeamRecord | None = None      # ``join`` of a tournament of fixed teams: the team joined, as it is now


class EntryRefused(StoreError):
    """A player the tournament's entry rules keep out; the message gives their figure."""


def entry_spec(format_: str, table_size: int, rounds: int, team_size: int = 1) -> Spec:
    """The spec a host asks for, checked as far as it can be before anyone joins (``team_size`` 2 or 3: fixed
    teams, ``table_size`` of them at a table)."""
    if format_ not in FORMATS:
        raise StoreError("There is no tournament format {name}.", name=format_)
    spec = Spec(format_, table_size=table_size, rounds=rounds, team_size=team_size)
    try:
        spec.check(max(table_size, 2) * 2)
    except CompetitionError as exc:
        raise competition_refusal(exc) from exc
    return spec


def team_format(teams: int, team_size: int) -> str:
    """The engine's ``teams`` setting of a table of ``teams`` fixed teams of ``team_size`` players."""
    return next(name for name, shape in TEAM_FORMATS.items() if shape == (teams, team_size))


def game_settings(spec: Spec, settings: Mapping[str, Any], teams: int | None = None) -> dict[str, Any]:
    """The settings of a tournament's game: the host's, with the teams the spec makes (none for single
    players; for fixed teams, the table's ``teams`` of them, a full table if not given)."""
    game = dict(settings)
    game["teams"] = "none" if spec.team_size == 1 else team_format(teams or spec.table_size, spec.team_size)
    return game


async def running_tournament_of(store: StoreReader, game_id: int) -> TournamentRecord | None:
    """The tournament, not over, that a game is a table of (None: none, or it is over)."""
    found = await store.tournament_of_game(game_id)
    if found is None:
        return None
    tournament = await store.get_tournament(found[0])
    return tournament if tournament.status in T_ACTIVE else None


async def control_refusal(store: StoreReader, record: GameRecord, user_id: int) -> TournamentRecord | None:
    """The tournament that refuses ``user_id`` a host's control of a game (cancel, kick, pause, resume, AIs,
    settings, seats, start): of a tournament not over, only the tournament's host runs its games, not the game's
    own host (its first seat), and nobody runs a game they play in (``referees_own_game``), the tournament's host
    neither. None: not a tournament's game, or its tournament's host not playing in it (the Discord layer lets a
    server's managers who do not play in it act too, as for any game, and words the refusal)."""
    tournament = await running_tournament_of(store, record.id)
    if tournament is None or (tournament.host_id == user_id and not referees_own_game(record, user_id)):
        return None
    return tournament


def referees_own_game(record: GameRecord, user_id: int) -> bool:
    """Whether ``user_id`` plays in the game (holds one of its seats): at a tournament's table such a player may
    not use a host's or a manager's powers there, as its first seat may not."""
    return record.seat_of(user_id) is not None


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
        table.result_needed.append(self.plays)

    def lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    # -- before the start --------------------------------------------------------------------------------
    async def create(self, guild_id: int | None, channel_id: int, host_id: int, name: str, spec: Spec,
                     settings: Mapping[str, Any]) -> TournamentOutcome:
        """A new tournament in a channel. ``settings``: "game" (the games' settings, checked by the engine; their
        teams are the spec's: none for single players, the teams' format for fixed teams), "round_time" and
        "checkin" (seconds), and the entry rules "min_games", "min_reliability", "min_rating", "max_rating"."""
        game = game_settings(spec, settings.get("game") or {})
        try:
            checked = Settings.from_dict(game)
            checked.check_map()
            checked.check_players(spec.table_size * spec.team_size)  # a full table can be seated on the map
        except SettingsError as exc:
            raise StoreError("{reason}", reason=str(exc)) from exc
        settings = {**settings, "game": game}
        record = await self.store.create_tournament(guild_id, channel_id, host_id, name, spec, settings)
        return TournamentOutcome(CREATED, record, user_id=host_id)

    async def join(self, tournament_id: int, user_id: int, name: str, team: str | None = None) -> TournamentOutcome:
        """A player enters, if they meet the entry rules (refused with their own figure). In a tournament of fixed
        teams, into the team named ``team`` (compared without case), made if there is none; a complete team
        (``Spec.team_size`` players) is refused. The outcome's ``team`` is the team as it is now."""
        record = await self.store.get_tournament(tournament_id)
        rules = record.settings
        stored = (await self.store.ratings(record.guild_id, record.channel_id)).get(user_id)
        rating = Rating.of(stored) if stored is not None else None
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
            figures = await self.store.reliability(record.guild_id, [user_id], record.channel_id,
                                                   early_turns=EARLY_TURNS)
            refusal = below_minimum(figures[user_id], minimum)
            if refusal is not None:
                raise EntryRefused("Your reliability here is {figure}% (games counted: {games}); this tournament "
                                   "asks for at least {minimum}%.", **refusal.params)
        await self.store.join_tournament(tournament_id, user_id, name, score, team)
        view = await self.store.tournament_view(tournament_id)
        return TournamentOutcome(JOINED, record, view, user_id=user_id, team=view.team_of(user_id))

    async def leave(self, tournament_id: int, user_id: int) -> TournamentOutcome:
        """A player leaves before the start (their team too: a team whose last player left is no more)."""
        await self.store.leave_tournament(tournament_id, user_id)
        return TournamentOutcome(LEFT, await self.store.get_tournament(tournament_id), user_id=user_id)

    async def invite(self, tournament_id: int, creator_id: int, user_id: int) -> TeamRecord:
        """The creator of a team invites a player to it (before the start); the team as it is."""
        return await self.store.invite_to_team(tournament_id, creator_id, user_id)

    async def remove(self, tournament_id: int, by: int, user_id: int, *, manager: bool = False) -> Outcome | None:
        """``by`` removes an entrant. Before the start the tournament's host (or a server manager) removes anyone,
        and a team's creator a player of their team; the player is out (``leave``). After the start only the host
        (or a manager) removes, and the removal forfeits the player's table: their seat in the round's game is
        removed (a kick by ``by``, the outcome to tell; the table counts it as their entrant's forfeit). Nobody
        removes a player from a game they play in themselves (``referees_own_game``)."""
        record = await self.store.get_tournament(tournament_id)
        view = await self.store.tournament_view(tournament_id)
        runs = manager or record.host_id == by
        entrant = next((e for e in view.entrants if e.user_id == user_id), None)
        if entrant is None:
            raise StoreError("That player is not in this tournament.")
        if record.status in (OPEN, CHECKIN):
            team = view.team_of(user_id)
            if not runs and not (team is not None and team.creator == by and user_id != by):
                raise StoreError("Only the tournament's host, or a team's creator for their team, removes an "
                                 "entrant.")
            await self.store.leave_tournament(tournament_id, user_id)
            return None
        if not runs:
            raise StoreError("Only the tournament's host removes an entrant once it has started.")
        game_id = next((p.game_id for p in view.pairings if p.pairing.round == record.round and p.game_id is not None
                        and user_id in {s.user_id for s in view.seats(p.pairing)}), None)
        game = await self.store.get_game(game_id) if game_id is not None else None
        if game is None or game.status not in ACTIVE_STATUSES or game.seat_of(user_id) is None:
            raise StoreError("That player has no game going in this round.")
        if referees_own_game(game, by):
            raise StoreError("You play at that table, so you cannot remove anyone from its game: nobody referees "
                             "their own game.")
        seat = game.seat_of(user_id)
        assert seat is not None
        return await self.table.kick(game.id, seat, by=by)

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
        """The host calls the tournament off; its games still going end by the standings (nobody resigns; one in
        its set-up is cancelled)."""
        async with self.lock(tournament_id):
            record = await self.store.cancel_tournament(tournament_id)
            view = await self.store.tournament_view(tournament_id)
            games = []
            for p in view.pairings:
                if p.game_id is not None and (await self.store.get_game(p.game_id)).status in ACTIVE_STATUSES:
                    games.append(await self.table.end_by_standings(p.game_id))
            return TournamentOutcome(CANCELLED, record, view, games)

    # -- its games -------------------------------------------------------------------------------------
    async def plays(self, record: GameRecord) -> bool:
        """Whether a game is a table of a tournament (the table's ``result_needed``): whatever ends it, it ends
        with a result, so the round goes on."""
        return await self.store.tournament_of_game(record.id) is not None


    # -- a round ----------------------------------------------------------------------------------------
    async def _open_round(self, tournament_id: int) -> TournamentOutcome:
        """Open every game of the current round that has none yet (the caller holds the tournament's lock)."""
        view = await self.store.tournament_view(tournament_id)
        record = view.record
        if record.status != STARTED:
            return TournamentOutcome(ROUND, record, view)
        games: list[Outcome] = []
        for p in view.pairings:
            pairing = p.pairing
            if pairing.round != record.round or pairing.bye:
                continue
            if p.game_id is not None:  # opened; an opening cut short before its start starts it now
                if (await self.store.get_game(p.game_id)).status == LOBBY:
                    games.append(await self.table.start(p.game_id))
                continue
            if self.rooms is None:
                raise RuntimeError("the tournament has no rooms to open its games in")
            names = [view.entrant_name(k) for k in pairing.entrants]
            thread = p.thread_id
            if thread is None:
                thread = await self.store.set_pairing_room(
                    record.id, pairing.round, pairing.table, await self.rooms.open_room(record, pairing, names))
            games.append(await self._open_game(record, pairing, thread, view.seats(pairing)))
        round_time = float(record.settings.get("round_time") or 0)
        started = record.round_started_at or self.clock()
        await self.store.set_tournament_due(record.id, started + round_time if round_time else None,
                                            DUE_ROUND if round_time else None)
        self.table.timers_changed()
        view = await self.store.tournament_view(tournament_id)
        return TournamentOutcome(ROUND, view.record, view, games, view_standings(view))

    async def _open_game(self, record: TournamentRecord, pairing: Pairing, thread: int, seats: Sequence[Seat]
                         ) -> Outcome:
        """The table's game in its thread: a lobby with the tournament's settings (a team game for fixed teams;
        one found there from an opening cut short is taken over), its players seated in order, started."""
        host, *others = seats
        settings = game_settings(record.spec, record.settings.get("game") or {}, len(pairing.entrants))
        try:
            lobby = await self.store.create_lobby(record.guild_id, thread, host.user_id, host.name, settings)
        except ChannelBusy:
            found = await self.store.get_active_game(thread)
            if found is None or found.status != LOBBY or found.host_id != host.user_id:
                raise
            lobby = found
        for seat in others:
            if lobby.seat_of(seat.user_id) is None:
                lobby = (await self.table.join(lobby.id, seat.user_id, seat.name)).record
        await self.store.set_pairing_game(record.id, pairing.round, pairing.table, lobby.id)
        if lobby.status != "lobby":
            return Outcome(lobby)
        return await self.table.start(lobby.id)

    async def game_over(self, record: GameRecord) -> None:
        """A game has ended (the table's hook, under the game's lock): if a tournament opened it, its places are
        the table's result (each seat's place is its entrant's: a team's players share theirs); a game cancelled
        in its set-up is a draw. The store pairs the next round with the round's last result."""
        if record.status not in (FINISHED, GAME_CANCELLED):
            return
        table = await self.store.tournament_of_game(record.id)
        if table is None:
            return
        tournament_id, round_, table_no = table
        view = await self.store.tournament_view(tournament_id)
        pairing = next(p.pairing for p in view.pairings if (p.pairing.round, p.pairing.table) == (round_, table_no))
        seats = view.seats(pairing)
        if record.status == FINISHED:
            results = {r.seat: r for r in await self.store.results(record.id)}
            place = {seat: results[seat].placement for seat in results}
            took_over = {seat for seat, r in results.items() if r.ai_took_over}
            removed = {seat for seat, r in results.items() if r.removed_by is not None}
        else:  # no play yet: nobody is ahead
            place = dict.fromkeys(range(len(seats)), 1)
            took_over = {p.seat for p in record.players if p.is_ai}
            removed = set()
        places = tuple((key, min(place.get(i, len(seats)) for i, s in enumerate(seats) if s.entrant == key))
                       for key in pairing.entrants)
        # An entrant forfeits when the AI took all its seats from their absent players, or the host removed one
        # of its players.
        forfeits = frozenset(key for key in pairing.entrants
                             if all(i in took_over | removed for i, s in enumerate(seats) if s.entrant == key)
                             or any(i in removed for i, s in enumerate(seats) if s.entrant == key))
        forced = record.id in self._forced
        self._forced.discard(record.id)
        await self.store.record_table_result(Result(round_, table_no, places, forfeits), tournament_id, forced)
        self.table.timers_changed()

    async def _force_round(self, tournament_id: int) -> list[Outcome]:
        """The round's time is up: every game of it still going (paused too) ends by the round limit; one still
        in its set-up is cancelled, a draw."""
        view = await self.store.tournament_view(tournament_id)
        ended = []
        for p in view.pairings:
            if p.pairing.round != view.record.round or p.game_id is None:
                continue
            if (await self.store.get_game(p.game_id)).status not in ACTIVE_STATUSES:
                continue
            self._forced.add(p.game_id)
            try:
                ended.append(await self.table.end_by_standings(p.game_id))
            finally:
                self._forced.discard(p.game_id)
        return ended

    # -- timers -------------------------------------------------------------------------------------------
    async def next_due(self, shards: Shards | None = None) -> float | None:
        """When the next timer of a tournament (of a guild on ``shards``, if given) is due."""
        return await self.store.next_tournament_due(shards)

    async def run_due(self, now: float, shards: Shards | None = None) -> int:
        """Every tournament timer due now (of the tournaments of guilds on ``shards``, if given: a process runs
        its shards' tournaments, as their games); each outcome goes to the sink. Returns how many were
        handled."""
        handled = 0
        for record in await self.store.due_tournaments(now, shards):
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
           "EntryRefused", "Rooms", "TournamentOutcome", "Tournaments",
           "control_refusal", "entry_spec", "game_settings", "referees_own_game", "running_tournament_of",
           "team_format", "view_standings"]
