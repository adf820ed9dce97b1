"""Mistyped territory names: the closest names are suggested in the reader's language, in refusals and in
autocomplete, and no refusal outgrows a Discord message however long the name typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, open_lobby

from cogs.shared.errors import explain
from engine import load_map
from engine.board import closest_names
from engine.errors import UnknownTerritory, clip
from present.i18n import resolve_territory


def refusal(typed: str) -> UnknownTerritory:
    with pytest.raises(UnknownTerritory) as caught:
        resolve_territory(load_map(), typed)
    return caught.value


def test_a_typo_is_refused_with_the_closest_name():
    exc = refusal("Jpan")
    assert exc.suggestions == ("japan",)
    assert explain(exc, "en-US") == "There is no territory called “Jpan”. Did you mean Japan?"


def test_the_engine_suggests_english_names_and_aliases():
    with pytest.raises(UnknownTerritory, match=r"Did you mean Kamchatka\?") as caught:
        load_map().resolve("Kamchtka")
    assert caught.value.suggestions == ("kamchatka",)


def test_up_to_three_suggestions_are_joined_in_one_sentence():
    exc = refusal("Austrlia")
    assert set(exc.suggestions) == {"eastern_australia", "western_australia"}
    text = explain(exc, "en-US")
    assert text is not None and text.startswith("There is no territory called “Austrlia”. Did you mean ")
    assert "Eastern Australia" in text and "Western Australia" in text and " or " in text
    assert len(refusal("vest").suggestions) == 3


def test_a_name_like_none_is_refused_without_suggestions():
    exc = refusal("Atlantis")
    assert exc.suggestions == ()
    assert explain(exc, "en-US") == "There is no territory called “Atlantis”."


def test_a_norwegian_typo_is_answered_with_the_norwegian_name():
    exc = refusal("Grønnland")
    assert exc.suggestions == ("greenland",)
    text = explain(exc, "no")
    assert text is not None and "Grønland" in text and "Greenland" not in text


def test_a_spanish_typo_is_answered_with_the_spanish_name():
    exc = refusal("Groenlanda")
    assert exc.suggestions == ("greenland",)
    text = explain(exc, "es-ES")
    assert text is not None and "Groenlandia" in text and "Greenland" not in text


def test_matching_ignores_case_and_accents():
    assert refusal("JAPÓNN").suggestions == ("japan",)
    assert refusal("kamtsjatkka").suggestions == ("kamchatka",)


def test_closest_names_prefer_names_that_begin_with_the_text_then_the_most_alike():
    names = {"japan": "japan", "spain": "spain", "westerneurope": "western_europe", "westernus": "western_us"}
    assert closest_names("Jpan", names) == ["japan"]
    assert closest_names("western", names) == ["western_us", "western_europe"]  # both begin so; the nearer first
    assert closest_names("!!!", names) == [] and closest_names("Atlantis", names) == []


def test_echoed_input_is_clipped():
    assert clip("short") == "short"
    assert clip("x" * 101) == "x" * 99 + "…" and len(clip("x" * 101)) == 100
    text = explain(refusal("x" * 3000), "en-US")
    assert text is not None and len(text) < 200 and "x" * 50 in text and "x" * 101 not in text
    ambiguous = refusal("ea")
    assert ambiguous.ambiguous and "could mean" in ambiguous.message


def test_no_explained_refusal_outgrows_a_message():
    from cogs.shared.errors import UserError

    text = explain(UserError("y" * 5000), "en-US")
    assert text is not None and len("⛔ " + text) <= 2000 and text.endswith("…")


@pytest.mark.asyncio
async def test_autocomplete_offers_the_closest_names_when_nothing_contains_the_text(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="typos")) as d:
        await open_lobby(d, deployment="auto")
        await d.send_command("alice", "general", "risk addbot", {})
        await d.send_command("alice", "general", "risk start", {})
        choices = await d.autocomplete("alice", "general", "place", {"territory": "Austrlia"}, focused="territory")
        assert {c["value"] for c in choices} == {"eastern_australia", "western_australia"}
        d.set_locale("alice", "no")
        choices = await d.autocomplete("alice", "general", "place", {"territory": "Austrlia"}, focused="territory")
        assert {c["name"].split(" (")[0] for c in choices} == {"Øst-Australia", "Vest-Australia"}
        choices = await d.autocomplete("alice", "general", "attack", {"from": "Atlantis"}, focused="from")
        assert choices == []


@pytest.mark.asyncio
async def test_autocomplete_offers_legal_choices_first_among_the_closest(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="typos")) as d:
        await open_lobby(d, deployment="auto")
        await d.send_command("alice", "general", "risk addbot", {})
        await d.send_command("alice", "general", "risk start", {})
        choices = await d.autocomplete("alice", "general", "place", {"territory": "Austrlia"}, focused="territory")
        labelled = [c for c in choices if "(" in c["name"]]  # alice's own, with their armies
        assert choices[: len(labelled)] == labelled


@pytest.mark.asyncio
async def test_a_huge_name_gets_a_short_private_refusal(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="typos")) as d:
        await open_lobby(d, deployment="auto")
        await d.send_command("alice", "general", "risk addbot", {})
        await d.send_command("alice", "general", "risk start", {})
        step = await d.send_command("alice", "general", "attack", {"from": "Alaska", "to": "J" * 3000},
                                    client_checks=False)  # past what the client lets one type
        assert not step.problems, step.problems
        assert step and all(m.ephemeral for m in step)
        assert step[0].content.startswith("⛔") and len(step[0].content) < 2000
        assert "J" * 50 in step[0].content and "J" * 101 not in step[0].content


@pytest.mark.asyncio
async def test_a_typo_in_a_command_is_answered_with_a_suggestion(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="typos")) as d:
        await open_lobby(d, deployment="auto")
        await d.send_command("alice", "general", "risk addbot", {})
        await d.send_command("alice", "general", "risk start", {})
        step = await d.send_command("alice", "general", "attack", {"from": "Alaska", "to": "Jpan"})
        assert not step.problems, step.problems
        assert step[0].ephemeral and "Did you mean Japan?" in step[0].content
