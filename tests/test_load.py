"""Load: the first response before any work, maps shed under load, AI games that stay quiet, and a restart
that tells the channel what it missed, once, and nothing twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from discord_helpers import OfflineDiscord, command_for, make_bot, start
from test_async_play import record_of

from engine import load_map
from engine.ai import make_ai
from present.verbs import ref
from table.play import apply_action


async def play_until_finished(d: OfflineDiscord) -> int:
    """Let the clock run until the AIs have finished; returns how many steps of the scheduler it took."""
    for steps in range(400):  # the AIs play on in steps, from the scheduler
        record = await record_of(d)
        if record.status == "finished":
            return steps
        assert await d.bot.store.game_deadlines(record.id), "a game that goes on always has a timer"
        await d.run(d.bot.advance_time(2))
    raise AssertionError("the AIs did not finish the game")


async def started(db: Path, seed: str, ais: int) -> OfflineDiscord:
    """A bot on ``db`` with a game of alice and ``ais`` AIs under way in #general (close it when done)."""
    d = OfflineDiscord(make_bot(db, seed=seed), strict=True)
    await d.setup()
    try:
        await start(d, ("alice",), ais, deployment="auto")
    except BaseException:
        await d.close()
        raise
    return d


async def test_a_game_of_five_ais_is_told_in_a_handful_of_messages_and_never_again(tmp_path: Path,
                                                                                   monkeypatch: Any):
    from table import flow

    monkeypatch.setattr(flow, "MAX_AI_ACTIONS", 40)  # many steps of the scheduler, each one silent
    db = tmp_path / "g.db"
    d = await started(db, "five", 5)
    try:
        before = len(d.messages)
        step = await d.send_command("alice", "general", "risk surrender", {})
        await d.click("alice", "Yes, surrender", step[0])
        assert await play_until_finished(d) >= 5
        public = [m for m in d.messages[before:] if not m.ephemeral]
        # The surrender, one word that the AIs play on, and the end: whatever the number of turns.
        assert len(public) <= 4, [m.content[:50] for m in public]
        assert sum(1 for m in public if m.attachments) <= 3
        assert any(m.embeds and "🏆" in str(m.embeds[0].get("title")) for m in public)
        told = len(d.messages)
        d = await d.restart(make_bot(db, seed="five"))
        await d.run(d.bot.advance_time(3600))
        assert len(d.messages) == told, [m.content[:50] for m in d.messages[told:]]
    finally:
        await d.close()


async def test_what_was_stored_but_not_told_is_told_once_after_a_restart(tmp_path: Path):
    db = tmp_path / "g.db"
    d = await started(db, "gap", 1)
    try:
        record = await record_of(d)
        game = record.game()
        assert not record.player(game.state.current).is_ai  # (this seed: alice moves first)
        panel = (await d.bot.store.live_panel(record.id)).message_id
        # The bot stored a move and stopped before it could tell anybody: the store alone applies it.
        seat = game.state.current
        action = make_ai("normal", salt="gap").choose(game, seat)
        await apply_action(d.bot.store, record.id, action)
        told, log = len(d.messages), len(d.server.log)
        d = await d.restart(make_bot(db, seed="gap"))
        # The move belongs to the turn going on: the live panel, the same message, now tells it.
        assert not [m for m in d.messages[told:] if not m.ephemeral]
        assert (await d.bot.store.live_panel(record.id)).message_id == panel
        name = load_map().name(getattr(action, "territory", "") or "alaska")
        content = d.message(panel).content
        assert "placed" in content or name in content
        assert [e.action for e in d.server.log[log:] if e.message_id == panel] == ["edit"]
        assert (await d.bot.store.unannounced()) == []
        again, log = len(d.messages), len(d.server.log)
        d = await d.restart(make_bot(db, seed="gap"))
        assert len(d.messages) == again and len(d.server.log) == log  # told once: a second restart does nothing
    finally:
        await d.close()


def spy_on_store(d: OfflineDiscord, names: tuple[str, ...]) -> list[bool]:
    """For each call of these store methods: whether the interaction being handled was answered already."""
    seen: list[bool] = []
    store: Any = d.bot.store
    for name in names:
        real = getattr(store, name)

        async def spy(*args: Any, __real: Any = real, **kwargs: Any) -> Any:
            seen.append(list(d.server.interactions.values())[-1].answered)  # the first response went out already
            return await __real(*args, **kwargs)
        setattr(store, name, spy)
    return seen


async def test_a_move_is_acknowledged_before_the_store_is_read(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="ack"), strict=True) as d:
        await start(d, ("alice",), 1, deployment="auto")
        game = (await record_of(d)).game()
        mine = [t for t in game.board.territory_ids if game.state.owners[t] == game.state.current]
        await d.send_command("alice", "general", "place", {"territory": game.board.name(mine[0]), "count": 1})
        seen = spy_on_store(d, ("get_active_game", "processed", "change"))
        step = await d.send_command("alice", "general", "place", {"territory": game.board.name(mine[0]), "count": 1})
        assert not step.problems and step[0].ephemeral  # a move's answer is private: the channel reads the panel
        assert len(seen) == 3 and all(seen), seen
        # A tap that plays at once (+1 on a territory) likewise: acknowledged, then the game is read.
        panel = [m for m in d.messages if m.content.startswith("🎯")][-1]
        await d.click("alice", "Place", panel)
        step = await d.select("alice", [ref(load_map(), mine[1])])
        seen = spy_on_store(d, ("get_game", "processed", "change"))
        step = await d.click("alice", "+1", step[-1])
        assert not step.problems
        assert len(seen) >= 3 and all(seen), seen


async def test_a_wrong_guess_about_fog_still_answers_privately(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="guess"), strict=True) as d:
        await start(d, ("alice",), 1, deployment="auto")
        record = await record_of(d)
        game = record.game()
        mine = [t for t in game.board.territory_ids if game.state.owners[t] == game.state.current]
        await d.send_command("alice", "general", "place", {"territory": game.board.name(mine[0]), "count": 1})
        await d.send_command("alice", "general", "risk cancel", {})
        for m in d.last_step:
            if m.components:
                await d.click("alice", m.components[0]["components"][0]["label"], m)
                break
        assert (await d.bot.store.get_active_game(d.channel("general").id)) is None
        await start(d, ("alice",), 1, deployment="auto", fog="on")  # this channel's last game had no fog
        game = (await record_of(d)).game()
        assert game.state.settings.fog == "on"
        mine = [t for t in game.board.territory_ids if game.state.owners[t] == game.state.current]
        step = await d.send_command("alice", "general", "place", {"territory": game.board.name(mine[0]), "count": 1})
        assert not step.problems
        answer = [m for m in step if m.attachments]
        assert answer and all(m.ephemeral for m in answer)  # the map of a fogged game is the player's alone


async def test_under_load_a_burst_of_ai_turns_carries_only_its_newest_map(tmp_path: Path, monkeypatch: Any):
    from present import drawing as maps

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="burst"), strict=True) as d:
        await start(d, ("alice", "bob"), 3, deployment="auto")
        monkeypatch.setattr(maps, "busy", lambda: True)
        for _ in range(600):  # the humans play (the AI's choices) until a move hands over to two AIs or more
            record = await record_of(d)
            game = record.game()
            user = record.player(game.state.current).user_id
            who = "alice" if user == d.user("alice").id else "bob"
            name, options = command_for(make_ai("normal", salt="burst").choose(game, game.state.current), game)
            step = await d.send_command(who, "general", name, options)
            assert not step.problems, step.problems
            assert not step[0].attachments, step[0].content  # busy: the player's answer is words only
            ai_turns = [m for m in step if "🤖" in m.content and not m.ephemeral]
            if len(ai_turns) >= 2:
                break
        else:
            raise AssertionError("no two AI turns in a row")
        assert not any(m.attachments for m in ai_turns[:-1])  # each superseded by the next map in the channel
        # The newest board comes with the last AI turn, which it shows (what that AI took), and the call to the
        # next player, just under it, does not send it again.
        panel = [m for m in step if "🎯" in m.content]
        assert ai_turns[-1].attachments and panel and not panel[-1].attachments


def test_a_worker_does_the_set_up_it_is_given_once_and_again_after_a_change(monkeypatch):
    import workers

    monkeypatch.setattr(workers, "_done", None)  # as in a new worker
    opened: list[str] = []
    first, second = (opened.append, ("a.sqlite3",)), (opened.append, ("b.sqlite3",))
    assert workers._perform(first, len, ("abc",)) == 3
    assert workers._perform(first, len, ("",)) == 0
    assert workers._perform(second, len, ("",)) == 0
    assert workers._perform(None, len, ("ab",)) == 2
    assert opened == ["a.sqlite3", "b.sqlite3"]


def test_the_workers_of_a_killed_bot_end_with_it(tmp_path: Path):
    import os
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import asyncio, os, sys\n"
        "import workers\n"
        "async def main():\n"
        "    await asyncio.gather(*(workers.run(os.getpid) for _ in range(4)))\n"
        "    print(' '.join(str(p.pid) for p in workers.pool()._processes.values()), flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n")
    root = Path(__file__).resolve().parent.parent
    bot = subprocess.Popen([sys.executable, "-c", script], cwd=root, stdout=subprocess.PIPE, text=True)
    try:
        assert bot.stdout is not None
        pids = [int(p) for p in bot.stdout.readline().split()]
        assert pids and all(_alive(p) for p in pids)
    finally:
        bot.send_signal(signal.SIGKILL)  # no clean-up of any kind
        bot.wait()
    give_up = time.monotonic() + 120  # each worker notices within a second or two; only a hang waits this long
    while any(_alive(p) for p in pids) and time.monotonic() < give_up:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids), "a killed bot left its map workers behind"
    assert os.getpid() not in pids


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie (exited, not yet reaped) is gone
        return f.read().split(")")[-1].split()[0] != "Z"


async def test_odds_of_huge_armies_are_approximated_and_say_so(tmp_path: Path):
    from engine.odds import approximate_odds
    from present.i18n import percent

    async with OfflineDiscord(make_bot(tmp_path / "g.db"), strict=True) as d:
        step = await d.send_command("alice", "general", "odds", {"attackers": 20_000, "defenders": 19_000})
        answer = step[-1]
        assert answer.ephemeral and "approximation" in answer.content and "1.0 percentage points" in answer.content
        assert percent(approximate_odds(20_000, 19_000).win, None, 1) in answer.content
        step = await d.send_command("alice", "general", "odds", {"attackers": 20_000, "defenders": 19_000},
                                    locale="no")
        assert "tilnærming" in step[-1].content and "1,0 prosentpoeng" in step[-1].content
        step = await d.send_command("alice", "general", "odds", {"attackers": 1_000_001, "defenders": 3})
        assert step[-1].ephemeral and "between 1 and 1,000,000" in step[-1].content
        step = await d.send_command("alice", "general", "odds", {"attackers": 30, "defenders": 20})
        assert "approximation" not in step[-1].content  # small battles: exact


def test_the_ai_judges_huge_battles_without_exact_odds(monkeypatch: Any):
    from conftest import new_game, position

    from engine import odds as odds_module
    from engine.ai import make_ai
    from engine.odds import QUICK_LIMIT

    real = odds_module.battle_odds
    asked: list[tuple[int, int]] = []

    def exact(a: int, d: int, stop_at: int = 1) -> Any:
        asked.append((a, d))
        assert a * d <= QUICK_LIMIT, f"exact odds of {a} against {d} on the event loop"
        return real(a, d, stop_at)

    monkeypatch.setattr(odds_module, "battle_odds", exact)
    board = load_map()
    mine = dict.fromkeys(board.territory_ids[:21], 0)
    game = position(new_game(2), mine, dict.fromkeys(board.territory_ids, 5000))
    action = make_ai("normal", salt="x").choose(game, 0)
    game.validate(action)  # a legal move, chosen on the approximation
