"""What one server, one host or one game may start: the limits a server owner sets in the bot's config."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    games_per_server: int = 25   # lobbies, running and paused games in one server
    lobbies_per_user: int = 2    # open lobbies one user hosts in one server
    ai_seats_per_game: int = 5   # AI players in one game
    # A game no human plays any more ends by the round limit once it has played this many rounds since the
    # last human left it (since its start if none ever played): the AIs never play on alone for ever. 0: no bound.
    rounds_without_humans: int = 200


__all__ = ["Limits"]
