"""A server's own maps: the map format (docs/maps.md), its validating loader, importers for the formats
players already have (Domination ``.map``, Conquer Club XML) and the registry that makes a map playable and
drawable. Every file here is untrusted input: sizes are capped, images are opened with pixel limits, and no
name from inside a file is ever used as a path."""

from .errors import MapFileError
from .package import MapPackage, load_package, read_package_dir, write_package_dir
from .registry import install

__all__ = ["MapFileError", "MapPackage", "install", "load_package", "read_package_dir", "write_package_dir"]
