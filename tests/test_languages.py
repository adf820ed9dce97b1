"""English, Norwegian and Spanish: catalogs complete, commands localised, each player answered in their language."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot

from cogs.shared.i18n import _, language_of, resolve_territory
from engine import load_map
from tools.catalogs import problems

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("language", ["nb", "es"])
def test_every_message_is_translated_with_the_same_placeholders(language):
    assert problems(language) == []


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
    from cogs.game.rules_text import HELP_TEXT

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="languages")) as d:
        d.set_locale("ola", "no")
        d.set_locale("ana", "es-ES")
        step = await d.send_command("ola", "general", "map", {})
        assert step[0].ephemeral and step[0].content == "⛔ " + _(
            "There is no game in this channel. Start one with /risk new.", "no")
        await d.send_command("ola", "general", "risk new", {"deployment": "auto", "language": "nb"})
        await d.send_command("ana", "general", "risk join", {})
        step = await d.send_command("ana", "general", "risk help", {})
        assert step[0].ephemeral and step[0].content == _(HELP_TEXT, "es") != HELP_TEXT
        step = await d.send_command("ana", "general", "risk start", {})
        assert step[0].ephemeral and step[0].content == "⛔ " + _(
            "Only the host or a member with Manage Server can do that.", "es")
        step = await d.send_command("ola", "general", "risk start", {})
        public = [m for m in step if not m.ephemeral]
        begins = _("The game begins! Dice commitment: `{c}`", "nb", c="").split("`")[0]
        assert begins != "The game begins! Dice commitment: " and any(begins in m.content for m in public)
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
