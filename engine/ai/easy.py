"""The easy AI: random legal play that still finishes games.

Its randomness comes from the game's own state (a hash of the action count), so games stay replayable. It
decides on what its seat may know (``knowledge.seat_view``): under fog the hash leaves out the dice count, which
tells how much fighting went on out of sight.
"""

from __future__ import annotations

import hashlib

from ..actions import Action, Attack, Blitz, ChooseCapital, Claim, EndAttack, EndTurn, Fortify, Occupy, Place, Trade
from ..game import Game
from ..state import ATTACK, CAPITAL, CLAIM, FORTIFY, OCCUPY, REINFORCE, SETUP
from .knowledge import Memory, seat_view


class EasyAI:
    level = "easy"

    def __init__(self, salt: str = "") -> None:
        self.salt = salt

    def _pick(self, game: Game, n: int, tag: str) -> int:
        s = game.state
        dice = "" if s.settings.fog == "on" else s.dice_index
        key = f"{s.seed_commitment}:{s.event_count}:{dice}:{tag}:{self.salt}"
        digest = hashlib.sha256(key.encode()).digest()
        return int.from_bytes(digest[:8], "big") % n

    def choose(self, game: Game, seat: int, memory: Memory | None = None) -> Action:
        """The next action of ``seat``, from what it may know (``memory``: what it saw under fog)."""
        return self._decide(seat_view(game, seat, memory), seat)

    def _decide(self, game: Game, seat: int) -> Action:
        s = game.state
        if s.phase == CLAIM:
            options = game.claimable()
            return Claim(seat, options[self._pick(game, len(options), "claim")])
        if s.phase == SETUP:
            options = game.placeable(seat)
            return Place(seat, options[self._pick(game, len(options), "setup")], 1)
        if s.phase == CAPITAL:
            options = game.capital_choices(seat)
            return ChooseCapital(seat, options[self._pick(game, len(options), "capital")])
        if s.phase == REINFORCE:
            best = game.best_set(seat)
            if best is not None and (game.must_trade(seat) or self._pick(game, 2, "trade") == 0):
                return Trade(seat, best)
            mine = game.placeable(seat)
            fronts = [t for t in mine if game.attack_targets(seat, t)] or mine
            return Place(seat, fronts[self._pick(game, len(fronts), "place")], s.reinforcements)
        if s.phase == OCCUPY:
            assert s.pending is not None
            lo, hi = s.pending["min"], s.pending["max"]
            return Occupy(seat, hi if self._pick(game, 3, "occupy") else lo)
        if s.phase == ATTACK:
            sources = game.attack_sources(seat)
            # Attack often while it has the edge in armies, else stop: this keeps games finite.
            good = [t for t in sources if any(s.armies[t] > s.armies[x] for x in game.attack_targets(seat, t))]
            if good and self._pick(game, 4, "go") != 0:
                src = good[self._pick(game, len(good), "src")]
                targets = [x for x in game.attack_targets(seat, src) if s.armies[src] > s.armies[x]]
                dst = targets[self._pick(game, len(targets), "dst")]
                if self._pick(game, 3, "blitz"):
                    return Blitz(seat, src, dst)
                return Attack(seat, src, dst)
            return EndAttack(seat)
        if s.phase == FORTIFY:
            sources = game.fortify_sources(seat)
            interior = [t for t in sources if not game.attack_targets(seat, t)]
            if interior:
                src = interior[self._pick(game, len(interior), "fsrc")]
                targets = game.fortify_targets(seat, src)
                if not game.fortify_ends_turn:
                    # Many moves a turn: only toward the front, so the moves run out.
                    targets = [t for t in targets if game.attack_targets(seat, t) or s.owners.get(t) != seat]
                    if not targets:
                        return EndTurn(seat)
                dst = targets[self._pick(game, len(targets), "fdst")]
                return Fortify(seat, src, dst, s.armies[src] - 1)
            return EndTurn(seat)
        raise RuntimeError(f"no move for phase {s.phase}")
