"""The announcer: the one place that turns what happened in a game into messages, for each audience.

An ``Outcome`` (table/) holds parts, each one actor's share with the board after it. For every part the
announcer asks ``engine.fog`` what an audience may know (``events_for``, ``state_for`` through ``map_file``)
and writes only that:

- the actor (the user who tapped or typed) gets their answer: under fog of war privately, with their own map;
- the channel gets the public projection: AI turns and timeouts one message each, with the map at the end of
  that part (none under fog), then the game's end or the panel that calls the next player;
- a player gets their reminder, and their private map when they ask for it.

Nothing pings but the one player whose turn it is (``AllowedMentions`` for that user only).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, Unpack

import discord

from cogs.shared.attachments import map_file
from cogs.shared.ballots import announce_vote
from cogs.shared.calls import round_calls
from cogs.shared.ending import game_over_post
from cogs.shared.errors import ACK, CHANGED, DONE
from cogs.shared.guards import game_locale
from cogs.shared.live import NOBODY, LivePanels, only
from cogs.shared.postbox import ANSWERED_BY_EDIT, Extras, Post, Postbox, PostOptions, Sent
from cogs.shared.rooms import RoomParts
from cogs.shared.substitute_news import queue_part  # the takeover's message offers the seat
from engine import Game, GameState
from engine.choices import armies_to_place
from engine.fog import EVERYBODY, Audience, events_for, fog_hides_board
from engine.game import split_log
from present import drawing as maps
from present.drawing import PHONE, prepare
from present.i18n import _, ngettext
from present.plans import orders_report
from present.text import describe, now_text
from present.wording import attempt, clip, note_line, part_lines
from store import GameRecord, StoreReader
from table import Outcome, Part, Reminder, Table
from table.outcome import AI, KICKED, PLAYER, START, TIMEOUT, setup_round_waits

MAX_DONE = 1500  # what a move did, in the apology for an answer that failed (the apology's words come first)
log = logging.getLogger("risk.announcer")


class Announcer:
    def __init__(self, bot: discord.Client, store: StoreReader, table: Table, rooms: RoomParts) -> None:
        self.bot, self.store, self.table = bot, store, table
        self.rooms = rooms  # the turn panel's buttons, the end-of-game report
        self.box = Postbox(bot)
        self.live = LivePanels(self.box, store, table, rooms.controls)

    def queue(self, record: GameRecord, content: str | None = None, **options: Unpack[PostOptions]) -> Sent:
        """A message to the game's channel, queued behind the channel's others (``map``: a prepared map, drawn
        when the message is sent, and skipped under load if a newer one follows)."""
        job, keep = options.pop("map", None), options.pop("keep_map", False)
        options.setdefault("allowed_mentions", NOBODY)
        return self.box.enqueue(record.channel_id, Post(content, job, keep, options))

    async def post(self, record: GameRecord, content: str | None = None,
                   **options: Unpack[PostOptions]) -> discord.Message | None:
        """``queue``, then wait until the message is sent."""
        return await asyncio.shield(self.queue(record, content, **options))

    # -- what one part says, to one audience ----------------------------------------------------------
    @staticmethod
    def part_lines(outcome: Outcome, part: Part, audience: Audience, locale: object) -> list[str]:
        return part_lines(outcome, part, audience, locale)

    # -- the actor's answer ---------------------------------------------------------------------------------
    async def answer(self, interaction: discord.Interaction[Any], outcome: Outcome, *, private: bool) -> None:
        """Answer a deferred interaction, then tell the channel (cogs/shared/live.py: a player's move is told on
        the turn panel, which is edited; their answer is private).

        ``private``: fog of war hides the board, so the answer is the reader's own view. The outcome is stored:
        should one part of the answer fail, the others still go out (the channel hears of it in plain words if its
        messages cannot be built), and then the failure is raised with the interaction marked as ``CHANGED`` and
        what was done in its ``DONE`` (the error handler words the apology from them)."""
        interaction.extras[CHANGED] = True
        failures: list[Exception] = []
        first = outcome.parts[0]
        # A move that only edits the panel is noted as told once the panel is edited (an edit tells the whole turn
        # again, so a restart in between edits it again, harmlessly); anything that posts is noted first.
        quiet = all(p.by == PLAYER for p in outcome.parts) and not outcome.ended and not outcome.calls_anew()
        if not quiet:
            await self.told(outcome)
        if first.by != PLAYER:  # the start, a removal: answered where everybody reads it (privately under fog)
            if not await attempt(failures, self._announce_first(interaction, outcome, private=private)):
                await attempt(failures, self._plainly(outcome, 0, 1))  # the start, or the removal, for the channel
            channel_told = await self._publish_or_plainly(failures, outcome, start=1)
        else:
            channel_told = await self._answer_move(interaction, outcome, failures, private=private)
        if quiet and channel_told:  # else a restart tells it (``catch_up``)
            await self.told(outcome)
        if failures:
            interaction.extras[DONE] = self._done(interaction, outcome, private=private)
            raise failures[0]

    async def _answer_move(self, interaction: discord.Interaction[Any], outcome: Outcome, failures: list[Exception],
                           *, private: bool) -> bool:
        """The player's answer and the channel's; whether the channel was told."""
        tapped = interaction.message if interaction.message and not interaction.message.flags.ephemeral else None
        live = await self.store.live_panel(outcome.record.id) if tapped is not None else None
        on_panel = tapped is not None and live is not None and tapped.id == live.message_id
        if private or not on_panel:  # a tap on the live panel itself needs no words: the panel is edited
            await attempt(failures, self._reply(interaction, outcome, private=private, on_panel=tapped is not None))
        told = await self._publish_or_plainly(failures, outcome, acted=True,
                                              via=None if private or not on_panel else interaction)
        if on_panel and not private and not interaction.extras.get(ANSWERED_BY_EDIT):  # the panel moved on
            await attempt(failures, self._reply(interaction, outcome, private=False, on_panel=True))
        return told

    async def _publish_or_plainly(self, failures: list[Exception], outcome: Outcome, *, start: int = 0,
                                  acted: bool = False, via: discord.Interaction[Any] | None = None) -> bool:
        """``publish``; if its messages cannot be built or sent, the channel still reads what happened, in plain
        words (no panel, no map). Whether the channel was told."""
        if await attempt(failures, self.publish(outcome, start=start, told=True, acted=acted, via=via)):
            return True
        return await attempt(failures, self._plainly(outcome, start))

    async def _plainly(self, outcome: Outcome, start: int, stop: int | None = None) -> None:
        """The public lines of parts ``start`` to ``stop``, in one plain message."""
        record = outcome.record
        locale = game_locale(record)
        lines = [line for part in outcome.parts[start:stop]
                 for line in self.part_lines(outcome, part, EVERYBODY, locale)]
        lines.append(_("(The turn panel could not be shown: </map> shows the board, and the slash commands play "
                       "on.)", locale))
        await self.post(record, clip(lines))

    def _done(self, interaction: discord.Interaction[Any], outcome: Outcome, *, private: bool) -> str:
        """What the stored outcome did, as the user may know it, for the apology when its answer failed."""
        viewer = outcome.record.seat_of(interaction.user.id)
        audience = viewer if private else EVERYBODY
        try:
            return clip([line for part in outcome.parts
                         for line in self.part_lines(outcome, part, audience, interaction.locale)])[:MAX_DONE]
        except Exception:  # the words themselves failed: the apology says the change stands
            log.exception("the words of game %s's outcome failed", outcome.record.id)
            return ""

    async def _reply(self, interaction: discord.Interaction[Any], outcome: Outcome, *, private: bool,
                     on_panel: bool) -> None:
        """The player's own answer, privately: what their move did as they may know it, the buttons for what
        comes next and, under fog, their own map (without fog the map is on the panel). ``on_panel``: the tap
        was on a message everybody reads, which must not be edited with it."""
        record, first = outcome.record, outcome.parts[0]
        viewer = record.seat_of(interaction.user.id)
        audience = viewer if private else EVERYBODY
        locale = interaction.locale
        seen = events_for(first.events, audience, before=first.before)
        lines = self.part_lines(outcome, first, audience, locale) or [_("Done.", locale)]
        after = first.after
        left = armies_to_place(after)
        if after.current == viewer and left:
            lines.append(ngettext("{n} army left to place.", "{n} armies left to place.", left, locale))
        goes_on = len(outcome.parts) == 1 and outcome.waiting_on() == viewer
        # Busy: words only while the turn goes on (the last move under fog keeps its own map: the panel has none).
        files = [await map_file(after, audience, seen, locale=locale, kind=PHONE)] \
            if private and not (maps.busy() and goes_on) else []
        view = self.rooms.controls(record.id, Game(after), locale, first.events) if goes_on else None
        if on_panel or interaction.extras.get(ACK, ("", True))[0] != "update":  # a follow-up fills a "thinking…"
            extras: Extras = {"allowed_mentions": NOBODY, "files": files}
            if view is not None:
                extras["view"] = view
            await interaction.followup.send(clip(lines), ephemeral=True, **extras)
        else:  # the menu tapped: edited in place
            await interaction.edit_original_response(content=clip(lines), view=view, attachments=files,
                                                     allowed_mentions=NOBODY)

    async def _announce_first(self, interaction: discord.Interaction[Any], outcome: Outcome, *,
                              private: bool) -> None:
        record, first = outcome.record, outcome.parts[0]
        viewer = record.seat_of(interaction.user.id)
        audience = viewer if private else EVERYBODY
        locale = interaction.locale if private else game_locale(record, interaction)
        seen = events_for(first.events, audience, before=first.before)
        lines = self.part_lines(outcome, first, audience, locale) or [_("Done.", locale)]
        extras: Extras = {"allowed_mentions": NOBODY}
        if first.by != START and not maps.busy():
            extras["files"] = [await map_file(first.after, audience, seen, locale=locale, kind=PHONE)]
        await interaction.followup.send(clip(lines), ephemeral=private, **extras)
        if private:
            shared = self.part_lines(outcome, first, EVERYBODY, game_locale(record))
            if shared:
                await self.post(record, clip(shared))

    # -- the channel -------------------------------------------------------------------------------------
    async def outcome(self, outcome: Outcome) -> None:
        """What a timer (or a restart) produced, stored: everything to the channel, in plain words if its messages
        cannot be built (the failure is raised after that, for the scheduler's log)."""
        if outcome.vote is not None and not outcome.parts:  # a vote closed by its time: its tally
            return await self.vote(outcome)
        failures: list[Exception] = []
        await self.told(outcome)
        await self._publish_or_plainly(failures, outcome)
        if outcome.orders is not None:  # what a player's standing orders did: to them alone
            await attempt(failures, self.direct(*await orders_report(self.store, outcome)))
        if failures:
            raise failures[0]

    vote = announce_vote  # a vote to end the game, called or closed (cogs/shared/ballots.py)

    async def told(self, outcome: Outcome) -> None:
        """Note that the channel has been told this outcome, before telling it: a restart never tells it again
        (and tells, once, what a stop between storing and telling left out: ``catch_up``)."""
        if outcome.record.last_seq:
            await self.table.told(outcome.record.id, outcome.record.last_seq)

    async def publish(self, outcome: Outcome, *, start: int = 0, told: bool = False, acted: bool = False,
                      via: discord.Interaction[Any] | None = None) -> None:
        # One game's outcomes in turn: a move edits the panel the move before recorded, never an older version.
        async with self.live.lock(outcome.record.id):
            await self._publish(outcome, start=start, told=told, acted=acted, via=via)

    async def _publish(self, outcome: Outcome, *, start: int, told: bool, acted: bool,
                       via: discord.Interaction[Any] | None) -> None:
        """Tell the channel the outcome from part ``start`` on: the turn panel follows its player's moves (and
        becomes the turn's summary when the turn is over), every other part is a message, then the end or the
        next player's panel. ``acted``: the first part is the move of the player who was answered; ``via``: their
        tap on the panel, which the panel's edit answers (Discord's update of the tapped message)."""
        record, parts = outcome.record, outcome.parts[start:]
        locale = game_locale(record)
        if not told:
            await self.told(outcome)
        if not acted and self._only_ais(outcome) and not outcome.ended and not outcome.notes and parts \
                and all(p.by == AI for p in parts):
            return  # the AIs play on by themselves: the channel was told once, and hears of the end
        parts = await self._on_panel(outcome, parts, via)
        told_seats = {p.seat for p in outcome.parts if p.by == TIMEOUT}
        # All queued at once, awaited at the end: under load a map a later one supersedes is skipped (postbox.py).
        ending = await self._game_over(record, outcome.state) if outcome.ended else None  # read before queuing
        calling = await self.live.ready(record, outcome.state, outcome.deadline,   # no picture the messages above show
                                        picture=not outcome.shown(),
                                        ping=outcome.pings()) \
            if ending is None and outcome.calls_anew() and outcome.state is not None else None
        sent: list[Awaitable[object]] = []
        for note in outcome.notes:  # a note with no part of its own (the stand-in had nothing to do)
            if note.kind != KICKED and note.seat not in told_seats and outcome.state is not None:
                sent.append(self.queue(record, note_line(note, outcome.state, locale)))
        alone = [p for p in parts if p.by == AI] if self._only_ais(outcome) else []
        for part in parts:
            if len(alone) > 1 and part in alone:  # nobody is left to read each AI turn: one message for them all
                if part is alone[0]:
                    sent.append(self._ais_alone(outcome, alone, locale))
                continue
            lines = self.part_lines(outcome, part, EVERYBODY, locale)
            if not lines:
                continue
            kwargs: PostOptions = {}
            if part.by in (AI, TIMEOUT) and not part.ended and not fog_hides_board(part.after) \
                    and part.after.sealed is None:  # a secret set-up placement changes nothing a map shows
                seen = events_for(part.events, EVERYBODY, before=part.before)
                kwargs["map"] = prepare(part.after, EVERYBODY, seen, locale=locale, kind=PHONE)
            sent.append(queue_part(self, outcome, part, clip(lines), kwargs, locale))
        if ending is not None:
            sent.append(self.queue(record, None, **ending))
        elif calling is not None:
            sent.append(calling())
            if outcome.opens_round() and outcome.state is not None:  # and those who chose so, in a direct message
                sent += [self.direct(user, text) for user, text in await round_calls(
                    self.store, record, outcome.state, outcome.deadline, self.table.clock())]
        await asyncio.gather(*sent)

    async def _on_panel(self, outcome: Outcome, parts: list[Part], via: discord.Interaction[Any] | None) -> list[Part]:
        """The live panel follows the player's moves at the head of ``parts``; the parts left for messages."""
        record = outcome.record
        await self.live.settled(record.id)
        panel = await self.store.live_panel(record.id)
        lead = 0
        while lead < len(parts) and parts[lead].by == PLAYER and panel is not None \
                and parts[lead].seat == panel.seat:
            lead += 1
        if panel is None:
            first = parts[0] if parts else None
            if first is not None and first.by == PLAYER and len(parts) == 1 and outcome.waiting_on() == first.seat:
                # No panel to follow (it was lost): a new one, with this move on it, says so.
                note = _("(A new turn panel: the one before could not be edited.)", game_locale(record))
                await self.live.post(record, first.after, outcome.deadline, ping=False, note=note,
                                     lines=self.part_lines(outcome, first, EVERYBODY, game_locale(record)),
                                     since_seq=record.last_seq - len(first.events), before=first.before)
                return []
            return parts
        rest = parts[lead:]
        upto = record.last_seq - sum(len(p.events) for p in rest)
        moves = [e for p in parts[:lead] for e in p.events]
        played = any(p.by in (AI, TIMEOUT) for p in rest) or outcome.over  # turns went by after the moves
        followed = await self.live.follow(record, outcome.deadline, moves, upto, closing=played, via=via)
        return rest if followed is not None else parts

    @staticmethod
    def _only_ais(outcome: Outcome) -> bool:
        """No human is left in the game (they surrendered, were removed, or their seats went to the AI)."""
        state = outcome.state
        if state is None:
            return False
        active = state.active_seats()
        return not any(not p.is_ai and p.seat in active for p in outcome.record.players)

    def _ais_alone(self, outcome: Outcome, parts: list[Part], locale: object) -> Sent:
        """The AIs' turns in one message: how many, who was eliminated, and the board after the last."""
        last = parts[-1]
        told = [e for p in parts for e in events_for(p.events, EVERYBODY, before=p.before)
                if e["type"] in ("player_eliminated", "player_surrendered")]
        lines = [ngettext("🤖 No human player is left: the AIs played {n} turn.",
                          "🤖 No human player is left: the AIs played {n} turns.", len(parts), locale),
                 *([] if last.ended else [_("They play on by themselves; the result will follow here.", locale)]),
                 *describe(told, last.after, Game(last.after).board, locale)]
        kwargs: PostOptions = {}
        if not last.ended and not fog_hides_board(last.after):
            kwargs["map"] = prepare(last.after, EVERYBODY, locale=locale, kind=PHONE)
        return self.queue(outcome.record, clip(lines), **kwargs)

    async def catch_up(self, record: GameRecord, told: int, deadline: float | None) -> None:
        """After a restart: what was stored but not told (the bot stopped in between), once. What belongs to the
        live panel's turn goes on the panel (it tells what is stored); anything after it in one message."""
        async with self.live.lock(record.id):
            try:
                await self._catch_up(record, told, deadline)
            except Exception:  # the channel still reads what it missed, in plain words; the other games go on
                log.exception("catching up game %s failed", record.id)
                await attempt([], self._plain_catch_up(record, told))

    async def _plain_catch_up(self, record: GameRecord, told: int) -> None:
        before, missed = await self.store.with_log(record.id, split_log, told)
        if not missed:
            return
        after = record.game().state
        locale = game_locale(record)
        lines = [_("While the bot was away:", locale),
                 *describe(events_for(missed, EVERYBODY, before=before), after, Game(after).board, locale),
                 _("(The turn panel could not be shown: </map> shows the board, and the slash commands play on.)",
                   locale)]
        await self.post(record, clip(lines))

    async def _catch_up(self, record: GameRecord, told: int, deadline: float | None) -> None:
        await self.table.told(record.id, record.last_seq)
        upto = await self.live.follow(record, deadline)
        before, missed = await self.store.with_log(record.id, split_log, max(told, upto or 0))
        after = record.game().state
        over = after.phase == "over"
        if missed:
            gap = events_for(missed, EVERYBODY, before=before)
            locale = game_locale(record)
            lines = [_("While the bot was away:", locale), *describe(gap, after, Game(after).board, locale)]
            job = prepare(after, EVERYBODY, locale=locale, kind=PHONE) if not (over or fog_hides_board(after)) else None
            await self.post(record, clip(lines), map=job)
        if over:
            await self.game_over(record, after)
        elif record.status == "running" and await self.store.live_panel(record.id) is None and (
                setup_round_waits(record, after) if after.sealed is not None
                else (seat := Game(after).playing()) is None or not record.player(seat).is_ai):
            await self.live.post(record, after, deadline)

    async def panel(self, record: GameRecord, due: float | None = None) -> None:
        """The turn panel again, at the foot of the channel (after a pause): it tells the turn so far."""
        async with self.live.lock(record.id):
            await self.live.renew(record, due)

    async def game_over(self, record: GameRecord, state: GameState | None = None) -> None:
        """How the game was won, the standings where they decided it, every mission, and the dice to check."""
        await self.post(record, **await self._game_over(record, state))

    async def _game_over(self, record: GameRecord, state: GameState | None) -> PostOptions:
        return await game_over_post(self.store, record, state or record.game().state, self.rooms.report_files)

    # -- one player ------------------------------------------------------------------------------------------
    async def reminder(self, reminder: Reminder) -> None:
        record, locale = reminder.record, game_locale(reminder.record)
        who, due = f"<@{reminder.user_id}>", int(reminder.due or 0)   # the time is the message's markup
        text = _("⏰ {who}, your turn in game #{id} ends <t:{t}:R>.", locale, who=who, id=record.id, t=due) if due \
            else _("⏰ {who}, your turn in game #{id} ends soon.", locale, who=who, id=record.id)
        await self.post(record, text, allowed_mentions=only(reminder.user_id))
        if reminder.dm:
            await self.direct(reminder.user_id, text)

    async def direct(self, user_id: int, text: str) -> None:
        """A direct message to one user (a reminder, what their standing orders did), if they accept one."""
        try:
            await (self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)).send(text, allowed_mentions=NOBODY)
        except discord.HTTPException:
            log.info("user %s accepts no direct messages", user_id)

    async def private_map(self, interaction: discord.Interaction[Any], record: GameRecord) -> None:
        """The map as the user may see it (their own view under fog; nothing hidden for a spectator without)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        state, viewer = record.game().state, record.seat_of(interaction.user.id)
        file = await map_file(state, viewer, locale=interaction.locale)
        text = _("Turn {turn}: {now}", interaction.locale, turn=state.turn,
                 now=now_text(state, interaction.locale, viewer))
        await interaction.followup.send(text, ephemeral=True, file=file, allowed_mentions=NOBODY)


__all__ = ["NOBODY", "Announcer", "clip", "only"]
