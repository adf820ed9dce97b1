"""Check a finished game's dice: ``python -m engine.verify GAME.jsonl`` prints ``OK`` or the first mismatch.

It checks that the revealed seed matches the commitment published at the start, that every die of every
battle (and of the roll for the first player) is the one the seed gives at that roll's index, that no roll
was skipped or repeated, that each battle's losses follow from its dice (ties to the defender), and that
every shuffle and deal (territories, cards, secret missions) is the one the seed gives.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import cast

from . import dice
from .cards import full_deck
from .errors import MapError
from .events import DeckShuffled, Event, GameStarted, TerritoriesDealt, WildsReturned
from .game import Game
from .log import read_log
from .mapoption import board_for
from .modes import MissionsMode
from .state import NEUTRAL, apply_event, initial_state


class Mismatch(Exception):
    pass


def _battle_losses(att: list[int], dfn: list[int]) -> tuple[int, int]:
    a = d = 0
    for x, y in zip(att, dfn, strict=False):
        if x > y:
            d += 1
        else:
            a += 1
    return a, d


def verify_events(events: Sequence[Event]) -> None:
    """Raise Mismatch with a description of the first problem; return quietly if the game checks out."""
    if not events or events[0].get("type") != "game_started":
        raise Mismatch("line 1: the log does not begin with game_started")
    started = cast(GameStarted, events[0])
    over = [e for e in events if e["type"] == "game_over"]
    if not over:
        raise Mismatch("the game is not finished: the seed is revealed only in game_over")
    seed = over[-1].get("seed")
    if not seed:
        raise Mismatch("game_over carries no seed")
    if dice.commitment(seed) != started["seed_commitment"]:
        raise Mismatch(f"the seed does not match the commitment {started['seed_commitment']}")
    state = initial_state(started, seed)
    game = Game(state)
    for line, event in enumerate(events[1:], start=2):
        where = f"line {line} ({event['type']})"
        fields = cast("Mapping[str, object]", event)  # roll_index: on any event that rolled dice
        if "roll_index" in fields and fields["roll_index"] != state.dice_index:
            raise Mismatch(f"{where}: roll index {fields['roll_index']}, expected {state.dice_index}")
        match event["type"]:
            case "battle":
                a, d = len(event["attacker_dice"]), len(event["defender_dice"])
                rolled = dice.roll(seed, event["roll_index"], a + d)
                att, dfn = sorted(rolled[:a], reverse=True), sorted(rolled[a:], reverse=True)
                if att != event["attacker_dice"] or dfn != event["defender_dice"]:
                    raise Mismatch(f"{where}: dice {event['attacker_dice']} vs {event['defender_dice']}, "
                                   f"the seed gives {att} vs {dfn}")
                if (event["attacker_losses"], event["defender_losses"]) != _battle_losses(att, dfn):
                    raise Mismatch(f"{where}: losses do not follow from the dice")
            case "first_player":
                index = event["roll_index"]
                for rnd in event["rounds"]:
                    for seat, value in rnd.items():
                        if dice.die(seed, index) != value:
                            raise Mismatch(
                                f"{where}: seat {seat} rolled {value}, the seed gives {dice.die(seed, index)}")
                        index += 1
            case "territories_dealt" | "deck_shuffled" | "wilds_returned":
                if _expected_shuffle(game, event) != event:
                    raise Mismatch(f"{where}: the shuffle is not the one the seed gives")
            case "missions_dealt":
                if MissionsMode.deal(game) != event:
                    raise Mismatch(f"{where}: the missions are not the ones the seed gives")
            case "armies_placed" if event.get("source") in ("random", "sealed") and "draws" in event:
                seats = None
                if event.get("source") == "sealed" or game.setup_round:
                    seats = game.setup_waiting() if event.get("source") == "sealed" else [NEUTRAL]
                expected_random = list(game._random_placements(seats, event.get("source", "random")))
                got = events[line - 1: line - 1 + len(expected_random)]
                if expected_random != got:
                    raise Mismatch(f"{where}: the random placements are not the ones the seed gives")
            case _:
                pass
        apply_event(state, event)


def _expected_shuffle(game: Game, event: TerritoriesDealt | DeckShuffled | WildsReturned) -> Event:
    s = game.state
    if event["type"] == "territories_dealt":
        return next(iter(game._deal(s.first_seat)))
    if event["type"] == "deck_shuffled" and event.get("from_discard"):
        return game.shuffle_event(event["type"], s.discard, from_discard=True)
    return game.shuffle_event(event["type"], full_deck(game.board, wilds=True))


def _map_of(events: Sequence[Event]) -> str | None:
    """The id of the map a log's game was played on (its first event says), None if it does not start a game."""
    first = events[0] if events else None
    return first["map"] if first is not None and first["type"] == "game_started" else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.verify", description=__doc__.split("\n")[0])
    parser.add_argument("log", help="a finished game's event log (JSON Lines, from /risk export)")
    parser.add_argument("--map", help="the custom map the game was played on: its map.json or package folder "
                                      "(see docs/maps.md)")
    args = parser.parse_args(argv)
    try:
        events = read_log(args.log)
        if args.map:
            board = board_for(args.map)
            played_on = _map_of(events)
            if played_on is not None and played_on != board.id:
                print(f"cannot use the map: the game was played on the map {played_on}, {args.map} is the map "
                      f"{board.id}", file=sys.stderr)
                return 2
        verify_events(events)
    except MapError as exc:
        print(f"cannot use the map: {exc}", file=sys.stderr)
        return 2
    except (Mismatch, ValueError, KeyError) as exc:
        print(f"MISMATCH: {exc}")
        return 1
    except OSError as exc:
        print(f"cannot read {args.log}: {exc}", file=sys.stderr)
        return 2
    print("OK")
    return 0


__all__ = ["NEUTRAL", "Mismatch", "main", "verify_events"]

if __name__ == "__main__":
    sys.exit(main())
