"""The live turn panel: one channel message per turn, edited in place as the player acts.

A human's turn is one message: the line that calls them (it mentions them when it is posted, and pings only
them), what they did so far this turn in a few lines, the map at this moment (none under fog) and the buttons for
what comes next. Everything on it is the public projection (``engine.fog``, audience ``EVERYBODY``): the player's
own view is their private answer (cogs/shared/announcer.py). When the turn ends the panel becomes the turn's
summary (no buttons, the map at the end of the turn) and the next player's panel is posted.

Edits go through the channel's queue (cogs/shared/postbox.py), where a burst of them coalesces into one. The store
knows which message is each game's live panel (``StoreReader.live_panel``, written through the table), so a
restart goes on editing it. Discord refuses some edits of a message older than an hour: a panel older than
``EDIT_WINDOW`` is not edited; the player's next action posts a fresh one that tells the whole turn so far, and
the old one shrinks to what it told (or goes, when it can no longer be edited).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import discord

from cogs.shared.board import add_board_button
from cogs.shared.guards import game_locale
from cogs.shared.postbox import Post, Postbox, PostOptions, Sent
from cogs.shared.rooms import Controls
from engine import Event, Game, GameState, apply_event
from engine.events import View
from engine.fog import EVERYBODY, events_for, fog_hides_board
from engine.game import split_log
from engine.state import ATTACK, FORTIFY, OCCUPY, OVER, WAITING
from present.drawing import PHONE, prepare
from present.i18n import _
from present.losses import LOSS_TAIL, NEW_TURN, loss_line, losses_since_last_turn
from present.text import describe, seat_name
from present.turns import round_prompt, summary_title, turn_prompt
from store import GameRecord, LivePanel, StoreReader
from table import Table
from table.timers import waited_on

log = logging.getLogger(__name__)
EDIT_WINDOW = 55 * 60  # seconds a panel is edited after it was posted (Discord: an hour, with a margin)
MAX_LINES = 12         # what the panel tells of the turn: the newest lines, the count of the others
MAX_CONTENT = 1900
Tap = discord.Interaction[Any]
NOBODY = discord.AllowedMentions.none()


def moment(state: GameState) -> str:
    """The part of a turn the board is in: placing (and every set-up step), attacking, fortifying. The panel's
    picture is new only when this changes (after placing, at the end of the attack phase) and at the end."""
    if state.phase in (ATTACK, OCCUPY):
        return "attack"
    if state.phase == FORTIFY:
        return "fortify"
    return "place"


def board_key(state: GameState) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
    """What a picture of the board shows (its owners and armies): a picture is not sent again unchanged."""
    return tuple(sorted(state.owners.items())), tuple(sorted(state.armies.items()))


def only(user_id: int) -> discord.AllowedMentions:
    """Mentions that ping this one user and nobody else."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=[discord.Object(user_id)])


def newest(lines: Sequence[str], most: int = MAX_LINES) -> list[str]:
    """The last ``most`` lines (a turn is read from its newest move), the others counted."""
    if len(lines) <= most:
        return list(lines)
    return [f"… (+{len(lines) - most + 1})", *lines[-(most - 1):]]


def fit(head: str, lines: Sequence[str]) -> str:
    """The head and as many of the newest lines as fit in a message."""
    body = newest(lines)
    while body and len(head) + sum(len(line) + 1 for line in body) > MAX_CONTENT:
        body = newest(body[1:], len(body) - 1) if len(body) > 1 else []
    return "\n".join([head, *body])


class LivePanels:
    """Each running game's turn panel: posted when a turn begins, edited as it goes, closed when it ends."""

    def __init__(self, box: Postbox, store: StoreReader, table: Table, controls: Controls) -> None:
        self.box = box
        self.controls = controls  # the turn panel's buttons (cogs/play/panel.py)
        self.store = store
        self.table = table
        self.starts: dict[int, tuple[int, GameState]] = {}  # game -> (since_seq, the board then), read once
        self.posting: dict[int, asyncio.Future[None]] = {}  # game -> its panel, queued and not yet recorded
        self.locks: dict[int, asyncio.Lock] = {}
        # game -> (the panel's message, the moment and the board its picture shows): the picture is sent again
        # only at the turn's next moment, and only if the board changed (after a restart: from its start)
        self.pictured: dict[int, tuple[int, str, object]] = {}
        # game -> ((turn, seat), the line that tells the player on turn what they lost since their last turn)
        self.losses: dict[int, tuple[tuple[int, int], str]] = {}

    def lock(self, game_id: int) -> asyncio.Lock:
        """Held while a game's outcome is told (by the announcer): one after the other, in order."""
        return self.locks.setdefault(game_id, asyncio.Lock())

    async def settled(self, game_id: int) -> None:
        """Wait until a panel queued for the game is posted and recorded (a move that comes quicker than the
        channel must edit that panel, not post another)."""
        pending = self.posting.get(game_id)
        if pending is not None:
            await asyncio.shield(pending)

    # -- what a panel says --------------------------------------------------------------------------------
    async def _start(self, panel: LivePanel) -> tuple[GameState, list[Event]]:
        """The board when the panel's turn began, and every event stored since."""
        cached = self.starts.get(panel.game_id)
        if cached is None or cached[0] != panel.since_seq:  # after a restart: the log replayed once
            before, rest = await self.store.with_log(panel.game_id, split_log, panel.since_seq)
            if before is None:
                raise ValueError(f"game {panel.game_id}: a turn panel from before the game began")
            cached = self.starts[panel.game_id] = (panel.since_seq, before)
            return before, rest
        return cached[1], await self.store.events(panel.game_id, panel.since_seq)

    @staticmethod
    def _turn(before: GameState, events: Sequence[Event], seat: int,
              upto: int | None) -> tuple[list[Event], GameState, bool]:
        """The events of the seat's turn (the first ``upto`` at most), the board after them, and whether the turn
        is over: it ends before another seat's turn begins, or with the event after which another seat is to
        move (a claim during set-up), or the game is over."""
        state = before.copy()
        taken: list[Event] = []
        for event in events[:upto]:
            if event["type"] in NEW_TURN and event.get("seat") != seat:
                return taken, state, True
            apply_event(state, event)
            taken.append(event)
            if state.phase == OVER or state.current != seat:
                return taken, state, True
        return taken, state, False

    async def _lines(self, panel: LivePanel, locale: object,
                     upto_seq: int | None = None) -> tuple[list[str], GameState, int, bool, list[View]]:
        """What the channel may read of the panel's turn (up to event ``upto_seq``), the board after it, the last
        event of it, whether the turn is over, and the turn's events as the channel may see them (the map marks
        them)."""
        before, events = await self._start(panel)
        upto = None if upto_seq is None else max(0, upto_seq - panel.since_seq)
        taken, after, over = self._turn(before, events, panel.seat, upto)
        seen = events_for(taken, EVERYBODY, before=before)
        lines = describe([e for e in seen if e["type"] not in NEW_TURN], after,
                         Game(after).board, locale)
        return lines, after, panel.since_seq + len(taken), over, seen

    async def _calling(self, record: GameRecord, state: GameState, due: float | None, *,
                       ping: bool) -> tuple[str, PostOptions]:
        """The panel's first line (it mentions the player; ``ping``: and pings them) and its buttons."""
        game = Game(state)
        locale = game_locale(record)
        if state.phase == WAITING or state.sealed is not None:
            return await self._round_call(record, state, due, ping=ping)
        player = record.player(state.current)
        prefs = await self.store.get_user_prefs(player.user_id) if player.user_id else None
        mention = player.user_id is not None and (prefs is None or prefs.notify != "off")
        who = f"<@{player.user_id}>" if mention else seat_name(state, state.current, locale)
        text = turn_prompt(game, locale, who)
        told = self.losses.get(record.id)
        if told is not None and told[0] == (state.turn, state.current):
            text += "\n" + told[1]
        if state.teams:
            mates = [seat_name(state, m, locale) for m in game.teammates(state.current)]
            text += " " + _("(team {n}, with {players})", locale, n=state.teams[state.current] + 1,
                            players=", ".join(mates))
        if due is not None:
            text += " " + _("Ends <t:{t}:R>.", locale, t=int(due))
        options: PostOptions = {"allowed_mentions": only(player.user_id) if ping and mention and player.user_id
                                else NOBODY}
        return text, options

    async def _note_losses(self, record: GameRecord, state: GameState, locale: object) -> None:
        """What the player now on turn lost since their last turn (to the AIs' turns above all, which nobody
        plays in front of them), kept for their panel's first line while the turn goes on. Not under fog: the
        panel is public, and there only they may know it."""
        key = (state.turn, state.current)
        if fog_hides_board(state) or (self.losses.get(record.id, ((), ""))[0] == key):
            return
        self.losses.pop(record.id, None)
        since = max(0, record.last_seq - LOSS_TAIL)
        lost = losses_since_last_turn(await self.store.events(record.id, since), state.current, whole=since == 0)
        if not lost:
            return
        line = loss_line(state, lost, locale)
        self.losses[record.id] = (key, line)

    async def _round_call(self, record: GameRecord, state: GameState, due: float | None, *,
                          ping: bool) -> tuple[str, PostOptions]:
        """A freestyle round's message: the humans who have not played are named (mentioned unless they turned
        notifications off; pinged once, when the round's message is posted), and the round's deadline."""
        locale = game_locale(record)
        names: list[str] = []
        pinged: list[discord.Object] = []
        for seat in waited_on(state):
            player = record.player(seat)
            if player.is_ai or player.user_id is None:
                continue
            prefs = await self.store.get_user_prefs(player.user_id)
            if prefs.notify == "off":
                names.append(seat_name(state, seat, locale))
            else:
                names.append(f"<@{player.user_id}>")
                pinged.append(discord.Object(player.user_id))
        text = round_prompt(Game(state), locale, ", ".join(names) or _("everyone", locale))
        if due is not None:
            text += " " + _("The round ends <t:{t}:R>.", locale, t=int(due))
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=pinged) if ping and pinged else NOBODY
        return text, {"allowed_mentions": mentions}

    # -- the channel ------------------------------------------------------------------------------------
    def _queue(self, record: GameRecord, content: str | None, options: PostOptions, *,
               edit: int | None = None, delete: bool = False, via: Tap | None = None) -> Sent:
        options = options.copy()
        job, keep = options.pop("map", None), options.pop("keep_map", False)
        same = options.pop("same_map", False)
        options.setdefault("allowed_mentions", NOBODY)
        return self.box.enqueue(record.channel_id, Post(content, job, keep, options, edit=edit, delete=delete,
                                                        via=via, same_map=same))

    def _picture_due(self, panel: LivePanel, after: GameState, *, over: bool) -> bool:
        """Whether the panel's edit carries a new picture: at the turn's key moments only (after placing, at the
        end of the attack phase, at the end of the turn), and only if the board changed since its picture."""
        last = self.pictured.get(panel.game_id)
        if last is None or last[0] != panel.message_id:
            last = (panel.message_id, "place", None)   # the turn's start: the message above shows that board
        return (over or moment(after) != last[1]) and board_key(after) != last[2]

    def _board(self, state: GameState, options: PostOptions, locale: object, seen: Sequence[View] = ()) -> None:
        """The phone view of the board, round what the turn did so far (``seen``); the whole map is a tap away."""
        if not fog_hides_board(state):
            options["map"] = prepare(state, EVERYBODY, seen, locale=locale, kind=PHONE)

    async def post(self, record: GameRecord, state: GameState, due: float | None, *, since_seq: int | None = None,
                   lines: Sequence[str] = (), ping: bool = True, note: str | None = None,
                   before: GameState | None = None) -> None:
        """Post the panel of the turn now waiting and record it: ``since_seq`` (default: now) is the last event
        before the turn it tells, ``before`` the board then if known, ``lines`` what the turn told so far."""
        await (await self.ready(record, state, due, since_seq=since_seq, lines=lines, ping=ping, note=note,
                                before=before))()

    async def ready(self, record: GameRecord, state: GameState, due: float | None, *,
                    since_seq: int | None = None, lines: Sequence[str] = (), ping: bool = True,
                    note: str | None = None, before: GameState | None = None,
                    picture: bool = True) -> Callable[[], Awaitable[None]]:
        """``post`` in two steps: what the panel needs is read now; calling what this returns queues it at once
        (behind what is queued already, so under load an older map gives way to its map), and awaiting that
        waits until the panel is posted and recorded. Without ``picture`` a turn's first panel has none: the
        messages just above it (the turn before, an AI's turn) show the board as it is."""
        locale = game_locale(record)
        await self._note_losses(record, state, locale)
        head, options = await self._calling(record, state, due, ping=ping)
        if note:
            head += "\n" + note
        pictured = picture or bool(lines) or since_seq is not None   # a fresh panel in the middle of a turn
        if pictured:
            self._board(state, options, locale)
        view = self.controls(record.id, Game(state), locale, public=True)
        add_board_button(self.box.bot, view, record.id, locale)
        if view is not None:
            options["view"] = view
        seq = record.last_seq if since_seq is None else since_seq
        start = (state if before is None else before).copy() if since_seq is None or before is not None else None

        def queued() -> Awaitable[None]:
            sent = self._queue(record, fit(head, lines), options)
            done = self.posting[record.id] = asyncio.get_running_loop().create_future()

            async def recorded() -> None:
                try:
                    message = await sent
                    if message is None:
                        return
                    if start is not None:
                        self.starts[record.id] = (seq, start)
                    self.pictured[record.id] = (message.id, moment(state),
                                                board_key(state) if pictured else None)
                    await self.table.panel_posted(LivePanel(record.id, record.channel_id, message.id,
                                                            state.current, state.turn, seq, self.table.clock()))
                finally:
                    done.set_result(None)
                    if self.posting.get(record.id) is done:
                        del self.posting[record.id]
            return recorded()
        return queued

    async def follow(self, record: GameRecord, due: float | None, events: Sequence[Event] = (),
                     upto_seq: int | None = None, *, closing: bool = False, via: Tap | None = None) -> int | None:
        """Bring the live panel up to date with what was stored (up to event ``upto_seq``): edited while its turn
        goes on (``events``: the last move's, for "attack again"), its turn's summary once the turn is over (or
        ``closing``: others played after it). ``via``: a tap on the panel, which this edit answers (no fog). The
        last event it tells; None: there is no panel to follow."""
        panel = await self.store.live_panel(record.id)
        if panel is None or panel.channel_id != record.channel_id:
            return None
        if via is not None and (via.message is None or via.message.id != panel.message_id):
            via = None
        locale = game_locale(record)
        lines, after, told, over, seen = await self._lines(panel, locale, upto_seq)
        over = over or closing
        old = self.table.clock() - panel.posted_at > EDIT_WINDOW
        if over:
            await self.table.panel_closed(record.id)
            self.starts.pop(record.id, None)
            options: PostOptions = {"keep_map": True}  # the board at the end of the turn, even when busy
            self._board(after, options, locale, seen)
            text = fit(summary_title(after, panel.seat, panel.turn, locale), lines)
            fresh = self._picture_due(panel, after, over=True)
            self.pictured.pop(record.id, None)
            same: PostOptions = {"same_map": True}   # the picture it has shows the board at the end already
            if old or not await self._edited(record, panel, text, options if fresh else same, via):
                await self._replace(record, panel, text, options)
            return told
        state = record.game().state
        if old:  # a new sitting: a fresh panel tells the whole turn so far; the old one shrinks to it
            await self.post(record, state, due, since_seq=panel.since_seq, lines=lines, ping=False)
            shrunk = fit(summary_title(after, panel.seat, panel.turn, locale, going_on=True), lines)
            await self._shrink(record, panel, shrunk)
            return told
        head, options = await self._calling(record, state, due, ping=False)
        if self._picture_due(panel, after, over=False):
            self._board(state, options, locale, seen)
            if "map" in options:
                self.pictured[record.id] = (panel.message_id, moment(after), board_key(after))
        else:
            options["same_map"] = True   # only its words and buttons change: the picture stays
        view = self.controls(record.id, Game(state), locale, events, public=True)
        add_board_button(self.box.bot, view, record.id, locale)
        if view is not None:
            options["view"] = view
        if not await self._edited(record, panel, fit(head, lines), options, via):
            note = _("(A new turn panel: the one before could not be edited.)", locale)
            await self.post(record, state, due, since_seq=panel.since_seq, lines=lines, ping=False, note=note)
        return told

    async def renew(self, record: GameRecord, due: float | None) -> None:
        """The panel of the turn now waiting, posted again at the foot of the channel (the one before shrinks)."""
        state = record.game().state
        panel = await self.store.live_panel(record.id)
        if panel is None or panel.channel_id != record.channel_id or panel.seat != state.current:
            if panel is not None:
                await self.table.panel_closed(record.id)
            await self.post(record, state, due)
            return
        locale = game_locale(record)
        lines, after, _told, _over, _seen = await self._lines(panel, locale)
        await self.post(record, state, due, since_seq=panel.since_seq, lines=lines)
        await self._shrink(record, panel, fit(summary_title(after, panel.seat, panel.turn, locale, going_on=True),
                                              lines))

    async def _edited(self, record: GameRecord, panel: LivePanel, text: str, options: PostOptions,
                      via: Tap | None = None) -> bool:
        try:
            await self._queue(record, text, options, edit=panel.message_id, via=via)
        except discord.HTTPException as exc:
            log.warning("the panel %s of game %s could not be edited: %s", panel.message_id, record.id, exc)
            return False
        return True

    async def _replace(self, record: GameRecord, panel: LivePanel, text: str, options: PostOptions) -> None:
        """A summary that could not go on the panel itself: a message of its own, and the old panel goes."""
        await self._queue(record, text, options)
        await self._shrink(record, panel, None)

    async def _shrink(self, record: GameRecord, panel: LivePanel, text: str | None) -> None:
        """The old panel: its words without buttons or map while it can be edited, else deleted (a newer message
        tells everything it told)."""
        if text is not None and self.table.clock() - panel.posted_at < 3600 \
                and await self._edited(record, panel, text, {}):
            return
        try:
            await self._queue(record, None, {}, edit=panel.message_id, delete=True)
        except discord.HTTPException as exc:
            log.warning("the old panel %s of game %s stays: %s", panel.message_id, record.id, exc)


__all__ = ["EDIT_WINDOW", "NOBODY", "LivePanels", "fit", "newest", "only"]
