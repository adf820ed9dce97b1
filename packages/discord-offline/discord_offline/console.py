"""A text console on the offline Discord: type slash commands, press buttons, read the bot's answers.

Input, one action per line::

    [#channel] [@user] /command [subcommand] option:value option:"two words"
    [@user] click LABEL                  press a button on the newest message that user sees
    [@user] select VALUE [VALUE...]      choose in the newest select menus that user sees (the first that
                                         offers it): a label, a value, or the start of a name (select peru,
                                         select "south af")
    [@user] submit field:value ...       fill and send the form (modal) the bot opened
    [#channel] [@user] complete /command option:partial
                                         show the bot's suggestions for the last option (a suggestion's
                                         name typed in full as an option's value sends its value)
    [@user] locale CODE                  the user's client language from now on (en-US, no, es-ES...)
    [@user] perm NAME [NAME...]          give the user server permissions by discord.py's names (perm @bob
                                         manage_guild); -NAME takes one away, perm none leaves a plain member's
    advance DURATION                     move the bot's clock forward (25h, 90m, 2d) and run what fell due
    help                                 this text and the list of commands
    quit | exit

    A line without @user is typed by @alice, the default user; without #channel it goes to #general.
    Commands and options may be typed in English or in the user's language (after locale no:
    /plasser territorium:Egypt).

Blank lines and comments (``# ...``) are skipped. Each line runs to completion, including the background work
it starts, before the next is read. Files the bot uploads are saved under the output directory, numbered on
from the highest number already there (``0001-map.png``, ``0002-map.png``...), so a new session never
overwrites an earlier one.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import textwrap
import unicodedata
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import discord
from discord import app_commands

from discord_offline.harness import OfflineDiscord
from discord_offline.records import OfflineError, OfflineMessage, Step, embed_lines, modal_fields
from discord_offline.server import MEMBER_PERMISSIONS

SYNTAX = textwrap.dedent(__doc__.split("::", 1)[1].split("Blank lines", 1)[0]).strip() if __doc__ else ""
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_MARKUP = re.compile(r"<(@!?|@&|#)(\d+)>")
_NUMBERED = re.compile(r"^(\d{4,})-")
# What follows a name in a menu label: an army count "(3)", or details after " · ".
_LABEL_TAIL = re.compile(r"\s*\(\d+\).*$|\s+·\s.*$")
_SUBCOMMAND, _GROUP = 1, 2


def fold(text: str) -> str:
    """Text compared loosely: case, accents and kinds of spaces ignored (``"Perú (3)"`` -> ``"peru (3)"``)."""
    decomposed = unicodedata.normalize("NFKD", str(text))
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(plain.casefold().split())


def label_name(label: str) -> str:
    """The name in a menu label, without an army count or details: ``"Egypt (3) · Bob · 64%"`` -> ``"Egypt"``."""
    return _LABEL_TAIL.sub("", str(label)).strip() or str(label)


@dataclass
class Token:
    """A word of an input line; ``colon`` is the index of its first unquoted ``:`` (None if there is none)."""

    text: str
    colon: int | None
    quoted: bool


def tokenize(line: str) -> list[Token]:
    """Split on spaces; ``"..."`` or ``'...'`` at the start of a word or right after ``name:`` quotes it."""
    tokens: list[Token] = []
    text: list[str] = []
    colon: int | None = None
    quoted = False
    started = False
    index = 0
    while index < len(line):
        char = line[index]
        if char.isspace():
            if started:
                tokens.append(Token("".join(text), colon, quoted))
                text, colon, quoted, started = [], None, False, False
            index += 1
            continue
        at_value = not text or (colon is not None and len(text) == colon + 1)
        if char in "\"'" and at_value:
            end = index + 1
            chunk: list[str] = []
            while end < len(line) and line[end] != char:
                if line[end] == "\\" and end + 1 < len(line) and line[end + 1] in (char, "\\"):
                    end += 1
                chunk.append(line[end])
                end += 1
            if end >= len(line):
                raise OfflineError(f"unclosed quote {char} in: {line}")
            text.extend(chunk)
            quoted, started = True, True
            index = end + 1
            continue
        if char == ":" and colon is None:
            colon = len(text)
        text.append(char)
        started = True
        index += 1
    if started:
        tokens.append(Token("".join(text), colon, quoted))
    return tokens


def parse_duration(text: str) -> float:
    """``90s``, ``15m``, ``25h``, ``2d`` (or combinations like ``1d6h``) in seconds."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    parts = re.findall(r"(\d+(?:\.\d+)?)([smhd])", text.lower())
    if not parts or "".join(n + u for n, u in parts) != text.lower():
        raise OfflineError(f"not a duration: {text!r} (use s, m, h or d, e.g. 25h)")
    return sum(float(n) * units[u] for n, u in parts)


class Console:
    """Reads input lines, runs them on an :class:`OfflineDiscord` and writes what users would see."""

    def __init__(self, discord_: OfflineDiscord, out_dir: Path, write: Callable[[str], Any] = print) -> None:
        self.discord = discord_
        self.out_dir = out_dir
        self.write = write
        self.saved: dict[tuple[int, int], Path] = {}
        self.default_user = "alice"
        self.default_channel = "general"
        self._number: int | None = None
        self._payloads: list[dict[str, Any]] | None = None

    # ------------------------------------------------------------------ input

    async def execute(self, line: str) -> bool:
        """Run one input line; False when the console should stop."""
        stripped = line.strip()
        if not stripped or stripped == "#" or stripped.startswith("# "):
            return True
        try:
            return await self._execute(stripped)
        except OfflineError as error:
            self.write(f"error: {error}")
        except Exception as error:  # the console must survive anything one line does
            self.write(f"error: {type(error).__name__}: {error}")
        return True

    async def _execute(self, line: str) -> bool:
        tokens = tokenize(line)
        channel, user = self.default_channel, self.default_user
        rest_at = 0
        for token in tokens:
            if token.quoted or len(token.text) < 2 or token.text[0] not in "#@":
                break
            if token.text[0] == "#":
                channel = token.text[1:]
            else:
                user = token.text[1:]
            rest_at += 1
        tokens = tokens[rest_at:]
        if not tokens:
            raise OfflineError("nothing to do after the channel and user; type help")
        verb = tokens[0].text
        remainder = self._remainder(line, rest_at + 1)
        lowered = verb.lower() if not tokens[0].quoted else ""
        if lowered in ("quit", "exit"):
            return False
        if lowered == "help":
            self.help()
        elif lowered == "click":
            if not remainder:
                raise OfflineError("click what? e.g. click Attack")
            self.show(await self.discord.click(user, self._unquote(remainder)))
        elif lowered == "select":
            await self._select(user, remainder, tokens[1:])
        elif lowered == "locale":
            if len(tokens) != 2:
                raise OfflineError("usage: [@user] locale CODE, e.g. locale no")
            self.discord.set_locale(user, tokens[1].text)
            self.write(f"@{self.discord.user(user).name} now uses locale {tokens[1].text}")
        elif lowered == "perm":
            self._permissions(user, tokens[1:])
        elif lowered == "submit":
            values = self._options(tokens[1:], "submit")
            self.show(await self.discord.submit_form(user, values))
        elif lowered == "complete":
            await self._complete(user, channel, tokens[1:])
        elif lowered == "advance":
            await self._advance(tokens[1:])
        elif verb.startswith("/") and not tokens[0].quoted:
            path, options = await self._command(user, tokens)
            options = await self._suggested(user, channel, path, options)
            self.show(await self.discord.send_command(user, channel, path, options))
        else:
            raise OfflineError(f"cannot read {line!r}: a line is /command, click, select, complete, locale, "
                               "perm, advance, help or quit")
        return True

    async def _suggested(self, user: str, channel: str, path: str, options: dict[str, str]) -> dict[str, str]:
        """An option with suggestions, typed as one of their names, carries that suggestion's value, as picking it
        from the list does in Discord (``/game remove name:"Big Map"`` sends the id the list gives for it)."""
        _command, specs = self.discord.find_command(path)
        chosen = dict(options)
        for spec in specs:
            name = spec.get("name")
            if not spec.get("autocomplete") or name not in chosen:
                continue
            choices = await self.discord.autocomplete(user, channel, path, chosen, focused=str(name))
            named = [c for c in choices if fold(str(c.get("name"))) == fold(chosen[str(name)])]
            if len(named) == 1:
                chosen[str(name)] = str(named[0].get("value"))
        return chosen

    def _permissions(self, user: str, tokens: list[Token]) -> None:
        """``perm manage_guild``: the user's server permissions, a plain member's with these added (or, after a
        ``-``, taken away); ``perm none``: a plain member's again. The user may also follow ``perm``."""
        if tokens and tokens[0].text.startswith("@") and len(tokens[0].text) > 1:
            user, tokens = tokens[0].text[1:], tokens[1:]
        if not tokens:
            raise OfflineError("usage: [@user] perm NAME [NAME...], e.g. perm @bob manage_guild; -NAME takes one "
                               "away, perm none leaves a plain member's")
        member = self.discord.user(user)
        current = discord.Permissions(self.discord.server.permissions_of(member).value)
        changes: dict[str, bool] = {}
        for token in tokens:
            name = token.text.lstrip("+-").lower()
            if name == "none":
                current = discord.Permissions(MEMBER_PERMISSIONS.value)
                continue
            if name not in discord.Permissions.VALID_FLAGS:
                raise OfflineError(f"no permission {name!r}; e.g. manage_guild, manage_channels, administrator")
            changes[name] = not token.text.startswith("-")
        granted = self.discord.set_permissions(member, current, **changes)
        extra = [name for name, on in granted if on and not getattr(MEMBER_PERMISSIONS, name)]
        missing = [name for name, on in granted if not on and getattr(MEMBER_PERMISSIONS, name)]
        said = ", ".join([*extra, *(f"not {name}" for name in missing)]) or "nothing more"
        self.write(f"@{member.name} has a member's permissions and {said}")

    async def _advance(self, tokens: list[Token]) -> None:
        """``advance 25h``: move the bot's clock forward (``advance_time``) and show what happened."""
        if len(tokens) != 1:
            raise OfflineError("usage: advance DURATION, e.g. advance 25h, advance 90m, advance 2d")
        seconds = parse_duration(tokens[0].text)
        bot: Any = self.discord.bot
        if not hasattr(bot, "advance_time"):
            raise OfflineError("this bot has no clock to move")
        step = await self.discord.run(bot.advance_time(seconds))
        self.write(f"(the clock moved {tokens[0].text} forward)")
        self.show(step)

    @staticmethod
    def _remainder(line: str, words: int) -> str:
        """The raw text after the first ``words`` words (labels keep their spacing)."""
        rest = line
        for _ in range(words):
            rest = rest.lstrip()
            match = re.match(r'("[^"]*"|\'[^\']*\'|\S)*', rest)
            rest = rest[match.end() if match else 0:]
        return rest.strip()

    @staticmethod
    def _unquote(text: str) -> str:
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            return text[1:-1]
        return text

    async def _select(self, user: str, remainder: str, tokens: list[Token]) -> None:
        if not tokens:
            raise OfflineError("select what? e.g. select Brazil")
        whole = self._unquote(remainder)
        try:
            custom_id, value = self.menu_value(user, whole)
            step = await self.discord.select(user, [value], custom_id=custom_id)
        except OfflineError as error:
            if len(tokens) == 1:
                raise
            try:  # several values, one a word
                chosen = [self.menu_value(user, t.text) for t in tokens]
                step = await self.discord.select(user, [v for _, v in chosen], custom_id=chosen[0][0])
            except OfflineError:
                raise error from None
        self.show(step)

    def menu_value(self, user: str, text: str) -> tuple[str | None, str]:
        """The select menu (its custom id) and the option of it that ``text`` names, among the menus of the newest
        message with menus that ``user`` sees: the first menu naming it (a message may carry several, as a
        lobby's Add AI and Change a setting). None for the menu when none names it: the newest.

        An exact value or label is kept as typed. Otherwise the option is found by its name, the label without an
        army count or details, ignoring case and accents: the whole name or an unambiguous start of it.
        """
        shown = next((m for m in reversed(self.discord.visible_to(user)) if m.selects), None)
        menus = [m for m in (shown.selects if shown is not None else []) if m.get("kind") == "string"]
        for menu in menus:
            value = self._option(menu.get("options") or [], text)
            if value is not None:
                return str(menu["custom_id"]), value
        return None, text  # the offline Discord says which options there are

    @staticmethod
    def _option(options: list[dict[str, Any]], text: str) -> str | None:
        """The value of the option ``text`` names, None if none does."""
        if any(o["value"] == text or text.casefold() in (str(o["label"]).casefold(), str(o["value"]).casefold())
               for o in options):
            return text
        wanted = fold(text)
        if not wanted:
            return None
        names = [(o, fold(label_name(o["label"])), fold(o["label"]), fold(o["value"])) for o in options]
        found = [o for o, name, label, value in names if wanted in (name, label, value)]
        if not found:
            found = [o for o, name, label, _ in names if name.startswith(wanted) or label.startswith(wanted)]
        if len(found) == 1:
            return str(found[0]["value"])
        if found:
            labels = " | ".join(str(o["label"]) for o in found)
            raise OfflineError(f"{text!r} could be any of: {labels}; type more of the name")
        return None

    # ------------------------------------------------------------------ commands, in any language

    async def _command(self, user: str, tokens: list[Token]) -> tuple[str, dict[str, str]]:
        """Split ``/game start players:3 name:"two words"`` into its path and raw option values.

        Names of commands, subcommands, options and choices may be the English ones or their translations (the
        bot's translator gives them): the user's language first, then any other.
        """
        locale = self.discord.server.locales.get(self.discord.user(user).id, "en-US")
        payloads = await self.localised_commands()
        node = self._pick(tokens[0].text.lstrip("/"), payloads, locale)
        names = [node["name"] if node else tokens[0].text.lstrip("/")]
        index = 1
        while (index < len(tokens) and tokens[index].colon is None and not tokens[index].quoted
               and isinstance(self.discord.command_node(" ".join(names)), app_commands.Group)):
            subs = [o for o in (node or {}).get("options", []) if o.get("type") in (_SUBCOMMAND, _GROUP)]
            node = self._pick(tokens[index].text, subs, locale)
            names.append(node["name"] if node else tokens[index].text)
            index += 1
        path = " ".join(names)
        self.discord.find_command(path)
        options = self._options(tokens[index:], f"/{path}", path)
        if node is not None:
            options = self._canonical_options(options, node, locale)
        return path, options

    async def localised_commands(self) -> list[dict[str, Any]]:
        """The slash commands as Discord registers them, with the names in every language (once per session)."""
        if self._payloads is None:
            tree = self.discord.tree
            payloads: list[dict[str, Any]] = []
            seen: set[str] = set()
            for guild in (discord.Object(self.discord.server.guild_id), None):
                for command in tree.get_commands(guild=guild, type=discord.AppCommandType.chat_input):
                    if command.name in seen:
                        continue
                    seen.add(command.name)
                    translator = tree.translator
                    payloads.append(await command.get_translated_payload(tree, translator) if translator
                                    else command.to_dict(tree))
            self._payloads = payloads
        return self._payloads

    @staticmethod
    def _pick(word: str, nodes: list[dict[str, Any]], locale: str) -> dict[str, Any] | None:
        """The node named ``word``: in English, else in ``locale``, else in one other language."""
        wanted = fold(word)
        if not wanted:
            return None
        for pool in ([n for n in nodes if fold(n["name"]) == wanted],
                     [n for n in nodes if fold((n.get("name_localizations") or {}).get(locale, "")) == wanted],
                     [n for n in nodes if wanted in {fold(v) for v in (n.get("name_localizations") or {}).values()}]):
            distinct = {str(n["name"]): n for n in pool}
            if len(distinct) == 1:
                return next(iter(distinct.values()))
        return None

    def _canonical_options(self, options: dict[str, str], node: dict[str, Any], locale: str) -> dict[str, str]:
        """Options renamed to their English names; a translated choice becomes its value."""
        specs = [o for o in node.get("options", []) if o.get("type") not in (_SUBCOMMAND, _GROUP)]
        out: dict[str, str] = {}
        for key, value in options.items():
            spec = self._pick(key, specs, locale)
            if spec is None:
                out[key] = value  # a Python parameter name, or a mistake the offline Discord explains
                continue
            choices = spec.get("choices") or []
            known = {fold(c["name"]) for c in choices} | {fold(str(c["value"])) for c in choices}
            if choices and fold(value) not in known:
                choice = self._pick(value, [{**c, "value": str(c["value"])} for c in choices], locale)
                value = choice["value"] if choice is not None else value
            out[spec["name"]] = value
        return out

    def _options(self, tokens: list[Token], after: str, path: str | None = None) -> dict[str, str]:
        """``name:value`` words as a dict; a word without ``name:`` continues the previous value."""
        options: dict[str, str] = {}
        last: str | None = None
        for token in tokens:
            if token.colon is not None and token.colon > 0:
                last = token.text[:token.colon]
                options[last] = token.text[token.colon + 1:]
            elif last is not None:
                # Discord's client lets a value run on until the next option; so does the console.
                options[last] += " " + token.text
            else:
                hint = f"; {self.usage(path)}" if path is not None else ""
                raise OfflineError(f"expected name:value after {after}, got {token.text!r}{hint}")
        return options

    async def _complete(self, user: str, channel: str, tokens: list[Token]) -> None:
        if not tokens or not tokens[0].text.startswith("/"):
            raise OfflineError("usage: complete /command option:partial")
        path, options = await self._command(user, tokens)
        if not options:
            raise OfflineError("complete needs the option being typed, e.g. complete /attack from:Ala")
        focused = list(options)[-1]
        await self.discord.autocomplete(user, channel, path, options, focused=focused)
        step = self.discord.last_step
        if step is not None:
            self.show(step)

    # ------------------------------------------------------------------ help

    def usage(self, path: str) -> str:
        command, specs = self.discord.find_command(path)
        parts = [f"/{command.qualified_name}"]
        for spec in specs:
            text = f"{spec['name']}:<{self.discord.describe_option(spec)}>"
            if spec.get("autocomplete"):
                text = text[:-1] + ", suggestions>"
            parts.append(text if spec.get("required") else f"[{text}]")
        return "usage: " + " ".join(parts)

    def help(self) -> None:
        self.write(SYNTAX)
        self.write("")
        self.write("Commands:")
        paths = sorted(self.discord.command_paths(), key=lambda pair: pair[0])
        if not paths:
            self.write("  (none)")
        for path, command in paths:
            self.write(f"  {self.usage(path)[len('usage: '):]}")
            if command.description and command.description != "…":
                self.write(f"      {command.description}")

    # ------------------------------------------------------------------ output

    def show(self, step: Step) -> None:
        """Write the messages of a step as users see them, then its problems."""
        for message in step:
            self.write(self.format(message))
        if step.interaction is not None and step.interaction.type == 4 and step.interaction.choices is not None:
            names = " | ".join(str(c.get("name")) for c in step.interaction.choices) or "(no suggestions)"
            self.write(f"choices: {names}")
        if step.interaction is not None and step.interaction.modal is not None:
            self.write(self.format_form(step.interaction.user.name, step.interaction.modal))
        for problem in step.problems:
            self.write(f"  ! {problem}")

    def format_form(self, user: str, modal: dict[str, Any]) -> str:
        """A modal as text: title, then one line per field."""
        lines = [f"[form for @{user}] {modal.get('title', '')}"]
        for field in modal_fields(modal):
            notes = ["required" if field["required"] else "optional"]
            if field["kind"] == "select":
                notes.append("one of: " + " | ".join(str(o["label"]) for o in field["options"]))
            elif field["max_length"]:
                notes.append(f"at most {field['max_length']} characters")
            lines.append(f"  {field['label']} ({', '.join(notes)})")
        lines.append("  (answer with: submit field:value ...)")
        return "\n".join(lines)

    def humanize(self, text: str) -> str:
        """``<@123>`` as ``@alice`` and ``<#456>`` as ``#general``."""
        server = self.discord.server

        def name(match: re.Match[str]) -> str:
            kind, number = match.group(1), int(match.group(2))
            if kind.startswith("@") and kind != "@&":
                user = server.user_by_id(number)
                return f"@{user.name}" if user else match.group(0)
            if kind == "#" and number in server.channels:
                return server.channels[number].label
            return match.group(0)

        return _MARKUP.sub(name, text)

    def format(self, message: OfflineMessage) -> str:
        """One message as text: header with markers, content, embeds, components and saved files."""
        markers = []
        if message.ephemeral and message.visible_to:
            markers.append(f"(only @{message.visible_to} sees this)")
        if message.edited:
            markers.append("(edited)")
        if message.deleted:
            markers.append("(deleted)")
        where = message.channel_name if message.is_dm else f"#{message.channel_name}"
        header = f"[{where}] {message.author}" + "".join(f" {m}" for m in markers) + ":"
        if message.deleted:
            return header.rstrip(":")
        if message.loading:
            return f"{header} is thinking..."
        content = self.humanize(message.content).splitlines()
        lines = [f"{header} {content[0]}" if content else header]
        lines.extend(f"  {line}" for line in content[1:])
        paths = self.save_attachments(message)
        by_name = {a.filename: paths[a.id] for a in message.attachments}
        for embed in message.embeds:
            for line in embed_lines(embed):
                for filename, path in by_name.items():
                    line = line.replace(f"attachment://{filename}", str(path))
                lines.append(f"  | {self.humanize(line)}")
        lines.extend(self.components(message))
        for attachment in message.attachments:
            lines.append(f"  file: {paths[attachment.id]} ({self._size(attachment.size)})")
        return "\n".join(lines)

    def components(self, message: OfflineMessage) -> list[str]:
        lines: list[str] = []
        buttons: list[str] = []
        for component in message.components:
            if component["type"] == "button":
                label = component["label"] or component["emoji"] or component["custom_id"] or "?"
                if component["emoji"] and component["label"]:
                    label = f"{component['emoji']} {label}"
                if component["disabled"]:
                    label += " (disabled)"
                if component["url"]:
                    label += f" <{component['url']}>"
                buttons.append(label)
                continue
            if buttons:
                lines.append(f"  [buttons: {' | '.join(buttons)}]")
                buttons = []
            if component["type"] == "select":
                placeholder = f" {component['placeholder']}" if component["placeholder"] else ""
                options = " | ".join(str(o["label"]) for o in component["options"])
                if component["kind"] != "string":
                    options = f"any {component['kind']}"
                lines.append(f"  [select{placeholder}: {options}]")
            elif component["type"] == "text":
                lines.extend(f"  {line}" for line in self.humanize(component["content"]).splitlines())
        if buttons:
            lines.append(f"  [buttons: {' | '.join(buttons)}]")
        return lines

    def save_attachments(self, message: OfflineMessage) -> dict[int, Path]:
        """Save each attachment once, as ``NNNN-filename``; returns the path of every attachment.

        Numbers go on from the highest already in the output directory, so an earlier session's files stay.
        """
        paths: dict[int, Path] = {}
        for attachment in message.attachments:
            key = (message.id, attachment.id)
            if key not in self.saved:
                self.out_dir.mkdir(parents=True, exist_ok=True)
                safe = _SAFE_NAME.sub("_", Path(attachment.filename).name) or "file"
                path = self.out_dir / f"{self._next_number():04d}-{safe}"
                while path.exists():
                    path = self.out_dir / f"{self._next_number():04d}-{safe}"
                path.write_bytes(attachment.data)
                self.saved[key] = path
            paths[attachment.id] = self.saved[key]
        return paths

    def _next_number(self) -> int:
        if self._number is None:
            found = (_NUMBERED.match(p.name) for p in self.out_dir.iterdir()) if self.out_dir.is_dir() else ()
            self._number = max((int(m.group(1)) for m in found if m), default=0)
        self._number += 1
        return self._number

    @staticmethod
    def _size(size: int) -> str:
        return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB"


def _is_terminal(lines: object) -> bool:
    isatty = getattr(lines, "isatty", None)
    return bool(isatty()) if callable(isatty) else False


async def _read_lines(lines: Iterable[str] | TextIO) -> AsyncIterator[str]:
    interactive = _is_terminal(lines)
    if interactive:
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (line editing and history for input())
        while True:
            try:
                yield await asyncio.to_thread(input, "> ")
            except EOFError:
                return
    else:
        for line in lines:
            yield line.rstrip("\n")


async def run_console(bot: discord.Client | OfflineDiscord, lines: Iterable[str] | TextIO, out_dir: Path,
                      write: Callable[[str], Any] = print, *, echo: bool | None = None, **options: Any) -> int:
    """Run input lines against ``bot`` on an offline Discord; returns the exit code (0 at the end of input).

    ``bot`` is a bot (set up here and closed at the end; ``options`` go to :class:`OfflineDiscord`) or an
    :class:`OfflineDiscord` (set up here if needed, left open). ``echo`` repeats each line as ``> line`` (default:
    when the input is not a terminal) so a transcript reads like a conversation.
    """
    owned = not isinstance(bot, OfflineDiscord)
    discord_ = bot if isinstance(bot, OfflineDiscord) else OfflineDiscord(bot, **options)
    interactive = _is_terminal(lines)
    echo = not interactive if echo is None else echo
    console = Console(discord_, Path(out_dir), write)
    try:
        if discord_.setup_step is None:
            console.show(await discord_.setup())
        if interactive:
            write("Offline Discord: type help for the syntax and the commands, quit to leave.")
        async for line in _read_lines(lines):
            if echo and line.strip() and not (line.strip() == "#" or line.strip().startswith("# ")):
                write(f"> {line.strip()}")
            if not await console.execute(line):
                break
    finally:
        if owned:
            await discord_.close()
    return 0


def run_console_sync(bot: discord.Client, lines: Iterable[str] | TextIO | None = None,
                     out_dir: Path | str = "offline-out", write: Callable[[str], Any] = print, **options: Any) -> int:
    """:func:`run_console` in a fresh event loop; reads standard input when ``lines`` is None."""
    source = sys.stdin if lines is None else lines
    return asyncio.run(run_console(bot, source, Path(out_dir), write, **options))
