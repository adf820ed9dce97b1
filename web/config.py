"""The live board's settings (``[web]`` in config.toml): off unless ``public_url`` is given."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlsplit

DEFAULT_LISTEN = "127.0.0.1:8080"
LINK_SECONDS = 10 * 60          # a link from /board or the Board button opens the board within ten minutes
SESSION_SECONDS = 12 * 3600     # the cookie it is swapped for lasts a sitting
DISCORD_API = "https://discord.com/api/v10"
# Where Discord's clients run: the only pages that may frame the board's Activity.
DISCORD_CLIENTS = "https://discord.com https://*.discord.com https://discordapp.com https://*.discordapp.com"


@dataclass(frozen=True)
class WebConfig:
    """``listen``: where the server listens (host:port, behind a reverse proxy or a tunnel); ``public_url``: the
    HTTPS address players open, which the proxy forwards to ``listen`` (empty: no board, nothing changes);
    ``secret``: the key that signs links and cookies (empty: a new one at each start, so a restart asks
    everyone for a new link).

    The Activity (the board inside Discord, docs/deploy.md): ``client_id`` (the application's id) and
    ``client_secret`` (its OAuth2 secret) turn it on; ``discord_api`` is Discord's API (a test's fake Discord);
    ``frame_ancestors`` the pages that may frame it (Discord's clients); ``client_address_header`` the header in
    which the proxy in front of the board names the client's address (e.g. ``CF-Connecting-IP``; empty: none is
    trusted), for the per-address limit of sign-ins."""

    listen: str = DEFAULT_LISTEN
    public_url: str = ""
    secret: str = ""
    link_seconds: int = LINK_SECONDS
    session_seconds: int = SESSION_SECONDS
    client_id: str = ""
    client_secret: str = ""
    discord_api: str = DISCORD_API
    frame_ancestors: str = DISCORD_CLIENTS
    client_address_header: str = ""

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
        if config.client_id and not config.client_id.isdigit():
            raise ValueError(f"[web] client_id must be the application's id (digits), not {config.client_id!r}")
        if bool(config.client_id) != bool(config.client_secret):
            raise ValueError("[web] the Activity needs both client_id and client_secret")
        return config

    @property
    def enabled(self) -> bool:
        return bool(self.public_url)

    @property
    def activity(self) -> bool:
        """The board is also a Discord Activity (launched from the Board button and /board)."""
        return self.enabled and bool(self.client_id and self.client_secret)

    @property
    def origins(self) -> frozenset[str]:
        """The origins a board's page may come from: ``public_url``, and Discord's proxy of the Activity."""
        found = {self.origin}
        if self.activity:
            found.add(f"https://{self.client_id}.discordsays.com")
        return frozenset(found)

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


__all__ = ["DISCORD_API", "DISCORD_CLIENTS", "LINK_SECONDS", "SESSION_SECONDS", "WebConfig"]
