"""The shape of the house: layers that do not know Discord, two front ends (cogs/, web/) that meet in present/, no
import circles, rooms of cogs/ that import no sibling, short files in cogs/."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "ratings", "competition", "store", "table", "render", "mapfiles", "present", "cogs", "web", "ops",
            "workers")
OFFLINE = ROOT / "packages" / "discord-offline" / "discord_offline"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def every_import(path: Path, root: Path = ROOT) -> set[str]:
    """Every module ``path`` imports, anywhere in it (type-checking imports included), the house's or not."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def imports_of(path: Path, root: Path = ROOT) -> set[str]:
    """Every module of the house that ``path`` imports, anywhere in it (type-checking imports included)."""
    return {m for m in every_import(path, root) if m.split(".")[0] in (*PACKAGES, "bot")}


def house(root: Path = ROOT) -> dict[str, set[str]]:
    """Each module of the house under ``root`` and the modules of the house it imports."""
    files = [p for pkg in PACKAGES for p in (root / pkg).rglob("*.py")]
    files += [root / "bot.py"] if (root / "bot.py").exists() else []
    modules = {module_name(p, root): p for p in files}
    return {name: {m for m in imports_of(path, root) if m in modules and m != name} for name, path in modules.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A circle of the graph ``edges`` (each node to the nodes it imports), as the path round it, or ``None``."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        path.pop()
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_circles_anywhere():
    graph = house()
    # A package's __init__ re-exporting its own modules is not a circle of the design: follow only real modules.
    edges = {m: {n for n in deps if not (graph.get(n) is not None and m.startswith(n + "."))}
             for m, deps in graph.items()}
    cycle = find_cycle(edges)
    assert cycle is None, " -> ".join(cycle)


# The instruments every floor may use: they import nothing of the house (checked below), so they close no circle.
INSTRUMENTS = ("ops.metrics", "ops.logs")


def floor_of(module: str) -> str:
    """The node of the package graph a module belongs to: its top-level package, except a package's command line
    (``render/__main__.py``: a program, imported by nothing, on the top floor as ``bot.py`` is) and the
    instruments, which stand on their own."""
    if module.endswith(".__main__") or module in INSTRUMENTS:
        return module
    return module.partition(".")[0]


def packages_of(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, deps in graph.items():
        # ``from ops import metrics`` imports the module, not the rest of its package
        modules = {d for d in deps if not any(other.startswith(d + ".") for other in deps)}
        edges.setdefault(floor_of(module), set()).update(floor_of(d) for d in modules)
    return {node: deps - {node} for node, deps in edges.items()}


def test_no_import_circles_between_packages():
    """Packages stand on floors: each imports only the ones below it (``workers`` and ``engine`` on the ground)."""
    graph = house()
    for instrument in INSTRUMENTS:
        assert not graph[instrument], (instrument, graph[instrument])
    cycle = find_cycle(packages_of(graph))
    assert cycle is None, " -> ".join(cycle)


def test_a_circle_between_packages_is_found():  # planted: no module circle, but two packages that import each other
    planted = {"store.logs": {"render.workers"}, "render.workers": set(), "render.__main__": {"store.maps"},
               "render.mapview": {"store.maps"}, "store.maps": set(), "ops.metrics": set(),
               "table.flow": {"ops", "ops.metrics"},
               "ops.cli": {"table.flow"}}
    assert find_cycle(planted) is None
    assert find_cycle(packages_of(planted)) == ["render", "store", "render"]
    del planted["render.mapview"]  # a command line and the instruments close no circle
    assert find_cycle(packages_of(planted)) is None


def test_only_the_discord_layer_knows_discord():
    for package in ("engine", "ratings", "competition", "store", "table", "render"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "import discord" not in text and "from discord" not in text, path
            assert "from cogs" not in text and "import cogs" not in text, path


def test_the_offline_discord_knows_no_bot():  # its own package: any discord.py bot can use it
    for path in OFFLINE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        names |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and not node.level}
        assert not {n for n in names if n.split(".")[0] in (*PACKAGES, "bot", "tests", "e2e")}, path
        assert "risk" not in path.read_text(encoding="utf-8").lower(), path


RENDERS = {"render_map", "encode_png", "draw_png", "render_report", "encode_report", "draw_report", "game_timelapse",
           "thumbnail", "contact_sheet", "preview_png", "sheet_png", "warm_up", "render_phone", "draw_phone_png",
           "render_rating_chart", "draw_rating_chart", "render_standings", "standings_image"}


def test_the_discord_layer_draws_nothing_itself():  # every render is handed to a worker process by name
    for path in (ROOT / "cogs").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                assert name not in RENDERS, f"{path.name}:{node.lineno} calls {name} in the bot's process"


def test_the_discord_layer_is_split_by_job():
    for path in (ROOT / "cogs").rglob("*.py"):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= 400, f"{path.name} has {lines} lines"


def test_only_the_announcer_posts_to_a_channel():  # through its per-channel queue (postbox.py)
    senders = sorted(p.name for p in (ROOT / "cogs").rglob("*.py")
                     if ".send(" in p.read_text(encoding="utf-8").replace("followup.send(", "")
                     .replace("response.send(", ""))
    assert senders == ["announcer.py", "postbox.py"], senders
    announcer = (ROOT / "cogs" / "shared" / "announcer.py").read_text(encoding="utf-8")
    assert ".channel(" not in announcer and "get_partial_messageable" not in announcer  # all through the queue


def test_only_the_table_changes_games():
    """The Discord layer reads the store (``StoreReader``); every write is a ``Table`` method."""
    from store import Store, StoreReader

    writes = {name for name in Store.__abstractmethods__ if name not in StoreReader.__abstractmethods__}
    assert {"create_lobby", "join", "change", "pause", "set_deadline", "mark_announced"} <= writes
    for path in (ROOT / "cogs").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in writes:
                owner = node.func.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                assert name != "store", f"{path.relative_to(ROOT)}:{node.lineno} calls store.{node.func.attr}"


def test_the_discord_layer_is_grouped_in_rooms():
    """Every module of cogs/ sits in a room by feature or in the shared plumbing; only the cog's assembly and the
    package itself are at the top."""
    top = sorted(p.name for p in (ROOT / "cogs").glob("*.py"))
    assert top == ["__init__.py", "risk.py"], top
    rooms = sorted(p.name for p in (ROOT / "cogs").iterdir() if p.is_dir() and p.name != "__pycache__")
    assert rooms == ["game", "maps", "play", "records", "shared", "tournament"], rooms


ROOMS = ("game", "maps", "play", "records", "tournament")


def room_of(module: str) -> str | None:
    """The room of cogs/ a module is in (``shared`` for the plumbing), None outside the rooms (``cogs.risk``, which
    assembles the cog from the rooms)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "cogs" and len(parts) > 1 and parts[1] in (*ROOMS, "shared") else None


def rooms_crossed(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The modules of cogs/ that import a module of another room: a room imports ``present/``, ``table/`` and
    ``cogs/shared`` only, never a sibling, and ``cogs/shared`` imports no room (the rooms hand it what it needs)."""
    crossed: dict[str, set[str]] = {}
    for module, deps in graph.items():
        room = room_of(module)
        if room is None:
            continue
        found = {d for d in deps if room_of(d) not in (None, "shared", room)}
        if found:
            crossed[module] = found
    return crossed


def importers_of(root: Path, packages: tuple[str, ...], forbidden: tuple[str, ...]) -> dict[str, set[str]]:
    """The modules of ``packages`` under ``root`` that import ``forbidden`` packages (or anything in them)."""
    found: dict[str, set[str]] = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            bad = {m for m in every_import(path, root) if m.split(".")[0] in forbidden}
            if bad:
                found[module_name(path, root)] = bad
    return found


def test_no_room_imports_a_sibling_and_the_shared_plumbing_imports_no_room():
    assert rooms_crossed(house()) == {}


def test_the_presentation_and_the_board_know_no_discord():
    """present/ (words, names, event lines, refusals, maps) and web/ (the live board) are Discord-free: the Discord
    layer is one front end of two."""
    assert importers_of(ROOT, ("present", "web"), ("discord",)) == {}


def test_the_board_and_the_words_import_nothing_of_the_discord_layer():
    assert importers_of(ROOT, ("web",), ("cogs",)) == {}
    assert importers_of(ROOT, ("present",), ("cogs", "web", "bot")) == {}


def plant(root: Path, files: dict[str, str]) -> Path:
    """A tree of modules under ``root`` (each package with its ``__init__.py``), for a rule to find a fault in."""
    for name, text in files.items():
        path = root / name
        for folder in reversed(path.relative_to(root).parents):
            if folder != Path("."):
                (root / folder).mkdir(exist_ok=True)
                (root / folder / "__init__.py").touch()
        path.write_text(text, encoding="utf-8")
    return root


def test_a_room_importing_a_sibling_or_the_plumbing_a_room_is_found(tmp_path):  # planted
    root = plant(tmp_path, {
        "cogs/game/lobby.py": "from cogs.shared import guards\nfrom present.text import describe\n",
        "cogs/game/control.py": "from cogs.game.lobby import x\nfrom cogs.play.panel import controls\n",
        "cogs/play/panel.py": "from ..shared.components import GameButton\n",
        "cogs/shared/guards.py": "", "cogs/shared/components.py": "",
        "cogs/shared/live.py": "if TYPE_CHECKING:\n    from ..play import panel\n",
        "present/text.py": "",
    })
    assert rooms_crossed(house(root)) == {"cogs.game.control": {"cogs.play.panel"},
                                          "cogs.shared.live": {"cogs.play", "cogs.play.panel"}}


def test_discord_or_the_discord_layer_in_the_presentation_or_the_board_is_found(tmp_path):  # planted
    root = plant(tmp_path, {
        "present/names.py": "import re\nfrom engine.board import plain_text\n",
        "present/drawing.py": "from discord.utils import escape_markdown\n",
        "web/board.py": "from present import verbs\n",
        "web/setup.py": "if TYPE_CHECKING:\n    from discord.ext import commands\n"
                        "from cogs.shared.board import BoardButton\n",
        "web/server.py": "from .board import view\n",
    })
    assert importers_of(root, ("present", "web"), ("discord",)) == {
        "present.drawing": {"discord.utils", "discord.utils.escape_markdown"},
        "web.setup": {"discord.ext", "discord.ext.commands"}}
    assert importers_of(root, ("web",), ("cogs",)) == {"web.setup": {"cogs.shared.board",
                                                                      "cogs.shared.board.BoardButton"}}


def test_a_circle_between_packages_in_a_tree_is_found(tmp_path):  # planted: present and cogs importing each other
    root = plant(tmp_path, {
        "present/wording.py": "from cogs.shared.substitute_news import queue_part\n",
        "cogs/shared/substitute_news.py": "from present.text import seat_name\n",
        "present/text.py": "",
    })
    graph = house(root)
    assert find_cycle(graph) is None  # no circle of modules
    assert find_cycle(packages_of(graph)) == ["cogs", "present", "cogs"]


# The store reads and writes; the table and the ratings decide. store/ takes nothing from table/ or ratings/: the
# rebuild of every rating is decided in ``table/results.py`` and handed to the store (``rebuild_ratings``, and the
# historical migrations' backfills through ``SQLiteStore(rebuild=...)``); the reads' thresholds (the games before
# a rating is shown, the early turns of an abandon) are their callers' parameters. The list may only shrink: it is
# empty.
STORE_FROM_RATINGS: dict[str, set[str]] = {}


def store_imports() -> dict[str, set[str]]:
    """Every module and name of the house each module of store/ imports."""
    return {module_name(path): imports_of(path) for path in (ROOT / "store").rglob("*.py")}


def new_store_imports(imported: dict[str, set[str]]) -> dict[str, set[str]]:
    """What modules of store/ take from table/ or ratings/ beyond ``STORE_FROM_RATINGS``."""
    return {module: new for module, found in imported.items() if module.split(".")[0] == "store"
            if (new := {d for d in found if d.split(".")[0] in ("table", "ratings")}
                - STORE_FROM_RATINGS.get(module, set()))}


def test_the_store_decides_nothing():
    """store/ imports nothing of table/, and of ratings/ only what is listed above (it may only shrink): the rules,
    the ratings and the seasons' ends are decided above it, and written through it."""
    assert new_store_imports(store_imports()) == {}


def test_a_store_module_taking_from_the_table_or_the_ratings_is_found():  # planted
    planted = {"store.sql": {"store.change", "engine", "table.play", "table.play.Plays"},
               "store.results": {"ratings", "ratings.MIN_GAMES", "ratings.rate_game"},
               "store.change": {"store.records"}, "table.play": {"store.change", "ratings"}}
    assert new_store_imports(planted) == {"store.sql": {"table.play", "table.play.Plays"},
                                          "store.results": {"ratings", "ratings.MIN_GAMES", "ratings.rate_game"}}


def test_the_event_loop_never_reads_a_whole_log():
    """A game's log grows with the game: the bot's processes (the Discord layer, the table, the board server)
    read it whole only in the log's worker (``store.with_log``); on the event loop they read events since a
    point (``since_seq``), which a turn or a board's last update bounds."""
    for pkg in ("cogs", "table", "web"):
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr == "events" and getattr(node.func.value, "attr", "") == "store":
                    bounded = len(node.args) > 1 or any(k.arg == "since_seq" for k in node.keywords)
                    assert bounded, f"{path.relative_to(ROOT)}:{node.lineno} reads a whole log on the event loop"


def test_tournament_logic_is_pure():  # competition/ pairs and ranks; the flow around it lives in table/ and cogs/
    graph = house()
    for module, deps in graph.items():
        if module.split(".")[0] == "competition":
            assert {d.split(".")[0] for d in deps} <= {"competition", "ratings"}, (module, deps)
    for path in (ROOT / "competition").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import random" not in text and "datetime" not in text and "time." not in text, path
