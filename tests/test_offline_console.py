"""The offline console reads a script of slash commands, clicks and selects, and prints what users would see."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, ClassVar

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from discord_offline import OfflineDiscord, run_console, run_console_sync
from discord_offline.console import tokenize

PNG = b"\x89PNG\r\n\x1a\n" + b"\x01" * 16


class TurnView(discord.ui.View):
    @discord.ui.button(label="Attack")
    async def attack(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.send_message(f"{interaction.user.display_name} attacks", ephemeral=True)

    @discord.ui.button(label="End turn", style=discord.ButtonStyle.secondary)
    async def end_turn(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        button.disabled = True
        await interaction.response.edit_message(content="turn over", view=self)


class NoteForm(discord.ui.Modal, title="Leave a note"):
    note: discord.ui.TextInput[NoteForm] = discord.ui.TextInput(label="Your note", max_length=50)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"note: {self.note.value}", ephemeral=True)


class PickView(discord.ui.View):
    @discord.ui.select(placeholder="Where to?", options=[discord.SelectOption(label="North Africa", value="naf"),
                                                         discord.SelectOption(label="Brazil", value="bra")])
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message(f"going to {select.values[0]}")


def make_bot() -> commands.Bot:
    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
    game = app_commands.Group(name="game", description="Play")

    @game.command(name="start", description="Start a game")
    async def start(interaction: discord.Interaction, name: str, players: int, fog: bool = False) -> None:
        await interaction.response.send_message(f"{name}: {players} players, fog {fog}, in #{interaction.channel}")

    bot.tree.add_command(game)

    @bot.tree.command(name="invite", description="Invite someone")
    async def invite(interaction: discord.Interaction, who: discord.Member) -> None:
        await interaction.response.send_message(f"{who.mention} joins")
        await who.send("welcome to the game")

    @bot.tree.command(name="map", description="Show the map")
    async def show_map(interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        embed = discord.Embed(title="Turn 1", description="alice to play").set_footer(text="round 1")
        embed.add_field(name="Armies", value="12")
        embed.set_image(url="attachment://map.png")
        await interaction.followup.send(embed=embed, file=discord.File(io.BytesIO(PNG), "map.png"),
                                        view=TurnView())

    @bot.tree.command(name="pick", description="Pick a destination")
    async def pick(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pick one", view=PickView())

    @bot.tree.command(name="cards", description="Your cards")
    async def cards(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("you hold 2 cards", ephemeral=True)

    @bot.tree.command(name="note", description="Leave a note")
    async def note(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NoteForm())

    @bot.tree.command(name="where", description="Suggest territories")
    async def where(interaction: discord.Interaction, territory: str) -> None:
        await interaction.response.send_message(territory)

    @where.autocomplete("territory")
    async def where_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        names = ["North Africa", "North America", "Brazil"]
        return [app_commands.Choice(name=n, value=n) for n in names if current.lower() in n.lower()]

    return bot


SCRIPT = """\
# a comment, skipped
/game start name:"World War" players:3 fog:yes
#war-room @bob /game start name:Duel players:2

/map
@bob click attack
click End turn
/pick
@carol select North Africa
/cards
/invite who:@bob
complete /where territory:nor
/game start name:x players:many
/game finish
click Retreat
/nonsense
quit
/game start name:never players:1
"""


async def console_transcript(script: str, out_dir: Path) -> list[str]:
    lines: list[str] = []
    code = await run_console(make_bot(), io.StringIO(script), out_dir, lines.append)
    assert code == 0
    return "\n".join(lines).splitlines()


async def test_scripted_session_prints_what_users_see(tmp_path: Path) -> None:
    out = await console_transcript(SCRIPT, tmp_path)
    text = "\n".join(out)
    assert "a comment" not in text
    assert "> /game start name:\"World War\" players:3 fog:yes" in out
    assert "[#general] bot: World War: 3 players, fog True, in #general" in out
    assert "[#war-room] bot: Duel: 2 players, fog False, in #war-room" in out
    # the deferred map: embed flattened, buttons summarised, file saved with a unique name
    map_at = out.index("> /map") + 1
    assert out[map_at] == "[#general] bot:"
    saved = tmp_path / "0001-map.png"
    assert out[map_at + 1:map_at + 8] == [
        "  | Turn 1", "  | alice to play", "  | Armies: 12", f"  | image: {saved}", "  | round 1",
        "  [buttons: Attack | End turn]", f"  file: {saved} (24 B)",
    ]
    assert saved.read_bytes() == PNG
    assert "[#general] bot (only @bob sees this): bob attacks" in out
    assert "[#general] bot (edited): turn over" in out
    assert "  [buttons: Attack | End turn (disabled)]" in out
    assert "  [select Where to?: North Africa | Brazil]" in out
    assert "[#general] bot: going to naf" in out
    assert "[#general] bot (only @alice sees this): you hold 2 cards" in out
    assert "[#general] bot: @bob joins" in out
    assert "[DM @bob] bot: welcome to the game" in out
    assert "choices: North Africa | North America" in out
    assert "error: /game start: option 'players' takes a whole number, not 'many'" in out
    assert "error: unknown subcommand 'finish' of /game; choose from: start" in out
    assert any(line.startswith("error: no button 'Retreat'") for line in out)
    assert any(line.startswith("error: unknown command /nonsense") for line in out)
    assert "never" not in text


async def test_help_lists_syntax_and_commands(tmp_path: Path) -> None:
    out = await console_transcript("help\n", tmp_path)
    assert any("click LABEL" in line for line in out)
    assert "  /game start name:<text> players:<integer> [fog:<true/false>]" in out
    assert "  /where territory:<text, suggestions>" in out
    assert "      Show the map" in out


async def test_values_run_on_until_the_next_option_and_unanswered_clicks_are_reported(tmp_path: Path) -> None:
    offline = OfflineDiscord(make_bot())
    lines: list[str] = []
    script = "/game start name:Long Game Name players:4\n/pick\n"
    try:
        await run_console(offline, script.splitlines(), tmp_path, lines.append)
        assert "[#general] bot: Long Game Name: 4 players, fog False, in #general" in lines
        offline.bot._connection._view_store._views.clear()  # as if the view had timed out
        await run_console(offline, ["@dave select Brazil"], tmp_path, lines.append, echo=False)
        assert lines[-1].startswith("  ! the bot did not answer select Brazil by @dave")
    finally:
        await offline.close()


async def test_forms_are_printed_and_submitted(tmp_path: Path) -> None:
    out = await console_transcript('@bob /note\n@bob submit "your note":see you soon\n', tmp_path)
    assert out == [
        "> @bob /note",
        "[form for @bob] Leave a note",
        "  Your note (required, at most 50 characters)",
        "  (answer with: submit field:value ...)",
        '> @bob submit "your note":see you soon',
        "[#general] bot (only @bob sees this): note: see you soon",
    ]


def test_sync_wrapper_reads_a_file(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text("/cards\nexit\n", encoding="utf-8")
    lines: list[str] = []
    with script.open(encoding="utf-8") as source:
        assert run_console_sync(make_bot(), source, tmp_path / "out", lines.append) == 0
    assert lines == ["> /cards", "[#general] bot (only @alice sees this): you hold 2 cards", "> exit"]


@pytest.mark.parametrize(("line", "words"), [
    ('/game start name:"two words" players:3', ["/game", "start", "name:two words", "players:3"]),
    ("name:O'Brien x", ["name:O'Brien", "x"]),
    ('click "End turn"', ["click", "End turn"]),
    (r'say:"a \"quoted\" word"', ['say:a "quoted" word']),
])
def test_tokenize_quotes_values(line: str, words: list[str]) -> None:
    assert [t.text for t in tokenize(line)] == words


class Norwegian(app_commands.Translator):
    """Names of the test bot's commands as a Norwegian user sees them."""

    NAMES: ClassVar[dict[str, str]] = {"game": "spill", "start": "begynn", "name": "navn", "players": "spillere",
                                       "map": "kart", "pick": "velg"}

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        if locale is not discord.Locale.norwegian or context.location.name.endswith("description"):
            return None
        return self.NAMES.get(string.message)


def make_translated_bot() -> commands.Bot:
    bot = make_bot()

    async def setup_hook() -> None:
        await bot.tree.set_translator(Norwegian())

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    return bot


def test_python_m_offline_names_selects_and_numbering(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from discord_offline.__main__ import main

    out = tmp_path / "out"
    script = tmp_path / "script.txt"
    script.write_text("\n".join([
        "@bob locale no",
        "@bob /spill begynn navn:Duel spillere:2",   # translated group, subcommand and options
        "@bob /kart",
        "/game start name:English players:3",        # English names still work
        "/velg",                                      # another language's name, when it is not ambiguous
        "select BRA",                                 # the start of a label, any case
        "/pick",
        "select north africa",                        # a label, any case
        "/pick",
        "select naf",                                 # an exact value
        "/pick",
        "select Mars",
        "help",
    ]) + "\n", encoding="utf-8")
    argv = ["--bot", "test_offline_console:make_translated_bot", "--out", str(out), str(script)]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "[#general] bot: Duel: 2 players, fog False, in #general" in lines
    assert "[#general] bot: English: 3 players, fog False, in #general" in lines
    assert lines.count("[#general] bot: going to bra") == 1
    assert lines.count("[#general] bot: going to naf") == 2
    assert "error: no option 'Mars' in the select menu; options: North Africa | Brazil" in lines
    assert "A line without @user is typed by @alice, the default user; without #channel it goes to #general." in lines
    assert f"  file: {out / '0001-map.png'} (24 B)" in lines

    assert main(argv) == 0  # a second session in the same folder keeps the first one's file
    assert f"  file: {out / '0002-map.png'} (24 B)" in capsys.readouterr().out.splitlines()
    assert sorted(p.name for p in out.iterdir()) == ["0001-map.png", "0002-map.png"]
