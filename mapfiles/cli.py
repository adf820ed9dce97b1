"""``bot.py map import FILE [--out DIR]``: check a map or convert one from another format into ours.

FILE is one of our map files (``.json``, its pictures beside it), a Domination ``.map`` (the files its
``[files]`` section names beside it, and its ``MAP_nb.properties``, ``MAP_no.properties`` or
``MAP_es.properties`` of names if there are any) or Conquer Club XML (``.xml``, with ``--picture`` the map's large
picture, and optionally ``--regions`` a region image). The result is written to DIR (default: a folder named
after the map) as ``map.json``, ``regions.png`` and ``background.png``, with ``preview.png``, a render of the
map with every territory unowned.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .conquerclub import ImportNotes, import_conquerclub
from .domination import import_domination, parse_map_text, properties_names, read_text
from .errors import MapFileError
from .package import MapPackage, load_json_file, read_capped, sibling_files, write_package_dir


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``map import`` on a parser's subcommands."""
    p_map = subparsers.add_parser("map", help="custom maps: check or convert a map file")
    sub = p_map.add_subparsers(dest="map_command", required=True)
    p_import = sub.add_parser("import", help="check a map file, or convert a .map or Conquer Club .xml to ours")
    p_import.add_argument("file", type=Path, help="our .json, a Domination .map, or Conquer Club .xml")
    p_import.add_argument("--out", type=Path, help="folder to write the map to (default: one named after it)")
    p_import.add_argument("--picture", type=Path, help="Conquer Club: the map's large picture")
    p_import.add_argument("--regions", type=Path, help="Conquer Club: a region image (else regions are flooded "
                                                        "from each territory's coordinate)")


def import_file(path: Path, picture: Path | None = None, regions: Path | None = None,
                notes: ImportNotes | None = None) -> MapPackage:
    """The map in ``path`` as a checked package, whatever its format (by its extension); what an import
    had to leave out goes into ``notes``."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        return load_json_file(path)
    if suffix == ".map":
        blob = read_capped(path)
        named = dict(parse_map_text(read_text(blob, path.name), path.name).files)
        for beside in (path.name, named.get("crd")):   # names beside the map, missions beside its cards
            for language, names in properties_names(beside or "").items():
                named.update((f"{language}:{n}", n) for n in names if beside)
        return import_domination(blob, sibling_files(path, named), path.name)
    if suffix == ".xml":
        if picture is None:
            raise MapFileError("A Conquer Club map needs its picture: add --picture FILE.")
        return import_conquerclub(read_capped(path), read_capped(picture),
                                  read_capped(regions) if regions else None, name=path.stem, notes=notes)
    raise MapFileError("{name} is not a map file this bot reads (.json, .map or .xml).", name=path.name)


def preview(package: MapPackage) -> bytes:
    """A render of the map with nothing owned yet (the badges and names in place), as PNG."""
    from .previews import preview_png
    from .registry import install

    install(package)
    return preview_png(package.id)


def run(args: argparse.Namespace) -> int:
    notes = ImportNotes()
    try:
        package = import_file(args.file, args.picture, args.regions, notes)
    except MapFileError as exc:
        print(f"{args.file.name}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    folder = write_package_dir(package, args.out or Path(package.id))
    (folder / "preview.png").write_bytes(preview(package))
    board = package.board
    print(f"{board.title}: {len(board.territory_ids)} territories, {len(board.continents)} continents, "
          f"{board.border_count()} borders ({len(board.sea_routes)} across the sea), {len(board.missions)} "
          f"missions, {board.players[0]} to {board.players[1]} players; id {package.id}; written to {folder}")
    if notes.skipped:
        print(f"left out (bonuses our rules do not have): {', '.join(notes.skipped)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bot.py")
    add_commands(parser.add_subparsers(dest="command", required=True))
    return run(parser.parse_args(argv))
