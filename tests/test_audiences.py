"""Who is told what: every message, map and export checked against what its audience may know.

Regression tests for the defects of the announcements (fog of war in exports, logs, public lines and AI turns,
a kick, forged taps, names that ping, the raw phase word), and a property test that plays random games through
the real command tree and lets an independent referee (tests/audience.py) check everything that was sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from audience import Referee, RenderTrace
from discord_helpers import OfflineDiscord, command_for, make_bot, start
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.ai import make_ai
from engine.state import OVER, apply_event, initial_state

DAY = 86400
HUMANS = ("alice", "bob")


async def record_of(d: OfflineDiscord) -> Any:
    games = await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1)
    return games[0]



def seats_of(d: OfflineDiscord, record: Any) -> dict[str, int]:
    return {name: record.seat_of(d.user(name).id) for name in ("alice", "bob", "carol")
            if record.seat_of(d.user(name).id) is not None}


async def play_one(d: OfflineDiscord) -> bool:
    """The human whose turn it is makes the move a sensible player would, by command. False: game over."""
    record = await record_of(d)
    if record.status != "running":
        return False
    game = record.game()
    seat = game.state.current
    if game.state.sealed is not None:  # a set-up round: a human with starting armies left places
        waiting = [x for x in game.setup_waiting() if any(record.seat_of(d.user(n).id) == x for n in HUMANS)]
        if not waiting:   # only AIs (or a seat no player here holds) left to place
            return True
        seat = waiting[0]
    user = next((name for name in HUMANS if record.seat_of(d.user(name).id) == seat), None)
    if user is None:   # an AI's move (it goes on from the scheduler) or a seat no player here holds
        return True
    name, options = command_for(make_ai("normal", salt="h").choose(game, seat), game)
    step = await d.send_command(user, "general", name, options)
    assert not step.problems, (name, options, step.problems)
    return True


async def play_until(d: OfflineDiscord, done: Any, limit: int = 400) -> None:
    for _ in range(limit):
        record = await record_of(d)
        if done(record) or not await play_one(d):
            return
    raise AssertionError("the condition was never met")


async def check(d: OfflineDiscord, referee: Referee, secrets: dict[int, list[str]] | None = None) -> None:
    record = await record_of(d)
    referee.check(d.messages, await d.bot.store.events(record.id), secrets or {}, d.server.log)
    assert not referee.problems, referee.problems[:5]


def mission_secrets(record: Any) -> dict[int, list[str]]:
    from present.text import mission_line

    game = record.game()
    return {seat: [mission_line(game.mission(seat), game.board, game.state)]
            for seat in range(len(record.players)) if game.mission(seat) is not None}


async def sealed_secrets(d: OfflineDiscord, record: Any, secrets: dict[int, list[str]]) -> dict[int, list[str]]:
    """``secrets`` and, for each seat, the lines of its starting armies placed in secret in a set-up round."""
    from present.placements import placed_line

    game = record.game()
    out = {seat: list(texts) for seat, texts in secrets.items()}
    for e in await d.bot.store.events(record.id):
        if e["type"] == "armies_placed" and e.get("source") == "sealed":
            line = placed_line(e, game.state.seat_name(e["seat"]), game.name(e["territory"]), None,
                               include_setup=True)
            out.setdefault(e["seat"], []).append(line or "")
    return out


# -- regressions ---------------------------------------------------------------------------------------------------
async def test_a_substitute_sees_the_seats_secrets_and_the_player_who_left_no_more(tmp_path: Path, monkeypatch):
    trace = RenderTrace(monkeypatch)
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="fog-subs"), strict=True) as d:
        await start(d, HUMANS, 1, deployment="auto", fog="on", mode="missions", turn_deadline=3600, max_missed=1)
        record = await record_of(d)
        referee = Referee(trace, seats_of(d, record))
        secrets = mission_secrets(record)
        bob = record.seat_of(d.user("bob").id)
        for _ in range(30):
            record = await record_of(d)
            if record.player(bob).is_ai:
                break
            if record.game().state.current == bob:
                await d.run(d.bot.advance_time(2 * 3600))
            else:
                await play_one(d)
            await check(d, referee, secrets)
        assert record.player(bob).is_ai
        await d.click("alice", "Offer the seat to a substitute")
        await check(d, referee, secrets)
        step = await d.click("carol", "Take this seat")
        assert not step.problems and "The seat is yours" in step[0].text
        referee.seats = seats_of(d, await record_of(d))
        assert referee.seats["carol"] == bob and "bob" not in referee.seats
        await check(d, referee, secrets)
        step = await d.send_command("carol", "general", "mission", {})
        assert secrets[bob][0] in step[0].text   # the seat's mission is the substitute's now
        step = await d.send_command("bob", "general", "mission", {})
        assert secrets[bob][0] not in step[0].text
        for user in ("carol", "bob"):
            await d.send_command(user, "general", "cards", {})
            await d.send_command(user, "general", "map", {})
            for command in ("risk export", "risk log"):   # the claim is in the log: each reads it as they may
                step = await d.send_command(user, "general", command, {})
                assert not step.problems, step.problems
        await check(d, referee, secrets)


async def test_export_and_log_under_fog_are_per_viewer(tmp_path: Path, monkeypatch):
    trace = RenderTrace(monkeypatch)
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="fog-export")) as d:
        await start(d, ("alice", "bob"), 1, deployment="auto", fog="on")
        await play_until(d, lambda r: r.game().state.turn >= 6)
        record = await record_of(d)
        referee = Referee(trace, seats_of(d, record))
        for user in ("alice", "bob", "carol"):
            for command in ("risk export", "risk log"):
                step = await d.send_command(user, "general", command, {})
                assert not step.problems, step.problems  # the log used to fail on hidden events
                assert step[0].ephemeral
        await check(d, referee)
        exports = {m.visible_to: m.attachments[0].data.decode() for m in d.messages if m.attachments
                   and m.attachments[0].filename.endswith(".jsonl")}
        spectator = [json.loads(line) for line in exports["carol"].splitlines()]
        shown = [e for e in spectator if any(e.get(k) for k in ("from", "to", "territory"))]
        assert shown == []  # someone not seated learns nothing of the board
        assert exports["alice"] != exports["bob"]
        # Not even how busy each player was: events out of sight are left out, not counted.
        assert not any(e.get("hidden") for e in spectator)
        kinds = {e["type"] for e in spectator}
        assert kinds <= {"game_started", "first_player", "territories_dealt", "deck_shuffled", "turn_started",
                         "turn_ended", "cards_traded", "player_eliminated", "player_surrendered"}, kinds
        assert len(spectator) < len(await d.bot.store.events(record.id))


async def test_public_lines_under_fog_tell_no_figures(tmp_path: Path, monkeypatch):
    trace = RenderTrace(monkeypatch)
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="fog-lines")) as d:
        await start(d, ("alice",), 2, deployment="auto", fog="on")
        await play_until(d, lambda r: r.game().state.turn >= 9)
        record = await record_of(d)
        await check(d, Referee(trace, seats_of(d, record)))
        begun = next(i for i, m in enumerate(d.messages) if "The game begins" in m.content)
        later = {m.id for m in d.messages[begun:] if not m.ephemeral}
        # Every version of every public message: the live panel as posted and after each of its edits.
        public = [e.version.content for e in d.server.log if e.message_id in later and e.action != "delete"]
        public += [m.text for m in d.messages[begun:] if not m.ephemeral]
        assert any(e.action == "edit" and e.message_id in later for e in d.server.log)  # the panel was edited
        for banned in ("for territories", "for continents", "armies (", "placed", " gets "):
            assert not any(banned in text for text in public), (banned, [t for t in public if banned in t][:2])
        panels = [t for t in public if t.startswith("🎯")]
        # The call to place names no figure (later versions of the panel say what the player is doing).
        assert panels and all("place your reinforcements" in t for t in panels if ", turn " in t)
        assert any("Turn" in t and "'s turn." in t for t in public)  # that a turn started is public
        assert not any(m.attachments for m in d.messages if not m.ephemeral and not m.embeds)
        assert not any(e.version.attachments for e in d.server.log if e.message_id in later
                       and not e.version.embeds)  # nor any version of them: no map under fog


async def test_each_ai_turn_shows_the_board_at_the_end_of_that_turn(tmp_path: Path, monkeypatch):
    trace = RenderTrace(monkeypatch)
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="ai-maps")) as d:
        await start(d, ("alice",), 3, deployment="auto")
        await play_until(d, lambda r: r.game().state.turn >= 9 or r.status != "running")
        record = await record_of(d)
        events = await d.bot.store.events(record.id)
        # The board after each turn of each seat, from the log.
        state = initial_state(events[0])
        after_turn: dict[tuple[int, int], dict[str, int]] = {}
        for event in events[1:]:
            apply_event(state, event)
            if event["type"] == "turn_ended":
                after_turn[(event["seat"], state.turn)] = dict(state.armies)
        ai_messages = [m for m in d.messages if m.content.startswith("🤖") and m.attachments]
        assert len(ai_messages) >= 6
        for message in ai_messages:
            viewer, drawn = trace.by_digest[hashlib.sha256(message.attachments[0].data).hexdigest()]
            assert viewer is None
            assert drawn.phase != OVER
            seat = next(p.seat for p in record.players if message.content.startswith(f"🤖 {p.name} played"))
            turn = int(message.content.split("turn ", 1)[1].split(":", 1)[0])
            assert drawn.armies == after_turn[(seat, turn)], message.content[:40]


async def test_ai_turns_under_fog_show_no_battles_and_no_map(tmp_path: Path, monkeypatch):
    trace = RenderTrace(monkeypatch)
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="ai-fog")) as d:
        await start(d, ("alice",), 3, deployment="auto", fog="on")
        await play_until(d, lambda r: r.game().state.turn >= 9 or r.status != "running")
        record = await record_of(d)
        await check(d, Referee(trace, seats_of(d, record)))
        ai = [m for m in d.messages if m.content.startswith("🤖")]
        assert ai and not any(m.attachments for m in ai)
        assert not any("⚔️" in m.content or "🏴" in m.content for m in ai)


async def test_a_kick_under_fog_with_teams_shows_the_host_their_own_view(tmp_path: Path, monkeypatch):
    trace = RenderTrace(monkeypatch)
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="kick")) as d:
        await start(d, ("alice", "bob"), 2, deployment="auto", fog="on", teams="2v2")
        record = await record_of(d)
        before = len(d.messages)
        step = await d.send_command("alice", "general", "risk kick", {"player": "@bob"})
        assert step[0].ephemeral and "Remove bob" in step[0].content  # asked first
        step = await d.click("alice", "Yes, remove", step[0])
        assert not step.problems, step.problems
        alice = record.seat_of(d.user("alice").id)
        for message in d.messages[before:]:
            for attached in message.attachments:
                viewer, _ = trace.by_digest[hashlib.sha256(attached.data).hexdigest()]
                assert viewer in (None, alice)
        public = "\n".join(m.text for m in d.messages[before:] if not m.ephemeral)
        assert "removed bob" in public
        assert "surrendered" not in public
        await check(d, Referee(trace, seats_of(d, await record_of(d))))


async def test_a_vote_to_end_under_fog_tells_names_and_counts_only(tmp_path: Path, monkeypatch):
    trace = RenderTrace(monkeypatch)
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="fog-vote")) as d:
        await start(d, ("alice", "bob", "carol"), 1, deployment="auto", fog="on")
        referee = Referee(trace, seats_of(d, await record_of(d)))
        before = len(d.messages)
        for user, command in (("bob", "vote"), ("alice", "Vote for"), ("alice", "Vote for"), ("carol", "Vote against")):
            step = await (d.send_command(user, "general", command, {}) if command == "vote" else
                          d.click(user, command))
            assert not step.problems, step.problems
            await check(d, referee)
        said = [m for m in d.messages[before:] if not m.ephemeral]
        assert any("calls a vote" in m.text for m in said) and any("failed (for: 2, against: 1)" in m.text
                                                                   for m in said)
        for message in said:  # no board in a vote's message: no map, and its buttons carry the vote's key only
            assert not message.attachments
            assert all(b["custom_id"].split(":")[2] == "ballot" for b in message.buttons)
        assert (await record_of(d)).status == "running"
        await check(d, referee)


def planted(d: OfflineDiscord, custom_id: str, values: list[str] | None = None) -> Any:
    """A message of the bot's carrying a component that no current menu offers: an old message, or values no
    menu listed. Discord delivers a tap on any component of a message as it is."""
    if values is None:
        component = {"type": 2, "style": 2, "label": "old", "custom_id": custom_id}
    else:
        component = {"type": 3, "custom_id": custom_id, "min_values": 1, "max_values": 1,
                     "options": [{"label": v, "value": v} for v in values]}
    return d.server.create_message(d.channel("general"), {"content": "an old message",
                                                          "components": [{"type": 1, "components": [component]}]},
                                   [])


async def forge(d: OfflineDiscord, user: str, custom_id: str, values: list[str] | None = None) -> Any:
    message = planted(d, custom_id, values)
    if values is None:
        return await d.click(user, custom_id, message)
    return await d.select(user, values, message)


async def test_forged_taps_are_checked_against_the_legal_choices(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="forged")) as d:
        await start(d, ("alice",), 2, deployment="auto", fog="on")
        await play_until(d, lambda r: r.game().state.phase == "attack" and r.game().attack_sources(0))
        record = await record_of(d)
        game = record.game()
        s = game.state
        from engine.fog import visible_territories
        from present.menus import pair_value
        from present.verbs import ref

        source = game.attack_sources(0)[0]
        fogged = next(t for t in game.board.territory_ids if t not in visible_territories(s, 0))
        gid = record.id

        def n(territory: str) -> str:
            return ref(game.board, territory)
        refusal = "That choice is not available now"
        for custom_id, values in ((f"risks:{gid}:atkdst:{source}", [fogged]),
                                  (f"risks:{gid}:atkdst:{fogged}", [source]),
                                  (f"risks:{gid}:cont:atkdst:{fogged}", ["asia"]),
                                  (f"risks:{gid}:cont:nothing", ["asia"]),
                                  (f"risks:{gid}:fortdst:{source}", [fogged]),
                                  (f"risk:{gid}:roll:{source}:{fogged}:3", None),
                                  (f"risk:{gid}:blitz:{fogged}:{source}", None),
                                  (f"risk:{gid}:roll:{source}:{game.attack_targets(0, source)[0]}:9", None),
                                  (f"risk:{gid}:put:{source}:999", None),
                                  (f"risk:{gid}:trade:alaska.wild1.ontario", None),
                                  (f"risk:{gid}:move:x", None),
                                  # the menus of attacks and fortify moves, place all, counts, the +2 territory
                                  (f"risks:{gid}:atkpair", [pair_value(game, source, fogged)]),
                                  (f"risks:{gid}:atkpair", ["0>999"]), (f"risks:{gid}:atkpair", ["x"]),
                                  (f"risks:{gid}:fortpair", [pair_value(game, source, fogged)]),
                                  (f"risks:{gid}:placeall:5", [source]), (f"risks:{gid}:placeall:5", [fogged]),
                                  (f"risks:{gid}:putcount:{source}", ["3"]), (f"risks:{gid}:putcount:{fogged}", ["1"]),
                                  (f"risk:{gid}:nput:{fogged}:1", None),
                                  (f"risk:{gid}:trade:alaska.wild1.ontario:{fogged}", None),
                                  # the same with the territories' numbers, as the bot writes them now, and
                                  # numbers no territory has
                                  (f"risks:{gid}:atkdst:{n(source)}", [n(fogged)]),
                                  (f"risks:{gid}:atkdst:{n(fogged)}", [n(source)]),
                                  (f"risks:{gid}:cont:atkdst:{n(fogged)}", ["3"]),
                                  (f"risks:{gid}:cont:atkdst:{n(source)}", ["99"]),
                                  (f"risks:{gid}:fortdst:{n(source)}", [n(fogged)]),
                                  (f"risk:{gid}:atk:{n(source)}:{n(fogged)}:3", None),
                                  (f"risk:{gid}:blitz:{n(fogged)}:{n(source)}", None),
                                  (f"risk:{gid}:blitz:{n(source)}:42", None),
                                  (f"risk:{gid}:blitz:{n(source)}:0{n(game.attack_targets(0, source)[0])}", None),
                                  (f"risk:{gid}:blitz:{n(source)}:-1", None),
                                  (f"risk:{gid}:put:{n(source)}:999", None),
                                  (f"risk:{gid}:put:{len(game.board.territory_ids)}:1", None),
                                  (f"risk:{gid}:trade:0.0.0", None), (f"risk:{gid}:trade:0.1.99", None),
                                  (f"risks:{gid}:placeall:5", [n(fogged)]), (f"risks:{gid}:placeall:5", ["٣"]),
                                  (f"risks:{gid}:putcount:{n(fogged)}", ["1"]),
                                  (f"risk:{gid}:nput:{n(fogged)}:1", None),
                                  (f"risk:{gid}:trade:0.0.0:{n(fogged)}", None)):
            step = await forge(d, "alice", custom_id, values)
            assert not step.problems, (custom_id, step.problems)
            answer = step[-1]
            assert answer.ephemeral, custom_id
            assert refusal in answer.content or "hand has changed" in answer.content, (custom_id, answer.content)
            assert f"({s.armies[fogged]})" not in answer.content
        assert (await record_of(d)).version == record.version  # nothing changed
        # A real menu, a value it never offered (a territory in the fog).
        step = await d.click("alice", "Attack")
        assert step[-1].selects, step[-1].content
        step = await d.select("alice", [n(source)], step[-1])
        menu = step[-1]
        raw = menu.raw_components[0]["components"][0]
        raw["options"].append({"label": "x", "value": n(fogged)})  # the value a forged request carries
        step = await d.select("alice", [n(fogged)], menu)
        assert refusal in step[-1].content and step[-1].ephemeral
        other = await d.bot.store.create_lobby(d.guild.id, 4242, d.user("carol").id, "carol")
        step = await forge(d, "alice", f"risk:{other.id}:map")
        assert "not running" in step[-1].content  # a game of another channel is not reachable


async def test_names_never_ping_and_only_the_player_is_mentioned(tmp_path: Path):
    evil = "x @everyone **Boss** [site](http://evil.example) <@&123> @here"
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="names")) as d:
        await start(d, (evil,), 2, deployment="auto", turn_deadline=3600)
        await d.run(d.bot.advance_time(DAY))   # a reminder, a timeout, the AI's turns, the panel again
        step = await d.send_command(evil, "general", "risk kick", {"player": f"@{evil}"})  # the host, themself
        assert "Remove yourself" in step[0].content
        step = await d.click(evil, "Yes, remove", step[0])
        assert not step.problems, step.problems
        me = d.user(evil)
        assert any(f"user:{me.id}" in m.pings for m in d.messages)  # the panel and the reminder call them
        for message in d.messages:
            assert message.pings <= {f"user:{me.id}"}, (message.content[:80], message.pings)
            assert "**Boss**" not in message.content and "](http" not in message.content
            for embed in message.embeds:
                assert "**Boss**" not in json.dumps(embed)


async def test_phase_names_come_from_one_table(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="capital-word")) as d:
        await start(d, ("alice",), 2, deployment="auto", mode="capitals")
        assert (await record_of(d)).game().state.phase == "capital"  # waiting for alice's choice
        step = await d.send_command("alice", "general", "risk status", {})
        text = step[0].text
        assert "choosing capitals" in text and "is capital." not in text
        step = await d.send_command("alice", "general", "map", {})
        assert "choosing capitals" in step[0].content


# -- the property: random games, every message checked -----------------------------------------------------------
STEPS = ("move", "move", "move", "move", "timeout", "log", "export", "map", "status", "cards", "mission", "vote",
         "for", "against", "offer", "claim", "plan", "plan")
# What only the player who left standing orders may read: their plan, and what it did when it ran.
PLAN_WORDS = ("Your plan for your next turn", "Your orders in game")


async def leave_plan(d: OfflineDiscord, user: str) -> bool:
    """``user`` plans their next turn (all on their front, the rest left to them); whether they left one now
    (/plan shows the plan they left before instead of the flow)."""
    step = await d.send_command(user, "general", "plan", {})
    if not step or not step[0].selects:
        return False
    await d.select(user, "f", message=step[0])
    menu = next(m for m in reversed(d.messages) if m.visible_to == user and "Then leave the rest to me"
                in m.button_labels)
    step = await d.click(user, "Then leave the rest to me", message=menu)
    return True


def plans_private(d: OfflineDiscord, planners: set[str]) -> None:
    """Every message about a plan (its summary, what it did) was for one who left a plan, alone: never for another
    player, nor for a substitute who took the seat of one who left a plan."""
    for entry in d.server.log:
        version = entry.version
        if version is None or not any(word in (version.content or "") for word in PLAN_WORDS):
            continue
        message = next(m for m in d.messages if m.id == entry.message_id)
        assert message.visible_to in planners, (message.visible_to, version.content)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(fog=st.sampled_from(["on", "on", "off"]), mode=st.sampled_from(["classic", "missions", "capitals"]),
       cards=st.sampled_from(["escalating", "fixed"]), ais=st.integers(1, 2), second_human=st.booleans(),
       teams=st.booleans(), setup_round=st.booleans(), seed=st.integers(0, 10_000),
       steps=st.lists(st.tuples(st.sampled_from(STEPS), st.sampled_from(["alice", "bob", "carol"])),
                      min_size=6, max_size=22))
def test_no_audience_learns_what_it_may_not_know(monkeypatch, fog, mode, cards, ais, second_human, teams,
                                                 setup_round, seed, steps):
    trace = RenderTrace(monkeypatch)
    humans = ("alice", "bob") if second_human else ("alice",)
    options: dict[str, Any] = {"deployment": "auto", "fog": fog, "mode": mode, "cards": cards,
                               "turn_deadline": 3600, "max_missed": 2}
    if teams and len(humans) + ais == 4:
        options["teams"] = "2v2"
    if setup_round:  # the starting armies placed in secret, all revealed together
        options.update(deployment="deal", setup="round")

    async def scenario(folder: Path) -> None:
        async with OfflineDiscord(make_bot(folder / "g.db", seed=f"prop-{seed}"), strict=True) as d:
            await start(d, humans, ais, **options)
            record = await record_of(d)
            referee = Referee(trace, seats_of(d, record))
            missions = mission_secrets(record)
            planners: set[str] = set()
            await check(d, referee, await sealed_secrets(d, record, missions))
            for kind, user in steps:
                record = await record_of(d)
                if record.status != "running":
                    break
                if kind == "move":
                    await play_one(d)
                elif kind == "timeout":
                    await d.run(d.bot.advance_time(2 * 3600))
                elif kind == "log":
                    await d.send_command(user, "general", "risk log", {"count": 200})
                elif kind == "export":
                    await d.send_command(user, "general", "risk export", {})
                elif kind == "status":
                    await d.send_command(user, "general", "risk status", {})
                elif kind == "map":
                    await d.send_command(user, "general", "map", {})
                elif kind == "vote":  # a vote to end the game, by the standings or as a draw (seed's parity)
                    await d.send_command(user, "general", "vote", {"ending": ("standings", "draw")[seed % 2]})
                elif kind in ("for", "against"):  # a ballot on the newest vote, if any was called
                    label = "Vote for" if kind == "for" else "Vote against"
                    if any(label in m.button_labels for m in d.messages):
                        await d.click(user, label)
                elif kind == "offer":  # the host offers a seat the AI took over, if it took one
                    if any("Offer the seat to a substitute" in m.button_labels for m in d.messages):
                        await d.click("alice", "Offer the seat to a substitute")
                elif kind == "plan":  # standing orders for the next turn: private, before, while and after they run
                    if record.seat_of(d.user(user).id) is not None and await leave_plan(d, user):
                        planners.add(user)
                elif kind == "claim":  # a claim of the newest offer; a claimer becomes their seat's audience
                    if any("Take this seat" in m.button_labels for m in d.messages):
                        await d.click(user, "Take this seat")
                        referee.seats = seats_of(d, await record_of(d))
                elif record.seat_of(d.user(user).id) is not None:
                    await d.send_command(user, "general", kind, {})
                await check(d, referee, await sealed_secrets(d, await record_of(d), missions))
                plans_private(d, planners)
            assert referee.counts["messages"] > 5

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(scenario(Path(folder)))


def test_the_phone_views_window_tells_nothing_of_the_fog():
    """The phone view's window is chosen from what its reader may see: two boards that differ only out of the
    reader's sight (owners, a stack of 999, the last battle there) give the same image, and a focus that names
    a hidden territory moves nothing."""
    from conftest import new_game, position

    from engine.fog import events_for
    from present.drawing import PHONE, prepare
    from render import draw_phone_png, render_phone

    south = dict.fromkeys(("peru", "brazil", "argentina", "venezuela"), 0)
    asia = ("siam", "china", "india", "mongolia", "japan", "irkutsk", "yakutsk", "kamchatka")

    def board(far_owner: int, far_armies: int):
        game = position(new_game(3, fog="on"), {**south, **dict.fromkeys(asia, far_owner)},
                        {"brazil": 6, **dict.fromkeys(asia, far_armies)}, seat=0)
        return game.state

    battle = {"type": "battle", "seat": 2, "from": "china", "to": "siam", "defender": 1, "attacker_dice": [6, 6, 6],
              "defender_dice": [1, 1], "attacker_losses": 0, "defender_losses": 2, "roll_index": 0, "rolls": 5}
    images = []
    for far_owner, far_armies, seen in ((1, 1, []), (2, 999, [battle])):
        state = board(far_owner, far_armies)
        projected = events_for(seen, 0, before=state) if seen else []
        job = prepare(state, 0, projected, kind=PHONE)
        assert job.kind == PHONE and job.visible is not None
        assert not {t for t, _ in job.focus} - job.visible            # the focus is what the reader sees
        images.append(draw_phone_png(job.view, list(job.highlight), job.labels, job.visible, dict(job.focus)))
    assert images[0] == images[1]
    state = board(2, 999)
    visible = prepare(state, 0, kind=PHONE).visible
    view = prepare(state, 0, kind=PHONE).view
    plain = render_phone(view, focus={"brazil": 2.0}, visible=visible)[1]
    careless = render_phone(view, focus={"brazil": 2.0, "siam": 50.0, "china": 50.0}, visible=visible)[1]
    assert plain == careless
