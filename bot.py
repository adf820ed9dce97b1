"""Risk on Discord: run the bot, sync its commands, play offline, export and list games.

    python bot.py                 run the bot (or, with no token, the offline console)
    python bot.py run [--db FILE_OR_URL] [--shard-count N --shards 0,1]
    python bot.py sync [--guild ID] [--dry-run]
    python bot.py console [--db FILE] [--out DIR] [SCRIPT]
    python bot.py export --db FILE_OR_URL --channel ID [--game ID] --out game.jsonl
    python bot.py games --db FILE_OR_URL [--status S] [--shard-count N]
    python bot.py migrate --from FILE_OR_URL --to FILE_OR_URL
    python bot.py ratings rebuild [--db FILE_OR_URL]
    python bot.py map import FILE [--out DIR]
    python bot.py backup PATH [--db FILE_OR_URL]      python bot.py restore PATH [--db FILE_OR_URL]
    python bot.py schema [--db FILE_OR_URL]           python bot.py limits

The database is a SQLite file or a ``postgresql://`` URL: ``--db``, else ``DATABASE_URL``, else ``database`` in
config.toml. Several processes that share one PostgreSQL database each run some of the gateway's shards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

import workers
from cogs import EXTENSIONS
from cogs.shared import commands as command_names
from cogs.shared.errors import install as install_error_handler
from cogs.shared.services import Services
from cogs.shared.translator import CatalogTranslator
from mapfiles.cli import add_commands as add_map_commands
from mapfiles.cli import run as run_map_command
from ops import logs as ops_logs
from ops.cli import add_commands as add_ops_commands
from ops.server import OpsConfig
from present import drawing as maps
from store import DatabaseError, Shards, Store, logs, redacted, store_for
from store.export import add_commands as add_store_commands
from store.export import run as run_store_command
from table import Clock, Limits
from table.results import rebuild_ratings, rebuilt
from web.config import WebConfig

log = logging.getLogger("risk")
ROOT = Path(__file__).resolve().parent


@dataclass
class Config:
    token: str = ""
    database: str = "data/risk.sqlite3"
    log_level: str = "INFO"
    dev_guild: int = 0
    console_out: str = "out"
    # Limits a server owner can set (what one server or one user can start).
    games_per_server: int = Limits.games_per_server    # lobbies, running, paused games in one server
    lobbies_per_user: int = Limits.lobbies_per_user    # open lobbies one user hosts in one server
    ai_seats_per_game: int = Limits.ai_seats_per_game  # AI players in one game
    rounds_without_humans: int = Limits.rounds_without_humans  # then a game of AIs alone ends (0: never)
    render_processes: int = 0  # worker processes that draw maps (0: one per core)
    # Gateway sharding: how many shards the bot has in all, and which of them this process runs (all if empty).
    shard_count: int = 0
    shards: tuple[int, ...] = ()
    # The live board (``[web]``: listen, public_url, secret): off without a public_url (docs/board.md).
    web: WebConfig = field(default_factory=WebConfig)
    # The operator's listener (``[ops]``: listen): /healthz, /readyz, /metrics (docs/deploy.md).
    ops: OpsConfig = field(default_factory=OpsConfig)
    log_format: str = "text"  # or "json": one JSON object a line

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        """``config.toml`` if present (every key optional), with the token also from ``DISCORD_TOKEN``."""
        path = path or ROOT / "config.toml"
        data: dict[str, Any] = {}
        if path.is_file():
            with path.open("rb") as f:
                data = tomllib.load(f)
            unknown = set(data) - set(cls.__dataclass_fields__)
            if unknown:
                raise SystemExit(f"{path}: unknown setting(s) {', '.join(sorted(unknown))}")
        if "shards" in data:
            data["shards"] = tuple(data["shards"])
        if "web" in data:
            try:
                data["web"] = WebConfig.from_dict(data["web"] if isinstance(data["web"], dict) else {})
            except (TypeError, ValueError) as exc:
                raise SystemExit(f"{path}: {exc}") from exc
        if "ops" in data:
            try:
                data["ops"] = OpsConfig.from_dict(data["ops"] if isinstance(data["ops"], dict) else {})
            except ValueError as exc:
                raise SystemExit(f"{path}: {exc}") from exc
        config = cls(**data)
        if not config.token:
            config.token = os.environ.get("DISCORD_TOKEN", "").strip()
        config.database = os.environ.get("DATABASE_URL", "").strip() or config.database
        return config

    def owned_shards(self) -> Shards | None:
        """The shards this process runs (None: not sharded, one process runs everything)."""
        if not self.shard_count:
            if self.shards:
                raise SystemExit("shards need shard_count (--shard-count): how many shards there are in all")
            return None
        try:
            return Shards(self.shard_count, self.shards or tuple(range(self.shard_count)))
        except ValueError as exc:
            raise SystemExit(f"shards: {exc}") from exc


if TYPE_CHECKING:
    # What the mixin is written against: at run time each bot below puts its own kind of bot after it.
    _Bot = commands.Bot
else:
    _Bot = object


class _Risk(_Bot):
    """What both kinds of bot share: one store, the cogs in ``EXTENSIONS``, one error handler."""

    new_seed: Callable[[], str] | None = None  # the dice seed of each new game (None: a random one)

    def __init__(self, config: Config, store: Store | None = None, **options: Any) -> None:
        intents = discord.Intents.default()  # no privileged intents
        # Nothing the bot sends pings anyone unless a message names the one user it means (the turn panel, a
        # reminder): a player's name with @everyone or a role mention in it stays text.
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, help_command=None,
                         allowed_mentions=discord.AllowedMentions.none(), **options)
        self.config = config
        workers.configure(config.render_processes)
        self.clock = Clock()
        # One bot process per SQLite file; the store's times are the bot's clock's (the console moves it forward).
        self.store: Store = store or store_for(config.database, bot=True, clock=self.clock, rebuild=rebuilt)
        self.extensions_loaded: list[str] = []
        self.owned_shards: Shards | None = None
        self._services: Services | None = None
        self.board: Any = None  # the live board's server (web/), when the config gives it a public address
        self.serve_board = True  # False while only syncing commands: /board is registered, nothing listens

    def services(self) -> Services:
        """What the cogs are given (built once, when the first cog loads)."""
        if self._services is None:
            config = self.config
            self._services = Services(self.store, self.clock, self.new_seed, Limits(
                config.games_per_server, config.lobbies_per_user, config.ai_seats_per_game,
                config.rounds_without_humans), self.owned_shards)
        return self._services

    async def setup_hook(self) -> None:
        await self.store.open()
        install_error_handler(self.tree)
        await self.tree.set_translator(CatalogTranslator())
        for name in EXTENSIONS:
            try:
                await self.load_extension(name)
            except Exception:
                log.exception("the cog %s failed to load; stopping", name)
                raise
            self.extensions_loaded.append(name)
        log.info("loaded %s", ", ".join(self.extensions_loaded))
        await command_names.learn_names(self.tree)
        if self.serve_board and self.application_id is not None:
            # Sentences name commands by their mention: the ids of what is registered (not while syncing).
            await command_names.learn_ids(self.tree, (self.config.dev_guild,) if self.config.dev_guild else ())
        if self.config.web.enabled:
            await self.open_board()

    async def open_board(self) -> None:
        """The live board (web/): its server, given the Risk cog's table and the announcer's news of a board's
        move, then ``/board`` and the Board button."""
        from cogs.shared.board import BoardNews, add_board
        from web.setup import start_board

        # Through the bot's services, where the cog puts itself when it loads (a reloaded extension's cog is of a
        # new class, so not by its class).
        services = self.services()
        if services.desk is None:
            raise RuntimeError("the live board needs the Risk cog, loaded before it")
        token = getattr(self.http, "token", None) or self.config.token or ""
        self.board = await start_board(self.config.web, services.store, services.desk.table,
                                       BoardNews(services.desk.announcer), services.clock, bot_token=token,
                                       listen=self.serve_board)
        await add_board(self, self.board)

    async def on_shard_ready(self, shard_id: int) -> None:
        log.info("shard %d of %s ready", shard_id, self.shard_count)

    async def on_ready(self) -> None:
        shards = f", {self.owned_shards}" if self.owned_shards is not None else ""
        log.info("logged in as %s (%s), in %d servers%s", self.user, getattr(self.user, "id", "?"), len(self.guilds),
                 shards)
        taps = self.services().taps
        if taps is not None:
            resumed = await taps.resume_games()
            if resumed:
                log.info("resumed %d games waiting on an AI", resumed)

    async def advance_time(self, seconds: float) -> int:
        """Move the bot's clock forward and handle what fell due (the console's `advance 25h`)."""
        self.clock.advance(seconds)
        taps = self.services().taps
        return await taps.run_due() if taps is not None else 0

    async def close(self) -> None:
        if self.board is not None:
            await self.board.stop()
        await super().close()
        await self.store.close()
        command_names.forget()


class RiskBot(_Risk, commands.Bot):
    """The bot in one process, on one gateway connection."""


class ShardedRiskBot(_Risk, commands.AutoShardedBot):
    """The bot running some of the gateway's shards (``shard_ids`` of ``shard_count``); other processes run the
    rest, sharing the PostgreSQL database. Its timers are those of games in its shards' guilds."""

    def __init__(self, config: Config, shards: Shards, store: Store | None = None) -> None:
        super().__init__(config, store, shard_count=shards.count, shard_ids=list(shards.ids))
        self.owned_shards = shards


def create_bot(config: Config | None = None, store: Store | None = None) -> RiskBot | ShardedRiskBot:
    """Build the bot without running it (for tests, the console and tools); sharded if the config says so."""
    config = config or Config.load()
    shards = config.owned_shards()
    if shards is not None:
        return ShardedRiskBot(config, shards, store)
    return RiskBot(config, store)


class _NoVoiceWarning(logging.Filter):
    """The bot never uses voice: discord.py's warnings about missing voice libraries are noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "voice will NOT be supported" not in record.getMessage()


def setup_logging(level: str, log_format: str = "text", secrets: Sequence[str] = ()) -> None:
    """The log on standard error, as text or JSON lines (ops/logs.py), never with a secret in it."""
    ops_logs.setup(getattr(logging, level.upper(), logging.INFO), log_format, secrets, [_NoVoiceWarning()])


async def _run(config: Config) -> int:
    from ops.gateway import OpsError
    from ops.gateway import start as ops_start

    bot = create_bot(config)
    where = "PostgreSQL " + redacted(config.database) if "://" in config.database else config.database
    log.info("database %s; %s", where,
             bot.owned_shards if bot.owned_shards is not None else "all shards in this process")
    try:
        async with bot:
            await bot.store.open()  # a database in use by another bot process refuses here, before logging in
            operations = await ops_start(bot, config.ops)  # /healthz, /readyz, /metrics
            warming = asyncio.create_task(maps.warm())  # the map workers start while the bot logs in
            try:
                await bot.start(config.token)
            finally:
                warming.cancel()
                await operations.stop()
    except OpsError as exc:
        log.error("%s", exc)
        return 1
    except discord.LoginFailure:
        log.error("Discord refused the token: check `token` in config.toml or DISCORD_TOKEN.")
        return 1
    except DatabaseError as exc:
        log.error("%s", exc)
        return 1
    except Exception:
        log.exception("the bot stopped")
        return 1
    finally:
        workers.shutdown()
        logs.shutdown()
    return 0


async def _sync(config: Config, guild: int | None, dry_run: bool) -> int:
    bot = create_bot(config)
    bot.serve_board = False  # the running bot may hold the board's port
    if dry_run:
        async with bot:
            await bot.setup_hook()
            target = discord.Object(guild) if guild else None
            if target:
                bot.tree.copy_global_to(guild=target)
            translator = bot.tree.translator
            payload = [await c.get_translated_payload(bot.tree, translator) if translator else c.to_dict(bot.tree)
                       for c in bot.tree.get_commands(guild=target)]
            print(json.dumps(payload, indent=1, ensure_ascii=False))
        return 0
    if not config.token:
        log.error("sync needs the bot's token (config.toml or DISCORD_TOKEN)")
        return 1
    async with bot:
        await bot.login(config.token)
        target = discord.Object(guild) if guild else None
        if target:
            bot.tree.copy_global_to(guild=target)
            synced = len(await bot.tree.sync(guild=target))
        else:
            synced = await sync_global(bot)
        print(f"synced {synced} commands " + (f"to guild {guild}" if guild else "globally (may take a while)"))
    return 0


async def sync_global(bot: commands.Bot) -> int:
    """Replace the global commands with the tree's, keeping the Activity's Entry Point command (type 4): Discord
    refuses a bulk update that drops it, and discord.py has no type for it, so it goes back as Discord gave it."""
    app_id = bot.application_id
    if app_id is None:
        raise SystemExit("sync: the bot's application id is unknown (log in first)")
    current: list[dict[str, Any]] = [dict(c) for c in await bot.http.get_global_commands(app_id)]
    entry = [c for c in current if c.get("type") == 4]
    if not entry:
        return len(await bot.tree.sync())
    translator = bot.tree.translator
    payload: list[dict[str, Any]] = [
        await c.get_translated_payload(bot.tree, translator) if translator else c.to_dict(bot.tree)
        for c in bot.tree.get_commands()]
    return len(await bot.http.bulk_upsert_global_commands(app_id, payload=[*payload, *entry]))


def _console(config: Config, db: str | None, out: str | None, script: str | None) -> int:
    """The offline console: each line of ``script`` (default: standard input) is an interaction."""
    from discord_offline.console import run_console_sync

    config.database = db or config.database
    bot = create_bot(config)
    source = open(script, encoding="utf-8") if script else sys.stdin  # noqa: SIM115
    try:
        return run_console_sync(bot, source, Path(out or config.console_out))
    except DatabaseError as exc:  # one line for the person at the console, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if script:
            source.close()


def _migrate(source: str, target: str) -> int:
    from store.transfer import transfer

    try:
        report = asyncio.run(transfer(source, target, rebuilt))
    except DatabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for line in report.lines():
        print(line)
    return 0


async def _rebuild_ratings(db: str) -> int:
    store = store_for(db, rebuild=rebuilt)
    try:
        await store.open()
    except DatabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        started = time.perf_counter()
        games = await rebuild_ratings(store)
    finally:
        await store.close()
    print(f"ratings rebuilt: {games} finished games in {time.perf_counter() - started:.1f} s")
    return 0


# -- the command line: each command's function gets the parsed arguments and the loaded config ---------------------
class UsageError(Exception):
    """Arguments argparse accepted but the command cannot use: told as argparse tells its own errors."""


def _run_command(args: argparse.Namespace, config: Config) -> int:
    config.database = args.db or config.database
    if args.shard_count is not None:
        config.shard_count = args.shard_count
    if args.shards:
        try:
            config.shards = tuple(int(part) for part in args.shards.split(","))
        except ValueError:
            raise UsageError("--shards takes shard numbers separated by commas, e.g. 0,1") from None
    if args.ops_listen is not None:
        try:
            config.ops = OpsConfig.from_dict({"listen": args.ops_listen})
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    config.owned_shards()  # a clear error now rather than at the gateway
    if not config.token:
        print("No Discord token configured (config.toml or DISCORD_TOKEN): starting the offline console.\n"
              "Type `help` for the commands, e.g. `/risk new`, `/risk addbot`, `/risk start`.", file=sys.stderr)
        return _console(config, None, None, None)
    return asyncio.run(_run(config))


def _sync_command(args: argparse.Namespace, config: Config) -> int:
    return asyncio.run(_sync(config, args.guild or config.dev_guild or None, args.dry_run))


def _console_command(args: argparse.Namespace, config: Config) -> int:
    return _console(config, args.db, args.out, args.script)


def _store_command(args: argparse.Namespace, config: Config) -> int:
    args.db = args.db or config.database
    if args.command == "games" and args.shard_count is None and config.shard_count:
        args.shard_count = config.shard_count
    return run_store_command(args)


def _migrate_command(args: argparse.Namespace, config: Config) -> int:
    return _migrate(args.source, args.target)


def _ratings_command(args: argparse.Namespace, config: Config) -> int:
    return asyncio.run(_rebuild_ratings(args.db or config.database))


def _map_command(args: argparse.Namespace, config: Config) -> int:
    return run_map_command(args)


def build_parser() -> argparse.ArgumentParser:
    """Every command and its options; each command's function is ``func`` of the parsed arguments."""
    parser = argparse.ArgumentParser(prog="bot.py", description="Risk on Discord.")
    parser.add_argument("--config", type=Path, help="config file (default: config.toml beside bot.py)")
    # No command: run the bot, with run's defaults.
    parser.add_argument("--log-format", choices=ops_logs.FORMATS, help="text (the default) or json: one JSON object "
                        "a line (default: the config's log_format)")
    parser.set_defaults(func=_run_command, db=None, shard_count=None, shards=None, ops_listen=None)
    sub = parser.add_subparsers(dest="command")
    p_run = sub.add_parser("run", help="run the bot (the default)")
    p_run.add_argument("--db", help="database: a SQLite file or a postgresql:// URL (default: DATABASE_URL, "
                                    "else the config's)")
    p_run.add_argument("--shard-count", type=int, help="how many gateway shards the bot has in all")
    p_run.add_argument("--shards", help="the shards this process runs, e.g. 0,1 (default: all of them)")
    p_run.add_argument("--ops-listen", help="host:port of /healthz, /readyz and /metrics (default: the config's "
                                            "[ops] listen, 127.0.0.1:9465; empty: none)")
    p_run.set_defaults(func=_run_command)
    p_migrate = sub.add_parser("migrate", help="copy every game to another database (SQLite or PostgreSQL)",
                               description="Copy every game, its events, seats, timers and interactions, and the "
                                           "preferences and settings, from one database to another; each game is "
                                           "checked by replaying its log. Running it again copies only what is new.")
    p_migrate.add_argument("--from", dest="source", required=True, help="source: a SQLite file or a postgresql:// URL")
    p_migrate.add_argument("--to", dest="target", required=True, help="target: a postgresql:// URL or a SQLite file")
    p_migrate.set_defaults(func=_migrate_command)
    p_sync = sub.add_parser("sync", help="sync the slash commands with Discord")
    p_sync.add_argument("--guild", type=int, help="sync to one server (instant); default: global")
    p_sync.add_argument("--dry-run", action="store_true", help="print the command payload instead of syncing")
    p_sync.set_defaults(func=_sync_command)
    p_console = sub.add_parser("console", help="play offline: each line is an interaction")
    p_console.add_argument("--db", help="database file (default: the config's)")
    p_console.add_argument("--out", help="folder for received images (default: out)")
    p_console.add_argument("script", nargs="?", help="a file of console lines (default: standard input)")
    p_console.set_defaults(func=_console_command)
    p_ratings = sub.add_parser("ratings", help="player ratings")
    p_ratings.add_argument("action", choices=["rebuild"], help="rebuild: recompute every rating from the stored "
                           "games in the order they ended")
    p_ratings.add_argument("--db", help="database file (default: the config's)")
    p_ratings.set_defaults(func=_ratings_command)
    add_store_commands(sub, db_default=None, db_help="database file (default: the config's, data/risk.sqlite3)")
    for name in ("export", "games"):
        sub.choices[name].set_defaults(func=_store_command)
    add_map_commands(sub)
    sub.choices["map"].set_defaults(func=_map_command)
    add_ops_commands(sub)  # backup, restore, schema, limits (ops/cli.py)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # an argument no command takes is refused here, before anything runs
    config = Config.load(args.config)
    offline = args.command == "console" or (args.command in (None, "run") and not config.token)
    # The console's own output is the conversation; only warnings go to stderr there.
    if args.log_format:
        config.log_format = args.log_format
    if config.log_format not in ops_logs.FORMATS:
        parser.error(f"log_format must be one of {', '.join(ops_logs.FORMATS)}, not {config.log_format!r}")
    secrets = [config.token, config.web.secret, config.web.client_secret,
               *ops_logs.url_passwords(getattr(args, "db", None) or config.database)]
    setup_logging("WARNING" if offline and config.log_level.upper() == "INFO" else config.log_level,
                  config.log_format, [s for s in secrets if s])
    try:
        result: int = args.func(args, config)
    except UsageError as exc:
        parser.error(str(exc))
    return result


if __name__ == "__main__":
    sys.exit(main())
