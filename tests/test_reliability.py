"""A player's reliability: worked out from their last finished games on the server, shown in the lobby beside
their name, and a lobby's ``min_reliability`` refusing a player below it, through the real command tree."""

from __future__ import annotations

from pathlib import Path

from discord_helpers import OfflineDiscord, make_bot, open_lobby
from test_results import ALICE, BOB, CAROL, GUILD, new_game, play, store  # noqa: F401 (the fixture)

from engine import Surrender
from ratings import EARLY_TURNS
from store.results import (
    RELIABILITY_GAMES,
    RELIABLE_GAMES,
    Reliability,
    below_minimum,
    reliability_of,
)
from table.play import apply_action


def test_the_figure_is_turns_on_time_times_games_finished():
    # Ten games, one abandoned to the AI; 40 turns due, 36 of them on time: 0.9 × 0.9.
    rows = [(4, 0, 0, 1, False, 4, 0)] * 8 + [(4, 4, 4, 2, True, 4, 0), (4, 0, 0, 1, False, 4, 0)]
    figure = reliability_of(rows, EARLY_TURNS)
    assert figure == Reliability(games=10, abandoned=1, turns=40, on_time=36)
    assert figure.percent == 81 and not figure.reliable and not figure.new
    assert Reliability().percent is None and Reliability().new
    assert Reliability(games=RELIABLE_GAMES, turns=9, on_time=9).reliable
    assert not Reliability(games=RELIABLE_GAMES - 1, turns=9, on_time=9).reliable   # too few games: new


def test_leaving_early_is_an_abandon_but_standing_at_a_short_round_limit_is_not():
    surrendered = (1, 0, 0, 2, False, 1, 0)      # lost on their first turn, no round limit
    kicked = (0, 0, 0, 3, False, 9, 0)           # out before any turn
    at_limit = (2, 0, 0, 2, False, 2, 2)         # still playing when a two-round game ended
    out_before_limit = (1, 0, 0, 3, False, 5, 5)  # went out in the first round of a five-round game
    assert reliability_of([surrendered], EARLY_TURNS).abandoned == 1
    assert reliability_of([kicked], EARLY_TURNS) == Reliability(games=1, abandoned=1, turns=0, on_time=0)
    assert reliability_of([kicked], EARLY_TURNS).percent == 0
    assert reliability_of([at_limit], EARLY_TURNS).abandoned == 0
    assert reliability_of([out_before_limit], EARLY_TURNS).abandoned == 1
    # The turns the AI played after it took a seat over are the abandon's, not missed turns.
    assert reliability_of([(10, 7, 3, 2, True, 10, 0)], EARLY_TURNS) == Reliability(1, 1, 6, 3)


def test_a_player_with_no_game_may_join_any_lobby_and_one_below_the_minimum_is_refused():
    assert below_minimum(Reliability(), 100) is None
    assert below_minimum(Reliability(1, 1, 1, 1), 0) is None
    refusal = below_minimum(Reliability(games=2, abandoned=1, turns=4, on_time=4), 60)
    assert refusal is not None and "50%" in str(refusal) and "60%" in str(refusal)
    assert "games counted: 2" in str(refusal)


async def test_reliability_counts_the_last_games_on_the_server_only(store):  # noqa: F811
    for n in range(2):  # Bob surrenders on his first turn: two abandons
        record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed=f"leave-{n}")
        bob = record.seat_of(BOB)
        record = await play(store, record, until=lambda s, bob=bob: s.current == bob)
        assert (await apply_action(store, record.id, Surrender(bob))).record.status == "finished"
    record = await play(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed="full", max_rounds=4))
    assert record.status == "finished"
    figures = await store.reliability(GUILD, [ALICE, BOB, CAROL], early_turns=EARLY_TURNS)
    assert figures[CAROL] == Reliability()
    assert figures[ALICE].games == 3 and figures[ALICE].abandoned == 0 and figures[ALICE].percent == 100
    assert figures[BOB].games == 3 and figures[BOB].abandoned == 2 and figures[BOB].percent == 33
    early = EARLY_TURNS
    assert (await store.reliability(GUILD + 1, [BOB], early_turns=early))[BOB] == Reliability()  # another server's
    assert await store.reliability(None, [BOB], early_turns=early) == {BOB: Reliability()}  # a direct message: none


async def _finished_games(d: OfflineDiscord, good: str, bad: str, count: int) -> None:
    """``count`` games in #records: ``good`` plays them through (a four-round limit), ``bad`` surrenders on
    their first turn of each."""
    kept, guild, channel = d.bot.store, d.server.guild_id, d.channel("records").id
    good_id, bad_id = d.user(good).id, d.user(bad).id
    for n in range(count):
        record = await new_game(kept, [(good_id, good), (bad_id, bad)], guild=guild, channel=channel,
                                seed=f"records-{n}", max_rounds=4)
        seat = record.seat_of(bad_id)
        record = await play(kept, record, until=lambda s, seat=seat: s.current == seat and s.round > 1)
        if record.status == "running":
            record = (await apply_action(kept, record.id, Surrender(seat))).record
        assert record.status == "finished"


async def test_the_lobby_shows_each_players_reliability_and_refuses_one_below_its_minimum(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await _finished_games(d, "alice", "*bob*", RELIABLE_GAMES)
        figures = await d.bot.store.reliability(d.server.guild_id, [d.user("alice").id, d.user("*bob*").id],
                                                early_turns=EARLY_TURNS)
        assert figures[d.user("alice").id].reliable and figures[d.user("*bob*").id].percent == 0

        step = await d.send_command("alice", "general", "risk new", {"min_reliability": 50})
        assert not step.problems, step.problems
        seats = str(step[0].embeds)
        assert "alice 👑 · 100% ✅" in seats
        lobby = step[0]
        game = (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]
        assert game.settings["min_reliability"] == 50

        # Bob's figure is below the minimum: refused, by command and by the Join button, with both figures.
        for refused in (await d.send_command("*bob*", "general", "risk join", {}),
                        await d.click("*bob*", "Join", message=lobby)):
            assert refused[0].ephemeral and refused[0].content.startswith("⛔"), refused[0].content
            assert "0%" in refused[0].content and "50%" in refused[0].content
            assert f"games counted: {RELIABLE_GAMES}" in refused[0].content
        after = await d.bot.store.get_game(game.id)
        assert [p.user_id for p in after.players] == [d.user("alice").id] and after.version == game.version

        # A player with no game here is new, and joins; a name with markdown stays escaped.
        step = await d.send_command("__carol__", "general", "risk join", {})
        assert not step.problems, step.problems
        seats = str(step[0].embeds)
        assert "\\\\_\\\\_carol\\\\_\\\\_ · new" in seats and "__carol__" not in seats
        assert "alice 👑 · 100% ✅" in seats


async def test_a_lobby_without_a_minimum_seats_anyone_and_shows_their_figure(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await _finished_games(d, "alice", "*bob*", 2)
        await open_lobby(d)
        step = await d.send_command("*bob*", "general", "risk join", {})
        assert not step.problems, step.problems
        seats = str(step[0].embeds)
        assert "\\\\*bob\\\\* · 0%" in seats and "alice 👑 · 100%" in seats and "✅" not in seats  # two games: no badge


async def test_only_the_last_twenty_games_count(store):  # noqa: F811
    record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed="first")
    bob = record.seat_of(BOB)
    record = await play(store, record, until=lambda s: s.current == bob)
    assert (await apply_action(store, record.id, Surrender(bob))).record.status == "finished"   # an abandon
    for n in range(RELIABILITY_GAMES):
        record = await play(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed=f"short-{n}",
                                                  max_rounds=1))
        assert record.status == "finished"
        figure = (await store.reliability(GUILD, [BOB], early_turns=EARLY_TURNS))[BOB]
        assert figure.games == min(n + 2, RELIABILITY_GAMES)
        assert figure.abandoned == (0 if n == RELIABILITY_GAMES - 1 else 1)   # the first game falls out at last
    assert figure.percent == 100 and figure.reliable


async def test_the_lobby_words_reliability_in_the_games_language(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await _finished_games(d, "alice", "bob", 1)
        await open_lobby(d, language="nb", min_reliability=90)
        step = await d.send_command("carol", "general", "risk join", {})
        seats = "\n".join(field["value"] for field in step[0].embeds[0]["fields"])
        assert "alice 👑 · 100\xa0%" in seats and "carol · ny" in seats   # 100 % as Norwegian writes it
        assert "Minste pålitelighet for å bli med: **90\xa0%**" in seats
