"""Background work that a committed change asks for: delivery, computer moves, turn clocks.

Services call these only from ``transaction.on_commit`` so that a task never
sees a change that might still roll back. With ``GIN3_BACKGROUND=off`` (the
terminal channel, most tests) nothing is enqueued and the caller drives the
work itself; the periodic sweep (``games.tasks.sweep``) catches anything left
either way.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.utils import timezone


def _enabled() -> bool:
    return settings.GIN3_BACKGROUND != "off"


def deliver(message_id: int, when: datetime | None = None) -> None:
    """Send a message now, or at ``when`` (a retry)."""
    if _enabled():
        from .tasks import deliver_message, run_at

        run_at(deliver_message, (message_id,), when or timezone.now())


def computer_move(match_id: int, version: int) -> None:
    if _enabled():
        from .tasks import play_computer_move

        play_computer_move.delay(match_id, version)


def turn_clock(match_id: int, version: int, deadline: datetime | None) -> None:
    """The reminder and the deadline of the turn that starts or goes on at ``version``."""
    if _enabled() and deadline is not None:
        from .tasks import schedule_turn_clock

        schedule_turn_clock(match_id, version)
