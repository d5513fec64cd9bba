"""A card's name in words ("queen of hearts"), for tooltips and screen readers.

Why whole names: "Q hearts" is how a card is typed, not read; and a language
declines the suit or the rank ("širdžių dama"), so each suit has a pattern of
its own for the translator.
"""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

from games.engine import Card
from games.engine.cards import RANKS, SUITS

RANK_NAMES = {
    1: pgettext_lazy("card rank", "ace"),
    11: pgettext_lazy("card rank", "jack"),
    12: pgettext_lazy("card rank", "queen"),
    13: pgettext_lazy("card rank", "king"),
}
# In the engine's order of suits: spades, hearts, diamonds, clubs.
PATTERNS = (
    pgettext_lazy("card name", "%(rank)s of spades"),
    pgettext_lazy("card name", "%(rank)s of hearts"),
    pgettext_lazy("card name", "%(rank)s of diamonds"),
    pgettext_lazy("card name", "%(rank)s of clubs"),
)


def card_name(card: Card) -> str:
    """The card's name in the active language.

    >>> from django.utils import translation
    >>> with translation.override("en"):
    ...     card_name(Card.parse("Qh")), card_name(Card.parse("10s"))
    ('queen of hearts', '10 of spades')
    """
    rank = RANK_NAMES.get(card.rank, str(card.rank))
    return str(PATTERNS[card.suit]) % {"rank": rank}


def card_name_parts() -> dict[str, dict[str, str]]:
    """What a page's script names cards with, in the active language: the names of the
    ranks that are not numbers, and each suit's pattern, keyed as the engine writes
    them (``A``, ``h``). Parts, not the 52 names: a page that lists every card would
    look to a reader of its source like a page that shows them."""
    return {
        "ranks": {RANKS[rank - 1]: str(name) for rank, name in RANK_NAMES.items()},
        "patterns": {suit: str(pattern) for suit, pattern in zip(SUITS, PATTERNS, strict=True)},
    }
