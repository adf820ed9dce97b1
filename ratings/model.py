"""Ratings per server, one game at a time, with openskill's Plackett-Luce model.

``rate_game`` is the only place a rating changes: the store calls it when a game ends (in the transaction
that stores the game's results) and ``rebuild`` calls it for every stored game in the order they ended, so
a rebuild gives exactly the ratings the games gave one by one.

- Free-for-all games rank every seat by its placement; team games rank teams (a team's players share its
  placement).
- An AI seat plays with the fixed rating of its level (``AI_RATINGS``): an easy AI is a weak opponent, so
  beating it moves a rating less than beating a strong player. AI ratings never change. An AI is rated as the
  version of its level it played (``ai_identity``, ``AI_VERSION_RATINGS``): when a level's play changes, its
  version goes up (engine/ai ``VERSIONS``) with a rating of its own, and a rebuild rates the older games against
  the version they met.
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

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Any

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
MU = MODEL.mu
SIGMA = MODEL.sigma
MIN_GAMES = 5
MIN_WEIGHT = 0.1
EARLY_TURNS = 3                 # a seat that goes out before playing this many turns of its own left early
REPEAT_LIMIT = 5                # rated games of the same two players together ...
REPEAT_WINDOW = 7 * 24 * 3600.0  # ... in any seven days
ESTABLISHED_OPPONENTS = 4       # different established opponents in rated games that establish a player
# AI seats as players of their level: (mu, sigma). A low sigma: the AI's strength is known and never changes.
AI_RATINGS: dict[str | None, tuple[float, float]] = {
    "easy": (MU - 6.0, 2.0),
    "normal": (MU, 2.0),
    "hard": (MU + 4.0, 2.0),   # above normal, whom it beats (its results: docs/rules.md)
    None: (MU, 2.0),
}
HARD_V2_SHARE = 0.74        # measured: bench/ai_versus.py, new-vs-old-2p (296 of 400)
# The lead in mean that gives that share in openskill's own prediction (``predict_win``: the normal CDF of the
# lead over c = sqrt(2 beta^2 + sigma_1^2 + sigma_2^2)).
HARD_V2_LEAD = math.sqrt(2 * MODEL.beta ** 2 + 2 * AI_RATINGS["hard"][1] ** 2) * NormalDist().inv_cdf(HARD_V2_SHARE)
# Every version a level has had (engine/ai ``VERSIONS``), with its rating, the old ones kept: a game is rated
# against the version its AI seats played (``SeatResult.ai_version``); one from before versions were recorded
# played version 1. A new version gets its own entry here (tests/test_ai_versions.py checks there is one).
AI_VERSION_RATINGS: dict[tuple[str, int], tuple[float, float]] = {
    ("easy", 1): AI_RATINGS["easy"],
    ("normal", 1): AI_RATINGS["normal"],
    ("hard", 1): AI_RATINGS["hard"],
    # Version 2 plans its turn; it beats version 1 in HARD_V2_SHARE of two-player games (docs/rules.md), which
    # openskill's model gives to a mean this much higher (at both AIs' fixed uncertainty).
    ("hard", 2): (AI_RATINGS["hard"][0] + HARD_V2_LEAD, AI_RATINGS["hard"][1]),
}


def ai_identity(level: str | None, version: int | None) -> str:
    """The name an AI of a level and version is rated under, as ``hard v1``."""
    return f"{level or 'normal'} v{version or 1}"


def ai_rating(level: str | None, version: int | None) -> tuple[float, float]:
    """The fixed rating ``(mu, sigma)`` of an AI of a level, as the version it played (version 1 when not
    recorded); a level or version without an entry plays as its level's rating."""
    if level is not None and (level, version or 1) in AI_VERSION_RATINGS:
        return AI_VERSION_RATINGS[(level, version or 1)]
    return AI_RATINGS.get(level, AI_RATINGS[None])


@dataclass(frozen=True)
class Rating:
    """A player's rating on one server, and the games and wins it counts."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0
    trusted: int = 0            # different opponents met in rated games while those were established
    established: bool = False   # met ``ESTABLISHED_OPPONENTS`` of them (``Circles``): weighs fully, is listed

    @property
    def score(self) -> int:
        """The friendly number: 1000 at the start, higher is better."""
        return round(1000 + 40 * (self.mu - 3 * self.sigma))

    @property
    def shown(self) -> bool:
        return self.games >= MIN_GAMES

    @classmethod
    def of(cls, stored: Any) -> Rating:
        """A rating from one as the store reads it (``store.records.RatingRecord``: the same numbers)."""
        return cls(stored.mu, stored.sigma, stored.games, stored.wins, stored.trusted, stored.established)


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
    removed_by: int | None = None  # the user who removed the seat's player after the start (a kick), if another
    went_out: bool | None = None   # the seat went out before the end (eliminated, surrendered, removed); None: not
                                   # known (a game from before it was recorded)
    ai_version: int | None = None  # the version of ``ai_level`` the AI played (None: before versions, version 1)

    @property
    def took_part(self) -> bool:
        """The seat played at least one turn of its own (unknown counts as yes: a game from before turns were
        counted)."""
        return self.own_turns is None or self.own_turns >= 1

    @property
    def left_early(self) -> bool:
        """The seat lost having played fewer than ``EARLY_TURNS`` turns of its own (an early surrender, a kick)."""
        return (self.own_turns is not None and self.own_turns < EARLY_TURNS and self.placement > 1
                and not self.substitute   # a substitute who lost soon took a lost seat on late
                and self.went_out is not False   # still in when the game ended by the standings: not a leaver
                and self.removed_by is None)     # removed by another: not their own act


def _weight(seat: SeatResult) -> float:
    return 1.0 if seat.human_share >= 0.5 else max(MIN_WEIGHT, seat.human_share)


def counted(seats: Sequence[SeatResult]) -> list[SeatResult]:
    """The seats a game's rating counts: those that took part (at least one turn of their own) and were not removed
    by another (a kick: the game is rated without them)."""
    return [s for s in seats if s.took_part and s.removed_by is None]


def removers(seats: Sequence[SeatResult]) -> set[int]:
    """The users who removed a player from the game after its start: the game is not rated for them."""
    return {s.removed_by for s in seats if s.removed_by is not None}


def table_of(seats: Sequence[SeatResult]) -> frozenset[int]:
    """The players of a game for the pair limit: the humans who took part."""
    return frozenset(s.user_id for s in counted(seats) if s.user_id is not None)


def repeats_before(rated: Iterable[tuple[float, frozenset[int]]], seats: Sequence[SeatResult]) -> int:
    """The most rated games that any two of this game's players played together (any game with both of them) in
    the repeat window that ends with this game, among the rated games before it (``(ended at, table_of)``, on the
    same server). One human and AIs: never limited."""
    table = table_of(seats)
    if len(table) < 2:
        return 0
    end = max((s.ended_at for s in seats), default=0.0)
    together: dict[frozenset[int], int] = {}
    for at, other in rated:
        if end - REPEAT_WINDOW < at <= end:
            common = sorted(table & other)
            for i, a in enumerate(common):
                for b in common[i + 1:]:
                    pair = frozenset((a, b))
                    together[pair] = together.get(pair, 0) + 1
    return max(together.values(), default=0)


def trust(rating: Rating) -> float:
    """How much a human opponent's result counts (1: fully): an established player counts fully; any other by the
    square of the fewer of its rated games and of the established players it met, ``(games + 1) / (MIN_GAMES + 1)``
    and ``(trusted + 1) / (ESTABLISHED_OPPONENTS + 1)``: an account with no rated game counts 1/36, one that played
    only a ring of other new accounts (however many games) 1/25."""
    if rating.established:
        return 1.0
    return min(1.0, (rating.games + 1) / (MIN_GAMES + 1), (rating.trusted + 1) / (ESTABLISHED_OPPONENTS + 1)) ** 2


def opponent_weight(ratings: Mapping[int, Rating], opponents: Sequence[SeatResult]) -> float:
    """How much a game moves a seat, by how established its opponents are: the mean of their ``trust`` (an AI
    counts 1, its strength is known)."""
    if not opponents:
        return 1.0
    return sum(1.0 if s.user_id is None else trust(ratings.get(s.user_id, Rating())) for s in opponents) / len(
        opponents)


@dataclass
class Circles:
    """Whom the players of one server met in rated games: ``met[user][opponent]`` is whether that opponent was
    established at one of their rated games together, and ``established`` how many players of the server are. A
    player is established once they met ``ESTABLISHED_OPPONENTS`` different established opponents; while the
    server has fewer established players than that, once they met that many different opponents of any kind, or
    every other player the server has rated if it has fewer (a new server's first regulars, and a small server's
    whole group: three friends are established once each has met the other two). A ring of accounts that play only
    each other on a server with regulars never meets enough established players. ``players`` are the humans the
    server has rated before (the store counts its ratings); the store loads only the game's players into ``met``."""

    met: dict[int, dict[int, bool]] = field(default_factory=dict)
    established: int = 0
    players: int = 0

    def meet(self, before: Mapping[int, Rating], seats: Sequence[SeatResult], rated: Iterable[int]
             ) -> dict[int, tuple[int, bool]]:
        """After a rated game: each rated user's ``(trusted, established)`` now (from the statuses before it,
        ``before``), each having met the other humans who took part and did not leave early (a team game: the
        other teams'). ``met`` and ``established`` are updated."""
        playing = [s for s in counted(seats) if s.user_id is not None and not s.left_early]
        out: dict[int, tuple[int, bool]] = {}
        newly = 0
        rated = list(rated)
        self.players += sum(1 for user in rated if user not in before)   # their first rated game
        enough = min(ESTABLISHED_OPPONENTS, max(1, self.players - 1))
        for user in rated:
            mine = next((s for s in seats if s.user_id == user), None)
            circle = self.met.setdefault(user, {})
            for other in playing:
                if other.user_id == user or (mine is not None and mine.team is not None and other.team == mine.team):
                    continue
                assert other.user_id is not None
                was = before.get(other.user_id, Rating()).established
                circle[other.user_id] = circle.get(other.user_id, False) or was
            trusted = sum(1 for t in circle.values() if t)
            known = before.get(user, Rating()).established
            now = known or trusted >= ESTABLISHED_OPPONENTS or (
                self.established < ESTABLISHED_OPPONENTS and len(circle) >= enough)
            newly += int(now and not known)
            out[user] = (trusted, now)
        self.established += newly
        return out


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
        return _without_removers(_rate_table(ratings, seats), seats)
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
    return _without_removers(out, seats)


def _without_removers(out: dict[int, Rating], seats: Sequence[SeatResult]) -> dict[int, Rating]:
    """A game is not rated for whoever removed a player from it: no removal can improve their record."""
    for user in removers(seats):
        out.pop(user, None)
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
                mu, sigma = ai_rating(seat.ai_level, seat.ai_version)
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
            out[seat.user_id] = replace(before, mu=before.mu + w * (new.mu - before.mu),
                                        sigma=before.sigma + w * (new.sigma - before.sigma),
                                        games=before.games + 1, wins=before.wins + (seat.placement == 1))
    return out


# Why a game did not move a player's rating, or moved it less (``notes``): the game's result tells each player.
REMOVED = "removed"           # removed from the game by another after the start: not rated
REMOVER = "remover"           # removed another player: not rated for them
NO_TURN = "no_turn"           # took no turn of their own: not rated
PAIR_LIMIT = "pair_limit"     # two of its players reached the pair limit: not rated
LEFT_EARLY = "left_early"     # went out within their first turns: rated as placed, and nobody gains on them
TOO_FEW = "too_few"           # fewer than two sides took part (a 1v1 ended by a kick): not rated
NEW_OPPONENTS = "new_opponents"  # counted less: opponents not yet established
AI_PLAYED = "ai_played"       # counted less: the AI played most of their turns


def notes(ratings: Mapping[int, Rating], seats: Sequence[SeatResult], repeats: int,
          changed: Mapping[int, Rating]) -> dict[int, str]:
    """Why the game was not rated for each of its human players, or counted less (one of the words above; a player
    rated in full has none), from the ratings before it, the repeats (``repeats_before``) and what ``rate_game``
    gave (``changed``)."""
    out: dict[int, str] = {}
    playing = counted(seats)
    for seat in seats:
        user = seat.user_id
        if user is None or user in out:
            continue
        if seat.removed_by is not None:
            out[user] = REMOVED
        elif user in removers(seats):
            out[user] = REMOVER
        elif not seat.took_part:
            out[user] = NO_TURN
        elif repeats >= REPEAT_LIMIT and len(table_of(seats)) >= 2:
            out[user] = PAIR_LIMIT
        elif seat.left_early and user in changed:
            out[user] = LEFT_EARLY
        elif user not in changed:
            out[user] = TOO_FEW
        elif _weight(seat) < 1.0:
            out[user] = AI_PLAYED
        else:
            opponents = [s for s in playing if s is not seat and not s.left_early
                         and (seat.team is None or s.team != seat.team)]
            if opponent_weight(ratings, opponents) < 1.0:
                out[user] = NEW_OPPONENTS
    return out


def rate_and_meet(ratings: Mapping[int, Rating], circles: Circles, seats: Sequence[SeatResult], repeats: int = 0
                  ) -> dict[int, Rating]:
    """``rate_game``, then whom its rated players met (``Circles.meet``): their new ratings with how established
    they are now. The one step of a game end and of a rebuild alike."""
    changed = rate_game(ratings, seats, repeats)
    met = circles.meet(ratings, seats, changed)
    return {user: replace(rating, trusted=met[user][0], established=met[user][1]) for user, rating in changed.items()}


History = list[tuple[int, int, Rating]]


Rated = list[tuple[float, frozenset[int]]]   # (ended at, table_of) of rated games


def recent(rated: Rated, seats: Sequence[SeatResult]) -> Rated:
    """The rated games (in the order they ended) still inside the repeat window of a game that ends after them."""
    end = max((s.ended_at for s in seats), default=0.0)
    return [r for r in rated if r[0] > end - REPEAT_WINDOW]


def rebuild(games: Iterable[tuple[int, Sequence[SeatResult]]], circles: Circles | None = None
            ) -> tuple[dict[int, Rating], History]:
    """Every rating from games in the order they ended (``(game id, seats)``), as ``rate_and_meet`` gave them one
    by one: the final ratings by user id, and the history as ``(game id, user id, rating after it)``. ``circles``:
    filled with whom the players met (new if not given)."""
    current: dict[int, Rating] = {}
    circles = Circles() if circles is None else circles
    history: History = []
    rated: list[tuple[float, frozenset[int]]] = []
    for game_id, seats in games:
        rated = recent(rated, seats)
        changed = rate_and_meet(current, circles, seats, repeats_before(rated, seats))
        if changed:
            rated.append((max((s.ended_at for s in seats), default=0.0), table_of(seats)))
        current.update(changed)
        history.extend((game_id, user, rating) for user, rating in changed.items())
    return current, history
