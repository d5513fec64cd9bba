"""Turning the service layer's views into text for each channel: one entry, ``render``.

The words are in ``tables`` (the table and the end of a hand) and ``lists``
(a player's matches, help); the styles of the channels in ``style``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import get_language

from .bidi import isolate
from .lists import help_text, matches_text
from .offers import offer_buttons, offer_line
from .sms import compact
from .style import SMS, TELEGRAM, style_for
from .tables import public_table_text, result_text, sms_table, table_buttons, table_text
from .web import sign_in_text


@dataclass(frozen=True)
class Rendered:
    text: str
    buttons: list[list[dict[str, str]]] = field(default_factory=list)


def render(content: object, channel: str) -> Rendered:
    """Render a view (or a plain string) for ``channel``, in the active language. For a
    right-to-left reader the left-to-right tokens (cards, codes, commands) are isolated,
    except by SMS, where every character is paid for (``bidi``)."""
    style = style_for(channel)
    kind = type(content).__name__
    if kind == "TableView" and channel == SMS:
        return Rendered(sms_table(content))
    if kind == "TableView":
        text = table_text(content, style)
        return Rendered(isolate(text, get_language()), table_buttons(content) if channel == TELEGRAM else [])
    words = {
        "ResultView": result_text,
        "PublicTableView": public_table_text,
        "MatchesView": matches_text,
        "HelpView": help_text,
        "SignInLinkView": sign_in_text,
    }.get(kind)
    text = words(content, style) if words else style.text(str(content))
    if channel != TELEGRAM and (line := offer_line(content)):
        text += "\n" + line
    buttons = offer_buttons(content) if channel == TELEGRAM else []
    return Rendered(compact(text) if channel == SMS else isolate(text, get_language()), buttons)
