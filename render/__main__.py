"""Render a game from its event log.

    python -m render GAME.jsonl --out DIR [--turn N | --all] [--viewer SEAT] [--timelapse]

Without --turn or --all, renders the final state. Files are named map-turn-NNN.png (map-final.png for
the end), and timelapse.webp.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .mapview import encode_png, render_map
from .replay import last_action, read_log, render_turns, state_at_turn, timelapse, visible_to


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m render", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("log", type=Path, help="game event log (JSON Lines, one event per line)")
    parser.add_argument("--out", type=Path, default=Path("out"), help="output folder (default: out)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--turn", type=int, help="render the board at the end of this turn")
    which.add_argument("--all", action="store_true", help="render the board at the end of every turn")
    parser.add_argument("--viewer", type=int, help="fog of war as seen by this seat")
    parser.add_argument("--timelapse", action="store_true", help="also write an animated WebP of the game")
    args = parser.parse_args(argv)

    events = read_log(args.log)
    args.out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if args.all:
        for turn, img in render_turns(events, viewer=args.viewer):
            path = args.out / f"map-turn-{turn:03d}.png"
            path.write_bytes(encode_png(img))
            written.append(path)
    else:
        state, upto = state_at_turn(events, args.turn)
        img = render_map(state, highlight_events=last_action(upto), viewer=args.viewer,
                         visible=visible_to(state, args.viewer))
        name = f"map-turn-{args.turn:03d}.png" if args.turn is not None else "map-final.png"
        path = args.out / name
        path.write_bytes(encode_png(img))
        written.append(path)
    if args.timelapse:
        data, ext = timelapse(events)
        path = args.out / f"timelapse.{ext}"
        path.write_bytes(data)
        written.append(path)
    for path in written:
        print(f"{path} ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
