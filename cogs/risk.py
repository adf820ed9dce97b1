"""The Risk cog: slash commands, the turn panel and its tap-only flows, one game per channel.

Command bodies read like sentences: find the game, check who may act, call the store, answer. The rules
live in the engine; every refusal is the engine's or the store's explanation, sent privately.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Callable, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from engine import (
    Action,
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Game,
    Occupy,
    Place,
    RuleError,
    Surrender,
    Trade,
)
from engine.ai import LEVELS
from engine.cards import WILD_CARDS
from engine.fog import public_events_for, visible_territories
from engine.log import dumps, public_event
from engine.odds import battle_odds
from engine.settings import CHOICES, DEADLINES, PRESETS
from engine.state import ATTACK, CAPITAL, CLAIM, FORTIFY, NEUTRAL, OCCUPY, OVER, REINFORCE, SETUP, Event
from store import GameRecord, Store

from .components import GameButton, GameSelect, view_of
from .errors import UserError, reply_private
from .i18n import LANGUAGES, _, continent_name, decimal, language_of, percent, resolve_territory, territory_name
from .rules_text import HELP_TEXT, RULE_TOPICS
from .scheduler import Clock, Scheduler
from .service import AITurn, GameService
from .text import SYMBOLS, describe, mission_line, phase_text, seat_name

log = logging.getLogger(__name__)
Blue, Grey, Green, Red = (discord.ButtonStyle.primary, discord.ButtonStyle.secondary, discord.ButtonStyle.success,
                          discord.ButtonStyle.danger)
MAX_CONTENT = 1900
ALREADY_ACKNOWLEDGED = 40060  # Discord's error code for a second answer to one interaction
MENTION_USERS = discord.AllowedMentions(everyone=False, roles=False, users=True)


def game_locale(record: GameRecord, interaction: discord.Interaction[Any] | None = None) -> object:
    """The language of public messages: the game's, else the server's."""
    language = record.settings.get("language")
    if language:
        return language
    if interaction is not None and interaction.guild_locale is not None:
        return interaction.guild_locale
    return None


# Under fog of war, the events everybody may read about (where things happen stays hidden).
FOG_PUBLIC = frozenset({"turn_started", "turn_ended", "card_drawn", "cards_traded", "player_eliminated",
                        "player_surrendered", "game_over", "attack_ended", "first_player"})


def fogged(game: Game) -> bool:
    return bool(game.state.settings.fog == "on")


def fog_public(events: Sequence[Event]) -> list[Event]:
    from engine.log import public_event
    return [public_event(e) for e in events if e["type"] in FOG_PUBLIC]


def deadline_name(seconds: int) -> str:
    if seconds % 86400 == 0:
        days = seconds // 86400
        return f"{days} day" if days == 1 else f"{days} days"
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    return f"{seconds // 60} min"


def clip(lines: Sequence[str]) -> str:
    text = "\n".join(lines)
    if len(text) <= MAX_CONTENT:
        return text
    head = []
    size = 0
    for line in lines:
        if size + len(line) > MAX_CONTENT - 40:
            break
        head.append(line)
        size += len(line) + 1
    return "\n".join([*head, f"… (+{len(lines) - len(head)})"])


class RiskCog(commands.Cog):
    """Games of Risk, one per channel."""

    risk = app_commands.Group(name="risk", description="Games of Risk: lobby, status, rules and help")

    def __init__(self, bot: commands.Bot, store: Store, new_seed: Callable[[], str] | None = None) -> None:
        self.bot = bot
        self.store = store
        self.service = GameService(store, new_seed)
        self.clock: Clock = getattr(bot, "clock", None) or Clock()
        self.scheduler = Scheduler(self, store, self.clock)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(GameButton, GameSelect)
        self.scheduler.start()

    async def cog_unload(self) -> None:
        await self.scheduler.stop()

    # == finding the game and the player ================================================================
    async def game_here(self, interaction: discord.Interaction[Any], *, running: bool = True) -> GameRecord:
        if interaction.channel_id is None:
            raise UserError(_("Games are played in server channels.", interaction.locale))
        record = await self.store.get_active_game(interaction.channel_id)
        if record is None:
            raise UserError(_("There is no game in this channel. Start one with /risk new.", interaction.locale))
        if running and record.status == "lobby":
            raise UserError(_("The game has not started yet: the host starts it with /risk start.",
                              interaction.locale))
        if running and record.status == "paused":
            raise UserError(_("The game is paused.", interaction.locale))
        return record

    async def game_by_id(self, interaction: discord.Interaction[Any], game_id: int) -> GameRecord:
        record = await self.store.get_game(game_id)
        if record.status != "running":
            raise UserError(_("This game is not running any more.", interaction.locale))
        return record

    @staticmethod
    def tn(game: Game, territory: str, interaction: discord.Interaction[Any]) -> str:
        """A territory's name in the user's language."""
        return territory_name(game.board, territory, interaction.locale)

    @staticmethod
    def seat_of(record: GameRecord, interaction: discord.Interaction[Any]) -> int:
        seat = record.seat_of(interaction.user.id)
        if seat is None:
            raise UserError(_("You are not playing in this game.", interaction.locale))
        return seat

    @staticmethod
    def is_host(record: GameRecord, interaction: discord.Interaction[Any]) -> bool:
        perms = getattr(interaction, "permissions", None)
        return record.host_id == interaction.user.id or bool(perms and perms.manage_guild)

    def require_host(self, record: GameRecord, interaction: discord.Interaction[Any]) -> None:
        if not self.is_host(record, interaction):
            raise UserError(_("Only the host or a member with Manage Server can do that.", interaction.locale))

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:  # type: ignore[override]
        perms = interaction.app_permissions
        missing = [name for name, ok in (("Send Messages", perms.send_messages), ("Attach Files", perms.attach_files),
                                         ("Embed Links", perms.embed_links)) if not ok]
        if missing and interaction.guild_id is not None:
            raise UserError(_("I need these permissions in this channel: {missing}.", interaction.locale,
                              missing=", ".join(missing)))
        return True

    # == playing: one path for commands and buttons =====================================================
    async def perform(self, interaction: discord.Interaction[Any], record: GameRecord, action: Action) -> None:
        """Apply an action and answer: what happened, the map, the next buttons; then AI turns and the panel."""
        if await self.store.processed(record.id, str(interaction.id)):
            # A second delivery of an interaction that was applied (and so acknowledged): a follow-up answers it.
            text = _("That was already done.", interaction.locale)
            try:
                await interaction.followup.send(text, ephemeral=True)
            except discord.HTTPException:
                await interaction.response.send_message(text, ephemeral=True)
            return
        start = record.game()
        before = start.state
        fog = fogged(start) and before.phase != OVER
        # A legal action is acknowledged at once (Discord waits 3 s for that), then stored; a refusal or a
        # repeated interaction is found by the store and answered privately.
        try:
            start.validate(action)
            early = True
        except RuleError:
            early = False
        if early:
            await self.acknowledge(interaction, fog)
        try:
            result = await self.service.apply(record, action, str(interaction.id))
        except Exception:
            if early:
                await self.withdraw(interaction)
            raise
        if result.duplicate:
            if early:
                await self.withdraw(interaction)
            await reply_private(interaction, _("That was already done.", interaction.locale))
            return
        if not early:
            await self.acknowledge(interaction, fog)
        after = result.record
        game = after.game()
        locale = interaction.locale if fog else game_locale(after, interaction)
        if fog:
            # The player sees what they could see; the channel only what everybody may.
            mine = public_events_for(result.events, action.seat, before=before)
            lines = describe(mine, game.state, game.board, locale) or [_("Done.", locale)]
            file = await self.service.render_file(after, mine, viewer=action.seat, locale=locale,
                                                  visible=visible_territories(game.state, action.seat))
            shared = describe(fog_public(result.events), game.state, game.board, game_locale(after))
            if shared:
                await interaction.channel.send(clip(shared))
        else:
            lines = describe(result.events, game.state, game.board, locale) or [_("Done.", locale)]
            file = await self.service.render_file(after, result.events)
        kwargs: dict[str, Any] = {"content": clip(lines), "ephemeral": fog}
        if file is not None:
            kwargs["file"] = file
        view = self.controls(after, game, result.events) if game.state.current == action.seat else None
        if view is not None:
            kwargs["view"] = view
        await interaction.followup.send(**kwargs)
        if any(e["type"] in ("turn_ended", "setup_turn", "turn_started") for e in result.events):
            await self.store.reset_missed(after.id, action.seat)  # they played: no longer absent
        await self.after_turn(interaction.channel, after, result.events, actor=action.seat)

    @staticmethod
    async def acknowledge(interaction: discord.Interaction[Any], private: bool) -> None:
        try:
            if interaction.type == discord.InteractionType.component:
                await interaction.response.defer(ephemeral=private)
            else:
                await interaction.response.defer(thinking=True, ephemeral=private)
        except discord.HTTPException as exc:
            if exc.code != ALREADY_ACKNOWLEDGED:  # a second delivery of an answered interaction: follow up
                raise

    @staticmethod
    async def withdraw(interaction: discord.Interaction[Any]) -> None:
        """Remove a "thinking…" answer that will not come, so the explanation that follows stands alone."""
        if interaction.type != discord.InteractionType.component:
            with contextlib.suppress(discord.HTTPException):
                await interaction.delete_original_response()

    async def after_turn(self, channel: Any, record: GameRecord, events: Sequence[Event], *, actor: int | None) -> None:
        """After an action: let the AIs play, announce the end, or call the next player with the panel."""
        locale = game_locale(record)
        final, turns = await self.service.follow_up(record.id)
        for turn in turns:
            await self.post_ai_turn(channel, final, turn)
        due = await self.scheduler.sync(final)
        game = final.game() if final.state is not None else None
        if game is None:
            return
        if game.state.phase == OVER:
            if turns or any(e["type"] == "game_over" for e in events):
                await self.post_game_over(channel, final)
            return
        new_turn = any(e["type"] in ("turn_started", "setup_turn") for e in events)
        passed = bool(turns) or (new_turn and game.state.current != actor)
        if passed:
            await self.post_panel(channel, final, locale, due)

    async def post_ai_turn(self, channel: Any, record: GameRecord, turn: AITurn) -> None:
        """An AI's turn in a few lines: its placements summed up, then what it did, with the map."""
        locale = game_locale(record)
        name = seat_name(record.game().state, turn.seat, locale)
        head = [_("🤖 {player} played turn {turn}:", locale, player=name, turn=turn.turn) if turn.turn else
                _("🤖 {player} played:", locale, player=name)]
        placed = sum(e["count"] for e in turn.events
                     if e["type"] == "armies_placed" and e.get("source") in ("reinforcement", "setup", "card_bonus"))
        if placed:
            head.append(_("{player} placed {count} armies.", locale, player=name, count=placed))
        await self.post_summary(channel, record, head, turn.events,
                                skip=("armies_placed", "turn_started", "turn_ended"))

    async def post_summary(self, channel: Any, record: GameRecord, head: Sequence[str], events: Sequence[Event],
                           *, skip: Sequence[str] = ()) -> None:
        """Lines about what happened outside a player's own answer (an AI's turn, a deadline), then its events
        (but the ``skip`` types), with the map; under fog only what everybody may see, and no map."""
        game = record.game()
        fog = fogged(game) and game.state.phase != OVER
        told = [e for e in (fog_public(events) if fog else events) if e["type"] not in skip]
        lines = [*head, *describe(told, game.state, game.board, game_locale(record))]
        file = None if fog else await self.service.render_file(record, events)
        await channel.send(clip(lines), **({"file": file} if file else {}))

    async def post_game_over(self, channel: Any, record: GameRecord) -> None:
        locale = game_locale(record)
        game = record.game()
        s = game.state
        winner = seat_name(s, s.winner if s.winner is not None else NEUTRAL, locale)
        embed = discord.Embed(title=_("🏆 {player} wins!", locale, player=winner), colour=discord.Colour.gold())
        embed.description = _("The game lasted {turns} turns. Check every die: /risk verify, then "
                              "`python -m engine.verify game.jsonl` on the file from /risk export.", locale,
                              turns=s.turn)
        embed.add_field(name=_("Dice seed", locale), value=f"`{s.seed}`", inline=False)
        embed.add_field(name=_("Commitment (SHA-256 of the seed)", locale), value=f"`{s.seed_commitment}`",
                        inline=False)
        file = await self.service.render_file(record)
        await channel.send(embed=embed, **({"file": file} if file else {}))

    async def post_panel(self, channel: Any, record: GameRecord, locale: object, due: float | None = None) -> None:
        """The turn panel: one message that mentions the player, with the map and the buttons."""
        game = record.game()
        s = game.state
        player = record.player(s.current)
        prefs = await self.store.get_user_prefs(player.user_id) if player.user_id else None
        who = f"<@{player.user_id}>" if player.user_id and (prefs is None or prefs.notify != "off") else player.name
        text = self.turn_prompt(record, game, locale, who)
        if due is not None:
            text += " " + _("Ends <t:{t}:R>.", locale, t=int(due))
        file = None if fogged(game) else await self.service.render_file(record)
        await channel.send(text, view=self.controls(record, game), allowed_mentions=MENTION_USERS,
                           **({"file": file} if file else {}))

    def turn_prompt(self, record: GameRecord, game: Game, locale: object, who: str) -> str:
        s = game.state
        if s.phase == CLAIM:
            return _("🎯 {who}, claim a territory ({left} left).", locale, who=who, left=len(game.claimable()))
        if s.phase == CAPITAL:
            return _("🎯 {who}, choose your capital.", locale, who=who)
        if s.phase == SETUP:
            if s.batch_left:
                return _("🎯 {who}, place {n} of your starting armies.", locale, who=who, n=s.batch_left)
            return _("🎯 {who}, place {n} neutral army.", locale, who=who, n=s.neutral_left)
        if s.phase == REINFORCE:
            extra = _(" You hold {n} cards: trade a set first.", locale, n=len(s.hands[s.current])) \
                if game.must_trade(s.current) else ""
            return _("🎯 {who}, turn {turn}: place {n} armies.", locale, who=who, turn=s.turn,
                     n=s.reinforcements) + extra
        return _("🎯 {who}, it is your turn ({phase}).", locale, who=who, phase=phase_text(s, locale))

    def controls(self, record: GameRecord, game: Game, events: Sequence[Event] = ()) -> discord.ui.View | None:
        """The buttons for the player whose move it is, for the phase the game is in."""
        s = game.state
        gid = record.id
        locale = game_locale(record)
        seat = s.current
        items: list[discord.ui.Item[Any]] = []
        if s.phase == OVER:
            return None
        if s.phase == CLAIM:
            items.append(GameButton(gid, "claim", label=_("Claim", locale), style=Blue, emoji="🚩"))
        elif s.phase == CAPITAL:
            items.append(GameButton(gid, "capital", label=_("Capital", locale), style=Blue, emoji="🏰"))
        elif s.phase == SETUP:
            if s.batch_left:
                items.append(GameButton(gid, "place", label=_("Place", locale), style=Blue, emoji="➕"))
            if s.neutral_left:
                items.append(GameButton(gid, "neutral", label=_("Neutral", locale), style=Grey, emoji="⬜"))
        elif s.phase == REINFORCE:
            items.append(GameButton(gid, "place", label=_("Place", locale), style=Blue, emoji="➕"))
            if s.settings.cards != "none":
                items.append(GameButton(gid, "cards", label=_("Cards", locale), style=Grey, emoji="🃏"))
        elif s.phase == OCCUPY:
            assert s.pending is not None
            lo, hi = s.pending["min"], s.pending["max"]
            counts = sorted({lo, (lo + hi + 1) // 2, hi})
            for n in counts:
                label = _("Move {n}", locale, n=n) if n != hi else _("Move all ({n})", locale, n=n)
                items.append(GameButton(gid, "move", n, label=label, style=Blue if n == hi else Grey))
        elif s.phase == ATTACK:
            last = next(((e["from"], e["to"]) for e in reversed(events) if e["type"] == "battle"), None)
            if last and last[0] in game.attack_sources(seat) and last[1] in game.attack_targets(seat, last[0]):
                src, dst = last
                items.append(GameButton(gid, "atk", src, dst, 0, label=_("Attack again", locale), style=Red,
                                        emoji="⚔️"))
                items.append(GameButton(gid, "blitz", src, dst, label=_("Blitz", locale), style=Red, emoji="⚡"))
                items.append(GameButton(gid, "stop", label=_("Stop", locale), style=Grey, emoji="✋"))
            items.append(GameButton(gid, "attack", label=_("Attack", locale), style=Red if not items else Grey,
                                    emoji="🎯"))
            items.append(GameButton(gid, "fortify", label=_("Fortify", locale), style=Grey, emoji="🛡️"))
            items.append(GameButton(gid, "end", label=_("End turn", locale), style=Grey, emoji="⏭️"))
        elif s.phase == FORTIFY:
            items.append(GameButton(gid, "fortify", label=_("Fortify", locale), style=Blue, emoji="🛡️"))
            items.append(GameButton(gid, "endok", label=_("End turn", locale), style=Grey, emoji="⏭️"))
        items.append(GameButton(gid, "map", label=_("Map", locale), style=Grey, emoji="🗺️"))
        return view_of(*items[:25])

    # == slash commands: play ===========================================================================
    async def act(self, interaction: discord.Interaction[Any], build: Any) -> None:
        record = await self.game_here(interaction)
        seat = self.seat_of(record, interaction)
        game = record.game()
        action = build(seat, game)
        await self.perform(interaction, record, action)

    @app_commands.command(name="place", description="Place armies on one of your territories (or claim one)")
    @app_commands.describe(territory="Your territory (any name or alias)", count="How many armies (default: all)")
    async def place(self, interaction: discord.Interaction[Any], territory: str, count: int | None = None) -> None:
        def build(seat: int, game: Game) -> Action:
            s = game.state
            where = resolve_territory(game.board, territory)
            if s.phase == CLAIM:
                return Claim(seat, where)
            if s.phase == CAPITAL:
                return ChooseCapital(seat, where)
            if count is not None:
                return Place(seat, where, count)
            if s.phase == REINFORCE:
                return Place(seat, where, s.reinforcements)
            neutral = s.owners.get(where) == NEUTRAL
            return Place(seat, where, (s.neutral_left if neutral else s.batch_left) or 1)
        await self.act(interaction, build)

    @app_commands.command(name="attack", description="Attack an adjacent territory (one roll)")
    @app_commands.rename(source="from", target="to")
    @app_commands.describe(source="Your territory with 2 or more armies", target="An adjacent enemy territory",
                           dice="1 to 3 dice (default: the most you may roll)")
    async def attack(self, interaction: discord.Interaction[Any], source: str, target: str,
                     dice: int | None = None) -> None:
        await self.act(interaction, lambda seat, game: Attack(seat, resolve_territory(game.board, source),
                                                              resolve_territory(game.board, target), dice))

    @app_commands.command(name="blitz", description="Attack again and again until the territory falls or you stop")
    @app_commands.rename(source="from", target="to")
    @app_commands.describe(source="Your territory", target="An adjacent enemy territory",
                           stop_at="Stop when your territory is down to this many armies (default 1)")
    async def blitz(self, interaction: discord.Interaction[Any], source: str, target: str,
                    stop_at: int = 1) -> None:
        await self.act(interaction, lambda seat, game: Blitz(seat, resolve_territory(game.board, source),
                                                             resolve_territory(game.board, target), stop_at))

    @app_commands.command(name="move", description="Move armies into the territory you just conquered")
    @app_commands.describe(count="How many armies end up in the conquered territory")
    async def move(self, interaction: discord.Interaction[Any], count: int) -> None:
        await self.act(interaction, lambda seat, game: Occupy(seat, count))

    @app_commands.command(name="fortify", description="Your one free move: armies from one territory to another")
    @app_commands.rename(source="from", target="to")
    async def fortify(self, interaction: discord.Interaction[Any], source: str, target: str, count: int) -> None:
        await self.act(interaction, lambda seat, game: Fortify(seat, resolve_territory(game.board, source),
                                                               resolve_territory(game.board, target), count))

    @app_commands.command(name="trade", description="Trade a set of cards for armies (no cards: the best set)")
    @app_commands.describe(cards="Three cards, comma separated (territory names or 'wild'); empty: the best set")
    async def trade(self, interaction: discord.Interaction[Any], cards: str | None = None) -> None:
        def build(seat: int, game: Game) -> Action:
            if not cards:
                best = game.best_set(seat)
                if best is None:
                    raise UserError(_("You have no set to trade now.", interaction.locale))
                return Trade(seat, best)
            return Trade(seat, self.parse_cards(game, seat, cards, interaction.locale))
        await self.act(interaction, build)

    @staticmethod
    def parse_cards(game: Game, seat: int, text: str, locale: object) -> tuple[str, ...]:
        hand = list(game.state.hands.get(seat, []))
        chosen: list[str] = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            if part.lower() in ("wild", "joker", "comodín", "comodin", "joker"):
                wild = next((c for c in hand if c in WILD_CARDS and c not in chosen), None)
                if wild is None:
                    raise UserError(_("You hold no wild card.", locale))
                chosen.append(wild)
            else:
                chosen.append(resolve_territory(game.board, part))
        return tuple(chosen)

    @app_commands.command(name="end", description="End your attacks, or your turn")
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        def build(seat: int, game: Game) -> Action:
            return EndAttack(seat) if game.state.phase == ATTACK else EndTurn(seat)
        await self.act(interaction, build)

    @app_commands.command(name="map", description="Show the map (only to you)")
    async def map(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction)
        await self.send_map(interaction, record)

    async def send_map(self, interaction: discord.Interaction[Any], record: GameRecord) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        game = record.game()
        if fogged(game) and game.state.phase != OVER:
            seat = record.seat_of(interaction.user.id)
            visible = visible_territories(game.state, seat) if seat is not None else set()
            file = await self.service.render_file(record, viewer=seat, visible=visible, locale=interaction.locale)
        else:
            file = await self.service.render_file(record, locale=interaction.locale)
        text = _("Turn {turn}: {player} is {phase}.", interaction.locale, turn=game.state.turn,
                 player=seat_name(game.state, game.state.current, interaction.locale),
                 phase=phase_text(game.state, interaction.locale))
        await interaction.followup.send(text, ephemeral=True, **({"file": file} if file else {}))

    @app_commands.command(name="cards", description="Your cards (only you see them)")
    async def cards(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction)
        seat = self.seat_of(record, interaction)
        await self.send_cards(interaction, record, seat)

    async def send_cards(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None:
        game = record.game()
        s = game.state
        locale = interaction.locale
        hand = s.hands.get(seat, [])
        if not hand:
            text = _("You hold no cards. You draw one at the end of a turn in which you conquered a territory.",
                     locale)
        else:
            rows = [f"{SYMBOLS[game.card_symbol(c)]} " + (_("Wild", locale) if c in WILD_CARDS else
                                                         self.tn(game, c, interaction) +
                                                         (" ★" if s.owners.get(c) == seat else ""))
                    for c in hand]
            text = _("Your cards:", locale) + "\n" + "\n".join(rows)
            text += "\n" + _("★ = a territory you hold: +2 armies there when traded.", locale)
            if s.settings.cards == "escalating":
                text += "\n" + _("The next set is worth {n} armies.", locale, n=game.next_set_value())
        items: list[discord.ui.Item[Any]] = []
        sets = game.tradeable_sets(seat)
        for combo in sets[:4]:
            indexes = [hand.index(c) for c in combo]
            label = " ".join(SYMBOLS[game.card_symbol(c)] for c in combo)
            items.append(GameButton(record.id, "trade", ".".join(map(str, indexes)), label=_("Trade", locale) +
                                    " " + label, style=Green))
        await interaction.response.send_message(text, ephemeral=True,
                                                **({"view": view_of(*items)} if items else {}))

    @app_commands.command(name="mission", description="Your secret mission (only you see it)")
    async def mission(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction)
        seat = self.seat_of(record, interaction)
        game = record.game()
        mission = game.mission(seat)
        if mission is None:
            raise UserError(_("This game has no secret missions: conquer the world.", interaction.locale))
        text = mission_line(mission, game.board, game.state, interaction.locale)
        await interaction.response.send_message(_("🎯 Your mission: {mission}", interaction.locale, mission=text),
                                                ephemeral=True)

    @app_commands.command(name="odds", description="Exact odds of an attack: two territories, or two numbers")
    @app_commands.rename(source="from", target="to")
    @app_commands.describe(source="Attacking territory", target="Defending territory",
                           attackers="Armies in the attacking territory", defenders="Armies defending")
    async def odds(self, interaction: discord.Interaction[Any], source: str | None = None, target: str | None = None,
                   attackers: int | None = None, defenders: int | None = None) -> None:
        locale = interaction.locale
        if source and target:
            record = await self.game_here(interaction)
            game = record.game()
            src, dst = resolve_territory(game.board, source), resolve_territory(game.board, target)
            if fogged(game) and game.state.phase != OVER:
                seat = record.seat_of(interaction.user.id)
                seen = visible_territories(game.state, seat) if seat is not None else set()
                hidden = [t for t in (src, dst) if t not in seen]
                if hidden:
                    raise UserError(_("You cannot see {territory} through the fog.", interaction.locale,
                                      territory=self.tn(game, hidden[0], interaction)))
            attackers, defenders = game.state.armies[src], game.state.armies[dst]
            head = f"{self.tn(game, src, interaction)} ({attackers}) → {self.tn(game, dst, interaction)} ({defenders})"
        elif attackers is not None and defenders is not None:
            head = f"{attackers} → {defenders}"
        else:
            raise UserError(_("Give two territories (from, to) or two numbers (attackers, defenders).", locale))
        if not (1 <= attackers <= 1000 and 1 <= defenders <= 1000):
            raise UserError(_("Armies must be between 1 and 1000.", locale))
        o = battle_odds(attackers, defenders)
        text = _("{head}: the attacker takes it {win} of the time (blitz to the end). Expected left: attacker "
                 "{a}, defender {d}.", locale, head=head, win=percent(o.win, locale, 1),
                 a=decimal(o.expected_attacker_left, locale),
                 d=decimal(o.expected_defender_left, locale))
        await interaction.response.send_message(text, ephemeral=True)

    # -- autocomplete ---------------------------------------------------------------------------------
    async def _ac_game(self, interaction: discord.Interaction[Any]) -> tuple[GameRecord, Game, int | None] | None:
        if interaction.channel_id is None:
            return None
        record = await self.store.get_active_game(interaction.channel_id)
        if record is None or record.state is None:
            return None
        return record, record.game(), record.seat_of(interaction.user.id)

    @staticmethod
    def _choices(game: Game, ranked: list[tuple[str, str]], current: str,
                 locale: object = None) -> list[app_commands.Choice[str]]:
        """Legal choices first (as ranked), then any territory whose name matches what is typed."""
        typed = current.strip().lower()
        out: list[app_commands.Choice[str]] = []
        seen: set[str] = set()
        for tid, label in ranked:
            if typed and typed not in label.lower() and typed not in tid:
                continue
            out.append(app_commands.Choice(name=label[:100], value=tid))
            seen.add(tid)
        for tid in game.board.territory_ids:
            label = territory_name(game.board, tid, locale)
            if tid not in seen and (not typed or typed in label.lower() or typed in game.board.name(tid).lower()):
                out.append(app_commands.Choice(name=label, value=tid))
        return out[:25]

    @place.autocomplete("territory")
    async def ac_place(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        found = await self._ac_game(interaction)
        if not found:
            return []
        game, seat = found[1], found[2]
        s = game.state
        if s.phase == CLAIM:
            ranked = [(t, self.tn(game, t, interaction)) for t in game.claimable()]
        else:
            mine = game.placeable(seat) if seat is not None else []
            ranked = sorted(((t, f"{self.tn(game, t, interaction)} ({s.armies[t]})") for t in mine),
                            key=lambda x: -sum(1 for n in game.board.neighbours(x[0]) if s.owners.get(n) != seat))
        return self._choices(game, ranked, current, interaction.locale)

    async def _ac_player(self, interaction: discord.Interaction[Any]) -> tuple[Game, int] | None:
        """The channel's game and the user's seat, for autocomplete (None: nothing to suggest)."""
        found = await self._ac_game(interaction)
        if not found or found[2] is None:
            return None
        return found[1], found[2]

    @staticmethod
    def _typed_source(game: Game, interaction: discord.Interaction[Any]) -> str | None:
        typed = getattr(interaction.namespace, "from", None)
        try:
            return resolve_territory(game.board, typed) if typed else None
        except RuleError:
            return None

    def _with_armies(self, game: Game, territories: Sequence[str], current: str,
                     interaction: discord.Interaction[Any]) -> list[app_commands.Choice[str]]:
        """Choices labelled with their armies, the biggest first."""
        s = game.state
        ordered = sorted(territories, key=lambda t: -s.armies[t])
        ranked = [(t, f"{self.tn(game, t, interaction)} ({s.armies[t]})") for t in ordered]
        return self._choices(game, ranked, current, interaction.locale)

    @attack.autocomplete("source")
    @blitz.autocomplete("source")
    async def ac_source(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        found = await self._ac_player(interaction)
        if not found:
            return []
        game, seat = found
        return self._with_armies(game, game.attack_sources(seat), current, interaction)

    @attack.autocomplete("target")
    @blitz.autocomplete("target")
    async def ac_target(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        found = await self._ac_player(interaction)
        if not found:
            return []
        game, seat = found
        s = game.state
        source = self._typed_source(game, interaction)
        sources = [source] if source else game.attack_sources(seat)
        best: dict[str, tuple[float, str]] = {}
        for src in sources:
            for dst in game.attack_targets(seat, src):
                win = battle_odds(s.armies[src], s.armies[dst]).win
                if dst not in best or win > best[dst][0]:
                    owner = seat_name(s, s.owners[dst], interaction.locale)
                    chance = percent(win, interaction.locale)
                    best[dst] = (win, f"{self.tn(game, dst, interaction)} ({s.armies[dst]}, {owner}) · {chance}")
        ranked = [(dst, label) for dst, (_win, label) in sorted(best.items(), key=lambda x: -x[1][0])]
        return self._choices(game, ranked, current, interaction.locale)

    @fortify.autocomplete("source")
    async def ac_fortify_source(self, interaction: discord.Interaction[Any],
                                current: str) -> list[app_commands.Choice[str]]:
        found = await self._ac_player(interaction)
        if not found:
            return []
        game, seat = found
        return self._with_armies(game, game.fortify_sources(seat), current, interaction)

    @fortify.autocomplete("target")
    async def ac_fortify_target(self, interaction: discord.Interaction[Any],
                                current: str) -> list[app_commands.Choice[str]]:
        found = await self._ac_player(interaction)
        if not found:
            return []
        game, seat = found
        source = self._typed_source(game, interaction)
        return self._with_armies(game, game.fortify_targets(seat, source) if source else [], current, interaction)

    @odds.autocomplete("source")
    async def ac_odds_source(self, interaction: discord.Interaction[Any],
                             current: str) -> list[app_commands.Choice[str]]:
        return await self.ac_source(interaction, current)

    @odds.autocomplete("target")
    async def ac_odds_target(self, interaction: discord.Interaction[Any],
                             current: str) -> list[app_commands.Choice[str]]:
        return await self.ac_target(interaction, current)

    # == buttons and selects ===========================================================================
    async def on_button(self, interaction: discord.Interaction[Any], game_id: int, verb: str,
                        args: list[str]) -> None:
        """Every game button lands here: check the game and the player, then do the step."""
        from .errors import handle_error
        try:
            await self._on_button(interaction, game_id, verb, args)
        except Exception as exc:  # one handler for every error, as for commands
            await handle_error(interaction, exc, {"button": verb, "args": args, "game": game_id})

    async def on_select(self, interaction: discord.Interaction[Any], game_id: int, verb: str, args: list[str],
                        values: list[str]) -> None:
        from .errors import handle_error
        try:
            await self._on_select(interaction, game_id, verb, args, values)
        except Exception as exc:
            await handle_error(interaction, exc, {"select": verb, "args": args, "values": values, "game": game_id})

    def _turn_check(self, interaction: discord.Interaction[Any], record: GameRecord) -> tuple[Game, int]:
        seat = self.seat_of(record, interaction)
        game = record.game()
        if game.state.current != seat:
            raise UserError(_("It is {player}'s turn, not yours.", interaction.locale,
                              player=seat_name(game.state, game.state.current, interaction.locale)))
        return game, seat

    async def _on_button(self, interaction: discord.Interaction[Any], game_id: int, verb: str,
                         args: list[str]) -> None:
        record = await self.game_by_id(interaction, game_id)
        locale = interaction.locale
        if verb == "map":
            await self.send_map(interaction, record)
            return
        game, seat = self._turn_check(interaction, record)
        s = game.state
        if verb == "capital":
            await self.pick_territory(interaction, record, "capital", game.capital_choices(seat),
                                      _("Which territory is your capital?", locale))
        elif verb == "claim":
            await self.pick_territory(interaction, record, "claim", game.claimable(),
                                      _("Claim which territory?", locale))
        elif verb == "place":
            mine = [t for t in game.placeable(seat) if s.owners.get(t) == seat]
            await self.pick_territory(interaction, record, "place", mine, _("Place on which territory?", locale))
        elif verb == "neutral":
            neutral = [t for t in game.placeable(seat) if s.owners.get(t) == NEUTRAL]
            await self.pick_territory(interaction, record, "neutral", neutral,
                                      _("Place the neutral army where?", locale))
        elif verb == "put":
            territory, count = args[0], int(args[1])
            await self.perform(interaction, record, Place(seat, territory, count))
        elif verb == "cards":
            await self.send_cards(interaction, record, seat)
        elif verb == "trade":
            hand = s.hands.get(seat, [])
            try:
                cards = tuple(hand[int(i)] for i in args[0].split("."))
            except (IndexError, ValueError) as exc:
                raise UserError(_("Your hand has changed; open your cards again.", locale)) from exc
            await self.perform(interaction, record, Trade(seat, cards))
        elif verb == "attack":
            sources = game.attack_sources(seat)
            if s.phase != ATTACK:
                raise UserError(_("You can attack once all your armies are placed.", locale))
            if not sources:
                raise UserError(_("None of your territories can attack: each needs 2 armies and an enemy "
                                  "neighbour.", locale))
            await self.pick_territory(interaction, record, "atksrc", sources, _("Attack from where?", locale))
        elif verb == "atk":
            src, dst, dice = args[0], args[1], int(args[2])
            await self.perform(interaction, record, Attack(seat, src, dst, dice or None))
        elif verb == "blitz":
            await self.perform(interaction, record, Blitz(seat, args[0], args[1]))
        elif verb == "stop":
            await self.perform(interaction, record, EndAttack(seat))
        elif verb == "move":
            await self.perform(interaction, record, Occupy(seat, int(args[0])))
        elif verb == "fortify":
            sources = game.fortify_sources(seat)
            if not sources:
                raise UserError(_("No territory of yours can move armies now.", locale))
            await self.pick_territory(interaction, record, "fortsrc", sources, _("Move armies from where?", locale))
        elif verb == "fort":
            await self.perform(interaction, record, Fortify(seat, args[0], args[1], int(args[2])))
        elif verb == "end":
            if s.phase == ATTACK:
                view = view_of(GameButton(record.id, "endok", label=_("Yes, end my turn", locale), style=Red),
                               GameButton(record.id, "fortify", label=_("Fortify first", locale), style=Grey))
                await interaction.response.send_message(
                    _("End your turn without fortifying?", locale), view=view, ephemeral=True)
            else:
                await self.perform(interaction, record, EndTurn(seat))
        elif verb == "endok":
            await self.perform(interaction, record, EndTurn(seat))
        else:
            raise UserError(_("This button is from an older version of the bot; use the slash commands.", locale))

    async def pick_territory(self, interaction: discord.Interaction[Any], record: GameRecord, purpose: str,
                             territories: Sequence[str], prompt: str, *extra: str) -> None:
        """A private select of territories; more than 25 are grouped by continent first."""
        game = record.game()
        s = game.state
        if not territories:
            raise UserError(_("There is no territory to choose.", interaction.locale))
        if len(territories) > 25:
            continents = sorted({game.board.territories[t].continent for t in territories})
            options = [discord.SelectOption(label=continent_name(game.board, c, interaction.locale), value=c,
                                            description=str(sum(1 for t in territories
                                                                if game.board.territories[t].continent == c)))
                       for c in continents]
            select = GameSelect(record.id, "cont", purpose, *extra, options=options,
                                placeholder=_("Choose a continent", interaction.locale))
        else:
            options = [discord.SelectOption(label=self.option_label(game, t, purpose, extra, interaction.locale),
                                            value=t)
                       for t in territories]
            select = GameSelect(record.id, purpose, *extra, options=options, placeholder=prompt)
        if interaction.response.is_done():
            await interaction.followup.send(prompt, view=view_of(select), ephemeral=True)
        elif interaction.message is not None and interaction.message.flags.ephemeral:
            await interaction.response.edit_message(content=prompt, view=view_of(select), attachments=[])
        else:
            await interaction.response.send_message(prompt, view=view_of(select), ephemeral=True)
        del s

    @staticmethod
    def option_label(game: Game, t: str, purpose: str, extra: Sequence[str], locale: object = None) -> str:
        s = game.state
        name = territory_name(game.board, t, locale)
        label = f"{name} ({s.armies.get(t, 0)})" if t in s.owners else name
        if purpose == "atkdst" and extra:
            o = battle_odds(s.armies[extra[0]], s.armies[t])
            label += f" · {seat_name(s, s.owners[t], locale)} · {percent(o.win, locale)}"
        return label[:100]

    async def _on_select(self, interaction: discord.Interaction[Any], game_id: int, verb: str, args: list[str],
                         values: list[str]) -> None:
        record = await self.game_by_id(interaction, game_id)
        game, seat = self._turn_check(interaction, record)
        s = game.state
        locale = interaction.locale
        if not values:
            raise UserError(_("Choose one option.", locale))
        value = values[0]
        if verb == "cont":
            purpose, extra = args[0], args[1:]
            candidates = self.candidates(game, seat, purpose, extra)
            chosen = [t for t in candidates if game.board.territories[t].continent == value]
            await self.pick_territory(interaction, record, purpose, chosen, _("Choose a territory", locale), *extra)
            return
        if value not in game.board.territories:
            raise UserError(_("There is no territory called “{name}”.", locale, name=value))
        if verb == "capital":
            await self.perform(interaction, record, ChooseCapital(seat, value))
        elif verb == "claim":
            await self.perform(interaction, record, Claim(seat, value))
        elif verb == "neutral":
            await self.perform(interaction, record, Place(seat, value, 1))
        elif verb == "place":
            left = s.reinforcements if s.phase == REINFORCE else s.batch_left
            counts = sorted({1, min(3, left), min(5, left), left} - {0})
            view = view_of(*[GameButton(record.id, "put", value, n,
                                        label=_("All {n}", locale, n=n) if n == left else f"+{n}",
                                        style=Blue if n == left else Grey) for n in counts])
            await interaction.response.edit_message(content=_("How many armies on {territory}?", locale,
                                                              territory=self.tn(game, value, interaction)), view=view)
        elif verb == "atksrc":
            targets = game.attack_targets(seat, value)
            await self.pick_territory(interaction, record, "atkdst", targets, _("Attack which territory?", locale),
                                      value)
        elif verb == "atkdst":
            src = args[0]
            dice = game.allowed_dice(src)
            o = battle_odds(s.armies[src], s.armies[value])
            buttons = [GameButton(record.id, "atk", src, value, n, label=_("{n} dice", locale, n=n) if n > 1 else
                                  _("1 die", locale), style=Red if n == max(dice) else Grey) for n in dice]
            buttons.append(GameButton(record.id, "blitz", src, value, label=_("Blitz", locale), style=Red, emoji="⚡"))
            text = _("{source} ({a}) → {target} ({d}): blitz wins {win} of the time. Roll how many dice?",
                     locale, source=self.tn(game, src, interaction), a=s.armies[src],
                     target=self.tn(game, value, interaction),
                     d=s.armies[value], win=percent(o.win, locale))
            await interaction.response.edit_message(content=text, view=view_of(*buttons))
        elif verb == "fortsrc":
            targets = game.fortify_targets(seat, value)
            await self.pick_territory(interaction, record, "fortdst", targets, _("Move them to?", locale), value)
        elif verb == "fortdst":
            src = args[0]
            most = s.armies[src] - 1
            counts = sorted({1, (most + 1) // 2, most} - {0})
            buttons = [GameButton(record.id, "fort", src, value, n, label=_("All but one ({n})", locale, n=n)
                                  if n == most else str(n), style=Blue if n == most else Grey) for n in counts]
            ends = _("Move how many armies from {source} to {target}? This ends your turn.", locale,
                     source=self.tn(game, src, interaction), target=self.tn(game, value, interaction))
            more = _("Move how many armies from {source} to {target}?", locale,
                     source=self.tn(game, src, interaction), target=self.tn(game, value, interaction))
            await interaction.response.edit_message(
                content=ends if game.fortify_ends_turn else more, view=view_of(*buttons))
        else:
            raise UserError(_("This menu is from an older version of the bot; use the slash commands.", locale))

    @staticmethod
    def candidates(game: Game, seat: int, purpose: str, extra: Sequence[str]) -> list[str]:
        s = game.state
        if purpose == "claim":
            return game.claimable()
        if purpose == "capital":
            return game.capital_choices(seat)
        if purpose == "place":
            return [t for t in game.placeable(seat) if s.owners.get(t) == seat]
        if purpose == "neutral":
            return [t for t in game.placeable(seat) if s.owners.get(t) == NEUTRAL]
        if purpose == "atksrc":
            return game.attack_sources(seat)
        if purpose == "atkdst":
            return game.attack_targets(seat, extra[0])
        if purpose == "fortsrc":
            return game.fortify_sources(seat)
        if purpose == "fortdst":
            return game.fortify_targets(seat, extra[0])
        return []

    # == /risk: the lobby and the rest ==================================================================
    @risk.command(name="new", description="Open a game lobby in this channel; you are the host")
    @app_commands.describe(deployment="How territories are taken at the start", setup_batch="Armies per setup turn",
                           cards="Card set values", fortify="The free move at the end of a turn",
                           turn_deadline="Time for each turn", on_timeout="What happens when time runs out",
                           max_missed="Missed turns in a row before the seat is replaced (0: never)",
                           on_boot="Who takes a replaced seat", max_rounds="End after this many rounds (0: no limit)",
                           language="The language of the game's public messages (default: the server's)",
                           mode="Classic world domination, secret missions, or capitals",
                           teams="Play in teams", fog="Fog of war: see only your territories and their neighbours",
                           preset="A set of settings in one choice (other options override it)")
    @app_commands.choices(
        deployment=[app_commands.Choice(name=n, value=n) for n in CHOICES["deployment"]],
        cards=[app_commands.Choice(name=n, value=n) for n in CHOICES["cards"]],
        fortify=[app_commands.Choice(name=n, value=n) for n in CHOICES["fortify"]],
        turn_deadline=[app_commands.Choice(name=deadline_name(v), value=v) for v in DEADLINES],
        on_timeout=[app_commands.Choice(name=n, value=n) for n in CHOICES["on_timeout"]],
        on_boot=[app_commands.Choice(name=n, value=n) for n in CHOICES["on_boot"]],
        language=[app_commands.Choice(name=name, value=code) for code, name in LANGUAGES.items()],
        mode=[app_commands.Choice(name=n, value=n) for n in CHOICES["mode"]],
        teams=[app_commands.Choice(name=n, value=n) for n in CHOICES["teams"]],
        fog=[app_commands.Choice(name=n, value=n) for n in CHOICES["fog"]],
        preset=[app_commands.Choice(name=n, value=n) for n in PRESETS],
    )
    async def risk_new(self, interaction: discord.Interaction[Any], deployment: str | None = None,
                       setup_batch: app_commands.Range[int, 1, 50] | None = None, cards: str | None = None,
                       fortify: str | None = None, turn_deadline: int | None = None, on_timeout: str | None = None,
                       max_missed: app_commands.Range[int, 0, 20] | None = None, on_boot: str | None = None,
                       max_rounds: app_commands.Range[int, 0, 1000] | None = None,
                       language: str | None = None, mode: str | None = None, teams: str | None = None,
                       fog: str | None = None, preset: str | None = None) -> None:
        if interaction.channel_id is None:
            raise UserError(_("Games are played in server channels.", interaction.locale))
        given = {"deployment": deployment, "setup_batch": setup_batch, "cards": cards, "fortify": fortify,
                 "turn_deadline": turn_deadline, "on_timeout": on_timeout, "max_missed": max_missed,
                 "on_boot": on_boot, "max_rounds": max_rounds,
                 "language": language or language_of(interaction.guild_locale), "mode": mode, "teams": teams,
                 "fog": fog}
        chosen = {k: v for k, v in given.items() if v is not None}
        if preset:
            chosen = {**PRESETS[preset], **chosen}
        record = await self.store.create_lobby(interaction.guild_id, interaction.channel_id, interaction.user.id,
                                               interaction.user.display_name, chosen or None)
        await interaction.response.send_message(embed=self.lobby_embed(record, interaction),
                                                view=self.lobby_view(record, interaction))

    def lobby_embed(self, record: GameRecord, interaction: discord.Interaction[Any]) -> discord.Embed:
        locale = game_locale(record, interaction)
        embed = discord.Embed(title=_("Risk: game #{id} lobby", locale, id=record.id), colour=discord.Colour.blue())
        seats = "\n".join(f"{p.seat + 1}. {p.name}" + (f" 🤖 {p.ai_level}" if p.is_ai else "") +
                          (" 👑" if p.user_id == record.host_id else "") for p in record.players)
        embed.add_field(name=_("Players ({n}/6)", locale, n=len(record.players)), value=seats or "—", inline=False)
        embed.add_field(name=_("Settings", locale), value=self.settings_text(record.settings), inline=False)
        embed.set_footer(text=_("/risk join to take a seat · the host starts with /risk start", locale))
        return embed

    @staticmethod
    def settings_text(settings: dict[str, Any]) -> str:
        from engine import Settings
        full = Settings.from_dict({k: v for k, v in settings.items() if k in Settings.__dataclass_fields__})
        shown = {k: (deadline_name(v) if k == "turn_deadline" else v) for k, v in full.to_dict().items()
                 if k not in ("map", "language")}
        return "\n".join(f"{k}: **{v}**" for k, v in shown.items())

    def lobby_view(self, record: GameRecord, interaction: discord.Interaction[Any]) -> discord.ui.View:
        locale = game_locale(record, interaction)
        return view_of(LobbyButton(record.id, "join", label=_("Join", locale), style=Green),
                       LobbyButton(record.id, "bot", label=_("Add AI", locale), style=Grey),
                       LobbyButton(record.id, "start", label=_("Start", locale), style=Blue))

    async def lobby_action(self, interaction: discord.Interaction[Any], game_id: int, verb: str) -> None:
        record = await self.store.get_game(game_id)
        if record.status != "lobby":
            raise UserError(_("This lobby is closed.", interaction.locale))
        if verb == "join":
            record = await self.store.join(record.id, interaction.user.id, interaction.user.display_name)
            await interaction.response.edit_message(embed=self.lobby_embed(record, interaction))
        elif verb == "bot":
            self.require_host(record, interaction)
            record = await self.store.add_ai(record.id, "normal")
            await interaction.response.edit_message(embed=self.lobby_embed(record, interaction))
        elif verb == "start":
            self.require_host(record, interaction)
            await self.start_game(interaction, record)

    @risk.command(name="join", description="Take a seat in this channel's lobby")
    async def risk_join(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction, running=False)
        record = await self.store.join(record.id, interaction.user.id, interaction.user.display_name)
        await interaction.response.send_message(embed=self.lobby_embed(record, interaction),
                                                view=self.lobby_view(record, interaction))

    @risk.command(name="leave", description="Leave this channel's lobby")
    async def risk_leave(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction, running=False)
        if record.status != "lobby":
            raise UserError(_("The game is running: use /risk surrender to resign.", interaction.locale))
        record = await self.store.leave(record.id, interaction.user.id)
        if record.status == "cancelled":
            await interaction.response.send_message(_("The lobby is empty and closed.", interaction.locale))
            return
        await interaction.response.send_message(embed=self.lobby_embed(record, interaction))

    @risk.command(name="addbot", description="Seat an AI player (host)")
    @app_commands.choices(level=[app_commands.Choice(name=lv, value=lv) for lv in LEVELS])
    async def risk_addbot(self, interaction: discord.Interaction[Any], level: str = "normal") -> None:
        record = await self.game_here(interaction, running=False)
        self.require_host(record, interaction)
        record = await self.store.add_ai(record.id, level)
        await interaction.response.send_message(embed=self.lobby_embed(record, interaction),
                                                view=self.lobby_view(record, interaction))

    @risk.command(name="start", description="Start the game (host)")
    async def risk_start(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction, running=False)
        self.require_host(record, interaction)
        if record.status != "lobby":
            raise UserError(_("The game has already started.", interaction.locale))
        await self.start_game(interaction, record)

    async def start_game(self, interaction: discord.Interaction[Any], record: GameRecord) -> None:
        if len(record.players) < 2:
            raise UserError(_("A game needs at least 2 players: /risk join or /risk addbot.", interaction.locale))
        await interaction.response.defer(thinking=True)
        started, events, turns = await self.service.start(record)
        locale = game_locale(started, interaction)
        game = started.game()
        lines = [_("The game begins! Dice commitment: `{c}`", locale, c=game.state.seed_commitment[:16] + "…")]
        lines += describe(events[1:], game.state, game.board, locale)
        await interaction.followup.send(clip(lines))
        channel = interaction.channel
        for turn in turns:
            await self.post_ai_turn(channel, started, turn)
        final = await self.store.get_game(started.id)
        due = await self.scheduler.sync(final)
        if final.game().state.phase == OVER:
            await self.post_game_over(channel, final)
        else:
            await self.post_panel(channel, final, locale, due)

    @risk.command(name="status", description="Players, whose turn it is, and the dice commitment")
    async def risk_status(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction, running=False)
        if record.state is None:
            await interaction.response.send_message(embed=self.lobby_embed(record, interaction), ephemeral=True)
            return
        game = record.game()
        s = game.state
        locale = interaction.locale
        embed = discord.Embed(title=_("Risk: game #{id}, turn {turn}", locale, id=record.id, turn=s.turn),
                              colour=discord.Colour.dark_green())
        rows = []
        viewer = record.seat_of(interaction.user.id)
        fog = fogged(game) and s.phase != OVER
        for p in record.players:
            out = p.seat in s.eliminated or p.seat in s.surrendered
            if fog and p.seat != viewer:  # under fog, other players' totals stay hidden
                line = _("{name}: {c} cards", locale, name=p.name, c=len(s.hands.get(p.seat, [])))
            else:
                line = _("{name}: {t} territories, {a} armies, {c} cards", locale, name=p.name,
                         t=len(s.territories_of(p.seat)), a=s.army_total(p.seat), c=len(s.hands.get(p.seat, [])))
            line = f"~~{line}~~" if out else line
            rows.append(("▶ " if p.seat == s.current and s.phase != OVER else "") + line)
        embed.add_field(name=_("Players", locale), value="\n".join(rows), inline=False)
        embed.add_field(name=_("Now", locale), value=_("{player} is {phase}.", locale,
                                                      player=seat_name(s, s.current, locale),
                                                      phase=phase_text(s, locale)), inline=False)
        if s.settings.cards == "escalating":
            embed.add_field(name=_("Next set", locale), value=str(game.next_set_value()))
        turn_timer = next((t for t in await self.store.game_deadlines(record.id) if t.kind.startswith("turn|")), None)
        if turn_timer is not None:
            embed.add_field(name=_("Deadline", locale), value=_("ends <t:{t}:R>", locale, t=int(turn_timer.due_at)))
        if record.status == "paused":
            embed.add_field(name=_("Paused", locale), value=_("The host resumes with /risk resume.", locale))
        embed.add_field(name=_("Dice commitment", locale), value=f"`{s.seed_commitment}`", inline=False)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @risk.command(name="settings", description="The rules this game is played with")
    async def risk_settings(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction, running=False)
        await interaction.response.send_message(self.settings_text(record.settings), ephemeral=True)

    @risk.command(name="kick", description="Remove a player (host): from the lobby, or resign them in a game")
    async def risk_kick(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        record = await self.game_here(interaction, running=False)
        self.require_host(record, interaction)
        seat = record.seat_of(player.id)
        if seat is None:
            raise UserError(_("{name} is not playing in this game.", interaction.locale, name=player.display_name))
        if record.status == "lobby":
            record = await self.store.kick(record.id, seat)
            await interaction.response.send_message(embed=self.lobby_embed(record, interaction))
            return
        await self.perform(interaction, record, Surrender(seat))

    @risk.command(name="cancel", description="Cancel this channel's game (host)")
    async def risk_cancel(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction, running=False)
        self.require_host(record, interaction)
        await self.store.cancel(record.id)
        await interaction.response.send_message(_("Game #{id} is cancelled.", game_locale(record, interaction),
                                                  id=record.id))

    @risk.command(name="surrender", description="Resign: your territories become neutral")
    async def risk_surrender(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction)
        seat = self.seat_of(record, interaction)
        await self.perform(interaction, record, Surrender(seat))

    @risk.command(name="log", description="Recent events of this game")
    @app_commands.describe(count="How many events (default 20)")
    async def risk_log(self, interaction: discord.Interaction[Any],
                       count: app_commands.Range[int, 1, 200] = 20) -> None:
        record = await self.game_here(interaction)
        events = await self.store.events(record.id)
        game = record.game()
        seat = record.seat_of(interaction.user.id)
        public = public_events_for(events, seat, game_over=game.state.phase == OVER) if fogged(game) else \
            [public_event(e, game.state.phase == OVER) for e in events]
        lines = describe(public[-max(1, min(count, 200)):], game.state, game.board, interaction.locale,
                         include_setup=True)
        await interaction.response.send_message(clip(lines) or _("Nothing yet.", interaction.locale), ephemeral=True)

    @risk.command(name="export", description="The event log of this channel's last game as a file")
    async def risk_export(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.channel_id is None:
            raise UserError(_("Games are played in server channels.", interaction.locale))
        games = await self.store.list_games(channel_id=interaction.channel_id, limit=1)
        if not games or games[0].state is None:
            raise UserError(_("This channel has no game to export.", interaction.locale))
        record = games[0]
        over = record.status == "finished"
        events = [public_event(e, over) for e in await self.store.events(record.id)]
        data = dumps(events).encode()
        file = discord.File(io.BytesIO(data), filename=f"risk-game-{record.id}.jsonl")
        note = _("The full log of game #{id}. Check its dice with `python -m engine.verify {name}`.",
                 interaction.locale, id=record.id, name=file.filename) if over else \
            _("The public log of game #{id} so far; hidden cards and the dice seed are left out until it ends.",
              interaction.locale, id=record.id)
        await interaction.response.send_message(note, file=file, ephemeral=not over)

    @risk.command(name="verify", description="A finished game's dice seed and how to check every roll")
    async def risk_verify(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.channel_id is None:
            raise UserError(_("Games are played in server channels.", interaction.locale))
        games = await self.store.list_games(channel_id=interaction.channel_id, limit=1)
        if not games or games[0].state is None:
            raise UserError(_("This channel has no game.", interaction.locale))
        game = games[0].game()
        s = game.state
        locale = interaction.locale
        if s.phase != OVER:
            text = _("The dice of this game are fixed by a secret seed whose SHA-256 commitment is `{c}`. The seed "
                     "is revealed when the game ends; then /risk verify shows it and anyone can check every roll.",
                     locale, c=s.seed_commitment)
        else:
            text = _("Seed: `{seed}`\nCommitment: `{c}`\nCheck: sha256(seed) equals the commitment, and "
                     "`python -m engine.verify game.jsonl` (the file from /risk export) re-derives every die. The "
                     "method is in docs/dice.md.", locale, seed=s.seed, c=s.seed_commitment)
        await interaction.response.send_message(text, ephemeral=True)

    @risk.command(name="rules", description="Quick rulings: ties, cards, fortify, capture, and more")
    @app_commands.choices(topic=[app_commands.Choice(name=k, value=k) for k in RULE_TOPICS])
    async def risk_rules(self, interaction: discord.Interaction[Any], topic: str = "mistakes") -> None:
        text = RULE_TOPICS.get(topic, RULE_TOPICS["mistakes"])
        await interaction.response.send_message(_(text, interaction.locale), ephemeral=True)

    @risk.command(name="help", description="How to play Risk with this bot")
    async def risk_help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(_(HELP_TEXT, interaction.locale), ephemeral=True)

    # == asynchronous play ===============================================================================
    @risk.command(name="pause", description="Pause the game: deadlines stop (host)")
    async def risk_pause(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction)
        self.require_host(record, interaction)
        record = await self.store.pause(record.id)
        await self.scheduler.sync(record)
        await interaction.response.send_message(_("⏸️ Game #{id} is paused. /risk resume goes on.",
                                                  game_locale(record, interaction), id=record.id))

    @risk.command(name="resume", description="Resume a paused game (host)")
    async def risk_resume(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.game_here(interaction, running=False)
        self.require_host(record, interaction)
        record = await self.store.resume(record.id)
        await interaction.response.send_message(_("▶️ Game #{id} goes on.", game_locale(record, interaction),
                                                  id=record.id))
        await self.after_turn(interaction.channel, record, [], actor=None)
        await self.post_panel(interaction.channel, record, game_locale(record, interaction),
                              await self.scheduler.sync(record))

    @risk.command(name="vacation", description="Take days off: your deadlines in this game move back")
    @app_commands.describe(days="How many days")
    async def risk_vacation(self, interaction: discord.Interaction[Any], days: app_commands.Range[int, 1, 60]) -> None:
        record = await self.game_here(interaction)
        seat = self.seat_of(record, interaction)
        limit = record.game().state.settings.vacation_days
        status = await self.store.take_vacation(record.id, seat, days, limit, self.clock())
        if record.game().state.current == seat:
            await self.scheduler.restart_timers(record)
        assert status.vacation_until is not None
        await interaction.response.send_message(
            _("🏖️ {player} is on vacation until <t:{t}:f>; their deadlines wait until then ({left} days left).",
              game_locale(record, interaction), player=interaction.user.display_name, t=int(status.vacation_until),
              left=limit - status.vacation_days))

    @risk.command(name="reinstate", description="Give a player replaced by the AI their seat back (host)")
    async def risk_reinstate(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        record = await self.game_here(interaction)
        self.require_host(record, interaction)
        record = await self.store.reinstate(record.id, player.id)
        await interaction.response.send_message(_("↩️ {player} has their seat back.", game_locale(record, interaction),
                                                  player=player.display_name))
        await self.scheduler.sync(record)

    @risk.command(name="notify", description="How the bot tells you it is your turn, and your quiet hours")
    @app_commands.describe(mode="mention in the channel, also a direct message, or nothing",
                           quiet_start="Quiet hours start, HH:MM", quiet_end="Quiet hours end, HH:MM",
                           timezone="Your time zone, e.g. Europe/Oslo")
    @app_commands.choices(mode=[app_commands.Choice(name=n, value=n) for n in ("mention", "dm", "off")])
    async def risk_notify(self, interaction: discord.Interaction[Any], mode: str | None = None,
                          quiet_start: str | None = None, quiet_end: str | None = None,
                          timezone: str | None = None) -> None:
        from dataclasses import replace
        prefs = await self.store.get_user_prefs(interaction.user.id)
        changes = {k: v for k, v in (("notify", mode), ("quiet_start", quiet_start), ("quiet_end", quiet_end),
                                     ("timezone", timezone)) if v is not None}
        prefs = await self.store.set_user_prefs(replace(prefs, **changes))
        quiet = f"{prefs.quiet_start}–{prefs.quiet_end} ({prefs.timezone or 'UTC'})" if prefs.quiet_start else "—"
        await interaction.response.send_message(
            _("Notifications: {mode}. Quiet hours: {quiet}.", interaction.locale, mode=prefs.notify, quiet=quiet),
            ephemeral=True)

    @risk.command(name="mygames", description="Your running games on this server, and whose turn it is")
    async def risk_mygames(self, interaction: discord.Interaction[Any]) -> None:
        locale = interaction.locale
        rows = []
        for record in await self.store.list_games("running", guild_id=interaction.guild_id, limit=200):
            if record.seat_of(interaction.user.id) is None or record.state is None:
                continue
            s = record.game().state
            timer = next((t for t in await self.store.game_deadlines(record.id) if t.kind.startswith("turn|")), None)
            mine = s.current == record.seat_of(interaction.user.id)
            line = f"<#{record.channel_id}> #{record.id}: " + (_("your turn", locale) if mine else
                                                               _("{player}'s turn", locale,
                                                                 player=seat_name(s, s.current, locale)))
            if timer is not None:
                line += " · " + _("ends <t:{t}:R>", locale, t=int(timer.due_at))
            rows.append(("0" if mine else "1") + line)
        text = "\n".join(r[1:] for r in sorted(rows)) or _("You are in no running game on this server.", locale)
        await interaction.response.send_message(clip(text.split("\n")), ephemeral=True)

    # == start-up: finish AI turns that a restart interrupted ==========================================
    async def resume_games(self) -> int:
        resumed = 0
        for record in await self.store.running_games():
            if record.state is None:
                continue
            game = record.game()
            if game.state.phase != OVER and record.player(game.state.current).is_ai:
                channel = self.bot.get_partial_messageable(record.channel_id)
                await self.after_turn(channel, record, [], actor=None)
                resumed += 1
        return resumed


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"lobby:(?P<gid>[0-9]+):(?P<verb>[a-z]+)"):
    def __init__(self, game_id: int, verb: str, *, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        super().__init__(discord.ui.Button(label=label or verb, style=style, custom_id=f"lobby:{game_id}:{verb}"))
        self.game_id = game_id
        self.verb = verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any],
                             match: Any, /) -> LobbyButton:
        return cls(int(match["gid"]), match["verb"], label=item.label or "", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from .errors import handle_error
        cog: RiskCog = interaction.client.get_cog("RiskCog")  # type: ignore[attr-defined]
        try:
            await cog.lobby_action(interaction, self.game_id, self.verb)
        except Exception as exc:
            await handle_error(interaction, exc, {"lobby": self.verb, "game": self.game_id})


async def setup(bot: commands.Bot) -> None:
    store: Store = bot.store  # type: ignore[attr-defined]
    bot.add_dynamic_items(LobbyButton)
    await bot.add_cog(RiskCog(bot, store, getattr(bot, "new_seed", None)))


__all__ = ["RiskCog", "setup"]
