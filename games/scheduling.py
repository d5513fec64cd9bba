"""Publishing the background work a committed change asks for.

A change publishes at most one task, after its commit (``services.change``):
``games.tasks.follow_up`` with the messages to deliver and the computer
moves that are due. Clocks publish nothing: deadlines and reminders are
columns that the clock scan reads (``games.tasks.scan_clocks``). Tasks are
published by name, so the services below never import the tasks above them.

With ``GIN3_BACKGROUND=off`` (the terminal channel, most tests) nothing is
published and the caller drives the work itself; the clock scan and the
message sweep catch anything left either way.
"""

from __future__ import annotations

from datetime import datetime

from celery import current_app
from django.conf import settings
from django.utils import timezone

FOLLOW_UP = "games.tasks.follow_up"
DELIVER = "games.tasks.deliver_message"
DELIVERY_QUEUE, COMPUTER_QUEUE = "delivery", "computer"  # settings.GIN3_QUEUES


def _enabled() -> bool:
    return settings.GIN3_BACKGROUND != "off"


def follow_up(message_ids: list[int], computer_moves: list[tuple[int, int]]) -> None:
    """Deliver these messages and play these computer moves: one publish for one change,
    to the computer queue if it has a computer move to play, else to the delivery queue."""
    if _enabled():
        queue = COMPUTER_QUEUE if computer_moves else DELIVERY_QUEUE
        current_app.send_task(FOLLOW_UP, args=(message_ids, computer_moves), queue=queue)


def deliver(message_id: int, when: datetime | None = None) -> None:
    """Send a message at ``when`` (a retry after a rate limit or a network error)."""
    if _enabled():
        wait = max(((when or timezone.now()) - timezone.now()).total_seconds(), 0)
        current_app.send_task(DELIVER, args=(message_id,), countdown=wait)
