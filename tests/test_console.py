"""The offline console of bot.py and the README's commands, run as a newcomer would try them."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEED = "a" * 64  # alice goes first and is dealt, among others, Perú (3), Japón (2) and Egipto (4)


def test_console_plays_a_script_and_saves_maps(tmp_path: Path):
    script = tmp_path / "game.txt"
    script.write_text(
        "# a lobby with two AIs\n"
        "/risk new deployment:auto\n"
        "@bob /risk join\n"
        "/risk addbot level:easy\n"
        "/risk start\n"
        "/risk status\n"
        "@carol /place territory:Alaska count:1\n"
        "/risk rules topic:ties\n"
        "/odds attackers:10 defenders:8\n"
        "/nosuchcommand\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "bot.py", "console", "--db", str(tmp_path / "c.db"), "--out", str(out),
                             str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "The game begins" in text
    assert "only @alice sees this" in text            # /risk status is private
    assert "not playing in this game" in text          # carol is refused
    assert "Ties go to the defender" in text or "defender, always" in text
    assert "64.6%" in text
    assert "nosuchcommand" in text                     # a clear error, and the console goes on
    maps = sorted(out.glob("*.png"))
    assert maps and maps[0].read_bytes().startswith(b"\x89PNG")


def test_console_reads_a_pipe(tmp_path: Path):
    result = subprocess.run([sys.executable, "bot.py", "console", "--db", str(tmp_path / "p.db"), "--out",
                             str(tmp_path / "o")], cwd=ROOT, input="/risk help\n", capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0 and "/risk new" in result.stdout


def test_a_damaged_database_is_one_line_at_the_console(tmp_path: Path):
    damaged = tmp_path / "damaged.db"
    damaged.write_text("not a database", encoding="utf-8")
    result = subprocess.run([sys.executable, "bot.py", "console", "--db", str(damaged)], cwd=ROOT,
                            input="/risk help\n", capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "Traceback" not in result.stderr
    assert "is not a SQLite database" in result.stderr


def bot_console(tmp_path: Path, script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                db: str = "c.db") -> list[str]:
    """``bot.py console --db DB --out OUT SCRIPT`` through its ``main``, with a fixed dice seed."""
    import bot

    monkeypatch.setattr(bot.RiskBot, "new_seed", staticmethod(lambda: SEED), raising=False)
    path = tmp_path / "script.txt"
    path.write_text(script, encoding="utf-8")
    assert bot.main(["console", "--db", str(tmp_path / db), "--out", str(tmp_path / "out"), str(path)]) == 0
    return capsys.readouterr().out.splitlines()


def after(lines: list[str], line: str) -> str:
    """The first line of output after the echo of ``line``."""
    return lines[lines.index(f"> {line}") + 1]


def block(lines: list[str], line: str) -> list[str]:
    """Every line of output after the echo of ``line``, up to the next echo."""
    rest = lines[lines.index(f"> {line}") + 1:]
    return rest[:next((i for i, text in enumerate(rest) if text.startswith("> ")), len(rest))]


def test_help_names_the_default_user(tmp_path: Path):
    result = subprocess.run([sys.executable, "bot.py", "console", "--db", str(tmp_path / "h.db"), "--out",
                             str(tmp_path / "o")], cwd=ROOT, input="help\n@bob /risk join\n", capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "A line without @user is typed by @alice, the default user; without #channel it goes to #general." \
        in result.stdout
    assert "/plasser territorium:Egypt" in result.stdout
    assert "select peru" in result.stdout
    for readme in (ROOT / "README.md", ROOT / "packages" / "discord-offline" / "README.md"):
        assert "without `@user` is typed by `@alice`, the default user" in readme.read_text(encoding="utf-8")


@pytest.mark.real_render  # the sizes it prints are those of real maps (in KB)
def test_a_second_session_numbers_its_files_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "out"

    def session(*lines: str) -> str:
        return "\n".join(bot_console(tmp_path, "\n".join(lines) + "\n", monkeypatch, capsys, db="n.db")) + "\n"

    first = session("/risk new deployment:auto", "/risk addbot", "/risk start", "/map")
    saved = {path.name: path.read_bytes() for path in out.iterdir()}
    numbers = sorted(int(name[:4]) for name in saved)
    assert numbers == list(range(1, len(saved) + 1)) and len(saved) >= 2  # the start's map and /map at least
    assert f"file: {out / f'{numbers[-1]:04d}-map.png'} (" in first
    notes = numbers[-1] + 5
    (out / f"{notes:04d}-notes.txt").write_text("not the console's", encoding="utf-8")  # any NNNN- file counts

    second = session("/map", "/map")
    new = sorted(path.name for path in out.iterdir() if path.name not in saved and "notes" not in path.name)
    assert new[:2] == [f"{notes + 1:04d}-map.png", f"{notes + 2:04d}-map.png"]
    assert [line for line in second.splitlines() if "file:" in line] == [
        f"  file: {out / name} ({(out / name).stat().st_size / 1024:.1f} KB)" for name in new]
    assert {name: (out / name).read_bytes() for name in saved} == saved  # the first session's maps are intact


def test_select_takes_a_territory_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]):
    from engine import load_map
    from present.verbs import ref

    egypt = ref(load_map(), "egypt")
    out = bot_console(tmp_path, "\n".join([
        "locale es-ES", "/risk new deployment:auto", "/risk addbot level:easy", "/risk start",
        "click Place", "select a", "select japon",              # ambiguous, then accents and case ignored
        "click Place", "select gran bret",                      # the start of a name
        "click Place", "select PERÚ",
        "click Place", "select estados unidos orientales\u00a0(2)",  # the label, any case, any kind of space
        "click Place", "select Australia Occidental (2)",       # the exact label
        "click Place", f"select {egypt}",                       # the exact value (its number on the map)
        "click Place", "select nowhere",
    ]) + "\n", monkeypatch, capsys)
    menu = after(out, "click Place").split("\n")[0]
    assert menu == "[#general] bot (only @alice sees this): ¿En qué territorio colocas?"
    assert any(line.startswith("  [select ¿En qué territorio colocas?: Alberta (4) | Ontario (4) | "
                               "Estados Unidos Orientales (2) | Perú (3) |") for line in out)
    assert after(out, "select a") == ("error: 'a' could be any of: Alberta (4) | Argentina (3) | "
                                      "Australia Occidental (2); type more of the name")
    asked = "[#general] bot (only @alice sees this) (edited): ¿Cuántos ejércitos colocas en {}?"
    assert after(out, "select japon") == asked.format("Japón")
    assert after(out, "select gran bret") == asked.format("Gran Bretaña")
    assert after(out, "select PERÚ") == asked.format("Perú")
    assert after(out, "select estados unidos orientales\u00a0(2)") == asked.format("Estados Unidos Orientales")
    assert after(out, "select Australia Occidental (2)") == asked.format("Australia Occidental")
    assert after(out, f"select {egypt}") == asked.format("Egipto")
    assert after(out, "select nowhere").startswith("error: no option 'nowhere' in the select menu; options: ")


def test_select_finds_the_menu_that_names_the_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]):
    """A lobby carries two menus (Add an AI, Change a setting): an option of the second is chosen by its name, as
    a player taps it; one no menu names is refused with the first menu's options."""
    out = bot_console(tmp_path, "\n".join([
        "/risk new deployment:auto", "select Hints", "select players may ask for a hint", "select Hard AI",
        "/risk start", "/hint", "select Nowhere",
    ]) + "\n", monkeypatch, capsys)
    assert "  [select Hints: no hints | players may ask for a hint]" in block(out, "select Hints")
    assert "  |   Hints: **players may ask for a hint**" in block(out, "select players may ask for a hint")
    assert "  |   2. Hard AI 🤖" in block(out, "select Hard AI")
    assert after(out, "/hint").startswith("[#general] bot (only @alice sees this): 💡 The hard AI would ")
    assert after(out, "select Nowhere").startswith("error: no option 'Nowhere' in the select menu; options: ")


def test_commands_in_the_users_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]):
    out = bot_console(tmp_path, "\n".join([
        "locale no",
        "/risk ny fordeling:automatisk",                     # a subcommand, an option and a choice in Norwegian
        "/risk legg-til-ai nivå:lett",
        "/risk start",
        "/plasser territorium:Egypt antall:1",
        "complete /plasser territorium:Eg",
        "/risk regler emne:uavgjort",
        "@bob locale es-ES",
        "@bob /mapa",
        "/colocar territorio:Perú cantidad:2",               # Spanish works for a Norwegian too
        "/place territory:Japan count:1",                     # and English for everyone
        "/plasser land:Egypt",
    ]) + "\n", monkeypatch, capsys)
    text = "\n".join(out)
    assert "error: unknown" not in text
    assert "**territories and armies placed at random**" in text  # (the setting's words, in the game's language)
    assert "2. Easy AI 🤖" in text
    # The answer is the player's, in their language; the channel reads the move on the panel, in the game's.
    assert after(out, "/plasser territorium:Egypt antall:1") == \
        "[#general] bot (only @alice sees this): alice plasserte 1 på Egypt."
    assert "  alice placed 1 on Egypt." in block(out, "/plasser territorium:Egypt antall:1")
    assert after(out, "complete /plasser territorium:Eg") == "choices: Egypt (5)"
    assert after(out, "/risk regler emne:uavgjort").startswith(
        "[#general] bot (only @alice sees this): **Uavgjort** går alltid til forsvareren.")
    assert after(out, "@bob /mapa") == "[#general] bot (only @bob sees this): Turno 1: alice está colocando refuerzos."
    assert after(out, "/colocar territorio:Perú cantidad:2") == \
        "[#general] bot (only @alice sees this): alice plasserte 2 på Peru."
    assert "  alice placed 2 on Peru." in block(out, "/colocar territorio:Perú cantidad:2")
    assert after(out, "/place territory:Japan count:1") == \
        "[#general] bot (only @alice sees this): alice plasserte 1 på Japan."
    assert "  alice placed 1 on Japan." in block(out, "/place territory:Japan count:1")
    assert after(out, "/plasser land:Egypt") == "error: /place has no option 'land'; options: territory, count"


# -- the README's commands ---------------------------------------------------------------------------------------
def readme_commands() -> list[str]:
    """Every shell command the README shows, in code blocks or inline."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    snippets = [line for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S) for line in block.splitlines()]
    snippets += re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    return [line.strip() for line in snippets if re.match(r"\s*(\S*/)?(python3?|make)\b", line)]


def test_readme_commands_run_in_the_virtualenv():
    commands = readme_commands()
    assert len(commands) >= 10
    for command in commands:
        assert command.startswith((".venv/bin/python ", "make ")), command


@pytest.mark.slow  # every tool of the README, each its own process, in a fresh folder
def test_readme_tools_work_as_written(tmp_path: Path):
    """The console and the Tools of the README, in a fresh folder, line by line as written (only fewer games)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    console = text[text.index("### Offline console"):text.index("## Tools")]
    tools = text[text.index("## Tools"):text.index("## Layout")]
    (tmp_path / "script.txt").write_text(re.search(r"```\n(.*?)```", console, re.S).group(1), encoding="utf-8")
    lines = [line for line in re.search(r"```\n(.*?)```", tools, re.S).group(1).splitlines() if line.strip()]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(line: str, **replace: str) -> str:
        words = shlex.split(line, comments=True)
        assert words[0] == ".venv/bin/python"
        words = [sys.executable] + [str(ROOT / "bot.py") if w == "bot.py" else replace.get(w, w) for w in words[1:]]
        result = subprocess.run(words, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, (line, result.stderr)
        return result.stdout

    played = run(next(c for c in readme_commands() if c.endswith("bot.py console script.txt")))
    assert "The game begins!" in played and (tmp_path / "data" / "risk.sqlite3").is_file()
    assert sorted(p.name for p in (tmp_path / "out").iterdir())[0] == "0001-map.png"

    simulate, verify, render, odds, games, export, ratings = lines
    assert "2 games, 4 players" in run(simulate, **{"100": "2"})
    assert run(verify).strip() == "OK"
    run(render)
    assert len(list((tmp_path / "maps").glob("map-turn-*.png"))) > 1
    assert "64.6%" in run(odds).splitlines()[4]
    listed = run(games).splitlines()
    assert listed[0].split()[:5] == ["id", "guild", "channel", "status", "turn"]
    game_id, _guild, channel, status = listed[1].split()[:4]
    assert status == "running"
    exported = run(export, ID=channel)
    events = (tmp_path / "game.jsonl").read_text(encoding="utf-8").splitlines()
    assert exported == (f"Game #{game_id} (running): {len(events)} events written to game.jsonl "
                        "(hidden information kept hidden: the game is not over).\n")
    assert json.loads(events[0])["type"] == "game_started"
    assert run(export + " --game " + game_id, ID=channel).startswith(f"Game #{game_id} (running): ")
    assert run(ratings).startswith("ratings rebuilt: 0 finished games")  # the console's game is still running


def test_a_host_tries_the_whole_map_workflow_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]):
    """``perm`` makes a user a server manager, who adds a map (its preview saved), lists it, plays on it, and
    removes it by the name its suggestions show."""
    sys.path.insert(0, str(ROOT / "tests"))
    import mapdraw

    blob, files = mapdraw.our_files(mapdraw.draw_world(seed=5))
    (tmp_path / "isles.json").write_bytes(blob)
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    add = f"/risk map add file:{tmp_path / 'isles.json'} file2:{tmp_path / 'regions.png'} " \
          f"file3:{tmp_path / 'picture.png'}"
    out = bot_console(tmp_path, "\n".join([
        add.rsplit(" ", 1)[0], "perm @alice manage_guild", add, "/risk map list", "complete /risk map remove name:",
        '/risk new map:"Drawn Islands" deployment:auto', "/risk addbot", "/risk start", "click Place",
        "@bob /risk map remove name:\"Drawn Islands\"", "perm @bob manage_guild -send_messages", "perm @bob none",
        '/risk map remove name:"Drawn Islands"', "/risk map list", "perm nobody", "perm",
    ]) + "\n", monkeypatch, capsys)
    assert "Only members who can manage the server can do that." in after(out, add.rsplit(" ", 1)[0])  # before perm
    assert after(out, "perm @alice manage_guild") == "@alice has a member's permissions and manage_guild"
    added = block(out, add)
    assert any("Added the map Drawn Islands: 12 territories" in line for line in added), added
    assert any("map-preview.png" in line for line in added), added  # the preview, saved
    assert any("**Drawn Islands**" in line for line in block(out, "/risk map list"))
    assert after(out, "complete /risk map remove name:") == "choices: Drawn Islands"
    opened = block(out, '/risk new map:"Drawn Islands" deployment:auto')
    assert any("Map: **Drawn Islands**" in line for line in opened), opened
    assert "The game begins!" in after(out, "/risk start")
    assert after(out, "click Place").endswith("Place on which territory?")
    assert "Only members who can manage" in after(out, '@bob /risk map remove name:"Drawn Islands"')
    assert after(out, "perm @bob manage_guild -send_messages") == \
        "@bob has a member's permissions and manage_guild, not send_messages"
    assert after(out, "perm @bob none") == "@bob has a member's permissions and nothing more"
    assert "Removed the map Drawn Islands. Games played on it keep it." in after(
        out, '/risk map remove name:"Drawn Islands"')
    listed = [i for i, line in enumerate(out) if line == "> /risk map list"]
    assert not any("Drawn Islands" in line for line in block(out[listed[1]:], "/risk map list"))
    assert after(out, "perm nobody").startswith("error: no permission 'nobody'")
    assert after(out, "perm").startswith("error: usage: [@user] perm NAME")
