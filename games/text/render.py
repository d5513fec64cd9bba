"""Turning the services' values into text for each channel: one entry, ``render``.

A value's words come from the module of its subject (``tables``, ``lists``,
``lobby``, ``matches``, ``moves``, ``account``, ``own_time``, ``presence``,
``rematch``, ``moderation``, ``groups``), which register them by type
(``sentences``); the styles of the channels are in ``style``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import singledispatch

from django.utils.translation import get_language

from games.contract import Content, Notice
from games.contract.lists import HelpView, MatchesView
from games.contract.matches import CutForRoles
from games.contract.public import PublicTableView
from games.contract.tables import ResultView, TableView

from . import (  # noqa: F401 (sentences)
    account,
    advice,
    delivery,
    groups,
    lobby,
    matches,
    moderation,
    moves,
    own_time,
    presence,
    rematch,
    web,
)
from .bidi import isolate, isolate_label
from .lists import help_text, matches_text
from .offers import Buttons, button_words, offer_buttons, offer_line
from .sentences import sentence
from .sms import compact
from .style import SMS, TELEGRAM, Style, style_for
from .tables import public_table_text, result_text, sms_result, sms_table, table_buttons, table_text


@dataclass(frozen=True)
class Rendered:
    text: str
    buttons: Buttons = field(default_factory=list)


def render(content: Content, channel: str) -> Rendered:
    """Render a value for ``channel``, in the active language. For a right-to-left
    reader the left-to-right tokens (cards, codes, commands) are isolated, except by
    SMS, where every character is paid for (``bidi``)."""
    style = style_for(channel)
    if isinstance(content, TableView):
        if channel == SMS:
            return Rendered(sms_table(content))
        text = table_text(content, style)
        return Rendered(isolate(text, get_language()), _labels_isolated(table_buttons(content), channel))
    if channel == SMS and isinstance(content, ResultView):
        text = sms_result(content)
    elif channel == TELEGRAM and button_words(content):
        text = style.text(button_words(content))
    else:
        text = words(content, style)
    if channel != TELEGRAM and (line := offer_line(content)):
        text += "\n" + line
    buttons = _labels_isolated(offer_buttons(content), channel)
    return Rendered(compact(text) if channel == SMS else isolate(text, get_language()), buttons)


def _labels_isolated(buttons: Buttons, channel: str) -> Buttons:
    """Telegram's buttons, their labels isolated as the lines above them are
    (``bidi.isolate_label``). Other channels have no buttons."""
    if channel != TELEGRAM:
        return []
    language = get_language()
    return [[{**button, "text": isolate_label(button["text"], language)} for button in row] for row in buttons]


def said(notice: Notice) -> str:
    """A notice in plain words, in the active language, for a page that shows it as it is
    (the desk shows why it refused an action)."""
    return sentence(notice)


@singledispatch
def words(content: Content, style: Style) -> str:
    raise TypeError(f"nothing renders {type(content).__name__}")


@words.register
def _notice(content: Notice, style: Style) -> str:
    return style.text(sentence(content))


words.register(CutForRoles, matches.cut_words)
words.register(ResultView, result_text)
words.register(PublicTableView, public_table_text)
words.register(MatchesView, matches_text)
words.register(HelpView, help_text)
