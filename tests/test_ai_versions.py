"""An AI seat is rated as the version of its level it played: a game keeps that version after the level's play
changes, in the ratings and in a rebuild."""

from __future__ import annotations

import pytest

from engine import ai
from ratings import AI_VERSION_RATINGS, SeatResult, ai_identity, ai_rating, model, rate_game
from ratings.model import HARD_V2_SHARE, MODEL, MU
from table.results import rebuild_ratings, seat_result
from tests.test_results import ALICE, db_rows, new_game, play, store  # noqa: F401 (the fixture)


def test_every_level_has_a_rating_for_the_version_it_plays_now():
    for level in ai.PLAYER_LEVELS:
        assert (level, ai.version_of(level)) in AI_VERSION_RATINGS
    assert ai.version_of(None) is None and ai.version_of("random") is None


def test_a_game_is_rated_against_the_version_its_ai_played(monkeypatch):
    monkeypatch.setitem(AI_VERSION_RATINGS, ("hard", 2), (MU + 15.0, 2.0))
    old = rate_game({}, [SeatResult(ALICE, None, 1), SeatResult(None, "hard", 2, ai_version=1)])[ALICE]
    new = rate_game({}, [SeatResult(ALICE, None, 1), SeatResult(None, "hard", 2, ai_version=2)])[ALICE]
    unknown = rate_game({}, [SeatResult(ALICE, None, 1), SeatResult(None, "hard", 2)])[ALICE]
    assert new.mu > old.mu == unknown.mu   # beating the stronger version counts more; no version played 1
    assert ai_rating("hard", None) == ai_rating("hard", 1) == model.AI_RATINGS["hard"]
    assert ai_identity("hard", 2) == "hard v2"


async def test_a_rebuild_keeps_an_old_game_rated_against_the_version_it_played(store, monkeypatch):  # noqa: F811
    history_sql = "SELECT user_id, game_id, mu, sigma, score, games FROM rating_history ORDER BY 1, 2"
    monkeypatch.setitem(ai.VERSIONS, "hard", 1)   # a game played before the hard AI's version 2
    first = await play(store, await new_game(store, [(ALICE, "Alice")], ("hard",), seed="version-1"))
    # The hard AI's play changes: its version goes up, with a stronger rating of its own.
    monkeypatch.setitem(ai.VERSIONS, "hard", 2)
    monkeypatch.setitem(AI_VERSION_RATINGS, ("hard", 2), (MU + 15.0, 2.0))
    second = await play(store, await new_game(store, [(ALICE, "Alice")], ("hard",), seed="version-2"))
    versions = await db_rows(store, "SELECT game_id, ai_version FROM results WHERE ai_level IS NOT NULL "
                                    "ORDER BY game_id")
    assert versions == [(first.id, 1), (second.id, 2)]
    incremental = await db_rows(store, history_sql)
    assert [row[1] for row in incremental] == [first.id, second.id]
    assert await rebuild_ratings(store) == 2
    assert await db_rows(store, history_sql) == incremental
    # The old game rated against the new version would have given another rating: the version is what kept it.
    seats = [seat_result(r) for r in await store.results(first.id)]
    assert seats[1].ai_version == 1
    as_played = rate_game({}, seats)[ALICE]
    as_new = rate_game({}, [s if s.user_id else SeatResult(None, "hard", s.placement, ai_version=2)
                            for s in seats])[ALICE]
    assert incremental[0][2] == pytest.approx(as_played.mu) != pytest.approx(as_new.mu)


def test_hard_version_2_is_rated_as_strong_as_it_measured_against_version_1():
    """openskill's own prediction of version 2 against version 1 gives the share it won (docs/rules.md)."""
    new, old = (MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in (AI_VERSION_RATINGS[("hard", 2)],
                                                                   AI_VERSION_RATINGS[("hard", 1)]))
    assert MODEL.predict_win([[new], [old]])[0] == pytest.approx(HARD_V2_SHARE)
    assert AI_VERSION_RATINGS[("hard", 2)][0] > AI_VERSION_RATINGS[("hard", 1)][0]
