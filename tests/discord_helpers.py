"""Build the real bot on a temporary database and drive it through the offline Discord."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from discord_offline import OfflineDiscord as _OfflineDiscord

from bot import Config, create_bot
from engine import (
    Action,
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Occupy,
    Place,
    Surrender,
    Trade,
)
from engine.cards import WILD_CARDS

_counter = itertools.count()


class OfflineDiscord(_OfflineDiscord):
    """The offline Discord of ``discord_offline``, where a step counts as hung only after two minutes (its own
    default is ten seconds): the bound catches a bot that waits for something that never comes, and a busy
    machine that makes a long step slower must not fail a test."""

    def __init__(self, bot: Any, *, idle_timeout: float = 120.0, **options: Any) -> None:
        super().__init__(bot, idle_timeout=idle_timeout, **options)


def make_bot(db: Path, seed: str = "fixed") -> Any:
    bot = create_bot(Config(database=str(db)))
    numbers = itertools.count()
    bot.new_seed = lambda: hashlib.sha256(f"{seed}:{next(numbers)}".encode()).hexdigest()
    return bot


def command_for(action: Action, game: Any) -> tuple[str, dict[str, Any]]:
    """The slash command a player would type for an engine action."""
    name = game.board.name
    if isinstance(action, (Claim, ChooseCapital)):
        return "place", {"territory": name(action.territory)}
    if isinstance(action, Place):
        return "place", {"territory": name(action.territory), "count": action.count}
    if isinstance(action, Trade):
        cards = ", ".join("wild" if c in WILD_CARDS else name(c) for c in action.cards)
        return "trade", {"cards": cards}
    if isinstance(action, Attack):
        options: dict[str, Any] = {"from": name(action.source), "to": name(action.target)}
        if action.dice is not None:
            options["dice"] = action.dice
        return "attack", options
    if isinstance(action, Blitz):
        return "blitz", {"from": action.source, "to": action.target, "stop_at": action.stop_at}
    if isinstance(action, Occupy):
        return "move", {"count": action.count}
    if isinstance(action, (EndAttack, EndTurn)):
        return "end", {}
    if isinstance(action, Fortify):
        return "fortify", {"from": action.source, "to": action.target, "count": action.count}
    if isinstance(action, Surrender):
        return "risk surrender", {}
    raise AssertionError(action)


async def open_lobby(d: OfflineDiscord, host: str = "alice", **settings: Any) -> None:
    step = await d.send_command(host, "general", "risk new", settings)
    assert not step.problems, step.problems


async def start(d: OfflineDiscord, humans: Sequence[str], ais: int, **settings: Any) -> None:
    """A game in #general: the first human hosts, the others join, ``ais`` AIs take seats, and it starts."""
    await open_lobby(d, humans[0], **settings)
    for name in humans[1:]:
        await d.send_command(name, "general", "risk join", {})
    for _ in range(ais):
        await d.send_command(humans[0], "general", "risk addbot", {})
    step = await d.send_command(humans[0], "general", "risk start", {})
    assert not step.problems, step.problems


async def play_rounds(d: OfflineDiscord, channel: Any, rounds: int) -> None:
    """The humans of ``channel``'s game play by command, as the normal AI would, until ``rounds`` rounds are over
    (every seat has played that many turns): enough for a rated game (docs/history.md)."""
    from engine.ai import make_ai

    for _ in range(2000):
        record = (await d.bot.store.list_games(channel_id=d.channel(channel).id, limit=1))[0]
        game = record.game()
        seat = game.state.current
        if game.state.round > rounds or record.status != "running":
            return
        user = next(u for u in d.server.users.values() if u.id == record.player(seat).user_id)
        name, options = command_for(make_ai("normal", salt="h").choose(game, seat), game)
        step = await d.send_command(user, channel, name, options)
        assert not step.problems, (name, options, step.problems)
    raise AssertionError("the rounds were never played")


def record_worker_tasks(monkeypatch: Any) -> list[str]:
    """The names of the functions the bot hands to its worker processes from now on (they still run there)."""
    import workers

    names: list[str] = []
    run = workers.run

    async def recording(work: Any, *args: Any) -> Any:
        names.append(work.__name__)
        return await run(work, *args)

    monkeypatch.setattr(workers, "run", recording)
    return names


__all__ = ["OfflineDiscord", "command_for", "make_bot", "open_lobby", "play_rounds", "record_worker_tasks",
           "start"]
