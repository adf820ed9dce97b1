"""A throwaway PostgreSQL for the tests: ``RISK_TEST_POSTGRES_URL`` if set, otherwise a server started from the
``pgserver`` package (it bundles PostgreSQL; as root it runs the server as its own unprivileged user). Each test
gets a fresh database on it."""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import asyncpg

ENV_URL = "RISK_TEST_POSTGRES_URL"
_numbers = itertools.count(1)


@contextmanager
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server for the whole test session; a server started here stops at the end."""
    url = os.environ.get(ENV_URL, "").strip()
    if url:
        yield url
        return
    import pgserver

    # Under /tmp: pgserver opens the folders above its data folder to its own user, and keeps the socket path short.
    folder = tempfile.mkdtemp(prefix="risk-pg-")
    server = pgserver.get_server(folder, cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def database_url(server_url: str, name: str) -> str:
    """The URL of another database on the same server."""
    parts = urlsplit(server_url)
    return urlunsplit(parts._replace(path=f"/{name}"))


async def create_database(server_url: str) -> str:
    """A new empty database on the server; returns its URL."""
    name = f"risk_test_{os.getpid()}_{next(_numbers)}"
    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return database_url(server_url, name)


async def drop_database(server_url: str, url: str) -> None:
    name = urlsplit(url).path.lstrip("/")
    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()
