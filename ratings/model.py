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
- Not every seat of a game counts (``counted``, docs/history.md "What a rated game is"): a seat that took no
  turn of its own (kicked, or gone, before its first turn) is left out altogether, its rating unchanged and the
  others rated as if it had not sat down; a seat that went out within its first ``EARLY_TURNS`` turns (an early
  surrender, a kick) is rated on its own as placed, against everyone (in full: its loss is its own doing), but
  the others are rated without it, so an opponent who leaves at once gives nobody anything.
- A player with few rated games moves the others little: each seat's change is scaled by how established its
  opponents are (``opponent_weight``), an opponent with no rated game counting ``1 / (MIN_GAMES + 1)``.
- The same players (the humans who took part) count at most ``REPEAT_LIMIT`` rated games together in any
  ``REPEAT_WINDOW`` seconds; their further games in that time are unrated (``table_of``; the store counts the
  repeats, ``rebuild`` counts them the same way).
- A seat that changed hands (a substitute claimed it) has a result per player who held it (``seat``): each is rated
  as if they alone had held it, by their share of its turns; the other seats against its main player. A
  substitute who goes out soon after the claim did not leave early.
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
EARLY_TURNS = 3                 # a seat that goes out before playing this many turns of its own left early
REPEAT_LIMIT = 5                # rated games of the same players together ...
REPEAT_WINDOW = 7 * 24 * 3600.0  # ... in any seven days
# AI seats as players of their level: (mu, sigma). A low sigma: the AI's strength is known and never changes.
AI_RATINGS: dict[str | None, tuple[float, float]] = {
    "easy": (MU - 6.0, 2.0),
    "normal": (MU, 2.0),
    "hard": (MU + 4.0, 2.0),   # above normal, whom it beats (its results: docs/rules.md)
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
    own_turns: int | None = None  # turns the seat's human played (an AI seat: its turns); None: not known
    ended_at: float = 0.0       # when the game ended (the repeat limit's window)
    seat: int | None = None     # the seat (a seat that changed hands has a result per player who held it)
    substitute: bool = False    # the player took the seat on after its first player (a substitute)

    @property
    def took_part(self) -> bool:
        """The seat played at least one turn of its own (unknown counts as yes: a game from before turns were
        counted)."""
        return self.own_turns is None or self.own_turns >= 1

    @property
    def left_early(self) -> bool:
        """The seat lost having played fewer than ``EARLY_TURNS`` turns of its own (an early surrender, a kick)."""
        return (self.own_turns is not None and self.own_turns < EARLY_TURNS and self.placement > 1
                and not self.substitute)  # a substitute who lost soon took a lost seat on late


def _weight(seat: SeatResult) -> float:
    return 1.0 if seat.human_share >= 0.5 else max(MIN_WEIGHT, seat.human_share)


def counted(seats: Sequence[SeatResult]) -> list[SeatResult]:
    """The seats a game's rating counts: those that took part (at least one turn of their own)."""
    return [s for s in seats if s.took_part]


def table_of(seats: Sequence[SeatResult]) -> frozenset[int]:
    """The players of a game for the repeat limit: the humans who took part."""
    return frozenset(s.user_id for s in counted(seats) if s.user_id is not None)


def repeats_before(rated: Iterable[tuple[float, frozenset[int]]], seats: Sequence[SeatResult]) -> int:
    """How many of the rated games before this one (``(ended at, table_of)``, on the same server) the same
    players played together in the repeat window that ends with this game. One human and AIs: never limited."""
    table = table_of(seats)
    if len(table) < 2:
        return 0
    end = max((s.ended_at for s in seats), default=0.0)
    return sum(1 for at, other in rated if other == table and end - REPEAT_WINDOW < at <= end)


def opponent_weight(ratings: Mapping[int, Rating], opponents: Sequence[SeatResult]) -> float:
    """How much a game moves a seat, by how established its opponents are: the mean over them of
    ``(games + 1) / (MIN_GAMES + 1)`` (at most 1; an AI counts 1, its strength is known)."""
    if not opponents:
        return 1.0
    def trust(seat: SeatResult) -> float:
        if seat.user_id is None:
            return 1.0
        return min(1.0, (ratings.get(seat.user_id, Rating()).games + 1) / (MIN_GAMES + 1))
    return sum(trust(s) for s in opponents) / len(opponents)


def rate_game(ratings: Mapping[int, Rating], seats: Sequence[SeatResult], repeats: int = 0) -> dict[int, Rating]:
    """The new ratings of the humans of one game (by user id), from their ratings before it and the number of
    rated games the same players played together in the repeat window before it (``repeats_before``).

    A human without a rating starts from the default. A game with fewer than two sides that took part, or no
    human, or one over the repeat limit, changes nothing (an empty result). Seats that left early are rated on
    their own, as placed against every seat; the others without them.

    A seat that changed hands (a substitute claimed it) has a result per player who held it: the other seats are
    rated against the one of them who played most of its turns, and each of its players is rated as if they alone
    had held it, weighted by their share of its turns (``human_share``)."""
    if repeats >= REPEAT_LIMIT and len(table_of(seats)) >= 2:
        return {}
    held: dict[int, list[SeatResult]] = {}
    for s in seats:
        if s.seat is not None:
            held.setdefault(s.seat, []).append(s)
    shared = [group for group in held.values() if len(group) > 1]
    if not shared:
        return _rate_table(ratings, seats)
    main = {id(max(group, key=lambda s: (s.human_share, -int(s.substitute)))): group for group in shared}
    dropped = {id(s) for group in shared for s in group if id(s) not in main}
    table = [s for s in seats if id(s) not in dropped]
    out = _rate_table(ratings, table)
    for first, group in ((s, main[id(s)]) for s in table if id(s) in main):
        for other in group:
            if other is first or other.user_id is None:
                continue
            mine = _rate_table(ratings, [other if s is first else s for s in table]).get(other.user_id)
            if mine is not None:
                out[other.user_id] = mine
    return out


def _rate_table(ratings: Mapping[int, Rating], seats: Sequence[SeatResult]) -> dict[int, Rating]:
    """``rate_game`` for a game whose every seat had one player."""
    playing = counted(seats)
    out: dict[int, Rating] = {}
    stayed = [s for s in playing if not s.left_early]
    early = [s for s in playing if s.left_early and s.user_id is not None]
    out.update(_rate(ratings, stayed, stayed))
    for seat in early:  # each rated against everyone, as placed; only their own rating is kept
        mine = _rate(ratings, playing, [seat], damped=False)
        out.update(mine)
    return out


def _rate(ratings: Mapping[int, Rating], seats: Sequence[SeatResult], keep: Sequence[SeatResult],
          damped: bool = True) -> dict[int, Rating]:
    """Plackett-Luce over ``seats``; the new ratings of the humans among ``keep``, scaled by how established
    their opponents are when ``damped`` (not for a seat that left early: its loss is its own doing)."""
    humans = [s for s in keep if s.user_id is not None]
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
    kept = {id(s) for s in humans}
    for members, team in zip(sides.values(), rated, strict=True):
        for seat, new in zip(members, team, strict=True):
            if seat.user_id is None or id(seat) not in kept:
                continue
            before = ratings.get(seat.user_id, Rating())
            mine = {id(m) for m in members}
            opponents = [s for s in seats if id(s) not in mine]
            w = _weight(seat) * (opponent_weight(ratings, opponents) if damped else 1.0)
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
    rated: list[tuple[float, frozenset[int]]] = []
    for game_id, seats in games:
        changed = rate_game(current, seats, repeats_before(rated, seats))
        if changed:
            rated.append((max((s.ended_at for s in seats), default=0.0), table_of(seats)))
        current.update(changed)
        history.extend((game_id, user, rating) for user, rating in changed.items())
    return current, history
