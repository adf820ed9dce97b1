"""Benchmark of custom maps on a drawn map of 100 territories (tests/mapdraw.py): render + encode at 1,600 px
against the bare encode of the same picture, PNG size, the first render (the static layer), and the import
of the map as a Domination ``.map`` and as Conquer Club XML (regions flooded from the picture); then the
imports of maps of 42, 110 and 180 territories on a 1000x700 picture, the ``.map`` drawn as community maps
are (a colour region image, lines of no territory between neighbours).

    .venv/bin/python bench/maps.py [--runs 60] [--imports 10] [--only-imports]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import mapdraw  # noqa: E402

from engine import Game  # noqa: E402
from engine.ai import choose_action  # noqa: E402
from mapfiles import install  # noqa: E402
from mapfiles.conquerclub import import_conquerclub  # noqa: E402
from mapfiles.domination import import_domination  # noqa: E402
from render import encode_png, render_map  # noqa: E402
from render.replay import last_action  # noqa: E402


def midgame(map_id: str, players: int = 8, turn: int = 10) -> tuple[object, list[dict]]:
    game, events = Game.new([(f"Player {i + 1}", "normal") for i in range(players)], "bench-seed",
                            {"map": map_id, "deployment": "auto"})
    while game.state.turn < turn and not game.over:
        events += game.apply(choose_action(game, game.state.current, "normal"))
    return game.state, events


def timed(work, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--imports", type=int, default=10)
    parser.add_argument("--only-imports", action="store_true", help="only the imports of 42, 110 and 180 "
                                                                      "territories")
    args = parser.parse_args()
    if args.only_imports:
        import_sizes(args.imports)
        return
    world = mapdraw.draw_world(blocks=(2, 2), cells=(5, 5), size=(1600, 1000), seed=5)

    map_text, files = mapdraw.domination_files(world, "hundred")
    import_s, package = timed(lambda: import_domination(map_text, files, "hundred.map"), args.imports)
    xml, picture = mapdraw.conquerclub_xml(world), mapdraw.png(mapdraw.conquerclub_picture(world))
    cc_s, _ = timed(lambda: import_conquerclub(xml, picture, name="hundred"), max(1, args.imports // 2))
    install(package)  # type: ignore[arg-type]
    state, events = midgame(package.id)  # type: ignore[attr-defined]
    highlight = last_action(events)

    t0 = time.perf_counter()
    img = render_map(state, highlight_events=highlight)
    first = time.perf_counter() - t0
    same = render_map(state, highlight_events=highlight)
    render_times, encode_times, bare_times = [], [], []
    size = 0
    for _ in range(args.runs):   # interleaved, so a busy machine slows all three alike
        t0 = time.perf_counter()
        img = render_map(state, highlight_events=highlight)
        t1 = time.perf_counter()
        data = encode_png(img)
        t2 = time.perf_counter()
        encode_png(same)
        t3 = time.perf_counter()
        render_times.append(t1 - t0)
        encode_times.append(t2 - t1)
        bare_times.append(t3 - t2)
        size = len(data)
    render_ms = statistics.median(render_times) * 1000
    encode_ms = statistics.median(encode_times) * 1000
    bare_ms = statistics.median(bare_times) * 1000
    print(f"map                 {len(package.board.territory_ids)} territories, 8 players, turn {state.turn}")  # type: ignore[attr-defined]
    print(f"image               {img.width}x{img.height}")
    print(f"first render        {first * 1000:.0f} ms (builds the map's static layer once per process)")
    print(f"render (median)     {render_ms:.1f} ms")
    print(f"encode (median)     {encode_ms:.1f} ms")
    print(f"render + encode     {render_ms + encode_ms:.1f} ms  (target < 60 ms)")
    print(f"bare encode         {bare_ms:.1f} ms")
    print(f"ratio               {(render_ms + encode_ms) / bare_ms:.2f}  (target < 1.5)")
    print(f"PNG bytes           {size} ({size / 1024:.0f} KB, target < 300 KB)")
    print(f"import .map         {import_s * 1000:.0f} ms  (median of {args.imports}; target < 2 s)")
    print(f"import Conquer Club {cc_s * 1000:.0f} ms  (regions flooded from the picture)")
    import_sizes(args.imports)


# Drawn maps of 42, 110 and 180 territories: islands (blocks) of territories (cells), on a 1000x700 picture.
SIZES = {42: ((2, 1), (7, 3)), 110: ((2, 1), (11, 5)), 180: ((4, 3), (5, 3))}


def import_sizes(runs: int) -> None:
    """The median import of each drawn size, as a ``.map`` drawn as community maps are and as Conquer
    Club XML flooded from its picture."""
    print(f"imports on a 1000x700 picture (median of {runs}; Conquer Club of {max(1, runs // 2)})")
    for count, (blocks, cells) in SIZES.items():
        world = mapdraw.draw_world(blocks=blocks, cells=cells, size=(1000, 700), seed=count)
        assert world.count == count
        map_text, files, _ = mapdraw.domination_real_files(world, "sized")
        map_s, package = timed(lambda: import_domination(map_text, files, "sized.map"), runs)  # noqa: B023
        xml, picture = mapdraw.conquerclub_xml(world), mapdraw.png(mapdraw.conquerclub_picture(world))
        cc_s, _ = timed(lambda: import_conquerclub(xml, picture, name="sized"), max(1, runs // 2))  # noqa: B023
        sea = len(package.board.sea_routes)  # type: ignore[attr-defined]
        print(f"  {count:3} territories  .map {map_s * 1000:5.0f} ms ({sea} sea routes)   "
              f"Conquer Club {cc_s * 1000:5.0f} ms")


if __name__ == "__main__":
    main()
