"""Tournaments played to the end with random results, for every format, table size and entrant count: the
pairing rules (once a round, byes, rematches, brackets) and the standings hold."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, pairwise

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from competition import (
    FORMATS,
    CompetitionError,
    Entrant,
    Pairing,
    Result,
    Spec,
    Standing,
    next_round,
    standings,
)
from competition.model import smallest_table
from competition.scoring import table_sizes
from competition.swiss import default_rounds, elimination_rounds


def entrants_of(count: int, rng: random.Random) -> list[Entrant]:
    return [Entrant(key=100 + i, rating=float(rng.choice([900, 1000, 1100, rng.randint(700, 1400)])),
                    name=f"P{i}") for i in range(count)]


def result_of(pairing: Pairing, rng: random.Random, forfeit: float) -> Result:
    keys = list(pairing.entrants)
    rng.shuffle(keys)
    places, place = [], 1
    for index, key in enumerate(keys):
        if index and rng.random() < 0.15:   # a shared place now and then
            places.append((key, places[-1][1]))
        else:
            places.append((key, index + 1))
        place += 1
    forfeits = frozenset(k for k in keys if rng.random() < forfeit)
    return Result(pairing.round, pairing.table, tuple(places), forfeits)


def play(spec: Spec, entrants: list[Entrant], rng: random.Random, forfeit: float = 0.0
         ) -> tuple[list[Pairing], list[Result]]:
    pairings: list[Pairing] = []
    results: list[Result] = []
    for _ in range(200):
        shuffled = entrants[:]
        rng.shuffle(shuffled)
        upcoming = next_round(spec, entrants, pairings, results)
        assert upcoming == next_round(spec, shuffled, pairings[::-1], results[::-1])  # the same input, any order
        if upcoming is None:
            return pairings, results
        number = pairings[-1].round + 1 if pairings else 1
        assert {p.round for p in upcoming} == {number}
        assert [p.table for p in upcoming] == list(range(1, len(upcoming) + 1))
        seated = [k for p in upcoming for k in p.entrants]
        assert len(seated) == len(set(seated)), "someone sits twice in a round"
        assert all(p.bye == (len(p.entrants) == 1) for p in upcoming)
        assert all(len(p.entrants) <= spec.table_size for p in upcoming)
        pairings += upcoming
        results += [result_of(p, rng, forfeit) for p in upcoming if not p.bye]
    raise AssertionError("the tournament does not end")


def check_standings(spec: Spec, entrants: list[Entrant], pairings: list[Pairing], results: list[Result]
                    ) -> list[Standing]:
    table = standings(spec, entrants, pairings, results)
    assert sorted(s.key for s in table) == sorted(e.key for e in entrants)
    assert [s.rank for s in table] == sorted(s.rank for s in table)
    elimination = spec.format.endswith("elimination")

    def key(s: Standing) -> tuple[float, ...]:
        return s.tiebreaks if elimination else (s.points, *s.tiebreaks)

    for line in table:
        assert line.rank == 1 + sum(key(other) > key(line) for other in table)
    for before, after in pairwise(table):
        assert key(before) >= key(after)
    byes = Counter(p.entrants[0] for p in pairings if p.bye)
    forfeits = Counter(k for r in results for k in r.forfeits)
    games = Counter(k for p in pairings if not p.bye for k in p.entrants)
    for line in table:
        assert (line.byes, line.forfeits, line.played) == (byes[line.key], forfeits[line.key], games[line.key])
    return table


counts = st.integers(min_value=2, max_value=64)
sizes = st.integers(min_value=2, max_value=6)
seeds = st.integers(min_value=0, max_value=2**32)


@settings(max_examples=40, deadline=None)
@given(size=sizes, count=counts, seed=seeds, rounds=st.integers(min_value=0, max_value=8))
def test_a_swiss_pairs_equal_points_without_rematches_while_avoidable(size: int, count: int, seed: int,
                                                                     rounds: int) -> None:
    count = max(count, smallest_table(size))
    rng = random.Random(seed)
    spec, entrants = Spec("swiss", size, rounds), entrants_of(count, rng)
    pairings, results = play(spec, entrants, rng, forfeit=0.03)
    total = rounds or default_rounds(count, size)
    assert max(p.round for p in pairings) == total
    seats, bye_count = table_sizes(count, size)
    met: Counter[tuple[int, int]] = Counter()
    had_bye: Counter[int] = Counter()
    for number in range(1, total + 1):
        this = [p for p in pairings if p.round == number]
        assert sorted(len(p.entrants) for p in this if not p.bye) == sorted(seats)
        byes = [p.entrants[0] for p in this if p.bye]
        assert len(byes) == bye_count
        if number * bye_count <= count:     # nobody has a second bye while someone has none
            assert all(had_bye[k] == 0 for k in byes)
        had_bye.update(byes)
        meetings = [pair for p in this if not p.bye for pair in combinations(sorted(p.entrants), 2)]
        players = count - bye_count
        if size == 2 and number - 1 <= players // 2 - 1:   # then a pairing without a rematch exists (Dirac)
            assert not any(met[pair] for pair in meetings), f"a rematch in round {number}"
        if size > 2 and number == 2 and count >= size * size and bye_count == 0:
            assert not any(met[pair] for pair in meetings), "a repeated meeting in round 2"
        met.update(meetings)
    check_standings(spec, entrants, pairings, results)


@settings(max_examples=25, deadline=None)
@given(size=sizes, count=st.integers(min_value=2, max_value=40), seed=seeds)
def test_a_round_robin_meets_every_pair(size: int, count: int, seed: int) -> None:
    count = max(count, smallest_table(size))
    rng = random.Random(seed)
    spec, entrants = Spec("round_robin", size), entrants_of(count, rng)
    pairings, results = play(spec, entrants, rng)
    met = Counter(pair for p in pairings if not p.bye for pair in combinations(sorted(p.entrants), 2))
    assert set(met) == set(combinations(sorted(e.key for e in entrants), 2))
    last = max(p.round for p in pairings)
    if size == 2:   # the circle method: each pair exactly once, each entrant one bye at an odd count
        assert set(met.values()) == {1}
        assert last == (count - 1 if count % 2 == 0 else count)
        assert Counter(p.entrants[0] for p in pairings if p.bye) == (
            Counter(e.key for e in entrants) if count % 2 else Counter())
    check_standings(spec, entrants, pairings, results)


def test_a_round_robin_of_64_at_tables_of_four_ends():
    rng = random.Random(7)
    spec, entrants = Spec("round_robin", 4), entrants_of(64, rng)
    pairings, _ = play(spec, entrants, rng)
    assert 21 <= max(p.round for p in pairings) <= 40


@settings(max_examples=40, deadline=None)
@given(size=sizes, count=counts, seed=seeds)
def test_a_single_elimination_ends_with_one_winner_after_its_rounds(size: int, count: int, seed: int) -> None:
    count = max(count, smallest_table(size))
    rng = random.Random(seed)
    spec, entrants = Spec("single_elimination", size), entrants_of(count, rng)
    pairings, results = play(spec, entrants, rng, forfeit=0.03)
    assert max(p.round for p in pairings) == elimination_rounds(count, size)
    assert all(p.round == 1 for p in pairings if p.bye), "byes only in the first round"
    table = check_standings(spec, entrants, pairings, results)
    assert [s.eliminated_in for s in table].count(None) == 1
    assert table[0].eliminated_in is None and table[0].rank == 1
    # The byes went to the top seeds.
    seeded = sorted(entrants, key=lambda e: (-e.rating, e.key))
    bye_keys = {p.entrants[0] for p in pairings if p.bye}
    assert bye_keys == {e.key for e in seeded[: len(bye_keys)]}


@settings(max_examples=40, deadline=None)
@given(size=sizes, count=counts, seed=seeds)
@example(size=2, count=18, seed=8068)   # a top seed with three byes, each when it had the fewest of its bracket
def test_a_double_elimination_puts_out_at_the_second_loss(size: int, count: int, seed: int) -> None:
    count = max(count, smallest_table(size))
    rng = random.Random(seed)
    spec, entrants = Spec("double_elimination", size), entrants_of(count, rng)
    pairings, results = play(spec, entrants, rng, forfeit=0.03)
    table = check_standings(spec, entrants, pairings, results)
    assert [s.eliminated_in for s in table].count(None) == 1
    assert {p.bracket for p in pairings} <= {"winners", "losers", "final"}
    assert pairings[-1].bracket == "final"
    # A bracket's bye goes to one of its entrants with the fewest byes so far (then by seed).
    byes: Counter[int] = Counter()
    for number in sorted({p.round for p in pairings}):
        rounds = [p for p in pairings if p.round == number]
        for bracket in {p.bracket for p in rounds}:
            group = [k for p in rounds if p.bracket == bracket for k in p.entrants]
            fewest = min(byes[k] for k in group)
            assert all(byes[p.entrants[0]] == fewest for p in rounds if p.bracket == bracket and p.bye), number
        byes.update(p.entrants[0] for p in rounds if p.bye)


def test_sixteen_players_are_seeded_one_against_sixteen():
    entrants = [Entrant(key=k, rating=2000 - k) for k in range(1, 17)]
    first = next_round(Spec("single_elimination"), entrants, [], [])
    assert first is not None
    assert [p.entrants for p in first] == [(1, 16), (2, 15), (3, 14), (4, 13), (5, 12), (6, 11), (7, 10), (8, 9)]


def test_a_bye_goes_to_the_lowest_ranked_without_one_and_is_worth_a_win():
    entrants = [Entrant(key=k, rating=2000 - k) for k in range(1, 6)]
    spec = Spec("swiss")
    first = next_round(spec, entrants, [], [])
    assert first is not None and first[-1] == Pairing(1, 3, (5,), bye=True)
    results = [Result(1, p.table, ((p.entrants[0], 1), (p.entrants[1], 2))) for p in first if not p.bye]
    second = next_round(spec, entrants, first, results)
    assert second is not None and second[-1].bye and second[-1].entrants == (4,)  # 5 had one; 4 is last
    lines = {s.key: s for s in standings(spec, entrants, first, results)}
    assert (lines[5].points, lines[5].byes, lines[5].wins) == (1.0, 1, 0)


def test_places_share_points_and_forfeits_are_last():
    entrants = [Entrant(key=k) for k in range(1, 5)]
    spec = Spec("swiss", 4)
    first = next_round(spec, entrants, [], [])
    assert first is not None and len(first) == 1
    result = Result(1, 1, ((1, 1), (2, 1), (3, 3), (4, 2)), forfeits=frozenset({4}))
    lines = {s.key: s for s in standings(spec, entrants, first, [result])}
    assert lines[1].points == lines[2].points == round((1 + 2 / 3) / 2, 6)
    assert lines[3].points == pytest.approx(1 / 3, abs=1e-6)
    assert (lines[4].points, lines[4].forfeits) == (0.0, 1)
    assert lines[1].rank == lines[2].rank == 1 and lines[3].rank == 3


def test_head_to_head_breaks_a_tie_on_points_and_opponents():
    entrants = [Entrant(key=k) for k in range(1, 5)]
    spec = Spec("round_robin")
    pairings, results = [], []
    winners = {frozenset({1, 2}): 1, frozenset({3, 4}): 3, frozenset({1, 3}): 3, frozenset({2, 4}): 2,
               frozenset({1, 4}): 1, frozenset({2, 3}): 2}
    while (upcoming := next_round(spec, entrants, pairings, results)) is not None:
        pairings += upcoming
        for p in upcoming:
            winner = winners[frozenset(p.entrants)]
            results.append(Result(p.round, p.table, tuple((k, 1 if k == winner else 2) for k in p.entrants)))
    table = standings(spec, entrants, pairings, results)
    # 1, 2 and 3 have two wins each and the same opponents' points; they beat each other in a circle, so the
    # head-to-head is level too and the rating (equal) leaves them sharing first place.
    assert [s.rank for s in table] == [1, 1, 1, 4]
    assert table[-1].key == 4


@pytest.mark.parametrize(("spec", "count", "words"), [
    (Spec("ladder"), 8, "no tournament format"),
    (Spec("swiss", table_size=7), 8, "2 to 6"),
    (Spec("swiss", table_size=1), 8, "2 to 6"),
    (Spec("swiss", team_size=4), 8, "2 or 3 players"),
    (Spec("swiss", table_size=3, team_size=3), 8, "at most 6 players"),
    (Spec("swiss", table_size=4, team_size=2), 8, "at most 6 players"),
    (Spec("round_robin", rounds=3), 8, "Only a Swiss"),
    (Spec("swiss", rounds=-1), 8, "1 to 64"),
    (Spec("single_elimination"), 1, "at least 2"),
    (Spec("swiss", table_size=5), 3, "at least 4"),
    (Spec("swiss"), 513, "at most 512"),
])
def test_a_bad_spec_is_refused(spec: Spec, count: int, words: str) -> None:
    with pytest.raises(CompetitionError, match=words):
        spec.check(count)
    with pytest.raises(CompetitionError):
        next_round(spec, [Entrant(key=k) for k in range(count)], [], [])


def test_a_round_without_all_its_results_is_not_paired_on():
    entrants = [Entrant(key=k) for k in range(6)]
    for format in FORMATS:
        spec = Spec(format)
        first = next_round(spec, entrants, [], [])
        assert first is not None
        partial = [Result(1, p.table, ((p.entrants[0], 1), (p.entrants[1], 2))) for p in first[1:] if not p.bye]
        with pytest.raises(CompetitionError, match="not over"):
            next_round(spec, entrants, first, partial)
        assert len(standings(spec, entrants, first, partial)) == 6   # the standings read mid-round


@pytest.mark.parametrize(("pairings", "results", "words"), [
    ([Pairing(1, 1, (0, 1)), Pairing(1, 1, (2, 3))], [], "two tables numbered 1"),
    ([Pairing(1, 1, (0, 1)), Pairing(1, 2, (1, 3))], [], "seated twice"),
    ([Pairing(1, 1, (0, 9))], [], "not entered"),
    ([Pairing(2, 1, (0, 1))], [], "numbered from 1"),
    ([Pairing(1, 1, (0,))], [], "a bye has exactly one"),
    ([Pairing(1, 1, (0, 1))], [Result(1, 2, ((0, 1), (1, 2)))], "which has no game"),
    ([Pairing(1, 1, (0, 1))], [Result(1, 1, ((0, 1), (2, 2)))], "does not place exactly"),
    ([Pairing(1, 1, (0, 1))], [Result(1, 1, ((0, 1), (1, 2)), frozenset({3}))], "not at that table"),
])
def test_inconsistent_pairings_and_results_are_refused(pairings: list[Pairing], results: list[Result],
                                                       words: str) -> None:
    entrants = [Entrant(key=k) for k in range(4)]
    with pytest.raises(CompetitionError, match=words):
        standings(Spec("swiss"), entrants, pairings, results)


def test_teams_play_as_entrants():
    rng = random.Random(3)
    spec = Spec("swiss", table_size=3, team_size=2)
    entrants = entrants_of(9, rng)
    pairings, results = play(spec, entrants, rng)
    assert all(len(p.entrants) == 3 for p in pairings if not p.bye)
    check_standings(spec, entrants, pairings, results)


@pytest.mark.slow   # every format and table size, up to 64 entrants each: CI's slow suite
@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("size", [2, 3, 4, 5, 6])
def test_every_format_and_table_size_plays_from_the_fewest_entrants_to_64(format: str, size: int) -> None:
    least = smallest_table(size)
    for count in sorted({least, least + 1, 17, 64}):
        rng = random.Random(count * 10 + size)
        spec, entrants = Spec(format, size), entrants_of(count, rng)
        pairings, results = play(spec, entrants, rng, forfeit=0.02)
        table = check_standings(spec, entrants, pairings, results)
        if format.endswith("elimination"):
            assert [s.eliminated_in for s in table].count(None) == 1


def _swiss(count: int, size: int, rounds: int, seed: int) -> list[Pairing]:
    rng = random.Random(seed)
    spec, entrants = Spec("swiss", size, rounds), entrants_of(count, rng)
    pairings: list[Pairing] = []
    results: list[Result] = []
    while (upcoming := next_round(spec, entrants, pairings, results)) is not None:
        pairings += upcoming
        results += [result_of(p, rng, 0.0) for p in upcoming if not p.bye]
    return pairings


def test_a_swiss_at_tables_of_four_seldom_repeats_a_meeting():
    """12 entrants at tables of four for 3 rounds: no pair meets in all three rounds, and the pairs that meet twice
    are as few as the search finds (each later round seats four at each table from the three tables of an earlier
    round, so each has at least one pair that met: 6 in two rounds at the least)."""
    twice = []
    for seed in range(40):
        met = Counter(pair for p in _swiss(12, 4, 3, seed) if not p.bye for pair in combinations(sorted(p.entrants), 2))
        assert max(met.values()) <= 2, f"a pair met in all three rounds (seed {seed})"
        twice.append(sum(1 for n in met.values() if n == 2))
    assert sum(twice) / len(twice) <= 9 and min(twice) >= 6


@pytest.mark.parametrize(("count", "rounds"), [(9, 8), (11, 9), (21, 16), (33, 20),
                                               pytest.param(64, 24, marks=pytest.mark.slow)])
def test_a_1v1_swiss_has_no_rematch_while_a_round_without_one_exists(count: int, rounds: int):
    """Every round of a long 1v1 Swiss (odd counts: the bye goes to the entrant whose sitting out avoids rematches)
    has no rematch whenever a round without one exists among the entrants with the fewest byes: checked by a
    maximum matching of the pairs that never met."""
    import networkx as nx

    for seed in range(3):
        pairings = _swiss(count, 2, rounds, seed)
        met: Counter[tuple[int, int]] = Counter()
        byes: Counter[int] = Counter()
        keys = sorted({k for p in pairings for k in p.entrants})
        for number in range(1, rounds + 1):
            this = [p for p in pairings if p.round == number]
            allowed: nx.Graph[int] = nx.Graph()
            allowed.add_nodes_from(keys)
            allowed.add_edges_from(pair for pair in combinations(keys, 2) if not met[pair])
            if count % 2:
                fewest = min(byes[k] for k in keys)
                allowed.add_edges_from((-1, k) for k in keys if byes[k] == fewest)
            possible = len(nx.max_weight_matching(allowed, maxcardinality=True)) == (count + 1) // 2
            meetings = [tuple(sorted(p.entrants)) for p in this if not p.bye]
            if possible:
                assert not any(met[pair] for pair in meetings), f"a rematch in round {number} (seed {seed})"
            met.update(meetings)
            byes.update(p.entrants[0] for p in this if p.bye)
