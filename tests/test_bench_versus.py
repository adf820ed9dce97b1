"""The benches that measure the hard AI against its frozen version 1 (``bench/ai_versus.py``) and tune its weights
(``bench/tune_hard.py``): ready-made AIs in ``play_game``'s seats, the old AI loaded only from its frozen bytes,
fair seatings, and a tuning run that records how its winner was found. A few games each: the strength itself is
measured by the benches."""

from __future__ import annotations

import json
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from engine import board as boards
from engine.actions import Action
from engine.ai import Memory, make_ai
from engine.ai.weights import Weights
from engine.game import Game
from engine.settings import Settings, assign_teams
from engine.simulate import Unfinished, play_game

sys.path.append(str(Path(__file__).resolve().parent.parent / "bench"))   # last: bench/ops.py is no package

import ai_versus
import tune_hard


class Counted:
    """An AI that counts its decisions, and falls back now and then as the new hard may."""

    def __init__(self, level: str, seat: int) -> None:
        self.ai = make_ai(level, salt=str(seat))
        self.decisions = 0
        self.fallbacks = 0

    def choose(self, game: Game, seat: int, memory: Memory | None = None) -> Action:
        self.decisions += 1
        self.fallbacks += self.decisions % 10 == 0
        return self.ai.choose(game, seat, memory)


def test_ready_made_ais_play_the_seats_as_their_levels_would():
    levels = ["normal", "easy", "normal"]
    ais = [Counted(level, seat) for seat, level in enumerate(levels)]
    given = play_game(levels, "versus:ready", ais=ais)
    by_level = play_game(levels, "versus:ready")
    assert given.events == by_level.events
    assert all(ai.decisions > 0 for ai in ais)
    assert sum(ai.decisions for ai in ais) == given.actions


def test_ready_made_ais_must_fill_every_seat():
    with pytest.raises(ValueError, match="2 AIs for 3 seats"):
        play_game(["normal"] * 3, "versus:short", ais=[make_ai("normal"), make_ai("normal")])


def test_a_game_out_of_actions_is_unfinished_not_an_ai_error():
    with pytest.raises(Unfinished):
        play_game(["normal", "normal"], "versus:cut", max_actions=20)


def test_the_old_ai_is_its_frozen_file_in_the_engine_package():
    old = ai_versus.frozen_hard()
    assert old.__module__ == ai_versus.FROZEN_MODULE
    assert old is not ai_versus.HardAI
    result = play_game(["hard", "hard"], "versus:old", ais=[old(), old()])   # every action legal, to the end
    assert result.game.state.winner in (0, 1)


def test_the_old_ai_is_refused_if_its_file_changed(tmp_path, monkeypatch):
    changed = tmp_path / "hard_v1.py"
    changed.write_bytes(ai_versus.FROZEN.read_bytes() + b"\n# one more line\n")
    monkeypatch.setattr(ai_versus, "FROZEN", changed)
    monkeypatch.delitem(sys.modules, ai_versus.FROZEN_MODULE, raising=False)
    with pytest.raises(ai_versus.FrozenChanged, match="not the frozen"):
        ai_versus.frozen_hard()
    assert ai_versus.FROZEN_MODULE not in sys.modules


@pytest.mark.parametrize("name", list(ai_versus.MATCHES))
def test_every_match_seats_the_new_ai_fairly(name):
    """Every game has the new AI and its opponents, the settings fit the players, and over two games (one seat
    a game over ``players`` games) every seat is the new AI's equally often; with teams the new seats are a team."""
    match = ai_versus.MATCHES[name]
    settings = Settings.from_dict(match.settings)
    settings.check_players(match.players)
    period = match.players if match.lineup == "one" else 2
    counts = [0] * match.players
    for i in range(period):
        roles = match.roles(i)
        assert len(roles) == match.players and ai_versus.NEW in roles and match.others in roles
        for seat, role in enumerate(roles):
            counts[seat] += role == ai_versus.NEW
        if settings.teams != "none":
            teams = assign_teams(settings, match.players)
            assert len({teams[s] for s, role in enumerate(roles) if role == ai_versus.NEW}) == 1
    assert len(set(counts)) == 1


def test_the_vs_old_goals_need_the_share_and_the_interval():
    match = ai_versus.MATCHES["new-vs-old-2p"]
    assert match.met(262, 400)            # 65.5%, interval from 60.7%
    assert not match.met(259, 400)        # 64.75%
    assert not match.met(14, 20)          # 70%, but the interval starts at 48.1%
    assert ai_versus.MATCHES["new-vs-5-normal"].met(240, 400)
    assert ai_versus.MATCHES["new-vs-old-3v3-fog"].met(0, 200)   # measured only


def test_fallbacks_are_summed_over_the_new_ais_that_count_them():
    a, b = Counted("normal", 0), Counted("normal", 1)
    a.decisions, a.fallbacks, b.decisions, b.fallbacks = 30, 2, 50, 1
    assert ai_versus.counters([a, b]) == (3, 80)
    assert ai_versus.counters([make_ai("normal")]) is None


def test_a_match_prints_its_line_with_two_processes(capsys):
    assert ai_versus.play_match("new-vs-old-2p", 2, jobs=2) is False   # 2 games never clear the interval
    line = capsys.readouterr().out.strip()
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[0] == "new-vs-old-2p" and cells[1] == "2" and cells[5] == "≥ 65%, low > 55%"
    assert cells[6] == "no" and cells[8] == "0" and int(cells[2]) in (0, 1, 2)


@pytest.mark.slow  # plays whole games (a second or more)
def test_the_budget_times_every_decision_and_turn_of_the_new_ai(capsys):
    line = ai_versus.BudgetLine("classic", "off", "one")
    spent = ai_versus.budget_game((line, 0))
    assert len(spent.decisions) > len(spent.turns) > 0
    assert sum(spent.turns) <= sum(spent.decisions)
    assert all(t >= 0 for t in spent.decisions)
    ai_versus.budgets(1, 1, [line])
    row = capsys.readouterr().out.splitlines()[-1]
    assert row.startswith("| classic | off | one new hard, five normal | 1 | ")


def test_the_drawn_map_has_180_territories(monkeypatch):
    monkeypatch.setattr(boards, "_registered", dict(boards._registered))   # registered for this test only
    assert len(boards.load_map(ai_versus.drawn_map_id()).territory_ids) == 180


def test_percentiles_by_nearest_rank():
    values = [float(x) for x in range(1, 101)]
    assert ai_versus.percentile(values, 50) == 50 and ai_versus.percentile(values, 99) == 99
    assert ai_versus.percentile(values, 100) == 100 and ai_versus.percentile([7.0], 99) == 7


def test_candidates_perturb_every_field_reproducibly():
    start = Weights().as_dict()
    first = tune_hard.candidates(3, 0.2, "seed", start)
    assert first == tune_hard.candidates(3, 0.2, "seed", start)
    assert first[0] == start and len(first) == 4
    assert first[1] != tune_hard.candidates(3, 0.2, "other", start)[1]
    for candidate in first[1:]:
        assert set(candidate) == {f.name for f in fields(Weights)}
        assert Weights().with_values(candidate).as_dict() == candidate
    assert tune_hard.candidates(2, 0.0, "seed", start)[1:] == [start, start]


def test_the_proxy_games_alternate_the_new_side():
    assert [tune_hard.proxy_game("2p", i) for i in range(2)] == [("new", "old"), ("old", "new")]
    mixed = [tune_hard.proxy_game("mixed", i) for i in range(4)]
    assert [len(r) for r in mixed] == [2, 6, 2, 6]
    assert mixed[0] != mixed[2] and mixed[1] != mixed[3]
    assert mixed[1].count("new") == 3


@pytest.mark.slow  # plays whole games (a second or more)
def test_a_tuning_run_halves_its_candidates_and_records_how_it_found_the_winner(tmp_path, monkeypatch, capsys):
    target = tmp_path / "hard_weights.json"
    monkeypatch.setattr(tune_hard.weights_module, "TUNED", target)
    argv = ["--candidates", "2", "--games", "1", "--proxy", "2p", "--seed", "test", "--write"]
    assert tune_hard.main(argv) == 0
    out = capsys.readouterr().out
    assert "stage 1: 1 games a candidate, 3 candidates, 3 games" in out
    assert "stage 2" not in out   # three halve to one
    data = json.loads(target.read_text())
    [found] = data["found"]
    assert found["command"].endswith("bench/tune_hard.py " + " ".join(argv))
    assert [s["games_per_candidate"] for s in found["stages"]] == [1]
    assert found["stages"][0]["seeds"] == "tune:test:stage:1"
    assert data["weights"] == pytest.approx(found["candidates"][found["winner"]])
    assert Weights().with_values(data["weights"])   # every name one of the fields
    # A second run on some of the fields: the others stay as they are, and both runs are on record.
    monkeypatch.setattr(tune_hard.Weights, "tuned", staticmethod(lambda: Weights().with_values(data["weights"])))
    again = ["--candidates", "2", "--games", "1", "--proxy", "2p", "--seed", "again", "--fields", "loss,margin",
             "--write"]
    assert tune_hard.main(again) == 0
    second = json.loads(target.read_text())
    assert [run["seed"] for run in second["found"]] == ["test", "again"]
    assert second["found"][1]["fields"] == "loss,margin"
    for candidate in second["found"][1]["candidates"]:
        assert {k: v for k, v in candidate.items() if k not in ("loss", "margin")} == pytest.approx(
            {k: v for k, v in data["weights"].items() if k not in ("loss", "margin")})
    with pytest.raises(SystemExit):
        tune_hard.main(["--fields", "nonsense"])
