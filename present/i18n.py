"""The one translation function every user-facing string goes through, and the catalogs behind it.

Messages are written in English in the code and looked up in gettext catalogs: ``locales/<lang>/LC_MESSAGES/
risk.po``, compiled in memory by Babel when first used. A missing catalog or message falls back to English,
never to a key or an empty string. Slash command names, descriptions and choices are translated by
``CatalogTranslator`` from the same catalogs (names with the context ``command-name`` and so on).

``python -m tools.catalogs extract`` collects every message into ``locales/risk.pot`` and merges it into each
language's catalog; see docs/translating.md.
"""

from __future__ import annotations

import gettext
import io
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.board import Board
    from render import Labels

LOCALE_DIR = Path(__file__).resolve().parents[1] / "locales"
DOMAIN = "risk"
DEFAULT_LANGUAGE = "en"

# Discord locale codes to our catalog languages.
DISCORD_LOCALES = {"en-US": "en", "en-GB": "en", "no": "nb", "nb": "nb", "es-ES": "es", "es-419": "es"}
LANGUAGES = {"en": "English", "nb": "Norsk bokmål", "es": "Español"}
# The Discord locales each language is offered for, when syncing localised command names.
DISCORD_LOCALES_OF = {"nb": ("no",), "es": ("es-ES", "es-419")}


# Commands named in a message: </name>, </name subcommand>, </name group subcommand>, English names in lower case.
# Formatting makes each the command's mention when its id is known, else its name (cogs/shared/commands.py fills
# the registry in when the bot starts).
MARKUP = re.compile(r"</([a-z][a-z0-9_-]*(?: [a-z][a-z0-9_-]*){0,2})>")


@dataclass
class Registry:
    ids: dict[str, int] = field(default_factory=dict)  # a top-level command's name to its id
    names: dict[str, dict[str, str]] = field(default_factory=dict)  # language to path to its localized path

    def clear(self) -> None:
        self.ids.clear()
        self.names.clear()


REGISTRY = Registry()


def name_of(path: str, language: str) -> str:
    """A command's path as a reader of ``language`` types it, with its slash: ``/risk ny``."""
    known = REGISTRY.names.get(language, {}).get(path)
    if known is None:
        known = " ".join(pgettext("command-name", part, language) for part in path.split())
    return "/" + known


def refer(path: str, language: str, *, mention: bool = True) -> str:
    """A command as a sentence names it: its mention when its id is known (and ``mention``), else its name."""
    command_id = REGISTRY.ids.get(path.split(maxsplit=1)[0]) if mention else None
    if command_id is not None:
        return f"</{path}:{command_id}>"
    return name_of(path, language)


def expand(text: str, language: str, *, mention: bool = True) -> str:
    """Every ``</path>`` of a formatted template, as ``refer`` gives it."""
    if "</" not in text:
        return text
    return MARKUP.sub(lambda m: refer(m.group(1), language, mention=mention), text)


def language_of(locale: object | None) -> str:
    """Our language for a Discord locale (a ``discord.Locale`` or its string value) or a language code."""
    if locale is None:
        return DEFAULT_LANGUAGE
    code = str(getattr(locale, "value", locale))
    if code in DISCORD_LOCALES:
        return DISCORD_LOCALES[code]
    base = code.split("-", maxsplit=1)[0].lower()
    base = {"no": "nb", "nn": "nb"}.get(base, base)
    return base if base in LANGUAGES else DEFAULT_LANGUAGE  # never a path from outside: only our catalogs


@cache
def catalog(language: str) -> gettext.NullTranslations:
    """The compiled catalog of a language (English: the messages themselves)."""
    po = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    if language == DEFAULT_LANGUAGE or not po.is_file():
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        parsed = read_po(f, locale=language)
    buffer = io.BytesIO()
    write_mo(buffer, parsed, use_fuzzy=False)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def _(message: str, locale: object | None = None, /, **values: object) -> str:
    """Translate ``message`` for a locale and fill in its ``{placeholders}``; a command it names (``</risk new>``)
    becomes its mention, or its name in the reader's language (``cogs/shared/commands.py``)."""
    language = language_of(locale)
    text = expand(catalog(language).gettext(message) or message, language)
    return text.format(**values) if values else text


def _plain(message: str, locale: object | None = None, /, **values: object) -> str:
    """As ``_``, for text where Discord shows no mention (a footer, a button, a web page): commands by name."""
    language = language_of(locale)
    text = expand(catalog(language).gettext(message) or message, language, mention=False)
    return text.format(**values) if values else text


def ngettext(singular: str, plural: str, n: int, locale: object | None = None, /, **values: object) -> str:
    language = language_of(locale)
    text = catalog(language).ngettext(singular, plural, n) or (singular if n == 1 else plural)
    return expand(text, language).format(n=n, **values)


def percent(value: float, locale: object | None = None, digits: int = 0) -> str:
    """A share as the reader writes it: 64.6% in English, 64,6 % in Norwegian and Spanish.

    A chance that is not certain never reads as certain: 0.99996 is 99% (99.9% with one digit), not 100%, and
    a chance above zero is at least 1% (0.1%)."""
    from babel import Locale
    from babel.numbers import format_percent

    step = 10.0 ** -(digits + 2)
    if 0 < value < 1:
        value = min(max(value, step), 1 - step) if (value >= 1 - step / 2 or value < step / 2) else value
    language = language_of(locale)
    pattern = Locale.parse(language).percent_formats[None].pattern
    if digits:
        pattern = pattern.replace("0", "0." + "0" * digits, 1)
    return str(format_percent(value, format=pattern, locale=language))


def decimal(value: float, locale: object | None = None, digits: int = 1) -> str:
    from babel.numbers import format_decimal

    return str(format_decimal(round(value, digits), format="#,##0." + "0" * digits, locale=language_of(locale)))


def integer(value: int, locale: object | None = None) -> str:
    """1,000,000 in English, 1 000 000 in Norwegian, 1.000.000 in Spanish."""
    from babel.numbers import format_decimal

    return str(format_decimal(value, format="#,##0", locale=language_of(locale)))


def pgettext(context: str, message: str, locale: object | None = None) -> str:
    """Translate with a context (``territory``, ``continent``, ``command-name`` ...)."""
    return catalog(language_of(locale)).pgettext(context, message) or message


def territory_name(board: Board, territory: str, locale: object | None = None, *, short: bool = False) -> str:
    """A territory's name in the reader's language: the map file's own translation (a server's map), else
    the catalog's (the classic map), else the English name."""
    given = board.territory_name_in(language_of(locale), territory, short=short)
    if given:
        return str(given)
    t = board.territories[territory]
    return pgettext("territory-short" if short else "territory", t.short if short else t.name, locale)


def continent_name(board: Board, continent: str, locale: object | None = None) -> str:
    given = board.continent_name_in(language_of(locale), continent)
    return str(given) if given else pgettext("continent", board.continents[continent].name, locale)


@cache
def map_labels(language: str, map_id: str = "classic") -> Labels:
    """The map's words in a language (territory short names, continents, the panel)."""
    from engine import load_map
    from render import Labels
    from render.labels import PANEL_WORDS

    if language == DEFAULT_LANGUAGE:
        return Labels()
    board = load_map(map_id)
    return Labels(key=language,
                  territories={t: territory_name(board, t, language, short=True) for t in board.territory_ids},
                  continents={c: continent_name(board, c, language) for c in board.continents},
                  words={w: pgettext("map", w, language) for w in PANEL_WORDS})


@cache
def _translated_names() -> dict[str, str]:
    """Territory names of every language (normalised) to territory ids, for names typed by hand."""
    from engine import load_map
    from engine.board import normalise_name

    board = load_map()
    out: dict[str, str] = {}
    for language in LANGUAGES:
        for t in board.territory_ids:
            for short in (False, True):
                out.setdefault(normalise_name(territory_name(board, t, language, short=short)), t)
    return out


def resolve_territory(board: Board, text: str) -> str:
    """A territory id from any name or alias in any of our languages ("Grønland", "Groenlandia", "Greenland").

    A name that is none is refused with the closest names of every language as suggestions ("Jpan": Japan).
    """
    from engine.board import normalise_name
    from engine.errors import UnknownTerritory

    if text in board.territories:
        return text
    try:
        return str(board.resolve(text))
    except UnknownTerritory as exc:
        names = {name: tid for name, tid in _translated_names().items() if tid in board.territories}
        key = normalise_name(text)
        if key in names:
            return names[key]
        matches = {tid for name, tid in names.items() if key and name.startswith(key)}
        if len(matches) == 1:
            return matches.pop()
        if exc.ambiguous:
            raise
        raise board.unknown(text, names) from None
