"""Tournaments of fixed teams: a player makes a team by naming it and invites its other players, who join it by
its name (nobody joins by the name alone), a team is complete at the spec's team size, the start waits for every
team; each table's game is a team game with the teams' players seated in turn, and the team's place is its
players' place."""

from __future__ import annotations

import pytest

from competition import Spec
from store import StoreError, open_store
from table import Clock
from table.tournaments import entry_spec, team_format, view_standings
from tests.test_tournament_flow import CHANNEL, GAME, GUILD, HOST, Threads, desk_on, play_out


async def team_desk(tmp_path):
    clock = Clock(lambda: 1_000_000.0)
    store = await open_store(tmp_path / "t.sqlite3", clock=clock)
    desk, scheduler = desk_on(store, clock, Threads())
    return store, clock, desk, scheduler


async def join_teams(desk, tid: int, teams: dict[str, list[int]]) -> None:
    for name, members in teams.items():
        for user in members:
            if user != members[0]:   # the team's creator invites the others
                await desk.invite(tid, members[0], user)
            await desk.join(tid, user, f"p{user}", team=name)


def test_the_games_teams_follow_the_tables_teams():
    assert [team_format(2, 2), team_format(2, 3), team_format(3, 2)] == ["2v2", "3v3", "2v2v2"]


async def test_players_join_a_team_by_its_name_until_it_is_complete_and_leaving_frees_it(tmp_path):
    store, _clock, desk, _scheduler = await team_desk(tmp_path)
    created = await desk.create(GUILD, CHANNEL, HOST, "Pairs", Spec("swiss", team_size=2, rounds=1), {"game": GAME})
    tid = created.record.id
    assert created.record.settings["game"]["teams"] == "2v2"
    with pytest.raises(StoreError, match="name of your team"):
        await desk.join(tid, 101, "Ann")
    first = await desk.join(tid, 101, "Ann", team="  The  Owls ")
    assert first.team is not None and first.team.name == "The Owls" and len(first.team.members) == 1
    assert first.team.creator == 101
    with pytest.raises(StoreError, match="takes only the players its creator invites"):
        await desk.join(tid, 102, "Bob", team="  THEOWLS ")   # a name alone, however written, joins nothing
    with pytest.raises(StoreError, match="Only a team's creator invites"):
        await desk.invite(tid, 102, 104)
    await desk.invite(tid, 101, 102)
    second = await desk.join(tid, 102, "Bob", team="the owls")  # the same team, whatever the case and spaces
    assert second.team is not None and second.team.number == first.team.number and len(second.team.members) == 2
    with pytest.raises(StoreError, match="The Owls is complete"):
        await desk.invite(tid, 101, 103)
    with pytest.raises(StoreError, match="The Owls is complete"):
        await desk.join(tid, 103, "Cat", team="THE OWLS")
    with pytest.raises(StoreError, match="Only the tournament's host, or a team's creator"):
        await desk.remove(tid, 102, 101)   # a player is not their team's creator
    await desk.remove(tid, 101, 102)   # the creator removes a player of their team
    assert [len(t.members) for t in (await store.tournament_view(tid)).teams] == [1]
    await desk.invite(tid, 101, 102)
    await desk.join(tid, 102, "Bob", team="The Owls")
    await desk.join(tid, 103, "Cat", team="Foxes")
    with pytest.raises(StoreError, match="Only the tournament's host, or a team's creator"):
        await desk.remove(tid, 103, 102)   # another team's creator
    with pytest.raises(StoreError, match="Foxes has 1 of its 2 players"):
        await desk.start(tid)
    await desk.leave(tid, 103)  # the team's last player: the team is no more
    view = await store.tournament_view(tid)
    assert [t.name for t in view.teams] == ["The Owls"]
    single = await desk.create(GUILD, CHANNEL + 1, HOST, "Solo", Spec("swiss"), {"game": {**GAME, "teams": "2v2"}})
    assert single.record.settings["game"]["teams"] == "none"  # single players: never a team game
    with pytest.raises(StoreError, match="without a team"):
        await desk.join(single.record.id, 101, "Ann", team="Owls")
    await store.close()


async def test_a_check_in_leaves_out_a_team_not_complete_or_not_all_checked_in(tmp_path):
    store, clock, desk, scheduler = await team_desk(tmp_path)
    created = await desk.create(GUILD, CHANNEL, HOST, "Pairs", Spec("swiss", team_size=2, rounds=1),
                                {"game": GAME, "checkin": 600})
    tid = created.record.id
    await join_teams(desk, tid, {"A": [101, 102], "B": [103, 104], "C": [105, 106], "D": [107]})
    await desk.start(tid)  # the check-in opens
    for user in (101, 102, 103, 104, 105, 107):
        await desk.check_in(tid, user)
    clock.advance(601)
    await scheduler.run_due()
    view = await store.tournament_view(tid)
    assert view.record.status == "running"
    seated = {key for p in view.pairings for key in p.pairing.entrants}
    numbers = {t.name: t.number for t in view.teams}
    assert seated == {numbers["A"], numbers["B"]}  # C: one of them did not check in; D: incomplete
    await store.close()


@pytest.mark.parametrize(("spec", "teams"), [
    (Spec("swiss", team_size=2, rounds=2), {"A": [101, 102], "B": [103, 104], "C": [105, 106], "D": [107, 108]}),
    (Spec("round_robin", table_size=3, team_size=2), {"A": [101, 102], "B": [103, 104], "C": [105, 106]}),
])
async def test_a_whole_team_tournament_is_played_in_team_games_and_ranked_by_team(tmp_path, spec, teams):
    store, clock, desk, scheduler = await team_desk(tmp_path)
    created = await desk.create(GUILD, CHANNEL, HOST, "Teams", spec, {"game": GAME})
    tid = created.record.id
    await join_teams(desk, tid, teams)
    await desk.start(tid)
    await play_out(desk, scheduler, clock, tid)
    view = await store.tournament_view(tid)
    assert view.record.status == "finished"
    number = {t.name: t.number for t in view.teams}
    team_of = {user: number[name] for name, members in teams.items() for user in members}
    games = [p for p in view.pairings if not p.pairing.bye]
    assert games and len(view.results) == len(games)
    for p in games:
        record = await store.get_game(p.game_id or 0)
        state = record.game().state
        assert state.settings.teams == team_format(len(p.pairing.entrants), spec.team_size)
        # the engine's teams are the tournament's: teammates share a side, each team at the table in full
        sides: dict[int, set[int]] = {}
        for player in record.players:
            assert player.user_id is not None
            sides.setdefault(state.teams[player.seat], set()).add(team_of[player.user_id])
        assert all(len(keys) == 1 for keys in sides.values())
        assert {k for keys in sides.values() for k in keys} == set(p.pairing.entrants)
        # the table's result places the teams, each at its players' place
        result = next(r for r in view.results if (r.round, r.table) == (p.pairing.round, p.pairing.table))
        placements = {r.seat: r.placement for r in await store.results(record.id)}
        for key, place in result.places:
            assert {placements[pl.seat] for pl in record.players if team_of[pl.user_id or 0] == key} == {place}
    standings = view_standings(view)
    assert sorted(s.key for s in standings) == sorted(number.values())
    assert standings[0].rank == 1 and sum(s.played for s in standings) == sum(len(p.pairing.entrants) for p in games)
    await store.close()


async def test_the_teams_are_stored_on_both_backends(store):
    """The store's part, on SQLite and PostgreSQL: teams made by name, numbered, their players in the order they
    joined; the entrants the competition pairs are the teams, at their players' mean rating."""
    created = await store.create_tournament(GUILD, CHANNEL, HOST, "Trios", entry_spec("swiss", 2, 1, team_size=3),
                                            {"game": GAME})
    tid = created.id
    for user, team, rating in ((1, "Red", 1000.0), (2, "Blue", 1200.0), (3, "red", 1100.0), (4, "RED", 1200.0)):
        if user in (3, 4):
            await store.invite_to_team(tid, 1, user)
        await store.join_tournament(tid, user, f"p{user}", rating, team)
    with pytest.raises(StoreError, match="complete"):
        await store.join_tournament(tid, 5, "p5", 1000.0, "Red")
    await store.leave_tournament(tid, 2)
    for user in (5, 6, 7):
        if user != 5:
            await store.invite_to_team(tid, 5, user)
        await store.join_tournament(tid, user, f"p{user}", 1000.0, "Green")
    view = await store.tournament_view(tid)
    assert [(t.name, [m.user_id for m in t.members]) for t in view.teams] == [("Red", [1, 3, 4]),
                                                                              ("Green", [5, 6, 7])]
    red, green = view.teams
    assert green.number > red.number and view.team_of(6) == green
    assert [(e.key, e.rating, e.name) for e in view.players()] == [(red.number, 1100.0, "Red"),
                                                                   (green.number, 1000.0, "Green")]
    started = await store.start_tournament(tid)
    (pairing,) = started.pairing_list()
    assert sorted(pairing.entrants) == sorted([red.number, green.number])
    seats = started.seats(pairing)  # the teams in turn, each team's players in the order they joined
    first, second = pairing.entrants
    assert [s.entrant for s in seats] == [first, second] * 3
    assert [s.user_id for s in seats if s.entrant == red.number] == [1, 3, 4]
    assert [s.user_id for s in seats if s.entrant == green.number] == [5, 6, 7]


async def test_a_team_forfeits_only_when_the_ai_replaced_all_its_players(tmp_path):
    store, clock, desk, scheduler = await team_desk(tmp_path)
    created = await desk.create(GUILD, CHANNEL, HOST, "Pairs", Spec("swiss", team_size=2, rounds=1), {"game": GAME})
    tid = created.record.id
    await join_teams(desk, tid, {"A": [101, 102], "B": [103, 104], "C": [105, 106], "D": [107, 108]})
    await desk.start(tid)
    # B's players never play; of D, one does
    await play_out(desk, scheduler, clock, tid, absent=frozenset({103, 104, 108}))
    view = await store.tournament_view(tid)
    number = {t.name: t.number for t in view.teams}
    forfeits = {key for r in view.results for key in r.forfeits}
    assert number["B"] in forfeits and number["D"] not in forfeits
    assert {s.key: s.forfeits for s in view_standings(view)}[number["B"]] == 1
    await store.close()
