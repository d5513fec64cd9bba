"""``again``: play a finished match again with the same players and options."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.text.protocol import Command

from ...models import Match, Player
from .. import rematch
from .choosing import Reply, any_match, choose


def again(player: Player, command: Command) -> Reply:
    """His yes to a rematch of the match he finished last (or of ``#CODE``)."""
    match = choose(player, command, any_match, (Match.Status.FINISHED,)).match
    new = rematch.again(player, match)
    if new is None:
        return _("You agreed to play #%(code)s again; the others are asked.") % {"code": match.code}
    return _("All three agreed: #%(new)s, a rematch of #%(old)s, starts now.") % {"new": new.code, "old": match.code}
