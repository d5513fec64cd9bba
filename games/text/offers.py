"""What a message offers to do next: a button on Telegram, a line to type elsewhere.

A button only carries a command that can be typed (docs/protocol.md). Help offers a
player in no match to find one or open one (in a match, the table's buttons are
the ones he needs); the final result of a match offers to play it again; an
offer of the lobby (a computer player for a match that waits too long) or of a
rematch carries its command.
"""

from __future__ import annotations

from functools import singledispatch

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

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


def menu(language: str) -> list[tuple[str, str]]:
    """Telegram's menu in ``language``: each command with its description."""
    with translation.override(language):
        return [(name, _(description)) for name, description in MENU]
