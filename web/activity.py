"""The board as a Discord Activity: who opened it and in which channel, asked of Discord, never of the page.

Inside Discord the board's page runs in Discord's iframe, where its cookie is a third-party cookie and is not
sent. So the page proves who it is with the Embedded App SDK: ``authorize`` gives it an OAuth2 code for this
application, which it posts to the bot. The bot exchanges the code at Discord's token endpoint (with the
application's client id and secret), reads the user with the token it got (``/users/@me``), and asks Discord,
with the bot's own token, for the activity instance the page names (``/applications/{app}/activity-instances/
{instance}``): the instance must be this application's, in the channel the page says, with that user connected to
it. Only then does the page get a session token, the cookie's equal (``web.links``, kind ``session``: bound to the
user, the channel's game and their seat, short-lived), which it keeps in memory and sends with every request.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import aiohttp

from .config import WebConfig

log = logging.getLogger(__name__)
TIMEOUT = aiohttp.ClientTimeout(total=10)


class ActivityRefused(Exception):
    """The page's word did not hold (``reason``: code, instance, channel, user)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ActivityUser:
    """Who opened the Activity, where, as Discord says it."""

    user_id: int
    locale: str
    channel_id: int
    access_token: str


def _snowflake(value: object) -> int | None:
    text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    return int(text) if text.isdigit() and 0 < len(text) <= 20 else None


class DiscordOAuth:
    """The few calls of Discord's API the Activity needs (base URL ``[web] discord_api``)."""

    def __init__(self, config: WebConfig, bot_token: str) -> None:
        self.config = config
        self.bot_token = bot_token
        self.api = config.discord_api.rstrip("/")
        self._http: aiohttp.ClientSession | None = None

    def http(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = aiohttp.ClientSession(timeout=TIMEOUT)
        return self._http

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None

    async def _json(self, response: aiohttp.ClientResponse) -> Any:
        if response.status != 200:
            return None
        try:
            return await response.json(content_type=None)
        except ValueError:
            return None

    async def exchange(self, code: str) -> str | None:
        """The access token Discord gives for an authorization ``code`` of this application (None: refused)."""
        form = {"client_id": self.config.client_id, "client_secret": self.config.client_secret,
                "grant_type": "authorization_code", "code": code}
        async with self.http().post(f"{self.api}/oauth2/token", data=form) as response:
            data = await self._json(response)
        token = data.get("access_token") if isinstance(data, dict) else None
        return token if isinstance(token, str) and token else None

    async def me(self, access_token: str) -> dict[str, Any] | None:
        async with self.http().get(f"{self.api}/users/@me",
                                   headers={"Authorization": f"Bearer {access_token}"}) as response:
            data = await self._json(response)
        return data if isinstance(data, dict) else None

    async def instance(self, instance_id: str) -> dict[str, Any] | None:
        """The activity instance as Discord knows it (None: no such instance of this application)."""
        url = f"{self.api}/applications/{self.config.client_id}/activity-instances/{instance_id}"
        async with self.http().get(url, headers={"Authorization": f"Bot {self.bot_token}"}) as response:
            data = await self._json(response)
        return data if isinstance(data, dict) else None

    async def identify(self, code: object, instance_id: object, channel_id: object) -> ActivityUser:
        """Who the page is and in which channel, from Discord alone; ``ActivityRefused`` otherwise."""
        if not isinstance(code, str) or not 0 < len(code) <= 200:
            raise ActivityRefused("code")
        claimed = _snowflake(channel_id)
        if not isinstance(instance_id, str) or not 0 < len(instance_id) <= 100 or not instance_id.isascii() \
                or not all(c.isalnum() or c in "-_:" for c in instance_id):
            raise ActivityRefused("instance")
        if claimed is None:
            raise ActivityRefused("channel")
        access_token = await self.exchange(code)
        if access_token is None:
            raise ActivityRefused("code")
        user = await self.me(access_token)
        user_id = _snowflake(user.get("id")) if user else None
        if user is None or user_id is None:
            raise ActivityRefused("code")
        instance = await self.instance(instance_id)
        if instance is None or str(instance.get("application_id")) != self.config.client_id:
            raise ActivityRefused("instance")
        location = instance.get("location")
        channel = _snowflake(location.get("channel_id")) if isinstance(location, dict) else None
        if channel is None or channel != claimed:
            raise ActivityRefused("channel")
        users = instance.get("users")
        if not isinstance(users, list) or str(user_id) not in {str(u) for u in users}:
            raise ActivityRefused("user")
        locale = user.get("locale")
        return ActivityUser(user_id, locale if isinstance(locale, str) else "en", channel, access_token)


__all__ = ["ActivityRefused", "ActivityUser", "DiscordOAuth"]
