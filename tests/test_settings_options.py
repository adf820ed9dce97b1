"""Each game setting is declared once (engine.settings.OPTIONS): validation, /risk new and the settings text
all follow the declaration."""

from __future__ import annotations

import pytest

from cogs.game.lobby import LobbyCommands, settings_text
from engine import Settings, SettingsError
from engine.settings import CHOICES, OPTIONS


def test_risk_new_offers_exactly_the_declared_settings():
    command = LobbyCommands.risk_new
    params = {p.display_name: p for p in command.parameters}
    offered = {o.name: o for o in OPTIONS if o.help}
    assert set(params) - set(offered) == {"language", "preset", "map"}
    for name, option in offered.items():
        param = params[name]
        assert param.description == option.help
        if option.values:
            assert [c.value for c in param.choices] == list(option.values)
        elif name != "turn_deadline":  # a menu of deadlines, within the declared range
            assert (param.min_value, param.max_value) == (option.offered or (option.low, option.high))


def test_every_declared_setting_is_a_setting_of_the_game_and_validated():
    fields = set(Settings.__dataclass_fields__)
    assert {o.name for o in OPTIONS} <= fields
    assert {o.name: o.values for o in OPTIONS if o.values} == CHOICES
    for option in OPTIONS:
        bad = "nonsense" if option.values else option.high + 1
        with pytest.raises(SettingsError, match=option.name):
            Settings(**{option.name: bad})


def test_the_settings_text_names_every_declared_setting_in_words():
    text = settings_text(Settings(max_missed=0, max_rounds=0).to_dict())
    for option in OPTIONS:
        assert f"{option.label}: **" in text
    assert "Missed turns before the seat is replaced: **never**" in text
    assert "Round limit: **no limit**" in text
    assert "Fortify: **one move to a neighbouring territory**" in text
