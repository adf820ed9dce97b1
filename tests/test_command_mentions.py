"""Commands named inside sentences: Discord's mention when the command's id is known, else its localized name."""

from __future__ import annotations

from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot

from present.i18n import MARKUP, REGISTRY, _, _plain, catalog

NO_GAME = "There is no game in this channel. Start one with </risk new>."
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _empty_registry():
    REGISTRY.clear()
    yield
    REGISTRY.clear()


def test_without_ids_a_sentence_names_the_command_as_the_readers_client_shows_it():
    assert _(NO_GAME, "en-US").endswith("Start one with /risk new.")
    assert "/risk ny." in _(NO_GAME, "no") and "/risk new" not in _(NO_GAME, "no")
    assert "/risk nueva." in _(NO_GAME, "es-ES")
    # Every language's names of the commands in a sentence: no English name left in a Norwegian sentence.
    seat = "🪑 The seat is yours: you play it from now on. </cards> and </mission> show its secrets, now yours."
    assert "/kort" in _(seat, "no") and "/oppdrag" in _(seat, "no") and "/cards" not in _(seat, "no")
    assert "/cartas" in _(seat, "es") and "/mision" in _(seat, "es").replace("ó", "o")


def test_a_placeholders_value_is_never_read_as_a_command():
    name = "</risk new>"
    text = _("Game #{id} is cancelled.", "en", id=name)
    assert text == "Game #</risk new> is cancelled."


def test_every_command_a_message_names_is_a_command_of_the_tree(tmp_path: Path):
    """A typo in the markup (``</risk nwe>``) would read as a command that does not exist."""
    import asyncio

    from bot import Config, create_bot
    from cogs.shared.commands import learn_names

    async def paths() -> set[str]:
        bot = create_bot(Config(database=str(tmp_path / "t.db")))
        bot.serve_board = False
        async with bot:
            await bot.setup_hook()
            await learn_names(bot.tree)
            return set(REGISTRY.names["nb"])

    known = asyncio.run(paths()) | {"board"}  # /board is registered when the live board is on
    template = (ROOT / "locales" / "risk.pot").read_text(encoding="utf-8")
    named = set(MARKUP.findall(template.replace('"\n"', "")))
    assert named and named <= known, named - known


@pytest.mark.asyncio
async def test_the_running_bot_fetches_the_registered_ids_and_sentences_carry_mentions(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as first:
        # bot.py sync, in another process: here the same bot's tree, registered with the offline Discord.
        registered = await first.bot.tree.sync()
        server = first.server
        ids = {c.name: c.id for c in registered}
    assert REGISTRY.ids == {}  # a closed bot leaves nothing behind
    before = len(server.requests)
    d = await OfflineDiscord(make_bot(tmp_path / "g.db"), server=server).__aenter__()
    try:
        fetches = [r for r in server.requests[before:] if r.method == "GET" and r.path.endswith("/commands")]
        assert [r.path for r in fetches] == ["/applications/{application_id}/commands"]  # one: no dev_guild
        assert REGISTRY.ids == ids
        d.set_locale("ola", "no")
        step = await d.send_command("ola", "general", "map", {})
        mention = f"</risk new:{ids['risk']}>"
        # Discord shows the mention in the reader's language: the Norwegian sentence carries it as it is.
        assert step[0].ephemeral and step[0].content == "⛔ " + _(NO_GAME, "no")
        assert mention in step[0].content and "/risk ny" not in step[0].content
        step = await d.send_command("ola", "general", "risk help", {})
        assert f"</cards:{ids['cards']}>" in step[0].content and f"</risk verify:{ids['risk']}>" in step[0].content
        assert "`</" not in step[0].content  # a mention inside a code span would show as its markup
        # Where Discord shows no mention (an embed's footer), the name in the reader's language.
        step = await d.send_command("ola", "general", "risk new", {"deployment": "auto", "language": "nb"})
        footers = [e["footer"]["text"] for m in d.messages for e in m.embeds if e.get("footer")]
        lobby = _plain("</risk join> to take a seat · the host starts with </risk start>", "nb")
        assert lobby in footers and "/risk bli-med" in lobby and "</" not in lobby
    finally:
        await d.__aexit__(None, None, None)


@pytest.mark.asyncio
async def test_without_registered_commands_sentences_carry_names(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        assert REGISTRY.ids == {}
        d.set_locale("ana", "es-ES")
        step = await d.send_command("ana", "general", "map", {})
        assert step[0].content == "⛔ " + _(NO_GAME, "es") and "/risk nueva" in step[0].content


def test_catalog_translations_name_the_same_commands_as_the_english():
    from tools.catalogs import problems

    assert not [p for lang in ("nb", "es") for p in problems(lang) if "commands named" in p]
    assert catalog("nb").gettext(NO_GAME).count("</risk new>") == 1
