"""Risk cards: the deck, what makes a set, and what a set is worth."""

from __future__ import annotations

from itertools import combinations

from .board import DEFAULT_WILDCARDS, Board, wild_card_ids

WILD = "wild"
WILD_CARDS = wild_card_ids(DEFAULT_WILDCARDS)   # the classic deck's wild cards; a map's are ``board.wild_cards``
FIXED_VALUES = {"infantry": 4, "cavalry": 6, "artillery": 8, "mixed": 10}


def full_deck(board: Board, wilds: bool = True) -> list[str]:
    """All cards: one per territory that has a card (its id), in the map's order, and, unless left out, the
    map's wild cards (two on the classic map)."""
    cards = [t for t in board.territory_ids if board.territories[t].card is not None]
    return cards + (list(board.wild_cards) if wilds else [])


def symbol(board: Board, card: str) -> str:
    """A card's symbol: ``wild``, or the symbol on its territory's card."""
    if board.is_wild(card):
        return WILD
    found = board.territories[card].card
    if found is None:
        raise ValueError(f"{card} has no card on this map")
    return found


def set_kind(board: Board, cards: tuple[str, ...] | list[str]) -> str | None:
    """The kind of a valid set (a symbol name, ``"mixed"``, or for wild sets the best kind), else None."""
    if len(cards) != 3 or len(set(cards)) != 3:
        return None
    symbols = [symbol(board, c) for c in cards]
    wilds = symbols.count(WILD)
    plain = [s for s in symbols if s != WILD]
    if wilds:
        # Any two cards plus a wild make a set; in fixed values the wild takes the best role.
        if wilds >= 2 or len(set(plain)) == 2:
            return "mixed"
        return plain[0] if len(plain) == 2 else "mixed"
    if len(set(plain)) == 1:
        return plain[0]
    if len(set(plain)) == 3:
        return "mixed"
    return None


def escalating_value(set_number: int) -> int:
    """Armies for the n-th set traded in the game (counted across all players): 4 6 8 10 12 15 20 25 ..."""
    if set_number <= 5:
        return 2 + 2 * set_number
    return 15 + 5 * (set_number - 6)


def set_value(mode: str, set_number: int, kind: str) -> int:
    if mode == "escalating":
        return escalating_value(set_number)
    if mode == "fixed":
        return FIXED_VALUES[kind]
    return 0


def valid_sets(board: Board, hand: list[str]) -> list[tuple[str, ...]]:
    """Every distinct valid set in a hand, in hand order."""
    return [combo for combo in combinations(hand, 3) if set_kind(board, combo) is not None]
