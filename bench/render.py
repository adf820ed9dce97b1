"""Benchmark of the map renderer: median render time, median encode time, PNG size and the ratio
(render + encode) / (encode alone) on a mid-game six-player board.

    .venv/bin/python bench/render.py [--runs 60]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=60)
    args = parser.parse_args()
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
