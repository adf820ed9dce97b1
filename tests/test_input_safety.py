"""Input from outside that must be checked: a language that could name a folder, a surrendered player's
vacation."""

from __future__ import annotations

import html
import sqlite3
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, start
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Settings, SettingsError
from present.i18n import catalog, language_of


@pytest.mark.parametrize("value", ["../../tmp/evil", "x" * 5000, "en/../..", "EN", 7])
def test_a_language_setting_is_a_language_code(value):
    with pytest.raises(SettingsError):
        Settings(language=value)  # type: ignore[arg-type]


def test_an_unknown_language_never_reaches_the_file_system():
    assert language_of("../../tmp/evil") == "en"
    assert catalog(language_of("../../etc")).gettext("Place") == "Place"
    assert language_of("no") == "nb" and language_of("es-419") == "es"


@pytest.mark.asyncio
async def test_a_surrendered_player_takes_no_vacation(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="vacation")) as d:
        await start(d, ("alice", "bob"), 1, deployment="auto")
        step = await d.send_command("bob", "general", "risk surrender", {})
        await d.click("bob", "Yes, surrender", step[0])
        before = len([m for m in d.messages if not m.ephemeral])
        step = await d.send_command("bob", "general", "risk vacation", {"days": 3})
        assert step[0].ephemeral and "out of this game" in step[0].content
        assert len([m for m in d.messages if not m.ephemeral]) == before  # nothing posted publicly


@pytest.mark.asyncio
async def test_a_new_database_and_its_folder_are_the_owners_alone(tmp_path: Path):
    import stat

    from store import open_store

    path = tmp_path / "fresh" / "risk.sqlite3"
    store = await open_store(path)
    try:
        await store.create_lobby(1, 2, 3, "alice")
    finally:
        await store.close()
    assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0
    for file in path.parent.iterdir():  # the database and SQLite's own files next to it
        assert stat.S_IMODE(file.stat().st_mode) & 0o077 == 0, file


def test_a_database_fault_shows_no_server_path_to_a_player():
    from cogs.shared.errors import explain
    from store import DatabaseError
    from store.sqlite import _database_error

    fault = _database_error(sqlite3.DatabaseError("database disk image is malformed"), "/srv/bot/data/risk.sqlite3")
    assert "damaged" in fault.message and "disk space" not in fault.message  # told as it is, to the host
    assert explain(fault, "en") is None  # a player gets an error id; the details go to the log
    busy = _database_error(sqlite3.OperationalError("database is locked"), "/srv/bot/data/risk.sqlite3")
    assert explain(busy, "en") is not None and "/srv" not in explain(busy, "en")
    assert isinstance(busy, DatabaseError)


@pytest.mark.parametrize("name", ["[x](https://e.vil)", "||spoiler||", "# heading", "<@123>", "@everyone",
                                  "\u202eevil", "two\nlines", "bell\x07"])
def test_a_name_in_a_message_is_plain_text(name):
    from present.names import safe_name

    shown = safe_name(name)
    for raw in ("](", "||", "<@", "\u202e", "\n", "\x07"):
        assert raw not in shown, raw
    assert not shown.startswith("#") and "@everyone" not in shown


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([*"_*~|`\\>#-[]()<@:/. \n", "a", "b", "https://", "steam://", "<a:/b>",
                                  "@everyone", "@here", "@123456789012345678", "@&123456789012345678"]),
                max_size=30).map("".join))
def test_the_markdown_escaping_is_discords_own(text):
    """present/ knows no discord.py, so it writes Discord's escaping itself: the same as discord.py's, character for
    character (markdown with links left whole, then mentions)."""
    import discord

    from present.names import escape_markdown

    ours = escape_markdown(text)
    assert ours == discord.utils.escape_mentions(discord.utils.escape_markdown(text, as_needed=False))


@pytest.mark.parametrize("name", ["snake_case", "*bold*", "<b>x</b> & y", "[x](https://e.vil)"])
def test_a_name_is_written_for_its_medium(name):
    from present.names import HTML, TEXT, safe_name, written_for

    assert "\\" in safe_name(name) or "<\u200b" in safe_name(name)  # a Discord message: markdown escaped
    with written_for(TEXT):
        assert safe_name(name) == name  # put in as text: exactly as typed
    with written_for(HTML):
        assert safe_name(name) == html.escape(name)  # markup: HTML-escaped, no backslash
    assert safe_name(name) != name  # the medium was the block's only
