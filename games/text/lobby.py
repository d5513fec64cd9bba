"""The lobby as players read it: the open matches they could join (``open``).

Built from ``matchmaking.OpenMatch``, which holds only what anyone may see of
a match that waits for players.
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _

from .protocol import MOVE_TIMES, NewOptions
from .style import duration_text

DEFAULTS = NewOptions()


def open_text(lines, more: int) -> str:
    """``open``: one line a match, its options, who waits and for how long."""
    if not lines:
        return _("No open match waits for players now. join any opens one that others can join.")
    now = timezone.now()
    text = [_("Open matches (join CODE, or join any for the oldest):")]
    for line in lines:
        text.append(
            _("#%(code)s %(options)s: %(names)s, waiting %(waited)s")
            % {
                "code": line.code,
                "options": options_text(line),
                "names": ", ".join(line.names),
                "waited": duration_text((now - line.since).total_seconds()),
            }
        )
    if more:
        text.append(_("... and %(count)s more.") % {"count": more})
    return "\n".join(text)


def options_text(line) -> str:
    """The move time and the target always, the other options where they differ from the default."""
    time = next((name for name, seconds in MOVE_TIMES.items() if seconds == line.move_seconds), f"{line.move_seconds}s")
    parts = [_("%(time)s a move") % {"time": time}, _("to %(target)s") % {"target": line.target}]
    if line.gin_bonus != DEFAULTS.gin_bonus:
        parts.append(_("gin bonus %(bonus)s") % {"bonus": line.gin_bonus})
    if line.undercut_bonus != DEFAULTS.undercut_bonus:
        parts.append(_("undercut bonus %(bonus)s") % {"bonus": line.undercut_bonus})
    if line.may_discard_taken:
        parts.append("anydiscard")
    return ", ".join(parts)
