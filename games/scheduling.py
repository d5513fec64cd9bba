"""Background work that a committed change asks for: delivery, computer moves, turn clocks.

Services call these only from ``transaction.on_commit`` so that a task never
sees a change that might still roll back. With ``GIN3_BACKGROUND=off`` (the
terminal channel, some tests) nothing is enqueued and the caller drives the
work itself; the periodic sweep catches anything left either way.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings


def _enabled() -> bool:
    return settings.GIN3_BACKGROUND != "off"


def deliver(message_id: int) -> None:
    if _enabled():
        from .tasks import deliver_message

        deliver_message.delay(message_id)


def computer_move(match_id: int, version: int) -> None:
    if _enabled():
        from .tasks import play_computer_move

        play_computer_move.delay(match_id, version)


def turn_clock(match_id: int, version: int, deadline: datetime | None) -> None:
    if _enabled() and deadline is not None:
        from .tasks import schedule_turn_clock

        schedule_turn_clock(match_id, version, deadline)
