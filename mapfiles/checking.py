"""The check of an uploaded map, in a process of its own that is stopped at a time limit.

An upload is untrusted work of unknown cost: importing it, checking it, drawing its preview and its thumbnail.
It runs in a fresh process (``spawn``: it inherits none of the bot's threads or connections), not in the pool
that draws every turn's map (``workers``), so a map that takes long delays no game. When the process
has not answered within ``UPLOAD_SECONDS`` it is killed and the map refused (``MapFileError``): whatever the
file does, the bot gets its answer, and no thread or process goes on working for it. The bot stores the map
only after the whole check has answered.

The refusal crosses the process boundary as its template and values (an exception's own pickling would lose
them), so it is translated in the reader's language as any other.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from engine import MapError

from .conquerclub import ImportNotes
from .errors import MapFileError

UPLOAD_SECONDS = 60.0   # the most one upload's check may take (a large map takes a few seconds)
NICENESS = 10           # below the bot's priority, as the render workers
MAX_CHECKS = 2          # uploads checked at once; more wait their turn (each check is a process of its own)
_checks = threading.BoundedSemaphore(MAX_CHECKS)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CheckedMap:
    """An uploaded map that passed the whole check: its files as stored, what the bot says of it, and its
    pictures."""

    map_id: str
    title: str
    files: dict[str, bytes]
    preview: bytes        # PNG: the map with nothing owned yet
    thumbnail: bytes      # PNG: the map's land in its continents' tints, for the sheet of maps
    skipped: tuple[str, ...]   # bonuses the import left out


def check_upload(files: Mapping[str, bytes]) -> CheckedMap:
    """The whole check of an upload, in this process: import, validation, preview and thumbnail."""
    from .images import png_bytes
    from .previews import preview_png
    from .registry import install
    from .upload import import_upload, package_thumbnail

    notes = ImportNotes()
    package = import_upload(dict(files), notes)
    install(package)
    preview = preview_png(package.id)
    thumbnail = png_bytes(package_thumbnail(package.data, package.regions))
    return CheckedMap(package.id, package.title, package.files(), preview, thumbnail, tuple(notes.skipped))


def _plain(params: Mapping[str, object]) -> dict[str, object]:
    return {k: v if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v) for k, v in params.items()}


def _refusal(exc: MapFileError) -> tuple[Any, ...]:
    inner = exc.inner
    return ("refused", exc.template, _plain(exc.params),
            None if inner is None else (inner.template, _plain(inner.params)))


def _rebuilt(template: str, params: dict[str, object], inner: tuple[str, dict[str, object]] | None
             ) -> MapFileError:
    refusal = MapFileError(template, **params)
    if inner is not None:
        refusal.inner = MapError(inner[0], **inner[1])
    return refusal


def _child(conn: Connection, work: Callable[..., object], args: tuple[Any, ...]) -> None:
    """In the checking process: the work, and its answer (or its refusal) sent back."""
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    try:
        answer: tuple[Any, ...] = ("done", work(*args))
    except MapFileError as exc:
        answer = _refusal(exc)
    except MapError as exc:
        answer = _refusal(MapFileError.from_map_error(exc))
    except Exception as exc:   # any fault of a file is a refusal, never the bot's crash
        answer = ("failed", f"{type(exc).__name__}: {exc}"[:300])
    conn.send(answer)
    conn.close()


def run_bounded(work: Callable[..., object], args: tuple[Any, ...], seconds: float) -> object:
    """``work(*args)`` in a process of its own, killed if it has not answered within ``seconds``: its answer,
    or ``MapFileError`` (its own refusal, the time limit, or a fault). Blocks: call it from a thread."""
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sender, work, args), name="map-check", daemon=True)
    process.start()
    sender.close()
    try:
        answer = receiver.recv() if receiver.poll(seconds) else None
    except EOFError:   # the process died without answering (killed, out of memory)
        answer = ("failed", "the checking process ended")
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        process.join()
    if answer is None:
        raise MapFileError("Checking the map took longer than {seconds} seconds, so it was not added: make its "
                           "pictures smaller or its territories simpler.", seconds=round(seconds))
    if answer[0] == "done":
        return answer[1]
    if answer[0] == "refused":
        raise _rebuilt(answer[1], answer[2], answer[3])
    log.warning("an uploaded map could not be checked: %s", answer[1])
    raise MapFileError("The map could not be checked, so it was not added.")


def check_upload_bounded(files: Mapping[str, bytes], seconds: float = UPLOAD_SECONDS) -> CheckedMap:
    """``check_upload`` in a process of its own, stopped after ``seconds`` (at most ``MAX_CHECKS`` at once)."""
    with _checks:
        checked = run_bounded(check_upload, (dict(files),), seconds)
    assert isinstance(checked, CheckedMap)
    return checked


__all__ = ["UPLOAD_SECONDS", "CheckedMap", "check_upload", "check_upload_bounded", "run_bounded"]
