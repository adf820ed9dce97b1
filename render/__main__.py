"""Render a game from its event log.

    python -m render GAME.jsonl --out DIR [--turn N | --all] [--viewer SEAT] [--timelapse]
                                [--map FILE|ID] [--database DB]

Without --turn or --all, renders the final state. Files are named map-turn-NNN.png (map-final.png for
the end), and timelapse.webp. A game on a custom map needs the map: --map names its map.json (or the folder of
its package, with its pictures), or --database the bot's database that stores it (--map ID: which stored map;
without it, the one the game was played on).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine import MapError, load_map
from engine.events import Event
from engine.mapoption import map_file
from mapfiles.errors import MapFileError

from .mapview import encode_png, render_map
from .replay import last_action, read_log, render_turns, state_at_turn, timelapse, visible_to


def use_map(events: list[Event], text: str | None, database: str | None) -> None:
    """Make the map of the log's game drawable: a package's file or folder, a map stored in ``database``, or a
    built-in map's id. Raises ``MapError`` (or the map files' own error) with what is wrong."""
    from mapfiles.package import load_json_file
    from mapfiles.registry import install, install_files, use_database
    from store.maps import read_map_files

    played_on = events[0]["map"] if events and events[0]["type"] == "game_started" else None
    if database is not None:
        map_id = text or played_on or "classic"
        files = read_map_files(database, map_id)
        if files is None:
            raise MapError("there is no map {map} stored in {database}", map=map_id, database=database)
        use_database(database)
        board = install_files(files)
    elif text is not None and (path := map_file(text)) is not None:
        package = load_json_file(path)
        install(package)
        board = package.board
    else:
        board = load_map(text or played_on or "classic")
    if played_on is not None and board.id != played_on:
        raise MapError("the game was played on the map {played}, not on {map}", played=played_on, map=board.id)


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
    parser.add_argument("--map", help="a custom map: its map.json or package folder; with --database, the id of a "
                                      "map stored there")
    parser.add_argument("--database", help="the bot's database (a SQLite file or a postgresql:// URL) that stores "
                                           "the game's map")
    args = parser.parse_args(argv)

    events = read_log(args.log)
    try:
        use_map(events, args.map, args.database)
    except (MapError, MapFileError) as exc:
        print(f"cannot use the map: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"cannot read the map: {exc.strerror or exc}", file=sys.stderr)
        return 2
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
