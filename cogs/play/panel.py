"""The turn panel's buttons for the phase the game is in (the line that calls the player to move is
``present/turns.py``'s)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import discord

from cogs.shared.components import Blue, GameButton, GameSelect, Green, Grey, Red, view_of
from engine import (
    Action,
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Game,
    Occupy,
    Place,
    Trade,
    Undo,
)
from engine.actions import StartTurn
from engine.choices import Choices, armies_to_place, choices_for
from engine.fog import fog_hides_board
from engine.state import ATTACK, FORTIFY, OCCUPY, OVER, REINFORCE, SETUP, WAITING, Event
from present import verbs as verb
from present.i18n import _, ngettext, territory_name
from present.menus import (
    MAX_OPTIONS,
    attack_pairs,
    choices,
    fortify_pairs,
    option_label,
    pair_label,
    pair_value,
    refs,
)
from present.verbs import ref


@dataclass
class _Panel:
    """What the buttons of a turn panel are drawn from; ``items``: the panel's items so far."""

    game_id: int
    game: Game
    locale: object
    events: Sequence[Event]
    public: bool
    items: list[discord.ui.Item[Any]] = field(default_factory=list)

    @cached_property
    def choices(self) -> Choices:
        """What the player to move may do now (``engine.choices``)."""
        return choices_for(self.game, self.game.state.current)

    @property
    def hides_figures(self) -> bool:
        """Whether the panel sits where everybody reads it, in a game whose board is hidden."""
        return self.public and fog_hides_board(self.game.state)


Buttons = Callable[[_Panel], list[discord.ui.Item[Any]]]


def _claim(p: _Panel) -> list[discord.ui.Item[Any]]:
    return [GameButton(p.game_id, verb.CLAIM, label=_("Claim", p.locale), style=Blue, emoji="🚩")]


def _capital(p: _Panel) -> list[discord.ui.Item[Any]]:
    return [GameButton(p.game_id, verb.CAPITAL, label=_("Capital", p.locale), style=Blue, emoji="🏰")]


def _place(p: _Panel) -> list[discord.ui.Item[Any]]:
    s, locale = p.game.state, p.locale
    items: list[discord.ui.Item[Any]] = []
    if s.sealed is not None:  # a set-up round: each player's own menu, privately
        items.append(GameButton(p.game_id, verb.PLACE, label=_("Place", locale), style=Blue, emoji="➕"))
    elif s.phase == SETUP:
        if s.batch_left:
            items += _place_all(p)
        if s.neutral_left:
            items.append(GameButton(p.game_id, verb.NEUTRAL, label=_("Neutral", locale), style=Grey, emoji="⬜"))
    elif not p.choices.must_trade:  # nothing to place before a set is traded: the cards only
        items += _place_all(p)
    return items


def _place_all(p: _Panel) -> list[discord.ui.Item[Any]]:
    """All the armies left on one territory in one choice (when the board may be shown), and a button for any
    other number."""
    left, seat = armies_to_place(p.game.state), p.game.state.current
    items: list[discord.ui.Item[Any]] = [GameButton(p.game_id, verb.PLACE, label=_("Place", p.locale), style=Blue,
                                                    emoji="➕")]
    territories = choices(p.game, seat, verb.PLACE_ALL)
    if not p.hides_figures and 0 < len(territories) <= MAX_OPTIONS:
        options = [discord.SelectOption(label=option_label(p.game, t, verb.PLACE, (), p.locale),
                                        value=ref(p.game.board, t)) for t in territories]
        items.append(GameSelect(p.game_id, verb.PLACE_ALL, left, options=options, placeholder=ngettext(
            "Place {n} army on…", "Place all {n} armies on…", left, p.locale)))
    return items


def _cards(p: _Panel) -> list[discord.ui.Item[Any]]:
    s, locale = p.game.state, p.locale
    seat = s.current
    items: list[discord.ui.Item[Any]] = []
    # The size of a hand is known to all, its cards are not: where others read the buttons, the best set is
    # offered from three cards on, so the button tells nothing about the hand; privately, only with a set.
    if p.game.can_trade(seat) and (len(s.hands.get(seat, [])) >= 3 if p.public else p.choices.trade):
        items.append(GameButton(p.game_id, verb.TRADE, label=_("Trade best set", locale), style=Blue, emoji="💱"))
    if s.settings.cards != "none":
        items.append(GameButton(p.game_id, verb.CARDS, label=_("Cards", locale), style=Grey, emoji="🃏"))
    return items


def _move(p: _Panel) -> list[discord.ui.Item[Any]]:
    locale = p.locale
    if p.hides_figures:  # how many armies can move in would tell about the board: one button, answered privately
        return [GameButton(p.game_id, verb.CONTROLS, label=_("Continue", locale), style=Blue, emoji="▶️")]
    assert p.choices.occupy is not None
    lo, hi = p.choices.occupy.least, p.choices.occupy.most
    items: list[discord.ui.Item[Any]] = []
    for n in sorted({lo, (lo + hi + 1) // 2, hi}):
        label = _("Move {n}", locale, n=n) if n != hi else _("Move all ({n})", locale, n=n)
        items.append(GameButton(p.game_id, verb.MOVE, n, label=label, style=Blue if n == hi else Grey))
    if hi - lo > 2:  # any other number, from a menu
        items.append(count_select(p.game_id, verb.MOVE_COUNT, range(lo, hi + 1), _("Another number…", locale)))
    return items


def _last_front(p: _Panel) -> tuple[str, str] | None:
    """The source and target of the last action's battle, while that attack can go on."""
    last = next(((e["from"], e["to"]) for e in reversed(p.events) if e["type"] == "battle" and "from" in e), None)
    return last if last is not None and last in p.choices.attack_pairs() else None


def _just_taken(p: _Panel) -> str | None:
    """The territory the last action moved into, while it can attack."""
    taken = next((e["to"] for e in reversed(p.events) if e["type"] == "occupied"), None)
    return taken if taken in p.choices.attack else None


def _attack_again(p: _Panel) -> list[discord.ui.Item[Any]]:
    front = _last_front(p)
    return [] if front is None else [GameButton(p.game_id, verb.ROLL, *refs(p.game, front), 0,
                                                label=_("Attack again", p.locale), style=Red, emoji="🔁")]


def _blitz_again(p: _Panel) -> list[discord.ui.Item[Any]]:
    front = _last_front(p)
    return [] if front is None else [GameButton(p.game_id, verb.BLITZ, *refs(p.game, front), label=_("Blitz", p.locale),
                                                style=Red, emoji="⚡")]


def _stop(p: _Panel) -> list[discord.ui.Item[Any]]:
    return [] if _last_front(p) is None else [GameButton(p.game_id, verb.STOP, label=_("Stop", p.locale), style=Grey,
                                                          emoji="✋")]


def _attack(p: _Panel) -> list[discord.ui.Item[Any]]:
    """The attacks as one menu, the best odds first (from the territory just taken, its own menu first); the
    button opens them by territory (every attack, where there are more than a menu holds)."""
    game, locale, seat = p.game, p.locale, p.game.state.current
    if not p.choices.attack:  # only what can be done: no button that would be refused
        return []
    items: list[discord.ui.Item[Any]] = [GameButton(p.game_id, verb.ATTACK, label=_("Attack", locale),
                                                    style=Red if not p.items else Grey, emoji="⚔️")]
    if p.hides_figures:
        return items
    taken = _just_taken(p)
    if taken is not None:
        targets = choices(game, seat, verb.ATTACK_TO, [taken])[:MAX_OPTIONS]
        options = [discord.SelectOption(label=option_label(game, t, verb.ATTACK_TO, [taken], locale),
                                        value=ref(game.board, t)) for t in targets]
        items.append(GameSelect(p.game_id, verb.ATTACK_TO, ref(game.board, taken), options=options, placeholder=_(
            "Attack from {territory}…", locale, territory=territory_name(game.board, taken, locale))[:150]))
    pairs = attack_pairs(game, seat)[:MAX_OPTIONS]
    options = [discord.SelectOption(label=pair_label(game, a, b, locale), value=pair_value(game, a, b))
               for a, b in pairs]
    items.append(GameSelect(p.game_id, verb.ATTACK_PAIR, options=options, placeholder=_("Attack…", locale)))
    return items


def _end_attacks(p: _Panel) -> list[discord.ui.Item[Any]]:
    if not (p.choices.end_attack and p.choices.attack):
        return []
    return [GameButton(p.game_id, verb.END_ATTACKS, label=_("End attacks", p.locale), style=Grey, emoji="🏳️")]


def _fortify(p: _Panel) -> list[discord.ui.Item[Any]]:
    game, s = p.game, p.game.state
    if not p.choices.fortify:
        return []
    items: list[discord.ui.Item[Any]] = [GameButton(
        p.game_id, verb.FORTIFY, label=_("Fortify", p.locale), style=Blue if s.phase == FORTIFY else Grey,
        emoji="🛡️")]
    pairs = fortify_pairs(game, s.current)[:MAX_OPTIONS]
    if not p.hides_figures and pairs:
        options = [discord.SelectOption(label=pair_label(game, a, b, p.locale), value=pair_value(game, a, b))
                   for a, b in pairs]
        items.append(GameSelect(p.game_id, verb.FORTIFY_PAIR, options=options, placeholder=_("Fortify…", p.locale)))
    return items


def _end_turn(p: _Panel) -> list[discord.ui.Item[Any]]:
    # While attacking, the player is asked first whether to end without fortifying.
    action = verb.END if p.game.state.phase == ATTACK else verb.END_CONFIRMED
    return [GameButton(p.game_id, action, label=_("End turn", p.locale), style=Grey, emoji="⏭️")]


def _continue(p: _Panel) -> list[discord.ui.Item[Any]]:
    # The answers to a move are private under fog: the buttons of the move as it is now, whenever the player lost
    # them (while moving in, this button stands in for the move buttons).
    if not p.hides_figures or p.game.allows(Occupy):
        return []
    return [GameButton(p.game_id, verb.CONTROLS, label=_("Continue", p.locale), style=Grey, emoji="▶️")]


def _undo(p: _Panel) -> list[discord.ui.Item[Any]]:
    if not p.choices.undo:
        return []
    return [GameButton(p.game_id, verb.UNDO, label=_("Undo placements", p.locale), style=Grey, emoji="↩️")]


def _start(p: _Panel) -> list[discord.ui.Item[Any]]:
    return [GameButton(p.game_id, verb.START, label=_("Start my turn", p.locale), style=Blue, emoji="▶️")]


def _map(p: _Panel) -> list[discord.ui.Item[Any]]:
    return [GameButton(p.game_id, verb.MAP, label=_("Map", p.locale), style=Grey, emoji="🗺️")]


def _mission(p: _Panel) -> list[discord.ui.Item[Any]]:
    if not p.game.state.missions:
        return []
    return [GameButton(p.game_id, verb.MISSION, label=_("Mission", p.locale), style=Grey, emoji="📜")]


PLAY = frozenset({REINFORCE, ATTACK, OCCUPY, FORTIFY, WAITING})


def _plan(p: _Panel) -> list[discord.ui.Item[Any]]:
    # On the channel's panel, for everybody waiting: plan my next turn, privately (cogs/play/plan.py).
    if not p.public or p.game.state.phase not in PLAY:
        return []
    return [GameButton(p.game_id, verb.PLAN, "-", label=_("Plan my turn", p.locale), style=Grey, emoji="📋")]


# The panel's buttons in the order shown, each under the action it leads to: a phase shows those of the actions it
# allows (``engine.phases.PHASES``), each only when it can be used now; None: in every phase of a game going on.
# Menus go below the buttons, in the same order.
PANEL: tuple[tuple[type[Action] | None, Buttons], ...] = (
    (StartTurn, _start), (Claim, _claim), (ChooseCapital, _capital), (Trade, _cards), (Place, _place), (Occupy, _move),
    (Attack, _attack_again), (Blitz, _blitz_again), (EndAttack, _stop), (Attack, _attack), (EndAttack, _end_attacks),
    (Fortify, _fortify), (EndTurn, _end_turn), (None, _continue), (Undo, _undo), (None, _map), (None, _mission),
    (None, _plan),
)
ROW = 5  # buttons in a row; two rows of buttons, then each menu on a row of its own (Discord shows five rows)


def controls(game_id: int, game: Game, locale: object, events: Sequence[Event] = (), *,
             public: bool = False) -> discord.ui.View | None:
    """The buttons for the player whose move it is; ``events`` (the last action's) offer "attack again" and the
    attacks from the territory just taken.

    ``public``: the buttons sit on a message everybody reads; under fog, those that would show figures (how
    many armies can move in) are behind one button that answers the player privately, and there are no menus."""
    if game.state.phase == OVER:
        return None
    panel = _Panel(game_id, game, locale, events, public)
    for action, buttons in PANEL:
        if action is None or game.allows(action):
            panel.items += buttons(panel)
    buttons_only = [i for i in panel.items if isinstance(i, GameButton)][:2 * ROW]
    menus = [i for i in panel.items if isinstance(i, GameSelect)]
    rows = 2 if len(buttons_only) > ROW else 1
    for index, button in enumerate(buttons_only):
        button.item.row = index // ROW
    for index, menu in enumerate(menus[:5 - rows]):
        menu.item.row = rows + index
    return view_of(*buttons_only, *menus[:5 - rows])


def count_options(numbers: range, most: int = 25) -> list[discord.SelectOption]:
    """Every number of the range as a choice; more than ``most`` are offered as ranges ("26–50"), each of which
    opens a menu of its own numbers (so any number is reached in two or three taps)."""
    low, high = numbers.start, numbers.stop - 1
    if high - low + 1 <= most:
        return [discord.SelectOption(label=str(n), value=str(n)) for n in numbers]
    size = -(-(high - low + 1) // most)  # ceiling: at most ``most`` ranges
    starts = range(low, high + 1, size)
    return [discord.SelectOption(label=f"{a}–{min(a + size - 1, high)}", value=f"{a}-{min(a + size - 1, high)}")
            for a in starts]


def count_select(game_id: int, purpose: str, numbers: range, placeholder: str, *extra: str,
                 row: int | None = None) -> GameSelect:
    """A menu of army counts (Discord allows 25 options: a long range comes in ranges first)."""
    return GameSelect(game_id, purpose, *extra, options=count_options(numbers), placeholder=placeholder, row=row)


__all__ = ["Blue", "Green", "Grey", "Red", "controls"]
