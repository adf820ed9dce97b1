"""``bot.py``'s command line: every command takes its options, and refuses any other argument before it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import bot

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ["_run_command", "_sync_command", "_console_command", "_store_command", "_migrate_command",
            "_ratings_command", "_map_command"]
# Each command with the arguments it requires.
EVERY_COMMAND = [
    [], ["run"], ["sync"], ["console"], ["console", "script.txt"], ["export", "--channel", "7"], ["games"],
    ["migrate", "--from", "a.sqlite3", "--to", "b.sqlite3"], ["ratings", "rebuild"], ["map", "import", "map.json"],
]


@pytest.fixture
def nothing_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in COMMANDS:
        monkeypatch.setattr(bot, name, lambda *_args: pytest.fail("the command ran"))


@pytest.mark.parametrize("command", EVERY_COMMAND, ids=lambda words: " ".join(words) or "no command")
def test_an_unknown_argument_is_refused_for_every_command(command: list[str], nothing_runs: None,
                                                          capsys: pytest.CaptureFixture[str], tmp_path: Path):
    for bogus in ("--bogus", "--bogus=value", "-z"):
        with pytest.raises(SystemExit) as exit_info:
            bot.main(["--config", str(tmp_path / "none.toml"), *command, bogus])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("usage: bot.py") and f"bot.py: error: unrecognized arguments: {bogus}\n" in err


def test_an_unknown_argument_exits_the_process_with_a_message(tmp_path: Path):
    result = subprocess.run([sys.executable, "bot.py", "--config", str(tmp_path / "none.toml"), "console", "--db",
                             str(tmp_path / "c.db"), "--bogus"], cwd=ROOT, input="/risk help\n", capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and not result.stdout
    assert "usage: bot.py" in result.stderr and "unrecognized arguments: --bogus" in result.stderr
    assert not (tmp_path / "c.db").exists()  # refused before the console opened its database


PARSED = [
    ([], "_run_command", {"command": None, "db": None, "shard_count": None, "shards": None, "config": None}),
    (["--config", "bot.toml", "run", "--db", "postgresql://risk@db/risk", "--shard-count", "4", "--shards", "0,1"],
     "_run_command", {"command": "run", "config": Path("bot.toml"), "db": "postgresql://risk@db/risk",
                      "shard_count": 4, "shards": "0,1"}),
    (["sync"], "_sync_command", {"guild": None, "dry_run": False}),
    (["sync", "--guild", "123", "--dry-run"], "_sync_command", {"guild": 123, "dry_run": True}),
    (["console"], "_console_command", {"db": None, "out": None, "script": None}),
    (["console", "--db", "c.db", "--out", "maps", "script.txt"], "_console_command",
     {"db": "c.db", "out": "maps", "script": "script.txt"}),
    (["export", "--channel", "7"], "_store_command", {"command": "export", "db": None, "channel": 7, "game": None,
                                                       "out": "game.jsonl"}),
    (["export", "--db", "r.db", "--channel", "7", "--game", "3", "--out", "-"], "_store_command",
     {"db": "r.db", "channel": 7, "game": 3, "out": "-"}),
    (["games", "--db", "r.db", "--status", "running", "--shard-count", "2"], "_store_command",
     {"command": "games", "db": "r.db", "status": "running", "shard_count": 2}),
    (["migrate", "--from", "a.sqlite3", "--to", "postgresql://risk@db/risk"], "_migrate_command",
     {"source": "a.sqlite3", "target": "postgresql://risk@db/risk"}),
    (["ratings", "rebuild", "--db", "r.db"], "_ratings_command", {"action": "rebuild", "db": "r.db"}),
    (["map", "import", "map.xml", "--out", "maps", "--picture", "big.png", "--regions", "regions.png"],
     "_map_command", {"map_command": "import", "file": Path("map.xml"), "out": Path("maps"),
                      "picture": Path("big.png"), "regions": Path("regions.png")}),
]


@pytest.mark.parametrize("argv,function,expected", PARSED, ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_each_command_parses_its_options(argv: list[str], function: str, expected: dict[str, Any]):
    args = bot.build_parser().parse_args(argv)
    assert args.func is getattr(bot, function)
    assert {key: getattr(args, key) for key in expected} == expected


@pytest.mark.parametrize("argv", [["ratings"], ["ratings", "recompute"], ["export"], ["migrate", "--from", "a"],
                                  ["map"], ["map", "import"], ["run", "--shard-count", "two"], ["sync", "--guild", "x"],
                                  ["games", "--status", "sleeping"]])
def test_missing_or_wrong_options_are_refused(argv: list[str], capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_info:
        bot.build_parser().parse_args(argv)
    assert exit_info.value.code == 2 and "error:" in capsys.readouterr().err


def test_each_command_runs_with_its_options_and_the_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    calls: list[tuple[Any, ...]] = []
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    config_file = tmp_path / "bot.toml"
    config_file.write_text('database = "from-config.sqlite3"\ndev_guild = 42\n', encoding="utf-8")

    async def sync(config: bot.Config, guild: int | None, dry_run: bool) -> int:
        calls.append(("sync", guild, dry_run))
        return 0

    async def rebuild(db: str) -> int:
        calls.append(("ratings", db))
        return 0

    async def run(config: bot.Config) -> int:
        calls.append(("run", config.database, config.shard_count, config.shards))
        return 0

    def console(config: bot.Config, db: str | None, out: str | None, script: str | None) -> int:
        calls.append(("console", config.database if db is None else db, out, script))
        return 0

    monkeypatch.setattr(bot, "_sync", sync)
    monkeypatch.setattr(bot, "_rebuild_ratings", rebuild)
    monkeypatch.setattr(bot, "_run", run)
    monkeypatch.setattr(bot, "_console", console)
    monkeypatch.setattr(bot, "_migrate", lambda source, target: calls.append(("migrate", source, target)) or 0)
    monkeypatch.setattr(bot, "run_store_command", lambda args: calls.append((args.command, args.db)) or 0)
    monkeypatch.setattr(bot, "run_map_command", lambda args: calls.append(("map", args.file)) or 0)
    config = ["--config", str(config_file)]
    assert bot.main([*config, "sync"]) == 0
    assert bot.main([*config, "sync", "--guild", "7", "--dry-run"]) == 0
    assert bot.main([*config, "ratings", "rebuild"]) == 0
    assert bot.main([*config, "console", "--out", "maps", "s.txt"]) == 0
    assert bot.main(config) == 0  # no command and no token: the console
    assert bot.main([*config, "games"]) == 0
    assert bot.main([*config, "export", "--db", "r.db", "--channel", "1"]) == 0
    assert bot.main([*config, "migrate", "--from", "a", "--to", "b"]) == 0
    assert bot.main([*config, "map", "import", "m.json"]) == 0
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    assert bot.main(config) == 0  # no command: run
    assert bot.main([*config, "run", "--db", "r.db", "--shard-count", "2", "--shards", "1"]) == 0
    assert calls == [
        ("sync", 42, False), ("sync", 7, True), ("ratings", "from-config.sqlite3"),
        ("console", "from-config.sqlite3", "maps", "s.txt"), ("console", "from-config.sqlite3", None, None),
        ("games", "from-config.sqlite3"), ("export", "r.db"), ("migrate", "a", "b"), ("map", Path("m.json")),
        ("run", "from-config.sqlite3", 0, ()), ("run", "r.db", 2, (1,)),
    ]
