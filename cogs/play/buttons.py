"""Tap flows: what each button and select does, in one table, with every argument checked before use.

A tap arrives as a verb and arguments from a custom id, or a select's values: Discord does not check either
against what was offered, and anyone can forge them. So each handler first checks that the arguments are legal
choices of the game as it is now (``choices``), and refuses anything else with the same words whatever the
reason, so a refusal tells nothing the menu did not show. Territories and cards travel as their numbers on the map
(``verbs.ref``): here they become ids again (``Tap.legal``, ``card_at``), and the next components get theirs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from cogs.play.counts import COUNTS
from cogs.play.panel import Blue, Grey, Red, controls, count_select
from cogs.play.tap import Tap, in_phase
from cogs.shared.components import GameButton, GameSelect, view_of
from cogs.shared.errors import UserError
from engine import Attack, Blitz, ChooseCapital, Claim, EndAttack, EndTurn, Fortify, Occupy, Place, Surrender, Trade
from engine.actions import StartTurn, Undo
from engine.choices import armies_to_place
from engine.odds import QUICK_LIMIT, odds
from engine.state import ATTACK, SETUP
from present import verbs as verb
from present.i18n import _, ngettext, percent, territory_name
from present.menus import choices, pair_of, refs, trade_ref
from present.turns import turn_prompt


# -- buttons ---------------------------------------------------------------------------------------------------
async def _menu(tap: Tap, purpose: str, prompt: str) -> None:
    await tap.menu(purpose, choices(tap.game, tap.seat, purpose), prompt)


async def claim(tap: Tap) -> None:
    in_phase(tap, Claim)
    await _menu(tap, verb.CLAIM, _("Claim which territory?", tap.locale))


async def capital(tap: Tap) -> None:
    in_phase(tap, ChooseCapital)
    await _menu(tap, verb.CAPITAL, _("Which territory is your capital?", tap.locale))


async def place(tap: Tap) -> None:
    in_phase(tap, Place)
    if not armies_to_place(tap.game.state, tap.seat):
        raise UserError(_("You have no armies left to place.", tap.locale))
    await _menu(tap, verb.PLACE, _("Place on which territory?", tap.locale))


async def neutral(tap: Tap) -> None:
    in_phase(tap, Place, SETUP)  # neutral armies are placed during setup only
    await _menu(tap, verb.NEUTRAL, _("Place the neutral army where?", tap.locale))


async def put(tap: Tap) -> None:
    territory = tap.territory(0, verb.PLACE)
    await tap.act(Place(tap.seat, territory, tap.number(1, 1, max(1, armies_to_place(tap.game.state, tap.seat)))))


async def cards(tap: Tap) -> None:
    await tap.cog.send_cards(tap.interaction, tap.record, tap.seat)


async def trade(tap: Tap) -> None:
    """A set (none named: the best one), and the territory for its +2 (asked first when more than one is held)."""
    game, seat, locale = tap.game, tap.seat, tap.locale
    sets = tap.choices.trade   # the best first
    offered = {tuple(sorted(option.cards)): option.cards for option in sets}
    if not tap.args:
        if not sets:
            raise UserError(_("You have no set to trade.", locale) if game.allows(Trade) else
                            _("Your hand has changed; open your cards again.", locale))
        chosen = sets[0].cards
    else:
        named = [verb.card_at(game.board, c) for c in tap.arg(0).split(".")]
        chosen = offered.get(tuple(sorted(c or "" for c in named)), ())
        if not chosen:
            raise UserError(_("Your hand has changed; open your cards again.", locale))
    s = game.state
    held = sorted({c for c in chosen if s.owners.get(c) == seat}, key=game.board.territory_ids.index)
    bonus = verb.card_at(game.board, tap.args[1]) if len(tap.args) > 1 else None
    if len(tap.args) > 1 and bonus not in held:
        raise tap.refuse()
    if bonus is None and len(held) > 1 and s.bonus_this_turn < 2:
        buttons = [GameButton(tap.record.id, verb.TRADE, trade_ref(game, chosen), verb.ref(game.board, t),
                              style=Blue if n == 0 else Grey,
                              label=_("+2 on {territory}", locale, territory=territory_name(game.board, t, locale,
                                                                                              short=True)))
                   for n, t in enumerate(held)]
        await tap.reply(_("Trade the set: which territory gets the +2 armies?", locale), view_of(*buttons))
        return
    await tap.act(Trade(seat, chosen, bonus))


async def attack(tap: Tap) -> None:
    game, locale = tap.game, tap.locale
    if not game.allows(Attack):
        raise UserError(_("You can attack once all your armies are placed.", locale))
    if not tap.choices.attack:
        raise UserError(_("None of your territories can attack: each needs 2 armies and an enemy neighbour.",
                          locale))
    await _menu(tap, verb.ATTACK_FROM, _("Attack from where?", locale))


def _front(tap: Tap) -> tuple[str, str]:
    source = tap.territory(0, verb.ATTACK_FROM)
    return source, tap.territory(1, verb.ATTACK_TO, source)


async def roll(tap: Tap) -> None:
    source, target = _front(tap)
    dice = tap.number(2, 0, max(tap.choices.attack[source].dice))
    await tap.act(Attack(tap.seat, source, target, dice or None))


async def blitz(tap: Tap) -> None:
    source, target = _front(tap)
    await tap.act(Blitz(tap.seat, source, target))


async def stop(tap: Tap) -> None:
    """This battle is over: the buttons without it (the attack phase goes on)."""
    in_phase(tap, EndAttack)
    await tap.interaction.response.edit_message(view=controls(tap.record.id, tap.game, tap.locale,
                                                              public=not tap.private_message))


async def end_attacks(tap: Tap) -> None:
    in_phase(tap, EndAttack)
    locale = tap.locale
    buttons = [GameButton(tap.record.id, verb.END_ATTACKS_CONFIRMED, label=_("Yes, end my attacks", locale),
                          style=Red)]
    await tap.interaction.response.send_message(_("End all your attacks this turn?", locale), view=view_of(*buttons),
                                                ephemeral=True)


async def end_attacks_confirmed(tap: Tap) -> None:
    await tap.act(EndAttack(tap.seat))


async def move(tap: Tap) -> None:
    move_in = tap.choices.occupy
    if move_in is None:
        raise tap.refuse()
    await tap.act(Occupy(tap.seat, tap.number(0, move_in.least, move_in.most)))


async def fortify(tap: Tap) -> None:
    if not tap.choices.fortify:
        raise UserError(_("No territory of yours can move armies now.", tap.locale))
    await _menu(tap, verb.FORTIFY_FROM, _("Move armies from where?", tap.locale))


async def fort(tap: Tap) -> None:
    source = tap.territory(0, verb.FORTIFY_FROM)
    target = tap.territory(1, verb.FORTIFY_TO, source)
    count = tap.number(2, 1, tap.choices.fortify[source].most)
    await tap.act(Fortify(tap.seat, source, target, count))


async def end(tap: Tap) -> None:
    if tap.game.state.phase != ATTACK:
        await tap.act(EndTurn(tap.seat))
        return
    locale = tap.locale
    buttons = [GameButton(tap.record.id, verb.END_CONFIRMED, label=_("Yes, end my turn", locale), style=Red)]
    if tap.choices.fortify:
        buttons.append(GameButton(tap.record.id, verb.FORTIFY, label=_("Fortify first", locale), style=Grey))
    view = view_of(*buttons)
    await tap.interaction.response.send_message(_("End your turn without fortifying?", locale), view=view,
                                                ephemeral=True)


async def end_confirmed(tap: Tap) -> None:
    await tap.act(EndTurn(tap.seat))


async def undo(tap: Tap) -> None:
    await tap.act(Undo(tap.seat))


async def my_controls(tap: Tap) -> None:
    """The buttons of the move, privately: the public panel under fog shows no figures."""
    locale = tap.locale
    view = controls(tap.record.id, tap.game, locale)
    text = turn_prompt(tap.game, locale, _("You", locale), private=True)
    if view is not None:
        await tap.interaction.response.send_message(text, ephemeral=True, view=view)
    else:
        await tap.interaction.response.send_message(text, ephemeral=True)


async def show_mission(tap: Tap) -> None:
    await tap.cog.send_mission(tap.interaction, tap.record, tap.seat)


async def give_up(tap: Tap) -> None:
    await tap.act(Surrender(tap.seat))


async def neutral_put(tap: Tap) -> None:
    territory = tap.territory(0, verb.NEUTRAL)
    await tap.act(Place(tap.seat, territory, tap.number(1, 1, max(1, tap.game.state.neutral_left))))


async def remove(tap: Tap) -> None:
    seat = tap.number(0, 0, len(tap.record.players) - 1)
    await tap.cog.remove_player(tap.interaction, tap.record, seat)


async def offer(tap: Tap) -> None:
    await tap.cog.offer(tap.interaction, tap.record, tap.number(0, 0, len(tap.record.players) - 1))


async def ballot(tap: Tap) -> None:
    await tap.cog.cast_ballot(tap.interaction, tap.record, tap.seat, tap.args)


Handler = Callable[[Tap], Awaitable[None]]
# Button verbs to their handlers (the verbs: present/verbs.py); the map button needs no turn and is handled first.
BUTTONS: dict[str, Handler] = {
    verb.CLAIM: claim, verb.CAPITAL: capital, verb.PLACE: place, verb.NEUTRAL: neutral, verb.PUT: put,
    verb.CARDS: cards, verb.TRADE: trade, verb.ATTACK: attack, verb.ROLL: roll, verb.BLITZ: blitz,
    verb.STOP: stop, verb.MOVE: move, verb.FORTIFY: fortify, verb.FORT: fort, verb.END: end,
    verb.END_CONFIRMED: end_confirmed, verb.CONTROLS: my_controls, verb.UNDO: undo,
    verb.END_ATTACKS: end_attacks, verb.END_ATTACKS_CONFIRMED: end_attacks_confirmed, verb.NEUTRAL_PUT: neutral_put,
    verb.START: lambda tap: tap.act(StartTurn(tap.seat)),  # a freestyle round: start your turn
}
# The buttons whose handler only checks its arguments and plays (no menu or question of its own): like a typed
# move, they are acknowledged on receipt, before the game is read (``RiskCog.on_button``).
AT_ONCE = frozenset({verb.PUT, verb.ROLL, verb.BLITZ, verb.MOVE, verb.FORT, verb.END_CONFIRMED, verb.UNDO,
                     verb.END_ATTACKS_CONFIRMED, verb.NEUTRAL_PUT, verb.START})
# Buttons for a player whose turn it need not be, and for the host.
SEATED: dict[str, Handler] = {verb.MISSION: show_mission, verb.SURRENDER: give_up, verb.BALLOT: ballot}
HOSTED: dict[str, Handler] = {verb.KICK: remove, verb.OFFER: offer}


# -- selects: the value is checked against the menu's choices before any of these runs ----------------------
async def chose_claim(tap: Tap, value: str) -> None:
    await tap.act(Claim(tap.seat, value))


async def chose_capital(tap: Tap, value: str) -> None:
    await tap.act(ChooseCapital(tap.seat, value))


async def chose_neutral(tap: Tap, value: str) -> None:
    left = tap.game.state.neutral_left
    if left <= 1:  # the last neutral army: no count to choose
        await tap.act(Place(tap.seat, value, 1))
        return
    locale = tap.locale
    counts = range(1, left + 1) if left <= 5 else (1, 2, 3, left)  # a count menu for any other number
    number = verb.ref(tap.game.board, value)
    items: list[GameButton | GameSelect] = [GameButton(tap.record.id, verb.NEUTRAL_PUT, number, n, label=_(
        "All {n}", locale, n=n) if n == left else f"+{n}", style=Blue if n == left else Grey) for n in counts]
    if left > 5:
        items.append(count_select(tap.record.id, verb.NEUTRAL_COUNT, range(1, left + 1), _("Another number…", locale),
                                  number, row=1))
    view = view_of(*items)
    await tap.reply(ngettext("How many neutral armies on {territory}? ({n} neutral left)",
                              "How many neutral armies on {territory}? ({n} neutral left)", left, locale,
                              territory=tap.name(value)), view)


async def chose_place(tap: Tap, value: str) -> None:
    left = armies_to_place(tap.game.state, tap.seat)
    if not left:
        raise UserError(_("You have no armies left to place.", tap.locale))
    if left == 1:  # the last army: nothing to count
        await tap.act(Place(tap.seat, value, 1))
        return
    counts = sorted({1, min(3, left), min(5, left), left} - {0})
    locale = tap.locale
    number = verb.ref(tap.game.board, value)
    items: list[GameButton | GameSelect] = [
        GameButton(tap.record.id, verb.PUT, number, n, label=_("All {n}", locale, n=n) if n == left else f"+{n}",
                   style=Blue if n == left else Grey) for n in counts]
    if len(counts) < left:  # any other number, from a menu
        items.append(count_select(tap.record.id, verb.PUT_COUNT, range(1, left + 1), _("Another number…", locale),
                                  number, row=1))
    await tap.reply(_("How many armies on {territory}?", locale, territory=tap.name(value)), view_of(*items))


async def chose_place_all(tap: Tap, value: str) -> None:
    left = armies_to_place(tap.game.state, tap.seat)  # a menu of an earlier moment (another number was left) is refused
    await tap.act(Place(tap.seat, value, tap.number(0, max(1, left), left)))


async def chose_attack_from(tap: Tap, value: str) -> None:
    await tap.menu(verb.ATTACK_TO, choices(tap.game, tap.seat, verb.ATTACK_TO, [value]),
                   _("Attack which territory?", tap.locale), value)


async def chose_attack_to(tap: Tap, value: str) -> None:
    await _dice(tap, tap.arg(0), value)


async def chose_attack_pair(tap: Tap, value: str) -> None:
    await _dice(tap, *pair_of(tap.game, value))


async def _dice(tap: Tap, source: str, target: str) -> None:
    s = tap.game.state
    locale = tap.locale
    dice = tap.choices.attack[source].dice
    chance = odds(s.armies[source], s.armies[target], QUICK_LIMIT)[0]
    front = refs(tap.game, (source, target))
    buttons = [GameButton(tap.record.id, verb.ROLL, *front, n,
                          label=_("{n} dice", locale, n=n) if n > 1 else _("1 die", locale),
                          style=Red if n == max(dice) else Grey) for n in dice]
    buttons.append(GameButton(tap.record.id, verb.BLITZ, *front, label=_("Blitz", locale), style=Red,
                              emoji="⚡"))
    text = _("{source} ({a}) → {target} ({d}): blitz wins {win} of the time. Roll how many dice?", locale,
             source=tap.name(source), a=s.armies[source], target=tap.name(target), d=s.armies[target],
             win=percent(chance.win, locale))
    await tap.reply(text, view_of(*buttons))


async def chose_fortify_from(tap: Tap, value: str) -> None:
    await tap.menu(verb.FORTIFY_TO, choices(tap.game, tap.seat, verb.FORTIFY_TO, [value]),
                   _("Move them to?", tap.locale), value)


async def chose_fortify_to(tap: Tap, value: str) -> None:
    await _fortify_count(tap, tap.arg(0), value)


async def chose_fortify_pair(tap: Tap, value: str) -> None:
    await _fortify_count(tap, *pair_of(tap.game, value))


async def _fortify_count(tap: Tap, source: str, value: str) -> None:
    locale = tap.locale
    most = tap.game.state.armies[source] - 1
    counts = sorted({1, (most + 1) // 2, most} - {0})
    move = refs(tap.game, (source, value))
    buttons: list[GameButton | GameSelect] = [GameButton(tap.record.id, verb.FORT, *move, n,
                                     label=_("All but one ({n})", locale, n=n) if n == most else str(n),
                                     style=Blue if n == most else Grey) for n in counts]
    if most > 3:  # any other number, from a menu
        buttons.append(count_select(tap.record.id, verb.FORT_COUNT, range(1, most + 1), _("Another number…", locale),
                                    *move, row=1))
    names = {"source": tap.name(source), "target": tap.name(value)}
    text = _("Move how many armies from {source} to {target}? This ends your turn.", locale, **names) \
        if tap.game.fortify_ends_turn else _("Move how many armies from {source} to {target}?", locale, **names)
    await tap.reply(text, view_of(*buttons))


SelectHandler = Callable[[Tap, str], Awaitable[None]]
# Select verbs (each also names the menu whose choices its value must be among) to their handlers.
SELECTS: dict[str, SelectHandler] = {
    verb.CLAIM: chose_claim, verb.CAPITAL: chose_capital, verb.NEUTRAL: chose_neutral, verb.PLACE: chose_place,
    verb.ATTACK_FROM: chose_attack_from, verb.ATTACK_TO: chose_attack_to, verb.FORTIFY_FROM: chose_fortify_from,
    verb.FORTIFY_TO: chose_fortify_to, verb.PLACE_ALL: chose_place_all, verb.ATTACK_PAIR: chose_attack_pair,
    verb.FORTIFY_PAIR: chose_fortify_pair,
}


async def on_select(tap: Tap, purpose: str, values: list[str]) -> None:
    if len(values) != 1:
        raise UserError(_("Choose one option.", tap.locale))
    value = values[0]
    if purpose == verb.CONTINENT:  # a continent, then the territories of the menu ``args[0]`` in it
        inner = tap.arg(0)
        if inner not in SELECTS:
            raise tap.refuse()
        board = tap.game.board
        extra = tap.extras(inner, tap.args[1:])
        continent = verb.continent_at(board, value)
        chosen = [t for t in choices(tap.game, tap.seat, inner, extra) if board.territories[t].continent == continent]
        if not chosen:
            raise tap.refuse()
        await tap.menu(inner, chosen, _("Choose a territory", tap.locale), *extra)
        return
    if purpose in COUNTS:
        await COUNTS[purpose](tap, value)
        return
    handler = SELECTS.get(purpose)
    if handler is None:
        raise UserError(_("This menu is from an older version of the bot; use the slash commands.", tap.locale))
    tap.args = tap.extras(purpose, tap.args)  # the source of a menu of targets, as an id
    await handler(tap, tap.legal(value, purpose, *tap.args))


__all__ = ["AT_ONCE", "BUTTONS", "COUNTS", "HOSTED", "SEATED", "SELECTS", "Tap", "on_select"]
