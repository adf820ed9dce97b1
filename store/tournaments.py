"""Tournaments: all their SQL, in one place (the tables of migration ``_V_TOURNAMENTS``).

A tournament keeps its spec (``competition.Spec``), the settings its games are opened with, its entrants, the
pairings of each round (one row per table: the unique key (tournament, round, table) makes a round's pairing
happen once) and each table's result. The next round is paired in the transaction that stores the last result
of a round (``record_table_result``): the tournament's row is locked first (``FOR UPDATE`` on PostgreSQL, the
whole file under SQLite's ``BEGIN IMMEDIATE``), so of two processes storing the last two results at once, the
second sees the first's result and pairs, and no round is paired twice.

In a tournament of fixed teams (``Spec.team_size`` 2 or 3) an entrant of the competition is a team: its number
(``tournament_teams``) is the key the pairings and results name, and each player's row names their team. A team
is made by its players joining under the same name; it is complete at ``team_size`` players.

A tournament has one timer of its own (``due_at``, ``due_kind``): check-in closes, a round's time limit passes,
or the games of a new round are to be opened. The table's scheduler reads them (``due_tournaments``), a process
that runs some of the gateway's shards only those of its shards' guilds (as the games' timers).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from competition import CompetitionError, Entrant, Pairing, Result, Spec, next_round

from .backend import Backend, Reading, Writing, reads, shard_filter, writes
from .errors import InvalidValue, StoreError
from .records import Shards
from .transaction import Step

# A tournament's statuses.
OPEN, CHECKIN, STARTED, DONE, CALLED_OFF = "open", "checkin", "running", "finished", "cancelled"
T_ACTIVE = (OPEN, CHECKIN, STARTED)
# What a tournament's timer is for.
DUE_CHECKIN, DUE_ROUND, DUE_OPEN = "checkin", "round", "open"
MAX_TOURNAMENT_ENTRANTS = 128
MAX_TEAM_NAME = 32


def team_key(name: str) -> str:
    """A team's name as names are compared: without case and without spaces ("  OWLS " is "Owls")."""
    return "".join(name.split()).casefold()

_COLUMNS = ("id, guild_id, channel_id, host_id, name, spec, settings, status, round, round_started_at, due_at, "
            "due_kind, created_at, updated_at")


def competition_refusal(exc: CompetitionError) -> StoreError:
    """The store's refusal of what ``competition`` refused, translatable like every refusal when it has a
    template (a sentence the catalogs hold, with its values), else its English words as they are."""
    if exc.params or "{" not in exc.template:
        return StoreError(exc.template, **exc.params)
    return StoreError("{reason}", reason=str(exc))


@dataclass(frozen=True)
class TournamentRecord:
    """A tournament as stored."""

    id: int
    guild_id: int | None
    channel_id: int
    host_id: int
    name: str
    spec: Spec
    settings: dict[str, Any]   # "game": the games' settings; "round_time", "min_games", "min_reliability",
                               # "min_rating", "max_rating", "checkin" (seconds of check-in, 0: none)
    status: str
    round: int
    round_started_at: float | None
    due_at: float | None
    due_kind: str | None
    created_at: float
    updated_at: float

    @property
    def active(self) -> bool:
        return self.status in T_ACTIVE


@dataclass(frozen=True)
class EntrantRecord:
    user_id: int
    name: str
    rating: float
    checked_in: bool
    joined_at: float
    team: int | None = None

    def entrant(self) -> Entrant:
        return Entrant(self.user_id, self.rating, self.name)


@dataclass(frozen=True)
class TeamRecord:
    """A fixed team of a tournament: its number (its key as an entrant), its name, and its players in the order
    they joined."""

    number: int
    name: str
    members: tuple[EntrantRecord, ...] = ()
    creator: int | None = None     # the player who made it: they invite its other players (``invite_to_team``)

    @property
    def rating(self) -> float:
        """The team's seed and Swiss rating: its players' mean."""
        return sum(m.rating for m in self.members) / len(self.members) if self.members else 1000.0


@dataclass(frozen=True)
class Seat:
    """One seat of a table's game: the player who sits in it and the entrant (a player, or their team) it plays
    for."""

    user_id: int
    name: str
    entrant: int


@dataclass(frozen=True)
class PairingRecord:
    """One table of one round, and the thread and game that play it (None until opened)."""

    pairing: Pairing
    thread_id: int | None = None
    game_id: int | None = None


@dataclass(frozen=True)
class TournamentView:
    """Everything a tournament's standings and next round are computed from."""

    record: TournamentRecord
    entrants: list[EntrantRecord]
    pairings: list[PairingRecord]
    results: list[Result]
    forced: frozenset[tuple[int, int]] = field(default_factory=frozenset)  # (round, table) ended by the time limit
    teams: list[TeamRecord] = field(default_factory=list)   # a tournament of fixed teams: its teams, oldest first

    @property
    def team_size(self) -> int:
        return self.record.spec.team_size

    def players(self) -> list[Entrant]:
        """The entrants who play: with a check-in, those who checked in. In a tournament of fixed teams, the
        teams: with a check-in, the complete teams whose players all checked in."""
        checkin = bool(self.record.settings.get("checkin"))
        if self.team_size > 1:
            return [Entrant(t.number, t.rating, t.name) for t in self.teams if len(t.members) == self.team_size
                    and (not checkin or all(m.checked_in for m in t.members))]
        return [e.entrant() for e in self.entrants if e.checked_in or not checkin]

    def incomplete_teams(self) -> list[TeamRecord]:
        return [t for t in self.teams if len(t.members) < self.team_size] if self.team_size > 1 else []

    def team_of(self, user_id: int) -> TeamRecord | None:
        return next((t for t in self.teams if any(m.user_id == user_id for m in t.members)), None)

    def entrant_names(self) -> dict[int, str]:
        """Each entrant's name by its key: the player's, or in a tournament of fixed teams the team's."""
        if self.team_size > 1:
            return {t.number: t.name for t in self.teams}
        return {e.user_id: e.name for e in self.entrants}

    def entrant_name(self, key: int) -> str:
        return self.entrant_names().get(key, str(key))

    def seats(self, pairing: Pairing) -> list[Seat]:
        """The seats of a table's game, in order. Each player is the entrant; fixed teams sit in turn, a player of
        each team and then the next of each (the engine's seat order of teams: seat i plays in team i % teams)."""
        if self.team_size == 1:
            return [Seat(key, self.entrant_name(key), key) for key in pairing.entrants]
        teams = {t.number: t for t in self.teams}
        return [Seat(teams[key].members[i].user_id, teams[key].members[i].name, key)
                for i in range(self.team_size) for key in pairing.entrants]

    def pairing_list(self) -> list[Pairing]:
        return [p.pairing for p in self.pairings]


def _record(row: Sequence[Any]) -> TournamentRecord:
    spec = json.loads(row[5])
    return TournamentRecord(int(row[0]), row[1], row[2], row[3], row[4], Spec(**spec), dict(json.loads(row[6])),
                            row[7], row[8], row[9], row[10], row[11], row[12], row[13])


def spec_json(spec: Spec) -> str:
    return json.dumps({"format": spec.format, "table_size": spec.table_size, "rounds": spec.rounds,
                       "team_size": spec.team_size}, separators=(",", ":"))


def _pairing_steps(tournament_id: int, pairings: Sequence[Pairing]) -> list[Step]:
    return [Step("INSERT INTO tournament_pairings (tournament_id, round, table_no, entrants, bye, bracket) "
                 "VALUES (?, ?, ?, ?, ?, ?)",
                 (tournament_id, p.round, p.table, json.dumps(list(p.entrants)), int(p.bye), p.bracket))
            for p in pairings]


class TournamentsMixin(Backend):
    """The tournaments part of ``SQLStore``."""

    _row_lock = ""  # PostgreSQL: " FOR UPDATE" (SQLite's BEGIN IMMEDIATE locks the whole file)

    # -- reading ---------------------------------------------------------------------------------------
    @reads
    async def get_tournament(self, db: Reading, tournament_id: int) -> TournamentRecord:
        return await self._tournament(db, tournament_id)

    async def _tournament(self, db: Reading, tournament_id: int, lock: bool = False) -> TournamentRecord:
        rows = await db.fetch(f"SELECT {_COLUMNS} FROM tournaments WHERE id = ?{self._row_lock if lock else ''}",
                              (tournament_id,))
        if not rows:
            raise InvalidValue("There is no tournament #{id}.", id=tournament_id)
        return _record(rows[0])

    @reads
    async def channel_tournament(self, db: Reading, channel_id: int) -> TournamentRecord | None:
        """The newest tournament of a channel that is not over (else the newest at all), if any."""
        rows = await db.fetch(f"SELECT {_COLUMNS} FROM tournaments WHERE channel_id = ? "
                              "ORDER BY status IN ('open', 'checkin', 'running') DESC, id DESC LIMIT 1",
                              (channel_id,))
        return _record(rows[0]) if rows else None

    @reads
    async def tournament_view(self, db: Reading, tournament_id: int) -> TournamentView:
        return await self._view(db, tournament_id)

    async def _view(self, db: Reading, tournament_id: int, lock: bool = False) -> TournamentView:
        record = await self._tournament(db, tournament_id, lock)
        rows = await db.fetch("SELECT user_id, name, rating, checked_in, joined_at, team FROM tournament_entrants "
                              "WHERE tournament_id = ? ORDER BY joined_at, user_id", (tournament_id,))
        entrants = [EntrantRecord(u, n, float(r), bool(c), j, t) for u, n, r, c, j, t in rows]
        rows = await db.fetch("SELECT round, table_no, entrants, bye, bracket, thread_id, game_id "
                              "FROM tournament_pairings WHERE tournament_id = ? ORDER BY round, table_no",
                              (tournament_id,))
        pairings = [PairingRecord(Pairing(r, t, tuple(json.loads(e)), bool(b), k), th, g)
                    for r, t, e, b, k, th, g in rows]
        rows = await db.fetch("SELECT team, name, creator FROM tournament_teams WHERE tournament_id = ? "
                              "ORDER BY created_at, team", (tournament_id,))
        teams = [TeamRecord(int(n), name, tuple(e for e in entrants if e.team == n), None if c is None else int(c))
                 for n, name, c in rows]
        rows = await db.fetch("SELECT round, table_no, places, forfeits, forced FROM tournament_results "
                              "WHERE tournament_id = ? ORDER BY round, table_no", (tournament_id,))
        results = [Result(r, t, tuple((int(k), int(p)) for k, p in json.loads(pl)), frozenset(json.loads(f)))
                   for r, t, pl, f, _forced in rows]
        forced = frozenset((r, t) for r, t, _pl, _f, forced in rows if forced)
        return TournamentView(record, entrants, pairings, results, forced, teams)

    @reads
    async def tables_in_threads(self, db: Reading, thread_ids: Sequence[int]) -> set[int]:
        """Of these threads, those a tournament's table is stored in (a thread made for a table and not stored is
        not: the opening was cut short before it was)."""
        ids = sorted(set(thread_ids))
        if not ids:
            return set()
        rows = await db.fetch(f"SELECT thread_id FROM tournament_pairings WHERE thread_id IN "
                              f"({', '.join('?' * len(ids))})", tuple(ids))
        return {int(r[0]) for r in rows}

    @reads
    async def tournament_of_game(self, db: Reading, game_id: int) -> tuple[int, int, int] | None:
        """(tournament, round, table) of a game a tournament opened, if any."""
        rows = await db.fetch("SELECT tournament_id, round, table_no FROM tournament_pairings "
                              "WHERE game_id = ?", (game_id,))
        return (int(rows[0][0]), int(rows[0][1]), int(rows[0][2])) if rows else None

    @reads
    async def running_tournaments(self, db: Reading) -> list[int]:
        rows = await db.fetch("SELECT id FROM tournaments WHERE status = 'running' ORDER BY id")
        return [int(r[0]) for r in rows]

    @reads
    async def due_tournaments(self, db: Reading, now: float, shards: Shards | None = None) -> list[TournamentRecord]:
        where, params = shard_filter(shards, "guild_id")
        rows = await db.fetch(f"SELECT {_COLUMNS} FROM tournaments WHERE due_at IS NOT NULL AND due_at <= ? "
                              f"AND {where} ORDER BY due_at, id", (now, *params))
        return [_record(r) for r in rows]

    @reads
    async def next_tournament_due(self, db: Reading, shards: Shards | None = None) -> float | None:
        where, params = shard_filter(shards, "guild_id")
        rows = await db.fetch(f"SELECT MIN(due_at) FROM tournaments WHERE due_at IS NOT NULL AND {where}",
                              params)
        return float(rows[0][0]) if rows and rows[0][0] is not None else None

    # -- writing ---------------------------------------------------------------------------------------
    @writes
    async def create_tournament(self, db: Writing, guild_id: int | None, channel_id: int, host_id: int, name: str,
                                spec: Spec, settings: Mapping[str, Any]) -> TournamentRecord:
        now = self._clock()
        busy = await db.fetch("SELECT id FROM tournaments WHERE channel_id = ? AND status IN "
                              "('open', 'checkin', 'running')", (channel_id,))
        if busy:
            raise InvalidValue("This channel already has a tournament (#{id}): finish or cancel it first.",
                               id=busy[0][0])
        rows = await db.fetch(
            "INSERT INTO tournaments (guild_id, channel_id, host_id, name, spec, settings, status, round, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'open', 0, ?, ?) RETURNING id",
            (guild_id, channel_id, host_id, name[:100], spec_json(spec), json.dumps(dict(settings)), now,
             now))
        return await self._tournament(db, int(rows[0][0]))

    @writes
    async def join_tournament(self, db: Writing, tournament_id: int, user_id: int, name: str, rating: float,
                              team: str | None = None) -> EntrantRecord:
        """A player enters; in a tournament of fixed teams, into the team of that name (made if there is none;
        refused when it is complete)."""
        now = self._clock()
        view = await self._view(db, tournament_id, lock=True)
        record = view.record
        if record.status not in (OPEN, CHECKIN):
            raise StoreError("This tournament has started: it takes no more entrants.")
        if any(e.user_id == user_id for e in view.entrants):
            raise StoreError("You are already in this tournament.")
        most = MAX_TOURNAMENT_ENTRANTS * max(1, view.team_size)
        if len(view.entrants) >= most:
            raise StoreError("This tournament is full ({n} entrants).", n=MAX_TOURNAMENT_ENTRANTS)
        steps, number = await self._team_steps(db, view, team, now, user_id)
        entrant = EntrantRecord(user_id, name[:64], rating, record.status == CHECKIN, now, number)
        await db.commit(*steps, Step(
            "INSERT INTO tournament_entrants (tournament_id, user_id, name, rating, checked_in, joined_at, "
            "team) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (tournament_id, user_id, entrant.name, rating, int(entrant.checked_in), now, number)))
        return entrant

    @staticmethod
    async def _team_steps(db: Reading, view: TournamentView, team: str | None, now: float, user_id: int
                          ) -> tuple[list[Step], int | None]:
        """The team a player joins (its number), and the steps that make it if it is new (``user_id`` its creator)
        or use up the invitation its creator gave them (a team takes no one by its name alone)."""
        size = view.team_size
        if size == 1:
            if team is not None:
                raise InvalidValue("This tournament is played by single players: join it without a team.")
            return [], None
        name = " ".join((team or "").split())
        if not name:
            raise InvalidValue("This tournament is played by teams of {size}: join it with the name of your team "
                               "(the same name as your teammates).", size=size)
        if len(name) > MAX_TEAM_NAME:
            raise InvalidValue("A team's name has at most {n} characters.", n=MAX_TEAM_NAME)
        found = next((t for t in view.teams if team_key(t.name) == team_key(name)), None)
        if found is not None:
            if len(found.members) >= size:
                raise StoreError("The team {team} is complete ({size} players).", team=found.name, size=size)
            invited = await db.fetch("SELECT 1 FROM tournament_invites WHERE tournament_id = ? AND team = ? "
                                     "AND user_id = ?", (view.record.id, found.number, user_id))
            if not invited:
                raise StoreError("The team {team} takes only the players its creator invites: ask them for an "
                                 "invitation (</tournament invite>).", team=found.name)
            return [Step("DELETE FROM tournament_invites WHERE tournament_id = ? AND user_id = ?",
                         (view.record.id, user_id))], found.number
        if len(view.teams) >= MAX_TOURNAMENT_ENTRANTS:
            raise StoreError("This tournament is full ({n} entrants).", n=MAX_TOURNAMENT_ENTRANTS)
        rows = await db.fetch("SELECT COALESCE(MAX(team), 0) FROM tournament_teams WHERE tournament_id = ?",
                              (view.record.id,))
        number = int(rows[0][0]) + 1
        return [Step("INSERT INTO tournament_teams (tournament_id, team, name, name_key, created_at, creator) "
                     "VALUES (?, ?, ?, ?, ?, ?)", (view.record.id, number, name, team_key(name), now, user_id)),
                Step("DELETE FROM tournament_invites WHERE tournament_id = ? AND user_id = ?",
                     (view.record.id, user_id))], number

    @writes
    async def invite_to_team(self, db: Writing, tournament_id: int, creator_id: int, user_id: int) -> TeamRecord:
        """The creator of a team invites a player to it, before the start: the player may then join it (by its
        name). Refused to whoever made no team here, for a complete team or a player already in the tournament."""
        view = await self._view(db, tournament_id, lock=True)
        if view.record.status not in (OPEN, CHECKIN):
            raise StoreError("This tournament has started: it takes no more entrants.")
        team = next((t for t in view.teams if t.creator == creator_id), None)
        if team is None:
            raise StoreError("Only a team's creator invites its players: make your team first with "
                             "</tournament join>.")
        if any(e.user_id == user_id for e in view.entrants):
            raise StoreError("That player is already in this tournament.")
        if len(team.members) >= view.team_size:
            raise StoreError("The team {team} is complete ({size} players).", team=team.name,
                             size=view.team_size)
        await db.commit(Step("INSERT INTO tournament_invites (tournament_id, team, user_id) VALUES (?, ?, ?) "
                             "ON CONFLICT (tournament_id, team, user_id) DO NOTHING",
                             (tournament_id, team.number, user_id)))
        return team

    @writes
    async def leave_tournament(self, db: Writing, tournament_id: int, user_id: int) -> None:
        """A player leaves (or is removed) before the start; a team whose last player left is no more."""
        record = await self._tournament(db, tournament_id, lock=True)
        if record.status not in (OPEN, CHECKIN):
            raise StoreError("This tournament has started: its entrants play it out.")
        rows = await db.run(Step("DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ? "
                                 "RETURNING user_id", (tournament_id, user_id)))
        if not rows:
            raise StoreError("You are not in this tournament.")
        # A team whose last player left is no more (its name is free again).
        gone = ("team NOT IN (SELECT team FROM tournament_entrants WHERE tournament_id = ? AND team IS NOT "
                "NULL)")
        await db.commit(Step(f"DELETE FROM tournament_invites WHERE tournament_id = ? AND {gone}",
                             (tournament_id, tournament_id)),
                        Step(f"DELETE FROM tournament_teams WHERE tournament_id = ? AND {gone}",
                             (tournament_id, tournament_id)))

    @writes
    async def check_in(self, db: Writing, tournament_id: int, user_id: int) -> None:
        record = await self._tournament(db, tournament_id, lock=True)
        if record.status != CHECKIN:
            raise StoreError("This tournament's check-in is not open.")
        rows = await db.run(Step("UPDATE tournament_entrants SET checked_in = 1 WHERE tournament_id = ? "
                                 "AND user_id = ? RETURNING user_id", (tournament_id, user_id)))
        if not rows:
            raise StoreError("You are not in this tournament.")

    async def open_checkin(self, tournament_id: int, until: float) -> TournamentRecord:
        return await self._set_tournament_status(tournament_id, (OPEN,), CHECKIN, until, DUE_CHECKIN)

    async def cancel_tournament(self, tournament_id: int) -> TournamentRecord:
        return await self._set_tournament_status(tournament_id, T_ACTIVE, CALLED_OFF, None, None)

    @writes
    async def _set_tournament_status(self, db: Writing, tournament_id: int, allowed: Sequence[str], status: str,
                                     due_at: float | None, due_kind: str | None) -> TournamentRecord:
        record = await self._tournament(db, tournament_id, lock=True)
        if record.status not in allowed:
            raise StoreError("This tournament is {status} already.", status=record.status)
        await db.run(Step("UPDATE tournaments SET status = ?, due_at = ?, due_kind = ?, updated_at = ? "
                          "WHERE id = ?", (status, due_at, due_kind, self._clock(), tournament_id)))
        return await self._tournament(db, tournament_id)

    @writes
    async def start_tournament(self, db: Writing, tournament_id: int) -> TournamentView:
        """Pair the first round (of the entrants who play) and set the timer that opens its games. A tournament
        that has started already is refused: a double tap starts it once."""
        view = await self._view(db, tournament_id, lock=True)
        if view.record.status not in (OPEN, CHECKIN):
            raise StoreError("This tournament has started already.")
        waiting = view.incomplete_teams()
        if waiting and not view.record.settings.get("checkin"):  # a check-in leaves them out instead
            team = waiting[0]
            raise StoreError("The team {team} has {n} of its {size} players: it needs more before the "
                             "tournament starts (or its players leave it).", team=team.name,
                             n=len(team.members), size=view.team_size)
        players = view.players()
        try:
            view.record.spec.check(len(players))
            first = next_round(view.record.spec, players, [], [])
        except CompetitionError as exc:
            raise competition_refusal(exc) from exc
        if not first:
            raise StoreError("This tournament has nothing to play.")
        now = self._clock()
        await db.run(*_pairing_steps(tournament_id, first), Step(
            "UPDATE tournaments SET status = 'running', round = 1, round_started_at = ?, due_at = ?, "
            "due_kind = 'open', updated_at = ? WHERE id = ?", (now, now, now, tournament_id)))
        return await self._view(db, tournament_id)

    @writes
    async def set_tournament_due(self, db: Writing, tournament_id: int, due_at: float | None, kind: str | None) -> None:
        await db.commit(Step("UPDATE tournaments SET due_at = ?, due_kind = ? WHERE id = ?",
                             (due_at, kind, tournament_id)))

    @writes
    async def set_pairing_room(self, db: Writing, tournament_id: int, round_: int, table: int, thread_id: int) -> int:
        """The thread of a table (the first one set stays); returns the table's thread."""
        rows = await db.run(
            Step("UPDATE tournament_pairings SET thread_id = ? WHERE tournament_id = ? AND round = ? "
                 "AND table_no = ? AND thread_id IS NULL", (thread_id, tournament_id, round_, table)),
            Step("SELECT thread_id FROM tournament_pairings WHERE tournament_id = ? AND round = ? "
                 "AND table_no = ?", (tournament_id, round_, table)))
        return int(rows[0][0])

    @writes
    async def set_pairing_game(self, db: Writing, tournament_id: int, round_: int, table: int, game_id: int) -> None:
        rows = await db.run(Step(
            "UPDATE tournament_pairings SET game_id = ? WHERE tournament_id = ? AND round = ? AND "
            "table_no = ? AND game_id IS NULL RETURNING game_id", (game_id, tournament_id, round_, table)))
        if not rows:
            raise StoreError("This table has its game already.")

    @writes
    async def record_table_result(self, db: Writing, result: Result, tournament_id: int, forced: bool = False
                                  ) -> tuple[TournamentView, list[Pairing] | None]:
        """Store a table's result (once: a second result of the same table is ignored) and, if it was the last of
        its round, pair the next round in the same transaction, or finish the tournament. Returns the tournament
        as stored afterwards, and the new round's pairings (None if this result paired nothing)."""
        view = await self._view(db, tournament_id, lock=True)
        if view.record.status != STARTED or any(
                (r.round, r.table) == (result.round, result.table) for r in view.results):
            return view, None
        now = self._clock()
        await db.run(Step(
            "INSERT INTO tournament_results (tournament_id, round, table_no, places, forfeits, forced, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (tournament_id, result.round, result.table, json.dumps([list(p) for p in result.places]),
             json.dumps(sorted(result.forfeits)), int(forced), now)))
        results = [*view.results, result]
        done = {(r.round, r.table) for r in results}
        waiting = [p for p in view.pairings if p.pairing.round == view.record.round and not p.pairing.bye
                   and (p.pairing.round, p.pairing.table) not in done]
        if waiting:
            return await self._view(db, tournament_id), None
        new = await self._pair(db, view, results)
        return await self._view(db, tournament_id), new

    async def _pair(self, db: Writing, view: TournamentView, results: list[Result]) -> list[Pairing]:
        """The next round (in the caller's transaction): its pairings stored and the timer to open its games
        set, or the tournament finished (an empty list)."""
        now = self._clock()
        new = next_round(view.record.spec, view.players(), view.pairing_list(), results)
        if not new:
            await db.run(Step("UPDATE tournaments SET status = 'finished', due_at = ?, due_kind = 'final', "
                              "updated_at = ? WHERE id = ?", (now, now, view.record.id)))
            return []
        await db.run(*_pairing_steps(view.record.id, new), Step(
            "UPDATE tournaments SET round = ?, round_started_at = ?, due_at = ?, due_kind = 'open', updated_at = ? "
            "WHERE id = ?", (new[0].round, now, now, now, view.record.id)))
        return new


__all__ = ["CALLED_OFF", "CHECKIN", "DONE", "DUE_CHECKIN", "DUE_OPEN", "DUE_ROUND", "MAX_TEAM_NAME",
           "MAX_TOURNAMENT_ENTRANTS", "OPEN",
           "STARTED", "T_ACTIVE", "EntrantRecord", "PairingRecord", "Seat", "TeamRecord", "TournamentRecord",
           "TournamentView", "TournamentsMixin", "spec_json"]
