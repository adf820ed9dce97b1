"""Standings of the formats that score points (Swiss, round-robin), and the order a round is paired in.

Entrants rank by points, then by these tie-breaks, in this order (``Standing.tiebreaks``):

1. **Opponents' points** (Buchholz): for each table played, the mean of the points of the others at it, summed.
   At 1v1 this is the classic Buchholz, the sum of the opponents' points.
2. **Head-to-head** among the entrants still tied on points and opponents' points: +1 for each of them an
   entrant finished ahead of at a table they shared, -1 for each it finished behind.
3. **Wins**: tables won (a shared first place counts; a bye does not).
4. **Rating**, the entrant's shown score when the standings are drawn.

Entrants equal on all of them share a rank.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from .model import Standing
from .scoring import History, Tally

DIGITS = 6      # points are sums of fractions: compared rounded, so ⅓ + ⅔ equals 1


def rank_order(past: History, tallies: dict[int, Tally]) -> list[int]:
    """Entrant keys by points, then rating (then key, for a fixed order): the order a round is paired in."""
    return sorted(past.entrants, key=lambda k: (-round(tallies[k].points, DIGITS), -past.entrants[k].rating, k))


def opponents_points(key: int, tallies: dict[int, Tally]) -> float:
    total = 0.0
    for table in tallies[key].tables:
        others = [o for o in table.pairing.entrants if o != key]
        total += sum(tallies[o].points for o in others) / len(others)
    return round(total, DIGITS)


def head_to_head(key: int, group: set[int], tallies: dict[int, Tally]) -> float:
    score = 0
    for table in tallies[key].tables:
        mine = table.place(key)
        for other in table.pairing.entrants:
            if other != key and other in group:
                theirs = table.place(other)
                score += (mine < theirs) - (mine > theirs)
    return float(score)


def assign_ranks(keys: Sequence[int], sort_key: Callable[[int], tuple[float, ...]]) -> dict[int, int]:
    """Rank ``keys`` by ``sort_key`` (larger first); equal keys share a rank (1, 1, 3)."""
    ordered = sorted(keys, key=lambda k: (tuple(-v for v in sort_key(k)), k))
    ranks: dict[int, int] = {}
    for position, key in enumerate(ordered, start=1):
        before = ordered[position - 2] if position > 1 else None
        same = before is not None and sort_key(before) == sort_key(key)
        ranks[key] = ranks[before] if same and before is not None else position
    return ranks


def points_standings(past: History) -> list[Standing]:
    """Standings by points and the tie-breaks above."""
    tallies = past.tally()
    points = {k: round(t.points, DIGITS) for k, t in tallies.items()}
    buchholz = {k: opponents_points(k, tallies) for k in tallies}
    groups: dict[tuple[float, float], set[int]] = defaultdict(set)
    for key in tallies:
        groups[points[key], buchholz[key]].add(key)
    h2h = {k: head_to_head(k, groups[points[k], buchholz[k]], tallies) for k in tallies}

    def breaks(key: int) -> tuple[float, ...]:
        return (buchholz[key], h2h[key], float(tallies[key].wins), float(past.entrants[key].rating))

    ranks = assign_ranks(list(tallies), lambda k: (points[k], *breaks(k)))
    return sorted((Standing(key=k, rank=ranks[k], points=points[k], tiebreaks=breaks(k),
                            played=tallies[k].played, wins=tallies[k].wins, byes=tallies[k].byes,
                            forfeits=tallies[k].forfeits) for k in tallies), key=lambda s: (s.rank, s.key))
