"""A whole game played only by taps, in each language: every step a phone player can take is a button or a menu,
and an ordinary turn takes at most ``BUDGET`` taps.

An ordinary turn (what a player does on most turns, and what the budget is for): at most one card trade, all the
reinforcements placed on one territory, up to three attacks (a battle each, rolled or blitzed) with a move-in after
each conquest, and one fortify move, then the turn ends. Every tap is counted: a button pressed or a
value chosen in a menu, whether its answer is a new message or an edited one."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import new_game, position
from discord_helpers import OfflineDiscord, make_bot

from cogs.play import buttons
from cogs.play.panel import controls
from cogs.play.tap import Tap
from cogs.shared.components import GameButton, fit
from cogs.shared.errors import UserError
from engine import EndAttack, Fortify, Game, Place, Trade
from engine.state import ATTACK, FORTIFY, OCCUPY, REINFORCE, SETUP
from present import verbs as verb
from present.i18n import _
from present.menus import attack_pairs, choices, fortify_pairs, pair_value, win_chance
from present.turns import turn_prompt
from present.verbs import ref, territory_at

pytestmark = pytest.mark.asyncio
LANGUAGES = {"en": "en-US", "nb": "no", "es": "es-ES"}
BUDGET = 12
MOST_ATTACKS = 3


async def record_of(d: OfflineDiscord) -> Any:
    return (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]


class Player:
    """Alice at her phone: she taps, and every tap is counted in her turn's record."""

    def __init__(self, d: OfflineDiscord, language: str) -> None:
        self.d, self.language = d, language
        self.taps = 0
        self.turn: dict[str, int] = {}

    def word(self, text: str, **values: Any) -> str:
        return _(text, self.language, **values)

    def _checked(self, step: Any, what: str) -> Any:
        self.taps += 1
        assert not step.problems, (what, step.problems)
        refused = [m.content for m in step if m.content.startswith("⛔")]
        assert not refused, (what, refused)
        return step

    async def tap(self, label: str, message: Any = None) -> Any:
        return self._checked(await self.d.click("alice", label, message), label)

    def newest(self) -> Any:
        """The newest message with buttons or menus that Alice sees: where she taps next."""
        return next(m for m in reversed(self.d.visible_to("alice")) if m.buttons or m.selects)

    def menu(self, purpose: str) -> tuple[Any, dict[str, Any]] | None:
        """The menu of ``purpose`` on the newest message Alice can tap."""
        message = self.newest()
        return next(((message, s) for s in message.selects if s["custom_id"].split(":")[2] == purpose), None)

    async def choose(self, purpose: str, value: str) -> Any:
        found = self.menu(purpose)
        assert found is not None, f"no {purpose} menu"
        message, select = found
        assert value in [o["value"] for o in select["options"]], (purpose, value)
        return self._checked(await self.d.select("alice", [value], message, custom_id=select["custom_id"]), value)

    def count(self, kind: str) -> None:
        self.turn[kind] = self.turn.get(kind, 0) + 1

    async def step(self) -> None:
        """One action of Alice's turn, as an ordinary player takes it."""
        game = (await record_of(self.d)).game()
        s, seat, word = game.state, game.state.current, self.word
        newest = self.newest()
        if word("Start my turn") in newest.button_labels:   # a freestyle round: she takes her turn when she likes
            await self.tap(word("Start my turn"), newest)
            return
        pairs = attack_pairs(game, seat)
        if s.phase in (SETUP, REINFORCE) and game.best_set(seat) is not None:
            self.count("trade")
            step = await self.tap(word("Trade best set"))
            choice = [b["label"] for m in step if m.ephemeral for b in m.buttons]
            if choice:  # more than one territory of the set held: which gets the +2
                await self.tap(choice[-1], next(m for m in step if m.ephemeral))
        elif s.phase in (SETUP, REINFORCE):
            self.count("place")
            target = max(pairs or [(t, t) for t in s.territories_of(seat)], key=lambda p: s.armies[p[0]])[0]
            await self.choose(verb.PLACE_ALL, ref(game.board, target))
        elif s.phase == ATTACK and self.turn.get("attack", 0) < MOST_ATTACKS and pairs \
                and win_chance(game, *pairs[0]) >= 0.5:
            self.count("attack")
            newest = self.newest()
            if word("Attack again") in newest.button_labels:  # the same battle, one tap
                await self.tap(word("Attack again"), newest)
                return
            taken = self.menu(verb.ATTACK_TO)
            targets = [territory_at(game.board, o["value"]) or "" for o in taken[1]["options"]] if taken else []
            source = territory_at(game.board, taken[1]["custom_id"].split(":")[3]) or "" if taken else ""
            best = max(targets, key=lambda t: win_chance(game, source, t)) if targets else None
            if best is not None and win_chance(game, source, best) >= 0.5:  # from the territory just taken
                step = await self.choose(verb.ATTACK_TO, ref(game.board, best))
            else:
                step = await self.choose(verb.ATTACK_PAIR, pair_value(game, *pairs[0]))
            # A blitz for the first conquest of the turn; after it, one roll at a time (it rarely conquers again).
            menu = step[-1]
            await self.tap(word("Blitz") if not self.turn.get("move-in") else menu.buttons[0]["label"], menu)
        elif s.phase == OCCUPY:
            self.count("move-in")
            assert s.pending is not None
            await self.tap(word("Move all ({n})", n=s.pending["max"]))
        elif s.phase in (ATTACK, FORTIFY) and fortify_pairs(game, seat):
            self.count("fortify")
            source, target = fortify_pairs(game, seat)[0]
            step = await self.choose(verb.FORTIFY_PAIR, pair_value(game, source, target))
            await self.tap(word("All but one ({n})", n=s.armies[source] - 1), step[-1])
            if not game.fortify_ends_turn:
                await self.tap(word("End turn"))
        elif s.phase == ATTACK:
            await self.tap(word("End turn"))
            await self.tap(word("Yes, end my turn"))
        else:
            await self.tap(word("End turn"))

    def ordinary(self) -> bool:
        t = self.turn
        return t.get("trade", 0) <= 1 and t.get("place", 0) <= 1 and t.get("attack", 0) <= MOST_ATTACKS \
            and t.get("move-in", 0) <= t.get("attack", 0) and t.get("fortify", 0) <= 1


def channel_posts(d: OfflineDiscord, since: int) -> tuple[int, int]:
    """The new channel messages since log entry ``since`` that a human turn caused (not private answers, not
    edits, not the AIs' own turn summaries), and the images in them."""
    posts = [e for e in d.server.log[since:] if e.action == "create" and not d.message(e.message_id).ephemeral
             and not d.message(e.message_id).content.startswith("🤖")]
    return len(posts), sum(len(e.version.attachments) for e in posts)


def pictures(d: OfflineDiscord, since: int) -> list[int]:
    """The sizes of the pictures a human turn uploaded to the channel since log entry ``since``: by new messages
    and by edits of the turn panel alike (an edit that keeps its picture uploads none); not the AIs' turns."""
    seen = {a.id for e in d.server.log[:since] if e.action in ("create", "edit") for a in e.version.attachments}
    sizes = []
    for e in d.server.log[since:]:
        message = d.message(e.message_id)
        if e.action not in ("create", "edit") or message.ephemeral or message.content.startswith("🤖"):
            continue
        for a in e.version.attachments:
            if a.id not in seen:
                seen.add(a.id)
                sizes.append(a.size)
    return sizes


PICTURES = 3               # pictures a human turn may upload to the channel
PICTURE_BYTES = 300_000    # and their bytes


async def play_by_taps(tmp_path: Path, language: str, uploaded: list[list[int]] | None = None,
                       turn_order: str = "sequential") -> list[tuple[int, bool]]:
    """A game of Alice and two AIs, by taps only; each of Alice's turns: its taps, and whether it was ordinary.
    Each of her turns but the last (which ends the game) also keeps to the channel's budget: at most two new
    messages and one image, the panel of the next player (here her own next panel, after the AIs' turns), and
    at most ``PICTURES`` pictures in all, edits of her panel included (``uploaded``: their sizes, per turn)."""
    turns: list[tuple[int, bool]] = []
    posted: list[tuple[int, int]] = []
    uploaded = [] if uploaded is None else uploaded
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed=f"taps-{language}"), strict=True) as d:
        d.set_locale("alice", LANGUAGES[language])
        await d.send_command("alice", "general", "risk new", {"language": language, "deployment": "auto",
                                                             "max_rounds": 6,
                                                             **({"turn_order": turn_order}
                                                                if turn_order != "sequential" else {})})
        await d.click("alice", _("Add AI", language))
        await d.click("alice", _("Add AI", language))
        step = await d.click("alice", _("Start", language))
        assert not step.problems, step.problems
        alice, turn, mark = Player(d, language), None, len(d.server.log)
        for _step in range(600):
            record = await record_of(d)
            if record.status != "running":
                break
            s = record.game().state
            if (s.turn, s.current) != turn:
                if turn is not None:
                    turns.append((alice.taps, alice.ordinary()))
                    posted.append(channel_posts(d, mark))
                    uploaded.append(pictures(d, mark))
                alice.taps, alice.turn, turn, mark = 0, {}, (s.turn, s.current), len(d.server.log)
            await alice.step()
        turns.append((alice.taps, alice.ordinary()))
        record = await record_of(d)
        assert record.status == "finished"
        over = [m for m in d.messages if m.embeds and "🏆" in str(m.embeds[0].get("title"))]
        assert over, "the end is announced"
        assert all(not m.content.startswith("⛔") for m in d.messages)
    print(f"new channel messages and images per turn ({language}):", posted)
    assert all(messages <= 2 and images <= 1 for messages, images in posted), posted
    assert all(len(sizes) <= PICTURES for sizes in uploaded), uploaded
    return turns


@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_a_whole_game_by_taps_keeps_every_ordinary_turn_within_the_budget(tmp_path: Path, language: str):
    turns = await play_by_taps(tmp_path, language)
    print(f"taps per turn ({language}):", [taps for taps, _ordinary in turns])
    assert any(ordinary for _taps, ordinary in turns)
    over = [taps for taps, ordinary in turns if ordinary and taps > BUDGET]
    assert not over, (over, turns)


@pytest.mark.real_render
@pytest.mark.parametrize("turn_order", ["sequential", "freestyle"])
async def test_a_human_turn_uploads_at_most_three_pictures_and_300_kb(tmp_path: Path, turn_order: str):
    """With the real phone views: every human turn of a whole game by taps, edits included, within the budget,
    in seat order and in freestyle rounds (a round's own messages counted with the turn that plays in it)."""
    uploaded: list[list[int]] = []
    await play_by_taps(tmp_path, "en", uploaded, turn_order)
    print("pictures per turn (bytes):", uploaded)
    assert any(uploaded)
    assert all(len(sizes) <= PICTURES and sum(sizes) <= PICTURE_BYTES for sizes in uploaded), uploaded


# -- each flow, on a position built directly: what one tap does, and that forged values are refused --------------
class _Response:
    def __init__(self) -> None:
        self.sent: list[tuple[str | None, Any]] = []

    async def send_message(self, content: str | None = None, **options: Any) -> None:
        self.sent.append((content, options.get("view")))

    async def edit_message(self, **options: Any) -> None:
        self.sent.append((options.get("content"), options.get("view")))


class _Interaction:
    locale = "en"
    message = None

    def __init__(self) -> None:
        self.response = _Response()
        self.extras: dict[str, Any] = {}


class _Cog:
    def __init__(self) -> None:
        self.actions: list[Any] = []

    async def perform(self, interaction: Any, record: Any, action: Any) -> None:
        self.actions.append(action)


def tap_on(game: Any, *args: str) -> Any:
    return Tap(_Cog(), _Interaction(), SimpleNamespace(id=1), game, game.state.current, list(args))  # type: ignore[arg-type]


def shown(tap: Any) -> list[str]:
    """The labels of the buttons the last answer showed."""
    view = tap.interaction.response.sent[-1][1]
    return [c.item.label for c in view.children if hasattr(c.item, "style")]


async def refused(coroutine: Any, tap: Any) -> bool:
    try:
        await coroutine
    except UserError:
        return not tap.cog.actions
    return False


async def test_the_best_set_is_one_tap_and_the_plus_two_is_chosen_only_among_the_territories_held():
    game = position(new_game(3), {"alaska": 0, "ontario": 0}, phase=REINFORCE, seat=0)
    game.state.reinforcements = 3
    game.state.hands[0] = ["alaska", "peru", "brazil"]  # one of each, one territory held: no choice to make
    tap = tap_on(game)
    await buttons.trade(tap)
    assert tap.cog.actions == [Trade(0, game.best_set(0), None)]
    game.state.hands[0] = ["alaska", "ontario", "wild_1"]  # two held: which gets the +2?
    tap = tap_on(game)
    await buttons.trade(tap)
    assert not tap.cog.actions and shown(tap) == ["+2 on Alaska", "+2 on Ontario"]
    cards = ".".join(game.best_set(0) or ())
    tap = tap_on(game, cards, "ontario")
    await buttons.trade(tap)
    assert tap.cog.actions == [Trade(0, game.best_set(0), "ontario")]
    for forged in (("peru",), ("kamchatka",), ("x",)):  # not a card of the set held, or no territory at all
        tap = tap_on(game, cards, *forged)
        assert await refused(buttons.trade(tap), tap), forged
    tap = tap_on(game, "alaska.peru.brazil")  # not in the hand any more
    assert await refused(buttons.trade(tap), tap)


async def test_placing_takes_one_choice_any_count_from_a_menu_and_no_count_for_the_last_army():
    game = position(new_game(3), {"alaska": 0, "ontario": 0}, phase=REINFORCE, seat=0)
    game.state.reinforcements = 7
    tap = tap_on(game, "7")
    await buttons.on_select(tap, verb.PLACE_ALL, ["alaska"])
    assert tap.cog.actions == [Place(0, "alaska", 7)]
    for args, value in ((("5",), "alaska"), (("7",), "peru"), (("x",), "alaska"), ((), "alaska")):
        tap = tap_on(game, *args)  # another count than is left (an earlier moment), or not the player's
        assert await refused(buttons.on_select(tap, verb.PLACE_ALL, [value]), tap), (args, value)
    tap = tap_on(game)
    await buttons.on_select(tap, verb.PLACE, ["alaska"])
    assert shown(tap) == ["+1", "+3", "+5", "All 7"]
    selects = [c.item for c in tap.interaction.response.sent[-1][1].children if hasattr(c.item, "options")]
    assert [o.value for o in selects[0].options] == [str(n) for n in range(1, 8)]  # any count
    tap = tap_on(game, "alaska")
    await buttons.on_select(tap, verb.PUT_COUNT, ["4"])
    assert tap.cog.actions == [Place(0, "alaska", 4)]
    for args, value in ((("alaska",), "8"), (("alaska",), "0"), (("peru",), "1"), (("alaska",), "x")):
        tap = tap_on(game, *args)
        assert await refused(buttons.on_select(tap, verb.PUT_COUNT, [value]), tap), (args, value)
    for left in (2, 3, 4, 5, 6):  # every count is offered: a button, or the menu
        game.state.reinforcements = left
        tap = tap_on(game)
        await buttons.on_select(tap, verb.PLACE, ["alaska"])
        view = tap.interaction.response.sent[-1][1]
        offered = {int(c.item.custom_id.split(":")[-1]) for c in view.children if hasattr(c.item, "style")}
        offered |= {int(o.value) for c in view.children if hasattr(c.item, "options") for o in c.item.options}
        assert offered == set(range(1, left + 1)), left
    game.state.reinforcements = 1
    tap = tap_on(game)
    await buttons.on_select(tap, verb.PLACE, ["ontario"])
    assert tap.cog.actions == [Place(0, "ontario", 1)]  # the last army: no "All 1"


async def test_the_menus_of_attacks_and_fortify_moves_offer_only_legal_pairs_best_first():
    game = position(new_game(3), {"alaska": 0, "alberta": 0, "northwest_territory": 0},
                    {"alaska": 9, "alberta": 4, "northwest_territory": 2, "kamchatka": 1, "ontario": 8})
    pairs = attack_pairs(game, 0)
    assert pairs[0] == ("alaska", "kamchatka")  # the best odds first
    assert all(win_chance(game, *a) >= win_chance(game, *b) for a, b in itertools.pairwise(pairs))
    tap = tap_on(game)
    await buttons.on_select(tap, verb.ATTACK_PAIR, [pair_value(game, "alaska", "kamchatka")])
    assert shown(tap) == ["1 die", "2 dice", "3 dice", "Blitz"] and not tap.cog.actions
    ids = game.board.territory_ids
    garbage = (pair_value(game, "kamchatka", "alaska"), f"{ids.index('alaska')}>{len(ids)}", "x", "1>2>3", "")
    for purpose, forged in [*((verb.ATTACK_PAIR, v) for v in (*garbage, pair_value(game, "alaska", "alberta"))),
                            *((verb.FORTIFY_PAIR, v) for v in (*garbage, pair_value(game, "alaska", "kamchatka")))]:
        tap = tap_on(game)  # an enemy's territory, one's own as a target of an attack, no pair at all
        assert await refused(buttons.on_select(tap, purpose, [forged]), tap), (purpose, forged)
    assert pair_value(game, "alaska", "alberta") in choices(game, 0, verb.FORTIFY_PAIR)
    tap = tap_on(game)
    await buttons.on_select(tap, verb.FORTIFY_PAIR, [pair_value(game, "alaska", "alberta")])
    assert shown(tap)[-1] == "All but one (8)"
    tap = tap_on(game, "alaska", "alberta", "8")
    await buttons.fort(tap)
    assert tap.cog.actions == [Fortify(0, "alaska", "alberta", 8)]


async def test_stop_ends_the_battle_and_ending_all_attacks_asks_first():
    game = position(new_game(3), {"alaska": 0}, {"alaska": 9})
    tap = tap_on(game)
    await buttons.stop(tap)  # no action: the buttons without the battle
    assert not tap.cog.actions and "Attack again" not in shown(tap) and "End attacks" in shown(tap)
    tap = tap_on(game)
    await buttons.end_attacks(tap)
    assert not tap.cog.actions and shown(tap) == ["Yes, end my attacks"]
    tap = tap_on(game)
    await buttons.end_attacks_confirmed(tap)
    assert tap.cog.actions == [EndAttack(0)]


async def test_buttons_posted_under_a_verb_s_older_id_still_do_what_they_did():
    """The roll's and the removal's ids are their names now (``roll``, ``kick``); the buttons of messages posted
    under the older ids (``atk``, ``kickok``) read as the same verbs."""
    import re

    from discord import ui

    from cogs.shared.components import BUTTON_ID

    assert (verb.ROLL, verb.KICK) == ("roll", "kick")
    for custom_id, current in (("risk:12:atk:0:31:3", "risk:12:roll:0:31:3"), ("risk:7:kickok:2", "risk:7:kick:2"),
                               ("risk:12:roll:0:31:0", "risk:12:roll:0:31:0"),
                               ("risk:3:blitz:4:5", "risk:3:blitz:4:5")):
        match = re.fullmatch(BUTTON_ID, custom_id)
        assert match is not None, custom_id
        item = await GameButton.from_custom_id(None, ui.Button(label="Attack again", custom_id=custom_id), match)
        assert item.item.custom_id == current and item.verb in (verb.ROLL, verb.KICK, verb.BLITZ)
        assert item.args == current.split(":")[3:]


async def test_neutral_armies_go_by_count_with_the_neutral_armies_left():
    game, _events = Game.new(["A", "B"], "neutral", {"deployment": "deal"})
    s = game.state
    s.batch_left, s.neutral_left = 0, 3
    assert "3 neutral left" in turn_prompt(game, "en", "A")
    neutral = choices_of(game, verb.NEUTRAL)[0]
    tap = tap_on(game)
    await buttons.on_select(tap, verb.NEUTRAL, [neutral])
    assert shown(tap) == ["+1", "+2", "All 3"] and "3 neutral left" in str(tap.interaction.response.sent[-1][0])
    tap = tap_on(game, neutral, "2")
    await buttons.neutral_put(tap)
    assert tap.cog.actions == [Place(s.current, neutral, 2)]
    mine = s.territories_of(s.current)[0]
    for args in ((neutral, "4"), (neutral, "0"), (mine, "1")):
        tap = tap_on(game, *args)
        assert await refused(buttons.neutral_put(tap), tap), args
    s.neutral_left = 8  # more than the buttons hold: a menu of any count
    tap = tap_on(game)
    await buttons.on_select(tap, verb.NEUTRAL, [neutral])
    assert shown(tap) == ["+1", "+2", "+3", "All 8"]
    tap = tap_on(game, neutral)
    await buttons.on_select(tap, verb.NEUTRAL_COUNT, ["6"])
    assert tap.cog.actions == [Place(s.current, neutral, 6)]
    for args, value in (((neutral,), "9"), ((mine,), "1"), ((neutral,), "x")):
        tap = tap_on(game, *args)
        assert await refused(buttons.on_select(tap, verb.NEUTRAL_COUNT, [value]), tap), (args, value)


def choices_of(game: Any, purpose: str) -> list[str]:
    return choices(game, game.state.current, purpose)


async def test_labels_keep_to_the_guideline_and_each_mark_means_one_thing():
    assert fit("Trade: Brazil, New Guinea, W. Australia") == "Trade: Brazil, New Guinea, W. Austral…"
    assert len(fit("x" * 40, "🃏")) == 34 and fit("Blitz", "⚡") == "Blitz"
    long = GameButton(1, "trade", label="Trade: Brazil, New Guinea, W. Australia")
    assert len(long.item.label or "") == 38
    game = position(new_game(3, mode="missions"), {"alaska": 0, "alberta": 0}, {"alaska": 9, "alberta": 3})
    view = controls(1, game, "en", [{"type": "battle", "from": "alaska", "to": "kamchatka"}])
    marks = {c.item.label: str(c.item.emoji) for c in view.children if hasattr(c.item, "style")}
    assert marks["Attack"] != marks["Mission"] and "🎯" not in (marks["Attack"], marks["Mission"],
                                                                 marks["Attack again"])
    for language in ("en", "nb", "es"):
        for phase in (ATTACK, REINFORCE, FORTIFY):
            game.state.phase, game.state.reinforcements = phase, 5
            for child in controls(1, game, language, public=True).children:
                label = getattr(child.item, "label", None)
                if label and hasattr(child.item, "style"):
                    assert len(label) <= (34 if child.item.emoji else 38), label


async def test_under_fog_the_player_alone_sees_their_reinforcements(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="fog-count"), strict=True) as d:
        await d.send_command("alice", "general", "risk new", {"deployment": "auto", "fog": "on"})
        await d.click("alice", "Add AI")
        await d.click("alice", "Start")
        game = (await record_of(d)).game()
        s = game.state
        assert s.current == 0 and s.phase == REINFORCE  # (with this seed, alice's reinforcements come first)
        n = s.reinforcements
        panel = [m for m in d.messages if m.content.startswith("🎯") and not m.ephemeral][-1]
        assert f"place {n} armies" not in panel.content  # the channel is not told
        step = await d.click("alice", "Continue", panel)
        assert step[-1].ephemeral and f"place {n} armies" in step[-1].content
        assert not panel.selects  # no menu of territories where everybody reads
        step = await d.send_command("alice", "general", "risk status", {})
        fields = {f["name"]: f["value"] for f in step[-1].embeds[0]["fields"]}
        assert step[-1].ephemeral and fields["To place"] == str(n)


def _planted(d: OfflineDiscord, custom_id: str, values: list[str]) -> Any:
    """A lobby message carrying a menu with values no menu offers (Discord delivers what the client sends)."""
    component = {"type": 3, "custom_id": custom_id, "min_values": 1, "max_values": 1,
                 "options": [{"label": v, "value": v} for v in values]}
    return d.server.create_message(d.channel("general"), {"content": "a lobby",
                                                          "components": [{"type": 1, "components": [component]}]}, [])


async def test_the_host_sets_up_a_lobby_by_taps_and_forged_values_change_nothing(tmp_path: Path):
    from cogs.game.lobby import MENU_SETTINGS, RELIABILITY_STEPS, settings_text
    from engine.settings import OPTION
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="lobby"), strict=True) as d:
        step = await d.send_command("alice", "general", "risk new", {"deployment": "auto"})
        lobby = step[-1]
        assert [s["custom_id"].split(":")[2] for s in lobby.selects] == ["ai", "set"]
        step = await d.select("alice", ["easy"], lobby, custom_id=lobby.selects[0]["custom_id"])  # an AI, its level
        record = await record_of(d)
        assert [p.ai_level for p in record.players if p.is_ai] == ["easy"] and not step.problems
        # Each setting of the menu: choose it, then a value (two taps), from the values declared in OPTIONS.
        for name, value in (("mode", "missions"), ("fog", "on"), ("cards", "fixed"), ("fortify", "connected"),
                            ("teams", "none"), ("turn_deadline", "3600"), ("min_reliability", "80")):
            lobby = d.message(lobby.id)
            step = await d.select("alice", [name], lobby, custom_id=lobby.selects[1]["custom_id"])
            values = d.message(lobby.id).selects[2]
            deadlines = (300, 900, 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 3 * 86400, 7 * 86400)
            assert [o["value"] for o in values["options"]] == [str(v) for v in (
                OPTION[name].values or (RELIABILITY_STEPS if name == "min_reliability" else deadlines))]
            step = await d.select("alice", [value], d.message(lobby.id), custom_id=values["custom_id"])
            assert not step.problems, step.problems
            assert str((await record_of(d)).settings[name]) == value
        assert set(MENU_SETTINGS) == {"mode", "fog", "teams", "cards", "fortify", "turn_order", "setup",
                                      "turn_deadline", "min_reliability", "stand_in", "hints"}
        before = await record_of(d)
        gid = before.id
        for custom_id, value in ((f"lobbys:{gid}:val:fog", "maybe"), (f"lobbys:{gid}:val:max_missed", "0"),
                                 (f"lobbys:{gid}:val:turn_deadline", "61"), (f"lobbys:{gid}:val:vacation_days", "9"),
                                 (f"lobbys:{gid}:val:mode", "Classic"), (f"lobbys:{gid}:set", "language"),
                                 (f"lobbys:{gid}:val:min_reliability", "85"),
                                 (f"lobbys:{gid}:ai", "genius"), (f"lobbys:{gid}:ai", "random")):
            step = await d.select("alice", [value], _planted(d, custom_id, [value]))
            assert "not available" in step[-1].content and step[-1].ephemeral, (custom_id, value, step[-1].content)
        d.set_locale("bob", "en-US")
        lobby = d.message(lobby.id)
        step = await d.select("bob", ["fog"], lobby, custom_id=lobby.selects[1]["custom_id"])  # not the host
        assert step[-1].ephemeral and "host" in step[-1].content
        after = await record_of(d)
        assert after.settings == before.settings and len(after.players) == len(before.players)  # nothing changed
        # A setting that does not apply is not listed: no set-up turns when deployment is automatic.
        assert "Starting armies per set-up turn" not in settings_text(after.settings, "en")
        assert "Starting armies per set-up turn" in settings_text({**after.settings, "deployment": "deal",
                                                                   "setup": "turns"}, "en")
        # Nor when they are all placed in one round.
        assert "Starting armies per set-up turn" not in settings_text({**after.settings, "deployment": "deal",
                                                                       "setup": "round"}, "en")


async def test_the_trade_button_tells_the_channel_nothing_about_the_hand():
    game = position(new_game(3), {"alaska": 0}, phase=REINFORCE, seat=0)
    game.state.reinforcements = 3

    def offered(public: bool) -> bool:
        view = controls(1, game, "en", public=public)
        return "Trade best set" in [getattr(c.item, "label", None) for c in view.children]
    game.state.hands[0] = ["alaska", "ontario"]  # two cards: never a set
    assert not offered(True) and not offered(False)
    game.state.hands[0] = ["alaska", "egypt", "ontario"]  # three cards, no set: the channel sees the button anyway
    assert game.best_set(0) is None and offered(True) and not offered(False)
    game.state.hands[0] = ["alaska", "ontario", "brazil"]  # a set
    assert offered(True) and offered(False)
