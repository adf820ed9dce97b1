"""What changed for a player since they last looked: the territories they lost since their last turn, found in the
log's tail and said in one line (on their turn panel: the AIs' turns above all, which nobody plays in front of
them). Under fog only what the player saw: who took each territory from them, not who took it on after."""

from __future__ import annotations

from collections.abc import Sequence

from engine import Event, Game, GameState
from present.i18n import _, ngettext
from present.text import seat_name, territory_text

NEW_TURN = ("turn_started", "setup_turn")  # the events that begin a seat's turn

LOSS_TAIL = 3000   # events read back to find what a player lost since their last turn (several rounds of AIs)


def losses_since_last_turn(events: Sequence[Event], seat: int, *, whole: bool,
                           fog: bool = False) -> list[tuple[str, int]]:
    """The territories ``seat`` lost since its previous turn began, in order, with who took each (a territory
    taken back and forth counts once, by its last taker), from ``events``: the log's tail, ending with the turn
    now beginning (``whole``: the tail is the whole log). With ``fog``, a territory's taker is the one who took it
    from ``seat``, which the seat saw: a conquest of it later, between others, may have been out of its sight."""
    starts = [i for i, e in enumerate(events) if e["type"] in NEW_TURN and e.get("seat") == seat]
    if not starts:
        return []
    if len(starts) > 1:
        begin = starts[-2] + 1
    elif whole:
        begin = 0
    else:
        return []   # the turn before is further back than the tail: nothing is said rather than half
    lost: dict[str, int] = {}
    for e in events[begin:starts[-1]]:
        if e["type"] != "territory_conquered":
            continue
        if e["seat"] == seat:
            lost.pop(e["to"], None)         # taken back in between (by a turn played for it)
        elif e.get("defender") == seat or (e["to"] in lost and not fog):
            lost[e["to"]] = e["seat"]       # lost, or lost and taken on by another
    return list(lost.items())


def loss_line(state: GameState, lost: Sequence[tuple[str, int]], locale: object) -> str:
    """The panel's line for ``lost`` (territory, taker), the territories grouped by who took them."""
    board = Game(state).board
    takers: dict[int, list[str]] = {}
    for territory, taker in lost:
        takers.setdefault(taker, []).append(territory_text(board, territory, locale))
    parts = [_("{territories} to {player}", locale, territories=", ".join(names),
               player=seat_name(state, taker, locale)) for taker, names in takers.items()]
    return ngettext("📉 Since your last turn you lost {n} territory: {losses}.",
                    "📉 Since your last turn you lost {n} territories: {losses}.", len(lost), locale,
                    losses="; ".join(parts))
