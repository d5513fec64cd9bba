"""What a message offers to do next: a button on Telegram, a line to type elsewhere.

A button only carries a command that can be typed (docs/protocol.md). Help offers a
player in no match to find one or open one (in a match, the table's buttons are
the ones he needs); the final result of a match offers to play it again; an
offer of the lobby (a computer player for a match that waits too long) or of a
rematch carries its command.
"""

from __future__ import annotations

from datetime import datetime
from functools import singledispatch
from html import escape
from zoneinfo import ZoneInfo

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.contract import Content
from games.contract.lists import HelpView
from games.contract.matches import ComputerOffer
from games.contract.rematch import RematchOffer
from games.contract.tables import ResultView

# What help's buttons carry: commands, typed as they are in every language.
FIND_A_MATCH = "join any"
OPEN_A_MATCH = "new open"

Buttons = list[list[dict[str, str]]]


@singledispatch
def offer_buttons(content: Content) -> Buttons:
    """The buttons under a message that is not a table (Telegram)."""
    return []


@offer_buttons.register
def _help_buttons(content: HelpView) -> Buttons:
    if content.lines:
        return []
    return [[{"text": _("Find a match"), "data": FIND_A_MATCH}, {"text": _("New match"), "data": OPEN_A_MATCH}]]


@offer_buttons.register
def _result_buttons(content: ResultView) -> Buttons:
    return [[{"text": _("Play again"), "data": f"#{content.code} again"}]] if content.game_winner else []


@offer_buttons.register
def _computer_offer_buttons(content: ComputerOffer) -> Buttons:
    return [[{"text": _("Add a computer player"), "data": f"#{content.code} bot"}]]


@offer_buttons.register
def _rematch_offer_buttons(content: RematchOffer) -> Buttons:
    return [[{"text": _("Play again"), "data": f"#{content.code} again"}]]


def offer_line(content: Content) -> str:
    """What a text channel adds where Telegram has a button: under a match's final
    result, how to play it again (the other offers say it in their text)."""
    if isinstance(content, ResultView) and content.game_winner:
        return _("To play again with the same players: again")
    return ""


# The zones offered to a Telegram player with his first table, those of his language
# first: a tap sets his zone (``tz``), so that deadlines read in his own time.
ZONES_OF_LANGUAGE = {
    "en": ("Europe/London", "America/New_York", "America/Los_Angeles"),
    "he": ("Asia/Jerusalem",),
    "lt": ("Europe/Vilnius",),
    "mk": ("Europe/Skopje",),
    "mr": ("Asia/Kolkata",),
    "ms": ("Asia/Kuala_Lumpur",),
}
OTHER_ZONES = ("Europe/London", "America/New_York", "Asia/Kolkata", "Europe/Berlin", "Asia/Jerusalem")
ZONES_OFFERED = 6
CITIES = {
    "Europe/London": gettext_lazy("London"),
    "America/New_York": gettext_lazy("New York"),
    "America/Los_Angeles": gettext_lazy("Los Angeles"),
    "Asia/Jerusalem": gettext_lazy("Jerusalem"),
    "Europe/Vilnius": gettext_lazy("Vilnius"),
    "Europe/Skopje": gettext_lazy("Skopje"),
    "Asia/Kolkata": gettext_lazy("Kolkata"),
    "Asia/Kuala_Lumpur": gettext_lazy("Kuala Lumpur"),
    "Europe/Berlin": gettext_lazy("Berlin"),
}


def zone_choice(language: str, now: datetime) -> Buttons:
    """One tap to name his time zone: his language's zones, then others, three a row,
    each with its offset from UTC now (``Vilnius UTC+2``)."""
    zones = list(dict.fromkeys((*ZONES_OF_LANGUAGE.get(language, ()), *OTHER_ZONES)))[:ZONES_OFFERED]
    buttons = [{"text": f"{CITIES[zone]} {_utc_offset(zone, now)}", "data": f"tz {zone}"} for zone in zones]
    return [buttons[start : start + 3] for start in range(0, len(buttons), 3)]


def zone_question(zone: str) -> str:
    """What the zone buttons ask, in Telegram's HTML."""
    question = _("Deadlines are told in %(zone)s time. Tap your zone, or type tz and its name (tz Europe/Skopje).")
    return escape(question % {"zone": zone}, quote=False)


def _utc_offset(zone: str, now: datetime) -> str:
    """``UTC+2``, ``UTC-7``, ``UTC+5:30``."""
    offset = now.astimezone(ZoneInfo(zone)).utcoffset()
    minutes = round(offset.total_seconds() / 60) if offset is not None else 0
    sign = "+" if minutes >= 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")
