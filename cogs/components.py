"""Buttons and selects that keep working after a restart.

Every component is a ``DynamicItem``: its custom id carries the game and the step (``risk:12:atk:alaska:
kamchatka:3``), so a tap on a message from last week still reaches the right game. The callbacks only parse
the id and hand over to the cog, which checks who may act.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import ui

if TYPE_CHECKING:
    from .risk import RiskCog

MAX_CUSTOM_ID = 100


def _cog(interaction: discord.Interaction[Any]) -> RiskCog:
    cog = interaction.client.get_cog("RiskCog")  # type: ignore[attr-defined]
    assert cog is not None
    return cog  # type: ignore[no-any-return]


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
        super().__init__(ui.Button(label=label or None, style=style, emoji=emoji, disabled=disabled, row=row,
                                   custom_id=custom_id("risk", game_id, verb, *args)))
        self.game_id = game_id
        self.verb = verb
        self.args = [str(a) for a in args]

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Button[Any],
                             match: re.Match[str], /) -> GameButton:
        return cls(int(match["gid"]), match["verb"], *_args(match), label=item.label or "", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _cog(interaction).on_button(interaction, self.game_id, self.verb, self.args)


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
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Select[Any],
                             match: re.Match[str], /) -> GameSelect:
        return cls(int(match["gid"]), match["verb"], *_args(match), options=list(item.options))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = list((interaction.data or {}).get("values", []))  # type: ignore[union-attr]
        await _cog(interaction).on_select(interaction, self.game_id, self.verb, self.args, values)


def view_of(*items: ui.Item[Any]) -> ui.View:
    """A view holding the given components; timeout None because the ids, not the view, carry the state."""
    view = ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view
