"""The way into the live board (web/): ``/board`` and the turn panel's Board button, each answered privately with
a link that is the asker's alone (their seat in this game, or a spectator's view), signed and short-lived.

A link button on a public message would give everybody the same address, so the panel's button is an ordinary
button whose private answer carries the link. Loaded only when the bot's config gives the board a public address.
When the board is also a Discord Activity (``[web] client_id``), both answer by launching it instead: Discord opens
the board inside its own app, and the Activity learns who and where from Discord (web/activity.py).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord
from discord import app_commands, ui
from discord.ext import commands

from cogs.shared.errors import handle_error
from cogs.shared.guards import game_here, running_game
from present.i18n import _, language_of
from store import GameRecord, StoreReader
from table import Outcome
from table.outcome import PLAYER

BOARD_ID = r"riskboard:(?P<gid>[0-9]+)"


class BoardLinks(Protocol):
    """What the Discord side needs of the board's server (web/server.py): the store it reads and its links."""

    store: StoreReader

    @property
    def activity(self) -> bool: ...

    def link(self, game_id: int, user_id: int, seat: int | None, language: str) -> str: ...

    def link_minutes(self) -> int: ...


def server_of(client: object) -> BoardLinks | None:
    """The bot's board server, if the board is set up."""
    server: BoardLinks | None = getattr(client, "board", None)
    return server


async def send_link(interaction: discord.Interaction[Any], record: GameRecord) -> None:
    """The asker's own link to the game's board, privately: their seat, or as a spectator; or, when the board is
    a Discord Activity, the Activity launched for them (it finds the channel's game and their seat itself)."""
    server = server_of(interaction.client)
    locale = interaction.locale
    if server is None:
        await interaction.response.send_message(_("This game has no board to show.", locale), ephemeral=True)
        return
    if server.activity:
        await interaction.response.launch_activity()
        return
    seat = record.seat_of(interaction.user.id)
    url = server.link(record.id, interaction.user.id, seat, language_of(locale))
    minutes = server.link_minutes()
    if seat is None:
        text = _("Game #{id} as a spectator: the link opens the board once, within {minutes} minutes.", locale,
                 id=record.id, minutes=minutes)
    else:
        text = _("Your board for game #{id}: the link opens it once, within {minutes} minutes. Keep it to yourself.",
                 locale, id=record.id, minutes=minutes)
    view = ui.View(timeout=None)
    view.add_item(ui.Button(label=_("Open the board", locale), url=url, emoji="🗺️"))
    await interaction.response.send_message(text, view=view, ephemeral=True)


class BoardButton(ui.DynamicItem[ui.Button[Any]], template=BOARD_ID):
    """The turn panel's Board button: the same for everybody; its answer is each asker's own link."""

    def __init__(self, game_id: int, label: str = "Board") -> None:
        super().__init__(ui.Button(label=label, style=discord.ButtonStyle.secondary, emoji="🗺️",
                                   custom_id=f"riskboard:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> BoardButton:
        return cls(int(match["gid"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            server = server_of(interaction.client)
            if server is None:
                raise RuntimeError("a Board button without a board server")
            await send_link(interaction, await running_game(server.store, interaction, self.game_id))
        except Exception as exc:
            await handle_error(interaction, exc, {"button": "board", "game": self.game_id})


def add_board_button(client: object, view: discord.ui.View | None, game_id: int, locale: object) -> None:
    """Put the Board button on a turn panel's buttons (where a row has room), when the board is set up."""
    if view is None or server_of(client) is None:
        return
    items = [(child, getattr(child, "item", child)) for child in view.children]  # a DynamicItem wraps its item
    taken: dict[int, int] = {}
    for _child, inner in items:
        taken[inner.row or 0] = taken.get(inner.row or 0, 0) + (5 if isinstance(inner, ui.Select) else 1)
    row = next((r for r in range(5) if taken.get(r, 0) < 5), None)
    button = BoardButton(game_id, _("Board", locale))
    if row is None:  # no room: the board stands in for the Map button (the board is the map, and more)
        shown = next((child for child, inner in items if isinstance(inner, ui.Button)
                      and inner.custom_id == f"risk:{game_id}:map"), None)
        if shown is None:
            return
        row = getattr(shown, "item", shown).row
        view.remove_item(shown)
    button.item.row = row
    view.add_item(button)


class BoardCommands(commands.Cog):
    """``/board``: a top-level command (the ``/risk`` group holds the most subcommands Discord allows)."""

    def __init__(self, bot: commands.Bot, server: BoardLinks) -> None:
        self.bot = bot
        self.server = server

    @app_commands.command(name="board", description="Open this channel's game on the live board (a private link)")
    async def board(self, interaction: discord.Interaction[Any]) -> None:
        await send_link(interaction, await game_here(self.server.store, interaction))


class Publisher(Protocol):
    """What the board's news need of the announcer (``cogs/shared/announcer.py``)."""

    async def told(self, outcome: Outcome) -> None: ...

    async def publish(self, outcome: Outcome, *, told: bool = False, acted: bool = False) -> None: ...


class BoardNews:
    """The channel hears of a move made on the live board as of a tap on a message other than the turn panel: the
    panel follows the move and what it led to is posted (``Announcer.answer`` without the private answer: the board
    itself is the player's answer). What the board's server (``web.server.Channels``) is handed."""

    def __init__(self, announcer: Publisher) -> None:
        self.announcer = announcer

    async def board_move(self, outcome: Outcome) -> None:
        quiet = all(p.by == PLAYER for p in outcome.parts) and not outcome.ended and not outcome.calls_anew()
        if not quiet:
            await self.announcer.told(outcome)
        await self.announcer.publish(outcome, told=True, acted=True)
        if quiet:
            await self.announcer.told(outcome)


async def add_board(bot: commands.Bot, server: BoardLinks) -> None:
    """``/board`` and the turn panel's Board button, once the board's server is set up (``bot.py``)."""
    bot.add_dynamic_items(BoardButton)
    await bot.add_cog(BoardCommands(bot, server))


__all__ = ["BoardButton", "BoardCommands", "BoardNews", "add_board", "add_board_button", "send_link", "server_of"]
