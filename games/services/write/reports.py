"""Reports to the moderators: ``report TEXT`` about a match, and the desk's queue of them.

A report keeps the reporter's words and flags the match: from then on the
moderation desk may read the match's team chat (``desk.event_text``),
which is otherwise hidden until the match ends, since it may name the cards
of a hand in play. A player has only a few reports of one match waiting at
once, so that the queue is not flooded.
"""

from __future__ import annotations

from django.db.models import QuerySet

from games.contract.moderation import ReportsWaiting
from games.models import Match, Player, Report
from games.services.errors import ServiceError

MAX_WAITING = 3  # unhandled reports by one player about one match


def report(player: Player, match: Match, text: str) -> Report:
    """File ``player``'s report about ``match``."""
    waiting = Report.objects.filter(match=match, reporter=player, handled=False).count()
    if waiting >= MAX_WAITING:
        raise ServiceError(ReportsWaiting(match.code))
    return Report.objects.create(match=match, reporter=player, text=text)


def mark_handled(reports: QuerySet) -> int:
    """The desk is done with these reports; returns how many were waiting."""
    return reports.filter(handled=False).update(handled=True)
