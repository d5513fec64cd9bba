"""The clock scan: every moment kept in a column of a match, acted on when it comes.

A turn's deadline and reminder (``deadlines``), a lobby's expiry and a rematch
offer's end are indexed columns of the match, not tasks waiting in a broker.
``scan_clocks`` runs a few seconds apart (a Celery beat task, or the terminal's
worker); it takes what is due in the order it came, one match per change, locked
with ``SKIP LOCKED`` so that scans side by side share the work.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from games import metrics
from games.models import Match
from games.services.plumbing.change import change
from games.services.write import matchmaking, rematch
from games.services.write.deadlines import enforce_deadline, send_reminder

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Clock:
    """A moment kept in a column of the match, and what is done when it comes."""

    name: str
    column: str
    status: str
    act: Callable[[int], bool]


CLOCKS = (
    Clock("deadline", "deadline", Match.Status.RUNNING, enforce_deadline),
    Clock("remind_at", "remind_at", Match.Status.RUNNING, send_reminder),
    Clock("lobby", "deadline", Match.Status.LOBBY, matchmaking.lobby_due),
    Clock("rematch", "rematch_until", Match.Status.FINISHED, rematch.lapse),
)
POSTPONE = timedelta(minutes=1)


Due = tuple[datetime, int]  # a clock's moment and its match: where a scan has got to


def next_due(clock: Clock, now: datetime, after: Due | None = None, among: Collection[int] | None = None) -> Due | None:
    """The next match whose ``clock`` has come, in the order the moments came, after
    ``after`` (what this scan has seen), locked for this change; a match another worker
    holds is skipped, so that scans side by side share the work. An indexed range scan
    (``Match.Meta.indexes``) that starts where the last one stopped: its cost grows with
    what is due, not with the table."""
    column = clock.column
    due = Match.objects.filter(pk__in=among) if among is not None else Match.objects.all()
    due = due.filter(**{f"{column}__lte": now}, status=clock.status, paused_at__isnull=True)
    if after is not None:
        # A row-value comparison, which both databases read as a range of the index
        # (an OR of the two conditions would scan the due range from its start each time).
        quote, table = connection.ops.quote_name, Match._meta.db_table
        key = f"({quote(table)}.{quote(column)}, {quote(table)}.{quote('id')})"
        moment, match_id = after
        due = due.extra(
            where=[f"{key} > (%s, %s)"], params=[connection.ops.adapt_datetimefield_value(moment), match_id]
        )
    return due.select_for_update(skip_locked=True).order_by(column, "pk").values_list(column, "pk").first()


def act_on_next_due(
    clock: Clock, now: datetime | None = None, after: Due | None = None, among: Collection[int] | None = None
) -> Due | None:
    """Act on the next match whose ``clock`` has come and return where the scan got to;
    None when none is due. A match whose action fails is logged and put back by
    ``POSTPONE``, so that one broken match never holds up the rest."""
    now = now or timezone.now()
    due = None
    try:
        with change():
            due = next_due(clock, now, after, among)
            if due is not None:
                clock.act(due[1])
        if due is not None:
            metrics.CLOCK_LAG.labels(clock=clock.name).observe(max((timezone.now() - due[0]).total_seconds(), 0))
        return due
    except Exception:
        if due is None:
            raise
        log.exception("the clock could not act on match %s (%s)", due[1], clock.name)
        Match.objects.filter(pk=due[1]).update(**{clock.column: timezone.now() + POSTPONE})
        return due


def scan_clocks(
    budget: timedelta = timedelta(seconds=1.5), now: datetime | None = None, among: Collection[int] | None = None
) -> dict[str, int]:
    """Act on every deadline, reminder, lobby clock and rematch offer that has come (in the matches
    ``among``, if given), one match per transaction, until none is left or ``budget``
    is spent (the next scan goes on); return how many of each were found."""
    stop = time.monotonic() + budget.total_seconds()
    found = {}
    for clock in CLOCKS:
        found[clock.name], due = 0, None
        while time.monotonic() < stop and (due := act_on_next_due(clock, now, due, among)) is not None:
            found[clock.name] += 1
    return found
