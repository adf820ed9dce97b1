"""Standing orders in words (engine/orders.py): a plan's summary, and what it did when it ran. Both are for the
player who left the plan only: an ephemeral answer, or a direct message."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import Action, Board, Game
from engine.actions import Attack, Blitz, EndTurn, Fortify, Occupy, Place, StartTurn, Trade
from engine.errors import RuleError, TemplateError
from engine.orders import FRONT, Orders
from present.i18n import _, ngettext, percent
from present.refusals import translate_template
from present.text import territory_text
from present.wording import clip

if TYPE_CHECKING:

    from store import StoreReader
    from table import Outcome


def plan_lines(plan: Orders, board: Board, locale: object | None) -> list[str]:
    """The plan, one order a line, in the order they run."""
    def name(territory: str) -> str:
        return _("my front", locale) if territory == FRONT else territory_text(board, territory, locale)

    lines = [_("• Trade the best set when I can.", locale)] if plan.trade else []
    for p in plan.place:
        lines.append(_("• Place all the armies left on {territory}.", locale, territory=name(p.territory))
                     if p.count is None else
                     ngettext("• Place {n} army on {territory}.", "• Place {n} armies on {territory}.", p.count,
                              locale, territory=name(p.territory)))
    for a in plan.attacks:
        stop = ngettext("until it is down to {n} army", "until it is down to {n} armies", a.stop_at, locale)
        if a.odds:
            stop = _("{stop}, or while the odds are at least {odds}", locale, stop=stop,
                     odds=percent(a.odds, locale))
        lines.append(_("• Attack {target} from {source} {stop}.", locale, target=name(a.target),
                       source=name(a.source), stop=stop))
        lines.append(ngettext("  then move in {n} army", "  then move in {n} armies", a.move_in, locale)
                     if a.move_in is not None else
                     ngettext("  then move in all but {n} army", "  then move in all but {n} armies", a.leave, locale))
    if plan.fortify is not None:
        f = plan.fortify
        lines.append(_("• Fortify {target} from {source} with all but one army.", locale, target=name(f.target),
                       source=name(f.source)) if f.count is None else
                     ngettext("• Fortify {target} from {source} with {n} army.",
                              "• Fortify {target} from {source} with {n} armies.", f.count, locale,
                              target=name(f.target), source=name(f.source)))
    lines.append(_("• Then end my turn.", locale) if plan.end else _("• Then leave the rest of my turn to me.", locale))
    if plan.repeat:
        lines.append(_("Repeat every turn until I change it.", locale))
    return lines


def action_line(action: Action, board: Board, locale: object | None) -> str:
    """One step a plan took, in the player's words."""
    def t(territory: str) -> str:
        return territory_text(board, territory, locale)

    match action:
        case StartTurn():
            return _("started your turn", locale)
        case Trade():
            return _("traded a set", locale)
        case Place(territory=territory, count=count):
            return ngettext("placed {n} army on {territory}", "placed {n} armies on {territory}", count, locale,
                            territory=t(territory))
        case Attack(source=source, target=target) | Blitz(source=source, target=target):
            return _("attacked {target} from {source}", locale, target=t(target), source=t(source))
        case Occupy(count=count):
            return ngettext("moved {n} army in", "moved {n} armies in", count, locale)
        case Fortify(source=source, target=target, count=count):
            return ngettext("moved {n} army from {source} to {target}", "moved {n} armies from {source} to {target}",
                            count, locale, source=t(source), target=t(target))
        case EndTurn():
            return _("ended your turn", locale)
    return type(action).kind


def reason_text(reason: TemplateError, locale: object | None) -> str:
    if isinstance(reason, RuleError):   # the rules refused the order
        return _("Your orders stopped: {why}", locale, why=translate_template(reason.template, reason.params, locale))
    return translate_template(reason.template, reason.params, locale)


def report_text(game_id: int, ran: list[Action], stop: TemplateError | None, forced: list[Action], board: Board,
                locale: object | None, notes: list[TemplateError] | None = None) -> str:
    """What a plan did, told to its player: the steps (repeated rolls of one attack told once), the attacks their
    stop ended, and why it stopped."""
    steps: list[str] = []
    for action in ran:
        line = action_line(action, board, locale)
        if not steps or steps[-1] != line:
            steps.append(line)
    lines = [_("📋 Your orders in game #{id} ran: {steps}.", locale, id=game_id, steps=", ".join(steps))
             if steps else _("📋 Your orders in game #{id} did not run.", locale, id=game_id)]
    lines += [reason_text(note, locale) for note in notes or ()]
    if stop is not None:
        lines.append(reason_text(stop, locale))
    if forced:
        lines.append(_("Then, with only one choice left: {steps}.", locale,
                       steps=", ".join(action_line(a, board, locale) for a in forced)))
    return "\n".join(lines)


async def orders_report(store: StoreReader, outcome: Outcome) -> tuple[int, str]:
    """What a player's standing orders did (``outcome.orders``): to whom, and the words, in their language."""
    report: Any = outcome.orders
    prefs = await store.get_user_prefs(report.user_id)
    locale = prefs.language or outcome.record.settings.get("language")
    board = Game(outcome.state or outcome.record.game().state).board
    return report.user_id, clip([report_text(outcome.record.id, report.ran, report.stop, report.forced, board,
                                             locale, report.notes)])


__all__ = ["action_line", "orders_report", "plan_lines", "reason_text", "report_text"]
