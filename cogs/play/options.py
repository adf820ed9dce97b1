"""Territory options: a name or alias in any of our languages becomes a territory id, and autocomplete ranks
the legal choices of the player who types (with armies and odds). Each is an ``app_commands.Transformer``.

Autocomplete shows only what the typing user may see: labels with armies and owners come from their legal
choices, which under fog of war are all in their sight; any other territory is offered by name alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands

from cogs.shared.guards import channel_game
from cogs.shared.services import services_of
from engine import Game, RuleError, load_map
from engine.errors import UnknownTerritory
from engine.fog import visible_to
from engine.odds import QUICK_LIMIT, odds
from engine.state import CLAIM
from present.i18n import percent, resolve_territory, territory_name
from present.text import label_name
from store import StoreReader

# What a transformer's autocomplete returns (discord.py's type; the values here are always territory ids).
Choices = list[app_commands.Choice[int | float | str]]
MAX_NAME = 100


def _store(interaction: discord.Interaction[Any]) -> StoreReader:
    return services_of(interaction.client).store


async def playing(interaction: discord.Interaction[Any]) -> tuple[Game, int | None] | None:
    """The channel's running game and the user's seat in it (None: not playing), for autocomplete."""
    record = await channel_game(_store(interaction), interaction)
    if record is None or record.state_json is None:
        return None
    return record.game(), record.seat_of(interaction.user.id)


def ranked_choices(game: Game, ranked: Sequence[tuple[str, str]], current: str, locale: object) -> Choices:
    """Legal choices first (as ranked, with their labels), then any territory whose name matches what is typed.

    When no name contains what is typed, the closest names are offered instead ("Austrlia": Eastern and Western
    Australia), the legal ones first.
    """
    typed = current.strip().lower()
    out: Choices = []
    seen: set[str] = set()
    for tid, label in ranked:
        if typed and typed not in label.lower() and typed not in tid:
            continue
        out.append(app_commands.Choice(name=label[:100], value=tid))
        seen.add(tid)
    for tid in game.board.territory_ids:
        label = territory_name(game.board, tid, locale)
        if tid not in seen and (not typed or typed in label.lower() or typed in game.board.name(tid).lower()):
            out.append(app_commands.Choice(name=label, value=tid))
    if typed and not out:
        try:
            closest: Sequence[str] = [resolve_territory(game.board, current.strip())]
        except UnknownTerritory as exc:
            closest = exc.suggestions
        labels = dict(ranked)
        for tid in sorted(closest, key=lambda t: t not in labels):
            label = labels.get(tid) or territory_name(game.board, tid, locale)
            out.append(app_commands.Choice(name=label[:100], value=tid))
    return out[:25]


def with_armies(game: Game, territories: Sequence[str], locale: object) -> list[tuple[str, str]]:
    """Territories labelled with their armies, the biggest first."""
    s = game.state
    return [(t, f"{territory_name(game.board, t, locale)} ({s.armies[t]})")
            for t in sorted(territories, key=lambda t: -s.armies[t])]


def typed_source(game: Game, interaction: discord.Interaction[Any]) -> str | None:
    """The ``from`` option as typed so far, if it names a territory."""
    typed = getattr(interaction.namespace, "from", None)
    try:
        return resolve_territory(game.board, typed) if typed else None
    except RuleError:
        return None


class TerritoryOption(app_commands.Transformer):
    """Any territory, by id, name or alias in English, Norwegian or Spanish."""

    @property
    def max_value(self) -> int:
        return MAX_NAME  # Discord's client stops typing there (the longest name is some 30 characters)

    async def transform(self, interaction: discord.Interaction[Any], value: str) -> str:
        record = await channel_game(_store(interaction), interaction)
        return resolve_territory(load_map(record.settings.get("map") or "classic") if record else load_map(), value)

    def ranked(self, game: Game, seat: int | None, interaction: discord.Interaction[Any]) -> list[tuple[str, str]]:
        return []

    async def autocomplete(self, interaction: discord.Interaction[Any], value: int | float | str, /) -> Choices:
        found = await playing(interaction)
        if found is None:
            return []
        game, seat = found
        return ranked_choices(game, self.ranked(game, seat, interaction), str(value), interaction.locale)


class PlaceOption(TerritoryOption):
    """Where to place (or, while claiming, which territory to claim): the most exposed first."""

    def ranked(self, game: Game, seat: int | None, interaction: discord.Interaction[Any]) -> list[tuple[str, str]]:
        s = game.state
        locale = interaction.locale
        if seat is None:  # someone not playing learns nothing, not even which territories are still free
            return []
        if s.phase == CLAIM:
            return [(t, territory_name(game.board, t, locale)) for t in game.claimable()]
        seen = visible_to(s, seat)
        placeable = [t for t in game.placeable(seat) if seen is None or t in seen]
        exposed = sorted(placeable, key=lambda t: -sum(1 for n in game.board.neighbours(t)
                                                       if s.owners.get(n) != seat))
        return [(t, f"{territory_name(game.board, t, locale)} ({s.armies[t]})") for t in exposed]


class AttackFromOption(TerritoryOption):
    """A territory that can attack now, the strongest first."""

    def ranked(self, game: Game, seat: int | None, interaction: discord.Interaction[Any]) -> list[tuple[str, str]]:
        return [] if seat is None else with_armies(game, game.attack_sources(seat), interaction.locale)


class AttackToOption(TerritoryOption):
    """A territory that can be attacked (from the typed source, or any), the best odds first."""

    def ranked(self, game: Game, seat: int | None, interaction: discord.Interaction[Any]) -> list[tuple[str, str]]:
        if seat is None:
            return []
        s = game.state
        locale = interaction.locale
        source = typed_source(game, interaction)
        sources = [source] if source in game.attack_sources(seat) else game.attack_sources(seat)
        best: dict[str, tuple[float, str]] = {}
        for src in sources:
            for dst in game.attack_targets(seat, src):
                win = odds(s.armies[src], s.armies[dst], QUICK_LIMIT)[0].win
                if dst not in best or win > best[dst][0]:
                    owner = label_name(s, s.owners[dst], locale)
                    label = (f"{territory_name(game.board, dst, locale)} ({s.armies[dst]}, {owner}) · "
                             f"{percent(win, locale)}")
                    best[dst] = (win, label)
        return [(dst, label) for dst, (_win, label) in sorted(best.items(), key=lambda x: -x[1][0])]


class FortifyFromOption(TerritoryOption):
    """A territory that can send armies now."""

    def ranked(self, game: Game, seat: int | None, interaction: discord.Interaction[Any]) -> list[tuple[str, str]]:
        return [] if seat is None else with_armies(game, game.fortify_sources(seat), interaction.locale)


class FortifyToOption(TerritoryOption):
    """Where the typed source can send armies."""

    def ranked(self, game: Game, seat: int | None, interaction: discord.Interaction[Any]) -> list[tuple[str, str]]:
        source = typed_source(game, interaction)
        if seat is None or source not in game.fortify_sources(seat):
            return []
        return with_armies(game, game.fortify_targets(seat, source), interaction.locale)


PlaceTerritory = app_commands.Transform[str, PlaceOption]
AttackFrom = app_commands.Transform[str, AttackFromOption]
AttackTo = app_commands.Transform[str, AttackToOption]
FortifyFrom = app_commands.Transform[str, FortifyFromOption]
FortifyTo = app_commands.Transform[str, FortifyToOption]

__all__ = ["AttackFrom", "AttackTo", "FortifyFrom", "FortifyTo", "PlaceTerritory", "playing",
           "ranked_choices"]
