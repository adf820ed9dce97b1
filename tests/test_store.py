"""The store: lobby, start, actions, game over, refusals, idempotency, preferences, timers and export."""

from __future__ import annotations

import io
import json
import sqlite3

import pytest
from command_line import bot_main, bot_py

from engine import EndTurn, Game, Place, RuleError, SettingsError, apply_event
from engine.ai import make_ai
from engine.log import read_log
from store import (
    AlreadySeated,
    ChannelBusy,
    GameNotRunning,
    GameRecord,
    GuildSettings,
    InvalidValue,
    LobbyFull,
    NotEnoughPlayers,
    NotInLobby,
    NotSeated,
    Shards,
    SQLiteStore,
    UnknownGame,
    UserPrefs,
    VersionConflict,
)
from store.export import export_game, format_games, list_games, main
from table.play import apply_action, start_game

GUILD, CHANNEL, HOST = 10, 100, 1000




async def started_game(store: SQLiteStore, channel: int = CHANNEL, ais: tuple[str, ...] = ("normal", "easy"),
                       deployment: str = "auto", seed: str | None = None) -> GameRecord:
    lobby = await store.create_lobby(GUILD, channel, HOST, "Host")
    for level in ais:
        await store.add_ai(lobby.id, level)
    await store.update_settings(lobby.id, {"deployment": deployment})
    record, _ = await start_game(store, lobby.id, seed=seed)
    return record


def next_action(record: GameRecord, game: Game | None = None):
    game = game or record.game()
    seat = game.state.current
    level = record.players[seat].ai_level or "normal"
    return make_ai(level, salt=str(seat)).choose(game, seat)


async def event_count(store: SQLiteStore, game_id: int) -> int:
    return len(await store.events(game_id))


# -- lifecycle ---------------------------------------------------------------------------------------
async def test_a_whole_game_is_stored_and_its_log_replays_to_the_stored_state(store):
    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host", {"deployment": "deal"})
    assert lobby.status == "lobby" and lobby.version == 0
    assert [(p.seat, p.user_id, p.name, p.colour) for p in lobby.players] == [(0, HOST, "Host", 0)]
    lobby = await store.join(lobby.id, 2000, "Bea")
    lobby = await store.add_ai(lobby.id, "normal")
    assert [p.name for p in lobby.players] == ["Host", "Bea", "Normal AI"]
    assert [p.colour for p in lobby.players] == [0, 1, 2]
    assert lobby.players[2].is_ai and lobby.players[2].ai_level == "normal"
    assert lobby.version == 2

    record, opening = await start_game(store, lobby.id)
    assert record.status == "running" and record.version == 3
    assert opening[0]["type"] == "game_started" and record.last_seq == len(opening)
    assert [p["name"] for p in opening[0]["players"]] == ["Host", "Bea", "Normal AI"]
    assert len(record.state["seed"]) == 64  # a secret seed was generated

    game = record.game()
    actions = 0
    while record.status == "running":
        result = await apply_action(store, record.id, next_action(record, game), interaction_id=f"tap-{actions}")
        assert not result.duplicate and result.first_seq == record.last_seq + 1
        assert result.record.version == record.version + 1
        for event in result.events:  # mirror the stored game locally instead of re-parsing it
            apply_event(game.state, event)
        record = result.record
        actions += 1
        assert actions < 5000
    assert record.status == "finished" and record.state["phase"] == "over"

    stored = await store.get_game(record.id)
    assert stored == record
    events = await store.events(record.id)
    assert len(events) == stored.last_seq and events[-1]["type"] == "game_over"
    assert Game.from_events(events, stored.state["seed"]).state.to_dict() == stored.state
    assert await store.get_active_game(CHANNEL) is None
    assert [g.id for g in await store.list_games("finished")] == [record.id]
    with pytest.raises(GameNotRunning, match="over"):
        await apply_action(store, record.id, EndTurn(0))


async def test_events_since_a_seq_are_the_tail_of_the_log(store):
    record = await started_game(store)
    everything = await store.events(record.id)
    assert await store.events(record.id, since_seq=3) == everything[3:]
    assert await store.events(record.id, since_seq=record.last_seq) == []


async def test_a_game_is_finished_in_the_same_transaction_as_its_last_action(store):
    record = await started_game(store, ais=("normal",))
    while True:
        action = next_action(record)
        trial = record.game()
        trial.apply(action)
        if trial.over:
            break
        record = (await apply_action(store, record.id, action)).record
    await store.set_deadline(record.id, 0, "turn", 123.0)
    result = await apply_action(store, record.id, action)
    assert result.record.status == "finished" and result.events[-1]["type"] == "game_over"
    assert (await store.get_game(record.id)).status == "finished"
    assert await store.next_due() is None  # a finished game keeps no timers


async def test_the_cached_game_is_not_shared_with_callers(store):
    record = await started_game(store)
    mine = record.game()
    mine.state.armies.clear()  # a caller scribbling on its copy
    result = await apply_action(store, record.id, next_action(record))
    assert result.record.game().state.armies


# -- refusals ------------------------------------------------------------------------------------------
async def test_a_refused_action_leaves_the_database_untouched(store):
    record = await started_game(store)
    game = record.game()
    seat = game.state.current
    other = (seat + 1) % len(record.players)
    before = (await store.get_game(record.id), await event_count(store, record.id))
    with pytest.raises(RuleError):
        await apply_action(store, record.id, EndTurn(other), interaction_id="wrong-seat")
    not_mine = next(t for t, owner in game.state.owners.items() if owner != seat)
    with pytest.raises(RuleError, match="belongs to"):
        await apply_action(store, record.id, Place(seat, not_mine, 1), interaction_id="not-mine")
    assert (await store.get_game(record.id), await event_count(store, record.id)) == before
    # The refused interaction was not recorded: retrying it is judged again, and a legal move still works.
    with pytest.raises(RuleError):
        await apply_action(store, record.id, EndTurn(other), interaction_id="wrong-seat")
    result = await apply_action(store, record.id, next_action(record), interaction_id="not-mine")
    assert not result.duplicate and result.record.version == record.version + 1


async def test_a_second_lobby_in_a_busy_channel_is_refused(store):
    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host")
    with pytest.raises(ChannelBusy, match=f"#{lobby.id}"):
        await store.create_lobby(GUILD, CHANNEL, 2000, "Bea")
    other = await store.create_lobby(GUILD, CHANNEL + 1, 2000, "Bea")  # another channel is free
    assert other.id != lobby.id
    await store.cancel(lobby.id)
    again = await store.create_lobby(GUILD, CHANNEL, 2000, "Bea")  # cancelled games stay as history only
    assert (await store.get_active_game(CHANNEL)).id == again.id
    assert [g.status for g in await store.list_games(channel_id=CHANNEL)] == ["lobby", "cancelled"]


async def test_the_database_itself_allows_one_active_game_per_channel(sqlite_store, tmp_path):
    store = sqlite_store
    await store.create_lobby(GUILD, CHANNEL, HOST, "Host")
    conn = sqlite3.connect(tmp_path / "risk.sqlite3")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO games (channel_id, status, host_id, created_at, updated_at) "
                     "VALUES (?, 'running', 1, 0, 0)", (CHANNEL,))
    conn.execute("INSERT INTO games (channel_id, status, host_id, created_at, updated_at) "
                 "VALUES (?, 'finished', 1, 0, 0)", (CHANNEL,))
    conn.commit()
    conn.close()


async def test_unknown_games_are_refused(store):
    for call in (store.get_game(99), store.join(99, 1, "A"), start_game(store, 99), store.events(99),
                 apply_action(store, 99, EndTurn(0)), store.cancel(99), store.set_deadline(99, 0, "turn", 1.0)):
        with pytest.raises(UnknownGame, match="no game #99"):
            await call


async def test_a_lobby_seats_at_most_six(store):
    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host")
    for i in range(5):
        lobby = await store.join(lobby.id, 2000 + i, f"P{i}")
    assert sorted(p.colour for p in lobby.players) == [0, 1, 2, 3, 4, 5]
    with pytest.raises(LobbyFull, match="at most 6"):
        await store.join(lobby.id, 3000, "Late")
    with pytest.raises(LobbyFull):
        await store.add_ai(lobby.id, "easy")


async def test_lobby_rules(store):
    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host")
    with pytest.raises(AlreadySeated):
        await store.join(lobby.id, HOST, "Host again")
    with pytest.raises(NotEnoughPlayers, match="at least 2"):
        await start_game(store, lobby.id)
    with pytest.raises(InvalidValue, match="AI level"):
        await store.add_ai(lobby.id, "grandmaster")
    with pytest.raises(SettingsError):
        await store.update_settings(lobby.id, {"cards": "sometimes"})
    with pytest.raises(NotSeated):
        await store.leave(lobby.id, 4242)
    with pytest.raises(NotSeated):
        await store.kick(lobby.id, 5)
    lobby = await store.join(lobby.id, 2000, "Bea")
    lobby = await store.add_ai(lobby.id, "easy")
    lobby = await store.join(lobby.id, 3000, "Cid")
    lobby = await store.kick(lobby.id, 2)  # the AI; later seats move up, colours stay
    assert [(p.seat, p.name, p.colour) for p in lobby.players] == [(0, "Host", 0), (1, "Bea", 1), (2, "Cid", 3)]
    lobby = await store.leave(lobby.id, HOST)  # the host leaves: the next human hosts
    assert lobby.host_id == 2000 and [p.name for p in lobby.players] == ["Bea", "Cid"]
    lobby = await store.update_settings(lobby.id, {"cards": "fixed"})
    assert lobby.settings["cards"] == "fixed" and lobby.settings["fortify"] == "adjacent"
    assert await store.get_game(lobby.id) == lobby

    record, _ = await start_game(store, lobby.id, seed="ab" * 32)
    assert record.state["seed"] == "ab" * 32
    for call in (store.join(record.id, 5000, "E"), store.add_ai(record.id), store.update_settings(record.id, {}),
                 start_game(store, record.id), store.leave(record.id, 2000)):
        with pytest.raises(NotInLobby, match="running"):
            await call


async def test_the_last_human_leaving_cancels_the_lobby(store):
    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host")
    await store.add_ai(lobby.id, "easy")
    lobby = await store.leave(lobby.id, HOST)
    assert lobby.status == "cancelled"
    assert await store.get_active_game(CHANNEL) is None


async def test_pause_resume_and_cancel(store):
    record = await started_game(store)
    paused = await store.pause(record.id)
    assert paused.status == "paused" and paused.version == record.version + 1
    with pytest.raises(GameNotRunning, match="paused"):
        await apply_action(store, record.id, next_action(record))
    with pytest.raises(GameNotRunning):
        await store.pause(record.id)
    resumed = await store.resume(record.id)
    result = await apply_action(store, record.id, next_action(resumed), expected_version=resumed.version)
    assert result.record.version == resumed.version + 1
    cancelled = await store.cancel(record.id)
    assert cancelled.status == "cancelled"
    with pytest.raises(GameNotRunning, match="already cancelled"):
        await store.cancel(record.id)


async def test_a_stale_expected_version_is_a_conflict(store):
    record = await started_game(store)
    result = await apply_action(store, record.id, next_action(record), expected_version=record.version)
    with pytest.raises(VersionConflict, match="moved on"):
        await apply_action(store, record.id, next_action(result.record), expected_version=record.version)
    assert (await store.get_game(record.id)).version == result.record.version


# -- idempotency ------------------------------------------------------------------------------------------
async def test_a_repeated_interaction_is_applied_once(store):
    record = await started_game(store)
    action = next_action(record)
    first = await apply_action(store, record.id, action, interaction_id="1234567890")
    count = await event_count(store, record.id)
    second = await apply_action(store, record.id, action, interaction_id="1234567890")
    assert not first.duplicate and second.duplicate
    assert second.events == first.events and second.first_seq == first.first_seq
    assert second.record == first.record
    assert await event_count(store, record.id) == count
    # Even after the game moved on (and with a stale expected version) the repeat gets the first answer.
    moved = await apply_action(store, record.id, next_action(first.record), interaction_id="next")
    third = await apply_action(store, record.id, action, interaction_id="1234567890",
                                     expected_version=record.version)
    assert third.duplicate and third.events == first.events and third.record == moved.record


async def test_a_repeat_answers_from_the_database_after_a_restart(tmp_path):
    path = tmp_path / "risk.sqlite3"
    async with SQLiteStore(path) as store:
        record = await started_game(store)
        action = next_action(record)
        first = await apply_action(store, record.id, action, interaction_id="tap")
    async with SQLiteStore(path) as store:
        again = await apply_action(store, record.id, action, interaction_id="tap")
        assert again.duplicate and again.events == first.events and again.record == first.record


# -- preferences, guild settings, timers ------------------------------------------------------------
async def test_user_preferences(store):
    assert await store.get_user_prefs(7) == UserPrefs(7)
    prefs = UserPrefs(7, language="no", notify="dm", quiet_start="22:30", quiet_end="07:00", timezone="Europe/Oslo")
    await store.set_user_prefs(prefs)
    assert await store.get_user_prefs(7) == prefs
    await store.set_user_prefs(UserPrefs(7, language="es-419"))
    assert await store.get_user_prefs(7) == UserPrefs(7, language="es-419")
    for bad in (UserPrefs(7, notify="pigeon"), UserPrefs(7, quiet_start="25:00", quiet_end="07:00"),
                UserPrefs(7, quiet_start="22:00"), UserPrefs(7, timezone="Mars/Olympus"), UserPrefs(7, language="x")):
        with pytest.raises(InvalidValue):
            await store.set_user_prefs(bad)


async def test_a_time_zone_is_one_of_the_zone_databases_names_and_nothing_else(store):
    # ZoneInfo takes any other text for a file name: 64 emoji are "File name too long", a path may be read.
    for bad in ("😀" * 64, "../../../etc/passwd", "/etc/localtime", "Europe/../Europe/Oslo", "europe/oslo", " UTC",
                "Europe", "\x00"):
        with pytest.raises(InvalidValue, match="Unknown time zone"):
            await store.set_user_prefs(UserPrefs(7, timezone=bad))
    assert await store.get_user_prefs(7) == UserPrefs(7)   # nothing was saved
    for good in ("Europe/Oslo", "UTC", "America/Argentina/Buenos_Aires"):
        assert (await store.set_user_prefs(UserPrefs(7, timezone=good))).timezone == good


def test_quiet_hours_of_a_zone_saved_before_it_was_checked_are_in_utc():
    from table.clock import in_quiet_hours

    night = 1_800_000_000 - 1_800_000_000 % 86400 + 23 * 3600   # 23:00 UTC
    assert in_quiet_hours(UserPrefs(7, quiet_start="22:00", quiet_end="07:00", timezone="😀" * 64), night) == \
        in_quiet_hours(UserPrefs(7, quiet_start="22:00", quiet_end="07:00", timezone="UTC"), night) is not None


async def test_guild_settings_give_new_lobbies_their_defaults(store):
    assert await store.get_guild_settings(GUILD) == GuildSettings(GUILD)
    saved = await store.set_guild_settings(GuildSettings(GUILD, {"cards": "fixed"}, (CHANNEL, CHANNEL + 1)))
    assert await store.get_guild_settings(GUILD) == saved
    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host")
    assert lobby.settings["cards"] == "fixed"
    explicit = await store.create_lobby(GUILD, CHANNEL + 1, HOST, "Host", {"cards": "none"})
    assert explicit.settings["cards"] == "none"
    with pytest.raises(SettingsError):
        await store.set_guild_settings(GuildSettings(GUILD, {"dice": 5}))


async def test_deadlines(store):
    record = await started_game(store)
    other = await started_game(store, channel=CHANNEL + 1)
    assert await store.next_due() is None
    await store.set_deadline(record.id, 0, "turn", 500.0)
    await store.set_deadline(record.id, 0, "reminder", 300.0)
    await store.set_deadline(other.id, 1, "turn", 400.0)
    await store.set_deadline(record.id, 0, "turn", 600.0)  # moved, not added
    assert (await store.next_due()).due_at == 300.0
    assert [(d.game_id, d.kind, d.due_at) for d in await store.due_deadlines(550.0)] == [
        (record.id, "reminder", 300.0), (other.id, "turn", 400.0)]
    assert await store.clear_deadlines(record.id, kind="reminder") == 1
    await store.cancel(other.id)  # a cancelled game keeps no timers
    assert [d.due_at for d in await store.due_deadlines(10_000.0)] == [600.0]
    assert await store.clear_deadlines(record.id) == 1
    assert await store.next_due() is None


async def test_each_process_sees_only_the_timers_of_games_in_guilds_of_its_shards(store):
    """Discord puts a guild on shard (id >> 22) % count; a game without a guild (direct messages) is on shard 0."""
    guilds = {0: 7 << 22, 1: (8 << 22) + 5, 2: 9 << 22}  # shards 1, 0 and 1 of 2
    games = {}
    for n, guild in guilds.items():
        lobby = await store.create_lobby(guild, CHANNEL + n, HOST, "Host", {"deployment": "auto"})
        await store.add_ai(lobby.id, "easy")
        games[n], _ = await start_game(store, lobby.id)
        await store.set_deadline(games[n].id, 0, "turn", 100.0 + n)
    lobby = await store.create_lobby(None, CHANNEL + 9, HOST, "Host", {"deployment": "auto"})
    await store.add_ai(lobby.id, "easy")
    direct, _ = await start_game(store, lobby.id)
    await store.set_deadline(direct.id, 0, "turn", 50.0)
    first, second, both = Shards(2, (0,)), Shards(2, (1,)), Shards(2, (0, 1))
    assert [d.game_id for d in await store.due_deadlines(1000.0, first)] == [direct.id, games[1].id]
    assert [d.game_id for d in await store.due_deadlines(1000.0, second)] == [games[0].id, games[2].id]
    assert len(await store.due_deadlines(1000.0, both)) == len(await store.due_deadlines(1000.0)) == 4
    assert (await store.next_due(second)).game_id == games[0].id
    assert (await store.next_due(first)).game_id == direct.id
    assert await store.due_deadlines(99.5, second) == [] and await store.next_due(Shards(5, (1,))) is None
    assert [first.owns(g) for g in (*guilds.values(), None)] == [False, True, False, True]
    with pytest.raises(ValueError):
        Shards(2, (2,))


# -- export ---------------------------------------------------------------------------------------------------
async def test_export_hides_cards_until_the_game_is_over(sqlite_store, tmp_path):
    store = sqlite_store
    record = await started_game(store)  # deployment "auto" shuffles the deck at once
    db = tmp_path / "risk.sqlite3"
    out = tmp_path / "out" / "game.jsonl"
    summary = export_game(db, CHANNEL, out=out)
    assert summary.game_id == record.id and not summary.revealed
    lines = read_log(out)
    assert len(lines) == record.last_seq and lines[0]["type"] == "game_started"
    shuffled = [e for e in lines if e["type"] == "deck_shuffled"]
    assert shuffled and all(e["cards"] is None and e["cards_count"] > 0 for e in shuffled)
    assert "seed" not in json.dumps(lines).replace("seed_commitment", "")

    game = record.game()
    while not game.over:
        result = await apply_action(store, record.id, next_action(record, game))
        record = result.record
        game = record.game()
    summary = export_game(db, CHANNEL, game_id=record.id, out=out)
    assert summary.revealed and summary.status == "finished"
    lines = read_log(out)
    assert lines == await store.events(record.id)  # everything public once it is over
    assert Game.from_events(lines, lines[-1]["seed"]).state.to_dict() == record.state


async def test_listing_and_the_command_line(sqlite_store, tmp_path, capsys):
    store = sqlite_store
    record = await started_game(store)
    await store.create_lobby(GUILD, CHANNEL + 1, 2000, "Bea")
    db = tmp_path / "risk.sqlite3"
    rows = list_games(db)
    assert [(r.id, r.status, r.turn) for r in rows] == [(record.id + 1, "lobby", None),
                                                        (record.id, "running", record.state["turn"])]
    assert rows[1].players == "Host, Normal AI, Easy AI" and rows[1].channel_id == CHANNEL
    assert "Host, Normal AI, Easy AI" in format_games(rows)

    assert main(["games", "--db", str(db)]) == 0
    assert "running" in capsys.readouterr().out
    out = tmp_path / "cli.jsonl"
    assert main(["export", "--db", str(db), "--channel", str(CHANNEL), "--out", str(out)]) == 0
    assert f"Game #{record.id}" in capsys.readouterr().out
    assert len(read_log(out)) == record.last_seq
    assert main(["export", "--db", str(db), "--channel", "999", "--out", str(out)]) == 1
    assert "no games" in capsys.readouterr().err
    assert main(["games", "--db", str(tmp_path / "missing.sqlite3")]) == 1
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    assert "--channel" in capsys.readouterr().out


def test_export_to_a_stream(tmp_path):
    import asyncio

    async def make() -> None:
        async with SQLiteStore(tmp_path / "risk.sqlite3") as store:
            await started_game(store)
    asyncio.run(make())
    stream = io.StringIO()
    summary = export_game(tmp_path / "risk.sqlite3", CHANNEL, out=stream)
    assert summary.events == len(stream.getvalue().splitlines())


async def test_bot_py_games_and_export_take_their_options(sqlite_store, tmp_path, capsys):
    store = sqlite_store
    first = await started_game(store)
    second = await started_game(store, channel=CHANNEL + 1)
    await store.cancel(second.id)
    third = await started_game(store, channel=CHANNEL + 1)
    db = tmp_path / "risk.sqlite3"

    listed = bot_py("games", "--db", str(db))  # once as the README writes it; then through main, as quick
    assert listed.returncode == 0, listed.stderr
    rows = [line.split()[:5] for line in listed.stdout.splitlines()]
    assert rows[0] == ["id", "guild", "channel", "status", "turn"]
    assert rows[1:] == [[str(third.id), str(GUILD), str(CHANNEL + 1), "running", "1"],
                        [str(second.id), str(GUILD), str(CHANNEL + 1), "cancelled", "1"],
                        [str(first.id), str(GUILD), str(CHANNEL), "running", "1"]]
    only = await bot_main(capsys, "games", "--db", str(db), "--status", "cancelled")
    assert [line.split()[0] for line in only.stdout.splitlines()] == ["id", str(second.id)]

    out = tmp_path / "game.jsonl"
    latest = await bot_main(capsys, "export", "--db", str(db), "--channel", str(CHANNEL + 1), "--out", str(out))
    assert latest.returncode == 0, latest.stderr
    assert latest.stdout == (f"Game #{third.id} (running): {third.last_seq} events written to {out} "
                             "(hidden information kept hidden: the game is not over).\n")
    assert read_log(out)[0]["type"] == "game_started"

    chosen = await bot_main(capsys, "export", "--db", str(db), "--channel", str(CHANNEL + 1), "--game",
                            str(second.id), "--out", str(out))
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout.startswith(f"Game #{second.id} (cancelled): ")
    assert len(read_log(out)) == (await store.get_game(second.id)).last_seq

    printed = await bot_main(capsys, "export", "--db", str(db), "--channel", str(CHANNEL), "--out", "-")
    events = [json.loads(line) for line in printed.stdout.splitlines()]
    assert events[0]["type"] == "game_started" and len(events) == first.last_seq

    wrong = await bot_main(capsys, "export", "--db", str(db), "--channel", str(CHANNEL), "--game", str(third.id),
                           "--out", str(out))
    assert wrong.returncode == 1
    assert wrong.stderr.strip() == f"error: There is no game #{third.id} in channel {CHANNEL}."
    typo = await bot_main(capsys, "games", "--db", str(db), "--state", "running")
    assert typo.returncode == 2 and "unrecognized arguments: --state running" in typo.stderr
    missing = await bot_main(capsys, "export", "--db", str(db), "--out", str(out))
    assert missing.returncode == 2 and "the following arguments are required: --channel" in missing.stderr
    helped = await bot_main(capsys, "export", "--help")
    assert helped.returncode == 0 and "--game GAME" in helped.stdout and "--channel CHANNEL" in helped.stdout


async def test_bot_py_games_without_db_reads_the_configured_database(sqlite_store, tmp_path):
    store = sqlite_store
    record = await started_game(store)
    config = tmp_path / "config.toml"
    config.write_text(f'database = "{(tmp_path / "risk.sqlite3").as_posix()}"\n', encoding="utf-8")
    listed = bot_py("--config", str(config), "games")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[1].split()[:4] == [str(record.id), str(GUILD), str(CHANNEL), "running"]


async def test_the_live_panel_of_a_game_is_kept_replaced_and_cleared(store):
    from store import LivePanel

    record = await started_game(store)
    assert await store.live_panel(record.id) is None
    first = LivePanel(record.id, CHANNEL, 5001, 0, 1, 3, 1000.5)
    await store.set_live_panel(first)
    assert await store.live_panel(record.id) == first
    newer = LivePanel(record.id, CHANNEL, 5002, 1, 2, 9, 2000.0)  # the next turn's panel replaces it
    await store.set_live_panel(newer)
    assert await store.live_panel(record.id) == newer
    await store.clear_live_panel(record.id)
    assert await store.live_panel(record.id) is None
    await store.clear_live_panel(record.id)  # clearing twice is harmless


async def test_a_board_session_ended_by_leave_stays_revoked_until_it_would_have_expired(store):
    await store.revoke_session("left", 2_000.0, 1_000.0)
    await store.revoke_session("left", 2_000.0, 1_000.0)   # twice: still one
    await store.revoke_session("older", 1_500.0, 1_000.0)
    assert await store.revoked_sessions(1_200.0) == {"left": 2_000.0, "older": 1_500.0}
    assert await store.revoked_sessions(1_600.0) == {"left": 2_000.0}
    await store.revoke_session("later", 9_000.0, 2_500.0)   # the expired ones are forgotten
    assert await store.revoked_sessions(0.0) == {"later": 9_000.0}
