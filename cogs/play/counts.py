"""Menus of numbers: how many armies to move in or to fortify with, any legal number reached by taps.

Discord allows 25 options in a menu: a longer range is offered as ranges first, each opening its own numbers.
Every number is checked against the legal range of the game as it is now.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from cogs.play.panel import count_select
from cogs.play.tap import Tap
from cogs.shared.components import view_of
from engine import Fortify, Occupy, Place
from engine.choices import armies_to_place
from engine.state import OCCUPY, SETUP
from present import verbs as verb
from present.i18n import _


async def narrowed(tap: Tap, purpose: str, value: str, low: int, high: int) -> bool:
    """A range chosen in a menu of counts ("26-50"): offer its numbers. False if ``value`` is a single number."""
    if "-" not in value:
        return False
    first, _sep, last = value.partition("-")
    tap.args = [*tap.args, first, last]
    a, b = tap.number(len(tap.args) - 2, low, high), tap.number(len(tap.args) - 1, low, high)
    if a > b:
        raise tap.refuse()
    view = view_of(count_select(tap.record.id, purpose, range(a, b + 1), _("How many?", tap.locale), *tap.args[:-2]))
    message = tap.interaction.message
    if message is not None and message.flags.ephemeral:
        await tap.interaction.response.edit_message(view=view)
    else:  # the menu sits on a message others read: the narrower one comes privately
        await tap.interaction.response.send_message(_("How many?", tap.locale), view=view, ephemeral=True)
    return True


async def chose_move_count(tap: Tap, value: str) -> None:
    pending = tap.game.state.pending if tap.game.state.phase == OCCUPY else None
    if pending is None:
        raise tap.refuse()
    if await narrowed(tap, verb.MOVE_COUNT, value, pending["min"], pending["max"]):
        return
    tap.args = [value]
    await tap.act(Occupy(tap.seat, tap.number(0, pending["min"], pending["max"])))


async def chose_fort_count(tap: Tap, value: str) -> None:
    source = tap.legal(tap.arg(0), verb.FORTIFY_FROM)
    target = tap.legal(tap.arg(1), verb.FORTIFY_TO, source)
    most = max(1, tap.game.state.armies[source] - 1)
    if await narrowed(tap, verb.FORT_COUNT, value, 1, most):
        return
    tap.args = [source, target, value]
    await tap.act(Fortify(tap.seat, source, target, tap.number(2, 1, most)))


async def _place_count(tap: Tap, purpose: str, count_verb: str, left: int, value: str) -> None:
    """A count chosen from a menu for the armies (``left`` of them) placed on the territory of ``purpose``."""
    territory = tap.legal(tap.arg(0), purpose)
    if not left:
        raise tap.refuse()
    if await narrowed(tap, count_verb, value, 1, left):
        return
    tap.args = [territory, value]
    await tap.act(Place(tap.seat, territory, tap.number(1, 1, left)))


async def chose_put_count(tap: Tap, value: str) -> None:
    await _place_count(tap, verb.PLACE, verb.PUT_COUNT, armies_to_place(tap.game.state), value)


async def chose_neutral_count(tap: Tap, value: str) -> None:
    s = tap.game.state
    await _place_count(tap, verb.NEUTRAL, verb.NEUTRAL_COUNT, s.neutral_left if s.phase == SETUP else 0, value)


# Menus of numbers: their handlers check the number themselves.
COUNTS: dict[str, Callable[[Tap, str], Awaitable[None]]] = {verb.MOVE_COUNT: chose_move_count,
                                                            verb.FORT_COUNT: chose_fort_count,
                                                            verb.PUT_COUNT: chose_put_count,
                                                            verb.NEUTRAL_COUNT: chose_neutral_count}


__all__ = ["COUNTS"]
