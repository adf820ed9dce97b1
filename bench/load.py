"""Load: many games at once against the real bot process, through the fake Discord on 127.0.0.1.

Run: ``.venv/bin/python bench/load.py --games 200 --seconds 120``. Each game has its own channel, scripted
humans (``--humans``) and the bot's AIs (``--ais``); all games open their lobbies and start together, then
play for ``--seconds``. Prints a markdown table: player commands per second, all game actions per second
(players and AIs, counted in the database), the time from an interaction sent to the bot's first response
(p50, p99) and to its complete answer, answers slower than Discord's 3 s deadline, the bot's peak memory
(VmHWM) and the errors. Results go in docs/e2e.md.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from discord_offline.fake_discord import CommandCatalog, FakeDiscord, Interaction  # noqa: E402
from e2e.launch import BotProcess, command_specs  # noqa: E402
from e2e.players import Table, latest_game  # noqa: E402

SETTINGS = {"deployment": "auto", "setup_batch": 10}


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def versions(tables: list[Table]) -> int:
    """Actions stored so far over every game (each action, a player's or an AI's, adds one version)."""
    total = 0
    for table in tables:
        snap = latest_game(table.db, table.channel.id)
        total += snap.version if snap is not None else 0
    return total


async def run(games: int, seconds: float, humans: int, ais: int, timeout: float, seed: str,
              think: float, buttons: float = 0.5, profile: Path | None = None, keep: bool = False) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="risk-load-"))
    try:
        return await _run(work, games, seconds, humans, ais, timeout, seed, think, buttons, profile)
    finally:
        if keep:
            print(f"database and logs kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


async def _run(work: Path, games: int, seconds: float, humans: int, ais: int, timeout: float, seed: str,
               think: float, buttons: float, profile: Path | None) -> dict[str, object]:
    catalog = CommandCatalog(command_specs(work / "commands"))
    async with FakeDiscord(commands=catalog, keep_files=False, history=5_000) as fake:
        bot = BotProcess(fake.url, work / "bot", seed=seed, settings={"games_per_server": games + 1},
                         extra_env={"E2E_PROFILE": str(profile)} if profile else None)
        tables = [Table(fake, bot.database, f"load-{n}", [f"p{n}-{h}" for h in range(humans)], ais=ais,
                        settings=SETTINGS, timeout=timeout, think=think, buttons=buttons) for n in range(games)]
        try:
            bot.start()
            await bot.wait_ready(60)
            started = time.monotonic()
            opened = await asyncio.gather(*(table.open() for table in tables), return_exceptions=True)
            setup_seconds = time.monotonic() - started
            failed_to_open = [repr(o) for o in opened if isinstance(o, BaseException)]
            playing = [t for t, o in zip(tables, opened, strict=True) if not isinstance(o, BaseException)]
            first_sent = {id(t): len(t.sent) for t in tables}
            before = versions(playing)
            bot_cpu_before = bot.cpu_seconds() or 0.0
            own_cpu_before = time.process_time()
            began = time.monotonic()
            results = await asyncio.gather(*(t.play(max_steps=1_000_000, seconds=seconds) for t in playing),
                                           return_exceptions=True)
            elapsed = time.monotonic() - began
            bot_cpu = (bot.cpu_seconds() or 0.0) - bot_cpu_before
            own_cpu = time.process_time() - own_cpu_before
            after = versions(playing)
            peak_kb = bot.peak_memory_kb()
            workers_kb = bot.workers_memory_kb()
            log_errors = bot.errors()
        finally:
            bot.stop()
        played: list[Interaction] = [i for t in playing for i in t.sent[first_sent[id(t)]:]]
        first = [i.latency for i in played if i.latency is not None]
        complete = [i.settled_at - i.sent_at for i in played if i.settled_at is not None]
        crashed = [repr(r) for r in results if isinstance(r, BaseException)]
        errors = failed_to_open + crashed + [e for t in tables for e in t.errors] + fake.problems + \
            [f"{c.route} -> {c.status}" for c in fake.rejected()] + log_errors
        commands = sum(1 for i in played if i.settled)
        windows = [0] * max(1, int(elapsed // 10))
        for i in played:
            if i.settled_at is not None and int((i.settled_at - began) // 10) < len(windows):
                windows[int((i.settled_at - began) // 10)] += 1
        late = collections.Counter(_kind(i.name) for i in played if i.latency is not None and i.latency > 1.0)
        return {
            "late by kind": ", ".join(f"{k} {n}" for k, n in late.most_common(5)) or "-",
            "games": games, "humans": humans, "ais": ais, "seconds": elapsed, "setup": setup_seconds,
            "finished": sum(1 for r in results if r == "over"), "commands": commands,
            "commands/s": commands / elapsed if elapsed else 0.0,
            "actions/s": (after - before) / elapsed if elapsed else 0.0,
            "p50": percentile(first, 0.50), "p99": percentile(first, 0.99),
            "p50 complete": percentile(complete, 0.50), "p99 complete": percentile(complete, 0.99),
            "late": sum(1 for x in first if x > 3.0), "unanswered": sum(1 for i in played if not i.answered),
            "peak MiB": (peak_kb or 0) / 1024, "workers MiB": workers_kb / 1024, "errors": errors,
            "mean first": statistics.fmean(first) if first else 0,
            "bot cpu": bot_cpu / elapsed if elapsed else 0.0, "own cpu": own_cpu / elapsed if elapsed else 0.0,
            "think": think, "windows": [w / 10 for w in windows],
        }


def _kind(name: str) -> str:
    """A command's name, or a button's verb (``risk:12:roll:…`` -> ``roll``)."""
    parts = name.split(":")
    return parts[2] if len(parts) > 2 and parts[0] in ("risk", "lobby") else parts[0]


def table(result: dict[str, object]) -> str:
    errors, windows = result["errors"], result["windows"]
    assert isinstance(errors, list) and isinstance(windows, list)
    rows = [
        ("games at once (channels)", f"{result['games']}"),
        ("seats per game", f"{result['humans']} scripted humans + {result['ais']} bot AIs"),
        ("pause before each player command", f"{result['think']:g} s"),
        ("lobbies opened and started in", f"{result['setup']:.1f} s"),
        ("played for", f"{result['seconds']:.1f} s ({result['finished']} games finished)"),
        ("player interactions answered (commands, buttons, menus)",
         f"{result['commands']} ({result['commands/s']:.1f}/s)"),
        ("player interactions/s over 10 s windows: min / median / max",
         f"{min(windows):.1f} / {statistics.median(windows):.1f} / {max(windows):.1f}"),
        ("game actions stored (players + AIs)", f"{result['actions/s']:.1f}/s"),
        ("first response p50 / p99", f"{result['p50']:.3f} s / {result['p99']:.3f} s"),
        ("complete answer p50 / p99", f"{result['p50 complete']:.3f} s / {result['p99 complete']:.3f} s"),
        ("first responses later than 3 s", f"{result['late']}"),
        ("first responses later than 1 s, by command or button", f"{result['late by kind']}"),
        ("unanswered interactions", f"{result['unanswered']}"),
        ("bot peak memory (VmHWM)", f"{result['peak MiB']:.0f} MiB"),
        ("its map workers' peak memory, summed", f"{result['workers MiB']:.0f} MiB"),
        ("CPU busy: bot / fake Discord and players", f"{result['bot cpu']:.0%} / {result['own cpu']:.0%} of a core"),
        ("errors", f"{len(errors)}"),
    ]
    lines = ["| measure | value |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)]
    return "\n".join(lines)


def rows(text: str) -> dict[str, str]:
    """A printed result table as measure -> value."""
    found = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] not in ("measure", "---"):
            found[cells[0]] = cells[1]
    return found


def compare(other: Path, argv: list[str]) -> int:
    """The same load on another checkout's bot, then on this one: one table, a column each."""
    import subprocess

    runs = []
    for root in (other.resolve(), ROOT):
        done = subprocess.run([sys.executable, str(root / "bench" / "load.py"), *argv], cwd=root,
                              capture_output=True, text=True)
        sys.stderr.write(done.stderr)
        runs.append(rows(done.stdout))
    names = list(dict.fromkeys([*runs[1], *runs[0]]))
    print(f"| measure | {other.name} | this checkout |\n|---|---|---|")
    for name in names:
        print(f"| {name} | {runs[0].get(name, '-')} | {runs[1].get(name, '-')} |")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games (channels) played at once (default 200)")
    parser.add_argument("--seconds", type=float, default=120.0, help="how long they play (default 120)")
    parser.add_argument("--humans", type=int, default=2, help="scripted humans per game (default 2)")
    parser.add_argument("--ais", type=int, default=2, help="bot AIs per game (default 2)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="longest wait for one answer before a game counts as stalled (default 120 s)")
    parser.add_argument("--seed", default="load", help="base of the dice seeds (default 'load')")
    parser.add_argument("--buttons", type=float, default=0.5,
                        help="share of the placing and occupying moves made with buttons and menus (default 0.5)")
    parser.add_argument("--keep", action="store_true", help="keep the bot's database and logs (a temporary folder)")
    parser.add_argument("--profile", type=Path, help="write the bot's cProfile statistics to this file")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds a player pauses before each command (default 0: as fast as answers come)")
    parser.add_argument("--compare", type=Path, metavar="CHECKOUT",
                        help="first run the same load against the bot in another checkout (its own bench/load.py), "
                             "then this one, and print both side by side")
    args = parser.parse_args(argv)
    if args.humans < 1 or args.humans + args.ais > 6 or args.humans + args.ais < 2:
        parser.error("a game has 2 to 6 seats and at least one scripted human")
    if args.compare:
        return compare(args.compare, [a for a in (argv if argv is not None else sys.argv[1:])
                                      if not a.startswith("--compare") and a != str(args.compare)])
    budget = args.seconds + 2 * args.timeout + 300  # set-up, the last answers, and start-up, at most
    result = asyncio.run(asyncio.wait_for(
        run(args.games, args.seconds, args.humans, args.ais, args.timeout, args.seed, args.think,
            args.buttons, args.profile, args.keep), budget))
    print(table(result))
    errors = result["errors"]
    assert isinstance(errors, list)
    for error in errors[:20]:
        print(f"- {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
