"""Several processes, each running some of the gateway's shards: which bot each builds, and whose timers each
handles (the games of its shards' guilds, and direct-message games on shard 0 only)."""

from __future__ import annotations

import os

import pytest

import bot as bot_module
from bot import Config, RiskBot, ShardedRiskBot, create_bot
from store import Shards
from store.export import main as store_main
from table import Scheduler, Table, turn_key
from table.play import start_game

HOUR = 3600.0


class Recorder:
    def __init__(self) -> None:
        self.outcomes: list[object] = []
        self.reminders: list[object] = []

    async def outcome(self, outcome: object) -> None:
        self.outcomes.append(outcome)

    async def reminder(self, reminder: object) -> None:
        self.reminders.append(reminder)


def guild_on(shard: int, count: int, n: int = 1) -> int:
    """A guild id that Discord puts on ``shard`` of ``count``."""
    return ((n * count + shard) << 22) + 12345


def test_a_guild_belongs_to_the_shard_discord_puts_it_on():
    assert Shards.of(guild_on(1, 2), 2) == 1 and Shards.of(guild_on(0, 2), 2) == 0
    assert Shards.of(None, 4) == 0  # direct messages come on shard 0
    assert Shards.of(81384788765712384, 2) == (81384788765712384 >> 22) % 2
    assert str(Shards(4, (0, 2))) == "shards 0,2 of 4"
    for wrong in ((0, (0,)), (2, ()), (2, (1, 1)), (2, (-1,))):
        with pytest.raises(ValueError):
            Shards(*wrong)


def test_the_config_picks_a_sharded_bot_for_some_shards_and_a_plain_one_otherwise(tmp_path):
    plain = create_bot(Config(database=str(tmp_path / "a.db")))
    assert isinstance(plain, RiskBot) and plain.owned_shards is None
    sharded = create_bot(Config(database=str(tmp_path / "a.db"), shard_count=4, shards=(1, 3)))
    assert isinstance(sharded, ShardedRiskBot)
    assert sharded.shard_ids == [1, 3] and sharded.shard_count == 4 and sharded.owned_shards == Shards(4, (1, 3))
    every = Config(shard_count=2).owned_shards()
    assert every == Shards(2, (0, 1))
    with pytest.raises(SystemExit, match="shard_count"):
        Config(shards=(1,)).owned_shards()
    with pytest.raises(SystemExit, match="shards"):
        Config(shard_count=2, shards=(2,)).owned_shards()


def test_the_database_setting_comes_from_the_command_line_then_database_url_then_the_config(tmp_path, monkeypatch):
    config_file = tmp_path / "config.toml"
    config_file.write_text('database = "from-config.sqlite3"\nshard_count = 2\nshards = [1]\n', encoding="utf-8")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert Config.load(config_file).database == "from-config.sqlite3"
    assert Config.load(config_file).owned_shards() == Shards(2, (1,))
    monkeypatch.setenv("DATABASE_URL", "postgresql://bot@db.example/risk")
    assert Config.load(config_file).database == "postgresql://bot@db.example/risk"
    assert "DATABASE_URL" in os.environ


def test_bad_shard_options_are_refused_before_connecting(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    monkeypatch.setattr(bot_module, "_run", lambda config: pytest.fail("must not start"))
    with pytest.raises(SystemExit):
        bot_module.main(["--config", str(tmp_path / "none.toml"), "run", "--shard-count", "2", "--shards", "0,x"])
    assert "--shards takes shard numbers" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="shards must be distinct numbers from 0 to 1"):
        bot_module.main(["--config", str(tmp_path / "none.toml"), "run", "--shard-count", "2", "--shards", "2"])


async def game_with_a_deadline(store, guild: int | None, channel: int, due: float) -> tuple[int, int]:
    lobby = await store.create_lobby(guild, channel, 1000 + channel, "Host", {"deployment": "auto"})
    await store.join(lobby.id, 2000 + channel, "Bea")  # two humans: a human always has the turn
    record, _ = await start_game(store, lobby.id)
    state = record.game().state
    await store.set_deadline(record.id, state.current, f"turn|{turn_key(state)}", due)
    return record.id, state.current


async def test_each_process_handles_the_deadlines_of_its_own_shards_once(store):
    """Two schedulers on one database, as two processes: each plays the timed-out turns of its guilds' games."""
    now = 10 * HOUR
    games = {
        0: await game_with_a_deadline(store, guild_on(0, 2), 1, now - 60),
        1: await game_with_a_deadline(store, guild_on(1, 2), 2, now - 50),
        "dm": await game_with_a_deadline(store, None, 3, now - 40),
    }
    sinks = {0: Recorder(), 1: Recorder()}
    schedulers = {shard: Scheduler(Table(store, lambda: now), store, lambda: now, sinks[shard], Shards(2, (shard,)))
                  for shard in (0, 1)}
    assert await schedulers[1].run_due() == 1
    left = {d.game_id for d in await store.due_deadlines(now)}
    assert left == {games[0][0], games["dm"][0]}  # left to shard 0
    assert [o.record.id for o in sinks[1].outcomes] == [games[1][0]]
    assert await schedulers[0].run_due() == 2
    assert [o.record.id for o in sinks[0].outcomes] == [games[0][0], games["dm"][0]]
    assert await store.due_deadlines(now) == []
    assert await schedulers[0].run_due() == 0 and await schedulers[1].run_due() == 0  # each handled once
    for game_id, seat in games.values():
        assert (await store.seat_status(game_id, seat)).missed == 1
        assert (await store.get_game(game_id)).game().state.current != seat  # the turn was played for them


async def test_bot_py_games_shows_the_shard_of_each_game(sqlite_store, tmp_path, capsys):
    await game_with_a_deadline(sqlite_store, guild_on(1, 3), 1, 0)
    await game_with_a_deadline(sqlite_store, None, 2, 0)
    assert store_main(["games", "--db", str(tmp_path / "risk.sqlite3"), "--shard-count", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["id", "guild", "shard", "channel"]
    shards = {line.split()[0]: line.split() for line in lines[1:]}
    assert shards["1"][2] == "1"  # the guild's shard
    assert shards["2"][1] == "0"  # no guild: shard 0 (the guild column is empty)


async def test_each_process_runs_the_tournaments_of_its_own_shards(store):
    """Two processes on one database, each with its shards' schedulers: a tournament's timers (here its check-in
    closing) are handled by the process that runs its guild's shard, once; a tournament without a guild (none is
    made so by the bot, but the rule is the games') goes to shard 0."""
    from competition import Spec
    from table.tournaments import Tournaments
    from tests.test_tournament_flow import GAME, Threads

    now = [10 * HOUR]
    clock = lambda: now[0]  # noqa: E731
    desks, schedulers, threads = {}, {}, Threads()
    for shard in (0, 1):
        table = Table(store, clock)
        desks[shard] = Tournaments(table)
        desks[shard].rooms = threads
        schedulers[shard] = Scheduler(table, store, clock, Recorder(), Shards(2, (shard,)))
        schedulers[shard].tournaments = desks[shard]
    tournaments = {}
    for shard in (0, 1):
        created = await desks[0].create(guild_on(shard, 2), 700 + shard, 9, f"Cup {shard}", Spec("swiss", rounds=1),
                                        {"game": GAME, "checkin": 60})
        tid = created.record.id
        for user in (101, 102):
            await desks[0].join(tid, user + 10 * shard, f"p{user}")
        await desks[0].start(tid)  # the check-in opens: its timer falls due in a minute
        tournaments[shard] = tid
        for user in (101, 102):
            await desks[0].check_in(tid, user + 10 * shard)
    now[0] += 61
    assert await desks[1].next_due(Shards(2, (1,))) == await desks[0].next_due(Shards(2, (0,))) == 10 * HOUR + 60
    assert await schedulers[1].run_due() >= 1
    status = {shard: (await store.get_tournament(tid)).status for shard, tid in tournaments.items()}
    assert status == {0: "checkin", 1: "running"}  # shard 1 started its own only
    assert await schedulers[0].run_due() >= 1
    assert (await store.get_tournament(tournaments[0])).status == "running"
    assert [t.id for t in await store.due_tournaments(now[0])] == []  # each timer handled once
    assert await store.next_tournament_due(Shards(2, (1,))) is None
