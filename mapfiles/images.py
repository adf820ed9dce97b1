"""Opening untrusted pictures: a cap on bytes and on pixels, decompression bombs refused, a few formats."""

from __future__ import annotations

import io
import warnings
from typing import cast

from PIL import Image, UnidentifiedImageError

from .errors import MapFileError

MAX_IMAGE_BYTES = 8 * 1024 * 1024       # one picture or region image
MAX_PIXELS = 16_000_000                 # width x height of a picture before it is scaled to the map's width
FORMATS = ("PNG", "GIF", "BMP", "JPEG", "WEBP")

Colour = tuple[int, int, int]


def open_image(blob: bytes, name: str) -> Image.Image:
    """The picture in ``blob`` (named ``name`` in messages), fully loaded, or a ``MapFileError``.

    The header is read first and the size checked before any pixel is decoded; Pillow's own bomb check
    (``Image.MAX_IMAGE_PIXELS``) is turned into a refusal too.
    """
    if len(blob) > MAX_IMAGE_BYTES:
        raise MapFileError("The picture {name} is larger than {limit} MB.", name=name,
                           limit=MAX_IMAGE_BYTES // (1024 * 1024))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(blob), formats=FORMATS)
            if img.width * img.height > MAX_PIXELS:
                raise MapFileError("The picture {name} has more than {limit} million pixels.", name=name,
                                   limit=MAX_PIXELS // 1_000_000)
            img.load()
    except MapFileError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise MapFileError("The picture {name} has more than {limit} million pixels.", name=name,
                           limit=MAX_PIXELS // 1_000_000) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as exc:
        raise MapFileError("{name} is not a picture (PNG, GIF, BMP, JPEG or WebP) that can be read.",
                           name=name) from exc
    return img


def png_bytes(img: Image.Image) -> bytes:
    out = io.BytesIO()
    img.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue()


def rgb_colours(rgb: Image.Image, maxcolors: int = 256) -> list[tuple[int, Colour]] | None:
    """``rgb.getcolors`` of an "RGB" image: (pixel count, colour) pairs, None if it has more than ``maxcolors``.
    Pillow declares a colour as a tuple or a number; an "RGB" image's are always three numbers."""
    return cast("list[tuple[int, Colour]] | None", rgb.getcolors(maxcolors=maxcolors))
