"""Tests for engine.odds (exact Risk battle odds)."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.odds import BattleOdds, battle_odds, main, roll_outcomes

REPO_ROOT = Path(__file__).resolve().parent.parent
TOL = 1e-9


# --------------------------------------------------------------------------- brute force reference


@cache
def _bf_roll(attacker_dice: int, defender_dice: int) -> dict[tuple[int, int], Fraction]:
    """Independent exact single-roll distribution: compare each ordered die pair directly."""
    total = 6 ** (attacker_dice + defender_dice)
    out: dict[tuple[int, int], Fraction] = {}
    for att in itertools.product(range(1, 7), repeat=attacker_dice):
        for dfn in itertools.product(range(1, 7), repeat=defender_dice):
            a_sorted = sorted(att)[::-1]
            d_sorted = sorted(dfn)[::-1]
            a_loss = d_loss = 0
            for x, y in zip(a_sorted, d_sorted, strict=False):
                if x > y:
                    d_loss += 1
                else:
                    a_loss += 1
            out[a_loss, d_loss] = out.get((a_loss, d_loss), Fraction(0)) + Fraction(1, total)
    return out


@cache
def _bf_battle(source: int, defenders: int, stop_at: int) -> dict[tuple[int, int], Fraction]:
    """Exact terminal distribution over (map-terms source armies, defenders) by recursion."""
    if defenders == 0 or source <= stop_at:
        return {(source, defenders): Fraction(1)}
    result: dict[tuple[int, int], Fraction] = {}
    for (a_loss, d_loss), p in _bf_roll(min(3, source - 1), min(2, defenders)).items():
        for state, q in _bf_battle(source - a_loss, defenders - d_loss, stop_at).items():
            result[state] = result.get(state, Fraction(0)) + p * q
    return result


class _Ref(NamedTuple):
    win: Fraction
    exp_a: Fraction
    exp_d: Fraction
    att: dict[int, Fraction]
    dfn: dict[int, Fraction]


def _bf_summary(source: int, defenders: int, stop_at: int = 1) -> _Ref:
    dist = _bf_battle(source, defenders, stop_at)
    att: dict[int, Fraction] = {}
    dfn: dict[int, Fraction] = {}
    for (a, d), p in dist.items():
        att[a] = att.get(a, Fraction(0)) + p
        dfn[d] = dfn.get(d, Fraction(0)) + p
    return _Ref(
        win=dfn.get(0, Fraction(0)),
        exp_a=sum((a * p for a, p in att.items()), Fraction(0)),
        exp_d=sum((d * p for d, p in dfn.items()), Fraction(0)),
        att=att,
        dfn=dfn,
    )


def _assert_dist_close(actual: dict[int, float], expected: dict[int, Fraction]) -> None:
    for key in set(actual) | set(expected):
        assert actual.get(key, 0.0) == pytest.approx(float(expected.get(key, 0)), abs=TOL), key


# --------------------------------------------------------------------------- single rolls


def test_roll_3_vs_2_exact() -> None:
    out = roll_outcomes(3, 2)
    assert set(out) == {(2, 0), (1, 1), (0, 2)}
    assert abs(out[2, 0] - 2275 / 7776) < 1e-12
    assert abs(out[0, 2] - 2890 / 7776) < 1e-12
    assert abs(out[1, 1] - 2611 / 7776) < 1e-12


def test_roll_1_vs_1() -> None:
    out = roll_outcomes(1, 1)
    assert abs(out[0, 1] - 15 / 36) < 1e-12
    assert abs(out[1, 0] - 21 / 36) < 1e-12


def test_roll_2_vs_1() -> None:
    out = roll_outcomes(2, 1)
    assert abs(out[0, 1] - 125 / 216) < 1e-12
    assert abs(out[1, 0] - 91 / 216) < 1e-12


@pytest.mark.parametrize(("a_dice", "d_dice"), list(itertools.product((1, 2, 3), (1, 2))))
def test_roll_outcomes_match_brute_force(a_dice: int, d_dice: int) -> None:
    out = roll_outcomes(a_dice, d_dice)
    expected = _bf_roll(a_dice, d_dice)
    assert set(out) == set(expected)
    for key, p in expected.items():
        assert abs(out[key] - float(p)) < 1e-12
    assert math.fsum(out.values()) == pytest.approx(1.0, abs=1e-12)
    assert all(al + dl == min(a_dice, d_dice) for al, dl in out)


def test_roll_outcomes_returns_fresh_dict() -> None:
    out = roll_outcomes(3, 2)
    out.clear()
    assert len(roll_outcomes(3, 2)) == 3


@pytest.mark.parametrize(("a_dice", "d_dice"), [(0, 1), (4, 1), (1, 0), (1, 3), (-1, 2)])
def test_roll_outcomes_invalid(a_dice: int, d_dice: int) -> None:
    with pytest.raises(ValueError, match="dice"):
        roll_outcomes(a_dice, d_dice)


# --------------------------------------------------------------------------- full battles


@pytest.mark.parametrize(
    ("source", "defenders", "stop_at"),
    [(s, d, 1) for s in range(1, 9) for d in range(1, 9)]
    + [(s, d, k) for s in range(1, 10) for d in (1, 3, 6) for k in (2, 3, 5)],
)
def test_battle_matches_brute_force(source: int, defenders: int, stop_at: int) -> None:
    odds = battle_odds(source, defenders, stop_at)
    ref = _bf_summary(source, defenders, stop_at)
    assert odds.win == pytest.approx(float(ref.win), abs=TOL)
    assert odds.expected_attacker_left == pytest.approx(float(ref.exp_a), abs=TOL)
    assert odds.expected_defender_left == pytest.approx(float(ref.exp_d), abs=TOL)
    _assert_dist_close(odds.attacker_distribution, ref.att)
    _assert_dist_close(odds.defender_distribution, ref.dfn)


def test_single_die_battle() -> None:
    # 2 armies vs 1: exactly one roll of 1 die vs 1 die.
    odds = battle_odds(2, 1)
    assert odds.win == pytest.approx(15 / 36, abs=1e-12)
    assert odds.attacker_distribution == pytest.approx({1: 21 / 36, 2: 15 / 36}, abs=1e-12)
    assert odds.defender_distribution == pytest.approx({0: 15 / 36, 1: 21 / 36}, abs=1e-12)


def test_three_vs_one_closed_form() -> None:
    # 2 fighters vs 1: win the 2v1 roll, or lose it and then win a 1v1 roll.
    expected = Fraction(125, 216) + Fraction(91, 216) * Fraction(15, 36)
    assert battle_odds(3, 1).win == pytest.approx(float(expected), abs=1e-12)


def test_ten_fighters_vs_ten_defenders_matches_brute_force() -> None:
    # Source territory with 11 armies (10 fighting) against 10 defenders, verified by brute force.
    ref = _bf_summary(11, 10)
    odds = battle_odds(11, 10)
    assert odds.win == pytest.approx(float(ref.win), abs=TOL)
    assert odds.win == pytest.approx(0.5675928721, abs=1e-9)


@pytest.mark.parametrize(("source", "defenders", "stop_at"), [(1, 1, 1), (3, 5, 3), (4, 2, 7), (1, 9, 1)])
def test_no_attack_when_source_at_or_below_stop(source: int, defenders: int, stop_at: int) -> None:
    odds = battle_odds(source, defenders, stop_at)
    assert odds == BattleOdds(
        win=0.0,
        expected_attacker_left=float(source),
        expected_defender_left=float(defenders),
        attacker_distribution={source: 1.0},
        defender_distribution={defenders: 1.0},
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 10))
def test_distributions_sum_to_one_and_win_consistent(source: int, defenders: int, stop_at: int) -> None:
    odds = battle_odds(source, defenders, stop_at)
    assert math.fsum(odds.attacker_distribution.values()) == pytest.approx(1.0, abs=TOL)
    assert math.fsum(odds.defender_distribution.values()) == pytest.approx(1.0, abs=TOL)
    assert odds.win == odds.defender_distribution.get(0, 0.0)
    assert 0.0 <= odds.win <= 1.0
    assert all(p > 0 for p in odds.attacker_distribution.values())
    assert all(1 <= k <= source for k in odds.attacker_distribution)
    assert all(0 <= k <= defenders for k in odds.defender_distribution)
    assert odds.expected_attacker_left == pytest.approx(
        math.fsum(k * p for k, p in odds.attacker_distribution.items()), abs=TOL
    )
    assert odds.expected_defender_left == pytest.approx(
        math.fsum(k * p for k, p in odds.defender_distribution.items()), abs=TOL
    )


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.integers(1, 5))
def test_more_attackers_never_lowers_win(source: int, defenders: int, stop_at: int) -> None:
    base = battle_odds(source, defenders, stop_at).win
    assert battle_odds(source + 1, defenders, stop_at).win >= base - 1e-12


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.integers(1, 5))
def test_more_defenders_never_raises_win(source: int, defenders: int, stop_at: int) -> None:
    base = battle_odds(source, defenders, stop_at).win
    assert battle_odds(source, defenders + 1, stop_at).win <= base + 1e-12


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.integers(1, 10))
def test_higher_stop_at_never_raises_win(source: int, defenders: int, stop_at: int) -> None:
    base = battle_odds(source, defenders, stop_at).win
    assert battle_odds(source, defenders, stop_at + 1).win <= base + 1e-12


def test_large_battles() -> None:
    for n in (100, 200):
        odds = battle_odds(n, n)
        assert 0.5 < odds.win < 1.0
        assert math.fsum(odds.defender_distribution.values()) == pytest.approx(1.0, abs=TOL)
        assert math.fsum(odds.attacker_distribution.values()) == pytest.approx(1.0, abs=TOL)


def test_result_dicts_are_not_shared_with_cache() -> None:
    first = battle_odds(7, 5)
    first.attacker_distribution.clear()
    first.defender_distribution.clear()
    again = battle_odds(7, 5)
    assert again.attacker_distribution
    assert again.defender_distribution


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("source", "defenders", "stop_at", "name"),
    [(0, 1, 1, "source_armies"), (-3, 1, 1, "source_armies"), (5, 0, 1, "defenders"), (5, 2, 0, "stop_at")],
)
def test_invalid_input_raises(source: int, defenders: int, stop_at: int, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        battle_odds(source, defenders, stop_at)


# --------------------------------------------------------------------------- CLI


def _run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.odds", *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
        timeout=60,
    )


def test_cli_prints_a_table_by_default() -> None:
    proc = _run_cli("10", "8")
    assert proc.returncode == 0, proc.stderr
    odds = battle_odds(10, 8)
    lines = proc.stdout.splitlines()
    assert lines[0] == ("10 armies attack 8: the attacker rolls the most dice it can until the territory falls "
                        "or the attacker has 1 army left.")
    assert lines[2].split() == ["attacker", "defender"]
    assert lines[3].split() == ["armies", "at", "the", "start", "10", "8"]
    assert lines[4].split() == ["win", "chance", "64.6%", "35.4%"]
    assert lines[5].split() == ["expected", "armies", "left", f"{odds.expected_attacker_left:.2f}",
                                f"{odds.expected_defender_left:.2f}"] == ["expected", "armies", "left", "4.05", "1.23"]
    assert lines[7].split() == ["armies", "left", "attacker", "defender"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[8:]}
    assert rows["0"] == ["-", "64.6%"]                 # the territory falls
    assert rows["1"] == ["35.4%", "4.3%"]              # the attacker is stopped at 1
    assert rows["10"] == ["1.9%", "-"]                 # no losses at all
    assert list(rows) == [str(n) for n in range(11)]
    assert sum(float(a.rstrip("%")) for a, _ in rows.values() if a != "-") == pytest.approx(100, abs=0.1)
    with pytest.raises(json.JSONDecodeError):
        json.loads(proc.stdout)


def test_cli_table_of_a_large_battle_shows_ranges() -> None:
    proc = _run_cli("60", "40")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[4].split() == ["win", "chance", "99.0%", "1.0%"]
    rows = [line.split()[0] for line in lines[8:]]
    assert rows[0] == "0" and rows[1] == "1-5" and rows[-1] == "56-60"
    assert len(lines) <= 8 + 15


def test_cli_table_with_stop_at() -> None:
    proc = _run_cli("10", "8", "--stop-at", "4")
    assert proc.returncode == 0, proc.stderr
    assert "until the territory falls or the attacker is down to 4." in proc.stdout
    assert f"{battle_odds(10, 8, stop_at=4).win:.1%}" in proc.stdout.splitlines()[4]


def test_cli_outputs_json() -> None:
    proc = _run_cli("10", "8", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    expected = battle_odds(10, 8)
    assert 0.0 <= data["win"] <= 1.0
    assert data["win"] == pytest.approx(expected.win, abs=1e-12)
    assert data["win"] == pytest.approx(float(_bf_summary(10, 8).win), abs=TOL)
    assert data["expected_attacker_left"] == pytest.approx(expected.expected_attacker_left, abs=1e-12)
    assert data["expected_defender_left"] == pytest.approx(expected.expected_defender_left, abs=1e-12)
    assert {int(k): v for k, v in data["attacker_distribution"].items()} == pytest.approx(
        expected.attacker_distribution, abs=1e-12
    )
    assert {int(k): v for k, v in data["defender_distribution"].items()} == pytest.approx(
        expected.defender_distribution, abs=1e-12
    )


def test_cli_stop_at() -> None:
    proc = _run_cli("10", "8", "--stop-at", "4", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["win"] == pytest.approx(battle_odds(10, 8, stop_at=4).win, abs=1e-12)


@pytest.mark.parametrize("args", [("0", "8"), ("5", "0"), ("5", "3", "--stop-at", "0"), ("x", "3"), ("5",)])
def test_cli_errors_exit_2(args: tuple[str, ...]) -> None:
    proc = _run_cli(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "error" in proc.stderr


def test_cli_help() -> None:
    proc = _run_cli("--help")
    assert proc.returncode == 0
    assert "--stop-at" in proc.stdout
    assert "--json" in proc.stdout


def test_main_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["4", "2"]) == 0
    assert f"win chance                 {battle_odds(4, 2).win:.1%}" in capsys.readouterr().out
    assert main(["4", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["win"] == pytest.approx(battle_odds(4, 2).win, abs=1e-12)
    with pytest.raises(SystemExit) as exc:
        main(["4", "0"])
    assert exc.value.code == 2


def test_the_table_never_reads_as_certain_when_it_is_not():
    from engine.odds import battle_odds, format_table

    table = format_table(30, 1, 1, battle_odds(30, 1))
    assert "100.0%" not in table and ">99.9%" in table


# -- large battles --------------------------------------------------------------------------------------
def test_the_approximation_keeps_within_its_stated_error_of_the_exact_odds():
    from engine.odds import APPROXIMATION_ERROR, approximate_odds

    worst = 0.0
    for attackers in (100, 160, 250, 400):
        for defenders in (100, 140, 160, 250, 300, 400):
            exact, approx = battle_odds(attackers, defenders), approximate_odds(attackers, defenders)
            worst = max(worst, abs(exact.win - approx.win))
            assert approx.expected_attacker_left == pytest.approx(exact.expected_attacker_left, abs=2.0)
            assert approx.expected_defender_left == pytest.approx(exact.expected_defender_left, abs=2.0)
    assert worst <= APPROXIMATION_ERROR
    assert worst > APPROXIMATION_ERROR / 10  # the grid holds close battles, where the error shows


def test_odds_are_exact_up_to_the_limit_and_approximated_above():
    from engine.odds import EXACT_LIMIT, QUICK_LIMIT, odds

    assert odds(100, 100) == (battle_odds(100, 100), True)
    assert odds(300, 300, QUICK_LIMIT)[1] is False
    big, exact = odds(EXACT_LIMIT, 2)
    assert not exact and big.win > 0.999
    even, _ = odds(50_000, 50_000)
    assert even.win > 0.99  # the attacker's extra dice tell over many rolls
    with pytest.raises(ValueError):
        odds(0, 5)
