"""Scripted players: people who read the game from the bot's database (read-only) and type slash commands.

A :class:`Table` is one game in one channel. Its humans open a lobby, join, seat the bot's AIs and start;
then, whenever the database says it is a human's turn, that human asks the engine's normal AI what to do
(``make_ai("normal").choose(game, seat)``) and types the matching slash command (``command_for``) through the
fake Discord's gateway, and waits for the bot's complete answer. With ``buttons`` some moves are made with
the bot's buttons and menus instead (Place: the panel's button, the territory menu, the count button; Occupy:
the move buttons under the attack's answer), when they offer exactly the chosen move. While an AI plays, the
table waits for the bot to post in the channel. Nothing here writes to the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from discord_helpers import command_for
from discord_offline.fake_discord import FakeDiscord, Interaction
from discord_offline.records import OfflineMessage, OfflineUser

from engine import Action, Game, GameState, Occupy, Place
from engine.ai import make_ai
from engine.state import OCCUPY, REINFORCE
from present.verbs import continent_ref, ref

from .launch import seed_for

ACTION = "action"  # the tag of an interaction that performs a game action (stored with its id)
STEP = "ui"  # the tag of a button or menu that only leads to one


@dataclass(frozen=True)
class Snapshot:
    """A game as the database holds it at one moment."""

    game_id: int
    status: str
    version: int
    last_seq: int
    state: dict[str, Any] | None
    seats: dict[int, int | None]  # seat -> user id (None for an AI)

    @property
    def current(self) -> int | None:
        return None if self.state is None else int(self.state["current"])

    def game(self) -> Game:
        assert self.state is not None
        return Game(GameState.from_dict(self.state))


def read_only(db: Path) -> sqlite3.Connection:
    """A read-only connection to the bot's database (the bot may be writing, or dead, meanwhile)."""
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)


def latest_game(db: Path, channel_id: int) -> Snapshot | None:
    """The newest game of a channel, or None."""
    if not db.exists():
        return None
    with contextlib.closing(read_only(db)) as conn:
        row = conn.execute("SELECT id, status, version, last_seq, state FROM games WHERE channel_id = ? "
                           "ORDER BY id DESC LIMIT 1", (channel_id,)).fetchone()
        if row is None:
            return None
        seats = dict(conn.execute("SELECT seat, user_id FROM players WHERE game_id = ?", (row[0],)).fetchall())
    return Snapshot(int(row[0]), str(row[1]), int(row[2]), int(row[3]), json.loads(row[4]) if row[4] else None,
                    seats)


def stored_game(db: Path, game_id: int) -> tuple[dict[str, Any], list[dict[str, Any]],
                                                list[tuple[str, dict[str, Any]]]]:
    """A game's stored state, its event log (in order) and its processed interactions (id, summary)."""
    with contextlib.closing(read_only(db)) as conn:
        state = json.loads(conn.execute("SELECT state FROM games WHERE id = ?", (game_id,)).fetchone()[0])
        events = [(int(seq), json.loads(text)) for seq, text in
                  conn.execute("SELECT seq, event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))]
        done = [(str(i), json.loads(r)) for i, r in
                conn.execute("SELECT interaction_id, result FROM interactions WHERE game_id = ? ORDER BY created_at",
                             (game_id,))]
    if [seq for seq, _ in events] != list(range(1, len(events) + 1)):
        raise AssertionError(f"game {game_id}: the event numbers have gaps or repeats")
    return state, [e for _, e in events], done


def engine_game(seed_base: str, humans: int = 2, ais: int = 2, settings: Mapping[str, Any] | None = None,
                limit: int = 20_000) -> tuple[int, int, list[dict[str, Any]]]:
    """The game a bot run with ``E2E_SEED=seed_base`` starts first, played by the engine alone with every seat
    choosing as the scripted players and the bot's AIs do: the humans' and the AIs' action counts and the event
    log. The bot's stored log must match it event for event (after ``game_started``, which names the players)."""
    from engine.state import OVER, Player

    players = [Player(i, f"human {i}") for i in range(humans)]
    players += [Player(humans + i, f"AI {i}", "ai", "normal") for i in range(ais)]
    game, events = Game.new(players, seed_for(seed_base, 0), dict(settings or {}))
    ai = make_ai("normal")
    human_actions = ai_actions = 0
    while game.state.phase != OVER and human_actions + ai_actions < limit:
        seat = game.state.current
        events += game.apply(ai.choose(game, seat))
        if seat < humans:
            human_actions += 1
        else:
            ai_actions += 1
    return human_actions, ai_actions, events


class Table:
    """One game in one channel, played by scripted humans through the fake Discord; the AIs are the bot's."""

    def __init__(self, fake: FakeDiscord, db: Path, channel: str, humans: list[str], *, ais: int = 2,
                 settings: Mapping[str, Any] | None = None, timeout: float = 30.0, think: float = 0.0,
                 buttons: float = 0.0, rng: random.Random | None = None) -> None:
        self.fake = fake
        self.db = db
        self.channel = fake.channel(channel)
        self.humans = [fake.user(name) for name in humans]
        self.ais = ais
        self.settings = dict(settings if settings is not None else {"deployment": "auto", "setup_batch": 10})
        self.timeout = timeout
        self.think = think
        self.buttons = buttons
        self.rng = rng or random.Random(channel)
        self.by_buttons = 0
        self.game_id: int | None = None
        self.sent: list[Interaction] = []
        self.errors: list[str] = []
        self.actions = 0
        self._ai = make_ai("normal")

    # -- reading
    def snapshot(self) -> Snapshot | None:
        return latest_game(self.db, self.channel.id)

    def user_of(self, snap: Snapshot, seat: int) -> Any:
        user_id = snap.seats.get(seat)
        return next((u for u in self.humans if u.id == user_id), None)

    # -- talking
    async def send(self, user: Any, path: str, options: Mapping[str, Any] | None = None, *,
                   tag: Any = None) -> Interaction:
        """Type a command and wait for the bot's complete answer; note refusals and failures."""
        interaction = await self.fake.command(user, self.channel, path, options, tag=tag)
        self.sent.append(interaction)
        await interaction.wait_settled(self.timeout)
        if interaction.failed or interaction.refused:
            self.errors.append(f"#{self.channel.name} /{path} {dict(options or {})}: {interaction.text[:200]}")
        return interaction

    async def _checked(self, interaction: Interaction) -> Interaction:
        self.sent.append(interaction)
        await interaction.wait_settled(self.timeout)
        if interaction.failed or interaction.refused:
            self.errors.append(f"#{self.channel.name} {interaction.name}: {interaction.text[:200]}")
        return interaction

    def _latest_with(self, user: OfflineUser, custom_id: str) -> OfflineMessage | None:
        """The newest message ``user`` can see with a component of this custom id."""
        for message in reversed(self.fake.messages(self.channel)):
            if message.visible_to not in (None, user.name):
                continue
            if any(c.get("custom_id") == custom_id for c in message.components):
                return message
        return None

    def _answer_message(self, interaction: Interaction) -> OfflineMessage:
        """The message an interaction's answer created or updated."""
        record = self.fake.server.interactions[interaction.token]
        message_id = record.original_message_id
        assert message_id is not None, interaction.text
        return self.fake.server.messages[message_id]

    async def _pick(self, user: OfflineUser, menu: OfflineMessage, territory: str, game: Game) -> OfflineMessage:
        """Choose a territory in a menu of territories (through the continent menu first if there is one)."""
        for _ in range(2):
            select = menu.selects[0]
            values = {o["value"] for o in select["options"]}
            by_continent = select["custom_id"].split(":")[2] == "cont"  # more than a menu holds: its continent first
            value = continent_ref(game.board, game.board.territories[territory].continent) if by_continent \
                else ref(game.board, territory)
            if value not in values:
                break
            chosen = await self._checked(await self.fake.choose(user, menu, [value], tag=(STEP,)))
            menu = self._answer_message(chosen)
            if not by_continent:
                return menu
        raise AssertionError(f"#{self.channel.name}: {territory} not offered")

    async def _with_buttons(self, user: OfflineUser, snap: Snapshot, game: Game, action: Action) -> bool:
        """Make the move with buttons and menus if they offer exactly this move; False if they do not."""
        gid, s = snap.game_id, game.state
        tag = (ACTION, snap.version)
        if isinstance(action, Place) and s.phase == REINFORCE:
            left = s.reinforcements
            if action.count not in {1, min(3, left), min(5, left), left} or left == 1:
                return False  # (the last army is placed by the territory menu itself: typed here)
            panel = self._latest_with(user, f"risk:{gid}:place")
            if panel is None:
                return False
            opened = await self._checked(await self.fake.press(user, panel, custom_id=f"risk:{gid}:place",
                                                               tag=(STEP,)))
            menu = await self._pick(user, self._answer_message(opened), action.territory, game)
            put = f"risk:{gid}:put:{ref(game.board, action.territory)}:{action.count}"
            await self._checked(await self.fake.press(user, menu, custom_id=put, tag=tag))
            return True
        if isinstance(action, Occupy) and s.phase == OCCUPY:
            button = f"risk:{gid}:move:{action.count}"
            answer = self._latest_with(user, button)
            if answer is None:
                return False
            await self._checked(await self.fake.press(user, answer, custom_id=button, tag=tag))
            return True
        return False

    async def open(self) -> int:
        """Lobby, seats, start; the game id."""
        host = self.humans[0]
        await self.send(host, "risk new", self.settings)
        for other in self.humans[1:]:
            await self.send(other, "risk join")
        for _ in range(self.ais):
            await self.send(host, "risk addbot", {"level": "normal"})
        await self.send(host, "risk start")
        snap = self.snapshot()
        if snap is None or snap.status not in ("running", "finished"):
            raise AssertionError(f"#{self.channel.name}: the game did not start: {self.errors}")
        self.game_id = snap.game_id
        return snap.game_id

    async def step(self) -> str:
        """One move of whoever must move: ``acted`` (a human typed a command), ``waited`` (an AI plays: the bot
        posted something), ``over``, or ``stalled`` (nothing happened within the timeout)."""
        since = self.fake.activity(self.channel.id)
        snap = self.snapshot()
        if snap is None or snap.status != "running" or snap.state is None:
            return "over"
        seat = snap.current
        assert seat is not None
        user = self.user_of(snap, seat)
        if user is None:
            moved = await self.fake.wait_activity(self.channel.id, since, self.timeout)
            return "waited" if moved else "stalled"
        if self.think:
            # A person's pace: reading the board before typing, some quicker, some slower (players of many games
            # do not all move in the same second).
            await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
            snap = self.snapshot()
            if snap is None or snap.status != "running" or snap.current != seat:
                return "waited"
        game = snap.game()
        action = self._ai.choose(game, seat)
        if self.buttons and self.rng.random() < self.buttons and await self._with_buttons(user, snap, game, action):
            self.by_buttons += 1
        else:
            path, options = command_for(action, game)
            await self.send(user, path, options, tag=(ACTION, snap.version))
        self.actions += 1
        return "acted"

    async def play(self, *, max_steps: int, seconds: float) -> str:
        """Play until the game ends, ``max_steps`` steps or ``seconds`` pass; the last step's result."""
        deadline = time.monotonic() + seconds
        result = "stopped"
        for _ in range(max_steps):
            if time.monotonic() > deadline:
                return "stopped"
            result = await self.step()
            if result == "over":
                return result
            if result == "stalled":
                self.errors.append(f"#{self.channel.name}: nothing happened for {self.timeout:g} s")
                return result
        return result


__all__ = ["ACTION", "STEP", "Snapshot", "Table", "engine_game", "latest_game", "read_only", "stored_game"]
