"""Quick rulings for /risk rules and the text of /risk help (translated through the catalogs).

A topic is a list of parts, one line each; a part that depends on a setting (``BySetting``) has a text for each
of its values. Asked in a channel with a game, a topic tells that game's rules (and which of the variants it plays);
elsewhere it tells the default rules and what other games may change.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.settings import OPTION, Settings
from present.i18n import _, language_of, pgettext


@dataclass(frozen=True)
class BySetting:
    """A part of a topic that reads differently by the value of one setting (every value has its text)."""

    setting: str
    texts: dict[str, str]


Part = str | BySetting

_WITH_CARDS = ("escalating", "fixed")


def _cards(with_cards: str, without: str) -> BySetting:
    return BySetting("cards", {**dict.fromkeys(_WITH_CARDS, with_cards), "none": without})


RULE_TOPICS: dict[str, tuple[Part, ...]] = {
    "mistakes": (
        "**The five rules most groups get wrong**",
        "1. Ties go to the defender. Not the attacker, not a re-roll.",
        BySetting("fortify", {
            "adjacent": "2. The fortify move is one move from one territory to one adjacent territory.",
            "connected": "2. The fortify move is one move, though in this game it may go along a chain of your "
                         "territories.",
            "unlimited": "2. In this game you may fortify as often as you like, but once you have fortified you "
                         "cannot attack again this turn.",
        }),
        BySetting("cards", {
            "escalating": "3. Card values escalate across the whole table: the third set of the game gives 8 even "
                          "if it is your first.",
            "fixed": "3. In this game card sets do not escalate: a set is worth 4, 6, 8 or 10 armies by its "
                     "symbols, whoever trades it and whenever.",
            "none": "3. This game is played without cards: reinforcements come from territories and continents "
                    "alone.",
        }),
        _cards("4. You draw at most one card per turn, however many territories you took.",
               "4. Reinforcements are at least 3, however few territories you hold."),
        "5. When capturing you must move in at least as many armies as the dice you rolled.",
    ),
    "ties": ("**Ties** go to the defender, always. Both sides' dice are sorted high to low and compared in pairs; "
             "the attacker must beat a die to win the pair.",),
    "dice": ("**Dice.** The attacker rolls 1 to 3 dice and must have more armies in the territory than dice rolled. "
             "The defender rolls 2 dice if it has 2 or more armies, else 1 (the bot always rolls the most for the "
             "defender). Every roll comes from the game's secret seed: </risk verify>.",),
    "cards": (BySetting("cards", {
        "escalating": "**Cards.** Conquer at least one territory in a turn to draw one card at its end. A set is "
                      "three of a kind, one of each, or any two plus a wild. Sets are worth 4, 6, 8, 10, 12, 15, then "
                      "5 more each, counted across all players. A traded card showing a territory you hold gives +2 "
                      "armies there (at most 2 per turn). With 5 or more cards you must trade at the start of your "
                      "turn.",
        "fixed": "**Cards.** Conquer at least one territory in a turn to draw one card at its end. A set is three of "
                 "a kind, one of each, or any two plus a wild. In this game a set is worth a fixed number of armies "
                 "by its symbols: three infantry 4, three cavalry 6, three artillery 8, one of each 10 (a wild takes "
                 "the most valuable role), however many sets were traded before. A traded card showing a territory "
                 "you hold gives +2 armies there (at most 2 per turn). With 5 or more cards you must trade at the "
                 "start of your turn.",
        "none": "**Cards.** This game is played without cards: a conquest draws none and no sets are traded. "
                "Reinforcements come from your territories and continents alone.",
    }),),
    "fortify": (BySetting("fortify", {
        "adjacent": "**Fortify.** At the end of your turn you may make one move: armies from one territory to one "
                    "adjacent territory of yours, leaving at least one behind.",
        "connected": "**Fortify.** At the end of your turn you may make one move: armies from one territory of yours "
                     "to another joined to it by a chain of your territories, leaving at least one behind.",
        "unlimited": "**Fortify.** After attacking you may make any number of moves, each from one territory of yours "
                     "to another joined to it by a chain of your territories, leaving at least one army behind; end "
                     "your turn with End turn. Once you have fortified you cannot attack again this turn.",
    }),),
    "capture": ("**Capture.** When the last defender falls, move in at least as many armies as the dice of your "
                "last roll; one army always stays behind. You may keep attacking, also from the territory you just "
                "took.",),
    "reinforcements": ("**Reinforcements.** Territories divided by 3, rounded down, at least 3 (11 give 3, 14 give "
                       "4, 17 give 5), plus every continent you hold whole: Asia 7, North America 5, Europe 5, "
                       "Africa 3, South America 2, Australia 2. Place them all before attacking.",),
    "elimination": (_cards(
        "**Elimination.** Take a player's last territory and you take their cards. With 6 or more you must trade at "
        "once, down to 4 or fewer, and place those armies before attacking again.",
        "**Elimination.** Take a player's last territory and they are out of the game; this game has no cards to "
        "take."),),
    "twoplayer": ("**Two players** play with a neutral army: 40 armies each and 40 neutral, the territories dealt "
                  "in three piles of 14. Each setup turn you place 2 of your armies and 1 neutral army. Neutral "
                  "never attacks and is never reinforced. Eliminate your opponent to win.",),
    "missions": ("**Secret missions** (mode missions). Each player gets a mission only they see (</mission>, or the "
                 "Mission button): conquer two named continents (sometimes plus one of your choice), hold 18 "
                 "territories with 2 armies each or 24 territories, or destroy one player. Complete it and you win "
                 "at once, in your own turn. If your target is eliminated by someone else, or surrenders, your "
                 "mission becomes 24 territories. At the end every mission is shown.",),
    "capitals": ("**Capitals** (mode capitals). Before the first turn each player chooses a capital among their "
                 "territories, in turn order. Hold every capital at once, yours and all the others', and you win "
                 "the moment you take the last of them. Capitals are marked with a star on the map.",),
    "teams": ("**Teams** (2v2, 3v3, 2v2v2). Seats are dealt into teams in turn: seat 1 with seat 3, seat 2 with "
              "seat 4. Teammates cannot attack each other, may fortify into each other's territories, and see what "
              "each other sees under fog of war. A continent's bonus goes to a player who holds it alone. A team "
              "wins when every player of the other teams is out.",),
    "fog": ("**Fog of war** (fog on). You see your own territories, your teammates', and every territory next to "
            "them: owner and armies. The rest is grey. Your moves are answered only to you, with your own map; the "
            "channel learns only that turns start and end, trades, eliminations, surrenders and the end. When the "
            "game ends the fog lifts and everything is shown.",),
    "freestyle": ("**Freestyle rounds** (turn order freestyle). Each round every player still in takes one turn, in "
                  "any order: tap Start, or make any move of a turn. One turn at a time: while it runs nobody else "
                  "may start, and it must end within a 24th of the round (an hour of a one-day round), or the rest "
                  "is played as for a missed turn. Your reinforcements for the round are fixed when it opens, from "
                  "your territories and continents then; traded cards add as usual. The round ends when everyone "
                  "has played, or at its deadline, when the turns not taken are played as missed turns. Whoever "
                  "ended a round may start the next one only after another player has started a turn, or a quarter "
                  "of the round has passed.",),
    "setup": ("**Set-up in one round** (setup round). After the territories are dealt (or claimed), everyone "
              "places all their starting armies at once, in secret, in as many goes as they like (</place>, or the "
              "Place button): nobody sees anyone else's until everyone has placed, then all are revealed together "
              "and the first turn begins. At the set-up's deadline the armies not yet placed go at random to their "
              "player's territories, and the round is revealed as it is. With two players the neutral armies are "
              "placed at random.",),
    "undo": ("**Undo.** Until your first attack you may take back the armies you placed this turn (the Undo button, "
             "or </undo>): they go back to be placed again. Armies from a card bonus stay.",),
}

# What other games may change, said after a topic's default rules when it is asked outside a game.
VARIANTS: dict[str, str] = {
    "mistakes": "Rules 2 and 3 are those of the default settings; other games may change them (the settings fortify "
                "and cards of </risk new>).",
    "cards": "Other games may give sets fixed values (4, 6, 8 or 10 armies by their symbols) or play without cards: "
             "the setting cards of </risk new>.",
    "fortify": "Other games allow the one move along a chain of your territories (fortify: connected), or any number "
               "of such moves (fortify: unlimited): the setting fortify of </risk new>.",
}
VARIANTS_NOTE = "Asked in a game's channel, </risk rules> tells that game's rules."
# The setting a topic is about, named after it when it is asked in a game's channel.
ABOUT: dict[str, str] = {"cards": "cards", "fortify": "fortify", "elimination": "cards", "missions": "mode",
                         "capitals": "mode", "teams": "teams", "fog": "fog", "freestyle": "turn_order",
                         "setup": "setup"}
IN_THIS_GAME = "In this game: {setting}: **{value}**."


def every_text() -> list[str]:
    """Every text of the topics, each once (for the catalogs)."""
    texts: list[str] = []
    for parts in RULE_TOPICS.values():
        for part in parts:
            texts += part.texts.values() if isinstance(part, BySetting) else [part]
    texts += [*VARIANTS.values(), VARIANTS_NOTE, IN_THIS_GAME]
    return list(dict.fromkeys(texts))


def setting_line(settings: Settings, name: str, locale: object | None) -> str:
    """One setting of a game as it reads among the rules: "In this game: Fortify: **…**."."""
    option = OPTION[name]
    value = getattr(settings, name)
    words = option.word(value)
    return _(IN_THIS_GAME, locale, setting=pgettext("setting", option.label, locale),
             value=_(words, locale) if words is not None else str(value))


def rule_text(topic: str, settings: Settings | None, locale: object | None = None) -> str:
    """A topic in the reader's language: the rules of the game played with ``settings`` (None: no game here, so
    the default rules and what other games may change)."""
    rules = settings or Settings()
    topic = topic if topic in RULE_TOPICS else "mistakes"
    parts = RULE_TOPICS[topic]
    lines = [_(part.texts[getattr(rules, part.setting)] if isinstance(part, BySetting) else part, locale)
             for part in parts]
    if settings is None and topic in VARIANTS:
        lines.append(_(VARIANTS[topic], locale) + " " + _(VARIANTS_NOTE, locale))
    elif settings is not None and topic in ABOUT:
        lines.append(setting_line(settings, ABOUT[topic], locale))
    return "\n".join(lines)


HELP_TEXT = (
    "**Risk on Discord**\n"
    "Start: </risk new> opens a lobby, players </risk join>, the host adds AIs with </risk addbot> and starts "
    "with </risk start>.\n"
    "Play with the buttons on the turn message, or type: </place>, </attack>, </blitz>, </move>, </fortify>, "
    "</trade>, </end>, and </undo> to take back this turn's placements. See the board with </map>, your hand with "
    "</cards>, your secret mission with </mission>, any battle's exact odds with </odds>.\n"
    "More: </risk status>, </risk log>, </risk rules>, </risk surrender>, </vote> to end the game if everyone still "
    "in agrees, and after the game </risk export> and "
    "</risk verify> to check every die.\n"
    "Records of this server: </risk stats>, </risk leaderboard> and </risk history>."
)
PLAN_HELP = (
    "Away when your turn comes? Plan it in advance with </plan> (or Plan my turn on the turn message): it plays "
    "when your turn comes, and only you see it."
)
SUBSTITUTES_HELP = (
    "Substitutes: when the AI takes over the seat of a player who missed their turns, the host can offer it "
    "(the button on that message, or </offer>); a player not in the game takes it with the offer's button."
)

# Command and option names renamed in a language, old → new as players type them: told in /risk help (and in
# docs/changelog.md) so that players who learned the old names find the new ones. Names carry no accents.
RENAMED: dict[str, tuple[tuple[str, str], ...]] = {
    "es": (
        ("/misión", "/mision"),
        ("/risk añadir-ia", "/risk agregar-ia"),
        ("/risk mapa añadir", "/risk mapa agregar"),
        ("/risk nueva sustituto:", "al_sustituir: · ia_suplente:"),
        ("ejércitos_por_turno_inicial:", "ejercitos_por_turno_inicial:"),
        ("fortificación:", "fortificacion:"),
        ("máx_turnos_perdidos:", "max_turnos_perdidos:"),
        ("máx_rondas:", "max_rondas:"),
        ("fiabilidad_mín:", "fiabilidad_min:"),
        ("días:", "dias:"),
    ),
}


def renamed_text(locale: object | None) -> str | None:
    """The renamed commands and options of the reader's language, for /risk help; None if there are none."""
    renamed = RENAMED.get(language_of(locale), ())
    if not renamed:
        return None
    names = ", ".join(f"`{old}` → `{new}`" for old, new in renamed)
    return _("Renamed, for those who learned the old names: {names}.", locale, names=names)

