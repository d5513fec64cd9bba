"""Finding a match among strangers: ``open`` and ``join any`` (``join CODE`` is ``lobby.join``)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.text.lobby import open_text
from games.text.protocol import ANY, Command

from ...models import Match, Player
from .. import matchmaking
from . import lobby
from .choosing import Reply


def open_matches(player: Player, command: Command) -> Reply:
    """The open matches he could join, oldest first."""
    lines, more = matchmaking.open_matches(player)
    return lambda: open_text(lines, more)


def join(player: Player, command: Command) -> Reply:
    """``join CODE``, or ``join any [TIME]``: a seat in the oldest open match, or a new open one."""
    if command.text != ANY:
        return lobby.join(player, command)
    match, opened = matchmaking.join_any(player, command.number)
    options = lobby.options_text(match)
    if opened:
        return _(
            "No open match was waiting, so you opened #%(code)s: %(options)s. Others find it with open or "
            "join any; bot adds a computer player."
        ) % {"code": match.code, "options": options}
    if match.status == Match.Status.RUNNING:
        return _("You joined #%(code)s.") % {"code": match.code}  # the cut for roles follows
    return _("You joined #%(code)s: %(options)s. Waiting for one more player (or type bot).") % {
        "code": match.code,
        "options": options,
    }
