"""Swiss: every round, entrants of equal points meet, without meeting again while that can be avoided.

- **Round 1** is seeded by rating as an elimination's first round is (``scoring.snake``: 1 v 16, 2 v 15, ...;
  at tables of four, the best four are spread over four tables).
- **Later rounds** pair in the order of points, then rating: at 1v1 the first with the next one it has not met,
  searching back when the rest could not then be paired without a rematch (so a rematch happens only when
  every pairing of the round has one; then the fewest repeats of any one pair; the search stops at
  ``SEARCH_STEPS``, which a usual Swiss never reaches: 64 players meet no rematch before round 22).
  At tables of 3 to 6 each table takes the best unseated entrant and fills with the entrants next in order
  who have met those seated the fewest times; then entrants are swapped between tables wherever that lowers
  the round's repeated meetings.
- **Byes**: when the count does not divide (``scoring.table_sizes``), the lowest-ranked entrants with the fewest
  byes so far sit out; a bye is worth a win (``BYE_POINTS``) and is counted in the standings.
- **Rounds**: ``Spec.rounds``, or by default enough for one entrant to win every round: the rounds of an
  elimination (log₂ of the count, rounded up, at 1v1; logₙ at tables of n), plus one at tables of 3 to 6.
"""

from __future__ import annotations

from collections.abc import Sequence

from .model import Pairing, Spec
from .ranking import rank_order
from .scoring import History, require_complete, snake, table_sizes

SEARCH_STEPS = 20_000       # a 1v1 round's search for a pairing without rematches, at most


def elimination_rounds(count: int, table_size: int) -> int:
    """Rounds until one is left when each table's winner goes on: the smallest r with table_size**r ≥ count."""
    rounds, reach = 0, 1
    while reach < count:
        reach *= table_size
        rounds += 1
    return rounds


def default_rounds(count: int, table_size: int) -> int:
    """A Swiss's rounds when the spec gives none (6 for 64 players at 1v1; 4 for 64 at tables of four)."""
    rounds = max(1, elimination_rounds(count, table_size))
    return rounds if table_size == 2 else rounds + 1


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def pair_one_on_one(order: Sequence[int], met: dict[tuple[int, int], int]) -> list[tuple[int, int]]:
    """Pair ``order`` (best first) two by two, each with the next it may meet; the fewest repeats allowed."""
    most = max(met.values(), default=0)
    for allowed in range(most + 1):
        found = _search(list(order), met, allowed)
        if found is not None:
            return found
    return [(order[i], order[i + 1]) for i in range(0, len(order) - 1, 2)]


def _search(order: list[int], met: dict[tuple[int, int], int], allowed: int) -> list[tuple[int, int]] | None:
    steps = 0

    def may(a: int, b: int) -> bool:
        return met.get(_pair(a, b), 0) <= allowed

    def solve(rest: list[int]) -> list[tuple[int, int]] | None:
        nonlocal steps
        if not rest:
            return []
        first, others = rest[0], rest[1:]
        for index, other in enumerate(others):
            steps += 1
            if steps > SEARCH_STEPS:
                return None
            if not may(first, other):
                continue
            remaining = others[:index] + others[index + 1:]
            # Cut short: someone left with nobody they may meet.
            if any(not any(may(a, b) for b in remaining if b != a) for a in remaining):
                continue
            tail = solve(remaining)
            if tail is not None:
                return [(first, other), *tail]
        return None

    return solve(order)


def repeats(table: Sequence[int], met: dict[tuple[int, int], int]) -> int:
    """How many earlier meetings the entrants of ``table`` have had with each other."""
    return sum(met.get(_pair(a, b), 0) for i, a in enumerate(table) for b in table[i + 1:])


def seat_tables(order: Sequence[int], sizes: Sequence[int], met: dict[tuple[int, int], int]) -> list[list[int]]:
    """Seat ``order`` (best first) at tables of ``sizes`` with as few repeated meetings as this finds."""
    rank = {key: i for i, key in enumerate(order)}
    queue = list(order)
    tables: list[list[int]] = []
    for size in sizes:
        table = [queue.pop(0)]
        while len(table) < size:
            window = queue[: 3 * size]
            best = min(window, key=lambda k: (sum(met.get(_pair(k, o), 0) for o in table), rank[k]))
            queue.remove(best)
            table.append(best)
        tables.append(table)
    for _ in range(50):
        if not improve(tables, met):
            break
    return tables


def improve(tables: list[list[int]], met: dict[tuple[int, int], int], fixed: int = 0) -> bool:
    """One swap of two entrants between tables that lowers the repeated meetings, nearest tables first (the
    first ``fixed`` tables stay as they are)."""
    count = len(tables)
    for distance in range(1, count):
        for i in range(fixed, count - distance):
            j = i + distance
            before = repeats(tables[i], met) + repeats(tables[j], met)
            if not before:
                continue
            for a_index, a in enumerate(tables[i]):
                for b_index, b in enumerate(tables[j]):
                    left = [*tables[i][:a_index], b, *tables[i][a_index + 1:]]
                    right = [*tables[j][:b_index], a, *tables[j][b_index + 1:]]
                    if repeats(left, met) + repeats(right, met) < before:
                        tables[i], tables[j] = left, right
                        return True
    return False


def next_swiss(spec: Spec, past: History) -> list[Pairing] | None:
    require_complete(past)
    total = spec.rounds or default_rounds(len(past.entrants), spec.table_size)
    if past.last_round >= total:
        return None
    number = past.last_round + 1
    tallies = past.tally()
    order = rank_order(past, tallies)
    sizes, bye_count = table_sizes(len(order), spec.table_size)
    # The lowest-ranked with the fewest byes so far sit out.
    place = {key: i for i, key in enumerate(order)}
    from_bottom = sorted(order, key=lambda k: (tallies[k].byes, -place[k]))
    sitting_out = set(from_bottom[:bye_count])
    playing = [k for k in order if k not in sitting_out]
    met = past.meetings()
    if number == 1:
        tables = snake(playing, sizes)
    elif spec.table_size == 2:
        tables = [list(pair) for pair in pair_one_on_one(playing, met)]
    else:
        tables = seat_tables(playing, sizes, met)
    pairings = [Pairing(number, index, tuple(table)) for index, table in enumerate(tables, start=1)]
    byes = [k for k in order if k in sitting_out]
    pairings += [Pairing(number, len(tables) + i, (key,), bye=True) for i, key in enumerate(byes, start=1)]
    return pairings
