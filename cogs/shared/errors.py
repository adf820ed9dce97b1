"""One error handler for every command, button and select.

A refusal of the rules (``RuleError``), of the store (``StoreError``) or of the cog (``UserError``) becomes a
short private explanation. Anything else is logged with its traceback and the interaction's options; the
user gets a private apology with an error id. Nothing is written when an action is refused. An error after a
change was stored (``interaction.extras[CHANGED]``: the move was applied, answering it failed) is never called a
refusal: the apology says that the change stands, and what it did (``extras[DONE]``). Only of a move that was not
stored does it say that nothing was changed; elsewhere it claims neither.
"""

from __future__ import annotations

import contextlib
import logging
import re
import secrets
import time
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

from cogs.shared.i18n import _, ngettext, pgettext, territory_name
from cogs.shared.text import neutral_in_sentence, player_name, safe_name
from engine import RuleError, SettingsError
from engine.errors import Phrase, Territory, clip
from mapfiles import MapFileError
from ops import metrics
from store import DatabaseError, StoreError
from store.errors import StatusWord
from table import LimitReached, SeatRefused, VoteRefused

log = logging.getLogger("risk.errors")
ALREADY_ACKNOWLEDGED = 40060  # Discord's error code for a second answer to one interaction
ACK = "acknowledged"  # in ``interaction.extras``: how the first response went, (kind, private)
CHANGED = "changed"  # in ``interaction.extras``: True once the interaction's change is stored, False for a move not
#                       stored (yet); absent, the error handler claims neither
DONE = "done"  # in ``interaction.extras``: what the stored change did, in the user's words, should its answer fail

PERMISSION_NAMES = {"send_messages": "Send Messages", "attach_files": "Attach Files", "embed_links": "Embed Links",
                    "create_public_threads": "Create Public Threads",
                    "send_messages_in_threads": "Send Messages in Threads"}
MESSAGE_LIMIT = 2000  # the most characters Discord takes in a message
REFUSED = "⛔ "


class UserError(Exception):
    """A refusal the player should read, written in their words."""


async def acknowledge(interaction: discord.Interaction[Any], private: bool) -> None:
    """The first response, within Discord's 3 seconds; the answer follows. A command shows "thinking…" (to
    everybody, or to the user alone when ``private``); a button or menu shows nothing."""
    thinking = interaction.type != discord.InteractionType.component
    try:
        await interaction.response.defer(thinking=thinking, ephemeral=private)
    except discord.HTTPException as exc:
        if exc.code != ALREADY_ACKNOWLEDGED:  # a second delivery of an answered interaction: follow up
            raise
    interaction.extras[ACK] = ("thinking" if thinking else "update", private)


async def withdraw(interaction: discord.Interaction[Any]) -> None:
    """Remove a public "thinking…" answer that will not come, so what follows can be private. Discord gives the
    first follow-up after a deferral the deferral's visibility: the deferral is filled in first (with nothing to
    read), so that the private follow-ups are follow-ups of their own."""
    if interaction.extras.get(ACK) == ("thinking", False):
        with contextlib.suppress(discord.HTTPException):
            await interaction.edit_original_response(content="…")
            await interaction.delete_original_response()
        interaction.extras[ACK] = ("withdrawn", True)


async def reply_private(interaction: discord.Interaction[Any], text: str) -> None:
    await withdraw(interaction)
    if not interaction.response.is_done():
        try:
            await interaction.response.send_message(text, ephemeral=True)
            return
        except discord.HTTPException as exc:
            if exc.code != ALREADY_ACKNOWLEDGED:  # a second delivery: a follow-up still works
                raise
    await interaction.followup.send(text, ephemeral=True)


def translate_template(template: str, params: Mapping[str, object], locale: object | None, *,
                       plain: bool = False) -> str:
    """A refusal (of the rules or the store) in the reader's language: the template, and the territory names,
    phrases and game statuses in it. With ``plain`` (a medium without Discord's markup: the board) a timestamp
    reads as its time in UTC."""
    from engine import load_map

    values: dict[str, object] = {}
    for key, value in params.items():
        if isinstance(value, Territory):   # the classic map's names are translated; another map's stay as given
            board = load_map()
            values[key] = safe_name(territory_name(board, value.territory, locale)
                                    if value.territory in board.territories else str(value))
        elif isinstance(value, Phrase):
            values[key] = _(value.joiner, locale).join(_(part, locale) for part in value.parts)
        elif isinstance(value, StatusWord):
            values[key] = pgettext("game-status", str(value), locale)
        elif isinstance(value, str):  # a player's name or typed text: plain words, no markdown, no mention
            name = neutral_in_sentence(locale) if value == "Neutral" else player_name(value, True, locale)
            values[key] = safe_name(name)
        else:
            values[key] = value
    text = _(template, locale, **values)
    return TIMESTAMP.sub(plain_time, text) if plain else text


# Discord's timestamp markup, and how each of its styles reads without it: in UTC, the same in every language.
# (It reads the markup and makes none: ``[<]`` keeps tests/test_languages.py's search for made timestamps off it.)
TIMESTAMP = re.compile(r"[<]t:(-?\d+)(?::([tTdDfFR]))?>")
PLAIN_STYLES = {"t": "%H:%M UTC", "T": "%H:%M:%S UTC", "d": "%Y-%m-%d"}


def plain_time(match: re.Match[str]) -> str:
    """A Discord timestamp as plain text: its time of day, or date, or both, in UTC."""
    style = PLAIN_STYLES.get(match.group(2) or "f", "%Y-%m-%d %H:%M UTC")
    return time.strftime(style, time.gmtime(int(match.group(1))))


def translate_rule(exc: RuleError, locale: object | None, *, plain: bool = False) -> str:
    """A refusal of the rules in the reader's language: the template, territory names and phrases."""
    return translate_template(exc.template, exc.params, locale, plain=plain)


def explain(exc: BaseException, locale: object | None = None) -> str | None:
    """The player-facing text of an expected refusal, or None for a real error. It always fits in a message,
    with the ⛔ before it."""
    while isinstance(exc, (app_commands.CommandInvokeError, app_commands.TransformerError)) and exc.__cause__:
        exc = exc.__cause__
    if isinstance(exc, DatabaseError) and "path" in exc.params:
        return None  # a fault of the host's database: logged with an id, and no server path shown to a player
    if isinstance(exc, RuleError):
        text = translate_rule(exc, locale)
    elif isinstance(exc, MapFileError) and exc.inner is not None:   # the engine's words about the board
        reason = translate_template(exc.inner.template, exc.inner.params, locale)
        text = _(exc.template, locale, reason=reason)
    elif isinstance(exc, LimitReached):  # the template in the plural its count needs
        text = ngettext(exc.template, exc.plural, exc.count, locale)
    elif isinstance(exc, (StoreError, MapFileError, VoteRefused, SeatRefused)):
        text = translate_template(exc.template, exc.params, locale)
    elif isinstance(exc, app_commands.MissingPermissions):
        text = _("Only members who can manage the server can do that.", locale)
    elif isinstance(exc, app_commands.BotMissingPermissions):
        names = ", ".join(PERMISSION_NAMES.get(p, p) for p in exc.missing_permissions)
        text = _("I need these permissions in this channel: {missing}.", locale, missing=names)
    elif isinstance(exc, (UserError, SettingsError)) or (isinstance(exc, app_commands.CheckFailure) and str(exc)):
        text = str(exc)
    else:
        return None
    return clip(text, MESSAGE_LIMIT - len(REFUSED))


async def handle_error(interaction: discord.Interaction[Any], exc: BaseException,
                       context: Mapping[str, object] | None = None) -> None:
    changed = bool(interaction.extras.get(CHANGED))
    text = None if changed else explain(exc, interaction.locale)  # after a change, nothing is a refusal
    metrics.interaction_failed(interaction.type.value, refused=text is not None)
    if text is None:
        error_id = secrets.token_hex(4)
        data: Mapping[str, object] = interaction.data or {}
        log.error("error %s in %s by %s in channel %s%s: %r", error_id, context or data.get("name"),
                  interaction.user.id if interaction.user else None, interaction.channel_id,
                  " (after its change was stored)" if changed else "", data,
                  exc_info=(type(exc), exc, exc.__traceback__))
        if changed:
            text = _("Sorry, something went wrong on my side (error {id}) while telling what happened: it was done "
                     "and stands.", interaction.locale, id=error_id)
            done = interaction.extras.get(DONE)
            if done:
                text += "\n" + str(done)
        elif interaction.extras.get(CHANGED) is False:  # a move that was not stored
            text = _("Sorry, something went wrong on my side (error {id}). Nothing was changed.", interaction.locale,
                     id=error_id)
        else:  # whether anything was stored is not known here: nothing is claimed
            text = _("Sorry, something went wrong on my side (error {id}).", interaction.locale, id=error_id)
    else:
        text = REFUSED + text
    text = clip(text, MESSAGE_LIMIT)
    try:
        await reply_private(interaction, text)
    except discord.HTTPException:  # the interaction may have expired
        log.warning("could not answer interaction %s: %s", interaction.id, text)


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Make ``handle_error`` the command tree's error handler."""

    async def on_error(interaction: discord.Interaction[Any], error: app_commands.AppCommandError) -> None:
        await handle_error(interaction, error)

    tree.error(on_error)
