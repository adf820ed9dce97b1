"""English, Norwegian and Spanish: catalogs complete, commands localised, each player answered in their language."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from discord_helpers import OfflineDiscord, make_bot

from engine import load_map
from present.i18n import _, language_of, resolve_territory
from tools.catalogs import _forms, problems

if TYPE_CHECKING:
    from collections.abc import Iterator

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("language", ["nb", "es"])
def test_every_message_is_translated_with_the_same_placeholders(language):
    assert problems(language) == []


# -- timestamps ------------------------------------------------------------------------------------------------------
# A Discord timestamp is markup of a message's template, with one placeholder for its time: ``<t:{end}:f>``. Put
# into a template as a value, it is escaped like any value (a refusal's values are names: "‹t:…") or at best
# travels past the translation; the reader then sees the markup instead of a date.
TIMESTAMP = re.compile(r"<t:\{\w+\}(?::[tTdDfFsSR])?>")
SOURCES = ("bot.py", "cogs", "competition", "engine", "mapfiles", "present", "ratings", "render", "store", "table",
           "web")
TRANSLATING = {"_", "ngettext", "pgettext"}


def _called(node: ast.AST) -> str:
    func = node.func if isinstance(node, ast.Call) else None
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def timestamps_outside_templates(tree: ast.AST, templates: set[str]) -> list[int]:
    """The lines of ``tree`` that make a timestamp anywhere but in a message of the catalog: an f-string, a
    string that is no template (so it can only be a value), or a translated timestamp handed to a message as a
    value."""
    return sorted(set(_stamps(tree, templates)))


def _stamps(tree: ast.AST, templates: set[str]) -> Iterator[int]:
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "<t:" in node.value \
                and node.value not in templates and id(node) not in docstrings:   # an f-string's text too
            yield node.lineno
        elif isinstance(node, ast.Call) and (_called(node) in TRANSLATING or _called(node).endswith("Error")):
            for keyword in node.keywords:   # the values of a message (or a refusal)
                value = keyword.value
                if isinstance(value, ast.Call) and _called(value) in TRANSLATING and any(
                        isinstance(a, ast.Constant) and "<t:" in str(a.value) for a in value.args):
                    yield value.lineno


def _catalog(path: Path) -> Any:
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        return read_po(f)


def test_a_timestamp_is_markup_of_the_template_never_a_value():
    template = _catalog(ROOT / "locales" / "risk.pot")
    templates = {form for message in template for form in _forms(message.id)}
    # The catalogs: every timestamp is one placeholder's, and each translation keeps the English one's.
    stamped = [m for m in template if any("<t:" in form for form in _forms(m.id))]
    assert len(stamped) >= 10
    for language in ("nb", "es"):
        catalog = _catalog(ROOT / "locales" / language / "LC_MESSAGES" / "risk.po")
        for message in stamped:
            english = _forms(message.id)[-1]
            assert english.count("<t:") == len(TIMESTAMP.findall(english)), english
            for translation in _forms(catalog.get(message.id, context=message.context).string):
                assert sorted(TIMESTAMP.findall(translation)) == sorted(TIMESTAMP.findall(english)), translation
                assert translation.count("<t:") == english.count("<t:"), translation
    # The code: a timestamp appears only in a message of the catalog, never made as a value to put into one.
    found = [f"{path.relative_to(ROOT)}:{line}" for folder in SOURCES
             for path in ([ROOT / folder] if folder.endswith(".py") else sorted((ROOT / folder).rglob("*.py")))
             for line in timestamps_outside_templates(ast.parse(path.read_text(encoding="utf-8")), templates)]
    assert found == []
    # The check finds what it looks for: the refusal "Season 4 is running until ‹t:1796722420:f>" of old, a
    # reminder's "ends {when}", and a translated timestamp handed to a message.
    samples = [
        'raise StoreError("Season {number} is running until {ends}; end it first.", number=n, ends=f"<t:{e}:f>")',
        'when = "<t:" + str(due) + ":R>"',
        'text = _("Your turn ends {when}.", locale, when=_("<t:{t}:R>", locale, t=due))',
    ]
    assert [timestamps_outside_templates(ast.parse(code), templates | {"<t:{t}:R>"}) for code in samples] == \
        [[1], [1], [1]]


def test_the_refusal_of_a_second_season_shows_when_the_first_ends_as_a_date():
    from cogs.shared.errors import explain
    from store.errors import StoreError

    refusal = StoreError("Season {number} is running until <t:{ends}:f>; end it first.", number=4, ends=1796722420)
    assert explain(refusal) == "Season 4 is running until <t:1796722420:f>; end it first."
    assert explain(refusal, "no") == "Sesong 4 pågår til <t:1796722420:f>; avslutt den først."
    assert explain(refusal, "es-ES") == "La temporada 4 sigue hasta <t:1796722420:f>; termínala primero."


def test_missing_translations_fall_back_to_english():
    assert _("A message nobody translated {x}.", "no", x=1) == "A message nobody translated 1."
    assert _("Only the host or a member with Manage Server can do that.", "de") == \
        "Only the host or a member with Manage Server can do that."
    assert language_of("no") == "nb" and language_of("es-419") == "es" and language_of("en-GB") == "en"


@pytest.mark.parametrize("typed", ["Groenlandia", "Grønland", "Greenland", "groenl"])
def test_territory_names_in_any_language_resolve(typed):
    assert resolve_territory(load_map(), typed) == "greenland"


def test_sync_payload_has_localisations_for_every_command_and_option(tmp_path: Path):
    config = tmp_path / "config.toml"
    config.write_text(f'database = "{tmp_path / "s.db"}"\n', encoding="utf-8")
    out = subprocess.run([sys.executable, "bot.py", "--config", str(config), "sync", "--dry-run"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, check=True)
    payload = json.loads(out.stdout)
    seen = 0

    def check(node: dict) -> None:
        nonlocal seen
        for key in ("name_localizations", "description_localizations"):
            assert set(node.get(key) or {}) >= {"no", "es-ES", "es-419"}, (node["name"], key)
        # Discord refuses a sync with a description over 100 characters or a name over 32, in any language.
        assert all(len(text) <= 100 for text in node["description_localizations"].values()), node["name"]
        assert all(len(text) <= 32 for text in node["name_localizations"].values()), node["name"]
        for choice in node.get("choices", []):
            assert all(len(text) <= 100 for text in (choice.get("name_localizations") or {}).values()), choice
        seen += 1
        for option in node.get("options", []):
            check(option)
    for command in payload:
        check(command)
    names = [c["name_localizations"]["no"] for c in payload]
    assert len(names) == len(set(names)) and all(n == n.lower() and " " not in n for n in names)
    assert seen > 60


@pytest.mark.asyncio
async def test_each_player_gets_private_answers_in_their_language_and_public_ones_in_the_games(tmp_path: Path):
    from cogs.game.rules_text import HELP_TEXT, PLAN_HELP, SUBSTITUTES_HELP, renamed_text

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="languages")) as d:
        d.set_locale("ola", "no")
        d.set_locale("ana", "es-ES")
        step = await d.send_command("ola", "general", "map", {})
        assert step[0].ephemeral and step[0].content == "⛔ " + _(
            "There is no game in this channel. Start one with </risk new>.", "no")
        await d.send_command("ola", "general", "risk new", {"deployment": "auto", "language": "nb"})
        await d.send_command("ana", "general", "risk join", {})
        step = await d.send_command("ana", "general", "risk help", {})
        assert step[0].ephemeral and step[0].content == "\n".join(
            (_(HELP_TEXT, "es"), _(PLAN_HELP, "es"), _(SUBSTITUTES_HELP, "es"), str(renamed_text("es"))))
        assert _(HELP_TEXT, "es") != HELP_TEXT and _(SUBSTITUTES_HELP, "es") != SUBSTITUTES_HELP
        step = await d.send_command("ana", "general", "risk start", {})
        assert step[0].ephemeral and step[0].content == "⛔ " + _(
            "Only the host or a member with Manage Server can do that.", "es")
        step = await d.send_command("ola", "general", "risk start", {})
        public = [m for m in step if not m.ephemeral]
        start = ("The game begins! Its dice are fixed in advance by a secret seed, sealed by its commitment `{c}`; "
                 "after the game </risk verify> reveals the seed, and anyone can check every roll.")
        begins = _(start, "nb", c="").split("`")[0]
        assert begins != start.split("`", maxsplit=1)[0] and any(begins in m.content for m in public)
        panel = [m for m in d.messages if "🎯" in m.content][-1]
        assert _("Place", "nb") in [b["label"] for b in panel.buttons] and _("Place", "nb") != "Place"
        step = await d.send_command("ana", "general", "cards", {})
        no_cards = "You hold no cards. You draw one at the end of a turn in which you conquered a territory."
        assert step[0].ephemeral and step[0].content == _(no_cards, "es") != no_cards


@pytest.mark.asyncio
async def test_numbers_are_written_the_readers_way(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        d.set_locale("ana", "es-ES")
        d.set_locale("ola", "no")
        english = await d.send_command("bob", "general", "odds", {"attackers": 10, "defenders": 8})
        spanish = await d.send_command("ana", "general", "odds", {"attackers": 10, "defenders": 8})
        norwegian = await d.send_command("ola", "general", "odds", {"attackers": 10, "defenders": 8})
        assert "64.6%" in english[0].content
        assert "64,6\xa0%" in spanish[0].content or "64,6 %" in spanish[0].content
        assert "64,6" in norwegian[0].content and "64.6" not in norwegian[0].content


# -- Norwegian words ------------------------------------------------------------------------------------------------
def test_norwegian_says_tur_for_a_turn_in_the_report_and_in_the_chat_alike():
    from present.i18n import ngettext

    # The report's subtitle and the history count the game's turns, as the game-over message does: one word.
    assert ngettext("{n} turn", "{n} turns", 17, "nb") == "17 turer"
    assert "17 turer" in ngettext("The game lasted {n} turn.", "The game lasted {n} turns.", 17, "nb")
    for message in ("Turn {turn}: {player} took {continent}.", "Turn {turn}: {player} lost {continent}.",
                    "Turn {turn}: {player} took {continent} from {loser}.", "Game #{id}, turn by turn.",
                    "{share} of turns taken before the deadline"):
        assert "rund" not in _(message, "nb").lower(), message
    # A round is a "runde": the round limit.
    assert "runder" in ngettext("The game reached its limit of {n} round: the most territories win, then the most "
                                "armies.", "The game reached its limit of {n} rounds: the most territories win, then "
                                "the most armies.", 15, "nb")


def test_a_settings_label_is_a_noun_and_the_button_the_verb():
    from cogs.game.lobby import settings_text
    from present.i18n import pgettext

    assert pgettext("setting", "Fortify", "nb") == "Befesting" and _("Fortify", "nb") == "Befest"
    text = settings_text({"fortify": "connected"}, "nb")
    assert "Befesting: **" in text and "Befest:" not in text
    assert "Fortify: **one move along a chain of your territories**" in settings_text({"fortify": "connected"}, "en")


def test_neutral_is_lower_case_inside_a_norwegian_sentence_and_capitalised_as_a_label():
    from engine import Game, Player
    from engine.state import NEUTRAL
    from present.text import describe, label_name, seat_name

    game, _events = Game.new([Player(0, "ola"), Player(1, "kari")], "neutral-nb", {"deployment": "auto"})
    s = game.state
    battle = {"type": "battle", "seat": 0, "from": "alaska", "to": "kamchatka", "defender": NEUTRAL,
              "attacker_dice": [6], "defender_dice": [3], "attacker_losses": 0, "defender_losses": 1,
              "roll_index": 0, "rolls": 2}
    line = describe([battle], s, game.board, "nb")[0]
    assert "nøytral mistet 1" in line and "Nøytral" not in line
    assert seat_name(s, NEUTRAL, "nb") == "nøytral"
    assert label_name(s, NEUTRAL, "nb") == "Nøytral" and seat_name(s, NEUTRAL, "en") == "Neutral"


@pytest.mark.parametrize(("language", "title"), [("nb", "Klassisk verdensherredømme"),
                                                 ("es", "Dominación mundial clásica"),
                                                 ("en", "Classic World Domination")])
def test_the_classic_maps_name_is_translated_in_the_settings(language, title):
    from cogs.game.lobby import settings_text

    assert load_map("classic").title_in(language) == title
    assert _("Map", language) + f": **{title}**" in settings_text({"map": "classic"}, language)


# -- the rules as a game plays them ---------------------------------------------------------------------------------
@pytest.mark.parametrize("language", ["en", "nb", "es"])
def test_every_rule_text_is_translated_for_every_setting(language):
    from cogs.game.rules_text import RULE_TOPICS, rule_text
    from engine.settings import CHOICES, Settings

    for topic in RULE_TOPICS:
        for cards in CHOICES["cards"]:
            for fortify in CHOICES["fortify"]:
                text = rule_text(topic, Settings(cards=cards, fortify=fortify), language)
                assert text and "{" not in text
                if language != "en":
                    assert text != rule_text(topic, Settings(cards=cards, fortify=fortify), "en")


@pytest.mark.parametrize(("language", "moment", "turn_end"), [
    ("en", "the moment you take the last of them", "at the end of your turn"),
    ("nb", "i det øyeblikket du tar den siste", "ved slutten av turen"),
    ("es", "en el momento en que tomas la última", "al final de tu turno"),
])
def test_the_capitals_rule_says_you_win_the_moment_you_hold_them_all(language, moment, turn_end):
    from cogs.game.rules_text import rule_text

    text = rule_text("capitals", None, language)
    assert moment in text and turn_end not in text
    # docs/rules.md says the same (and the engine does it: tests/test_variants.py).
    section = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8").split("## Capitals", 1)[1].split("\n## ")[0]
    assert "You win the moment you hold **every** capital" in section and "at the end of your turn" not in section
