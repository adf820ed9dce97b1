"""Run the real ``bot.py`` against the fake Discord, and manage that process from a test.

As a script (the child process)::

    E2E_DISCORD_URL=http://127.0.0.1:PORT DISCORD_TOKEN=... python tests/e2e/launch.py --config CFG [bot.py args]

it points discord.py at the fake before anything connects, then runs ``bot.main()`` unchanged:

* ``discord.http.Route.BASE`` becomes ``http://127.0.0.1:PORT/api/v10``. Every REST call and every webhook call
  (interaction callbacks, follow-ups) builds its URL from it.
* ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` becomes ``ws://127.0.0.1:PORT/``. discord.py 2.7
  connects there directly (``Client.connect`` does not ask ``GET /gateway/bot``; only sharded clients do), adds
  ``?v=10&encoding=json&compress=zlib-stream`` itself, and accepts plain JSON text frames. A RESUME goes to the
  ``resume_gateway_url`` of READY, which the fake points back at itself; after INVALID_SESSION discord.py
  returns to ``DEFAULT_GATEWAY``.
* ``bot.create_bot`` is wrapped so that the bot it builds gets ``new_seed`` (reproducible dice seeds, see
  :func:`seed_for`, when ``E2E_SEED`` is set) and a short ``guild_ready_timeout`` (``E2E_GUILD_READY_TIMEOUT``,
  default 0.2 s; discord.py waits that long after the last GUILD_CREATE before ``on_ready``, 2 s by default).

The URL must be on 127.0.0.1; the launcher refuses anything else. None of this touches the production
configuration: the token comes from ``DISCORD_TOKEN``, the database from the ``--config`` file the test writes.

In the test process, :class:`BotProcess` writes that config, starts the child with its output in log files,
waits for it to be ready, kills it (SIGKILL), restarts it, and reads its peak memory.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = Path(__file__).resolve()
ALLOWED_HOST = "127.0.0.1"
READY_LINE = re.compile(r"logged in as ")
OPS_LINE = re.compile(r"ops listening on (http://[0-9.]+:\d+)")
# (in the text format, and in the JSON lines of --log-format json)
ERROR_LINE = re.compile(r'^\S+ \S+ (ERROR|CRITICAL)\b|^Traceback|^\{.*"level": "(ERROR|CRITICAL)"', re.MULTILINE)


def seed_for(base: str, number: int) -> str:
    """The dice seed of the ``number``-th game started by one bot process run with ``E2E_SEED=base``."""
    return hashlib.sha256(f"e2e:{base}:{number}".encode()).hexdigest()


# ---------------------------------------------------------------------------------------------- child side


def point_discord_at(url: str) -> None:
    """Make discord.py talk to the fake at ``url`` (``http://127.0.0.1:PORT``) instead of Discord."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname != ALLOWED_HOST or not parts.port:
        raise SystemExit(f"E2E_DISCORD_URL must be http://{ALLOWED_HOST}:PORT, not {url!r}")
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = f"http://{ALLOWED_HOST}:{parts.port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://{ALLOWED_HOST}:{parts.port}/")


def main(argv: Sequence[str] | None = None) -> int:
    url = os.environ.get("E2E_DISCORD_URL", "")
    if not url:
        raise SystemExit("E2E_DISCORD_URL is not set: this launcher only runs the bot against the fake Discord")
    point_discord_at(url)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import bot as bot_module

    base = os.environ.get("E2E_SEED")
    ready_timeout = float(os.environ.get("E2E_GUILD_READY_TIMEOUT", "0.2"))
    original = bot_module.create_bot

    def create_bot(config: Any = None, store: Any = None) -> Any:
        built = original(config, store)
        if base is not None:
            numbers = itertools.count()
            built.new_seed = lambda: seed_for(base, next(numbers))
        built._connection.guild_ready_timeout = ready_timeout
        return built

    bot_module.create_bot = create_bot
    args = list(sys.argv[1:] if argv is None else argv)
    profile = os.environ.get("E2E_PROFILE")
    if not profile:
        return int(bot_module.main(args))
    # Profiling (bench/load.py --profile): SIGTERM ends the run cleanly so the statistics get written.
    import cProfile

    def stop(*_: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    profiler = cProfile.Profile()
    try:
        return int(profiler.runcall(bot_module.main, args))
    finally:
        profiler.dump_stats(profile)


# ---------------------------------------------------------------------------------------------- test side


class BotProcess:
    """The bot as a child process against a fake Discord at ``url``, with its database in ``workdir``.

    Every start writes new log files (``run-N.out`` and ``run-N.err``); :meth:`stop` (or the ``with`` block)
    always kills the process.
    """

    def __init__(self, url: str, workdir: Path, *, token: str = "e2e-token", seed: str | None = "e2e",
                 database: Path | str | None = None, log_level: str = "INFO",
                 extra_env: dict[str, str] | None = None, settings: dict[str, object] | None = None,
                 sections: dict[str, dict[str, object]] | None = None) -> None:
        """``settings``: more keys for the bot's config.toml (limits, workers); ``sections``: its tables (``web``,
        ``ops``). The operator's listener takes any free port unless ``sections`` say otherwise (:meth:`ops_url`)."""
        if urlsplit(url).hostname != ALLOWED_HOST:
            raise ValueError(f"the fake Discord must be on {ALLOWED_HOST}")
        self.url = url
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.token = token
        self.seed = seed
        self.database = database or self.workdir / "risk.sqlite3"
        self.config = self.workdir / "config.toml"
        self.config.write_text(f"database = {json.dumps(str(self.database))}\nlog_level = {json.dumps(log_level)}\n"
                               + "".join(f"{k} = {json.dumps(v)}\n" for k, v in (settings or {}).items())
                               + "".join(f"[{name}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in table.items())
                                         for name, table in ({"ops": {"listen": f"{ALLOWED_HOST}:0"}}
                                                             | (sections or {})).items()),
                               encoding="utf-8")
        self.extra_env = dict(extra_env or {})
        self.proc: subprocess.Popen[bytes] | None = None
        self.runs = 0
        self.exit_codes: list[int | None] = []
        self.peak_kb: list[int] = []

    # -- files
    def out_path(self, run: int | None = None) -> Path:
        return self.workdir / f"run-{run or self.runs}.out"

    def err_path(self, run: int | None = None) -> Path:
        return self.workdir / f"run-{run or self.runs}.err"

    def stderr(self, run: int | None = None) -> str:
        path = self.err_path(run)
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def stdout(self, run: int | None = None) -> str:
        path = self.out_path(run)
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def all_stderr(self) -> str:
        return "".join(self.stderr(n) for n in range(1, self.runs + 1))

    def errors(self) -> list[str]:
        """ERROR lines and tracebacks the bot logged, over every run."""
        text = self.all_stderr()
        return [line for line in text.splitlines() if ERROR_LINE.search(line)]

    # -- life cycle
    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, *args: str, token: str | None = None) -> subprocess.Popen[bytes]:
        """Start ``bot.py [args]`` (no args: run the bot)."""
        if self.running:
            raise RuntimeError("the bot is already running")
        self.runs += 1
        # The database is the one of the config file written here, never DATABASE_URL of the test's environment.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("E2E_", "DISCORD_")) and k != "DATABASE_URL"}
        env.update(E2E_DISCORD_URL=self.url, DISCORD_TOKEN=token if token is not None else self.token,
                   PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1", **self.extra_env)
        if self.seed is not None:
            env["E2E_SEED"] = self.seed
        with self.out_path().open("wb") as out, self.err_path().open("wb") as err:
            self.proc = subprocess.Popen([sys.executable, str(LAUNCHER), "--config", str(self.config), *args],
                                         cwd=str(ROOT), env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        return self.proc

    async def wait_log(self, pattern: str | re.Pattern[str], timeout: float, *, run: int | None = None) -> str:
        """Wait until the run's stderr has a line matching ``pattern``; fail early if the process exits."""
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            text = self.stderr(run)
            match = regex.search(text)
            if match:
                return match.group(0)
            if self.proc is not None and self.proc.poll() is not None and (run is None or run == self.runs):
                raise RuntimeError(f"the bot exited with {self.proc.returncode} before logging {regex.pattern!r}:\n"
                                   + text[-3000:])
            if time.monotonic() > deadline:
                raise TimeoutError(f"the bot did not log {regex.pattern!r} within {timeout:g} s:\n" + text[-3000:])
            await asyncio.sleep(0.05)

    async def ops_url(self, timeout: float = 30.0) -> str:
        """The address of the current run's /healthz, /readyz and /metrics (from its log)."""
        line = await self.wait_log(OPS_LINE, timeout)
        match = OPS_LINE.search(line)
        assert match is not None
        return match.group(1)

    async def wait_ready(self, timeout: float = 30.0) -> None:
        """Wait for ``on_ready`` of the current run (the bot logs "logged in as ...")."""
        await self.wait_log(READY_LINE, timeout)

    async def wait_exit(self, timeout: float) -> int:
        """Wait for the process to end by itself; its exit code."""
        assert self.proc is not None
        proc = self.proc
        deadline = time.monotonic() + timeout
        while proc.poll() is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the bot did not exit within {timeout:g} s")
            await asyncio.sleep(0.05)
        self.exit_codes.append(proc.returncode)
        return int(proc.returncode)

    def peak_memory_kb(self) -> int | None:
        """The process's peak resident memory (VmHWM), while it runs."""
        if not self.running or self.pid is None:
            return None
        try:
            status = Path(f"/proc/{self.pid}/status").read_text(encoding="ascii")
        except OSError:
            return None
        match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
        return int(match.group(1)) if match else None

    def workers_memory_kb(self) -> int:
        """The peak resident memory (VmHWM) of the process's children (its map workers), summed."""
        if not self.running or self.pid is None:
            return 0
        total = 0
        for children in Path(f"/proc/{self.pid}/task").glob("*/children"):
            for child in children.read_text(encoding="ascii").split():
                try:
                    status = Path(f"/proc/{child}/status").read_text(encoding="ascii")
                except OSError:
                    continue
                match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
                total += int(match.group(1)) if match else 0
        return total

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) the process has used so far, while it runs."""
        if not self.running or self.pid is None:
            return None
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind, like a crash or a power cut of the process."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        peak = self.peak_memory_kb()
        if peak:
            self.peak_kb.append(peak)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        self.exit_codes.append(proc.returncode)

    async def restart(self, timeout: float = 30.0) -> None:
        self.kill()
        self.start()
        await self.wait_ready(timeout)

    def stop(self) -> None:
        """End the process whatever its state (SIGTERM, then SIGKILL after 5 s)."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        peak = self.peak_memory_kb()
        if peak:
            self.peak_kb.append(peak)
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        self.exit_codes.append(proc.returncode)

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def command_specs(workdir: Path) -> list[dict[str, Any]]:
    """The bot's command payload, from ``bot.py sync --dry-run`` (no network; a scratch database)."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "dry-run.toml"
    config.write_text(f"database = {json.dumps(str(workdir / 'dry-run.sqlite3'))}\nlog_level = \"WARNING\"\n",
                      encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("E2E_", "DISCORD_"))}
    done = subprocess.run([sys.executable, str(ROOT / "bot.py"), "--config", str(config), "sync", "--dry-run"],
                          cwd=str(ROOT), env=env, capture_output=True, timeout=60, check=True)
    specs = json.loads(done.stdout)
    assert isinstance(specs, list)
    return specs


if __name__ == "__main__":
    sys.exit(main())
