"""Discord's rules for registering application commands, checked as Discord checks them.

A bulk overwrite (``PUT /applications/{app}/commands``, and the guild route) is all or nothing: one field that
breaks a rule refuses the whole request with HTTP 400, code 50035 *Invalid Form Body*, and errors keyed by the
field's path (``0.options.2.name_localizations.es-ES``). The rules are those of Discord's documentation
(``interactions/application-commands.mdx``: Application Command Naming, the command, option and choice
structures, Localization, Registering a Command, the size warning of Slash Commands):

* a ``CHAT_INPUT`` command's, subcommand's, group's and option's name, and each of its localizations, matches
  ``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$`` and uses the lower case of every letter that has one
  (``USER`` and ``MESSAGE`` commands may use capitals and spaces, 1-32 characters);
* names are unique among siblings, and a localized option name differs from the other options' default names
  and from their names in that locale; top-level commands are unique by name and type, in every locale;
* descriptions of ``CHAT_INPUT`` commands and of options 1-100 characters, localized ones too (empty for
  ``USER`` and ``MESSAGE`` commands);
* at most 25 options, subcommands, groups or choices in one list; subcommands and groups are not mixed with
  other options; a group holds subcommands only, a subcommand no subcommands;
* required options before optional ones; ``required`` is not set on subcommands and groups;
* choices only on string, integer and number options, not with ``autocomplete``; a choice's name and its
  localizations 1-100 characters, a string value 1-100, a value of the option's type;
* ``min_length``/``max_length`` within 0-6000 and 1-6000; ``min_value`` not above ``max_value``;
* localization keys are Discord's locales;
* at most 8,000 characters per command: every name, description and choice value of the command, its options
  and choices, each field counted at its longest localization (the default value included);
* at most 100 ``CHAT_INPUT``, 15 ``USER`` and 15 ``MESSAGE`` commands per scope; the ``PRIMARY_ENTRY_POINT``
  command only global, one at most.

Discord documents the rules and the ``Invalid Form Body`` shape, not every error code: the codes below are
Discord's where its answers are known (``APPLICATION_COMMAND_INVALID_NAME``, ``APPLICATION_COMMANDS_DUPLICATE_NAME``,
``APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID``, ``APPLICATION_COMMAND_TOO_LARGE``, ``BASE_TYPE_MAX_LENGTH``...),
descriptive ones otherwise.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import discord

Errors = dict[str, tuple[str, str]]

CHAT_INPUT, USER, MESSAGE, PRIMARY_ENTRY_POINT = 1, 2, 3, 4
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, NUMBER = 3, 4, 10
OPTION_TYPES = set(range(1, 12))
MAX_NAME = 32
MAX_DESCRIPTION = 100
MAX_OPTIONS = 25
MAX_CHOICES = 25
MAX_CHOICE_NAME = 100
MAX_CHOICE_VALUE = 100
MAX_COMMAND_SIZE = 8000
MAX_COMMANDS = {CHAT_INPUT: 100, USER: 15, MESSAGE: 15, PRIMARY_ENTRY_POINT: 1}
MAX_STRING_LENGTH = 6000
LOCALES = frozenset(locale.value for locale in discord.Locale)
_PUNCTUATION = frozenset("-_'")
# \p{sc=Deva} and \p{sc=Thai}: the letters are \p{L} already; these add the scripts' marks and digits. Python's
# unicodedata has no Script property, so the script's blocks, less the characters of other scripts in them.
_DEVANAGARI = ((0x0900, 0x0950), (0x0955, 0x0963), (0x0966, 0x097F), (0xA8E0, 0xA8FF), (0x11B00, 0x11B09))
_THAI = ((0x0E01, 0x0E3A), (0x0E40, 0x0E5B))


def _in_script(code: int) -> bool:
    return any(low <= code <= high for low, high in (*_DEVANAGARI, *_THAI))


def valid_name_character(character: str) -> bool:
    """One character of ``[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]``."""
    return (character in _PUNCTUATION or unicodedata.category(character)[0] in "LN"
            or _in_script(ord(character)))


def name_problem(name: Any, command_type: int = CHAT_INPUT) -> str | None:
    """Why Discord refuses ``name`` as a command or option name, or None."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME:
        return "Must be between 1 and 32 in length."
    if command_type in (USER, MESSAGE):
        return None  # context menus may use capitals and spaces
    if not all(valid_name_character(c) for c in name):
        return "Command name is invalid"
    if name != name.lower():
        return "Command name is invalid"  # a letter with a lower case must use it
    return None


def _text_length(text: Any, low: int, high: int) -> str | None:
    if not isinstance(text, str) or not low <= len(text) <= high:
        if isinstance(text, str) and len(text) > high:
            return f"Must be {high} or fewer in length."
        return f"Must be between {low} and {high} in length."
    return None


def _length_problem(low: int, high: int) -> Callable[[Any], tuple[str, str] | None]:
    def problem_of(text: Any) -> tuple[str, str] | None:
        problem = _text_length(text, low, high)
        return None if problem is None else ("BASE_TYPE_BAD_LENGTH", problem)
    return problem_of


class _Check:
    """The errors of one request, keyed by their field's path."""

    def __init__(self) -> None:
        self.errors: Errors = {}

    def add(self, path: str, code: str, message: str) -> None:
        self.errors.setdefault(path, (code, message))

    def localized(self, node: Mapping[str, Any], key: str, path: str,
                  problem_of: Callable[[Any], tuple[str, str] | None]) -> None:
        """A field and each of its localizations (``name_localizations``...), every one checked by ``problem_of``."""
        problem = problem_of(node.get(key))
        if problem is not None:
            self.add(f"{path}{key}", *problem)
        for locale, text in self.localizations(node, f"{key}_localizations", path).items():
            problem = problem_of(text)
            if problem is not None:
                self.add(f"{path}{key}_localizations.{locale}", *problem)

    def name(self, node: Mapping[str, Any], path: str, command_type: int = CHAT_INPUT) -> None:
        def problem_of(text: Any) -> tuple[str, str] | None:
            problem = name_problem(text, command_type)
            if problem is None:
                return None
            return "BASE_TYPE_BAD_LENGTH" if problem.startswith("Must") else "APPLICATION_COMMAND_INVALID_NAME", problem
        self.localized(node, "name", path, problem_of)

    def description(self, node: Mapping[str, Any], path: str, *, empty: bool = False) -> None:
        if empty:
            if node.get("description") not in (None, ""):
                self.add(f"{path}description", "APPLICATION_COMMAND_DESCRIPTION_INVALID",
                         "Context menu commands cannot have a description")
            return
        self.localized(node, "description", path, _length_problem(1, MAX_DESCRIPTION))

    def localizations(self, node: Mapping[str, Any], key: str, path: str) -> dict[str, Any]:
        found = node.get(key)
        if found is None:
            return {}
        if not isinstance(found, Mapping):
            self.add(f"{path}{key}", "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            return {}
        unknown = sorted(str(k) for k in found if k not in LOCALES)
        for locale in unknown:
            self.add(f"{path}{key}.{locale}", "ENUM_TYPE_COERCE", f"Value \"{locale}\" is not a valid enum value.")
        return {str(k): v for k, v in found.items() if k in LOCALES}

    def unique_names(self, siblings: Sequence[Mapping[str, Any]], path: str, code: str, message: str) -> None:
        """Names unique among siblings: by default name, and in each locale a localized name differs from the
        other siblings' default names and from their names in that locale."""
        default = [str(s.get("name")) for s in siblings]
        for index, name in enumerate(default):
            if name in default[:index]:
                self.add(f"{path}{index}.name", code, message)
        locales = {str(k) for s in siblings for k in (s.get("name_localizations") or {})}
        for locale in sorted(locales):
            shown = [str((s.get("name_localizations") or {}).get(locale) or s.get("name")) for s in siblings]
            for index, sibling in enumerate(siblings):
                localized = (sibling.get("name_localizations") or {}).get(locale)
                if localized is None:
                    continue
                others = [n for i, n in enumerate(default) if i != index] + \
                         [n for i, n in enumerate(shown) if i != index]
                if localized in others:
                    self.add(f"{path}{index}.name_localizations.{locale}", code, message)

    def options(self, options: Any, path: str, depth: int) -> None:
        """An ``options`` list: of a command (depth 0), a group (1) or a subcommand (2, no subcommands)."""
        where = f"{path}options"
        if not isinstance(options, list):
            self.add(where, "BASE_TYPE_ARRAY", "Must be an array.")
            return
        if len(options) > MAX_OPTIONS:
            self.add(where, "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_OPTIONS} or fewer in length.")
        kinds = [int(o.get("type") or 0) if isinstance(o, Mapping) else 0 for o in options]
        nested = [k in (SUB_COMMAND, SUB_COMMAND_GROUP) for k in kinds]
        if any(nested) and not all(nested):
            self.add(where, "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
                     "Sub-command and sub-command group option types are mutually exclusive to all other types")
        optional_seen = False
        for index, option in enumerate(options):
            here = f"{where}.{index}."
            if not isinstance(option, Mapping):
                self.add(f"{where}.{index}", "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
                continue
            kind = kinds[index]
            if kind not in OPTION_TYPES:
                self.add(f"{here}type", "ENUM_TYPE_COERCE", f"Value \"{kind}\" is not a valid enum value.")
                continue
            if (depth == 1 and kind != SUB_COMMAND) or (depth == 2 and kind in (SUB_COMMAND, SUB_COMMAND_GROUP)):
                self.add(f"{here}type", "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                         "A sub-command group holds sub-commands only, and a sub-command no sub-commands")
            self.name(option, here)
            self.description(option, here)
            if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
                if option.get("required") is not None:
                    self.add(f"{here}required", "APPLICATION_COMMAND_OPTION_REQUIRED_INVALID",
                             "Sub-commands and sub-command groups cannot be required")
                self.options(option.get("options") or [], here, 1 if kind == SUB_COMMAND_GROUP else 2)
                continue
            if option.get("options"):
                self.add(f"{here}options", "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                         "Only sub-commands and sub-command groups have options")
            if option.get("required"):
                if optional_seen:
                    self.add(f"{where}.{index}", "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                             "Required options must be placed before non-required options")
            else:
                optional_seen = True
            self.value_rules(option, here, kind)
        self.unique_names([o for o in options if isinstance(o, Mapping)], f"{where}.",
                          "APPLICATION_COMMAND_OPTION_NAME_DUPLICATED", "Option names must be unique, in every locale")

    def value_rules(self, option: Mapping[str, Any], here: str, kind: int) -> None:
        choices = option.get("choices")
        if choices:
            if kind not in (STRING, INTEGER, NUMBER):
                self.add(f"{here}choices", "APPLICATION_COMMAND_OPTION_CHOICES_INVALID",
                         "Only string, integer and number options have choices")
            if option.get("autocomplete"):
                self.add(f"{here}autocomplete", "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
                         "Autocomplete cannot be enabled on an option with choices")
            if len(choices) > MAX_CHOICES:
                self.add(f"{here}choices", "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_CHOICES} or fewer in length.")
            for number, choice in enumerate(choices):
                self.choice(choice, f"{here}choices.{number}.", kind)
        for key, low, high in (("min_length", 0, MAX_STRING_LENGTH), ("max_length", 1, MAX_STRING_LENGTH)):
            value = option.get(key)
            if value is not None and (kind != STRING or not isinstance(value, int) or not low <= value <= high):
                self.add(f"{here}{key}", "NUMBER_TYPE_MAX" if isinstance(value, int) else "NUMBER_TYPE_COERCE",
                         f"Must be between {low} and {high}, on a string option.")
        low_value, high_value = option.get("min_value"), option.get("max_value")
        for key, value in (("min_value", low_value), ("max_value", high_value)):
            if value is not None and kind not in (INTEGER, NUMBER):
                self.add(f"{here}{key}", "APPLICATION_COMMAND_OPTION_INVALID",
                         "Only integer and number options have a minimum or maximum value")
        if isinstance(low_value, int | float) and isinstance(high_value, int | float) and low_value > high_value:
            self.add(f"{here}min_value", "APPLICATION_COMMAND_OPTION_MIN_MAX_INVALID",
                     "The minimum value must not exceed the maximum value")

    def choice(self, choice: Any, here: str, kind: int) -> None:
        if not isinstance(choice, Mapping):
            self.add(here.rstrip("."), "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            return
        self.localized(choice, "name", here, _length_problem(1, MAX_CHOICE_NAME))
        value = choice.get("value")
        if kind == STRING:
            problem = _text_length(value, 1, MAX_CHOICE_VALUE)
            if problem is not None:
                self.add(f"{here}value", "BASE_TYPE_BAD_LENGTH", problem)
        elif kind == INTEGER and (not isinstance(value, int) or isinstance(value, bool)):
            self.add(f"{here}value", "NUMBER_TYPE_COERCE", f"Value \"{value}\" is not int.")
        elif kind == NUMBER and (not isinstance(value, int | float) or isinstance(value, bool)):
            self.add(f"{here}value", "NUMBER_TYPE_COERCE", f"Value \"{value}\" is not a number.")

    def command(self, command: Any, path: str, *, guild: bool) -> None:
        if not isinstance(command, Mapping):
            self.add(path.rstrip(".") or "", "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            return
        kind = int(command.get("type") or CHAT_INPUT)
        if kind not in MAX_COMMANDS:
            self.add(f"{path}type", "ENUM_TYPE_COERCE", f"Value \"{kind}\" is not a valid enum value.")
            return
        if kind == PRIMARY_ENTRY_POINT and guild:
            self.add(f"{path}type", "APPLICATION_COMMAND_TYPE_INVALID", "Entry Point commands can only be global")
        self.name(command, path, kind)
        if kind == CHAT_INPUT:
            self.description(command, path)
            self.options(command.get("options") or [], path, 0)
            size = command_size(command)
            if size > MAX_COMMAND_SIZE:
                self.add(path.rstrip("."), "APPLICATION_COMMAND_TOO_LARGE",
                         f"Command exceeds maximum size ({MAX_COMMAND_SIZE})")
        else:
            if kind in (USER, MESSAGE):
                self.description(command, path, empty=True)
            if command.get("options"):
                self.add(f"{path}options", "APPLICATION_COMMAND_OPTIONS_INVALID",
                         "Only CHAT_INPUT commands have options")


def _longest(node: Mapping[str, Any], key: str) -> int:
    texts = [node.get(key), *(node.get(f"{key}_localizations") or {}).values()]
    return max((len(str(t)) for t in texts if t is not None), default=0)


def command_size(command: Mapping[str, Any]) -> int:
    """Discord's size of a slash command: its name, description and each option's and choice's, and each choice's
    value, every field counted at its longest localization (the default value included)."""
    size = _longest(command, "name") + _longest(command, "description")
    for option in command.get("options") or []:
        size += command_size(option)
    for choice in command.get("choices") or []:
        size += _longest(choice, "name") + len(str(choice.get("value", "")))
    return size


def bulk_errors(commands: Any, *, guild: bool) -> Errors:
    """What Discord refuses in a bulk overwrite of one scope's commands (global, or one guild's)."""
    check = _Check()
    if not isinstance(commands, list):
        check.add("", "BASE_TYPE_ARRAY", "Must be an array.")
        return check.errors
    for index, command in enumerate(commands):
        check.command(command, f"{index}.", guild=guild)
    typed = [c for c in commands if isinstance(c, Mapping)]
    for kind, limit in MAX_COMMANDS.items():
        count = sum(1 for c in typed if int(c.get("type") or CHAT_INPUT) == kind)
        if count > limit:
            check.add("", "BASE_TYPE_MAX_LENGTH", f"At most {limit} commands of type {kind} in one scope")
    for kind in MAX_COMMANDS:
        siblings = [c for c in typed if int(c.get("type") or CHAT_INPUT) == kind]
        index_of = [i for i, c in enumerate(commands) if isinstance(c, Mapping)
                    and int(c.get("type") or CHAT_INPUT) == kind]
        sub = _Check()
        sub.unique_names(siblings, "", "APPLICATION_COMMANDS_DUPLICATE_NAME",
                         "Application command names must be unique")
        for path, error in sub.errors.items():
            position, rest = path.split(".", 1)
            check.add(f"{index_of[int(position)]}.{rest}", *error)
    return check.errors


def command_errors(command: Any, *, guild: bool, others: Sequence[Mapping[str, Any]] = ()) -> Errors:
    """What Discord refuses in one command created or edited alone; ``others`` are the scope's other commands
    (its name must differ from theirs of its type, in every locale)."""
    check = _Check()
    check.command(command, "", guild=guild)
    if isinstance(command, Mapping) and not check.errors:
        kind = int(command.get("type") or CHAT_INPUT)
        siblings = [c for c in others if int(c.get("type") or CHAT_INPUT) == kind]
        sub = _Check()
        sub.unique_names([*siblings, command], "", "APPLICATION_COMMANDS_DUPLICATE_NAME",
                         "Application command names must be unique")
        last = f"{len(siblings)}."
        for path, error in sub.errors.items():
            if path.startswith(last):
                check.add(path[len(last):], *error)
    return check.errors


__all__ = [
    "LOCALES",
    "MAX_COMMANDS",
    "MAX_COMMAND_SIZE",
    "Errors",
    "bulk_errors",
    "command_errors",
    "command_size",
    "name_problem",
    "valid_name_character",
]
