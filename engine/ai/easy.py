"""The easy AI: a beginner with a plan. It goes for a continent, reinforces its borders, takes its card most
turns and trades its sets, as ``normal`` does, only worse:

- it picks among the few best choices, not always the best (its claims and its placements), and chooses the
  continent to go for only by how much of it it holds (normal weighs small valuable continents first);
- it looks at fewer attacks: only those from its three largest stacks that border an enemy;
- it misjudges the odds (each battle's chance of winning off by up to ``MISJUDGE`` either way) and attacks on
  worse ones (``FIRST``, then ``AGAIN`` after its first conquest of the turn, against normal's 60% and 75%);
- its blitzes go on to the last army it may throw (normal keeps a garrison behind);
- it follows a conquest timidly: it moves in the fewest armies it may, everything only now and then
  (``MOVE_ALL``), so its attacks seldom roll on from territory to territory;
- it moves armies up to the front only now and then (``FORTIFY_CHANCE``).

Its randomness comes from the game's own state (a hash of the seed commitment and the event count, which every
player sees), so a game replays the same way. It decides on what its seat may know (``knowledge.seat_view``):
under fog the hash leaves out the dice count, which tells how much fighting went on out of sight.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

from ..actions import Action, Blitz
from ..choices import Choices
from ..game import Game
from ..odds import QUICK_LIMIT, odds
from ..state import NEUTRAL
from .normal import NormalAI

T = TypeVar("T")

MISJUDGE = 0.12        # the most its guess of a battle's chance to win is off, either way
FIRST = 0.5            # the chance to win (as it guesses it) it wants for the turn's first conquest: the card
AGAIN = 0.65           # and after it
SOURCES = 3            # it considers attacks from this many of its largest border stacks
FORTIFY_CHANCE = 1 / 3  # the share of its turns in which it moves armies up to the front
MOVE_ALL = 0.3         # the share of its conquests it follows with every army it may move in
TOP = 3                # it picks among this many of the best-looking claims and placements


class EasyAI(NormalAI):
    level = "easy"

    def __init__(self, salt: str = "") -> None:
        super().__init__()
        self.salt = salt

    # -- its randomness: a hash of what every player sees ----------------------------------------------------
    def _roll(self, game: Game, tag: str) -> float:
        """A number in [0, 1), the same for the same public position, seat and ``tag``."""
        s = game.state
        dice = "" if s.settings.fog == "on" else s.dice_index
        key = f"{s.seed_commitment}:{s.event_count}:{dice}:{tag}:{self.salt}"
        digest = hashlib.sha256(key.encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64

    def _among_best(self, game: Game, options: Sequence[T], score: dict[T, float], tag: str) -> T:
        """One of the ``TOP`` best-scored ``options`` (ties in the options' order), the best the most often."""
        ranked = sorted(options, key=lambda o: -score[o])[:TOP]
        roll = self._roll(game, tag)
        # Weights 3, 2, 1: the best half the time.
        weights = [len(ranked) - i for i in range(len(ranked))]
        pick = roll * sum(weights)
        for option, weight in zip(ranked, weights, strict=True):
            if pick < weight:
                return option
            pick -= weight
        return ranked[-1]

    # -- decisions -------------------------------------------------------------------------------------
    # Its decisions where they differ from normal's (the dispatch on the choices is normal's, ``_decide``).
    def _claim_choice(self, game: Game, seat: int) -> str:
        scores = NormalAI.claim_scores(game, seat, near=0.0)   # no eye for its neighbours
        return self._among_best(game, list(scores), scores, "claim")

    def _fortify_move(self, game: Game, seat: int, c: Choices) -> Action | None:
        if self._roll(game, f"fortify:{game.state.turn}") < FORTIFY_CHANCE:
            return self._fortify_choice(game, seat, c)
        return None

    def target_continent(self, game: Game, seat: int) -> str:
        """The continent it is after: the one it holds most of that is not yet wholly its own (a continents
        mission's first), without the fine weighing of ``normal``."""
        s = game.state
        board = game.board
        held = {c: sum(1 for t in board.continents[c].territories if s.owners.get(t) == seat) / len(
            board.continents[c].territories) for c in board.continents}
        pool = [c for c in held if held[c] < 1]
        mission = game.mission(seat)
        if mission is not None and mission["kind"] == "continents":
            pool = [c for c in mission["continents"] if c in pool] or pool
        return max(pool or list(held), key=lambda c: held[c])

    def _reinforce_target(self, game: Game, seat: int) -> str:
        """A held continent's border under threat first (the most threatened), else a border territory of the
        continent it is after, among the few best-looking."""
        s = game.state
        board = game.board
        mine = [t for t in board.territory_ids if s.owners.get(t) == seat]
        held = [c for c in board.continents.values() if all(s.owners.get(t) == seat for t in c.territories)]
        doors = [t for c in held for t in c.territories
                 if self.enemy_pressure(game, seat, t) > s.armies[t]]
        capital = game.capital_of(seat)
        if capital is not None and s.owners.get(capital) == seat \
                and self.enemy_pressure(game, seat, capital) > s.armies[capital]:
            doors.append(capital)
        if doors:
            return max(doors, key=lambda t: self.enemy_pressure(game, seat, t) - s.armies[t])
        goal = self.target_continent(game, seat)
        borders = [t for t in mine if self.is_border(game, seat, t)] or mine

        def score(t: str) -> float:
            in_goal = board.territories[t].continent == goal
            enemies = [n for n in board.neighbours(t) if not game.friendly(seat, s.owners.get(n))]
            into_goal = sum(1 for n in enemies if board.territories[n].continent == goal)
            return in_goal * 3 + into_goal * 2 + s.armies[t] * 0.05

        return self._among_best(game, borders, {t: score(t) for t in borders}, "place")

    def _guess(self, game: Game, src: str, dst: str) -> float:
        """Its guess of a blitz's chance to win: the real chance, off by up to ``MISJUDGE`` either way."""
        s = game.state
        chance = odds(s.armies[src], s.armies[dst], QUICK_LIMIT)[0].win
        return chance + (self._roll(game, f"odds:{src}:{dst}") * 2 - 1) * MISJUDGE

    def _attack_choice(self, game: Game, seat: int, c: Choices) -> Action | None:
        s = game.state
        board = game.board
        goal = self.target_continent(game, seat)
        capitals = self.enemy_capitals(game, seat)
        prey = self.target_seat(game, seat)
        sources = sorted(c.attack, key=lambda t: -s.armies[t])[:SOURCES]
        threshold = AGAIN if s.conquered_this_turn else FIRST
        best: tuple[float, str, str] | None = None
        for src in sources:
            for dst in c.attack[src].targets:
                guess = self._guess(game, src, dst)
                if guess < threshold:
                    continue
                defender = s.owners.get(dst)
                value = guess + (0.25 if board.territories[dst].continent == goal else 0.0)
                value += 0.3 if dst in capitals else 0.0
                value += 0.3 if prey is not None and defender == prey else 0.0
                value -= 0.1 if defender == NEUTRAL else 0.0
                if best is None or value > best[0]:
                    best = (value, src, dst)
        if best is None:
            return None
        _, src, dst = best
        return Blitz(seat, src, dst)

    def _occupy_count(self, game: Game, seat: int) -> int:
        """The least it may move in, but now and then (``MOVE_ALL``) everything, if the new territory faces an
        enemy."""
        s = game.state
        assert s.pending is not None
        lo, hi = int(s.pending["min"]), int(s.pending["max"])
        dst = str(s.pending["to"])
        exposed = any(not game.friendly(seat, s.owners.get(n)) for n in game.board.touching(dst))
        return hi if exposed and self._roll(game, "occupy") < MOVE_ALL else lo
