"""``python -m discord_offline --bot package.module:factory [--out DIR] [SCRIPT]``: the console on a bot of your choice.

The factory is a bot instance or a callable (plain or async) returning one. Without SCRIPT, standard input is
read: a terminal gives an interactive prompt, a pipe or file is run line by line.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

import discord

from discord_offline.console import run_console


def load_bot_factory(spec: str) -> Any:
    """``"module:attribute"`` (attribute path may be dotted) to the object it names."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise SystemExit(f"--bot takes module:attribute, e.g. bot:create_bot (got {spec!r})")
    target: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    return target


async def _main(arguments: argparse.Namespace) -> int:
    factory = load_bot_factory(arguments.bot)
    bot = factory() if callable(factory) and not isinstance(factory, discord.Client) else factory
    if inspect.isawaitable(bot):
        bot = await bot
    if not isinstance(bot, discord.Client):
        raise SystemExit(f"{arguments.bot} did not give a discord.Client but {type(bot).__name__}")
    options: dict[str, Any] = {}
    if arguments.guild_id is not None:
        options["guild_id"] = arguments.guild_id
    if arguments.script is None:
        return await run_console(bot, sys.stdin, arguments.out, **options)
    with Path(arguments.script).open(encoding="utf-8") as source:
        return await run_console(bot, source, arguments.out, **options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m discord_offline",
                                     description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--bot", required=True, help="module:attribute giving the bot or a factory of it")
    parser.add_argument("--out", type=Path, default=Path("offline-out"), help="where uploaded files are saved")
    parser.add_argument("--guild-id", type=int, default=None, help="id of the offline guild (for guild commands)")
    parser.add_argument("script", nargs="?", help="a file of input lines (default: standard input)")
    arguments = parser.parse_args(argv)
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        return asyncio.run(_main(arguments))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
