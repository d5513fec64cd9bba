"""Cards as people read them: rank and suit symbol, red hearts and diamonds,
black spades and clubs; the symbol is always there, so colour is never the
only sign of a suit."""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from games.engine import Card, parse_cards

register = template.Library()

SUITS = (("♠", "s", _("spades")), ("♥", "h", _("hearts")), ("♦", "d", _("diamonds")), ("♣", "c", _("clubs")))
RANK_LABELS = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K"}


def _card(card: Card | str) -> Card:
    return card if isinstance(card, Card) else parse_cards(str(card))[0]


@register.filter
def card(value: Card | str | None) -> SafeString:
    """``<span class="card red">7♥</span>``, with the card's name for screen readers."""
    if value is None or value == "":
        return format_html('<span class="card none">–</span>')
    card = _card(value)
    rank = str(card)[0]
    symbol, letter, name = SUITS[card.suit]
    colour = "red" if letter in "hd" else "black"
    return format_html(
        '<span class="card {}" title="{} {}">{}<span class="suit">{}</span></span>',
        colour,
        RANK_LABELS.get(rank, rank),
        name,
        RANK_LABELS.get(rank, rank),
        symbol,
    )


@register.filter
def cards(values: Iterable[Card | str]) -> SafeString:
    return format_html_join("", "{}", ((card(value),) for value in values))


@register.filter
def get_item(mapping: dict, key):
    """``{{ mapping|get_item:key }}``: a dict's value for a key the template computes."""
    return mapping.get(key) if mapping else None
