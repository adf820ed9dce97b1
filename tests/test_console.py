"""The offline console of bot.py: a scripted game from a file, as a newcomer would try it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
