"""A whole game played only by taps, in each language: every step a phone player can take is a button or a menu,
and an ordinary turn takes at most ``BUDGET`` taps.

An ordinary turn (what a player does on most turns, and what the budget is for): at most one card trade, all the
reinforcements placed on one territory, up to three attacks (a battle each, rolled or blitzed) with a move-in after
each conquest, and one fortify move, then the turn ends. Every tap is counted: a button pressed or a
value chosen in a menu, whether its answer is a new message or an edited one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from discord_helpers import OfflineDiscord, make_bot

from cogs.play.menus import attack_pairs, fortify_pairs, pair_value, win_chance
from cogs.shared import components as verb
from cogs.shared.i18n import _
from engine.state import ATTACK, FORTIFY, OCCUPY, REINFORCE, SETUP

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
            await self.choose(verb.PLACE_ALL, target)
        elif s.phase == ATTACK and self.turn.get("attack", 0) < MOST_ATTACKS and pairs \
                and win_chance(game, *pairs[0]) >= 0.5:
            self.count("attack")
            newest = self.newest()
            if word("Attack again") in newest.button_labels:  # the same battle, one tap
                await self.tap(word("Attack again"), newest)
                return
            taken = self.menu(verb.ATTACK_TO)
            targets = [o["value"] for o in taken[1]["options"]] if taken else []
            source = taken[1]["custom_id"].split(":")[3] if taken else ""
            best = max(targets, key=lambda t: win_chance(game, source, t)) if targets else None
            if best is not None and win_chance(game, source, best) >= 0.5:  # from the territory just taken
                step = await self.choose(verb.ATTACK_TO, best)
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


async def play_by_taps(tmp_path: Path, language: str) -> list[tuple[int, bool]]:
    """A game of Alice and two AIs, by taps only; each of Alice's turns: its taps, and whether it was ordinary."""
    turns: list[tuple[int, bool]] = []
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed=f"taps-{language}"), strict=True) as d:
        d.set_locale("alice", LANGUAGES[language])
        await d.send_command("alice", "general", "risk new", {"language": language, "deployment": "auto",
                                                             "max_rounds": 6})
        await d.click("alice", _("Add AI", language))
        await d.click("alice", _("Add AI", language))
        step = await d.click("alice", _("Start", language))
        assert not step.problems, step.problems
        alice, turn = Player(d, language), None
        for _step in range(600):
            record = await record_of(d)
            if record.status != "running":
                break
            s = record.game().state
            if (s.turn, s.current) != turn:
                if turn is not None:
                    turns.append((alice.taps, alice.ordinary()))
                alice.taps, alice.turn, turn = 0, {}, (s.turn, s.current)
            await alice.step()
        turns.append((alice.taps, alice.ordinary()))
        record = await record_of(d)
        assert record.status == "finished"
        over = [m for m in d.messages if m.embeds and "🏆" in str(m.embeds[0].get("title"))]
        assert over, "the end is announced"
        assert all(not m.content.startswith("⛔") for m in d.messages)
    return turns


@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_a_whole_game_by_taps_keeps_every_ordinary_turn_within_the_budget(tmp_path: Path, language: str):
    turns = await play_by_taps(tmp_path, language)
    print(f"taps per turn ({language}):", [taps for taps, _ordinary in turns])
    assert any(ordinary for _taps, ordinary in turns)
    over = [taps for taps, ordinary in turns if ordinary and taps > BUDGET]
    assert not over, (over, turns)
