"""Territory menus: which territories a menu offers now, in which order, and their labels (the select that offers
them is the turn panel's, ``cogs/play/tap.py``; the live board offers the same choices).

The same ``choices`` decide what a menu shows and what a tap on it may choose (cogs/play/buttons.py checks every value
against them), so a menu never offers, and a tap never gets, a territory the player may not pick or see. A menu's
values and arguments are the territories' numbers (``verbs.ref``), read back by ``Tap.legal``.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import Game
from engine.choices import choices_for, in_sight_first
from engine.fog import visible_to
from engine.odds import QUICK_LIMIT, odds
from present import verbs as verb
from present.i18n import percent, territory_name
from present.text import label_name
from present.verbs import ref

MAX_OPTIONS = 25  # Discord's limit on a select's options
RANK_LIMIT = 2_500  # attackers × defenders up to which a menu ranks attacks by exact odds (approximated above)
PAIRS = frozenset({verb.ATTACK_PAIR, verb.FORTIFY_PAIR})  # menus whose values are ``pair_value``s
SOURCES = {verb.ATTACK_TO: verb.ATTACK_FROM, verb.FORTIFY_TO: verb.FORTIFY_FROM}  # a menu of targets: its source's menu


def pair_value(game: Game, source: str, target: str) -> str:
    """A move between two territories as a menu's value: their places on the map ("3>7"; ids may be long)."""
    ids = game.board.territory_ids
    return f"{ids.index(source)}>{ids.index(target)}"


def pair_of(game: Game, value: str) -> tuple[str, str]:
    """The territories of a ``pair_value`` (checked against the menu's choices before this is called)."""
    ids = game.board.territory_ids
    first, _sep, second = value.partition(">")
    return ids[int(first)], ids[int(second)]


def win_chance(game: Game, source: str, target: str) -> float:
    s = game.state
    return odds(s.armies[source], s.armies[target], RANK_LIMIT)[0].win


def attack_pairs(game: Game, seat: int) -> list[tuple[str, str]]:
    """Every attack ``seat`` can make now, the best odds first."""
    pairs = choices_for(game, seat).attack_pairs()
    return sorted(pairs, key=lambda p: (-win_chance(game, *p), -game.state.armies[p[0]], p))


def fortify_pairs(game: Game, seat: int) -> list[tuple[str, str]]:
    """Every fortify move ``seat`` can make now, the likeliest first: from a territory with armies to spare and no
    enemy beside it, to one that faces an enemy."""
    s = game.state

    def faces_enemy(t: str) -> bool:
        return any(not game.friendly(seat, s.owners.get(n)) for n in game.board.neighbours(t))
    pairs = choices_for(game, seat).fortify_pairs()
    return sorted(pairs, key=lambda p: (faces_enemy(p[0]), not faces_enemy(p[1]), -s.armies[p[0]], p))


def choices(game: Game, seat: int, purpose: str, extra: Sequence[str] = ()) -> list[str]:
    """The territories a menu offers now (``engine.choices``); the extras (a source) are checked first."""
    c = choices_for(game, seat)
    source = extra[0] if extra else ""
    if purpose == verb.CLAIM:
        return list(c.claim)
    if purpose == verb.CAPITAL:
        return list(c.capital)
    if purpose in (verb.PLACE, verb.PLACE_ALL):
        return list(c.place.territories) if c.place else []
    if purpose == verb.NEUTRAL:  # under fog, the neutral territories in sight (all of them if none is)
        return in_sight_first(game.state, seat, c.neutral.territories) if c.neutral else []
    if purpose == verb.ATTACK_FROM:
        return list(c.attack)
    if purpose == verb.ATTACK_TO:
        return list(c.attack[source].targets) if source in c.attack else []
    if purpose == verb.ATTACK_PAIR:
        return [pair_value(game, a, b) for a, b in attack_pairs(game, seat)]
    if purpose == verb.FORTIFY_PAIR:
        return [pair_value(game, a, b) for a, b in fortify_pairs(game, seat)]
    if purpose == verb.FORTIFY_FROM:
        return list(c.fortify)
    if purpose == verb.FORTIFY_TO:
        return list(c.fortify[source].targets) if source in c.fortify else []
    return []


def refs(game: Game, territories: Sequence[str]) -> list[str]:
    """Territories as the numbers a custom id carries."""
    return [ref(game.board, t) for t in territories]


def trade_ref(game: Game, cards: Sequence[str]) -> str:
    """A set of cards as a trade button carries it: their numbers, dot separated."""
    return ".".join(ref(game.board, c) for c in cards)


def option_label(game: Game, territory: str, purpose: str, extra: Sequence[str], locale: object = None) -> str:
    """A territory in a menu, with its armies (the menus only offer territories the player can see)."""
    s = game.state
    name = territory_name(game.board, territory, locale)
    seen = visible_to(s, s.current)
    label = f"{name} ({s.armies.get(territory, 0)})" if territory in s.owners and (seen is None or territory in seen) \
        else name
    if purpose == verb.ATTACK_TO and extra:
        chance = odds(s.armies[extra[0]], s.armies[territory], QUICK_LIMIT)[0]
        label += f" · {label_name(s, s.owners[territory], locale)}" \
                 f" · {percent(chance.win, locale)}"  # a label renders no markdown: the name as written
    return label[:100]


def pair_label(game: Game, source: str, target: str, locale: object = None) -> str:
    """An attack or a fortify move in a menu: both territories with their armies, an attack's odds."""
    s = game.state
    label = f"{territory_name(game.board, source, locale, short=True)} ({s.armies[source]}) → " \
            f"{territory_name(game.board, target, locale, short=True)} ({s.armies[target]})"
    if not game.friendly(s.owners[source], s.owners.get(target)):
        label += f" · {percent(win_chance(game, source, target), locale)}"
    return label[:100]


__all__ = ["MAX_OPTIONS", "PAIRS", "SOURCES", "attack_pairs", "choices", "fortify_pairs", "option_label", "pair_label",
           "pair_of", "pair_value", "refs", "trade_ref"]
