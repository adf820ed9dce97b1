"""The live board's settings (``[web]`` in config.toml): off unless ``public_url`` is given."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlsplit

DEFAULT_LISTEN = "127.0.0.1:8080"
LINK_SECONDS = 10 * 60          # a link from /board or the Board button opens the board within ten minutes
SESSION_SECONDS = 12 * 3600     # the cookie it is swapped for lasts a sitting


@dataclass(frozen=True)
class WebConfig:
    """``listen``: where the server listens (host:port, behind a reverse proxy or a tunnel); ``public_url``: the
    HTTPS address players open, which the proxy forwards to ``listen`` (empty: no board, nothing changes);
    ``secret``: the key that signs links and cookies (empty: a new one at each start, so a restart asks
    everyone for a new link)."""

    listen: str = DEFAULT_LISTEN
    public_url: str = ""
    secret: str = ""
    link_seconds: int = LINK_SECONDS
    session_seconds: int = SESSION_SECONDS

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WebConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown setting(s) in [web]: {', '.join(sorted(unknown))}")
        config = cls(**dict(data))
        config.address()  # a clear error at start-up rather than at the first link
        if config.public_url:
            parts = urlsplit(config.public_url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError(f"[web] public_url must be an http(s) address, not {config.public_url!r}")
        return config

    @property
    def enabled(self) -> bool:
        return bool(self.public_url)

    def address(self) -> tuple[str, int]:
        """``listen`` as a host and a port."""
        host, sep, port = self.listen.rpartition(":")
        if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
            raise ValueError(f"[web] listen must be host:port, not {self.listen!r}")
        return host.strip("[]") or "127.0.0.1", int(port)

    @property
    def base(self) -> str:
        """The public address without a trailing slash."""
        return self.public_url.rstrip("/")

    @property
    def origin(self) -> str:
        """The origin a browser sends with the board's WebSocket (scheme and host of ``public_url``)."""
        parts = urlsplit(self.public_url)
        return f"{parts.scheme}://{parts.netloc}"


__all__ = ["LINK_SECONDS", "SESSION_SECONDS", "WebConfig"]
