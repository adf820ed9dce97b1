"""Whole simulated games across settings, determinism, and the verifiable dice (the AI's strength, a statistic of
200 games, is measured by bench/ai_strength.py)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Game
from engine.dice import commitment, draw, roll
from engine.log import public_event, read_log, write_log
from engine.simulate import play_game
from engine.verify import Mismatch, verify_events

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = [
    {"deployment": dep, "cards": cards, "fortify": fort, "setup_batch": batch}
    for dep in ("claim", "deal", "auto") for cards in ("escalating", "fixed", "none")
    for fort, batch in (("adjacent", 1), ("connected", 3))
]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(str(v) for v in s.values()))
@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_simulated_games_finish_and_replay(settings, players):
    levels = ["normal", "easy"] * 3
    result = play_game(levels[:players], f"sim-{players}-{settings}", settings)
    s = result.game.state
    assert s.phase == "over" and s.winner is not None
    assert result.events[-1]["type"] == "game_over" and result.events[-1]["winner"] == s.winner
    replayed = Game.from_events(result.events, seed=s.seed)
    assert replayed.state.to_dict() == s.to_dict()
    verify_events(result.events)


def test_same_seed_and_actions_give_the_same_game():
    a = play_game(["normal", "easy", "easy", "normal"], "same")
    b = play_game(["normal", "easy", "easy", "normal"], "same")
    assert a.events == b.events
    c = play_game(["normal", "easy", "easy", "normal"], "different")
    assert a.events != c.events


def test_dice_are_uniform_and_deterministic():
    seed = "uniform"
    values = roll(seed, 0, 60_000)
    counts = [values.count(v) for v in range(1, 7)]
    assert all(9_500 < c < 10_500 for c in counts), counts
    assert roll(seed, 100, 5) == values[100:105]
    assert draw(seed, "shuffle", 3, 44) == draw(seed, "shuffle", 3, 44)
    assert commitment("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_verify_accepts_a_real_game_and_catches_tampering(tmp_path: Path):
    result = play_game(["normal", "normal", "easy"], "verify-me")
    path = tmp_path / "game.jsonl"
    write_log(path, result.events)
    out = subprocess.run([sys.executable, "-m", "engine.verify", str(path)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "OK"

    tampered = copy.deepcopy(result.events)
    battle = next(e for e in tampered if e["type"] == "battle")
    battle["defender_dice"][0] = 6 if battle["defender_dice"][0] != 6 else 5
    with pytest.raises(Mismatch, match="the seed gives"):
        verify_events(tampered)

    wrong_seed = copy.deepcopy(result.events)
    wrong_seed[-1]["seed"] = "0" * 64
    with pytest.raises(Mismatch, match="commitment"):
        verify_events(wrong_seed)

    skipped = [e for e in result.events if e is not battle]
    skipped = copy.deepcopy(result.events)
    first_battle = next(i for i, e in enumerate(skipped) if e["type"] == "battle")
    del skipped[first_battle]
    with pytest.raises(Mismatch):
        verify_events(skipped)

    unfinished = result.events[:-1]
    with pytest.raises(Mismatch, match="not finished"):
        verify_events(unfinished)

    write_log(path, tampered)
    out = subprocess.run([sys.executable, "-m", "engine.verify", str(path)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 1 and out.stdout.startswith("MISMATCH")


def test_public_view_hides_cards_deck_and_seed_until_the_end():
    result = play_game(["normal", "normal", "normal"], "hidden")
    events = result.events
    assert all("seed" not in e or e["type"] == "game_over" for e in events)
    assert events[0]["seed_commitment"] == commitment(result.game.state.seed)
    drawn = next(e for e in events if e["type"] == "card_drawn")
    assert public_event(drawn)["card"] is None
    assert public_event(drawn, game_over=True)["card"] == drawn["card"]
    shuffled = next(e for e in events if e["type"] == "deck_shuffled")
    assert public_event(shuffled)["cards"] is None
    text = json.dumps([public_event(e) for e in events[:-1]])
    assert result.game.state.seed not in text


def test_simulate_cli_writes_logs_and_summary(tmp_path: Path):
    out = subprocess.run(
        [sys.executable, "-m", "engine.simulate", "--players", "3", "--games", "3", "--seed", "7",
         "--ai", "normal,easy,easy", "--set", "cards=fixed", "--set", "fortify=connected", "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, check=True)
    assert "wins by seat" in out.stdout and "time per game" in out.stdout
    logs = sorted(tmp_path.glob("game-*.jsonl"))
    assert len(logs) == 3
    events = read_log(logs[0])
    assert events[0]["settings"]["cards"] == "fixed" and events[-1]["type"] == "game_over"
    bad = subprocess.run([sys.executable, "-m", "engine.simulate", "--set", "cards=lots"], cwd=ROOT,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "cards must be one of" in bad.stderr
