"""Publishing the background work a committed change asks for.

A change publishes at most one task, after its commit (``services.change``):
``games.tasks.follow_up`` with the messages to deliver and the computer
moves that are due. Clocks publish nothing: deadlines and reminders are
columns that the clock scan reads (``games.tasks.scan_clocks``). Tasks are
published by name, so the services below never import the tasks above them.

A publish is a shortcut, never the record: the messages are outbox rows and
a computer's turn has its deadline, both committed with the change, and the
message sweep and the clock scan find them however the task was lost. So
while the broker cannot be reached (Redis stopped or restarting), a publish
that fails is logged and dropped: the move it followed stands, and it is not
failed after its commit. For ``BROKER_PAUSE`` seconds after a failure this
process publishes nothing, rather than make every command wait for the
broker's refusal; the sweep and the scan catch up once the broker is back.

With ``GIN3_BACKGROUND=off`` (the terminal channel, most tests) nothing is
published and the caller drives the work itself; the clock scan and the
message sweep catch anything left either way.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime

from celery import current_app
from django.conf import settings
from django.utils import timezone
from kombu.exceptions import KombuError
from redis import RedisError

log = logging.getLogger(__name__)

FOLLOW_UP = "games.tasks.follow_up"
DELIVER = "games.tasks.deliver_message"
REVIEW = "games.tasks.review_hand"
DELIVERY_QUEUE, COMPUTER_QUEUE, REVIEW_QUEUE = "delivery", "computer", "review"  # settings.GIN3_QUEUES
BROKER_ERRORS = (KombuError, RedisError, OSError)  # the broker refused, or could not be reached
BROKER_PAUSE = 5.0  # seconds without a publish after one failed
# A publish tries the broker this often before it gives up (Celery's default is 3 retries
# over a second): a command waits at most that long for a broker that is away.
RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}

_paused_until = 0.0


def _enabled() -> bool:
    return settings.GIN3_BACKGROUND != "off"


def follow_up(message_ids: list[int], computer_moves: list[tuple[int, int]]) -> None:
    """Deliver these messages and play these computer moves: one publish for one change,
    to the computer queue if it has a computer move to play, else to the delivery queue."""
    _publish(FOLLOW_UP, args=(message_ids, computer_moves), queue=COMPUTER_QUEUE if computer_moves else DELIVERY_QUEUE)


def review(hand_id: int) -> None:
    """Review a finished hand (``services.write.review``): a shortcut too, lost with the broker."""
    _publish(REVIEW, args=(hand_id,), queue=REVIEW_QUEUE)


def deliver(message_id: int, when: datetime | None = None) -> None:
    """Send a message at ``when`` (a retry after a rate limit or a network error)."""
    wait = max(((when or timezone.now()) - timezone.now()).total_seconds(), 0)
    _publish(DELIVER, args=(message_id,), countdown=wait)


def _publish(name: str, **options: object) -> None:
    global _paused_until
    if not _enabled():
        return
    if time.monotonic() < _paused_until:
        log.info("%s not published: the broker was unavailable moments ago; the sweep and the scan catch up", name)
        return
    try:
        current_app.send_task(name, retry_policy=RETRY_POLICY, **options)
    except BROKER_ERRORS as error:
        _paused_until = time.monotonic() + BROKER_PAUSE
        log.warning("%s not published, the broker is unavailable (%s): the sweep and the scan catch up", name, error)
