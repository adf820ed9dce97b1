"""The application layer under the cogs: apply an action through the store, let the AIs move, render.

Data goes one way: the cog calls ``act``; the store applies the engine's rules in one transaction; the
events come back; the map is rendered off the event loop; the cog answers.
"""

from __future__ import annotations

import asyncio
import io
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import discord

from engine import Action, GameState
from engine.ai import make_ai
from engine.state import OVER, Event
from render import encode_png, render_map
from store import ActionResult, GameRecord, Store

from .i18n import language_of, map_labels

log = logging.getLogger(__name__)

# An AI seat never takes more actions than this in one go (a safety net; a whole AI turn is ~20-200).
MAX_AI_ACTIONS = 5_000


@dataclass
class AITurn:
    seat: int
    turn: int = 0
    events: list[Event] = field(default_factory=list)


class GameService:
    def __init__(self, store: Store, new_seed: Callable[[], str] | None = None) -> None:
        self.store = store
        self.new_seed = new_seed or (lambda: secrets.token_hex(32))
        self._game_locks: dict[int, asyncio.Lock] = {}

    def lock(self, game_id: int) -> asyncio.Lock:
        """Serialises the follow-up work (AI turns) of one game inside this process."""
        return self._game_locks.setdefault(game_id, asyncio.Lock())

    async def apply(self, record: GameRecord, action: Action, interaction_id: str | None) -> ActionResult:
        """Apply one player's action in one transaction (RuleError and StoreError change nothing)."""
        return await self.store.apply_action(record.id, action, interaction_id=interaction_id)

    async def follow_up(self, game_id: int) -> tuple[GameRecord, list[AITurn]]:
        """Play the AI turns that follow an action; the game as it is afterwards."""
        turns = await self.run_ai(game_id)
        return await self.store.get_game(game_id), turns

    async def start(self, record: GameRecord) -> tuple[GameRecord, list[Event], list[AITurn]]:
        started, events = await self.store.start_game(record.id, seed=self.new_seed())
        turns = await self.run_ai(started.id)
        final = await self.store.get_game(started.id) if turns else started
        return final, events, turns

    async def run_ai(self, game_id: int) -> list[AITurn]:
        """Play AI seats until a human must act or the game ends. Each action is its own transaction."""
        turns: list[AITurn] = []
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            for _ in range(MAX_AI_ACTIONS):
                if record.status != "running" or record.state is None:
                    break
                game = record.game()
                if game.state.phase == OVER:
                    break
                seat = game.state.current
                player = record.player(seat)
                if not player.is_ai:
                    break
                action = make_ai(player.ai_level or "normal", salt=str(seat)).choose(game, seat)
                result = await self.store.apply_action(game_id, action)
                if not turns or turns[-1].seat != seat:
                    turns.append(AITurn(seat, turn=game.state.turn))
                turns[-1].events.extend(result.events)
                record = result.record
            else:  # pragma: no cover - a safety net
                log.error("game %s: AI took more than %s actions", game_id, MAX_AI_ACTIONS)
        return turns

    @staticmethod
    def state_of(record: GameRecord) -> GameState:
        return record.game().state

    async def render_file(self, record: GameRecord, highlight: Sequence[Event] = (), *,
                          viewer: int | None = None, locale: object | None = None,
                          visible: set[str] | None = None) -> discord.File | None:
        """The map as a PNG attachment in the game's (or the given) language, rendered in a worker thread."""
        if record.state is None:
            return None
        state = self.state_of(record)
        labels = map_labels(language_of(locale or record.settings.get("language") or None))

        def work() -> bytes:
            return encode_png(render_map(state, highlight_events=list(highlight), viewer=viewer, labels=labels,
                                         visible=visible))

        data = await asyncio.to_thread(work)
        return discord.File(io.BytesIO(data), filename="map.png")
