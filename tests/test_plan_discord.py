"""Plan my turn through the offline Discord: standing orders built by taps, in private, kept, shown, changed and
cancelled; a plan of placing all on one territory, three attacks with a stop, a fortify and the end in at most
12 taps."""

from __future__ import annotations

from pathlib import Path

from discord_helpers import OfflineDiscord, make_bot
from test_discord import game_of, start_vs_ai

from store import SQLiteStore


async def stored_orders(db: Path, game_id: int, seat: int):
    store = SQLiteStore(db)
    await store.open()
    try:
        return await store.standing_orders(game_id, seat)
    finally:
        await store.close()


async def choose_in(d: OfflineDiscord, user: str, placeholder: str):
    """Choose the first option of the menu ``placeholder`` names, on the newest private message of ``user``."""
    menu = newest_private(d, user)
    select = next(s for s in menu.selects if placeholder in (s.get("placeholder") or ""))
    return await d.select(user, select["options"][0]["value"], message=menu, custom_id=select["custom_id"])


def newest_private(d: OfflineDiscord, user: str):
    who = d.user(user).id
    return next(m for m in reversed(d.messages) if m.ephemeral and getattr(m, "recipient_id", who) == who
                and (m.selects or m.buttons))


async def test_a_plan_of_a_whole_turn_in_at_most_twelve_taps_seen_only_by_its_player(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="plan")) as d:
        await start_vs_ai(d, deployment="auto", fog="off")
        record = await game_of(db, d.channel("general").id)
        public_before = len([m for m in d.messages if not m.ephemeral])
        taps = 0
        step = await d.send_command("alice", "general", "plan", {})
        taps += 1
        assert step[0].ephemeral and step[0].selects
        place = step[0].selects[0]["options"][1]["value"]   # a territory (the first option is "my front")
        step = await d.select("alice", place)
        taps += 1
        for _ in range(3):
            await choose_in(d, "alice", "Attack")
            taps += 1
            step = await d.click("alice", "At 3 armies", message=newest_private(d, "alice"))
            taps += 1
        await choose_in(d, "alice", "Fortify")
        taps += 1
        step = await d.click("alice", "Then end my turn", message=newest_private(d, "alice"))
        taps += 1
        assert taps <= 12
        summary = newest_private(d, "alice")
        assert "Your plan for your next turn" in summary.content and summary.content.count("• Attack") == 3
        kept = await stored_orders(db, record.id, 0)
        assert kept is not None and len(kept.orders["attacks"]) == 3 and kept.orders["fortify"] is not None
        assert kept.orders["end"] and all(a["stop_at"] == 3 for a in kept.orders["attacks"])
        # Nothing of it reached the channel: every message of the flow was private.
        assert len([m for m in d.messages if not m.ephemeral]) == public_before
        # /plan shows it again; Cancel takes it back.
        step = await d.send_command("alice", "general", "plan", {})
        assert step[0].ephemeral and "Your plan for your next turn" in step[0].content
        step = await d.click("alice", "Cancel the plan", message=step[0])
        assert await stored_orders(db, record.id, 0) is None


def test_a_draft_reads_back_only_as_a_flow_wrote_it():
    from cogs.play.plan import Draft
    from cogs.shared.errors import UserError
    from engine import Game
    from engine.orders import FRONT

    game, _ = Game.new(["Ann", "Bo"], "draft", {"deployment": "auto"})
    draft = Draft(FRONT, [("alaska", "kamchatka", "k2", "o60"), ("kamchatka", "japan", "a", "")],
                  None)
    assert Draft.decode(game, draft.encode(game)) == draft
    assert draft.pending == ("kamchatka", "japan", "a", "")
    for forged in ("p9999", "pf_pf", "a0.1.a.s4", "a0.1.x", "f0.1_a0.1.a.s3", "a0.1.a_a1.2.a.s3", "zz", ""):
        try:
            Draft.decode(game, forged)
        except UserError:
            continue
        raise AssertionError(forged)


async def test_plan_my_turn_on_the_panel_is_for_any_player_and_private(tmp_path: Path):
    from discord_helpers import open_lobby

    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="plan-panel")) as d:
        await open_lobby(d, deployment="auto")
        await d.send_command("bob", "general", "risk join", {})
        await d.send_command("alice", "general", "risk start", {})
        panel = [m for m in d.messages if "🎯" in m.content][-1]
        waiting = "bob" if str(d.user("alice").id) in panel.content else "alice"
        step = await d.click(waiting, "Plan my turn", message=panel)
        assert step[0].ephemeral and step[0].selects and "Plan my turn" in step[0].content
        step = await d.click("carol", "Plan my turn", message=panel)   # not a player: refused, privately
        assert step[0].ephemeral and not step[0].selects


async def test_orders_run_when_their_time_comes_and_only_their_player_is_told(tmp_path: Path):
    from test_async_play import HOUR, advance, human_to_move, record_of, two_humans_and_ai

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="plan-runs")) as d:
        await two_humans_and_ai(d, turn_deadline=24 * HOUR, fog="off")
        player = await human_to_move(d)
        other = "bob" if player == "alice" else "alice"
        record = await record_of(d)
        seat = record.game().state.current
        await d.send_command(player, "general", "plan", {})
        await d.select(player, "f")   # all on my front
        await d.click(player, "Then leave the rest to me", message=newest_private(d, player))
        channel = d.channel("general").id
        before = {m.id for m in d.messages}
        await advance(d, 6 * HOUR + 1)   # the longest delay: a quarter of the turn
        record = await record_of(d)
        state = record.game().state
        assert state.current == seat and state.phase == "attack" and state.reinforcements == 0
        [told] = [m for m in d.dms(player) if "orders" in m.content]
        assert "placed" in told.content and "the rest of your turn is yours" in told.content
        assert not [m for m in d.dms(other) if "orders" in m.content]
        public = [m for m in d.messages if not m.ephemeral and m.channel_id == channel and m.id not in before]
        assert public and not any("order" in m.content.lower() or "plan" in m.content.lower() for m in public)
        panel = [m for m in d.messages if "🎯" in m.content][-1]
        assert "placed" in panel.content   # told on the turn panel as the player's own move


async def test_freestyle_orders_start_the_turn_on_a_panel_like_a_visit(tmp_path: Path):
    from test_async_play import HOUR, advance, record_of, two_humans_and_ai

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="plan-free")) as d:
        await two_humans_and_ai(d, turn_deadline=24 * HOUR, fog="off", turn_order="freestyle")
        await d.send_command("bob", "general", "plan", {})
        await d.select("bob", "f")
        await d.click("bob", "Then leave the rest to me", message=newest_private(d, "bob"))
        channel = d.channel("general").id
        before = {m.id for m in d.messages}
        await advance(d, 6 * HOUR + 1)
        record = await record_of(d)
        bob = record.seat_of(d.user("bob").id)
        state = record.game().state
        assert state.current == bob and state.phase == "attack"
        public = [m.content for m in d.messages if m.channel_id == channel and not m.ephemeral and m.id not in before]
        # As a visit that starts the turn by placing: the move in the channel, then bob's turn panel.
        assert any("bob placed" in text for text in public) and "🎯" in public[-1], public
        assert not any("could not" in text or "order" in text.lower() for text in public), public
        assert [m for m in d.dms("bob") if "Your orders in game" in m.content]
