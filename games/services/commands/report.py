"""``report TEXT``: a word to the moderators about a match."""

from __future__ import annotations

from games.contract.moderation import ReportTaken
from games.services.write import reports
from games.text.protocol import Command

from ...models import Match, Player
from .choosing import ACTIVE, Reply, any_match, choose


def report(player: Player, command: Command) -> Reply:
    """Flag his match (or ``#CODE``) for the moderators, with his words; a seat a
    computer plays for him stays with the computer (this is no move)."""
    match = choose(player, command, any_match, (*ACTIVE, Match.Status.FINISHED)).match
    reports.report(player, match, command.text)
    return ReportTaken(match.code)
