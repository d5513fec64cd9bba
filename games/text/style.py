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

from django.utils import dateformat, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

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
    points_sum: bool = True  # how a hand's points add up; SMS leaves it out: it made a result a text longer
    knock_limit: int = 0  # 0: every possible knock listed
    time_left: bool = True  # a deadline with the time left beside its clock; SMS says only when
    spaced_scores: bool = True  # "אלה (קפטן) 0" where role marks are words; SMS keeps the line's place in the text
    empty_pile_word: bool = True  # SMS writes "Pile -": "empty" pushed the scores line out of its one text

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
SMS_STYLE = Style(
    meld_joiner="-",
    bracket_melds=False,
    name_limit=SMS_NAME,
    knock_limit=SMS_KNOCKS,
    layoff_owner=False,
    points_sum=False,
    empty_pile_word=False,
    time_left=False,
    spaced_scores=False,
)


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
    clock = clock_text(deadline, now)
    if short:
        return _("by %(time)s") % {"time": clock}
    return _("in %(delta)s (%(time)s)") % {"delta": duration_text(seconds), "time": clock}


def clock_text(deadline: datetime, now: datetime) -> str:
    """``16:30 UTC`` in the reader's zone, ``4 Mar 16:30 UTC`` when it is not today: the
    month by its name in the reader's language, which no reader takes for the day, as
    one reads ``04.03`` as the 3rd of April."""
    local, today = timezone.localtime(deadline), timezone.localtime(now)
    clock = local.strftime("%H:%M %Z")
    return clock if local.date() == today.date() else f"{dateformat.format(local, 'j M')} {clock}"


def your_move(deadline: datetime | None, short: bool, heading: bool, now: datetime | None = None) -> str:
    """What opens the reader's turn, with his time before the moves it allows: after
    them, ``take, pass in 1d`` read as if only passing had a day. ``short`` (SMS) says
    when and not how long, as does a deadline gone by (never "0m left"); ``heading``
    is the table's, capitalised, else a match's line in a list."""
    if deadline is None:
        return _("Your move:") if heading else _("your move:")
    now = now or timezone.now()
    clock = clock_text(deadline, now)
    seconds = (deadline - now).total_seconds()
    if short or seconds <= 0:
        said = _("Your move by %(time)s:") if heading else _("your move by %(time)s:")
        return said % {"time": clock}
    said = _("Your move by %(time)s (%(left)s left):") if heading else _("your move by %(time)s (%(left)s left):")
    return said % {"time": clock, "left": duration_text(seconds)}


def duration_text(seconds: float) -> str:
    """A time left or waited, rounded up to the minute: ``59m``, ``2h 59m``, ``3d 4h``, in
    the units of the reader's language (``5 דק'``). A time a command sets (``new 5m``) is
    said as it is typed instead (``options.move_time_text``)."""
    minutes = math.ceil(seconds / 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    in_days = _("%(days)sd") % {"days": days}
    in_hours = _("%(hours)sh") % {"hours": hours}
    if days:
        return f"{in_days} {in_hours}" if hours else in_days
    in_minutes = _("%(minutes)sm") % {"minutes": minutes}
    if hours:
        return f"{in_hours} {in_minutes}" if minutes else in_hours
    return in_minutes


def wait_text(seconds: float) -> str:
    """A short wait, to the second under a minute (``30s``: a computer captain's wait for
    advice, where "1m" would promise twice the time), else as ``duration_text``."""
    if seconds >= 60:
        return duration_text(seconds)
    return _("%(seconds)ss") % {"seconds": math.ceil(seconds)}


def totals_text(totals: Iterable[tuple[str, int]]) -> str:
    """``Scores: Alice 57, Bob 0, Carol 38``: each player's total, in seat order, as a
    hand's result and a resignation end."""
    return _("Scores: %(scores)s") % {"scores": ", ".join(f"{name} {score}" for name, score in totals)}


def hand_text(view, style: Style) -> str:
    """Melds first, then the deadwood and its count: ``[7h 8h 9h] 2c 5d (7)``."""
    parts = [style.meld(meld) for meld in view.melds]
    parts += [style.cards(view.deadwood)] if view.deadwood else []
    return " ".join(parts) + " " + _("(%(count)s)") % {"count": view.count}


def scores_line(seats, style: Style) -> str:
    """``Alice(B)12 Bob(C)0 Carol(S)40``: each player's role this hand and his score. A
    language whose marks are words spaces them out (``אלה (קפטן) 0``) where the style
    allows (``spaced_scores``)."""
    pattern = "%(name)s(%(role)s)%(score)s"
    if style.spaced_scores:
        pattern = pgettext("a player in the scores line: his name, role mark and score", "%(name)s(%(role)s)%(score)s")
    return " ".join(
        pattern % {"name": style.name(seat.name), "role": ROLE_MARKS.get(seat.role, ""), "score": seat.score}
        for seat in seats
    )


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
