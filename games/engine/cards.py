"""Cards and their notation (R1).

A card is a small integer, ``suit * 13 + rank - 1``, so that a hand fits in a
52-bit mask and each suit in 13 bits; the rest of the engine leans on that.
``Card`` subclasses ``int`` to keep that cheap while printing as players
write cards: ``As``, ``Td``, ``Qs``.

>>> parse_cards("As 10d q♠")
[As, Td, Qs]
>>> Card.of(12, "s").points
10
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .errors import CardError

SUITS = "shdc"
SUIT_SYMBOLS = "♠♥♦♣"
RANKS = "A23456789TJQK"
RANK_ALIASES = {"10": "T"}
ACE, JACK, QUEEN, KING = 1, 11, 12, 13

_CARD_PATTERN = re.compile(r"^(10|[2-9atjqk])([shdc♠♥♦♣])$", re.IGNORECASE | re.ASCII)


class Card(int):
    """One of the 52 cards; ``int(card)`` is its index, ``str(card)`` its name."""

    __slots__ = ()
    _all: tuple[Card, ...] = ()

    def __new__(cls, index: int) -> Card:
        if cls._all:
            try:
                if index >= 0:  # a negative index would wrap round to a real card
                    return cls._all[index]
            except (IndexError, TypeError):
                pass
            raise CardError("no_card_index", index=index)
        return super().__new__(cls, index)

    @classmethod
    def of(cls, rank: int, suit: str | int) -> Card:
        """The card of ``rank`` (1 = ace .. 13 = king) and ``suit`` ('s' or 0 ..)."""
        # Matched whole: str.index would take "" or "sh" for spades.
        suit_index = (SUITS.find(suit) if len(suit) == 1 else -1) if isinstance(suit, str) else suit
        if not (1 <= rank <= 13 and 0 <= suit_index <= 3):
            raise CardError("no_card_rank_suit", rank=rank, suit=suit)
        return cls(suit_index * 13 + rank - 1)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read one card as players type it: ``7h``, ``10d``, ``Td``, ``QS``, ``q♠``."""
        match = _CARD_PATTERN.match(text.strip())
        if not match:
            raise CardError("not_a_card", text=text)
        rank_text, suit_text = match.groups()
        rank_text = RANK_ALIASES.get(rank_text, rank_text).upper()
        suit_text = suit_text.lower()
        suit = SUITS.index(suit_text) if suit_text in SUITS else SUIT_SYMBOLS.index(suit_text)
        return cls.of(RANKS.index(rank_text) + 1, suit)

    @property
    def rank(self) -> int:
        """1 (ace) to 13 (king): the ace is always low (R1.2)."""
        return self % 13 + 1

    @property
    def suit(self) -> int:
        """0 to 3, in the order spades, hearts, diamonds, clubs."""
        return self // 13

    @property
    def points(self) -> int:
        """What the card counts as deadwood (R1.3)."""
        return POINTS[self % 13]

    @property
    def symbol(self) -> str:
        """The card with its suit symbol, for channels that can show it: ``7♥``."""
        return RANKS[self % 13] + SUIT_SYMBOLS[self // 13]

    def __str__(self) -> str:
        return RANKS[self % 13] + SUITS[self // 13]

    __repr__ = __str__

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))


POINTS = tuple(min(rank, 10) for rank in range(1, 14))
Card._all = tuple(Card(index) for index in range(52))
DECK: tuple[Card, ...] = Card._all


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Read cards separated by spaces or commas, in the order given."""
    words = re.split(r"[\s,]+", text.strip()) if isinstance(text, str) else list(text)
    return [Card.parse(word) for word in words if word]


def format_cards(cards: Iterable[Card]) -> str:
    """Cards as plain ASCII words: ``7h Td Qs``."""
    return " ".join(str(card) for card in cards)


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Cards by suit, then rank: the order a player would hold them."""
    return sorted(cards)


def points_of(cards: Iterable[Card]) -> int:
    """The deadwood count of cards that are all unmatched (R1.3)."""
    return sum(POINTS[card % 13] for card in cards)


# The cards by their points, the highest first: (points, mask of the cards worth them).
POINT_BANDS: tuple[tuple[int, int], ...] = tuple(
    (points, sum(1 << index for index in range(52) if POINTS[index % 13] == points))
    for points in sorted(set(POINTS), reverse=True)
)


def points_of_mask(mask: int) -> int:
    """``points_of`` the cards of a mask, without making them."""
    return sum(points * (mask & band).bit_count() for points, band in POINT_BANDS)


def mask_of(cards: Iterable[Card]) -> int:
    """The 52-bit mask of a collection of distinct cards (a repeated card raises)."""
    if not isinstance(cards, (list, tuple)):
        cards = list(cards)
    mask = 0
    for card in cards:
        mask |= 1 << card
    if mask.bit_count() != len(cards):
        twice = next(card for index, card in enumerate(cards) if card in cards[:index])
        raise CardError("card_twice", card=Card(twice))
    return mask


def indices_of(mask: int) -> Iterator[int]:
    """The indices of the cards in a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: int) -> list[Card]:
    """The cards of a mask, in index order."""
    return [DECK[index] for index in indices_of(mask)]
