"""How each channel writes gin3's words: the styles, and the pieces every text is made of.

One layout for every channel, in three styles: the terminal gets plain ASCII
(``7h Td Qs``); SMS the same, tightened to fit one 160-character GSM-7 segment
where it can; Telegram HTML with suit symbols and buttons.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from html import escape

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from games.engine import Card

SMS = "sms"
TELEGRAM = "telegram"
SMS_NAME = 11  # "Player 1234", an SMS player's name until he chooses one, in full
SMS_KNOCKS = 2
ROLE_NAMES = {"box": gettext_lazy("box"), "captain": gettext_lazy("captain"), "sitter": gettext_lazy("sitter")}
# The short marks of the scores line: "Alice(B)12 Bob(C)0 Carol(S)40".
ROLE_MARKS = {
    "box": pgettext_lazy("role mark in the scores line", "B"),
    "captain": pgettext_lazy("role mark in the scores line", "C"),
    "sitter": pgettext_lazy("role mark in the scores line", "S"),
}
HAND_KINDS = {
    "knock": pgettext_lazy("how a hand ended", "knock"),
    "gin": pgettext_lazy("how a hand ended", "gin"),
    "undercut": pgettext_lazy("how a hand ended", "undercut"),
    "draw": pgettext_lazy("how a hand ended", "drawn"),
}


@dataclass(frozen=True)
class Style:
    """How one channel writes the same layout."""

    rich: bool = False  # HTML with suit symbols (Telegram)
    meld_joiner: str = " "  # SMS writes 7h-8h-9h: brackets cost two GSM-7 characters each
    bracket_melds: bool = True
    name_limit: int = 0  # 0: names in full
    layoff_owner: bool = True  # SMS leaves it out: the knocker's melds are on the line above
    knock_limit: int = 0  # 0: every possible knock listed

    def text(self, text: str) -> str:
        return escape(text, quote=False) if self.rich else text

    def bold(self, text: str) -> str:
        return f"<b>{escape(text, quote=False)}</b>" if self.rich else text

    def name(self, name: str) -> str:
        if self.name_limit and len(name) > self.name_limit:
            name = name[: self.name_limit - 1] + "."
        return self.text(name)

    def card(self, card: Card) -> str:
        return card.symbol.replace("T", "10") if self.rich else str(card)

    def cards(self, cards: Iterable[Card]) -> str:
        return " ".join(self.card(card) for card in cards)

    def meld(self, meld: Iterable[Card]) -> str:
        joined = self.meld_joiner.join(self.card(card) for card in meld)
        return f"[{joined}]" if self.bracket_melds else joined


PLAIN = Style()
RICH = Style(rich=True)
SMS_STYLE = Style(meld_joiner="-", bracket_melds=False, name_limit=SMS_NAME, knock_limit=SMS_KNOCKS, layoff_owner=False)


def style_for(channel: str) -> Style:
    return SMS_STYLE if channel == SMS else RICH if channel == TELEGRAM else PLAIN


def deadline_text(deadline: datetime, now: datetime | None = None, short: bool = False) -> str:
    """When time runs out, in the notation of ``new 5m`` so that every language reads
    it: ``in 2h 59m (16:30 UTC)``, the date added when it is not today; the time left
    is rounded up to the minute, and a deadline that has passed is "now". ``short``
    (SMS) leaves out the time left."""
    now = now or timezone.now()
    seconds = (deadline - now).total_seconds()
    if seconds <= 0:
        return _("now")
    local, today = timezone.localtime(deadline), timezone.localtime(now)
    clock = local.strftime("%H:%M" if local.date() == today.date() else "%d.%m %H:%M") + " " + local.strftime("%Z")
    if short:
        return _("by %(time)s") % {"time": clock}
    return _("in %(delta)s (%(time)s)") % {"delta": duration_text(seconds), "time": clock}


def duration_text(seconds: float) -> str:
    """A time left, rounded up to the minute: ``59m``, ``2h 59m``, ``3d 4h``."""
    minutes = math.ceil(seconds / 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h {minutes}m" if minutes else f"{hours}h"
    return f"{minutes}m"


def hand_text(view, style: Style) -> str:
    """Melds first, then the deadwood and its count: ``[7h 8h 9h] 2c 5d (7)``."""
    parts = [style.meld(meld) for meld in view.melds]
    parts += [style.cards(view.deadwood)] if view.deadwood else []
    return " ".join(parts) + " " + _("(%(count)s)") % {"count": view.count}


def scores_line(seats, style: Style) -> str:
    """``Alice(B)12 Bob(C)0 Carol(S)40``: each player's role this hand and his score."""
    return " ".join(f"{style.name(seat.name)}({ROLE_MARKS.get(seat.role, '')}){seat.score}" for seat in seats)


def moves_text(view, knocks: int) -> str:
    """What the reader may play: ``take, draw`` or ``d CARD, knock 6s(6), 9h(8)``."""
    moves = [move for move in view.moves if not move.startswith(("discard ", "knock "))]
    if any(move.startswith("discard ") for move in view.moves):
        moves.append("d CARD")
    if view.knocks:
        best = sorted(view.knocks.items(), key=lambda item: (item[1], item[0]))
        listed = ", ".join(f"{card}({count})" for card, count in best[: knocks or None])
        moves.append(_("knock %(cards)s") % {"cards": listed})
    return ", ".join(moves)
