"""What the board takes from outside, checked before any work is spent on it: numbers as ASCII digits within a
bound (``str.isdigit`` takes "²" and any count of digits, which ``int`` then refuses or spends time on), JSON of a
bounded size and depth (``json.loads`` recurses once per level: a frame of nested brackets is a RecursionError)."""

from __future__ import annotations

import json
import re
from typing import Any

DIGITS = re.compile(r"[0-9]{1,18}")   # up to 10**18: every id and count of ours, well within a 64-bit integer
MAX_DEPTH = 4                          # {"type": "move", "cards": [...]} is two levels: a little more is allowed


class BadInput(ValueError):
    """Input that is not of the form asked for (answered with a 400, or a refusal on the WebSocket)."""


def number(text: str, low: int, high: int) -> int:
    """``text`` as an integer from ``low`` to ``high``, written in ASCII digits only (else ``BadInput``)."""
    if not DIGITS.fullmatch(text):
        raise BadInput("number")
    value = int(text)
    if not low <= value <= high:
        raise BadInput("range")
    return value


def depth(text: str) -> int:
    """How deeply the JSON ``text`` nests arrays and objects (brackets inside strings do not count)."""
    deepest = level = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return deepest


def loads(text: str | bytes, size: int, most_depth: int = MAX_DEPTH) -> Any:
    """The JSON ``text`` if it is at most ``size`` characters and nests at most ``most_depth`` levels (else
    ``BadInput``: checked before it is parsed)."""
    if isinstance(text, bytes):
        if len(text) > size:
            raise BadInput("size")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput("encoding") from None
    if len(text) > size:
        raise BadInput("size")
    if depth(text) > most_depth:
        raise BadInput("depth")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise BadInput("json") from None


__all__ = ["BadInput", "depth", "loads", "number"]
