"""A map whose ids are as long as the loader allows (64 characters) and hold ``:``: every button and menu still
fits Discord's 100-character custom ids, and a whole game is played on it by taps. And a move whose answer fails
after it was stored is still announced, and the apology says it stands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mapdraw
import pytest
from discord_helpers import OfflineDiscord, make_bot, start
from PIL import Image
from test_taps_game import Player, record_of

from cogs.shared.components import BUTTON_ID, MAX_CUSTOM_ID
from engine import load_map, parse_map
from engine.cards import WILD_CARDS
from engine.state import REINFORCE
from present.verbs import card_at, continent_at, continent_ref, ref, territory_at


def long_id(kind: str, n: int) -> str:
    return f"{kind}:{n}:".ljust(64, "x")


def long_ids_map() -> dict[str, Any]:
    """Six territories in two continents, a ring with one chord; every id 64 characters with ``:`` in it."""
    t = [long_id("territory", i) for i in range(6)]
    borders = {(i, (i + 1) % 6) for i in range(6)} | {(0, 3)}
    return {"id": "long:ids", "name": "Long Ids", "players": {"min": 2, "max": 3},
            "continents": [{"id": long_id("continent", c), "name": f"Part {c + 1}", "bonus": 2,
                            "territories": t[3 * c:3 * c + 3]} for c in range(2)],
            "territories": [{"id": t[i], "name": f"Land {i + 1}", "continent": long_id("continent", i // 3),
                             "neighbours": [t[j] for j in range(6) if (i, j) in borders or (j, i) in borders]}
                            for i in range(6)],
            "images": {"regions": "regions.png"}}


def upload(data: dict[str, Any]) -> dict[str, tuple[str, bytes]]:
    regions = Image.new("L", (1200, 400), 0)
    for i in range(len(data["territories"])):
        regions.paste(i + 1, (i * 200, 0, (i + 1) * 200, 400))
    return {"file": ("long.json", json.dumps(data).encode()), "file2": ("regions.png", mapdraw.png(regions))}


def test_numbers_read_back_to_the_ids_and_nothing_else_is_read():
    board = parse_map({k: v for k, v in long_ids_map().items() if k != "images"})
    for t in board.territory_ids:
        assert territory_at(board, ref(board, t)) == t
        assert territory_at(board, t) == t  # a component posted before numbers: its id still reads
        assert card_at(board, ref(board, t)) == t
    for c in board.continents:
        assert continent_at(board, continent_ref(board, c)) == c
    assert [card_at(board, ref(board, w)) for w in WILD_CARDS] == list(WILD_CARDS)
    for forged in ("6", "-1", "01", "1.0", " 1", "٣", "", "9" * 40, "territory:1"):
        assert territory_at(board, forged) is None, forged
    assert card_at(board, "8") is None and continent_at(board, "2") is None



def test_on_a_map_where_a_territory_has_no_card_the_numbers_still_name_the_territories():
    from test_one_way import ONE_WAY

    board = parse_map({k: v for k, v in ONE_WAY.items() if k != "missions"})
    assert board.territories["c"].card is None and len(board.wild_cards) == 5
    for t in board.territory_ids:
        assert territory_at(board, ref(board, t)) == t
    assert card_at(board, ref(board, "c")) is None   # the number of a territory without a card is no card
    assert card_at(board, ref(board, "d")) == "d"
    assert [card_at(board, ref(board, w)) for w in board.wild_cards] == list(board.wild_cards)

@pytest.mark.asyncio
async def test_a_game_on_a_map_of_long_ids_with_colons_is_played_by_taps(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="long-ids"), strict=True) as d:
        d.set_permissions("alice", manage_guild=True)
        step = await d.send_command("alice", "general", "risk map add", upload(long_ids_map()))
        assert not step.problems and "Added the map Long Ids" in step[-1].content, step[-1].content
        map_id = (await d.bot.store.list_maps(d.guild.id))[0].map_id
        await start(d, ["alice"], 1, map=map_id, deployment="auto", max_rounds=8)
        board = load_map(map_id)
        alice, played, held = Player(d, "en"), set(), None
        for _step in range(400):
            record = await record_of(d)
            if record.status != "running":
                break
            game = record.game()
            s = game.state
            if s.current == 0 and s.phase == REINFORCE and s.hands.get(0) and "trade" not in played \
                    and s.hands.get(0) != held:
                held = s.hands.get(0)  # /cards, and a trade from its buttons when a set is held
                step = alice._checked(await d.send_command("alice", "general", "cards", {}), "/cards")
                played.add("cards")
                trades = [b["label"] for b in step[-1].buttons if b["label"].startswith("Trade")]
                if trades:
                    step = await alice.tap(trades[0], step[-1])
                    plus_two = [b["label"] for m in step if m.ephemeral for b in m.buttons
                                if b["label"].startswith("+2")]
                    if plus_two:
                        await alice.tap(plus_two[0], next(m for m in step if m.ephemeral))
                    played.add("trade")
                continue
            await alice.step()
            played |= set(alice.turn)
        components = [c for m in d.messages for c in (*m.buttons, *m.selects)]
        assert components and all(len(c["custom_id"]) <= MAX_CUSTOM_ID for c in components)
        assert all(not m.content.startswith("⛔") and "went wrong" not in m.content for m in d.messages)
        # Every kind of tap was made on this map: placing, attacks (blitzes), moving in, fortifying, /cards.
        assert {"place", "attack", "move-in", "fortify", "cards"} <= played, played
        events = await d.bot.store.events(record.id)
        assert any(e["type"] == "battle" for e in events) and any(e["type"] == "fortified" for e in events)
        buttons = [b["custom_id"] for m in d.messages for b in m.buttons if b["custom_id"].startswith("risk:")]
        for custom_id in buttons:  # the ids are the territories' numbers, each one a territory of the map
            import re
            match = re.fullmatch(BUTTON_ID, custom_id)
            assert match is not None, custom_id
            assert not any(t in custom_id for t in board.territory_ids), custom_id


@pytest.mark.asyncio
async def test_a_move_whose_answer_fails_after_it_was_stored_is_announced_and_said_to_stand(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from dataclasses import replace

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="after-commit")) as d:
        await start(d, ["alice"], 1, deployment="auto")
        record = await record_of(d)
        game = record.game()
        assert game.state.current == 0 and game.state.phase == REINFORCE
        territory = game.state.territories_of(0)[0]
        before = game.state.armies[territory]

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the buttons could not be built")
        announcer = d.bot.get_cog("RiskCog").announcer   # the turn panel's buttons, as the cog handed them over
        monkeypatch.setattr(announcer, "rooms", replace(announcer.rooms, controls=broken))
        monkeypatch.setattr(announcer.live, "controls", broken)
        step = await d.send_command("alice", "general", "place", {"territory": game.board.name(territory),
                                                                  "count": 1})
        after = (await record_of(d)).game().state
        assert after.armies[territory] == before + 1  # stored
        answer = [m for m in step if m.ephemeral][-1]
        assert "it was done and stands" in answer.content and "Nothing was changed" not in answer.content
        assert "placed 1" in answer.content  # what it did
        public = [m for m in d.messages if not m.ephemeral and "placed 1" in m.content]
        assert public, "the channel hears of the move"
        stored = await d.bot.store.events(record.id)
        assert any(e["type"] == "armies_placed" for e in stored)
        monkeypatch.undo()
        # The game goes on: the next move is answered as usual.
        step = await d.send_command("alice", "general", "place", {"territory": game.board.name(territory),
                                                                  "count": 1})
        assert not any("went wrong" in m.content for m in step), [m.content for m in step]


@pytest.mark.asyncio
async def test_cards_and_their_trades_are_buttons_that_fit_and_read_back(monkeypatch: pytest.MonkeyPatch):
    import re
    from types import SimpleNamespace

    from conftest import new_game, position
    from test_taps_game import _Interaction, tap_on

    from cogs.play import buttons
    from cogs.play.moves import PlayCommands
    from cogs.shared.errors import UserError
    from engine import Trade, register_map

    board = parse_map({k: v for k, v in long_ids_map().items() if k != "images"})
    register_map(board)
    t = board.territory_ids
    game = position(new_game(2, map=board.id), {t[0]: 0, t[1]: 0, t[2]: 0}, phase=REINFORCE, seat=0)
    game.state.reinforcements = 3
    game.state.hands[0] = [t[0], t[1], "wild_1"]

    def taps_of(view: Any) -> list[tuple[str, list[str]]]:
        """Each button of a view as a tap would bring it back: its label and its arguments."""
        found = []
        for child in view.children:
            custom_id = child.item.custom_id
            assert len(custom_id) <= MAX_CUSTOM_ID, custom_id
            match = re.fullmatch(BUTTON_ID, custom_id)
            assert match is not None and match["verb"] == "trade", custom_id
            found.append((child.item.label, match["args"].split(":")[1:]))
        return found

    interaction = _Interaction()
    await PlayCommands.send_cards(SimpleNamespace(), interaction, SimpleNamespace(id=7, game=lambda: game), 0)
    text, view = interaction.response.sent[-1]
    assert "Land 1" in (text or "")
    (_label, args), *_more = taps_of(view)
    tap = tap_on(game, *args)
    await buttons.trade(tap)  # two territories of the set held: which gets the +2?
    assert not tap.cog.actions
    choices = taps_of(tap.interaction.response.sent[-1][1])
    assert [c[0] for c in choices] == ["+2 on Land 1", "+2 on Land 2"]
    tap = tap_on(game, *choices[1][1])
    await buttons.trade(tap)
    assert tap.cog.actions == [Trade(0, game.best_set(0), t[1])]
    for forged in ([args[0], ref(board, t[3])], [args[0], "99"], ["0.1.2"], ["0.1"]):
        tap = tap_on(game, *forged)
        with pytest.raises(UserError):
            await buttons.trade(tap)
        assert not tap.cog.actions, forged


@pytest.mark.asyncio
async def test_buttons_and_menus_posted_with_ids_before_numbers_still_play(tmp_path: Path):
    """Panels of running games carried territory ids before they carried numbers: a tap on one still plays, checked
    against the legal choices like any other."""
    from test_audiences import forge

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="after-commit")) as d:
        await start(d, ["alice"], 1, deployment="auto")
        record = await record_of(d)
        game = record.game()
        mine = game.state.territories_of(0)
        theirs = next(t for t in game.board.territory_ids if t not in mine)
        gid = record.id
        step = await forge(d, "alice", f"risks:{gid}:place", [mine[0]])  # an old menu of territories
        assert any(b["label"].startswith("All") for b in step[-1].buttons), step[-1].content
        assert all(":" + mine[0] not in b["custom_id"] for b in step[-1].buttons)  # its answer carries numbers
        step = await forge(d, "alice", f"risk:{gid}:put:{mine[0]}:1")  # an old count button
        assert not step.problems and (await record_of(d)).game().state.armies[mine[0]] == \
            game.state.armies[mine[0]] + 1
        step = await forge(d, "alice", f"risk:{gid}:put:{theirs}:1")  # still checked: not hers
        assert "That choice is not available now" in step[-1].content


@pytest.mark.asyncio
async def test_a_restart_whose_catch_up_cannot_build_the_panel_still_tells_the_move(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import asyncio

    from test_live_panel import to_move

    from cogs.play import panel

    db = tmp_path / "g.db"
    d = OfflineDiscord(make_bot(db, seed="crash"))
    await d.setup()
    try:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        who, record = await to_move(d)
        game = record.game()
        cog = d.bot.get_cog("RiskCog")

        async def stopped(*args: Any, **kwargs: Any) -> None:  # the bot stops before it tells the channel
            raise asyncio.CancelledError
        cog.announcer.publish = stopped
        territory = game.board.name(game.state.territories_of(game.state.current)[0])
        await d.send_command(who, "general", "place", {"territory": territory, "count": 1})

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the buttons could not be built")
        monkeypatch.setattr(panel, "controls", broken)  # the buttons the restarted cog hands its announcer
        before = len(d.messages)
        d = await d.restart(make_bot(db, seed="crash"))
        told = [m.content for m in d.messages[before:] if not m.ephemeral]
        assert any("While the bot was away" in text and territory in text for text in told), told
        assert await d.bot.store.unannounced() == []
    finally:
        await d.close()


@pytest.mark.asyncio
@pytest.mark.parametrize(("changed", "words"), [
    (True, "while telling what happened: it was done and stands.\nalice placed 3 armies on Peru."),
    (False, ". Nothing was changed."),
    (None, ")."),  # whether anything was stored is not known: neither is claimed
])
async def test_the_apology_for_an_error_says_only_what_is_true(changed: bool | None, words: str):
    from types import SimpleNamespace

    from cogs.shared.errors import CHANGED, DONE, handle_error

    sent: list[str] = []

    class Response:
        def is_done(self) -> bool:
            return False

        async def send_message(self, text: str, **options: Any) -> None:
            sent.append(text)

    extras: dict[str, Any] = {} if changed is None else {CHANGED: changed, DONE: "alice placed 3 armies on Peru."}
    interaction = SimpleNamespace(extras=extras, locale="en-US", data={}, user=None, channel_id=1, id=1,
                                  type=SimpleNamespace(value=3), response=Response())  # a component's tap
    await handle_error(interaction, RuntimeError("a part of the answer failed"))  # type: ignore[arg-type]
    assert sent[0].startswith("Sorry, something went wrong on my side (error ")
    assert sent[0].endswith(words), sent
    assert ("Nothing was changed" in sent[0]) is (changed is False)


@pytest.mark.asyncio
async def test_a_start_whose_announcement_fails_is_still_told_and_said_to_stand(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from discord_helpers import open_lobby

    from cogs.shared.announcer import Announcer

    async def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the start could not be announced")
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="start")) as d:
        await open_lobby(d, "alice", deployment="auto")
        await d.send_command("alice", "general", "risk addbot", {})
        monkeypatch.setattr(Announcer, "_announce_first", broken)
        step = await d.send_command("alice", "general", "risk start", {})
        assert (await record_of(d)).status == "running"
        answer = [m for m in step if m.ephemeral][-1]
        assert "it was done and stands" in answer.content and "The game begins!" in answer.content
        assert any("The game begins!" in m.content for m in d.messages if not m.ephemeral)  # the channel's
