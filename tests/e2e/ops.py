"""Asking a bot process's operator listener (/healthz, /readyz, /metrics) from a test."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import aiohttp


async def get(url: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        if response.content_type == "application/json":
            return response.status, await response.json()
        return response.status, await response.text()


async def until(url: str, status: int, seconds: float) -> Any:
    """Ask ``url`` until it answers ``status``; its last body."""
    async with asyncio.timeout(seconds):
        while True:
            got, body = await get(url)
            if got == status:
                return body
            await asyncio.sleep(0.2)


def samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """The samples of one metric in Prometheus's text format, by their labels."""
    found = {}
    for match in re.finditer(rf"^{name}(?:{{(.*?)}})? (\S+)$", text, re.MULTILINE):
        labels = tuple(sorted(re.findall(r'(\w+)="([^"]*)"', match.group(1) or "")))
        found[labels] = float(match.group(2))
    return found
