"""The operator's listener (ops/): /healthz, /readyz and /metrics on a real store, and the JSON log."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from engine import Place
from ops import logs, metrics
from ops.probes import Probes
from ops.server import OpsConfig, OpsServer
from store import open_store
from store.sqlite import SQLiteStore
from table.play import apply_action, start_game


class Gateway:
    """Whether the shards are connected: the test sets it (the gateway itself is the end-to-end suite's)."""

    def __init__(self) -> None:
        self.connected = True

    def __call__(self) -> tuple[bool, dict[str, str]]:
        return self.connected, {"0": "connected" if self.connected else "disconnected"}


@contextlib.asynccontextmanager
async def listener(store: SQLiteStore, gateway: Gateway, clock: list[float], bound: float = 0.5
                   ) -> AsyncIterator[str]:
    async def counts(late: float) -> object:
        return await store.health_counts(clock[0], late)

    probes = Probes(ping=store.ping, counts=counts, gateway=gateway, database_bound=bound)  # type: ignore[arg-type]
    server = OpsServer(probes)
    await server.start("127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        await server.stop()


async def get(url: str) -> tuple[int, dict[str, object] | str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        if response.content_type == "application/json":
            return response.status, await response.json()
        return response.status, await response.text()


async def started_game(store: SQLiteStore, channel: int) -> int:
    lobby = await store.create_lobby(1, channel, 100, "alice", {"deployment": "auto"})
    await store.join(lobby.id, 200, "bob")
    await store.add_ai(lobby.id, "easy")
    record, _ = await start_game(store, lobby.id, seed="ops")
    return record.id


async def test_ready_when_everything_answers_and_unready_naming_the_check_that_failed(tmp_path: Path):
    store = SQLiteStore(tmp_path / "risk.sqlite3", busy_timeout_ms=300)
    await store.open()
    gateway, clock = Gateway(), [time.time()]
    try:
        async with listener(store, gateway, clock) as url:
            status, body = await get(url + "/readyz")
            assert status == 200 and isinstance(body, dict) and body["status"] == "ready"
            assert set(body["checks"]) == {"gateway", "database", "workers"}  # type: ignore[arg-type]

            gateway.connected = False
            status, body = await get(url + "/readyz")
            assert status == 503 and isinstance(body, dict) and body["failed"] == ["gateway"]
            gateway.connected = True

            # Another program holds the database's write lock: the database does not answer, then does again.
            other = sqlite3.connect(tmp_path / "risk.sqlite3", isolation_level=None)
            other.execute("BEGIN IMMEDIATE")
            status, body = await get(url + "/readyz")
            assert status == 503 and isinstance(body, dict) and body["failed"] == ["database"]
            assert (await get(url + "/healthz"))[0] == 200  # alive all the same
            other.execute("ROLLBACK")
            other.close()
            for _ in range(50):  # the slow attempt ends by itself (busy timeout); the next one answers
                status, body = await get(url + "/readyz")
                if status == 200:
                    break
                await asyncio.sleep(0.1)
            assert status == 200, body
    finally:
        await store.close()


async def test_a_stuck_game_is_reported_by_healthz_and_never_makes_the_bot_unready(tmp_path: Path):
    store = await open_store(tmp_path / "risk.sqlite3")
    clock = [time.time()]
    try:
        game = await started_game(store, 10)
        await store.set_deadline(game, 0, "turn", clock[0] - 3600)  # an hour overdue: the game is stuck
        await store.set_deadline(game, 1, "reminder", clock[0] - 5)  # due, not overdue
        async with listener(store, Gateway(), clock) as url:
            status, body = await get(url + "/healthz")
            assert status == 200 and isinstance(body, dict)
            assert body["status"] == "alive" and body["timers"] == {"due": 2, "overdue": 1}
            status, body = await get(url + "/readyz")
            assert status == 200, body
            status, text = await get(url + "/metrics")
            assert status == 200 and isinstance(text, str)
            assert "risk_timers_overdue 1.0" in text and "risk_timers_due 2.0" in text
            assert 'risk_games{status="running"} 1.0' in text
    finally:
        await store.close()


async def test_metrics_count_the_actions_stored_and_the_transactions(tmp_path: Path):
    store = await open_store(tmp_path / "risk.sqlite3")
    try:
        game = await started_game(store, 11)
        before = metrics.value("risk_actions_applied_total", action="Place")
        transactions = metrics.value("risk_db_transaction_seconds_count")
        state = (await store.get_game(game)).game().state
        place = Place(state.current, state.territories_of(state.current)[0], 1)
        await apply_action(store, game, place, interaction_id="i-1")
        await apply_action(store, game, place, interaction_id="i-1")  # a repeat stores nothing
        assert metrics.value("risk_actions_applied_total", action="Place") == before + 1
        assert metrics.value("risk_db_transaction_seconds_count") >= transactions + 2
    finally:
        await store.close()


def test_the_ops_listen_setting_is_checked():
    assert OpsConfig.from_dict({}).address() == ("127.0.0.1", 9465)
    assert OpsConfig.from_dict({"listen": ""}).listen == ""
    for bad in ("9465", "localhost:port", ":80", 7):
        with pytest.raises(ValueError, match="listen"):
            OpsConfig.from_dict({"listen": bad})
    with pytest.raises(ValueError, match="unknown"):
        OpsConfig.from_dict({"port": 1})


def test_json_log_lines_carry_the_ids_and_never_a_secret():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    handler.addFilter(logs.Context())
    handler.addFilter(logs.Redact(["tok.en-secret-1", "board-secret-2"]))
    logger = logging.getLogger("risk.test-json")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        token = logs.game_id.set(42)
        logger.warning("login with %s failed", "tok.en-secret-1")
        logs.game_id.reset(token)
        try:
            raise RuntimeError("board-secret-2 leaked")
        except RuntimeError:
            logger.exception("oops")
    finally:
        logger.removeHandler(handler)
    lines = [json.loads(line) for line in stream.getvalue().splitlines() if line.startswith("{")]
    assert lines[0]["level"] == "WARNING" and lines[0]["logger"] == "risk.test-json"
    assert lines[0]["game_id"] == 42 and lines[0]["message"] == "login with *** failed"
    assert "game_id" not in lines[1]
    assert "tok.en-secret-1" not in stream.getvalue() and "board-secret-2" not in stream.getvalue()
    assert "RuntimeError: *** leaked" in lines[1]["message"]  # the traceback, cleaned
    assert logs.url_passwords("postgresql://risk:pass%20word@db/risk") == ["pass word", "pass%20word"]
    assert logs.url_passwords("data/risk.sqlite3") == logs.url_passwords("postgresql://db/risk") == []


async def test_the_bot_s_listener_answers_for_its_own_shards_and_a_taken_port_is_a_clear_error(tmp_path: Path):
    import socket

    from bot import Config, create_bot
    from ops.gateway import OpsError
    from ops.gateway import start as ops_start

    config = Config(database=str(tmp_path / "risk.sqlite3"), shard_count=4, shards=(1, 3))
    bot = create_bot(config)
    await bot.store.open()
    try:
        operations = await ops_start(bot, OpsConfig("127.0.0.1:0"))
        assert operations.server is not None
        try:
            url = f"http://127.0.0.1:{operations.server.port}"
            status, body = await get(url + "/readyz")  # not logged in: its shards are not connected
            assert status == 503 and isinstance(body, dict) and body["failed"] == ["gateway"]
            assert body["checks"]["gateway"]["detail"] == {"1": "disconnected", "3": "disconnected"}  # type: ignore[index]
            assert (await get(url + "/healthz"))[0] == 200
        finally:
            await operations.stop()
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            with pytest.raises(OpsError, match=f"cannot listen on 127.0.0.1:{port}"):
                await ops_start(bot, OpsConfig(f"127.0.0.1:{port}"))
    finally:
        await bot.store.close()  # (the bot never logged in: nothing else to close)
