"""The live board as a phone client, in Debian's Chromium at 360×740 with touch: the page draws the board itself
over the map's background (loaded once), opens on the viewer's front with readable numbers, plays the reference
turn within its budget of taps, shows every battle, and moves cost a few kilobytes.

Slow (a browser): ``make test-slow`` and CI run it. ``RISK_BOARD_SHOTS=folder`` keeps its screenshots.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import boarded, chromium, link_for, record_of

pytestmark = [pytest.mark.slow]
__all__ = ["boarded"]  # the fixture, used by name
PHONE = {"width": 360, "height": 740}
SHOTS = os.environ.get("RISK_BOARD_SHOTS")


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    async with chromium() as launched:
        yield launched


async def phone(browser: Any, **more: Any) -> tuple[Any, Any]:
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                        **more)
    return context, await context.new_page()


async def shot(page: Any, tmp_path: Path, name: str) -> None:
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(folder / f"{name}.png"))


async def until(page: Any, expression: str, seconds: float = 15) -> None:
    """Wait until ``expression`` is true in the page (asked from outside: the page's policy allows no eval)."""
    for _ in range(int(seconds / 0.05)):
        if await page.evaluate(expression):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the page never got {expression}")


SHOWN = "(t) => { const r = document.getElementById('t-' + t).getBoundingClientRect();" \
        " const v = document.getElementById('viewport').getBoundingClientRect();" \
        " return r.right > v.left && r.left < v.right && r.bottom > v.top && r.top < v.bottom; }"
NUMBER_PX = "(t) => { const g = document.querySelector(`.badge[data-territory='${t}'] text`);" \
            " return g.getBoundingClientRect().height; }"


async def test_the_board_opens_on_the_players_front_with_numbers_readable_at_any_zoom(boarded, browser, tmp_path):
    d, _server, _base = boarded
    record = await record_of(d)
    game = record.game()
    seat = game.state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    context, page = await phone(browser)
    await page.goto(await link_for(d, who))
    await until(page, "document.querySelector('.badge text').textContent !== ''")
    await shot(page, tmp_path, "1-first-load")
    zoom = await page.evaluate("document.getElementById('stage').getBoundingClientRect().width / "
                               "document.getElementById('viewport').clientWidth")
    assert zoom > 1.5  # zoomed in on the front, not the whole world in 360 px
    mine = game.state.territories_of(seat)
    shown = [t for t in mine if await page.evaluate(f"({SHOWN})({t!r})")]
    assert shown
    for t in shown:  # the army numbers there, from the page's own geometry
        assert await page.evaluate(f"({NUMBER_PX})({t!r})") >= 12
    await page.locator("#zoom-fit").tap()
    for t in shown:  # the whole map in 360 px: the numbers keep their size
        assert await page.evaluate(f"({NUMBER_PX})({t!r})") >= 12
    await shot(page, tmp_path, "2-fit")
    await context.close()
