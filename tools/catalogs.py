"""The translation catalogs: every message of the bot, extracted from the code into ``locales/``.

``python -m tools.catalogs extract`` (or ``python tools/catalogs.py extract``) rebuilds ``locales/risk.pot`` from
the code (``_``, ``ngettext`` and ``pgettext`` calls), the command tree (names, descriptions, options, choices),
the board (territory and continent names), the rule texts and the refusals of the engine and the store, then
merges it into every ``locales/<lang>/LC_MESSAGES/risk.po``. ``python -m tools.catalogs check`` lists what is
missing. The bot reads the catalogs at run time (``present/i18n.py``, ``cogs/shared/translator.py``); it
never runs this.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from discord import app_commands  # noqa: E402

from present.i18n import (  # noqa: E402
    DOMAIN,
    LOCALE_DIR,
    MARKUP,
)

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

# Babel's keywords: for each function, which arguments are the message (and its plural, and its context, "c").
Keywords = dict[str, tuple[int | tuple[int, str], ...] | None]


def _source_messages() -> Iterator[tuple[str | tuple[str, ...], str | None, str]]:
    from babel.messages.extract import extract_from_dir

    from engine import errors
    from mapfiles import errors as map_errors
    from store import errors as store_errors
    from table import tournaments as table_refusals

    keywords: Keywords = {"_": (1,), "_plain": (1,), "_noop": (1,), "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
                          "_plural": (1, 2)}   # the table's refusals (table/refusals.py)
    # The refusals of the engine, the store and the map files: the first argument of every TemplateError (RuleError,
    # MapError, StoreError, MapFileError and theirs), and the phrases put into them.
    refusals = {name for module in (errors, store_errors, map_errors, table_refusals)
                for name, value in vars(module).items()
                if isinstance(value, type) and issubclass(value, errors.TemplateError)}
    keywords.update(dict.fromkeys(refusals, (1,)))
    keywords["_require"] = (2,)   # the engine's refusals of a map (engine/board.py)
    keywords["CompetitionError"] = (1,)   # a tournament's set-up refused (competition/model.py), told by the store
    keywords["Phrase"] = None
    # store/export.py, backup.py and upgrades.py are command-line tools: read in the console, in English.
    method_map = [("export.py", "ignore"), ("cli.py", "ignore"), ("backup.py", "ignore"), ("upgrades.py", "ignore"),
                  ("**.py", "python")]
    # competition/: only a tournament's set-up refusals (model.py) reach players; the rest are pairing checks.
    maps = {"competition": [("model.py", "python"), ("**.py", "ignore")]}
    for folder in ("cogs", "present", "engine", "store", "mapfiles", "web", "table", "competition"):
        for filename, _lineno, message, _comments, context in extract_from_dir(
                str(ROOT / folder), method_map=maps.get(folder, method_map), keywords=keywords):
            if folder not in ("cogs", "present") and not message:
                continue
            yield message, context, f"{folder}/{filename}"


def _tree_messages() -> list[tuple[str, str | None]]:
    """Names, descriptions, options and choices of every command the cog declares."""
    from cogs.risk import RiskCog

    out: list[tuple[str, str | None]] = []

    def walk(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> None:
        out.append((command.name, "command-name"))
        out.append((command.description, None))
        if isinstance(command, app_commands.Group):
            for sub in command.commands:
                walk(sub)
            return
        for p in command.parameters:
            out.append((p.display_name, "option-name"))
            out.append((p.description, None))
            for choice in p.choices:
                out.append((choice.name, "choice-name"))
    for command in RiskCog.__cog_app_commands__:
        walk(command)
    return out


def _board_messages() -> list[tuple[str, str]]:
    from engine import load_map

    board = load_map()
    out = [(t.name, "territory") for t in board.territories.values()]
    out += [(t.short, "territory-short") for t in board.territories.values()]
    out += [(c.name, "continent") for c in board.continents.values()]
    from render.labels import PANEL_WORDS
    out += [(w, "map") for w in PANEL_WORDS]
    return out


def _text_messages() -> list[str]:
    from cogs.game.rules_text import HELP_TEXT, PLAN_HELP, SUBSTITUTES_HELP, every_text

    return [*every_text(), HELP_TEXT, PLAN_HELP, SUBSTITUTES_HELP]


def build_template() -> Catalog:
    from babel.messages.catalog import Catalog

    template = Catalog(domain=DOMAIN, project="risk-bot", charset="utf-8")
    for message, context, where in _source_messages():
        template.add(message, locations=[(where, 0)], context=context)
    for text, ctx in _tree_messages():
        if text and text != "…":
            template.add(text, context=ctx, locations=[("command tree", 0)])
    for text, ctx in _board_messages():
        template.add(text, context=ctx, locations=[("engine/maps/classic.json", 0)])
    for text in _text_messages():
        template.add(text, locations=[("cogs/game/rules_text.py", 0)])
    from engine.settings import OPTIONS

    for option in OPTIONS:  # how players read each setting (its option's help is in the command tree)
        template.add(option.label, context="setting", locations=[("engine/settings.py", 0)])
        for text in (words for _value, words in option.words):
            template.add(text, locations=[("engine/settings.py", 0)])
    from engine.game import PHASE_WORDS

    for text in (*PHASE_WORDS.values(), " or ", "The number of armies", "The stop threshold"):
        template.add(text, locations=[("engine/game.py", 0)])
    from store.records import STATUS_WORDS

    for text in STATUS_WORDS.values():
        template.add(text, context="game-status", locations=[("store/records.py", 0)])
    return template


def extract() -> int:
    from babel.messages.pofile import read_po, write_po

    template = build_template()
    LOCALE_DIR.mkdir(exist_ok=True)
    with (LOCALE_DIR / f"{DOMAIN}.pot").open("wb") as f:
        write_po(f, template, omit_header=False, sort_output=True, width=120)
    for po_path in sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        with po_path.open("rb") as f:
            current = read_po(f, locale=po_path.parent.parent.name)
        current.update(template, no_fuzzy_matching=True)
        with po_path.open("wb") as f:
            write_po(f, current, sort_output=True, width=120, ignore_obsolete=True)
        print(f"updated {po_path.relative_to(ROOT)}")
    print(f"{len(template)} messages in {(LOCALE_DIR / f'{DOMAIN}.pot').relative_to(ROOT)}")
    return 0


PLACEHOLDER = re.compile(r"\{[a-z_]+(?::[^}]*)?\}")


def _forms(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """A message id or translation as its forms: one, or the singular and the plurals (None: one empty form)."""
    if text is None or isinstance(text, str):
        return (text or "",)
    return tuple(text)


def problems(language: str) -> list[str]:
    """Messages of the template with no translation in a language, or whose placeholders or the commands they
    name (``</risk new>``) differ."""
    from babel.messages.pofile import read_po

    with (LOCALE_DIR / f"{DOMAIN}.pot").open("rb") as f:
        template = read_po(f)
    po_path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not po_path.is_file():
        return [f"{po_path.relative_to(ROOT)} does not exist"]
    with po_path.open("rb") as f:
        translated = read_po(f, locale=language)
    out = []
    for message in template:
        if not message.id:
            continue
        found = translated.get(message.id, context=message.context)
        ids = _forms(message.id)
        strings = _forms(found.string) if found else ()
        if not found or not all(strings) or found.fuzzy:
            out.append(f"{language}: no translation for {message.context or ''}|{ids[0][:60]!r}")
            continue
        expected = sorted(PLACEHOLDER.findall(ids[-1]))
        commands = sorted(MARKUP.findall(ids[-1]))
        for s in strings:
            if sorted(PLACEHOLDER.findall(s)) != expected:
                out.append(f"{language}: placeholders differ in {ids[0][:60]!r}: {s[:60]!r}")
            if sorted(MARKUP.findall(s)) != commands:
                out.append(f"{language}: the commands named differ in {ids[0][:60]!r}: {s[:60]!r}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.catalogs", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("extract", "check"))
    args = parser.parse_args(argv)
    if args.command == "extract":
        return extract()
    found = [p for lang in sorted(d.name for d in LOCALE_DIR.iterdir() if d.is_dir()) for p in problems(lang)]
    print("\n".join(found) or "every message is translated")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
