"""End to end, for the host: the real ``bot.py`` process's /readyz, /healthz and /metrics, its JSON log, and a
backup taken while it plays, restored into a fresh database (tests/e2e, docs/deploy.md)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from discord_offline.fake_discord import FakeDiscord
from e2e.launch import ROOT, BotProcess
from e2e.ops import get, samples, until
from e2e.players import Table, engine_game, stored_game
from test_e2e import CALLBACK, CHANNEL_MESSAGES, SETTINGS, SHORT_GAME, bots, clean, command_payload, fake
from web_helpers import SECRET, free_port

from engine.verify import verify_events

pytestmark = [pytest.mark.asyncio, pytest.mark.slow,  # the real bot process against the fake Discord
              pytest.mark.filterwarnings("ignore:unread_data:DeprecationWarning")]
__all__ = ["bots", "command_payload", "fake"]  # the fixtures of test_e2e, used here


def table_rows(path: Path, table: str) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return sorted(conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)


def host_command(bot: BotProcess, *args: str) -> subprocess.CompletedProcess[str]:
    """``bot.py`` with the bot's config, as the host types it beside the running bot."""
    return subprocess.run([sys.executable, str(ROOT / "bot.py"), "--config", str(bot.config), *args], cwd=str(ROOT),
                          capture_output=True, text=True, timeout=120, check=False)


async def test_readyz_goes_unready_while_the_database_does_not_answer_and_ready_when_it_does(
        fake: FakeDiscord, bots: Callable[..., BotProcess]):
    async with asyncio.timeout(90):
        bot = bots()
        bot.start()
        ops = await bot.ops_url()
        await bot.wait_ready()
        body = await until(ops + "/readyz", 200, 20)
        assert body["checks"]["gateway"] == {"ok": True, "detail": {"0": "connected"}}
        assert body["checks"]["database"] == {"ok": True} and body["checks"]["workers"] == {"ok": True}

        # Another program holds the database's write lock: every change would wait, so the bot is not ready.
        other = sqlite3.connect(bot.database, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            body = await until(ops + "/readyz", 503, 20)
            assert body["failed"] == ["database"] and body["checks"]["gateway"]["ok"]
            status, alive = await get(ops + "/healthz")
            assert status == 200 and alive["status"] == "alive"  # alive all the same: no restart
        finally:
            other.execute("ROLLBACK")
            other.close()
        body = await until(ops + "/readyz", 200, 30)
        assert body["status"] == "ready"
        clean(fake, bot)


async def test_a_game_seen_by_the_host_metrics_json_logs_without_secrets_and_a_backup_taken_while_it_plays(
        fake: FakeDiscord, bots: Callable[..., BotProcess], tmp_path: Path):
    humans, ais, expected = engine_game(SHORT_GAME, settings=SETTINGS)
    port = free_port()
    async with asyncio.timeout(240):
        bot = bots(seed=SHORT_GAME, log_level="DEBUG", sections={"web": {"listen": f"127.0.0.1:{port}",
                                                      "public_url": f"http://127.0.0.1:{port}", "secret": SECRET}})
        bot.start("--log-format", "json")
        ops = await bot.ops_url()
        await bot.wait_ready()
        fake.rate_limit("POST", CHANNEL_MESSAGES, times=1, retry_after=0.2)  # one 429 on the way
        table = Table(fake, bot.database, "world", ["alice", "bob"], settings=SETTINGS, buttons=0.5)
        game_id = await table.open()
        for _ in range(30):
            assert await table.step() != "over"

        # A backup while the game is played: one consistent moment, every game in it whole.
        during = tmp_path / "during.sqlite3"
        done = host_command(bot, "backup", "--db", str(bot.database), str(during))
        assert done.returncode == 0, done.stderr
        _, partial, _ = stored_game(during, game_id)
        assert partial[1:] == expected[1:len(partial)]  # the game so far, event for event

        result = await table.play(max_steps=4 * (humans + ais) + 100, seconds=150)
        assert result == "over" and not table.errors, (result, table.errors[:5])
        await fake.wait_message(lambda m: any("wins" in (e.get("title") or "") for e in m.embeds), 30,
                                channel=table.channel, what="the game-over message")

        # /metrics: the counts the game implies.
        status, text = await get(ops + "/metrics")
        assert status == 200
        kinds = {2: "command", 3: "component", 4: "autocomplete", 5: "modal"}
        sent = collections.Counter(kinds[i.kind] for i in fake.interactions.values())
        interactions = samples(text, "risk_interactions_total")
        for kind, count in sent.items():
            assert sum(v for labels, v in interactions.items() if ("kind", kind) in labels) == count, kind
        assert sum(interactions.values()) == len(fake.calls_to("POST", CALLBACK))  # each first response once
        assert samples(text, "risk_interaction_first_response_seconds_count")
        actions = samples(text, "risk_actions_applied_total")
        assert sum(actions.values()) == humans + ais
        messages = samples(text, "risk_messages_sent_total")
        assert messages[(("kind", "post"),)] == len([c for c in fake.calls_to("POST", CHANNEL_MESSAGES)
                                                     if c.status == 200])
        assert messages[(("kind", "edit"),)] > 0
        assert samples(text, "risk_rate_limited_total") == {(("api", "rest"),): 1.0}
        assert samples(text, "risk_games")[(("status", "finished"),)] == 1
        assert samples(text, "risk_ai_decisions_total")[(("level", "normal"), ("where", "bot"))] >= ais
        assert samples(text, "risk_db_transaction_seconds_count")[()] > humans + ais
        assert samples(text, "risk_event_loop_lag_seconds_count")[()] > 0
        assert (("pool", "render"),) in samples(text, "risk_worker_queue")
        assert samples(text, "risk_board_connections") == {(): 0.0}

        # A backup after the game, the bot still running; then a restore into a fresh database.
        after = tmp_path / "after.sqlite3"
        assert host_command(bot, "backup", "--db", str(bot.database), str(after)).returncode == 0
        refused = host_command(bot, "restore", "--db", str(bot.database), str(after))
        assert refused.returncode == 1 and "in use by another bot process" in refused.stderr
        clean(fake, bot)
        bot.stop()
        fresh = tmp_path / "fresh" / "risk.sqlite3"
        done = host_command(bot, "restore", "--db", str(fresh), str(after))
        assert done.returncode == 0, done.stderr
        for name in ("games", "players", "events", "interactions", "results", "ratings", "rating_history"):
            assert table_rows(fresh, name) == table_rows(Path(bot.database), name), name
        assert table_rows(fresh, "ratings")  # the game was rated
        state, events, _ = stored_game(fresh, game_id)
        verify_events(events)
        assert events[1:] == expected[1:] and state["phase"] == "over"

        # The log: one JSON object a line, with the ids of what it was about, and never the token or the secret.
        log = bot.all_stderr()
        lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
        # (only multiprocessing's resource tracker, a process of its own, writes to the same stderr as it stops)
        assert all("resource_tracker" in line or line.startswith("  warnings.warn(")
                   for line in log.splitlines() if not line.startswith("{")), log[-2000:]
        assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
        assert any(line.get("game_id") == game_id for line in lines)
        assert any(line.get("interaction_id") and line.get("channel_id") == table.channel.id for line in lines)
        assert bot.token not in log and SECRET not in log
        assert all(bot.token not in bot.stdout(run) for run in range(1, bot.runs + 1))
