"""Buttons and selects that keep working after a restart, and the verbs they carry.

Every component is a ``DynamicItem``: its custom id carries the game, the verb and its arguments
(``risk:12:roll:0:31:3``), so a tap on a message from last week still reaches the right game. The
callbacks only parse the id and hand over to the ``TapHandler`` (the cog), which checks who may act and checks
every argument and value against the legal choices of the game as it is now (``cogs/play/buttons.py``).

A territory, a continent or a card is written into a custom id or a select's value as its number on the map (its
place in the board's fixed order, ``ref``), never as its id: a map's ids may be 64 characters long and hold any
character, a custom id holds 100 and its arguments are separated by ``:``. ``territory_at``, ``continent_at`` and
``card_at`` read a number back, where a tap is parsed; they also read the ids that components posted before
numbers carried (a value that is not written as a number), so the panels of running games keep working. On a map
whose territory ids are themselves numbers such an old value reads as a number: the panel's newest buttons work.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import discord
from discord import ui

from cogs.shared.services import TapHandler, taps_of
from engine.board import Board
from engine.cards import full_deck

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

# The verbs of buttons (``risk:``) and selects (``risks:``), named once. Each tap handler is in cogs/play/buttons.py.
MAP = "map"            # button: the map, privately
CLAIM = "claim"        # button: choose a territory to claim / select: claim it
CAPITAL = "capital"    # button: choose a capital / select: choose it
PLACE = "place"        # button: choose where to place / select: then how many
NEUTRAL = "neutral"    # button: choose where the neutral army goes / select: place it
PUT = "put"            # button (territory, count): place that many armies there
CARDS = "cards"        # button: your hand and the sets you can trade
TRADE = "trade"        # button (card ids, bonus territory): trade that set (no ids: the best set; no bonus territory
#                        and more than one territory of the set held: choose which gets the +2 first)
ATTACK = "attack"      # button: choose a territory to attack from
ATTACK_FROM = "atksrc"  # select: the attacking territory, then the target
ATTACK_TO = "atkdst"   # select (source): the target, then the dice
ROLL = "roll"          # button (source, target, dice): one battle (dice 0: the most allowed)
BLITZ = "blitz"        # button (source, target): attack until it falls or you cannot go on
ATTACK_PAIR = "atkpair"  # select: an attack (source and target, ``pair_value``), then the dice
STOP = "stop"          # button: end this battle (the buttons without it; the attack phase goes on)
END_ATTACKS = "endatk"  # button: end all attacks (asks first)
END_ATTACKS_CONFIRMED = "endatkok"  # button: end all attacks, confirmed
MOVE = "move"          # button (count): armies into the conquered territory
FORTIFY = "fortify"    # button: choose where to move armies from
FORTIFY_FROM = "fortsrc"  # select: the territory to move from, then where to
FORTIFY_TO = "fortdst"  # select (source): where to, then how many
FORTIFY_PAIR = "fortpair"  # select: a fortify move (source and target, ``pair_value``), then how many
FORT = "fort"          # button (source, target, count): the move
PLACE_ALL = "placeall"  # select (count): place all ``count`` armies left on the chosen territory
PUT_COUNT = "putcount"  # select (territory): any number of armies to place there
NEUTRAL_PUT = "nput"   # button (territory, count): place that many neutral armies there
NEUTRAL_COUNT = "ncount"  # select (territory): any number of neutral armies to place there
END = "end"            # button: end the turn (asks first while attacking)
END_CONFIRMED = "endok"  # button: end the turn, confirmed
CONTINENT = "cont"     # select (purpose, extra...): more than 25 territories, narrowed to one continent
MOVE_COUNT = "movecount"  # select: any number of armies into the conquered territory
FORT_COUNT = "fortcount"  # select (source, target): any number of armies for the fortify move
MISSION = "mission"    # button: your secret mission, privately (any time, no turn needed)
SURRENDER = "giveup"   # button: resign, confirmed (any time, no turn needed)
KICK = "kick"          # button (seat): the host removes that player, confirmed
UNDO = "undo"          # button: take back this turn's placements
START = "start"        # button: start your turn of a freestyle round (any move starts it too)
CONTROLS = "turn"      # button: the buttons of your move, privately (a public panel under fog shows no figures)
BALLOT = "ballot"      # button (vote key, yes|no): a ballot in the vote to end the game (players still in it)
OFFER = "offer"        # button (seat): the host offers a seat the AI took over to a substitute
PLAN = "plan"          # button (draft): plan my next turn, the plan so far (cogs/play/plan.py) / select: plan it
PLAN_PLACE = "planput"  # select (draft): place all on the chosen territory (or on my front)
PLAN_ATTACK = "planatk"  # select (draft): an attack of the plan (source and target), then its stop
PLAN_STOP = "planstop"  # button (draft, stop): the planned attack's stop
PLAN_FORTIFY = "planfort"  # select (draft): the plan's fortify move
PLAN_END = "planend"   # button (draft, 1|0): the plan is done: end the turn (1) or leave the rest to me (0)
PLAN_REPEAT = "planrep"  # button: my plan repeats every turn
PLAN_CANCEL = "plancancel"  # button: my plan goes
TAKE_SEAT = "takeseat"  # button (seat, offer key): a player not in the game claims the offered seat
# The verbs that buttons already posted carry under an older id: a tap on one is the verb's now.
FORMER = {"atk": ROLL, "kickok": KICK}


def ref(board: Board, item: str) -> str:
    """A territory or a card as its number on ``board`` (what a custom id or a select's value holds): a
    territory's card has the territory's number, the wild cards follow the last territory."""
    return str(_numbered(board).index(item))


def _numbered(board: Board) -> list[str]:
    """What has a number on ``board``: every territory (a card has its territory's number, though on some maps
    a territory has no card), then the wild cards."""
    return list(board.territory_ids) + list(board.wild_cards)


def continent_ref(board: Board, continent: str) -> str:
    return str(list(board.continents).index(continent))


def _at(order: Sequence[str], text: str) -> str | None:
    """The item numbered ``text`` in ``order``; a value not written as a number is an id as older components
    carried it (None if it is neither)."""
    if text.isascii() and text.isdigit():
        number = int(text)
        return order[number] if number < len(order) and str(number) == text else None
    return text if text in order else None


def territory_at(board: Board, text: str) -> str | None:
    """The territory of a ``ref`` (or of an older component's id), None for anything else."""
    return _at(board.territory_ids, text)


def continent_at(board: Board, text: str) -> str | None:
    return _at(list(board.continents), text)


def card_at(board: Board, text: str) -> str | None:
    """A card of the deck (a territory's, or a wild card) by its ``ref``."""
    card = _at(_numbered(board), text)
    return card if card in full_deck(board) else None


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
