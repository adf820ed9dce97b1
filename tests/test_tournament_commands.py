"""A tournament's game through the real command tree: its own game host (the entrant seated first) is refused the
host's controls with a sentence naming the tournament, and nothing changes; the tournament's host runs the game
(pause, resume, cancel: the game ends by the standings and the round goes on)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from discord_helpers import OfflineDiscord, make_bot

from competition import Pairing, Spec
from store.tournaments import TournamentRecord
from table.tournaments import Tournaments

GAME = {"deployment": "auto", "turn_deadline": 3600, "reminders": "none"}


class Rooms:
    def __init__(self, channel_id: int) -> None:
        self.channel_id = channel_id

    async def open_room(self, tournament: TournamentRecord, pairing: Pairing, names: Sequence[str]) -> int:
        return self.channel_id


async def tournament_game(d: OfflineDiscord, players: Sequence[str] = ("alice", "bob")
                          ) -> tuple[Tournaments, int, Any]:
    """Carol hosts a one-round tournament in #general; ``players`` (Alice and Bob) play its one table in #cup-1."""
    room = d.channel("cup-1")
    desk = Tournaments(d.bot.services().taps.table)
    desk.rooms = Rooms(room.id)
    store = d.bot.store
    created = await desk.create(d.server.guild_id, d.channel("general").id, d.user("carol").id, "Winter Cup",
                                Spec("swiss", rounds=1), {"game": GAME})
    for name in players:
        await desk.join(created.record.id, d.user(name).id, name)
    await d.run(desk.start(created.record.id))
    game = await store.get_active_game(room.id)
    assert game is not None and game.host_id == d.user(players[0]).id and game.status == "running"
    return desk, created.record.id, game


async def test_the_game_host_of_a_tournament_game_is_refused_its_controls(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        _desk, tid, game = await tournament_game(d)
        for command, options in (("risk cancel", {}), ("risk pause", {}), ("risk kick", {"player": "@bob"}),
                                 ("risk addbot", {}), ("risk start", {})):
            step = await d.send_command("alice", "cup-1", command, options)
            assert step[0].ephemeral, command
            assert "belongs to the tournament Winter Cup" in step[0].content and "only they" in step[0].content, (
                command, step[0].content)
        step = await d.send_command("dave", "cup-1", "risk join", {})
        assert step[0].ephemeral and "seats are the tournament's pairing" in step[0].content
        record = await d.bot.store.get_game(game.id)
        assert record.status == "running" and record.version == game.version  # nothing changed
        assert not (await d.bot.store.tournament_view(tid)).results
        step = await d.send_command("alice", "cup-1", "risk pause", {}, locale="nb")  # in the player's words
        assert "Winter Cup" in step[0].content and "belongs to the tournament" not in step[0].content


async def test_the_tournaments_host_runs_its_game_and_a_cancel_scores_the_table(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        _desk, tid, game = await tournament_game(d)
        step = await d.send_command("carol", "cup-1", "risk pause", {})
        assert not step.problems and (await d.bot.store.get_game(game.id)).status == "paused"
        step = await d.send_command("carol", "cup-1", "risk resume", {})
        assert not step.problems and (await d.bot.store.get_game(game.id)).status == "running"
        assert (await d.bot.store.get_game(game.id)).game().state.round == 1  # a plain game would just be cancelled
        step = await d.send_command("carol", "cup-1", "risk cancel", {})
        assert not step.problems, step.problems
        record = await d.bot.store.get_game(game.id)
        assert record.status == "finished"
        events = await d.bot.store.events(game.id)
        assert not [e for e in events if e["type"] == "player_surrendered"]  # the game's host did not resign
        view = await d.bot.store.tournament_view(tid)
        assert len(view.results) == 1 and view.record.status == "finished"
        told = "\n".join(m.text for m in step if not m.ephemeral)
        assert "wins the game" in told and "1. alice" in told  # the end and its standings, told in the game's room
        assert "as a game of the tournament Winter Cup does when its host calls it off" in told


async def test_nobody_referees_their_own_tournament_game(tmp_path: Path):
    """The tournament's host who plays at a table, and a server manager who plays there, are refused every host
    control in that game (kick, cancel, pause): nothing changes; a manager who does not play there runs it."""
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        _desk, tid, game = await tournament_game(d, ("alice", "carol"))   # the host enters her own tournament
        store = d.bot.store
        d.set_permissions("alice", manage_guild=True)   # alice manages the server and plays too
        for user, command, options in (("carol", "risk kick", {"player": "@alice"}), ("carol", "risk cancel", {}),
                                       ("carol", "risk pause", {}), ("alice", "risk kick", {"player": "@carol"}),
                                       ("alice", "risk cancel", {})):
            step = await d.send_command(user, "cup-1", command, options)
            assert step[0].ephemeral and "nobody referees their own game" in step[0].content, (command, step[0].content)
        record = await store.get_game(game.id)
        assert record.status == "running" and record.version == game.version   # nothing changed
        assert not (await store.tournament_view(tid)).results
        step = await d.send_command("carol", "cup-1", "risk pause", {}, locale="es-ES")   # in the player's words
        assert step[0].ephemeral and "Winter Cup" in step[0].content and "nobody" not in step[0].content
        d.set_permissions("dave", manage_guild=True)   # a manager who does not play here runs it
        step = await d.send_command("dave", "cup-1", "risk pause", {})
        assert not step.problems and (await store.get_game(game.id)).status == "paused"
