"""Benchmark of the images a whole game posts: every turn's panel image (the phone view, as the bot draws it for
the channel) and the final map (whole), in a simulated game of AIs. For each image: the smallest army number's
height when the image is shown 400 px wide (from the renderer's layout: the font drawn and the crop's scale),
the names' capital height there, the PNG's size and the time to render and encode it. The whole map at the
same moments is measured too, for comparison.

    .venv/bin/python bench/phone.py [--players 4] [--seed bench-phone] [--map classic] [--out DIR] [--every]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Game, GameState
from engine.ai import choose_action
from engine.fog import EVERYBODY
from present.drawing import PHONE, prepare
from render import encode_png, render_map, render_phone
from render.geometry import geometry_for
from render.phone import PHONE_WIDTH
from render.replay import last_action
from render.seats import seat_shape
from render.sprites import digit_height, number_font


def whole_number_px(state: GameState, map_id: str) -> float:
    """The smallest army number of the whole map (1600 px wide) shown 400 px wide."""
    geo = geometry_for(map_id)
    heights = [digit_height(number_font(seat_shape(owner), str(state.armies.get(t, 0)), geo.badge_size))
               for t, owner in state.owners.items()]
    return min(heights) * PHONE_WIDTH / geo.width


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", default="bench-phone")
    parser.add_argument("--map", default="classic")
    parser.add_argument("--out", type=Path, help="write every image here")
    parser.add_argument("--every", action="store_true", help="print a line for every image")
    args = parser.parse_args()
    names = ["Anna", "Bjørn", "Çelik", "Dána", "Émile", "Fríða"][: args.players]
    game, events = Game.new([(n, "normal") for n in names], args.seed, {"map": args.map})
    rows: list[tuple[str, float, float, float, float, float, float]] = []
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    render_phone(game.state)   # the static layer, once (as a warm worker has it)
    turn_started = len(events)
    while not game.over:
        # One turn of the current player.
        seat = game.state.current
        while not game.over and game.state.current == seat:
            events += game.apply(choose_action(game, game.state.current, "normal"))
        if game.over:
            break
        # The next player's panel: the board for the channel, the last action marked.
        state = game.state
        job = prepare(state, EVERYBODY, last_action(events[turn_started:]), kind=PHONE)
        turn_started = len(events)
        t0 = time.perf_counter()
        img, layout = render_phone(job.view, focus=dict(job.focus), highlight_events=list(job.highlight),
                                   labels=job.labels, visible=job.visible)
        data = encode_png(img)
        elapsed = (time.perf_counter() - t0) * 1000
        whole = encode_png(render_map(job.view, highlight_events=list(job.highlight), labels=job.labels))
        number = layout.shown(min(layout.number_heights().values()))
        name = f"turn {state.turn} panel" if state.turn else "setup panel"
        rows.append((name, number, layout.shown(layout.name_height()), len(data) / 1024,
                     elapsed, whole_number_px(job.view, args.map), len(whole) / 1024))
        if args.out:
            (args.out / f"panel-{len(rows):03d}-turn-{state.turn}.png").write_bytes(data)
    final = game.state
    t0 = time.perf_counter()
    data = encode_png(render_map(final, highlight_events=last_action(events)))
    elapsed = (time.perf_counter() - t0) * 1000
    number = whole_number_px(final, args.map)
    rows.append(("final map (whole)", number, 11 * PHONE_WIDTH / 1600, len(data) / 1024, elapsed, number,
                 len(data) / 1024))
    if args.out:
        (args.out / "final.png").write_bytes(data)

    print(f"{len(rows)} images ({len(rows) - 1} panels and the final map), {args.players} players, map {args.map}")
    header = "image", "number px @400", "name px @400", "KB", "ms", "whole: number px @400", "whole KB"
    print(" | ".join(header))
    for row in rows if args.every else [*rows[:3], rows[-1]]:
        print(f"{row[0]} | {row[1]:.1f} | {row[2]:.1f} | {row[3]:.0f} | {row[4]:.1f} | {row[5]:.1f} | {row[6]:.0f}")
    panels = rows[:-1]

    def summary(k: int) -> str:
        values = [r[k] for r in panels]
        return f"min {min(values):.1f}, median {statistics.median(values):.1f}, max {max(values):.1f}"

    print(f"panels: smallest number at 400 px: {summary(1)}")
    print(f"panels: names' capitals at 400 px: {summary(2)}")
    print(f"panels: KB: {summary(3)}; total {sum(r[3] for r in panels):.0f} KB")
    print(f"panels: render + encode ms: {summary(4)}")
    print(f"whole map at the same moments: smallest number at 400 px: {summary(5)}; KB: {summary(6)}")


if __name__ == "__main__":
    main()
