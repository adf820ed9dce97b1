"""The event types: one ``TypedDict`` each in ``engine/events.py``, as ``docs/events.md`` documents them, and the
JSON of a game's log exactly as the engine wrote it before the events were typed."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest

from engine import Game
from engine.events import EVENT_CLASSES, EVENT_TYPES, Event, EventType, HiddenEvent, View, type_of
from engine.fog import events_for
from engine.log import dumps, iter_log
from engine.simulate import play_game
from present.text import describe

DOCS = Path(__file__).resolve().parent.parent / "docs" / "events.md"

# Games played by AIs from fixed seeds. The digests are of the JSON the engine wrote for them before events had
# types (its log, and the views of every audience halfway through): typing them changed no byte. The two fog
# games were played again when the AIs came to decide on what their seat may know (before, they read the whole
# board under fog): before "c5f4029fe4289532" (teams-fog, 676 events) and "82dbc5a634175881" (fog-claim, 659).
# Every game with an `easy` seat was played again when `easy` came to play for a continent (its choices changed,
# not the engine's JSON: the game of `random` seats alone kept its digests); before: classic 765 events
# "ef6a5904a0e0d9dc", two-players 543 "b8b70e7e1b993eaf", missions 1016 "86f724850b8d9554", capitals 433
# "29c0e9639f4a564a", teams-fog 644 "67ed906d3d17f9da", fog-claim 596 "b16f26f09f68608e".
GAMES: dict[str, tuple[list[str], dict[str, str], int, str, str]] = {
    "classic": (["easy", "normal", "easy"], {}, 623, "4f8d31d24725cf76", "ef9d98ec438b7006"),
    "two-players": (["normal", "easy"], {}, 612, "a6bb6c66515140ef", "56310000405be41e"),
    "missions": (["normal", "easy", "easy", "normal"], {"mode": "missions"}, 1501, "ff613351b06450c1",
                 "3d9c3024c33aca1e"),
    "capitals": (["easy", "normal", "easy"], {"mode": "capitals"}, 796, "a43a6874f4a173f8", "c1ad0c84bbac76f1"),
    "teams-fog": (["normal", "easy", "easy", "normal"], {"teams": "2v2", "fog": "on"}, 1632, "24278dbc1e80030e",
                  "185412a31cc96bf3"),
    "random-unlimited": (["random", "random", "random"], {"deployment": "auto", "fortify": "unlimited"}, 2977,
                         "638bd782e5d873a0", "7d63a7a118e464f0"),
    "fog-claim": (["easy", "random", "normal"], {"fog": "on", "deployment": "claim"}, 828, "f3df4a5afa8446b5",
                  "6842ba0bc17aaf29"),
}
CLASS_OF = {type_of(c): c for c in EVENT_CLASSES}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def documented_types() -> list[str]:
    """The types in the table of docs/events.md, in its order."""
    table = DOCS.read_text(encoding="utf-8").split("## Types", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.MULTILINE)


def test_the_docs_and_the_module_name_the_same_event_types_in_the_same_order():
    assert documented_types() == list(EVENT_TYPES)
    assert list(get_args(EventType)) == [type_of(c) for c in get_args(Event)]
    assert all(c.__doc__ and "\n" not in c.__doc__.strip() for c in EVENT_CLASSES)  # one line each


def test_every_event_type_is_reduced():
    from engine import state

    assert set(EVENT_TYPES) == state.EVENT_TYPES


def test_every_field_of_an_event_type_is_documented_in_its_row():
    table = DOCS.read_text(encoding="utf-8").split("## Types", 1)[1].split("\n## ", 1)[0]
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `([a-z_]+)` \|(.*)$", table, flags=re.MULTILINE)}
    # The column itself; the counters of randomness, documented for every event above the table; a field read
    # when present that no game writes.
    undocumented = {"type", "roll_index", "rolls", "draws", "first_seat"}
    for cls in EVENT_CLASSES:
        named = set(re.findall(r"`([a-z_]+)`", rows[type_of(cls)]))
        keys = (cls.__required_keys__ | cls.__optional_keys__) - undocumented
        assert keys <= named, (type_of(cls), keys - named)


def keys_fit(event: dict[str, Any], cls: type[Any]) -> bool:
    return cls.__required_keys__ <= event.keys() <= cls.__required_keys__ | cls.__optional_keys__


@pytest.mark.parametrize("name", GAMES)
def test_a_whole_games_events_are_the_json_they_always_were(name):
    levels, settings, count, log_digest, views_digest = GAMES[name]
    events = play_game(levels, f"events-roundtrip:{name}", settings).events
    assert events[-1]["type"] == "game_over" and len(events) == count
    text = dumps(events)
    assert digest(text) == log_digest
    assert list(iter_log(text.splitlines())) == events            # and they read back the same
    for event in events:
        assert keys_fit(dict(event), CLASS_OF[event["type"]]), event
        assert json.loads(json.dumps(event)) == event
    half = events[: len(events) // 2]
    views = [events_for(half, audience) for audience in [None, *range(len(levels))]]
    assert digest("".join(dumps(v) for v in views)) == views_digest
    for view in (e for v in views for e in v):
        assert_view_fits(view)


def assert_view_fits(view: View) -> None:
    """A view is a hidden event, or an event with its type's keys (fewer under fog, counts of hidden cards)."""
    if view.get("hidden"):
        assert view.keys() <= HiddenEvent.__required_keys__ | HiddenEvent.__optional_keys__
        return
    cls = CLASS_OF[view["type"]]
    keys = {k for k in view if not k.endswith("_count")}
    assert keys <= cls.__required_keys__ | cls.__optional_keys__, view


# The lines the channel and each player read of the same games (a third of the way, halfway, at the end; every
# audience, in two languages), as the text module wrote them before it matched on the typed events. Since then
# one change only: in teams-fog, the 44 lines of a fortify move into a teammate's territory say whose the armies
# are now (before: "81be207827b86425"; the same count of lines, the others byte for byte). The fog games were
# played again when the AIs stopped reading the board out of their sight (before: teams-fog 7210 lines
# "4d97a0bf3751b18d", fog-claim 5290 "cfed84939c22ee73"), and every game with an `easy` seat again when `easy`'s
# play changed (before: classic 7504 lines "996f9f14606c8a35", two-players 4674 "c2e776d0a17bf833", missions
# 13160 "cca1660ffa4f7b40", capitals 3720 "1637d161c6120152", teams-fog 6642 "62d89b9408a0b27d", fog-claim 4686
# "e2817c3c14b9a73c"; random-unlimited, without `easy`, is unchanged). Then the lines of a played turn all
# took the past tense ("drew a card", "lost 2", "got 3 armies"; the same counts, before: classic "10a960317b3aeb0f",
# two-players "3d40dc6f18611923", missions "6ecb56862872be30", capitals "814ab781729e289b", teams-fog
# "ef7d8ae524789dee", random-unlimited "0cb02d381a9ca48e", fog-claim "775d39f8fa6865da").
LINES = {"classic": (5848, "6d1200a3b3a0e983"), "two-players": (5376, "42a2f4abeccf22d0"),
         "missions": (20230, "1e807cad328de053"), "capitals": (7720, "391435b6de306a56"),
         "teams-fog": (20028, "268bae236dcd01dd"), "random-unlimited": (35570, "3a1953b60f3664f8"),
         "fog-claim": (6918, "4dac24ec9b504e41")}


@pytest.mark.parametrize("name", GAMES)
def test_every_audience_reads_the_same_lines_of_a_whole_game_as_before(name):
    levels, settings, *_ = GAMES[name]
    events = play_game(levels, f"events-roundtrip:{name}", settings).events
    board = Game.from_events(events).board
    lines: list[str] = []
    for cut in (len(events) // 3, len(events) // 2, len(events)):
        state = Game.from_events(events[:cut]).state
        for audience in [None, *range(len(levels))]:
            for locale in ("en-GB", "es-ES"):
                lines += describe(events_for(events[:cut], audience), state, board, locale,
                                  include_setup=audience == 0)
    assert (len(lines), digest("\n".join(lines))) == LINES[name]


# -- the lines of an AI's turn, and of a fortify move in a team game --------------------------------------------------
def ai_trades_then_places():
    """Seat 0 (an AI) trades three infantry cards, one showing a territory it holds, and places what they gave."""
    from conftest import new_game, position

    from engine import Place, Trade
    from engine.state import REINFORCE

    game = new_game(3, seed="ai-lines")
    position(game, {"alaska": 0, "peru": 0, "brazil": 0}, {"alaska": 3}, phase=REINFORCE)
    s = game.state
    s.reinforcements = 3
    infantry = [t for t in game.board.territory_ids if game.card_symbol(t) == "infantry"]
    cards = ["alaska" if "alaska" in infantry else infantry[0],
             *[t for t in infantry if t != "alaska"][:2]]
    s.hands[0] = list(cards)
    s.deck = [c for c in s.deck if c not in cards]
    before = s.copy()
    events = game.apply(Trade(0, tuple(cards)))
    events += game.apply(Place(0, "alaska", s.reinforcements))
    return game, before, events


def test_an_ai_turn_tells_the_trade_before_the_placements_it_paid_for():
    game, _before, events = ai_trades_then_places()
    assert events[0]["type"] == "cards_traded"
    placed = sum(e["count"] for e in events if e["type"] == "armies_placed")
    lines = describe(events, game.state, game.board, "en", sum_placements=True)
    assert len(lines) == 2 and " traded " in lines[0]
    assert lines[1] == f"P1 placed {placed} armies."            # the card bonus and the reinforcements together
    # Without the summing (a player's own answer), every placement is a line, in the same order.
    each = describe(events, game.state, game.board, "en")
    assert " traded " in each[0] and each[1].startswith("+2 card bonus") and each[2].startswith("P1 placed")


def test_the_announcer_tells_an_ai_turn_in_the_order_it_was_played():
    from types import SimpleNamespace

    from cogs.shared.announcer import Announcer
    from engine.fog import EVERYBODY
    from table import Part
    from table.outcome import AI

    game, before, events = ai_trades_then_places()
    part = Part(seat=0, by=AI, turn=game.state.turn, before=before, after=game.state, events=events)
    announcer = object.__new__(Announcer)   # part_lines needs no bot, store or table
    lines = announcer.part_lines(SimpleNamespace(notes=[], parts=[part]), part, EVERYBODY, "en")  # type: ignore[arg-type]
    assert lines[0].startswith("🤖 P1 played turn")
    assert " traded " in lines[1] and lines[2].startswith("P1 placed ") and len(lines) == 3


def team_fortify(into_teammate: bool):
    from conftest import position

    from engine import Fortify, Player
    from engine.state import FORTIFY

    game, _ = Game.new([Player(i, f"P{i + 1}") for i in range(4)], "team-lines", {"teams": "2v2",
                                                                                  "deployment": "auto"})
    mate = game.teammates(0)[0]
    position(game, {"alaska": 0, "northwest_territory": mate if into_teammate else 0}, {"alaska": 5},
             phase=FORTIFY)
    return game, mate, game.apply(Fortify(0, "alaska", "northwest_territory", 3))


@pytest.mark.parametrize(("locale", "words"), [
    ("en", "P1 moved 3 armies from {source} to {target}: they belong to {mate} now."),
    ("nb", "P1 flyttet 3 hærer fra {source} til {target}: de tilhører {mate} nå."),
    ("es", "P1 movió 3 ejércitos de {source} a {target}: ahora son de {mate}."),
])
def test_a_fortify_move_into_a_teammates_territory_says_whose_the_armies_are_now(locale, words):
    from present.i18n import territory_name

    game, mate, events = team_fortify(into_teammate=True)
    board = game.board
    moved = [e for e in events if e["type"] == "fortified"]
    assert describe(moved, game.state, board, locale) == [words.format(
        source=territory_name(board, "alaska", locale), target=territory_name(board, "northwest_territory", locale),
        mate=f"P{mate + 1}")]


def test_a_fortify_move_into_your_own_territory_reads_as_before():
    game, _mate, events = team_fortify(into_teammate=False)
    moved = [e for e in events if e["type"] == "fortified"]
    assert describe(moved, game.state, game.board, "en") == ["P1 moved 3 from Alaska to Northwest Territory."]


def test_whose_the_armies_are_is_told_as_it_was_then_not_as_it_is_now():
    from engine.state import NEUTRAL

    game, mate, events = team_fortify(into_teammate=True)
    later = next(e for e in events if e["type"] == "fortified")
    # The teammate's territory is conquered later in the log: the line still says it was the teammate's.
    conquest = {"type": "territory_conquered", "seat": 1, "from": "alberta", "to": "northwest_territory",
                "defender": mate, "min_move": 1}
    state = game.state.copy()
    state.owners["northwest_territory"] = 1
    line = describe([later, conquest], state, game.board, "en")[0]
    assert line.endswith(f"they belong to P{mate + 1} now.")
    # A surrender since may have turned it neutral unseen: then the line does not say whose they are.
    state.owners["northwest_territory"] = NEUTRAL
    surrender = {"type": "player_surrendered", "seat": mate}
    assert describe([later, surrender], state, game.board, "en")[0] == \
        "P1 moved 3 from Alaska to Northwest Territory."
