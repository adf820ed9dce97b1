"""Benchmark of ``/risk map list`` on a server with the most maps it keeps (25): the CPU time of drawing its sheet
of thumbnails, as a render worker does it, before and after thumbnails were kept.

Before, the sheet built each map's whole geometry (from the database: the map checked again, then its badges'
places found) to draw a thumbnail, and a worker keeps only 16 geometries, so with 25 maps every list built all of
them again. Now a thumbnail is drawn once, from the stored region image alone, and the bot keeps it by map id.

    .venv/bin/python bench/map_list.py [--maps 25] [--runs 3] [--cells 3]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import mapdraw  # noqa: E402

from engine import builtin_maps, load_map  # noqa: E402
from mapfiles import load_package  # noqa: E402
from mapfiles.previews import _board, sheet_png  # noqa: E402
from mapfiles.registry import use_database  # noqa: E402
from mapfiles.upload import contact_sheet, thumbnail  # noqa: E402
from render import geometry  # noqa: E402
from store import open_store  # noqa: E402

GUILD = 1


async def store_maps(path: Path, count: int, cells: int) -> list[tuple[str, str]]:
    """``count`` drawn maps of 4 x ``cells``² territories at 1,600 x 1,000, stored for one server: their ids and
    names."""
    out = []
    async with await open_store(path) as store:
        for seed in range(count):
            world = mapdraw.draw_world(blocks=(2, 2), cells=(cells, cells), size=(1600, 1000), seed=100 + seed)
            data, files = mapdraw.our_files(world)
            package = load_package(data, files)
            await store.add_map(GUILD, package.id, f"Map {seed + 1}", 7, package.files())
            out.append((package.id, f"Map {seed + 1}"))
    return out


def old_sheet(maps: list[tuple[str, str]]) -> bytes:
    """The sheet as it was drawn before: every thumbnail from the map's whole geometry."""
    return contact_sheet([(caption, thumbnail(geometry.geometry_for(map_id), _board(map_id)))
                          for map_id, caption in maps])


def cpu(work) -> tuple[float, object]:
    t0 = time.process_time()
    result = work()
    return time.process_time() - t0, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--maps", type=int, default=25)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cells", type=int, default=3, help="each map has 4 x CELLS² territories (3: 36)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "maps.sqlite3"
        stored = asyncio.run(store_maps(path, args.maps, args.cells))
        use_database(path)   # as each render worker does
        maps = [(m, load_map(m).title) for m in builtin_maps()] + stored
        geometry.geometry_for("classic")   # the classic map's layers are warm in any worker

        before = [cpu(lambda: old_sheet(maps))[0] for _ in range(args.runs)]
        kept: dict[str, bytes] = {}
        after = []
        for _ in range(args.runs):
            seconds, (_sheet, drawn) = cpu(lambda: sheet_png([(m, c, kept.get(m)) for m, c in maps]))
            kept.update(drawn)
            after.append(seconds)
    print(f"maps on the sheet   {len(maps)} ({args.maps} of the server's, of {4 * args.cells ** 2} territories; "
          f"{len(maps) - args.maps} built in)")
    print("before: each list   " + ", ".join(f"{s:.2f} s" for s in before) + " CPU (every geometry built again)")
    print("after: first list   " + f"{after[0]:.2f} s CPU (each thumbnail drawn once, from the stored files)")
    print("after: next lists   " + ", ".join(f"{s:.3f} s" for s in after[1:]) + " CPU (the kept thumbnails)")


if __name__ == "__main__":
    main()
