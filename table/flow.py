"""The game flow: apply an action or a timer, let the AI play the seats no human plays, set the next deadline.

Every entry point returns an ``Outcome``. AI seats and a player whose time ran out are played by the same
loop (``_stand_ins``): one action at a time, each its own transaction, grouped into parts of one actor's turn
with the board after each part. Timers live in the store; ``sync`` makes them match whose turn it is.

A game no human plays any more (every seat still in it is an AI's) ends by the round limit once it has played
``Limits.rounds_without_humans`` rounds since the last human left: the loop then applies the engine's
``RoundLimit`` instead of an AI move, so the end is an action like any other and its ``game_over`` is in the log
(a replay or ``engine.verify`` needs nothing else). Only the table can tell: the engine does not know who is human.

The players still in a game (its humans) can vote to end it, by the standings or as a draw (``call_vote``,
``cast_ballot``, ``close_vote``): the vote and its ballots are timers (``table.timers.Vote``), so a restart keeps
them; it passes when every one of them votes for, and then the table applies the engine's ``VoteEnd``, so this end
too is an action in the log.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine import Action, Event, Game, GameState, RuleError, Surrender
from engine.actions import EndRound, ReleaseHold, RoundLimit, StartTurn, VoteEnd
from engine.ai import Memory, Recollection, recollect
from engine.ai.hints import Hint
from engine.errors import TurnRunning
from engine.fog import fog_hides_board
from engine.game import split_log
from engine.settings import hold_time, turn_limit
from engine.state import OVER, SETUP, WAITING
from ops import logs
from ratings import EARLY_TURNS
from store import (
    ACTIVE_STATUSES,
    FINISHED,
    LOBBY,
    RUNNING,
    ActionResult,
    Deadline,
    GameRecord,
    InvalidValue,
    LivePanel,
    MapRecord,
    SeatRecord,
    SeatStatus,
    Store,
    StoreError,
    UserPrefs,
    VersionConflict,
)
from store.change import GameChange
from store.results import below_minimum

from .limits import Limits
from .orders import StandingOrders
from .outcome import (
    AI,
    HOST,
    KICKED,
    OFFER_WITHDRAWN,
    PLAYER,
    SEAT_REMOVED,
    SEAT_TO_AI,
    START,
    TIME_RAN_OUT,
    TIMEOUT,
    TURN_EVENTS,
    VOTE,
    VOTE_CALLED,
    VOTE_EXPIRED,
    VOTE_FAILED,
    VOTE_PASSED,
    Note,
    Outcome,
    Part,
)
from .play import Before, plays_for
from .refusals import LimitReached, VoteRefused, turn_running
from .seats import SeatOffers
from .thinking import Thinking
from .timers import DRAW, STANDINGS, VOTING, Timer, TimerKind, Vote, in_round, round_key, turn_key, waited_on

log = logging.getLogger(__name__)

# The AI takes at most this many actions in one go (a whole AI turn is some 20 to 200); a game of AIs alone
# goes on in such steps, each a second after the last, from the scheduler: no interaction waits on it.
MAX_AI_ACTIONS = 1_000
AI_PAUSE = 1.0
# An AI seat whose level thinks in the worker processes (``table/thinking.py``) makes at most this many decisions
# in one go (a second or two of a worker's time): the game's lock is then let go, and the AI goes on from the
# scheduler as above, so the game's pause, vote or surrender and the other games' timers wait no longer for it.
MAX_THOUGHTS = 50
# What plays a turn whose time ran out, by the game's ``on_timeout`` setting (``ai``: the level the host chose,
# the ``stand_in`` setting).
TIMEOUT_PLAYERS = {"cautious": "cautious", "skip": "skip", "ai": "normal"}
LIVE = 3600  # deadlines shorter than this are live games: no reminders
# A vote to end a game runs as long as a turn, within these bounds (seconds).
VOTE_SHORTEST, VOTE_LONGEST = 60, 86400
# Timers a round's timers leave alone: a vote's, and standing orders' (table/orders.py: each checks its turn).
KEPT = VOTING | {TimerKind.ORDERS}
BALLOT_KEPT = 86400  # a ballot's row falls due this long after its vote closes (it goes with the vote before)


@dataclass(frozen=True)
class StandIn:
    """The AI playing one turn (``key``) of a seat whose time ran out."""

    seat: int
    key: str
    level: str


def in_play(record: GameRecord) -> bool:
    """Whether the game can end by the standings now: running or paused, past its set-up (the engine's
    ``RoundLimit`` is an action of the phases of play) and not over."""
    if record.status not in ACTIVE_STATUSES or record.status == LOBBY or record.state_json is None:
        return False
    return record.game().allows(RoundLimit)


def cancel_ends_by_standings(record: GameRecord) -> bool:
    """Whether the host's cancel ends the game by the standings (``Table.cancel``): a running or paused game
    past its first round. A game that belongs to a tournament ends so whenever it is in play (``in_play``)."""
    return in_play(record) and record.game().state.round > 1


def _held_back(state: GameState, parts: list[Part]) -> int | None:
    """The player the round that opened holds back though their turn was played for them (``parts``), if any."""
    held = state.held
    return held if state.phase == WAITING and held is not None and held in {p.seat for p in parts} else None


class Table(StandingOrders, SeatOffers):
    """Runs games: the one place where a game changes. Lobby, actions, AI turns, pauses, vacations and timers
    each come in as one method, hold the game's lock for the time they take, keep the timers right, and return
    an ``Outcome`` for the announcer. Whoever else reads the store only reads it."""

    def __init__(self, store: Store, clock: Callable[[], float], new_seed: Callable[[], str] | None = None,
                 limits: Limits | None = None, thinking: Thinking | None = None) -> None:
        self.store = store
        # Actions applied in one transaction each, with the cache of the games' engine states (table/play.py).
        self.plays = plays_for(store)
        # Where the AIs decide: the levels that think long, in worker processes (table/thinking.py).
        self.thinking = thinking or Thinking()
        self.clock = clock
        self.new_seed = new_seed or (lambda: secrets.token_hex(32))
        self.limits = limits or Limits()
        self.timers_changed: Callable[[], None] = lambda: None
        # Told the id of every game a move, an AI turn or a timer changed (the live boards, web/hub.py).
        self.watchers: list[Callable[[int], None]] = []
        self._locks: dict[int, asyncio.Lock] = {}
        self._rooms: dict[int, asyncio.Lock] = {}
        # The round the last human left each game the AIs play alone, for the seats it was worked out from.
        self._humans_left: dict[int, tuple[tuple[SeatRecord, ...], int]] = {}
        # What each seat of a fog game saw of the board, followed from its log: the AI decides on it.
        self._recollections: dict[int, Recollection] = {}
        # The step (turn, phase) of the last hint each seat of a running game had, by game and seat: one a step.
        self._hints: dict[int, dict[int, tuple[int, str]]] = {}
        # Called with a game that ended, under its lock (tournaments score it: table/tournaments.py); for a game
        # that must end with a result (``result_needed``), also when it was cancelled in its set-up.
        self.game_over_hooks: list[Callable[[GameRecord], Awaitable[None]]] = []
        # Asked whether a game must end with a result whatever ends it (a tournament's: table/tournaments.py): its
        # cancel then ends it by the standings, nobody resigning, and its hooks hear even of a cancel.
        self.result_needed: list[Callable[[GameRecord], Awaitable[bool]]] = []

    def lock(self, game_id: int) -> asyncio.Lock:
        """One change at a time to one game inside this process (a game is served by one process: the one
        running its guild's shard, see docs/deploy.md)."""
        logs.playing(game_id)  # this task's log lines name the game from now on
        return self._locks.setdefault(game_id, asyncio.Lock())

    # -- the lobby -------------------------------------------------------------------------------------
    async def open_lobby(self, guild_id: int | None, channel_id: int, host_id: int, host_name: str,
                         settings: Mapping[str, Any] | None = None) -> Outcome:
        """A new lobby in a channel, within the server's limits (games at once, open lobbies of one host). The
        server of a direct message (no guild) is that channel alone: one user's DMs count no other user's games."""
        room = self._rooms.setdefault(guild_id or channel_id, asyncio.Lock())
        async with room:  # count and create as one
            most = self.limits.games_per_server
            # By id: a game that starts between two of these reads is listed as a lobby and as running.
            active = list({g.id: g for status in ACTIVE_STATUSES
                           for g in await self.store.list_games(status, guild_id=guild_id,
                                                                channel_id=None if guild_id else channel_id,
                                                                limit=most)}.values())
            if len(active) >= most:
                raise LimitReached(LimitReached.GAMES, most)
            hosted = [g for g in active if g.status == LOBBY and g.host_id == host_id]
            if len(hosted) >= self.limits.lobbies_per_user:
                raise LimitReached(LimitReached.LOBBIES, len(hosted))
            record = await self.store.create_lobby(guild_id, channel_id, host_id, host_name, settings or None)
        return Outcome(record)

    async def join(self, game_id: int, user_id: int, name: str) -> Outcome:
        """A player takes a seat in a lobby; one whose reliability on the server is below the lobby's
        ``min_reliability`` is refused (``below_minimum``: a player with no finished game there may join)."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            minimum = int(record.settings.get("min_reliability") or 0)
            if minimum and record.status == LOBBY and record.seat_of(user_id) is None:
                figures = await self.store.reliability(record.guild_id, [user_id], record.channel_id,
                                                       early_turns=EARLY_TURNS)
                refusal = below_minimum(figures[user_id], minimum)
                if refusal is not None:
                    raise refusal
            return Outcome(await self.store.join(game_id, user_id, name))

    async def leave(self, game_id: int, user_id: int) -> Outcome:
        """A player leaves the lobby (the next human hosts; with nobody left the lobby closes)."""
        async with self.lock(game_id):
            return Outcome(await self.store.leave(game_id, user_id))

    async def add_ai(self, game_id: int, level: str = "normal") -> Outcome:
        """An AI takes a seat, within the limit of AI players per game."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            most = self.limits.ai_seats_per_game
            if sum(1 for p in record.players if p.is_ai) >= most:
                raise LimitReached(LimitReached.AI_SEATS, most)
            return Outcome(await self.store.add_ai(game_id, level))

    async def change_settings(self, game_id: int, changes: Mapping[str, Any]) -> Outcome:
        """The host changes settings of a lobby; the engine checks them (``SettingsError``)."""
        async with self.lock(game_id):
            return Outcome(await self.store.update_settings(game_id, changes))

    async def start(self, game_id: int) -> Outcome:
        async with self.lock(game_id):
            started, events = await self.plays.start(game_id, seed=self.new_seed())
            state = started.game().state
            parts = [Part(seat=state.current, by=START, turn=state.turn, before=None, after=state, events=events)]
            return await self._finish(started, parts)

    async def kick(self, game_id: int, seat: int, by: int | None = None) -> Outcome:
        """The host removes a seat: from a lobby it is unseated; in a game the player resigns and their
        territories become neutral. ``by``: who removed them (another than the seat's player: the game is then
        rated without the removed player and not for ``by``, docs/history.md)."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            if record.status == LOBBY:
                return Outcome(await self.store.kick(game_id, seat))
            player = record.players[seat].user_id if 0 <= seat < len(record.players) else None
            return await self._act(record, Surrender(seat), seat, HOST, [Note(KICKED, seat)],
                                   removed_by=by if by is not None and by != player else None)

    # -- control ---------------------------------------------------------------------------------------
    async def cancel(self, game_id: int) -> Outcome:
        """The host cancels a game. A lobby, or a game in its first round (not every seat has had a turn), is
        cancelled and records nothing. Later a cancel is no way out of a lost game: the host resigns (if still
        in) and the game ends by the standings, as at a round limit, with its results and ratings
        (docs/history.md); the outcome then tells it like any end. A game that must end with a result
        (``result_needed``: a tournament's) ends as ``end_by_standings`` ends it."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            if await self._result_needed(record):
                return await self._end_now(record)
            if cancel_ends_by_standings(record):
                return await self._end_by_standings(record)
            return await self._cancelled(record, hooks=False)

    async def cancel_ends_by_standings(self, record: GameRecord) -> bool:
        """Whether ``cancel`` of the game now ends it by the standings (told like any end) rather than cancelling
        it: past its first round, or, for a game that must end with a result (``result_needed``), whenever it is
        in play."""
        if in_play(record) and await self._result_needed(record):
            return True
        return cancel_ends_by_standings(record)

    async def end_by_standings(self, game_id: int) -> Outcome:
        """End a game now by the standings, for what runs the game from above it (a tournament: its round's time
        is up, its host calls the game off): nobody resigns, the round-limit rule ranks the players, and the end
        is told like any. A game still in its set-up cannot end so: it is cancelled, and the ``game_over_hooks``
        hear of it (a tournament scores it as a draw). Nothing happens to a game that has ended."""
        async with self.lock(game_id):
            return await self._end_now(await self.store.get_game(game_id))

    async def _result_needed(self, record: GameRecord) -> bool:
        for needed in self.result_needed:
            if await needed(record):
                return True
        return False

    async def _end_now(self, record: GameRecord) -> Outcome:
        if in_play(record):
            return await self._end_by_standings(record, resign_host=False)
        if record.status not in ACTIVE_STATUSES:
            return Outcome(record)
        return await self._cancelled(record, hooks=True)

    async def _cancelled(self, record: GameRecord, *, hooks: bool) -> Outcome:
        record = await self.store.cancel(record.id)
        self._recollections.pop(record.id, None)
        self._hints.pop(record.id, None)
        await self.sync(record)
        if hooks:
            for hook in self.game_over_hooks:
                await hook(record)
        return Outcome(record)

    async def _end_by_standings(self, record: GameRecord, *, resign_host: bool = True) -> Outcome:
        """A cancel past the first round: the host's surrender (``resign_host``), then the round-limit ending."""
        if record.status != RUNNING:  # paused: the end is played like any action
            await self.store.resume(record.id)
            record = await self.store.get_game(record.id)
        parts: list[Part] = []
        host = record.seat_of(record.host_id) if resign_host else None
        game = record.game()
        if host is not None and host in game.state.active_seats():
            try:
                game.validate(Surrender(host))
            except RuleError:
                pass
            else:
                result = await self.plays.apply(record.id, Surrender(host))
                parts.append(self._part(host, HOST, record.game().state, result))
                record = result.record
        state = record.game().state
        if state.phase != OVER:
            return await self._act(record, RoundLimit(state.current), state.current, HOST, parts=parts)
        return await self._finish(record, parts)

    async def pause(self, game_id: int) -> Outcome:
        """Deadlines stop until the game is resumed."""
        async with self.lock(game_id):
            record = await self.store.pause(game_id)
            await self.sync(record)
            return Outcome(record)

    async def resume(self, game_id: int) -> Outcome:
        """A paused game goes on: the AIs play if it is their turn, the turn's deadline starts anew."""
        async with self.lock(game_id):
            await self.store.resume(game_id)
            return await self._finish(await self.store.get_game(game_id), [])

    async def take_vacation(self, game_id: int, seat: int, days: int) -> Outcome:
        """A player's deadlines in this game move back by ``days`` (within the game's days of vacation)."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            state = record.game().state
            limit = state.settings.vacation_days

            async def away(change: GameChange) -> tuple[SeatStatus, float | None]:
                status = await change.seat_status(seat)
                if days < 1:
                    raise InvalidValue("Take at least one day of vacation.")
                if status.vacation_days + days > limit:
                    left = max(0, limit - status.vacation_days)
                    raise InvalidValue("This game allows {limit} days of vacation per player; you have {left} left.",
                                       limit=limit, left=left)
                now = self.clock()
                status = change.vacation(status, max(now, status.vacation_until or now) + days * 86400, days)
                # A freestyle round waits for nobody: its deadline stays (a turn not taken is played as on_timeout
                # says, and not counted against a player on vacation: ``round_up``).
                if state.current != seat or state.freestyle:
                    return status, None
                await change.flush()  # the turn's new deadline starts after the vacation just written
                self._clear_turn_timers(change, await change.deadlines())
                await change.flush()
                return status, await self.timers(change, record, state)

            status, deadline = await self.store.change(game_id, away)
            return Outcome(record, deadline=deadline, seat_status=status)

    async def reinstate(self, game_id: int, user_id: int) -> Outcome:
        """A player the AI replaced takes their seat back (an offer of it to a substitute is withdrawn: a note)."""
        async with self.lock(game_id):
            taken = await self._taken_from(await self.store.get_game(game_id), user_id)
            record = await self.store.reinstate(game_id, user_id)
            notes = [Note(OFFER_WITHDRAWN, taken.seat)] if taken is not None and taken.offer is not None else []
            return Outcome(record, notes=notes, deadline=await self.sync(record),
                           offer_message=taken.offer_message if taken else None,
                           takeover_message=taken.takeover_message if taken else None)

    # -- a vote to end the game -----------------------------------------------------------------------------
    @staticmethod
    def voters(record: GameRecord) -> tuple[int, ...]:
        """The seats that vote on ending a game: its humans still in it (an AI, or a seat the AI took, does not)."""
        active = record.game().state.active_seats() if record.state_json is not None else []
        return tuple(p.seat for p in record.players if not p.is_ai and p.seat in active)

    async def call_vote(self, game_id: int, seat: int, draw: bool) -> Outcome:
        """``seat`` calls a vote to end the game, by the standings or (``draw``) as a draw; their own ballot is for.
        It runs as long as a turn (``VOTE_SHORTEST`` to ``VOTE_LONGEST``). ``VoteRefused`` if they are not a voter,
        fewer than two players are still in, or a vote is going on; ``RuleError`` outside the phases of play."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            voters = self.voters(record)
            if seat not in voters:
                raise VoteRefused(VoteRefused.NOT_A_VOTER)
            if len(voters) < 2:
                raise VoteRefused(VoteRefused.TOO_FEW)
            game = record.game()
            game.validate(VoteEnd(game.state.current, draw))  # a game in play (not in set-up, not over)
            length = min(max(game.state.settings.turn_deadline, VOTE_SHORTEST), VOTE_LONGEST)

            async def called(change: GameChange) -> Vote:
                going = Vote.of(await change.deadlines())
                if going is not None:
                    raise VoteRefused(VoteRefused.GOING_ON, going)
                vote = Vote(secrets.token_hex(4), DRAW if draw else STANDINGS, seat, self.clock() + length,
                            {seat: True})
                change.set_deadline(seat, str(vote.timer), vote.closes_at)
                change.set_deadline(seat, str(vote.ballot(True)), vote.closes_at + BALLOT_KEPT)
                change.after(self.timers_changed)
                return vote

            vote = await self.store.change(game_id, called)
            return Outcome(record, notes=[Note(VOTE_CALLED, seat, 1, ending=vote.ending)], vote=vote, voters=voters)

    async def cast_ballot(self, game_id: int, seat: int, key: str, yes: bool) -> Outcome:
        """``seat``'s ballot in the vote named ``key``. A second ballot of the same seat is not counted (the
        outcome says ``duplicate``). The last ballot closes the vote: it passes if every voter voted for (the game
        ends), else it fails. ``VoteRefused`` if the seat is not a voter or that vote is not going on."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            vote = Vote.of(await self.store.game_deadlines(game_id))
            if vote is None or vote.key != key or record.status != RUNNING:
                raise VoteRefused(VoteRefused.OVER)
            voters = self.voters(record)
            if seat not in voters:
                raise VoteRefused(VoteRefused.NOT_A_VOTER)
            if seat in vote.ballots:
                return Outcome(record, duplicate=True, vote=vote, voters=voters)
            ballot = (seat, str(vote.ballot(yes)), vote.closes_at + BALLOT_KEPT)
            vote = Vote(vote.key, vote.ending, vote.caller, vote.closes_at, {**vote.ballots, seat: yes})
            if all(v in vote.ballots for v in voters):  # the last ballot closes the vote, in the same change
                return await self._close_vote(record, vote, voters, expired=False, ballot=ballot)
            async def cast(change: GameChange) -> None:
                _ballot(change, *ballot)
            await self.store.change(game_id, cast)
            return Outcome(record, vote=vote, voters=voters)

    async def close_vote(self, game_id: int, timer: Timer) -> Outcome:
        """A vote's time is up (its timer, from the scheduler): it passes only if every voter voted for. Nothing
        happens (an empty outcome) if that vote closed meanwhile."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            vote = Vote.of(await self.store.game_deadlines(game_id))
            if vote is None or vote.timer != timer:
                return Outcome(record)
            return await self._close_vote(record, vote, self.voters(record), expired=True)

    async def _close_vote(self, record: GameRecord, vote: Vote, voters: tuple[int, ...], *,
                          expired: bool, ballot: tuple[int, str, float] | None = None) -> Outcome:
        """The vote closes: its timers go; if every voter voted for, the engine's ``VoteEnd`` ends the game. The
        tally counts the ballots of the seats that still vote. The last ``ballot`` (its seat, timer and time), the
        timers' going and the end are one change: a vote that passed is never lost half-way. The caller holds
        the game's lock."""
        ballots = {seat: yes for seat, yes in vote.ballots.items() if seat in voters}
        vote = Vote(vote.key, vote.ending, vote.caller, vote.closes_at, ballots)
        passed = bool(voters) and all(ballots.get(seat, False) for seat in voters)
        kind = VOTE_PASSED if passed else VOTE_EXPIRED if expired and len(ballots) < len(voters) else VOTE_FAILED
        note = Note(kind, vote.caller, vote.yes, against=vote.no, ending=vote.ending)

        async def closed(change: GameChange) -> None:
            if ballot is not None:
                _ballot(change, *ballot)
            for timer in (vote.timer, vote.ballot(True), vote.ballot(False)):
                change.clear_deadlines(kind=str(timer))
            change.after(self.timers_changed)

        if not passed or record.status != RUNNING:
            await self.store.change(record.id, closed)
            return Outcome(record, notes=[note], vote=vote, voters=voters)
        before = record.game().state
        outcome = await self._act(record, VoteEnd(before.current, vote.draw), before.current, VOTE, [note],
                                  also=closed)
        return Outcome(outcome.record, outcome.parts, outcome.notes, outcome.deadline, vote=vote, voters=voters)

    # -- play ------------------------------------------------------------------------------------------
    async def applied(self, game_id: int, interaction_id: str) -> bool:
        """Whether an interaction was applied already (a second delivery: it must not be answered twice)."""
        return await self.store.processed(game_id, interaction_id)

    async def apply(self, record: GameRecord, action: Action, interaction_id: str | None = None) -> Outcome:
        """A player's action (``RuleError`` or ``StoreError`` if refused: nothing changes). An interaction
        applied before is not applied again: the outcome says ``duplicate``. The action, the player's missed turns
        starting again and the timers it leaves are one change."""
        async with self.lock(record.id):
            try:
                return await self._act(record, action, action.seat, PLAYER, interaction_id=interaction_id)
            except TurnRunning as exc:
                raise await self.until(record.id, exc) from None

    async def _act(self, record: GameRecord, action: Action, seat: int, by: str, notes: list[Note] | None = None,
                   *, also: Callable[[GameChange], Awaitable[None]] | None = None,
                   interaction_id: str | None = None, removed_by: int | None = None,
                   parts: list[Part] | None = None) -> Outcome:
        """One action as one change: ``also`` (more of the change, decided by the caller, written first), the
        action, a player's missed turns starting again when they played, and, unless the AIs play on from it, the
        timers it leaves.
        Then the AIs play on (each action a change of its own) and the outcome is made, its ``parts`` those given
        and this action's. The caller holds the game's lock."""
        synced: list[float | None] = []
        after: list[GameState] = []

        async def more(change: GameChange, result: ActionResult) -> None:
            if by == PLAYER and any(e["type"] in TURN_EVENTS for e in result.events):
                change.reset_missed(seat)  # they played: no longer absent
            state = result.record.game().state
            after.append(state)
            if not self._ai_plays_on(result.record, state):
                synced.append(await self.timers(change, result.record, state))

        result = await self.plays.apply(record.id, action, interaction_id=interaction_id, removed_by=removed_by,
                                        also=more, before=also)
        if result.duplicate:
            return Outcome(result.record, duplicate=True)
        before = await self._state_before(record, result.first_seq)
        part = Part(seat=seat, by=by, turn=before.turn, before=before, after=after[-1], events=result.events)
        return await self._finish(result.record, [*(parts or []), part], notes, synced=synced)

    @staticmethod
    def _ai_plays_on(record: GameRecord, state: GameState) -> bool:
        """Whether an AI seat acts next in the game as it is now (``_stand_ins`` plays it)."""
        if state.phase == OVER:
            return False
        if state.sealed is not None:
            return any(record.player(x).is_ai for x in waited_on(state))
        if state.phase == WAITING:
            return any(record.player(x).is_ai for x in Game(state).starters())
        return record.player(state.current).is_ai

    async def until(self, game_id: int, refusal: TurnRunning) -> TurnRunning:
        """The refusal of a start while another player's turn runs, telling until when it runs at the latest."""
        return turn_running(refusal, await self.store.game_deadlines(game_id))

    async def go_on(self, game_id: int) -> Outcome:
        """Let the AIs play if it is their turn (after a restart, or when the AI stopped at its bound)."""
        async with self.lock(game_id):
            return await self._finish(await self.store.get_game(game_id), [])

    async def time_up(self, game_id: int, seat: int, timer: Timer) -> Outcome:
        """A player's time ran out: the AI plays their turn; after too many missed turns, their seat goes.

        Nothing happens (an empty outcome) if the turn ended meanwhile: the player moved just in time."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            if not timer.due_on(record, seat):
                return Outcome(record)
            settings = record.game().state.settings
            level = settings.stand_in if settings.on_timeout == "ai" else TIMEOUT_PLAYERS[settings.on_timeout]
            stand_in = StandIn(seat, timer.key, level)
            parts: list[Part] = []
            counted: list[SeatStatus] = []

            async def missed(change: GameChange) -> None:  # in the change of the stand-in's first move
                counted.append(change.missed_turn(await change.seat_status(seat), timer.key))

            record = await self._stand_ins(record, parts, stand_in, first=missed)
            if not counted:  # the stand-in played nothing (the game stopped): the turn is counted on its own
                await self.store.change(record.id, missed)
            status = counted[-1]
            notes = [Note(TIME_RAN_OUT, seat, status.missed, cautious=settings.on_timeout != "ai")]
            record = await self._boot(record, seat, status.missed, parts, notes)
            return await self._finish(record, parts, notes)

    async def round_up(self, game_id: int, timer: Timer) -> Outcome:
        """A freestyle round's deadline passed: a turn still running is played out as a missed deadline, then
        each player who has not played (seat order) has their turn played for them as ``on_timeout`` says, a missed
        turn as any other (boots, reliability; not for a player on vacation), and the next round opens.

        Nothing happens if that round is over (everyone played in time)."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            if not self._round_open(record, timer):
                return Outcome(record)
            if record.game().state.sealed is not None:
                return await self._close_setup_round(record)
            settings = record.game().state.settings
            level = settings.stand_in if settings.on_timeout == "ai" else TIMEOUT_PLAYERS[settings.on_timeout]
            parts: list[Part] = []
            notes: list[Note] = []
            for _ in range(len(record.players) + 1):
                state = record.game().state
                if not self._round_open(record, timer):
                    break
                if state.phase == WAITING:
                    missed = [x for x in state.to_play if x in state.active_seats()]
                    if not missed:
                        break
                    seat = missed[0]
                    if state.held == seat:
                        result = await self.plays.apply(record.id, ReleaseHold(seat))
                        record = result.record
                    result = await self.plays.apply(record.id, StartTurn(seat))
                    parts.append(self._part(seat, TIMEOUT, state, result))
                    record = result.record
                    state = record.game().state
                seat, key = state.current, turn_key(state)
                counted: list[int] = []

                # Counted in the change of the stand-in's first move.
                async def count_missed(change: GameChange, seat: int = seat, key: str = key,
                                       counted: list[int] = counted) -> None:
                    status = await change.seat_status(seat)
                    if status.vacation_until is not None and status.vacation_until > self.clock():
                        counted.append(status.missed)  # on vacation: played for them, not counted
                    else:
                        counted.append(change.missed_turn(status, key).missed)

                record = await self._stand_ins(record, parts, StandIn(seat, key, level), first=count_missed)
                if not counted:  # the stand-in played nothing (the game stopped): the turn is counted on its own
                    await self.store.change(record.id, count_missed)
                notes.append(Note(TIME_RAN_OUT, seat, counted[-1], cautious=settings.on_timeout != "ai"))
                record = await self._boot(record, seat, counted[-1], parts, notes)
            if self._round_open(record, timer) and record.game().state.phase == WAITING:
                # The next round opens with its timers, in one change.
                state = record.game().state
                end = EndRound(state.active_seats()[0])
                after = Game(state.copy())
                after.apply(end)
                if _held_back(after.state, parts) is None:
                    return await self._act(record, end, state.current, TIMEOUT, notes, parts=parts)
                result = await self.plays.apply(record.id, end)
                parts.append(self._part(state.current, TIMEOUT, state, result))
                record = result.record
            state = record.game().state
            if (held := _held_back(state, parts)) is not None:
                # The round ran out: the turn played for its last player ended it, not that player, whom the next
                # round does not hold back (they were away; a hold would cost them its first hours too).
                return await self._act(record, ReleaseHold(held), held, TIMEOUT, notes, parts=parts)
            return await self._finish(record, parts, notes)

    async def _close_setup_round(self, record: GameRecord) -> Outcome:
        """A set-up round's deadline passed: each human who had starting armies left missed a turn (counted once,
        by the round's key), the engine places the rest at random and reveals every placement, and play begins.
        The caller holds the game's lock; a restart fires the deadline again only while the round is open."""
        state = record.game().state
        late = waited_on(state)

        async def missed(change: GameChange) -> None:  # in the change that ends the round
            for seat in late:
                if not record.player(seat).is_ai:
                    change.missed_turn(await change.seat_status(seat), round_key(state))

        return await self._act(record, EndRound(state.active_seats()[0]), late[0] if late else state.current,
                               TIMEOUT, also=missed)

    @staticmethod
    def _round_open(record: GameRecord, timer: Timer) -> bool:
        """Whether the freestyle (or set-up) round ``timer`` belongs to is still open in a running game."""
        if record.status != RUNNING or record.state_json is None:
            return False
        state = record.game().state
        return (state.phase != OVER and (state.freestyle or state.sealed is not None)
                and round_key(state) == timer.key)

    async def release(self, game_id: int, seat: int, timer: Timer) -> Outcome:
        """The wait passed: the player who ended the last round may start this one too."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            if not self._round_open(record, timer) or record.game().state.held != seat:
                return Outcome(record)
            return await self._act(record, ReleaseHold(seat), seat, TIMEOUT)

    async def _boot(self, record: GameRecord, seat: int, missed: int, parts: list[Part], notes: list[Note]
                    ) -> GameRecord:
        """After too many missed turns in a row the seat goes to the AI, or is resigned (``on_boot``)."""
        settings = record.game().state.settings
        if not settings.max_missed or missed < settings.max_missed or record.player(seat).is_ai:
            return record
        if settings.on_boot == "ai":
            record = await self.store.replace_with_ai(record.id, seat, settings.stand_in)
            await self.store.cancel_orders(record.id, seat)   # their plan goes with them (table/orders.py)
            notes.append(Note(SEAT_TO_AI, seat, missed, offerable=not await self._result_needed(record)))
        elif record.status == RUNNING and seat in (before := record.game().state).active_seats():
            result = await self.plays.apply(record.id, Surrender(seat))
            parts.append(self._part(seat, TIMEOUT, before, result))
            record = result.record
            notes.append(Note(SEAT_REMOVED, seat, missed))
        return record

    async def told(self, game_id: int, seq: int) -> None:
        """The channel has been told the game's events up to ``seq`` (so a restart does not tell them again)."""
        await self.store.mark_announced(game_id, seq)

    async def panel_posted(self, panel: LivePanel) -> None:
        """This channel message is the game's turn panel now (a restart goes on editing it)."""
        await self.store.set_live_panel(panel)

    async def panel_closed(self, game_id: int) -> None:
        """The game's turn panel became its turn's summary, or the game ended: no live panel."""
        await self.store.clear_live_panel(game_id)

    async def board_left(self, nonce: str, expires_at: float) -> None:
        """A live board's session (its ``nonce``) was ended by Leave: it opens nothing until it would have
        expired, after a restart too (web/server.py)."""
        await self.store.revoke_session(nonce, expires_at, self.clock())

    # -- what belongs to a player or a server, not to one game --------------------------------------------
    async def save_prefs(self, prefs: UserPrefs) -> UserPrefs:
        """A player's notifications, quiet hours and time zone (validated by the store)."""
        return await self.store.set_user_prefs(prefs)

    async def add_map(self, guild_id: int, map_id: str, name: str, added_by: int,
                      files: Mapping[str, bytes]) -> MapRecord:
        """A checked map joins the server's maps."""
        return await self.store.add_map(guild_id, map_id, name, added_by, files)

    async def remove_map(self, guild_id: int, map_id: str) -> MapRecord:
        """A map leaves the server's list (the games played on it keep it)."""
        return await self.store.remove_map(guild_id, map_id)

    @staticmethod
    def _part(seat: int, by: str, before: GameState, result: ActionResult) -> Part:
        """One action's part: its events and the board before and after."""
        return Part(seat=seat, by=by, turn=before.turn, before=before, after=result.record.game().state,
                    events=result.events)

    # -- the loop --------------------------------------------------------------------------------------
    async def _finish(self, record: GameRecord, parts: list[Part], notes: list[Note] | None = None, *,
                      synced: list[float | None] | None = None) -> Outcome:
        """Let the AIs play if it is their turn, then set the timers (``synced``: set already, in the change that
        made ``record``, as long as no AI played since); ``record`` is the game as stored now. The caller holds the
        game's lock."""
        known = parts[-1].after if parts and parts[-1].by != START else None
        if known is None or known.phase in (OVER, WAITING) or known.sealed is not None \
                or record.player(known.current).is_ai:
            version = record.version
            record = await self._stand_ins(await self.store.get_game(record.id), parts)
            known = None
            if record.version != version:
                synced = None
        try:
            deadline = synced[-1] if synced else await self.sync(record, known)
            await self._orders_timers(record)   # standing orders, forced steps: table/orders.py
        except StoreError:  # paused or cancelled meanwhile: it has no timers
            deadline = None
        for watcher in self.watchers:
            watcher(record.id)
        if record.status == FINISHED and any(part.ended for part in parts):
            for hook in self.game_over_hooks:
                await hook(record)
        return Outcome(record, parts, notes or [], deadline)

    async def _stand_ins(self, record: GameRecord, parts: list[Part], stand_in: StandIn | None = None,
                         first: Before | None = None) -> GameRecord:
        """Play for every seat no human plays now (AI seats; a turn whose time ran out) until a human must act, or
        an AI seat has made its ``MAX_THOUGHTS`` decisions in the workers (a stand-in's turn is played out).
        ``first``: more of the change of the first action played (a missed turn counted)."""
        thoughts = 0
        for _ in range(MAX_AI_ACTIONS):
            if record.status != RUNNING or record.state_json is None:
                break
            game = record.game()
            s = game.state
            if s.phase == OVER:
                break
            seat = s.current
            turn = s.turn
            if s.sealed is not None:  # a set-up round: each AI seat places all its starting armies, one after another
                ready = [x for x in waited_on(s) if record.player(x).is_ai]
                if not ready:
                    break
                seat, level, by = ready[0], record.player(ready[0]).ai_level or "normal", AI
            elif s.phase == WAITING:  # a freestyle round between turns: an AI seat that may start does
                ready = [x for x in game.starters() if record.player(x).is_ai]
                if not ready:
                    break
                seat, turn, level, by = ready[0], s.turn + 1, record.player(ready[0]).ai_level or "normal", AI
            elif stand_in is not None and seat == stand_in.seat and turn_key(s) == stand_in.key:
                level, by = stand_in.level, TIMEOUT
            elif record.player(seat).is_ai:
                level, by = record.player(seat).ai_level or "normal", AI
            else:
                break
            if level in self.thinking.elsewhere:
                if by == AI and thoughts >= MAX_THOUGHTS:
                    log.info("game %s: the AI goes on after %s decisions", record.id, thoughts)
                    break
                thoughts += 1
            action: Action
            if by == AI and await self._played_out(record, game):
                action = RoundLimit(seat)
            elif s.phase == WAITING:
                action = StartTurn(seat)
            else:
                action = await self.thinking.choose(game, seat, level, await self._memory(record, game, seat))
            try:  # chosen on this version of the game: if anything came between, look again
                result = await self.plays.apply(record.id, action, expected_version=record.version, before=first)
                first = None
            except VersionConflict:
                record = await self.store.get_game(record.id)
                continue
            except (StoreError, RuleError) as exc:  # paused, cancelled: stop here, what was played is told
                log.info("game %s: the AI stopped: %s", record.id, exc)
                record = await self.store.get_game(record.id)
                break
            known = self._recollections.get(record.id)
            if known is not None and known.event_count == s.event_count:
                known.follow(result.events)
            last = parts[-1] if parts else None
            if last is None or (last.seat, last.by, last.turn) != (seat, by, turn) or last.ended:
                if last is not None and last.by in (AI, TIMEOUT):
                    last.after = s.copy()
                parts.append(Part(seat=seat, by=by, turn=turn, before=s.copy(), after=s))
            parts[-1].events.extend(result.events)
            record = result.record
        else:
            log.info("game %s: the AI goes on after %s actions", record.id, MAX_AI_ACTIONS)
        if parts and parts[-1].by in (AI, TIMEOUT) and record.state_json is not None:
            parts[-1].after = record.game().state
        if record.status != RUNNING:
            self._humans_left.pop(record.id, None)
            self._recollections.pop(record.id, None)
            self._hints.pop(record.id, None)
        return record

    def take_hint(self, record: GameRecord, seat: int) -> bool:
        """Whether ``seat`` may have a hint now, noted as had: one a step (phase) of each of its turns."""
        state = record.game().state
        step, given = (state.turn, state.phase), self._hints.setdefault(record.id, {})
        if given.get(seat) == step:
            return False
        given[seat] = step
        return True

    async def hint(self, record: GameRecord, seat: int) -> Hint | None:
        """What the hard AI would do now for ``seat`` and why, from the seat's own view (its memory under fog),
        worked out in the AI's workers; None if it could not be in time (the step's hint is given back, to ask
        again). It changes nothing in the game."""
        game = record.game()
        hint = await self.thinking.hint(game, seat, await self._memory(record, game, seat))
        if hint is None:
            self._hints.get(record.id, {}).pop(seat, None)
        return hint

    async def _memory(self, record: GameRecord, game: Game, seat: int) -> Memory | None:
        """Under fog, what ``seat`` saw of the board (the AI decides on it, as a player would): followed from the
        game's log and kept while the game runs; after a restart it is rebuilt in the log's worker."""
        if not fog_hides_board(game.state):
            return None
        known = self._recollections.get(record.id)
        count = game.state.event_count
        if known is not None and known.event_count < count:  # moves of players since: seq n is the n-th event
            known.follow(await self.store.events(record.id, since_seq=known.event_count + 1))
        if known is None or known.event_count != count:
            known = await self.store.with_log(record.id, recollect)
        self._recollections[record.id] = known
        return known.memory(seat)

    async def _played_out(self, record: GameRecord, game: Game) -> bool:
        """Whether no human plays the game any more and it has played its rounds without one
        (``Limits.rounds_without_humans`` since the round the last human left it)."""
        bound = self.limits.rounds_without_humans
        s = game.state
        if bound <= 0 or s.round <= bound:  # no human can have left before the first round
            return False
        if any(not record.player(seat).is_ai for seat in s.active_seats()):
            return False
        return s.round > await self._round_humans_left(record) + bound

    async def _round_humans_left(self, record: GameRecord) -> int:
        """The round in which the last human left the game (0: none ever played in it). A human leaves by
        elimination or surrender (in the log), or when the AI takes their seat after missed turns (the seat's
        last missed turn, in its status)."""
        cached = self._humans_left.get(record.id)
        if cached is not None and cached[0] == record.players:
            return cached[1]
        humans = {p.seat for p in record.players if not p.is_ai}
        replaced_at: dict[int, int] = {}  # a seat the AI took from its human: the turn it took it in (0: set-up)
        for p in record.players:
            if p.is_ai:
                status = await self.store.seat_status(record.id, p.seat)
                if status.booted_user_id is not None:
                    missed = status.last_missed_turn or ""
                    replaced_at[p.seat] = int(missed[1:]) if missed[:1] == "t" and missed[1:].isdigit() else 0
        left = 0
        if humans or replaced_at:
            left = await self.store.with_log(record.id, _round_humans_left, humans, replaced_at)
        self._humans_left[record.id] = (record.players, left)
        return left

    async def _state_before(self, record: GameRecord, first_seq: int) -> GameState:
        """The board just before the events from ``first_seq``: the caller's copy if nothing came between."""
        if record.state_json is not None and record.last_seq + 1 == first_seq:
            return record.game().state
        before, _since = await self.store.with_log(record.id, split_log, first_seq - 1)  # in the log's worker
        if before is None:
            raise ValueError(f"game {record.id}: no board before its first event")
        return before

    # -- timers ------------------------------------------------------------------------------------------
    async def sync(self, record: GameRecord, state: GameState | None = None) -> float | None:
        """Make the game's timers match whose turn it is (``state``: the record's, if the caller has it at hand),
        in one change of their own. Returns the current turn's deadline, if any."""
        return await self.store.change(record.id, lambda change: self.timers(change, record, state))

    async def timers(self, change: GameChange, record: GameRecord, state: GameState | None = None) -> float | None:
        """``sync`` within a change that also does more (an action, a vote's close): read and written in it."""
        timers = await change.deadlines()
        if record.status == RUNNING and record.state_json is not None:
            state = state or record.game().state
            if in_round(state):
                return await self._sync_round(change, record, state, timers)
            seat = state.current
            if state.phase != OVER and not record.player(seat).is_ai:
                turn = Timer.now(TimerKind.TURN, state)
                for t in timers:
                    if t.seat == seat and Timer.of(t) == turn:
                        return t.due_at
                if timers:
                    self._clear_turn_timers(change, timers)
                return await self._set_timers(change, record, state, seat)
            if state.phase != OVER:  # the AI stopped at its bound: it goes on shortly, from the scheduler
                goes_on = Timer.now(TimerKind.AI, state)
                if not any(Timer.of(t) == goes_on for t in timers):
                    self._clear_turn_timers(change, timers)
                    change.set_deadline(seat, str(goes_on), self.clock() + AI_PAUSE)
                    change.after(self.timers_changed)
                return None
        if timers:
            change.clear_deadlines()
            change.after(self.timers_changed)
        return None

    async def _sync_round(self, change: GameChange, record: GameRecord, state: GameState,
                          timers: list[Deadline]) -> float | None:
        """A freestyle round's timers: its deadline (kept from when it opened), the hold of the player who ended
        the last round, reminders to the humans who have not played, and the running turn's own limit (never
        beyond the round's deadline). Returns the running turn's deadline, or the round's while none runs.
        A set-up round's: its deadline, and reminders to the humans who have armies left to place."""
        settings = state.settings
        now = self.clock()
        key = round_key(state)
        wanted: dict[tuple[int, str], float] = {}
        kept = {(t.seat, t.kind): t.due_at for t in timers}
        first = min((p.seat for p in record.players), default=0)
        round_timer = str(Timer(TimerKind.ROUND, key))
        fresh = (first, round_timer) not in kept   # the round opens now: its timers are set once
        ends = kept.get((first, round_timer), now + settings.turn_deadline)
        wanted[(first, round_timer)] = ends
        hold = str(Timer(TimerKind.HOLD, key))
        if state.held is not None and state.phase == WAITING and not record.player(state.held).is_ai \
                and (fresh or (state.held, hold) in kept):
            wanted[(state.held, hold)] = kept.get((state.held, hold), now + hold_time(settings))
        length = settings.turn_deadline
        for seat in waited_on(state):  # reminders to the humans who have not played (one sent is not sent again)
            for kind, at in ((TimerKind.HALF, ends - length / 2), (TimerKind.HOUR, ends - LIVE)):
                name = str(Timer(kind, key))
                if (seat, name) in kept or (fresh and settings.reminders == "auto" and length >= LIVE
                                            and (kind is TimerKind.HALF or length >= 3 * LIVE)
                                            and not record.player(seat).is_ai):
                    wanted[(seat, name)] = kept.get((seat, name), at)
        due = ends
        if state.phase == SETUP:  # a set-up round: an AI seat stopped at its bound goes on shortly, from the scheduler
            late = [x for x in waited_on(state) if record.player(x).is_ai]
            goes_on = str(Timer.now(TimerKind.AI, state))
            if late:
                wanted[(late[0], goes_on)] = kept.get((late[0], goes_on), now + AI_PAUSE)
        elif state.phase == WAITING:  # no turn runs: the round's deadline is the one waited for
            pass
        elif not record.player(state.current).is_ai:
            turn = str(Timer.now(TimerKind.TURN, state))
            due = kept.get((state.current, turn), min(now + turn_limit(settings), ends))
            wanted[(state.current, turn)] = due
        else:  # the AI stopped at its bound: it goes on shortly, from the scheduler
            goes_on = str(Timer.now(TimerKind.AI, state))
            wanted[(state.current, goes_on)] = kept.get((state.current, goes_on), now + AI_PAUSE)
        changed = False
        for t in timers:
            timer = Timer.of(t)
            if (timer is None or timer.kind not in KEPT) and (t.seat, t.kind) not in wanted:
                change.clear_deadlines(t.seat, t.kind)
                changed = True
        for (seat, name), at in wanted.items():
            if kept.get((seat, name)) != at:
                change.set_deadline(seat, name, at)
                changed = True
        if changed:
            change.after(self.timers_changed)
        return due

    @staticmethod
    def _clear_turn_timers(change: GameChange, timers: list[Deadline]) -> None:
        """The turn's timers go as the turn passes; a vote's stay until it closes."""
        kept = [t for t in timers if (timer := Timer.of(t)) is not None and timer.kind in VOTING]
        if not kept:
            change.clear_deadlines()
            return
        for t in timers:
            if t not in kept:
                change.clear_deadlines(t.seat, t.kind)

    async def _set_timers(self, change: GameChange, record: GameRecord, state: GameState, seat: int) -> float:
        """The deadline of the turn that starts now, and its reminders (after the seat's vacation, if any)."""
        settings = state.settings
        status = await change.seat_status(seat)
        now = self.clock()
        start = max(now, status.vacation_until or now)
        length = settings.turn_deadline
        due = start + length
        timers = {TimerKind.TURN: due}
        if settings.reminders == "auto" and length >= LIVE:
            timers[TimerKind.HALF] = start + length / 2
            if length >= 3 * LIVE:
                timers[TimerKind.HOUR] = due - LIVE
        for kind, at in timers.items():
            change.set_deadline(seat, str(Timer.now(kind, state)), at)
        change.after(self.timers_changed)
        return due


def _ballot(change: GameChange, seat: int, timer: str, at: float) -> None:
    """A seat's ballot in a vote: a timer of its own, due a while after the vote closes."""
    change.set_deadline(seat, timer, at)


def _round_humans_left(events: list[Event], humans: set[int], replaced_at: dict[int, int]) -> int:
    """The round of the last of: a human seat eliminated or surrendered, a replaced seat's last missed turn."""
    left = now = 0
    for e in events:
        if e["type"] == "turn_started":
            now = e["round"]
            if replaced_at.get(e["seat"]) == e["turn"]:
                left = max(left, now)
        elif e["type"] in ("player_eliminated", "player_surrendered") and e["seat"] in humans:
            left = max(left, now)
    return left


__all__ = ["LIVE", "MAX_AI_ACTIONS", "MAX_THOUGHTS", "TIMEOUT_PLAYERS", "StandIn", "Table",
           "cancel_ends_by_standings", "in_play"]
