"""Command-line tools over the database: list games, export a game's event log as JSON Lines.

These open a SQLite database read-only and never migrate it, so they are safe while the bot runs; a
``postgresql://`` URL is read through the PostgreSQL store (which creates the schema if the database is new). The export
writes one public event per line (the format of docs/events.md): cards, the deck order and the dice seed
stay hidden until the game is over, then everything is revealed so anyone can replay and verify it.

``bot.py`` takes its ``export`` and ``games`` subcommands from ``add_commands`` and runs them with ``run``;
``python -m store.export`` works too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
import tempfile
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple, TextIO
from urllib.parse import quote

from engine.events import Event
from engine.log import dumps, public_event

from .errors import DatabaseError, StoreError, UnknownGame
from .migrations import LATEST_VERSION
from .postgres import PostgresStore, is_postgres_url
from .records import FINISHED, STATUSES, GameRecord, Shards
from .sqlite import DEFAULT_PATH, SQLITE_HEADER


class GameRow(NamedTuple):
    """One line of the games listing."""

    id: int
    guild_id: int | None
    channel_id: int
    status: str
    players: str
    turn: int | None
    updated: str


class ExportSummary(NamedTuple):
    game_id: int
    status: str
    events: int
    revealed: bool
    out: str


def connect_read_only(db_path: str | Path) -> sqlite3.Connection:
    """A read-only connection to an existing store database; ``DatabaseError`` if it is not one we can read."""
    path = Path(db_path)
    if not path.is_file():
        raise DatabaseError(f"There is no database at {path}.")
    with path.open("rb") as f:
        if f.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise DatabaseError(f"{path} is not a SQLite database.")
    try:
        conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.Error as exc:
        raise DatabaseError(f"Cannot read the database {path}: {exc}.") from exc
    if version > LATEST_VERSION:
        conn.close()
        raise DatabaseError(f"The database {path} was written by a newer version of the bot (database version "
                            f"{version}; this version reads up to {LATEST_VERSION}).")
    if version == 0:
        conn.close()
        raise DatabaseError(f"{path} is not a database of this bot (it has no games table).")
    return conn


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def list_games(db_path: str | Path, status: str | None = None) -> list[GameRow]:
    """Every game, newest first (optionally only those of a status): id, guild, channel, status, players, turn,
    last update (UTC)."""
    if status is not None and status not in STATUSES:
        raise StoreError(f"Unknown status “{status}”; statuses: {', '.join(STATUSES)}.")
    if isinstance(db_path, str) and is_postgres_url(db_path):
        return [_game_row(r) for r in asyncio.run(_postgres_games(db_path, status))]
    conn = connect_read_only(db_path)
    try:
        rows = conn.execute(
            "SELECT g.id, g.guild_id, g.channel_id, g.status, "
            "  (SELECT group_concat(name, ', ') FROM "
            "     (SELECT name FROM players p WHERE p.game_id = g.id ORDER BY p.seat)), "
            "  json_extract(g.state, '$.turn'), g.updated_at "
            "FROM games g WHERE (? IS NULL OR g.status = ?) ORDER BY g.id DESC", (status, status)).fetchall()
    except sqlite3.Error as exc:
        raise DatabaseError(f"Cannot read the database {db_path}: {exc}.") from exc
    finally:
        conn.close()
    return [GameRow(r[0], r[1], r[2], r[3], r[4] or "", r[5], _iso(r[6])) for r in rows]


async def _postgres_games(url: str, status: str | None, channel_id: int | None = None) -> list[GameRecord]:
    async with PostgresStore(url, pool_size=1) as store:
        return await store.list_games(status, channel_id=channel_id)


async def _postgres_events(url: str, game_id: int) -> list[Event]:
    async with PostgresStore(url, pool_size=1) as store:
        return await store.events(game_id)


def _game_row(record: GameRecord) -> GameRow:
    turn = None if record.state is None else record.state.get("turn")
    return GameRow(record.id, record.guild_id, record.channel_id, record.status,
                   ", ".join(p.name for p in record.players), turn, _iso(record.updated_at))


def export_game(db_path: str | Path, channel_id: int, game_id: int | None = None,
                out: str | Path | TextIO = "game.jsonl") -> ExportSummary:
    """Write a game's event log as JSON Lines, in public form (hidden information revealed only after the end).

    Without ``game_id`` the channel's latest game is exported (its active game if it has one). ``out`` is a
    path (written atomically) or an open text stream.
    """
    if isinstance(db_path, str) and is_postgres_url(db_path):
        records = [r for r in asyncio.run(_postgres_games(db_path, None, channel_id))
                   if game_id is None or r.id == game_id]
        if not records:
            raise UnknownGame(f"Channel {channel_id} has no games." if game_id is None
                              else f"There is no game #{game_id} in channel {channel_id}.")
        chosen, status = records[0].id, records[0].status
        revealed = status == FINISHED
        events = [public_event(e, revealed) for e in asyncio.run(_postgres_events(db_path, chosen))]
        return _write_export(events, out, chosen, status, revealed)
    conn = connect_read_only(db_path)
    try:
        if game_id is None:
            head = conn.execute("SELECT id, status FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1",
                                (channel_id,)).fetchone()
            if head is None:
                raise UnknownGame(f"Channel {channel_id} has no games.")
        else:
            head = conn.execute("SELECT id, status FROM games WHERE id = ? AND channel_id = ?",
                                (game_id, channel_id)).fetchone()
            if head is None:
                raise UnknownGame(f"There is no game #{game_id} in channel {channel_id}.")
        chosen, status = int(head[0]), str(head[1])
        revealed = status == FINISHED
        # Streamed: one event read, made public and written at a time, however long the game.
        rows = conn.execute("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (chosen,))
        return _write_export((public_event(json.loads(row[0]), revealed) for row in rows), out, chosen, status,
                             revealed)
    except sqlite3.Error as exc:
        raise DatabaseError(f"Cannot read the database {db_path}: {exc}.") from exc
    finally:
        conn.close()


def _write_export(events: Iterable[Event], out: str | Path | TextIO, chosen: int, status: str,
                  revealed: bool) -> ExportSummary:
    if isinstance(out, (str, Path)):
        count = _write_atomically(Path(out), events)
        target = str(out)
    else:
        count = _write_lines(out, events)
        target = getattr(out, "name", "<stream>")
    return ExportSummary(chosen, status, count, revealed, target)


def _write_lines(out: TextIO, events: Iterable[Event]) -> int:
    count = 0
    for event in events:
        out.write(dumps((event,)))
        count += 1
    return count


def _write_atomically(path: Path, events: Iterable[Event]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            count = _write_lines(f, events)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return count


def format_games(rows: Sequence[GameRow], shard_count: int | None = None) -> str:
    """The listing as an aligned text table; with ``shard_count``, the gateway shard (so the process) of each game."""
    header: tuple[str, ...] = ("id", "guild", "channel", "status", "turn", "updated", "players")
    table = [header] + [(str(r.id), "" if r.guild_id is None else str(r.guild_id), str(r.channel_id), r.status,
                         "" if r.turn is None else str(r.turn), r.updated, r.players) for r in rows]
    if shard_count:
        table = [(*line[:2], "shard" if i == 0 else str(Shards.of(rows[i - 1].guild_id, shard_count)), *line[2:])
                 for i, line in enumerate(table)]
    widths = [max(len(line[i]) for line in table) for i in range(len(header) - 1)]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=False)).rstrip()
                     + "  " + line[-1] for line in table).rstrip() + "\n"


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser],
                 db_default: str | None = str(DEFAULT_PATH),
                 db_help: str = "database file (default: %(default)s)") -> None:
    """Add the ``export`` and ``games`` subcommands, with all their options, to an argparse subparsers object."""
    export = commands.add_parser("export", help="export a game's event log as JSON Lines",
                                 description="Export a game's event log as JSON Lines (one event per line). "
                                             "Hidden information (cards, deck, dice seed) is revealed only "
                                             "once the game is over.")
    export.add_argument("--db", default=db_default, help=db_help)
    export.add_argument("--channel", type=int, required=True, help="Discord channel id of the game (see games)")
    export.add_argument("--game", type=int, default=None,
                        help="game id (default: the channel's latest game)")
    export.add_argument("--out", default="game.jsonl", help="output file, or - for standard output "
                                                             "(default: %(default)s)")

    games = commands.add_parser("games", help="list the games in the database",
                                description="List the games in the database, newest first.")
    games.add_argument("--db", default=db_default, help=db_help)
    games.add_argument("--status", choices=STATUSES, default=None, help="only games with this status")
    games.add_argument("--shard-count", type=int, default=None,
                       help="show the gateway shard of each game's server, of this many shards")


def build_parser(prog: str = "bot.py") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Tools for the Risk bot's game database.")
    add_commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return parser


def run(args: argparse.Namespace) -> int:
    """Run a parsed ``export`` or ``games`` command; returns the exit code (errors go to stderr in one line)."""
    try:
        if args.command == "export":
            out: str | TextIO = sys.stdout if args.out == "-" else args.out
            summary = export_game(args.db, args.channel, args.game, out=out)
            if args.out != "-":
                hidden = "" if summary.revealed else " (hidden information kept hidden: the game is not over)"
                print(f"Game #{summary.game_id} ({summary.status}): {summary.events} events written to "
                      f"{summary.out}{hidden}.")
        else:
            sys.stdout.write(format_games(list_games(args.db, args.status), getattr(args, "shard_count", None)))
    except StoreError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None, prog: str = "bot.py") -> int:
    """Run ``export`` or ``games``; returns the exit code (errors go to stderr in one line)."""
    return run(build_parser(prog).parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main(prog="python -m store.export"))
