"""``bot.py`` on the command line: in a process of its own as the README writes it, or through its ``main``."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def bot_py(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python bot.py ARGS`` as the README writes it."""
    return subprocess.run([sys.executable, str(ROOT / "bot.py"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


async def bot_main(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """``bot.py ARGS`` through its ``main`` in this process: the same command line as ``bot_py``, its exit code
    and its output, without starting a Python for each."""
    import bot

    capsys.readouterr()
    try:
        code = await asyncio.to_thread(bot.main, list(args))
    except SystemExit as exc:  # argparse: --help, a wrong option
        code = exc.code if isinstance(exc.code, int) else 1
    out = capsys.readouterr()
    return subprocess.CompletedProcess(["bot.py", *args], code, out.out, out.err)


__all__ = ["bot_main", "bot_py"]
