"""``again``: play a finished match again with the same players and options."""

from __future__ import annotations

from games.contract.rematch import RematchAsked, RematchStarts
from games.services.write import rematch
from games.text.protocol import Command

from ...models import Match, Player
from .choosing import Reply, any_match, choose


def again(player: Player, command: Command) -> Reply:
    """His yes to a rematch of the match he finished last (or of ``#CODE``)."""
    match = choose(player, command, any_match, (Match.Status.FINISHED,)).match
    new = rematch.again(player, match)
    if new is None:
        return RematchAsked(match.code)
    return RematchStarts(new.code, match.code)
