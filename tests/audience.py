"""An independent referee of what the bot tells whom.

It replays the game's true log on its own (its own idea of fog of war: a player's and teammates' territories
and their neighbours) and checks every message, embed, map and exported log an audience received against
what that audience could have seen at some point of the game so far. It shares no code with ``engine.fog``
beyond the board and the reducer, so a mistake in the projections shows up here.

Maps are linked to the audience they were drawn for by hooking the renderer: each PNG the bot sends is
traced back to the state it was drawn from and the viewer it was drawn for.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from discord_offline.records import embed_lines

from engine import load_map
from engine.state import OVER, apply_event, initial_state

Audience = int | None


def own_view(state: Any, audience: Audience) -> set[str]:
    """The territories ``audience`` sees under fog, computed here from scratch."""
    if audience is None:
        return set()
    board = load_map(state.settings.map)
    team = state.teams.get(audience)
    friends = {audience} | ({s for s, t in state.teams.items() if t == team} if team is not None else set())
    held = {t for t, owner in state.owners.items() if owner in friends}
    return held | {n for t in held for n in board.neighbours(t)}


class RenderTrace:
    """Hooks ``present.drawing``: which state and viewer each PNG was drawn from."""

    def __init__(self, monkeypatch: Any) -> None:
        from present import drawing as maps

        self.by_digest: dict[str, tuple[Audience, Any]] = {}
        real_draw = maps.draw

        async def draw(job: Any) -> bytes:
            data: bytes = await real_draw(job)
            self.by_digest[hashlib.sha256(data).hexdigest()] = (job.audience, job.view.copy())
            return data

        monkeypatch.setattr(maps, "draw", draw)


@dataclass
class Referee:
    """Follows one game; ``check`` looks at the messages sent since the last check."""

    trace: RenderTrace
    seats: dict[str, int]                       # user name -> seat
    language_names: dict[str, str] = field(default_factory=dict)  # territory id -> its name in messages
    ever_seen: dict[Audience, set[str]] = field(default_factory=dict)
    ever_held_cards: dict[int, set[str]] = field(default_factory=dict)
    checked_events: int = 0
    checked_messages: int = 0
    checked_log: int = 0
    fog: bool = False
    over: bool = False
    state: Any = None
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {"messages": 0, "maps": 0, "exports": 0})

    def follow(self, events: list[dict[str, Any]]) -> None:
        """Advance along the true log: what each audience has seen so far."""
        if self.state is None:
            self.state = initial_state(events[0])
            self.fog = self.state.settings.fog == "on"
            board = load_map(self.state.settings.map)
            self.language_names = {t: board.name(t) for t in board.territory_ids}
            self.checked_events = 1
        audiences: list[Audience] = [None, *range(len(self.state.players))]
        for event in events[self.checked_events:]:
            for a in audiences:
                self.ever_seen.setdefault(a, set()).update(own_view(self.state, a))
            apply_event(self.state, event)
            for a in audiences:
                self.ever_seen.setdefault(a, set()).update(own_view(self.state, a))
            for seat, hand in self.state.hands.items():
                self.ever_held_cards.setdefault(seat, set()).update(hand)
        self.checked_events = len(events)
        self.over = self.state.phase == OVER

    def allowed(self, audience: Audience) -> set[str] | None:
        if self.over or not self.fog:
            return None
        cards = self.ever_held_cards.get(audience, set()) if audience is not None else set()
        return self.ever_seen.get(audience, set()) | cards

    def audience_of(self, message: Any) -> Audience:
        if message.visible_to is None:
            return None
        return self.seats.get(message.visible_to)

    def check(self, messages: list[Any], events: list[dict[str, Any]], secrets: dict[int, list[str]],
              log: list[Any] | None = None) -> None:
        """``secrets``: per seat, texts only that seat may read before the end (its mission, for example).

        With ``log`` (the offline server's log of every message change), every version of every message is
        checked, as it was when posted and after each edit (the live turn panel is edited all turn long);
        without it, the new messages as they are now."""
        self.follow(events)
        seed = self.state.seed if not self.over else None
        if log is None:
            for message in messages[self.checked_messages:]:
                self._check_one(message.content, message.text, message.attachments, self.audience_of(message),
                                events, seed, secrets)
            self.checked_messages = len(messages)
            return
        by_id = {m.id: m for m in messages}
        for entry in log[self.checked_log:]:
            if entry.action == "delete" or entry.message_id not in by_id:
                continue
            if entry.action == "edit":
                self.counts["edits"] = self.counts.get("edits", 0) + 1
            version = entry.version
            lines = version.content.splitlines() if version.content else []
            for embed in version.embeds:
                lines.extend(embed_lines(embed))
            self._check_one(version.content, "\n".join(lines), version.attachments,
                            self.audience_of(by_id[entry.message_id]), events, seed, secrets)
        self.checked_log = len(log)

    def _check_one(self, content: str, text: str, attachments: list[Any], audience: Audience,
                   events: list[dict[str, Any]], seed: str | None, secrets: dict[int, list[str]]) -> None:
        self.counts["messages"] += 1
        where = f"message {content[:60]!r} to {audience}"
        allowed = self.allowed(audience)
        if allowed is not None:
            for tid, name in self.language_names.items():
                if tid not in allowed and re.search(rf"\b{re.escape(name)}\b", text):
                    self.problems.append(f"{where} names {name}, out of its sight")
        if seed and seed in text:
            self.problems.append(f"{where} shows the dice seed")
        if not self.over:
            for seat, texts in secrets.items():
                mine = secrets.get(audience, []) if audience is not None else []
                if seat != audience and any(t and t in text and not any(t in m for m in mine) for t in texts):
                    self.problems.append(f"{where} shows seat {seat}'s secret")
        for attached in attachments:
            if attached.filename.endswith(("-report.png", "-timelapse.webp")):
                # The end-of-game report and timelapse show the whole game: only once it is over.
                self.counts["reports"] = self.counts.get("reports", 0) + 1
                if not self.over:
                    self.problems.append(f"{where}: {attached.filename} before the end of the game")
            elif attached.filename.endswith(".png"):
                self._check_map(where, audience, attached.data)
            elif attached.filename.endswith(".jsonl"):
                self._check_export(where, audience, attached.data.decode(), events, seed)

    def _check_map(self, where: str, audience: Audience, data: bytes) -> None:
        self.counts["maps"] += 1
        drawn = self.trace.by_digest.get(hashlib.sha256(data).hexdigest())
        if drawn is None:
            self.problems.append(f"{where}: a map that was not drawn through present.drawing")
            return
        viewer, state = drawn
        if viewer is not None and viewer != audience:
            self.problems.append(f"{where}: a map drawn for seat {viewer}")
        if state.phase == OVER:
            return
        shown = set(state.owners) | set(state.armies)
        allowed = self.allowed(audience)
        if allowed is not None and not shown <= allowed:
            self.problems.append(f"{where}: the map shows {sorted(shown - allowed)[:3]}")
        if state.seed:
            self.problems.append(f"{where}: the map's state holds the seed")
        for seat, hand in state.hands.items():
            if seat != audience and any(hand):
                self.problems.append(f"{where}: the map's state holds seat {seat}'s cards")
        if set(state.missions) - {audience}:
            self.problems.append(f"{where}: the map's state holds others' missions")

    def _check_export(self, where: str, audience: Audience, text: str, events: list[dict[str, Any]],
                      seed: str | None) -> None:
        self.counts["exports"] += 1
        shown = [json.loads(line) for line in text.splitlines() if line.strip()]
        if seed and seed in text:
            self.problems.append(f"{where}: the export holds the seed")
        if len(shown) > len(events):
            self.problems.append(f"{where}: the export has more events than the game")
            return
        if any(e["type"] == "game_over" for e in events):
            return
        state = initial_state(events[0])
        fog = state.settings.fog == "on"
        rest = iter(events[1:])
        for seen in shown[1:]:
            if seen.get("hidden"):
                self.problems.append(f"{where}: a hidden event is written out ({seen.get('type')})")
                continue
            sight = own_view(state, audience)
            for true in rest:  # the exported events are the log's, in order, some left out
                apply_event(state, true)
                if true["type"] == seen.get("type") and true.get("seat") == seen.get("seat"):
                    break
            else:
                self.problems.append(f"{where}: {seen.get('type')} is not in the log at that place")
                return
            sight |= own_view(state, audience)
            owner = true.get("seat")
            if true["type"] == "card_drawn" and owner != audience and seen.get("card") is not None:
                self.problems.append(f"{where}: seat {owner}'s card")
            if true["type"] == "missions_dealt" and set(seen.get("missions") or {}) - {str(audience)}:
                self.problems.append(f"{where}: others' missions")
            if true["type"] == "player_eliminated" and audience not in (true["seat"], true["by"]) \
                    and seen.get("cards_taken") is not None:
                self.problems.append(f"{where}: cards taken at an elimination")
            if not fog:
                continue
            names = [seen.get(k) for k in ("from", "to", "territory", "bonus_territory") if seen.get(k)]
            names += list((seen.get("owners") or {}).keys())
            names += [c.get("territory") for c in seen.get("cards") or [] if isinstance(c, dict) and c.get("territory")]
            mates = {audience} | ({s for s, t in state.teams.items() if t == state.teams.get(audience)}
                                  if audience is not None and audience in state.teams else set())
            if owner in mates and true["type"] in ("cards_traded", "turn_started"):
                continue
            out = [t for t in names if t not in sight]
            if out:
                self.problems.append(f"{where}: {true['type']} names {out} out of sight")
            if true["type"] == "turn_started" and "reinforcements" in seen:
                self.problems.append(f"{where}: another player's reinforcement figures")
            if audience is None and true["type"] not in PUBLIC_KINDS:
                self.problems.append(f"{where}: {true['type']} told to everybody under fog")


# Under fog, what everybody may read about: turns, trades, eliminations, surrenders, a substitute's claim of a seat
# (names only), the end (and the set-up).
PUBLIC_KINDS = {"game_started", "first_player", "missions_dealt", "territories_dealt", "setup_turn", "deck_shuffled",
                "wilds_returned", "turn_started", "turn_ended", "cards_traded", "player_eliminated",
                "player_surrendered", "mission_changed", "game_over", "seat_claimed",
                # a set-up round opens, and its placements are revealed (what is out of sight checked above)
                "setup_round", "placements_revealed"}


__all__ = ["Referee", "RenderTrace", "own_view"]
