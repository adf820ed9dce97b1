"""Player ratings from finished games (openskill's Plackett-Luce model): one pure function per game."""

from .model import AI_RATINGS, MIN_GAMES, Rating, SeatResult, rate_game, rebuild

__all__ = ["AI_RATINGS", "MIN_GAMES", "Rating", "SeatResult", "rate_game", "rebuild"]
