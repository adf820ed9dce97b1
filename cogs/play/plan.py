"""Plan my turn: standing orders built by the same taps as playing (engine/orders.py, table/orders.py).

``/plan`` (or **Plan my turn** on the turn panel) opens a private flow: where to place all the armies, attacks each
with its stop (and how many move in), one fortify move, then end the turn or leave the rest to me. It records the
taps instead of playing them and ends with a private summary of the plan, where it can be made to repeat, changed
or cancelled; ``/plan`` shows it again at any time. Nobody else sees a plan: every message of the flow is
ephemeral, and the table keeps it privately.

The plan so far travels in the custom ids (``Draft``: each territory as its number on the map), so the flow
survives a restart; every value a tap brings back is checked against the choices offered for that draft, and the
finished plan against the board by the engine (``engine.orders.left``). Planned conquests count as the player's in
the next menus, so an attack may go on from a territory the plan takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import discord
from discord import app_commands

from cogs.play.tap import Tap
from cogs.shared.base import CogBase
from cogs.shared.components import GameButton, GameSelect, view_of
from cogs.shared.errors import UserError
from cogs.shared.guards import game_here, seat_of
from engine import Game
from engine.orders import FRONT, MOVES, PLAN_ATTACKS, STOPS, FortifyOrder, Orders, Placing, planned, tapped_attack
from present import verbs as verb
from present.i18n import _, territory_name
from present.plans import plan_lines
from present.verbs import ref, territory_at
from store import GameRecord

Blue, Grey, Red = discord.ButtonStyle.primary, discord.ButtonStyle.secondary, discord.ButtonStyle.danger
MAX_OPTIONS = 25
EMPTY = "-"


@dataclass
class Draft:
    """A plan being built: ``place`` (a territory or ``FRONT``), attacks (source, target, move, stop: the last
    attack's stop is "" while it is being chosen) and a fortify move."""

    place: str | None = None
    attacks: list[tuple[str, str, str, str]] = field(default_factory=list)
    fortify: tuple[str, str] | None = None

    def encode(self, game: Game) -> str:
        board = game.board
        parts = []
        if self.place is not None:
            parts.append("pf" if self.place == FRONT else "p" + ref(board, self.place))
        for src, dst, move, stop in self.attacks:
            parts.append(".".join(["a" + ref(board, src), ref(board, dst), move, *([stop] if stop else [])]))
        if self.fortify is not None:
            parts.append(f"f{ref(board, self.fortify[0])}.{ref(board, self.fortify[1])}")
        return "_".join(parts) or EMPTY

    @classmethod
    def decode(cls, game: Game, text: str) -> Draft:
        """A draft from a custom id; anything that is not one a flow wrote is refused."""
        draft = cls()
        if text == EMPTY:
            return draft
        board = game.board

        def at(number: str) -> str:
            territory = territory_at(board, number)
            if territory is None:
                raise ValueError(number)
            return territory
        try:
            for part in text.split("_"):
                kind, rest = part[:1], part[1:].split(".")
                if kind == "p" and draft.place is None and not draft.attacks:
                    draft.place = FRONT if rest == ["f"] else at(rest[0])
                elif kind == "a" and len(rest) in (3, 4) and rest[2] in MOVES and draft.fortify is None \
                        and (len(rest) == 3 or rest[3] in STOPS) and not draft.pending:
                    draft.attacks.append((at(rest[0]), at(rest[1]), rest[2], rest[3] if len(rest) == 4 else ""))
                elif kind == "f" and len(rest) == 2 and draft.fortify is None and not draft.pending:
                    draft.fortify = (at(rest[0]), at(rest[1]))
                else:
                    raise ValueError(part)
        except (ValueError, IndexError) as exc:
            raise UserError(_("This plan is from an older version of the bot; start again with </plan>.",
                              None)) from exc
        return draft

    @property
    def pending(self) -> tuple[str, str, str, str] | None:
        return self.attacks[-1] if self.attacks and not self.attacks[-1][3] else None

    def mine(self, game: Game, seat: int) -> set[str]:
        """The player's territories as the plan will have them: now, and what its attacks take."""
        return set(game.state.territories_of(seat)) | {dst for _src, dst, _m, _s in self.attacks}

    def orders(self, end: bool) -> Orders:
        attacks = []
        for src, dst, move, stop in self.attacks:
            if not stop:   # its stop is being chosen
                continue
            attacks.append(tapped_attack(src, dst, move, stop))
        place = (Placing(self.place),) if self.place is not None else ()
        fortify = FortifyOrder(*self.fortify) if self.fortify is not None else None
        return Orders(place=place, attacks=tuple(attacks), fortify=fortify, end=end)


# -- the choices each step offers -------------------------------------------------------------------------
def place_options(game: Game, seat: int) -> list[str]:
    """Where the armies may go: "my front", then the player's territories next to an enemy, then the rest."""
    s = game.state
    mine = [t for t in game.board.territory_ids if s.owners.get(t) == seat]
    border = [t for t in mine if any(not game.friendly(seat, s.owners.get(n)) for n in game.board.touching(t))]
    return [FRONT, *border, *[t for t in mine if t not in border]][:MAX_OPTIONS]


def attack_options(game: Game, seat: int, draft: Draft) -> list[tuple[str, str]]:
    """Attacks the plan may add: from a territory it holds by then to a neighbour it does not, those from the
    territory it places on and from its conquests first."""
    mine = draft.mine(game, seat)
    first = {draft.place, *(dst for _s, dst, _m, _t in draft.attacks)}
    pairs = [(src, dst) for src in game.board.territory_ids if src in mine
             for dst in sorted(game.board.neighbours(src))
             if dst not in mine and not game.friendly(seat, game.state.owners.get(dst))]
    pairs.sort(key=lambda p: (p[0] not in first, -game.state.armies.get(p[0], 0)))
    return pairs[:MAX_OPTIONS]


def fortify_options(game: Game, seat: int, draft: Draft) -> list[tuple[str, str]]:
    """Fortify moves between neighbours the plan holds, toward where it placed or conquered first."""
    mine = draft.mine(game, seat)
    first = {draft.place, *(dst for _s, dst, _m, _t in draft.attacks)}
    pairs = [(src, dst) for src in game.board.territory_ids if src in mine
             for dst in sorted(game.board.neighbours(src)) if dst in mine]
    pairs.sort(key=lambda p: (p[1] not in first, p[0] in first))
    return pairs[:MAX_OPTIONS]


def _pair(game: Game, pair: tuple[str, str]) -> str:
    return f"{ref(game.board, pair[0])}>{ref(game.board, pair[1])}"


# -- the steps ---------------------------------------------------------------------------------------------
def step(record: GameRecord, game: Game, seat: int, draft: Draft, locale: object) -> tuple[str, discord.ui.View]:
    """The message of the flow for the draft: its plan so far and the next choices."""
    board = game.board
    code = draft.encode(game)

    def name(t: str) -> str:
        return _("My front", locale) if t == FRONT else territory_name(board, t, locale)

    lines = [_("📋 **Plan my turn**: it runs when your next turn comes; only you see it.", locale)]
    if draft.place is not None:
        lines += plan_lines(draft.orders(end=True), board, locale)[:-1]
    items: list[GameButton | GameSelect] = []
    pending = draft.pending
    if draft.place is None:
        lines.append(_("Place all your armies on:", locale))
        options = [discord.SelectOption(label=name(t)[:100], value="f" if t == FRONT else ref(board, t))
                   for t in place_options(game, seat)]
        items.append(GameSelect(record.id, verb.PLAN_PLACE, code, options=options,
                                placeholder=_("Place all on…", locale), row=0))
    elif pending is not None:
        src, dst, move, _stop = pending
        lines.append(_("Attack {target} from {source}: stop when?", locale, target=name(dst), source=name(src)))
        labels = {"s2": _("At 2 armies", locale), "s3": _("At 3 armies", locale), "s5": _("At 5 armies", locale),
                  "o60": _("Odds below 60%", locale), "o80": _("Odds below 80%", locale)}
        items += [GameButton(record.id, verb.PLAN_STOP, code, stop, label=labels[stop], style=Red if n == 1 else Grey,
                             row=0) for n, stop in enumerate(STOPS)]
        moves = {"a": _("Move in all", locale), "k2": _("Move in all but 2", locale),
                 "m": _("Move in the least", locale)}
        for m in MOVES:
            changed = replace(draft, attacks=[*draft.attacks[:-1], (src, dst, m, "")])
            items.append(GameButton(record.id, verb.PLAN, changed.encode(game), label=moves[m],
                                    style=Blue if m == move else Grey, row=1))
    else:
        row = 0
        attacks = attack_options(game, seat, draft) if len(draft.attacks) < PLAN_ATTACKS and draft.fortify is None \
            else []
        if attacks and len(code) < 60:
            options = [discord.SelectOption(label=f"{name(a)} → {name(b)}"[:100], value=_pair(game, (a, b)))
                       for a, b in attacks]
            items.append(GameSelect(record.id, verb.PLAN_ATTACK, code, options=options,
                                    placeholder=_("Attack…", locale), row=row))
            row += 1
        moves_ = fortify_options(game, seat, draft) if draft.fortify is None else []
        if moves_:
            options = [discord.SelectOption(label=f"{name(a)} → {name(b)}"[:100], value=_pair(game, (a, b)))
                       for a, b in moves_]
            items.append(GameSelect(record.id, verb.PLAN_FORTIFY, code, options=options,
                                    placeholder=_("Fortify (all but one army)…", locale), row=row))
            row += 1
        items.append(GameButton(record.id, verb.PLAN_END, code, 1, label=_("Then end my turn", locale),
                                style=Blue, row=row))
        items.append(GameButton(record.id, verb.PLAN_END, code, 0, label=_("Then leave the rest to me", locale),
                                style=Grey, row=row))
    return "\n".join(lines), view_of(*items)


def summary(record: GameRecord, game: Game, plan: Orders, locale: object) -> tuple[str, discord.ui.View]:
    """The plan as kept, privately, with what can be done to it."""
    text = "\n".join([_("📋 Your plan for your next turn (only you see it):", locale),
                      *plan_lines(plan, game.board, locale)])
    buttons = [GameButton(record.id, verb.PLAN, EMPTY, label=_("Change", locale), style=Grey),
               GameButton(record.id, verb.PLAN_CANCEL, label=_("Cancel the plan", locale), style=Red)]
    if not plan.repeat:
        buttons.insert(0, GameButton(record.id, verb.PLAN_REPEAT, label=_("Every turn", locale), style=Grey,
                                     emoji="🔁"))
    return text, view_of(*buttons)


# -- the taps ----------------------------------------------------------------------------------------------
def _draft(tap: Tap) -> Draft:
    return Draft.decode(tap.game, tap.arg(0))


async def _show(tap: Tap, draft: Draft) -> None:
    await tap.reply(*step(tap.record, tap.game, tap.seat, draft, tap.locale))


async def plan(tap: Tap) -> None:
    await _show(tap, _draft(tap))


async def plan_stop(tap: Tap) -> None:
    draft = _draft(tap)
    pending = draft.pending
    stop = tap.arg(1)
    if pending is None or stop not in STOPS:
        raise tap.refuse()
    draft.attacks[-1] = (*pending[:3], stop)
    await _show(tap, draft)


async def plan_end(tap: Tap) -> None:
    draft = _draft(tap)
    if draft.pending is not None or tap.arg(1) not in ("0", "1"):
        raise tap.refuse()
    user = tap.interaction.user.id
    orders = draft.orders(end=tap.arg(1) == "1")
    planned(tap.game, tap.seat, orders)
    kept = await tap.cog.table.leave_orders(tap.record, tap.seat, user, orders)
    await tap.reply(*summary(tap.record, tap.game, kept, tap.locale))


async def plan_repeat(tap: Tap) -> None:
    user = tap.interaction.user.id
    kept = await tap.cog.table.orders_of(tap.record, tap.seat, user)
    if kept is None:
        raise UserError(_("You have no plan: make one with </plan>.", tap.locale))
    kept = await tap.cog.table.leave_orders(tap.record, tap.seat, user, replace(kept, repeat=True, owners={}))
    await tap.reply(*summary(tap.record, tap.game, kept, tap.locale))


async def plan_cancel(tap: Tap) -> None:
    gone = await tap.cog.table.cancel_orders(tap.record, tap.seat, tap.interaction.user.id)
    text = _("Your plan is cancelled: your next turn waits for you.", tap.locale) if gone else \
        _("You have no plan: make one with </plan>.", tap.locale)
    await tap.reply(text, view_of())


async def chose_place(tap: Tap, value: str) -> None:
    draft = _draft(tap)
    offered = {"f" if t == FRONT else ref(tap.game.board, t): t for t in place_options(tap.game, tap.seat)}
    if draft.place is not None or value not in offered:
        raise tap.refuse()
    draft.place = offered[value]
    await _show(tap, draft)


def _chosen_pair(tap: Tap, value: str, draft: Draft, offered: list[tuple[str, str]]) -> tuple[str, str]:
    """The attack or fortify move a select's value names, if the draft's menu offered it now."""
    by_value = {_pair(tap.game, p): p for p in offered}
    if draft.place is None or draft.pending is not None or draft.fortify is not None or value not in by_value:
        raise tap.refuse()
    return by_value[value]


async def chose_attack(tap: Tap, value: str) -> None:
    draft = _draft(tap)
    src, dst = _chosen_pair(tap, value, draft, attack_options(tap.game, tap.seat, draft))
    draft.attacks.append((src, dst, "a", ""))
    await _show(tap, draft)


async def chose_fortify(tap: Tap, value: str) -> None:
    draft = _draft(tap)
    draft.fortify = _chosen_pair(tap, value, draft, fortify_options(tap.game, tap.seat, draft))
    await _show(tap, draft)


# Buttons and selects of the flow: a seated player's at any time (cogs/risk.py routes them before the turn check).
PLAN_BUTTONS = {verb.PLAN: plan, verb.PLAN_STOP: plan_stop, verb.PLAN_END: plan_end, verb.PLAN_REPEAT: plan_repeat,
                verb.PLAN_CANCEL: plan_cancel}
PLAN_SELECTS = {verb.PLAN_PLACE: chose_place, verb.PLAN_ATTACK: chose_attack, verb.PLAN_FORTIFY: chose_fortify}


async def on_plan_select(tap: Tap, purpose: str, values: list[str]) -> None:
    if len(values) != 1:
        raise UserError(_("Choose one option.", tap.locale))
    await PLAN_SELECTS[purpose](tap, values[0])


class PlanCommands(CogBase):
    @app_commands.command(name="plan", description="Plan your next turn in advance; only you see it")
    async def plan(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction)
        seat = seat_of(record, interaction)
        game = record.game()
        kept = await self.table.orders_of(record, seat, interaction.user.id)
        text, view = summary(record, game, kept, interaction.locale) if kept is not None else \
            step(record, game, seat, Draft(), interaction.locale)
        await interaction.response.send_message(text, view=view, ephemeral=True)


__all__ = ["PLAN_BUTTONS", "PLAN_SELECTS", "Draft", "PlanCommands", "on_plan_select"]
