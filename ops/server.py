"""The operator's listener (``[ops] listen``, loopback by default): ``/healthz``, ``/readyz`` and ``/metrics``.

It runs in the bot's process and on its event loop whether or not the live board is on, on an address of its own
(the board's may face the internet through a proxy; this one should not). Answers are JSON, 200 when the check
passes and 503 when it does not, naming each check; ``/metrics`` is Prometheus's text format.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from ops import metrics
from ops.probes import Probes

log = logging.getLogger("risk.ops")
DEFAULT_LISTEN = "127.0.0.1:9465"


@dataclass(frozen=True)
class OpsConfig:
    """``[ops]`` in config.toml: ``listen`` is ``host:port`` (port 0: any free port; empty: no listener)."""

    listen: str = DEFAULT_LISTEN

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> OpsConfig:
        unknown = set(data) - {"listen"}
        if unknown:
            raise ValueError(f"[ops]: unknown setting(s) {', '.join(sorted(unknown))}")
        listen = data.get("listen", DEFAULT_LISTEN)
        if not isinstance(listen, str):
            raise ValueError("[ops] listen must be a string such as \"127.0.0.1:9465\"")
        config = cls(listen.strip())
        if config.listen:
            config.address()
        return config

    def address(self) -> tuple[str, int]:
        host, sep, port = self.listen.rpartition(":")
        if not sep or not host or not port.isdigit() or int(port) > 65535:
            raise ValueError(f"[ops] listen must be host:port, not {self.listen!r}")
        return host.strip("[]"), int(port)


class OpsServer:
    def __init__(self, probes: Probes) -> None:
        self.probes = probes
        self.app = web.Application()
        self.app.router.add_get("/healthz", self.healthz)
        self.app.router.add_get("/readyz", self.readyz)
        self.app.router.add_get("/metrics", self.metrics)
        self._runner: web.AppRunner | None = None
        self.port = 0

    async def start(self, host: str, port: int) -> None:
        runner = web.AppRunner(self.app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        self._runner = runner
        self.port = runner.addresses[0][1]
        log.info("ops listening on http://%s:%d (/healthz, /readyz, /metrics)", host, self.port)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def healthz(self, request: web.Request) -> web.Response:
        ok, body = await self.probes.health()
        return web.json_response(body, status=200 if ok else 503)

    async def readyz(self, request: web.Request) -> web.Response:
        ok, body = await self.probes.ready()
        return web.json_response(body, status=200 if ok else 503)

    async def metrics(self, request: web.Request) -> web.Response:
        await self.probes.stored_counts()
        return web.Response(body=metrics.exposition(), headers={"Content-Type": CONTENT_TYPE_LATEST})


__all__ = ["DEFAULT_LISTEN", "OpsConfig", "OpsServer"]
