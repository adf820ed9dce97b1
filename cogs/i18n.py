"""The one translation function every user-facing string goes through.

Messages are written in English in the code and looked up in gettext catalogs (``locales/<lang>/LC_MESSAGES/
risk.mo``). A missing catalog or message falls back to English, never to a key or an empty string.
"""

from __future__ import annotations

import gettext
from functools import cache
from pathlib import Path
from typing import Any

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locales"
DOMAIN = "risk"
DEFAULT_LANGUAGE = "en"

# Discord locale codes to our catalog languages.
DISCORD_LOCALES = {"en-US": "en", "en-GB": "en", "no": "nb", "nb": "nb", "es-ES": "es", "es-419": "es"}


def language_of(locale: object | None) -> str:
    """Our language for a Discord locale (a ``discord.Locale`` or its string value)."""
    if locale is None:
        return DEFAULT_LANGUAGE
    code = str(getattr(locale, "value", locale))
    return DISCORD_LOCALES.get(code, code.split("-", maxsplit=1)[0] if code else DEFAULT_LANGUAGE)


@cache
def _catalog(language: str) -> gettext.NullTranslations:
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[language], fallback=True)


def _(message: str, locale: object | None = None, /, **values: Any) -> str:
    """Translate ``message`` for a locale and fill in its ``{placeholders}``."""
    text = _catalog(language_of(locale)).gettext(message) or message
    return text.format(**values) if values else text


def ngettext(singular: str, plural: str, n: int, locale: object | None = None, /, **values: Any) -> str:
    text = _catalog(language_of(locale)).ngettext(singular, plural, n)
    return text.format(n=n, **values)
