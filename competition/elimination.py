"""Single and double elimination: each table's winner goes on (``ADVANCE``), the others drop out (single) or
down to the losers bracket (double: out at the second loss).

- **Seeding** by rating, best first. Round 1 gives byes to the top seeds when the count is not a power of the
  table size (at 1v1: 2, 4, 8, ...; at tables of four: 4, 16, 64), just enough that round 2 starts with a full
  power; the rest are dealt to the tables back and forth (``scoring.snake``: 1 v 16, 2 v 15, ... 8 v 9). Each
  later round is dealt again by seed from those still in, so the best two seeds can meet only in the final.
  At tables of 3 to 6 a first-round table may have fewer seats (as few as two) so that the byes stay few.
- **Rounds** (single): the power's exponent, log₂ of the count rounded up at 1v1 (16 players: 4 rounds), logₙ at
  tables of n (64 at tables of four: 3 rounds).
- **A shared first place** (a draw) goes to the better seed; a table where everyone forfeited sends on its best
  seed, so the bracket keeps its shape.
- **Double elimination**: every round the winners bracket (no loss yet) and the losers bracket (one loss) play
  side by side, each dealt by seed; a losers bracket that does not divide gives its top seeds a bye. When at most
  one entrant is left without a loss and everyone still in fits one table, they play the **final** (``bracket``
  ``"final"``). A winners-bracket champion who does not win the final has lost once, as has the winner: they play
  a second final (the reset), so nobody goes out before their second loss.
- **Standings**: by how far an entrant went (still in, else the round it went out in; ``eliminated_in``), then
  its place at its last table, then points (``placement_points``), then rating (``Standing.tiebreaks`` holds the
  four, in that order; they alone decide the rank).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .model import Pairing, Spec, Standing
from .ranking import DIGITS, assign_ranks
from .scoring import History, Played, require_complete, snake
from .swiss import elimination_rounds

ADVANCE = 1     # entrants who go on from each table: its winner


@dataclass
class Bracket:
    """Where each entrant stands after the rounds so far."""

    losses: dict[int, int]
    out_in: dict[int, int] = field(default_factory=dict)
    last_place: dict[int, int] = field(default_factory=dict)


def seed_order(past: History) -> list[int]:
    return sorted(past.entrants, key=lambda k: (-past.entrants[k].rating, k))


def advancing(table: Played, seed: dict[int, int]) -> int:
    """The table's winner: the best seed among those placed first."""
    return min(table.winners, key=lambda k: seed[k])


def bracket_state(spec: Spec, past: History) -> Bracket:
    seed = {k: i for i, k in enumerate(seed_order(past))}
    state = Bracket(losses=dict.fromkeys(past.entrants, 0))
    lives = 2 if spec.format == "double_elimination" else 1
    for number in sorted(past.rounds):
        for pairing in past.rounds[number]:
            table = past.played.get((pairing.round, pairing.table))
            if table is None:
                continue
            winner = advancing(table, seed)
            for key in pairing.entrants:
                state.last_place[key] = table.place(key) if key not in table.forfeits else len(pairing.entrants)
                if key != winner:
                    state.losses[key] += 1
                    if state.losses[key] >= lives:
                        state.out_in[key] = number
    return state


def split(group: Sequence[int], table_size: int, first: bool,
          byes_so_far: dict[int, int]) -> tuple[list[list[int]], list[int]]:
    """Deal ``group`` (best seed first) to tables; returns the tables and the byes (the top seeds among those
    with the fewest byes so far)."""
    count = len(group)
    if count <= table_size:
        return [list(group)], []
    if first:
        goes_on = table_size ** (elimination_rounds(count, table_size) - 1)
        tables = -(-(count - goes_on) // (table_size - 1))
        bye_count = goes_on - tables
        seated = count - bye_count
        sizes = [seated // tables + (i < seated % tables) for i in range(tables)]
    else:
        tables = -(-count // table_size)
        sizes = [count // tables + (i < count % tables) for i in range(tables)]
        bye_count = sizes.count(1)      # only at 1v1, for an odd count
        sizes = [size for size in sizes if size > 1]
    place = {key: i for i, key in enumerate(group)}
    byes = sorted(sorted(group, key=lambda k: (byes_so_far[k], place[k]))[:bye_count], key=place.__getitem__)
    return snake([k for k in group if k not in byes], sizes), byes


def next_elimination(spec: Spec, past: History) -> list[Pairing] | None:
    require_complete(past)
    number = past.last_round + 1
    order = seed_order(past)
    state = bracket_state(spec, past)
    had = {k: t.byes for k, t in past.tally().items()}
    alive = [k for k in order if k not in state.out_in]
    if len(alive) <= 1:
        return None
    groups: list[tuple[str, list[list[int]], list[int]]] = []
    if spec.format == "single_elimination":
        tables, byes = split(alive, spec.table_size, number == 1, had)
        groups.append(("", tables, byes))
    else:
        unbeaten = [k for k in alive if state.losses[k] == 0]
        beaten = [k for k in alive if state.losses[k] == 1]
        if len(unbeaten) <= 1 and len(alive) <= spec.table_size:
            groups.append(("final", [unbeaten + beaten], []))
        else:
            if len(unbeaten) >= 2:
                groups.append(("winners", *split(unbeaten, spec.table_size, number == 1, had)))
            if len(beaten) >= 2:
                groups.append(("losers", *split(beaten, spec.table_size, False, had)))
    seats = [(bracket, tuple(t)) for bracket, tables, _ in groups for t in tables]
    seats += [(bracket, (k,)) for bracket, _, byes in groups for k in byes]
    return [Pairing(number, index, keys, bye=len(keys) == 1, bracket=bracket)
            for index, (bracket, keys) in enumerate(seats, start=1)]


def elimination_standings(spec: Spec, past: History) -> list[Standing]:
    tallies = past.tally()
    state = bracket_state(spec, past)
    still_in = past.last_round + 1

    def breaks(key: int) -> tuple[float, ...]:
        reached = state.out_in.get(key, still_in)
        return (float(reached), -float(state.last_place.get(key, 1)), round(tallies[key].points, DIGITS),
                float(past.entrants[key].rating))

    ranks = assign_ranks(list(tallies), breaks)
    return sorted((Standing(key=k, rank=ranks[k], points=round(tallies[k].points, DIGITS), tiebreaks=breaks(k),
                            played=tallies[k].played, wins=tallies[k].wins, byes=tallies[k].byes,
                            forfeits=tallies[k].forfeits, eliminated_in=state.out_in.get(k))
                   for k in tallies), key=lambda s: (s.rank, s.key))
