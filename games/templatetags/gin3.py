"""Cards as people read them: rank and suit symbol, red hearts and diamonds,
black spades and clubs; the symbol is always there, so colour is never the
only sign of a suit."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime

from django import template
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.contract.tables import Automatic
from games.engine import Card, parse_cards
from games.text.advice import reason_words
from games.text.bidi import isolate
from games.text.card_names import card_name
from games.text.style import ROLE_NAMES, duration_text

register = template.Library()

SUITS = (("♠", "s"), ("♥", "h"), ("♦", "d"), ("♣", "c"))
RANK_LABELS = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K"}


def _card(card: Card | str) -> Card:
    return card if isinstance(card, Card) else parse_cards(str(card))[0]


@register.filter
def card(value: Card | str | None) -> SafeString:
    """``<span class="card red">7♥</span>``, with the card's name ("7 of hearts") for
    its tooltip and for screen readers."""
    if value is None or value == "":
        return mark_safe('<span class="card none">–</span>')
    card = _card(value)
    rank = str(card)[0]
    symbol, letter = SUITS[card.suit]
    colour = "red" if letter in "hd" else "black"
    return format_html(
        '<span class="card {}" title="{}">{}<span class="suit">{}</span></span>',
        colour,
        card_name(card),
        RANK_LABELS.get(rank, rank),
        symbol,
    )


@register.filter
def cards(values: Iterable[Card | str]) -> SafeString:
    return format_html_join("", "{}", ((card(value),) for value in values))


@register.filter
def meld(values: Iterable[Card | str]) -> SafeString:
    """A meld's cards, together, as the arrangements on the page draw them."""
    return format_html('<span class="meld">{}</span>', cards(values))


@register.filter
def isolated(sentence: str) -> str:
    """A sentence that names commands (``bot easy``, ``make play``), for a right-to-left
    reader with each run of them isolated (``games.text.bidi``): in Hebrew the words of
    ``bot easy, bot normal`` changed places with the sentence's own."""
    return isolate(str(sentence), get_language())


@register.filter
def name(value: str) -> SafeString:
    """A player's name in a sentence: isolated, so that a name in another script
    does not reorder the words around it."""
    return format_html('<bdi class="name">{}</bdi>', value)


@register.filter
def role_name(role: str) -> str:
    """A role's name in the reader's language: the same words as the messages use."""
    return str(ROLE_NAMES.get(role, ""))


@register.filter
def time_waited(since) -> str:
    """How long a match has waited, in the notation of ``new 5m`` that every language
    reads (``3d 4h``), rather than Django's ``timesince``, which lacks some of ours."""
    return duration_text((timezone.now() - since).total_seconds())


@register.filter
def local_time(moment: datetime | None) -> SafeString:
    """A moment in UTC, marked so that the page's script says it in the reader's own
    time zone and language (``site.js``); without script it stays readable in UTC."""
    if moment is None:
        return format_html("–")
    utc = moment.astimezone(UTC).replace(microsecond=0)  # HTML's dates have no microseconds
    return format_html('<time datetime="{}" data-local>{} UTC</time>', utc.isoformat(), utc.strftime("%Y-%m-%d %H:%M"))


# A name of the hash that a browser would break at its hyphen ("SHA-" / "256"), with
# what a language writes against it (Hebrew's "ה-SHA-256"), or its formula.
WHOLE = re.compile(r"[^\s<>]*(?:SHA-256|sha256\([^\s)]*\))[^\s<>]*")


@register.filter
def keep_whole(text: str) -> SafeString:
    """A sentence (escaped unless it is trusted markup, like a blocktranslate's) with
    the hash's name kept on one line."""
    return mark_safe(WHOLE.sub(lambda token: f'<span class="nowrap">{token.group()}</span>', conditional_escape(text)))


@register.filter
def get_item(mapping: dict, key):
    """``{{ mapping|get_item:key }}``: a dict's value for a key the template computes."""
    return mapping.get(key) if mapping else None


MOVE_WORDS = {
    "pass": _("%(name)s passes on the upcard"),
    "take": _("%(name)s takes from the pile"),
    "draw": _("%(name)s draws from the stock"),
    "discard": _("%(name)s discards"),
    "knock": _("%(name)s knocks, discarding"),
}
MOVE_NOTES = {Automatic.TIMEOUT: _("(time ran out)"), Automatic.COMPUTER: _("(computer)")}


@register.filter
def move(value) -> SafeString:
    """A public move (``public.PublicMove``) in words, its card drawn as a card.
    A filter rather than an included template: a long hand has a hundred moves."""
    words = format_html("{}", str(MOVE_WORDS[value.action]) % {"name": value.name})
    if value.card is not None:
        words = format_html("{} {}", words, card(value.card))
    note = MOVE_NOTES.get(value.automatic)
    return format_html('{} <span class="muted small">{}</span>', words, note) if note else words


# What the hard level would have played instead of a person's move, by its kind; "play_on":
# a discard where he knocked.
REVIEW_CHOICES = {
    "pass": _("the hard level would have passed on the upcard"),
    "take": _("the hard level would have taken %(card)s from the pile"),
    "draw": _("the hard level would have drawn from the stock"),
    "discard": _("the hard level would have discarded %(card)s"),
    "play_on": _("the hard level would have discarded %(card)s without knocking"),
    "knock": _("the hard level would have knocked, discarding %(card)s"),
}
# "On average": the points are what the choice was worth to the hand's expected score, not
# points anybody scored.
REVIEW_WORDS = _("%(choice)s: by its estimate, worth %(points)s points more on average")
REVIEW_WORDS_WHY = _("%(choice)s: by its estimate, worth %(points)s points more on average, because %(why)s")


@register.filter
def review_mark(mark, played) -> SafeString:
    """A person's move the hard level would have played otherwise (``ReviewMark``), beside
    the move he played (``PublicMove``): its choice in words, its card drawn as a card (the
    pile's card for a take), what it was worth more, written as numbers are in the
    reader's language, and why. The points are isolated (``<bdi>``): in a right-to-left
    sentence they would change places with what precedes them."""
    kind, _space, card_text = mark.better.partition(" ")
    card_text = card_text or mark.card
    if kind == "discard" and played.action == "knock":
        kind = "play_on"
    choice = conditional_escape(str(REVIEW_CHOICES[kind])) % {"card": card(card_text) if card_text else ""}
    values = {
        "choice": mark_safe(choice),
        "points": format_html("<bdi>{}</bdi>", number_format(mark.points, decimal_pos=1)),
        "why": conditional_escape(reason_words(mark.why, mark.why_card)) if mark.why else "",
    }
    text = conditional_escape(str(REVIEW_WORDS_WHY if mark.why else REVIEW_WORDS)) % values
    return format_html('<span class="review small" data-review>— {}</span>', mark_safe(text))


DEAL_MARKS = {
    "captain": pgettext_lazy("a card dealt to the captain", "C"),
    "box": pgettext_lazy("a card dealt to the box", "B"),
    "upcard": pgettext_lazy("the upcard", "U"),
    "stock": pgettext_lazy("a card of the stock", "S"),
}


@register.filter
def deal_order(dealt) -> SafeString:
    """Each card of the deck with where the deal put it and its place: ``C1``, ``B2``..."""
    return format_html_join(
        "",
        "<figure>{}<figcaption>{}{}</figcaption></figure>",
        ((card(value), DEAL_MARKS[place], index) for index, (value, place) in enumerate(dealt, start=1)),
    )


@register.filter
def arrangement(cards_view: dict | None) -> SafeString:
    """A hand laid down at the end (``Hand.summary``): its melds, its deadwood and the count."""
    if not cards_view:
        return mark_safe("")
    melds = format_html_join("", "{}", ((meld(cards_of_meld),) for cards_of_meld in cards_view["melds"]))
    count = _("deadwood %(count)s") % {"count": cards_view["count"]}
    return format_html(
        '<div class="row"><b>{}</b> <span class="hand-cards">{}{}</span> <span class="muted">{}</span></div>',
        cards_view["owner"],
        melds,
        cards(cards_view["deadwood"]),
        count,
    )
