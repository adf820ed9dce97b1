"""Playing: the slash commands of a turn, and the one path every move takes (commands and taps alike)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

import workers
from cogs.play.options import AttackFrom, AttackTo, FortifyFrom, FortifyTo, PlaceTerritory
from cogs.shared.base import CogBase
from cogs.shared.components import GameButton, Green, Grey, view_of
from cogs.shared.errors import ACK, CHANGED, UserError, acknowledge, reply_private
from cogs.shared.guards import game_here, game_or_last, seat_of
from engine import (
    Action,
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Game,
    Occupy,
    Place,
    RuleError,
    Trade,
    Undo,
)
from engine.errors import Territory, TurnRunning
from engine.fog import fog_hides_board, visible_territories, visible_to
from engine.odds import APPROXIMATION_ERROR, EXACT_LIMIT, QUICK_LIMIT, approximate_odds, battle_odds
from engine.state import ATTACK, CAPITAL, CLAIM, NEUTRAL, REINFORCE
from present import verbs as verb
from present.i18n import _, decimal, integer, ngettext, percent, resolve_territory, territory_name
from present.menus import trade_ref
from present.text import SYMBOLS, mission_line, territory_text
from store import GameRecord

MAX_TRADE_BUTTONS = 4
MOVE = {"move": True}  # the commands that play: acknowledged on receipt (``RiskCog.interaction_check``)
MAX_ODDS_ARMIES = 1_000_000
ODDS_CACHE = 256  # large battles computed in a worker, remembered here (the worker's own cache is its own)


def parse_cards(game: Game, seat: int, text: str, locale: object) -> tuple[str, ...]:
    """Cards typed as territory names (any language) or "wild", comma separated."""
    hand = list(game.state.hands.get(seat, []))
    chosen: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if part.lower() in ("wild", "joker", "comodín", "comodin"):
            wild = next((c for c in hand if game.board.is_wild(c) and c not in chosen), None)
            if wild is None:
                raise UserError(_("You hold no wild card.", locale))
            chosen.append(wild)
        else:
            chosen.append(resolve_territory(game.board, part))
    return tuple(chosen)


def trade_label(game: Game, seat: int, cards: tuple[str, ...], locale: object) -> str:
    """A trade button that says which cards it trades: their territories (★ where the card gives +2)."""
    s = game.state
    names = [_("Wild", locale) if game.board.is_wild(c) else
             territory_name(game.board, c, locale, short=True) + (" ★" if s.owners.get(c) == seat else "")
             for c in cards]
    return (_("Trade", locale) + ": " + ", ".join(names))[:80]


class PlayCommands(CogBase):
    # -- the one path of a move --------------------------------------------------------------------------
    async def perform(self, interaction: discord.Interaction[Any], record: GameRecord, action: Action) -> None:
        """Apply an action and answer: acknowledged first, then stored, then announced to each audience.

        The channel reads a move on the turn panel, which is edited (cogs/shared/live.py); the player's answer
        is private: a typed move's "thinking…" and a menu's answer are seen by the player alone."""
        game = record.game()
        private = fog_hides_board(game.state)
        interaction.extras[CHANGED] = False  # until the table stores it
        # Discord waits 3 s for the first response: it goes out before any store or rules work (a typed move
        # was acknowledged even before the game was read, see ``receive``). A refusal found afterwards becomes
        # a private explanation.
        acked = interaction.extras.get(ACK)
        done = _("That was already done.", interaction.locale)
        if acked is None:
            if await self.table.applied(record.id, str(interaction.id)):
                # A second delivery of an interaction that was applied (so acknowledged): a follow-up answers it.
                try:
                    await interaction.followup.send(done, ephemeral=True)
                except discord.HTTPException:
                    await interaction.response.send_message(done, ephemeral=True)
                return
            await acknowledge(interaction, True)
        elif await self.table.applied(record.id, str(interaction.id)):
            await reply_private(interaction, done)
            return
        try:
            game.validate(action)
        except TurnRunning as exc:   # another player's turn runs: until when, at the latest
            raise await self.table.until(record.id, exc) from None
        except RuleError as exc:
            hidden = next((v.territory for v in exc.params.values() if isinstance(v, Territory)
                           and private and v.territory not in visible_territories(game.state, action.seat)), None)
            if hidden is not None:  # the rules' words would tell who holds it: say only that it is out of sight
                raise UserError(_("You cannot see {territory} through the fog.", interaction.locale,
                                  territory=territory_text(game.board, hidden, interaction.locale))) from None
            raise
        outcome = await self.table.apply(record, action, str(interaction.id))
        interaction.extras[CHANGED] = not outcome.duplicate  # from here on, an error never says nothing changed
        if outcome.duplicate:
            await reply_private(interaction, _("That was already done.", interaction.locale))
            return
        await self.announcer.answer(interaction, outcome, private=private)

    async def receive(self, interaction: discord.Interaction[Any]) -> None:
        """A typed move's first response, before its options are read (they need the game): privately, as every
        answer to a move is (the channel reads the turn panel)."""
        # An interaction older than this process may be a second delivery that an earlier run acknowledged:
        # ``perform`` looks it up first.
        if ACK not in interaction.extras and interaction.created_at >= self.started:
            await acknowledge(interaction, True)

    async def act(self, interaction: discord.Interaction[Any], build: Any) -> None:
        """A typed move: the channel's game, the user's seat, the action ``build(seat, game)`` makes."""
        record = await game_here(self.store, interaction)
        seat = seat_of(record, interaction)
        await self.perform(interaction, record, build(seat, record.game()))

    # -- moves ---------------------------------------------------------------------------------------------
    @app_commands.command(name="place", description="Place armies on one of your territories (or claim one)",
                          extras=MOVE)
    @app_commands.describe(territory="Your territory (any name or alias)", count="How many armies (default: all)")
    async def place(self, interaction: discord.Interaction[Any], territory: PlaceTerritory,
                    count: int | None = None) -> None:
        def build(seat: int, game: Game) -> Action:
            s = game.state
            if s.phase == CLAIM:
                return Claim(seat, territory)
            if s.phase == CAPITAL:
                return ChooseCapital(seat, territory)
            if count is not None:
                return Place(seat, territory, count)
            if s.phase == REINFORCE:
                return Place(seat, territory, s.reinforcements)
            neutral = s.owners.get(territory) == NEUTRAL
            return Place(seat, territory, (s.neutral_left if neutral else s.batch_left) or 1)
        await self.act(interaction, build)

    @app_commands.command(name="attack", description="Attack an adjacent territory (one roll)", extras=MOVE)
    @app_commands.rename(source="from", target="to")
    @app_commands.describe(source="Your territory with 2 or more armies", target="An adjacent enemy territory",
                           dice="1 to 3 dice (default: the most you may roll)")
    async def attack(self, interaction: discord.Interaction[Any], source: AttackFrom, target: AttackTo,
                     dice: int | None = None) -> None:
        await self.act(interaction, lambda seat, game: Attack(seat, source, target, dice))

    @app_commands.command(name="blitz", description="Attack again and again until the territory falls or you stop",
                          extras=MOVE)
    @app_commands.rename(source="from", target="to")
    @app_commands.describe(source="Your territory", target="An adjacent enemy territory",
                           stop_at="Stop when your territory is down to this many armies (default 1)")
    async def blitz(self, interaction: discord.Interaction[Any], source: AttackFrom, target: AttackTo,
                    stop_at: int = 1) -> None:
        await self.act(interaction, lambda seat, game: Blitz(seat, source, target, stop_at))

    @app_commands.command(name="move", description="Move armies into the territory you just conquered", extras=MOVE)
    @app_commands.describe(count="How many armies end up in the conquered territory")
    async def move(self, interaction: discord.Interaction[Any], count: int) -> None:
        await self.act(interaction, lambda seat, game: Occupy(seat, count))

    @app_commands.command(name="fortify", description="Your one free move: armies from one territory to another",
                          extras=MOVE)
    @app_commands.rename(source="from", target="to")
    async def fortify(self, interaction: discord.Interaction[Any], source: FortifyFrom, target: FortifyTo,
                      count: int) -> None:
        await self.act(interaction, lambda seat, game: Fortify(seat, source, target, count))

    @app_commands.command(name="trade", description="Trade a set of cards for armies (no cards: the best set)",
                          extras=MOVE)
    @app_commands.describe(cards="Three cards, comma separated (territory names or 'wild'); empty: the best set")
    async def trade(self, interaction: discord.Interaction[Any],
                    cards: app_commands.Range[str, 1, 300] | None = None) -> None:
        def build(seat: int, game: Game) -> Action:
            if cards:
                return Trade(seat, parse_cards(game, seat, cards, interaction.locale))
            best = game.best_set(seat)
            if best is None:
                raise UserError(_("You have no set to trade now.", interaction.locale))
            return Trade(seat, best)
        await self.act(interaction, build)

    @app_commands.command(name="undo", description="Take back this turn's placements (before your first attack)",
                          extras=MOVE)
    async def undo(self, interaction: discord.Interaction[Any]) -> None:
        await self.act(interaction, lambda seat, game: Undo(seat))

    @app_commands.command(name="end", description="End your attacks, or your turn", extras=MOVE)
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        await self.act(interaction, lambda seat, game: EndAttack(seat) if game.state.phase == ATTACK
                       else EndTurn(seat))

    # -- what only you see -----------------------------------------------------------------------------------
    @app_commands.command(name="map", description="Show the map (only to you)")
    async def map(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_or_last(self.store, interaction)
        if record.state_json is None:
            raise UserError(_("The game has not started yet: the host starts it with </risk start>.",
                              interaction.locale))
        await self.announcer.private_map(interaction, record)

    @app_commands.command(name="cards", description="Your cards (only you see them)")
    async def cards(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_or_last(self.store, interaction)
        await self.send_cards(interaction, record, seat_of(record, interaction))

    async def send_cards(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None:
        game = record.game()
        s = game.state
        locale = interaction.locale
        hand = s.hands.get(seat, [])
        if not hand:
            text = _("You hold no cards. You draw one at the end of a turn in which you conquered a territory.",
                     locale)
        else:
            rows = [f"{SYMBOLS[game.card_symbol(c)]} " + (_("Wild", locale) if game.board.is_wild(c) else
                                                         territory_text(game.board, c, locale) +
                                                         (" ★" if s.owners.get(c) == seat else ""))
                    for c in hand]
            text = _("Your cards:", locale) + "\n" + "\n".join(rows)
            if any(s.owners.get(c) == seat for c in hand):  # the star is explained only where a card has one
                text += "\n" + _("★ = a territory you hold: +2 armies there when traded.", locale)
            if s.settings.cards == "escalating":
                text += "\n" + ngettext("The next set is worth {n} army.", "The next set is worth {n} armies.",
                                         game.next_set_value(), locale)
        offered: dict[str, tuple[str, ...]] = {}  # one button per set as it reads (two wilds are the same set)
        for combo in game.ranked_sets(seat):
            offered.setdefault(trade_label(game, seat, combo, locale), combo)
        sets = list(offered.items())[:MAX_TRADE_BUTTONS]
        buttons = [GameButton(record.id, verb.TRADE, trade_ref(game, combo), style=Green if n == 0 else Grey,
                              label=label) for n, (label, combo) in enumerate(sets)]
        if buttons:
            await interaction.response.send_message(text, ephemeral=True, view=view_of(*buttons))
        else:
            await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(name="mission", description="Your secret mission (only you see it)")
    async def mission(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_or_last(self.store, interaction)
        await self.send_mission(interaction, record, seat_of(record, interaction))

    async def send_mission(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None:
        game = record.game()
        mission = game.mission(seat)
        if mission is None:
            raise UserError(_("This game has no secret missions: conquer the world.", interaction.locale))
        text = mission_line(mission, game.board, game.state, interaction.locale)
        await interaction.response.send_message(_("📜 Your mission: {mission}", interaction.locale, mission=text),
                                                ephemeral=True)

    @app_commands.command(name="odds", description="Exact odds of an attack: two territories, or two numbers")
    @app_commands.rename(source="from", target="to")
    @app_commands.describe(source="Attacking territory", target="Defending territory",
                           attackers="Armies in the attacking territory", defenders="Armies defending")
    async def odds(self, interaction: discord.Interaction[Any], source: AttackFrom | None = None,
                   target: AttackTo | None = None, attackers: int | None = None,
                   defenders: int | None = None) -> None:
        locale = interaction.locale
        if source and target:
            record = await game_here(self.store, interaction)
            game = record.game()
            seen = visible_to(game.state, record.seat_of(interaction.user.id))
            hidden = [t for t in (source, target) if seen is not None and t not in seen]
            if hidden:
                raise UserError(_("You cannot see {territory} through the fog.", locale,
                                  territory=territory_text(game.board, hidden[0], locale)))
            attackers, defenders = game.state.armies[source], game.state.armies[target]
            head = (f"{territory_text(game.board, source, locale)} ({attackers}) → "
                    f"{territory_text(game.board, target, locale)} ({defenders})")
        elif attackers is not None and defenders is not None:
            head = f"{attackers} → {defenders}"
        else:
            raise UserError(_("Give two territories (from, to) or two numbers (attackers, defenders).", locale))
        if not (1 <= attackers <= MAX_ODDS_ARMIES and 1 <= defenders <= MAX_ODDS_ARMIES):
            raise UserError(_("Armies must be between 1 and {n}.", locale, n=integer(MAX_ODDS_ARMIES, locale)))
        key = (attackers, defenders)
        if key in self.odds_cache:
            o = self.odds_cache[key]
        elif attackers * defenders <= QUICK_LIMIT:
            o = battle_odds(attackers, defenders)  # a few milliseconds, and cached
        elif attackers * defenders <= EXACT_LIMIT:  # up to a second: acknowledged first, computed in a worker
            await interaction.response.defer(ephemeral=True, thinking=True)
            o = self.odds_cache[key] = await workers.run(battle_odds, attackers, defenders)
            while len(self.odds_cache) > ODDS_CACHE:
                del self.odds_cache[next(iter(self.odds_cache))]
        else:  # exact odds would cost too much: the normal approximation, in microseconds
            o = approximate_odds(attackers, defenders)
        text = _("{head}: the attacker takes it {win} of the time (blitz to the end). Expected left: attacker "
                 "{a}, defender {d}.", locale, head=head, win=percent(o.win, locale, 1),
                 a=decimal(o.expected_attacker_left, locale), d=decimal(o.expected_defender_left, locale))
        if attackers * defenders > EXACT_LIMIT:
            text += "\n" + _("Too many armies for exact odds: this is an approximation, off the exact chance by at "
                             "most {points} percentage points.", locale,
                             points=decimal(100 * APPROXIMATION_ERROR, locale))
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)


__all__ = ["PlayCommands", "parse_cards"]
