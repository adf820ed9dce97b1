"""One tap on a button or a menu: who, on which game as it is now, with which arguments, and the checks every
argument goes through before use (cogs/play/buttons.py holds what each verb does)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from cogs.play.menus import PAIRS, SOURCES, choices, pick_territory
from cogs.shared.components import territory_at
from cogs.shared.errors import CHANGED, UserError
from cogs.shared.i18n import _, territory_name
from cogs.shared.text import phase_text
from engine import Action, Game
from engine.choices import Choices, choices_for
from store import GameRecord


class Player(Protocol):
    """What a tap needs from the cog: apply an action and answer, show the cards or the map."""

    async def perform(self, interaction: discord.Interaction[Any], record: GameRecord, action: Action) -> None: ...

    async def send_cards(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None: ...

    async def send_mission(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None: ...

    async def remove_player(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None: ...

    async def offer(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None: ...

    async def cast_ballot(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int,
                          args: list[str]) -> None: ...


@dataclass
class Tap:
    """One tap: who, on which game (as it is now), with which arguments."""

    cog: Player
    interaction: discord.Interaction[Any]
    record: GameRecord
    game: Game
    seat: int
    args: list[str]

    def __post_init__(self) -> None:
        # A tap stores nothing until it plays a move (``perform``) or removes a player (``answer``), each of which
        # notes it: an error before says nothing was changed.
        self.interaction.extras.setdefault(CHANGED, False)

    @property
    def locale(self) -> object:
        return self.interaction.locale

    @property
    def choices(self) -> Choices:
        """What the tapping seat may do in the game as it is now (``engine.choices``)."""
        return choices_for(self.game, self.seat)

    def name(self, territory: str) -> str:
        return territory_name(self.game.board, territory, self.locale)

    def refuse(self) -> UserError:
        return UserError(_("That choice is not available now; open the menu again.", self.locale))

    def arg(self, index: int) -> str:
        if index >= len(self.args):
            raise self.refuse()
        return self.args[index]

    def number(self, index: int, low: int, high: int) -> int:
        """An argument that must be a whole number from ``low`` to ``high``."""
        try:
            value = int(self.arg(index))
        except ValueError:
            raise self.refuse() from None
        if not low <= value <= high:
            raise self.refuse()
        return value

    def legal(self, value: str, purpose: str, *extra: str) -> str:
        """The territory numbered ``value`` (``components.ref``; an attack or fortify move's ``pair_value`` as it
        is) if it is among the choices the menu of ``purpose`` offers now; ``extra``: the menu's source, an id."""
        chosen = value if purpose in PAIRS else territory_at(self.game.board, value)
        if chosen is None or chosen not in choices(self.game, self.seat, purpose, extra):
            raise self.refuse()
        return chosen

    def territory(self, index: int, purpose: str, *extra: str) -> str:
        """The argument ``index`` as a territory the menu of ``purpose`` offers now (see ``legal``)."""
        return self.legal(self.arg(index), purpose, *extra)

    def extras(self, purpose: str, given: Sequence[str]) -> list[str]:
        """A menu's own arguments as ids: the source of a menu of targets is checked as a choice of its own."""
        if purpose in SOURCES:
            return [self.legal(given[0] if given else "", SOURCES[purpose])]
        return list(given)

    async def act(self, action: Action) -> None:
        await self.cog.perform(self.interaction, self.record, action)

    @property
    def private_message(self) -> bool:
        """Whether the tapped component is on a message only this player sees."""
        message = self.interaction.message
        return message is not None and message.flags.ephemeral

    async def reply(self, content: str, view: discord.ui.View) -> None:
        """The next step of a flow: in place of a private menu, or privately below a message others read."""
        if self.private_message:
            await self.interaction.response.edit_message(content=content, view=view, attachments=[])
        else:
            await self.interaction.response.send_message(content, view=view, ephemeral=True)

    async def menu(self, purpose: str, territories: Sequence[str], prompt: str, *extra: str) -> None:
        await pick_territory(self.interaction, self.record.id, self.game, purpose, territories, prompt, *extra)


def in_phase(tap: Tap, action: type[Action], *phases: str) -> None:
    """A button of an earlier moment (an old panel) is refused at once, with what the game is doing now: one
    whose action the phase does not allow (``engine.phases.PHASES``), or that only ``phases`` (if given) offer."""
    s = tap.game.state
    if not tap.game.allows(action) or (phases and s.phase not in phases):
        raise UserError(_("That button is from an earlier moment: now you are {phase}. Use the newest buttons.",
                          tap.locale, phase=phase_text(s, tap.locale, tap.seat)))


__all__ = ["Player", "Tap", "in_phase"]
