"""Typed errors. Every refusal of the rules is a `RuleError` whose message a player understands."""

from __future__ import annotations

from collections.abc import Sequence

# Words a player typed are echoed in a refusal up to this many characters.
ECHO_LIMIT = 100


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters, ending in "…" when it was longer."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


class Territory(str):
    """A territory in a message: reads as its English name, and keeps its id so it can be named in any language."""

    territory: str

    def __new__(cls, territory: str, name: str) -> Territory:
        obj = super().__new__(cls, name)
        obj.territory = territory
        return obj


class Phrase(str):
    """Words in a message that are themselves translated: one or more phrases joined by ``joiner``."""

    parts: tuple[str, ...]
    joiner: str

    def __new__(cls, *parts: str, joiner: str = " or ") -> Phrase:
        obj = super().__new__(cls, joiner.join(parts))
        obj.parts = parts
        obj.joiner = joiner
        return obj


class TemplateError(Exception):
    """A refusal as a template with values, translated where it is read.

    ``template`` is the English message with ``{placeholders}`` filled from ``params``; ``message`` (and
    ``str(exc)``) is the English text. The Discord layer translates the template and the ``Territory`` and
    ``Phrase`` values in it, and the catalogue of translations takes the first argument of every subclass as a
    message (``cogs/translator.py``).
    """

    def __init__(self, template: str, /, **params: object) -> None:
        message = template.format(**params) if params else template
        super().__init__(message)
        self.message = message
        self.template = template
        self.params = params


class RuleError(TemplateError):
    """An action the rules do not allow. The game state is unchanged when it is raised."""

    code = "rule"


class NotYourTurn(RuleError):
    code = "not_your_turn"


class TurnRunning(NotYourTurn):
    """A freestyle round: another player's turn is running (``player``), and nobody else may start one until it
    ends. The engine knows who plays; the table, which keeps the turn's limit, adds until when (``until``)."""


class WrongPhase(RuleError):
    code = "wrong_phase"


class UnknownTerritory(RuleError):
    """A name that is no territory (or the start of several). ``suggestions`` holds the ids of the closest
    territories, closest first."""

    code = "unknown_territory"
    suggestions: tuple[str, ...] = ()
    ambiguous = False  # the start of several names, rather than no name at all

    @staticmethod
    def called(text: str, suggestions: Sequence[Territory] = ()) -> UnknownTerritory:
        """The refusal of ``text`` (echoed clipped), suggesting up to three territories."""
        shown = clip(text)
        match list(suggestions[:3]):
            case [first]:
                exc = UnknownTerritory("There is no territory called “{text}”. Did you mean {first}?",
                                       text=shown, first=first)
            case [first, second]:
                exc = UnknownTerritory("There is no territory called “{text}”. Did you mean {first} or {second}?",
                                       text=shown, first=first, second=second)
            case [first, second, third]:
                exc = UnknownTerritory(
                    "There is no territory called “{text}”. Did you mean {first}, {second} or {third}?",
                    text=shown, first=first, second=second, third=third)
            case _:
                exc = UnknownTerritory("There is no territory called “{text}”.", text=shown)
        exc.suggestions = tuple(t.territory for t in suggestions[:3])
        return exc


class NotOwner(RuleError):
    code = "not_owner"


class NotAdjacent(RuleError):
    code = "not_adjacent"


class NotConnected(RuleError):
    code = "not_connected"


class NotEnoughArmies(RuleError):
    code = "not_enough_armies"


class InvalidCount(RuleError):
    code = "invalid_count"


class InvalidDice(RuleError):
    code = "invalid_dice"


class InvalidSet(RuleError):
    code = "invalid_set"


class MustTrade(RuleError):
    code = "must_trade"


class AlreadyClaimed(RuleError):
    code = "already_claimed"


class Teammate(RuleError):
    """An attack on a teammate's territory."""

    code = "teammate"


class NothingToUndo(RuleError):
    code = "nothing_to_undo"


class GameOver(RuleError):
    code = "game_over"


class OrdersStopped(TemplateError):
    """Why a player's standing orders stopped before their end (engine/orders.py): told to that player only."""

    code = "orders_stopped"


class BadOrders(RuleError):
    """Standing orders that cannot be left as they are (an unknown territory, a count below 1, ...)."""

    code = "bad_orders"


class MapError(TemplateError, ValueError):
    """A map file that breaks the rules of a board (one-way border, unknown territory, ...)."""


class SettingsError(ValueError):
    """Game settings that are not valid (unknown key or value, wrong number of players)."""
