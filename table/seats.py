"""Substitutes: a seat the AI took from its player (missed turns, ``on_boot`` = ``ai``), offered by the host to
another player, who claims it and plays it from then on.

An offer is a key in the seat's status (``SeatStatus.offer``); the claim button carries it, so a button of an
offer withdrawn or claimed since, or a custom id made up, claims nothing. The claim is one transaction of the
store (``Plays.claim``, table/play.py) that checks the key again, so of two claims of one offer exactly one
wins. The seat's players are remembered from turn to turn (``seat_holders``): the results give each of them the
turns they played (store/results.py), and the seat's secrets are the substitute's from the claim on, as the
seat's player (``engine.fog`` goes by who holds the seat; the player who left holds none). The claim is in the
game's log too (the engine's ``ClaimSeat``, its event ``seat_claimed``): the seat's name in the game is the
substitute's from then on, so every message, panel, map and log names them, and what came before the player who
left.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING

from ratings import EARLY_TURNS
from store import PAUSED, RUNNING, GameRecord, SeatStatus, Store, StoreError
from store.errors import AlreadySeated, NotSeated

from .outcome import OFFER_WITHDRAWN, SEAT_CLAIMED, SEAT_OFFERED, Note, Outcome, Part
from .play import Plays
from .refusals import SeatRefused

if TYPE_CHECKING:
    from engine import GameState


class SeatOffers:
    """The ``Table``'s methods for substitutes (mixed into it: table/flow.py)."""

    store: Store
    plays: Plays

    if TYPE_CHECKING:
        def lock(self, game_id: int) -> asyncio.Lock: ...

        async def sync(self, record: GameRecord, state: GameState | None = None) -> float | None: ...

        async def _finish(self, record: GameRecord, parts: list[Part],
                          notes: list[Note] | None = None) -> Outcome: ...

    async def offer_seat(self, game_id: int, seat: int) -> Outcome:
        """The host offers a seat the AI took over to another player (an open offer is offered again, with its
        key). The outcome's ``offer`` is the key the claim button carries."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            if record.status not in (RUNNING, PAUSED):
                raise SeatRefused(SeatRefused.OVER)
            if await self.store.tournament_of_game(game_id) is not None:  # its player forfeits the table
                raise StoreError("A tournament's seat is not offered to a substitute: the player who left it "
                                 "forfeits the table.")
            before = await self.store.seat_status(game_id, seat)
            try:
                status = await self.store.set_offer(game_id, seat, secrets.token_hex(6))
            except NotSeated:
                raise SeatRefused(SeatRefused.NOT_TAKEN) from None
            return Outcome(record, notes=[Note(SEAT_OFFERED, seat)], seat_status=status, offer=status.offer,
                           offer_message=before.offer_message, takeover_message=before.takeover_message)

    async def withdraw_offer(self, game_id: int, seat: int) -> Outcome:
        """The host withdraws the offer of a seat; the AI goes on playing it."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            status = await self.store.seat_status(game_id, seat)
            if status.offer is None:
                raise SeatRefused(SeatRefused.NOT_OFFERED)
            message = status.offer_message
            status = await self.store.set_offer(game_id, seat, None)
            return Outcome(record, notes=[Note(OFFER_WITHDRAWN, seat)], seat_status=status, offer_message=message)

    async def claim_seat(self, game_id: int, seat: int, offer: str, user_id: int, name: str) -> Outcome:
        """``user_id`` claims the offered seat (``offer``: the key on the button they pressed) and plays it from
        the current turn on; the AI plays on at once if it is an AI's turn, and the turn's timers are set if it is
        the substitute's. ``SeatRefused`` if the game is over, the claimer plays in it (or did), the seat is not
        offered with this key (claimed meanwhile: exactly one claim wins), or the claimer's reliability is below
        the game's ``min_reliability`` (as for joining its lobby)."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            if record.status not in (RUNNING, PAUSED) or record.state_json is None:
                raise SeatRefused(SeatRefused.OVER)
            if record.seat_of(user_id) is not None:
                raise SeatRefused(SeatRefused.SEATED)
            status = await self.store.seat_status(game_id, seat)
            if status.offer is None or not secrets.compare_digest(status.offer, offer):
                raise SeatRefused(SeatRefused.NOT_OFFERED)
            minimum = int(record.settings.get("min_reliability") or 0)
            if minimum:
                figure = (await self.store.reliability(record.guild_id, [user_id], record.channel_id,
                                                       early_turns=EARLY_TURNS))[user_id]
                if figure.percent is not None and figure.percent < minimum:
                    raise SeatRefused(SeatRefused.BELOW, figure, minimum)
            state = record.game().state
            since, former = max(1, state.turn), state.players[seat].name
            try:
                claimed = await self.plays.claim(game_id, seat, offer, user_id, name, since)
            except AlreadySeated:
                raise SeatRefused(SeatRefused.SEATED) from None
            if claimed is None:
                raise SeatRefused(SeatRefused.NOT_OFFERED)
            await self.store.cancel_orders(game_id, seat)   # the seat's plan was its last player's (table/orders.py)
            outcome = await self._finish(claimed, [], [Note(SEAT_CLAIMED, seat, since, name=former)])
            outcome.offer_message, outcome.takeover_message = status.offer_message, status.takeover_message
            return outcome

    async def seat_message_posted(self, game_id: int, seat: int, *, offer_message: int | None = None,
                                  takeover_message: int | None = None) -> None:
        """This channel message is the seat's offer (or tells of the AI's takeover with the host's offer button):
        a claim, a withdrawal or a new offer edits it, after a restart too."""
        await self.store.note_seat_message(game_id, seat, offer_message=offer_message,
                                           takeover_message=takeover_message)

    async def _taken_from(self, record: GameRecord, user_id: int) -> SeatStatus | None:
        """The status of the seat the AI took from ``user_id``, if any (a reinstate withdraws its offer)."""
        for p in record.players:
            if p.is_ai:
                status = await self.store.seat_status(record.id, p.seat)
                if status.booted_user_id == user_id:
                    return status
        return None


__all__ = ["SeatOffers"]
