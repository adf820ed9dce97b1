"""Copy a whole database from one backend to another (SQLite to PostgreSQL, or back): ``bot.py migrate``.

Every table the two databases share is copied row by row with its ids, parents before children (the target's
foreign keys decide the order), and a row the target already holds is left as it is, so running the copy again
adds only what is new. A game the target holds at another version (it was played on there) is not touched and is
reported. Each copied game is then read back from the target and checked: its event log must replay to the
stored state, and the log must have as many events as the game says.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from graphlib import TopologicalSorter
from pathlib import Path
from typing import Any

from engine import Game

from .errors import DatabaseError
from .postgres import PostgresStore, is_postgres_url
from .results import Rebuild
from .sql import SQLStore
from .sqlite import SQLiteStore
from .transaction import Step

_BATCH = 500


@dataclass
class TransferReport:
    """What a copy did: rows added per table, games checked, games left alone because they differ."""

    added: dict[str, int] = field(default_factory=dict)
    games: int = 0
    verified: int = 0
    conflicts: list[int] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{table}: {count} rows added" for table, count in self.added.items()]
        out.append(f"games: {self.games} in the source, {self.verified} replayed and verified in the target")
        if self.conflicts:
            out.append("left alone (the target holds them at another version): "
                       + ", ".join(f"#{g}" for g in self.conflicts))
        return out


def _open(setting: str, *, existing: bool, rebuild: Rebuild | None = None) -> SQLStore:
    if is_postgres_url(setting):
        return PostgresStore(setting.strip())
    path = Path(setting)
    if existing and not path.is_file():
        raise DatabaseError("There is no database at {path}.", path=path)
    return SQLiteStore(path, checkpoint_interval=None, rebuild=rebuild)


async def _columns(store: SQLStore) -> dict[str, list[tuple[str, str]]]:
    """Each table's columns with their declared types (the schema's bookkeeping tables left out)."""
    async with store._reading() as db:
        if isinstance(store, PostgresStore):
            rows = await db.fetch(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'public' AND table_name <> 'store_schema' ORDER BY table_name, ordinal_position")
        else:
            rows = await db.fetch(
                "SELECT m.name, c.name, c.type FROM sqlite_master m JOIN pragma_table_info(m.name) c "
                "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, c.cid")
    tables: dict[str, list[tuple[str, str]]] = {}
    for table, column, kind in rows:
        tables.setdefault(str(table), []).append((str(column), str(kind).lower()))
    return tables


async def _parents(store: SQLStore) -> dict[str, set[str]]:
    """For each table, the tables its foreign keys point to."""
    async with store._reading() as db:
        if isinstance(store, PostgresStore):
            rows = await db.fetch(
                "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c "
                "WHERE c.contype = 'f'")
        else:
            rows = await db.fetch(
                "SELECT m.name, f.\"table\" FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f "
                "WHERE m.type = 'table'")
    parents: dict[str, set[str]] = {}
    for child, parent in rows:
        parents.setdefault(str(child), set()).add(str(parent))
    return parents


def _converter(kind: str) -> Callable[[Any], object]:
    """Values as the target's column type wants them (PostgreSQL's driver does not convert int to float)."""
    if kind in ("double precision", "real"):
        return lambda v: None if v is None else float(v)
    if kind in ("bigint", "integer", "smallint"):
        return lambda v: None if v is None else int(v)
    return lambda v: v


async def transfer(source_setting: str, target_setting: str, rebuild: Rebuild | None = None) -> TransferReport:
    """Copy every game, its events, seats, timers, interactions, and the preferences and settings from the
    source database to the target (created or upgraded as needed); verify each game there. ``rebuild``
    (``table.results.rebuilt``): what rates the games an old SQLite source's migrations backfill."""
    if source_setting.strip() == target_setting.strip():
        raise DatabaseError("The source and the target are the same database.")
    source, target = _open(source_setting, existing=True, rebuild=rebuild), _open(target_setting, existing=False)
    report = TransferReport()
    async with source, target:
        source_tables, target_tables = await _columns(source), await _columns(target)
        parents = await _parents(target)
        shared = [t for t in source_tables if t in target_tables]
        order = list(TopologicalSorter({t: parents.get(t, set()) & set(shared) for t in shared}).static_order())
        conflicts = await _conflicting_games(source, target)
        report.conflicts = sorted(conflicts)
        for table in order:
            report.added[table] = await _copy_table(source, target, table, source_tables[table],
                                                    dict(target_tables[table]), conflicts)
        if isinstance(target, PostgresStore):
            async with target._transaction() as db:
                for numbered in ("games", "seasons", "tournaments"):   # new rows follow the copied ids
                    await db.run(Step(f"SELECT setval(pg_get_serial_sequence('{numbered}', 'id'), "
                                      f"(SELECT COALESCE(max(id), 0) + 1 FROM {numbered}), false)"))
        games = await source.list_games()
        report.games = len(games)
        for record in games:
            if record.id in conflicts:
                continue
            await _verify(target, record.id)
            report.verified += 1
    return report


async def _conflicting_games(source: SQLStore, target: SQLStore) -> set[int]:
    """Games the target holds already at another version, or another game under the same id."""
    async with source._reading() as db:
        mine = {row[0]: row[1:] for row in await db.fetch("SELECT id, channel_id, created_at, version FROM games")}
    async with target._reading() as db:
        theirs = {row[0]: row[1:] for row in await db.fetch("SELECT id, channel_id, created_at, version FROM games")}
    return {game_id for game_id, row in mine.items()
            if game_id in theirs and (theirs[game_id][0] != row[0] or float(theirs[game_id][1]) != float(row[1])
                                      or theirs[game_id][2] != row[2])}


async def _copy_table(source: SQLStore, target: SQLStore, table: str, source_columns: Sequence[tuple[str, str]],
                      target_columns: dict[str, str], skip_games: set[int]) -> int:
    columns = [c for c, _kind in source_columns if c in target_columns]
    convert = [_converter(target_columns[c]) for c in columns]
    game_column = "id" if table == "games" else "game_id" if "game_id" in columns else None
    names = ", ".join(columns)
    marks = ", ".join("?" for _ in columns)
    insert = f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT DO NOTHING"
    async with target._reading() as db:
        before = (await db.fetch(f"SELECT count(*) FROM {table}"))[0][0]
    async with source._reading() as db:
        rows = await db.fetch(f"SELECT {names} FROM {table}")
    if game_column is not None and skip_games:
        index = columns.index(game_column)
        rows = [r for r in rows if r[index] not in skip_games]
    for start in range(0, len(rows), _BATCH):
        batch = [tuple(f(v) for f, v in zip(convert, row, strict=True)) for row in rows[start:start + _BATCH]]
        async with target._transaction() as db:
            await db.commit(Step(insert, batch, many=True))
    async with target._reading() as db:
        after = (await db.fetch(f"SELECT count(*) FROM {table}"))[0][0]
    return int(after) - int(before)


async def _verify(target: SQLStore, game_id: int) -> None:
    """The copied game's log replays to its stored state, event for event."""
    record = await target.get_game(game_id)
    events = await target.events(game_id)
    if len(events) != record.last_seq:
        raise DatabaseError("Game #{id} was not copied whole: {n} events of {last}.", id=game_id, n=len(events),
                            last=record.last_seq)
    if record.state_json is None:
        return
    state = json.loads(record.state_json)
    replayed = Game.from_events(events, state["seed"]).state.to_dict()
    if replayed != state:
        raise DatabaseError("Game #{id} does not replay to its stored state in the target.", id=game_id)


__all__ = ["TransferReport", "transfer"]
