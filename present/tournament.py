"""A tournament's words: its format, a round's tables, its status and its standings, in the reader's language.

Every name is escaped (``safe_name``); a mention is a thread's (``<#id>``, which pings nobody) or, in a round's
opening, one of its players (the message's ``allowed_mentions`` names exactly them).
"""

from __future__ import annotations

from collections.abc import Sequence

from competition import Standing
from present.i18n import _, ngettext, pgettext
from present.names import safe_name
from present.text import _noop
from present.wording import MAX_CONTENT, clip
from render.standings import StandingRow, points_text
from store.tournaments import CALLED_OFF, CHECKIN, DONE, OPEN, STARTED, TournamentRecord, TournamentView

FORMAT_NAMES = {"swiss": _noop("Swiss"), "round_robin": _noop("round robin"),
                "single_elimination": _noop("single elimination"),
                "double_elimination": _noop("double elimination")}
STATUS_NAMES = {OPEN: _noop("open for entries"), CHECKIN: _noop("check-in open"), STARTED: _noop("under way"),
                DONE: _noop("finished"), CALLED_OFF: _noop("called off")}
BRACKETS = {"winners": _noop("winners bracket"), "losers": _noop("losers bracket"), "final": _noop("final")}
MAX_LINES = 40     # the tables or standings a message lists before "and n more"


def format_text(record: TournamentRecord, locale: object) -> str:
    """"Swiss, 3 rounds, tables of 4" and the like."""
    spec = record.spec
    parts = [_(FORMAT_NAMES.get(spec.format, spec.format), locale)]
    if spec.format == "swiss" and spec.rounds:
        parts.append(ngettext("{n} round", "{n} rounds", spec.rounds, locale))
    if spec.team_size > 1:
        parts.append(_("teams of {n}, {teams} teams to a table", locale, n=spec.team_size, teams=spec.table_size))
    else:
        parts.append(_("1v1", locale) if spec.table_size == 2 else
                     _("tables of {n}", locale, n=spec.table_size))
    return ", ".join(parts)


def rules_lines(record: TournamentRecord, locale: object) -> list[str]:
    """The entry rules and time limits a host chose, one line each (none: nothing)."""
    rules = record.settings
    lines = []
    if rules.get("min_games"):
        lines.append(_("Entrants need {n} rated games here.", locale, n=int(rules["min_games"])))
    if rules.get("min_reliability"):
        lines.append(_("Entrants need a reliability of {n}%.", locale, n=int(rules["min_reliability"])))
    low, high = rules.get("min_rating"), rules.get("max_rating")
    if low is not None or high is not None:
        lines.append(_("Ratings from {low} to {high} may enter.", locale, low=int(low or 0),
                       high=int(high if high is not None else 9999)))
    if rules.get("round_time"):
        lines.append(ngettext("A round lasts at most {n} hour.", "A round lasts at most {n} hours.",
                              int(rules["round_time"]) // 3600, locale))
    if rules.get("checkin"):
        lines.append(ngettext("Check-in: {n} minute before the first round.",
                              "Check-in: {n} minutes before the first round.", int(rules["checkin"]) // 60, locale))
    return lines


def title(record: TournamentRecord) -> str:
    return f"🏆 {safe_name(record.name)}"


def names_of(view: TournamentView) -> dict[int, str]:
    """Each entrant's name, escaped: the player's, or in a tournament of fixed teams the team's."""
    return {key: safe_name(name) for key, name in view.entrant_names().items()}


def entrant_text(view: TournamentView, key: int, names: dict[int, str], mention: bool) -> str:
    """An entrant at a table: the player (mentioned or named), or the team's name and its players."""
    if view.team_size > 1:
        team = next((t for t in view.teams if t.number == key), None)
        members = [f"<@{m.user_id}>" if mention else safe_name(m.name) for m in team.members] if team else []
        return f"{names.get(key, str(key))} ({', '.join(members)})"
    return f"<@{key}>" if mention else names.get(key, str(key))


def table_line(view: TournamentView, index: int, locale: object, *, mention: bool = False,
               state: str = "") -> str:
    """One table of a round: its number (and bracket), its thread and who sits at it."""
    p = view.pairings[index]
    names = names_of(view)
    who = ", ".join(entrant_text(view, k, names, mention) for k in p.pairing.entrants)
    if p.pairing.bye:
        return _("Bye: {who}", locale, who=who)
    head = _("Table {n}", locale, n=p.pairing.table)
    if p.pairing.bracket in BRACKETS:
        head += f" ({_(BRACKETS[p.pairing.bracket], locale)})"
    where = f" <#{p.thread_id}>" if p.thread_id is not None else ""
    return f"**{head}**{where}: {who}{state}"


def clipped(lines: Sequence[str], locale: object) -> list[str]:
    if len(lines) <= MAX_LINES:
        return list(lines)
    rest = len(lines) - MAX_LINES
    return [*lines[:MAX_LINES], ngettext("…and {n} more.", "…and {n} more.", rest, locale)]


def messages(lines: Sequence[str]) -> list[str]:
    """Lines in as few messages as Discord's limit allows, none cut in the middle."""
    found: list[str] = []
    for line in lines:
        line = line[:MAX_CONTENT]
        if found and len(found[-1]) + 1 + len(line) <= MAX_CONTENT:
            found[-1] += "\n" + line
        else:
            found.append(line)
    return found


def round_players(view: TournamentView) -> list[int]:
    """Who plays a game in the current round (the ones its opening pings)."""
    return [seat.user_id for p in view.pairings if p.pairing.round == view.record.round and not p.pairing.bye
            for seat in view.seats(p.pairing)]


def round_texts(view: TournamentView, locale: object) -> list[str]:
    """A round's opening: each table, its thread and its players (mentioned), in one message or more."""
    round_ = view.record.round
    return messages([f"{title(view.record)} · " + _("Round {n} begins. Each table plays in its own thread:", locale,
                                                     n=round_),
                     *(table_line(view, i, locale, mention=True) for i, p in enumerate(view.pairings)
                       if p.pairing.round == round_)])


def status_lines(view: TournamentView, locale: object) -> list[str]:
    """What ``/tournament status`` says: the format, the entrants, the round and its tables."""
    record = view.record
    lines = [_("Format: {format}", locale, format=format_text(record, locale)),
             _("Status: {status}", locale, status=_(STATUS_NAMES.get(record.status, record.status), locale))]
    names = [safe_name(e.name) + (" ✅" if record.status == CHECKIN and e.checked_in else "") for e in view.entrants]
    lines.append(ngettext("{n} entrant", "{n} entrants", len(names), locale) + (": " + ", ".join(names)
                                                                                 if names else ""))
    if view.team_size > 1:
        lines.append(ngettext("{n} team", "{n} teams", len(view.teams), locale) + (": " + ", ".join(
            f"{safe_name(t.name)} ({len(t.members)}/{view.team_size})" for t in view.teams) if view.teams else ""))
    if record.round:
        lines.append(_("Round {n}:", locale, n=record.round))
        scored = {(r.round, r.table) for r in view.results}
        for i, p in enumerate(view.pairings):
            if p.pairing.round != record.round:
                continue
            done = (p.pairing.round, p.pairing.table) in scored
            word = pgettext("table", "over", locale) if done else pgettext("table", "playing", locale)  # a label
            state = "" if p.pairing.bye else " · " + word
            lines.append(table_line(view, i, locale, state=state))
    return clipped(lines, locale)


def note_of(standing: Standing, locale: object) -> str:
    if standing.eliminated_in is not None:
        return _("out in round {n}", locale, n=standing.eliminated_in)
    if standing.forfeits:
        return ngettext("{n} forfeit", "{n} forfeits", standing.forfeits, locale)
    return ""


def standing_rows(view: TournamentView, standings: Sequence[Standing], locale: object) -> list[StandingRow]:
    """The rows of the standings image (names as plain text: the image shows no markdown)."""
    raw = view.entrant_names()
    return [StandingRow(s.rank, raw.get(s.key, str(s.key)), s.points, s.played, s.wins, note_of(s, locale))
            for s in standings]


def standings_headers(locale: object, teams: bool = False) -> list[str]:
    return [_("#", locale), _("Team", locale) if teams else _("Player", locale), _("Points", locale),
            _("Played", locale), _("Wins", locale)]


def standings_lines(view: TournamentView, standings: Sequence[Standing], locale: object) -> list[str]:
    names = names_of(view)
    lines = []
    for s in standings:
        line = _("**{rank}.** {name}: **{points}** · played {played}, won {wins}", locale, rank=s.rank,
                 name=names.get(s.key, str(s.key)), points=points_text(s.points), played=s.played, wins=s.wins)
        note = note_of(s, locale)
        lines.append(f"{line} · {note}" if note else line)
    return clipped(lines, locale) or [_("No table has been played yet.", locale)]


def final_text(view: TournamentView, standings: Sequence[Standing], locale: object) -> str:
    names = names_of(view)
    first = [names.get(s.key, str(s.key)) for s in standings if s.rank == 1]
    head = f"{title(view.record)} · " + _("The tournament is over.", locale)
    if len(first) == 1:
        head += " " + _("{name} wins it!", locale, name=first[0])
    elif first:   # equal on every tie-break: a shared first place, told as shared
        head += " " + _("{names} share first place!", locale, names=_(" and ", locale).join(first))
    return clip([head, *standings_lines(view, standings, locale)])


def called_off_text(record: TournamentRecord, locale: object, *, checkin: bool) -> str:
    if checkin:
        return f"{title(record)} · " + _("The check-in closed with too few entrants: the tournament is called "
                                         "off.", locale)
    return f"{title(record)} · " + _("The tournament was called off.", locale)


def time_up_text(view: TournamentView, game_ids: Sequence[int], locale: object) -> str:
    """The games of a round whose time ran out were ended (the next round may be paired already)."""
    ended = [p.pairing.round for p in view.pairings if p.game_id in game_ids]
    return f"{title(view.record)} · " + _("Round {n}'s time is up: the games still going were ended by the "
                                          "standings.", locale, n=min(ended, default=view.record.round))


__all__ = ["FORMAT_NAMES", "called_off_text", "final_text", "format_text", "messages", "round_players", "round_texts",
           "rules_lines", "standing_rows", "standings_headers", "standings_lines", "status_lines", "time_up_text",
           "title"]
