"""The host's commands: ``backup``, ``restore``, ``schema`` and ``limits`` (docs/deploy.md)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from mapfiles import images, upload
from mapfiles.checking import UPLOAD_SECONDS
from store import DatabaseError
from store.backup import backup, restore
from store.maps import MAPS_PER_SERVER
from store.records import MAX_SEATS
from store.upgrades import plan
from table import Limits

DB_HELP = "database: a SQLite file or a postgresql:// URL (default: DATABASE_URL, else the config's)"


def add_commands(sub: Any) -> None:
    """The commands, on ``bot.py``'s sub-parsers; each sets ``func`` to ``run``."""
    p_backup = sub.add_parser("backup", help="back up the database, consistently, while the bot runs",
                              description="SQLite: a consistent copy with SQLite's online backup API, checked before "
                                          "it is named PATH. PostgreSQL: pg_dump --format=custom (needs PostgreSQL's "
                                          "client tools).")
    p_backup.add_argument("path", type=Path, help="the backup file to write (must not exist)")
    p_restore = sub.add_parser("restore", help="restore a backup (the bot must be stopped)",
                               description="Checks the backup, then replaces the database with it; refused while a "
                                           "bot runs on the database. The replaced SQLite database is kept beside it. "
                                           "PostgreSQL: pg_restore into an empty database.")
    p_restore.add_argument("path", type=Path, help="the backup file")
    p_schema = sub.add_parser("schema", help="say which schema steps the next start would run (changes nothing)")
    p_limits = sub.add_parser("limits", help="list the limits of what servers and players can start")
    for parser in (p_backup, p_restore, p_schema):
        parser.add_argument("--db", help=DB_HELP)
    for parser in (p_backup, p_restore, p_schema, p_limits):
        parser.set_defaults(func=run)


def run(args: argparse.Namespace, config: Any) -> int:
    """Run the parsed command with ``bot.py``'s loaded config."""
    database: str = getattr(args, "db", None) or config.database
    try:
        if args.command == "backup":
            lines = backup(database, args.path)
        elif args.command == "restore":
            lines = restore(args.path, database)
        elif args.command == "schema":
            lines = asyncio.run(plan(database)).lines()
        else:
            lines = limit_lines(config)
    except DatabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def _mib(size: int) -> str:
    return f"{size / 1024 / 1024:g} MiB"


def limit_lines(config: Any) -> list[str]:
    """Every limit, its value and where it is set."""
    set_here: list[tuple[str, object, str]] = [
        ("games_per_server", config.games_per_server, "lobbies, running and paused games in one server"),
        ("lobbies_per_user", config.lobbies_per_user, "open lobbies one user hosts in one server"),
        ("ai_seats_per_game", config.ai_seats_per_game, "AI players in one game"),
        ("rounds_without_humans", config.rounds_without_humans,
         "rounds a game of AIs alone plays after the last human left, then it ends (0: never)"),
        ("render_processes", config.render_processes or "one per core", "worker processes that draw maps"),
    ]
    fixed: list[tuple[str, object, str]] = [
        ("seats per game", MAX_SEATS, "the most any map may declare"),
        ("maps per server", MAPS_PER_SERVER, "uploaded maps one server keeps"),
        ("files per map upload", upload.MAX_FILES, "a .map with its picture, regions, cards, names, missions"),
        ("size of a map upload", _mib(upload.MAX_TOTAL_BYTES), "all its files together"),
        ("size of a map image", _mib(images.MAX_IMAGE_BYTES), "one picture or region image"),
        ("pixels per map image", images.MAX_PIXELS, "width × height before it is scaled"),
        ("time to check an upload", f"{UPLOAD_SECONDS:g} s", "the check of one upload, in a process of its own"),
    ]
    defaults = Limits()
    lines = ["Set in config.toml (the default in brackets):"]
    lines += [f"  {name} = {value}  [{getattr(defaults, name, 0) or 'one per core'}]  {what}"
              for name, value, what in set_here]
    lines.append("Fixed in this version:")
    lines += [f"  {name}: {value}  {what}" for name, value, what in fixed]
    return lines


__all__ = ["add_commands", "limit_lines", "run"]
