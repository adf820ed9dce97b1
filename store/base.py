"""The storage interface: ``StoreReader`` for whoever reads games (the cogs), ``Store`` for the table, which alone
changes them. ``SQLiteStore`` (store/sqlite.py) and ``PostgresStore`` (store/postgres.py) implement it, on the SQL
they share (store/sql.py)."""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, Self, TypeVar

from competition import Pairing, Result, Spec
from engine import Event
from engine.events import View
from engine.fog import Audience

from .change import GameChange
from .records import (
    Deadline,
    GameRecord,
    GuildSettings,
    LivePanel,
    MapRecord,
    OrdersProgress,
    RatingRecord,
    SeatStatus,
    Shards,
    StoredOrders,
    UserPrefs,
)
from .results import FinishedGame, LeaderboardRow, PlayerStats, Rebuild, Reliability, ResultRecord
from .seasons import Season
from .tournaments import EntrantRecord, TeamRecord, TournamentRecord, TournamentView

T = TypeVar("T")


class StoreReader(abc.ABC):
    """What may be read of games and the bot's small tables: the view the Discord layer (and any other reader)
    holds. Every change goes through a ``Store``'s writing methods, which only ``table/`` (and the command-line
    tools) call."""

    # -- play ----------------------------------------------------------------------------------------
    @abc.abstractmethod
    async def processed(self, game_id: int, interaction_id: str) -> bool:
        """Whether an interaction was already applied to a game (a retry or a duplicate delivery)."""

    # -- reading -------------------------------------------------------------------------------------
    @abc.abstractmethod
    async def get_game(self, game_id: int) -> GameRecord:
        """A game by id. ``UnknownGame`` if there is none."""

    @abc.abstractmethod
    async def get_active_game(self, channel_id: int) -> GameRecord | None:
        """The channel's game in its lobby, running or paused, if any."""

    @abc.abstractmethod
    async def list_games(self, status: str | None = None, *, guild_id: int | None = None,
                         channel_id: int | None = None, limit: int | None = None) -> list[GameRecord]:
        """Games, newest first, optionally filtered."""

    @abc.abstractmethod
    async def running_games(self) -> list[GameRecord]:
        """Every running game (for resuming AI turns and timers at start-up)."""

    @abc.abstractmethod
    async def events(self, game_id: int, since_seq: int = 0) -> list[Event]:
        """The game's events after ``since_seq``, in order. Event number n (from 1) has seq n."""

    @abc.abstractmethod
    async def export_log(self, game_id: int, audience: Audience) -> bytes:
        """The whole log as ``audience`` may read it (``engine.fog``), as JSON Lines: read in chunks, written off
        the bot's process (store/logs.py)."""

    @abc.abstractmethod
    async def recent_events(self, game_id: int, audience: Audience, count: int, *,
                            for_board: bool = False) -> list[View]:
        """The last ``count`` events ``audience`` sees (hidden ones left out), read from the last turns only
        (``for_board``: in the live boards' worker, store/logs.py)."""

    @abc.abstractmethod
    async def with_log(self, game_id: int, work: Callable[..., T], *args: Any) -> T:
        """``work(events, *args)`` on the game's whole log, in the log's worker process (store/logs.py):
        ``work`` a module-level function, ``args`` and the result picklable."""

    @abc.abstractmethod
    async def with_window(self, game_id: int, seq: int, work: Callable[..., T], *args: Any) -> T:
        """``work(events, before, *args)`` in the live boards' worker (store/logs.py) on the events of the turn
        that holds event ``seq``, from its first up to ``seq``, and ``before``, the game just before them (its state
        as JSON; None when the window is the log from its start: a turn begun before ``log_turns`` was kept). A
        replay's moment costs one turn's events, however long the game."""

    @abc.abstractmethod
    async def log_text(self, game_id: int) -> bytes:
        """The whole log as it is stored (every event, hidden information included), as JSON Lines: to hand to
        a worker process in one piece."""

    # -- preferences and settings ------------------------------------------------------------------
    @abc.abstractmethod
    async def get_user_prefs(self, user_id: int) -> UserPrefs:
        """A user's preferences (the defaults if none were saved)."""

    @abc.abstractmethod
    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        """A guild's settings (the defaults if none were saved)."""

    # -- what the channel was told ------------------------------------------------------------------
    @abc.abstractmethod
    async def unannounced(self) -> list[tuple[GameRecord, int]]:
        """Running and paused games with stored events the channel was not told, each with the last event
        that it was told."""

    @abc.abstractmethod
    async def live_panel(self, game_id: int) -> LivePanel | None:
        """The channel message that is the game's turn panel now, if one was posted."""

    # -- deadlines and reminders ---------------------------------------------------------------------
    @abc.abstractmethod
    async def next_due(self, shards: Shards | None = None) -> Deadline | None:
        """The earliest timer of any game (of a guild on ``shards`` if given), to know how long to sleep."""

    @abc.abstractmethod
    async def due_deadlines(self, now: float, shards: Shards | None = None) -> list[Deadline]:
        """Every timer due at or before ``now`` (of games in guilds on ``shards`` if given), earliest first."""

    @abc.abstractmethod
    async def game_deadlines(self, game_id: int) -> list[Deadline]:
        """A game's timers, earliest first."""

    # -- absent players ------------------------------------------------------------------------------
    @abc.abstractmethod
    async def seat_status(self, game_id: int, seat: int) -> SeatStatus:
        """A seat's missed turns, vacation and replacement (the defaults if nothing was recorded)."""

    @abc.abstractmethod
    async def standing_orders(self, game_id: int, seat: int) -> StoredOrders | None:
        """A seat's standing orders, if any: hidden information, for the table and for the user who left them."""

    @abc.abstractmethod
    async def seat_holders(self, game_id: int) -> dict[int, list[tuple[int, int, str]]]:
        """The players of each seat that changed hands (a substitute claimed it): ``(since turn, user id,
        name)``, the seat's first player from turn 0."""

    # -- results and ratings (store/results.py) ------------------------------------------------------
    @abc.abstractmethod
    async def player_stats(self, guild_id: int | None, user_id: int, channel_id: int | None = None, *,
                           minimum: int) -> PlayerStats | None:
        """A player's record on a server: games, wins, placements, reliability, rating (None: no game; the rating
        only from ``minimum`` games, the caller's ``ratings.MIN_GAMES``). Outside a server (``guild_id`` None) the
        server is the direct message ``channel_id``: its own games only."""

    @abc.abstractmethod
    async def reliability(self, guild_id: int | None, user_ids: Iterable[int], channel_id: int | None = None, *,
                          early_turns: int) -> dict[int, Reliability]:
        """Each player's reliability over their last finished games on a server (docs/history.md,
        "Reliability"); outside a server, in the direct message ``channel_id``. ``early_turns``: a loss with fewer
        turns of one's own is a game left (``ratings.EARLY_TURNS``, passed by the caller)."""

    @abc.abstractmethod
    async def leaderboard(self, guild_id: int | None, offset: int = 0, limit: int = 10,
                          channel_id: int | None = None, *, minimum: int) -> tuple[list[LeaderboardRow], int]:
        """A page of the server's rated players (those of ``minimum`` games or more, the caller's
        ``ratings.MIN_GAMES``), best first, and how many they are (outside a server, of the direct message
        ``channel_id``)."""

    @abc.abstractmethod
    async def finished_games(self, guild_id: int | None, channel_id: int | None = None, offset: int = 0,
                             limit: int = 10) -> list[FinishedGame]:
        """Finished games of a server (or of a channel), the latest first, with their winners (outside a server,
        of the direct message ``channel_id`` only)."""

    @abc.abstractmethod
    async def results(self, game_id: int) -> list[ResultRecord]:
        """A finished game's result rows, by seat (written in the transaction that ended it)."""

    @abc.abstractmethod
    async def ratings(self, guild_id: int | None, channel_id: int | None = None, *, ladder: str | None = None,
                      season: int | None = None) -> dict[int, RatingRecord]:
        """Every rating on a server, by user id (outside a server, of the direct message ``channel_id``)."""

    @abc.abstractmethod
    async def rating_history(self, guild_id: int | None, user_id: int, channel_id: int | None = None
                             ) -> list[tuple[int, RatingRecord]]:
        """A player's rating after each of their games on a server, oldest first (outside a server, in the
        direct message ``channel_id``)."""

    # -- a server's own maps -----------------------------------------------------------------------
    # -- seasons and ladders (store/seasons.py) ------------------------------------------------------
    @abc.abstractmethod
    async def current_season(self, guild_id: int) -> Season | None:
        """The server's running season, or its last one if none runs (None: it never ran one)."""

    @abc.abstractmethod
    async def running_seasons(self) -> list[Season]:
        """Every running season, the first to end first."""

    @abc.abstractmethod
    async def ladder(self, guild_id: int, ladder: str, season: int | None = None, offset: int = 0,
                     limit: int = 10, minimum: int = 0) -> tuple[list[LeaderboardRow], int]:
        """A page of a ladder (``"1v1"`` or ``"ffa"``), all-time or of the season ``season`` (its id), best first."""

    @abc.abstractmethod
    async def ladder_ratings(self, guild_id: int, ladder: str, season: int | None = None) -> dict[int, RatingRecord]:
        """Every rating on a ladder of a server, all-time or of the season ``season``, by user id."""

    @abc.abstractmethod
    async def player_ladders(self, guild_id: int, user_id: int, season: int | None = None
                             ) -> dict[tuple[str, int], RatingRecord]:
        """A player's ladder ratings, all-time (season 0) and in the season ``season``: by (ladder, season)."""

    @abc.abstractmethod
    async def list_maps(self, guild_id: int) -> list[MapRecord]:
        """The server's maps, oldest first."""

    @abc.abstractmethod
    async def map_files(self, map_id: str) -> dict[str, bytes] | None:
        """A stored map's files (``map.json``, ``regions.png``, ``background.png``) by id, or None."""

    # -- tournaments (store/tournaments.py) --------------------------------------------------------------
    @abc.abstractmethod
    async def get_tournament(self, tournament_id: int) -> TournamentRecord:
        """A tournament by id (``InvalidValue`` if there is none)."""

    @abc.abstractmethod
    async def channel_tournament(self, channel_id: int) -> TournamentRecord | None:
        """The channel's tournament that is not over, else its newest, if any."""

    @abc.abstractmethod
    async def tournament_view(self, tournament_id: int) -> TournamentView:
        """A tournament with its entrants, pairings and results."""

    @abc.abstractmethod
    async def tournament_of_game(self, game_id: int) -> tuple[int, int, int] | None:
        """(tournament, round, table) of a game a tournament opened."""

    @abc.abstractmethod
    async def tables_in_threads(self, thread_ids: Sequence[int]) -> set[int]:
        """Of these threads, those a tournament's table is stored in."""

    @abc.abstractmethod
    async def running_tournaments(self) -> list[int]:
        """The tournaments under way (their ids), oldest first."""

    # -- the live board ----------------------------------------------------------------------------------
    @abc.abstractmethod
    async def revoked_sessions(self, now: float) -> dict[str, float]:
        """The board sessions ended by Leave that have not expired by ``now``: nonce -> when they expire."""


class Store(StoreReader):
    """Games, their event logs and the bot's small tables, behind one narrow async interface.

    Every method that writes is one atomic transaction: it either happens completely or not at all; a change to
    a game that ``table/`` decides (an action, its timers, a vote's close) is one ``change``. Lobby and game
    methods raise ``StoreError`` subclasses (messages in player words); ``change`` lets whatever its work raises
    through unchanged (the engine's ``RuleError``), and a refused change writes nothing.
    """

    # -- lifetime ----------------------------------------------------------------------------------
    @abc.abstractmethod
    async def open(self) -> None:
        """Open the database (creating or upgrading it). Raises ``DatabaseError`` if it cannot be used."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Finish the writes in flight and close."""

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    # -- one change to a game ----------------------------------------------------------------------
    @abc.abstractmethod
    async def change(self, game_id: int, work: Callable[[GameChange], Awaitable[T]]) -> T:
        """``work(change)`` as one transaction on the game (``store/change.py``): the game is locked against every
        other writer until the commit; what ``work`` reads through ``change`` is read in the transaction, what it
        writes through it is committed when it returns, and nothing of it if it raises."""

    # -- lobby -------------------------------------------------------------------------------------
    @abc.abstractmethod
    async def create_lobby(self, guild_id: int | None, channel_id: int, host_id: int, host_name: str,
                           settings: Mapping[str, Any] | None = None) -> GameRecord:
        """Open a lobby in a channel with the host in seat 0. ``ChannelBusy`` if the channel has an active game.

        The guild's default settings apply where ``settings`` does not say otherwise.
        """

    @abc.abstractmethod
    async def join(self, game_id: int, user_id: int, name: str) -> GameRecord:
        """Seat a user in the next free seat."""

    @abc.abstractmethod
    async def leave(self, game_id: int, user_id: int) -> GameRecord:
        """Unseat a user. If the host leaves, the next human hosts; with no human left the lobby is cancelled."""

    @abc.abstractmethod
    async def add_ai(self, game_id: int, level: str = "normal", name: str | None = None) -> GameRecord:
        """Seat an AI player of a level (``easy`` or ``normal``)."""

    @abc.abstractmethod
    async def kick(self, game_id: int, seat: int) -> GameRecord:
        """Remove whoever sits in a seat (a user or an AI). Later seats move up one."""

    @abc.abstractmethod
    async def update_settings(self, game_id: int, changes: Mapping[str, Any]) -> GameRecord:
        """Change some settings of a lobby; the engine validates them (``SettingsError``)."""

    @abc.abstractmethod
    async def pause(self, game_id: int) -> GameRecord:
        """Pause a running game."""

    @abc.abstractmethod
    async def resume(self, game_id: int) -> GameRecord:
        """Resume a paused game."""

    @abc.abstractmethod
    async def cancel(self, game_id: int) -> GameRecord:
        """Cancel an active game (lobby, running or paused). Its history stays."""

    # -- preferences and settings ------------------------------------------------------------------
    @abc.abstractmethod
    async def set_user_prefs(self, prefs: UserPrefs) -> UserPrefs:
        """Save a user's preferences (validated)."""

    @abc.abstractmethod
    async def set_guild_settings(self, settings: GuildSettings) -> GuildSettings:
        """Save a guild's settings (default game settings are validated by the engine)."""

    # -- what the channel was told ------------------------------------------------------------------
    @abc.abstractmethod
    async def mark_announced(self, game_id: int, seq: int) -> None:
        """The channel has been told the game's events up to ``seq`` (never moves back)."""

    @abc.abstractmethod
    async def set_live_panel(self, panel: LivePanel) -> None:
        """Record the message that is the game's turn panel now (it replaces the one before)."""

    @abc.abstractmethod
    async def clear_live_panel(self, game_id: int) -> None:
        """The game has no live turn panel any more (it ended, or the panel became its turn's summary)."""

    @abc.abstractmethod
    async def revoke_session(self, nonce: str, expires_at: float, now: float) -> None:
        """A board session (its ``nonce``) ended by Leave opens nothing until ``expires_at``, when it would have
        expired anyway; the revocations expired by ``now`` are forgotten."""

    # -- deadlines and reminders ---------------------------------------------------------------------
    @abc.abstractmethod
    async def set_deadline(self, game_id: int, seat: int, kind: str, due_at: float) -> Deadline:
        """Set (or move) the timer of a kind for a seat."""

    @abc.abstractmethod
    async def clear_deadlines(self, game_id: int, seat: int | None = None, kind: str | None = None) -> int:
        """Remove a game's timers (optionally only a seat's, or a kind); returns how many."""

    # -- standing orders (engine/orders.py) ------------------------------------------------------------
    @abc.abstractmethod
    async def leave_orders(self, game_id: int, seat: int, user_id: int, orders: Mapping[str, Any]) -> StoredOrders:
        """The seat's standing orders from now on (replacing any), not yet run; the game must be running or
        paused."""

    @abc.abstractmethod
    async def cancel_orders(self, game_id: int, seat: int | None = None) -> int:
        """Remove a seat's standing orders (or the whole game's); how many went."""

    @abc.abstractmethod
    async def orders_progress(self, game_id: int, progress: OrdersProgress) -> None:
        """Write where a seat's standing orders stand, with no action (their run stopped, or ended)."""

    # -- absent players ------------------------------------------------------------------------------
    @abc.abstractmethod
    async def record_missed_turn(self, game_id: int, seat: int, turn_key: str) -> SeatStatus:
        """Count a missed turn once per ``turn_key`` (a second call for the same turn changes nothing)."""

    @abc.abstractmethod
    async def replace_with_ai(self, game_id: int, seat: int, level: str = "normal") -> GameRecord:
        """Give an absent player's seat to the AI, remembering who sat there."""

    @abc.abstractmethod
    async def reinstate(self, game_id: int, user_id: int) -> GameRecord:
        """Give a replaced player their seat back (an offer of their seat is withdrawn)."""

    @abc.abstractmethod
    async def set_offer(self, game_id: int, seat: int, offer: str | None) -> SeatStatus:
        """Offer a seat the AI took from its player to another player, or withdraw the offer (None)."""

    @abc.abstractmethod
    async def note_seat_message(self, game_id: int, seat: int, *, offer_message: int | None = None,
                                takeover_message: int | None = None) -> None:
        """The channel message of the seat's offer, or of the AI's takeover with the host's offer button, was
        posted (each given one is noted; an offer made, claimed or withdrawn, or a reinstate, forgets them)."""

    # -- results and ratings (store/results.py) ------------------------------------------------------
    @abc.abstractmethod
    async def rebuild_ratings(self, rebuild: Rebuild) -> int:
        """Every rating again, as ``rebuild`` (``table/results.py``) decides them from the stored results in the
        order the games ended, written in the transaction that reads them; the games rated."""

    # -- seasons (store/seasons.py) ---------------------------------------------------------------------
    @abc.abstractmethod
    async def start_season(self, guild_id: int, channel_id: int, days: int, by: int, now: float) -> Season:
        """Start a season of ``days`` days on a server; ``StoreError`` if one runs already."""

    @abc.abstractmethod
    async def close_season(self, season_id: int, ended_at: float, by: int | None) -> Season | None:
        """Close a running season as ended at ``ended_at`` by ``by`` (None: by itself); None if it is closed
        already (another process closed it first)."""

    # -- a server's own maps -----------------------------------------------------------------------
    @abc.abstractmethod
    async def add_map(self, guild_id: int, map_id: str, name: str, added_by: int,
                      files: Mapping[str, bytes]) -> MapRecord:
        """Store a checked map's files for a server and register its board with the engine. ``InvalidValue``
        if the server has it already or has as many maps as it may keep."""

    @abc.abstractmethod
    async def remove_map(self, guild_id: int, map_id: str) -> MapRecord:
        """Hide a map from the server's list; its files stay for the games played on it."""

    # -- tournaments (store/tournaments.py) --------------------------------------------------------------
    @abc.abstractmethod
    async def create_tournament(self, guild_id: int | None, channel_id: int, host_id: int, name: str, spec: Spec,
                                settings: Mapping[str, Any]) -> TournamentRecord:
        """A new tournament in a channel (``InvalidValue`` if the channel has one that is not over)."""

    @abc.abstractmethod
    async def join_tournament(self, tournament_id: int, user_id: int, name: str, rating: float,
                              team: str | None = None) -> EntrantRecord:
        """An entrant joins (before the start); in a tournament of fixed teams, into the team named ``team``."""

    @abc.abstractmethod
    async def leave_tournament(self, tournament_id: int, user_id: int) -> None:
        """An entrant leaves (before the start)."""

    @abc.abstractmethod
    async def invite_to_team(self, tournament_id: int, creator_id: int, user_id: int) -> TeamRecord:
        """A team's creator invites a player to it (before the start): the player may then join it."""

    @abc.abstractmethod
    async def check_in(self, tournament_id: int, user_id: int) -> None:
        """An entrant checks in (while the check-in is open)."""

    @abc.abstractmethod
    async def open_checkin(self, tournament_id: int, until: float) -> TournamentRecord:
        """The check-in opens, until ``until`` (the tournament's timer)."""

    @abc.abstractmethod
    async def cancel_tournament(self, tournament_id: int) -> TournamentRecord:
        """The tournament is called off."""

    @abc.abstractmethod
    async def start_tournament(self, tournament_id: int) -> TournamentView:
        """Pair the first round, once (a second start is refused)."""

    @abc.abstractmethod
    async def set_tournament_due(self, tournament_id: int, due_at: float | None, kind: str | None) -> None:
        """Set (or clear) the tournament's timer."""

    @abc.abstractmethod
    async def set_pairing_room(self, tournament_id: int, round_: int, table: int, thread_id: int) -> int:
        """The thread of a table; the first one set stays and is returned."""

    @abc.abstractmethod
    async def set_pairing_game(self, tournament_id: int, round_: int, table: int, game_id: int) -> None:
        """The game of a table (once)."""

    @abc.abstractmethod
    async def record_table_result(self, result: Result, tournament_id: int, forced: bool = False
                                  ) -> tuple[TournamentView, list[Pairing] | None]:
        """Store a table's result and, with a round's last, pair the next round in the same transaction."""

    @abc.abstractmethod
    async def due_tournaments(self, now: float, shards: Shards | None = None) -> list[TournamentRecord]:
        """Tournaments whose timer is due (of guilds on ``shards`` if given)."""

    @abc.abstractmethod
    async def next_tournament_due(self, shards: Shards | None = None) -> float | None:
        """When the next tournament timer is due (of guilds on ``shards`` if given)."""


__all__ = ["Store", "StoreReader"]
