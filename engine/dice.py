"""Verifiable randomness: every die and every shuffle comes from the game's secret seed.

The method (documented in docs/dice.md, re-implemented by anyone who wants to check a game):

* the seed is a string of hex digits chosen at random when the game is created;
* its commitment, published when the game starts, is ``sha256(seed)`` as hex;
* draw number ``index`` of a stream (``"die"`` for dice, ``"shuffle"`` for cards, deals and random
  placements) uniform in ``0..n-1`` is found by hashing ``f"{seed}:{stream}:{index}:{block}"`` with
  SHA-256 for block = 0, 1, 2, ... and reading the digest as 4-byte big-endian words; the first word
  ``w`` below ``2**32 - 2**32 % n`` gives ``w % n``. Rejecting the top of the range removes modulo bias.
* a die is ``draw(seed, "die", index, 6) + 1``; dice are numbered in the order they are rolled.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence
from typing import TypeVar

T = TypeVar("T")
DIE = "die"
SHUFFLE = "shuffle"


def commitment(seed: str) -> str:
    """The public SHA-256 commitment to a seed."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def draw(seed: str, stream: str, index: int, n: int) -> int:
    """Draw number ``index`` of ``stream``: an unbiased integer in ``range(n)``."""
    if n < 1:
        raise ValueError("n must be at least 1")
    limit = 2**32 - (2**32 % n)
    block = 0
    while True:
        digest = hashlib.sha256(f"{seed}:{stream}:{index}:{block}".encode()).digest()
        for i in range(0, 32, 4):
            word = int.from_bytes(digest[i:i + 4], "big")
            if word < limit:
                return word % n
        block += 1


def die(seed: str, index: int) -> int:
    """The value (1..6) of die number ``index`` of the game."""
    return draw(seed, DIE, index, 6) + 1


def roll(seed: str, start: int, count: int) -> list[int]:
    """``count`` dice starting at index ``start``, in the order rolled."""
    return [die(seed, start + i) for i in range(count)]


def shuffle(seed: str, start: int, items: MutableSequence[T]) -> int:
    """Fisher-Yates shuffle in place with draws ``start, start+1, ...`` of the shuffle stream.

    Returns the number of draws used.
    """
    used = 0
    for i in range(len(items) - 1, 0, -1):
        j = draw(seed, SHUFFLE, start + used, i + 1)
        used += 1
        items[i], items[j] = items[j], items[i]
    return used
