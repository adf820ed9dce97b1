"""Slash commands in the user's language: names, descriptions, options and choices from the gettext catalogs.

The catalogs are built from the code by ``python -m tools.catalogs extract`` (see docs/translating.md).
"""

from __future__ import annotations

import re

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from present.i18n import DISCORD_LOCALES, catalog, language_of

NAME_CONTEXTS = {Where.command_name: "command-name", Where.group_name: "command-name",
                 Where.parameter_name: "option-name", Where.choice_name: "choice-name"}
VALID_NAME = re.compile(r"^[-_\w]{1,32}$")


class CatalogTranslator(app_commands.Translator):
    """Command names, descriptions and choices from the gettext catalogs; None (English) when missing."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        language = DISCORD_LOCALES.get(locale.value)
        if language is None or language == "en":
            return None
        cat = catalog(language)
        message = string.message
        ctx = NAME_CONTEXTS.get(context.location)
        if ctx is not None:
            # A name may stay the same in a language ("risk"); an invalid one is never sent.
            text = cat.pgettext(ctx, message)
            if context.location != Where.choice_name and (not VALID_NAME.match(text) or text != text.lower()):
                return None
            return text
        return cat.gettext(message)


__all__ = ["CatalogTranslator", "language_of"]
