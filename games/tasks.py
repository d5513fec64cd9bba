"""Celery tasks: turn clocks, reminders, computer moves, delivery, and the sweep.

Any task may run twice, late, or never (a worker killed, a broker restarted),
so each is idempotent and acts only if the state it was made for is still
current: a match task carries the match's version and does nothing once the
version has moved on; a delivery claims its message before sending it. The
settings make the broker hand a task back if its worker dies
(``CELERY_TASK_ACKS_LATE``, ``CELERY_TASK_REJECT_ON_WORKER_LOST``), and the
sweep, every ``GIN3_SWEEP_SECONDS``, finds from the database whatever was
still lost. Services enqueue only after their transaction commits
(``games.scheduling``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from celery import Task, shared_task
from django.utils import timezone

from games.services import delivery

from .models import Match
from .services import automation

# The longest a task waits in the broker: below Redis's visibility timeout
# (CELERY_BROKER_TRANSPORT_OPTIONS), after which Redis would give the waiting
# task to a second worker. A later moment is reached in hops (``run_at``).
MAX_COUNTDOWN = timedelta(minutes=50)
REMINDER_SHARE = 0.2  # reminded when a fifth of the time for the move is left, as automation.due_reminders
CLOCK_FIELDS = ("deadline", "move_seconds", "reminded")


def run_at(task: Task, args: tuple, when: datetime) -> None:
    """Enqueue ``task`` for ``when``, or for ``MAX_COUNTDOWN`` from now if that is
    sooner: a clock task that wakes up early enqueues itself again (``_moment_has_come``)."""
    wait = min(max(when - timezone.now(), timedelta(0)), MAX_COUNTDOWN)
    task.apply_async(args, countdown=wait.total_seconds())


def reminder_time(match: Match) -> datetime | None:
    """When the player to move is reminded; None if he has been already this turn."""
    if match.reminded:
        return None
    return match.deadline - timedelta(seconds=match.move_seconds * REMINDER_SHARE)


def schedule_turn_clock(match_id: int, version: int) -> None:
    """The deadline task and, unless the player was reminded already this turn, the reminder task."""
    match = Match.objects.filter(pk=match_id, version=version).only(*CLOCK_FIELDS).first()
    if match is None or match.deadline is None:
        return
    if (reminder := reminder_time(match)) is not None:
        run_at(send_reminder, (match_id, version), reminder)
    run_at(enforce_deadline, (match_id, version), match.deadline)


def _moment_has_come(task: Task, match_id: int, version: int, moment: Callable[[Match], datetime | None]) -> bool:
    """Whether the turn the task was made for is still current, with its clock
    running, and its moment has come. A task that is early (a clock longer than
    ``MAX_COUNTDOWN``, or a worker whose clock runs ahead) is enqueued again for
    the moment and does nothing now."""
    match = (
        Match.objects.filter(pk=match_id, version=version, status=Match.Status.RUNNING, paused_at__isnull=True)
        .exclude(deadline=None)
        .only(*CLOCK_FIELDS)
        .first()
    )
    if match is None or (when := moment(match)) is None:
        return False
    if when > timezone.now():
        run_at(task, (match_id, version), when)
        return False
    return True


@shared_task
def enforce_deadline(match_id: int, version: int) -> bool:
    """The turn's time is up: the timeout policy moves for the player (automation.enforce_deadline)."""
    if not _moment_has_come(enforce_deadline, match_id, version, lambda match: match.deadline):
        return False
    return automation.enforce_deadline(match_id, version)


@shared_task
def send_reminder(match_id: int, version: int) -> bool:
    """80% of the time is used: remind the player to move, once per turn."""
    if not _moment_has_come(send_reminder, match_id, version, reminder_time):
        return False
    return automation.send_reminder(match_id, version)


@shared_task
def play_computer_move(match_id: int, version: int) -> bool:
    """A computer player (or the autopilot of a player who kept missing turns) is to move."""
    return automation.play_computer_move(match_id, version)


@shared_task
def deliver_message(message_id: int) -> int:
    """Send a message, and whatever else is due to the same address after it, in order."""
    return delivery.deliver(message_id)


@shared_task
def sweep() -> dict[str, int]:
    """Enqueue again whatever is due and was lost: deadlines, reminders, computer
    moves and messages. Each item is its own task, so one slow send or one failing
    match holds up nothing else, and an item found twice is done once."""
    now = timezone.now()
    found = {
        "deadlines": (enforce_deadline, automation.due_deadlines(now)),
        "reminders": (send_reminder, automation.due_reminders(now)),
        "computer_moves": (play_computer_move, automation.due_computer_moves(now)),
        "messages": (deliver_message, [(message_id,) for message_id in delivery.due_messages(now)]),
    }
    for task, items in found.values():
        for args in items:
            task.delay(*args)
    return {name: len(items) for name, (_task, items) in found.items()}
