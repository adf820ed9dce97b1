"""Refusals in the reader's words: the templates of the engine's, the store's, the table's and a map file's
refusals, with the territory names, phrases and game statuses in them translated and the names written for the
medium (``present/names.py``). The Discord layer answers them privately (``cogs/shared/errors.py``), the live board
in its page (``web/server.py``)."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping

from engine import RuleError, SettingsError
from engine.errors import Phrase, Territory
from mapfiles import MapFileError
from present.i18n import _, ngettext, pgettext, territory_name
from present.names import safe_name
from present.text import neutral_in_sentence, player_name
from store import DatabaseError, StoreError
from store.errors import StatusWord
from table import LimitReached, SeatRefused, VoteRefused


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


def refusal(exc: BaseException, locale: object | None) -> str | None:
    """The words of an expected refusal of the engine, the store, the table or a map file, in the reader's
    language (None for anything else, and for a fault of the host's database: no server path reaches a player)."""
    if isinstance(exc, DatabaseError) and "path" in exc.params:
        return None
    if isinstance(exc, RuleError):
        return translate_rule(exc, locale)
    if isinstance(exc, MapFileError) and exc.inner is not None:   # the engine's words about the board
        reason = translate_template(exc.inner.template, exc.inner.params, locale)
        return _(exc.template, locale, reason=reason)
    if isinstance(exc, LimitReached):  # the template in the plural its count needs
        return ngettext(exc.template, exc.plural, exc.count, locale)
    if isinstance(exc, (StoreError, MapFileError, VoteRefused, SeatRefused)):
        return translate_template(exc.template, exc.params, locale)
    if isinstance(exc, SettingsError):
        return str(exc)
    return None


__all__ = ["refusal", "translate_rule", "translate_template"]
