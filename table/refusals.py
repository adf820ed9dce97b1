"""The table's refusals: templates with values, as the engine's and the store's are (``engine.errors.TemplateError``),
translated where they are read (``cogs/shared/errors.py``) and taken into the catalogs by ``tools/catalogs.py``.
``kind`` tells the code which refusal it is; the template tells the player. Nothing was written when one is
raised."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from engine.errors import TemplateError, TurnRunning

from .timers import turn_deadline

if TYPE_CHECKING:
    from store import Deadline
    from store.results import Reliability

    from .timers import Vote


def _noop(message: str) -> str:
    """A message for the catalogs, translated where it is read."""
    return message


def _plural(singular: str, plural: str) -> tuple[str, str]:
    """A message and its plural for the catalogs, translated where it is read with the count it is for."""
    return singular, plural


def turn_running(refusal: TurnRunning, deadlines: list[Deadline]) -> TurnRunning:
    """The engine's refusal of a start while another player's turn runs, with the running turn's limit (its timer
    among the game's ``deadlines``) as the time it ends at the latest; as it was if the turn has no limit (a paused
    game)."""
    limit = turn_deadline(deadlines)
    if limit is None:
        return refusal
    return TurnRunning("{player} is playing their turn now, until <t:{until}:t> at the latest: wait until it ends.",
                       player=refusal.params["player"], until=int(limit.due_at))


class VoteRefused(TemplateError):
    """A vote or a ballot the table refuses."""

    NOT_A_VOTER: ClassVar[str] = "not_a_voter"   # only the players still in the game vote
    TOO_FEW: ClassVar[str] = "too_few"           # fewer than two players are still in the game
    GOING_ON: ClassVar[str] = "going_on"         # a vote is going on already (``vote``: that one)
    OVER: ClassVar[str] = "over"                 # the ballot's vote is over (or never was)
    WORDS: ClassVar[dict[str, str]] = {
        NOT_A_VOTER: _noop("Only the players still in this game vote on ending it."),
        TOO_FEW: _noop("A vote to end the game needs at least two players still in it."),
        GOING_ON: _noop("A vote to end this game is going on already; it closes <t:{t}:R>."),
        OVER: _noop("This vote is over."),
    }

    def __init__(self, kind: str, vote: Vote | None = None) -> None:
        if kind == self.GOING_ON and vote is not None:
            super().__init__(self.WORDS[kind], t=int(vote.closes_at))
        else:
            super().__init__(self.WORDS[self.OVER if kind == self.GOING_ON else kind])
        self.kind = kind
        self.vote = vote


class SeatRefused(TemplateError):
    """An offer or a claim the table refuses."""

    NOT_TAKEN: ClassVar[str] = "not_taken"      # the AI did not take the seat over from its player
    NOT_OFFERED: ClassVar[str] = "not_offered"  # the seat is not offered (withdrawn, claimed, or never)
    SEATED: ClassVar[str] = "seated"            # the claimer plays in the game, or did
    BELOW: ClassVar[str] = "below"              # the claimer's reliability is below the game's minimum
    OVER: ClassVar[str] = "over"                # the game has ended (or was cancelled)
    WORDS: ClassVar[dict[str, str]] = {
        NOT_TAKEN: _noop("The AI did not take that player's seat over: only such a seat can be offered."),
        NOT_OFFERED: _noop("This seat is not offered (the offer was taken or withdrawn)."),
        SEATED: _noop("You play in this game already (or did): the seat is for a player not in it."),
        BELOW: _noop("Your reliability here is {figure}% (games counted: {games}); this game asks for at least "
                     "{minimum}%."),
        OVER: _noop("This game is over: its seats are not offered any more."),
    }

    def __init__(self, kind: str, reliability: Reliability | None = None, minimum: int = 0) -> None:
        if kind == self.BELOW and reliability is not None:
            super().__init__(self.WORDS[kind], figure=reliability.percent, games=reliability.games, minimum=minimum)
        else:
            super().__init__(self.WORDS[self.NOT_OFFERED if kind == self.BELOW else kind])
        self.kind = kind
        self.reliability = reliability
        self.minimum = minimum


class LimitReached(TemplateError):
    """A change the limits a server owner sets refuse (table/limits.py): ``kind`` names the limit, ``count`` how
    many there are; ``plural`` is the template's plural, the one a count other than one reads."""

    GAMES: ClassVar[str] = "games_per_server"
    LOBBIES: ClassVar[str] = "lobbies_per_user"
    AI_SEATS: ClassVar[str] = "ai_seats_per_game"
    WORDS: ClassVar[dict[str, tuple[str, str]]] = {
        GAMES: _plural("This server already has {n} game going, the most it allows.",
                       "This server already has {n} games going, the most it allows."),
        LOBBIES: _plural("You already host {n} open lobby: start or cancel it first.",
                         "You already host {n} open lobbies: start or cancel one first."),
        AI_SEATS: _plural("A game seats at most {n} AI player here.", "A game seats at most {n} AI players here."),
    }

    def __init__(self, kind: str, count: int) -> None:
        singular, plural = self.WORDS[kind]
        super().__init__(singular if count == 1 else plural, n=count)
        self.template, self.plural = singular, plural
        self.kind = kind
        self.count = count


__all__ = ["LimitReached", "SeatRefused", "VoteRefused"]
