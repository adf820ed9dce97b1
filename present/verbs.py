"""The verbs of a move, named once, and how a territory, a continent or a card is written into a move's arguments.

A verb (``ROLL``, ``PLACE`` ...) says what a button, a select or a board's message asks for; both front ends use
the same ids: the Discord components (``cogs/shared/components.py``) carry them in their custom ids, the turn
panel's menus (``present/menus.py``) key their choices by them, and the live board (``web/board.py``) asks the
same choices.

A territory, a continent or a card is written into a custom id or a select's value as its number on the map (its
place in the board's fixed order, ``ref``), never as its id: a map's ids may be 64 characters long and hold any
character, a custom id holds 100 and its arguments are separated by ``:``. ``territory_at``, ``continent_at`` and
``card_at`` read a number back, where a tap is parsed; they also read the ids that components posted before
numbers carried (a value that is not written as a number), so the panels of running games keep working. On a map
whose territory ids are themselves numbers such an old value reads as a number: the panel's newest buttons work.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.board import Board
from engine.cards import full_deck

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

