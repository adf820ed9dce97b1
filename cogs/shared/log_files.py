"""A game's log as attachments that Discord takes: as it is, compressed (gzip) when it is over the upload limit of
the interaction (``Interaction.filesize_limit``), or in compressed parts that each fit.

The parts are gzip members of consecutive lines: joined in order (``cat``) they are one gzip file of the whole
log, which ``python -m engine.verify`` reads as it is. The compression runs in a thread (store/logs.py): zlib lets go
of the GIL while it works, so the event loop goes on.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Callable
from typing import Any

import discord

from present.i18n import _
from store.logs import in_thread

MAX_PARTS = 100


def _fitted(data: bytes, stem: str, limit: int) -> list[tuple[str, bytes]]:
    if len(data) <= limit:
        return [(f"{stem}.jsonl", data)]
    packed = gzip.compress(data, compresslevel=6, mtime=0)
    if len(packed) <= limit:
        return [(f"{stem}.jsonl.gz", packed)]
    lines = data.splitlines(keepends=True)
    parts = max(2, -(-len(packed) // max(1, limit)) + 1)
    while parts <= min(MAX_PARTS, len(lines)):
        size = -(-len(lines) // parts)
        chunks = [gzip.compress(b"".join(lines[i:i + size]), compresslevel=6, mtime=0)
                  for i in range(0, len(lines), size)]
        if all(len(c) <= limit for c in chunks):
            return [(f"{stem}.part{n}of{len(chunks)}.jsonl.gz", c) for n, c in enumerate(chunks, 1)]
        parts *= 2
    return []


async def log_files(data: bytes, stem: str, limit: int) -> list[discord.File]:
    """The log ``data`` (JSON Lines) as files named after ``stem`` that each fit ``limit`` bytes: one ``.jsonl``
    if it fits, else one ``.jsonl.gz``, else ``.partNofM.jsonl.gz`` parts (none if not even a hundred fit)."""
    named = await in_thread(_fitted, data, stem, limit)  # zlib lets go of the GIL
    return [discord.File(io.BytesIO(content), filename=name) for name, content in named]


async def send_log(interaction: discord.Interaction[Any], note: Callable[[str], str], data: bytes, game_id: int, *,
                   ephemeral: bool) -> None:
    """Send a game's log after the interaction was deferred: ``note(the name of the log's file)`` with the log,
    compressed or in parts (one message each) if it is over the interaction's upload limit."""
    locale = interaction.locale
    files = await log_files(data, f"risk-game-{game_id}", interaction.filesize_limit)
    if not files:
        await interaction.followup.send(_("The log of game #{id} is too large to upload here, even compressed.",
                                          locale, id=game_id), ephemeral=ephemeral)
        return
    if len(files) == 1 and not (files[0].filename or "").endswith(".gz"):
        await interaction.followup.send(note(files[0].filename or ""), file=files[0], ephemeral=ephemeral)
        return
    packed = _("The log is over the upload limit here, so it comes compressed with gzip; "
               "`python -m engine.verify` reads the `.gz` file as it is.", locale) if len(files) == 1 else \
        _("The log is over the upload limit here even compressed, so it comes in {n} gzip parts: join them in "
          "order (`cat` them into one `.jsonl.gz` file), which `python -m engine.verify` reads as it is.",
          locale, n=len(files))
    whole = f"risk-game-{game_id}.jsonl.gz"
    await interaction.followup.send(f"{note(whole)}\n{packed}", file=files[0], ephemeral=ephemeral)
    for file in files[1:]:
        await interaction.followup.send(file=file, ephemeral=ephemeral)


__all__ = ["MAX_PARTS", "log_files", "send_log"]
