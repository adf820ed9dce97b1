"""One error handler for every command, button and select.

A refusal of the rules (``RuleError``), of the store (``StoreError``), of the table or of the cog (``UserError``)
becomes a short private explanation (all but the cog's own in ``present/refusals.py``'s words). Anything else is
logged with its traceback and the interaction's options; the user gets a private apology with an error id. Nothing
is written when an action is refused. An error after a change was stored (``interaction.extras[CHANGED]``: the move
was applied, answering it failed) is never called a refusal: the apology says that the change stands, and what it
did (``extras[DONE]``). Only of a move that was not stored does it say that nothing was changed; elsewhere it
claims neither.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

from engine.errors import clip
from ops import metrics
from present.i18n import _
from present.refusals import refusal

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


def explain(exc: BaseException, locale: object | None = None) -> str | None:
    """The player-facing text of an expected refusal, or None for a real error. It always fits in a message,
    with the ⛔ before it."""
    while isinstance(exc, (app_commands.CommandInvokeError, app_commands.TransformerError)) and exc.__cause__:
        exc = exc.__cause__
    # the engine's, the store's, the table's refusals (none for a fault of the host's database: it gets an error id)
    text = refusal(exc, locale)
    if text is None:
        text = _discords_refusal(exc, locale)
    return None if text is None else clip(text, MESSAGE_LIMIT - len(REFUSED))


def _discords_refusal(exc: BaseException, locale: object | None) -> str | None:
    """A check of the Discord layer that failed: permissions, or the cog's own refusal (``UserError``)."""
    if isinstance(exc, app_commands.MissingPermissions):
        return _("Only members who can manage the server can do that.", locale)
    if isinstance(exc, app_commands.BotMissingPermissions):
        names = ", ".join(PERMISSION_NAMES.get(p, p) for p in exc.missing_permissions)
        return _("I need these permissions in this channel: {missing}.", locale, missing=names)
    if isinstance(exc, UserError) or (isinstance(exc, app_commands.CheckFailure) and str(exc)):
        return str(exc)
    return None


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
