"""Ratings per server, one game at a time, with openskill's Plackett-Luce model.

``rate_game`` is the only place a rating changes: the store calls it when a game ends (in the transaction
that stores the game's results) and ``rebuild`` calls it for every stored game in the order they ended, so
a rebuild gives exactly the ratings the games gave one by one.

- Free-for-all games rank every seat by its placement; team games rank teams (a team's players share its
  placement).
- An AI seat plays with the fixed rating of its level (``AI_RATINGS``): an easy AI is a weak opponent, so
  beating it moves a rating less than beating a strong player. AI ratings never change.
- A human seat that the AI played for most of its turns (a player replaced, or one whose time often ran
  out) moves only by the share of the turns the human played (at least ``MIN_WEIGHT``): its new rating is
  ``old + share * (rated - old)``, for the mean and the uncertainty alike.
- The number shown to players is ``score``: 1000 plus 40 times the conservative estimate ``mu - 3 sigma``
  (openskill's ordinal), so a new player starts at 1000. It stays hidden until ``MIN_GAMES`` rated games.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
MU = MODEL.mu
SIGMA = MODEL.sigma
MIN_GAMES = 5
MIN_WEIGHT = 0.1
# AI seats as players of their level: (mu, sigma). A low sigma: the AI's strength is known and never changes.
AI_RATINGS: dict[str | None, tuple[float, float]] = {
    "easy": (MU - 6.0, 2.0),
    "normal": (MU, 2.0),
    None: (MU, 2.0),
}


@dataclass(frozen=True)
class Rating:
    """A player's rating on one server, and the games and wins it counts."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0

    @property
    def score(self) -> int:
        """The friendly number: 1000 at the start, higher is better."""
        return round(1000 + 40 * (self.mu - 3 * self.sigma))

    @property
    def shown(self) -> bool:
        return self.games >= MIN_GAMES


@dataclass(frozen=True)
class SeatResult:
    """One seat of a finished game as the ratings see it."""

    user_id: int | None         # None for a seat an AI played from the start
    ai_level: str | None        # the AI's level (an AI seat)
    placement: int              # 1 the best; teammates share their team's
    team: int | None = None
    human_share: float = 1.0    # the share of the seat's turns its human played


def _weight(seat: SeatResult) -> float:
    return 1.0 if seat.human_share >= 0.5 else max(MIN_WEIGHT, seat.human_share)


def rate_game(ratings: Mapping[int, Rating], seats: Sequence[SeatResult]) -> dict[int, Rating]:
    """The new ratings of the humans of one game (by user id), from their ratings before it.

    A human without a rating starts from the default. A game with fewer than two sides, or no human, changes
    nothing (an empty result)."""
    humans = [s for s in seats if s.user_id is not None]
    if not humans:
        return {}
    sides: dict[object, list[SeatResult]] = {}
    for index, seat in enumerate(seats):
        key = ("team", seat.team) if any(s.team is not None for s in seats) else ("seat", index)
        sides.setdefault(key, []).append(seat)
    if len(sides) < 2:
        return {}
    teams = []
    ranks: list[float] = []
    for members in sides.values():
        team = []
        for seat in members:
            if seat.user_id is None:
                mu, sigma = AI_RATINGS.get(seat.ai_level, AI_RATINGS[None])
            else:
                before = ratings.get(seat.user_id, Rating())
                mu, sigma = before.mu, before.sigma
            team.append(MODEL.rating(mu=mu, sigma=sigma))
        teams.append(team)
        ranks.append(float(min(s.placement for s in members)))
    rated = MODEL.rate(teams, ranks=ranks)
    out: dict[int, Rating] = {}
    for members, team in zip(sides.values(), rated, strict=True):
        for seat, new in zip(members, team, strict=True):
            if seat.user_id is None:
                continue
            before = ratings.get(seat.user_id, Rating())
            w = _weight(seat)
            out[seat.user_id] = Rating(mu=before.mu + w * (new.mu - before.mu),
                                       sigma=before.sigma + w * (new.sigma - before.sigma),
                                       games=before.games + 1, wins=before.wins + (seat.placement == 1))
    return out


History = list[tuple[int, int, Rating]]


def rebuild(games: Iterable[tuple[int, Sequence[SeatResult]]]) -> tuple[dict[int, Rating], History]:
    """Every rating from games in the order they ended (``(game id, seats)``), as ``rate_game`` gave them one
    by one: the final ratings by user id, and the history as ``(game id, user id, rating after it)``."""
    current: dict[int, Rating] = {}
    history: History = []
    for game_id, seats in games:
        changed = rate_game(current, seats)
        current.update(changed)
        history.extend((game_id, user, rating) for user, rating in changed.items())
    return current, history
