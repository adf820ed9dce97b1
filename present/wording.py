"""What an outcome says: each part's lines for one audience, the notes of the table, a message's length, and
the care that one failing part of telling a stored outcome does not keep the others from going out."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Sequence

from engine import Game, GameState
from engine.events import EventType
from engine.fog import Audience, events_for
from present.i18n import _, ngettext
from present.text import describe, seat_name
from table import Note, Outcome, Part
from table.outcome import (
    AI,
    HOST,
    KICKED,
    SEAT_REMOVED,
    SEAT_TO_AI,
    START,
    TIME_RAN_OUT,
    TIMEOUT,
    VOTE_CALLED,
    VOTE_EXPIRED,
    VOTE_FAILED,
    VOTE_PASSED,
)
from table.timers import DRAW

MAX_CONTENT = 1900
log = logging.getLogger("risk.announcer")


async def attempt(failures: list[Exception], work: Awaitable[object]) -> bool:
    """Await one part of telling a stored outcome; a failure is kept in ``failures`` (and logged), so that the
    other parts still go out."""
    try:
        await work
    except Exception as exc:
        log.exception("telling an outcome failed")
        failures.append(exc)
        return False
    return True


def clip(lines: Sequence[str]) -> str:
    """Lines as one message within Discord's limit; what does not fit is counted."""
    text = "\n".join(lines)
    if len(text) <= MAX_CONTENT:
        return text
    head: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) > MAX_CONTENT - 40:
            break
        head.append(line)
        size += len(line) + 1
    return "\n".join([*head, f"… (+{len(lines) - len(head)})"])


def note_line(note: Note, state: GameState, locale: object) -> str:
    name = seat_name(state, note.seat, locale)
    if note.kind == TIME_RAN_OUT:
        if note.cautious:
            return _("⌛ {player}'s time ran out: the AI played their turn cautiously (missed turns in a row: {n}).",
                     locale, player=name, n=note.count)
        return _("⌛ {player}'s time ran out: the AI played their turn (missed turns in a row: {n}).", locale,
                 player=name, n=note.count)
    if note.kind == SEAT_TO_AI:
        return ngettext("🤖 {player} missed {n} turn: the AI takes their seat. The host can give it back with "
                        "</risk reinstate>.", "🤖 {player} missed {n} turns in a row: the AI takes their seat. The "
                        "host can give it back with </risk reinstate>.", note.count, locale, player=name) + "\n" + (
            _("The host can also offer the seat to a substitute: the button below, or </offer>.", locale)
            if note.offerable else _("A tournament's seat is not offered to a substitute: the player who left it "
                                     "forfeits the table.", locale))
    if note.kind == SEAT_REMOVED:
        return ngettext("🏳️ {player} missed {n} turn: their territories are neutral now.",
                        "🏳️ {player} missed {n} turns in a row: their territories are neutral now.", note.count,
                        locale, player=name)
    if note.kind in (VOTE_CALLED, VOTE_PASSED, VOTE_FAILED, VOTE_EXPIRED):
        return vote_line(note, name, locale)
    return _("🚪 The host removed {player} from the game: their territories are neutral now.", locale, player=name)


def vote_line(note: Note, caller: str, locale: object) -> str:
    """A vote to end the game, called or closed: the tally only once it is closed, never who voted how."""
    draw = note.ending == DRAW
    if note.kind == VOTE_CALLED:
        return _("🗳️ {player} calls a vote to end the game as a draw: every player still in would share first "
                 "place.", locale, player=caller) if draw else \
            _("🗳️ {player} calls a vote to end the game by the standings: the most territories would win, then the "
              "most armies.", locale, player=caller)
    if note.kind == VOTE_PASSED:
        return _("🗳️ The vote passed (for: {yes}, against: {no}): the game ends as a draw.", locale,
                 yes=note.count, no=note.against) if draw else \
            _("🗳️ The vote passed (for: {yes}, against: {no}): the game ends by the standings.", locale,
              yes=note.count, no=note.against)
    if note.kind == VOTE_FAILED:
        return _("🗳️ The vote to end the game failed (for: {yes}, against: {no}): the game goes on.", locale,
                 yes=note.count, no=note.against)
    return _("🗳️ The vote to end the game closed before everyone voted (for: {yes}, against: {no}): the game goes "
             "on.", locale, yes=note.count, no=note.against)


def part_lines(outcome: Outcome, part: Part, audience: Audience, locale: object) -> list[str]:
    """What one part of an outcome says to one audience, in its words (``engine.fog`` decides what it may know)."""
    seen = events_for(part.events, audience, before=part.before)
    state = part.after
    board = Game(state).board
    notes = [n for n in outcome.notes if n.seat == part.seat]
    head: list[str] = []
    skip: set[EventType] = set()
    if part.by == START:
        head.append(_("The game begins! Its dice are fixed in advance by a secret seed, sealed by its commitment "
                      "`{c}`; after the game </risk verify> reveals the seed, and anyone can check every roll.",
                      locale, c=state.seed_commitment[:16] + "…"))
        seen = seen[1:]
    elif part.by in (AI, TIMEOUT):
        if part.by == TIMEOUT:
            head += [note_line(n, state, locale) for n in notes if n.kind == TIME_RAN_OUT and part is
                     next(p for p in outcome.parts if p.by == TIMEOUT and p.seat == n.seat)]
        else:
            name = seat_name(state, part.seat, locale)
            head.append(_("🤖 {player} played turn {turn}:", locale, player=name, turn=part.turn) if part.turn
                        else _("🤖 {player} played:", locale, player=name))
        skip |= {"turn_started", "turn_ended"}
    if part.by == HOST or any(n.kind == SEAT_REMOVED for n in notes):
        skip.add("player_surrendered")
    lines = head + describe([e for e in seen if e["type"] not in skip], state, board, locale,
                            sum_placements=part.by in (AI, TIMEOUT))
    if part.by == AI and len(lines) == 1:  # nothing this audience may read about: one short line
        name = seat_name(state, part.seat, locale)
        lines = [_("🤖 {player} played turn {turn}.", locale, player=name, turn=part.turn) if part.turn
                 else _("🤖 {player} played.", locale, player=name)]
    if part.by == HOST:  # what happened first: the removal, then what it caused (the end, perhaps)
        lines = [note_line(n, state, locale) for n in notes if n.kind == KICKED] + lines
    if part is _last_timeout(outcome, part.seat):
        said = [note_line(n, state, locale) for n in notes if n.kind in (SEAT_TO_AI, SEAT_REMOVED)]
        ends = [i for i, line in enumerate(lines) if line.startswith("🏆")]
        at = ends[0] if ends else len(lines)
        lines = lines[:at] + said + lines[at:]
    return lines

def _last_timeout(outcome: Outcome, seat: int) -> Part | None:
    return next((p for p in reversed(outcome.parts) if p.by == TIMEOUT and p.seat == seat), None)


__all__ = ["MAX_CONTENT", "attempt", "clip", "note_line", "part_lines", "vote_line"]
