"""What a message offers to do next: a button on Telegram, a line to type elsewhere.

A button only carries a command that can be typed (docs/protocol.md), or a link.
Help offers a player in no match to find one or open one (in a match, the table's
buttons are the ones he needs); a match that waits for players offers a computer
player and, to its maker, a way to share the invitation; every final result of a
match offers to play it again; ``resign`` is confirmed by a button; an offer of the
lobby (a computer player for a match that waits too long) or of a rematch carries
its command. Where a button does what a sentence would ask him to type, Telegram
reads a shorter sentence (``button_words``).
"""

from __future__ import annotations

from datetime import datetime
from functools import singledispatch
from html import escape
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from django.utils import translation
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from games.contract import Content
from games.contract.lists import HelpView
from games.contract.matches import (
    ComputerOffer,
    ConfirmResign,
    MatchCreated,
    Resigned,
    YouJoined,
    YouOpened,
    YouResigned,
)
from games.contract.rematch import RematchOffer
from games.contract.tables import ResultView

from .advice import LEVEL_WORDS
from .links import join_link

# What help's buttons carry: commands, typed as they are in every language.
FIND_A_MATCH = "join any"
OPEN_A_MATCH = "new open"
CONFIRM_RESIGN = "resign yes"

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
    return [[_play_again(content.code)]] if content.game_winner else []


@offer_buttons.register
def _computer_offer_buttons(content: ComputerOffer) -> Buttons:
    return [[_add_computer(content.code)], _levels(content.code)]


@offer_buttons.register
def _created_buttons(content: MatchCreated) -> Buttons:
    share = _share(content.code)
    return [[_add_computer(content.code), *([share] if share else [])]]


@offer_buttons.register
def _joined_buttons(content: YouJoined) -> Buttons:
    return [] if content.started else [[_add_computer(content.code)]]


@offer_buttons.register
def _opened_buttons(content: YouOpened) -> Buttons:
    return [[_add_computer(content.code)]]


@offer_buttons.register
def _confirm_resign_buttons(content: ConfirmResign) -> Buttons:
    return [
        [{"text": _("Yes, resign #%(code)s") % {"code": content.code}, "data": f"#{content.code} {CONFIRM_RESIGN}"}]
    ]


@offer_buttons.register(YouResigned)
@offer_buttons.register(Resigned)
def _resigned_buttons(content: YouResigned | Resigned) -> Buttons:
    return [[_play_again(content.code)]]


def _add_computer(code: str) -> dict[str, str]:
    return {"text": _("Add a computer player"), "data": f"#{code} bot"}


def _levels(code: str) -> list[dict[str, str]]:
    """A computer player of each level, in the reader's words (``bot hard``)."""
    return [{"text": capfirst(str(word)), "data": f"#{code} bot {level}"} for level, word in LEVEL_WORDS.items()]


def _play_again(code: str) -> dict[str, str]:
    return {"text": _("Play again"), "data": f"#{code} again"}


def _share(code: str) -> dict[str, str] | None:
    """Telegram's share sheet with the invitation: the friend taps the link and is seated."""
    link = join_link(code)
    if not link:
        return None
    text = _("Play gin rummy with me: match #%(code)s") % {"code": code}
    return {
        "text": _("Share the invitation"),
        "url": "https://t.me/share/url?" + urlencode({"url": link, "text": text}),
    }


@singledispatch
def button_words(content: Content) -> str:
    """What Telegram says instead of the sentence, where a button does what it asks to type; "" if the same."""
    return ""


@button_words.register
def _confirm_resign_words(content: ConfirmResign) -> str:
    return _("Resigning ends #%(code)s for all three, and you lose it. Are you sure?") % {"code": content.code}


@offer_buttons.register
def _rematch_offer_buttons(content: RematchOffer) -> Buttons:
    return [[_play_again(content.code)]]


def offer_line(content: Content) -> str:
    """What a text channel adds where Telegram has a button: under a match's final
    result, how to play it again (the other offers say it in their text)."""
    if isinstance(content, ResultView) and content.game_winner:
        return _("To play again with the same players: again")
    return ""


# Telegram's menu (``bot.telegram.client.menu``): the commands of docs/protocol.md a player
# types most. The command words stay as typed; their descriptions are translated for each
# language the menu is registered in.
MENU = (
    ("help", gettext_noop("The commands that make sense now")),
    ("new", gettext_noop("Start a match: new [5m|1h|12h|1d|3d|7d] [to N] [gin 20]")),
    ("join", gettext_noop("Join a match: join CODE")),
    ("status", gettext_noop("Your cards and the table")),
    ("draw", gettext_noop("Take the top of the stock")),
    ("take", gettext_noop("Take the top of the discard pile")),
    ("pass", gettext_noop("Refuse the upcard")),
    ("discard", gettext_noop("Discard a card: discard 7h")),
    ("knock", gettext_noop("Discard and knock: knock 7h")),
    ("suggest", gettext_noop("Sitter: advise the captain, e.g. suggest draw")),
    ("accept", gettext_noop("Captain: play the sitter's suggestion")),
    ("team", gettext_noop("A message to your partner only")),
    ("score", gettext_noop("The scores and the hands so far")),
    ("bot", gettext_noop("Fill an empty seat with a computer player")),
    ("leave", gettext_noop("Leave a match that has not started")),
    ("resign", gettext_noop("Give a match up")),
    ("lang", gettext_noop("Reply language: en mk he lt mr ms")),
)


# In a group only ``group CODE`` acts (cards are private); help there says so.
GROUP_MENU = (
    ("group", gettext_noop("Follow a match in this group: group CODE")),
    ("help", gettext_noop("How to play: in a private chat with the bot")),
)
# "What can this bot do?", on the empty chat before Start (at most 512 characters),
# and the short line on the bot's profile and in shared links (at most 120).
DESCRIPTION = gettext_noop(
    "gin3 is gin rummy for three, played a move at a time: the box plays alone against a team, "
    "whose captain plays the hand while the sitter advises him. Press Start, then type new for a "
    "match of your own and share its invitation, or play at once against two computer players "
    "(new, then bot twice). help says what you can do at each moment."
)
SHORT_DESCRIPTION = gettext_noop("Gin rummy for three, a move at a time. Press Start, then type new.")
MAX_DESCRIPTION = 512
MAX_SHORT_DESCRIPTION = 120


def menu(language: str, commands: tuple[tuple[str, str], ...] = MENU) -> list[tuple[str, str]]:
    """A Telegram menu (``MENU`` or ``GROUP_MENU``) in ``language``: each command with its description."""
    with translation.override(language):
        return [(name, _(description)) for name, description in commands]


def in_language(text: str, language: str) -> str:
    """``text`` (a msgid marked with gettext_noop) translated into ``language``."""
    with translation.override(language):
        return _(text)


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
