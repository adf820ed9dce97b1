"""The board's page: one HTML document with the map's outlines and the words it needs, in the viewer's language.

The page is self-contained: its script and style are served by the bot (``/static/``), the data it starts from
is a JSON block in the page (not a script: the page's Content-Security-Policy runs only our own files), and the
board itself arrives over the WebSocket.
"""

from __future__ import annotations

import html
import json
from typing import Any

from present.i18n import _


def ui_strings(language: str) -> dict[str, str]:
    """Every word the page's script shows, translated (``{n}``, ``{territory}`` are filled in by the script)."""
    lang = language
    return {
        "title": _("Risk board", lang),
        "place": _("Place", lang),
        "claim": _("Claim", lang),
        "capital": _("Capital", lang),
        "neutral": _("Neutral", lang),
        "attack": _("Attack", lang),
        "blitz": _("Blitz", lang),
        "blitz_stop": _("Stop when your territory is down to this many armies (default 1)", lang),
        "end_attack": _("End attacks", lang),
        "fortify": _("Fortify", lang),
        "end_turn": _("End turn", lang),
        "undo": _("Undo placements", lang),
        "trade": _("Trade", lang),
        "cards": _("Cards", lang),
        "mission": _("Mission", lang),
        "wild": _("Wild", lang),
        "cancel": _("Cancel", lang),
        "territories": _("Territories", lang),
        "log": _("Log", lang),
        "zoom_in": _("Zoom in", lang),
        "zoom_out": _("Zoom out", lang),
        "leave": _("Leave", lang),
        "spectator": _("You are watching this game.", lang),
        "connecting": _("Connecting…", lang),
        "reconnecting": _("Connection lost: reconnecting…", lang),
        "reconnect": _("Open the board again", lang),
        "left": _("You left this board.", lang),
        "waiting": _("Waiting for {player}.", lang),
        "pick_place": _("Tap one of your territories to place armies.", lang),
        "pick_claim": _("Tap a territory to claim it.", lang),
        "pick_capital": _("Tap one of your territories to make it your capital.", lang),
        "pick_neutral": _("Tap a neutral territory to place a neutral army.", lang),
        "pick_source": _("Tap one of your lit territories to attack or fortify from it.", lang),
        "pick_target": _("{territory}: tap a lit territory to attack it.", lang),
        "pick_fortify": _("{territory}: tap a lit territory to move armies there.", lang),
        "how_many": _("How many armies?", lang),
        "move_in": _("Armies to move into {territory}:", lang),
        "odds": _("{percent} to take it", lang),
        "no_cards": _("You hold no cards.", lang),
        "armies": _("Armies: {n}", lang),
        "move_n": _("Move {n}", lang),
        "stop_at": _("Blitz until this many are left:", lang),
        "replay": _("Replay", lang),
        "replay_at": _("Event {n} of {total}", lang),
        "replay_turn": _("Turn {turn} · event {n} of {total}", lang),
        "live": _("Back to now", lang),
        "fortify_from": _("Fortify from here", lang),
        "fit": _("Whole map", lang),
        "all_here": _("All {n} here", lang),
        "place_n": _("Place {n}", lang),
        "attack_again": _("Attack again", lang),
        "attack_from": _("Attack from here", lang),
        "lost": _("{player} lost {n}", lang),
        "conquered": _("{territory} conquered", lang),
        "blitz_rolls": _("Blitz: {n} rolls", lang),
        "since": _("Since you last looked", lang),
        "players": _("Players", lang),
        "continents": _("Continents", lang),
        "income": _("Income", lang),
        "armies_word": _("Armies", lang),
        "held_by": _("held by {player}", lang),
        "not_held": _("not held", lang),
        "time_left": _("{time} left", lang),
        "turn_of": _("Turn {n}: {player}", lang),
        "hint": _("Tap a lit territory to play; pinch or use + and − to zoom.", lang),
        "close": _("Close", lang),
        "you_mark": _("(you)", lang),
        "dice": _("Dice", lang),
        "plan": _("Plan my turn", lang),
        "plan_place": _("Tap a territory of yours to place all your armies on, or choose your front.", lang),
        "plan_pick": _("Tap your territory, then an enemy next to it to attack or one of yours to fortify.", lang),
        "plan_all_here": _("All here", lang),
        "plan_front": _("My front", lang),
        "plan_stop": _("Attack {target} from {source}: stop when?", lang),
        "plan_s2": _("At 2 armies", lang),
        "plan_s3": _("At 3 armies", lang),
        "plan_s5": _("At 5 armies", lang),
        "plan_o60": _("Odds below 60%", lang),
        "plan_o80": _("Odds below 80%", lang),
        "plan_a": _("Move in all", lang),
        "plan_k2": _("Move in all but 2", lang),
        "plan_m": _("Move in the least", lang),
        "plan_end": _("Then end my turn", lang),
        "plan_leave": _("Then leave the rest to me", lang),
        "plan_repeat": _("Every turn", lang),
        "plan_kept": _("📋 Your plan for your next turn (only you see it):", lang),
        "plan_change": _("Change", lang),
        "plan_cancel": _("Cancel the plan", lang),
    }


def activity_html(client_id: str, language: str) -> str:
    """The board's page as Discord's iframe opens it: no game yet, only the application's id; its module script
    authenticates with the Embedded App SDK, then starts the board with the data it is given (``activity.js``)."""
    return page_html({"client_id": client_id}, language, activity=True)


def page_html(data: dict[str, Any], language: str, *, activity: bool = False) -> str:
    title = html.escape(_("Risk board", language))
    # Inside a script element nothing is unescaped: only "<" must not appear, so no "</script>" ends it early.
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    module = '\n<script type="module" src="/static/activity.js"></script>' if activity else ""
    return f"""<!doctype html>
<html lang="{html.escape(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<link rel="stylesheet" href="/static/board.css">
</head>
<body>
<header id="top"><div id="topline"><h1 id="status" aria-live="polite">{html.escape(_("Connecting…", language))}</h1>
<form id="leave" method="post" action="leave"><button type="submit" id="leave-button"></button></form></div>
<ul id="players" aria-label="players"></ul></header>
<main>
<p id="hint" hidden><span id="hint-text"></span><button type="button" id="hint-close"></button></p>
<div id="mapbox"><div id="viewport"><div id="stage"><svg id="board" role="group"></svg></div></div>
<div id="zoom"><button type="button" id="zoom-in"></button><button type="button" id="zoom-out"></button>
<button type="button" id="zoom-fit"></button></div>
<section id="battle" aria-live="polite" hidden></section></div>
<section id="actions" aria-live="polite"><p id="prompt"></p><div id="controls"></div></section>
<details id="since-box" hidden open><summary id="since-title"></summary><ol id="since"></ol></details>
<details id="hand-box"><summary id="hand-title"></summary><div id="hand"></div></details>
<details id="glance-box"><summary id="glance-title"></summary><div id="glance"></div></details>
<details id="list-box"><summary id="list-title"></summary><div id="list" role="group"></div></details>
<details id="replay-box"><summary id="replay-title"></summary>
<label class="count"><input type="range" id="scrub" min="1" max="1" value="1" aria-labelledby="replay-title">
<output id="scrub-at"></output></label></details>
<details id="log-box"><summary id="log-title"></summary><ol id="log"></ol></details>
</main>
<script type="application/json" id="data">{payload}</script>
<script src="/static/board.js"></script>{module}
</body>
</html>
"""


__all__ = ["activity_html", "page_html", "ui_strings"]
