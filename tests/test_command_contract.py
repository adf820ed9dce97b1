"""The command contract: the offline Discord refuses a command registration as Discord does (HTTP 400, code 50035,
the field's path), one test per documented rule with the edge that is allowed, and the bot's real command tree,
synced by `bot.py sync` globally and to a server, passes in every language the catalogs hold."""

from __future__ import annotations

import copy
import re
import unicodedata
from pathlib import Path
from typing import Any

import discord
import pytest
from babel.messages.pofile import read_po
from discord_offline.fake_discord import FakeDiscord
from discord_offline.registration import command_size
from discord_offline.server import OfflineServer

import bot as bot_module
from present.i18n import DISCORD_LOCALES_OF

ROOT = Path(__file__).resolve().parent.parent
GLOBAL = "/applications/{application_id}/commands"
GUILD = "/applications/{application_id}/guilds/{guild_id}/commands"
ONE = "/applications/{application_id}/commands/{command_id}"


def option(name: str, **more: Any) -> dict[str, Any]:
    return {"type": 3, "name": name, "description": f"the {name}", **more}


def command(name: str = "play", **more: Any) -> dict[str, Any]:
    return {"type": 1, "name": name, "description": "Play a game", **more}


def put(server: OfflineServer, body: Any, *, guild: bool = False) -> list[dict[str, Any]]:
    app = server.application_id
    if guild:
        url = f"/applications/{app}/guilds/{server.guild_id}/commands"
        return server.handle("http", "PUT", GUILD, url, body, [], None)  # type: ignore[no-any-return]
    return server.handle("http", "PUT", GLOBAL, f"/applications/{app}/commands", body, [], None)  # type: ignore[no-any-return]


def refused(server: OfflineServer, body: Any, *, guild: bool = False) -> str:
    """The refusal's text (discord.py flattens the errors: ``In 0.options.1.name: ...``), after checking that it is
    Discord's: 400, code 50035, and that nothing was registered."""
    before = copy.deepcopy(server.commands)
    with pytest.raises(discord.HTTPException) as refusal:
        put(server, body, guild=guild)
    assert (refusal.value.status, refusal.value.code) == (400, 50035)
    assert refusal.value.text.startswith("Invalid Form Body")
    assert server.commands == before  # all or nothing
    return refusal.value.text


@pytest.fixture
def server() -> OfflineServer:
    return OfflineServer()


@pytest.mark.parametrize("guild", [False, True])
def test_a_name_follows_discords_pattern_in_lower_case(server: OfflineServer, guild: bool):
    for bad in ("Play", "two words", "play!", "x" * 33, "", "PLAÿ"):
        assert "In 0.name: " in refused(server, [command(bad)], guild=guild), bad
    # Letters and digits of any script (its marks too for Devanagari and Thai), - _ and ', 1 to 32 of them; a
    # letter without a lower case (Hebrew, Chinese) is allowed as it is.
    edge = ["a", "x" * 32, "kast_på", "ia-suplente", "o'clock", "ñandú", "日本", "नमस्ते", "สวัสดี", "ⅻ", "שלום"]
    registered = put(server, [command(good) for good in edge], guild=guild)
    assert [c["name"] for c in registered] == edge


def test_localized_names_follow_the_same_rules(server: OfflineServer):
    text = refused(server, [command(name_localizations={"no": "Spill", "es-ES": "jugar"})])
    assert "In 0.name_localizations.no: Command name is invalid" in text and "es-ES" not in text
    text = refused(server, [command(options=[option("count", name_localizations={"es-419": "cuántos ejércitos"})])])
    assert "In 0.options.0.name_localizations.es-419: Command name is invalid" in text
    assert "0.name_localizations.xx" in refused(server, [command(name_localizations={"xx": "spill"})])
    assert put(server, [command(name_localizations={"no": "spill", "es-ES": "jugar"})])[0]["name_localizations"] \
        == {"no": "spill", "es-ES": "jugar"}


def test_option_names_are_unique_in_every_locale(server: OfflineServer):
    # The collision that would have refused every command: two options with the same Spanish name.
    twins = [option("on_boot", name_localizations={"es-ES": "sustituto"}),
             option("stand_in", name_localizations={"es-ES": "sustituto"})]
    text = refused(server, [command(options=twins)])
    assert "In 0.options.0.name_localizations.es-ES: Option names must be unique" in text
    assert "In 0.options.1.name_localizations.es-ES" in text
    # A localized name counts against the other options' default names too.
    text = refused(server, [command(options=[option("count"), option("armies", name_localizations={"no": "count"})])])
    assert "In 0.options.1.name_localizations.no" in text
    assert "In 0.options.1.name: " in refused(server, [command(options=[option("count"), option("count")])])
    # Allowed: the same name in different locales, a translation equal to its own default, the same name in
    # another command or another subcommand.
    fine = [option("on_boot", name_localizations={"es-ES": "sustituto", "no": "sustituto"}),
            option("stand_in", name_localizations={"es-419": "sustituto", "no": "stand_in"})]
    sub = {"type": 1, "name": "other", "description": "Other", "options": [option("on_boot")]}
    assert len(put(server, [command(options=fine), command("again", options=[option("on_boot")]),
                            command("group", options=[{"type": 1, "name": "one", "description": "One",
                                                       "options": [option("on_boot")]}, sub])])) == 3


def test_command_names_are_unique_per_type_in_every_locale(server: OfflineServer):
    assert "In 1.name: Application command names must be unique" in refused(server, [command(), command()])
    text = refused(server, [command("map"), command("cards", name_localizations={"no": "map"})])
    assert "In 1.name_localizations.no: Application command names must be unique" in text
    text = refused(server, [command("map", name_localizations={"no": "kart"}),
                            command("cards", name_localizations={"no": "kart"})])
    assert "1.name_localizations.no" in text
    user = {"type": 2, "name": "play", "description": ""}
    assert len(put(server, [command(), user])) == 2  # a slash command and a user command may share a name


def test_descriptions_are_1_to_100_characters_localized_too(server: OfflineServer):
    assert "In 0.description: Must be 100 or fewer" in refused(server, [command(description="x" * 101)])
    assert "In 0.description: " in refused(server, [command(description="")])
    text = refused(server, [command(options=[option("count", description_localizations={"no": "x" * 101})])])
    assert "In 0.options.0.description_localizations.no: Must be 100 or fewer" in text
    text = refused(server, [command(description_localizations={"es-ES": ""})])
    assert "In 0.description_localizations.es-ES" in text
    assert put(server, [command(description="x" * 100, description_localizations={"no": "y" * 100},
                                options=[option("a", description="z")])])
    # A context menu command has no description.
    assert "In 0.description" in refused(server, [{"type": 3, "name": "Report it", "description": "Reports"}])
    assert put(server, [{"type": 3, "name": "Report it", "description": ""}])


def test_at_most_25_options_subcommands_and_choices(server: OfflineServer):
    options = [option(f"o{i}") for i in range(26)]
    assert "In 0.options: Must be 25 or fewer" in refused(server, [command(options=options)])
    subs = [{"type": 1, "name": f"s{i}", "description": "S"} for i in range(26)]
    assert "In 0.options: Must be 25 or fewer" in refused(server, [command(options=subs)])
    choices = [{"name": f"c{i}", "value": f"c{i}"} for i in range(26)]
    text = refused(server, [command(options=[option("c", choices=choices)])])
    assert "In 0.options.0.choices: Must be 25 or fewer" in text
    assert put(server, [command(options=[option(f"o{i}") for i in range(24)] +
                                [option("c", choices=choices[:25])]), command("subs", options=subs[:25])])


def test_choices_names_and_values(server: OfflineServer):
    long_name = [{"name": "x" * 101, "value": "a"}]
    assert "In 0.options.0.choices.0.name: Must be 100 or fewer" in refused(
        server, [command(options=[option("c", choices=long_name)])])
    localized = [{"name": "a", "value": "a", "name_localizations": {"no": "x" * 101}}]
    assert "In 0.options.0.choices.0.name_localizations.no" in refused(
        server, [command(options=[option("c", choices=localized)])])
    too_long = [{"name": "a", "value": "v" * 101}]
    assert "choices.0.value" in refused(server, [command(options=[option("c", choices=too_long)])])
    assert "choices.0.value" in refused(server, [command(options=[{**option("n"), "type": 4,
                                                                    "choices": [{"name": "a", "value": "1"}]}])])
    assert "In 0.options.0.autocomplete" in refused(
        server, [command(options=[option("c", autocomplete=True, choices=[{"name": "a", "value": "a"}])])])
    assert "In 0.options.0.choices" in refused(
        server, [command(options=[{**option("b"), "type": 5, "choices": [{"name": "a", "value": 1}]}])])
    # Choice names may hold capitals, spaces and accents: they are shown, not typed.
    edge = [{"name": "Un día " + "x" * 93, "value": "v" * 100, "name_localizations": {"no": "Én dag"}}]
    assert put(server, [command(options=[option("c", choices=edge)])])


def test_required_options_come_first(server: OfflineServer):
    text = refused(server, [command(options=[option("a"), option("b", required=True)])])
    assert "In 0.options.1: Required options must be placed before non-required options" in text
    assert put(server, [command(options=[option("b", required=True), option("a"), option("c", required=False)])])


def test_subcommands_groups_and_options_are_not_mixed(server: OfflineServer):
    sub = {"type": 1, "name": "sub", "description": "Sub"}
    assert "In 0.options: Sub-command" in refused(server, [command(options=[sub, option("a")])])
    deep = {"type": 2, "name": "group", "description": "G", "options": [{"type": 2, "name": "g2", "description": "G"}]}
    assert "In 0.options.0.options.0.type" in refused(server, [command(options=[deep])])
    assert "In 0.options.0.required" in refused(server, [command(options=[{**sub, "required": True}])])
    group = {"type": 2, "name": "group", "description": "G", "options": [{**sub, "options": [option("a")]}]}
    assert put(server, [command(options=[group, sub])])


def test_a_command_is_at_most_8000_characters_at_its_longest_localization(server: OfflineServer):
    def big(extra: int) -> dict[str, Any]:
        options = [option(f"o{i:02d}", description="d" * 100,
                          choices=[{"name": "n" * 100, "value": f"{i}-{j}"} for j in range(3)]) for i in range(19)]
        options[0]["choices"].append({"name": "n" * 100, "value": "x"})
        made = command("big", description="x", options=options)
        made["description_localizations"] = {"no": "y" * (1 + extra)}
        return made

    edge = big(0)
    room = 8000 - command_size(edge)
    assert 0 < room < 99  # the command's description, localized, counts at its longest
    edge = big(room)
    assert command_size(edge) == 8000
    assert put(server, [edge])
    text = refused(server, [big(room + 1)])
    assert "Command exceeds maximum size (8000)" in text


def test_at_most_100_global_slash_commands(server: OfflineServer):
    many = [command(f"c{i}") for i in range(101)]
    assert "At most 100 commands" in refused(server, many)
    assert "At most 100 commands" in refused(server, many, guild=True)
    assert len(put(server, many[:100])) == 100


def test_the_entry_point_command_is_global_and_alone(server: OfflineServer):
    entry = {"type": 4, "name": "launch", "description": "", "handler": 2}
    assert "In 0.type: Entry Point commands can only be global" in refused(server, [entry], guild=True)
    assert "At most 1 commands of type 4" in refused(server, [entry, {**entry, "name": "again"}])
    assert put(server, [entry, command()])


def test_one_command_created_or_edited_alone_follows_the_same_rules(server: OfflineServer):
    app = server.application_id
    url = f"/applications/{app}/commands"
    put(server, [command("map", name_localizations={"no": "kart"})])
    with pytest.raises(discord.HTTPException) as refusal:
        server.handle("http", "POST", GLOBAL, url, command("cards", name_localizations={"no": "kart"}), [], None)
    assert refusal.value.code == 50035 and "In name_localizations.no" in refusal.value.text
    created = server.handle("http", "POST", GLOBAL, url, command("cards", name_localizations={"no": "kort"}), [], None)
    # The same name again is an update (Discord's upsert), not a second command.
    server.handle("http", "POST", GLOBAL, url, command("cards", description="Your cards"), [], None)
    assert [c["name"] for c in server.commands[None]] == ["map", "cards"]
    one = f"{url}/{created['id']}"
    with pytest.raises(discord.HTTPException) as refusal:
        server.handle("http", "PATCH", ONE, one, {"options": [option("a"), option("a")]}, [], None)
    assert "In options.1.name" in refusal.value.text
    edited = server.handle("http", "PATCH", ONE, one, {"description": "Show your hand"}, [], None)
    assert edited["id"] == created["id"] and edited["description"] == "Show your hand"
    with pytest.raises(discord.HTTPException) as refusal:
        server.handle("http", "PATCH", ONE, one, {"name": "map"}, [], None)
    assert "In name: Application command names must be unique" in refusal.value.text
    for i in range(98):
        server.handle("http", "POST", GLOBAL, url, command(f"c{i}"), [], None)
    with pytest.raises(discord.HTTPException) as refusal:
        server.handle("http", "POST", GLOBAL, url, command("one-too-many"), [], None)
    assert refusal.value.code == 30032


# ---------------------------------------------------------------------------------------------- the bot's tree


def catalog_languages() -> list[str]:
    return sorted(path.parent.parent.name for path in (ROOT / "locales").glob("*/LC_MESSAGES/risk.po"))


def discord_locales() -> list[str]:
    assert set(DISCORD_LOCALES_OF) == set(catalog_languages())  # every catalog is offered to Discord
    return sorted(code for language in catalog_languages() for code in DISCORD_LOCALES_OF[language])


def names(node: dict[str, Any], path: str = "") -> list[tuple[str, dict[str, str]]]:
    """Every command, group, subcommand and option name under ``node``, with its localizations."""
    here = f"{path} {node['name']}".strip()
    found = [(here, node.get("name_localizations") or {})]
    for child in node.get("options") or []:
        found.extend(names(child, here))
    return found


@pytest.mark.asyncio
@pytest.mark.parametrize("scope", ["global", "server"])
async def test_the_bots_real_command_tree_registers_in_every_language(tmp_path, monkeypatch, scope: str):
    import discord.http

    async with FakeDiscord() as fake:
        monkeypatch.setattr(discord.http.Route, "BASE", fake.api_url)
        config = bot_module.Config(database=str(tmp_path / "sync.db"), token=fake.token)
        guild = fake.guild_id if scope == "server" else None
        assert await bot_module._sync(config, guild, False) == 0
        [put_call] = [c for c in fake.calls if c.method == "PUT"]
        assert put_call.status == 200 and not fake.problems, fake.problems
        registered = fake.server.commands[guild]
        assert {"risk", "place", "attack", "tournament"} <= {c["name"] for c in registered}
        every = [entry for c in registered for entry in names(c)]
        assert len(every) > 120
        for path, localized in every:  # every name is translated in every Discord locale of every catalog
            assert set(localized) >= set(discord_locales()), path


# Norwegian æ, ø and å are letters of their own, keys of a Norwegian keyboard, not accented letters.
OWN_LETTERS = {"nb": "æøå", "es": ""}


def accented(name: str, language: str) -> list[str]:
    """The letters of ``name`` that carry a mark (an accent, a tilde, a diaeresis...), but the language's own."""
    return [c for c in name if c not in OWN_LETTERS[language]
            and any(unicodedata.combining(d) for d in unicodedata.normalize("NFD", c))]


def test_command_and_option_names_carry_no_accents_in_any_catalog():
    """A project rule, not Discord's: players type these names on a phone keyboard, where an accent is a long
    press. Descriptions and choice names keep their accents."""
    assert set(OWN_LETTERS) == set(catalog_languages())
    found = []
    for language in catalog_languages():
        with open(ROOT / "locales" / language / "LC_MESSAGES" / "risk.po", "rb") as handle:
            catalog = read_po(handle)
        for message in catalog:
            if message.context in ("command-name", "option-name") and accented(str(message.string), language):
                    found.append((language, message.context, message.id, message.string))
    assert found == []


def test_the_accent_check_finds_the_names_it_was_written_against():
    assert accented("máx_rondas", "es") == ["á"] and accented("misión", "es") == ["ó"]
    assert accented("tamaño_mesa", "es") == ["ñ"] and accented("max_rondas", "es") == []
    assert accented("hærer_per_oppsettstur", "nb") == [] and accented("nivå", "nb") == []
    assert accented("fortificación", "nb") == ["ó"]



def catalog_names(language: str) -> set[str]:
    with open(ROOT / "locales" / language / "LC_MESSAGES" / "risk.po", "rb") as handle:
        return {str(m.string) for m in read_po(handle) if m.context in ("command-name", "option-name") and m.string}


@pytest.mark.asyncio
async def test_risk_help_lists_the_renamed_names_in_their_language(tmp_path):
    from discord_helpers import OfflineDiscord, make_bot

    from cogs.game.rules_text import RENAMED

    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        d.set_locale("ana", "es-ES")
        d.set_locale("ola", "no")
        spanish = (await d.send_command("ana", "general", "risk help", {}))[0].content
        english = (await d.send_command("bob", "general", "risk help", {}))[0].content
        norwegian = (await d.send_command("ola", "general", "risk help", {}))[0].content
    assert all(f"`{old}` → `{new}`" in spanish for old, new in RENAMED["es"])
    assert "→" not in english and "→" not in norwegian
    # Each new name is a name of that language's commands now, and each renamed old one is gone.
    names = catalog_names("es") | {"risk"}
    for old, new in RENAMED["es"]:
        assert set(re.findall(r"[\w'-]+", new)) <= names, new
        assert set(re.findall(r"[\w'-]+", old)) - names, old
