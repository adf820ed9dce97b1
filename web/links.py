"""Signed links and cookies: who may open which board.

A link (from ``/board`` or the turn panel's Board button) names one game, one Discord user and their seat
(``None``: a spectator), and expires within minutes; it opens the board once. The page swaps it for a cookie of
the same shape that lasts a sitting. Both are ``payload.signature``: the payload is URL-safe base64 of compact
JSON, the signature an HMAC-SHA256 of it under the server's secret with the kind ("link" or "session") mixed in,
so a link is never a cookie and a cookie never a link. Nothing here knows the web server or Discord.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Kind = Literal["link", "session"]
LINK: Kind = "link"
SESSION: Kind = "session"
MAX_TOKEN = 400  # characters: anything longer is not ours


class BadTicket(Exception):
    """A link or cookie that opens nothing; ``reason`` says why in one word (forged, expired, used, game)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Ticket:
    """Who holds a link or cookie: the game, the Discord user, their seat (None: a spectator), until when."""

    game_id: int
    user_id: int
    seat: int | None
    expires: float
    nonce: str
    language: str = "en"

    @property
    def spectator(self) -> bool:
        return self.seat is None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Signer:
    """Makes and checks links and cookies with one secret; ``clock`` gives the time (seconds)."""

    def __init__(self, secret: str | bytes, clock: Callable[[], float]) -> None:
        key = secret.encode() if isinstance(secret, str) else secret
        if len(key) < 16:
            raise ValueError("the board's secret must be at least 16 bytes")
        self._key = key
        self.clock = clock

    def _mac(self, kind: Kind, payload: str) -> str:
        return _b64(hmac.new(self._key, f"{kind}.{payload}".encode(), hashlib.sha256).digest())

    def make(self, kind: Kind, game_id: int, user_id: int, seat: int | None, seconds: float,
             language: str = "en", nonce: str | None = None) -> str:
        data = {"g": game_id, "u": user_id, "s": seat, "e": round(self.clock() + seconds), "n": nonce or
                secrets.token_urlsafe(9), "l": language}
        payload = _b64(json.dumps(data, separators=(",", ":")).encode())
        return f"{payload}.{self._mac(kind, payload)}"

    def check(self, kind: Kind, token: str, game_id: int | None = None) -> Ticket:
        """The ticket a token holds (``BadTicket`` if it is not one of ours of this kind, has expired, or is for
        another game than ``game_id``)."""
        if not token or len(token) > MAX_TOKEN or token.count(".") != 1:
            raise BadTicket("forged")
        payload, signature = token.split(".")
        if not hmac.compare_digest(signature, self._mac(kind, payload)):
            raise BadTicket("forged")
        try:
            data = json.loads(_unb64(payload))
            seat = data["s"]
            ticket = Ticket(int(data["g"]), int(data["u"]), None if seat is None else int(seat), float(data["e"]),
                            str(data["n"]), str(data.get("l", "en")))
        except (ValueError, KeyError, TypeError, binascii.Error):  # signed by us, so never: but never trusted
            raise BadTicket("forged") from None
        if ticket.expires <= self.clock():
            raise BadTicket("expired")
        if game_id is not None and ticket.game_id != game_id:
            raise BadTicket("game")
        return ticket


class UsedLinks:
    """The links that opened a board already, until they expire: a link opens the board once (a copy of it in a
    browser's history, or shown to someone else, opens nothing)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._used: dict[str, float] = {}

    def use(self, ticket: Ticket) -> bool:
        """Note the link as used; False if it was used before."""
        now = self.clock()
        if len(self._used) > 1000:
            self._used = {n: e for n, e in self._used.items() if e > now}
        if ticket.nonce in self._used:
            return False
        self._used[ticket.nonce] = ticket.expires
        return True

    def note(self, nonce: str, expires: float) -> None:
        """Note a nonce used elsewhere (a revocation the store kept over a restart)."""
        self._used[nonce] = expires

    def __contains__(self, ticket: Ticket) -> bool:
        return ticket.nonce in self._used


class UsedNames:
    """Strings remembered until a time each (a sign-in's code, an instance Discord did not know), a bounded few."""

    def __init__(self, clock: Callable[[], float], most: int = 10_000) -> None:
        self.clock, self.most = clock, most
        self._until: dict[str, float] = {}

    def note(self, name: str, until: float) -> None:
        if len(self._until) >= self.most:
            now = self.clock()
            self._until = {n: u for n, u in self._until.items() if u > now}
            while len(self._until) >= self.most:   # still full: the oldest go first
                del self._until[next(iter(self._until))]
        self._until[name] = until

    def __contains__(self, name: object) -> bool:
        until = self._until.get(name) if isinstance(name, str) else None
        return until is not None and until > self.clock()


__all__ = ["LINK", "SESSION", "BadTicket", "Signer", "Ticket", "UsedLinks", "UsedNames"]
