"""Phone-first play and announcements that tell the truth: every step by taps, confirmations, amounts, undo,
the end of a game in words, plurals, odds that never read as certain, and what a channel can still ask after
a game is over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord
from conftest import new_game, position
from discord_helpers import OfflineDiscord, make_bot, start
from test_audiences import forge

from cogs.play.moves import trade_label
from cogs.play.panel import controls, count_options
from cogs.shared.ending import how_won, winner_title
from engine import Attack, Blitz, ChooseCapital, Game
from engine.simulate import play_game
from engine.state import ATTACK, CAPITAL, FORTIFY, OCCUPY, OVER, REINFORCE, SETUP
from present.i18n import _, ngettext, percent
from present.text import describe
from present.verbs import ref
from render.panel import winner_words


async def record_of(d: OfflineDiscord) -> Any:
    return (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]


def labels(view: Any) -> list[str]:
    return [getattr(getattr(child, "item", child), "label", None) or "" for child in view.children]


# -- words -----------------------------------------------------------------------------------------------------------
def test_a_mission_win_is_told_as_a_mission_with_every_mission_shown():
    result = play_game(["normal", "normal", "normal"], "mission-win", {"mode": "missions"})
    s = result.game.state
    assert s.result == "mission"
    words = "\n".join(how_won(s, "en"))
    assert "completed their secret mission" in words and "world domination" not in words
    assert winner_title(s, "en") == f"🏆 {s.players[s.winner].name} wins!"
    assert winner_words(s) == "{winner} completed a mission"  # the map says so too, not "rules the world"


def test_a_round_limit_shows_the_standings_that_decided_it():
    result = play_game(["normal", "easy", "easy"], "rounds", {"max_rounds": 3})
    s = result.game.state
    assert s.result == "round_limit"
    lines = how_won(s, "en")
    assert "limit of 3 rounds" in lines[0]
    assert lines[1].startswith(f"1. {s.players[s.winner].name}: ")
    territories = [int(line.split(": ")[1].split(" ")[0]) for line in lines[1:]]
    assert territories == sorted(territories, reverse=True)


def test_plurals_in_every_language():
    assert ngettext("{n} army", "{n} armies", 1, "en") == "1 army"
    assert ngettext("{n} army", "{n} armies", 2, "en") == "2 armies"
    for locale in ("no", "es-ES"):
        one, many = ngettext("{n} army", "{n} armies", 1, locale), ngettext("{n} army", "{n} armies", 5, locale)
        assert one.startswith("1 ") and many.startswith("5 ") and one[2:] != many[2:], (one, many)


def test_odds_never_read_as_certain_when_they_are_not():
    for value in (0.99996, 0.9951, 0.999999):
        assert percent(value) == "99%" and percent(value, None, 1) in ("99.9%", "99.5%")
    assert percent(0.00004) == "1%" and percent(0.0) == "0%" and percent(1.0) == "100%"


def test_a_single_roll_and_a_blitz_on_the_same_front_are_two_lines():
    game = position(new_game(2), {"ukraine": 0}, {"ukraine": 30, "ural": 20}, seat=0, phase=ATTACK)
    events = game.apply(Attack(0, "ukraine", "ural", 3)) + game.apply(Blitz(0, "ukraine", "ural", stop_at=25))
    lines = [line for line in describe(events, game.state, game.board) if line.startswith("⚔️")]
    assert len(lines) == 2 and "attacked" in lines[0] and "blitzed" in lines[1], lines


def test_choosing_a_capital_is_told_in_words():
    game = new_game(3, mode="capitals")
    s = game.state
    seat = s.current
    events = game.apply(ChooseCapital(seat, game.capital_choices(seat)[0]))
    assert any("as their capital" in line for line in describe(events, s, game.board))


# -- the panel's buttons -----------------------------------------------------------------------------------------------
def panel(view: Any) -> list[tuple[str, str]]:
    """Each button's label (a menu's placeholder) and verb, in the order shown."""
    return [(getattr(c.item, "label", None) or c.item.placeholder, c.item.custom_id.split(":")[2])
            for c in view.children]


def test_each_phase_shows_the_buttons_of_what_it_allows_in_order():
    own, armies = {"alaska": 0, "alberta": 0, "northwest_territory": 0}, {"alaska": 5, "alberta": 3}
    game = position(new_game(3), own, armies, phase=ATTACK, seat=0)
    battle = [{"type": "battle", "from": "alaska", "to": "kamchatka"}]
    view = controls(1, game, "en", battle)
    assert panel(view) == [("Attack again", "roll"), ("Blitz", "blitz"), ("Stop", "stop"), ("Attack", "attack"),
                           ("End attacks", "endatk"), ("Fortify", "fortify"), ("End turn", "end"), ("Map", "map"),
                           ("Attack…", "atkpair"), ("Fortify…", "fortpair")]  # the menus below the buttons
    assert view.children[3].item.style == discord.ButtonStyle.secondary
    view = controls(1, game, "en")
    assert panel(view) == [("Attack", "attack"), ("End attacks", "endatk"), ("Fortify", "fortify"),
                           ("End turn", "end"), ("Map", "map"), ("Attack…", "atkpair"), ("Fortify…", "fortpair")]
    assert view.children[0].item.style == discord.ButtonStyle.danger  # the move of the phase stands out
    game.state.phase = FORTIFY  # ending the turn now needs no confirmation
    view = controls(1, game, "en")
    assert panel(view) == [("Fortify", "fortify"), ("End turn", "endok"), ("Map", "map"), ("Fortify…", "fortpair")]
    assert view.children[0].item.style == discord.ButtonStyle.primary
    for fog in ("off", "on"):
        game = position(new_game(3, fog=fog), own, armies, phase=REINFORCE, seat=0)
        game.state.reinforcements, game.state.undoable_placements = 3, {"alaska": 2}
        assert panel(controls(1, game, "en", public=True)) == [
            ("Cards", "cards"), ("Place", "place"), *([("Continue", "turn")] if fog == "on" else []),
            ("Undo placements", "undo"), ("Map", "map"), ("Plan my turn", "plan"),
            *([("Place all 3 armies on…", "placeall")] if fog == "off" else [])]  # under fog the public panel has no
        # menu; the channel's panel offers everybody to plan their next turn (privately)
        game.state.phase, game.state.pending = OCCUPY, {"from": "alaska", "to": "kamchatka", "min": 1, "max": 4}
        fogged = [("Continue", "turn"), ("Map", "map"), ("Plan my turn", "plan")]
        assert panel(controls(1, game, "en", public=True)) == (fogged if fog == "on" else [
            ("Move 1", "move"), ("Move 3", "move"), ("Move all (4)", "move"), ("Map", "map"),
            ("Plan my turn", "plan"), ("Another number…", "movecount")])
    two, _ = Game.new(["A", "B"], "panel", {"deployment": "deal"})
    assert two.state.phase == SETUP
    assert panel(controls(1, two, "en")) == [("Place", "place"), ("Neutral", "neutral"), ("Map", "map"),
                                             ("Place all 2 armies on…", "placeall")]
    claim, _ = Game.new(["A", "B", "C"], "panel", {"deployment": "claim"})
    assert panel(controls(1, claim, "en")) == [("Claim", "claim"), ("Map", "map")]
    capitals, _ = Game.new(["A", "B", "C"], "panel", {"deployment": "auto", "mode": "capitals"})
    assert capitals.state.phase == CAPITAL
    assert panel(controls(1, capitals, "en")) == [("Capital", "capital"), ("Map", "map")]
    capitals.state.phase = OVER
    assert controls(1, capitals, "en") is None


def test_a_forced_trade_offers_the_cards_not_place():
    game = position(new_game(3), {}, phase=REINFORCE, seat=0, default_owner=0)
    s = game.state
    s.hands[0] = ["alaska", "ontario", "peru", "egypt", "china"]
    s.reinforcements = 0
    assert game.must_trade(0)
    shown = labels(controls(1, game, "en"))
    assert "Trade best set" in shown and "Place" not in shown


def test_trade_buttons_name_their_cards_best_first():
    game = position(new_game(3), {"alaska": 0}, phase=REINFORCE, seat=0)
    s = game.state
    s.hands[0] = ["ontario", "alaska", "peru", "egypt", "china", "wild_1", "iceland"]
    ranked = game.ranked_sets(0)
    assert ranked[0] == game.best_set(0)
    names = [trade_label(game, 0, combo, "en") for combo in ranked[:4]]
    assert len(set(names)) == len(names)  # they can be told apart
    assert any("Alaska ★" in n for n in names)
    assert all(len(n) <= 80 for n in names)


def test_occupying_offers_any_number_by_menu():
    game = position(new_game(2), {"ukraine": 0}, {"ukraine": 30}, seat=0, phase=OCCUPY)
    game.state.pending = {"from": "ukraine", "to": "ural", "min": 3, "max": 20}
    view = controls(1, game, "en")
    selects = [c.item for c in view.children if hasattr(c.item, "options")]
    values = [int(o.value) for o in selects[0].options]
    assert values == list(range(3, 21))  # every count from the least to the most
    game.state.pending = {"from": "ukraine", "to": "ural", "min": 3, "max": 600}
    options = count_options(range(3, 601))
    assert len(options) <= 25 and options[0].value == "3-26" and options[-1].value.endswith("-600")


async def test_any_number_of_armies_is_reached_by_taps(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="counts")) as d:
        await start(d, ("alice",), 1, deployment="auto")
        record = await record_of(d)
        gid = record.id
        s = record.game().state
        source = max(s.territories_of(0), key=lambda t: s.armies[t])
        game = record.game()
        # Put the game where a big fortify is possible, through the store's own path: alice's moves.
        await d.send_command("alice", "general", "place", {"territory": source})
        await d.send_command("alice", "general", "end", {})
        game = (await record_of(d)).game()
        targets = game.fortify_targets(0, source) if source in game.fortify_sources(0) else []
        assert targets, "this seed gives alice a territory to fortify from"
        most = game.state.armies[source] - 1
        await d.click("alice", "Fortify")
        await d.select("alice", [ref(game.board, source)])
        await d.select("alice", [ref(game.board, targets[0])])
        assert most >= 2
        # A menu of ranges (as a big army gets): a range opens its own numbers, privately.
        move = f"{ref(game.board, source)}:{ref(game.board, targets[0])}"
        ranges = {"type": 3, "custom_id": f"risks:{gid}:fortcount:{move}", "min_values": 1,
                  "max_values": 1, "options": [{"label": "1–2", "value": "1-2"}]}
        menu = d.server.create_message(d.channel("general"),
                                       {"content": "counts", "components": [{"type": 1, "components": [ranges]}]}, [])
        step = await d.select("alice", ["1-2"], menu)
        assert step[-1].ephemeral and [o["value"] for o in step[-1].selects[0]["options"]] == ["1", "2"]
        wanted = 2
        step = await d.select("alice", ["2"], step[-1])
        assert not step.problems, step.problems
        after = (await record_of(d)).game().state
        assert after.armies[source] == most + 1 - wanted and gid == record.id


# -- through Discord -------------------------------------------------------------------------------------------------
async def test_surrender_and_kicking_yourself_ask_first(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="confirm")) as d:
        await start(d, ("alice", "bob"), 1, deployment="auto")
        version = (await record_of(d)).version
        step = await d.send_command("bob", "general", "risk surrender", {})
        assert step[0].ephemeral and "Yes, surrender" in step[0].button_labels
        assert (await record_of(d)).version == version  # nothing happened yet
        step = await d.click("bob", "Yes, surrender", step[0])
        assert not step.problems, step.problems
        bob = (await record_of(d)).seat_of(d.user("bob").id)
        assert bob in (await record_of(d)).game().state.surrendered


async def test_undo_takes_back_this_turns_placements(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="undo")) as d:
        await start(d, ("alice",), 1, deployment="auto")
        record = await record_of(d)
        s = record.game().state
        assert s.current == 0 and s.phase == REINFORCE
        mine = s.territories_of(0)[0]
        before = (s.armies[mine], s.reinforcements)
        step = await d.send_command("alice", "general", "place", {"territory": mine, "count": 1})
        reply = next(m for m in step if m.ephemeral)  # the answer is private; the channel reads the panel
        assert ngettext("{n} army left to place.", "{n} armies left to place.", before[1] - 1, "en") in reply.content
        assert "Undo placements" in reply.button_labels
        step = await d.click("alice", "Undo placements", reply)
        assert not step.problems and "took back 1 army" in next(m for m in step if m.ephemeral).content
        panel = next(m for m in step if not m.ephemeral)  # and the panel tells the channel
        assert "took back 1 army" in panel.content and "Place" in panel.button_labels
        s = (await record_of(d)).game().state
        assert (s.armies[mine], s.reinforcements) == before


async def test_mission_button_teams_and_rules_topics(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="phone")) as d:
        await start(d, ("alice", "bob"), 2, deployment="auto", mode="missions", teams="2v2")
        lobby = [m for m in d.messages if m.embeds and "lobby" in str(m.embeds[0].get("title"))][-1]
        assert "Team 1: alice" in lobby.text.replace(", Normal AI", "")
        panel = [m for m in d.messages if m.content.startswith("🎯")][-1]
        assert "Mission" in panel.button_labels and "(team" in panel.content
        mover = "alice" if "alice" in panel.content else "bob"
        step = await d.click(mover, "Mission", panel)
        assert step[0].ephemeral and step[0].content.startswith("📜 Your mission:")
        step = await d.send_command("bob", "general", "risk status", {})
        assert "Team 1" in step[0].text and "Team 2" in step[0].text
        for topic in ("missions", "capitals", "teams", "fog", "undo"):
            step = await d.send_command("bob", "general", "risk rules", {"topic": topic})
            assert step[0].ephemeral and len(step[0].content) > 100


async def test_after_the_game_the_channel_can_still_ask_about_it(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="after")) as d:
        await start(d, ("alice",), 1, deployment="auto", mode="missions")
        step = await d.send_command("alice", "general", "risk surrender", {})
        await d.click("alice", "Yes, surrender", step[0])
        assert (await record_of(d)).status == "finished"
        over = [m for m in d.messages if m.embeds and "wins" in str(m.embeds[0].get("title"))][-1]
        assert "Mission of alice" in over.text and "the last opponent left" in over.text
        for command in ("risk status", "risk log", "mission", "map"):
            step = await d.send_command("alice", "general", command, {})
            assert not step.problems and "There is no game" not in step[0].content, (command, step[0].content)


async def test_a_plain_new_game_is_ready_for_play_over_days(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await d.send_command("alice", "general", "risk new", {})
        record = await record_of(d)
        assert record.settings["deployment"] == "deal" and record.settings["setup_batch"] == 5
        await d.send_command("alice", "general", "risk cancel", {})
        await d.send_command("alice", "general", "risk new", {"preset": "classic"})
        settings = (await record_of(d)).settings  # the classic rules are the engine's own
        assert settings["deployment"] == "claim" and settings["setup_batch"] == 1


async def test_settings_are_shown_in_words(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        step = await d.send_command("alice", "general", "risk new", {"fortify": "connected"})
        text = step[0].text
        assert "Fortify: **one move along a chain of your territories**" in text
        assert "on_timeout" not in text and "deployment:" not in text


def test_every_tap_flow_answers_in_the_readers_language():
    for locale in ("no", "es-ES"):
        assert _("Place", locale) != "Place" and _("Yes, surrender", locale) != "Yes, surrender"


async def test_a_game_left_to_the_ais_posts_a_few_messages_and_never_stalls(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="alone"), strict=True) as d:
        await start(d, ("alice",), 3, deployment="auto")
        before = len(d.messages)
        step = await d.send_command("alice", "general", "risk surrender", {})
        await d.click("alice", "Yes, surrender", step[0])
        for _ in range(100):  # the AI plays on in steps, from the scheduler
            if (await record_of(d)).status == "finished":
                break
            timers = await d.bot.store.game_deadlines((await record_of(d)).id)
            assert timers, "a game that goes on always has a timer: it never stalls silently"
            await d.run(d.bot.advance_time(2))
        assert (await record_of(d)).status == "finished"
        public = [m for m in d.messages[before:] if not m.ephemeral]
        assert len(public) <= 12, [m.content[:40] for m in public]
        assert any("No human player is left" in m.content for m in public)
        assert any(m.embeds and "🏆" in str(m.embeds[0].get("title")) for m in public)


def test_two_wilds_make_one_trade_button(tmp_path: Path):
    game = position(new_game(3), {}, phase=REINFORCE, seat=0)
    game.state.hands[0] = ["india", "ontario", "great_britain", "wild_1", "wild_2", "eastern_united_states"]
    labels = [trade_label(game, 0, combo, "en") for combo in game.ranked_sets(0)]
    assert len(labels) > len(set(labels))  # the sets differ only by which wild: the buttons dedupe by label


def test_names_in_refusals_are_the_readers():
    from present.refusals import translate_template
    from present.text import neutral_in_sentence

    text = translate_template("{territory} belongs to {player}, not you.", {"territory": "x", "player": "Neutral"},
                              "no")
    # In the reader's language, as a name inside a sentence (lower case in Norwegian).
    assert "Neutral" not in text and neutral_in_sentence("no") in text and neutral_in_sentence("no") == "nøytral"


async def test_after_the_end_status_names_the_winner(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="winner")) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        step = await d.send_command("bob", "general", "risk surrender", {})
        await d.click("bob", "Yes, surrender", step[0])
        step = await d.send_command("bob", "general", "risk status", {})
        assert "The game is over: alice won." in step[0].text and "Next set" not in step[0].text
        for command in ("cards", "risk settings"):
            step = await d.send_command("alice", "general", command, {})
            assert "There is no game" not in step[0].content, command


async def test_an_old_place_button_is_refused_at_once(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="stale")) as d:
        await start(d, ("alice",), 1, deployment="auto")
        panel = [m for m in d.messages if m.content.startswith("🎯")][-1]
        place = next(b["custom_id"] for b in panel.buttons if b["label"] == "Place")
        s = (await record_of(d)).game().state
        await d.send_command("alice", "general", "place", {"territory": s.territories_of(0)[0]})  # all of them
        assert "Place" not in d.message(panel.id).button_labels  # the panel was edited: no Place button now
        step = await forge(d, "alice", place)  # the button as an older message still shows it
        assert step[-1].ephemeral and step[-1].content.startswith("⛔") and not step[-1].selects


async def test_a_host_does_not_kick_themself_out_of_a_lobby(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await d.send_command("alice", "general", "risk new", {})
        await d.send_command("bob", "general", "risk join", {})
        step = await d.send_command("alice", "general", "risk kick", {"player": "@alice"})
        assert step[0].ephemeral and "/risk leave" in step[0].content
        step = await d.send_command("alice", "general", "risk kick", {"player": "@bob"})
        assert "Start" in step[0].button_labels  # the lobby keeps its buttons


def test_short_turns_have_no_reminders_and_the_lobby_says_so():
    from cogs.game.lobby import settings_text

    assert "Reminders: **none (turns shorter than an hour)**" in settings_text({"turn_deadline": 300})
    assert "Reminders: **at half time" in settings_text({"turn_deadline": 86400})
