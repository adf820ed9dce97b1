"""The end-of-game report and the timelapse, as attachments: written in the reader's language here, drawn by
``render/report.py`` in a worker process (``workers``).

Only a finished game has a report: it shows every player's dice and the whole board over time, which the game
keeps secret (fog of war, the seed) until it ends, and after the end everything is public.
"""

from __future__ import annotations

import asyncio
import io

import discord

import workers
from engine import Event, GameState, load_map
from engine.state import NEUTRAL, OVER
from engine.summary import dice_luck, key_moments, timeline
from present.i18n import _, _plain, decimal, ngettext
from present.text import continent_text, neutral_in_sentence, player_name, territory_text
from render.report import DiceRow, Report, Series, draw_report, game_timelapse
from render.seats import seat_colour
from store import GameRecord, StoreReader

MAX_CONTINENT_LINES = 6
TIMELAPSE_LIMIT = 10 * 1024 * 1024


def _name(state: GameState, seat: int, locale: object, *, in_sentence: bool = True) -> str:
    """A seat's name in a key moment's sentence, or (not ``in_sentence``) as a label of the charts."""
    if seat == NEUTRAL:
        return neutral_in_sentence(locale) if in_sentence else _("Neutral", locale)
    player = state.players[seat]
    return player_name(player.name, player.kind == "ai", locale)


def _moments(events: list[Event], state: GameState, locale: object) -> list[str]:
    board = load_map(state.settings.map)
    moments = key_moments(events)
    lines = []
    fight = moments.biggest_battle
    if fight is not None:
        lines.append(_("Biggest battle, turn {turn}: {attacker} from {source} against {defender} in {target}, "
                       "{lost} armies lost ({a} and {d}).", locale, turn=fight.turn,
                       attacker=_name(state, fight.seat, locale), source=territory_text(board, fight.source, locale),
                       defender=_name(state, fight.defender, locale),
                       target=territory_text(board, fight.target, locale), lost=fight.armies_lost,
                       a=fight.attacker_lost, d=fight.defender_lost))
    blitz = moments.longest_blitz
    if blitz is not None:
        lines.append(ngettext("Longest blitz, turn {turn}: {attacker}, {n} roll from {source} into {target}.",
                              "Longest blitz, turn {turn}: {attacker}, {n} rolls from {source} into {target}.",
                              blitz.rolls, locale, turn=blitz.turn, attacker=_name(state, blitz.seat, locale),
                              source=territory_text(board, blitz.source, locale),
                              target=territory_text(board, blitz.target, locale)))
    changes = moments.continents
    for change in changes[-MAX_CONTINENT_LINES:]:
        continent = continent_text(board, change.continent, locale)
        if change.taken_by is not None and change.lost_by is not None:
            lines.append(_("Turn {turn}: {player} took {continent} from {loser}.", locale, turn=change.turn,
                           player=_name(state, change.taken_by, locale), continent=continent,
                           loser=_name(state, change.lost_by, locale)))
        elif change.taken_by is not None:
            lines.append(_("Turn {turn}: {player} took {continent}.", locale, turn=change.turn,
                           player=_name(state, change.taken_by, locale), continent=continent))
        elif change.lost_by is not None:
            lines.append(_("Turn {turn}: {player} lost {continent}.", locale, turn=change.turn,
                           player=_name(state, change.lost_by, locale), continent=continent))
    if len(changes) > MAX_CONTINENT_LINES:
        lines.append(ngettext("… and {n} earlier change of a continent's owner.",
                              "… and {n} earlier changes of continents' owners.",
                              len(changes) - MAX_CONTINENT_LINES, locale))
    return lines or [_("No battle was fought.", locale)]


def _signed(value: float, locale: object) -> str:
    value = round(value, 1) or 0.0  # never "-0.0"
    return ("+" if value > 0 else "") + decimal(value, locale)


def build_report(record_id: int, events: list[Event], state: GameState, locale: object) -> Report:
    """The report's words and numbers for a finished game, in the reader's language (over the whole log: run
    off the event loop, ``StoreReader.with_log``)."""
    seats = [p.seat for p in state.players]
    points = timeline(events)
    series = [Series(name=_name(state, seat, locale, in_sentence=False), colour=seat_colour(seat, state),
                     territories=[(p.turn, p.territories.get(seat, 0)) for p in points],
                     armies=[(p.turn, p.armies.get(seat, 0)) for p in points]) for seat in seats]
    luck = dice_luck(events)
    dice = [DiceRow(name=_name(state, seat, locale, in_sentence=False), colour=seat_colour(seat, state),
                    detail=ngettext("lost {lost} armies in {n} roll; fair dice: {expected} ± {spread}",
                                    "lost {lost} armies in {n} rolls; fair dice: {expected} ± {spread}",
                                    x.rolls, locale, lost=x.lost, expected=decimal(x.expected, locale),
                                    spread=decimal(x.spread, locale)),
                    index=x.index, index_text=_signed(x.index, locale))
            for seat, x in luck.items() if seat in seats]
    winners = state.winners or ([state.winner] if state.winner is not None else [])
    return Report(
        title=_("Game #{id}: the report", locale, id=record_id),
        subtitle=" · ".join([ngettext("{n} turn", "{n} turns", state.turn, locale),
                             _("won by {names}", locale, names=", ".join(_name(state, w, locale) for w in winners))]),
        territories_label=_("Territories", locale), armies_label=_("Armies", locale), series=series,
        moments_title=_("Key moments", locale), moments=_moments(events, state, locale),
        dice_title=_("Dice: losses against fair dice", locale),
        dice_note=_("Luck: how many standard deviations fewer armies a player lost than fair dice take on average "
                    "for the very dice they rolled. Fair dice stay between -2 and +2 about 19 times in 20.", locale),
        dice=dice, scale_words=(_("unlucky", locale), _("lucky", locale)),
        footer=_plain("Check every die: </risk verify> shows the seed, and </risk export> the log for "
                      "python -m engine.verify.", locale))


async def timelapse_file(log: bytes, game_id: int, limit: int = TIMELAPSE_LIMIT) -> discord.File | None:
    """The game's timelapse (animated WebP) from its log as JSON Lines (``StoreReader.with_log``, ``dumps``),
    rendered in a worker process; None if it would not fit ``limit``."""
    data = await workers.run(game_timelapse, log)
    if len(data) > limit:
        return None
    return discord.File(io.BytesIO(data), filename=f"risk-game-{game_id}-timelapse.webp")


async def stored_log(store: StoreReader, game_id: int) -> bytes:
    """A game's whole log as JSON Lines, to hand to a worker process in one piece (no event decoded here)."""
    return await store.log_text(game_id)


def _language(locale: object) -> str:
    """A reader's locale as the worker process takes it (discord.py's ``Locale`` does not pickle)."""
    return str(locale)


def _report_of(events: list[Event], game_id: int, state: GameState, locale: object) -> Report:
    """``build_report`` as the log's worker process runs it (``StoreReader.with_log``)."""
    return build_report(game_id, events, state, locale)


async def report_file(report: Report, game_id: int) -> discord.File:
    """The report image of a finished game, drawn in a worker process."""
    png = await workers.run(draw_report, report)
    return discord.File(io.BytesIO(png), filename=f"risk-game-{game_id}-report.png")


async def _report_and_log(store: StoreReader, game_id: int, state: GameState, locale: object
                          ) -> tuple[Report, bytes]:
    """The report's words and numbers (in the reader's language), worked out in the log's worker process (over a
    long game's 100,000 events they take seconds), and the log as JSON Lines for the timelapse."""
    report, log = await asyncio.gather(store.with_log(game_id, _report_of, game_id, state, _language(locale)),
                                       store.log_text(game_id))
    return report, log


async def end_of_game_files(store: StoreReader, record: GameRecord, state: GameState, locale: object,
                            limit: int = TIMELAPSE_LIMIT) -> list[discord.File]:
    """The report image and the timelapse of a finished game (none for a game that is not over)."""
    if state.phase != OVER:
        return []
    report, log = await _report_and_log(store, record.id, state, locale)
    image, timelapse = await asyncio.gather(report_file(report, record.id), timelapse_file(log, record.id, limit))
    return [image] if timelapse is None else [image, timelapse]


async def past_game_files(store: StoreReader, record: GameRecord, locale: object) -> list[discord.File]:
    """A finished game's report and its final map, drawn again (both in worker processes). After the end
    everything is public, fog of war or not: the map shows the whole board, as the end of the game did."""
    from cogs.shared.attachments import map_file
    from engine.fog import EVERYBODY

    state = record.game().state
    if state.phase != OVER:
        return []
    report = await store.with_log(record.id, _report_of, record.id, state, _language(locale))
    image, final = await asyncio.gather(report_file(report, record.id), map_file(state, EVERYBODY, locale=locale))
    final.filename = f"risk-game-{record.id}-map.png"
    return [image, final]


__all__ = ["build_report", "end_of_game_files", "past_game_files", "report_file", "stored_log", "timelapse_file"]
