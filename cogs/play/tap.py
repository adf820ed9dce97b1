"""One tap on a button or a menu: who, on which game as it is now, with which arguments, and the checks every
argument goes through before use (cogs/play/buttons.py holds what each verb does)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from cogs.shared.components import GameSelect, view_of
from cogs.shared.errors import CHANGED, UserError
from engine import Action, Game
from engine.choices import Choices, choices_for
from present import verbs as verb
from present.i18n import _, continent_name, territory_name
from present.menus import MAX_OPTIONS, PAIRS, SOURCES, choices, option_label, refs
from present.text import phase_text
from present.verbs import continent_ref, ref, territory_at
from store import GameRecord
from table import Table


class Player(Protocol):
    """What a tap needs from the cog: apply an action and answer, show the cards or the map; the table, for what
    is not a move (a plan: cogs/play/plan.py)."""

    table: Table

    async def perform(self, interaction: discord.Interaction[Any], record: GameRecord, action: Action) -> None: ...

    async def send_cards(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None: ...

    async def send_mission(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None: ...

    async def remove_player(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None: ...

    async def offer(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None: ...

    async def cast_ballot(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int,
                          args: list[str]) -> None: ...


async def pick_territory(interaction: discord.Interaction[Any], game_id: int, game: Game, purpose: str,
                         territories: Sequence[str], prompt: str, *extra: str) -> None:
    """A private select of territories; more than 25 are grouped by continent first."""
    locale = interaction.locale
    if not territories:
        raise UserError(_("There is no territory to choose.", locale))
    if len(territories) > MAX_OPTIONS:
        board = game.board
        continents = sorted({board.territories[t].continent for t in territories})
        options = [discord.SelectOption(label=continent_name(board, c, locale)[:100], value=continent_ref(board, c),
                                        description=str(sum(1 for t in territories
                                                            if board.territories[t].continent == c)))
                   for c in continents]
        select = GameSelect(game_id, verb.CONTINENT, purpose, *refs(game, extra), options=options,
                            placeholder=_("Choose a continent", locale))
    else:
        options = [discord.SelectOption(label=option_label(game, t, purpose, extra, locale), value=ref(game.board, t))
                   for t in territories]
        select = GameSelect(game_id, purpose, *refs(game, extra), options=options, placeholder=prompt)
    if interaction.response.is_done():
        await interaction.followup.send(prompt, view=view_of(select), ephemeral=True)
    elif interaction.message is not None and interaction.message.flags.ephemeral:
        await interaction.response.edit_message(content=prompt, view=view_of(select), attachments=[])
    else:
        await interaction.response.send_message(prompt, view=view_of(select), ephemeral=True)


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
        """The territory numbered ``value`` (``verbs.ref``; an attack or fortify move's ``pair_value`` as it
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


__all__ = ["Player", "Tap", "in_phase", "pick_territory"]
