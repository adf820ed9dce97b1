"""The board's page meets WCAG 2.2 AA contrast with the colours of its own style sheet: text at least 4.5:1 on
what it sits on, borders and marks at least 3:1 (the players' colours are the renderer's, checked by the picture's
tests); a highlight is a black line under a white one, which one of the two shows on any colour."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from render.seats import contrast, look

CSS = (Path(__file__).resolve().parents[1] / "web" / "static" / "board.css").read_text(encoding="utf-8")


def rule(selector: str) -> str:
    found = re.search(r"(?:^|\n|\}\s*)" + re.escape(selector) + r"\s*\{([^}]*)\}", CSS)
    assert found, selector
    return found.group(1)


def value(selector: str, prop: str) -> str:
    found = re.search(r"(?:^|;|\s)" + re.escape(prop) + r"\s*:\s*([^;]+);", rule(selector))
    assert found, (selector, prop)
    return found.group(1).strip()


def colour(text: str) -> tuple[int, int, int]:
    variables = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", rule(":root")))
    text = re.sub(r"var\(--([\w-]+)\)", lambda m: variables[m.group(1)], text)
    hex_colour = re.search(r"#[0-9a-fA-F]{6}", text)
    assert hex_colour, text
    h = hex_colour.group(0)
    return int(h[1:3], 16), int(h[3:5], 16), int(h[5:7], 16)


TEXT = colour("var(--text)")
BG, PANEL, EDGE, MUTED = colour("var(--bg)"), colour("var(--panel)"), colour("var(--edge)"), colour("var(--muted)")


@pytest.mark.parametrize(("what", "ink", "under", "least"), [
    ("text on the page", TEXT, BG, 4.5),
    ("text on a panel", TEXT, PANEL, 4.5),
    ("muted text on a panel", MUTED, PANEL, 4.5),
    ("a button's words", TEXT, colour(value("button", "background")), 4.5),
    ("a green button's words", TEXT, colour(value("button.go", "background")), 4.5),
    ("a red button's words", TEXT, colour(value("button.attack", "background")), 4.5),
    ("a button's border on a panel", EDGE, PANEL, 3),
    ("a button's border on its button", EDGE, colour(value("button", "background")), 3),
    ("a green button's border on a panel", colour(value("button.go", "border-color")), PANEL, 3),
    ("a red button's border on a panel", colour(value("button.attack", "border-color")), PANEL, 3),
    ("a refusal", colour(value(".refusal", "color")), PANEL, 4.5),
])
def test_the_page_s_own_colours_meet_wcag_aa(what, ink, under, least):
    assert contrast(ink, under) >= least, what


def test_a_highlight_is_dark_and_light_so_it_shows_on_every_player_colour():
    dark, light = colour(value(".light-under", "stroke")), colour(value(".light", "stroke"))
    for seat in range(-1, 12):   # the neutral seat and every seat the renderer colours
        fill = look(seat).fill
        assert max(contrast(dark, fill), contrast(light, fill)) >= 3, seat
    assert contrast(dark, light) >= 3
