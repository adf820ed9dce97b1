"""Discord's Embedded App SDK (``@discord/embedded-app-sdk``, MIT), served by the bot to the board's Activity page.

Discord's proxy lets an Activity run only its own scripts, so the SDK's ES module build comes from here: the npm
package's tarball, kept unmodified in ``static/sdk/`` with its licence, pinned to one version and checked against
the registry's sha512 integrity before any file of it is served. Its ``output/*.mjs`` files import each other by
relative paths only, so the browser loads them as they are, from ``/static/sdk/...``.
"""

from __future__ import annotations

import base64
import hashlib
import tarfile
from functools import cache
from io import BytesIO
from pathlib import Path

VERSION = "2.5.0"
# `npm view @discord/embedded-app-sdk@2.5.0 dist.integrity`
INTEGRITY = "sha512-FNoe5PbSkoKEbqPubaBmq6tlEMOftMjR3gu55YrdrrKmBfKKM4i9P/Z+Zxl0RZdJcKviBwVcTyYMMPM/aGex/w=="
TARBALL = Path(__file__).parent / "static" / "sdk" / f"discord-embedded-app-sdk-{VERSION}.tgz"
PREFIX = "package/output/"


def integrity_of(data: bytes) -> str:
    """The npm registry's integrity string of a tarball (Subresource Integrity form)."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


@cache
def modules() -> dict[str, bytes]:
    """The SDK's ES modules by their path under ``output/`` (``index.mjs``, ``commands/authorize.mjs``...);
    ``ValueError`` if the tarball is not the pinned one."""
    data = TARBALL.read_bytes()
    if integrity_of(data) != INTEGRITY:
        raise ValueError(f"{TARBALL.name} does not match the pinned integrity {INTEGRITY}")
    found: dict[str, bytes] = {}
    with tarfile.open(fileobj=BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.startswith(PREFIX) and member.name.endswith(".mjs"):
                handle = tar.extractfile(member)
                if handle is not None:
                    found[member.name[len(PREFIX):]] = handle.read()
    return found


__all__ = ["INTEGRITY", "TARBALL", "VERSION", "integrity_of", "modules"]
