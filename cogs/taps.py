"""Tap flows: what each button and select does, in one table, with every argument checked before use.

A tap arrives as a verb and arguments from a custom id, or a select's values: Discord does not check either
against what was offered, and anyone can forge them. So each handler first checks that the arguments are legal
choices of the game as it is now (``choices``), and refuses anything else with the same words whatever the
reason, so a refusal tells nothing the menu did not show.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from engine import Action, Attack, Blitz, ChooseCapital, Claim, EndAttack, EndTurn, Fortify, Game, Occupy, Place, Trade
from engine.odds import battle_odds
from engine.state import ATTACK, NEUTRAL, OCCUPY, REINFORCE
from store import GameRecord

from . import components as verb
from .components import GameButton, GameSelect, view_of
from .errors import UserError
from .i18n import _, continent_name, percent, territory_name
from .panel import Blue, Grey, Red
from .text import seat_name

MAX_OPTIONS = 25  # Discord's limit on a select's options


class Player(Protocol):
    """What a tap needs from the cog: apply an action and answer, show the cards or the map."""

    async def perform(self, interaction: discord.Interaction[Any], record: GameRecord, action: Action) -> None: ...

    async def send_cards(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None: ...


@dataclass
class Tap:
    """One tap: who, on which game (as it is now), with which arguments."""

    cog: Player
    interaction: discord.Interaction[Any]
    record: GameRecord
    game: Game
    seat: int
    args: list[str]

    @property
    def locale(self) -> object:
        return self.interaction.locale

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
        """``value`` if it is among the choices the menu of ``purpose`` offers now."""
        if value not in choices(self.game, self.seat, purpose, extra):
            raise self.refuse()
        return value

    async def act(self, action: Action) -> None:
        await self.cog.perform(self.interaction, self.record, action)


def choices(game: Game, seat: int, purpose: str, extra: Sequence[str] = ()) -> list[str]:
    """The territories a menu offers now; the extras (a source) are checked first."""
    s = game.state
    if purpose == verb.CLAIM:
        return game.claimable()
    if purpose == verb.CAPITAL:
        return game.capital_choices(seat)
    if purpose == verb.PLACE:
        return [t for t in game.placeable(seat) if s.owners.get(t) == seat]
    if purpose == verb.NEUTRAL:
        return [t for t in game.placeable(seat) if s.owners.get(t) == NEUTRAL]
    if purpose == verb.ATTACK_FROM:
        return game.attack_sources(seat)
    if purpose == verb.ATTACK_TO:
        source = extra[0] if extra else ""
        return game.attack_targets(seat, source) if source in game.attack_sources(seat) else []
    if purpose == verb.FORTIFY_FROM:
        return game.fortify_sources(seat)
    if purpose == verb.FORTIFY_TO:
        source = extra[0] if extra else ""
        return game.fortify_targets(seat, source) if source in game.fortify_sources(seat) else []
    return []


def armies_to_place(game: Game) -> int:
    s = game.state
    return s.reinforcements if s.phase == REINFORCE else s.batch_left


# -- buttons ---------------------------------------------------------------------------------------------------
async def _menu(tap: Tap, purpose: str, prompt: str) -> None:
    await pick_territory(tap, purpose, choices(tap.game, tap.seat, purpose), prompt)


async def claim(tap: Tap) -> None:
    await _menu(tap, verb.CLAIM, _("Claim which territory?", tap.locale))


async def capital(tap: Tap) -> None:
    await _menu(tap, verb.CAPITAL, _("Which territory is your capital?", tap.locale))


async def place(tap: Tap) -> None:
    await _menu(tap, verb.PLACE, _("Place on which territory?", tap.locale))


async def neutral(tap: Tap) -> None:
    await _menu(tap, verb.NEUTRAL, _("Place the neutral army where?", tap.locale))


async def put(tap: Tap) -> None:
    territory = tap.legal(tap.arg(0), verb.PLACE)
    await tap.act(Place(tap.seat, territory, tap.number(1, 1, max(1, armies_to_place(tap.game)))))


async def cards(tap: Tap) -> None:
    await tap.cog.send_cards(tap.interaction, tap.record, tap.seat)


async def trade(tap: Tap) -> None:
    chosen = tuple(tap.arg(0).split("."))
    offered = {tuple(sorted(combo)) for combo in tap.game.tradeable_sets(tap.seat)}
    if tuple(sorted(chosen)) not in offered:
        raise UserError(_("Your hand has changed; open your cards again.", tap.locale))
    await tap.act(Trade(tap.seat, chosen))


async def attack(tap: Tap) -> None:
    game, locale = tap.game, tap.locale
    if game.state.phase != ATTACK:
        raise UserError(_("You can attack once all your armies are placed.", locale))
    if not game.attack_sources(tap.seat):
        raise UserError(_("None of your territories can attack: each needs 2 armies and an enemy neighbour.",
                          locale))
    await _menu(tap, verb.ATTACK_FROM, _("Attack from where?", locale))


def _front(tap: Tap) -> tuple[str, str]:
    source = tap.legal(tap.arg(0), verb.ATTACK_FROM)
    return source, tap.legal(tap.arg(1), verb.ATTACK_TO, source)


async def roll(tap: Tap) -> None:
    source, target = _front(tap)
    dice = tap.number(2, 0, max(tap.game.allowed_dice(source)))
    await tap.act(Attack(tap.seat, source, target, dice or None))


async def blitz(tap: Tap) -> None:
    source, target = _front(tap)
    await tap.act(Blitz(tap.seat, source, target))


async def stop(tap: Tap) -> None:
    await tap.act(EndAttack(tap.seat))


async def move(tap: Tap) -> None:
    pending = tap.game.state.pending if tap.game.state.phase == OCCUPY else None
    if pending is None:
        raise tap.refuse()
    await tap.act(Occupy(tap.seat, tap.number(0, pending["min"], pending["max"])))


async def fortify(tap: Tap) -> None:
    if not tap.game.fortify_sources(tap.seat):
        raise UserError(_("No territory of yours can move armies now.", tap.locale))
    await _menu(tap, verb.FORTIFY_FROM, _("Move armies from where?", tap.locale))


async def fort(tap: Tap) -> None:
    source = tap.legal(tap.arg(0), verb.FORTIFY_FROM)
    target = tap.legal(tap.arg(1), verb.FORTIFY_TO, source)
    count = tap.number(2, 1, max(1, tap.game.state.armies[source] - 1))
    await tap.act(Fortify(tap.seat, source, target, count))


async def end(tap: Tap) -> None:
    if tap.game.state.phase != ATTACK:
        await tap.act(EndTurn(tap.seat))
        return
    locale = tap.locale
    view = view_of(GameButton(tap.record.id, verb.END_CONFIRMED, label=_("Yes, end my turn", locale), style=Red),
                   GameButton(tap.record.id, verb.FORTIFY, label=_("Fortify first", locale), style=Grey))
    await tap.interaction.response.send_message(_("End your turn without fortifying?", locale), view=view,
                                                ephemeral=True)


async def end_confirmed(tap: Tap) -> None:
    await tap.act(EndTurn(tap.seat))


Handler = Callable[[Tap], Awaitable[None]]
# Button verbs to their handlers (what each verb means is in cogs/components.py). The map button needs no
# turn and is handled before this table.
BUTTONS: dict[str, Handler] = {
    verb.CLAIM: claim, verb.CAPITAL: capital, verb.PLACE: place, verb.NEUTRAL: neutral, verb.PUT: put,
    verb.CARDS: cards, verb.TRADE: trade, verb.ATTACK: attack, verb.ROLL: roll, verb.BLITZ: blitz,
    verb.STOP: stop, verb.MOVE: move, verb.FORTIFY: fortify, verb.FORT: fort, verb.END: end,
    verb.END_CONFIRMED: end_confirmed,
}


# -- selects: the value is checked against the menu's choices before any of these runs ----------------------
async def chose_claim(tap: Tap, value: str) -> None:
    await tap.act(Claim(tap.seat, value))


async def chose_capital(tap: Tap, value: str) -> None:
    await tap.act(ChooseCapital(tap.seat, value))


async def chose_neutral(tap: Tap, value: str) -> None:
    await tap.act(Place(tap.seat, value, 1))


async def chose_place(tap: Tap, value: str) -> None:
    left = armies_to_place(tap.game)
    counts = sorted({1, min(3, left), min(5, left), left} - {0})
    locale = tap.locale
    view = view_of(*[GameButton(tap.record.id, verb.PUT, value, n,
                                label=_("All {n}", locale, n=n) if n == left else f"+{n}",
                                style=Blue if n == left else Grey) for n in counts])
    await tap.interaction.response.edit_message(
        content=_("How many armies on {territory}?", locale, territory=tap.name(value)), view=view)


async def chose_attack_from(tap: Tap, value: str) -> None:
    await pick_territory(tap, verb.ATTACK_TO, choices(tap.game, tap.seat, verb.ATTACK_TO, [value]),
                         _("Attack which territory?", tap.locale), value)


async def chose_attack_to(tap: Tap, value: str) -> None:
    s = tap.game.state
    locale = tap.locale
    source = tap.args[0]
    dice = tap.game.allowed_dice(source)
    odds = battle_odds(s.armies[source], s.armies[value])
    buttons = [GameButton(tap.record.id, verb.ROLL, source, value, n,
                          label=_("{n} dice", locale, n=n) if n > 1 else _("1 die", locale),
                          style=Red if n == max(dice) else Grey) for n in dice]
    buttons.append(GameButton(tap.record.id, verb.BLITZ, source, value, label=_("Blitz", locale), style=Red,
                              emoji="⚡"))
    text = _("{source} ({a}) → {target} ({d}): blitz wins {win} of the time. Roll how many dice?", locale,
             source=tap.name(source), a=s.armies[source], target=tap.name(value), d=s.armies[value],
             win=percent(odds.win, locale))
    await tap.interaction.response.edit_message(content=text, view=view_of(*buttons))


async def chose_fortify_from(tap: Tap, value: str) -> None:
    await pick_territory(tap, verb.FORTIFY_TO, choices(tap.game, tap.seat, verb.FORTIFY_TO, [value]),
                         _("Move them to?", tap.locale), value)


async def chose_fortify_to(tap: Tap, value: str) -> None:
    locale = tap.locale
    source = tap.args[0]
    most = tap.game.state.armies[source] - 1
    counts = sorted({1, (most + 1) // 2, most} - {0})
    buttons = [GameButton(tap.record.id, verb.FORT, source, value, n,
                          label=_("All but one ({n})", locale, n=n) if n == most else str(n),
                          style=Blue if n == most else Grey) for n in counts]
    names = {"source": tap.name(source), "target": tap.name(value)}
    text = _("Move how many armies from {source} to {target}? This ends your turn.", locale, **names) \
        if tap.game.fortify_ends_turn else _("Move how many armies from {source} to {target}?", locale, **names)
    await tap.interaction.response.edit_message(content=text, view=view_of(*buttons))


SelectHandler = Callable[[Tap, str], Awaitable[None]]
# Select verbs (each also names the menu whose choices its value must be among) to their handlers.
SELECTS: dict[str, SelectHandler] = {
    verb.CLAIM: chose_claim, verb.CAPITAL: chose_capital, verb.NEUTRAL: chose_neutral, verb.PLACE: chose_place,
    verb.ATTACK_FROM: chose_attack_from, verb.ATTACK_TO: chose_attack_to, verb.FORTIFY_FROM: chose_fortify_from,
    verb.FORTIFY_TO: chose_fortify_to,
}


async def on_select(tap: Tap, purpose: str, values: list[str]) -> None:
    if len(values) != 1:
        raise UserError(_("Choose one option.", tap.locale))
    value = values[0]
    if purpose == verb.CONTINENT:  # a continent, then the territories of the menu ``args[0]`` in it
        inner, extra = tap.arg(0), tap.args[1:]
        if inner not in SELECTS:
            raise tap.refuse()
        board = tap.game.board
        chosen = [t for t in choices(tap.game, tap.seat, inner, extra) if board.territories[t].continent == value]
        if not chosen:
            raise tap.refuse()
        await pick_territory(tap, inner, chosen, _("Choose a territory", tap.locale), *extra)
        return
    handler = SELECTS.get(purpose)
    if handler is None:
        raise UserError(_("This menu is from an older version of the bot; use the slash commands.", tap.locale))
    tap.legal(value, purpose, *tap.args)
    await handler(tap, value)


async def pick_territory(tap: Tap, purpose: str, territories: Sequence[str], prompt: str, *extra: str) -> None:
    """A private select of territories; more than 25 are grouped by continent first."""
    game, locale, interaction = tap.game, tap.locale, tap.interaction
    if not territories:
        raise UserError(_("There is no territory to choose.", locale))
    if len(territories) > MAX_OPTIONS:
        board = game.board
        continents = sorted({board.territories[t].continent for t in territories})
        options = [discord.SelectOption(label=continent_name(board, c, locale), value=c,
                                        description=str(sum(1 for t in territories
                                                            if board.territories[t].continent == c)))
                   for c in continents]
        select = GameSelect(tap.record.id, verb.CONTINENT, purpose, *extra, options=options,
                            placeholder=_("Choose a continent", locale))
    else:
        options = [discord.SelectOption(label=option_label(game, t, purpose, extra, locale), value=t)
                   for t in territories]
        select = GameSelect(tap.record.id, purpose, *extra, options=options, placeholder=prompt)
    if interaction.response.is_done():
        await interaction.followup.send(prompt, view=view_of(select), ephemeral=True)
    elif interaction.message is not None and interaction.message.flags.ephemeral:
        await interaction.response.edit_message(content=prompt, view=view_of(select), attachments=[])
    else:
        await interaction.response.send_message(prompt, view=view_of(select), ephemeral=True)


def option_label(game: Game, territory: str, purpose: str, extra: Sequence[str], locale: object = None) -> str:
    """A territory in a menu, with its armies (the menus only offer territories the player can see)."""
    s = game.state
    name = territory_name(game.board, territory, locale)
    label = f"{name} ({s.armies.get(territory, 0)})" if territory in s.owners else name
    if purpose == verb.ATTACK_TO and extra:
        odds = battle_odds(s.armies[extra[0]], s.armies[territory])
        label += f" · {seat_name(s, s.owners[territory], locale)} · {percent(odds.win, locale)}"
    return label[:100]


__all__ = ["BUTTONS", "SELECTS", "Tap", "choices", "on_select", "pick_territory"]
