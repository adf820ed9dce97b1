"""Events as short lines of text for the channel, in the reader's language. Nothing hidden is ever shown."""

from __future__ import annotations

import contextlib
import copy
import re
from collections.abc import Sequence
from typing import Any, assert_never, cast

from engine import Board, GameState
from engine.board import MAX_DESCRIPTION
from engine.events import Battle, Event, Mission, TurnStarted, View
from engine.fog import public_phase
from engine.game import PHASE_WORDS
from engine.missions import fallback_count, with_player
from engine.state import NEUTRAL, OVER
from present.i18n import _, ngettext, pgettext, territory_name
from present.names import TEXT, safe_name, safe_text, written_for
from present.placements import placed_line
from present.rounds import round_line


def _noop(message: str) -> str:
    """Marks a message for the catalogs; it is translated where it is shown."""
    return message


SYMBOLS = {"infantry": "🪖", "cavalry": "🐎", "artillery": "💣", "wild": "🃏"}


AI_NAME = re.compile(r"^(Easy|Normal|Hard) AI( [0-9]+)?$")
# As the store names AI seats; translated where they are shown.
AI_NAMES = {"Easy": _noop("Easy AI"), "Normal": _noop("Normal AI"), "Hard": _noop("Hard AI")}


def player_name(name: str, is_ai: bool, locale: object | None = None) -> str:
    """A player's name as the reader reads it: an AI seat's default name in their language."""
    match = AI_NAME.match(name) if is_ai else None
    if match is None:
        return name
    return _(AI_NAMES[match[1]], locale) + (match[2] or "")


def label_name(state: GameState, seat: int, locale: object | None = None) -> str:
    """A seat's name for a label (a button, a menu, autocomplete): as written, since labels show no markdown and
    ping nobody; an AI seat's default name and "Neutral" in the reader's language."""
    if seat < 0:
        return _("Neutral", locale)
    player = state.players[seat]
    return player_name(player.name, player.kind == "ai", locale)[:40]


def neutral_in_sentence(locale: object | None = None) -> str:
    """The neutral army's name inside a sentence (lower case in Norwegian; a label or a line's start has
    ``_("Neutral")``)."""
    return pgettext("in-sentence", "Neutral", locale)


def seat_name(state: GameState, seat: int, locale: object | None = None) -> str:
    """A seat's name, safe to put in a message (inside a sentence)."""
    if seat < 0:
        return neutral_in_sentence(locale)
    player = state.players[seat]
    return safe_name(player_name(player.name, player.kind == "ai", locale))


def territory_text(board: Board, territory: str, locale: object | None = None) -> str:
    """A territory's name in the reader's language, safe inside a message (a map's names are its maker's)."""
    return safe_name(territory_name(board, territory, locale))


def continent_text(board: Board, continent: str, locale: object | None = None) -> str:
    """A continent's name in the reader's language, safe inside a message."""
    from present.i18n import continent_name

    return safe_name(continent_name(board, continent, locale))


def fog_name(board: Board, territory: str | None, locale: object | None) -> str:
    """A territory's name; an event seen through fog of war may name none (``null``)."""
    return territory_text(board, territory, locale) if territory else _("a territory in the fog", locale)


def team_lines(state: GameState, locale: object | None = None) -> list[str]:
    """Who plays with whom, one team a line (none without teams)."""
    return [_("Team {n}: {players}", locale, n=team + 1,
              players=", ".join(seat_name(state, s, locale) for s in sorted(state.teams) if state.teams[s] == team))
            for team in sorted(set(state.teams.values()))]


def dice_text(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values)


def describe(events: Sequence[View], state: GameState, board: Board, locale: object | None = None,
             *, include_setup: bool = False, sum_placements: bool = False, page: bool = False) -> list[str]:
    """One line per thing that happened, in the order it happened; runs of battles on the same front are summed up
    (blitz), and with ``sum_placements`` (an AI's turn) so is each run of placements: "placed 9 armies", after the
    trade that paid for them.

    The events are an audience's projection (``engine.fog.events_for``): hidden ones are skipped, and a
    turn started without its figures is told without them. ``state`` is the game just after the last of them.
    With ``page``, the lines are for a web page that shows them as text (the live board's log): names as typed,
    not escaped for Discord's markdown."""
    with written_for(TEXT) if page else contextlib.nullcontext():
        return _describe(events, state, board, locale, include_setup, sum_placements)


def _describe(events: Sequence[View], state: GameState, board: Board, locale: object | None, include_setup: bool,
              sum_placements: bool) -> list[str]:
    lines: list[str] = []
    holders = _fortify_holders(events, state) if state.teams else {}
    named = _named(events, state)
    i = 0
    while i < len(events):
        e = events[i]
        state = named[i]
        i += 1
        if "hidden" in e:
            continue
        if e["type"] == "battle":
            run = [e]
            # A blitz is one line: its battles carry the roll index of its first; a single roll is a line alone.
            while "blitz" in e and i < len(events) and (nxt := events[i])["type"] == "battle" and "hidden" not in nxt \
                    and nxt.get("blitz") == e["blitz"]:
                run.append(nxt)
                i += 1
            lines.append(_battle_line(run, state, board, locale))
            continue
        if sum_placements and e["type"] == "armies_placed":
            # One line for the run; neutral armies and hidden events within it are not told.
            count = e["count"] if e.get("source") in SUMMED_PLACEMENTS else 0
            while i < len(events) and ((nxt := events[i])["type"] == "armies_placed" or "hidden" in nxt):
                if "hidden" not in nxt and nxt["type"] == "armies_placed" and nxt.get("source") in SUMMED_PLACEMENTS:
                    count += nxt["count"]
                i += 1
            if count:
                lines.append(ngettext("{player} placed {n} army.", "{player} placed {n} armies.", count, locale,
                                      player=seat_name(state, e["seat"], locale)))
            continue
        line = _event_line(e, state, board, locale, include_setup=include_setup, holder=holders.get(i - 1))
        if line is not None:
            lines.append(line)
    return lines


def _named(events: Sequence[View], state: GameState) -> list[GameState]:
    """For each event, ``state`` with the seats' names as they were when it happened: a seat claimed by a
    substitute later in the run (``seat_claimed``) still bears its former player's name before the claim."""
    named = [state] * len(events)
    for index in range(len(events) - 1, -1, -1):
        named[index] = state
        e = events[index]
        if e["type"] == "seat_claimed" and "hidden" not in e and 0 <= e["seat"] < len(state.players):
            state = copy.copy(state)
            state.players = [copy.copy(p) for p in state.players]
            state.players[e["seat"]].name = e["former"]
    return named


# The placements an AI's turn is summed up by; the others (dealt at random, neutral armies) are not told there.
SUMMED_PLACEMENTS = frozenset({"reinforcement", "setup", "card_bonus"})


def _fortify_holders(events: Sequence[View], state: GameState) -> dict[int, int]:
    """Who held the target of each fortify move (by its index in ``events``) just after it, where the events tell
    it: its owner in ``state``, unless a later conquest took it (then that conquest's defender). None is known
    before a conquest out of sight or a surrender that came later, which may have changed it unseen."""
    holders: dict[int, int] = {}
    owners: dict[str, int | None] = dict(state.owners)
    sure = True
    for index in range(len(events) - 1, -1, -1):
        e = events[index]
        if e["type"] == "territory_conquered" and "hidden" not in e and e["to"]:
            owners[e["to"]] = e["defender"]
        elif e["type"] == "territory_conquered":
            sure = False
        elif e["type"] == "player_surrendered":   # their territories became neutral: any neutral one may be theirs
            owners = {t: None if o == NEUTRAL else o for t, o in owners.items()}
        elif e["type"] == "fortified" and "hidden" not in e and e["to"] and sure:
            holder = owners.get(e["to"])
            if holder is not None:
                holders[index] = holder
    return holders


def _event_line(e: Event, state: GameState, board: Board, locale: object | None = None,
               *, include_setup: bool = False, holder: int | None = None) -> str | None:
    """The line that tells one event (None for an event the channel is not told of); a battle alone. ``holder``:
    who held a fortify move's target just after it, if known."""
    def who(seat: int | None) -> str:
        return seat_name(state, seat, locale) if isinstance(seat, int) else ""

    def name(territory: str | None) -> str:
        return fog_name(board, territory, locale)

    match e["type"]:
        case "battle":
            return _battle_line([e], state, board, locale)
        case "territory_conquered":
            return _("🏴 {player} conquered {territory}!", locale, player=who(e["seat"]), territory=name(e["to"]))
        case "occupied":
            return ngettext("{n} army holds {territory}.", "{n} armies hold {territory}.", e["count"], locale,
                            territory=name(e["to"]))
        case "armies_placed":
            return placed_line(e, who(e["seat"]), name(e["territory"]), locale, include_setup=include_setup)
        case "placements_undone":
            return ngettext("↩️ {player} took back {n} army.", "↩️ {player} took back {n} armies.", e["armies"],
                            locale, player=who(e["seat"]))
        case "capital_chosen":
            return _("🏰 {player} chose {territory} as their capital.", locale, player=who(e["seat"]),
                     territory=name(e["territory"]))
        case "territory_claimed":
            return _("{player} claimed {territory}.", locale, player=who(e["seat"]), territory=name(e["territory"]))
        case "cards_traded":
            symbols = " ".join(SYMBOLS.get(c["symbol"], "?") for c in e["cards"])
            return ngettext("{player} traded {symbols} (set #{number}) for {n} army.",
                            "{player} traded {symbols} (set #{number}) for {n} armies.", e["armies"], locale,
                            player=who(e["seat"]), symbols=symbols, number=e["set_number"])
        case "player_eliminated":
            taken = e.get("cards_taken")   # a public view counts them instead (engine.log.public_event)
            count = len(taken) if taken is not None else int(cast("dict[str, Any]", e).get("cards_taken_count", 0))
            return ngettext("☠️ {player} was eliminated by {by}, who took {n} card.",
                            "☠️ {player} was eliminated by {by}, who took {n} cards.", count, locale,
                            player=who(e["seat"]), by=seat_name(state, e["by"], locale))
        case "fortified":
            mover = e["seat"]
            if holder is not None and holder != mover and state.teams.get(holder, -1) == state.teams.get(mover):
                return ngettext("{player} moved {n} army from {source} to {target}: it belongs to {teammate} now.",
                                "{player} moved {n} armies from {source} to {target}: they belong to {teammate} "
                                "now.", e["count"], locale, player=who(mover), source=name(e["from"]),
                                target=name(e["to"]), teammate=who(holder))
            return _("{player} moved {count} from {source} to {target}.", locale, player=who(mover),
                     count=e["count"], source=name(e["from"]), target=name(e["to"]))
        case "turn_started":
            return _turn_line(e, state, locale)
        case "card_drawn":
            return _("{player} drew a card.", locale, player=who(e["seat"]))
        case "attack_ended":
            return _("{player} stopped attacking.", locale, player=who(e["seat"]))
        case "turn_ended":
            return _("{player} ended the turn.", locale, player=who(e["seat"]))
        case "player_surrendered":
            return _("🏳️ {player} surrendered; their territories are neutral now.", locale, player=who(e["seat"]))
        case "first_player":
            return _("🎲 {player} rolled highest and goes first.", locale, player=who(e["seat"]))
        case "territories_dealt":
            return _("The territories were dealt.", locale)
        case "deck_shuffled":
            return _("The discard pile was shuffled into a new deck.", locale) if e.get("from_discard") else None
        case "game_over":
            if e["reason"] == "draw":
                return _("🤝 The game ends in a draw.", locale)
            return _("🏆 {player} wins the game!", locale, player=seat_name(state, e["winner"], locale))
        case "seat_claimed":
            return _("🪑 {substitute} takes over {player}'s seat.", locale, substitute=safe_name(e["name"]),
                     player=safe_name(e["former"]))
        case "round_started" | "round_closed" | "hold_released" | "setup_round" | "placements_revealed":
            return round_line(e, locale, ", ".join(who(x) for x in cast("dict[str, Any]", e).get("stand_in", ())))
        case "game_started" | "missions_dealt" | "setup_turn" | "wilds_returned" | "mission_changed":
            return None   # told elsewhere (the lobby, the setup panel, a private mission) or not at all
        case _:
            assert_never(e["type"])


def _turn_line(e: TurnStarted, state: GameState, locale: object | None) -> str:
    player = seat_name(state, e["seat"], locale)
    if "reinforcements" not in e:   # another player's turn under fog: no figures
        return _("Turn {turn}: {player}'s turn.", locale, turn=e["turn"], player=player)
    r = e["reinforcements"]
    bonus = sum(r["continents"].values())
    if bonus:
        return ngettext("Turn {turn}: {player} got {n} army ({base} for territories, {bonus} for "
                        "continents).", "Turn {turn}: {player} got {n} armies ({base} for territories, "
                        "{bonus} for continents).", e["total"], locale, turn=e["turn"], player=player,
                        base=r["territories"], bonus=bonus)
    return ngettext("Turn {turn}: {player} got {n} army.", "Turn {turn}: {player} got {n} armies.",
                    e["total"], locale, turn=e["turn"], player=player)


def _battle_line(run: list[Battle], state: GameState, board: Board, locale: object | None) -> str:
    first, last = run[0], run[-1]
    attacker = seat_name(state, first["seat"], locale)
    defender = seat_name(state, first["defender"], locale)
    a_loss = sum(b["attacker_losses"] for b in run)
    d_loss = sum(b["defender_losses"] for b in run)

    def name(territory: str | None) -> str:
        return fog_name(board, territory, locale)
    if len(run) == 1:
        return _("⚔️ {source} attacked {target}: {a} vs {d}. {attacker} lost {al}, {defender} lost {dl}.", locale,
                 source=name(first["from"]), target=name(first["to"]),
                 a=dice_text(last["attacker_dice"]), d=dice_text(last["defender_dice"]), attacker=attacker,
                 al=a_loss, defender=defender, dl=d_loss)
    return ngettext("⚔️ {source} blitzed {target}: {n} roll, last {a} vs {d}. {attacker} lost {al}, {defender} "
                    "lost {dl}.", "⚔️ {source} blitzed {target}: {n} rolls, last {a} vs {d}. {attacker} lost {al}, "
                    "{defender} lost {dl}.", len(run), locale, source=name(first["from"]), target=name(first["to"]),
             a=dice_text(last["attacker_dice"]), d=dice_text(last["defender_dice"]), attacker=attacker, al=a_loss,
             defender=defender, dl=d_loss)


def now_text(state: GameState, locale: object | None = None, audience: int | None = None) -> str:
    """Who is doing what now; after the end, who won."""
    if state.phase == OVER:
        return winner_line(state, locale)
    return _("{player} is {phase}.", locale, player=seat_name(state, state.current, locale),
             phase=phase_text(state, locale, audience))


def winner_names(state: GameState, locale: object | None = None) -> list[str]:
    """The names of whoever won (a whole team with teams), none before the end."""
    winners = state.winners or ([state.winner] if state.winner is not None else [])
    return [seat_name(state, seat, locale) for seat in winners]


def winner_line(state: GameState, locale: object | None = None) -> str:
    names = _(" and ", locale).join(winner_names(state, locale)) or _("Nobody", locale)
    return _("The game is over: {players} won.", locale, players=names)


def phase_text(state: GameState, locale: object | None = None, audience: int | None = None) -> str:
    """What the game waits on (the engine's phase words), as ``audience`` (a seat; None: everybody) may know it."""
    if state.phase == OVER:
        return _("game over", locale)
    return _(PHASE_WORDS[public_phase(state, audience)], locale)


def mission_line(mission: Mission | None, board: Board, state: GameState, locale: object | None = None) -> str:
    """A secret mission in the reader's language: the map's own words for it (escaped, as a name is) when the
    map gives them in the reader's language (``description`` in English, ``descriptions`` in the others), else
    ours."""
    from present.i18n import continent_name, language_of

    if mission is None:
        return ""
    kind = mission["kind"]
    language = language_of(locale)
    own = (mission.get("descriptions") or {}).get(language) or (mission.get("description") if language == "en"
                                                                 else None)
    if own:
        text = safe_text(str(own), MAX_DESCRIPTION)
        return with_player(text, mission, seat_name(state, mission["seat"], locale)) if kind == "destroy" else text
    if kind == "continents":
        names = [safe_name(continent_name(board, c, locale)) for c in mission["continents"]]
        more = int(mission.get("plus_any", 0))
        if len(names) == 2 and more <= 1:
            if more:
                return _("Conquer {a} and {b} and one more continent of your choice.", locale, a=names[0],
                         b=names[1])
            return _("Conquer {a} and {b}.", locale, a=names[0], b=names[1])
        if not names:
            return ngettext("Conquer {n} continent of your choice.", "Conquer {n} continents of your choice.",
                            more, locale)
        listed = names[-1] if len(names) == 1 else ", ".join(names[:-1]) + _(" and ", locale) + names[-1]
        if more:
            return ngettext("Conquer {continents} and {n} more continent of your choice.",
                            "Conquer {continents} and {n} more continents of your choice.", more, locale,
                            continents=listed)
        return _("Conquer {continents}.", locale, continents=listed)
    if kind == "territories":
        if mission["armies"] > 1:
            text = _("Occupy {count} territories with at least {armies} armies in each.", locale,
                     count=mission["count"], armies=mission["armies"])
        else:
            text = _("Occupy {count} territories.", locale, count=mission["count"])
        replaced = str(mission.get("replaces", ""))
        if replaced.startswith("destroy-"):
            text += " " + _("(This replaces destroying {player}.)", locale,
                            player=seat_name(state, int(replaced.split("-", 1)[1]), locale))
        return text
    name = seat_name(state, mission["seat"], locale)
    count, armies = fallback_count(mission, board)
    if armies > 1:
        return _("Destroy all of {player}'s armies: take their last territory yourself. If someone else eliminates "
                 "{player} first, your mission becomes occupying {count} territories with at least {armies} armies "
                 "in each.", locale, player=name, count=count, armies=armies)
    return _("Destroy all of {player}'s armies: take their last territory yourself. If someone else eliminates "
             "{player} first, your mission becomes occupying {count} territories.", locale, player=name, count=count)
