"""A whole game played only by taps, in each language: every step a phone player can take is a button or a menu."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from discord_helpers import OfflineDiscord, make_bot

from cogs.shared.i18n import _
from engine import Attack, Blitz, ChooseCapital, Claim, Place, Trade
from engine.ai import make_ai
from engine.state import ATTACK, CAPITAL, CLAIM, FORTIFY, OCCUPY, REINFORCE, SETUP

pytestmark = pytest.mark.asyncio
LANGUAGES = {"en": "en-US", "nb": "no", "es": "es-ES"}


async def record_of(d: OfflineDiscord) -> Any:
    return (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]


async def pick(d: OfflineDiscord, user: str, territory: str, board: Any) -> None:
    """Choose a territory in the newest menu: by continent first when the menu groups them."""
    menu = next(m for m in reversed(d.visible_to(user)) if m.selects)
    values = [o["value"] for o in menu.selects[0]["options"]]
    if territory not in values:
        step = await d.select(user, [board.territories[territory].continent], menu)
        assert not step.problems, step.problems
        menu = step[-1]
    step = await d.select(user, [territory], menu)
    assert not step.problems, step.problems


async def tap(d: OfflineDiscord, user: str, label: str) -> None:
    step = await d.click(user, label)
    assert not step.problems, (label, step.problems)
    refused = [m.content for m in step if m.content.startswith("⛔")]
    assert not refused, (label, refused)


async def play_turn_by_taps(d: OfflineDiscord, user: str, language: str) -> None:
    """One step of the player's turn, by taps only, as a sensible player chooses it."""
    record = await record_of(d)
    game = record.game()
    s = game.state
    seat = s.current
    choice = make_ai("normal", salt="taps").choose(game, seat)

    def word(text: str, **values: Any) -> str:
        return _(text, language, **values)
    if s.phase == CLAIM and isinstance(choice, Claim):
        await tap(d, user, word("Claim"))
        await pick(d, user, choice.territory, game.board)
    elif s.phase == CAPITAL and isinstance(choice, ChooseCapital):
        await tap(d, user, word("Capital"))
        await pick(d, user, choice.territory, game.board)
    elif s.phase in (SETUP, REINFORCE) and (game.must_trade(seat) or isinstance(choice, Trade)):
        await tap(d, user, word("Trade cards") if game.must_trade(seat) else word("Cards"))
        menu = next(m for m in reversed(d.visible_to(user)) if m.buttons and m.ephemeral)
        trade = next(b["label"] for b in menu.buttons if b["label"].startswith(word("Trade")))
        step = await d.click(user, trade, menu)
        assert not step.problems, step.problems
    elif s.phase in (SETUP, REINFORCE):
        territory = choice.territory if isinstance(choice, Place) else s.territories_of(seat)[0]
        left = s.reinforcements if s.phase == REINFORCE else s.batch_left
        await tap(d, user, word("Place"))
        await pick(d, user, territory, game.board)
        await tap(d, user, word("All {n}", n=left))
    elif s.phase == ATTACK and isinstance(choice, (Attack, Blitz)):
        await tap(d, user, word("Attack"))
        await pick(d, user, choice.source, game.board)
        await pick(d, user, choice.target, game.board)
        await tap(d, user, word("Blitz"))
    elif s.phase == ATTACK:
        await tap(d, user, word("End turn"))
        await tap(d, user, word("Yes, end my turn"))
    elif s.phase == OCCUPY:
        assert s.pending is not None
        await tap(d, user, word("Move all ({n})", n=s.pending["max"]))
    elif s.phase == FORTIFY:
        await tap(d, user, word("End turn"))
    else:
        raise AssertionError(f"no tap for {s.phase} and {choice}")


@pytest.mark.parametrize("language", list(LANGUAGES))
async def test_a_whole_game_by_taps(tmp_path: Path, language: str):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed=f"taps-{language}"), strict=True) as d:
        d.set_locale("alice", LANGUAGES[language])
        await d.send_command("alice", "general", "risk new", {"language": language, "deployment": "auto",
                                                             "max_rounds": 6})
        await d.click("alice", _("Add AI", language))
        step = await d.click("alice", _("Start", language))
        assert not step.problems, step.problems
        for _turn in range(600):
            record = await record_of(d)
            if record.status != "running":
                break
            await play_turn_by_taps(d, "alice", language)
        record = await record_of(d)
        assert record.status == "finished"
        over = [m for m in d.messages if m.embeds and "🏆" in str(m.embeds[0].get("title"))]
        assert over, "the end is announced"
        assert all(not m.content.startswith("⛔") for m in d.messages)
