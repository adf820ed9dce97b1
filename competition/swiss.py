"""Swiss: every round, entrants of equal points meet, without meeting again while that can be avoided.

- **Round 1** is seeded by rating as an elimination's first round is (``scoring.snake``: 1 v 16, 2 v 15, ...;
  at tables of four, the best four are spread over four tables).
- **Later rounds** pair in the order of points, then rating: at 1v1 (up to ``MATCHING_MOST`` entrants) as an
  exact minimum-cost matching (``match_one_on_one``: no rematch while a round without one exists, the bye to the
  entrant whose sitting out avoids rematches); beyond that, the first with the next one it has not met, searching
  back (``SEARCH_STEPS``). At tables of 3 to 6 each table takes the best unseated entrant and fills with the
  entrants next in order who have met those seated the fewest times; then a bounded search lowers the round's
  repeated meetings (``settle``, ``search_tables``).
- **Byes**: when the count does not divide (``scoring.table_sizes``), the lowest-ranked entrants with the fewest
  byes so far sit out (at 1v1, the matching chooses among them); a bye is worth a win (``BYE_POINTS``) and is
  counted in the standings.
- **Rounds**: ``Spec.rounds``, or by default enough for one entrant to win every round: the rounds of an
  elimination (log₂ of the count, rounded up, at 1v1; logₙ at tables of n), plus one at tables of 3 to 6.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import networkx as nx

from .model import MAX_ROUNDS, Pairing, Spec
from .ranking import rank_order
from .scoring import History, Tally, require_complete, snake, table_sizes

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


MATCHING_MOST = 64          # up to this many entrants a 1v1 round is an exact matching (``match_one_on_one``)


def match_one_on_one(order: Sequence[int], tallies: Mapping[int, Tally], met: dict[tuple[int, int], int],
                     bye_count: int) -> tuple[list[tuple[int, int]], list[int]]:
    """A 1v1 round of ``order`` (best first) as a minimum-cost perfect matching (Edmonds' algorithm, networkx), with
    a bye as one more vertex when the count is odd. The costs come in tiers, each outweighing every lower tier
    summed over the round: a second bye while another entrant has fewer (never, while avoidable); then the
    repeated meetings (the square of each pair's earlier meetings: no rematch while a round without one exists,
    then the fewest repeats of any pair); then the bye's distance from the bottom of the order; then the
    difference in points (the score groups); then the distance in the order (each with the next one below). So
    the bye goes to the lowest-ranked entrant among those with the fewest byes whose sitting out leaves a round
    without rematches."""
    count = len(order)
    rank = {key: i for i, key in enumerate(order)}
    # Each tier's unit outweighs the most the tiers below it can add up to over a round.
    score_tier = count ** 3 + 1                                   # below: the distance in the order
    bye_rank_tier = count * (2 * MAX_ROUNDS) ** 2 * score_tier + 1
    repeat_tier = count * count * bye_rank_tier + 1
    bye_tier = count * MAX_ROUNDS ** 2 * repeat_tier + 1
    fewest = min(tallies[k].byes for k in order)

    def cost(a: int, b: int) -> int:
        steps = round(abs(tallies[a].points - tallies[b].points) * 2)   # in half points: a draw is half a win
        return met.get(_pair(a, b), 0) ** 2 * repeat_tier + steps * steps * score_tier + (rank[b] - rank[a]) ** 2

    graph: nx.Graph[int] = nx.Graph()
    top = bye_tier * count * count
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            graph.add_edge(a, b, weight=top - cost(a, b))
    bye = None
    if bye_count:
        bye = -1 - max(abs(k) for k in order)   # a vertex no entrant's key is
        for a in order:
            graph.add_edge(bye, a, weight=top - (tallies[a].byes - fewest) * bye_tier
                           - (count - 1 - rank[a]) ** 2 * bye_rank_tier)
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    pairs: list[tuple[int, int]] = []
    byes: list[int] = []
    for a, b in matched:
        if bye in (a, b):
            byes.append(b if a == bye else a)
        else:
            pairs.append((a, b) if rank[a] < rank[b] else (b, a))
    pairs.sort(key=lambda pair: rank[pair[0]])
    return pairs, byes


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


def burden(table: Sequence[int], met: dict[tuple[int, int], int]) -> int:
    """What a table's repeated meetings weigh: the square of each pair's earlier meetings, so that a third meeting
    of one pair weighs more than second meetings of two."""
    return sum(met.get(_pair(a, b), 0) ** 2 for i, a in enumerate(table) for b in table[i + 1:])


def seat_tables(order: Sequence[int], sizes: Sequence[int], met: dict[tuple[int, int], int]) -> list[list[int]]:
    """Seat ``order`` (best first) at tables of ``sizes``: each table takes the best unseated entrant and those next
    in order who met the seated ones the fewest times; then the swaps of ``settle`` lower the repeated meetings."""
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
    settle(tables, met)
    return search_tables(order, sizes, met, tables)


SEAT_STEPS = 4_000         # a round's search for the seating at tables of 3 to 6 with the fewest repeats, at most


def _cost(tables: Sequence[Sequence[int]], met: dict[tuple[int, int], int], rank: dict[int, int]) -> tuple[int, int]:
    """A seating's cost: its repeated meetings (``burden``), then how far apart in the order its tables reach (the
    sum of each table's spread of ranks: score groups kept together)."""
    return (sum(burden(t, met) for t in tables),
            sum(max(rank[k] for k in t) - min(rank[k] for k in t) for t in tables))


def search_tables(order: Sequence[int], sizes: Sequence[int], met: dict[tuple[int, int], int],
                  start: list[list[int]]) -> list[list[int]]:
    """A branch-and-bound search over the seatings of ``order`` (best first) at tables of ``sizes`` for the one of
    least ``_cost``, from ``start`` as the best known; it stops after ``SEAT_STEPS`` steps with the best found (for a
    round of a dozen entrants, every seating)."""
    rank = {key: i for i, key in enumerate(order)}
    best_cost = _cost(start, met, rank)
    best = [list(t) for t in start]
    if best_cost[0] == 0:
        return best
    tables: list[list[int]] = [[] for _ in sizes]
    steps = 0

    def place(index: int, cost: tuple[int, int]) -> None:
        nonlocal best_cost, best, steps
        if index == len(order):
            if cost < best_cost:
                best_cost, best = cost, [list(t) for t in tables]
            return
        key = order[index]
        options = []
        empty_sizes: set[int] = set()
        for t, table in enumerate(tables):
            if len(table) >= sizes[t]:
                continue
            if not table:   # empty tables of one size are alike: try the first
                if sizes[t] in empty_sizes:
                    continue
                empty_sizes.add(sizes[t])
            added = (sum(met.get(_pair(key, o), 0) ** 2 for o in table),
                     rank[key] - rank[table[-1]] if table else 0)
            options.append((added, t))
        for added, t in sorted(options):
            steps += 1
            if steps > SEAT_STEPS:
                return
            after = (cost[0] + added[0], cost[1] + added[1])
            if after >= best_cost:
                continue
            tables[t].append(key)
            place(index + 1, after)
            tables[t].pop()

    place(0, (0, 0))
    return best


SETTLE_STEPS = 400          # swaps of a round's seating at tables of 3 to 6, at most
SETTLE_REACH = 8            # a swap's tables are at most this far apart in the order (score groups stay together)


def settle(tables: list[list[int]], met: dict[tuple[int, int], int], fixed: int = 0) -> None:
    """A bounded search that lowers the round's repeated meetings (``burden``): each step makes the swap of two
    entrants between tables (at most ``SETTLE_REACH`` apart, the first ``fixed`` tables left alone) that lowers them
    most, the nearest tables first among equals, until no swap lowers them, at most ``SETTLE_STEPS`` swaps."""
    weights = [burden(t, met) for t in tables]
    for _ in range(SETTLE_STEPS):
        if not any(weights[fixed:]):
            return
        move = _best_swap(tables, met, weights, fixed)
        if move is None:
            return
        i, a, j, b, left, right = move
        tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
        weights[i], weights[j] = left, right


Swap = tuple[int, int, int, int, int, int]   # table i, seat a, table j, seat b, the two tables' burdens after


def _best_swap(tables: list[list[int]], met: dict[tuple[int, int], int], weights: list[int], fixed: int
               ) -> Swap | None:
    """The swap that lowers the burden most, nearest tables first among equals; None if none lowers it. Only an
    entrant who met someone at their table before can take part in a swap that lowers it."""
    def twice(a: int, b: int) -> int:
        return met.get(_pair(a, b), 0) ** 2

    def share(key: int, table: list[int], leaving: int) -> int:
        return sum(twice(key, o) for o in table if o != leaving)

    own = [[share(x, t, x) for x in t] for t in tables]
    best: tuple[int, int] | None = None
    found: Swap | None = None
    count = len(tables)
    for i in range(fixed, count):
        for j in range(i + 1, min(count, i + SETTLE_REACH + 1)):
            if not weights[i] + weights[j]:
                continue
            for a, x in enumerate(tables[i]):
                for b, y in enumerate(tables[j]):
                    removed = own[i][a] + own[j][b]
                    if not removed:
                        continue
                    into_i, into_j = share(y, tables[i], x), share(x, tables[j], y)
                    gain = removed - into_i - into_j
                    if gain > 0 and (best is None or (gain, -(j - i)) > best):
                        best = (gain, -(j - i))
                        found = (i, a, j, b, weights[i] - own[i][a] + into_i, weights[j] - own[j][b] + into_j)
    return found


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
    elif spec.table_size == 2 and len(order) <= MATCHING_MOST:
        pairs, byes = match_one_on_one(order, tallies, met, bye_count)
        tables, sitting_out = [list(pair) for pair in pairs], set(byes)
    elif spec.table_size == 2:
        tables = [list(pair) for pair in pair_one_on_one(playing, met)]
    else:
        tables = seat_tables(playing, sizes, met)
    pairings = [Pairing(number, index, tuple(table)) for index, table in enumerate(tables, start=1)]
    byes = [k for k in order if k in sitting_out]
    pairings += [Pairing(number, len(tables) + i, (key,), bye=True) for i, key in enumerate(byes, start=1)]
    return pairings
