"""Write the example renders in docs/images/ from games played by the engine's AI.

    python -m tools.examples [--out docs/images]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import Event, Game, Player  # noqa: E402
from engine.ai import choose_action  # noqa: E402
from render import encode_png, render_map  # noqa: E402
from render.replay import last_action, timelapse, visible_to  # noqa: E402

NAMES = ["Anna", "Bjørn", "Çelik", "Dána", "Émile", "Fríða"]


def play(players: int, seed: str, *, until_turn: int | None = None, actions: int | None = None,
         settings: dict[str, Any] | None = None) -> tuple[Game, list[Event], list[Event]]:
    """Play with the normal AI; returns the game, its log and the events of the last attack that took a
    territory (for the highlight)."""
    seats: list[Player | tuple[str, str] | str] = [(n, "normal") for n in NAMES[:players]]
    game, events = Game.new(seats, seed, settings or {})
    done = 0
    while not game.over and (until_turn is None or game.state.turn < until_turn) and (
            actions is None or done < actions):
        events += game.apply(choose_action(game, game.state.current, "normal"))
        done += 1
    return game, events, last_action(events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)

    def save(name: str, img: Image.Image) -> None:
        (out / name).write_bytes(encode_png(img))
        print(out / name)

    game, _, hl = play(4, "docs-setup", actions=20)
    save("map-setup.png", render_map(game.state, highlight_events=hl))

    game, events, _ = play(6, "docs-mid", until_turn=14)
    hl = []
    for i in range(len(events) - 1, 0, -1):   # the last attack that took a territory
        if events[i]["type"] == "territory_conquered":
            hl = last_action(events[: i + 1])
            break
    save("map-midgame.png", render_map(game.state, highlight_events=hl))
    viewer = game.state.current
    save("map-fog.png", render_map(game.state, highlight_events=hl, viewer=viewer,
                                   visible=visible_to(game.state, viewer)))

    game, events, hl = play(2, "docs-two", until_turn=6)
    save("map-two-player.png", render_map(game.state, highlight_events=hl))

    game, events, hl = play(6, "docs-end")
    save("map-final.png", render_map(game.state, highlight_events=hl))
    data, ext = timelapse(events)
    print(f"timelapse of {len(events)} events: {len(data) // 1024} KB {ext} (not written)")


if __name__ == "__main__":
    main()
