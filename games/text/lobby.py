"""The lobby as players read it: the open matches they could join (``open``).

Built from ``games.contract.lists.OpenMatchesView``, which holds only what
anyone may see of a match that waits for players.
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _

from games.contract.lists import OpenMatchesView

from .options import lobby_options_text
from .sentences import sentence
from .style import duration_text


@sentence.register
def open_text(view: OpenMatchesView) -> str:
    """``open``: one line a match, its options, who waits and for how long."""
    if not view.lines:
        return _("No open match waits for players now. join any opens one that others can join.")
    now = timezone.now()
    text = [_("Open matches (join CODE, or join any for the oldest):")]
    for line in view.lines:
        text.append(
            _("#%(code)s %(options)s: %(names)s, waiting %(waited)s")
            % {
                "code": line.code,
                "options": lobby_options_text(line.options),
                "names": ", ".join(line.names),
                "waited": duration_text((now - line.since).total_seconds()),
            }
        )
    if view.more:
        text.append(_("... and %(count)s more.") % {"count": view.more})
    return "\n".join(text)
