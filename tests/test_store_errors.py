"""Refusals of the store: English templates with values, read by each player in their own language."""

from __future__ import annotations

import pytest

from cogs.shared.errors import explain
from present.refusals import translate_template
from store import (
    AlreadySeated,
    ChannelBusy,
    DatabaseError,
    GameNotRunning,
    InvalidValue,
    LobbyFull,
    NotInLobby,
    StoreError,
    UnknownGame,
)
from store.errors import StatusWord
from store.records import status_word
from tools.catalogs import _source_messages

GUILD, CHANNEL, HOST = 10, 100, 1000




def texts(exc: StoreError) -> tuple[str, str | None, str | None, str | None]:
    """The English message, and the refusal as a reader of English, Norwegian and Spanish sees it."""
    return exc.message, explain(exc, "en-GB"), explain(exc, "no"), explain(exc, "es-ES")


# -- the English text is what it was; the template and its values are kept -----------------------------------
async def test_joining_twice_is_refused_in_english_and_in_the_readers_language(store):
    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host")
    with pytest.raises(AlreadySeated) as caught:
        await store.join(lobby.id, HOST, "Host again")
    exc = caught.value
    assert exc.code == "already_seated"
    assert exc.template == "You are already seated in this game (seat {seat})."
    assert exc.params == {"seat": 1}
    assert str(exc) == exc.message
    assert texts(exc) == (
        "You are already seated in this game (seat 1).",
        "You are already seated in this game (seat 1).",
        "Du har allerede en plass i dette spillet (plass 1).",
        "Ya tienes un puesto en esta partida (puesto 1).",
    )


async def test_a_vacation_over_the_limit_names_the_limit_and_the_days_left(store):
    from table import Table

    table = Table(store, clock=lambda: 0.0)
    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host", {"vacation_days": 3})
    await table.add_ai(lobby.id)
    await table.start(lobby.id)
    await table.take_vacation(lobby.id, 0, 2)
    with pytest.raises(InvalidValue) as caught:
        await table.take_vacation(lobby.id, 0, 2)
    assert texts(caught.value) == (
        "This game allows 3 days of vacation per player; you have 1 left.",
        "This game allows 3 days of vacation per player; you have 1 left.",
        "Dette spillet tillater 3 feriedager per spiller; du har 1 igjen.",
        "Esta partida permite 3 días de vacaciones por jugador; días que te quedan: 1.",
    )


async def test_an_unknown_game_and_a_full_lobby(store):
    with pytest.raises(UnknownGame) as unknown:
        await store.get_game(99)
    assert texts(unknown.value)[0] == "There is no game #99."
    assert texts(unknown.value)[2:] == ("Det finnes ikke noe spill #99.", "No existe la partida #99.")

    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host")
    for i in range(5):
        await store.join(lobby.id, 2000 + i, f"P{i}")
    with pytest.raises(LobbyFull) as full:
        await store.add_ai(lobby.id, "easy")
    assert texts(full.value)[0] == "The lobby is full: Risk is played by at most 6 players."
    assert texts(full.value)[2:] == ("Lobbyen er full: Risk spilles av høyst 6 spillere.",
                                     "La sala está llena: al Risk juegan como máximo 6 jugadores.")


# -- the status of a game is translated inside the refusal -----------------------------------------------------
async def test_the_status_in_a_refusal_is_translated(store):
    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host")
    with pytest.raises(GameNotRunning) as caught:
        await store.pause(lobby.id)
    exc = caught.value
    assert isinstance(exc.params["status"], StatusWord) and exc.params["status"].status == "lobby"
    assert texts(exc) == (
        f"Game #{lobby.id} is waiting in its lobby; only a running game can be paused.",
        f"Game #{lobby.id} is waiting in its lobby; only a running game can be paused.",
        f"Spill #{lobby.id} er i lobbyen; bare et spill som er i gang, kan settes på pause.",
        f"La partida #{lobby.id} está esperando en su sala; solo se puede pausar una partida en curso.",
    )

    with pytest.raises(ChannelBusy) as busy:
        await store.create_lobby(GUILD, CHANNEL, 2000, "Bea")
    assert texts(busy.value)[0] == (f"This channel already has a game (#{lobby.id}, waiting in its lobby). "
                                    "Finish or cancel it before starting another.")
    assert texts(busy.value)[2] == (f"Denne kanalen har allerede et spill (#{lobby.id}, i lobbyen). "
                                    "Fullfør eller avbryt det før du starter et nytt.")
    assert texts(busy.value)[3] == (f"Este canal ya tiene una partida (#{lobby.id}, esperando en su sala). "
                                    "Termínala o cancélala antes de empezar otra.")

    await store.cancel(lobby.id)
    with pytest.raises(GameNotRunning) as again:
        await store.cancel(lobby.id)
    assert texts(again.value) == (
        f"Game #{lobby.id} is already cancelled.",
        f"Game #{lobby.id} is already cancelled.",
        f"Spill #{lobby.id} er allerede avbrutt.",
        f"La partida #{lobby.id} ya está cancelada.",
    )
    with pytest.raises(NotInLobby) as closed:
        await store.join(lobby.id, 2000, "Bea")
    assert texts(closed.value)[2:] == (
        f"Spill #{lobby.id} er avbrutt: plasser og innstillinger kan bare endres i lobbyen.",
        f"La partida #{lobby.id} está cancelada: los puestos y los ajustes solo se cambian en la sala.",
    )


def test_a_status_word_keeps_its_meaning_apart_from_the_engines_phase():
    """"over" is also a phase word of the engine, translated for another sentence; a status has its own context."""
    exc = GameNotRunning("Game #{id} is already {status}.", id=7, status=status_word("finished"))
    assert texts(exc) == ("Game #7 is already over.", "Game #7 is already over.", "Spill #7 er allerede ferdig.",
                          "La partida #7 ya está terminada.")


async def test_the_ai_levels_stay_as_written_and_or_is_translated(store):
    lobby = await store.create_lobby(GUILD, CHANNEL, HOST, "Host")
    with pytest.raises(InvalidValue) as caught:
        await store.add_ai(lobby.id, "genius")
    assert texts(caught.value) == (
        "There is no AI level “genius”; choose easy, normal or hard.",
        "There is no AI level “genius”; choose easy, normal or hard.",
        "Det finnes ikke noe AI-nivå som heter «genius»; velg easy, normal eller hard.",
        "No existe el nivel de IA «genius»; elige easy, normal o hard.",
    )


# -- the constructor ------------------------------------------------------------------------------------------
def test_a_message_without_values_is_left_as_written():
    exc = DatabaseError("The database {path} is read-only: the bot cannot save anything to it.", path="/d/{x}.db")
    assert exc.message == "The database /d/{x}.db is read-only: the bot cannot save anything to it."
    assert translate_template(exc.template, exc.params, "no") == \
        "Databasen /d/{x}.db er skrivebeskyttet: boten kan ikke lagre noe i den."  # for the host, in their words
    assert explain(exc, "no") is None  # a player is never shown a server path: an error id instead
    plain = StoreError("Braces {stay} when nothing fills them.")
    assert plain.message == str(plain) == "Braces {stay} when nothing fills them." and plain.params == {}
    assert explain(plain, "es-ES") == "Braces {stay} when nothing fills them."


def test_the_extractor_collects_the_stores_templates_and_not_its_console_tool():
    found = {(message, where) for message, _context, where in _source_messages() if where.startswith("store/")}
    assert ("You are already seated in this game (seat {seat}).", "store/sql.py") in found
    assert ("Game #{id} is {status}; only a running game can be paused.", "store/sql.py") in found
    assert ("Game #{id} has not started yet.", "store/records.py") in found
    assert not any(where == "store/export.py" for _message, where in found)


def test_every_refusal_is_one_kind_of_template_error_and_the_extractor_finds_each():
    from engine.errors import MapError, RuleError, TemplateError
    from mapfiles import MapFileError

    for cls in (RuleError, MapError, StoreError, MapFileError):
        assert issubclass(cls, TemplateError)
        exc = cls("Seat {seat} of “{name}”.", seat=2, name="{x}")
        assert (exc.message, str(exc), exc.template, exc.params) == \
            ("Seat 2 of “{x}”.", "Seat 2 of “{x}”.", "Seat {seat} of “{name}”.", {"seat": 2, "name": "{x}"})
    assert issubclass(MapError, ValueError) and issubclass(MapFileError, ValueError)  # as before: callers catch those
    found = {(message, where) for message, _context, where in _source_messages()}
    assert ("The map is not a valid board: {reason}.", "mapfiles/errors.py") in found
    assert ("{territory} is held by your teammate {player}: teammates cannot attack each other.",
            "engine/game.py") in found
    assert ("there is no map called “{map}”", "engine/board.py") in found


def test_the_tables_refusals_are_template_errors_taken_into_the_catalogs_and_translated():
    from engine.errors import TemplateError
    from store.results import Reliability
    from table import LimitReached, SeatRefused, VoteRefused
    from table.timers import Vote

    vote = Vote(key="k", ending="standings", caller=0, closes_at=1234.0, ballots={})
    refusals = [*(VoteRefused(kind) for kind in VoteRefused.WORDS), VoteRefused(VoteRefused.GOING_ON, vote),
                *(SeatRefused(kind) for kind in SeatRefused.WORDS),
                SeatRefused(SeatRefused.BELOW, Reliability(games=12, turns=10, on_time=4), 50),
                *(LimitReached(kind, n) for kind in LimitReached.WORDS for n in (1, 3))]
    found = {message for message, _context, where in _source_messages() if where == "table/refusals.py"}
    for exc in refusals:
        assert isinstance(exc, TemplateError) and "{" not in exc.message, exc.template
        assert exc.template in found or (exc.template, exc.plural) in found, exc.template
        english = explain(exc, "en-US")
        assert english == exc.message, (english, exc.message)
        for language in ("no", "es-ES"):
            text = explain(exc, language)
            assert text and text != english and "{" not in text, (language, text)
    assert explain(VoteRefused(VoteRefused.GOING_ON, vote), "no").count("<t:1234:R>") == 1
    assert "40" in explain(SeatRefused(SeatRefused.BELOW, Reliability(games=12, turns=10, on_time=4), 50), "es-ES")
    assert explain(LimitReached(LimitReached.LOBBIES, 1), "en-US") == \
        "You already host 1 open lobby: start or cancel it first."
    assert explain(LimitReached(LimitReached.LOBBIES, 3), "en-US") == \
        "You already host 3 open lobbies: start or cancel one first."
