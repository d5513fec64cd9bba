"""What a message offers to do next: a button on Telegram, a line to type elsewhere.

A button only carries a command that can be typed (docs/protocol.md). Help offers a
player in no match to find one or open one (in a match, the table's buttons are
the ones he needs); the final result of a match offers to play it again; an
offer of the lobby (a computer player for a match that waits too long) or of a
rematch carries its command.
"""

from __future__ import annotations

from functools import singledispatch

from django.utils.text import capfirst
from django.utils.translation import gettext as _

from games.contract import Content
from games.contract.lists import HelpView
from games.contract.matches import ComputerOffer
from games.contract.rematch import RematchOffer
from games.contract.tables import ResultView

from .advice import LEVEL_WORDS

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
    code = content.code
    levels = [{"text": capfirst(str(word)), "data": f"#{code} bot {level}"} for level, word in LEVEL_WORDS.items()]
    return [[{"text": _("Add a computer player"), "data": f"#{code} bot"}], levels]


@offer_buttons.register
def _rematch_offer_buttons(content: RematchOffer) -> Buttons:
    return [[{"text": _("Play again"), "data": f"#{content.code} again"}]]


def offer_line(content: Content) -> str:
    """What a text channel adds where Telegram has a button: under a match's final
    result, how to play it again (the other offers say it in their text)."""
    if isinstance(content, ResultView) and content.game_winner:
        return _("To play again with the same players: again")
    return ""
