"""A PostgreSQL connection that counts its round trips: a relay between the bot and the server that reads what
the server sends back and counts its ``ReadyForQuery`` messages.

The server sends exactly one ``ReadyForQuery`` when it has answered a simple query (however many statements it
holds) or an extended query up to its ``Sync``: one per round trip, whatever the driver calls it. The relay
forwards every byte unchanged, so the store under it behaves as on the server itself. With ``delay`` it holds
each ``ReadyForQuery`` back that many seconds: a server that far away (for the benchmarks).

    async with RoundTrips(url) as trips:
        store = await open_postgres(trips.url)
        before = trips.count
        ...
        print(trips.count - before)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import struct
import tempfile
from types import TracebackType
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_READY_FOR_QUERY = ord("Z")
_DEFAULT_PORT = 5432


def _server_address(url: str) -> tuple[str | None, str, int]:
    """The server's unix socket path (or None) and its host and port."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    host = query.get("host") or parts.hostname or "localhost"
    port = int(query.get("port") or parts.port or _DEFAULT_PORT)
    if host.startswith("/"):
        return os.path.join(host, f".s.PGSQL.{port}"), host, port
    return None, host, port


class RoundTrips:
    """A relay to the server of ``url``; ``url`` of the relay itself once entered; ``count`` round trips so far."""

    def __init__(self, server_url: str, delay: float = 0.0) -> None:
        self.server_url = server_url
        self.delay = delay
        self.count = 0
        self.url = ""
        self._server: asyncio.AbstractServer | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._relays: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> RoundTrips:
        socket_path, _host, port = _server_address(self.server_url)
        parts = urlsplit(self.server_url)
        query = dict(parse_qsl(parts.query))
        if socket_path is not None:
            self._folder = tempfile.TemporaryDirectory(prefix="risk-pg-relay-")
            own = os.path.join(self._folder.name, f".s.PGSQL.{port}")
            self._server = await asyncio.start_unix_server(self._accept, path=own)
            query["host"] = self._folder.name
            self.url = urlunsplit(parts._replace(query=urlencode(query)))
        else:
            self._server = await asyncio.start_server(self._accept, host="127.0.0.1", port=0)
            own_port = self._server.sockets[0].getsockname()[1]
            user = parts.netloc.rpartition("@")[0]
            netloc = f"{user}@127.0.0.1:{own_port}" if user else f"127.0.0.1:{own_port}"
            query.pop("host", None)
            query.pop("port", None)
            query["sslmode"] = "disable"  # the relay reads the server's messages: they must not be encrypted
            self.url = urlunsplit(parts._replace(netloc=netloc, query=urlencode(query)))
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._relays):
            task.cancel()
        await asyncio.gather(*self._relays, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
        if self._folder is not None:
            self._folder.cleanup()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        socket_path, host, port = _server_address(self.server_url)
        if socket_path is not None:
            server_reader, server_writer = await asyncio.open_unix_connection(socket_path)
        else:
            server_reader, server_writer = await asyncio.open_connection(host, port)
        upstream = asyncio.ensure_future(self._copy(client_reader, server_writer))
        downstream = asyncio.ensure_future(self._answers(server_reader, client_writer))
        for task in (upstream, downstream):
            self._relays.add(task)
            task.add_done_callback(self._relays.discard)
        await asyncio.wait((upstream, downstream), return_when=asyncio.FIRST_COMPLETED)
        for task in (upstream, downstream):
            task.cancel()
        for writer in (client_writer, server_writer):
            with contextlib.suppress(Exception):
                writer.close()

    @staticmethod
    async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()

    async def _answers(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Forward the server's messages (a type byte, then a length that counts itself), counting each
        ``ReadyForQuery``."""
        while True:
            try:
                head = await reader.readexactly(5)
            except asyncio.IncompleteReadError:
                return
            kind, length = head[0], struct.unpack("!I", head[1:])[0]
            body = await reader.readexactly(length - 4)
            if kind == _READY_FOR_QUERY:
                self.count += 1
                if self.delay:
                    await asyncio.sleep(self.delay)
            writer.write(head + body)
            await writer.drain()


__all__ = ["RoundTrips"]
