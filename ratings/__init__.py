"""Player ratings from finished games (openskill's Plackett-Luce model): one pure function per game."""

from .model import (
    AI_RATINGS,
    AI_VERSION_RATINGS,
    EARLY_TURNS,
    MIN_GAMES,
    REPEAT_LIMIT,
    REPEAT_WINDOW,
    Rating,
    SeatResult,
    ai_identity,
    ai_rating,
    rate_game,
    rebuild,
    repeats_before,
    table_of,
)

__all__ = ["AI_RATINGS", "AI_VERSION_RATINGS", "EARLY_TURNS", "MIN_GAMES", "REPEAT_LIMIT", "REPEAT_WINDOW", "Rating",
           "SeatResult", "ai_identity", "ai_rating", "rate_game", "rebuild", "repeats_before", "table_of"]
