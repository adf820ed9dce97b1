"""Commands named inside sentences, as the reader's client shows them.

A message names a command with the markup ``</risk new>`` (its English path, as in the code). When the message is
formatted (``_``, ``ngettext``), each one becomes Discord's command mention ``</risk new:ID>``, which Discord shows
in the reader's own language and makes clickable, when the command's id is known; else the command's localized
name as the synced tree gives it (``/risk ny`` in Norwegian). ``_plain`` always gives the name: for the places
Discord shows no mention (an embed's footer, a button, a web page, an image).

The markup's expansion and what it reads (``REGISTRY``) are in ``present/i18n.py``, with the catalogs; this
module fills the registry in. The ids are Discord's: the running bot asks for its registered commands when it
starts (one request for the global commands, one for the development server of ``dev_guild``; ``bot.py sync`` is a
separate process) and keeps them for the life of the process. The localized names come from the tree itself (the
payload its translator gives, exactly what a sync registers).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from present.i18n import DISCORD_LOCALES_OF, REGISTRY

if TYPE_CHECKING:
    from discord import app_commands

log = logging.getLogger(__name__)


def _localized_paths(payload: dict[str, Any], prefix: tuple[str, ...] = ()) -> dict[str, dict[str, str]]:
    """Each path of a command's translated payload to its names per Discord locale (English when missing)."""
    path = (*prefix, payload["name"])
    out = {" ".join(path): {"": payload["name"], **(payload.get("name_localizations") or {})}}
    for option in payload.get("options") or []:
        if option.get("type") in (1, 2):  # a subcommand or a group of them
            out.update(_localized_paths(option, path))
    return out


async def learn_names(tree: app_commands.CommandTree[Any]) -> None:
    """The localized name of every command path, from the payload the tree's translator gives for a sync."""
    translator = tree.translator
    found: dict[str, dict[str, str]] = {}
    for command in tree.get_commands():
        if translator is None:
            continue
        found.update(_localized_paths(await command.get_translated_payload(tree, translator)))
    REGISTRY.names = {language: {path: _joined(path, found, locales[0]) for path in found}
                      for language, locales in DISCORD_LOCALES_OF.items()}


def _joined(path: str, found: dict[str, dict[str, str]], locale: str) -> str:
    parts = path.split()
    prefixes = [" ".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return " ".join(found[p].get(locale, found[p][""]) for p in prefixes)


async def learn_ids(tree: app_commands.CommandTree[Any], guild_ids: tuple[int, ...] = ()) -> None:
    """The ids of the commands registered with Discord: the global ones, then those of each server (for the names
    that are not global). A failed request leaves the names as they are: sentences then carry names."""
    import discord

    ids: dict[str, int] = {}
    for guild_id in (None, *guild_ids):
        try:
            registered = await tree.fetch_commands(guild=discord.Object(guild_id) if guild_id else None)
        except discord.HTTPException as exc:
            log.warning("could not fetch the registered commands%s: %s",
                        f" of server {guild_id}" if guild_id else "", exc)
            continue
        for command in registered:
            if command.type is discord.AppCommandType.chat_input:
                ids.setdefault(command.name, command.id)
    REGISTRY.ids = ids
    log.info("command mentions: %d commands registered", len(ids))


def forget() -> None:
    """The bot is closing: sentences go back to names (another bot of the process learns its own)."""
    REGISTRY.clear()


__all__ = ["forget", "learn_ids", "learn_names"]
