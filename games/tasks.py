"""Celery tasks: each one idempotent, acting only if the state it was made for is still current."""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import shared_task
from django.utils import timezone

from .services import automation

MAX_COUNTDOWN = timedelta(minutes=50)  # below the Redis visibility timeout


@shared_task(acks_late=True, reject_on_worker_lost=True)
def play_computer_move(match_id: int, version: int) -> bool:
    return automation.play_computer_move(match_id, version)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def enforce_deadline(match_id: int, version: int) -> bool:
    return automation.enforce_deadline(match_id, version)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def send_reminder(match_id: int, version: int) -> bool:
    return automation.send_reminder(match_id, version)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def deliver_message(message_id: int) -> None:
    from bot.delivery import deliver

    deliver(message_id)


def schedule_turn_clock(match_id: int, version: int, deadline: datetime) -> None:
    """The reminder at 80% of the time and the deadline, when they are near enough
    to wait for in the broker; later ones are found by the sweep."""
    now = timezone.now()
    for task, when in (
        (send_reminder, deadline - (deadline - now) * 0.2),
        (enforce_deadline, deadline),
    ):
        if when - now <= MAX_COUNTDOWN:
            task.apply_async((match_id, version), eta=max(when, now))


@shared_task
def sweep() -> dict[str, int]:
    """Catch every missed deadline and reminder however its task was lost."""
    deadlines = [automation.enforce_deadline(m, v) for m, v in automation.due_deadlines()]
    reminders = [automation.send_reminder(m, v) for m, v in automation.due_reminders()]
    return {"deadlines": sum(deadlines), "reminders": sum(reminders)}
