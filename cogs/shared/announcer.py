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
from collections.abc import Sequence
from typing import Any, Unpack

import discord

from cogs.maps import drawing as maps
from cogs.maps.drawing import map_file, prepare
from cogs.play.panel import armies_to_place, controls, turn_prompt
from cogs.records.report import end_of_game_files
from cogs.shared.guards import game_locale
from cogs.shared.i18n import _, ngettext
from cogs.shared.postbox import Extras, Post, Postbox, PostOptions, Sent
from cogs.shared.text import describe, mission_line, now_text, seat_name, winner_names
from engine import Game, GameState
from engine.events import EventType
from engine.fog import EVERYBODY, Audience, events_for, fog_hides_board
from engine.state import NEUTRAL
from store import GameRecord, StoreReader
from table import Note, Outcome, Part, Reminder, Table
from table.outcome import AI, HOST, KICKED, PLAYER, SEAT_REMOVED, SEAT_TO_AI, START, TIME_RAN_OUT, TIMEOUT, TURN_EVENTS

MAX_CONTENT = 1900
NOBODY = discord.AllowedMentions.none()


def only(user_id: int) -> discord.AllowedMentions:
    """Mentions that ping this one user and nobody else."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=[discord.Object(user_id)])


def clip(lines: Sequence[str]) -> str:
    """Lines as one message within Discord's limit; what does not fit is counted."""
    text = "\n".join(lines)
    if len(text) <= MAX_CONTENT:
        return text
    head: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) > MAX_CONTENT - 40:
            break
        head.append(line)
        size += len(line) + 1
    return "\n".join([*head, f"… (+{len(lines) - len(head)})"])


def note_line(note: Note, state: GameState, locale: object) -> str:
    name = seat_name(state, note.seat, locale)
    if note.kind == TIME_RAN_OUT:
        if note.cautious:
            return _("⌛ {player}'s time ran out: the AI played their turn cautiously (missed turns in a row: {n}).",
                     locale, player=name, n=note.count)
        return _("⌛ {player}'s time ran out: the AI played their turn (missed turns in a row: {n}).", locale,
                 player=name, n=note.count)
    if note.kind == SEAT_TO_AI:
        return ngettext("🤖 {player} missed {n} turn: the AI takes their seat. The host can give it back with "
                        "/risk reinstate.", "🤖 {player} missed {n} turns in a row: the AI takes their seat. The host "
                        "can give it back with /risk reinstate.", note.count, locale, player=name)
    if note.kind == SEAT_REMOVED:
        return ngettext("🏳️ {player} missed {n} turn: their territories are neutral now.",
                        "🏳️ {player} missed {n} turns in a row: their territories are neutral now.", note.count,
                        locale, player=name)
    return _("🚪 The host removed {player} from the game: their territories are neutral now.", locale, player=name)


def winner_title(state: GameState, locale: object) -> str:
    names = winner_names(state, locale) or [seat_name(state, NEUTRAL, locale)]
    if len(names) > 1:
        return _("🏆 {players} win!", locale, players=_(" and ", locale).join(names))
    return _("🏆 {player} wins!", locale, player=names[0])


def how_won(state: GameState, locale: object) -> list[str]:
    """The reason the game ended, in the reader's words (with the standings of a round limit)."""
    reason = state.result
    winner = seat_name(state, state.winner if state.winner is not None else NEUTRAL, locale)
    if reason == "mission" and state.winner is not None and state.winner in state.missions:
        game = Game(state)
        return [_("{player} completed their secret mission: {mission}", locale, player=winner,
                  mission=mission_line(game.mission(state.winner), game.board, state, locale))]
    if reason == "capitals":
        return [_("{player} holds every capital.", locale, player=winner)]
    if reason == "teams":
        return [_("Every player of the other teams is out.", locale)]
    if reason == "surrender":
        return [_("{player} is the last player in the game: the last opponent left it.", locale, player=winner)]
    if reason == "round_limit":
        ranked = sorted(state.active_seats(), key=lambda seat: (-len(state.territories_of(seat)),
                                                                -state.army_total(seat), seat))
        lines = [ngettext("The game reached its limit of {n} round: the most territories win, then the most armies.",
                          "The game reached its limit of {n} rounds: the most territories win, then the most armies.",
                          state.settings.max_rounds, locale)]
        for place, seat in enumerate(ranked, 1):
            lines.append(f"{place}. {seat_name(state, seat, locale)}: " + ", ".join([
                ngettext("{n} territory", "{n} territories", len(state.territories_of(seat)), locale),
                ngettext("{n} army", "{n} armies", state.army_total(seat), locale)]))
        return lines
    if len(set(state.owners.values())) == 1:
        return [_("{player} holds every territory: world domination.", locale, player=winner)]
    return [_("{player} is the last player standing.", locale, player=winner)]


class Announcer:
    def __init__(self, bot: discord.Client, store: StoreReader, table: Table) -> None:
        self.bot = bot
        self.store = store
        self.table = table
        self.box = Postbox(bot)

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
    def part_lines(self, outcome: Outcome, part: Part, audience: Audience, locale: object) -> list[str]:
        seen = events_for(part.events, audience, before=part.before)
        state = part.after
        board = Game(state).board
        notes = [n for n in outcome.notes if n.seat == part.seat]
        head: list[str] = []
        skip: set[EventType] = set()
        if part.by == START:
            head.append(_("The game begins! Dice commitment: `{c}`", locale, c=state.seed_commitment[:16] + "…"))
            seen = seen[1:]
        elif part.by in (AI, TIMEOUT):
            if part.by == TIMEOUT:
                head += [note_line(n, state, locale) for n in notes if n.kind == TIME_RAN_OUT and part is
                         next(p for p in outcome.parts if p.by == TIMEOUT and p.seat == n.seat)]
            else:
                name = seat_name(state, part.seat, locale)
                head.append(_("🤖 {player} played turn {turn}:", locale, player=name, turn=part.turn) if part.turn
                            else _("🤖 {player} played:", locale, player=name))
            skip |= {"turn_started", "turn_ended"}
        if part.by == HOST or any(n.kind == SEAT_REMOVED for n in notes):
            skip.add("player_surrendered")
        lines = head + describe([e for e in seen if e["type"] not in skip], state, board, locale,
                                sum_placements=part.by in (AI, TIMEOUT))
        if part.by == AI and len(lines) == 1:  # nothing this audience may read about: one short line
            name = seat_name(state, part.seat, locale)
            lines = [_("🤖 {player} played turn {turn}.", locale, player=name, turn=part.turn) if part.turn
                     else _("🤖 {player} played.", locale, player=name)]
        if part.by == HOST:  # what happened first: the removal, then what it caused (the end, perhaps)
            lines = [note_line(n, state, locale) for n in notes if n.kind == KICKED] + lines
        if part is self._last_timeout(outcome, part.seat):
            said = [note_line(n, state, locale) for n in notes if n.kind in (SEAT_TO_AI, SEAT_REMOVED)]
            ends = [i for i, line in enumerate(lines) if line.startswith("🏆")]
            at = ends[0] if ends else len(lines)
            lines = lines[:at] + said + lines[at:]
        return lines

    @staticmethod
    def _last_timeout(outcome: Outcome, seat: int) -> Part | None:
        return next((p for p in reversed(outcome.parts) if p.by == TIMEOUT and p.seat == seat), None)

    # -- the actor's answer ---------------------------------------------------------------------------------
    async def answer(self, interaction: discord.Interaction[Any], outcome: Outcome, *, private: bool) -> None:
        """Answer a deferred interaction with its first part, then tell the channel the rest.

        ``private``: the interaction was acknowledged privately (fog of war), so its answer is the reader's own
        view and the channel is told the public projection separately."""
        record = outcome.record
        await self.told(outcome)
        first = outcome.parts[0]
        viewer = record.seat_of(interaction.user.id)
        audience = viewer if private else EVERYBODY
        locale = interaction.locale if private else game_locale(record, interaction)
        seen = events_for(first.events, audience, before=first.before)
        lines = self.part_lines(outcome, first, audience, locale) or [_("Done.", locale)]
        after = first.after
        left = armies_to_place(after)
        if first.by == PLAYER and after.current == viewer and left:
            lines.append(ngettext("{n} army left to place.", "{n} armies left to place.", left, locale))
        content = clip(lines)
        extras: Extras = {"allowed_mentions": NOBODY}
        goes_on = first.by == PLAYER and len(outcome.parts) == 1 and outcome.waiting_on() == viewer
        # Busy: the words now; the board comes with the turn panel that follows the player's moves (under fog,
        # where the panel shows no board, their last move keeps its own).
        if first.by != START and not (maps.busy() and (goes_on or not private)):
            extras["files"] = [await map_file(after, audience, seen, locale=locale)]
        if goes_on:
            view = controls(record.id, Game(after), locale, first.events, public=not private)
            if view is not None:
                extras["view"] = view
        await interaction.followup.send(content, ephemeral=private, **extras)
        if private:
            shared = self.part_lines(outcome, first, EVERYBODY, game_locale(record))
            if shared:
                await self.post(record, clip(shared))
        await self.publish(outcome, start=1)

    # -- the channel -------------------------------------------------------------------------------------
    async def outcome(self, outcome: Outcome) -> None:
        """What a timer (or a restart) produced: everything goes to the channel."""
        await self.publish(outcome, start=0)

    async def told(self, outcome: Outcome) -> None:
        """Note that the channel has been told this outcome, before telling it: a restart never tells it again
        (and tells, once, what a stop between storing and telling left out: ``catch_up``)."""
        if outcome.record.last_seq:
            await self.table.told(outcome.record.id, outcome.record.last_seq)

    async def publish(self, outcome: Outcome, *, start: int = 0) -> None:
        record = outcome.record
        locale = game_locale(record)
        parts = outcome.parts[start:]
        if start == 0:
            await self.told(outcome)
        if start == 0 and self._only_ais(outcome) and not outcome.ended and not outcome.notes and parts \
                and all(p.by == AI for p in parts):
            return  # the AIs play on by themselves: the channel was told once, and hears of the end
        told = {p.seat for p in outcome.parts if p.by == TIMEOUT}
        # Everything is queued at once and awaited at the end: under load, a map that a later one in the same
        # burst supersedes is skipped (cogs/shared/postbox.py). What the last message needs is read first.
        last: tuple[str | None, PostOptions] | None = None
        if outcome.ended:
            last = None, await self._game_over(record, outcome.state)
        elif self._turn_passed(outcome):
            last = await self._panel(record, outcome.deadline)
        sent: list[Sent] = []
        for note in outcome.notes:  # a note with no part of its own (the stand-in had nothing to do)
            if note.kind != KICKED and note.seat not in told and outcome.state is not None:
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
            if part.by in (AI, TIMEOUT) and not part.ended and not fog_hides_board(part.after):
                seen = events_for(part.events, EVERYBODY, before=part.before)
                kwargs["map"] = prepare(part.after, EVERYBODY, seen, locale=locale)
            sent.append(self.queue(record, clip(lines), **kwargs))
        if last is not None:
            sent.append(self.queue(record, last[0], **last[1]))
        await asyncio.gather(*sent)

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
        lines = [ngettext("🤖 No player is left: the AIs played {n} turn.",
                          "🤖 No player is left: the AIs played {n} turns.", len(parts), locale),
                 *([] if last.ended else [_("They play on by themselves; the result will follow here.", locale)]),
                 *describe(told, last.after, Game(last.after).board, locale)]
        kwargs: PostOptions = {}
        if not last.ended and not fog_hides_board(last.after):
            kwargs["map"] = prepare(last.after, EVERYBODY, locale=locale)
        return self.queue(outcome.record, clip(lines), **kwargs)

    async def catch_up(self, record: GameRecord, told: int, deadline: float | None) -> None:
        """After a restart: what was stored but not told (the bot stopped in between), once, in one message."""
        events = await self.store.events(record.id)
        before, after = Game.from_events(events[:told]).state if told else None, record.game().state
        gap = events_for(events[told:], EVERYBODY, before=before)
        await self.table.told(record.id, record.last_seq)
        locale = game_locale(record)
        lines = [_("While the bot was away:", locale), *describe(gap, after, Game(after).board, locale)]
        over = after.phase == "over"
        job = prepare(after, EVERYBODY, locale=locale) if not (over or fog_hides_board(after)) else None
        await self.post(record, clip(lines), map=job)
        if over:
            await self.game_over(record, after)
        elif record.status == "running" and not record.player(after.current).is_ai:
            await self.panel(record, deadline)

    @staticmethod
    def _turn_passed(outcome: Outcome) -> bool:
        """Whether someone new must be called: the turn went to another player, or was played for someone."""
        waiting = outcome.waiting_on()
        if waiting is None or outcome.record.player(waiting).is_ai:
            return False
        if any(p.by in (AI, TIMEOUT, START) for p in outcome.parts) or any(n.kind == TIME_RAN_OUT
                                                                           for n in outcome.notes):
            return True
        actor = outcome.parts[0].seat if outcome.parts and outcome.parts[0].by == PLAYER else None
        return any(e["type"] in TURN_EVENTS for e in outcome.events) and waiting != actor

    async def panel(self, record: GameRecord, due: float | None = None) -> None:
        """The turn panel: one message that mentions the player, with the map (none under fog) and buttons."""
        text, kwargs = await self._panel(record, due)
        await self.post(record, text, **kwargs)

    async def _panel(self, record: GameRecord, due: float | None) -> tuple[str, PostOptions]:
        game = record.game()
        s = game.state
        locale = game_locale(record)
        player = record.player(s.current)
        prefs = await self.store.get_user_prefs(player.user_id) if player.user_id else None
        mention = player.user_id is not None and (prefs is None or prefs.notify != "off")
        who = f"<@{player.user_id}>" if mention else seat_name(s, s.current, locale)
        text = turn_prompt(game, locale, who)
        if s.teams:
            mates = [seat_name(s, m, locale) for m in game.teammates(s.current)]
            text += " " + _("(team {n}, with {players})", locale, n=s.teams[s.current] + 1, players=", ".join(mates))
        if due is not None:
            text += " " + _("Ends <t:{t}:R>.", locale, t=int(due))
        kwargs: PostOptions = {"allowed_mentions": only(player.user_id) if mention and player.user_id else NOBODY}
        if not fog_hides_board(s):
            kwargs["map"] = prepare(s, EVERYBODY, locale=locale)
        view = controls(record.id, game, locale, public=True)
        if view is not None:
            kwargs["view"] = view
        return text, kwargs

    async def game_over(self, record: GameRecord, state: GameState | None = None) -> None:
        """How the game was won, the standings where they decided it, every mission, and the dice to check."""
        await self.post(record, **await self._game_over(record, state))

    async def _game_over(self, record: GameRecord, state: GameState | None) -> PostOptions:
        locale = game_locale(record)
        s = state or record.game().state
        embed = discord.Embed(title=winner_title(s, locale), colour=discord.Colour.gold())
        embed.description = "\n".join([*how_won(s, locale), "", ngettext(
            "The game lasted {n} turn.", "The game lasted {n} turns.", s.turn, locale) + " " + _(
            "Check every die: /risk verify, then `python -m engine.verify game.jsonl` on the file from /risk export.",
            locale)])
        if s.missions:  # every mission, each in a field of its own (a field holds 1,024 characters)
            game = Game(s)
            for seat in sorted(s.missions):
                embed.add_field(name=_("Mission of {player}", locale, player=seat_name(s, seat, locale))[:256],
                                value=mission_line(game.mission(seat), game.board, s, locale)[:1024], inline=False)
        embed.add_field(name=_("Dice seed", locale), value=f"`{s.seed}`", inline=False)
        embed.add_field(name=_("Commitment (SHA-256 of the seed)", locale), value=f"`{s.seed_commitment}`",
                        inline=False)
        report = await end_of_game_files(self.store, record, s, locale)  # the report image and the timelapse
        return {"embed": embed, "map": prepare(s, EVERYBODY, locale=locale), "keep_map": True, "files": report}

    # -- one player ------------------------------------------------------------------------------------------
    async def reminder(self, reminder: Reminder) -> None:
        record = reminder.record
        locale = game_locale(record)
        when = f"<t:{int(reminder.due)}:R>" if reminder.due else _("soon", locale)
        text = _("⏰ {who}, your turn in game #{id} ends {when}.", locale, who=f"<@{reminder.user_id}>", id=record.id,
                 when=when)
        await self.post(record, text, allowed_mentions=only(reminder.user_id))
        if reminder.dm:
            try:
                user = self.bot.get_user(reminder.user_id) or await self.bot.fetch_user(reminder.user_id)
                await user.send(text, allowed_mentions=NOBODY)
            except discord.HTTPException:
                pass  # the user does not accept direct messages: the channel's reminder stands

    async def private_map(self, interaction: discord.Interaction[Any], record: GameRecord) -> None:
        """The map as the user may see it (their own view under fog; nothing hidden for a spectator without)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        state = record.game().state
        viewer = record.seat_of(interaction.user.id)
        file = await map_file(state, viewer, locale=interaction.locale)
        text = _("Turn {turn}: {now}", interaction.locale, turn=state.turn,
                 now=now_text(state, interaction.locale, viewer))
        await interaction.followup.send(text, ephemeral=True, file=file, allowed_mentions=NOBODY)


__all__ = ["NOBODY", "Announcer", "clip", "only"]
