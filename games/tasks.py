"""Celery tasks: what a committed change asks for, the clock scan, and the message sweep.

Any task may run twice, late, or never (a worker killed, a broker restarted),
so each is idempotent and acts only if the state it was made for is still
current: a computer move carries the match's version and does nothing once
the version has moved on; a delivery claims its message before sending it.
The settings make the broker hand a task back if its worker dies
(``CELERY_TASK_ACKS_LATE``, ``CELERY_TASK_REJECT_ON_WORKER_LOST``).

- ``follow_up``: published once by each change that wrote messages or made a
  computer player's turn (``games.services.plumbing.scheduling``).
- ``scan_clocks``: beat runs it every ``GIN3_CLOCK_SECONDS``; it acts on the
  deadlines and reminders that have come (``clock_scan.scan_clocks``). A
  computer move whose follow-up was lost is due by its deadline too.
- ``review_hand``: published once by the change that finished a hand; it judges
  the people's moves of the hand and stores that once (``services.write.review``).
- ``sweep``: beat runs it every ``GIN3_SWEEP_SECONDS``; it delivers the
  messages whose task was lost or whose retry has come.

Each task has a queue (``CELERY_TASK_ROUTES``: clock, delivery, computer, review) and
time limits: a soft one that raises inside the task, so that its change rolls
back and the scan or the sweep takes the work up again, and a hard one that
kills a process stuck past it. Limits need the prefork pool (the workers of
``manage.py serve`` on PostgreSQL, and of the compose file); SQLite's solo pool
has none.
"""

from __future__ import annotations

from celery import shared_task

from games.services.plumbing import delivery
from games.services.write import clock_scan, computer_moves, review


@shared_task(soft_time_limit=120, time_limit=150)
def follow_up(message_ids: list[int], moves_due: list[tuple[int, int]]) -> int:
    """Deliver a change's messages and play the computer move it made due; return how
    many messages were sent here.

    A change publishes this once (``games.services.plumbing.scheduling``): to the computer queue when
    it made a computer move due, and then the messages go on to the delivery queue
    first, so that a backlog of deliveries never holds a computer move back."""
    if moves_due:
        if message_ids:
            deliver_messages.delay(message_ids)
        for match_id, version in moves_due:
            computer_moves.play_computer_move(match_id, version)
        return 0
    return delivery.deliver_messages(message_ids)


@shared_task(soft_time_limit=100, time_limit=110)
def deliver_messages(message_ids: list[int]) -> int:
    """Send these messages, each address's with whatever else is due to it, in order."""
    return delivery.deliver_messages(message_ids)


@shared_task(soft_time_limit=30, time_limit=60)
def scan_clocks() -> dict[str, int]:
    """Act on the deadlines and reminders that have come."""
    return clock_scan.scan_clocks()


@shared_task(soft_time_limit=30, time_limit=60)
def play_computer_move(match_id: int, version: int) -> bool:
    """A computer player (or the autopilot of a player who kept missing turns) is to move."""
    return computer_moves.play_computer_move(match_id, version)


@shared_task(soft_time_limit=100, time_limit=110)
def deliver_message(message_id: int) -> int:
    """Send a message, and whatever else is due to the same address after it, in order.
    Its hard limit is below delivery's lease, so that no message is being sent twice."""
    return delivery.deliver(message_id)


@shared_task(soft_time_limit=30, time_limit=60)
def sweep() -> int:
    """Deliver again what is due and was lost: one task per address, so that one slow
    send holds up nothing else. Returns how many addresses were found."""
    due = delivery.due_messages()
    for message_id in due:
        deliver_message.delay(message_id)
    return len(due)


@shared_task(soft_time_limit=120, time_limit=150)
def review_hand(hand_id: int) -> bool:
    """Judge the moves of the people in a finished hand, within ``GIN3_REVIEW_SECONDS``,
    and store it; a second run stores nothing. Its limits are well above that budget."""
    return review.review_hand(hand_id)
