"""Benchmark of the map renderer: median render time, median encode time, PNG size and the ratio
(render + encode) / (encode alone) on a mid-game six-player board; with ``--maps``, the preview of crowded
custom maps of 42, 110 and 180 territories (tests/crowdedmaps.py: rectangles to the map's edges, no anchors, no
open sea) drawn from nothing: the geometry, the layout of the words, the static layer, the preview's render and
encode, and what the layout did (names whole, abbreviated, numbered and named in the legend, left off;
continent names at sea, on plates, in the legend).

    .venv/bin/python bench/render.py [--runs 60] [--maps] [--map-runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from engine import Game
from engine.ai import choose_action
from render import encode_png, render_map
from render.replay import last_action


def midgame(turn: int = 14) -> tuple[object, list[dict]]:
    names = ["Anna", "Bjørn", "Çelik", "Dána", "Émile", "Fríða"]
    game, events = Game.new([(n, "normal") for n in names], "bench-seed", {})
    while game.state.turn < turn and not game.over:
        events += game.apply(choose_action(game, game.state.current, "normal"))
    return game.state, events


def crowded_previews(runs: int) -> None:
    """The preview of crowded maps drawn from nothing (no geometry or static layer built yet), medians."""
    import crowdedmaps

    from mapfiles import install, load_package
    from mapfiles.previews import preview_png
    from render import base
    from render.geometry import _others, geometry_for

    laid_out: list[float] = []
    localise = base.layout.localise_layout

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        out = localise(*args, **kwargs)
        laid_out.append(time.perf_counter() - t0)
        return out

    base.layout.localise_layout = timed   # type: ignore[assignment]
    print(f"{'territories':>11} {'geometry':>9} {'layout':>7} {'static':>7} {'preview':>8} {'total':>7}"
          f"  names whole/short/numbered/off  continents sea/plate/legend")
    for count, seed in ((42, 1), (110, 2), (180, 3)):
        world = crowdedmaps.crowded(count, size=(1600, 1000), seed=seed, gap=2)
        pkg = load_package(*crowdedmaps.our_files(world))
        install(pkg)
        times: dict[str, list[float]] = {k: [] for k in ("geometry", "static", "preview")}
        laid_out.clear()
        for _ in range(runs):
            _others.pop(pkg.id, None)  # nothing built yet: the geometry and the static layer are made anew
            base._layers.clear()
            t0 = time.perf_counter()
            geometry_for(pkg.id)
            t1 = time.perf_counter()
            layers = base.static_layers(pkg.board)
            t2 = time.perf_counter()
            preview_png(pkg.id)
            t3 = time.perf_counter()
            times["geometry"].append(t1 - t0)
            times["static"].append(t2 - t1)
            times["preview"].append(t3 - t2)
        lay = layers.layout
        assert lay is not None
        times["layout"] = laid_out
        med = {k: statistics.median(v) * 1000 for k, v in times.items()}
        whole = sum(1 for t, text in lay.texts.items() if text == pkg.board.territories[t].short)
        numbered = len(lay.keys)
        short = len(lay.texts) - whole - numbered
        off = count - len(lay.texts)
        plates, in_legend = len(lay.plates), len(lay.in_legend)
        sea = len(lay.continents) - plates
        total = med["geometry"] + med["static"] + med["preview"]
        print(f"{count:>11} {med['geometry']:>7.0f}ms {med['layout']:>5.0f}ms {med['static']:>5.0f}ms "
              f"{med['preview']:>6.0f}ms {total:>5.0f}ms  {whole:>5}/{short}/{numbered}/{off}"
              f"{'':>22}{sea}/{plates}/{in_legend}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--maps", action="store_true", help="the previews of crowded maps of 42, 110, 180 territories")
    parser.add_argument("--map-runs", type=int, default=3)
    args = parser.parse_args()
    if args.maps:
        crowded_previews(args.map_runs)
        return
    state, events = midgame()
    highlight = last_action(events)

    t0 = time.perf_counter()
    img = render_map(state, highlight_events=highlight)
    first = time.perf_counter() - t0
    encode_png(img)

    # Interleaved, so that a busy machine slows all three measurements alike. The bare encode encodes the
    # same image (rendered once beforehand) without rendering it.
    same = render_map(state, highlight_events=highlight)
    render_times, encode_times, bare_times = [], [], []
    size = 0
    for _ in range(args.runs):
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
    assert img.tobytes() == same.tobytes()

    render_ms = statistics.median(render_times) * 1000
    encode_ms = statistics.median(encode_times) * 1000
    bare_ms = statistics.median(bare_times) * 1000
    print(f"image               {img.width}x{img.height}")
    print(f"first render        {first * 1000:.0f} ms (builds the static layer once per process)")
    print(f"render (median)     {render_ms:.1f} ms")
    print(f"encode (median)     {encode_ms:.1f} ms")
    print(f"render + encode     {render_ms + encode_ms:.1f} ms")
    print(f"PNG bytes           {size} ({size / 1024:.0f} KB)")
    print(f"bare encode         {bare_ms:.1f} ms")
    print(f"ratio               {(render_ms + encode_ms) / bare_ms:.2f}  ((render + encode) / bare encode)")


if __name__ == "__main__":
    main()
