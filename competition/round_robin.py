"""Round-robin: every two entrants meet at a table; then it is over, and the points decide.

- **1v1**: the circle method. Entrants in rating order take places around a circle; the first stays, the others
  turn one place a round, and each place meets the one across: n − 1 rounds for an even count, n for an odd
  one (an empty place makes the bye, which each entrant gets exactly once). Later rounds follow from round 1's
  seating, so a rating that changes during the tournament does not change its schedule.
- **Tables of 3 to 6**: each round seats entrants so that as many pairs as it can meet for the first time (a
  table takes the entrant with the most opponents still to meet, then the one who would meet the most of
  those seated for the first time; then swaps between tables where that adds first meetings), until every pair
  has met. Some pairs meet more than once (at 4 to a table, 16 entrants need at least 5 rounds, 64 at least
  21); byes (``scoring.table_sizes``) go to those with the fewest byes, then the fewest opponents left to meet.
"""

from __future__ import annotations

from collections.abc import Sequence

from .model import Pairing, Spec
from .scoring import History, require_complete, table_sizes
from .swiss import improve


def seeds(past: History) -> list[int]:
    """Entrant keys by rating, best first (then key)."""
    return sorted(past.entrants, key=lambda k: (-past.entrants[k].rating, k))


def circle(past: History) -> list[int | None]:
    """The places around the circle (``None``: the empty place of an odd count), from round 1 when it has been
    paired, else from the ratings."""
    order: list[int | None] = list(seeds(past))
    if len(order) % 2:
        order.insert(0, None)
    first = past.rounds.get(1)
    if not first:
        return order
    size = len(order)
    places: list[int | None] = [None] * size
    games = [p for p in first if not p.bye]
    offset = 0 if size == len(past.entrants) else 1
    for index, pairing in enumerate(games, start=offset):
        places[index], places[size - 1 - index] = pairing.entrants
    for pairing in first:
        if pairing.bye:
            places[size - 1] = pairing.entrants[0]
    return places


def circle_round(places: Sequence[int | None], number: int) -> list[tuple[int | None, int | None]]:
    rest = list(places[1:])
    turn = (number - 1) % len(rest) if rest else 0
    turned = [places[0], *(rest[len(rest) - turn:] + rest[: len(rest) - turn])]
    size = len(turned)
    return [(turned[i], turned[size - 1 - i]) for i in range(size // 2)]


def next_round_robin(spec: Spec, past: History) -> list[Pairing] | None:
    require_complete(past)
    number = past.last_round + 1
    if spec.table_size == 2:
        places = circle(past)
        if number > len(places) - 1:
            return None
        pairings: list[Pairing] = []
        byes: list[int] = []
        for a, b in circle_round(places, number):
            if a is None or b is None:
                byes.extend(k for k in (a, b) if k is not None)
            else:
                pairings.append(Pairing(number, len(pairings) + 1, (a, b)))
        pairings += [Pairing(number, len(pairings) + 1, (key,), bye=True) for key in byes]
        return pairings
    return _tables_round(spec, past, number)


def _tables_round(spec: Spec, past: History, number: int) -> list[Pairing] | None:
    met = past.meetings()
    order = seeds(past)
    unmet = {k: {o for o in order if o != k and not met.get((min(k, o), max(k, o)))} for k in order}
    if not any(unmet.values()):
        return None
    tallies = past.tally()
    place = {k: i for i, k in enumerate(order)}
    sizes, bye_count = table_sizes(len(order), spec.table_size)
    tables = _seat(order, sizes, bye_count, unmet, met, place, tallies_byes={k: t.byes for k, t in tallies.items()},
                   must=None)
    if not any(_new_pairs(t, met) for t in tables):  # the unmet pairs all involved those sitting out
        a = min(k for k in order if unmet[k])
        b = min(unmet[a])
        tables = _seat(order, sizes, bye_count, unmet, met, place,
                       tallies_byes={k: t.byes for k, t in tallies.items()}, must=(a, b))
    seated = {k for t in tables for k in t}
    pairings = [Pairing(number, i, tuple(t)) for i, t in enumerate(tables, start=1)]
    pairings += [Pairing(number, len(tables) + i, (k,), bye=True)
                 for i, k in enumerate((k for k in order if k not in seated), start=1)]
    return pairings


def _new_pairs(table: Sequence[int], met: dict[tuple[int, int], int]) -> int:
    return sum(not met.get((min(a, b), max(a, b))) for i, a in enumerate(table) for b in table[i + 1:])


def _seat(order: list[int], sizes: list[int], bye_count: int, unmet: dict[int, set[int]],
          met: dict[tuple[int, int], int], place: dict[int, int], tallies_byes: dict[int, int],
          must: tuple[int, int] | None) -> list[list[int]]:
    candidates = [k for k in order if must is None or k not in must]
    sitting_out = set(sorted(candidates, key=lambda k: (tallies_byes[k], len(unmet[k]), -place[k]))[:bye_count])
    queue = [k for k in order if k not in sitting_out]
    tables: list[list[int]] = []
    for index, size in enumerate(sizes):
        if index == 0 and must is not None:
            table = list(must)
        else:
            start = max(queue, key=lambda k: (len(unmet[k] & set(queue)), -place[k]))
            table = [start]
        for key in table:
            queue.remove(key)
        while len(table) < size:
            left = set(queue)
            best = max(queue, key=lambda k: (sum(o in unmet[k] for o in table), len(unmet[k] & left), -place[k]))
            queue.remove(best)
            table.append(best)
        tables.append(table)
    fixed = 1 if must is not None else 0
    for _ in range(50):
        if not improve(tables, met, fixed=fixed):
            break
    return tables
