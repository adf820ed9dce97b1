"""Buttons and selects that keep working after a restart.

Every component is a ``DynamicItem``: its custom id carries the game, the verb and its arguments
(``risk:12:roll:0:31:3``), so a tap on a message from last week still reaches the right game. The
callbacks only parse the id and hand over to the ``TapHandler`` (the cog), which checks who may act and checks
every argument and value against the legal choices of the game as it is now (``cogs/play/buttons.py``).

The verbs themselves, and the numbers a territory, a continent or a card travels as, are in ``present/verbs.py``:
the live board uses the same ones.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import ui

from cogs.shared.services import TapHandler, taps_of
from present.verbs import FORMER

MAX_CUSTOM_ID = 100
# Discord's design guideline for a button's label: 38 characters, 34 beside an emoji.
MAX_LABEL, MAX_LABEL_WITH_EMOJI = 38, 34


def fit(label: str, emoji: str | None = None) -> str:
    """A label cut to the guideline's length, with "…" where it was cut."""
    most = MAX_LABEL_WITH_EMOJI if emoji else MAX_LABEL
    return label if len(label) <= most else label[:most - 1].rstrip() + "…"

# The buttons' colours, each with one meaning.
Blue, Grey, Green, Red = (discord.ButtonStyle.primary, discord.ButtonStyle.secondary, discord.ButtonStyle.success,
                          discord.ButtonStyle.danger)

def _handler(interaction: discord.Interaction[Any]) -> TapHandler:
    return taps_of(interaction.client)


def custom_id(prefix: str, game_id: int, verb: str, *args: object) -> str:
    cid = ":".join([prefix, str(game_id), verb, *(str(a) for a in args)])
    if len(cid) > MAX_CUSTOM_ID:
        raise ValueError(f"custom id too long: {cid}")
    return cid


BUTTON_ID = r"risk:(?P<gid>[0-9]+):(?P<verb>[a-z]+)(?P<args>(?::[^:]*)*)"
SELECT_ID = r"risks:(?P<gid>[0-9]+):(?P<verb>[a-z]+)(?P<args>(?::[^:]*)*)"


def _args(match: re.Match[str]) -> list[str]:
    return match["args"].split(":")[1:] if match["args"] else []


class GameButton(ui.DynamicItem[ui.Button[Any]], template=BUTTON_ID):
    """A button of a game: ``verb`` says what it does, ``args`` (colon separated) its parameters."""

    def __init__(self, game_id: int, verb: str, *args: object, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary, emoji: str | None = None,
                 disabled: bool = False, row: int | None = None) -> None:
        super().__init__(ui.Button(label=fit(label, emoji) or None, style=style, emoji=emoji, disabled=disabled,
                                   row=row, custom_id=custom_id("risk", game_id, verb, *args)))
        self.game_id = game_id
        self.verb = verb
        self.args = [str(a) for a in args]

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> GameButton:
        if not isinstance(item, ui.Button):  # discord.py hands over the tapped component: a button here
            raise TypeError(f"a game button's custom id on a {type(item).__name__}")
        verb = FORMER.get(match["verb"], match["verb"])
        return cls(int(match["gid"]), verb, *_args(match), label=item.label or "", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _handler(interaction).on_button(interaction, self.game_id, self.verb, self.args)


class GameSelect(ui.DynamicItem[ui.Select[Any]], template=SELECT_ID):
    """A select menu of a game: the chosen value is a territory, a continent or a count."""

    def __init__(self, game_id: int, verb: str, *args: object, options: list[discord.SelectOption] | None = None,
                 placeholder: str | None = None, row: int | None = None) -> None:
        super().__init__(ui.Select(custom_id=custom_id("risks", game_id, verb, *args), options=options or [],
                                   placeholder=placeholder, row=row, min_values=1, max_values=1))
        self.game_id = game_id
        self.verb = verb
        self.args = [str(a) for a in args]

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str], /) -> GameSelect:
        if not isinstance(item, ui.Select):  # discord.py hands over the chosen component: a select here
            raise TypeError(f"a game select's custom id on a {type(item).__name__}")
        return cls(int(match["gid"]), match["verb"], *_args(match), options=list(item.options))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = list(self.item.values)  # what was chosen, as discord.py read it from the interaction
        await _handler(interaction).on_select(interaction, self.game_id, self.verb, self.args, values)


def view_of(*items: ui.Item[Any]) -> ui.View:
    """A view holding the given components; timeout None because the ids, not the view, carry the state."""
    view = ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view
